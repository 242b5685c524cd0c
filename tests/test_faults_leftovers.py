"""What a stopped command leaves behind: nothing. A killed ``import -`` has its spool
removed by the next one, a SIGTERM of ``analyze`` removes its note, and the workers of a
parent killed outright stop by themselves, quietly."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from import_support import DATA, rows, run_xqdb, xqdb_command
from xqdb.pipeline.importer import import_paths


def _wait_for(test, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if test():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.slow
def test_the_spool_of_a_killed_stdin_import_is_removed_by_the_next(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    db = tmp_path / "x.duckdb"
    process = subprocess.Popen(xqdb_command("import", "-", "--db", str(db)), env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    assert process.stdin is not None
    process.stdin.write(b"1. h2e2 h9g7 *\n")
    process.stdin.flush()
    spools = lambda: [p for p in tmp_path.iterdir() if p.name.startswith("xqdb-stdin-")]
    assert _wait_for(lambda: bool(spools()))
    process.kill()
    process.wait()
    assert spools(), "the kill left the spool"
    done = subprocess.run(xqdb_command("import", "-", "--db", str(tmp_path / "y.duckdb")),
                          env=env, input=b"1. h2e2 *\n", capture_output=True)
    assert done.returncode == 0, done.stderr
    assert spools() == []


@pytest.mark.slow
def test_sigterm_of_analyze_removes_its_note(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    import_paths([str(DATA / "pgn-chinese-15.pgn")], db, jobs=1)
    note = Path(f"{db}.import.json")
    process = subprocess.Popen(xqdb_command("analyze", "--db", str(db), "--engine", "builtin",
                                            "--depth", "3", "--jobs", "1"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert _wait_for(note.exists), "analyze never started"
    time.sleep(0.5)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert not note.exists()
    assert "Traceback" not in err, err
    assert process.returncode == 130


def _workers(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


@pytest.mark.slow
def test_workers_of_a_parent_killed_outright_stop_quietly(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    text = (DATA / "pgn-chinese-15.pgn").read_bytes()
    for i in range(200):
        (folder / f"{i:03}.pgn").write_bytes(text + f'\n[Round "{i}"]\n1. h2e2 *\n'.encode())
    log = tmp_path / "stderr"
    with open(log, "w") as err:
        process = subprocess.Popen(xqdb_command("import", str(folder), "--db",
                                                str(tmp_path / "x.duckdb"), "--jobs", "2"),
                                   stdout=subprocess.DEVNULL, stderr=err)
        assert _wait_for(lambda: len(_workers(process.pid)) >= 2)
        time.sleep(1)
        workers = _workers(process.pid)
        process.kill()
        process.wait()
    alive = lambda: [w for w in workers if Path(f"/proc/{w}").exists()
                     and "zombie" not in Path(f"/proc/{w}/status").read_text().lower()]
    assert _wait_for(lambda: not alive(), seconds=10), f"workers {alive()} outlived the parent"
    time.sleep(0.5)
    assert "Traceback" not in log.read_text()
