"""Benchmark: what classifying each game's opening costs, one core.

Run: ``python bench/bench_openings.py [--repeat 3]``. Prints figures; asserts nothing.

Input: the games of ``ccpd-dev.zip``, replayed once beforehand (not timed), as the importer's
workers hold them: validated ``Move`` lists and a start FEN. Timed, per game and in CPU time:
:func:`xqdb.openings.classify` (ECCO code, names and the path through the tree), and its
parts: reading the opening plies, the tree, the traditional names. Each figure is the best
of ``--repeat`` runs. For scale, the import spends about 800 µs of worker CPU per game of
this archive (``bench/bench_import.py``): the goal is a classification under 5% of that.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from xqdb.formats import read_paths
from xqdb.openings import classify
from xqdb.openings.ecco import decide
from xqdb.openings.line import OpeningLine
from xqdb.openings.names import opening_names
from xqdb.replay import replay
from xqdb.rules.board import Move

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
IMPORT_US_PER_GAME = 800.0


def best_of(repeat: int, run: Callable[[], object]) -> float:
    """The smallest CPU time of ``repeat`` calls of ``run``, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--source", default=str(DATA / "ccpd-dev.zip"))
    args = parser.parse_args()
    games: list[tuple[list[Move], str]] = []
    for record in read_paths([args.source]):
        game = replay(record)
        if game.is_valid:
            games.append((game.moves, game.start_fen))
    lines = [line for moves, fen in games if (line := OpeningLine.read(moves, fen)) is not None]
    n = len(games)
    print(f"{n} valid games of {args.source}, {len(lines)} from the standard start")

    figures = {
        "classify() (all of it)": best_of(args.repeat, lambda: [classify(m, f) for m, f in games]),
        "  reading the opening plies": best_of(
            args.repeat, lambda: [OpeningLine.read(m, f) for m, f in games]),
        "  the ECCO tree": best_of(args.repeat, lambda: [decide(line) for line in lines]),
        "  the traditional names": best_of(args.repeat, lambda: [opening_names(line) for line in lines]),
    }
    for name, seconds in figures.items():
        per_game = seconds / n * 1e6
        print(f"{name:32} {per_game:8.1f} µs/game  ({per_game / IMPORT_US_PER_GAME:6.2%} of "
              f"{IMPORT_US_PER_GAME:.0f} µs import CPU per game)")


if __name__ == "__main__":
    main()
