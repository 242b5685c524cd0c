"""Benchmark: import ccpd-dev.zip with 1 and 2 jobs, and the same input repeated 5 times.

Prints games/s, plies/s, the share of the time spent storing (commits and the final
checkpoint) as wall time of the run ("db wall": the parent waiting on DuckDB while the
workers go on) and as CPU time of the run, all processes together ("db cpu"), the CPU
time of the run, the peak memory of the parent and of the largest worker, and the
database size. Memory must stay flat when the
input grows five-fold (the copies are linked as duplicates, so every record is still read,
replayed and stored in game_records and raw_records).

    python bench/bench_import.py            # all four runs
    python bench/bench_import.py --jobs 2   # only the runs with 2 jobs
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def one_run(jobs: int, copies: int, folder: Path) -> dict[str, float]:
    """Import in this process (called in a fresh interpreter) and report figures."""
    from xqdb.pipeline.importer import import_paths

    inputs = folder / "inputs"
    inputs.mkdir()
    for i in range(copies):
        # Copies, not links: a source is known by its resolved path, so links to one file
        # would be read once.
        shutil.copyfile(DATA / "ccpd-dev.zip", inputs / f"copy{i}.zip")
    db = folder / "bench.duckdb"
    summary = import_paths([str(inputs)], db, jobs=jobs)
    cpu = sum(usage.ru_utime + usage.ru_stime for usage in
              (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)))
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, action="append", help="job counts (default 1 and 2)")
    parser.add_argument("--copies", type=int, action="append", help="input repeats (default 1 and 5)")
    parser.add_argument("--one", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        with tempfile.TemporaryDirectory() as folder:
            print(json.dumps(one_run(args.one[0], args.one[1], Path(folder))))
        return
    print(f"{'jobs':>4} {'copies':>6} {'records':>8} {'games':>6} {'s':>6} {'games/s':>8} "
          f"{'plies/s':>8} {'db wall':>7} {'db cpu':>6} {'cpu s':>6} {'parent MiB':>10} "
          f"{'worker MiB':>10} {'db MiB':>7}")
    for copies in args.copies or [1, 5]:
        for jobs in args.jobs or [1, 2]:
            # A fresh interpreter per run, so peak memory belongs to that run alone.
            out = subprocess.run([sys.executable, __file__, "--one", str(jobs), str(copies)],
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{r['jobs']:>4} {r['copies']:>6} {r['records']:>8,} {r['games']:>6,} "
                  f"{r['seconds']:>6.1f} {r['games_per_s']:>8,.0f} {r['plies_per_s']:>8,.0f} "
                  f"{r['db_share']:>7.1%} {r['db_cpu_share']:>6.1%} {r['cpu']:>6.1f} "
                  f"{r['parent_mib']:>10.0f} {r['worker_mib']:>10.0f} "
                  f"{r['db_mib']:>7.1f}", flush=True)


if __name__ == "__main__":
    main()
