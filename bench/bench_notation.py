"""Notation benchmark: parse and write plies/s on real games, one core.

Run: ``python bench/bench_notation.py [--repeat 3]``. Prints figures; asserts nothing.

Input: the 1,125 master games of ``uci/liu-dahua-1125.pgn`` (their Chinese, WXF and SAN texts
are written once by the tool itself, then read back as a file would be), and the 20 xqbase
games of ``pgn-gbk/`` in their own Chinese text. Each figure is the best of ``--repeat``
runs; "write" and "parse" figures are net of the cost of making the moves.
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable
from pathlib import Path

from xqdb import Move, Position
from xqdb.formats.record import GameRecord, Origin
from xqdb.notation import read_move, write_move
from xqdb.replay import replay

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
_MOVE = re.compile(r"\b[a-i][0-9][a-i][0-9]\b")
_NUMBER = re.compile(r"^\d+[.．]")


def coordinate_games(path: Path) -> list[list[Move]]:
    text = path.read_text(encoding="utf-8")
    return [[Move.from_uci(m) for m in _MOVE.findall(block)] for block in text.split("[Event")[1:]]


def gbk_games(folder: Path) -> list[list[str]]:
    """Move texts of the xqbase GBK files (movetext up to the result, advert dropped)."""
    games = []
    for path in sorted(folder.glob("*.PGN")):
        body = path.read_bytes().decode("gb18030").split("=====")[0]
        moves = []
        for line in body.splitlines():
            if line.startswith("["):
                continue
            for token in line.split():
                token = _NUMBER.sub("", token)
                if token and not token[0].isdigit() and token != "*":
                    moves.append(token)
        games.append(moves)
    return games


def in_notation(games: list[list[Move]], notation: str) -> list[list[str]]:
    out = []
    for moves in games:
        pos = Position()
        texts = []
        for move in moves:
            texts.append(write_move(pos, move, notation))
            pos.push(move)
        out.append(texts)
    return out


def best_of(repeat: int, run: Callable[[], int]) -> tuple[float, int]:
    best, count = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        count = run()
        best = min(best, time.perf_counter() - start)
    return best, count


def push_only(games: list[list[Move]]) -> int:
    plies = 0
    for moves in games:
        pos = Position()
        for move in moves:
            pos.push(move)
            plies += 1
    return plies


def push_and_write(games: list[list[Move]], notation: str) -> int:
    plies = 0
    for moves in games:
        pos = Position()
        for move in moves:
            write_move(pos, move, notation)
            pos.push(move)
            plies += 1
    return plies


def parse_and_push(games: list[list[str]], notation: str, check: bool = False) -> int:
    """Parse every text against its position and make the move (``check``: detect check too)."""
    plies = 0
    for texts in games:
        pos = Position()
        for text in texts:
            move, _ = read_move(pos, text, notation)
            pos.push(move)
            if check:
                pos.is_check()
            plies += 1
    return plies


def full_replay(games: list[list[str]], notation: str) -> int:
    """The importer's unit of work: :func:`xqdb.replay.replay` on each record."""
    plies = 0
    for index, texts in enumerate(games):
        record = GameRecord(origin=Origin("bench", index=index), format="pgn", notation=notation)
        record.moves.extend(texts)
        game = replay(record)
        if not game.is_valid:
            raise AssertionError(f"game {index + 1}: {game.error}")
        plies += game.plies
    return plies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    repeat = args.repeat

    games = coordinate_games(DATA / "uci" / "liu-dahua-1125.pgn")
    chinese = in_notation(games, "chinese")
    wxf = in_notation(games, "wxf")
    san = in_notation(games, "san")
    san_fsf = in_notation(games, "san-fsf")
    xqbase = gbk_games(DATA / "pgn-gbk")
    print(f"{len(games):,} games, {sum(map(len, games)):,} plies (liu-dahua-1125); "
          f"{len(xqbase)} xqbase games, {sum(map(len, xqbase)):,} plies (pgn-gbk)")

    base, plies = best_of(repeat, lambda: push_only(games))
    print(f"make moves only:            {plies / base:12,.0f} plies/s")
    for notation in ("chinese", "chinese-traditional", "wxf", "iccs", "san", "san-fsf"):
        elapsed, plies = best_of(repeat, lambda: push_and_write(games, notation))
        net = max(elapsed - base, 1e-9)
        print(f"write {notation:<20} {plies / net:12,.0f} plies/s  "
              f"({net / plies * 1e6:.2f} us/ply)")
    for label, texts, notation in (("chinese", chinese, "chinese"), ("wxf", wxf, "wxf"),
                                   ("chinese (auto)", chinese, "auto"),
                                   ("san", san, "san"), ("san-fsf", san_fsf, "san-fsf"),
                                   ("xqbase chinese", xqbase, "chinese")):
        elapsed, plies = best_of(repeat, lambda: parse_and_push(texts, notation))
        net = max(elapsed - base * (plies / sum(map(len, games))), 1e-9)
        print(f"parse {label:<20} {plies / net:12,.0f} plies/s  ({net / plies * 1e6:.2f} us/ply)")
    elapsed, plies = best_of(repeat, lambda: parse_and_push(chinese, "chinese", check=True))
    print(f"validating replay, Chinese text (parse+push+check): {plies / elapsed:,.0f} plies/s = "
          f"{len(games) / elapsed:,.0f} games/s")
    elapsed, plies = best_of(repeat, lambda: full_replay(chinese, "chinese"))
    print(f"replay() with Chinese text, writing wxf/chinese/san: "
          f"{plies / elapsed:,.0f} plies/s "
          f"= {len(games) / elapsed:,.0f} games/s ({plies / len(games):.0f} plies/game)")
    elapsed, plies = best_of(repeat, lambda: full_replay(san, "san"))
    print(f"replay() with WinBoard SAN text, dialect settled by replaying both: "
          f"{plies / elapsed:,.0f} plies/s = {len(games) / elapsed:,.0f} games/s")


if __name__ == "__main__":
    main()
