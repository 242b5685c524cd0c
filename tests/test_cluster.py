"""Import and analysis on a real Dask cluster: the databases equal those of local runs.

Every test starts real worker processes: a ``LocalCluster`` of two, or a scheduler and two
workers started as a user starts them, with the ``dask`` command.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import dask
import pytest
from distributed import Client, LocalCluster

from import_support import DATA, all_rows, copies_far_apart, run_xqdb, xqdb_command
from xqdb.pipeline.analyze import analyse_database
from xqdb.engine import EngineSpec, Limit
from xqdb.formats.sources import SentSource
from xqdb.db.writer import StoredSources
from xqdb.pipeline import importer
from xqdb.pipeline.importer import ImportSummary, for_cluster, import_paths, plan_units, \
    read_unit_on_worker
from xqdb.pipeline.executors import ClusterUnavailableError, TaskLostError, WorkerSetupError, \
    open_executor

#: The evals columns that depend on the position and the limit alone. The built-in engine
#: keeps its table between searches, so ``nodes`` and ``pv`` depend on what the same
#: engine searched before, and differ between two local runs as well.
EVAL_COLUMNS = ("key, side, engine, search_limit, game_id, ply, score_cp, mate, wdl_win, "
                "wdl_draw, wdl_loss, best_move, depth, status, error, origin")


def start_cluster(workers: int = 2) -> LocalCluster:
    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                        dashboard_address=":0", silence_logs=logging.CRITICAL)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """The scheduler address of a cluster of two worker processes."""
    with start_cluster() as running:
        yield running.scheduler_address


@pytest.fixture(scope="module")
def ccpd_local(ccpd_db: Path) -> Path:
    """ccpd-dev.zip imported locally, with two processes (read only here)."""
    return ccpd_db


@pytest.mark.slow
def test_import_on_a_cluster_equals_the_local_import(cluster: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # A relative path, as users type: the workers' working folder is not this one.
    monkeypatch.chdir(DATA.parent)
    local = import_paths(["data"], tmp_path / "local.duckdb", jobs=2)
    remote = import_paths(["data"], tmp_path / "cluster.duckdb", scheduler=cluster)
    assert remote.records == local.records > 300
    assert remote.positions == local.positions > 0  # the EPD studies
    assert all_rows(tmp_path / "cluster.duckdb") == all_rows(tmp_path / "local.duckdb")
    assert remote.cluster is not None and remote.cluster.startswith(f"cluster {cluster}, 2 workers")
    assert remote.retried_tasks == 0
    assert "0 tasks retried" in str(remote) and "tasks retried" not in str(local)


@pytest.mark.slow
def test_a_repeat_replayed_by_another_worker_of_the_cluster_is_linked_without_a_replay(
        cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The workers share no memory: what one replayed reaches the other through the
    # parent, which publishes the replays of the units it has received.
    monkeypatch.setattr(importer, "UNIT_SOURCES", 1)
    copies = copies_far_apart(tmp_path / "games")
    remote = import_paths([str(tmp_path / "games")], tmp_path / "cluster.duckdb",
                          scheduler=cluster)
    local = import_paths([str(tmp_path / "games")], tmp_path / "local.duckdb", jobs=2)
    assert remote.records == 2 * copies + 30
    assert remote.unreplayed == copies
    assert remote.duplicates == local.duplicates  # the copies, and the 15 games twice
    assert all_rows(tmp_path / "cluster.duckdb") == all_rows(tmp_path / "local.duckdb")


@pytest.mark.slow
def test_a_second_import_on_a_cluster_skips_what_is_stored(cluster: str, tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    inputs = [str(DATA / "pgn-chinese-15.pgn"), str(DATA / "binary")]
    first = import_paths(inputs, db, scheduler=cluster)
    again = import_paths(inputs, db, scheduler=cluster)
    assert first.imported > 0
    assert (again.records, again.imported, again.sources) == (0, 0, 0)
    assert again.skipped_sources == first.sources


@pytest.mark.slow
def test_the_workers_log_records_reach_the_log_file(cluster: str, tmp_path: Path) -> None:
    log = tmp_path / "import.log"
    out = run_xqdb("import", str(DATA / "binary" / "BadMoveTest3.xqf"), "--db",
                   str(tmp_path / "g.duckdb"), "--scheduler", cluster, "--log-file", str(log))
    assert out.returncode == 0, out.stderr
    lines = log.read_text(encoding="utf-8").splitlines()
    assert any("Dask Worker" in line and "BadMoveTest3.xqf" in line
               and "invalid at ply 10: illegal move" in line for line in lines), lines


@pytest.mark.slow
def test_import_of_ccpd_dev_on_a_cluster_equals_the_local_import(
        shared_data: Path, ccpd_local: Path, cluster: str, tmp_path: Path) -> None:
    db = tmp_path / "cluster.duckdb"
    summary = import_paths([str(shared_data / "ccpd-dev.zip")], db, scheduler=cluster)
    assert summary.records == 11_791
    # Each worker links the repeats of what it or another replayed, without a replay
    # (2,655 of the 3,384 duplicates when each knew only its own replays).
    assert 3_000 < summary.unreplayed <= summary.duplicates
    assert all_rows(db) == all_rows(ccpd_local)


def worker_killer(watcher: Client, killed: list[str]) -> Callable[..., None]:
    """A progress callback that, the first time a worker is busy, kills its process."""
    def kill_a_busy_worker(*_: object) -> None:
        if killed:
            return
        busy = [worker for worker, keys in watcher.processing().items() if keys]
        if busy:
            pid = watcher.run(os.getpid, workers=busy[:1])[busy[0]]
            os.kill(pid, signal.SIGKILL)
            killed.append(busy[0])

    return kill_a_busy_worker


@pytest.mark.slow
def test_a_lost_worker_costs_only_its_tasks(shared_data: Path, ccpd_local: Path,
                                            tmp_path: Path) -> None:
    killed: list[str] = []
    db = tmp_path / "cluster.duckdb"
    with start_cluster() as running, Client(running, set_as_default=False) as watcher:
        summary = import_paths([str(shared_data / "ccpd-dev.zip")], db,
                               scheduler=running.scheduler_address,
                               progress=worker_killer(watcher, killed))
    assert killed, "no worker was busy when the first result came back"
    assert summary.retried_tasks >= 1
    assert f"{summary.retried_tasks:,} tasks retried" in str(summary)
    assert all_rows(db) == all_rows(ccpd_local)


def test_a_worker_that_cannot_see_an_input_fails_naming_itself_and_the_path(
        cluster: str, tmp_path: Path) -> None:
    game = tmp_path / "games" / "a.pgn"
    game.parent.mkdir()
    shutil.copy(DATA / "pgn-chinese-15.pgn", game)
    unit = next(plan_units([str(game.parent)], StoredSources(None, 0), ImportSummary()))
    sent = for_cluster(unit, send_inputs=True)
    game.unlink()  # gone from every worker's view (they share this machine's files)
    with open_executor(scheduler=cluster) as executor:
        workers = executor.client.nthreads()  # type: ignore[attr-defined]
        with pytest.raises(WorkerSetupError) as failure:
            list(executor.map(read_unit_on_worker, [for_cluster(unit)]))
        message = str(failure.value)
        assert f"cannot see the input {game}" in message
        assert any(f"worker {worker} " in message for worker in workers)
        assert "--send-inputs" in failure.value.hint
        # Sent with its bytes, the same source is read on the worker all the same.
        assert isinstance(sent.sources[0], SentSource)
        [result] = executor.map(read_unit_on_worker, [sent])
    assert (result.records, result.failed_sources) == (15, [])


def test_each_map_on_a_cluster_gets_its_own_results(cluster: str) -> None:
    # A second map over the same function while the first still holds a task: each task
    # must be a new one, not a result of the first map under a shared task key.
    with open_executor(scheduler=cluster) as executor:
        first = executor.map(abs, [-1, -3], window=2)
        assert next(first) == 1
        assert list(executor.map(abs, [-5, -7], window=2)) == [5, 7]
        assert list(first) == [3]


@pytest.mark.slow
def test_a_malformed_or_unreachable_scheduler_is_one_line_and_a_hint(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    out = run_xqdb("import", str(DATA / "pgn-chinese-15.pgn"), "--db", str(db),
                   "--scheduler", "localhost")
    assert out.returncode == 5
    assert out.stderr.splitlines() == [
        "Error: 'localhost' is not a scheduler address "
        "(give it as tcp://HOST:PORT, port 8786 by default)"]
    assert not db.exists()
    with pytest.raises(ClusterUnavailableError, match="cannot reach the scheduler"):
        with open_executor(scheduler=f"tcp://127.0.0.1:{free_port()}", connect_timeout=1):
            pass


def test_a_scheduler_without_workers_is_one_line_and_a_hint() -> None:
    with start_cluster(workers=0) as empty:
        with pytest.raises(ClusterUnavailableError) as failure:
            with open_executor(scheduler=empty.scheduler_address, worker_wait=1):
                pass
    assert str(failure.value) == f"no worker joined the scheduler {empty.scheduler_address} in 1 s"
    hint = failure.value.hint
    assert hint.startswith(f"start workers with `dask worker {empty.scheduler_address}")


def _analysed(db: Path) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(f"SELECT {EVAL_COLUMNS} FROM evals ORDER BY ALL").fetchall()
    finally:
        con.close()


def games_to_analyse(folder: Path, *names: str) -> list[Path]:
    """Databases of the same 15 games, one for each name, in ``folder``."""
    games = folder / "games.duckdb"
    import_paths([str(DATA / "pgn-chinese-15.pgn")], games, jobs=1)
    for name in names:
        shutil.copy(games, folder / name)
    return [folder / name for name in names]


@pytest.mark.slow
def test_analysis_on_a_cluster_equals_the_local_analysis(cluster: str, tmp_path: Path) -> None:
    local, remote = games_to_analyse(tmp_path, "local.duckdb", "cluster.duckdb")
    limit = Limit(depth=1)
    analyse_database(local, EngineSpec.builtin(), limit, jobs=2, game_ids=[1])
    summary = analyse_database(remote, EngineSpec.builtin(), limit, game_ids=[1],
                               scheduler=cluster)
    rows = _analysed(remote)
    assert summary.searched == len(rows) > 50
    assert rows == _analysed(local)
    assert summary.cluster is not None and summary.retried_tasks == 0
    # Only what evals lacks travels: a second run sends no position.
    again = analyse_database(remote, EngineSpec.builtin(), limit, game_ids=[1],
                             scheduler=cluster)
    assert (again.passes[0].to_search, again.searched) == (0, 0)
    assert _analysed(remote) == rows


@pytest.mark.slow
def test_an_analysis_that_loses_a_worker_completes_with_the_same_evals(tmp_path: Path) -> None:
    local, remote = games_to_analyse(tmp_path, "local.duckdb", "cluster.duckdb")
    limit = Limit(depth=1)
    analyse_database(local, EngineSpec.builtin(), limit, jobs=2, game_ids=[1, 2])
    killed: list[str] = []
    with start_cluster() as running, Client(running, set_as_default=False) as watcher:
        summary = analyse_database(remote, EngineSpec.builtin(), limit, game_ids=[1, 2],
                                   scheduler=running.scheduler_address,
                                   progress=worker_killer(watcher, killed))
    assert killed and summary.retried_tasks >= 1
    assert summary.failed == 0
    assert _analysed(remote) == _analysed(local)


@pytest.mark.slow
def test_a_task_lost_more_often_than_dask_allows_fails_the_run(tmp_path: Path) -> None:
    [db] = games_to_analyse(tmp_path, "analysed.duckdb")
    killed: list[str] = []
    # No second chance: the task running on the killed worker is lost for good.
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), start_cluster() \
            as running, Client(running, set_as_default=False) as watcher:
        with pytest.raises(TaskLostError) as failure:
            analyse_database(db, EngineSpec.builtin(), Limit(depth=1), game_ids=[1, 2],
                             scheduler=running.scheduler_address,
                             progress=worker_killer(watcher, killed))
    assert killed
    assert re.fullmatch(r"task xqdb-search_on_worker-\w+-\d+ was lost: the worker running it "
                        r"died", str(failure.value))
    # What was searched before stays stored.
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM evals").fetchone()[0] > 0
    finally:
        con.close()


def test_a_worker_without_the_engine_fails_naming_itself_and_the_path(
        cluster: str, tmp_path: Path) -> None:
    [db] = games_to_analyse(tmp_path, "analysed.duckdb")
    missing = str(tmp_path / "engines" / "fairy-stockfish")
    with pytest.raises(WorkerSetupError) as failure:
        analyse_database(db, EngineSpec((missing,)), Limit(depth=1), game_ids=[1],
                         scheduler=cluster)
    assert f"has no engine {missing}" in str(failure.value)
    assert str(failure.value).startswith("worker tcp://127.0.0.1:")


# --- a cluster started as a user starts one ---------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _dask(*args: str, cwd: Path) -> subprocess.Popen[bytes]:
    command = [str(Path(sys.executable).parent / "dask"), *args]
    return subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


@pytest.fixture
def command_line_cluster(tmp_path: Path) -> Iterator[str]:
    """``dask scheduler`` and two ``dask worker`` processes on the loopback address, each
    started in a folder of its own; stopped (and killed if need be) afterwards."""
    address = f"tcp://127.0.0.1:{free_port()}"
    started: list[subprocess.Popen[bytes]] = []
    try:
        folder = tmp_path / "scheduler"
        folder.mkdir()
        # Its diagnostics server listens even without a dashboard: on a free port.
        started.append(_dask("scheduler", "--host", "127.0.0.1", "--port",
                             address.rsplit(":", 1)[1], "--no-dashboard",
                             "--dashboard-address", ":0", cwd=folder))
        for number in range(2):
            folder = tmp_path / f"worker{number}"
            folder.mkdir()
            started.append(_dask("worker", address, "--nthreads", "1", "--no-dashboard",
                                 "--local-directory", str(folder), cwd=folder))
        with Client(address, timeout=60, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        # Each command leads a process group of its own (a worker's nanny and its worker
        # process): the whole group is stopped.
        for process in reversed(started):
            with contextlib.suppress(ProcessLookupError):  # already gone
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 20
        for process in started:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.mark.slow  # starts a scheduler and two workers with `dask`: some 30 s
def test_xqdb_import_on_a_cluster_started_from_the_command_line(
        command_line_cluster: str, tmp_path: Path) -> None:
    inputs = [str(DATA / "pgn-gbk"), str(DATA / "pgn-chinese-15.pgn")]
    local = tmp_path / "local.duckdb"
    import_paths(inputs, local, jobs=2)
    shared, sent = tmp_path / "shared.duckdb", tmp_path / "sent.duckdb"
    out = run_xqdb("import", *inputs, "--db", str(shared), "--scheduler", command_line_cluster)
    assert out.returncode == 0, out.stderr
    assert f"read on cluster {command_line_cluster}, 2 workers" in out.stdout
    # The scheduler from the environment, the inputs' bytes sent to the workers.
    env_out = subprocess.run(
        xqdb_command("import", *inputs, "--db", str(sent), "--send-inputs"),
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "XQDB_SCHEDULER": command_line_cluster})
    assert env_out.returncode == 0, env_out.stderr
    assert "read on cluster" in env_out.stdout
    assert all_rows(shared) == all_rows(local)
    assert all_rows(sent) == all_rows(local)
    # Standard input is a file of this machine alone: its bytes are always sent.
    piped = tmp_path / "piped.duckdb"
    out = subprocess.run(xqdb_command("import", "-", "--db", str(piped), "--scheduler",
                                      command_line_cluster),
                         input=(DATA / "pgn-chinese-15.pgn").read_bytes(), capture_output=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    con = duckdb.connect(str(piped), read_only=True)
    try:
        assert con.execute("SELECT path, records, error FROM sources").fetchall() == [
            ("-", 15, None)]
    finally:
        con.close()
