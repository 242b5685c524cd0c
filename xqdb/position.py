"""The public position: the rules' :class:`~xqdb.rules.BasePosition` plus move notation.

In the spirit of python-chess: parse a move text in any notation, write a move in any.

>>> from xqdb import Position
>>> pos = Position()
>>> move = pos.parse_move("炮二平五")
>>> str(move), pos.move_text(move, "wxf"), pos.move_text(move, "iccs")
('h2e2', 'C2.5', 'H2-E2')
>>> pos.push(move)
>>> pos.move_text(pos.parse_move("H8+7"), "chinese")
'马８进７'
"""

from __future__ import annotations

from . import notation as _notation
from .errors import BadArgumentError, FenError, IllegalMoveError, MoveError
from .notation.tokens import split_moves
from .rules.board import RED, Move
from .rules.position import STARTING_FEN, BasePosition


class Position(BasePosition):
    """A Xiangqi position that reads and writes move texts.

    >>> Position.from_fen("4k4/9/9/9/9/9/9/9/4C4/4K4 w").parse_move("炮五平四")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xqdb.errors.IllegalMoveError: '炮五平四': e1-f1 would leave the kings facing ...
    """

    __slots__ = ()

    def read_move(self, text: str, notation: str = "auto") -> tuple[Move, bool]:
        """``(move, loose)`` for ``text``: the legal move it names, and whether it was loose.

        Raises :class:`~xqdb.errors.InvalidMoveError` for a text that is not a move,
        :class:`~xqdb.errors.IllegalMoveError` when it names no legal move (for coordinate
        texts too) and :class:`~xqdb.errors.AmbiguousMoveError` when it names several.
        """
        move, loose = _notation.read_move(self, text, notation)
        if not self.is_legal(move):
            raise IllegalMoveError(f"{text!r}: {self.explain_illegal(move)}")
        return move, loose

    def parse_move(self, text: str, notation: str = "auto") -> Move:
        """The legal move ``text`` names (any notation when ``notation`` is ``auto``)."""
        return self.read_move(text, notation)[0]

    def push_text(self, text: str, notation: str = "auto") -> Move:
        """Parse ``text`` and make the move; returns it."""
        move = self.parse_move(text, notation)
        self.push(move)
        return move

    def move_text(self, move: Move, notation: str = "chinese") -> str:
        """``move`` (legal here) written in ``notation``."""
        return _notation.write_move(self, move, notation)


def mirrored(position: Position) -> Position:
    """The left-right mirror image of ``position`` (files a and i swapped), with the same
    side to move.

    >>> left, right = Position(), Position()
    >>> _ = left.push_text("炮二平五"), right.push_text("炮八平五")
    >>> mirrored(left).zobrist() == right.zobrist()
    True
    """
    # A FEN rank is a run of single characters (no gap is over 9 points), so reversing
    # the text of each rank mirrors the board.
    board = "/".join(rank[::-1] for rank in position.board_fen().split("/"))
    side = "w" if position.turn == RED else "b"
    return Position(f"{board} {side} - - 0 1")


#: The hint after a FEN that cannot be read.
FEN_HINT = f"the start position reads {STARTING_FEN.split(' - ')[0]}"
#: The hint after a list of moves that cannot be played.
MOVES_HINT = ("moves are separated by spaces or commas, in Chinese (炮二平五), WXF (C2.5), "
              "ICCS (H2-E2) or coordinates (h2e2), each legal after the ones before")


class PositionError(BadArgumentError, ValueError):
    """A FEN or a move text that gives no position: the message says which and why."""


def position_after(moves: str, fen: str | None = None) -> Position:
    """The position after ``moves`` (any notation, split by
    :func:`~xqdb.notation.tokens.split_moves`) from ``fen`` (default: the start position);
    raises :class:`PositionError` naming the FEN or the move at fault.

    >>> position_after("h2e2,h9g7").fen()
    'rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2'
    >>> position_after("h2e2", "4k4/9/9/9/9/9/9/9/7C1/3K5 b")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xqdb.position.PositionError: move 1: 'h2e2': ...
    """
    try:
        position = Position(fen or STARTING_FEN)
    except FenError as exc:
        raise PositionError(f"bad FEN: {exc}", FEN_HINT) from None
    for number, text in enumerate(split_moves(moves), 1):
        try:
            try:
                position.push_text(text)
            except (MoveError, ValueError):
                # Algebraic text reads with ranks 0-9 or 1-10 (Che2 or Che3): the other
                # reading is tried before giving up.
                twin = _notation.REGISTRY.get(_notation.sniff(text) or "")
                if twin is None or not twin.twin:
                    raise
                position.push_text(text, twin.twin)
        except (MoveError, ValueError) as exc:
            # The notation's message begins with the text itself.
            raise PositionError(f"move {number}: {exc}", MOVES_HINT) from None
    return position


def position_key(moves: str, fen: str | None = None) -> int:
    """The Zobrist key (as ``moves.key_before`` stores it) of the position after ``moves``
    from ``fen`` (default: the start position)."""
    return position_after(moves, fen).zobrist()


__all__ = ["Position", "Move", "PositionError", "mirrored", "position_after", "position_key"]
