"""Perft: count the leaf nodes of the legal-move tree, the standard move-generator test.

>>> from xqdb.rules import BasePosition
>>> perft(BasePosition(), 2)
1920
"""

from __future__ import annotations

from .board import Move
from .position import BasePosition


def perft(pos: BasePosition, depth: int) -> int:
    """Number of legal move sequences of length ``depth`` from ``pos``."""
    if depth <= 0:
        return 1
    moves = pos.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        pos.push(move)
        total += perft(pos, depth - 1)
        pos.pop()
    return total


def divide(pos: BasePosition, depth: int) -> dict[Move, int]:
    """Perft split by first move, to find which subtree disagrees with a reference."""
    counts = {}
    for move in pos.legal_moves():
        pos.push(move)
        counts[move] = perft(pos, depth - 1)
        pos.pop()
    return counts
