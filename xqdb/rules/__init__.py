"""The rules of Xiangqi: board, pieces, positions, legal moves, Zobrist keys, perft and
game adjudication. No I/O and no notation other than coordinates: :class:`BasePosition`
is the rules' position, and :class:`xqdb.Position` adds notation to it."""

import warnings
from collections.abc import Callable
from typing import Any

from ..errors import FenError, IllegalMoveError
from .board import (
    ADVISOR, BLACK, CANNON, CHARIOT, COLORS, ELEPHANT, HORSE, KING, PAWN, PIECE_TYPES, RED,
    Color, Move, Piece, PieceType, Square, parse_square, piece_symbol, square, square_file,
    square_name, square_rank,
)
from .adjudication import DEFAULT_MOVE_LIMIT, ENDING_NAMES, Adjudicator, Ending, adjudicate
from .outcome import Outcome, Termination
from .perft import divide, perft
from .position import STARTING_FEN, BasePosition, attacked, parse_fen
from . import position as _position

__all__ = [
    "ADVISOR", "BLACK", "CANNON", "CHARIOT", "COLORS", "ELEPHANT", "HORSE", "KING", "PAWN",
    "PIECE_TYPES", "RED", "Color", "Move", "Piece", "PieceType", "Square", "parse_square",
    "piece_symbol", "square", "square_file", "square_name", "square_rank", "divide", "perft",
    "STARTING_FEN", "FenError", "IllegalMoveError", "BasePosition", "attacked", "parse_fen",
    "DEFAULT_MOVE_LIMIT", "ENDING_NAMES", "Adjudicator", "Ending", "adjudicate", "Outcome",
    "Termination",
]


def _old_names(module: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` that answers ``Position``, this package's class's name
    before the public class took it over, with the class it always got (and a warning)."""
    def __getattr__(name: str) -> Any:
        if name == "Position":
            warnings.warn("xqdb.rules.Position is now BasePosition; xqdb.Position adds notation",
                          DeprecationWarning, stacklevel=2)
            return BasePosition
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    return __getattr__


__getattr__ = _old_names(__name__)
# Set from here rather than defined there: a compiled module cannot define ``__getattr__``.
setattr(_position, "__getattr__", _old_names(_position.__name__))
