"""64-bit Zobrist keys for Xiangqi positions.

The keys are part of xqdb's database format (``moves.key_before``/``key_after``), so the
table is generated from a fixed seed and must never change.

>>> from xqdb.rules import BasePosition
>>> BasePosition().zobrist() == BasePosition().zobrist()
True
"""

from __future__ import annotations

import random
from typing import Final

from .board import NUM_SQUARES, PIECE_TYPES, RED, BLACK

_SEED: Final = 0x58514442  # "XQDB"


def _make_tables() -> tuple[list[list[int]], int]:
    rng = random.Random(_SEED)
    # Indexed by the signed piece: 1..7 are Red, -7..-1 wrap to the last seven slots.
    table: list[list[int]] = [[0] * NUM_SQUARES for _ in range(15)]
    for color in (RED, BLACK):
        for ptype in PIECE_TYPES:
            table[ptype * color] = [rng.getrandbits(64) for _ in range(NUM_SQUARES)]
    return table, rng.getrandbits(64)


#: PIECE_KEYS[piece][square]; index with the signed piece code.
PIECE_KEYS, BLACK_TO_MOVE_KEY = _make_tables()


def board_key(board: list[int], turn: int) -> int:
    """Key of a whole board, computed from scratch (positions update theirs incrementally)."""
    key = BLACK_TO_MOVE_KEY if turn == BLACK else 0
    for sq, piece in enumerate(board):
        if piece:
            key ^= PIECE_KEYS[piece][sq]
    return key
