"""Writing a database's games out: as PGN, as DhtmlXQ blocks, and as Parquet files.

PGN and DhtmlXQ are written from what the database stores of each game: its tags as
read (``games.tags``), its start position, its main line in the notation asked for, its
result, and its variations as far as they replay (``variation_moves``). Comments are
not stored, so none are written. Imported again, the file gives the same games: the same
``content_hash`` for every game, and the same tags (see :func:`xqdb.formats.pgn.write`
for the ``FEN`` and ``Format`` tags a PGN file adds where they are needed, and
:func:`xqdb.formats.dhtmlxq.write` for the tags a DhtmlXQ block can carry).

Invalid games are skipped, and counted in the summary: their moves stop where the record
failed, and written out they would read back as a valid game that was never played. The
Parquet files, a table dump for other tools, keep every row with its ``status``.

Parquet layout (Hive partitions, which DuckDB, Polars, pandas and Spark read as one
table with a ``year`` column)::

    OUT/games/year=1982/data_0.parquet     one row per game: the columns of ``games``
    OUT/games/year=__HIVE_DEFAULT_PARTITION__/data_0.parquet
                                           games whose Date tag names no year (read as a
                                           NULL year)
    OUT/moves/year=1982/data_0.parquet     one row per move: the columns of the ``moves``
                                           view (every stored notation), by game and ply

>>> written_moves(None, [2272, 7989], "wxf")
['C2.5', 'H8+7']
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import duckdb

from ..errors import BadArgumentError, CannotRunError
from ..db.columns import TABLES, move_text_column
from ..db.where import ConditionError, game_condition
from ..formats import dhtmlxq, pgn
from ..formats.record import GameRecord, Line, Origin
from ..notation import writer
from ..position import Position
from ..rules.board import Move
from ..rules.position import STARTING_FEN, is_standard_start

#: The formats :func:`export_games` writes, and whether each is one file (else a folder).
FORMATS: dict[str, bool] = {"pgn": True, "dhtmlxq": True, "parquet": False}
#: Games fetched from the database at a time.
BATCH = 2000
_WHERE_HINT = "--where takes SQL on the games table, e.g. \"year >= 2000 AND red = '胡荣华'\""


class ExportError(BadArgumentError, ValueError):
    """An export that cannot run: a bad format, notation or filter; ``hint`` says what to
    do instead."""


class ExportTargetError(CannotRunError):
    """The place to write to cannot take the export: a Parquet folder that is not empty.

    >>> isinstance(ExportTargetError("out: exists", "a new folder"), ExportError)
    False
    """


@dataclass
class ExportSummary:
    """What an export wrote."""

    path: str
    format: str
    games: int = 0
    invalid_skipped: int = 0
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        """Games written per second."""
        return self.games / self.seconds if self.seconds > 0 else 0.0

    def __str__(self) -> str:
        text = (f"wrote {self.games:,} game{'s' * (self.games != 1)} to {self.path} ({self.format}) in "
                f"{self.seconds:.1f} s, {self.rate:,.0f} games/s")
        if self.invalid_skipped:
            text += (f"; {self.invalid_skipped:,} invalid games skipped (their moves stop "
                     f"where the record failed)")
        return text


def written_moves(start_fen: str | None, codes: Sequence[int], notation: str) -> list[str]:
    """The moves ``codes`` (``moves.move``) from ``start_fen`` (``None``: the start),
    written in ``notation`` by replaying them."""
    write = writer(notation)
    position = Position(start_fen or STARTING_FEN)
    texts = []
    for code in codes:
        move = Move.from_code(code)
        texts.append(write(position, move))
        position.push(move)
    return texts


def _selection(where: str | None, game_ids: Sequence[int] | None) -> tuple[str, dict]:
    """The SQL condition on ``games`` selecting the games asked for, and its parameters."""
    conditions, params = [], {}
    if where:
        try:
            conditions.append(game_condition(where))
        except ConditionError as exc:
            raise ExportError(f"cannot select the games: {exc}", _WHERE_HINT) from None
    if game_ids:
        conditions.append("game_id IN (SELECT unnest($ids::BIGINT[]))")
        params["ids"] = list(game_ids)
    return " AND ".join(conditions) or "TRUE", params


def game_records(con: duckdb.DuckDBPyConnection, notation: str, where: str | None = None,
                 game_ids: Sequence[int] | None = None, counts: ExportSummary | None = None
                 ) -> Iterator[GameRecord]:
    """The valid games selected, in ``game_id`` order, as records whose moves (and
    variations) are written in ``notation``; ``counts.invalid_skipped`` counts the invalid
    games passed over."""
    writer(notation)  # fail before the query on a notation that cannot be written
    condition, params = _selection(where, game_ids)
    column = move_text_column(notation) or "move"
    sql = f"""
        WITH picked AS (SELECT game_id, tags, start_fen, result, status, variations
                        FROM games WHERE {condition}),
        texts AS (SELECT game_id, list({column} ORDER BY ply) AS moves FROM moves
                  WHERE game_id IN (SELECT game_id FROM picked) GROUP BY game_id)
        SELECT game_id, tags, start_fen, result, status, variations, moves
        FROM picked LEFT JOIN texts USING (game_id) ORDER BY game_id"""
    try:
        cursor = con.execute(sql, params)
    except duckdb.Error as exc:
        raise ExportError(f"cannot select the games: {str(exc).splitlines()[0]}",
                          _WHERE_HINT) from None
    # A second cursor reads the variations while the first is being fetched.
    side = con.cursor()
    while rows := cursor.fetchmany(BATCH):
        for game_id, tags, fen, result, status, variations, moves in rows:
            if status != "valid":
                if counts is not None:
                    counts.invalid_skipped += 1
                continue
            start = None if is_standard_start(fen) else fen
            codes = moves or []
            texts = codes if column != "move" else written_moves(start, codes, notation)
            record = GameRecord(Origin(f"game {game_id}"), "", tags=json.loads(tags or "{}"),
                                fen=start, notation=notation, result=result,
                                mainline=Line(moves=list(texts)))
            if variations:
                _add_variations(side, game_id, start, record.mainline, notation)
            yield record


def _add_variations(con: duckdb.DuckDBPyConnection, game_id: int, start: str | None,
                    main: Line, notation: str) -> None:
    """Hang the stored variations of game ``game_id`` below ``main``, written in
    ``notation`` (each replayed from the start along the lines it branches from)."""
    rows = con.execute(
        "SELECT variation, any_value(parent), any_value(branch_ply), list(move ORDER BY ply) "
        "FROM variation_moves WHERE game_id = ? GROUP BY variation ORDER BY variation",
        [game_id]).fetchall()
    main_codes = con.execute("SELECT list(move ORDER BY ply) FROM stored_moves WHERE game_id = ?",
                             [game_id]).fetchone()
    # Per line: (parent, game ply of its first move, its move codes, its Line).
    lines: dict[int, tuple[int, int, list[int], Line]] = {
        0: (-1, 1, list(main_codes[0] or []) if main_codes else [], main)}

    def path(number: int, plies: int) -> list[int]:
        """The codes of the first ``plies`` plies of the game along line ``number``."""
        segments = []
        while number != 0:
            parent, first, codes, _ = lines[number]
            segments.append(codes[:plies - first + 1])
            number, plies = parent, first - 1
        segments.append(lines[0][2][:plies])
        return [code for segment in reversed(segments) for code in segment]

    for number, parent, branch_ply, codes in rows:
        if parent not in lines:
            continue  # its parent line failed before it branched
        texts = written_moves(start, path(parent, branch_ply - 1) + codes, notation)
        line = Line(moves=texts[branch_ply - 1:])
        lines[number] = (parent, branch_ply, codes, line)
        parent_line = lines[parent]
        parent_line[3].variations.append((branch_ply - parent_line[1], line))


@contextmanager
def _output(path: str) -> Iterator[IO[str]]:
    """The file to write, which replaces ``path`` only once it is whole: an export that
    fails (a bad ``--where``, a full disk, a kill) leaves the file that was there."""
    if path == "-":
        yield sys.stdout
        return
    if os.path.exists(path) and not os.path.isfile(path):  # /dev/null, a FIFO: as it is
        with open(path, "w", encoding="utf-8", newline="\n") as direct:
            yield direct
        return
    folder = os.path.dirname(os.path.abspath(path))
    fd, partial = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".partial",
                                   dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            yield out
        os.chmod(partial, 0o666 & ~_umask())
        os.replace(partial, path)
    except BaseException:
        with suppress(OSError):
            os.remove(partial)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def export_games(con: duckdb.DuckDBPyConnection, out: str, format: str,
                 notation: str | None = None, where: str | None = None,
                 game_ids: Sequence[int] | None = None) -> ExportSummary:
    """Write the games selected by ``where`` (SQL on ``games``) and ``game_ids`` (both:
    every game) to ``out`` in ``format`` (see :data:`FORMATS`); PGN moves in ``notation``
    (default Chinese). ``out`` is a file (``-``: standard output), or for Parquet a folder
    that does not exist yet or is empty."""
    if format not in FORMATS:
        raise ExportError(f"cannot export as {format!r}", f"formats: {', '.join(FORMATS)}")
    if notation is not None and format != "pgn":
        raise ExportError(f"{format} has no choice of notation: "
                          + ("DhtmlXQ moves are 4 digits" if format == "dhtmlxq" else
                             "the moves files carry a column per stored notation"),
                          "leave out --notation (it applies to pgn)")
    summary = ExportSummary(out, format)
    started = time.perf_counter()
    if format == "parquet":
        summary.games = _write_parquet(con, Path(out), where, game_ids)
    else:
        write = pgn.write if format == "pgn" else dhtmlxq.write
        records = game_records(con, notation or ("chinese" if format == "pgn" else format),
                               where, game_ids, summary)
        with _output(out) as file:
            for record in records:
                if summary.games:
                    file.write("\n\n")
                file.write(write(record))
                summary.games += 1
            file.write("\n")
    summary.seconds = time.perf_counter() - started
    return summary


def _write_parquet(con: duckdb.DuckDBPyConnection, folder: Path, where: str | None,
                   game_ids: Sequence[int] | None) -> int:
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ExportTargetError(f"{folder}: exists and is not an empty folder",
                                "Parquet files are written to a new folder of their own")
    condition, params = _selection(where, game_ids)
    moves = ", ".join(f"m.{name}" for name in TABLES["moves"].names)
    # Parameters cannot be bound in COPY: the selection is kept in a temporary table.
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE export_selection AS SELECT game_id, year "
                    f"FROM games WHERE {condition}", params)
    except duckdb.Error as exc:
        raise ExportError(f"cannot select the games: {str(exc).splitlines()[0]}",
                          _WHERE_HINT) from None
    os.makedirs(folder, exist_ok=True)
    options = "(FORMAT PARQUET, PARTITION_BY (year), OVERWRITE_OR_IGNORE)"
    con.execute(f"COPY (SELECT g.* FROM games g SEMI JOIN export_selection USING (game_id)) "
                f"TO '{_quoted(folder / 'games')}' {options}")
    con.execute(f"COPY (SELECT {moves}, s.year FROM moves m JOIN export_selection s "
                f"USING (game_id) ORDER BY m.game_id, m.ply) "
                f"TO '{_quoted(folder / 'moves')}' {options}")
    row = con.execute("SELECT count(*) FROM export_selection").fetchone()
    con.execute("DROP TABLE export_selection")
    return int(row[0]) if row else 0


def _quoted(path: Path) -> str:
    return str(path).replace("'", "''")
