"""Where an import's time goes, stage by stage: run by ``bench_import.py --stages``.

``python bench/import_stages.py INPUT JOBS`` imports ``INPUT`` into a fresh database in
this process, with a timer around each stage of the work, and prints one JSON object:

* ``workers``: CPU seconds of the worker processes' main threads per stage, all workers
  together: opening and hashing the sources, reading records, keying them for repeats,
  replaying, building rows, building the Arrow tables, the rest of the unit's loop
  (``other``), and what the workers spent outside their units (``outside``: sending the
  results, which their sender thread pickles, and starting up);
* ``parent``: CPU and wall seconds of this process per step: loading the modules,
  storing (the commits), the checkpoints, the lookup tables, the players and the tree's
  counts, and the rest (planning, receiving the results, waiting);
* ``timeline``: wall seconds from the start of the import to the first result and to the
  last, and the import's total.

Each timer costs a few microseconds per call, against about a millisecond per record:
the stages' sum stays within the noise of the untimed run.
"""

from __future__ import annotations

import glob
import json
import os
import resource
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

START = time.perf_counter()
START_CPU = time.process_time()

from xqdb.db import rows, writer as writer_module  # noqa: E402 (timed as the modules' loading)
from xqdb.pipeline import importer  # noqa: E402
import xqdb.formats as formats  # noqa: E402

MODULES_WALL = time.perf_counter() - START
MODULES_CPU = time.process_time() - START_CPU

#: Per process: stage -> CPU seconds of the thread that ran it.
TIMES: dict[str, float] = defaultdict(float)


def timed(stage: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function``, its calls' CPU time (this thread's) added to ``stage``."""
    def run(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            TIMES[stage] += time.thread_time() - start
    return run


def timed_iterator(stage: str, function: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    """``function`` returning an iterator, each step's CPU time added to ``stage``."""
    def run(*args: Any, **kwargs: Any) -> Iterator[Any]:
        start = time.thread_time()
        items = function(*args, **kwargs)
        TIMES[stage] += time.thread_time() - start
        while True:
            start = time.thread_time()
            try:
                item = next(items)
            except StopIteration:
                return
            finally:
                TIMES[stage] += time.thread_time() - start
            yield item
    return run


def install(folder: str) -> None:
    """Put the timers in place (the workers fork from this process and inherit them)."""
    importer.open_hashed = timed("open and hash", importer.open_hashed)
    importer.repeat_key = timed("repeat keys", importer.repeat_key)
    importer.replay_record = timed("replay", importer.replay_record)
    formats.read_source = timed_iterator("read", formats.read_source)
    formats.read_range = timed_iterator("read", formats.read_range)
    for name in ("add_game", "add_linked", "add_source"):
        setattr(rows.UnitBuilder, name, timed("rows", getattr(rows.UnitBuilder, name)))
    rows.UnitBuilder.finish = timed("tables", rows.UnitBuilder.finish)
    global FOLDER, READ_UNIT
    FOLDER, READ_UNIT = folder, importer.read_unit
    importer.read_unit = timed_unit
    for name, stage in (("commit", "storing"), ("checkpoint", "checkpoints"),
                        ("refresh_lookups", "lookup tables"),
                        ("link_players", "players and tree counts")):
        method = getattr(writer_module.Writer, name)
        setattr(writer_module.Writer, name, timed_wall(stage, method))


FOLDER = ""
READ_UNIT: Callable[[Any], Any] = importer.read_unit


def timed_unit(work: Any) -> Any:
    """:func:`xqdb.pipeline.importer.read_unit`, timed; the worker's figures so far are
    written to a file of its own after each unit. (A function of this module, not a
    closure: the pool sends it to the workers by name.)"""
    start = time.thread_time()
    try:
        return READ_UNIT(work)
    finally:
        TIMES["unit"] += time.thread_time() - start
        usage = resource.getrusage(resource.RUSAGE_SELF)
        with open(os.path.join(FOLDER, f"worker-{os.getpid()}.json"), "w") as out:
            json.dump({"times": TIMES, "cpu": usage.ru_utime + usage.ru_stime}, out)


#: Parent steps: stage -> wall seconds.
WALL: dict[str, float] = defaultdict(float)


def timed_wall(stage: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function``, timed as CPU (this process, DuckDB's threads included) and wall."""
    def run(*args: Any, **kwargs: Any) -> Any:
        start, cpu = time.perf_counter(), time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            WALL[stage] += time.perf_counter() - start
            TIMES[stage] += time.process_time() - cpu
    return run


def main(path: str, jobs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="xqdb-stages-") as folder:
        install(folder)
        results: list[float] = []
        read_units = importer._read_units

        def noted(*args: Any) -> Iterator[Any]:
            for result in read_units(*args):
                results.append(time.perf_counter())
                yield result

        importer._read_units = noted
        begin, begin_cpu = time.perf_counter(), time.process_time()
        summary = importer.import_paths([path], os.path.join(folder, "stages.duckdb"), jobs=jobs)
        total_wall, total_cpu = time.perf_counter() - begin, time.process_time() - begin_cpu
        workers: dict[str, float] = defaultdict(float)
        for name in glob.glob(os.path.join(folder, "worker-*.json")):
            with open(name) as done:
                for stage, seconds in json.load(done)["times"].items():
                    workers[stage] += seconds
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    children = usage.ru_utime + usage.ru_stime
    named = sum(v for k, v in workers.items() if k != "unit")
    workers["other"] = workers.pop("unit", 0.0) - named
    workers["outside"] = children - sum(workers.values())
    parent = {stage: (TIMES[stage], WALL[stage]) for stage in WALL}
    parent["loading the modules"] = (MODULES_CPU, MODULES_WALL)
    parent["the rest"] = (total_cpu - sum(TIMES[s] for s in WALL),
                          total_wall - sum(WALL.values()))
    return {"records": summary.records, "workers": workers, "parent": parent,
            "timeline": {"first result": results[0] - begin if results else 0.0,
                         "last result": results[-1] - begin if results else 0.0,
                         "import": total_wall, "with the modules": total_wall + MODULES_WALL}}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], int(sys.argv[2]))))
