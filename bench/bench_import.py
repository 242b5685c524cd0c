"""Benchmark: import ccpd-dev.zip with 1 and 2 jobs, and the same input repeated 5 times.

Prints games/s, plies/s, the share of the time spent storing (commits and the final
checkpoint) as wall time of the run ("db wall": the parent waiting on DuckDB while the
workers go on) and as CPU time of the run, all processes together ("db cpu"), the CPU
time of the run, the peak memory of the parent and of the largest worker, and the
database size. Memory must stay flat when the
input grows five-fold (the copies are linked as duplicates, so every record is still read,
replayed and stored in game_records and raw_records). Every run keeps its modules compiled
to bytecode, as an installed package does, filled by an untimed import before the first
(see :func:`warm_up`).

    python bench/bench_import.py            # all four runs
    python bench/bench_import.py --jobs 2   # only the runs with 2 jobs

``--big`` measures one big PGN file instead (the members of ccpd-dev.zip one after the
other, repeated to ``--big-mb`` megabytes, under /tmp), imported with 2 jobs read in one
piece by one worker (as before big files were read in ranges) and read in ranges by
both, in one run; and ``--memory`` the peak memory of the largest process for the hostile
inputs of ``bench_memory.py`` (a 200 MB PGN, a zip of 4,000 members of 1 MiB of NULs),
each in a fresh ``xqdb import`` (default jobs). ``--code DIR`` adds the same runs with the
package of another tree (an older commit, ``git archive``-d there) beside this one; alone,
it imports ccpd-dev.zip (or ``--copies`` copies of it) with both trees in turn, twice each.

    python bench/bench_import.py --big --memory --code /tmp/old-xqdb
    python bench/bench_import.py --code /tmp/old-xqdb --jobs 2 --copies 1 --copies 5

``--replay-free`` bounds what a faster replay can give: beside each import (2 jobs, one
copy, unless ``--jobs`` and ``--copies`` say), the same import with every replay made
ahead in the parent before the workers fork, so that the workers take it instead of
replaying; twice each, alternating. Its worker memory counts the replays made ahead.

    python bench/bench_import.py --replay-free

``--read-free`` bounds a faster reader and replay together: the same, and a third import
whose workers also take the records read ahead in the parent instead of reading them
(they still open and hash the members).

    python bench/bench_import.py --read-free

``--worker-free`` bounds a faster worker of any kind (a native reader, replay and row
builder together): the same three, and a fourth import whose workers do nothing but load
the results (Arrow tables) that a first import, run ahead, kept of each work unit. What is
left is the parent's: storing, the lookup tables, the players and the tree's counts.

    python bench/bench_import.py --worker-free

With ``--code DIR``, each round of these runs also imports with the package of DIR (an
older commit), for ratios measured side by side.

``--stages`` prints where the time of one import of ccpd-dev.zip goes (2 jobs unless
``--jobs`` says): the workers' CPU per stage (opening and hashing, reading, repeat keys,
replay, rows, Arrow tables, sending), with its share of all the import's CPU, and the
parent's CPU and wall time per step (loading the modules, storing, checkpoints, the
lookup tables, the players and the tree's counts), with the time to the first and the
last result (see ``import_stages.py``).

    python bench/bench_import.py --stages

Measured on 2 cores shared with other work (load 5-20), largest process: the 200 MB PGN
(143,805 records) 1,834 MB before ranges (``bench_memory.py`` on the tree before), 524 MB
with ranges of 8 MiB, 517 MB with a checkpoint every 32 MB of log as well, 389 MB with
ranges of 2 MiB (331.6 s, 434 games/s); the NUL zip 700 MB before, 171 MB since a member
over 64 KiB packed over 200 times is refused. One PGN of 43 MB (35,370 records of
ccpd-dev.zip), 2 jobs, in one run at load 20: read in one piece 271.5 s, 130 games/s,
714 MB; in ranges of 8 MiB 199.2 s, 178 games/s, 412 MB. Ranges of 2 MiB, alternating
runs at load 8-11 (the tree used under one core of CPU per second of wall time: no core
was free for the second worker): in ranges 527 and 408 games/s, 44.3 and 53.6 s of CPU,
294 MB; in one piece 626 and 571 games/s, 38.9 and 42.4 s of CPU, 691 MB. Ranges cost
about 14% more CPU (the parent's scan of the file for record starts, a hash of each
range, a commit per range and the checkpoints): they pay only where a core is idle.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from cached_bytecode import keep_bytecode

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import BinaryIO

    from xqdb.formats.record import GameRecord
    from xqdb.formats.sources import Source
    from xqdb.pipeline.importer import UnitResult, WorkUnit
    from xqdb.replay import ReplayedGame

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
#: The environment variable setting the size of the ranges big files are read in.
RANGE_VARIABLE = "XQDB_RANGE_BYTES"
#: What an import of ``--one`` does itself: everything, all but replay, all but reading and
#: replay (see :func:`replay_ahead`), or none of the workers' work (see :func:`units_ahead`);
#: and how each is shown.
RUN, REPLAY_FREE, READ_FREE, WORKER_FREE = 0, 1, 2, 3
FREE_LABELS = {RUN: "nothing", REPLAY_FREE: "replay", READ_FREE: "read+replay",
               WORKER_FREE: "workers"}


def copied_inputs(folder: Path, copies: int) -> Path:
    """A folder of ``copies`` copies of ccpd-dev.zip under ``folder``."""
    inputs = folder / f"inputs-{copies}"
    inputs.mkdir()
    for i in range(copies):
        # Copies, not links: a source is known by its resolved path, so links to one file
        # would be read once.
        shutil.copyfile(DATA / "ccpd-dev.zip", inputs / f"copy{i}.zip")
    return inputs


def replay_ahead(inputs: Path, read_too: bool = False) -> None:
    """Replay every record under ``inputs`` now, in this process, and have the import's
    workers (forked from it later) take those replays instead of replaying: the import
    as it would be if replay cost nothing, which bounds what any faster replay can give.
    With ``read_too``, the workers take the records read here as well, instead of
    reading their members."""
    import xqdb.formats as formats
    import xqdb.pipeline.importer as importer
    from xqdb.replay import replay

    records = list(formats.read_paths([str(inputs / "copy0.zip")]))
    made = {(r.origin.member, r.origin.index): replay(r) for r in records}
    replay_record = importer.replay_record
    if read_too:
        read_source = formats.read_source
        by_member: dict[str | None, list[GameRecord]] = {}
        for record in records:
            by_member.setdefault(record.origin.member, []).append(record)

        def read_ahead(source: Source, format: str | None = None, encoding: str | None = None,
                       stream: BinaryIO | None = None) -> Iterator[GameRecord]:
            if source.member not in by_member or not source.path.endswith("copy0.zip"):
                yield from read_source(source, format, encoding, stream)
                return
            if stream is not None:
                stream.close()
            yield from by_member[source.member]
        # read_unit imports read_source from the package each time it runs: it finds this one.
        formats.read_source = read_ahead

    def taken(record: GameRecord) -> ReplayedGame:
        game = made.get((record.origin.member, record.origin.index))
        if game is None:
            return replay_record(record)
        game.record = record
        return game
    importer.replay_record = taken


def units_ahead(inputs: Path, folder: Path, jobs: int) -> None:
    """Import ``inputs`` now with ``jobs`` jobs, keep what each work unit's worker sent (a
    pickle per unit), and have the workers of the next import take those results instead
    of reading anything: the import as it would be if the workers cost nothing but
    loading their tables, which bounds what any faster worker can give. A unit spilled to
    Parquet files (none in ccpd-dev.zip) is not kept: it is read again."""
    import pickle

    import xqdb.pipeline.importer as importer

    kept = folder / "units"
    kept.mkdir()
    read_unit = importer.read_unit

    def keeping(unit: WorkUnit) -> UnitResult:
        result = read_unit(unit)
        if not result.staged.files:
            with open(kept / f"{unit.number}.pickle", "wb") as f:
                pickle.dump(result, f, protocol=pickle.HIGHEST_PROTOCOL)
        return result

    def taken(unit: WorkUnit) -> UnitResult:
        path = kept / f"{unit.number}.pickle"
        if not path.exists():
            return read_unit(unit)
        with open(path, "rb") as f:
            result: UnitResult = pickle.load(f)
        return result

    # The executor sends its workers (forked during import_paths) the function by name: each
    # stand-in takes read_unit's name, under which the workers find it in their copy.
    for stand_in in (keeping, taken):
        stand_in.__module__, stand_in.__qualname__ = importer.__name__, "read_unit"
    importer.read_unit = keeping
    importer.import_paths([str(inputs)], folder / "ahead.duckdb", jobs=jobs)
    importer.read_unit = taken


def cpu_seconds() -> float:
    """The CPU time of this process and its children waited for, so far."""
    return sum(usage.ru_utime + usage.ru_stime for usage in
               (resource.getrusage(resource.RUSAGE_SELF),
                resource.getrusage(resource.RUSAGE_CHILDREN)))


def one_run(jobs: int, copies: int, folder: Path, free: int = RUN) -> dict[str, float]:
    """Import in this process (called in a fresh interpreter) and report figures; with
    ``free`` at :data:`REPLAY_FREE` or :data:`READ_FREE`, the replays (and the records)
    made ahead (see :func:`replay_ahead`); at :data:`WORKER_FREE`, the workers' results
    (see :func:`units_ahead`)."""
    from xqdb.pipeline.importer import import_paths

    inputs = copied_inputs(folder, copies)
    if free == WORKER_FREE:
        units_ahead(inputs, folder, jobs)
    elif free != RUN:
        replay_ahead(inputs, read_too=free == READ_FREE)
    spent = cpu_seconds()  # what was made ahead is not this run's CPU
    db = folder / "bench.duckdb"
    summary = import_paths([str(inputs)], db, jobs=jobs)
    cpu = cpu_seconds() - spent
    con = duckdb.connect(str(db), read_only=True)
    plies = con.execute("SELECT coalesce(sum(g.plies), 0) FROM game_records r"
                        " JOIN games g USING (game_id)").fetchone()[0]
    con.close()
    mib = 1024  # ru_maxrss is in KiB on Linux
    return {
        "jobs": jobs, "copies": copies, "records": summary.records, "games": summary.imported,
        "seconds": summary.seconds, "games_per_s": summary.records / summary.seconds,
        "plies_per_s": plies / summary.seconds, "db_share": summary.db_seconds / summary.seconds,
        "db_cpu_share": summary.db_cpu_seconds / cpu, "cpu": cpu,
        "parent_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / mib,
        "worker_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / mib,
        "db_mib": db.stat().st_size / 2**20,
    }


def warm_up(trees: list[Path]) -> None:
    """Fill the cache of compiled modules (see :func:`cached_bytecode.keep_bytecode`) with one
    untimed import per tree, before anything is timed.

    Without it, where ``PYTHONDONTWRITEBYTECODE`` is set, every run compiled its tree's
    modules again, and a tree whose workers load the readers after the fork compiled them
    in each worker: d03d4c4's import of ccpd-dev.zip (2 jobs) took 9.2 s and 18 s of CPU
    so, against 7.4-7.6 s and 14.6 s with its modules compiled once; this tree's changed
    within the noise.
    """
    keep_bytecode()
    for code in trees:
        with tempfile.TemporaryDirectory(prefix="xqdb-bench-warm-") as folder:
            timed_import(DATA / "ccpd-dev.zip", Path(folder) / "w.duckdb", code, jobs=2)


def big_pgn(folder: Path, megabytes: int) -> Path:
    """One PGN file of the games of ccpd-dev.zip one after the other, repeated to
    ``megabytes`` (the repeats are linked as duplicates, still read and replayed)."""
    path = folder / "big.pgn"
    with zipfile.ZipFile(DATA / "ccpd-dev.zip") as archive:
        games = b"".join(archive.read(info).strip() + b"\n\n" for info in archive.infolist())
    with open(path, "wb") as f:
        written = 0
        while written < megabytes << 20:
            f.write(games)
            written += len(games)
    return path


def timed_import(path: Path, db: Path, code: Path, jobs: int | None = None,
                 range_bytes: int | None = None) -> dict[str, float]:
    """``xqdb import path`` in a fresh process running the package in ``code``: its
    summary's figures, and the peak resident memory of its largest process."""
    env = dict(os.environ, PYTHONPATH=str(code))
    if range_bytes is not None:
        env[RANGE_VARIABLE] = str(range_bytes)
    for leftover in (db, db.with_name(db.name + ".wal")):
        leftover.unlink(missing_ok=True)
    command = ["/usr/bin/time", "-v", sys.executable, "-m", "xqdb", "import", str(path),
               "--db", str(db)] + (["--jobs", str(jobs)] if jobs else [])
    # Run in the tree: ``python -m`` puts the working directory ahead of PYTHONPATH, so run
    # from another checkout it would import that checkout's package instead.
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=code)
    largest = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)[1])
    time_line = re.search(r"time: ([\d.]+) s, ([\d,]+) games/s", done.stdout)
    records = re.search(r"records: ([\d,]+) read", done.stdout)
    cpu = sum(float(re.search(rf"{kind} time \(seconds\): ([\d.]+)", done.stderr)[1])
              for kind in ("User", "System"))
    return {"exit": done.returncode, "largest_mb": largest * 1024 / 1e6, "cpu": cpu,
            "seconds": float(time_line[1]) if time_line else 0.0,
            "games_per_s": float(time_line[2].replace(",", "")) if time_line else 0.0,
            "records": int(records[1].replace(",", "")) if records else 0}


def other_tree(code: Path, jobs: int, copies: int) -> None:
    """A line of the bounds' table for an import with the package of ``code`` (ccpd-dev.zip,
    or ``copies`` copies of it), beside this tree's."""
    with tempfile.TemporaryDirectory(prefix="xqdb-bench-other-") as tmp:
        path = DATA / "ccpd-dev.zip" if copies == 1 else copied_inputs(Path(tmp), copies)
        r = timed_import(path, Path(tmp) / "b.duckdb", code, jobs)
    print(f"{jobs:>4} {copies:>6} {'(' + code.name + ')':>11} {r['records']:>8,} {'':>6} "
          f"{r['seconds']:>6.1f} {r['games_per_s']:>8,.0f} {'':>8} {'':>7} {'':>6} "
          f"{r['cpu']:>6.1f}   (another tree: {code}, its largest process "
          f"{r['largest_mb']:,.0f} MB)", flush=True)


def compare(title: str, runs: list[tuple[str, Path, Path, dict[str, object]]]) -> None:
    """Print a line per run: its label, exit code, records, time, games/s, memory."""
    print(title)
    for label, path, code, options in runs:
        with tempfile.TemporaryDirectory(prefix="xqdb-bench-import-") as folder:
            r = timed_import(path, Path(folder) / "b.duckdb", code, **options)  # type: ignore[arg-type]
        print(f"  {label:34} exit {r['exit']}  {r['records']:>9,} records  "
              f"{r['seconds']:7.1f} s  {r['games_per_s']:>7,.0f} games/s  cpu {r['cpu']:6.1f} s  "
              f"largest process {r['largest_mb']:6,.0f} MB", flush=True)


def print_stages(jobs: int) -> None:
    """One import of ccpd-dev.zip with ``jobs`` jobs, stage by stage (import_stages.py, in
    a fresh interpreter)."""
    out = subprocess.run([sys.executable, str(Path(__file__).with_name("import_stages.py")),
                          str(DATA / "ccpd-dev.zip"), str(jobs)],
                         capture_output=True, text=True, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    workers, parent, timeline = r["workers"], r["parent"], r["timeline"]
    total = sum(workers.values()) + sum(cpu for cpu, _ in parent.values())
    print(f"ccpd-dev.zip, {jobs} jobs: {r['records']:,} records in {timeline['import']:.1f} s "
          f"({timeline['with the modules']:.1f} s with the modules), first result at "
          f"{timeline['first result']:.2f} s, last at {timeline['last result']:.2f} s; "
          f"CPU {total:.1f} s")
    print(f"  {'workers (CPU)':32} {'s':>6} {'share':>6}")
    for stage, cpu in workers.items():
        print(f"  {stage:32} {cpu:6.2f} {cpu / total:6.1%}")
    print(f"  {'parent':32} {'CPU s':>6} {'share':>6} {'wall s':>7}")
    for stage, (cpu, wall) in parent.items():
        print(f"  {stage:32} {cpu:6.2f} {cpu / total:6.1%} {wall:7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, action="append", help="job counts (default 1 and 2)")
    parser.add_argument("--copies", type=int, action="append", help="input repeats (default 1 and 5)")
    parser.add_argument("--big", action="store_true", help="one big PGN: in one piece and in ranges")
    parser.add_argument("--big-mb", type=int, default=100, help="its size (default 100 MB)")
    parser.add_argument("--memory", action="store_true",
                        help="peak memory for the hostile inputs of bench_memory.py")
    parser.add_argument("--code", type=Path, help="another tree to run beside this one")
    parser.add_argument("--stages", action="store_true", help="where one import's time goes")
    parser.add_argument("--replay-free", action="store_true",
                        help="beside each import, the same with replay costing nothing")
    parser.add_argument("--read-free", action="store_true",
                        help="as --replay-free, and also with reading costing nothing")
    parser.add_argument("--worker-free", action="store_true",
                        help="as --read-free, and also with the whole worker costing nothing")
    parser.add_argument("--one", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    # With a bound asked for, each import beside the same with less of its work done (each
    # bound adds one to those before it), twice, alternating.
    deepest = max((free for flag, free in ((args.replay_free, REPLAY_FREE),
                                           (args.read_free, READ_FREE),
                                           (args.worker_free, WORKER_FREE)) if flag), default=RUN)
    kinds = list(range(RUN, deepest + 1))
    bound = deepest != RUN
    if not args.one:
        warm_up([ROOT] + ([args.code] if args.code else []))
    if args.stages:
        for jobs in args.jobs or [2]:
            print_stages(jobs)
        return
    if args.one:
        with tempfile.TemporaryDirectory() as folder:
            print(json.dumps(one_run(args.one[0], args.one[1], Path(folder), args.one[2])))
        return
    if args.big or args.memory:
        trees = [("this tree", ROOT)] + ([(f"{args.code}", args.code)] if args.code else [])
        with tempfile.TemporaryDirectory(prefix="xqdb-bench-big-") as tmp:
            folder = Path(tmp)
            if args.big:
                path = big_pgn(folder, args.big_mb)
                # Twice each, alternating: the load of a shared machine changes by the minute.
                runs: list[tuple[str, Path, Path, dict[str, object]]] = [
                    ("in ranges (2 jobs)", path, ROOT, {"jobs": 2}),
                    ("one piece, one worker (2 jobs)", path, ROOT, {"jobs": 2, "range_bytes": 1 << 60})
                ] * 2
                runs += [(f"{label} (2 jobs)", path, code, {"jobs": 2}) for label, code in trees[1:]]
                compare(f"one PGN of {path.stat().st_size / 1e6:,.0f} MB", runs)
                path.unlink()
            if args.memory:
                from bench_memory import make_nuls, make_pgn
                for name, make in (("nuls", make_nuls), ("pgn", make_pgn)):
                    path = make(folder)
                    compare(f"{name}: {path.stat().st_size / 1e6:,.1f} MB, default jobs",
                            [(label, path, code, {}) for label, code in trees])
                    path.unlink()
        return
    if args.code and not bound:
        # ccpd-dev.zip (or that many copies of it) beside the other tree, twice each,
        # alternating.
        with tempfile.TemporaryDirectory(prefix="xqdb-bench-copies-") as tmp:
            for copies in args.copies or [1]:
                path = DATA / "ccpd-dev.zip" if copies == 1 else copied_inputs(Path(tmp), copies)
                compare(f"{path.name} ({copies} x ccpd-dev.zip): this tree ({ROOT}) and "
                        f"{args.code}",
                        [(f"{label} ({jobs} jobs)", path, code, {"jobs": jobs})
                         for jobs in args.jobs or [1, 2]
                         for label, code in (("this tree", ROOT), (str(args.code), args.code))]
                        * 2)
        return
    print(f"{'jobs':>4} {'copies':>6} {'free':>11} {'records':>8} {'games':>6} {'s':>6} "
          f"{'games/s':>8} {'plies/s':>8} {'db wall':>7} {'db cpu':>6} {'cpu s':>6} "
          f"{'parent MiB':>10} {'worker MiB':>10} {'db MiB':>7}")
    for copies in args.copies or ([1] if bound else [1, 5]):
        for jobs in args.jobs or ([2] if bound else [1, 2]):
            for free in kinds * (2 if bound else 1):
                # A fresh interpreter per run, so peak memory belongs to that run alone.
                out = subprocess.run([sys.executable, __file__, "--one", str(jobs), str(copies),
                                      str(free)], capture_output=True, text=True, check=True)
                r = json.loads(out.stdout.strip().splitlines()[-1])
                print(f"{r['jobs']:>4} {r['copies']:>6} {FREE_LABELS[free]:>11} "
                      f"{r['records']:>8,} {r['games']:>6,} {r['seconds']:>6.1f} "
                      f"{r['games_per_s']:>8,.0f} {r['plies_per_s']:>8,.0f} "
                      f"{r['db_share']:>7.1%} {r['db_cpu_share']:>6.1%} {r['cpu']:>6.1f} "
                      f"{r['parent_mib']:>10.0f} {r['worker_mib']:>10.0f} "
                      f"{r['db_mib']:>7.1f}", flush=True)
                if args.code and free == kinds[-1]:
                    other_tree(args.code, jobs, copies)


if __name__ == "__main__":
    main()
