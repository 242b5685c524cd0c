"""The single writer: appends staged Arrow results to DuckDB, one transaction per batch.

Workers never touch the database. They hand back staging tables per work unit
(:func:`xqdb.db.columns.stage_schemas`): sources, records and positions keyed by
``(unit, seq, record_index)`` (the unit number in input order, the source's place in the
unit and the record's place in the source), moves and variation moves by their record's
row in the unit's records table. :meth:`Writer.commit` decides the ids in Python from a few key
columns, then appends the Arrow tables (or the Parquet spool files of a big unit, a piece
at a time) straight into the tables, in one transaction, so:

* a batch is committed whole or not at all, and a source is never half stored;
* ids are assigned in input order from the largest id stored, so an interrupted import
  run again gives exactly the ids of an uninterrupted one;
* a source stored before under the same name with the same sha256 is skipped, and a valid game whose
  ``content_hash`` is already stored (or seen earlier in the batch) is linked to the
  kept game in ``game_records`` instead of being stored twice;
* a source stored before with an ``error`` (it could not be read, or not to the end) is
  not done: read again, it replaces its earlier rows in the same transaction, as every
  source does when the writer is told to ``replace`` (``xqdb import --force``).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import DatabaseError
from .columns import (
    EVAL_COLUMNS, EVENT_COLUMNS, GAME_COLUMNS, MOVE_COLUMNS, TABLES, VARIATION_COLUMNS,
    stage_schemas,
)
from .lookups import forget_removed, refresh
from .players import forget_links, link_players
from .tree_counts import forget as forget_tree

log = logging.getLogger("xqdb.db")
STAGES = stage_schemas()

@dataclass(frozen=True)
class Part:
    """A byte range of a big source, read as a work unit of its own and stored in a
    transaction of its own (see :meth:`Writer.commit`). Ranges begin at record starts, so
    every record falls in one; each carries where it begins in the whole source.

    >>> Part(0, 0, 4096, 1, 0).rows(17)
    'bytes 0-4096, records 1-17'
    """

    number: int
    """0 for the source's first range, then 1, 2... in the order of the bytes."""
    start: int
    """Offset of the range's first byte in the source."""
    stop: int
    """Offset one past its last byte (the source's size for the last range)."""
    line: int
    """1-based line of its first byte."""
    record: int
    """Records of the source before it: the 0-based number of its first record."""
    last: bool = False
    sha256: str = ""
    """The whole source's sha256, known when its last range is planned (only then)."""
    encoding: str = ""
    """The encoding detected from the source's head, which every range reads with."""
    format: str = "pgn"
    """The source's format (as :func:`xqdb.formats.splitting` found it)."""

    def rows(self, records: int) -> str:
        return f"bytes {self.start}-{self.stop}, records {self.record + 1}-{self.record + records}"


def partly_stored(stop: int, size: int) -> str:
    """The ``error`` of a source whose ranges are stored only up to byte ``stop``: the
    next import reads the rest.

    >>> partly_stored(8, 20)
    'partly stored: bytes 0-8 of 20 (the next import reads the rest)'
    """
    return f"{PARTLY_STORED}bytes 0-{stop} of {size} (the next import reads the rest)"


#: How the error of a source stored only in part begins.
PARTLY_STORED = "partly stored: "


@dataclass
class Staged:
    """One work unit's output: in-memory Arrow tables, or Parquet spool files for a big one."""

    tables: dict[str, pa.Table] = field(default_factory=dict)
    files: dict[str, list[str]] = field(default_factory=dict)
    part: Part | None = None
    """The range of a big source the unit read, if it read one (its one source)."""


@dataclass
class CommitCounts:
    sources: int = 0
    """Sources stored."""
    failed_sources: int = 0
    """Of them, those stored with an ``error``: to be read again by the next import."""
    replaced_sources: int = 0
    """Sources stored before, whose rows the new ones replace."""
    skipped_sources: int = 0
    records: int = 0
    games: int = 0
    duplicates: int = 0
    moves: int = 0
    positions: int = 0
    evals: int = 0
    """Evaluations the records carry (engine comments), stored in ``evals``."""
    invalid: dict[str, int] = field(default_factory=dict)
    """Invalid records stored, by kind of failure (``error_kind``)."""
    seconds: float = 0.0


#: The write-ahead log's size at which the writer checkpoints after a commit (see
#: :meth:`Writer.commit`). A 200 MB PGN grew DuckDB's in-memory tables by about 1 MB per
#: MB of input until DuckDB's own threshold (which must stay high: see
#: ``xqdb.pipeline.importer.DUCKDB_CHECKPOINT``), to 524 MB at its peak.
WAL_BYTES = 32 << 20
#: Rows of a spooled stage are read back and appended this many at most, and fewer
#: when they are big (records of megabytes): a piece weighs about PIECE_BYTES.
PIECE_ROWS = 50_000
PIECE_BYTES = 8 << 20


def _batch_rows(metadata: pq.FileMetaData) -> int:
    """Rows per piece of a spooled file, so that a piece weighs about :data:`PIECE_BYTES`."""
    size = sum(metadata.row_group(i).total_byte_size for i in range(metadata.num_row_groups))
    if not size:
        return PIECE_ROWS
    return max(1, min(PIECE_ROWS, metadata.num_rows * PIECE_BYTES // size))


def _names(columns: Sequence[str]) -> str:
    return ", ".join(f'"{name}"' for name in columns)


_GAME_NAMES = _names([c.name for c in GAME_COLUMNS])
_MOVE_NAMES = _names([c.name for c in MOVE_COLUMNS])
_VARIATION_NAMES = _names([c.name for c in VARIATION_COLUMNS])
_EVENT_NAMES = _names([c.name for c in EVENT_COLUMNS])
_EVAL_NAMES = _names([c.name for c in EVAL_COLUMNS if c.name != "game_id"])
#: Columns of game_records and raw_records, all staged under the same names but the ids.
_RECORD_NAMES = _names(TABLES["game_records"].names)
_RAW_NAMES = _names(TABLES["raw_records"].names)
_POSITION_NAMES = _names(TABLES["positions"].names)
#: What the writer reads of every staged record to decide its ids.
_DECIDING = ["unit", "seq", "status", "content_hash", "error_kind", "linked"]


#: A source as the import knows it again: ``(real_path, member, member_index, bytes)``.
SourceKey = tuple[str, str | None, int | None, int]


class StoredSources:
    """The hashes of the sources stored whole before an import, by :data:`SourceKey`, read
    as the import comes to each file or archive: an import of a few files into a database
    of millions of sources reads the rows of those files, not all of them.

    >>> con = duckdb.connect()
    >>> from xqdb.db.schema import create_schema
    >>> create_schema(con)
    >>> StoredSources(con, 0).hashes([("/games/a.pgn", None, None, 100)])
    [None]
    """

    def __init__(self, con: duckdb.DuckDBPyConnection | None, through: int) -> None:
        """``con`` is ``None`` for an import that replaces every source (nothing is
        known); ``through`` is the last source id stored before the import began."""
        self._con, self._through = con, through
        self._hashes: dict[SourceKey, str] = {}
        self._read: set[str] = set()
        self.queries = 0
        """How many times the stored sources were read."""

    def read(self, keys: Iterable[SourceKey]) -> None:
        """Read the hashes stored of the files of ``keys`` not read yet, in one query.

        The query scans the paths of every stored source (string zone maps seldom skip
        any: paths share their first bytes), so callers ask for many files at once."""
        if self._con is None:
            return
        new = sorted({key[0] for key in keys} - self._read)
        if new:
            rows = self._con.execute(
                "SELECT real_path, member, member_index, bytes, sha256 FROM sources"
                " WHERE error IS NULL AND source_id <= ?"
                " AND real_path IN (SELECT unnest(?::VARCHAR[]))",
                [self._through, new]).fetchall()
            self.queries += 1
            self._hashes.update(((p, m, i, b), sha) for p, m, i, b, sha in rows)
            self._read.update(new)

    def hashes(self, keys: Sequence[SourceKey]) -> list[str | None]:
        """The hash stored of each source of ``keys``, ``None`` for one not stored whole."""
        self.read(keys)
        return [self._hashes.get(key) for key in keys]


@dataclass
class _UnitIds:
    """The ids decided for one unit's records, aligned with its records table's rows."""

    source_ids: list[int | None] = field(default_factory=list)
    """``None`` for a record of a skipped source: it is not stored."""
    game_ids: list[int | None] = field(default_factory=list)
    primary: list[bool] = field(default_factory=list)

    def arrays(self, start: int, stop: int) -> tuple[pa.Array, pa.Array, pa.Array]:
        return (pa.array(self.source_ids[start:stop], pa.int64()),
                pa.array(self.game_ids[start:stop], pa.int64()),
                pa.array(self.primary[start:stop], pa.bool_()))

    def primary_game_ids(self) -> pa.Array:
        """Game id by record row, only where the record's game is new (its moves are kept)."""
        return pa.array([g if p else None for g, p in zip(self.game_ids, self.primary)],
                        pa.int64())


class Writer:
    """Owns the read-write connection; the only code that writes rows.

    Ids and duplicate links are decided here in Python, from a few key columns of the
    staged records and two lookups (sources and games already stored with the batch's
    keys); the rows themselves go to DuckDB as Arrow tables scanned straight into the
    tables, with no staging tables or joins.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, replace: bool = False,
                 memory: tuple[int, int] | None = None,
                 wal: str | os.PathLike[str] | None = None, every_source: bool = False
                 ) -> None:
        self.con = con
        self.wal = wal
        """The database's write-ahead log: once a commit leaves it past
        :data:`WAL_BYTES`, the writer checkpoints (``None``: DuckDB's own threshold only)."""
        self.replace = replace
        """Whether every staged source replaces the rows of a source stored under its
        name, even an unchanged one (which is otherwise skipped)."""
        self.every_source = every_source
        """Whether every staged source is stored as a source of its own, even a repeat of
        one stored or staged before: an upgrade's sources are the rows of the database it
        upgrades, whose import decided already which to keep."""
        self.memory = memory
        """DuckDB's memory limits in bytes: the one it works in, and the most a batch that
        does not fit in it may have (``None``: DuckDB's own setting)."""
        if memory is not None:
            con.execute(f"SET memory_limit = '{memory[0]}B'")
        self.seconds = 0.0
        """Wall time spent storing (in DuckDB, and deciding ids), for the summary."""
        self.cpu_seconds = 0.0
        """CPU time of this process while storing, DuckDB's threads included: unlike the
        wall time, it does not grow when the workers keep the cores busy."""
        row = con.execute("SELECT (SELECT coalesce(max(source_id), 0) FROM sources),"
                          " (SELECT coalesce(max(game_id), 0) FROM games)").fetchone()
        assert row is not None
        self._last_source, self._last_game = int(row[0]), int(row[1])
        self._registered: list[str] = []

    def known_sources(self) -> StoredSources:
        """The sources stored whole before this import: lets a worker skip a source it
        would only re-read, after checking the hash. Knows none when the writer replaces
        every source."""
        return StoredSources(None if self.replace else self.con, self._last_source)

    def commit(self, batch: Sequence[Staged]) -> CommitCounts:
        """Store the staged results of consecutive work units in one transaction.

        DuckDB's cache grows to its memory limit as the database grows, so it works in a
        small one; a batch that does not fit (records of megabytes) is stored again with
        the larger limit of :attr:`memory`, which is then let go.
        """
        try:
            counts = self._commit(batch)
            self._checkpoint_if_due()
            return counts
        except duckdb.Error as exc:
            if self.memory is None or self.memory[1] <= self.memory[0] or not _no_memory(exc):
                raise
        working, most = self.memory
        log.info("a batch needs more than %d MiB: stored with up to %d MiB", working >> 20,
                 most >> 20)
        self.con.execute(f"SET memory_limit = '{most}B'")
        try:
            counts = self._commit(batch)
            # The big rows must reach the file while the memory is there: a checkpoint
            # within the small limit would fail for want of it, and DuckDB takes a
            # failed checkpoint as fatal for the connection.
            self.con.execute("CHECKPOINT")
            return counts
        finally:
            try:
                self.con.execute(f"SET memory_limit = '{working}B'")
            except duckdb.Error:  # not yet able to give the memory back: it keeps it
                pass

    def _commit(self, batch: Sequence[Staged]) -> CommitCounts:
        start, cpu = time.perf_counter(), time.process_time()
        con = self.con
        counts = CommitCounts()
        try:
            con.execute("BEGIN TRANSACTION")
            last = self._store(batch, counts)
            con.execute("COMMIT")
        except BaseException:
            try:
                con.execute("ROLLBACK")
            except duckdb.Error:
                pass
            raise
        finally:
            for name in self._registered:
                con.unregister(name)
            self._registered.clear()
        # Only a committed batch moves the ids on: a failed one is redone with the same ids.
        self._last_source, self._last_game = last
        counts.seconds = time.perf_counter() - start
        self.seconds += counts.seconds
        self.cpu_seconds += time.process_time() - cpu
        log.debug("committed %d records, %d moves in %.3f s", counts.records, counts.moves,
                  counts.seconds)
        return counts

    def refresh_lookups(self) -> int:
        """Bring the lookup tables up to date with the games committed (one transaction,
        counted in :attr:`seconds`; see :func:`xqdb.db.lookups.refresh`); returns the
        games added to them."""
        with self._with_most_memory():  # sorting the new rows may want more than a batch
            self.con.execute("BEGIN TRANSACTION")
            try:
                added = refresh(self.con)
                self.con.execute("COMMIT")
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
        return added

    def _checkpoint_if_due(self) -> None:
        """Checkpoint once the log holds :data:`WAL_BYTES`: DuckDB keeps what the log holds
        in memory as well (its ``IN_MEMORY_TABLE``), so this bounds it. The checkpoint runs
        with the larger memory limit, as a checkpoint DuckDB starts by itself within the
        working memory could fail, and a failed checkpoint is fatal for the connection."""
        if self.wal is None:
            return
        try:
            size = os.path.getsize(self.wal)
        except OSError:
            return
        if size >= WAL_BYTES:
            self.checkpoint()

    def link_players(self) -> int:
        """Link every game to its players and count the tree's new games in (one
        transaction, counted in :attr:`seconds`; see :func:`xqdb.db.players.link_players`);
        returns how many players there are."""
        with self._with_most_memory():  # counting reads the positions of every new game
            return link_players(self.con)

    def checkpoint(self) -> None:
        """Write everything committed into the database file proper (counted in
        :attr:`seconds`, as it is part of the cost of storing)."""
        # Rewriting the tables' tails may pin more than the working memory holds.
        with self._with_most_memory():
            self.con.execute("CHECKPOINT")

    @contextmanager
    def _with_most_memory(self) -> Iterator[None]:
        """Run the block with the larger memory limit, then the working one again; its
        time counts in :attr:`seconds` and :attr:`cpu_seconds`."""
        start, cpu = time.perf_counter(), time.process_time()
        if self.memory is not None:
            self.con.execute(f"SET memory_limit = '{self.memory[1]}B'")
        try:
            yield
        finally:
            if self.memory is not None:
                self.con.execute(f"SET memory_limit = '{self.memory[0]}B'")
            self.seconds += time.perf_counter() - start
            self.cpu_seconds += time.process_time() - cpu

    # --- reading the staged results -----------------------------------------------------

    def _scan(self, name: str, table: pa.Table) -> str:
        """Let SQL read ``table`` until the commit ends, under a name that cannot hide a
        table's (``staged_`` + ``name``)."""
        name = f"staged_{name}"
        self.con.register(name, table)
        self._registered.append(name)
        return name

    @staticmethod
    def _whole(staged: Staged, stage: str, columns: list[str] | None = None) -> pa.Table:
        """A stage of one unit as one table (spooled stages read back: only for the small
        ones, or a few columns)."""
        if stage in staged.tables:
            table = staged.tables[stage]
            return table.select(columns) if columns else table
        files = staged.files.get(stage, [])
        schema = STAGES[stage]
        if not files:
            empty = schema.empty_table()
            return empty.select(columns) if columns else empty
        return pa.concat_tables(pq.read_table(f, columns=columns, schema=schema) for f in files)

    @staticmethod
    def _chunks(staged: Staged, stage: str) -> Iterator[pa.Table]:
        """A stage of one unit in row order, a bounded piece at a time for spooled ones."""
        if stage in staged.tables:
            yield staged.tables[stage]
            return
        for name in staged.files.get(stage, []):
            spooled = pq.ParquetFile(name)
            for piece in spooled.iter_batches(batch_size=_batch_rows(spooled.metadata)):
                yield pa.Table.from_batches([piece])

    # --- deciding and storing -----------------------------------------------------------

    def _store(self, batch: Sequence[Staged], counts: CommitCounts) -> tuple[int, int]:
        con = self.con
        sources = pa.concat_tables(self._whole(b, "sources") for b in batch)
        part = batch[0].part if len(batch) == 1 else None
        if part is not None:
            # A range's source row is the whole source's: its hash once the last range
            # is stored, and until then an error saying how far it is stored.
            range_sha, range_error = sources["sha256"][0].as_py(), sources["error"][0].as_py()
            sources = sources.set_column(
                sources.schema.get_field_index("sha256"), "sha256",
                pa.array([part.sha256 if part.last else ""], pa.string()))
            sources = sources.set_column(
                sources.schema.get_field_index("error"), "error",
                pa.array([range_error if part.last else
                          partly_stored(part.stop, sources["bytes"][0].as_py())], pa.string()))
        by_row: list[int | None] = []
        if part is not None and part.number > 0:
            source_ids, last_source = self._continued_source(sources, part), self._last_source
        else:
            source_ids, by_row, last_source = self._source_ids(sources, counts)
        if source_ids and by_row:
            column = pa.array(by_row, pa.int64())
            kept = sources.append_column("source_id", column).filter(pc.is_valid(column))
            con.execute(f"""
                INSERT INTO sources (source_id, path, member, sha256, bytes, format, encoding,
                                     records, error, real_path, path_bytes, member_bytes,
                                     member_index, imported_at)
                SELECT source_id, path, member, sha256, bytes, format, encoding, records, error,
                       real_path, path_bytes, member_bytes, member_index,
                       current_timestamp::TIMESTAMP
                FROM {self._scan("new_sources", kept)}""")

        keys = [self._whole(b, "records", _DECIDING) for b in batch]
        ids, last_game = self._game_ids(keys, source_ids, counts)

        held: list[pa.Table] = []
        for number, (staged, unit_ids) in enumerate(zip(batch, ids)):
            row = 0
            for chunk in self._chunks(staged, "records"):
                source_id, game_id, primary = unit_ids.arrays(row, row + len(chunk))
                row += len(chunk)
                # Records of skipped sources (no source id) are left out by the inserts.
                chunk = chunk.append_column("source_id", source_id) \
                             .append_column("game_id", game_id) \
                             .append_column("is_primary", primary)
                if staged.files:
                    self._insert_records(chunk, f"records_{number}_{row}")
                else:
                    held.append(chunk)
        if held:
            self._insert_records(pa.concat_tables(held), "records")

        counts.moves = self._store_moves(batch, ids, "moves", "stored_moves", _MOVE_NAMES)
        self._store_moves(batch, ids, "variation_moves", "variation_moves", _VARIATION_NAMES)
        self._store_moves(batch, ids, "rule_events", "rule_events", _EVENT_NAMES)
        counts.evals = self._store_moves(batch, ids, "evals", "evals", _EVAL_NAMES)
        counts.positions = self._store_positions(batch, source_ids)
        if part is not None and source_ids:
            self._store_range(part, next(iter(source_ids.values())),
                              int(sources["records"][0].as_py()), range_sha, range_error,
                              int(sources["bytes"][0].as_py()), counts)
        return last_source, last_game

    def stored_ranges(self) -> dict[tuple[str, str | None, int | None, int],
                                    list[tuple[int, int, str]]]:
        """``(real_path, member, member_index, bytes) -> [(start, stop, sha256)...]`` of
        the ranges stored of each source stored only in part (an import was stopped in its
        middle), in order: the next import goes on after those whose bytes are unchanged.
        Empty when the writer replaces every source (it reads them from their start)."""
        if self.replace:
            return {}
        out: dict[tuple[str, str | None, int | None, int], list[tuple[int, int, str]]] = {}
        for path, member, index, size, start, stop, sha in self.con.execute(f"""
                SELECT s.real_path, s.member, s.member_index, s.bytes, r.start, r.stop, r.sha256
                FROM sources s JOIN source_ranges r USING (source_id)
                WHERE starts_with(s.error, '{PARTLY_STORED}')
                ORDER BY s.source_id, r.range""").fetchall():
            out.setdefault((path, member, index, size), []).append((start, stop, sha))
        return out

    def _continued_source(self, sources: pa.Table, part: Part) -> dict[tuple[int, int], int]:
        """The id of the source whose range ``part`` goes on from the ranges stored
        (``{}`` when that range is stored already: it is not stored twice)."""
        unit, seq, path, member, index = (sources[c][0].as_py() for c in (
            "unit", "seq", "real_path", "member", "member_index"))
        rows = self.con.execute(f"""
            SELECT s.source_id, max(r.stop) FROM sources s JOIN source_ranges r USING (source_id)
            WHERE s.real_path = ? AND s.member IS NOT DISTINCT FROM ?
              AND s.member_index IS NOT DISTINCT FROM ? AND starts_with(s.error, '{PARTLY_STORED}')
            GROUP BY s.source_id ORDER BY s.source_id DESC LIMIT 1""",
                               [path, member, index]).fetchall()
        row = rows[0] if rows else None
        if row is not None and row[1] > part.start:
            return {}
        if row is None or row[1] != part.start:
            raise DatabaseError(f"{path}: range {part.number} (bytes {part.start}-{part.stop}) "
                                "does not follow the ranges stored of its source")
        return {(unit, seq): int(row[0])}

    def _store_range(self, part: Part, source_id: int, records: int, sha: str,
                     error: str | None, size: int, counts: CommitCounts) -> None:
        """Mark ``part`` of the source ``source_id`` stored, and bring the source's row up
        to date: its records so far, and, with its last range, its hash and its error (the
        first range's that stopped early, if any)."""
        con = self.con
        con.execute("INSERT INTO source_ranges VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [source_id, part.number, part.start, part.stop, part.line, part.record,
                     records, sha, error])
        if part.last:
            errors = con.execute(
                "SELECT error FROM source_ranges WHERE source_id = ? AND error IS NOT NULL"
                " ORDER BY range LIMIT 1", [source_id]).fetchall()
            final = str(errors[0][0]) if errors else None
            if final is None and not part.sha256:
                final = "cannot read: the file could not be read to its end to hash it"
        else:
            final = partly_stored(part.stop, size)
        con.execute("""
            UPDATE sources SET records = (SELECT sum(records) FROM source_ranges r
                                          WHERE r.source_id = sources.source_id),
                               sha256 = ?, error = ?
            WHERE source_id = ?""", [part.sha256 if part.last else "", final, source_id])
        if part.number == 0:
            # Counted by the ids' pass, failed while partly stored: a source counts once,
            # with its last range.
            counts.sources -= 1
            counts.failed_sources -= int(not part.last or error is not None)
        if part.last:
            counts.sources += 1
            counts.failed_sources += final is not None

    def _store_moves(self, batch: Sequence[Staged], ids: list[_UnitIds], stage: str,
                     table: str, names: str) -> int:
        """Insert a stage of rows pointing at their record by ``row``; the rows stored."""
        held: list[pa.Table] = []
        stored = 0
        for number, (staged, unit_ids) in enumerate(zip(batch, ids)):
            by_row = unit_ids.primary_game_ids()
            for part, chunk in enumerate(self._chunks(staged, stage)):
                # Moves of records linked to an earlier game (no id here) are left out by
                # the insert, which filters as it scans rather than copy the table first.
                chunk = chunk.add_column(0, "game_id", pc.take(by_row, chunk["row"]))
                if staged.files:
                    stored += self._insert_moves(chunk, f"{stage}_{number}_{part}", table, names)
                else:
                    held.append(chunk)
        if held:
            stored += self._insert_moves(pa.concat_tables(held), stage, table, names)
        return stored

    def _store_positions(self, batch: Sequence[Staged],
                         source_ids: dict[tuple[int, int], int]) -> int:
        """Insert the staged positions of the sources stored; how many."""
        positions = pa.concat_tables(self._whole(b, "positions") for b in batch)
        if not len(positions):
            return 0
        column = pa.array([source_ids.get(key) for key in zip(positions["unit"].to_pylist(),
                                                               positions["seq"].to_pylist())],
                          pa.int64())
        view = self._scan("positions", positions.append_column("source_id", column))
        done = self.con.execute(f"INSERT INTO positions SELECT {_POSITION_NAMES} FROM {view}"
                                " WHERE source_id IS NOT NULL").fetchone()
        return int(done[0]) if done else 0

    def _source_ids(self, sources: pa.Table, counts: CommitCounts
                    ) -> tuple[dict[tuple[int, int], int], list[int | None], int]:
        """Ids for the staged sources to store, by ``(unit, seq)`` and row by row (``None``
        for a source not stored: the one pass serves both the records and the insert).

        A source stored whole before under the same name with the same content (a
        re-import), or repeated earlier in the batch, is skipped. A copy under another name
        is a source of its own, and its records are linked to the games already kept. The
        rows of a source stored under the same name with an error (or any, when
        :attr:`replace` is set) are deleted, for the new ones to take their place.
        """
        # What is stored for each staged source's file (by resolved path): the same bytes
        # read whole make the staged source a repeat; a failure, other bytes (a file edited
        # in place), or anything when replacing, is replaced. Standard input is no file:
        # what came in before stays beside what comes now.
        stored: set[tuple[int, int]] = set()
        earlier: dict[tuple[int, int], list[int]] = {}
        name = self._scan("sources", sources.select(["unit", "seq", "real_path", "member",
                                                            "member_index", "sha256"]))
        found = [] if self.every_source else self.con.execute(f"""
                SELECT st.unit, st.seq, old.source_id,
                       old.sha256 = st.sha256 AND old.error IS NULL, old.error IS NOT NULL,
                       st.real_path = '-'
                FROM {name} st JOIN sources old
                ON old.real_path = st.real_path
                   AND old.member IS NOT DISTINCT FROM st.member
                   AND old.member_index IS NOT DISTINCT FROM st.member_index""").fetchall()
        for unit, seq, old_id, same, failed, piped in found:
            if same and not self.replace:
                stored.add((unit, seq))
            elif self.replace or failed or not piped:
                earlier.setdefault((unit, seq), []).append(old_id)
        ids: dict[tuple[int, int], int] = {}
        by_row: list[int | None] = []
        seen: set[tuple[str, str | None, int | None, str]] = set()
        replaced: set[int] = set()
        last = self._last_source
        columns = [sources[c].to_pylist() for c in ("unit", "seq", "real_path", "member",
                                                    "member_index", "sha256", "error")]
        for unit, seq, path, member, index, sha, error in zip(*columns):
            if (unit, seq) in stored or (not self.every_source
                                         and (path, member, index, sha) in seen):
                counts.skipped_sources += 1
                by_row.append(None)
                continue
            seen.add((path, member, index, sha))
            replaced.update(earlier.get((unit, seq), ()))
            last += 1
            ids[(unit, seq)] = last
            by_row.append(last)
            counts.sources += 1
            if error is not None:
                counts.failed_sources += 1
        if replaced:
            self._delete_sources(sorted(replaced))
            counts.replaced_sources = len(replaced)
        return ids, by_row, last

    def _delete_sources(self, source_ids: list[int]) -> None:
        """Remove the stored sources ``source_ids`` with their records, and the games and
        moves that no other source's record keeps. A game kept from one of them but
        linked from another source's record now belongs to that record."""
        con = self.con
        gone = self._scan("replaced", pa.table({"source_id": pa.array(source_ids, pa.int64())}))
        for table in ("sources", "source_ranges", "game_records", "raw_records", "positions"):
            con.execute(f"DELETE FROM {table} WHERE source_id IN (SELECT source_id FROM {gone})")
        orphans = f"""(SELECT game_id FROM games g
                      WHERE g.source_id IN (SELECT source_id FROM {gone})
                        AND NOT EXISTS (SELECT 1 FROM game_records r WHERE r.game_id = g.game_id))"""
        forget_removed(con, orphans)
        forget_tree(con)
        forget_links(con)
        for table in ("stored_moves", "variation_moves", "rule_events", "evals", "games"):
            con.execute(f"DELETE FROM {table} WHERE game_id IN {orphans}")
        con.execute(f"""
            UPDATE games SET source_id = heir.source_id, record_index = heir.record_index
            FROM (SELECT DISTINCT ON (game_id) game_id, source_id, record_index
                  FROM game_records
                  WHERE game_id IN (SELECT game_id FROM games
                                    WHERE source_id IN (SELECT source_id FROM {gone}))
                  ORDER BY game_id, source_id, record_index) heir
            WHERE games.game_id = heir.game_id""")
        con.execute("""
            UPDATE game_records SET is_primary = true FROM games g
            WHERE g.game_id = game_records.game_id AND g.source_id = game_records.source_id
              AND g.record_index = game_records.record_index AND NOT game_records.is_primary""")

    def _game_ids(self, keys: list[pa.Table], source_ids: dict[tuple[int, int], int],
                  counts: CommitCounts) -> tuple[list[_UnitIds], int]:
        """Each record's game: an earlier valid game with the same content, else a new game
        numbered in input order."""
        every = pa.concat_tables(keys)
        hashes = every.filter(pc.equal(every["status"], "valid"))
        name = self._scan("hashes", hashes.select(["content_hash"]))
        first: dict[int, int] = dict(self.con.execute(f"""
            SELECT content_hash, min(game_id) FROM games
            WHERE status = 'valid' AND content_hash IN (SELECT content_hash FROM {name})
            GROUP BY content_hash""").fetchall())
        last = self._last_game
        out = []
        invalid: dict[str, int] = {}
        for table in keys:
            unit_ids = _UnitIds()
            columns = [table[c].to_pylist() for c in _DECIDING]
            for unit, seq, status, content, kind, linked in zip(*columns):
                source_id = source_ids.get((unit, seq))
                unit_ids.source_ids.append(source_id)
                if source_id is None:
                    unit_ids.game_ids.append(None)
                    unit_ids.primary.append(False)
                    continue
                counts.records += 1
                valid = status == "valid"
                game_id = first.get(content) if valid else None
                new = game_id is None
                if new and linked:
                    # Staged without its moves as the repeat of an earlier record that is
                    # not stored: storing it would make a game without moves.
                    raise DatabaseError(
                        f"a record of source {source_id} was read as the repeat of an earlier "
                        "record that was not stored; nothing of this batch was written: "
                        "import again")
                if new:
                    last += 1
                    game_id = last
                    counts.games += 1
                    if valid:
                        first[content] = game_id
                    else:
                        invalid[kind] = invalid.get(kind, 0) + 1
                unit_ids.game_ids.append(game_id)
                unit_ids.primary.append(new)
            out.append(unit_ids)
        counts.duplicates = counts.records - counts.games
        counts.invalid = invalid
        return out, last

    def _insert_records(self, records: pa.Table, name: str) -> None:
        """The records' rows in games (new games only), game_records and raw_records."""
        con = self.con
        view = self._scan(name, records)
        con.execute(f"""
            INSERT INTO games (game_id, source_id, record_index, {_GAME_NAMES})
            SELECT game_id, source_id, record_index, {_GAME_NAMES} FROM {view} WHERE is_primary""")
        con.execute(f"""
            INSERT INTO game_records SELECT {_RECORD_NAMES} FROM {view}
            WHERE source_id IS NOT NULL""")
        con.execute(f"""
            INSERT INTO raw_records SELECT {_RAW_NAMES} FROM {view}
            WHERE source_id IS NOT NULL""")

    def _insert_moves(self, moves: pa.Table, name: str, table: str, names: str) -> int:
        view = self._scan(name, moves)
        done = self.con.execute(f"INSERT INTO {table} (game_id, {names})"
                                f" SELECT game_id, {names} FROM {view}"
                                " WHERE game_id IS NOT NULL").fetchone()
        return int(done[0]) if done else 0


def _no_memory(exc: duckdb.Error) -> bool:
    """Whether DuckDB failed for want of memory (at COMMIT it says so in a transaction
    error: "could not allocate", or "failed to pin block" when its buffers are full).

    >>> _no_memory(duckdb.TransactionException("Failed to commit: failed to pin block of "
    ...                                        "size 1.0 MiB (63.3 MiB/64.0 MiB used)"))
    True
    """
    text = str(exc).lower()
    return isinstance(exc, duckdb.OutOfMemoryException) or any(
        sign in text for sign in ("could not allocate", "failed to pin block", "out of memory"))


@contextmanager
def writing(db: str | os.PathLike[str], con: duckdb.DuckDBPyConnection, threads: int,
            checkpoint: str) -> Iterator[None]:
    """Set ``con`` up for a long write of ``db`` (``threads`` DuckDB threads, a checkpoint
    each ``checkpoint`` of log), and turn DuckDB's failures inside into one
    :class:`~xqdb.errors.DatabaseError` naming the file: what was committed stays."""
    try:
        con.execute(f"SET checkpoint_threshold = '{checkpoint}'")
        con.execute(f"SET threads = {max(1, threads)}")
        yield
    except duckdb.Error as exc:
        # e.g. a full disk: what was committed stays, and the same command resumes.
        raise DatabaseError(f"{os.fspath(db)}: writing failed: "
                            f"{str(exc).splitlines()[0]}") from None
