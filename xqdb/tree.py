"""The position an opening tree starts from: moves in any notation, from a FEN or the start.

>>> position_key("炮二平五 马8进7") == position_key("1. h2e2 h9g7")
True
>>> position_key("炮二平五 马8进7 车一进九")
Traceback (most recent call last):
...
xqdb.tree.PositionError: move 3: '车一进九': ...
"""

from __future__ import annotations

import re

from .notation import NotationError
from .position import Position
from .rules.position import FenError, STARTING_FEN

#: Move numbers between the moves (``1.``, ``2...``), which name no move.
_NUMBER = re.compile(r"^\d+\.+$")


class PositionError(ValueError):
    """A FEN or a move text that gives no position: the message says which and why."""


def position_key(moves: str, fen: str | None = None) -> int:
    """The Zobrist key (as ``moves.key_before`` stores it) of the position after ``moves``
    (space-separated, any notation) from ``fen`` (default: the start position)."""
    return position_after(moves, fen).zobrist()


def position_after(moves: str, fen: str | None = None) -> Position:
    """The position after ``moves`` (space-separated, any notation) from ``fen`` (default:
    the start position); raises :class:`PositionError` naming the FEN or the move at fault.

    >>> position_after("h2e2", "4k4/9/9/9/9/9/9/9/7C1/3K5 b")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xqdb.tree.PositionError: move 1: 'h2e2': ...
    """
    try:
        position = Position(fen or STARTING_FEN)
    except FenError as exc:
        raise PositionError(f"bad FEN: {exc}") from None
    texts = [t for t in moves.split() if not _NUMBER.match(t)]
    for number, text in enumerate(texts, 1):
        try:
            position.push_text(text)
        except (NotationError, ValueError) as exc:
            # The notation's message begins with the text itself.
            raise PositionError(f"move {number}: {exc}") from None
    return position
