"""Running ``xqdb blunders`` as a user does, and reading a database the way tests check it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb

from import_support import run_xqdb


def blunder_rows(db: Path, *args: str) -> list[dict[str, Any]]:
    """The rows ``xqdb blunders --format json`` prints for ``args`` (every move listed)."""
    done = run_xqdb("blunders", "--db", str(db), "--format", "json", "--limit", "100000", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def fetch(db: Path, sql: str, *params: object) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` on the database at ``db``, opened read-only."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()
