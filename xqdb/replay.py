"""Replay a :class:`GameRecord` through the rules: the unit of work a worker runs.

The result is columnar (one list per move attribute) because that is how the moves are
stored: as Arrow columns.

>>> from xqdb.formats.record import GameRecord, Origin
>>> rec = GameRecord(origin=Origin("x.pgn"), format="pgn", notation="uci")
>>> rec.moves.extend(["h2e2", "h9g7", "h0g2"])
>>> game = replay(rec)
>>> game.status, game.plies, game.iccs[0], game.san_marks
(<Status.VALID: 'valid'>, 3, 'H2-E2', [1, 0, 0])
>>> rec.moves.append("h2h9")
>>> game = replay(rec)
>>> game.error_kind, game.error_ply, game.error_text
(<ErrorKind.ILLEGAL_MOVE: 'illegal_move'>, 4, 'h2h9')
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import lru_cache

from .errors import ErrorKind, FenError, IllegalMoveError, MoveError, UnknownNotationError
from .formats.record import (KEPT_RECORD_BYTES, MAX_RECORD_BYTES, MAX_VARIATION_DEPTH,
                             GameRecord, Line, too_large_message)
from .notation import REGISTRY, read_move, reader_for
from .notation.chinese import script_of, write_lone_wxf_and_chinese, write_wxf_and_chinese
from .notation.registry import DialectError, settle_by_replay
from .notation.san import MATE, check_mark, write_san
from .notation.coordinates import write_iccs
from .position import Position
from .rules.board import Move, Piece
from .rules.adjudication import DEFAULT_MOVE_LIMIT, Ending, Episode, episodes, record_end
from .rules.outcome import Termination
from .rules.position import STARTING_FEN


class Status(StrEnum):
    """Whether a record replayed to the end (``games.status``)."""

    VALID = "valid"
    INVALID = "invalid"
    """The record could not be read, or a move of its main line failed."""



#: Characters of a quoted input kept in a message; a longer input is cut, never the
#: explanation around it (a record can hold megabytes where a move was due).
QUOTE_LIMIT = 100


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, and ``…`` when it was longer.

    >>> shorten("h2e2"), shorten("Q" * 500, limit=5)
    ('h2e2', 'QQQQQ…')
    """
    return text if len(text) <= limit else text[:limit] + "…"


def quote(text: str) -> str:
    """``text`` quoted for a message, shortened by :func:`shorten`."""
    return repr(shorten(text))


def _quoting_short(message: str, text: str) -> str:
    """``message`` with its quotation of the input ``text`` shortened by :func:`quote`."""
    return message.replace(repr(text), quote(text)) if len(text) > QUOTE_LIMIT else message


@lru_cache(maxsize=4096)
def _start_position(fen: str) -> Position:
    """The position of ``fen``, parsed once: most records share a handful of start FENs.
    Callers must copy it before playing on it."""
    return Position.from_fen(fen)


@lru_cache(maxsize=4096)
def _normalized_fen(fen: str) -> str:
    return _start_position(fen).fen()


#: A move of a variation: ``(variation, parent, branch_ply, ply, move code, Chinese text,
#: key after)``; see ``variation_moves`` in ``docs/schema.md``.
VariationMove = tuple[int, int, int, int, int, str, int]


@dataclass(slots=True)
class ReplayedGame:
    """A record after replay: validated moves in every notation, keys and the verdict."""

    record: GameRecord
    start_fen: str
    start_key: int = 0
    moves: list[Move] = field(default_factory=list)
    """The validated moves of the main line (see :attr:`uci` and :attr:`iccs` for texts)."""
    wxf: list[str] = field(default_factory=list)
    chinese: list[str] = field(default_factory=list)
    san_marks: list[int] = field(default_factory=list)
    """Per ply, what the move's algebraic text (WinBoard dialect: ``Che2``, ``Cbc2``,
    ``Rxd9#``) adds to what the move, the pieces and the check tell: bits
    :data:`~xqdb.notation.san.TELL_FILE`, :data:`~xqdb.notation.san.TELL_RANK` and
    :data:`~xqdb.notation.san.MATE`; 0 nearly always."""
    pieces: list[Piece] = field(default_factory=list)
    """Signed code of the piece that moved, per ply (see :mod:`xqdb.rules.board`)."""
    captures: list[Piece] = field(default_factory=list)
    """Signed code of the piece captured, per ply (0 for none)."""
    checks: list[bool] = field(default_factory=list)
    keys: list[int] = field(default_factory=list)
    """Zobrist key after each ply (the key before ply ``i`` is ``keys[i-1]`` or ``start_key``)."""
    loose: list[int] = field(default_factory=list)
    """0-based plies whose text fit several pieces but only one legal move."""
    final_fen: str | None = None
    status: Status = Status.VALID
    error: str | None = None
    """Why the record is invalid, in words a user can check against the record."""
    error_kind: ErrorKind | None = None
    """What kind of failure :attr:`error` describes (the value stored in ``games.error_kind``)."""
    error_ply: int | None = None
    """1-based ply of the move that failed (``None`` when the record itself failed)."""
    error_text: str | None = None
    """The move text that failed."""
    ending: Ending | None = None
    """The first ending the rules meet (see :mod:`xqdb.rules.adjudication`), even when the
    record goes on after it: :attr:`end` is how the record ends."""
    episodes: list[Episode] = field(default_factory=list)
    """Everything the rules said over the game, in order (``rule_events``)."""
    variations: int = 0
    """How many variations the record holds (all depths)."""
    variation_errors: list[str] = field(default_factory=list)
    """One message per variation that fails, naming its branch point, ply and reason."""
    variation_moves: list[VariationMove] = field(default_factory=list)
    """The moves of every variation, up to its first failing move (see
    :func:`replay_variations`)."""

    @property
    def end(self) -> Episode | None:
        """The episode that ends the record (:func:`~xqdb.rules.adjudication.record_end`);
        ``None`` when it ends otherwise: resignation, agreement, time, unfinished."""
        return record_end(self.episodes)

    @property
    def termination(self) -> Termination | None:
        """How the record ends under the rules: ``checkmate``, ``perpetual_check``..."""
        end = self.end
        return end.kind if end is not None else None

    @property
    def rules_result(self) -> str | None:
        """The result the rules give for how the record ends (``1-0``, ``0-1``, ``1/2-1/2``)."""
        end = self.end
        return end.ending.result if end is not None else None

    @property
    def script(self) -> str | None:
        """``traditional`` or ``simplified``: the Chinese script the record is written in,
        by its move texts, else its tags, else a Big5 encoding; ``None`` when nothing tells."""
        record = self.record
        return (script_of(record.moves) or script_of(record.tags.values())
                or ("traditional" if record.encoding == "big5" else None))

    @property
    def uci(self) -> list[str]:
        """The moves in coordinates, ranks 0-9 (``h2e2``)."""
        return [str(move) for move in self.moves]

    @property
    def iccs(self) -> list[str]:
        """The moves in ICCS (``H2-E2``)."""
        return [write_iccs(move) for move in self.moves]

    @property
    def plies(self) -> int:
        return len(self.moves)

    @property
    def is_valid(self) -> bool:
        return self.status == Status.VALID


def _names_its_dialect(record: GameRecord) -> bool:
    """Whether the record's ``Format`` tag names its notation exactly (``san``, ``san-fsf``,
    as xqdb's PGN export writes it): then the dialect is told, not settled by replay, and a
    game that replays in both dialects reads as the one named."""
    return (record.tags.get("Format") or "").strip().lower() == record.notation

def replay(record: GameRecord, move_limit: int | None = DEFAULT_MOVE_LIMIT) -> ReplayedGame:
    """Replay ``record``'s main line, validating every move and adjudicating the game.

    ``move_limit`` is the natural move limit in plies without capture (``None`` for none).
    """
    if len(record.raw) > MAX_RECORD_BYTES:
        return _too_large(record)
    fen = record.fen or STARTING_FEN
    game = ReplayedGame(record=record, start_fen=fen)
    if record.error is not None:
        return _fail(game, record.error_kind, record.error)
    try:
        start = _start_position(fen)
    except FenError as exc:
        return _fail(game, exc.kind, f"bad FEN {quote(fen)}: {exc}")
    pos = start.copy()
    game.start_fen = _normalized_fen(fen)
    game.start_key = pos.zobrist()
    board = pos.board
    notation = record.notation
    entry = REGISTRY.get(notation)
    if entry is not None and entry.twin is not None and not _names_its_dialect(record):
        # Dialects whose texts look alike (WinBoard and Fairy-Stockfish algebraic): the one
        # the game replays in is the one it was written in. The record says so afterwards.
        try:
            notation = record.notation = settle_by_replay(notation, pos, record.moves)
        except DialectError as exc:
            return _fail(game, exc.kind, str(exc), exc.ply, exc.text)
    # This loop runs for every ply of every imported game. It calls methods and
    # functions as they are, not bound to local names once: in the compiled build those
    # are direct calls, where a bound name would go through Python's calling convention.
    # Coordinate texts are not written here: the move itself is kept, and its texts
    # follow from it alone.
    moves, wxf, chinese = game.moves, game.wxf, game.chinese
    pieces, captures, keys, checks = game.pieces, game.captures, game.keys, game.checks
    san_marks = game.san_marks
    san = write_san
    start_check = pos.is_check()
    # Chinese and WXF texts name a piece, so reading them already finds the legal move,
    # and most often that the piece stands alone on its file, which its texts follow from.
    entry = REGISTRY.get(notation)
    resolves_legal = entry is not None and entry.names_pieces
    describer = entry.describer if entry is not None else None
    try:
        read = reader_for(notation)
    except UnknownNotationError as exc:
        return _fail(game, exc.kind, str(exc))
    alone = False
    for ply, text in enumerate(record.moves, start=1):
        try:
            if describer is not None:
                move, loose, alone = describer.read_alone(pos, text)
            else:
                move, loose = read(pos, text)
        except MoveError as exc:
            return _fail(game, exc.kind, str(exc), ply, text, pos)
        if not resolves_legal and not pos.is_legal(move):
            return _fail(game, IllegalMoveError.kind, _illegal(pos, move, text), ply, text, pos)
        if loose:
            game.loose.append(ply - 1)
        piece = board[move.from_square]
        captured = board[move.to_square]
        pieces.append(piece)
        captures.append(captured)
        moves.append(move)
        wxf_text, chinese_text = (write_lone_wxf_and_chinese(piece, move) if alone
                                  else write_wxf_and_chinese(board, move))
        wxf.append(wxf_text)
        chinese.append(chinese_text)
        san_marks.append(san.told_apart(pos, move))
        pos.push(move)
        keys.append(pos.zobrist())
        checks.append(pos.is_check())
    game.final_fen = pos.fen()
    game.episodes = episodes(pos, [start_check, *game.checks], move_limit=move_limit)
    game.ending = game.episodes[0].ending if game.episodes else None
    _mark_last_move(game, pos)
    if record.mainline.variations:
        game.variations = record.mainline.count_variations()
        game.variation_errors, game.variation_moves = replay_variations(
            fen, record.mainline, notation)
    if record.dropped_variations:
        game.variation_errors.append(dropped_message(record.dropped_variations))
    return game


def dropped_message(dropped: int) -> str:
    """What is said of the ``dropped`` variations of a record nested too deep.

    >>> dropped_message(2)
    '2 variations nested more than 100 deep dropped; the raw record keeps them'
    """
    return (f"{dropped} variation{'s' if dropped != 1 else ''} nested more than "
            f"{MAX_VARIATION_DEPTH} deep dropped; the raw record keeps them")


#: How many replays :class:`Repeats` keeps: on ccpd-dev.zip, whose records are 29 %
#: byte-identical repeats, the last 2,048 catch four in five of them.
REPEATS_KEPT = 2048
#: Records longer than this (a long comment, say) are not kept for their repeats.
REPEAT_BYTES = 64 * 1024


class Repeats:
    """Replays by what a replay reads from the record: a record that repeats one of the
    last ``kept`` records replayed (the same start, notation and move texts, and no
    variations) is not replayed again. Collections repeat games often: the same game filed
    in two folders, or copied into every anthology that has it.

    >>> from xqdb.formats.record import GameRecord, Origin
    >>> repeats = Repeats()
    >>> first, again = (GameRecord(origin=Origin(name), format="pgn", notation="uci")
    ...                 for name in ("a.pgn", "b.pgn"))
    >>> first.moves.extend(["h2e2", "h9g7"]); again.moves.extend(["h2e2", "h9g7"])
    >>> games = repeats.replay(first), repeats.replay(again)
    >>> repeats.hits, games[1].record.origin.path, games[1].uci
    (1, 'b.pgn', ['h2e2', 'h9g7'])
    """

    def __init__(self, kept: int = REPEATS_KEPT) -> None:
        self.kept = kept
        self.hits = 0
        self._games: OrderedDict[tuple[object, ...], ReplayedGame] = OrderedDict()

    def replay(self, record: GameRecord) -> ReplayedGame:
        """:func:`replay` ``record``, or the replay of the record it repeats."""
        if (record.error is not None or record.mainline.variations
                or len(record.raw) > REPEAT_BYTES or not self.kept):
            return replay(record)
        key = (record.fen, record.notation, record.tags.get("Format"), tuple(record.moves))
        known = self._games.get(key)
        if known is None:
            game = self._games[key] = replay(record)
            if len(self._games) > self.kept:
                self._games.popitem(last=False)
            return game
        self._games.move_to_end(key)
        self.hits += 1
        record.notation = known.record.notation  # as replay settles a dialect
        return replace(known, record=record)


def _too_large(record: GameRecord) -> ReplayedGame:
    """The invalid game standing for a ``record`` bigger than :data:`MAX_RECORD_BYTES`: it
    keeps where the record was, its format and its first :data:`KEPT_RECORD_BYTES`."""
    head = GameRecord(origin=record.origin, format=record.format, encoding=record.encoding,
                      notation=record.notation, raw=record.raw[:KEPT_RECORD_BYTES])
    error = too_large_message(len(record.raw))
    return _fail(ReplayedGame(record=head, start_fen=""), ErrorKind.RECORD_TOO_LARGE, error)


def _mark_last_move(game: ReplayedGame, pos: Position) -> None:
    """Give the last algebraic text its mate mark: only the last move can leave the side to
    move without a legal move, so the replay looks for one there alone, not after every
    check."""
    if not game.san_marks:
        return
    ending = game.termination
    if ending in (Termination.CHECKMATE, Termination.STALEMATE) or (
            # The game failed after it: the rules did not look at the last position.
            not game.is_valid and check_mark(pos) == "#"):
        game.san_marks[-1] |= MATE


def replay_variations(fen: str, line: Line, notation: str
                      ) -> tuple[list[str], list[VariationMove]]:
    """Replay every variation below ``line``: one message per failing variation, and the
    moves of every variation up to its first failing move.

    Variations are numbered 1, 2, 3... in the order they are replayed; the main line is 0.
    A variation's moves are numbered by game ply, so ``variation at ply 12, ply 14: ...``
    names the branch point and the failing move.

    >>> main = Line(moves=["h2e2", "h9g7"], variations=[(1, Line(moves=["b9c7", "h0h9"]))])
    >>> errors, moves = replay_variations(STARTING_FEN, main, "uci")
    >>> errors
    ["variation at ply 2, ply 3: illegal move 'h0h9': the horse on h0 cannot move to h9"]
    >>> [(v, parent, branch, ply, chinese) for v, parent, branch, ply, _, chinese, _ in moves]
    [(1, 0, 2, 2, '马２进３')]
    """
    errors: list[str] = []
    played: list[VariationMove] = []
    number = 0
    # Explicit stack: real files nest variations deeper than Python's recursion limit allows.
    stack: list[tuple[Position, Line, int, int]] = [(Position.from_fen(fen), line, 0, 0)]
    while stack:
        pos, current, first_ply, current_number = stack.pop()
        branches = sorted(current.variations, key=lambda item: item[0])
        branch = 0
        for index in range(len(current.moves) + 1):
            while branch < len(branches) and branches[branch][0] == index:
                variation = branches[branch][1]
                number += 1
                error = _play_variation(pos.copy(), variation.moves, notation, first_ply + index,
                                        (number, current_number, first_ply + index + 1), played)
                if error is not None:
                    errors.append(f"variation at ply {first_ply + index + 1}, {error}")
                if variation.variations:
                    stack.append((pos.copy(), variation, first_ply + index, number))
                branch += 1
            if index == len(current.moves):
                break
            try:
                move, _ = read_move(pos, current.moves[index], notation)
            except MoveError:
                break  # the line itself fails here; its own check reports it
            if not pos.is_legal(move):
                break
            pos.push(move)
    return errors, played


def validate_variations(fen: str, line: Line, notation: str) -> list[str]:
    """Check every move of every variation below ``line``; one message per failing variation
    (see :func:`replay_variations`)."""
    return replay_variations(fen, line, notation)[0]


def _play_variation(pos: Position, moves: list[str], notation: str, first_ply: int,
                    which: tuple[int, int, int], played: list[VariationMove]) -> str | None:
    """Play a variation's ``moves`` from ``pos``, appending them to ``played``; the first
    failure's message, if any."""
    for offset, text in enumerate(moves):
        ply = first_ply + offset + 1
        try:
            move, _ = read_move(pos, text, notation)
        except MoveError as exc:
            return f"ply {ply}: {_quoting_short(str(exc), text)}"
        if not pos.is_legal(move):
            return f"ply {ply}: {_illegal(pos, move, text)}"
        chinese = write_wxf_and_chinese(pos.board, move)[1]
        pos.push(move)
        played.append((*which, ply, move.code, chinese, pos.zobrist()))
    return None


def _illegal(pos: Position, move: Move, text: str) -> str:
    return f"illegal move {quote(text)}: {pos.explain_illegal(move)}"


def _fail(game: ReplayedGame, kind: ErrorKind, reason: str, ply: int | None = None,
          text: str | None = None, pos: Position | None = None) -> ReplayedGame:
    game.status = Status.INVALID
    game.error = reason if text is None else _quoting_short(reason, text)
    game.error_kind = kind
    game.error_ply = ply
    game.error_text = text
    if pos is not None:
        game.final_fen = pos.fen()
        _mark_last_move(game, pos)
    return game
