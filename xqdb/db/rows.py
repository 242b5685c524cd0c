"""Row building: one work unit's records, replayed, as the writer's Arrow staging tables.

A worker feeds each replayed game to a :class:`UnitBuilder` and hands the writer what
:meth:`UnitBuilder.finish` returns::

    builder = UnitBuilder(number=0)
    builder.add_game(0, replay_record(record))
    staged = builder.finish()
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from itertools import accumulate
from operator import attrgetter
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..formats.record import GameRecord
from ..formats.sources import Source
from ..formats.tags import parse_date
from ..replay import ReplayedGame, replay
from .dedupe import content_hash
from .writer import STAGES, Staged

_TAGS = ("Event", "Site", "Round")
_PLAYERS = ("Red", "Black", "RedTeam", "BlackTeam")
_OPENING = ("ECCO", "Opening", "Variation")
_SOURCE_COLUMNS = tuple(STAGES["sources"].names)
_RECORD_COLUMNS = tuple(STAGES["records"].names)
_MOVE_COLUMNS = tuple(STAGES["moves"].names)
# The row tuples below are built in this exact column order; a schema change must follow.
assert _RECORD_COLUMNS == (
    "unit", "seq", "record_index", "line", "offset", "content_hash",
    "event", "site", "round", "date", "date_raw", "red", "black", "red_team", "black_team",
    "red_elo", "black_elo", "result", "rules_result", "start_fen", "start_key", "plies",
    "status", "error", "error_ply", "error_text", "termination", "ecco", "opening",
    "variation", "final_fen", "final_key", "format", "notation", "encoding", "variations",
    "variation_errors", "tags", "raw_text", "raw_data", "reason"), _RECORD_COLUMNS
assert _MOVE_COLUMNS == ("row", "ply", "move", "wxf", "chinese", "piece", "capture",
                         "is_check", "key_before", "key_after"), _MOVE_COLUMNS


def _table(stage: str, columns: Sequence[Sequence[object] | pa.Array]) -> pa.Table:
    """One staging table from its columns (in schema order): Python lists, converted
    here, or Arrow arrays already of the column's type."""
    schema = STAGES[stage]
    return pa.Table.from_arrays(
        [c if isinstance(c, pa.Array) else pa.array(c, type=f.type)
         for c, f in zip(columns, schema)], schema=schema)


#: The move columns the builder collects from each replay, as lists; ``row``, ``ply``
#: and ``key_before`` follow from them and each game's ply count (see UnitBuilder.moves_table).
_PER_MOVE = ("move", "wxf", "chinese", "piece", "capture", "is_check", "key_after")
_CODE = attrgetter("code")
_json = json.dumps


class UnitBuilder:
    """Collects one unit's rows: records and sources as row tuples (one tuple per record,
    turned into columns at the end in one ``zip``), moves straight into column lists (a
    game's plies are appended a column at a time). The moves' ``row``, ``ply`` and
    ``key_before`` columns are not collected move by move: they are computed in Arrow from
    each record's ply count and start key, which saves three Python lists (and their
    conversion) of one item per move."""

    def __init__(self, number: int, spool: str | None = None, spill_rows: int = 0) -> None:
        self.number = number
        """The unit's number, the ``unit`` column of its rows."""
        self.spool = spool
        """Folder for the Parquet files of a big unit; ``None``: never spill."""
        self.spill_rows = spill_rows
        """Held moves that make the unit spill (when it has a spool folder)."""
        self.sources: list[tuple[object, ...]] = []
        self.records: list[tuple[object, ...]] = []
        self.moves: list[list[Any]] = [[] for _ in _PER_MOVE]
        self.plies: list[int] = []
        """Plies of each record held, in order (0 for a record without moves)."""
        self.start_keys: list[int | None] = []
        """Start key of each record held: the ``key_before`` of its first move."""
        self.rows = 0
        """Records added so far, spilled or not: the next record's ``row``."""
        self.files: dict[str, list[str]] = {}

    def add_source(self, seq: int, source: Source, sha: str, fmt: str | None,
                   enc: str | None, records: int, error: str | None) -> None:
        self.sources.append((self.number, seq, source.display_path, source.member, sha,
                             source.size, fmt, enc, records, error))

    def add_game(self, seq: int, game: ReplayedGame) -> None:
        rec = game.record
        tags = rec.tags
        get = tags.get
        raw = rec.raw
        keys = game.keys
        plies = game.plies
        date_raw = get("Date")
        codes = list(map(_CODE, game.moves))
        self.records.append((
            self.number, seq, rec.origin.index, rec.origin.line, rec.origin.offset,
            content_hash(game.start_fen, codes),
            *map(get, _TAGS), parse_date(date_raw), date_raw, *map(get, _PLAYERS),
            _int(get("RedElo")), _int(get("BlackElo")),
            rec.result, game.rules_result, game.start_fen, game.start_key or None, plies,
            game.status, game.error, game.error_ply, game.error_text, game.termination,
            *map(get, _OPENING), game.final_fen,
            keys[-1] if keys else (game.start_key or None),
            rec.format, rec.notation, rec.encoding,
            game.variations, game.variation_errors or None, _json(tags, ensure_ascii=False),
            raw if isinstance(raw, str) else None, raw if isinstance(raw, bytes) else None,
            reason_class(game.error) if game.error else None,
        ))
        self.plies.append(plies)
        self.start_keys.append(game.start_key)
        if plies:
            move, wxf, chinese, piece, capture, check, after = self.moves
            move.extend(codes)
            wxf.extend(game.wxf)
            chinese.extend(game.chinese)
            piece.extend(game.pieces)
            capture.extend(game.captures)
            check.extend(game.checks)
            after.extend(keys)
        self.rows += 1
        if len(self.moves[0]) >= self.spill_rows and self.spool is not None:
            self.spill()

    def moves_table(self) -> pa.Table:
        """The moves held, with ``row`` (the record's place in the unit), ``ply`` and
        ``key_before`` (the previous ply's key, or the start key for ply 1) derived in
        Arrow from the records' ply counts."""
        schema = STAGES["moves"]
        columns = [pa.array(c, type=schema.field(n).type) for c, n in zip(self.moves, _PER_MOVE)]
        count = len(columns[0])
        if not count:
            return schema.empty_table()
        after = columns[-1]
        # A list per record over the moves: its parent indices say whose each move is.
        offsets = pa.array(accumulate(self.plies, initial=0), pa.int32())
        owner = pa.ListArray.from_arrays(offsets, after).value_parent_indices()
        first = self.rows - len(self.plies)  # the unit's row of the first record held
        row = pc.add(owner, first).cast(pa.int32())
        ply = pc.subtract(pc.cumulative_sum(pa.repeat(1, count)), pc.take(offsets, owner))
        previous = pa.concat_arrays([pa.array([0], pa.uint64()), after.slice(0, count - 1)])
        before = pc.if_else(pc.equal(ply, 1),
                            pc.take(pa.array(self.start_keys, pa.uint64()), owner), previous)
        return _table("moves", [row, ply.cast(pa.int16()), *columns[:-1], before, after])

    def tables(self) -> dict[str, pa.Table]:
        """What is held so far, as staging tables; the lists start afresh."""
        out = {"sources": _table("sources", list(zip(*self.sources)) or [[]] * len(_SOURCE_COLUMNS)),
               "records": _table("records", list(zip(*self.records)) or [[]] * len(_RECORD_COLUMNS)),
               "moves": self.moves_table()}
        self.sources, self.records = [], []
        self.moves = [[] for _ in _PER_MOVE]
        self.plies, self.start_keys = [], []
        return out

    def spill(self) -> None:
        """Move what is held so far to Parquet files in the spool folder."""
        for stage, table in self.tables().items():
            if not len(table):
                continue
            name = os.path.join(self.spool or ".",
                                f"u{self.number}-{stage}-{len(self.files.get(stage, []))}.parquet")
            pq.write_table(table, name, compression="none")
            self.files.setdefault(stage, []).append(name)

    def finish(self) -> Staged:
        """Everything added: spilled files if the unit spilled, else in-memory tables."""
        if self.files:
            self.spill()
            return Staged(files=self.files)
        return Staged(tables=self.tables())


def replay_record(record: GameRecord) -> ReplayedGame:
    """The record replayed; a replay that raises gives an invalid game with the reason."""
    try:
        return replay(record)
    except Exception as exc:  # a replay bug is stored as the record's reason, not raised
        game = ReplayedGame(record=record, start_fen=record.fen or "")
        game.status, game.error = "invalid", f"replay failed: {type(exc).__name__}: {exc}"
        return game


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
