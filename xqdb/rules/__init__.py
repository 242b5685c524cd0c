"""The rules of Xiangqi: board, pieces, positions, legal moves, Zobrist keys, perft and
game adjudication. No I/O and no notation other than coordinates."""

from .board import (
    ADVISOR, BLACK, CANNON, CHARIOT, ELEPHANT, HORSE, KING, PAWN, PIECE_TYPES, RED,
    Move, parse_square, piece_symbol, square, square_file, square_name, square_rank,
)
from .adjudication import DEFAULT_MOVE_LIMIT, ENDING_NAMES, Adjudicator, Ending, adjudicate
from .perft import divide, perft
from .position import STARTING_FEN, FenError, IllegalMoveError, Position, attacked, parse_fen

__all__ = [
    "ADVISOR", "BLACK", "CANNON", "CHARIOT", "ELEPHANT", "HORSE", "KING", "PAWN", "PIECE_TYPES",
    "RED", "Move", "parse_square", "piece_symbol", "square", "square_file", "square_name",
    "square_rank", "divide", "perft", "STARTING_FEN", "FenError", "IllegalMoveError",
    "Position", "attacked", "parse_fen", "DEFAULT_MOVE_LIMIT", "ENDING_NAMES", "Adjudicator",
    "Ending", "adjudicate",
]
