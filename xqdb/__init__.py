"""xqdb: Xiangqi game databases.

>>> from xqdb import Position
>>> pos = Position()
>>> pos.push(pos.parse_move("炮二平五"))
>>> pos.fen()
'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1'
"""

from .notation import AmbiguousMoveError, NotationError
from .position import Move, Position

__all__ = ["Position", "Move", "NotationError", "AmbiguousMoveError"]
