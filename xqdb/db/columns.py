"""Every column of the database, once: name, DuckDB type, Arrow type, source and meaning.

The DDL (:mod:`xqdb.db.schema`), the Arrow staging schemas the workers fill
(:func:`stage_schemas`), the row builder (:mod:`xqdb.db.rows`) and the column
tables of ``docs/schema.md`` all follow from :data:`TABLES`; a test holds the page to it.
Adding a column is adding one :class:`Column` here (and its row in the page).

>>> [c.name for c in TABLES["games"].columns][:4]
['game_id', 'source_id', 'record_index', 'content_hash']
>>> column("games", "year").sql, arrow_type(column("games", "year").arrow)
('INTEGER', DataType(int32))
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from operator import attrgetter
from functools import cache
from typing import TYPE_CHECKING, Any

from ..errors import ErrorKind
from ..formats.tags import read_dating
from ..notation import REGISTRY
from ..notation.chinese import TRADITIONAL_GLYPHS
from ..notation.san import MATE, TELL_FILE, TELL_RANK
from ..notation.tables import WRITTEN_LETTERS
from ..openings.store import classify_game, stored_values
from ..replay import ReplayedGame
from ..rules.adjudication import END_SLACK, ENDING_NAMES, settling
from ..rules.board import (ADVISOR, BLACK, CANNON, CHARIOT, COLOR_NAMES, ELEPHANT, HORSE,
                           PAWN, PIECE_NAMES, RED, piece_symbol)
from .judgements import BLUNDERS_QUERY, JUDGEMENTS_QUERY, PLAYER_BLUNDERS_QUERY
from .dedupe import content_hash

if TYPE_CHECKING:
    import pyarrow as pa

#: Takes a column's value from a replayed game (run once per record, in the workers).
Take = Callable[[ReplayedGame], Any]


@dataclass(frozen=True)
class Column:
    """One column: what it is called, holds and means, and where its values come from."""

    name: str
    sql: str
    """DuckDB type, as ``docs/schema.md`` shows it (``VARCHAR``, ``UBIGINT``, ``VARCHAR[]``)."""
    doc: str
    """The meaning, one line: the ``meaning`` cell of ``docs/schema.md``."""
    arrow: str | None = None
    """Type of the column in the workers' staging tables, as :func:`arrow_type` names it
    (``int32``, ``list<string>``); ``None`` when the writer fills it (ids, timestamps) or,
    in a view, SQL computes it."""
    take: Take | None = None
    """How a worker takes the value from a replayed game; ``None`` for columns filled
    otherwise (the source's columns, ids, and moves' columns derived in Arrow)."""
    not_null: bool = False
    primary_key: bool = False
    compression: str | None = None
    """DuckDB compression to force, where the default is known to be a poor fit."""
    expr: str | None = None
    """For a view's column: the SQL computing it from the table below (default: the name)."""

    def ddl(self) -> str:
        """The column's line in ``CREATE TABLE``."""
        text = f'"{self.name}" {self.sql}'
        if self.primary_key:
            text += " PRIMARY KEY"
        if self.not_null:
            text += " NOT NULL"
        if self.compression:
            text += f" USING COMPRESSION {self.compression}"
        return text


@dataclass(frozen=True)
class Table:
    """A table, or a view over the table ``view_of`` or defined by the query ``query``,
    with its columns in order."""

    name: str
    columns: tuple[Column, ...]
    view_of: str | None = None
    query: str | None = None
    """A view's whole ``SELECT``, giving the columns in order, for a view that is more than
    expressions over one table."""

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def ddl(self) -> str:
        """``CREATE TABLE`` (or ``CREATE VIEW``) for this table, if it does not exist yet."""
        if self.query is not None:
            return f"CREATE VIEW IF NOT EXISTS {self.name} AS\n{self.query};"
        if self.view_of is not None:
            select = ",\n       ".join(c.name if c.expr is None else f"{c.expr} AS {c.name}"
                                       for c in self.columns)
            return f"CREATE VIEW IF NOT EXISTS {self.name} AS\nSELECT {select}\nFROM {self.view_of};"
        body = ",\n    ".join(c.ddl() for c in self.columns)
        return f"CREATE TABLE IF NOT EXISTS {self.name} (\n    {body}\n);"


# --- how values are taken from a replayed game ---------------------------------------------

_ELO = re.compile(r"\s*(\d{1,6})\s*")


def _tag(name: str) -> Take:
    """A tag's text, or NULL when it is absent or blank."""
    def take(game: ReplayedGame) -> str | None:
        value = game.record.tags.get(name)
        return value if value and not value.isspace() else None
    return take


def _first_tag(*names: str) -> Take:
    """The first of ``names``' tags that has a text (see :func:`_tag`)."""
    takes = [_tag(name) for name in names]

    def take(game: ReplayedGame) -> str | None:
        return next((value for t in takes if (value := t(game)) is not None), None)
    return take


def _elo(name: str) -> Take:
    tag = _tag(name)

    def take(game: ReplayedGame) -> int | None:
        match = _ELO.fullmatch(tag(game) or "")
        return int(match.group(1)) if match else None
    return take


def move_codes(game: ReplayedGame) -> list[int]:
    """The main line's moves as codes (:attr:`xqdb.rules.board.Move.code`)."""
    return list(map(_CODE, game.moves))


def _content_hash(game: ReplayedGame) -> int:
    return content_hash(game.start_fen, move_codes(game))


def _final_key(game: ReplayedGame) -> int | None:
    return game.keys[-1] if game.keys else (game.start_key or None)


def _raw(kind: type) -> Take:
    def take(game: ReplayedGame) -> Any:
        raw = game.record.raw
        return raw if isinstance(raw, kind) else None
    return take


def _per_game(compute: Callable[[ReplayedGame], Any]) -> Take:
    """``compute`` run once per game, however many columns take a part of its value: the
    row builder takes a game's columns one after the other."""
    last: list[Any] = [None, None]  # the game last seen (kept alive, so never an id reused)

    def take(game: ReplayedGame) -> Any:
        if last[0] is not game:
            last[0], last[1] = game, compute(game)
        return last[1]
    return take


#: ``(ecco, opening, variation, opening_names)`` of a game, classified once.
_opening = _per_game(lambda g: stored_values(classify_game(g)))
_CODE = attrgetter("code")
_date_raw = _tag("Date")
_dating = _per_game(lambda g: read_dating(_date_raw(g), _tag("Event")(g)))


# --- the columns ---------------------------------------------------------------------------


_GAME_ID = Column("game_id", "BIGINT", "1, 2, 3... in input order", not_null=True)
_SOURCE_ID = Column("source_id", "BIGINT", "the source it was read from (`sources.source_id`)",
                    not_null=True)
_RECORD_INDEX = Column("record_index", "INTEGER", "0-based index of the record in its source",
                       "int32", attrgetter("record.origin.index"), not_null=True)
_LINE = Column("line", "INTEGER", "1-based line of the record in its source (text formats)",
               "int32", attrgetter("record.origin.line"))
_OFFSET = Column("offset", "BIGINT", "byte offset of the record in its source",
                 "int64", attrgetter("record.origin.offset"))
_FORMAT = Column("format", "VARCHAR", "format of the record (`pgn`, `xqf`, `cbr`...)",
                 "string", attrgetter("record.format"))
_NOTATION = Column("notation", "VARCHAR", "notation of the record's move texts (`chinese`, "
                   "`wxf`, `iccs`, `uci`...)", "string", attrgetter("record.notation"))
_ENCODING = Column("encoding", "VARCHAR", "text encoding of the record (`gb18030`, `big5`, "
                   "`utf-8`...)", "string", attrgetter("record.encoding"))
_STATUS = Column("status", "VARCHAR", "`valid`, or `invalid` when the record could not be read "
                 "or a move failed", "string", attrgetter("status"), not_null=True)
_ERROR_KIND = Column("error_kind", "VARCHAR", "what kind of failure made it invalid: "
                     f"{', '.join(ErrorKind)} (`xqdb.errors.ErrorKind`)",
                     "string", attrgetter("error_kind"))
_TAGS = Column("tags", "JSON", "every tag as read, as one JSON object: `tags->>'ECCO'` gives a "
               "tag's text (NULL when absent)", "string",
               lambda g: json.dumps(g.record.tags, ensure_ascii=False))

#: Columns of ``games`` taken from the record or its replay, in table order.
GAME_COLUMNS: tuple[Column, ...] = (
    Column("content_hash", "UBIGINT", "64-bit hash of (start board and side to move, main-line "
           "moves): the duplicate key", "uint64", _content_hash),
    Column("event", "VARCHAR", "the `Event` tag", "string", _tag("Event")),
    Column("site", "VARCHAR", "the `Site` tag", "string", _tag("Site")),
    Column("round", "VARCHAR", "the `Round` tag", "string", _tag("Round")),
    Column("date", "DATE", "the `Date` tag, when it names a full date of a plausible year "
           "(see `year_note`)", "date32", lambda g: _dating(g).date),
    Column("year", "INTEGER", "the year the `Date` tag names, also when the month or day is "
           "missing (`1982`, `1997年`); NULL when that year is doubtful (before 1920 or after "
           "today) and no other tag names it, the event's year when the event's name does "
           "(`93全國象棋錦標賽`)", "int32", lambda g: _dating(g).year),
    Column("year_note", "VARCHAR", "why `year` is NULL or not the `Date` tag's own (`the Date "
           "tag's year 1193 is doubtful; 1993 is the event's`); NULL when it is",
           "string", lambda g: _dating(g).note),
    Column("date_raw", "VARCHAR", "the `Date` tag as written", "string", _date_raw),
    Column("red", "VARCHAR", "the `Red` tag: the player of Red (WinBoard, which has no `Red` "
           "tag, names Red in `White`)", "string", _first_tag("Red", "White")),
    Column("black", "VARCHAR", "the `Black` tag: the player of Black", "string", _tag("Black")),
    Column("red_team", "VARCHAR", "the `RedTeam` tag", "string", _tag("RedTeam")),
    Column("black_team", "VARCHAR", "the `BlackTeam` tag", "string", _tag("BlackTeam")),
    Column("red_elo", "INTEGER", "the `RedElo` tag, when it is a number", "int32",
           _elo("RedElo")),
    Column("black_elo", "INTEGER", "the `BlackElo` tag, when it is a number", "int32",
           _elo("BlackElo")),
    Column("result", "VARCHAR", "the recorded result: `1-0`, `0-1`, `1/2-1/2`, `*`, or NULL when "
           "the record has none", "string", attrgetter("record.result")),
    Column("rules_result", "VARCHAR", "the result the rules give for how the record ends (see "
           "`termination`): `1-0`, `0-1` or `1/2-1/2`; NULL when it ends otherwise",
           "string", attrgetter("rules_result")),
    Column("start_fen", "VARCHAR", "the start position", "string", attrgetter("start_fen")),
    Column("start_key", "UBIGINT", "Zobrist key of the start position", "uint64",
           lambda g: g.start_key or None),
    Column("plies", "INTEGER", "moves stored in `moves` (for an invalid game: the moves before "
           "the error)", "int32", attrgetter("plies"), not_null=True),
    _STATUS,
    Column("error", "VARCHAR", "why the record is invalid", "string", attrgetter("error")),
    _ERROR_KIND,
    Column("error_ply", "INTEGER", "1-based ply of the move that failed", "int32",
           attrgetter("error_ply")),
    Column("error_text", "VARCHAR", "the move text that failed", "string",
           attrgetter("error_text")),
    Column("termination", "VARCHAR", f"how the record ends under the rules: `checkmate` or "
           f"`stalemate` on its final position; `perpetual_check`, `perpetual_chase` or "
           f"`repetition` when such a cycle ends it or ends it within {END_SLACK} plies (ruled "
           f"or claimed); `move_limit` when it ends at or after the move limit; NULL when it "
           f"ends otherwise (resignation, agreement, time, unfinished) or is invalid. What the "
           f"rules said before is in `rule_events`", "string", attrgetter("termination")),
    Column("termination_reason", "VARCHAR", "why the rules end the record so, in words a "
           "player can check (`perpetual chase by Black: the chariot on d3 chases the "
           "unprotected horse on d2 with every move from ply 58 to ply 66`)", "string",
           lambda g: g.end.ending.reason if g.end is not None else None),
    Column("verdict_ply", "INTEGER", "the ply at which the rules give that verdict (the third "
           "occurrence of the position, the move reaching the limit, the mating move); NULL "
           "with `termination`", "int32",
           lambda g: g.end.verdict_ply if g.end is not None else None),
    Column("end_ply", "INTEGER", "the last ply of the episode that ends the record (the last "
           "move of its cycles; `plies` for mate and the move limit); `plies` less `end_ply` "
           "is what the record holds after it", "int32",
           lambda g: g.end.last_ply if g.end is not None else None),
    Column("ecco", "VARCHAR", "the ECCO code xqdb gives the opening (`C45`); NULL for an "
           "invalid game or one from a set-up position (the record's own tag: `tags->>'ECCO'`)",
           "string", lambda g: _opening(g)[0]),
    Column("opening", "VARCHAR", "the name of the opening of `ecco` (`中炮过河车对屏风马`)",
           "string", lambda g: _opening(g)[1]),
    Column("variation", "VARCHAR", "the name of the variation of `ecco`, NULL when the code has "
           "none", "string", lambda g: _opening(g)[2]),
    Column("opening_names", "VARCHAR[]", "the traditional opening names that apply (`中炮`, "
           "`屏风马`, `两头蛇`...); NULL when `ecco` is", "list<string>",
           lambda g: _opening(g)[3]),
    Column("final_fen", "VARCHAR", "position after the last stored move", "string",
           attrgetter("final_fen")),
    Column("final_key", "UBIGINT", "Zobrist key of `final_fen`", "uint64", _final_key),
    _FORMAT, _NOTATION, _ENCODING,
    Column("script", "VARCHAR", "`traditional` or `simplified`: the Chinese script the record is "
           "written in, when it shows (`moves.chinese_traditional` gives its moves as written)",
           "string", attrgetter("script")),
    Column("variations", "INTEGER", "variations in the record (all depths; their moves are in "
           "`variation_moves`)", "int32", attrgetter("variations")),
    Column("variation_errors", "VARCHAR[]", "one message per variation that does not replay",
           "list<string>", lambda g: g.variation_errors or None),
    _TAGS,
)

_TEXT = Column("text", "VARCHAR", "the record's text, for text formats", "string",
               _raw(str), compression="zstd")
_DATA = Column("data", "BLOB", "the record's bytes, for binary formats: the whole file for a "
               "one-record file (XQF, CBR, CBF), the record's own slot for a game of a CBL library",
               "binary", _raw(bytes), compression="zstd")

# Zobrist keys are random 64-bit numbers: nothing compresses them, so DuckDB is told not
# to spend the time trying.
_KEY_BEFORE = Column("key_before", "UBIGINT", "Zobrist key of the position before the move",
                     "uint64", compression="uncompressed")
_KEY_AFTER = Column("key_after", "UBIGINT", "Zobrist key of the position after the move",
                    "uint64", attrgetter("keys"), compression="uncompressed")
_MOVE = Column("move", "SMALLINT", "the move as one number: `from_square * 90 + to_square`, "
               "squares numbered `rank * 9 + file` from a0 = 0 to i9 = 89 (`h2e2` is 2272)",
               "int16", move_codes, not_null=True)
_CHINESE = Column("chinese", "VARCHAR", "the move in Chinese, simplified script (`炮二平五`)",
                  "string", attrgetter("chinese"))
_PLY = Column("ply", "SMALLINT", "1 for the first move of the game", "int16", not_null=True)
_WXF = Column("wxf", "VARCHAR", "the move in WXF notation (`C2.5`)", "string", attrgetter("wxf"))
_SAN_MARKS = Column("san_marks", "TINYINT", "what the move's `san` adds to what the other "
                    "columns tell: 1 names the origin's file, 2 its rank, 4 a mate (`#`); "
                    "0 nearly always", "int8", attrgetter("san_marks"), not_null=True)
_IS_CHECK = Column("is_check", "BOOLEAN", "the move gives check", "bool", attrgetter("checks"))

#: Columns of ``stored_moves`` (after ``game_id``). Those with a ``take`` are lists, one
#: item per ply; ``ply`` and ``key_before`` follow from them in Arrow.
MOVE_COLUMNS: tuple[Column, ...] = (
    _PLY, _MOVE, _WXF, _CHINESE, _SAN_MARKS,
    Column("piece", "TINYINT", "signed code of the piece moved", "int8", attrgetter("pieces"),
           not_null=True),
    Column("capture", "TINYINT", "signed code of the piece taken, 0 for none", "int8",
           attrgetter("captures"), not_null=True),
    _IS_CHECK, _KEY_BEFORE, _KEY_AFTER,
)


def _square_sql(square: str, files: str) -> str:
    """SQL naming the square ``square`` (0..89, rank * 9 + file): ``e2``, or ``E2`` with
    ``files = 'A'``."""
    return f"chr(ascii('{files}') + ({square}) % 9) || (({square}) // 9)"


#: FEN letters by signed piece code from -7 to 7 (" " for 0, no piece).
_LETTERS = "".join(piece_symbol(p) if p else " " for p in range(-7, 8))
# Whether a game began with Black to move follows from any one of its rows: the side of
# a ply is the sign of the piece moved, and the side of ply 1 alternates from there.
_BLACK_FIRST = "((piece < 0) <> (ply % 2 = 0))::INTEGER"

_FROM_FILE = "chr(ascii('a') + move // 90 % 9)"
# WinBoard writes a pawn without a letter: its index is past the end of the letters, where
# ``substr`` gives ''.
_SAN_LETTER = f"substr('{WRITTEN_LETTERS[:PAWN]}', abs(piece) + 1, 1)"
# An algebraic text is a letter, what tells the mover from a twin, the capture, the
# destination and the check or mate mark. Only the twin and the mate need a look at the
# position beyond the move, so they alone are stored (``san_marks``); a WinBoard pawn names
# its file when it captures or steps sideways, which the move tells.
_SAN_SQL = (
    f"{_SAN_LETTER}"
    f" || CASE WHEN san_marks & {TELL_FILE} <> 0 OR (abs(piece) = {PAWN}"
    f" AND (capture <> 0 OR move // 810 = move % 90 // 9)) THEN {_FROM_FILE} ELSE '' END"
    f" || CASE WHEN san_marks & {TELL_RANK} <> 0 THEN (move // 810)::VARCHAR ELSE '' END"
    f" || CASE WHEN capture <> 0 THEN 'x' ELSE '' END"
    f" || {_square_sql('move % 90', 'a')}"
    f" || CASE WHEN san_marks & {MATE} <> 0 THEN '#' WHEN is_check THEN '+' ELSE '' END")

# The coordinate texts follow from the move's code alone, the piece letters from the piece
# codes, and the side and move number from the piece's sign, so the ``moves`` view computes
# them when read instead of storing them: the texts would add half again to the cost of
# storing a move. (A view rather than generated columns: DuckDB computes those on every
# insert.)
_MOVES_VIEW: tuple[Column, ...] = (
    Column("game_id", "BIGINT", "the game (`games.game_id`)"),
    _PLY,
    Column("move_number", "INTEGER", "the move's number as a score sheet shows it: 1 for the "
           "first move of each side; a game that starts with Black to move has Black's move 1, "
           "then Red's move 2", expr=f"(ply + {_BLACK_FIRST} + 1) // 2"),
    Column("side", "VARCHAR", "`red` or `black`: who made the move",
           expr="CASE WHEN piece > 0 THEN 'red' ELSE 'black' END"),
    _MOVE,
    Column("uci", "VARCHAR", "the move in coordinates, ranks 0-9 (`h2e2`)",
           expr=f"{_square_sql('move // 90', 'a')} || {_square_sql('move % 90', 'a')}"),
    Column("iccs", "VARCHAR", "the move in ICCS (`H2-E2`)",
           expr=f"{_square_sql('move // 90', 'A')} || '-' || {_square_sql('move % 90', 'A')}"),
    _WXF, _CHINESE,
    Column("chinese_traditional", "VARCHAR", "the move in Chinese, traditional script "
           "(`馬八進七`): as a game whose `script` is `traditional` writes it",
           expr=f"translate(chinese, '{''.join(TRADITIONAL_GLYPHS)}', "
                f"'{''.join(TRADITIONAL_GLYPHS.values())}')"),
    Column("san", "VARCHAR", "the move in algebraic notation as WinBoard writes it: ranks 0-9, "
           "pawns without a letter (`Che2`, `Hxg7`, `g4`, `Rxd9#`)", expr=_SAN_SQL),
    Column("piece", "VARCHAR", "FEN letter of the piece moved; upper case is Red",
           expr=f"substr('{_LETTERS}', piece + 8, 1)"),
    Column("capture", "VARCHAR", "FEN letter of the piece taken, NULL for none",
           expr=f"nullif(substr('{_LETTERS}', capture + 8, 1), ' ')"),
    _IS_CHECK, _KEY_BEFORE, _KEY_AFTER,
)

#: Columns of ``variation_moves`` taken from a replay's ``variation_moves`` rows.
VARIATION_COLUMNS: tuple[Column, ...] = (
    Column("variation", "INTEGER", "1, 2, 3... within the game, in the order they are replayed",
           "int32", not_null=True),
    Column("parent", "INTEGER", "the variation it branches from, 0 for the main line",
           "int32", not_null=True),
    Column("branch_ply", "SMALLINT", "the ply of the parent line its first move replaces",
           "int16", not_null=True),
    _PLY, _MOVE, _CHINESE, _KEY_AFTER,
)

#: Columns of ``rule_events`` taken from a replay's episodes (see :func:`event_rows`).
EVENT_COLUMNS: tuple[Column, ...] = (
    Column("first_ply", "SMALLINT", "the episode's first ply: the first move of the repetition "
           "cycle, the first ply without capture of the stretch reaching the move limit, the "
           "mating move", "int16", not_null=True),
    Column("verdict_ply", "SMALLINT", "the ply at which the rules give their verdict (the "
           "position's third occurrence, the limit reached)", "int16", not_null=True),
    Column("last_ply", "SMALLINT", "its last ply: the last move of the cycles of the same "
           "verdict that follow on, the last ply before the next capture", "int16",
           not_null=True),
    Column("kind", "VARCHAR", f"what the rules saw: {', '.join(ENDING_NAMES)}", "string",
           not_null=True),
    Column("side", "VARCHAR", "`red` or `black`: the side at fault (perpetual check or chase by "
           "one side); NULL when neither is", "string"),
    Column("verdict", "VARCHAR", "the result the rules would give there: `1-0`, `0-1` or "
           "`1/2-1/2`", "string", not_null=True),
    Column("settles", "VARCHAR", "how that verdict stands: `forced` (no legal move: the game is "
           "over), `must_change` (the side at fault must vary, and loses only if it does not), "
           "`claimed` (a draw only when claimed or agreed)", "string", not_null=True),
    Column("reason", "VARCHAR", "the verdict in words, as `games.termination_reason`",
           "string", not_null=True),
    Column("played_on", "BOOLEAN", "true when the record goes on past it; false for the one "
           "episode that ends the record (`games.termination`)", "bool", not_null=True),
)


def event_rows(game: ReplayedGame) -> list[tuple[object, ...]]:
    """A replay's episodes as ``rule_events`` rows (the columns after ``game_id``)."""
    return [(e.first_ply, e.verdict_ply, e.last_ply, e.kind.value, e.side, e.ending.result,
             settling(e.kind), e.ending.reason, e.played_on) for e in game.episodes]


#: Columns of ``positions`` taken from a replayed position record (an EPD line).
POSITION_COLUMNS: tuple[Column, ...] = (
    _RECORD_INDEX, _LINE,
    Column("fen", "VARCHAR", "the position, NULL when the line is not a FEN", "string",
           lambda g: g.start_fen if g.is_valid else None),
    Column("key", "UBIGINT", "Zobrist key of the position", "uint64",
           lambda g: g.start_key or None),
    Column("name", "VARCHAR", "the name after the FEN (`; name`)", "string", _tag("Name")),
    _ENCODING,
    Column("error", "VARCHAR", "why the line is not a position", "string",
           attrgetter("error")),
    _TAGS, _TEXT,
)

#: What a worker stages per game record: where it was read, the game's columns and the
#: raw record.
RECORD_COLUMNS: tuple[Column, ...] = (_RECORD_INDEX, _LINE, _OFFSET, *GAME_COLUMNS, _TEXT, _DATA)

_SOURCES = (
    Column("source_id", "BIGINT", "1, 2, 3... in input order", not_null=True),
    Column("path", "VARCHAR", "the file as given (`-` for standard input)", "string",
           not_null=True),
    Column("member", "VARCHAR", "member name inside a `.zip`/`.tar` archive, else NULL",
           "string"),
    Column("sha256", "VARCHAR", "hash of the bytes; a source stored under the same resolved "
           "path and member with the same hash is skipped on re-import, one with another hash "
           "(a file edited in place) has its rows replaced", "string", not_null=True),
    Column("bytes", "BIGINT", "size (expanded size for a member)", "int64", not_null=True),
    Column("format", "VARCHAR", "as sniffed by the reader (`pgn`, `xqf`, `cbr`, `epd`...)",
           "string"),
    Column("encoding", "VARCHAR", "as detected (`gb18030`, `big5`, `utf-8`...)", "string"),
    Column("records", "INTEGER", "records the reader yielded (games and positions)", "int32",
           not_null=True),
    Column("error", "VARCHAR", "set when reading stopped early; the records read before are kept",
           "string"),
    Column("real_path", "VARCHAR", "the file's resolved absolute path (links and `..` followed; "
           "`-` for standard input): a re-import recognises the source by it", "string"),
    Column("path_bytes", "BLOB", "the bytes of the file name when they are not UTF-8 (`path` "
           "then shows them decoded as GB18030, or with U+FFFD where that fails), else NULL",
           "binary"),
    Column("member_bytes", "BLOB", "the bytes of the member name when they are not UTF-8, "
           "like `path_bytes`", "binary"),
    Column("member_index", "INTEGER", "for an archive holding several members of one name: "
           "1, 2... for the earlier ones, in the archive's order, and NULL for the last (the one "
           "extracting the archive keeps), as for every other source", "int32"),
    Column("imported_at", "TIMESTAMP", "when the source was committed (the only wall-clock "
           "column)"),
)

#: Columns of ``source_ranges``: the byte ranges of big sources stored so far, each in a
#: transaction of its own, so that an import killed in the middle of one resumes at the
#: next range.
_SOURCE_RANGES = (
    Column("source_id", "BIGINT", "the source (`sources.source_id`)", not_null=True),
    Column("range", "INTEGER", "0, 1, 2... in the order of the bytes", not_null=True),
    Column("start", "BIGINT", "offset of the range's first byte (a record's start)",
           not_null=True),
    Column("stop", "BIGINT", "offset one past its last byte", not_null=True),
    Column("line", "INTEGER", "1-based line of its first byte", not_null=True),
    Column("first_record", "INTEGER", "0-based number, in the whole source, of its first "
           "record (`game_records.record_index`)", not_null=True),
    Column("records", "INTEGER", "records read from it", not_null=True),
    Column("sha256", "VARCHAR", "hash of its bytes: a resumed import goes on after the ranges "
           "whose bytes are unchanged", not_null=True),
    Column("error", "VARCHAR", "why reading it stopped early (the source's `error` once its "
           "last range is stored), else NULL"),
)

_IS_PRIMARY = Column("is_primary", "BOOLEAN", "true for the record the game row was made from",
                     not_null=True)
_RECORD_GAME = Column("game_id", "BIGINT", "the game this record is (its own, or the one kept "
                      "before)", not_null=True)

_PLAYER_ID = Column("player_id", "BIGINT", "the player (`players.player_id`)", not_null=True)

#: Columns of ``games`` filled after the rows are stored, over the whole database.
_GAME_LINKS: tuple[Column, ...] = (
    Column("red_player_id", "BIGINT", "the player of Red (`players.player_id`): the `red` tag "
           "under its canonical name; NULL without a `red` tag"),
    Column("black_player_id", "BIGINT", "the player of Black (`players.player_id`), as "
           "`red_player_id`"),
)

_PLAYERS = (
    Column("player_id", "BIGINT", "1, 2, 3... in the order players first appear",
           primary_key=True),
    Column("name", "VARCHAR", "the canonical name (see `xqdb players`); a consultation pair is "
           "its members joined with `+`", not_null=True),
    Column("is_pair", "BOOLEAN", "true for a consultation pair", not_null=True),
)

_PLAYER_NAMES = (
    Column("spelling", "VARCHAR", "a `Red` or `Black` tag as written", primary_key=True),
    _PLAYER_ID,
    Column("decided_by", "VARCHAR", "`rules`, or `alias` when set by `xqdb players alias` "
           "(kept when the rules run again)", not_null=True),
)

#: Columns of ``evals``: one row per searched position (see :mod:`xqdb.db.evals`).
EVAL_COLUMNS: tuple[Column, ...] = (
    Column("key", "UBIGINT", "Zobrist key of the position (as `moves.key_before` and "
           "`moves.key_after`)", "uint64", not_null=True, compression="uncompressed"),
    Column("side", "VARCHAR", "`red` or `black`: the side to move", "string", not_null=True),
    Column("engine", "VARCHAR", "the engine, as its name, protocol and options "
           "(`Fairy-Stockfish 11.1 LB 64 (uci-variant)`)", "string", not_null=True),
    Column("search_limit", "VARCHAR", "the limit of the search (`nodes=20000`, `depth=12`, "
           "`time=0.5`)", "string", not_null=True),
    Column("game_id", "BIGINT", "NULL when the evaluation is shared by every game reaching "
           "the position; set when it was searched with that game's moves (because of a "
           "repetition, or by the engine playing it: an engine comment of the record), and "
           "then that game's alone", "int64"),
    Column("ply", "SMALLINT", "with `game_id`: the plies played before the position",
           "int16"),
    Column("score_cp", "INTEGER", "centipawns, from the side to move's point of view; NULL "
           "with a mate", "int32"),
    Column("mate", "INTEGER", "moves to mate from the side to move's point of view: positive "
           "when it mates, negative when it is mated", "int32"),
    Column("wdl_win", "SMALLINT", "the side to move's wins per thousand, NULL when the engine "
           "gives no WDL", "int16"),
    Column("wdl_draw", "SMALLINT", "draws per thousand, as `wdl_win`", "int16"),
    Column("wdl_loss", "SMALLINT", "losses per thousand, as `wdl_win`", "int16"),
    Column("best_move", "VARCHAR", "the engine's best move in coordinates, ranks 0-9 (`h2e2`)",
           "string"),
    Column("pv", "VARCHAR", "the principal variation, moves as `best_move` separated by spaces",
           "string"),
    Column("depth", "INTEGER", "depth reached", "int32"),
    Column("nodes", "BIGINT", "nodes searched", "int64"),
    Column("status", "VARCHAR", "`ok`; `suspect` when the engine's score is past any "
           "evaluation (over 20,000 cp, not a mate) or contradicts its own principal "
           "variation (never graded); or `failed` when the engine failed twice on the "
           "position (the next `xqdb analyze` tries it again, and a suspect one)", "string",
           not_null=True),
    Column("error", "VARCHAR", "why it failed, or why it is suspect", "string"),
    Column("origin", "VARCHAR", "`search` for a search by `xqdb analyze`, `comment` for an "
           "engine comment carried by the record", "string", not_null=True),
    Column("spread_low_cp", "INTEGER", "the lowest score of the search's last three depths, "
           "as `score_cp` (a mate as 100,000 less the moves to it, negative when mated): "
           "with `spread_high_cp`, how far the search was from settling; NULL when the "
           "engine did not say", "int32"),
    Column("spread_high_cp", "INTEGER", "the highest, as `spread_low_cp`", "int32"),
)

_WIN_CURVES = (
    Column("engine", "VARCHAR", "the start of the engine identities it applies to (`evals.engine`;"
           " the longest match wins, `''` matches any engine)", primary_key=True),
    Column("cp_offset", "DOUBLE", "the engine's tempo: the centipawns its scores give the side "
           "to move for having the move, taken off every score", not_null=True),
    Column("cp_scale", "DOUBLE", "centipawns per step of the logistic curve at the start: the "
           "side to move's expected score = 1 / (1 + exp(-((cp - cp_offset) / scale + sign * "
           "cp_red_edge / cp_scale))), `sign` +1 with Red to move and -1 with Black",
           not_null=True),
    Column("cp_late_scale", "DOUBLE", "the scale from ply 100 on (the inverse of the scale moves "
           "in a straight line from `cp_scale` at ply 0); NULL: `cp_scale` throughout"),
    Column("cp_red_edge", "DOUBLE", "Red's edge for moving first, in centipawns of `cp_scale`: "
           "what Red scores beyond the engine's scores, whichever side is to move; NULL: none"),
    Column("positions", "INTEGER", "positions of games with known results it was fitted on; NULL "
           "for a shipped default"),
    Column("log_loss", "DOUBLE", "its mean log loss on those positions (a constant 50 % scores "
           "0.693)"),
    Column("fitted_on", "VARCHAR", "what it was fitted on, in words"),
    Column("fitted_at", "TIMESTAMP", "when it was fitted (for a shipped curve, when it was "
           "fitted for this version of xqdb)"),
)

_THRESHOLDS = (
    Column("class", "VARCHAR", "`inaccuracy`, `mistake` or `blunder`", primary_key=True),
    Column("min_loss", "DOUBLE", "least drop in the mover's expected score (0..1) for the class",
           not_null=True),
)

_ANALYSED_GAMES = (
    Column("game_id", "BIGINT", "the game (`games.game_id`)", not_null=True),
    Column("engine", "VARCHAR", "the engine of the pass (`evals.engine`)", not_null=True),
    Column("search_limit", "VARCHAR", "the limit of the pass (`evals.search_limit`)",
           not_null=True),
    Column("positions", "INTEGER", "positions of the game the pass covered"),
    Column("analysed_at", "TIMESTAMP", "when the pass covered it"),
)

_J_GAME = Column("game_id", "BIGINT", "the game (`games.game_id`)")
_J_PLY = Column("ply", "SMALLINT", "1-based ply of the move")
_J_SIDE = Column("side", "VARCHAR", "`red` or `black`: who moved")
_J_MOVE = Column("move", "VARCHAR", "the move played (`moves.uci`)")
_J_BEST = Column("best_move", "VARCHAR", "the engine's move in the position before")
_J_LOSS = Column("loss", "DOUBLE", "the mover's expected score before the move less after it "
                 "(0..1, never below 0)")
_J_CLASS = Column("class", "VARCHAR", "`allowed_mate`, `missed_mate`, `blunder`, `mistake`, "
                  "`inaccuracy`, or NULL for a good move")
_J_ENGINE = Column("engine", "VARCHAR", "the engine of both evaluations (`evals.engine`)")
_J_LIMIT = Column("search_limit", "VARCHAR", "their search limit (`evals.search_limit`)")
_J_BEFORE = Column("expected_before", "DOUBLE", "the mover's expected score before the move "
                   "(0 lost .. 1 won)")
_J_AFTER = Column("expected_after", "DOUBLE", "the mover's expected score after the move")

_JUDGEMENTS = (
    _J_GAME, _J_PLY, _J_SIDE, _J_MOVE, _J_BEST, _J_LOSS, _J_CLASS, _J_ENGINE, _J_LIMIT,
    _J_BEFORE, _J_AFTER,
    Column("accuracy", "DOUBLE", "lichess's accuracy of the move, 0..100"),
    Column("repeats", "BOOLEAN", "the move returns to a position met since the last capture "
           "(never classed)"),
    Column("mate_before", "INTEGER", "the forced mate before the move, for the mover (> 0: "
           "the mover mates)"),
    Column("mate_after", "INTEGER", "the forced mate after the move, for the opponent (> 0: "
           "the opponent mates)"),
    Column("cp_before", "INTEGER", "centipawns before the move, for the mover"),
    Column("cp_after", "INTEGER", "centipawns after the move, for the opponent"),
    Column("bound", "INTEGER", "how many of the two evaluations were searched with the "
           "game's history (0..2)"),
    Column("nodes", "BIGINT", "nodes of both searches"),
    Column("depth", "BIGINT", "depths of both searches, added"),
)

_PLAYER_BLUNDERS = (
    Column("player", "VARCHAR", "the player's canonical name (`players.name`)"),
    Column("player_id", "BIGINT", "the player (`players.player_id`); NULL for games without the "
           "tag"),
    _J_ENGINE,
    Column("games", "BIGINT", "analysed games of the player (with a judged move)"),
    Column("moves", "BIGINT", "the player's judged moves"),
    Column("coverage", "DOUBLE", "`moves` over the player's moves in those games (1: every "
           "move judged)"),
    Column("avg_loss", "DOUBLE", "average `loss` per move"),
    Column("inaccuracies", "BIGINT", "moves classed `inaccuracy`"),
    Column("mistakes", "BIGINT", "moves classed `mistake`"),
    Column("blunders", "BIGINT", "moves classed `blunder`"),
    Column("mate_errors", "BIGINT", "moves classed `allowed_mate` or `missed_mate`"),
    Column("blunders_per_100", "DOUBLE", "`blunders` per 100 judged moves"),
    Column("serious", "BIGINT", "serious errors: moves classed `blunder`, `allowed_mate` or "
           "`missed_mate`"),
    Column("accuracy", "DOUBLE", "lichess's game accuracy (0..100), averaged over the games"),
)

#: Columns of ``position_keys``: every position of every game, sorted by key (see
#: :mod:`xqdb.db.lookups`).
POSITION_KEY_COLUMNS: tuple[Column, ...] = (
    Column("key", "UBIGINT", "Zobrist key of the position (`games.start_key` at ply 0, then "
           "`moves.key_after`)", not_null=True),
    Column("game_id", "BIGINT", "the game that reached it (`games.game_id`)", not_null=True),
    Column("ply", "SMALLINT", "the plies played before it: 0 for the start position",
           not_null=True),
    Column("move", "SMALLINT", "the move the game played from it (`moves.move` of the next "
           "ply); NULL at the game's end"),
    Column("piece", "TINYINT", "signed code of the piece that move moved (positive: Red "
           "moved); NULL at the game's end"),
)

#: Columns of ``material_spans``: each game's material, one row per stretch between
#: captures, sorted by signature (see :mod:`xqdb.db.lookups`).
MATERIAL_SPAN_COLUMNS: tuple[Column, ...] = (
    Column("signature", "BIGINT", "the material as one number: five bits per piece count "
           "(`material_signatures` spells it out)", not_null=True),
    Column("game_id", "BIGINT", "the game (`games.game_id`)", not_null=True),
    Column("ply", "SMALLINT", "the ply the material began: 0 for the start, else the ply of "
           "a capture", not_null=True),
    Column("until", "SMALLINT", "the ply of the next capture, or one past the game's last "
           "ply", not_null=True),
    Column("next_signature", "BIGINT", "the signature of the game's next stretch (the one "
           "beginning at `until`); NULL for its last"),
    Column("next_until", "SMALLINT", "the `until` of that next stretch; NULL for the last"),
)

#: Columns of ``tree_keys``: the positions whose moves ``tree_moves`` holds counted (see
#: :mod:`xqdb.db.tree_counts`).
TREE_KEY_COLUMNS: tuple[Column, ...] = (
    Column("key", "UBIGINT", "Zobrist key of a position reached by many games "
           "(`position_keys.key`)", not_null=True),
    Column("mirror_key", "UBIGINT", "the key of its left-right mirror image", not_null=True),
    Column("positions", "BIGINT", "its rows in `position_keys` when counted", not_null=True),
)

#: Columns of ``tree_moves``: per position of ``tree_keys`` and move, what the opening
#: tree shows of the valid games, sorted by key (see :mod:`xqdb.db.tree_counts`).
TREE_MOVE_COLUMNS: tuple[Column, ...] = (
    Column("key", "UBIGINT", "the position (`tree_keys.key`)", not_null=True),
    Column("merged", "BOOLEAN", "whether the moves from its mirror image are counted in "
           "(`tree --mirror`)", not_null=True),
    Column("move", "SMALLINT", "the move (`moves.move`, in the position of `key`)",
           not_null=True),
    Column("games", "BIGINT", "valid games that played it there", not_null=True),
    Column("red_wins", "BIGINT", "those Red won", not_null=True),
    Column("draws", "BIGINT", "those drawn", not_null=True),
    Column("black_wins", "BIGINT", "those Black won", not_null=True),
    Column("year_sum", "BIGINT", "the sum of their years (`games.year`)"),
    Column("years", "BIGINT", "those with a year", not_null=True),
    Column("players", "BIGINT", "distinct players who made the move (`players.player_id`)",
           not_null=True),
    Column("latest", "VARCHAR[]", "the latest of them (by year, then id, descending; at "
           "most ten) as the tree lists them: `id red-black year result`", not_null=True),
)

#: The first moves of each game ``opening_moves`` holds (see :mod:`xqdb.db.lookups`).
LINE_PLIES = 16

#: The piece counts a material signature holds, in the order of its bits (see
#: :mod:`xqdb.db.lookups`).
MATERIAL_COUNTS = tuple(f"{COLOR_NAMES[side]}_{PIECE_NAMES[kind]}" for side in (RED, BLACK)
                        for kind in (CHARIOT, HORSE, ELEPHANT, ADVISOR, CANNON, PAWN))

#: Every table and view, in the order they are created.
TABLES: dict[str, Table] = {t.name: t for t in (
    Table("meta", (Column("key", "VARCHAR", "`schema_version`; `lookups_through` (the last game "
                          "id the lookup tables cover), `lookups_runs` (the sorted runs "
                          "they hold), `lookups_sorted` (the last game id of their first "
                          "run, sorted whole), `tree_through` (the last game id `tree_moves` "
                          "counts), `tree_games` (a digest of the games it counted), "
                          "`tree_threshold` (the positions it counts: those of as many rows "
                          "of `position_keys` or more), `tree_appended` (the rows "
                          "appended to `tree_moves` since it was sorted whole), "
                          "`players_through` (the last game id linked to its players) and "
                          "`players_stale_aliases` (corrections whose spelling no game had "
                          "when every game was last read)",
                          primary_key=True),
                   Column("value", "VARCHAR", "its value")),),
    Table("sources", _SOURCES),
    Table("source_ranges", _SOURCE_RANGES),
    Table("games", (_GAME_ID, _SOURCE_ID, _RECORD_INDEX, *GAME_COLUMNS, *_GAME_LINKS)),
    Table("game_records", (_RECORD_GAME, _SOURCE_ID, _RECORD_INDEX, _IS_PRIMARY, _LINE, _OFFSET,
                           _FORMAT, _NOTATION, _ENCODING, _STATUS, _ERROR_KIND, _TAGS)),
    Table("stored_moves", (_GAME_ID, *MOVE_COLUMNS)),
    Table("moves", _MOVES_VIEW, view_of="stored_moves"),
    Table("variation_moves", (_GAME_ID, *VARIATION_COLUMNS)),
    Table("rule_events", (_GAME_ID, *EVENT_COLUMNS)),
    Table("raw_records", (_RECORD_GAME, _SOURCE_ID, _RECORD_INDEX, _TEXT, _DATA)),
    Table("positions", (_SOURCE_ID, *POSITION_COLUMNS)),
    Table("position_keys", POSITION_KEY_COLUMNS),
    Table("material_spans", MATERIAL_SPAN_COLUMNS),
    Table("opening_moves", (
        Column("game_id", "BIGINT", "the game (`games.game_id`)", not_null=True),
        Column("moves", "SMALLINT[]", f"its first moves (`moves.move`, plies 1 to "
               f"{LINE_PLIES} or to its end), in order", not_null=True))),
    Table("material_signatures", (
        Column("signature", "BIGINT", "a signature of `material_spans`", primary_key=True),
        *(Column(name, "TINYINT", f"how many {name.replace('_', ' ')}s it counts "
                 "(bits 5i to 5i+4, i its place in this list)", not_null=True)
          for name in MATERIAL_COUNTS),
        Column("spans", "BIGINT", "rows of `material_spans` with it", not_null=True))),
    Table("tree_keys", TREE_KEY_COLUMNS),
    Table("tree_moves", TREE_MOVE_COLUMNS),
    Table("players", _PLAYERS),
    Table("player_names", _PLAYER_NAMES),
    Table("evals", EVAL_COLUMNS),
    Table("win_curves", _WIN_CURVES),
    Table("judgement_thresholds", _THRESHOLDS),
    Table("analysed_games", _ANALYSED_GAMES),
    Table("judgements", _JUDGEMENTS, query=JUDGEMENTS_QUERY),
    Table("blunders", _JUDGEMENTS[:11], query=BLUNDERS_QUERY),
    Table("player_blunders", _PLAYER_BLUNDERS, query=PLAYER_BLUNDERS_QUERY),
)}

#: Staging columns of a source or record: its work unit (in input order) and its place
#: there; rows of moves point at their record by its place in the unit's records table.
_KEY = (("unit", "int64"), ("seq", "int32"))
_ROW = (("row", "int32"),)


def arrow_type(name: str) -> pa.DataType:
    """The Arrow type ``name`` stands for: a pyarrow type's name (``int32``, ``string``,
    ``bool``) or ``list<NAME>``. pyarrow loads on the first call, not with this module:
    the commands that only read the database never need it.

    >>> arrow_type("list<string>")
    ListType(list<item: string>)
    """
    import pyarrow as pa

    if name.startswith("list<") and name.endswith(">"):
        return pa.list_(arrow_type(name[5:-1]))
    factory = getattr(pa, "bool_" if name == "bool" else name)
    return factory()


def arrow_schema(columns: Iterable[Column], key: tuple[tuple[str, str], ...] = (),
                 *extra: tuple[str, str]) -> pa.Schema:
    """The Arrow schema of those of ``columns`` that have an Arrow type, after the
    (name, type) pairs ``key`` and before ``extra``.

    >>> arrow_schema(EVAL_COLUMNS[:2], (("row", "int32"),)).names
    ['row', 'key', 'side']
    """
    import pyarrow as pa

    named = [*key, *((c.name, c.arrow) for c in columns if c.arrow is not None), *extra]
    return pa.schema([pa.field(name, arrow_type(kind)) for name, kind in named])


@cache
def stage_schemas() -> dict[str, pa.Schema]:
    """The workers' staging schemas, by stage."""
    return {
        "sources": arrow_schema(_SOURCES, _KEY),
        # ``linked``: a repeat of an earlier record, staged without its game's columns and
        # moves (see xqdb.pipeline.repeats); the writer links it to that record's game.
        "records": arrow_schema(RECORD_COLUMNS, _KEY, ("linked", "bool")),
        "moves": arrow_schema(MOVE_COLUMNS, _ROW),
        "variation_moves": arrow_schema(VARIATION_COLUMNS, _ROW),
        "rule_events": arrow_schema(EVENT_COLUMNS, _ROW),
        "positions": arrow_schema(POSITION_COLUMNS, _KEY),
        # Evaluations a record carries (its engine comments); the writer gives their game.
        "evals": arrow_schema([c for c in EVAL_COLUMNS if c.name != "game_id"], _ROW),
    }


def takes(columns: tuple[Column, ...]) -> tuple[Take, ...]:
    """How each of ``columns`` is taken from a replayed game, in order: what a row tuple of
    their staging table holds after its key."""
    missing = [c.name for c in columns if c.take is None]
    if missing:
        raise ValueError(f"no way to take {', '.join(missing)} from a replayed game")
    return tuple(c.take for c in columns if c.take is not None)


def column(table: str, name: str) -> Column:
    """The column ``name`` of ``table``."""
    return next(c for c in TABLES[table].columns if c.name == name)


def move_text_column(notation: str) -> str | None:
    """The column of ``moves`` that holds the moves written in ``notation`` (a name of the
    notation registry), or ``None`` when the database does not store that notation.

    >>> move_text_column("chinese-traditional"), move_text_column("san"), move_text_column("san-fsf")
    ('chinese_traditional', 'san', None)
    """
    name = notation.replace("-", "_")
    return name if notation in REGISTRY and name in TABLES["moves"].names else None


def ddl() -> str:
    """The SQL creating every missing table and view."""
    return "\n".join(t.ddl() for t in TABLES.values())
