"""The README's exit-code table, row by row: every command a row names fails that way with
that code, one ``Error:`` line on stderr (with its hint) and never a traceback.

Each runs xqdb on a small real database. Most run the command in this process, through
Click's runner and the one handler that maps errors to codes (the process start-ups were
nearly all of this file's time); for each exit code, and wherever a real process matters
(signals, pipes, worker pools, engines, servers), xqdb runs in a process of its own, as a
user runs it.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import traceback
from pathlib import Path

import pytest
from click.testing import CliRunner

from import_support import DATA, run_xqdb, xqdb_command
from xqdb.cli import cli
from test_readme import README, exit_code_rows, section

FEN_HINT = ("(the start position reads "
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w)")


def error_line(code: int, *args: str, process: bool = False) -> str:
    """Run xqdb with ``args`` (in this process, or in one of its own if ``process``), check
    its exit code and that stderr ends in one ``Error:`` line with no traceback; return
    that line."""
    if process:
        result = run_xqdb(*args)
        returncode, stderr = result.returncode, result.stderr
    else:
        done = CliRunner().invoke(cli, list(args), prog_name="xqdb")
        # Only the handler's exit ends the command: any other exception is a traceback.
        assert done.exception is None or isinstance(done.exception, SystemExit), \
            "".join(traceback.format_exception(*done.exc_info)) if done.exc_info else ""
        returncode, stderr = done.exit_code, done.stderr
    assert returncode == code, (args, returncode, stderr)
    assert "Traceback" not in stderr, stderr
    last = stderr.rstrip("\n").splitlines()[-1]
    assert last.startswith("Error: "), stderr
    return last


#: A port on 127.0.0.1 that a socket of this process listens on, for a server refused it.
_BUSY: list[socket.socket] = []


def busy_port() -> str:
    if not _BUSY:
        taken = socket.socket()
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        _BUSY.append(taken)
    return str(_BUSY[0].getsockname()[1])


def filled(args: tuple[str, ...], db: Path, tmp: Path) -> list[str]:
    """``args`` with DB the database option, OUT a folder that does not exist, TMP a
    writable folder, PGN a real game file and BUSYPORT a port in use."""
    swap = {"DB": ["--db", str(db)], "BUSYPORT": [busy_port()]}
    out: list[str] = []
    for arg in args:
        if arg in swap:
            out += swap[arg]
        else:
            out.append(arg.replace("OUT", str(tmp / "no" / "such")).replace("TMP", str(tmp))
                       .replace("PGN", str(DATA / "pgn-chinese-15.pgn")))
    return out


#: Row "a bad argument" (2): each command, a bad value, and the start of what it says.
BAD_ARGUMENT = {
    "perft": (("perft", "--fen", "rnbakabnr/9/xyz w"),
              f"Error: bad FEN: unknown piece letter 'x' in the FEN {FEN_HINT}"),
    "tree": (("tree", "DB", "--moves", "炮二平五 zzz"),
             "Error: move 2: 'zzz' is not a move in any notation (like 炮二平五, C2.5, H2-E2, "
             "h2e2, 7747, Che2) (moves are separated by spaces or commas, in Chinese (炮二平五), "
             "WXF (C2.5), ICCS (H2-E2) or coordinates (h2e2), each legal after the ones before)"),
    "search": (("search", "DB", "--material", "Q9"), "Error: "),
    "export": (("export", "DB", "--where", "nonsense", "--out", "TMP/x.pgn"),
               "Error: cannot select the games"),
    "sql": (("sql", "SELECT nonsense", "DB"), "Error: Binder Error"),
    "query": (("query", "player", "DB"),
              "Error: player needs --param player=VALUE: the player (canonical name, see "
              "`xqdb players`)"),
    "openings": (("openings", "DB", "--output", "TMP/o.xlsx"),
                 "Error: --output "),
    "read": (("read", "PGN", "--format", "bogus"), "Error: unknown format 'bogus' (known: "),
    "import": (("import", "PGN", "--db", "TMP/new.duckdb", "--memory-limit", "lots"),
               "Error: memory limit 'lots' is not a size (give one like 2GB, 512MB or 10%)"),
    "analyze": (("analyze", "DB", "--engine", "builtin", "--option", "Hash"),
                "Error: option 'Hash' is not NAME=VALUE (for example --option Hash=64)"),
    "blunders": (("blunders", "DB", "--mistake", "0.5"), "Error: thresholds must rise"),
    "calibrate": (("calibrate", "DB", "--mistake", "0.5"), "Error: thresholds must rise"),
}
#: Row "not found" (2).
NOT_FOUND = {
    "show": (("show", "99", "DB"), "Error: no game 99 in this database"),
    "openings": (("openings", "DB", "explain", "99"), "Error: no game 99 in "),
    "export": (("export", "DB", "--game", "99", "--out", "TMP/x.pgn"), "Error: no game 99 in "),
    "analyze": (("analyze", "DB", "--engine", "builtin", "--game", "99"), "Error: no game 99"),
    "blunders": (("blunders", "DB", "--game", "99"), "Error: no game 99 in "),
    "query": (("query", "evnts", "DB"),
              "Error: no query named 'evnts' (did you mean events? xqdb query --list lists them)"),
    "report": (("report", "DB", "--out", "TMP/r.html", "--player", "nobody"),
               "Error: no player named 'nobody'"),
    "players": (("players", "DB", "alias", "nobody", "--as", "x"),
                "Error: 'nobody' is neither a spelling nor a player of the database"),
}
#: Row "cannot run" (3).
CANNOT_RUN = {
    "import": (("import", "TMP/gmaes.pgn", "--db", "TMP/new.duckdb"),
               "Error: TMP/gmaes.pgn: no such file or folder"),
    "read": (("read", "TMP/empty.pgn"), "Error: no records to read"),
    "sql": (("sql", "SELECT 1", "DB", "--output", "OUT/x.csv"), "Error: cannot write OUT/x.csv"),
    "query": (("query", "events", "DB", "--output", "OUT/x.json"), "Error: cannot write OUT/"),
    "tree": (("tree", "DB", "--output", "OUT/x.csv"), "Error: cannot write OUT/"),
    "search": (("search", "DB", "--moves", "h2e2", "--output", "OUT/x.parquet"),
               "Error: cannot write OUT/"),
    "report": (("report", "DB", "--out", "OUT/x.html"), "Error: cannot write OUT/"),
    "show": (("show", "1", "DB", "--svg", "OUT/x.svg"), "Error: cannot write OUT/"),
    "export": (("export", "DB", "--out", "OUT/x.pgn"), "Error: cannot write OUT/"),
    "analyze": (("analyze", "DB", "--engine", "no-such-engine"),
                "Error: engine 'no-such-engine' not found (give the path of an executable, a "
                "command on the PATH or 'builtin')"),
    "blunders": (("blunders", "DB"), "Error: the database holds no engine analysis (run "
                 "'xqdb analyze --db FILE' first)"),
    "calibrate": (("calibrate", "DB"), "Error: no analysis in "),
    "serve": (("serve", "DB", "--port", "BUSYPORT"), "Error: cannot serve on 127.0.0.1:"),
}
#: Row "the database cannot be used" (4): each command given a file that is not DuckDB.
DATABASE = {
    "import": ("import", "PGN", "DB"), "info": ("info", "DB"), "upgrade": ("upgrade", "DB"),
    "players": ("players", "DB"), "openings": ("openings", "DB"), "tree": ("tree", "DB"),
    "query": ("query", "events", "DB"), "sql": ("sql", "SELECT 1", "DB"),
    "report": ("report", "DB", "--out", "TMP/r.html"), "search": ("search", "DB", "--moves", "h2e2"),
    "export": ("export", "DB", "--out", "TMP/x.pgn"), "show": ("show", "1", "DB"),
    "analyze": ("analyze", "DB", "--engine", "builtin"), "blunders": ("blunders", "DB"),
    "calibrate": ("calibrate", "DB"), "serve": ("serve", "DB", "--port", "0"),
}


#: The cases run in a process of their own as well: one of each exit code's rows, the
#: import (the user's first command) and the server.
IN_A_PROCESS = {("bad-argument", "perft"), ("not-found", "show"), ("cannot-run", "import"),
                ("cannot-run", "serve"), ("database", "info"), ("database", "serve")}


def readme_row(code: int, starts: str) -> set[str]:
    """The commands of the README's row for ``code`` whose text starts with ``starts``."""
    rows = [named for c, when, named in exit_code_rows(section("Exit codes and errors"))
            if c == code and when.startswith(starts)]
    assert len(rows) == 1 and rows[0] is not None, (code, starts)
    return rows[0]


@pytest.mark.parametrize("code, starts, cases", [
    (2, "a bad argument", BAD_ARGUMENT), (2, "not found", NOT_FOUND), (3, "cannot run", CANNOT_RUN),
])
def test_the_table_names_exactly_the_commands_tested(code: int, starts: str, cases: dict) -> None:
    assert readme_row(code, starts) == set(cases)


def test_every_command_with_a_database_is_in_the_database_row() -> None:
    assert readme_row(4, "the database cannot be used") == set(DATABASE)
    assert readme_row(5, "the cluster") == readme_row(130, "interrupted") == {"import", "analyze"}


@pytest.mark.parametrize("code, command, args, expected, process", [
    pytest.param(code, command, *case, (row, command) in IN_A_PROCESS, id=f"{row}-{command}")
    for code, row, cases in ((2, "bad-argument", BAD_ARGUMENT), (2, "not-found", NOT_FOUND),
                             (3, "cannot-run", CANNOT_RUN))
    for command, case in sorted(cases.items())])
def test_each_row_and_command(db: Path, tmp_path: Path, code: int, command: str,
                              args: tuple[str, ...], expected: str, process: bool) -> None:
    (tmp_path / "empty.pgn").write_bytes(b"")
    line = error_line(code, *filled(args, db, tmp_path), process=process)
    expected = expected.replace("OUT", str(tmp_path / "no" / "such")).replace("TMP", str(tmp_path))
    assert line.startswith(expected), line
    # Nothing was left behind where the command could not write.
    assert not (tmp_path / "no").exists()
    assert not (tmp_path / "x.pgn").exists() or command != "export"


@pytest.mark.parametrize("command", sorted(DATABASE))
def test_a_file_that_is_not_a_database(tmp_path: Path, command: str) -> None:
    fake = tmp_path / "games.duckdb"
    fake.write_text("these are my notes, not a database\n")
    line = error_line(4, *filled(DATABASE[command], fake, tmp_path),
                      process=("database", command) in IN_A_PROCESS)
    assert line.startswith(f"Error: {fake}: ") and "DuckDB" in line, line
    assert fake.read_text() == "these are my notes, not a database\n"


@pytest.mark.parametrize("command", ["info", "query", "show", "openings", "export", "blunders"])
def test_a_missing_database_says_how_to_make_one(tmp_path: Path, command: str) -> None:
    missing = tmp_path / "games.duckdb"
    args = dict(DATABASE)[command]
    assert error_line(4, *filled(args, missing, tmp_path), process=command == "info") == (
        f"Error: {missing}: no such database (xqdb import FILES --db {missing} creates one)")
    assert not missing.exists()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("command", ["import", "analyze"])
@pytest.mark.slow
def test_a_cluster_that_does_not_answer(db: Path, tmp_path: Path, command: str) -> None:
    pytest.importorskip("distributed", reason="the cluster extra (xqdb[cluster]) is needed")
    scheduler = f"tcp://127.0.0.1:{_free_port()}"
    args = (("import", "PGN", "--db", "TMP/new.duckdb") if command == "import" else
            ("analyze", "DB", "--engine", "builtin", "--depth", "1"))
    line = error_line(5, *filled(args, db, tmp_path), "--scheduler", scheduler, process=True)
    assert scheduler in line


@pytest.mark.parametrize("command", ["import", "analyze"])
@pytest.mark.slow
def test_a_scheduler_no_worker_joins_stops_the_run_with_5(db: Path, tmp_path: Path,
                                                          command: str) -> None:
    pytest.importorskip("distributed", reason="the cluster extra (xqdb[cluster]) is needed")
    port = _free_port()
    scheduler = subprocess.Popen(["dask", "scheduler", "--host", "127.0.0.1", "--port",
                                  str(port), "--no-dashboard"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        address = f"tcp://127.0.0.1:{port}"
        copy = tmp_path / "games.duckdb"
        shutil.copy(db, copy)
        args = (("import", "PGN", "--db", "TMP/new.duckdb") if command == "import" else
                ("analyze", "DB", "--engine", "builtin", "--depth", "1"))
        started = time.monotonic()
        # The wait is 60 s unless XQDB_WORKER_WAIT says otherwise.
        result = subprocess.run(xqdb_command(*filled(args, copy, tmp_path), "--scheduler",
                                             address),
                                env={**os.environ, "XQDB_WORKER_WAIT": "2"},
                                capture_output=True, text=True, timeout=120)
        assert time.monotonic() - started < 60
    finally:
        scheduler.terminate()
        scheduler.wait(30)
    assert result.returncode == 5, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"Error: no worker joined the scheduler {address} in 2 s (start workers with "
        f"`dask worker {address} --nthreads 1`)")
    assert not (tmp_path / "new.duckdb").exists() or command != "import"


#: A UCI engine that greets, then dies on every ``go``.
DIES_ON_GO = """#!{python}
import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "uci":
        print("id name dies-on-go")
        print("uciok")
    elif word == "isready":
        print("readyok")
    elif word == "go":
        sys.exit(1)
    elif word == "quit":
        break
    sys.stdout.flush()
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.slow
def test_an_engine_that_fails_three_positions_in_a_row_stops_the_analysis(
        db: Path, tmp_path: Path, jobs: str) -> None:
    engine = tmp_path / "engine.py"
    engine.write_text(DIES_ON_GO.format(python=sys.executable))
    engine.chmod(0o755)
    copy = tmp_path / "games.duckdb"
    shutil.copy(db, copy)
    line = error_line(3, "analyze", "--db", str(copy), "--engine", str(engine), "--game", "1",
                      "--nodes", "1000", "--jobs", jobs, process=True)
    assert line == ("Error: the engine failed on 3 positions in a row, each twice: engine "
                    "dies-on-go exited (status 1) instead of trying to finish its search; "
                    "stopped")
    # The run stopped: the next one, with an engine that works, searches everything.
    again = run_xqdb("analyze", "--db", str(copy), "--engine", "builtin", "--game", "1",
                     "--depth", "1", "--jobs", "1")
    assert again.returncode == 0, again.stderr


def _interrupted(command: list[str], stdin: bytes | None = None,
                 started: Path | None = None) -> str:
    # Ctrl-C reaches the whole process group, workers and engines included, as here.
    run = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, start_new_session=True)
    try:
        assert run.stdin is not None and run.stderr is not None
        if stdin is not None:
            run.stdin.write(stdin)  # and keep it open: the import waits for the rest
            run.stdin.flush()
        else:
            assert b"built-in engine" in run.stderr.readline()
        # Well inside the work, not in the start-up.
        deadline = time.monotonic() + 60
        while started is not None and not started.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.5)
        os.killpg(run.pid, signal.SIGINT)
        _, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 130, err
    assert b"Traceback" not in err
    return err.decode()


@pytest.mark.slow
def test_ctrl_c_ends_an_analysis_with_130(db: Path, tmp_path: Path) -> None:
    # On a copy: what the run searched before the interrupt stays in the database, and
    # the shared one must keep an empty evals table for the tests after this one.
    copy = tmp_path / "analysed.duckdb"
    shutil.copy(db, copy)
    err = _interrupted(xqdb_command("analyze", "--db", str(copy), "--engine", "builtin",
                                    "--depth", "5", "--jobs", "1"))
    assert err.startswith("Interrupted: ") and "run the same command to resume" in err


@pytest.mark.slow
def test_ctrl_c_ends_an_import_with_130(tmp_path: Path) -> None:
    # Once the import has started writing (its note is beside the database), it waits for
    # the rest of standard input.
    err = _interrupted(xqdb_command("import", "-", "--db", str(tmp_path / "g.duckdb")),
                       stdin=(DATA / "pgn-chinese-15.pgn").read_bytes(),
                       started=tmp_path / "g.duckdb.import.json")
    assert err.startswith("Interrupted: what was committed stays")


def test_a_closed_pipe_ends_the_export_quietly(db: Path) -> None:
    done = subprocess.run(" ".join(xqdb_command("export", "--db", str(db), "--out", "-"))
                          .replace("from xqdb.cli import cli; cli()",
                                   "'from xqdb.cli import cli; cli()'") + " | head -c 10",
                          shell=True, capture_output=True, timeout=120,
                          executable="/bin/bash")
    assert len(done.stdout) == 10
    assert b"Broken pipe" not in done.stderr and b"Traceback" not in done.stderr, done.stderr


def test_a_usage_error_points_at_the_help(tmp_path: Path) -> None:
    # As a process, the command is called xqdb however Python was started.
    assert error_line(2, "info", process=True) == (
        "Error: Missing option '--db'. (see 'xqdb info --help')")
    assert error_line(2, "openings", "explain", "1") == (
        "Error: Missing option '--db' (or env XQDB_DB). (see 'xqdb openings explain --help')")
    assert error_line(2, "nothing") == "Error: No such command 'nothing'. (see 'xqdb --help')"
    assert error_line(2, "info", "--db", str(tmp_path)) == (
        f"Error: Invalid value for '--db': File '{tmp_path}' is a directory. "
        "(see 'xqdb info --help')")
    assert error_line(2, "engine", "--bogus") == (
        "Error: No such option '--bogus'. (see 'xqdb engine --help')")


def test_a_mistyped_path_names_the_likely_one(tmp_path: Path) -> None:
    (tmp_path / "games.pgn").write_bytes((DATA / "pgn-chinese-15.pgn").read_bytes())
    typo = str(tmp_path / "gmaes.pgn")
    meant = f"(did you mean {tmp_path / 'games.pgn'}?)"
    line = error_line(3, "import", typo, "--db", str(tmp_path / "g.duckdb"))
    assert line == f"Error: {typo}: no such file or folder {meant}"
    assert error_line(3, "read", typo) == line
    nowhere = str(tmp_path / "no" / "such" / "x.pgn")
    assert error_line(3, "read", nowhere) == (
        f"Error: {nowhere}: no such file or folder (there is no folder {tmp_path / 'no'})")


def test_the_same_bad_fen_and_move_say_the_same_in_every_command(db: Path) -> None:
    for command in (("tree", "--db", str(db)), ("search", "--db", str(db))):
        assert error_line(2, *command, "--fen", "rnbakabnr/9/xyz w") == \
            BAD_ARGUMENT["perft"][1]
        assert error_line(2, *command, "--moves", "炮二平五 zzz") == BAD_ARGUMENT["tree"][1]
    assert error_line(2, "tree", "--db", str(db), "--moves", "炮二平九").startswith(
        "Error: move 1: '炮二平九': the cannon on h2 cannot move to ")


def test_export_exits_3_for_a_parquet_folder_that_is_not_empty(db: Path, tmp_path: Path) -> None:
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    assert "not an empty folder" in error_line(3, "export", "--db", str(db), "--format",
                                               "parquet", "--out", str(full))
    assert (full / "notes.txt").read_text() == "mine"


def test_an_unknown_output_suffix_is_refused_before_anything_is_written(db: Path,
                                                                        tmp_path: Path) -> None:
    out = tmp_path / "o.xlsx"
    assert error_line(2, "openings", "--db", str(db), "--output", str(out)) == (
        f"Error: --output {out}: .xlsx is not a format xqdb writes (use .txt, .csv, .json or "
        ".parquet, or give --format)")
    assert not out.exists()
    assert CliRunner().invoke(cli, ["openings", "--db", str(db), "--output",
                                    str(tmp_path / "o.txt")]).exit_code == 0


def test_an_export_of_a_missing_game_writes_nothing(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.pgn"
    assert error_line(2, "export", "--db", str(db), "--game", "42", "--out", str(out)) == (
        f"Error: no game 42 in {db} (its games are 1 to 7)")
    assert not out.exists()


assert "| exit code | when | commands |" in README
