"""Benchmark: what classifying each game's opening costs, one core.

Run: ``python bench/bench_openings.py [--repeat 3] [--no-import]``. Prints figures;
asserts nothing.

Input: the games of ``ccpd-dev.zip``, replayed once beforehand (not timed), as the importer's
workers hold them: validated ``Move`` lists and a start FEN. Timed, per game and in CPU time:
:func:`xqdb.openings.classify` (ECCO code, names and the path through the tree), and its
parts: reading the opening plies, the tree, the traditional names. Each figure is the best
of ``--repeat`` runs. For scale, the import spends about 800 µs of worker CPU per game of
this archive (``bench/bench_import.py``): the goal is a classification under 5% of that.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from xqdb.formats import read_paths
from xqdb.openings import classify
from xqdb.openings.ecco import decide
from xqdb.openings.line import OpeningLine
from xqdb.openings.names import opening_names
from xqdb.openings.rules import group
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


def import_once(source: str, classified: bool) -> float:
    """Import ``source`` with one job into a fresh database (in this process); games/s."""
    import xqdb.openings.store
    from xqdb.pipeline.importer import import_paths

    if not classified:
        xqdb.openings.store.classify = lambda moves, start_fen=None: None  # type: ignore
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        import_paths([source], Path(folder) / "bench.duckdb", jobs=1)
        seconds = time.perf_counter() - start
        import duckdb
        with duckdb.connect(str(Path(folder) / "bench.duckdb")) as con:
            games, coded = con.execute("SELECT count(*), count(ecco) FROM games").fetchone()
    assert (coded > 0) == classified
    return games / seconds


def import_figures(source: str, repeat: int) -> None:
    best = {True: 0.0, False: 0.0}
    for _ in range(repeat):
        for classified in (True, False):
            out = subprocess.run([sys.executable, __file__, "--import-once", str(classified),
                                  "--source", source], check=True, capture_output=True, text=True)
            best[classified] = max(best[classified], json.loads(out.stdout))
    print(f"import, 1 job: {best[True]:7.1f} games/s with the classification, "
          f"{best[False]:7.1f} without: {1 - best[True] / best[False]:+.1%} slower with it")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--source", default=str(DATA / "ccpd-dev.zip"))
    parser.add_argument("--no-import", action="store_true", help="skip the import figures")
    parser.add_argument("--import-once", choices=["True", "False"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.import_once:
        print(json.dumps(import_once(args.source, args.import_once == "True")))
        return
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
        "  the rules (the group)": best_of(args.repeat, lambda: [group(line) for line in lines]),
        "  rules and tree (the code)": best_of(args.repeat,
                                               lambda: [decide(line) for line in lines]),
        "  the traditional names": best_of(args.repeat, lambda: [opening_names(line) for line in lines]),
    }
    for name, seconds in figures.items():
        per_game = seconds / n * 1e6
        print(f"{name:32} {per_game:8.1f} µs/game  ({per_game / IMPORT_US_PER_GAME:6.2%} of "
              f"{IMPORT_US_PER_GAME:.0f} µs import CPU per game)")
    if not args.no_import:
        import_figures(args.source, args.repeat)


if __name__ == "__main__":
    main()
