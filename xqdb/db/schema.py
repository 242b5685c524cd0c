"""The DuckDB schema: one place that creates the tables and opens a database safely.

The tables are documented for users in ``docs/schema.md``; keep the two in step.

>>> import duckdb
>>> con = duckdb.connect()
>>> create_schema(con)
>>> sorted(r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall())
['game_records', 'games', 'meta', 'moves', 'raw_records', 'sources', 'stored_moves']
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from ..rules.board import piece_symbol

#: Bumped whenever a table changes shape; stored in ``meta``.
SCHEMA_VERSION = 3

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key VARCHAR PRIMARY KEY,
    value VARCHAR
);
CREATE TABLE IF NOT EXISTS sources (
    source_id BIGINT NOT NULL,
    path VARCHAR NOT NULL,
    member VARCHAR,
    sha256 VARCHAR NOT NULL,
    bytes BIGINT NOT NULL,
    format VARCHAR,
    encoding VARCHAR,
    records INTEGER NOT NULL,
    error VARCHAR,
    imported_at TIMESTAMP
);
CREATE TABLE IF NOT EXISTS games (
    game_id BIGINT NOT NULL,
    source_id BIGINT NOT NULL,
    record_index INTEGER NOT NULL,
    content_hash UBIGINT,
    event VARCHAR, site VARCHAR, round VARCHAR,
    date DATE, date_raw VARCHAR,
    red VARCHAR, black VARCHAR, red_team VARCHAR, black_team VARCHAR,
    red_elo INTEGER, black_elo INTEGER,
    result VARCHAR, rules_result VARCHAR,
    start_fen VARCHAR, start_key UBIGINT,
    plies INTEGER NOT NULL,
    status VARCHAR NOT NULL,
    error VARCHAR, error_kind VARCHAR, error_ply INTEGER, error_text VARCHAR,
    termination VARCHAR,
    ecco VARCHAR, opening VARCHAR, variation VARCHAR,
    final_fen VARCHAR, final_key UBIGINT,
    format VARCHAR, notation VARCHAR, encoding VARCHAR,
    variations INTEGER, variation_errors VARCHAR[],
    tags JSON
);
CREATE TABLE IF NOT EXISTS game_records (
    game_id BIGINT NOT NULL,
    source_id BIGINT NOT NULL,
    record_index INTEGER NOT NULL,
    is_primary BOOLEAN NOT NULL,
    line INTEGER,
    "offset" BIGINT,
    format VARCHAR, notation VARCHAR, encoding VARCHAR,
    status VARCHAR NOT NULL,
    tags JSON
);
CREATE TABLE IF NOT EXISTS stored_moves (
    game_id BIGINT NOT NULL,
    ply SMALLINT NOT NULL,
    move SMALLINT NOT NULL,
    wxf VARCHAR, chinese VARCHAR,
    piece TINYINT NOT NULL, capture TINYINT NOT NULL,
    is_check BOOLEAN,
    -- Zobrist keys are random 64-bit numbers: nothing compresses them, so DuckDB is
    -- told not to spend the time trying.
    key_before UBIGINT USING COMPRESSION uncompressed,
    key_after UBIGINT USING COMPRESSION uncompressed
);
CREATE VIEW IF NOT EXISTS moves AS
SELECT game_id, ply, move, {uci} AS uci, {iccs} AS iccs, wxf, chinese,
       {piece} AS piece, nullif({capture}, ' ') AS capture,
       is_check, key_before, key_after
FROM stored_moves;
-- Raw records are kept to be read back one at a time, rarely: zstd stores them in about
-- half the space of the default string compression, at less cost when importing.
CREATE TABLE IF NOT EXISTS raw_records (
    game_id BIGINT NOT NULL,
    source_id BIGINT NOT NULL,
    record_index INTEGER NOT NULL,
    text VARCHAR USING COMPRESSION zstd,
    data BLOB USING COMPRESSION zstd
);
"""


def _square_sql(square: str, files: str) -> str:
    """SQL naming the square ``square`` (0..89, rank * 9 + file): ``e2``, or ``E2`` with
    ``files = 'A'``."""
    return f"chr(ascii('{files}') + ({square}) % 9) || (({square}) // 9)"


# The coordinate texts follow from the move's code alone, and the piece letters from the
# piece codes, so the ``moves`` view computes them when read instead of storing them: the
# texts would add half again to the cost of storing a move. (A view rather than generated
# columns: DuckDB computes those on every insert.)
#: FEN letters by signed piece code from -7 to 7 (" " for 0, no piece).
_LETTERS = "".join(piece_symbol(p) if p else " " for p in range(-7, 8))
SCHEMA = SCHEMA.format(
    uci=f"{_square_sql('move // 90', 'a')} || {_square_sql('move % 90', 'a')}",
    iccs=f"{_square_sql('move // 90', 'A')} || '-' || {_square_sql('move % 90', 'A')}",
    piece=f"substr('{_LETTERS}', piece + 8, 1)", capture=f"substr('{_LETTERS}', capture + 8, 1)")


class DatabaseError(Exception):
    """The database cannot be used: not DuckDB, locked by another process, or too new."""


def create_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Create every table that is missing and record the schema version."""
    con.execute(SCHEMA)
    row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None:
        con.execute("INSERT INTO meta VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)])
    elif int(row[0]) > SCHEMA_VERSION:
        raise DatabaseError(f"schema version {row[0]} is newer than this xqdb ({SCHEMA_VERSION})")
    elif int(row[0]) < SCHEMA_VERSION:
        raise DatabaseError(f"schema version {row[0]} was written by an older xqdb; "
                            f"import into a new database (this xqdb writes version {SCHEMA_VERSION})")


def connect(path: str | os.PathLike[str], read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open (and for writing, create) the database at ``path``.

    Every way this can fail because of what the user pointed us at raises
    :class:`DatabaseError` with a one-line message naming the file.
    """
    where = Path(path)
    if read_only and not where.exists():
        raise DatabaseError(f"{where}: no such database")
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
        con = duckdb.connect(str(where), read_only=read_only)
    except duckdb.IOException as exc:
        raise DatabaseError(f"{where}: {_explain(exc)}") from None
    except duckdb.Error as exc:
        raise DatabaseError(f"{where}: cannot open as a DuckDB database ({_first_line(exc)})") from None
    try:
        if read_only:
            tables = {r[0] for r in con.execute(
                "SELECT table_name FROM information_schema.tables").fetchall()}
            if "games" not in tables:
                raise DatabaseError(f"{where}: not an xqdb database (no games table)")
        else:
            create_schema(con)
    except BaseException:
        con.close()
        raise
    return con


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _explain(exc: duckdb.Error) -> str:
    text = str(exc)
    if "lock" in text.lower():
        return "the database is locked by another process (is another import running?)"
    if "not a valid DuckDB database" in text or "magic" in text.lower() or "database file" in text:
        return "not a DuckDB database"
    return _first_line(exc)
