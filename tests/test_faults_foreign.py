"""Databases that are not xqdb's, or damaged: a one-line error naming the file and what is
wrong, exit 4, and the file left as it was."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from import_support import DATA, invoke_xqdb, rows, run_xqdb
from xqdb.pipeline.importer import import_paths

GAMES = str(DATA / "pgn-chinese-15.pgn")


def _foreign(path: Path, *sql: str) -> Path:
    con = duckdb.connect(str(path))
    for statement in sql:
        con.execute(statement)
    con.close()
    return path


def _one_line_error(done, path: Path, wanted: str) -> None:
    assert done.returncode == 4, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and wanted in lines[0], done.stderr


@pytest.mark.parametrize("command", [["info"], ["import", GAMES], ["sql", "SELECT 1"]])
def test_a_duckdb_file_with_its_own_games_table(tmp_path: Path, command: list[str]) -> None:
    db = _foreign(tmp_path / "theirs.duckdb", "CREATE TABLE games (id INTEGER, title VARCHAR)",
                  "INSERT INTO games VALUES (1, 'x')")
    done = invoke_xqdb(*command, "--db", str(db))
    _one_line_error(done, db, "not an xqdb database")
    assert rows(db, "SELECT table_name FROM information_schema.tables") == [("games",)]


def test_a_duckdb_file_with_other_tables_gets_no_xqdb_tables(tmp_path: Path) -> None:
    db = _foreign(tmp_path / "theirs.duckdb", "CREATE TABLE orders (id INTEGER)")
    done = invoke_xqdb("import", GAMES, "--db", str(db))
    _one_line_error(done, db, "not an xqdb database")
    assert rows(db, "SELECT table_name FROM information_schema.tables") == [("orders",)]


@pytest.mark.parametrize("command", [["info"], ["import", GAMES], ["upgrade"],
                                     ["sql", "SELECT 1"]])
def test_a_schema_version_that_is_not_a_number(tmp_path: Path, command: list[str]) -> None:
    db = tmp_path / "g.duckdb"
    import_paths([GAMES], db, jobs=1)
    _foreign(db, "UPDATE meta SET value = 'abc' WHERE key = 'schema_version'")
    done = invoke_xqdb(*command, "--db", str(db))
    _one_line_error(done, db, "schema_version 'abc' is not a number")


@pytest.mark.parametrize("where", ["game_id=1) OR (1=1", "game_id=1 --",
                                   "length((SELECT content FROM read_text('/etc/hostname'))) > 0",
                                   "game_id=1; DROP TABLE games"])
def test_where_can_only_select_games(tmp_path: Path, where: str) -> None:
    db = tmp_path / "g.duckdb"
    import_paths([GAMES], db, jobs=1)
    analyze = invoke_xqdb("analyze", "--db", str(db), "--engine", "builtin", "--depth", "1",
                       "--where", where)
    assert analyze.returncode != 0 and "Traceback" not in analyze.stderr
    assert "give one condition on the games table" in analyze.stderr, analyze.stderr
    assert rows(db, "SELECT count(*) FROM evals") == [(0,)]
    export = invoke_xqdb("export", "--db", str(db), "--out", str(tmp_path / "x.pgn"),
                      "--where", where)
    assert export.returncode != 0 and "give one condition" in export.stderr, export.stderr
    assert not (tmp_path / "x.pgn").exists()


def test_a_read_only_sql_holding_the_file_is_said_to_read_it(tmp_path: Path) -> None:
    import subprocess
    import sys

    db = tmp_path / "g.duckdb"
    import_paths([GAMES], db, jobs=1)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys; con = duckdb.connect(sys.argv[1], "
         "read_only=True); print('held', flush=True); sys.stdin.read()", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        done = run_xqdb("import", GAMES, "--db", str(db))
        assert done.returncode == 4
        assert f"pid {holder.pid}), which holds it open for reading" in done.stderr, done.stderr
    finally:
        holder.communicate("", timeout=60)


def test_tables_a_killed_first_import_left_without_a_version_are_taken_as_new(
        tmp_path: Path) -> None:
    from xqdb.db.schema import SCHEMA

    db = _foreign(tmp_path / "g.duckdb", SCHEMA)  # the tables, and no version yet
    done = invoke_xqdb("import", GAMES, "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert rows(db, "SELECT count(*) FROM games") == [(15,)]
