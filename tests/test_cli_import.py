"""``xqdb import`` as a user runs it: exit codes, the summary, the rows, one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
from click.testing import CliRunner

from import_support import DATA, SAME_15, count, invoke_xqdb, read_terminal, run_xqdb
from xqdb.cli import cli


def _invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_import_prints_a_summary_and_stores_the_rows(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    result = _invoke("import", *map(str, SAME_15), str(DATA / "binary" / "BadMoveTest3.xqf"),
                     "--db", str(db), "--jobs", "2")
    assert result.exit_code == 0, result.output
    assert "records: 46 read, 17 new games, 29 duplicates linked, 1 invalid" in result.stdout
    assert "  invalid 1: illegal move\n" in result.stdout
    assert "games/s" in result.stdout
    assert count(db, "SELECT count(*) FROM games") == 17
    assert count(db, "SELECT count(*) FROM games WHERE status = 'invalid' AND error_ply = 10") == 1


def test_second_import_reports_the_skipped_sources(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    assert _invoke("import", str(DATA / "pgn-gbk"), "--db", str(db)).exit_code == 0
    again = _invoke("import", str(DATA / "pgn-gbk"), "--db", str(db))
    assert again.exit_code == 0
    assert "sources: 0 imported, 20 skipped" in again.stdout
    assert "0 new games" in again.stdout
    assert count(db, "SELECT count(*) FROM games") == 20


def test_quiet_prints_nothing_and_still_imports(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    result = _invoke("import", str(DATA / "pgn-gbk"), "--db", str(db), "-q")
    assert result.exit_code == 0
    assert result.stdout == "" and result.stderr == ""
    assert count(db, "SELECT count(*) FROM games") == 20


def test_log_file_gets_the_workers_records(tmp_path: Path) -> None:
    db, log = tmp_path / "g.duckdb", tmp_path / "import.log"
    result = run_xqdb("import", str(DATA / "binary"), "--db", str(db), "--jobs", "2",
                      "--log-file", str(log), "-q")
    assert result.returncode == 0, result.stderr
    lines = log.read_text(encoding="utf-8").splitlines()
    assert any("ForkPoolWorker" in line and "BadMoveTest3.xqf" in line and "ply 10" in line
               for line in lines)


def _one_line_error(result: subprocess.CompletedProcess[str], code: int, text: str) -> None:
    assert result.returncode == code
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert result.stderr.startswith("Error: ") and text in result.stderr
    assert "Traceback" not in result.stderr


def test_a_missing_path_is_one_line_and_exit_3(tmp_path: Path) -> None:
    result = invoke_xqdb("import", str(tmp_path / "nope.pgn"), "--db", str(tmp_path / "g.duckdb"))
    _one_line_error(result, 3, "nope.pgn: no such file or folder")
    assert not (tmp_path / "g.duckdb").exists()


def test_no_inputs_is_exit_3(tmp_path: Path) -> None:
    _one_line_error(invoke_xqdb("import", "--db", str(tmp_path / "g.duckdb")), 3, "no inputs")


def test_a_file_that_is_not_duckdb_is_refused_and_left_alone(tmp_path: Path) -> None:
    target = tmp_path / "games.tsv"
    target.write_text("a\tb\n1\t2\n")
    result = invoke_xqdb("import", str(DATA / "pgn-gbk"), "--db", str(target))
    _one_line_error(result, 4, "not a DuckDB database")
    assert target.read_text() == "a\tb\n1\t2\n"


def test_a_database_of_an_older_schema_is_refused_and_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    con.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    con.close()
    result = invoke_xqdb("import", str(DATA / "pgn-gbk"), "--db", str(db))
    _one_line_error(result, 4, "schema version 1 was written by an older xqdb")
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT value FROM meta").fetchall() == [("1",)]
    con.close()


def test_a_database_locked_by_another_process_is_exit_4(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]);"
         " print('open', flush=True); time.sleep(120)", str(db)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        result = run_xqdb("import", str(DATA / "pgn-gbk"), "--db", str(db))
        _one_line_error(result, 4, "locked by another process")
    finally:
        holder.kill()
        holder.wait()
    assert run_xqdb("import", str(DATA / "pgn-gbk"), "--db", str(db)).returncode == 0
    assert count(db, "SELECT count(*) FROM games") == 20


def test_stdin_is_a_source(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    text = (DATA / "uci" / "same-15-games-uci.pgn").read_bytes()
    result = subprocess.run([sys.executable, "-c", "from xqdb.cli import cli; cli()",
                             "import", "-", "--db", str(db)], input=text, capture_output=True)
    assert result.returncode == 0, result.stderr
    assert count(db, "SELECT count(*) FROM games") == 15
    assert count(db, "SELECT count(*) FROM sources WHERE path = '-'") == 1


def test_the_readme_first_command_imports_every_sample_game(tmp_path: Path) -> None:
    samples = Path(__file__).parents[1] / "sample_games"
    db = tmp_path / "sample.duckdb"
    result = _invoke("import", str(samples), "--db", str(db))
    assert result.exit_code == 0, result.output
    assert "1 notes ignored" in result.stdout  # SOURCES.md
    assert count(db, "SELECT count(*) FROM games WHERE status = 'valid'") == 7
    assert count(db, "SELECT string_agg(DISTINCT format, ',' ORDER BY format) FROM sources") \
        == "dhtmlxq,pgn,xqf"
    assert count(db, "SELECT count(*) FROM sources WHERE encoding = 'big5'") == 2
    assert count(db, "SELECT count(*) FROM game_records WHERE notation = 'wxf'") == 1
    info = _invoke("info", "--db", str(db))
    assert info.exit_code == 0 and "games:      7 (7 valid, 0 invalid)" in info.stdout


def test_a_terminal_gets_a_progress_bar_on_stderr(tmp_path: Path) -> None:
    import os
    import pty

    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-c", "from xqdb.cli import cli; cli()", "import", str(DATA / "pgn-gbk"),
         str(DATA / "uci"), "--db", str(tmp_path / "g.duckdb"), "--jobs", "2"],
        stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    shown = read_terminal(leader)
    stdout, _ = process.communicate()
    assert process.returncode == 0
    bar = shown.decode("utf-8", "replace")
    assert "35 games, 0 invalid" in bar and "100%" in bar and "games/s" in bar
    assert b"records: 35 read" in stdout  # the summary still goes to stdout
