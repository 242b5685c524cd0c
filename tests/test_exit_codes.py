"""Exit codes of the README's table that no other test pins: an output file that cannot be
written, and the codes of commands whose errors are tested elsewhere only for their text.

Each runs xqdb in a process of its own, as a user would; every error is one ``Error:``
line on stderr, never a traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from import_support import run_xqdb, xqdb_command
from small_db import build_small_db


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_small_db(tmp_path_factory.mktemp("exit-codes"))


def error_line(code: int, *args: str) -> str:
    """Run xqdb with ``args``, check its exit code and that stderr ends in one ``Error:``
    line with no traceback; return that line."""
    result = run_xqdb(*args)
    assert result.returncode == code, (args, result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    last = result.stderr.rstrip("\n").splitlines()[-1]
    assert last.startswith("Error: "), result.stderr
    return last


@pytest.mark.parametrize("args", [
    ["sql", "SELECT 1", "--output", "OUT/x.csv"],
    ["sql", "SELECT 1", "--output", "OUT/x.parquet"],
    ["query", "events", "--output", "OUT/x.json"],
    ["search", "--moves", "h2e2", "--output", "OUT/x.csv"],
    ["tree", "--output", "OUT/x.csv"],
    ["report", "--out", "OUT/x.html"],
    ["show", "1", "--svg", "OUT/x.svg"],
    ["export", "--out", "OUT/x.pgn"],
])
def test_an_output_file_in_a_missing_folder_is_an_input_error(db: Path, tmp_path: Path,
                                                              args: list[str]) -> None:
    nowhere = tmp_path / "no" / "such"
    args = [a.replace("OUT", str(nowhere)) for a in args]
    line = error_line(3, *args, "--db", str(db))
    assert line.startswith(f"Error: cannot write {nowhere}/x.")
    assert line.endswith("(choose a path in a folder you can write to)")
    assert not nowhere.exists()


def test_reports_exit_2_for_what_the_database_does_not_hold(db: Path) -> None:
    assert error_line(2, "openings", "--db", str(db), "explain", "99") == (
        f"Error: no game 99 in {db} (its games are 1 to 7)")
    report = str(db.parent / "report.html")
    assert error_line(2, "report", "--db", str(db), "--out", report, "--player", "nobody") \
        .startswith("Error: no player named 'nobody'")
    assert error_line(2, "players", "--db", str(db), "alias", "nobody", "--as", "x") == (
        "Error: 'nobody' is neither a spelling nor a player of the database")
    assert error_line(2, "sql", "SELECT nonsense", "--db", str(db)).startswith(
        "Error: Binder Error")


def test_search_and_export_exit_2_for_a_bad_condition_or_text_as_tree_does(
        db: Path, tmp_path: Path) -> None:
    assert error_line(2, "export", "--db", str(db), "--where", "nonsense",
                      "--out", str(tmp_path / "x.pgn")).startswith(
        "Error: cannot select the games")
    assert "move 1: 'hello'" in error_line(2, "search", "--db", str(db), "--moves", "hello")
    assert "move 1: 'hello'" in error_line(2, "tree", "--db", str(db), "--moves", "hello")
    assert error_line(2, "search", "--db", str(db), "--fen", "xyz w").startswith(
        "Error: bad FEN")


def test_export_exits_3_for_a_parquet_folder_that_is_not_empty(db: Path, tmp_path: Path) -> None:
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    assert "not an empty folder" in error_line(3, "export", "--db", str(db), "--format",
                                               "parquet", "--out", str(full))
    assert (full / "notes.txt").read_text() == "mine"


def test_analysis_commands_exit_3_when_there_is_nothing_to_judge(db: Path) -> None:
    assert error_line(3, "blunders", "--db", str(db)) == (
        "Error: the database holds no engine analysis (run 'xqdb analyze --db FILE' first)")
    assert error_line(3, "calibrate", "--db", str(db)).startswith("Error: no analysis in ")
    # An unknown game is a bad argument, exit 2, in every command (as in show).
    assert error_line(2, "analyze", "--db", str(db), "--engine", "builtin",
                      "--game", "99").startswith("Error: no game 99")


def test_upgrade_and_perft(tmp_path: Path) -> None:
    missing = tmp_path / "none.duckdb"
    assert error_line(4, "upgrade", "--db", str(missing)).startswith(
        f"Error: {missing}: no such database")
    assert error_line(2, "perft", "--fen", "xx").startswith("Error: bad FEN")


def test_ctrl_c_ends_an_analysis_with_130(db: Path) -> None:
    # Ctrl-C reaches the whole process group, workers and engines included, as here.
    run = subprocess.Popen(
        xqdb_command("analyze", "--db", str(db), "--engine", "builtin", "--depth", "5",
                     "--jobs", "1"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert run.stderr is not None
        assert "built-in engine" in run.stderr.readline()
        # Well inside the search, which takes about 10 s here, not in the start-up.
        time.sleep(1)
        os.killpg(run.pid, signal.SIGINT)
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 130, err
    assert err.startswith("Interrupted: ") and "run the same command to resume" in err
    assert "Traceback" not in err
