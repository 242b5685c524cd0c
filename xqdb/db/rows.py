"""Row building: one work unit's records, replayed, as the writer's Arrow staging tables.

A worker feeds each replayed game to a :class:`UnitBuilder` and hands the writer what
:meth:`UnitBuilder.finish` returns::

    builder = UnitBuilder(number=0)
    builder.add_game(0, replay_record(record))
    staged = builder.finish()
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from itertools import accumulate
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..formats import epd
from ..formats.record import GameRecord
from ..formats.sources import name_bytes, readable
from ..errors import ErrorKind
from ..replay import ReplayedGame, Repeats, Status
from .columns import (
    MOVE_COLUMNS, POSITION_COLUMNS, RECORD_COLUMNS, TABLES, Take, event_rows, stage_schemas, takes,
)
from .comment_evals import comment_evals
from .writer import Staged

STAGES = stage_schemas()
#: How each staged record's columns are taken, in staging order (after ``unit, seq``).
_RECORD_TAKES = takes(RECORD_COLUMNS)
_POSITION_TAKES = takes(POSITION_COLUMNS)
#: What a record linked to an earlier game stages: the columns ``game_records`` and
#: ``raw_records`` keep, and those the writer decides by; the game's own are left empty.
_LINKED_NAMES = {*TABLES["game_records"].names, *TABLES["raw_records"].names, "status",
                 "error_kind"}
_LINKED_TAKES = tuple(c.take if c.name in _LINKED_NAMES else None for c in RECORD_COLUMNS)
_CONTENT_HASH = [c.name for c in RECORD_COLUMNS].index("content_hash")
#: The move columns the builder collects from each replay, as lists; ``row``, ``ply``
#: and ``key_before`` follow from them and each game's ply count (see UnitBuilder.moves_table).
_PER_MOVE: tuple[tuple[str, Take], ...] = tuple((c.name, c.take) for c in MOVE_COLUMNS if c.take)
#: The columns of a staged evaluation after ``row``.
_EVAL_NAMES = STAGES["evals"].names[1:]
#: Formats whose records are positions, not games: stored in ``positions``.
POSITION_FORMATS = frozenset({epd.FORMAT})


def _table(stage: str, columns: Sequence[Sequence[object] | pa.Array]) -> pa.Table:
    """One staging table from its columns (in schema order): Python lists, converted
    here, or Arrow arrays already of the column's type."""
    schema = STAGES[stage]
    return pa.Table.from_arrays(
        [c if isinstance(c, pa.Array) else pa.array(c, type=f.type)
         for c, f in zip(columns, schema)], schema=schema)


def _rows_table(stage: str, rows: list[tuple[object, ...]]) -> pa.Table:
    """A staging table from row tuples in schema order, turned into columns in one ``zip``."""
    return _table(stage, list(zip(*rows)) or [[]] * len(STAGES[stage]))


class UnitBuilder:
    """Collects one unit's rows: sources, records, positions and variation moves as row
    tuples, moves straight into column lists (a game's plies are appended a column at a
    time). The moves' ``row``, ``ply`` and ``key_before`` columns are not collected move by
    move: they are computed in Arrow from each record's ply count and start key, which
    saves three Python lists (and their conversion) of one item per move."""

    def __init__(self, number: int, spool: str | None = None, spill_rows: int = 0,
                 spill_bytes: int = 0) -> None:
        self.number = number
        """The unit's number, the ``unit`` column of its rows."""
        self.spool = spool
        """Folder for the Parquet files of a big unit; ``None``: never spill."""
        self.spill_rows = spill_rows
        """Held moves that make the unit spill (when it has a spool folder)."""
        self.spill_bytes = spill_bytes or (1 << 62)
        """Held bytes of record texts that make the unit spill: a few records of
        megabytes weigh more than many moves (0: no limit)."""
        self.rows = 0
        """Records added so far, spilled or not: the next record's ``row``."""
        self.files: dict[str, list[str]] = {}
        self._start()

    def _start(self) -> None:
        self.sources: list[tuple[object, ...]] = []
        self.records: list[tuple[object, ...]] = []
        self.positions: list[tuple[object, ...]] = []
        self.variation_moves: list[tuple[object, ...]] = []
        self.rule_events: list[tuple[object, ...]] = []
        self.evals: list[tuple[object, ...]] = []
        self.moves: list[list[Any]] = [[] for _ in _PER_MOVE]
        self.plies: list[int] = []
        """Plies of each record held, in order (0 for a record without moves)."""
        self.start_keys: list[int | None] = []
        """Start key of each record held: the ``key_before`` of its first move."""
        self.held_bytes = 0
        """Length of the record texts held (each record's raw text and its comments
        make most of a big record's weight)."""

    def add_source(self, seq: int, path: str, member: str | None, sha: str, size: int,
                   fmt: str | None, enc: str | None, records: int, error: str | None,
                   real_path: str | None = None, member_index: int | None = None) -> None:
        """Add a source. Names as the file system or archive gave them (with the
        surrogates of bytes that are not UTF-8) are stored readable, with their bytes."""
        self.sources.append((self.number, seq, readable(path),
                             None if member is None else readable(member), sha, size, fmt, enc,
                             records, None if error is None else readable(error),
                             None if real_path is None else readable(real_path),
                             name_bytes(path), None if member is None else name_bytes(member),
                             member_index))

    def add_game(self, seq: int, game: ReplayedGame) -> int | None:
        """Add a replayed record: a game, or a position for a positions list; returns the
        game's content hash (``None`` for a position)."""
        if game.record.format in POSITION_FORMATS:
            self.positions.append((self.number, seq, *[take(game) for take in _POSITION_TAKES]))
            return None
        taken = [take(game) for take in _RECORD_TAKES]
        self.records.append((self.number, seq, *taken, False))
        plies = game.plies
        self.plies.append(plies)
        self.start_keys.append(game.start_key)
        if plies:
            for column, (_, take) in zip(self.moves, _PER_MOVE):
                column.extend(take(game))
        if game.variation_moves:
            row = self.rows
            # A replay's variation moves are tuples in the columns' order (after ``row``).
            self.variation_moves += [(row, *move) for move in game.variation_moves]
        if game.episodes:
            self.rule_events += [(self.rows, *event) for event in event_rows(game)]
        for values in comment_evals(game):
            self.evals.append((self.rows, *[values.get(name) for name in _EVAL_NAMES]))
        self.rows += 1
        self.held_bytes += len(game.record.raw)
        if self.spool is not None and (len(self.moves[0]) >= self.spill_rows
                                       or self.held_bytes >= self.spill_bytes):
            self.spill()
        return taken[_CONTENT_HASH]

    def add_linked(self, seq: int, record: GameRecord, content: int) -> None:
        """Add a record that repeats an earlier, valid one whose game's content hash is
        ``content``: the writer links it to that game, so it needs neither the game's
        columns nor its moves."""
        stand_in = ReplayedGame(record=record, start_fen=record.fen or "")
        row: list[object] = [None if take is None else take(stand_in) for take in _LINKED_TAKES]
        row[_CONTENT_HASH] = content
        self.records.append((self.number, seq, *row, True))
        self.plies.append(0)
        self.start_keys.append(None)
        self.rows += 1
        self.held_bytes += len(record.raw)

    def moves_table(self) -> pa.Table:
        """The moves held, with ``row`` (the record's place in the unit), ``ply`` and
        ``key_before`` (the previous ply's key, or the start key for ply 1) derived in
        Arrow from the records' ply counts."""
        schema = STAGES["moves"]
        columns = {name: pa.array(c, type=schema.field(name).type)
                   for c, (name, _) in zip(self.moves, _PER_MOVE)}
        after = columns["key_after"]
        count = len(after)
        if not count:
            return schema.empty_table()
        # A list per record over the moves: its parent indices say whose each move is.
        offsets = pa.array(accumulate(self.plies, initial=0), pa.int32())
        owner = pa.ListArray.from_arrays(offsets, after).value_parent_indices()
        first = self.rows - len(self.plies)  # the unit's row of the first record held
        ply = pc.subtract(pc.cumulative_sum(pa.repeat(1, count)), pc.take(offsets, owner))
        previous = pa.concat_arrays([pa.array([0], pa.uint64()), after.slice(0, count - 1)])
        columns["row"] = pc.add(owner, first).cast(pa.int32())
        columns["ply"] = ply.cast(pa.int16())
        columns["key_before"] = pc.if_else(
            pc.equal(ply, 1), pc.take(pa.array(self.start_keys, pa.uint64()), owner), previous)
        return _table("moves", [columns[name] for name in schema.names])

    def tables(self) -> dict[str, pa.Table]:
        """What is held so far, as staging tables; the lists start afresh."""
        out = {"sources": _rows_table("sources", self.sources),
               "records": _rows_table("records", self.records),
               "moves": self.moves_table(),
               "variation_moves": _rows_table("variation_moves", self.variation_moves),
               "rule_events": _rows_table("rule_events", self.rule_events),
               "positions": _rows_table("positions", self.positions),
               "evals": _rows_table("evals", self.evals)}
        self._start()
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


#: This process's replays, for the repeats of records it has replayed.
REPEATS = Repeats()


def replay_record(record: GameRecord) -> ReplayedGame:
    """The record replayed (a repeat of one replayed lately in this process is not replayed
    again: see :class:`~xqdb.replay.Repeats`); a replay that raises gives an invalid game
    with the reason."""
    try:
        return REPEATS.replay(record)
    except Exception as exc:  # a replay bug is stored as the record's reason, not raised
        return ReplayedGame(record=record, start_fen=record.fen or "", status=Status.INVALID,
                            error=f"replay failed: {type(exc).__name__}: {exc}",
                            error_kind=ErrorKind.REPLAY_FAILED)
