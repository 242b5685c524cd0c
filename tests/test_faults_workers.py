"""Workers that die: a killed worker's unit is read again on the worker replacing it, and
a unit whose workers keep dying is stored as unreadable; the run never hangs."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from import_support import DATA, all_rows, rows, run_xqdb, xqdb_command


def _workers(pid: int) -> list[int]:
    """The forked workers of ``pid``: its children running the same command line."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = [int(p) for p in f.read().split()]
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    found = []
    for child in children:
        try:
            if Path(f"/proc/{child}/cmdline").read_bytes() == command:
                found.append(child)
        except OSError:
            pass
    return found


def _inputs(tmp_path: Path) -> list[str]:
    """Many small sources, so units keep the workers busy for a few seconds."""
    folder = tmp_path / "games"
    folder.mkdir(exist_ok=True)
    text = (DATA / "pgn-chinese-15.pgn").read_bytes()
    for i in range(120):
        (folder / f"{i:03}.pgn").write_bytes(text + f"\n[Round \"{i}\"]\n1. h2e2 *\n".encode())
    return [str(folder)]


def _import(tmp_path: Path, db: Path, kills: int) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run the import, SIGKILLing up to ``kills`` of its workers as they show up."""
    args = ["import", *_inputs(tmp_path), "--db", str(db), "--jobs", "2", "--commit-every", "1"]
    process = subprocess.Popen(xqdb_command(*args), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    killed: set[int] = set()
    deadline = time.monotonic() + 120
    while process.poll() is None and time.monotonic() < deadline:
        if len(killed) < kills:
            for child in _workers(process.pid):
                if child not in killed and len(killed) < kills:
                    # Only workers of the pool: the relay of log records is a thread.
                    time.sleep(0.3)
                    try:
                        os.kill(child, signal.SIGKILL)
                        killed.add(child)
                    except ProcessLookupError:
                        pass
        time.sleep(0.05)
    try:
        out, err = process.communicate(timeout=max(1, deadline - time.monotonic()))
    finally:
        process.kill()
    return subprocess.CompletedProcess(args, process.returncode, out, err), len(killed)


@pytest.mark.slow
def test_a_killed_worker_is_replaced_and_its_unit_read_again(tmp_path: Path) -> None:
    clean = tmp_path / "clean.duckdb"
    assert run_xqdb("import", *_inputs(tmp_path), "--db", str(clean)).returncode == 0
    db = tmp_path / "x.duckdb"
    done, killed = _import(tmp_path, db, kills=1)
    assert killed == 1
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    got, want = all_rows(db), all_rows(clean)
    for table in ("games", "moves"):
        assert got[table] == want[table]
    assert [r[:10] for r in got["sources"]] == [r[:10] for r in want["sources"]]


@pytest.mark.slow
def test_workers_that_keep_dying_leave_their_units_stored_as_unreadable(tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    done, killed = _import(tmp_path, db, kills=12)
    assert done.returncode is not None, "the import hung"
    assert "Traceback" not in done.stderr, done.stderr
    sources = rows(db, "SELECT count(*), count(error) FROM sources")[0]
    assert sources[0] == 120
    if sources[1]:
        assert rows(db, "SELECT count(*) FROM sources WHERE error LIKE '%worker running it died%'"
                    )[0][0] == sources[1]
    again = run_xqdb("import", str(tmp_path / "games"), "--db", str(db))
    assert again.returncode == 0
    assert rows(db, "SELECT count(*), count(error) FROM sources") == [(120, 0)]


@pytest.mark.slow
def test_a_cluster_whose_workers_are_all_gone_stops_the_run() -> None:
    import logging
    import threading

    import pytest
    from distributed import LocalCluster

    from xqdb.pipeline.executors import ClusterUnavailableError, open_executor

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=logging.CRITICAL) as cluster:
        with open_executor(scheduler=cluster.scheduler_address, worker_wait=3) as executor:
            results = executor.map(time.sleep, [60.0])
            # Once the task runs, every worker leaves.
            threading.Timer(2.0, cluster.scale, args=(0,)).start()
            started = time.monotonic()
            with pytest.raises(ClusterUnavailableError, match="every worker of the cluster"):
                next(results)
            assert time.monotonic() - started < 30
