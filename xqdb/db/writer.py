"""The single writer: appends staged Arrow results to DuckDB, one transaction per batch.

Workers never touch the database. They hand back three staging tables per work unit
(:data:`STAGE_SOURCES`, :data:`STAGE_RECORDS`, :data:`STAGE_MOVES`), keyed by
``(unit, seq, record_index)``: the unit number in input order, the source's place in the
unit and the record's place in the source. :meth:`Writer.commit` turns a run of such
results into rows in one transaction, entirely in SQL (DuckDB scans the registered Arrow
tables or Parquet spool files), so:

* a batch is committed whole or not at all, and a source is never half stored;
* ids are assigned in input order from the largest id stored, so an interrupted import
  run again gives exactly the ids of an uninterrupted one;
* a source stored before under the same name with the same sha256 is skipped, and a valid game whose
  ``content_hash`` is already stored (or seen earlier in the batch) is linked to the
  kept game in ``game_records`` instead of being stored twice.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb
import pyarrow as pa

log = logging.getLogger("xqdb.db")

_KEY = [("unit", pa.int64()), ("seq", pa.int32())]

STAGE_SOURCES = pa.schema(_KEY + [
    ("path", pa.string()), ("member", pa.string()), ("sha256", pa.string()),
    ("bytes", pa.int64()), ("format", pa.string()), ("encoding", pa.string()),
    ("records", pa.int32()), ("error", pa.string()),
])

#: Game columns taken from the record or its replay, in ``games`` table order.
GAME_COLUMNS = [
    ("content_hash", pa.uint64()),
    ("event", pa.string()), ("site", pa.string()), ("round", pa.string()),
    ("date", pa.date32()), ("date_raw", pa.string()),
    ("red", pa.string()), ("black", pa.string()), ("red_team", pa.string()),
    ("black_team", pa.string()), ("red_elo", pa.int32()), ("black_elo", pa.int32()),
    ("result", pa.string()), ("rules_result", pa.string()),
    ("start_fen", pa.string()), ("start_key", pa.uint64()),
    ("plies", pa.int32()), ("status", pa.string()),
    ("error", pa.string()), ("error_ply", pa.int32()), ("error_text", pa.string()),
    ("termination", pa.string()),
    ("ecco", pa.string()), ("opening", pa.string()), ("variation", pa.string()),
    ("final_fen", pa.string()), ("final_key", pa.uint64()),
    ("format", pa.string()), ("notation", pa.string()), ("encoding", pa.string()),
    ("variations", pa.int32()), ("variation_errors", pa.list_(pa.string())),
    ("tags", pa.map_(pa.string(), pa.string())),
]

STAGE_RECORDS = pa.schema(_KEY + [("record_index", pa.int32()), ("line", pa.int32()),
                                  ("offset", pa.int64())] + GAME_COLUMNS
                          + [("raw_text", pa.string()), ("raw_data", pa.binary()),
                             ("reason", pa.string())])

MOVE_COLUMNS = [
    ("ply", pa.int16()), ("uci", pa.string()), ("iccs", pa.string()), ("wxf", pa.string()),
    ("chinese", pa.string()), ("piece", pa.string()), ("capture", pa.string()),
    ("is_check", pa.bool_()), ("key_before", pa.uint64()), ("key_after", pa.uint64()),
]
STAGE_MOVES = pa.schema(_KEY + [("record_index", pa.int32())] + MOVE_COLUMNS)

STAGES = {"sources": STAGE_SOURCES, "records": STAGE_RECORDS, "moves": STAGE_MOVES}


@dataclass
class Staged:
    """One work unit's output: in-memory Arrow tables, or Parquet spool files for a big one."""

    tables: dict[str, pa.Table] = field(default_factory=dict)
    files: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class CommitCounts:
    sources: int = 0
    skipped_sources: int = 0
    records: int = 0
    games: int = 0
    duplicates: int = 0
    moves: int = 0
    invalid: dict[str, int] = field(default_factory=dict)
    """Invalid records stored, by reason (the ``reason`` staging column)."""
    seconds: float = 0.0


_GAME_NAMES = ", ".join(f'"{name}"' for name, _ in GAME_COLUMNS)


class Writer:
    """Owns the read-write connection; the only code that writes rows."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.seconds = 0.0
        """Wall time spent inside DuckDB, for the summary and the benchmark."""

    def known_sources(self) -> dict[tuple[str, str | None, int], str]:
        """``(path, member, bytes) -> sha256`` of stored sources: lets a worker skip a source
        it would only re-read, after checking the hash."""
        rows = self.con.execute("SELECT path, member, bytes, sha256 FROM sources").fetchall()
        return {(p, m, b): s for p, m, b, s in rows}

    def commit(self, batch: Sequence[Staged]) -> CommitCounts:
        """Store the staged results of consecutive work units in one transaction."""
        start = time.perf_counter()
        con = self.con
        counts = CommitCounts()
        views = self._stage(batch)
        try:
            con.execute("BEGIN TRANSACTION")
            self._commit_staged(counts)
            con.execute("COMMIT")
        except BaseException:
            try:
                con.execute("ROLLBACK")
            except duckdb.Error:
                pass
            raise
        finally:
            for name in views:
                con.unregister(name)
            con.execute("DROP VIEW IF EXISTS st_sources; DROP VIEW IF EXISTS st_records;"
                        " DROP VIEW IF EXISTS st_moves")
            for name in ("s", "r", "ids"):
                con.execute(f"DROP TABLE IF EXISTS temp.{name}")
        counts.seconds = time.perf_counter() - start
        self.seconds += counts.seconds
        log.debug("committed %d records, %d moves in %.3f s", counts.records, counts.moves,
                  counts.seconds)
        return counts

    def _stage(self, batch: Sequence[Staged]) -> list[str]:
        """Expose the batch as views st_sources / st_records / st_moves."""
        registered = []
        for stage, schema in STAGES.items():
            parts: list[str] = []
            tables = [b.tables[stage] for b in batch if stage in b.tables]
            if tables:
                name = f"arrow_{stage}"
                self.con.register(name, pa.concat_tables(tables))
                registered.append(name)
                parts.append(f"SELECT * FROM {name}")
            files = [f for b in batch for f in b.files.get(stage, [])]
            if files:
                listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
                parts.append(f"SELECT * FROM read_parquet([{listed}])")
            if not parts:
                name = f"arrow_{stage}"
                self.con.register(name, schema.empty_table())
                registered.append(name)
                parts.append(f"SELECT * FROM {name}")
            self.con.execute(f"CREATE OR REPLACE TEMP VIEW st_{stage} AS "
                             + " UNION ALL BY NAME ".join(parts))
        return registered

    def _commit_staged(self, counts: CommitCounts) -> None:
        con = self.con
        # Sources: skip one already stored under the same name with the same content (a
        # re-import), and repeats within the batch. A copy under another name is a source
        # of its own, and its records are linked to the games already kept.
        con.execute("""
            CREATE TEMP TABLE s AS
            SELECT st.*, (SELECT coalesce(max(source_id), 0) FROM sources)
                         + row_number() OVER (ORDER BY unit, seq) AS source_id
            FROM (SELECT * FROM st_sources st
                  WHERE NOT EXISTS (SELECT 1 FROM sources old
                                    WHERE old.sha256 = st.sha256 AND old.path = st.path
                                      AND old.member IS NOT DISTINCT FROM st.member)
                  QUALIFY row_number() OVER (PARTITION BY sha256, path, member
                                             ORDER BY unit, seq) = 1) st
        """)
        staged_sources = con.execute("SELECT count(*) FROM st_sources").fetchone()[0]
        counts.sources = con.execute("SELECT count(*) FROM s").fetchone()[0]
        counts.skipped_sources = staged_sources - counts.sources
        con.execute("""
            INSERT INTO sources
            SELECT source_id, path, member, sha256, bytes, format, encoding, records, error,
                   current_timestamp::TIMESTAMP
            FROM s
        """)
        # Records of the stored sources, with the game each one belongs to: an earlier
        # valid game with the same content, else a new game numbered in input order.
        con.execute("""
            CREATE TEMP TABLE r AS
            SELECT st.unit, st.seq, st.record_index, st.status, st.content_hash, s.source_id,
                   CASE WHEN st.status = 'valid'
                        THEN row_number() OVER (PARTITION BY st.status = 'valid', st.content_hash
                                                ORDER BY st.unit, st.seq, st.record_index)
                        ELSE 1 END AS nth,
                   old.game_id AS old_game_id
            FROM st_records st
            JOIN s USING (unit, seq)
            LEFT JOIN (SELECT content_hash, min(game_id) AS game_id FROM games
                       WHERE status = 'valid'
                         AND content_hash IN (SELECT content_hash FROM st_records)
                       GROUP BY content_hash) old
                   ON st.status = 'valid' AND old.content_hash = st.content_hash
        """)
        con.execute("""
            CREATE TEMP TABLE ids AS
            WITH fresh AS (
                SELECT unit, seq, record_index, content_hash, status,
                       (SELECT coalesce(max(game_id), 0) FROM games)
                           + row_number() OVER (ORDER BY unit, seq, record_index) AS game_id
                FROM r WHERE old_game_id IS NULL AND nth = 1
            )
            SELECT r.unit, r.seq, r.record_index, r.source_id,
                   coalesce(r.old_game_id, own.game_id, firsts.game_id) AS game_id,
                   own.game_id IS NOT NULL AS is_primary
            FROM r
            LEFT JOIN fresh own USING (unit, seq, record_index)
            LEFT JOIN fresh firsts
                   ON r.status = 'valid' AND firsts.status = 'valid'
                  AND firsts.content_hash = r.content_hash
        """)
        counts.records = con.execute("SELECT count(*) FROM ids").fetchone()[0]
        counts.invalid = dict(con.execute(
            "SELECT reason, count(*) FROM st_records JOIN ids USING (unit, seq, record_index)"
            " WHERE status = 'invalid' GROUP BY reason").fetchall())
        con.execute(f"""
            INSERT INTO games (game_id, source_id, record_index, {_GAME_NAMES})
            SELECT ids.game_id, ids.source_id, r.record_index, {", ".join("r." + n for n in _GAME_NAMES.split(", "))}
            FROM st_records r JOIN ids USING (unit, seq, record_index)
            WHERE ids.is_primary
        """)
        counts.games = con.execute(
            "SELECT count(*) FROM ids WHERE is_primary").fetchone()[0]
        counts.duplicates = counts.records - counts.games
        con.execute("""
            INSERT INTO game_records
            SELECT ids.game_id, ids.source_id, r.record_index, ids.is_primary, r.line, r."offset",
                   r.format, r.notation, r.encoding, r.status, r.tags
            FROM st_records r JOIN ids USING (unit, seq, record_index)
        """)
        con.execute("""
            INSERT INTO raw_records
            SELECT ids.game_id, ids.source_id, r.record_index, r.raw_text, r.raw_data
            FROM st_records r JOIN ids USING (unit, seq, record_index)
        """)
        moved = con.execute("""
            INSERT INTO moves
            SELECT ids.game_id, m.ply, m.uci, m.iccs, m.wxf, m.chinese, m.piece, m.capture,
                   m.is_check, m.key_before, m.key_after
            FROM st_moves m JOIN ids USING (unit, seq, record_index)
            WHERE ids.is_primary
        """).fetchone()
        counts.moves = moved[0] if moved else 0
