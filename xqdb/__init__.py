"""xqdb: Xiangqi game databases.

>>> from xqdb import Position
>>> pos = Position()
>>> pos.push(pos.parse_move("炮二平五"))
>>> pos.fen()
'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1'
"""

from .errors import (
    AmbiguousMoveError, ErrorKind, FenError, IllegalMoveError, InvalidMoveError, MoveError,
    NotationError, UnknownNotationError,
)
from .position import Move, Position
from .rules.board import BLACK, COLORS, RED, Color, Piece, PieceType, Square
from .rules.outcome import Outcome, Termination

__all__ = [
    "Position", "Move", "Color", "Square", "Piece", "PieceType", "RED", "BLACK", "COLORS",
    "Outcome", "Termination", "ErrorKind", "MoveError", "InvalidMoveError",
    "IllegalMoveError", "AmbiguousMoveError", "UnknownNotationError", "NotationError", "FenError",
]
