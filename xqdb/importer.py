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
import logging
import os
import re
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from .db.dedupe import content_hash
from .db.schema import DatabaseError, connect
from .db.writer import STAGES, Staged, Writer
from .formats.record import GameRecord
from .formats.sources import Source, SourceError, walk
from .formats.tags import parse_date
from .parallel import default_jobs, ordered_map, process_pool
from .replay import ReplayedGame, replay

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
NOT_GAMES = (".md", ".markdown", ".rst")
#: Memory DuckDB may use while importing (it spills to disk beyond this).
DUCKDB_MEMORY = "128MB"
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
    """Files skipped by name as notes, not game records (see :data:`NOT_GAMES`)."""
    bytes: int = 0
    records: int = 0
    imported: int = 0
    """New games stored."""
    duplicates: int = 0
    """Records linked to a game stored earlier (same start and moves)."""
    moves: int = 0
    invalid: Counter[str] = field(default_factory=Counter)
    """Invalid records by reason."""
    seconds: float = 0.0
    db_seconds: float = 0.0

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
            f"moves: {self.moves:,}",
            f"time: {self.seconds:.1f} s, {rate:,.0f} games/s "
            f"(database {self.db_seconds:.1f} s)",
        ]
        for reason, count in self.invalid.most_common():
            lines.append(f"  invalid {count:,}: {reason}")
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
            con.execute(f"SET threads = {max(1, default_jobs() - jobs)}")
            writer = Writer(con)
            units = plan_units(paths, writer.known_sources(), summary, format, encoding, spool)
            # A deep window keeps the workers busy while the writer commits; it is still a
            # fixed number of units, so memory does not grow with the input.
            results = ordered_map(pool, read_unit, units, window=8 * jobs)
            _write(writer, results, summary, progress, commit_records)
            con.execute("CHECKPOINT")
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
        if item.name.lower().endswith(NOT_GAMES):
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
        summary.records += counts.records
        summary.imported += counts.games
        summary.duplicates += counts.duplicates
        summary.moves += counts.moves
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

_TAG_COLUMNS = {
    "event": "Event", "site": "Site", "round": "Round", "date_raw": "Date",
    "red": "Red", "black": "Black", "red_team": "RedTeam", "black_team": "BlackTeam",
    "ecco": "ECCO", "opening": "Opening", "variation": "Variation",
}


class _Columns:
    """Column lists for one staging table, flushed to Arrow or to Parquet."""

    def __init__(self, stage: str) -> None:
        self.stage = stage
        self.schema = STAGES[stage]
        self.data: dict[str, list[object]] = {name: [] for name in self.schema.names}

    def __len__(self) -> int:
        return len(self.data["unit"])

    def table(self) -> pa.Table:
        table = pa.Table.from_pydict(self.data, schema=self.schema)
        self.data = {name: [] for name in self.schema.names}
        return table


class _UnitBuilder:
    def __init__(self, unit: WorkUnit) -> None:
        self.unit = unit
        self.columns = {stage: _Columns(stage) for stage in STAGES}
        self.files: dict[str, list[str]] = {}
        self.result = UnitResult(unit.number, Staged())

    def add_source(self, seq: int, source: Source, sha: str, fmt: str | None,
                   enc: str | None, records: int, error: str | None) -> None:
        row = self.columns["sources"].data
        for name, value in (("unit", self.unit.number), ("seq", seq),
                            ("path", source.display_path), ("member", source.member),
                            ("sha256", sha), ("bytes", source.size), ("format", fmt),
                            ("encoding", enc), ("records", records), ("error", error)):
            row[name].append(value)

    def add_game(self, seq: int, game: ReplayedGame) -> None:
        rec = game.record
        key = (self.unit.number, seq, rec.origin.index)
        row = self.columns["records"].data
        tags = rec.tags
        values = {name: tags.get(tag) for name, tag in _TAG_COLUMNS.items()}
        values.update(
            unit=key[0], seq=seq, record_index=key[2], line=rec.origin.line,
            offset=rec.origin.offset,
            content_hash=content_hash(game.start_fen, game.uci),
            date=parse_date(tags.get("Date")),
            red_elo=_int(tags.get("RedElo")), black_elo=_int(tags.get("BlackElo")),
            result=rec.result, rules_result=game.rules_result,
            start_fen=game.start_fen, start_key=game.start_key if game.start_key else None,
            plies=game.plies, status=game.status, error=game.error,
            error_ply=game.error_ply, error_text=game.error_text,
            termination=game.termination, final_fen=game.final_fen,
            final_key=game.keys[-1] if game.keys else (game.start_key or None),
            format=rec.format, notation=rec.notation, encoding=rec.encoding,
            variations=game.variations, variation_errors=game.variation_errors or None,
            tags=list(tags.items()),
            raw_text=rec.raw if isinstance(rec.raw, str) else None,
            raw_data=rec.raw if isinstance(rec.raw, bytes) else None,
            reason=reason_class(game.error) if game.error else None,
        )
        for name in row:
            row[name].append(values[name])
        moves = self.columns["moves"].data
        plies = game.plies
        moves["unit"].extend([key[0]] * plies)
        moves["seq"].extend([seq] * plies)
        moves["record_index"].extend([key[2]] * plies)
        moves["ply"].extend(range(1, plies + 1))
        moves["uci"].extend(game.uci)
        moves["iccs"].extend(game.iccs)
        moves["wxf"].extend(game.wxf)
        moves["chinese"].extend(game.chinese)
        moves["piece"].extend(game.pieces)
        moves["capture"].extend(game.captures)
        moves["is_check"].extend(game.checks)
        moves["key_before"].extend([game.start_key, *game.keys[:-1]] if plies else [])
        moves["key_after"].extend(game.keys)
        if len(self.columns["moves"]) >= SPILL_ROWS and self.unit.spool is not None:
            self.spill()

    def keep_source_as_raw(self, row: int, content: bytes) -> None:
        """Give the record at ``row`` its source's bytes when the reader kept no raw text:
        a one-record file *is* the record."""
        data = self.columns["records"].data
        if row < len(data["raw_text"]) and not data["raw_text"][row] and data["raw_data"][row] is None:
            data["raw_text"][row] = None
            data["raw_data"][row] = content

    def spill(self) -> None:
        """Move what is held so far to Parquet files in the spool folder."""
        for stage, cols in self.columns.items():
            if not len(cols):
                continue
            name = os.path.join(self.unit.spool or ".",
                                f"u{self.unit.number}-{stage}-{len(self.files.get(stage, []))}.parquet")
            pq.write_table(cols.table(), name, compression="none")
            self.files.setdefault(stage, []).append(name)

    def finish(self) -> UnitResult:
        if self.files:
            self.spill()
            self.result.staged.files = self.files
        else:
            self.result.staged.tables = {s: c.table() for s, c in self.columns.items()}
        return self.result


def read_unit(unit: WorkUnit) -> UnitResult:
    """Read and replay every source of ``unit`` (runs in a worker process)."""
    from .formats import read_source  # the readers are heavy; load them where they run

    out = _UnitBuilder(unit)
    result = out.result
    for seq, (source, known) in enumerate(zip(unit.sources, unit.known)):
        result.bytes += source.size
        try:
            sha, content = _sha256(source)
        except (OSError, SourceError) as exc:
            log.error("%s: cannot read: %s", source, exc)
            result.failed_sources.append(f"{source}: {exc}")
            continue
        if sha == known:
            result.skipped_sources += 1
            continue
        records = 0
        fmt = enc = error = None
        first_row = len(out.columns["records"])
        try:
            for record in read_source(source, format=unit.format, encoding=unit.encoding):
                fmt, enc = fmt or record.format, enc or record.encoding
                game = _replay(record)
                out.add_game(seq, game)
                records += 1
                if not game.is_valid:
                    result.invalid += 1
                    log.info("%s: invalid%s: %s", record.origin,
                             f" at ply {game.error_ply}" if game.error_ply else "", game.error)
        except Exception as exc:  # a reader bug must not sink the batch; keep what was read
            error = f"reading stopped after {records} records: {type(exc).__name__}: {exc}"
            log.error("%s: %s", source, error)
        if records == 1 and content is not None:
            out.keep_source_as_raw(first_row, content)
        result.records += records
        result.sources += 1
        out.add_source(seq, source, sha, fmt, enc, records, error)
    log.debug("unit %d: %d sources, %d records", unit.number, result.sources, result.records)
    return out.finish()


def _replay(record: GameRecord) -> ReplayedGame:
    try:
        return replay(record)
    except Exception as exc:  # a replay bug is stored as the record's reason, not raised
        game = ReplayedGame(record=record, start_fen=record.fen or "")
        game.status, game.error = "invalid", f"replay failed: {type(exc).__name__}: {exc}"
        return game


#: A source up to this size is kept in memory while it is read, to serve as the raw text
#: of its record when it holds one record and the reader gave none (binary formats).
KEEP_BYTES = 1 << 20


def _sha256(source: Source) -> tuple[str, bytes | None]:
    """The source's sha256, and its bytes when it is small."""
    digest = hashlib.sha256()
    kept: list[bytes] | None = [] if source.size <= KEEP_BYTES else None
    with source.open() as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
            if kept is not None:
                kept.append(block)
    return digest.hexdigest(), b"".join(kept) if kept is not None else None


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    match = re.fullmatch(r"\s*(\d{1,6})\s*", text)
    return int(match.group(1)) if match else None


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|\b\d+\b")


def reason_class(error: str) -> str:
    """An error message with its particulars (quoted texts, numbers) blanked, to count
    invalid records by kind.

    >>> reason_class("illegal move 'h2h9': blocked at ply 12")
    "illegal move '…': blocked at ply …"
    """
    return _QUOTED.sub(lambda m: "'…'" if m.group().startswith(("'", '"')) else "…", error)[:120]
