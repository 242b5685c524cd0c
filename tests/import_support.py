"""Helpers shared by the import tests: where the real data is, and a database's rows."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb

from datafiles import DATA
SAME_15 = [DATA / "pgn-chinese-15.pgn", DATA / "pgn-wxf-fullwidth-15.pgn",
           DATA / "uci" / "same-15-games-uci.pgn"]

#: Every table with the order that makes its rows comparable; wall-clock columns left out.
TABLE_ORDER = {
    "sources": ("source_id", "imported_at"),
    "games": ("game_id", None),
    "game_records": ("source_id, record_index", None),
    "moves": ("game_id, ply", None),
    "raw_records": ("source_id, record_index", None),
    "variation_moves": ("game_id, variation, ply", None),
    "rule_events": ("game_id, verdict_ply, first_ply", None),
    "positions": ("source_id, record_index", None),
}


def all_rows(db: Path) -> dict[str, list[tuple]]:
    """Every row of every xqdb table, in a stable order, without wall-clock columns."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        for table, (order, skip) in TABLE_ORDER.items():
            columns = f"* EXCLUDE ({skip})" if skip else "*"
            out[table] = con.execute(f"SELECT {columns} FROM {table} ORDER BY {order}").fetchall()
        return out
    finally:
        con.close()


def copies_far_apart(folder: Path) -> int:
    """Real games filed twice under ``folder``, one file each, with 30 other games filed
    between the originals and their copies; returns how many games are copied. A work
    unit per file (``importer.UNIT_SOURCES`` set to 1) sends the files to the workers in
    turn, and by the time a copy is read the writer has received its original."""
    games = sorted((DATA / "ccpd" / "endings").glob("*.pgn"))
    folders = {name: folder / name for name in ("a-first", "b-others", "c-copies")}
    for sub in folders.values():
        sub.mkdir(parents=True)
    for game in games:
        shutil.copy(game, folders["a-first"] / game.name)
        shutil.copy(game, folders["c-copies"] / game.name)
    others = [DATA / "pgn-chinese-15.pgn", DATA / "pgn-wxf-fullwidth-15.pgn"]
    for number, other in enumerate(others):
        for index, text in enumerate(other.read_text(encoding="utf-8").split("\n\n[")):
            (folders["b-others"] / f"{number}-{index:02}.pgn").write_text(
                "[" * bool(index) + text, encoding="utf-8")
    assert len(list(folders["b-others"].iterdir())) == 30
    return len(games)


def rows(db: Path, sql: str, *args: object) -> list[tuple]:
    """The rows ``sql`` (with its parameters ``args``) selects from the database ``db``."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(args)).fetchall()
    finally:
        con.close()


def count(db: Path, sql: str) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        row = con.execute(sql).fetchone()
        assert row is not None
        return row[0]
    finally:
        con.close()


def xqdb_command(*args: str) -> list[str]:
    """The command line that runs xqdb as a user would, in a fresh process."""
    return [sys.executable, "-c", "from xqdb.cli import cli; cli()", *args]


def run_xqdb(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(xqdb_command(*args), capture_output=True, text=True, timeout=timeout)


def invoke_xqdb(*args: str) -> subprocess.CompletedProcess[str]:
    """``xqdb args`` run in this process by Click's test runner, its exit code and outputs
    as :func:`run_xqdb` gives them: for a command whose outcome does not depend on its
    process (no signal, pipe, terminal or process of its own), without a fresh
    interpreter's start (about a second of CPU each). An exception that is not the error
    handler's exit is raised, as the traceback a user would see.
    """
    from click.testing import CliRunner

    from xqdb.cli import cli

    done = CliRunner().invoke(cli, list(args), prog_name="xqdb")
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        raise done.exception
    return subprocess.CompletedProcess(["xqdb", *args], done.exit_code, done.stdout,
                                       done.stderr)


_SCRIPT = Path(sys.executable).with_name("xqdb")
#: The installed ``xqdb`` console script (beside this Python), as a user types it.
INSTALLED = [str(_SCRIPT)] if _SCRIPT.exists() else ["xqdb"]


def run_installed(*args: str, stdin: bytes | None = None, timeout: float = 600
                  ) -> subprocess.CompletedProcess[bytes]:
    """Run the installed ``xqdb`` with ``args`` (and ``stdin``); the output as bytes."""
    return subprocess.run([*INSTALLED, *args], input=stdin, capture_output=True,
                          timeout=timeout)


def kill_after(args: list[str], seconds: float) -> None:
    """Run ``xqdb args`` and SIGKILL its whole process group after ``seconds`` (nothing
    when it has ended by then)."""
    process = subprocess.Popen(xqdb_command(*args), start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(seconds)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def kill_after_commits(args: list[str], log: Path, commits: int) -> None:
    """Run ``xqdb args`` and SIGKILL its whole process group once ``commits`` transactions
    are in its log ``log`` (0: as soon as it has started)."""
    process = subprocess.Popen(xqdb_command(*args), start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and process.poll() is None:
            seen = log.read_text(encoding="utf-8").count("committed") if log.exists() else 0
            if seen >= commits and (commits or log.exists()):
                break
            time.sleep(0.005)
        assert process.poll() is None, "the import finished before it could be killed"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def on_terminal(*args: str, timeout: float = 120) -> tuple[int, str]:
    """``xqdb args`` run in a fresh process with a terminal (a pseudo-terminal in raw
    mode, which passes every byte as written) for its standard output and error: its exit
    code and what the terminal was sent."""
    import pty
    import tty

    leader, follower = pty.openpty()
    tty.setraw(follower)
    process = subprocess.Popen(xqdb_command(*args), stdout=follower, stderr=follower,
                               stdin=subprocess.DEVNULL)
    os.close(follower)
    shown = read_terminal(leader)
    return process.wait(timeout=timeout), shown.decode("utf-8", "replace")


def read_terminal(leader: int) -> bytes:
    """All a pseudo-terminal's ``leader`` side is sent until the processes holding the
    other side close it (it is closed then)."""
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return shown
