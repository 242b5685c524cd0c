"""How a game ended: a :class:`Termination` and, unless drawn, the winner.

Modelled on python-chess's ``Termination`` and ``Outcome``. The termination's values are
the names stored in ``games.termination``; see :mod:`xqdb.rules.adjudication` for what
each one means.

>>> Outcome(Termination.CHECKMATE, RED).result()
'1-0'
>>> Outcome(Termination.REPETITION, None).result()
'1/2-1/2'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .board import BLACK, RED, Color

DRAW = "1/2-1/2"
"""The result of a drawn game, PGN style."""


class Termination(StrEnum):
    """Why a game ended under the rules, in the order :mod:`~xqdb.rules.adjudication`
    checks them. A ``str`` enum: each member equals its stored name.

    >>> Termination("perpetual_check") is Termination.PERPETUAL_CHECK
    True
    """

    CHECKMATE = "checkmate"
    """The side to move is in check and has no legal move: it has lost."""
    STALEMATE = "stalemate"
    """The side to move is not in check and has no legal move: it has lost too (困毙)."""
    PERPETUAL_CHECK = "perpetual_check"
    PERPETUAL_CHASE = "perpetual_chase"
    REPETITION = "repetition"
    MOVE_LIMIT = "move_limit"

    @property
    def label(self) -> str:
        """The termination in words (``perpetual check``)."""
        return self.value.replace("_", " ")


def result_for(winner: Color | None) -> str:
    """``1-0`` when Red won, ``0-1`` when Black won, ``1/2-1/2`` for no winner.

    >>> result_for(BLACK)
    '0-1'
    """
    if winner == RED:
        return "1-0"
    if winner == BLACK:
        return "0-1"
    return DRAW


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: how, and who won (``None`` for a draw)."""

    termination: Termination
    winner: Color | None

    def result(self) -> str:
        """The result PGN style: ``1-0``, ``0-1`` or ``1/2-1/2``."""
        return result_for(self.winner)


__all__ = ["DRAW", "Termination", "Outcome", "result_for"]
