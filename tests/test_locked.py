"""A database held by a running import: ``info``, ``query`` and ``show`` say who holds it
and when it will be free, in one line without DuckDB's words. Real import processes hold
real database files here.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from import_support import DATA, run_xqdb, xqdb_command
from xqdb.db.holder import note_path

READERS = [("info",), ("query", "events"), ("show", "1")]


def wait_for(test, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not test():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def refused(db: Path) -> list[str]:
    """The stderr of each reader refused ``db``, checking each exits 4 with one line."""
    lines = []
    for args in READERS:
        result = run_xqdb(*args, "--db", str(db), timeout=120)
        assert result.returncode == 4, (args, result.stdout, result.stderr)
        assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
        for word in ("IO Error", "Conflicting", "concurrency", "Traceback"):
            assert word not in result.stderr
        lines.append(result.stderr.rstrip("\n"))
    return lines


@pytest.fixture()
def stdin_import(tmp_path: Path):
    """An import of standard input, holding its database until the input is closed."""
    db = tmp_path / "held.duckdb"
    process = subprocess.Popen(xqdb_command("import", "-", "--db", str(db), "-j", "1", "-q"),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdin is not None
    text = (DATA / "pgn-chinese-15.pgn").read_bytes()
    process.stdin.write(text[:len(text) // 2])
    process.stdin.flush()
    wait_for(lambda: note_path(db).exists(), "the import to hold the database")
    yield db, process, text[len(text) // 2:]
    if process.poll() is None:
        process.kill()
    process.communicate(timeout=60)


@pytest.mark.slow
def test_readers_name_the_import_and_the_database_is_free_when_it_ends(stdin_import) -> None:
    db, process, rest = stdin_import
    for line in refused(db):
        assert line.startswith(f"Error: {db}: being written by xqdb import (pid {process.pid}, "
                               "started ")
        assert line.endswith(", nothing stored yet): it will be free when that import ends")
    out, err = process.communicate(rest, timeout=120)
    assert process.returncode == 0, err
    assert not note_path(db).exists()
    info = run_xqdb("info", "--db", str(db))
    assert info.returncode == 0 and "games:      15 (15 valid, 0 invalid)" in info.stdout


def test_a_killed_import_s_note_is_not_believed(stdin_import) -> None:
    db, process, _ = stdin_import
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    assert note_path(db).exists()  # left behind; its process is gone, and so is the lock
    info = run_xqdb("info", "--db", str(db))
    assert info.returncode == 0, info.stderr
    assert "games:      0" in info.stdout


@pytest.mark.slow
def test_another_program_holding_the_database_is_named(tmp_path: Path) -> None:
    db = tmp_path / "other.duckdb"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys; con = duckdb.connect(sys.argv[1]); "
         "con.execute('CREATE TABLE games (x INT)'); print('held', flush=True); "
         "sys.stdin.read()", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        for line in refused(db):
            assert line.startswith(f"Error: {db}: locked by another process (")
            assert f"pid {holder.pid}), which holds it open for writing" in line
    finally:
        holder.communicate("", timeout=60)


@pytest.mark.slow
def test_the_note_counts_what_a_long_import_stored(tmp_path: Path, shared_data: Path) -> None:
    db = tmp_path / "ccpd.duckdb"
    with subprocess.Popen(xqdb_command("import", str(shared_data / "ccpd-dev.zip"), "--db",
                                       str(db), "-j", "1", "-q", "--commit-every", "200"),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        def stored() -> bool:
            try:
                return json.loads(note_path(db).read_text())["games"] > 0
            except (OSError, ValueError):
                return False

        wait_for(stored, "the import's first commit", seconds=120)
        result = run_xqdb("info", "--db", str(db))
        process.communicate(timeout=600)
    assert result.returncode == 4
    assert " games from " in result.stderr and "sources stored so far): it will be free " \
        "when that import ends" in result.stderr
    assert process.returncode == 0 and not note_path(db).exists()


def _reader(db: Path) -> subprocess.Popen:
    """A process holding ``db`` open read-only until its input is closed."""
    process = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys; con = duckdb.connect(sys.argv[1], "
         "read_only=True); print('held', flush=True); sys.stdin.read()", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline() == "held\n"
    return process


@pytest.fixture()
def small_db(tmp_path: Path) -> Path:
    db = tmp_path / "read.duckdb"
    assert run_xqdb("import", str(DATA / "pgn-chinese-15.pgn"), "--db", str(db),
                    "-q").returncode == 0
    return db


def test_an_import_waits_for_a_process_that_reads_and_says_so(small_db: Path) -> None:
    reader = _reader(small_db)
    with subprocess.Popen(xqdb_command("import", str(DATA / "pgn-gbk"), "--db", str(small_db),
                                       "-j", "1"), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as process:
        assert process.stderr is not None
        said = process.stderr.readline()
        reader.communicate("", timeout=60)  # the reader closes the file: the import goes on
        out, err = process.communicate(timeout=120)
    assert said.startswith(f"WARNING: {small_db}: read by another process (python -c "
                           "import duckdb, sys; con = duckdb.connect(")
    assert said.endswith(f", pid {reader.pid}): waiting up to 30 s for it to close the file\n")
    assert process.returncode == 0, err
    assert "records: 20 read, 20 new games" in out


def test_a_reader_holding_the_file_past_the_wait_is_named_as_reading(
        small_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from import_support import invoke_xqdb
    from xqdb.db import schema

    monkeypatch.setattr(schema, "READERS_WAIT", 0.5)
    reader = _reader(small_db)
    try:
        result = invoke_xqdb("import", str(DATA / "pgn-gbk"), "--db", str(small_db), "-q")
    finally:
        reader.communicate("", timeout=60)
    assert result.returncode == 4
    assert f"pid {reader.pid}), which holds it open for reading (no writer can open it " \
        "meanwhile): it will be free when that process closes it\n" in result.stderr


def test_a_process_that_held_the_file_for_a_moment_is_not_said_to_write(small_db: Path) -> None:
    from xqdb.db.holder import explain_lock

    message = f"Conflicting lock is held in /usr/bin/python3.11 (PID {os.getpid()})"
    assert "holds it open for reading" in explain_lock(small_db, message)
