"""Engine comments as WinBoard/XBoard writes them after each move: ``{+0,10/7 4}``.

The score is in pawns with two decimals, from the point of view of the side that moved,
as its engine saw it; then ``/`` and the search depth, then optionally the thinking time
in seconds. The decimal mark follows the locale of the machine that saved the game
(a comma in ``../data/algebraic``). WinBoard writes a mate in N moves as ``+1000,0N``
(100,000 centipawns plus N) and being mated in N as ``-1000,0N``: :attr:`EngineComment.mate`
reads those. Some engines write large values of their own instead (``-79,97``), which are
kept as the centipawns they say.

>>> parse_engine_comment("+0,10/7 4")
EngineComment(score=10, depth=7, seconds=4.0)
>>> parse_engine_comment("-0,08/8 1,9"), parse_engine_comment("Draw by repetition")
(EngineComment(score=-8, depth=8, seconds=1.9), None)
>>> parse_engine_comment("+1000,03/5 0,1").mate, parse_engine_comment("+0,10/7 4").mate
(3, None)
"""

from __future__ import annotations

import re
from typing import NamedTuple

#: WinBoard's score of a mate: this many centipawns plus the moves to it.
MATE_SCORE = 100_000
_COMMENT = re.compile(r"\s*([+-]?)(\d+)[.,](\d\d)/(\d+)(?:\s+(\d+)(?:[.,](\d+))?)?\s*")


class EngineComment(NamedTuple):
    """What an engine said about the move it chose."""

    score: int
    """Centipawns, from the point of view of the side that moved."""
    depth: int
    """Search depth in plies."""
    seconds: float | None
    """Thinking time, when written."""

    @property
    def mate(self) -> int | None:
        """Moves to mate from the point of view of the side that moved (negative when it
        is mated) when the score is WinBoard's form of a mate, else ``None``."""
        moves = abs(self.score) - MATE_SCORE
        if not 0 < moves < 1000:
            return None
        return moves if self.score > 0 else -moves


def parse_engine_comment(text: str) -> EngineComment | None:
    """The engine comment ``text`` is, or ``None`` when it is another kind of comment."""
    m = _COMMENT.fullmatch(text)
    if m is None:
        return None
    sign, pawns, hundredths, depth, whole, fraction = m.groups()
    score = int(pawns) * 100 + int(hundredths)
    seconds = None if whole is None else float(f"{whole}.{fraction or 0}")
    return EngineComment(-score if sign == "-" else score, int(depth), seconds)


__all__ = ["MATE_SCORE", "EngineComment", "parse_engine_comment"]
