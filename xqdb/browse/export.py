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
from itertools import chain
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from ..errors import BadArgumentError, CannotRunError
from ..db.columns import move_text_column
from ..db.fetch import export_parquet, export_rows, game_moves, variation_lines
from ..db.schema import Connection
from ..db.selection import GameFilter, SelectionError, select_games
from ..formats import dhtmlxq, pgn
from ..formats.record import GameRecord, Line, Origin
from ..notation import writer
from ..position import Position
from ..rules.board import Move
from ..rules.position import STARTING_FEN, is_standard_start

#: The formats :func:`export_games` writes, and whether each is one file (else a folder).
FORMATS: dict[str, bool] = {"pgn": True, "dhtmlxq": True, "parquet": False}


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


def game_records(con: Connection, notation: str, games: GameFilter | None = None,
                 counts: ExportSummary | None = None) -> Iterator[GameRecord]:
    """The valid games ``games`` selects, in ``game_id`` order, as records whose moves (and
    variations) are written in ``notation``; ``counts.invalid_skipped`` counts the invalid
    games passed over."""
    writer(notation)  # fail before the query on a notation that cannot be written
    column = move_text_column(notation) or "move"
    try:
        batches = export_rows(con, games or GameFilter(), column)
        first = next(batches, [])
    except SelectionError as exc:
        raise ExportError(exc.message, exc.hint) from None
    # A second cursor reads the variations while the first is being fetched.
    side = con.cursor()
    for rows in chain([first], batches):
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


def _add_variations(con: Connection, game_id: int, start: str | None,
                    main: Line, notation: str) -> None:
    """Hang the stored variations of game ``game_id`` below ``main``, written in
    ``notation`` (each replayed from the start along the lines it branches from)."""
    rows = variation_lines(con, game_id)
    # Per line: (parent, game ply of its first move, its move codes, its Line).
    lines: dict[int, tuple[int, int, list[int], Line]] = {
        0: (-1, 1, game_moves(con, game_id), main)}

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


def export_games(con: Connection, out: str, format: str,
                 notation: str | None = None, where: str | None = None,
                 game_ids: Sequence[int] | None = None, games: GameFilter | None = None
                 ) -> ExportSummary:
    """Write the games ``games`` selects, narrowed by ``where`` (SQL on ``games``) and
    ``game_ids`` (by default every game) to ``out`` in ``format``
    (see :data:`FORMATS`); PGN moves in ``notation`` (default Chinese). ``out`` is a file
    (``-``: standard output), or for Parquet a folder that does not exist yet or is empty."""
    if format not in FORMATS:
        raise ExportError(f"cannot export as {format!r}", f"formats: {', '.join(FORMATS)}")
    if notation is not None and format != "pgn":
        raise ExportError(f"{format} has no choice of notation: "
                          + ("DhtmlXQ moves are 4 digits" if format == "dhtmlxq" else
                             "the moves files carry a column per stored notation"),
                          "leave out --notation (it applies to pgn)")
    games = games or GameFilter()
    if where is not None:
        games = replace(games, where=where)
    if game_ids:
        games = replace(games, game_ids=tuple(game_ids))
    summary = ExportSummary(out, format)
    started = time.perf_counter()
    if format == "parquet":
        summary.games = _write_parquet(con, Path(out), games)
    else:
        write = pgn.write if format == "pgn" else dhtmlxq.write
        records = game_records(con, notation or ("chinese" if format == "pgn" else format),
                               games, summary)
        with _output(out) as file:
            for record in records:
                if summary.games:
                    file.write("\n\n")
                file.write(write(record))
                summary.games += 1
            file.write("\n")
    summary.seconds = time.perf_counter() - started
    return summary


def _write_parquet(con: Connection, folder: Path, games: GameFilter) -> int:
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ExportTargetError(f"{folder}: exists and is not an empty folder",
                                "Parquet files are written to a new folder of their own")
    try:
        select_games(con, games, valid_only=False)
    except SelectionError as exc:
        raise ExportError(exc.message, exc.hint) from None
    os.makedirs(folder, exist_ok=True)
    return export_parquet(con, folder, games)
