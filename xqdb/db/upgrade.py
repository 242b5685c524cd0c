"""Upgrade a database of an older schema version, from what it already holds.

Every record a database holds is kept as read, in ``raw_records``, with where it came from
in ``game_records`` and ``sources``. An upgrade reads each record again from there, replays
it, and stores it in a new database of this version, in the same order, so it ends with
the rows a fresh import of the same files would give (``imported_at`` is carried over):
no user needs their source files again. The old file is kept beside the new one.

Two upgrades of one file never run at once (:class:`~xqdb.db.holder.UpgradeLock`), and the
new database takes the old one's place only once :mod:`.upgrade_check` has found that
everything the old one held came along::

    summary = upgrade("games.duckdb")
    print(summary)       # upgraded games.duckdb from schema version 2 to 3...
"""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from ..formats import cbr, reader_for
from ..formats.record import GameRecord, Origin
from .analysed import mark_fully_evaluated
from .columns import TABLES
from .judgements import refresh_shipped_curves
from .players import PlayerError, link_players, merge
from .rows import UnitBuilder, replay_record
from .lookups import add_span_neighbours, rebuild, rebuild_opening_moves
from . import tree_counts
from .holder import UpgradeLock
from .schema import SCHEMA, SCHEMA_VERSION, DatabaseError, connect, schema_version
from .upgrade_check import Tally, check, check_kept, kept_rows
from .writer import Writer

#: Sources per transaction of the new database.
BATCH_SOURCES = 200
#: Stored records fetched from the old database at a time, as they are read again.
FETCH_ROWS = 2000
#: Versions brought up to date in place, and what they lack: tables derived from the rows
#: they hold, built without reading a record again.
_CURVE_TERMS = ("the win curves' separate tempo and Red's edge (win_curves.cp_red_edge, "
                "fitted_at)")
_NEIGHBOURS = "each stretch of material's next one (material_spans.next_signature, next_until)"
IN_PLACE = {7: "the lookup tables (position_keys, material_spans, material_signatures, "
                "opening_moves), the win curves' late scale (win_curves.cp_late_scale), the "
                "members of a repeated name (sources.member_index), the table of the ranges "
                "of big sources stored (source_ranges) and the tree's counts (tree_keys, "
                "tree_moves)",
            8: "the table of the ranges of big sources stored (source_ranges), the tree's "
               f"counts (tree_keys, tree_moves), the games' first moves (opening_moves) and "
               f"{_NEIGHBOURS}",
            9: f"the games' first moves (opening_moves) and {_NEIGHBOURS}",
            10: _NEIGHBOURS,
            11: "the views anew (judgements reads the moves of the games analysed only)",
            12: "the spread of the searches' last depths (evals.spread_low_cp, "
                f"spread_high_cp) and {_CURVE_TERMS}",
            13: _CURVE_TERMS}


@dataclass
class UpgradeSummary:
    """What an upgrade did; ``str()`` is what ``xqdb upgrade`` prints."""

    path: str
    from_version: int
    sources: int = 0
    records: int = 0
    games: int = 0
    positions: int = 0
    invalid: int = 0
    kept: str | None = None
    """Where the database of the old version was kept; ``None`` when nothing was done."""
    built: str | None = None
    """What an upgrade in place built (see :data:`IN_PLACE`); ``None`` after reading every
    record again."""
    checked: list[Tally] = field(default_factory=list)
    """What the check before the new database took the old one's place compared (see
    :mod:`.upgrade_check`); empty for an upgrade in place, which reads no record again."""

    def __str__(self) -> str:
        if self.kept is None:
            return f"{self.path}: already at schema version {self.from_version}"
        if self.built is not None:
            return (f"upgraded {self.path} from schema version {self.from_version} to "
                    f"{SCHEMA_VERSION}: built {self.built} for {self.games:,} games\n"
                    f"the old database is kept as {self.kept}")
        return (f"upgraded {self.path} from schema version {self.from_version} to "
                f"{SCHEMA_VERSION}: {self.sources:,} sources, {self.records:,} records read "
                f"again: {self.games:,} games ({self.invalid:,} invalid), "
                f"{self.positions:,} positions\nchecked, the same in both: "
                + ", ".join(f"{t.old_rows:,} {t.table}" for t in self.checked)
                + f"\nthe old database is kept as {self.kept}")


def upgrade(path: str | os.PathLike[str]) -> UpgradeSummary:
    """Re-derive every table of the database at ``path`` from its raw records, if it is of
    an older schema version; the old file is renamed to ``PATH.vN`` (N its version).

    Raises :class:`DatabaseError` when the file is no xqdb database, is locked (another
    upgrade of it runs, or another process writes it), or is of a newer version, and
    :class:`~xqdb.db.upgrade_check.UpgradeCheckError` when the new database would lack
    anything the old one held: the old file is then left as it was.
    """
    where = Path(path)
    with UpgradeLock(where):
        return _upgrade(where)


def _upgrade(where: Path) -> UpgradeSummary:
    """:func:`upgrade`, once its lock is held."""
    _fold_log(where)
    old = connect(where, read_only=True, any_version=True)
    try:
        version = schema_version(old, str(where))
        if version is None:
            raise DatabaseError(f"{where}: not an xqdb database (no schema version)")
        if version > SCHEMA_VERSION:
            raise DatabaseError(f"{where}: schema version {version} is newer than this xqdb "
                                f"({SCHEMA_VERSION})")
        summary = UpgradeSummary(str(where), version)
        if version == SCHEMA_VERSION:
            return summary
        if version in IN_PLACE:
            old.close()
            return _upgrade_in_place(where, summary)
        fresh = where.with_name(where.name + ".upgrading")
        # With the lock held, a file of that name is one a killed upgrade left.
        _remove(fresh)
        try:
            new = connect(fresh)
            try:
                _rebuild(old, Writer(new, every_source=True), summary)
                _carry_aliases(old, new)
                _carry_evals(old, new)
                _carry_judgement_settings(old, new)
                refresh_shipped_curves(new)
                _carry_analysed_games(old, new)
                link_players(new)
                rebuild(new)
                tree_counts.rebuild(new)
                new.execute("CHECKPOINT")
            finally:
                new.close()
        except BaseException:
            _remove(fresh)
            raise
    finally:
        old.close()
    try:
        summary.checked = check(where, fresh)
    except BaseException:
        _remove(fresh)
        raise
    kept = where.with_name(f"{where.name}.v{version}")
    # The old file is kept under its new name before the new one takes its place, so a
    # kill at any moment leaves a database at ``where``: the old one, or the new.
    kept.unlink(missing_ok=True)
    try:
        os.link(where, kept)
    except OSError:  # no hard links here: a copy does as well
        shutil.copyfile(where, kept)
    os.replace(fresh, where)
    summary.kept = str(kept)
    return summary


def _remove(database: Path) -> None:
    """Remove a database file and the write-ahead log beside it (a log left alone would
    be replayed into the next file of that name)."""
    database.unlink(missing_ok=True)
    database.with_name(database.name + ".wal").unlink(missing_ok=True)


def _upgrade_in_place(where: Path, summary: UpgradeSummary) -> UpgradeSummary:
    """Add what :data:`IN_PLACE` says the version lacks to the database at ``where``, in
    one transaction (a kill leaves it as it was), after keeping a copy as ``PATH.vN``."""
    kept = where.with_name(f"{where.name}.v{summary.from_version}")
    kept.unlink(missing_ok=True)
    shutil.copyfile(where, kept)
    con = _open_to_write(where, "upgrade it")
    try:
        con.execute("BEGIN TRANSACTION")
        try:
            before = kept_rows(con)
            _new_columns_and_views(con)
            con.execute(SCHEMA)
            refresh_shipped_curves(con)
            if summary.from_version == 7:
                rebuild(con)
            elif summary.from_version < 11:
                add_span_neighbours(con)
            if summary.from_version in (8, 9):
                rebuild_opening_moves(con)
            if summary.from_version < 9:
                tree_counts.rebuild(con)
            # It builds tables from the rows the database holds: those must stay as
            # they were.
            check_kept(before, kept_rows(con), str(where))
            summary.games = before.get("games", 0)
            con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'",
                        [str(SCHEMA_VERSION)])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("CHECKPOINT")
    finally:
        con.close()
    summary.kept, summary.built = str(kept), IN_PLACE[summary.from_version]
    return summary


def _open_to_write(where: Path, why: str) -> duckdb.DuckDBPyConnection:
    """A connection that may write ``where``, or a :class:`DatabaseError` saying ``why``
    it was wanted and what DuckDB answered."""
    try:
        return duckdb.connect(str(where))
    except duckdb.Error as exc:
        raise DatabaseError(f"{where}: cannot open it to {why}: "
                            f"{str(exc).splitlines()[0]}") from None


def _new_columns_and_views(con: duckdb.DuckDBPyConnection) -> None:
    """Add the columns versions 8, 13 and 14 added to tables an older database has, and drop
    its views, which the schema then creates anew (their queries read the new columns)."""
    views = [t.name for t in TABLES.values() if t.query is not None or t.view_of is not None]
    for name in reversed(views):  # those defined on others first
        con.execute(f"DROP VIEW IF EXISTS {name}")
    con.execute("ALTER TABLE win_curves ADD COLUMN IF NOT EXISTS cp_late_scale DOUBLE")
    con.execute("ALTER TABLE win_curves ADD COLUMN IF NOT EXISTS cp_red_edge DOUBLE")  # 14
    con.execute("ALTER TABLE win_curves ADD COLUMN IF NOT EXISTS fitted_at TIMESTAMP")
    con.execute("ALTER TABLE sources ADD COLUMN IF NOT EXISTS member_index INTEGER")
    for name in ("spread_low_cp", "spread_high_cp"):  # version 13
        con.execute(f"ALTER TABLE evals ADD COLUMN IF NOT EXISTS {name} INTEGER")


def _fold_log(where: Path) -> None:
    """Write a write-ahead log left beside the database (by a process killed before it
    checkpointed) into the file itself: a log left beside the file that replaces it
    would be replayed into that one, and ruin it."""
    if not where.with_name(where.name + ".wal").exists():
        return
    con = _open_to_write(where, "write its leftover write-ahead log into it")
    try:
        con.execute("CHECKPOINT")
    finally:
        con.close()


def _rebuild(old: duckdb.DuckDBPyConnection, writer: Writer, summary: UpgradeSummary) -> None:
    """Read every record of ``old`` again, in source and record order, into ``writer``."""
    sources = old.execute("""
        SELECT source_id, path, member, sha256, bytes, format, encoding, records, error,
               imported_at
        FROM sources ORDER BY source_id""").fetchall()
    names = _source_names(old)
    records = _records(old)
    pending = next(records, None)
    builder = UnitBuilder(0)
    for seq, (source_id, path, member, sha, size, fmt, enc, count, error, _) in enumerate(sources):
        held = []
        while pending is not None and pending[0] == source_id:
            held.append(pending)
            pending = next(records, None)
        if held:
            count = 0
        for record in _reread(path, member, held):
            builder.add_game(seq % BATCH_SOURCES, replay_record(record))
            count += 1
        real_path, _, _, index = names.get(source_id, (_resolved(path), None, None, None))
        builder.add_source(seq % BATCH_SOURCES, path, member, sha, size, fmt, enc, count, error,
                           real_path=real_path, member_index=index)
        if (seq + 1) % BATCH_SOURCES == 0 or seq + 1 == len(sources):
            _commit(writer, builder, summary)
            builder = UnitBuilder(0)
    # Ids follow the same order, so each source keeps its id; its timestamp goes with it,
    # and so do the names' bytes and resolved path. A version that did not keep the
    # resolved path gets it resolved now, from the folder the upgrade runs in.
    stamps = pa.table({
        "source_id": pa.array([s[0] for s in sources], pa.int64()),
        "imported_at": pa.array([s[-1] for s in sources], pa.timestamp("us")),
        "real_path": pa.array([names.get(s[0], (_resolved(s[1]), None, None, None))[0]
                               for s in sources], pa.string()),
        "path_bytes": pa.array([names.get(s[0], (None, None, None, None))[1] for s in sources],
                               pa.binary()),
        "member_bytes": pa.array([names.get(s[0], (None, None, None, None))[2] for s in sources],
                                 pa.binary()),
        "member_index": pa.array([names.get(s[0], (None, None, None, None))[3]
                                  for s in sources], pa.int32())})
    writer.con.register("old_stamps", stamps)
    writer.con.execute("UPDATE sources SET imported_at = o.imported_at, real_path = o.real_path,"
                       " path_bytes = o.path_bytes, member_bytes = o.member_bytes,"
                       " member_index = o.member_index"
                       " FROM old_stamps o WHERE sources.source_id = o.source_id")
    writer.con.unregister("old_stamps")


def _source_names(old: duckdb.DuckDBPyConnection
                  ) -> dict[int, tuple[str | None, bytes | None, bytes | None, int | None]]:
    """``source_id -> (real_path, path_bytes, member_bytes, member_index)`` where the old
    database kept them (schema 7 on; the member index from 8 on: before, a name's earlier
    members were not read), else empty."""
    columns = set(_columns(old, "sources"))
    if "real_path" not in columns:
        return {}
    index = "member_index" if "member_index" in columns else "NULL::INTEGER"
    return {row[0]: (row[1], row[2], row[3], row[4]) for row in old.execute(
        "SELECT source_id, real_path, path_bytes, member_bytes, "
        f"{index} FROM sources").fetchall()}


def _resolved(path: str) -> str:
    return path if path == "-" else os.path.realpath(path)


def _carry_aliases(old: duckdb.DuckDBPyConnection, new: duckdb.DuckDBPyConnection) -> None:
    """Bring over the corrections users made to player names (``xqdb players alias``)."""
    if not old.execute("SELECT 1 FROM information_schema.tables"
                       " WHERE table_name = 'player_names'").fetchall():
        return
    link_players(new)
    for spelling, name in old.execute("""
            SELECT n.spelling, p.name FROM player_names n JOIN players p USING (player_id)
            WHERE n.decided_by = 'alias' ORDER BY n.spelling""").fetchall():
        try:
            merge(new, [spelling], name)
        except PlayerError:  # a spelling no record of this version gives any more
            continue


def _carry_evals(old: duckdb.DuckDBPyConnection, new: duckdb.DuckDBPyConnection) -> None:
    """Bring over the engine evaluations: hours of engine time no record holds. Game ids
    follow input order, so a game's own evaluations stay with it."""
    columns = _columns(old, "evals")
    if not columns:
        return
    # The records' own evaluations (engine comments) were read again with them.
    _copy_rows(old, new, "evals", columns,
               " WHERE origin <> 'comment'" if "origin" in columns else "")


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    """The columns of ``table`` in ``con``, in order (none when it has no such table)."""
    return [r[0] for r in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ?"
        " ORDER BY ordinal_position", [table]).fetchall()]


def _copy_rows(old: duckdb.DuckDBPyConnection, new: duckdb.DuckDBPyConnection, table: str,
               columns: list[str], where: str = "") -> None:
    """Insert the rows of ``old``'s ``table`` (those ``where`` keeps) into ``new``'s, by the
    names of ``columns``: in slices, so that a large table is never held whole in memory,
    and a slice at a time, not a statement per row."""
    names = ", ".join(f'"{c}"' for c in columns)
    for batch in old.sql(f"SELECT {names} FROM {table}{where}").to_arrow_reader(100_000):
        new.register("old_rows", pa.Table.from_batches([batch]))
        new.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM old_rows")
        new.unregister("old_rows")


def _carry_analysed_games(old: duckdb.DuckDBPyConnection,
                          new: duckdb.DuckDBPyConnection) -> None:
    """Bring over which games each pass covered; a database older than that record counts
    the games whose positions all have an evaluation as analysed."""
    columns = _columns(old, "analysed_games")
    if columns:
        _copy_rows(old, new, "analysed_games", columns)
    mark_fully_evaluated(new)


def _carry_judgement_settings(old: duckdb.DuckDBPyConnection,
                              new: duckdb.DuckDBPyConnection) -> None:
    """Bring over the fitted win curves and the thresholds (``xqdb calibrate``): the new
    database starts from the shipped ones, which the old rows replace."""
    tables = {r[0] for r in old.execute(
        "SELECT table_name FROM information_schema.tables").fetchall()}
    for table in ("win_curves", "judgement_thresholds"):
        if table in tables:
            cursor = old.execute(f"SELECT * FROM {table}")
            names = ", ".join(d[0] for d in cursor.description)
            rows = cursor.fetchall()
            if rows:
                marks = ", ".join("?" for _ in rows[0])
                # By name: a newer schema may have added columns (win_curves.cp_late_scale).
                new.executemany(f"INSERT OR REPLACE INTO {table} ({names}) VALUES ({marks})",
                                rows)


def _commit(writer: Writer, builder: UnitBuilder, summary: UpgradeSummary) -> None:
    counts = writer.commit([builder.finish()])
    summary.sources += counts.sources
    summary.records += counts.records + counts.positions
    summary.games += counts.games
    summary.positions += counts.positions
    summary.invalid += sum(counts.invalid.values())


def _records(old: duckdb.DuckDBPyConnection) -> Iterator[tuple[Any, ...]]:
    """Every stored record with where it was read and as what, in source and record order,
    :data:`FETCH_ROWS` at a time.

    The positions of a positions list (an EPD file) come with them, from their own table
    where the old version kept them there (schema 3 on), each with its line as its raw
    text.

    The rows come through a cursor of their own: another query on ``old`` while they are
    pending would silently end them (DuckDB keeps one pending result per connection).
    """
    positions = """
        UNION ALL
        SELECT p.source_id, p.record_index, p.line, NULL, s.format, NULL, p.encoding,
               p.tags, p.text, NULL, p.error
        FROM positions p JOIN sources s USING (source_id)"""
    if "text" not in _columns(old, "positions"):
        positions = ""
    cursor = old.cursor().execute(f"""
        SELECT r.source_id, r.record_index, r.line, r."offset", r.format, r.notation,
               r.encoding, r.tags, w.text, w.data, g.error
        FROM game_records r
        JOIN raw_records w USING (game_id, source_id, record_index)
        JOIN games g USING (game_id){positions}
        ORDER BY 1, 2""")
    try:
        while rows := cursor.fetchmany(FETCH_ROWS):
            yield from rows
    finally:
        cursor.close()


def _reread(path: str, member: str | None, stored: list[tuple[Any, ...]]
            ) -> Iterator[GameRecord]:
    """A source's stored records read again by their format's reader from their raw text
    or bytes, as the import read them.

    A record is read from its own raw text, except where one raw text gave several
    records: a DhtmlXQ collection keeps its block once, with its first line, and that
    block gives every line again. A record no reader can make sense of keeps its stored
    error.
    """
    if len(stored) > 1 and all(row[4] == cbr.FORMAT for row in stored):
        yield from _reread_library(path, member, stored)
        return
    at = 0
    while at < len(stored):
        again = _read_raw(stored[at])
        for record, row in zip(again or [_unread(stored[at])], stored[at:]):
            _, index, line, offset, _, _, encoding, _, _, _, _ = row
            record.origin = Origin(path=path, member=member, index=index, offset=offset,
                                   line=line)
            record.encoding = encoding
            yield record
        at += max(1, len(again))


def _reread_library(path: str, member: str | None, stored: list[tuple[Any, ...]]
                    ) -> Iterator[GameRecord]:
    """A CBL library's stored records read again together, as one library: a section
    heading names the games after it, and gives no record itself (older versions stored
    it as an invalid one)."""
    at, rows = 0, {}
    for row in stored:
        rows[at] = row
        at += len(row[9] or b"")
    data = b"".join(row[9] or b"" for row in stored)
    for record in cbr.read(io.BytesIO(data), Origin("")):
        # Each record is found again where its bytes were put: the stored row it was.
        row = rows.get(record.origin.offset or 0, stored[-1])
        _, _, line, offset, _, _, encoding, _, _, _, _ = row
        record.origin = Origin(path=path, member=member, index=record.origin.index,
                               offset=offset, line=line)
        record.encoding = encoding
        yield record


def _read_raw(row: tuple[Any, ...]) -> list[GameRecord]:
    """Every record the stored record's raw text or bytes gives (none when there are none,
    or no reader takes its format)."""
    _, _, _, _, fmt, _, encoding, _, text, data, _ = row
    raw: str | bytes = text if text is not None else (data or b"")
    try:
        module = reader_for(fmt)
    except ValueError:
        return []  # an error record of a source no reader took
    if not raw:
        return []
    if isinstance(raw, bytes):
        return list(module.read(io.BytesIO(raw), Origin(""), encoding))
    # Text was stored decoded: encoded again, it is the bytes that were read (a decoder
    # that replaced nothing is undone by its encoder), and those bytes give what the
    # import read, such as the second name of an EPD line in Big5.
    try:
        again, encoding = raw.encode(encoding or "utf-8"), encoding or "utf-8"
    except (UnicodeError, LookupError):
        again, encoding = raw.encode(), "utf-8"
    return list(module.read(io.BytesIO(again), Origin(""), encoding))


def _unread(row: tuple[Any, ...]) -> GameRecord:
    """The stored record as it was, with its error: for what no reader reads again."""
    _, _, _, _, fmt, notation, encoding, tags, text, data, error = row
    return GameRecord(origin=Origin(""), format=fmt, encoding=encoding, notation=notation,
                      tags=json.loads(tags) if tags else {},
                      raw=text if text is not None else (data or b""),
                      error=error or "record could not be read again")
