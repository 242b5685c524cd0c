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
from .errors import IllegalMoveError
from .rules.board import Move
from .rules.position import BasePosition


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


__all__ = ["Position", "Move"]
