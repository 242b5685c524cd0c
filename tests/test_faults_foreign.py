"""Databases that are not xqdb's, or damaged: a one-line error naming the file and what is
wrong, exit 4, and the file left as it was."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from import_support import DATA, rows, run_xqdb
from xqdb.importer import import_paths

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
    done = run_xqdb(*command, "--db", str(db))
    _one_line_error(done, db, "not an xqdb database")
    assert rows(db, "SELECT table_name FROM information_schema.tables") == [("games",)]


def test_a_duckdb_file_with_other_tables_gets_no_xqdb_tables(tmp_path: Path) -> None:
    db = _foreign(tmp_path / "theirs.duckdb", "CREATE TABLE orders (id INTEGER)")
    done = run_xqdb("import", GAMES, "--db", str(db))
    _one_line_error(done, db, "not an xqdb database")
    assert rows(db, "SELECT table_name FROM information_schema.tables") == [("orders",)]


@pytest.mark.parametrize("command", [["info"], ["import", GAMES], ["upgrade"],
                                     ["sql", "SELECT 1"]])
def test_a_schema_version_that_is_not_a_number(tmp_path: Path, command: list[str]) -> None:
    db = tmp_path / "g.duckdb"
    import_paths([GAMES], db, jobs=1)
    _foreign(db, "UPDATE meta SET value = 'abc' WHERE key = 'schema_version'")
    done = run_xqdb(*command, "--db", str(db))
    _one_line_error(done, db, "schema_version 'abc' is not a number")
