"""Import game records into DuckDB: workers read and replay, one writer appends.

:func:`import_paths` is the whole job behind ``xqdb import``::

    summary = import_paths(["games/", "more.zip"], "games.duckdb", jobs=2)
    print(summary.imported, summary.duplicates, summary.invalid)

The parent walks the inputs (:func:`xqdb.formats.sources.walk`) and groups sources into
work units; a pool of worker processes reads and replays each unit into columnar Arrow
tables (:func:`read_unit`); the parent, alone, commits them in input order through
:class:`xqdb.db.writer.Writer`. Given a Dask scheduler, the units run on the workers of
that cluster instead (:func:`read_unit_on_worker`), and the database is the same: the
same rows with the same ids. Nothing is dropped: a record that cannot be read or
replayed is stored as an ``invalid`` game with its reason, ply and raw text.
"""

from __future__ import annotations

import builtins
import logging
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, cast


from ..errors import CannotRunError, DatabaseError
from ..db.holder import WriterNote
from ..db.rows import UnitBuilder, replay_record
from ..errors import ErrorKind
from ..db.memory import memory_bytes, memory_limit_from_environment, physical_memory
from ..db.schema import connect
from ..db.writer import Part, SourceKey, Staged, StoredSources, Writer, writing
from ..formats.hashing import HashingReader, open_hashed, open_range
from ..formats.sources import (READ_ERRORS, STDIN, SentSource, Skipped, Source, SourceError,
                               no_such_path, read_failure, readable, walk)
from .executors import Executor, default_jobs, idle_cores, open_executor, published, require_paths
if TYPE_CHECKING:
    from ..formats import Splitting
from .repeats import (
    SLOTS, SeenRecords, SharedReplays, current as current_seen, for_run, pack, place,
    repeat_key, seen_records, shared_replays_name,
)

log = logging.getLogger("xqdb.import")

#: A work unit closes at this many sources or bytes, whichever comes first: small
#: archive members travel together, a big file travels alone.
UNIT_SOURCES = 200
UNIT_BYTES = 256 << 10
#: Sources the planning walks ahead of its units, to read what the database knows of
#: them in one query (each query scans every stored source's path).
READ_AHEAD_SOURCES = 8192
#: A unit whose staged moves pass this many rows, or whose record texts this many bytes,
#: spills them to Parquet files, so a single huge file never has to fit in memory.
SPILL_ROWS = 400_000
SPILL_BYTES = 16 << 20
#: Share of the machine's RAM DuckDB may use while importing, by default (it spills to
#: disk beyond this), and the least it gets: a batch of big records needs room for them.
DUCKDB_MEMORY_SHARE = 0.1
DUCKDB_MEMORY_FLOOR = 256 << 20
#: The memory DuckDB works in, below that limit, until a batch does not fit (see
#: :meth:`xqdb.db.writer.Writer.commit`). Its cache fills up to its limit as the database
#: grows, so this is what keeps a long import's memory flat; appends write their row
#: groups straight to the file and need little of it.
DUCKDB_WORKING_MEMORY = 64 << 20
#: DuckDB checkpoints (rewrites the tables' tails) each time its write-ahead log passes
#: this; at the default 16 MB that is every few commits, and costs both time and memory
#: spikes that grow with the database. The log stays bounded, and the run ends with one.
#: (At 64 MB a zip of 214 records of 1 MiB peaked at 300 MB instead of 700 MB, but a
#: checkpoint at a commit within the working memory can fail, which DuckDB takes as fatal
#: for the connection: the import then stopped with exit 4.)
DUCKDB_CHECKPOINT = "256MB"
#: A file bigger than this (in a format that allows it: PGN, EPD) is read in ranges of about
#: this many bytes, cut at record starts: each is a work unit any worker takes, stored in a
#: transaction of its own. ``XQDB_RANGE_BYTES`` in the environment overrides it. (A
#: commit's memory follows its range: on a 50 MB PGN, ranges of 8 MiB peaked the parent at
#: 330 MB, of 2 MiB at 238 MB.)
RANGE_BYTES = 2 << 20
RANGE_BYTES_VARIABLE = "XQDB_RANGE_BYTES"
#: The writer commits once it holds this many staged records (or a spilled unit), or
#: records read from this many bytes: a batch of big records stays a few of them.
COMMIT_RECORDS = 4000
#: Replays a cluster's workers are passed at most (24 bytes each; every task reads them
#: from the scheduler: see :class:`xqdb.pipeline.repeats.SharedReplays`).
SHARED_REPLAYS = 1 << 15
#: Slots of the table of records seen, by which repeats are linked without a replay (0: none).
SEEN_SLOTS = SLOTS
COMMIT_BYTES = 8 << 20


class InputError(CannotRunError):
    """Nothing to read, or a setting that cannot be used: no inputs, a missing path, an
    unknown format or encoding, a memory limit that is not a size. Raised before anything
    is written."""


class StorageError(DatabaseError):
    """The database cannot be used: not DuckDB, locked by another process, too new, or
    writing failed (a full disk). What was committed stays."""


@dataclass(frozen=True)
class WorkUnit:
    """Sources to read together, with what the parent already knows about them."""

    number: int
    sources: tuple[Source | Skipped | SourceError, ...]
    """Sources to read, and what the walk passed over or refused, to be stored as such."""
    known: tuple[str | None, ...]
    """sha256 already stored for a source at the same path, member and size, if any."""
    format: str | None = None
    encoding: str | None = None
    spool: str | None = None
    part: Part | None = None
    """The byte range to read of the unit's one source, when it is read in ranges."""
    run: int = 0
    """The import's number, drawn at random, on a cluster: a worker's own table of the
    records it replayed is kept per import (see :func:`xqdb.pipeline.repeats.for_run`)."""


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
    passed_over: list[str] = field(default_factory=list)
    linked: int = 0
    """Records staged as repeats of earlier ones, neither replayed nor built into rows."""
    replays: builtins.bytes = b""  # the field ``bytes`` hides the type here
    """On a cluster, the unit's valid replays, for the parent to pass on to the other
    workers (see :func:`xqdb.pipeline.repeats.pack`)."""
    lost: bool = False
    """Read by no worker (see :func:`lost_unit`)."""


@dataclass
class ImportSummary:
    """What an import did; ``str()`` is the report ``xqdb import`` prints."""

    sources: int = 0
    """Sources stored whole by this run."""
    skipped_sources: int = 0
    """Sources skipped because their content (sha256) was already stored."""
    replaced_sources: int = 0
    """Sources stored before whose rows this run replaced (failed ones, or ``force``)."""
    failed_sources: list[str] = field(default_factory=list)
    """Sources that could not be read, or not to the end, each with its reason; they are
    stored with their error and read again by the next import."""
    passed_over: list[str] = field(default_factory=list)
    """Files inside a folder left unread, each with why (see :class:`Skipped`)."""
    ignored_sources: int = 0
    """Files skipped by name as notes, not game records (see :attr:`Source.is_note`)."""
    bytes: int = 0
    records: int = 0
    imported: int = 0
    """New games stored."""
    duplicates: int = 0
    """Records linked to a game stored earlier (same start and moves)."""
    unreplayed: int = 0
    """Of the duplicates, those known as repeats of an earlier record before their
    replay, and so neither replayed nor built into rows (see :mod:`.repeats`)."""
    moves: int = 0
    positions: int = 0
    """Positions stored from position lists (EPD files): records, but not games."""
    evals: int = 0
    """Engine evaluations the records carry (WinBoard's comments), stored in ``evals``."""
    invalid: Counter[str] = field(default_factory=Counter)
    """Invalid records by kind of failure (an :class:`~xqdb.errors.ErrorKind` value)."""
    seconds: float = 0.0
    db_seconds: float = 0.0
    """Wall time spent storing (see :attr:`xqdb.db.writer.Writer.seconds`)."""
    db_cpu_seconds: float = 0.0
    """CPU time spent storing (see :attr:`xqdb.db.writer.Writer.cpu_seconds`)."""
    cluster: str | None = None
    """The cluster the records were read on (``None``: this machine)."""
    retried_tasks: int = 0
    """Work units read again because the cluster worker reading them was lost."""

    @property
    def invalid_total(self) -> int:
        return sum(self.invalid.values())

    def __str__(self) -> str:
        rate = self.records / self.seconds if self.seconds > 0 else 0.0
        lines = [
            f"sources: {self.sources:,} imported, {self.skipped_sources:,} skipped "
            f"(already in the database), {len(self.failed_sources):,} unreadable"
            + (f", {len(self.passed_over):,} passed over" if self.passed_over else "")
            + (f", {self.ignored_sources:,} notes ignored" if self.ignored_sources else "")
            + (f", {self.replaced_sources:,} stored before replaced"
               if self.replaced_sources else ""),
            f"records: {self.records:,} read, {self.imported:,} new games, "
            f"{self.duplicates:,} duplicates linked, {self.invalid_total:,} invalid",
            f"moves: {self.moves:,}"
            + (f", positions: {self.positions:,} (from position lists)" if self.positions else "")
            + (f", engine evaluations: {self.evals:,} (from comments)" if self.evals else ""),
            f"time: {self.seconds:.1f} s, {rate:,.0f} games/s "
            f"(database {self.db_seconds:.1f} s)",
        ]
        if self.cluster is not None:
            lines.append(f"read on {self.cluster}; {self.retried_tasks:,} tasks retried "
                         "after their worker was lost")
        for kind, count in self.invalid.most_common():
            lines.append(f"  invalid {count:,}: {ErrorKind(kind).label}")
        for failure in self.failed_sources:
            lines.append(f"  unreadable: {failure}")
        for passed in self.passed_over:
            lines.append(f"  passed over: {passed}")
        return "\n".join(lines)


def import_paths(paths: Sequence[str], db: str | os.PathLike[str], *, jobs: int | None = None,
                 format: str | None = None, encoding: str | None = None,
                 force: bool = False, follow_links: bool = False,
                 memory_limit: str | None = None, commit_records: int = COMMIT_RECORDS,
                 progress: Callable[[UnitResult, ImportSummary], None] | None = None,
                 scheduler: str | None = None, send_inputs: bool = False,
                 range_bytes: int | None = None) -> ImportSummary:
    """Import every record under ``paths`` into the DuckDB file ``db``.

    ``format`` and ``encoding`` override sniffing. ``force`` reads every source again
    and replaces the rows of the sources stored under the same names (one transaction
    per batch), for example after a wrong ``encoding``. ``follow_links`` follows links
    inside folders wherever they lead (see :func:`xqdb.formats.sources.walk`).
    ``memory_limit`` is the most DuckDB may use, as ``"2GB"`` or ``"10%"`` of the RAM
    (default: ``XQDB_MEMORY_LIMIT``, else :func:`default_memory_limit`); it works in less
    while it can.
    ``commit_records`` is how many records one transaction holds at least (a killed run
    loses at most the transaction in progress; the next run redoes it).

    ``scheduler`` (``tcp://HOST:8786``) reads and replays on the workers of that Dask
    cluster instead of ``jobs`` local processes; the writer stays here. The workers
    open the inputs at the same paths, unless ``send_inputs`` sends them the bytes
    (standard input is always sent).

    A PGN or EPD file bigger than ``range_bytes`` (default :func:`default_range_bytes`) is read
    in ranges of about that size cut at record starts, by all the workers at once, and
    stored a range per transaction: the rows and ids are those of a reading in one piece,
    and a run stopped in its middle goes on after the last range stored.

    Raises :class:`InputError` (before anything is written) or :class:`StorageError`
    for failures of the run itself, and :class:`xqdb.pipeline.executors.ExecutorError` when the
    cluster cannot be used (a worker that cannot see an input, tasks lost too often).
    Bad records and unreadable sources never raise.
    """
    if not paths:
        raise InputError("no inputs given")
    for path in paths:
        if path != "-" and not os.path.exists(path):
            raise InputError(no_such_path(path))
    from ..formats import checked_overrides  # loads the readers: only when importing

    format, encoding = checked_overrides(format, encoding)
    memory = (memory_bytes(memory_limit) if memory_limit is not None
              else memory_limit_from_environment() or default_memory_limit())
    range_bytes = range_bytes or default_range_bytes()
    jobs = jobs or idle_cores()
    summary = ImportSummary()
    start = time.perf_counter()
    # The pool must exist before DuckDB starts its threads (see xqdb.pipeline.executors),
    # and the table of records seen before the pool, whose workers share it.
    with seen_records(SEEN_SLOTS if scheduler is None else 0, shared=jobs > 1) as seen, \
            open_executor(jobs, scheduler) as executor:
        try:
            con = connect(db)
        except DatabaseError as exc:
            raise StorageError(str(exc)) from None
        # Spilled results of big sources live beside the database, so a killed run's
        # leftovers are cleared by the next run. Only the holder of the database's lock
        # touches the folder: a run refused because of the lock must leave it alone.
        spool = f"{os.fspath(db)}.spool"
        note = WriterNote(db, "xqdb import")
        # The workers own the cores: one DuckDB thread appends faster than several
        # fighting them for CPU.
        threads = default_jobs() - executor.local_processes
        try:
            with writing(db, con, threads, DUCKDB_CHECKPOINT):
                note.start()
                shutil.rmtree(spool, ignore_errors=True)
                os.makedirs(spool, exist_ok=True)
                writer = Writer(con, replace=force,
                                memory=(min(memory, DUCKDB_WORKING_MEMORY), memory),
                                wal=f"{os.fspath(db)}.wal")
                # Cluster workers cannot write to this machine's spool: their big units travel
                # back whole.
                units = plan_units(paths, writer.known_sources(), summary, format, encoding,
                                   spool if executor.is_local else None, follow_links, db,
                                   range_bytes, writer.stored_ranges())

                def noted(unit: UnitResult, so_far: ImportSummary) -> None:
                    # Others refused the database read how far the import is (xqdb.db.holder).
                    note.update(so_far.imported + so_far.duplicates, so_far.sources)
                    if progress is not None:
                        progress(unit, so_far)

                _write(writer, _read_units(executor, units, send_inputs), summary, noted,
                       commit_records, seen)
                # The workers are done: what is left is DuckDB's, on every core.
                con.execute(f"SET threads = {default_jobs()}")
                writer.refresh_lookups()
                writer.link_players()
                writer.checkpoint()
                summary.db_seconds = writer.seconds
                summary.db_cpu_seconds = writer.cpu_seconds
                if not executor.is_local:
                    summary.cluster = executor.describe()
                    summary.retried_tasks = executor.retried
        except OSError as exc:
            raise StorageError(f"{spool}: {exc.strerror or exc}") from None
        finally:
            con.close()
            note.remove()
            shutil.rmtree(spool, ignore_errors=True)
    summary.seconds = time.perf_counter() - start
    return summary


def _read_units(executor: Executor, units: Iterable[WorkUnit], send_inputs: bool
                ) -> Iterator[UnitResult]:
    """Every unit read by ``executor``'s workers, in input order."""
    # A deep window keeps the workers busy while the writer commits; it is still a fixed
    # number of units, so memory does not grow with the input.
    window = 8 * executor.jobs
    if executor.is_local:
        yield from executor.map(read_unit, units, window, lost=lost_unit)
        return
    run = int.from_bytes(os.urandom(8), "little") >> 1 | 1
    # The workers share no memory with this process: it publishes the replays of the
    # units it has received, and each task reads them as it starts.
    shared, name = SharedReplays(window, SHARED_REPLAYS), shared_replays_name(run)
    executor.publish(name, b"")
    try:
        for result in executor.map(read_unit_on_worker,
                                   (replace(for_cluster(u, send_inputs), run=run) for u in units),
                                   window):
            if result.replays:
                shared.received(result.replays)
                executor.publish(name, shared.latest())
            yield result
    finally:
        executor.publish(name, None)


def for_cluster(unit: WorkUnit, send_inputs: bool = False) -> WorkUnit:
    """``unit`` as a cluster worker can read it: sources named by absolute path (a
    worker's working folder is not this one's), or carrying their bytes: every source
    with ``send_inputs``, else only standard input's (a file of this machine). The names
    stored stay those the user gave.

    >>> from xqdb.formats.sources import Source
    >>> unit = WorkUnit(0, (Source("games/a.pgn", None, 10),), (None,))
    >>> moved = for_cluster(unit).sources[0]
    >>> os.path.isabs(moved.path), moved.display_path
    (True, 'games/a.pgn')
    """
    def sendable(source: Source | Skipped | SourceError) -> Source | Skipped | SourceError:
        if not isinstance(source, Source):
            return source
        if not (send_inputs or source.label == STDIN):
            return replace(source, path=os.path.abspath(source.path), label=source.display_path)
        try:
            if unit.part is not None:  # only the range's bytes
                with open_range(source, unit.part.start, unit.part.stop) as stream:
                    return SentSource(source.path, source.member, source.size, source.label,
                                      source.real, source.member_index, stream.read())
            return source.with_bytes()
        except (OSError, SourceError) as exc:
            return SourceError(f"{source}: cannot read: {exc}", source.display_path,
                               source.member)

    return replace(unit, sources=tuple(sendable(s) for s in unit.sources))


def default_memory_limit() -> int:
    """DuckDB's memory while importing: :data:`DUCKDB_MEMORY_SHARE` of the RAM, at least
    :data:`DUCKDB_MEMORY_FLOOR`."""
    return max(DUCKDB_MEMORY_FLOOR, int(physical_memory() * DUCKDB_MEMORY_SHARE))


def default_range_bytes() -> int:
    """The size of the ranges big files are read in: ``XQDB_RANGE_BYTES`` from the
    environment, else :data:`RANGE_BYTES`."""
    text = os.environ.get(RANGE_BYTES_VARIABLE)
    if not text:
        return RANGE_BYTES
    try:
        size = int(text)
    except ValueError:
        raise InputError(f"{RANGE_BYTES_VARIABLE}={text!r} is not a number of bytes") from None
    if size < 1:
        raise InputError(f"{RANGE_BYTES_VARIABLE}={text!r}: a range needs a byte at least")
    return size


def _source_key(source: Source) -> SourceKey:
    """How the database knows ``source`` again (see :class:`~xqdb.db.writer.StoredSources`)."""
    return (readable(source.real_path), source.shown_member, source.member_index, source.size)


def plan_units(paths: Sequence[str], known: StoredSources,
               summary: ImportSummary, format: str | None = None, encoding: str | None = None,
               spool: str | None = None, follow_links: bool = False,
               db: str | os.PathLike[str] | None = None, range_bytes: int = 0,
               stored: dict[SourceKey, list[tuple[int, int, str]]] | None = None
               ) -> Iterator[WorkUnit]:
    """Group the sources under ``paths`` into work units, lazily, in input order.

    What the walk refuses (unsafe archive members...) or passes over (a FIFO...) travels
    in the units too, to be stored with its reason; notes, and the files of the database
    ``db`` itself (its ``.wal``, its note, its spool), are counted and left out. A file
    bigger than ``range_bytes`` (0: none) that can be read in ranges is planned as a unit
    per range (see :func:`plan_ranges`), after the ranges ``stored`` of it.
    """
    own = None if db is None else os.path.realpath(db)
    batch: list[Source | Skipped | SourceError] = []
    size = 0
    number = 0

    def unit() -> WorkUnit:
        sources = [s for s in batch if isinstance(s, Source)]
        known_hashes = iter(known.hashes([_source_key(s) for s in sources]))
        hints = tuple(next(known_hashes) if isinstance(s, Source) else None for s in batch)
        return WorkUnit(number, tuple(batch), hints, format, encoding, spool)

    for item in _read_ahead(walk(paths, follow_links=follow_links), known):
        if isinstance(item, Source) and item.is_note:
            log.info("%s: not a game file, ignored", item)
            summary.ignored_sources += 1
            continue
        if isinstance(item, Source) and own is not None and _is_own(item.real_path, own):
            # The database's own files change as it is written: never records.
            log.info("%s: the database's own file, not read", item)
            summary.ignored_sources += 1
            continue
        item_size = item.size if isinstance(item, Source) else 0
        if isinstance(item, Source) and range_bytes and item.member is None \
                and item_size > range_bytes:
            key = _source_key(item)
            parts = plan_ranges(item, known.hashes([key])[0], (stored or {}).get(key, []), range_bytes,
                                format, encoding)
            if parts is not None:
                if batch:
                    yield unit()
                    number += 1
                    batch, size = [], 0
                planned = False
                for part in parts:
                    planned = True
                    yield WorkUnit(number, (item,), (None,), format, encoding, spool, part)
                    number += 1
                if not planned:  # unchanged since it was stored whole
                    summary.skipped_sources += 1
                continue
        if batch and (len(batch) >= UNIT_SOURCES or size + item_size > UNIT_BYTES):
            yield unit()
            number += 1
            batch, size = [], 0
        batch.append(item)
        size += item_size
    if batch:
        yield unit()


def _read_ahead(items: Iterable[Source | Skipped | SourceError], known: StoredSources
                ) -> Iterator[Source | Skipped | SourceError]:
    """``items`` as they come, :data:`READ_AHEAD_SOURCES` at a time, with what ``known``
    holds of each such block's files read in one query before the block is passed on."""
    pending = iter(items)
    while block := list(islice(pending, READ_AHEAD_SOURCES)):
        known.read(_source_key(s) for s in block if isinstance(s, Source))
        yield from block


def plan_ranges(source: Source, known: str | None, stored: list[tuple[int, int, str]],
                range_bytes: int, format: str | None = None, encoding: str | None = None
                ) -> Iterator[Part] | None:
    """The byte ranges to read ``source`` in, lazily, or ``None`` when it cannot be read in
    ranges (see :func:`xqdb.formats.splitting`) or cannot be opened (its unit says why).

    Ranges are cut at the first record start at least ``range_bytes`` after the range's
    own, as the file is read here once (a record at a time): the whole file's hash is
    known when its last range is planned. Nothing is planned when the file still hashes
    to ``known`` (its sha256 stored whole before). After the ``stored`` ranges
    ``(start, stop, sha256)`` of a run stopped in the middle of it, whose bytes are
    unchanged, the ranges go on from the last one's end.
    """
    from ..formats import splitting  # loads the readers: only when importing

    try:
        if known is not None and _hash_bytes(source, 0, source.size) == known:
            return iter(())
        resume = stored[-1][1] if stored and all(
            _hash_bytes(source, start, stop) == sha for start, stop, sha in stored) else None
        stream = HashingReader(source.open())
    except READ_ERRORS:
        return None
    split = splitting(source, cast(BinaryIO, stream), format, encoding)
    if split is None:
        stream.close()
        return None
    return _ranges(source, stream, split, range_bytes, resume, len(stored), format, encoding)


def _ranges(source: Source, stream: HashingReader, split: Splitting, range_bytes: int,
            resume: int | None, resumed: int, format: str | None, encoding: str | None
            ) -> Iterator[Part]:
    """The ranges of :func:`plan_ranges`, from the record starts the file's reading gives."""
    starts, file_encoding, fmt = split.starts, split.encoding, split.format
    start, line, first, number = 0, 1, 0, 0
    planned = False
    try:
        for index, (offset, at) in enumerate(starts):
            if resume is not None:
                if offset < resume:
                    continue
                if offset > resume:
                    break  # the stored ranges do not end at a record: read it all again
                start, line, first, number, resume = offset, at, index, resumed, None
            elif offset >= start + range_bytes:
                planned = True
                yield Part(number, start, offset, line, first, encoding=file_encoding,
                           format=fmt)
                start, line, first, number = offset, at, index, number + 1
        else:
            if resume is None:
                stream.close()  # hashes what the reading left, if anything
                yield Part(number, start, source.size, line, first, last=True,
                           sha256=stream.digest.hexdigest(), encoding=file_encoding,
                           format=fmt)
                return
    except READ_ERRORS:
        if planned or resume is None:
            # The rest is one range, without the whole file's hash: its reading, or the
            # writer, says what failed, and the next import reads the file again.
            yield Part(number, start, source.size, line, first, last=True,
                       encoding=file_encoding, format=fmt)
            return
    finally:
        stream.close()
    # The stored ranges do not end at a record start of the file as it is now: it is
    # read again from its start.
    again = plan_ranges(source, None, [], range_bytes, format, encoding)
    if again is not None:
        yield from again


def _hash_bytes(source: Source, start: int, stop: int) -> str:
    """The sha256 of the bytes ``start`` to ``stop`` of the file of ``source``."""
    stream = open_range(source, start, stop)
    stream.close()
    return str(stream.digest.hexdigest())


#: Files a database ``x.duckdb`` keeps beside itself while it is written.
OWN_SUFFIXES = (".wal", ".import.json", ".tmp", ".upgrading", ".upgrading.wal")


def _is_own(path: str, db: str) -> bool:
    """Whether ``path`` (resolved) is the database ``db`` (resolved) or one of its files.

    >>> _is_own("/d/x.duckdb.wal", "/d/x.duckdb"), _is_own("/d/x.duckdb.spool/1", "/d/x.duckdb")
    (True, True)
    >>> _is_own("/d/x.pgn", "/d/x.duckdb")
    False
    """
    if path == db or path in {db + suffix for suffix in OWN_SUFFIXES}:
        return True
    return path.startswith(db + ".spool" + os.sep)


def _write(writer: Writer, results: Iterable[UnitResult], summary: ImportSummary,
           progress: Callable[[UnitResult, ImportSummary], None] | None,
           commit_records: int, seen: SeenRecords | None = None) -> None:
    held: list[UnitResult] = []
    held_records = held_bytes = 0

    def flush() -> None:
        nonlocal held, held_records, held_bytes
        if not held:
            return
        counts = writer.commit([r.staged for r in held])
        summary.sources += counts.sources - counts.failed_sources
        summary.skipped_sources += counts.skipped_sources + sum(r.skipped_sources for r in held)
        summary.replaced_sources += counts.replaced_sources
        summary.records += counts.records + counts.positions
        summary.imported += counts.games
        summary.duplicates += counts.duplicates
        summary.moves += counts.moves
        summary.positions += counts.positions
        summary.evals += counts.evals
        summary.invalid.update(counts.invalid)
        summary.db_seconds = writer.seconds
        for result in held:
            for name in (f for files in result.staged.files.values() for f in files):
                Path(name).unlink(missing_ok=True)
        held, held_records, held_bytes = [], 0, 0

    for result in results:
        if seen is not None:  # from here on, the workers may link repeats to its records
            seen.received(result.number, result.lost)
        summary.unreplayed += result.linked
        summary.bytes += result.bytes
        summary.failed_sources.extend(result.failed_sources)
        summary.passed_over.extend(result.passed_over)
        if result.staged.part is not None:
            flush()  # a range of a big source is stored in a transaction of its own
        held.append(result)
        held_records += result.records
        held_bytes += result.bytes
        if held_records >= commit_records or held_bytes >= COMMIT_BYTES or result.staged.files \
                or result.staged.part is not None:
            flush()
        if progress is not None:
            progress(result, summary)
    flush()


# --- the worker side ------------------------------------------------------------------

def read_unit(unit: WorkUnit) -> UnitResult:
    """Read and replay every source of ``unit`` (runs in a worker process).

    Each source's bytes are read once: hashed, then handed to the reader (see
    :func:`xqdb.formats.hashing.open_hashed`). A source no reader recognises, or that
    cannot be opened, is stored with its error and no records; a refused or passed-over
    one with its reason, unread.
    """
    from ..formats import is_source_failure, read_range, read_source  # heavy: load them where they run

    out = UnitBuilder(unit.number, unit.spool, SPILL_ROWS, SPILL_BYTES)
    result = UnitResult(unit.number, Staged())
    part = unit.part
    seen = current_seen() or (for_run(unit.run) if unit.run else None)
    replays: list[tuple[int, int, int]] | None = None
    if unit.run and seen is not None:  # a cluster's worker: learn the others' replays
        seen.learn(published(shared_replays_name(unit.run)) or b"")
        replays = []
    index = 0  # the record's place in the unit, for the records seen (see repeats.place)
    for seq, (source, known) in enumerate(zip(unit.sources, unit.known)):
        if not isinstance(source, Source):
            _add_unread(out, result, seq, source)
            continue
        result.bytes += source.size if part is None else part.stop - part.start
        stream: BinaryIO | None
        try:
            if part is None:
                stream, digest = open_hashed(source, known)
            else:
                ranged = open_range(source, part.start, part.stop)
                stream, digest = cast(BinaryIO, ranged), ranged.digest
        except READ_ERRORS as exc:
            why = f"cannot read: {read_failure(exc)}"
            log.error("%s: %s", source, why)
            result.failed_sources.append(f"{source}: {why}")
            out.add_source(seq, source.given_path, source.member, "", source.size, None, None,
                           0, why, source.real_path, source.member_index)
            continue
        if stream is None:
            result.skipped_sources += 1
            continue
        records = 0
        fmt: str | None = None
        enc: str | None = None
        error: str | None = None
        records_read = read_source(source, format=unit.format, encoding=unit.encoding,
                                   stream=stream) if part is None else \
            read_range(source, stream, part.record, part.start, part.line, part.encoding,
                       unit.encoding, part.format)
        try:
            for record in records_read:
                if is_source_failure(record):
                    error = record.error
                    break
                fmt, enc = fmt or record.format, enc or record.encoding
                at, index = place(unit.number, index), index + 1
                key = repeat_key(record) if seen is not None else None
                content = None if key is None or seen is None else seen.earlier(key, at)
                if content is not None:
                    out.add_linked(seq, record, content)
                    records += 1
                    result.linked += 1
                    continue
                game = replay_record(record)
                replayed = out.add_game(seq, game)
                records += 1
                if key is not None and seen is not None and game.is_valid \
                        and replayed is not None:
                    seen.add(key, at, replayed)
                    if replays is not None:
                        replays.append((key, at, replayed))
                if not game.is_valid:
                    result.invalid += 1
                    log.info("%s: invalid%s: %s", record.origin,
                             f" at ply {game.error_ply}" if game.error_ply else "", game.error)
        except Exception as exc:  # a reader bug must not sink the batch; keep what was read
            error = (f"reading stopped after {records + (part.record if part else 0)} records: "
                     f"{type(exc).__name__}: {exc}")
        finally:
            stream.close()
        if error is not None:
            log.error("%s: %s", source, error)
            result.failed_sources.append(f"{source}: {error}")
        result.records += records
        result.sources += 1
        out.add_source(seq, source.given_path, source.member, digest.hexdigest(),
                       source.size, fmt, enc, records, error, source.real_path,
                       source.member_index)
    if part is None:
        log.debug("unit %d: %d sources, %d records", unit.number, result.sources,
                  result.records)
    else:
        log.debug("unit %d: %s, %s", unit.number, unit.sources[0], part.rows(result.records))
    result.staged = out.finish()
    result.staged.part = part
    result.replays = pack(replays) if replays else b""
    return result


def _add_unread(out: UnitBuilder, result: UnitResult, seq: int,
                source: Skipped | SourceError) -> None:
    """Store a source the walk passed over or refused, with its reason, unread."""
    if isinstance(source, Skipped):
        result.passed_over.append(f"{source.path}: {source.reason}")
        out.add_source(seq, source.path, None, "", 0, None, None, 0, source.error,
                       os.path.realpath(source.path))
        return
    log.error("%s", source)
    result.failed_sources.append(str(source))
    out.add_source(seq, source.path or "?", source.member, "", 0, None, None, 0, str(source),
                   _real(source.path))


def _real(path: str | None) -> str | None:
    """The resolved path a refused source is known by (``None`` when there is none)."""
    if path is None or path == STDIN:
        return path
    return os.path.realpath(path)


def lost_unit(unit: WorkUnit, why: str) -> UnitResult:
    """The result of a unit no worker lived to read: every source stored as unreadable,
    saying why, so the run goes on and the next one reads them again."""
    out = UnitBuilder(unit.number, None, SPILL_ROWS)
    result = UnitResult(unit.number, Staged(), lost=True)
    for seq, source in enumerate(unit.sources):
        if not isinstance(source, Source):
            _add_unread(out, result, seq, source)
            continue
        error = f"not read: {why}"
        log.error("%s: %s", source, error)
        result.failed_sources.append(f"{source}: {error}")
        result.sources += 1
        out.add_source(seq, source.given_path, source.member, "", source.size, None, None, 0,
                       error, source.real_path, source.member_index)
    result.staged = out.finish()
    result.staged.part = unit.part
    return result


def read_unit_on_worker(unit: WorkUnit) -> UnitResult:
    """:func:`read_unit` on a worker of a cluster, which first checks that it sees every
    input path: one that does not share them fails its task, naming itself and the path,
    rather than storing the sources as unreadable."""
    paths = {s.path for s in unit.sources
             if isinstance(s, Source) and not isinstance(s, SentSource)}
    require_paths(sorted(paths), "input",
                  "every worker must see the inputs at the same path (a shared folder), "
                  "or send them with --send-inputs")
    return read_unit(unit)

