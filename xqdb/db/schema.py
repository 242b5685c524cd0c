"""The DuckDB schema: creates the tables of :mod:`xqdb.db.columns` and opens a database safely.

>>> import duckdb
>>> con = duckdb.connect()
>>> create_schema(con)
>>> sorted(r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall())
['analysed_games', 'blunders', 'evals', 'game_records', 'games', 'judgement_thresholds', 'judgements', 'material_signatures', 'material_spans', 'meta', 'moves', 'opening_moves', 'player_blunders', 'player_names', 'players', 'position_keys', 'positions', 'raw_records', 'rule_events', 'source_ranges', 'sources', 'stored_moves', 'tree_keys', 'tree_moves', 'variation_moves', 'win_curves']
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import duckdb

from ..errors import DatabaseError
from .judgements import create_defaults
from .columns import ddl
from .holder import explain_lock, reading_holder, upgrade_running
from .memory import memory_limit_from_environment

log = logging.getLogger(__name__)

#: Bumped whenever a table changes shape; stored in ``meta``.
SCHEMA_VERSION = 14

#: The SQL creating every missing table and view (see :mod:`xqdb.db.columns`).
SCHEMA = ddl()
#: A connection to a database, for the layers above this one, which never import duckdb.
Connection = duckdb.DuckDBPyConnection


class OldSchemaError(DatabaseError):
    """The database was written by an older xqdb: ``xqdb upgrade`` brings it up to date."""

    def __init__(self, path: str, version: int) -> None:
        old = (f"{path}: schema version {version} was written by an older xqdb (this one "
               f"writes version {SCHEMA_VERSION})")
        # Told to run an upgrade while one runs, a user would start a second.
        pid = upgrade_running(path)
        if pid is not None:
            by = f"xqdb upgrade (pid {pid})" if pid else "xqdb upgrade"
            super().__init__(f"{old}, and {by} is upgrading it now: run the command again "
                             "when that upgrade ends")
        else:
            super().__init__(f"{old}: run 'xqdb upgrade --db {path}' to upgrade it")
        self.version = version


def schema_version(con: duckdb.DuckDBPyConnection, name: str = "database") -> int | None:
    """The schema version stored in the database, ``None`` for one without tables yet.

    Raises :class:`DatabaseError` for a database that has tables but is no xqdb
    database (another program's, with a ``games`` table of its own perhaps), or whose
    version is not a number.
    """
    tables = sorted(r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables").fetchall())
    if not tables:
        return None
    if "meta" not in tables:
        shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
        raise DatabaseError(f"{name}: not an xqdb database (it has the tables {shown} and no "
                            "xqdb meta table); give xqdb a file of its own")
    try:
        row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except duckdb.Error as exc:
        raise DatabaseError(f"{name}: not an xqdb database (its meta table is not xqdb's: "
                            f"{_first_line(exc)})") from None
    if row is None:
        if "games" in tables and con.execute("SELECT count(*) FROM games").fetchone() == (0,):
            return None  # made by a run killed while creating the tables: still new
        raise DatabaseError(f"{name}: not an xqdb database, or a damaged one (no "
                            "schema_version in its meta table)")
    try:
        return int(row[0])
    except (TypeError, ValueError):
        raise DatabaseError(f"{name}: damaged: its schema_version {row[0]!r} is not a "
                            "number") from None


def check_version(con: duckdb.DuckDBPyConnection, name: str = "database") -> int | None:
    """The database's schema version, if it is this xqdb's (``None`` for a new database);
    raises :class:`DatabaseError` for a newer one and :class:`OldSchemaError` for an older."""
    return _this_version(schema_version(con, name), name)


def _this_version(version: int | None, name: str) -> int | None:
    """``version`` if it is this xqdb's (or ``None``); raises as :func:`check_version`."""
    if version is not None and version > SCHEMA_VERSION:
        raise DatabaseError(f"{name}: schema version {version} is newer than this xqdb "
                            f"({SCHEMA_VERSION})")
    if version is not None and version < SCHEMA_VERSION:
        raise OldSchemaError(name, version)
    return version


def create_schema(con: duckdb.DuckDBPyConnection, name: str = "database") -> None:
    """Create every table that is missing and record the schema version; a database of
    another version is refused untouched (see :func:`check_version`)."""
    version = check_version(con, name)
    if version is not None:
        con.execute(SCHEMA)
        return
    # One transaction: a kill leaves no tables, or tables with their version.
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(SCHEMA)
        if con.execute("SELECT count(*) FROM meta WHERE key = 'schema_version'"
                       ).fetchone() == (0,):
            con.execute("INSERT INTO meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)])
            create_defaults(con)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def connect(path: str | os.PathLike[str], read_only: bool = False, *,
            any_version: bool = False, create: bool = True) -> duckdb.DuckDBPyConnection:
    """Open (and for writing, create unless not ``create``) the database at ``path``.

    A database of another schema version is refused, unless ``any_version`` (read-only:
    to upgrade it).

    Every way this can fail because of what the user pointed us at raises
    :class:`DatabaseError` with a one-line message naming the file.

    DuckDB holds at most what ``XQDB_MEMORY_LIMIT`` says, when it is set
    (:mod:`xqdb.db.memory`).
    """
    memory = memory_limit_from_environment()
    where = Path(path)
    if read_only or not create:
        require_database(where)
    if where.is_dir():
        raise DatabaseError(f"{where}: is a folder, not a database file")
    # DuckDB opens some other files (CSV, Parquet...) as in-memory views: writing there
    # would succeed and keep nothing, so check the file's header first.
    if where.exists() and where.stat().st_size > 0:
        try:
            with open(where, "rb") as head:
                magic = head.read(12)[8:12]
        except OSError as exc:
            raise DatabaseError(f"{where}: cannot read: {exc.strerror}") from None
        if magic != b"DUCK":
            raise DatabaseError(f"{where}: not a DuckDB database")
    try:
        con = _open(where, read_only)
        if memory is not None:
            con.execute(f"SET memory_limit = '{memory}B'")
    except duckdb.IOException as exc:
        raise DatabaseError(f"{where}: {_explain(exc, where)}") from None
    except duckdb.Error as exc:
        raise DatabaseError(f"{where}: cannot open as a DuckDB database ({_first_line(exc)})") from None
    try:
        if read_only and (version := _quick_version(con)) is not None:
            if not any_version:
                _this_version(version, str(where))
        elif read_only:
            tables = {r[0] for r in con.execute(
                "SELECT table_name FROM information_schema.tables").fetchall()}
            if "games" not in tables:
                raise DatabaseError(f"{where}: not an xqdb database (no games table)")
            if schema_version(con, str(where)) is None:
                raise DatabaseError(f"{where}: not an xqdb database (no schema version)")
            if not any_version:
                check_version(con, str(where))
        else:
            create_schema(con, str(where))
    except BaseException:
        con.close()
        raise
    return con


#: How long a writer waits for processes that only read the file (the explorer opens it
#: for each request, for milliseconds) before it gives up, in seconds.
READERS_WAIT = 30.0
#: How often it tries again meanwhile: a request is over in a few milliseconds.
_READERS_RETRY = 0.02


def _open(where: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    """DuckDB's connection to ``where``. Opening to write, a lock held by processes that
    only read is waited for, up to :data:`READERS_WAIT` seconds, saying so once (as a
    warning); a writer's lock is refused at once: it lasts as long as its work."""
    waited_since = None
    while True:
        try:
            return duckdb.connect(str(where), read_only=read_only)
        except duckdb.IOException as exc:
            reader = None if read_only or "lock" not in str(exc).lower() else \
                reading_holder(where, str(exc))
            now = time.monotonic()
            if reader is None or (waited_since is not None
                                  and now - waited_since > READERS_WAIT):
                raise
            if waited_since is None:
                waited_since = now
                log.warning("%s: read by another process (%s): waiting up to %d s for it "
                            "to close the file", where, reader, READERS_WAIT)
            time.sleep(_READERS_RETRY)


def _quick_version(con: duckdb.DuckDBPyConnection) -> int | None:
    """The schema version of an xqdb database read without listing its tables, which
    costs more than the rest of opening it (``xqdb serve`` opens it for every request);
    ``None`` when the read fails, and the tables are then looked at one by one."""
    try:
        row = con.execute("SELECT (SELECT value FROM meta WHERE key = 'schema_version'),"
                          " (SELECT count(*) FROM (SELECT 1 FROM games LIMIT 0))").fetchone()
        return int(row[0]) if row is not None and row[0] is not None else None
    except (duckdb.Error, ValueError):
        return None


def require_database(path: str | os.PathLike[str]) -> None:
    """Raise :class:`DatabaseError` when there is no database at ``path``: only an import
    makes one, so a mistyped path elsewhere must not leave an empty file.

    >>> require_database("/no/such/games.duckdb")
    Traceback (most recent call last):
    ...
    xqdb.errors.DatabaseError: /no/such/games.duckdb: no such database (xqdb import FILES --db /no/such/games.duckdb creates one)
    """
    where = Path(path)
    if not where.exists():
        raise DatabaseError(f"{where}: no such database (xqdb import FILES --db {where} "
                            "creates one)")


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _explain(exc: duckdb.Error, where: Path) -> str:
    text = str(exc)
    if "lock" in text.lower():
        return explain_lock(where, text)
    if "not a valid DuckDB database" in text or "magic" in text.lower() or "database file" in text:
        return "not a DuckDB database"
    return _first_line(exc)
