"""xqdb: Xiangqi game databases.

>>> from xqdb import Position
>>> pos = Position()
>>> pos.push(pos.parse_move("炮二平五"))
>>> pos.fen()
'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1'

Every job on a database goes through :class:`Database` (``xqdb.Database("games.duckdb")``),
loaded on first use: the rules alone (``xqdb engine``, ``xqdb perft``) never load DuckDB.
"""

from typing import TYPE_CHECKING, Any

# First: it decides whether the compiled modules may load, before any of them is imported.
from .build import BUILD
from .errors import (
    AmbiguousMoveError, BadArgumentError, CannotRunError, ClusterError, DatabaseError, ErrorKind,
    FenError, IllegalMoveError, InvalidMoveError, MoveError, NotationError, NotFoundError,
    UnknownNotationError, XqdbError,
)
from .position import Move, Position
from .rules.board import BLACK, COLORS, RED, Color, Piece, PieceType, Square
from .rules.outcome import Outcome, Termination

if TYPE_CHECKING:
    from .database import Database


def __getattr__(name: str) -> Any:
    if name == "Database":
        from .database import Database
        return Database
    raise AttributeError(f"module 'xqdb' has no attribute {name!r}")


__all__ = [
    "BUILD", "Database", "XqdbError", "BadArgumentError", "NotFoundError", "CannotRunError",
    "DatabaseError", "ClusterError", "Position", "Move", "Color", "Square", "Piece", "PieceType", "RED", "BLACK", "COLORS",
    "Outcome", "Termination", "ErrorKind", "MoveError", "InvalidMoveError",
    "IllegalMoveError", "AmbiguousMoveError", "UnknownNotationError", "NotationError", "FenError",
]
