"""Benchmark: how xqdb's stored ending of each record compares with pyffish at the record's end,
and how many games ``xqdb query disagreements`` lists.

Run: ``python bench/bench_endings.py [--db ccpd.duckdb] [--no-db] [--show 5]``. Prints
figures; asserts nothing (the tests pin the cases).

For every valid record of ``ccpd-dev.zip``, ``uci/liu-dahua-1125.pgn`` and
``adjudication-differs.jsonl``, replayed with pyffish's move limit (100 plies), the
verdict xqdb stores (``games.termination`` and ``games.rules_result``, as
:class:`xqdb.replay.ReplayedGame` gives them) is compared with pyffish on the record's
final position, all its moves given:

* **forced** ending (pyffish has no ``is_game_end``: it is ``legal_moves == []`` with
  ``game_result``, or ``is_immediate_game_end``): xqdb agrees when it says checkmate or
  stalemate with the same result exactly when pyffish's forced ending is there;
* **claimable** ending (``is_optional_game_end``): xqdb agrees when it says repetition,
  perpetual check or chase, or move limit with pyffish's result exactly when pyffish
  says the game may end there;
* **both**: both of the above.

A record xqdb ends by a repetition cycle that ends a ply or two before the record's last
move is counted as a disagreement with pyffish at the last position (``near end`` counts
those where pyffish agrees one or two plies earlier).

Measured (before: the first ending the rules met was stored; after: how the record ends):
ccpd-dev.zip agrees with pyffish on both 10,953 / 11,788 before, 11,781 / 11,788 after (the
7 others end a ply or two after a repetition, where pyffish agrees); liu-dahua 1,040 /
1,125 before, 1,124 / 1,125 after; adjudication-differs 1 / 12 before, 12 / 12 after;
``xqdb query disagreements`` on ccpd-dev.zip lists 317 games before, 12 after.

The disagreements figure imports ``ccpd-dev.zip`` with ``xqdb import`` (the default move
limit) into a temporary database, or uses ``--db``, and counts the rows of ``xqdb query
disagreements``.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pyffish

from xqdb.formats import read_paths
from xqdb.formats.record import GameRecord, Origin
from xqdb.replay import ReplayedGame, replay
from xqdb.rules.position import BasePosition

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"  # or --data
SOURCES = ("ccpd-dev.zip", "uci/liu-dahua-1125.pgn", "adjudication-differs.jsonl")
MOVE_LIMIT = 100  # pyffish's, in plies
MATE = pyffish.VALUE_MATE
FORCED = ("checkmate", "stalemate")


def ffish_move(move: str) -> str:
    """``b2b9`` (ranks 0-9) -> ``b3b10`` (pyffish's ranks 1-10)."""
    return f"{move[0]}{int(move[1]) + 1}{move[2]}{int(move[3]) + 1}"


def _result(value: int, red_to_move: bool) -> str:
    """pyffish's value (side to move's point of view) as a PGN result."""
    if value == 0:
        return "1/2-1/2"
    red_wins = (value > 0) == red_to_move
    return "1-0" if red_wins else "0-1"


def pyffish_end(fen: str, moves: list[str]) -> tuple[str | None, str | None]:
    """``(forced result or None, claimable result or None)`` after ``moves`` from ``fen``."""
    red_to_move = (len(moves) % 2 == 0) == (fen.split()[1] in ("w", "r"))
    forced = None
    if not pyffish.legal_moves("xiangqi", fen, moves):
        forced = _result(pyffish.game_result("xiangqi", fen, moves), red_to_move)
    else:
        ended, value = pyffish.is_immediate_game_end("xiangqi", fen, moves)
        if ended:
            forced = _result(value, red_to_move)
    ended, value = pyffish.is_optional_game_end("xiangqi", fen, moves)
    return forced, (_result(value, red_to_move) if ended else None)


def compare(game: ReplayedGame) -> tuple[bool, bool, bool]:
    """``(agrees on forced, agrees on claimable, pyffish agrees 1-2 plies before the end)``."""
    fen = BasePosition.from_fen(game.start_fen).fen()
    moves = [ffish_move(m) for m in game.uci]
    forced, claimable = pyffish_end(fen, moves)
    name, result = game.termination, game.rules_result
    ours_forced = result if name in FORCED else None
    ours_claimable = result if name is not None and name not in FORCED else None
    near = False
    if ours_claimable is not None and claimable != ours_claimable:
        near = any(pyffish_end(fen, moves[:len(moves) - back])[1] == ours_claimable
                   for back in (1, 2) if len(moves) > back)
    return forced == ours_forced, claimable == ours_claimable, near


def records(data: Path, source: str) -> Iterator[GameRecord]:
    path = data / source
    if path.suffix != ".jsonl":
        yield from read_paths([str(path)])
        return
    for index, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        item = json.loads(line)
        record = GameRecord(origin=Origin(str(path), item["path"], index), format="pgn",
                            notation="uci", fen=item["fen"])
        record.moves.extend(item["moves_uci"])
        yield record


def pyffish_figures(data: Path, show: int) -> None:
    for source in SOURCES:
        games = [g for g in (replay(r, move_limit=MOVE_LIMIT) for r in records(data, source))
                 if g.is_valid]
        forced = claimable = both = near = 0
        kinds: Counter[str] = Counter()
        differ: Counter[str] = Counter()
        examples: list[str] = []
        for game in games:
            f, c, n = compare(game)
            kind = game.termination or "none"
            kinds[kind] += 1
            forced += f
            claimable += c
            both += f and c
            near += n
            if not (f and c):
                differ[kind] += 1
                if len(examples) < show:
                    examples.append(f"{game.record.origin}: xqdb {kind} {game.rules_result}")
        total = len(games)
        print(f"{source}: {total:,} valid games")
        print(f"  agree with pyffish at the record's end: forced {forced:,}/{total:,}, "
              f"claimable {claimable:,}/{total:,}, both {both:,}/{total:,}"
              f" (differ {total - both:,}; of them near end {near})")
        for kind, count in sorted(kinds.items()):
            print(f"    xqdb {kind:<16} {count:6,}  differ {differ[kind]}")
        for line in examples:
            print("     ", line)


def disagreements(data: Path, db: str | None) -> None:
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as folder:
        if db is None:
            db = str(Path(folder) / "ccpd.duckdb")
            subprocess.run([sys.executable, "-m", "xqdb", "import", str(data / "ccpd-dev.zip"),
                            "--db", db], check=True, env=env, capture_output=True)
        out = subprocess.run([sys.executable, "-m", "xqdb", "query", "disagreements", "--db", db,
                              "-p", "limit=1000000", "--format", "csv"],
                             check=True, env=env, capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    print(f"ccpd-dev.zip: xqdb query disagreements lists {len(rows):,} games")
    if rows and "kind" in rows[0]:
        for kind, count in Counter(r["kind"] for r in rows).most_common():
            print(f"  {kind:<28} {count:5,}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", help="a database of ccpd-dev.zip already imported")
    parser.add_argument("--no-db", action="store_true", help="skip the disagreements figure")
    parser.add_argument("--show", type=int, default=5, help="differing games to list per source")
    parser.add_argument("--data", type=Path, default=DATA, help="the shared data folder")
    args = parser.parse_args()
    pyffish_figures(args.data, args.show)
    if not args.no_db:
        disagreements(args.data, args.db)


if __name__ == "__main__":
    main()
