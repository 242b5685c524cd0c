"""Import game records into DuckDB: workers read and replay, one writer appends.

:func:`import_paths` is the whole job behind ``xqdb import``::

    summary = import_paths(["games/", "more.zip"], "games.duckdb", jobs=2)
    print(summary.imported, summary.duplicates, summary.invalid)

The parent walks the inputs (:func:`xqdb.formats.sources.walk`) and groups sources into
work units; a pool of worker processes reads and replays each unit into columnar Arrow
tables (:func:`read_unit`); the parent, alone, commits them in input order through
:class:`xqdb.db.writer.Writer`. Nothing is dropped: a record that cannot be read or
replayed is stored as an ``invalid`` game with its reason, ply and raw text.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import duckdb

from .db.rows import UnitBuilder, replay_record
from .errors import ErrorKind
from .db.schema import DatabaseError, connect
from .db.writer import Staged, Writer
from .formats.sources import Source, SourceError, walk
from .parallel import default_jobs, ordered_map, process_pool

log = logging.getLogger("xqdb.import")

#: A work unit closes at this many sources or bytes, whichever comes first: small
#: archive members travel together, a big file travels alone.
UNIT_SOURCES = 200
UNIT_BYTES = 256 << 10
#: A unit whose staged moves pass this many rows spills them to Parquet files, so a
#: single huge file never has to fit in memory.
SPILL_ROWS = 400_000
#: Notes that travel with game collections (a README, an attribution list) and are not
#: records: skipped by name, and counted in the summary.
#: Memory DuckDB may use while importing (it spills to disk beyond this). Its cache fills
#: up to this as the database grows, so the cap is what keeps a long import's memory flat;
#: appends write their row groups straight to the file and need little of it.
DUCKDB_MEMORY = "64MB"
#: DuckDB checkpoints (rewrites the tables' tails) each time its write-ahead log passes
#: this; at the default 16 MB that is every few commits, and costs both time and memory
#: spikes that grow with the database. The log stays bounded, and the run ends with one.
DUCKDB_CHECKPOINT = "256MB"
#: The writer commits once it holds this many staged records (or a spilled unit).
COMMIT_RECORDS = 4000


class ImportRunError(Exception):
    """The run itself failed; the message says why in one line.

    ``exit_code`` is what ``xqdb import`` exits with: :data:`EXIT_INPUT` when there is
    nothing to read, :data:`EXIT_DATABASE` when the database cannot be used.
    """

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


#: Exit codes of a failed run (Click itself uses 1 for errors and 2 for usage).
EXIT_INPUT = 3
EXIT_DATABASE = 4


@dataclass(frozen=True)
class WorkUnit:
    """Sources to read together, with what the parent already knows about them."""

    number: int
    sources: tuple[Source, ...]
    known: tuple[str | None, ...]
    """sha256 already stored for a source at the same path, member and size, if any."""
    format: str | None = None
    encoding: str | None = None
    spool: str | None = None


@dataclass
class UnitResult:
    number: int
    staged: Staged
    sources: int = 0
    bytes: int = 0
    records: int = 0
    invalid: int = 0
    skipped_sources: int = 0
    failed_sources: list[str] = field(default_factory=list)


@dataclass
class ImportSummary:
    """What an import did; ``str()`` is the report ``xqdb import`` prints."""

    sources: int = 0
    """Sources stored by this run."""
    skipped_sources: int = 0
    """Sources skipped because their content (sha256) was already stored."""
    failed_sources: list[str] = field(default_factory=list)
    """Sources that could not be read at all, each with its reason."""
    ignored_sources: int = 0
    """Files skipped by name as notes, not game records (see :attr:`Source.is_note`)."""
    bytes: int = 0
    records: int = 0
    imported: int = 0
    """New games stored."""
    duplicates: int = 0
    """Records linked to a game stored earlier (same start and moves)."""
    moves: int = 0
    positions: int = 0
    """Positions stored from position lists (EPD files): records, but not games."""
    invalid: Counter[str] = field(default_factory=Counter)
    """Invalid records by kind of failure (an :class:`~xqdb.errors.ErrorKind` value)."""
    seconds: float = 0.0
    db_seconds: float = 0.0
    """Wall time spent storing (see :attr:`xqdb.db.writer.Writer.seconds`)."""
    db_cpu_seconds: float = 0.0
    """CPU time spent storing (see :attr:`xqdb.db.writer.Writer.cpu_seconds`)."""

    @property
    def invalid_total(self) -> int:
        return sum(self.invalid.values())

    def __str__(self) -> str:
        rate = self.records / self.seconds if self.seconds > 0 else 0.0
        lines = [
            f"sources: {self.sources:,} imported, {self.skipped_sources:,} skipped "
            f"(already in the database), {len(self.failed_sources):,} unreadable"
            + (f", {self.ignored_sources:,} notes ignored" if self.ignored_sources else ""),
            f"records: {self.records:,} read, {self.imported:,} new games, "
            f"{self.duplicates:,} duplicates linked, {self.invalid_total:,} invalid",
            f"moves: {self.moves:,}"
            + (f", positions: {self.positions:,} (from position lists)" if self.positions else ""),
            f"time: {self.seconds:.1f} s, {rate:,.0f} games/s "
            f"(database {self.db_seconds:.1f} s)",
        ]
        for kind, count in self.invalid.most_common():
            lines.append(f"  invalid {count:,}: {ErrorKind(kind).label}")
        for failure in self.failed_sources:
            lines.append(f"  unreadable: {failure}")
        return "\n".join(lines)


def import_paths(paths: Sequence[str], db: str | os.PathLike[str], *, jobs: int | None = None,
                 format: str | None = None, encoding: str | None = None,
                 commit_records: int = COMMIT_RECORDS,
                 progress: Callable[[UnitResult, ImportSummary], None] | None = None
                 ) -> ImportSummary:
    """Import every record under ``paths`` into the DuckDB file ``db``.

    Raises :class:`ImportRunError` for failures of the run itself: no inputs, a path that
    does not exist, a database that cannot be opened. Bad records never raise.
    ``commit_records`` is how many records one transaction holds at least (a killed run
    loses at most the transaction in progress; the next run redoes it).
    """
    if not paths:
        raise ImportRunError("no inputs given", EXIT_INPUT)
    for path in paths:
        if path != "-" and not os.path.exists(path):
            raise ImportRunError(f"{path}: no such file or folder", EXIT_INPUT)
    jobs = jobs or default_jobs()
    summary = ImportSummary()
    start = time.perf_counter()
    # The pool must exist before DuckDB starts its threads (see xqdb.parallel).
    with process_pool(jobs) as pool:
        try:
            con = connect(db)
        except DatabaseError as exc:
            raise ImportRunError(str(exc), EXIT_DATABASE) from None
        # Spilled results of big sources live beside the database, so a killed run's
        # leftovers are cleared by the next run. Only the holder of the database's lock
        # touches the folder: a run refused because of the lock must leave it alone.
        spool = f"{os.fspath(db)}.spool"
        try:
            shutil.rmtree(spool, ignore_errors=True)
            os.makedirs(spool, exist_ok=True)
            # DuckDB would otherwise cache up to most of the RAM as the file grows; a cap
            # keeps the import's memory flat in the size of the input. The workers own the
            # cores: one DuckDB thread appends faster than several fighting them for CPU.
            con.execute(f"SET memory_limit = '{DUCKDB_MEMORY}'")
            con.execute(f"SET checkpoint_threshold = '{DUCKDB_CHECKPOINT}'")
            con.execute(f"SET threads = {max(1, default_jobs() - jobs)}")
            writer = Writer(con)
            units = plan_units(paths, writer.known_sources(), summary, format, encoding, spool)
            # A deep window keeps the workers busy while the writer commits; it is still a
            # fixed number of units, so memory does not grow with the input.
            results = ordered_map(pool, read_unit, units, window=8 * jobs)
            _write(writer, results, summary, progress, commit_records)
            writer.checkpoint()
            summary.db_seconds = writer.seconds
            summary.db_cpu_seconds = writer.cpu_seconds
        except OSError as exc:
            raise ImportRunError(f"{spool}: {exc.strerror or exc}", EXIT_DATABASE) from None
        except duckdb.Error as exc:
            # e.g. a full disk: what was committed stays, and the same command resumes.
            raise ImportRunError(f"{db}: writing failed: {str(exc).splitlines()[0]}",
                                 EXIT_DATABASE) from None
        finally:
            con.close()
            shutil.rmtree(spool, ignore_errors=True)
    summary.seconds = time.perf_counter() - start
    return summary


def plan_units(paths: Sequence[str], known: dict[tuple[str, str | None, int], str],
               summary: ImportSummary, format: str | None = None, encoding: str | None = None,
               spool: str | None = None) -> Iterator[WorkUnit]:
    """Group the sources under ``paths`` into work units, lazily, in input order.

    Sources that cannot even be listed (unsafe archive members...) are logged and counted
    in ``summary.failed_sources``; the rest go on.
    """
    batch: list[Source] = []
    size = 0
    number = 0

    def unit() -> WorkUnit:
        hints = tuple(known.get((s.display_path, s.member, s.size)) for s in batch)
        return WorkUnit(number, tuple(batch), hints, format, encoding, spool)

    for item in walk(paths):
        if isinstance(item, SourceError):
            log.error("%s", item)
            summary.failed_sources.append(str(item))
            continue
        if item.is_note:
            log.info("%s: not a game file, ignored", item)
            summary.ignored_sources += 1
            continue
        if batch and (len(batch) >= UNIT_SOURCES or size + item.size > UNIT_BYTES):
            yield unit()
            number += 1
            batch, size = [], 0
        batch.append(item)
        size += item.size
    if batch:
        yield unit()


def _write(writer: Writer, results: Iterable[UnitResult], summary: ImportSummary,
           progress: Callable[[UnitResult, ImportSummary], None] | None,
           commit_records: int) -> None:
    held: list[UnitResult] = []
    held_records = 0

    def flush() -> None:
        nonlocal held, held_records
        if not held:
            return
        counts = writer.commit([r.staged for r in held])
        summary.sources += counts.sources
        summary.skipped_sources += counts.skipped_sources + sum(r.skipped_sources for r in held)
        summary.records += counts.records + counts.positions
        summary.imported += counts.games
        summary.duplicates += counts.duplicates
        summary.moves += counts.moves
        summary.positions += counts.positions
        summary.invalid.update(counts.invalid)
        summary.db_seconds = writer.seconds
        for result in held:
            for name in (f for files in result.staged.files.values() for f in files):
                Path(name).unlink(missing_ok=True)
        held, held_records = [], 0

    for result in results:
        summary.bytes += result.bytes
        summary.failed_sources.extend(result.failed_sources)
        held.append(result)
        held_records += result.records
        if held_records >= commit_records or result.staged.files:
            flush()
        if progress is not None:
            progress(result, summary)
    flush()


# --- the worker side ------------------------------------------------------------------

def read_unit(unit: WorkUnit) -> UnitResult:
    """Read and replay every source of ``unit`` (runs in a worker process).

    Each source's bytes are read once: hashed, then handed to the reader (see
    :func:`_open_hashed`).
    """
    from .formats import read_source  # the readers are heavy; load them where they run

    out = UnitBuilder(unit.number, unit.spool, SPILL_ROWS)
    result = UnitResult(unit.number, Staged())
    for seq, (source, known) in enumerate(zip(unit.sources, unit.known)):
        result.bytes += source.size
        try:
            stream, digest = _open_hashed(source, known)
        except (OSError, SourceError) as exc:
            log.error("%s: cannot read: %s", source, exc)
            result.failed_sources.append(f"{source}: {exc}")
            continue
        if stream is None:
            result.skipped_sources += 1
            continue
        records = 0
        fmt = enc = error = None
        try:
            for record in read_source(source, format=unit.format, encoding=unit.encoding,
                                      stream=stream):
                fmt, enc = fmt or record.format, enc or record.encoding
                game = replay_record(record)
                out.add_game(seq, game)
                records += 1
                if not game.is_valid:
                    result.invalid += 1
                    log.info("%s: invalid%s: %s", record.origin,
                             f" at ply {game.error_ply}" if game.error_ply else "", game.error)
        except Exception as exc:  # a reader bug must not sink the batch; keep what was read
            error = f"reading stopped after {records} records: {type(exc).__name__}: {exc}"
            log.error("%s: %s", source, error)
        finally:
            stream.close()
        result.records += records
        result.sources += 1
        out.add_source(seq, source.display_path, source.member, digest.hexdigest(),
                       source.size, fmt, enc, records, error)
    log.debug("unit %d: %d sources, %d records", unit.number, result.sources, result.records)
    result.staged = out.finish()
    return result


#: A source up to this size is read into memory whole, hashed, and read from there.
KEEP_BYTES = 1 << 20
_BLOCK = 1 << 20


def _open_hashed(source: Source, known: str | None) -> tuple[BinaryIO | None, Any]:
    """The source's bytes to read, and the sha256 that covers them once they are read.

    A small source is read once into memory. A big one is streamed through a hashing
    wrapper, unless its sha256 must be known before reading (a stored source with the
    same name and size: unchanged, it is skipped unread): then it is hashed first.
    The stream is ``None`` when the source is skipped.
    """
    if source.size <= KEEP_BYTES:
        with source.open() as stream:
            content = stream.read()
        digest = hashlib.sha256(content)
        if digest.hexdigest() == known:
            return None, digest
        return io.BytesIO(content), digest
    if known is not None:
        digest = hashlib.sha256()
        with source.open() as stream:
            for block in iter(lambda: stream.read(_BLOCK), b""):
                digest.update(block)
        if digest.hexdigest() == known:
            return None, digest
    hashing = _Hashing(source.open())
    return hashing, hashing.digest


class _Hashing(io.RawIOBase):
    """A read-only stream that hashes what passes through it; closing it hashes the rest
    (a reader may stop before the end), so the digest always covers the whole source."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.digest = hashlib.sha256()

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        data = self._stream.read(-1 if size is None else size)
        self.digest.update(data)
        return data

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            try:
                for block in iter(lambda: self._stream.read(_BLOCK), b""):
                    self.digest.update(block)
            finally:
                self._stream.close()
        super().close()


