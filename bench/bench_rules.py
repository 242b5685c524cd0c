"""Rules-engine benchmark: perft nodes/s and validating replay games/s on one core.

Run: ``python bench/bench_rules.py [--depth 4]``. Prints figures; asserts nothing.

Validating replay = for every ply: parse the coordinate text, check the move is legal,
make it (updating the Zobrist key) and detect check, as the importer does before it writes
notations.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

from xqdb import Move, Position
from xqdb.rules import perft

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
_MOVE = re.compile(r"\b[a-i][0-9][a-i][0-9]\b")


def load_coordinate_games(path: Path) -> list[list[str]]:
    """Move lists of a coordinate PGN, one per ``[Event`` block (benchmark input only)."""
    text = path.read_text(encoding="utf-8")
    return [_MOVE.findall(block) for block in text.split("[Event")[1:]]


def validating_replay(games: list[list[str]]) -> int:
    plies = 0
    for moves in games:
        pos = Position()
        for text in moves:
            move = Move.from_uci(text)
            if not pos.is_legal(move):
                raise AssertionError(f"illegal {text} in {pos.fen()}")
            pos.push(move)
            pos.is_check()
            plies += 1
    return plies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    start = time.perf_counter()
    nodes = perft(Position(), args.depth)
    elapsed = time.perf_counter() - start
    print(f"perft({args.depth}) start position: {nodes:,} nodes in {elapsed:.2f} s = "
          f"{nodes / elapsed:,.0f} nodes/s")

    games = load_coordinate_games(DATA / "uci" / "liu-dahua-1125.pgn")
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        plies = validating_replay(games)
        best = min(best, time.perf_counter() - start)
    print(f"validating replay liu-dahua-1125.pgn: {len(games):,} games, {plies:,} plies, "
          f"best of {args.repeat}: {best:.3f} s = {len(games) / best:,.0f} games/s, "
          f"{plies / best:,.0f} plies/s")


if __name__ == "__main__":
    main()
