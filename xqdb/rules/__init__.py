"""The rules of Xiangqi: board, pieces, positions, legal moves, Zobrist keys, perft and
game adjudication. No I/O and no notation other than coordinates: :class:`BasePosition`
is the rules' position, and :class:`xqdb.Position` adds notation to it."""

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


def __getattr__(name: str) -> Any:
    if name == "Position":  # the rules' class under its old name, with a warning
        return _position.Position
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
