"""Benchmark: the same import and analysis on the local pool and on a Dask LocalCluster.

Prints, for two local processes and for a LocalCluster of two single-threaded worker
processes on this machine:

* the overhead per task: the wall time of mapping a no-op over many items, per item, so
  users can size tasks (a task should take far longer than this);
* the import of ``../shared/data/ccpd-dev.zip``: seconds and games/s, and whether the two
  databases hold the same rows;
* the analysis of the first ``--games`` games with Fairy-Stockfish at ``--nodes`` (the
  built-in engine at ``--depth`` when Fairy-Stockfish is not installed): positions/s and
  the cost of one position in core-seconds, engine and overhead together;
* on paper, from those figures: the hours to analyse 1 million games on N machines.

    python bench/bench_cluster.py                 # every part
    python bench/bench_cluster.py --games 10 --nodes 20000 --tasks 2000
"""

from __future__ import annotations

import argparse
import logging
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import duckdb
from distributed import LocalCluster

from xqdb.pipeline.analyze import TASK_POSITIONS, analyse_database
from xqdb.engine import EngineSpec, Limit
from xqdb.engine.runner import find_external_engine
from xqdb.pipeline.importer import import_paths
from xqdb.pipeline.executors import open_executor

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
WORKERS = 2
#: The published speed of Fairy-Stockfish on one core, and the node count of a strong
#: analysis, for the estimate on paper.
PUBLISHED_NPS = 370_000
PAPER_NODES = 100_000
PAPER_GAMES = 1_000_000
T = TypeVar("T")


@contextmanager
def places() -> Iterator[list[tuple[str, str | None]]]:
    """``(name, scheduler)`` of the two places to run: the local pool, a LocalCluster."""
    with LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=logging.CRITICAL) as cluster:
        yield [("local pool", None), ("LocalCluster", cluster.scheduler_address)]


def timed(run: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def task_overhead(scheduler: str | None, tasks: int) -> float:
    """Seconds of wall time per task for a task that does nothing."""
    with open_executor(WORKERS, scheduler) as executor:
        list(executor.map(abs, range(4 * WORKERS)))  # workers warmed up
        seconds, _ = timed(lambda: list(executor.map(abs, range(tasks), window=8 * WORKERS)))
    return seconds / tasks


def rows(db: Path) -> list[tuple[object, ...] | None]:
    """Each table's row count and a checksum of every column (but the import's time)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return [con.execute(f"SELECT count(*), sum(hash(COLUMNS({columns}))) FROM {table}")
                .fetchone()
                for table, columns in (("sources", "* EXCLUDE (imported_at)"), ("games", "*"),
                                       ("game_records", "*"), ("moves", "*"),
                                       ("raw_records", "*"))]
    finally:
        con.close()


def distinct_positions_per_game(db: Path) -> float:
    """Positions searched per game when every distinct position is searched once."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        row = con.execute("SELECT count(DISTINCT game_id), count(DISTINCT (key_after, side))"
                          " FROM moves").fetchone()
        assert row is not None
        return row[1] / row[0]
    finally:
        con.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=2000, help="no-op tasks to time")
    parser.add_argument("--games", type=int, default=10, help="games to analyse")
    parser.add_argument("--nodes", type=int, default=20_000, help="Fairy-Stockfish nodes")
    parser.add_argument("--depth", type=int, default=2, help="built-in engine depth")
    args = parser.parse_args()
    external = find_external_engine()
    spec = EngineSpec((external,)) if external else EngineSpec.builtin()
    limit = Limit(nodes=args.nodes) if external else Limit(depth=args.depth)
    with tempfile.TemporaryDirectory() as folder, places() as where:
        work = Path(folder)
        print(f"{WORKERS} workers each way, on this machine ({len(where)} places)\n")
        print(f"{'place':<14} {'ms/task':>8}")
        for name, scheduler in where:
            print(f"{name:<14} {task_overhead(scheduler, args.tasks) * 1000:>8.2f}", flush=True)

        print(f"\n{'import':<14} {'s':>6} {'games/s':>8}  ccpd-dev.zip")
        databases: list[Path] = []
        for name, scheduler in where:
            db = work / f"{len(databases)}.duckdb"
            seconds, summary = timed(lambda: import_paths(
                [str(DATA / "ccpd-dev.zip")], db, jobs=WORKERS, scheduler=scheduler))
            databases.append(db)
            print(f"{name:<14} {seconds:>6.1f} {summary.records / seconds:>8,.0f}", flush=True)
        print(f"same rows: {rows(databases[0]) == rows(databases[1])}")

        print(f"\n{'analysis':<14} {'s':>6} {'pos/s':>7} {'core-s/pos':>10} {'engine':>7} "
              f"{'besides':>7}  {args.games} games, {spec.label or spec.command[0]} at "
              f"{limit.key()}")
        besides = {}
        for index, (name, scheduler) in enumerate(where):
            db = work / f"analysis{index}.duckdb"
            shutil.copy(databases[0], db)
            seconds, result = timed(lambda: analyse_database(
                db, spec, limit, jobs=WORKERS, scheduler=scheduler,
                game_ids=list(range(1, args.games + 1))))
            searched = max(1, result.searched)
            # Core-seconds per position: all of it, waiting for the engine, and the rest
            # (replaying, sending, writing), which does not shrink with the node count.
            total = seconds * WORKERS / searched
            engine = sum(p.engine_seconds for p in result.passes) / searched
            besides[name] = max(0.0, total - engine)
            print(f"{name:<14} {seconds:>6.1f} {result.searched / seconds:>7.1f} "
                  f"{total:>10.4f} {engine:>7.4f} {besides[name]:>7.4f}", flush=True)

        positions = distinct_positions_per_game(databases[0])
        print(f"\non paper: {PAPER_GAMES:,} games x {positions:.1f} distinct positions a game "
              f"(ccpd-dev), {TASK_POSITIONS} positions a task")
        engine_cost = PAPER_NODES / PUBLISHED_NPS
        overhead = besides["LocalCluster"]
        cost = engine_cost + overhead
        print(f"a position at {PAPER_NODES:,} nodes: {engine_cost:.3f} core-s of search "
              f"(at {PUBLISHED_NPS:,} nodes/s) + {overhead:.3f} core-s measured besides "
              f"= {cost:.3f} core-s")
        core_hours = PAPER_GAMES * positions * cost / 3600
        print(f"{core_hours:,.0f} core-hours: " + ", ".join(
            f"{machines} x 16 cores {core_hours / (machines * 16):,.1f} h"
            for machines in (1, 4, 16, 64)))


if __name__ == "__main__":
    main()
