"""Algebraic notation: ``Che2``, ``Hc7``, ``Rxi5``, ``g5``, and long algebraic ``Ch2-e2``.

Two dialects name the same move differently:

* ``san``: WinBoard/XBoard, the usual GUI of computer Xiangqi tournaments. Ranks 0-9 (the
  central cannon is ``Che2``), pawns written without a letter (``g5``), and a pawn that
  captures or steps sideways names its file (``ixi5``, ``gf3``).
* ``san-fsf``: Fairy-Stockfish (``pyffish.get_san``) and the sites built on it. Ranks 1-10
  (``Che3``), pawns written with ``P`` (``Pc5``, ``Pxc6``).

Both read the letters K A E H R C P and the N and B some sources use for horse and
elephant, the marks ``x``, ``+``, ``#``, ``!`` and ``?``, disambiguation by file, rank or
square (``Cbc3``, ``R1b2``), long algebraic (``Ch2-e2``, ``Ch2xe6``) and full-width
characters. Writing follows each dialect's program: a piece is told apart from its twins
(the other pieces of its kind that can legally make a move to the same point) by its file,
else its rank, else both; ``x`` marks a capture, ``+`` a check and ``#`` a mate.

Which dialect a game is in shows in its texts only when a rank 0 or 10 does: otherwise
:func:`xqdb.notation.registry.settle_by_replay` decides by which reading replays.

>>> from xqdb.rules import BasePosition
>>> pos = BasePosition()
>>> move, loose = parse_san(pos, "Che2")
>>> str(move), write_san(pos, move), write_san_fsf(pos, move)
('h2e2', 'Che2', 'Che3')
>>> str(parse_san_fsf(pos, "Ch3-e3")[0]), str(parse_san(pos, "Ｃｈｅ２")[0])
('h2e2', 'h2e2')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import NamedTuple

from ..rules.board import (
    ADVISOR_STEPS, BLACK, COLOR_NAMES, ELEPHANT_STEPS, FILE_NAMES, HORSE_ATTACKS, KING, KING_STEPS,
    LINES, PAWN, PAWN_ATTACKS, PIECE_NAMES, RED, SQUARE_NAMES, SQUARES, Move,
)
from ..rules.position import BasePosition
from ..errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from .tables import LETTER_TYPES, WRITTEN_LETTERS, fold


class Dialect(NamedTuple):
    """How one family of programs writes algebraic moves."""

    name: str
    first_rank: int
    """The number of Red's back rank: 0 (WinBoard) or 1 (Fairy-Stockfish)."""
    pawn_letter: bool
    """Whether pawns are written with ``P``."""
    marks_stalemate: bool
    """Whether a move that leaves the opponent no legal move is marked ``#`` out of check
    too: a stalemate loses in Xiangqi, and WinBoard marks it as the mate it is."""


WINBOARD = Dialect("san", 0, False, True)
FAIRY_STOCKFISH = Dialect("san-fsf", 1, True, False)

#: Bits of what an algebraic text adds to the piece, capture and destination (the
#: ``san_marks`` column of ``stored_moves``): the origin's file, its rank, and a mate
#: (``#`` in place of ``+``, or after a stalemating move in WinBoard's dialect).
TELL_FILE, TELL_RANK, MATE = 1, 2, 4

#: Piece letter, origin file, origin rank, capture or hyphen, destination file and rank.
_SAN = re.compile(f"([{''.join(LETTER_TYPES)}])?([a-i])?(10|[0-9])?([-x:])?([a-i])(10|[0-9])")
_MARKS = "+#!?"


class _Text(NamedTuple):
    """What an algebraic text says, before it is matched against a position."""

    piece: int
    """Piece type (``PAWN`` when no letter is written)."""
    file: int | None
    rank: int | None
    to_square: int


def fits_san(text: str) -> bool:
    """Whether a (folded) text has the form of an algebraic move, in either dialect.

    >>> [fits_san(t) for t in ("Che2", "g5", "ixi5", "Ch2-e2", "Rxd9#", "C2.5", "h2e2")]
    [True, True, True, True, True, False, True]
    """
    return _SAN.fullmatch(text.rstrip(_MARKS)) is not None


def _rank(text: str, dialect: Dialect, whole: str) -> int:
    rank = int(text) - dialect.first_rank
    if not 0 <= rank <= 9:
        first = dialect.first_rank
        raise InvalidMoveError(f"{whole!r} has no rank {text} in ranks {first}-{first + 9} "
                            f"({dialect.name})")
    return rank


class _Reader:
    """Reads the texts of one dialect, remembering the texts it has read."""

    LIMIT = 200_000

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self._seen: dict[str, _Text] = {}

    def describe(self, text: str) -> _Text:
        said = self._seen.get(text)
        if said is None:
            said = self._describe(text)
            if len(self._seen) < self.LIMIT:
                self._seen[text] = said
        return said

    def _describe(self, text: str) -> _Text:
        folded = fold(text)
        m = _SAN.fullmatch(folded.rstrip(_MARKS))
        if m is None:
            raise InvalidMoveError(f"{text!r} is not an algebraic move like Che2")
        letter, file, rank, _, to_file, to_rank = m.groups()
        if letter is None and file is None:
            # A pawn written as its destination alone steps forward: WinBoard names the
            # file of a pawn that captures or steps sideways.
            file = to_file
        dialect = self.dialect
        return _Text(
            LETTER_TYPES[letter] if letter else PAWN,
            None if file is None else FILE_NAMES.index(file),
            None if rank is None else _rank(rank, dialect, text),
            _rank(to_rank, dialect, text) * 9 + FILE_NAMES.index(to_file),
        )

    def __call__(self, pos: BasePosition, text: str) -> tuple[Move, bool]:
        """The one legal move ``text`` names in ``pos`` (never loose)."""
        piece, file, rank, to = self.describe(text)
        color = pos.turn
        board = pos.board
        signed = piece * color
        squares = range(90) if file is None else range(file, 90, 9)
        fits = [sq for sq in squares if board[sq] == signed and (rank is None or sq // 9 == rank)]
        legal = [Move.of(sq, to) for sq in fits if pos.is_legal(Move.of(sq, to))]
        if len(legal) == 1:
            return legal[0], False
        name = f"{COLOR_NAMES[color]} {PIECE_NAMES[piece]}"
        if legal:
            which = ", ".join(SQUARE_NAMES[m.from_square] for m in legal)
            raise AmbiguousMoveError(f"{text!r} is ambiguous: the {PIECE_NAMES[piece]}s on "
                                     f"{which} can all move to {SQUARE_NAMES[to]}")
        if len(fits) == 1:
            raise IllegalMoveError(f"{text!r}: {pos.explain_illegal(Move.of(fits[0], to))}")
        where = f" on {', '.join(SQUARE_NAMES[sq] for sq in fits)}" if fits else ""
        raise IllegalMoveError(f"{text!r}: no {name}{where} can move to {SQUARE_NAMES[to]}")


def _rank_text(sq: int, dialect: Dialect) -> str:
    return str(sq // 9 + dialect.first_rank)


def _square_text(sq: int, dialect: Dialect) -> str:
    return FILE_NAMES[sq % 9] + _rank_text(sq, dialect)


#: By piece type, then point: the points from which a piece of that type could reach the
#: point on an empty board, the point itself last. A twin standing elsewhere cannot make the
#: move, so most are told apart without a legality test.
_ORIGINS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple((*sorted(reach(sq)), sq) for sq in SQUARES) for reach in (
        lambda sq: (),
        lambda sq: KING_STEPS[sq],
        lambda sq: ADVISOR_STEPS[sq],
        lambda sq: [dest for _, dest in ELEPHANT_STEPS[sq]],
        lambda sq: [origin for _, origin in HORSE_ATTACKS[sq]],
        lambda sq: LINES[sq],
        lambda sq: LINES[sq],
        lambda sq: PAWN_ATTACKS[RED][sq] + PAWN_ATTACKS[BLACK][sq],
    ))
#: What stands on the points of ``_ORIGINS``, gathered in one call: looking at the board
#: square by square in Python would cost more than the rest of the text.
_GATHER: tuple[tuple[Callable[[list[int]], tuple[int, ...]], ...], ...] = tuple(
    tuple(itemgetter(*points) for points in by_point) for by_point in _ORIGINS)


class _Writer:
    """Writes the moves of one dialect, remembering the plain texts it has written: a
    move's text, less what tells it from a twin and its check mark, follows from the piece,
    the move and whether it captures. This writer runs for every ply imported."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self._squares = tuple(_square_text(sq, dialect) for sq in SQUARES)
        self._texts: dict[int, str] = {}
        # Pieces never told apart from a twin: kings, and WinBoard's letterless pawns (a
        # pawn that captures or steps sideways names its file, and no other pawn can make
        # the same step from the same file).
        self._alone = frozenset({KING, -KING} | (set() if dialect.pawn_letter else {PAWN, -PAWN}))

    def __call__(self, pos: BasePosition, move: Move) -> str:
        """The text of the legal ``move`` of ``pos``."""
        text = self.unmarked(pos, move)
        pos.push(move)
        try:
            return text + check_mark(pos, self.dialect)
        finally:
            pos.pop()

    def unmarked(self, pos: BasePosition, move: Move) -> str:
        """The text of the legal ``move`` of ``pos`` without its mark: what can be told
        before the move is made. (A replay adds ``+`` after a check, and looks for a mate
        only after the last move: a game goes on only from a position with a legal move.)

        >>> from xqdb.rules import BasePosition
        >>> write_san.unmarked(BasePosition(), Move.from_uci("b2b9"))
        'Cxb9'
        """
        board = pos.board
        f, t = move.from_square, move.to_square
        piece = board[f]
        capture = board[t] != 0
        key = (move.code * 2 + capture) * 16 + piece + 8
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = self._plain(piece, f, t, capture)
        told = self.told_apart(pos, move)
        if not told:
            return text
        origin = ((FILE_NAMES[f % 9] if told & TELL_FILE else "")
                  + (_rank_text(f, self.dialect) if told & TELL_RANK else ""))
        return text[0] + origin + text[1:]

    def told_apart(self, pos: BasePosition, move: Move) -> int:
        """What of its origin the text of the legal ``move`` of ``pos`` names to tell the
        mover from a twin: 0 (nearly always), :data:`TELL_FILE`, :data:`TELL_RANK` or both.
        The rest of the text follows from the move, the piece and what it captures, which
        is why the ``moves`` table stores this alone.

        >>> from xqdb.rules import BasePosition
        >>> [write_san.told_apart(BasePosition(), Move.from_uci(m)) for m in ("h2e2", "h0g2")]
        [1, 0]
        """
        board = pos.board
        f, t = move.from_square, move.to_square
        piece = board[f]
        if piece in self._alone:
            return 0
        ptype = piece if piece > 0 else -piece
        found = _GATHER[ptype][t](board)
        if found.count(piece) < 2:  # only the mover itself could reach the point
            return 0
        if ptype == PAWN:  # up to five of them
            twins = [sq for sq, there in zip(_ORIGINS[PAWN][t], found) if there == piece]
        else:
            # Other pieces come in twos (a position with more is refused): one twin,
            # which most often is blocked.
            points = _ORIGINS[ptype][t]
            first = found.index(piece)
            twin = points[found.index(piece, first + 1)] if points[first] == f else points[first]
            if not pos.is_legal(Move.of(twin, t)):
                return 0
            twins = [twin]
        return _told_apart(pos, move, twins)

    def _plain(self, piece: int, f: int, t: int, capture: bool) -> str:
        ptype = abs(piece)
        if ptype == PAWN and not self.dialect.pawn_letter:
            # WinBoard names a pawn's file when it captures or steps sideways, never its rank.
            head = FILE_NAMES[f % 9] if capture or f // 9 == t // 9 else ""
        else:
            head = WRITTEN_LETTERS[ptype]
        return head + ("x" if capture else "") + self._squares[t]


def check_mark(pos: BasePosition, dialect: Dialect = WINBOARD) -> str:
    """The mark of the move that led to ``pos``: ``+`` when the side to move is in check,
    ``#`` when it is mated (or, in WinBoard's dialect, stalemated), else nothing.

    >>> from xqdb.rules import BasePosition
    >>> check_mark(BasePosition("R2k5/1R7/9/9/9/9/9/9/9/4K4 b")), check_mark(BasePosition())
    ('#', '')
    >>> stalemate = BasePosition("3k5/2R6/9/9/9/9/9/9/9/4K4 b")
    >>> check_mark(stalemate, WINBOARD), check_mark(stalemate, FAIRY_STOCKFISH)
    ('#', '')
    """
    check = pos.is_check()
    if not check and not dialect.marks_stalemate:
        return ""
    if not _can_move(pos):
        return "#"
    return "+" if check else ""


def _can_move(pos: BasePosition) -> bool:
    """Whether the side to move has a legal move. Its king's steps are tried first: most
    often one of them is free, which spares generating every move (WinBoard's texts ask
    after every move whether it left the opponent stalemated)."""
    king = pos.king_square(pos.turn)
    if king is not None and any(pos.is_legal(Move.of(king, t)) for t in KING_STEPS[king]):
        return True
    return pos.has_legal_moves()


def _told_apart(pos: BasePosition, move: Move, twins: list[int]) -> int:
    """What tells the mover from those of its ``twins`` that could legally make the move
    too: its file, else its rank, else both; nothing (0) when none could."""
    f, t = move.from_square, move.to_square
    twins = [sq for sq in twins if sq != f and pos.is_legal(Move.of(sq, t))]
    if not twins:
        return 0
    if all(sq % 9 != f % 9 for sq in twins):
        return TELL_FILE
    if all(sq // 9 != f // 9 for sq in twins):
        return TELL_RANK
    return TELL_FILE | TELL_RANK


parse_san = _Reader(WINBOARD)
parse_san_fsf = _Reader(FAIRY_STOCKFISH)
#: The WinBoard text of a legal move (ranks 0-9, ``g5``): ``write_san(pos, move)``.
write_san = _Writer(WINBOARD)
#: The Fairy-Stockfish text of a legal move (ranks 1-10, ``Pg6``).
write_san_fsf = _Writer(FAIRY_STOCKFISH)
_WRITERS = {writer.dialect: writer for writer in (write_san, write_san_fsf)}


def write(pos: BasePosition, move: Move, dialect: Dialect) -> str:
    """The text of the legal ``move`` of ``pos`` in ``dialect``.

    >>> from xqdb.rules import BasePosition
    >>> pos = BasePosition()
    >>> [write(pos, Move.from_uci(m), FAIRY_STOCKFISH) for m in ("b2c2", "d0e1", "g3g4")]
    ['Cbc3', 'Ade2', 'Pg5']
    >>> [write(pos, Move.from_uci(m), WINBOARD) for m in ("b2c2", "d0e1", "g3g4")]
    ['Cbc2', 'Ade1', 'g4']
    """
    return _WRITERS[dialect](pos, move)


def dialect_of(texts: Sequence[str]) -> str:
    """The dialect a game's texts show: ``san-fsf`` when a rank 10 or a ``P`` does, else
    ``san`` (a hint only: the replay decides, see :func:`xqdb.notation.registry.settle_by_replay`).

    >>> dialect_of(["Che3", "Ra10"]), dialect_of(["Che2", "Rb0"]), dialect_of(["Pc5"])
    ('san-fsf', 'san', 'san-fsf')
    >>> dialect_of(["Che3", "Hg8"])  # either: the replay will tell
    'san'

    """
    for text in texts:
        folded = fold(text).rstrip(_MARKS)
        if folded.endswith("0") and not folded.endswith("10"):
            return WINBOARD.name
        if folded.endswith("10") or folded.startswith("P"):
            return FAIRY_STOCKFISH.name
    return WINBOARD.name


__all__ = ["Dialect", "WINBOARD", "FAIRY_STOCKFISH", "fits_san", "parse_san", "parse_san_fsf",
           "write", "check_mark", "write_san", "write_san_fsf",
           "dialect_of"]
