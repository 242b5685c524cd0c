"""Duplicate detection: which records are the same game.

Two records are the same game when they start from the same position (board and side to
move) and play the same main-line moves, whatever their tags, notation or format. The
key is a 64-bit hash, stored as ``games.content_hash`` (UBIGINT); the writer keeps the
first game with a key and links every later record to it in ``game_records``.

>>> from xqdb import Move
>>> start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"
>>> a = content_hash(start + " - - 0 1", [Move.from_uci("h2e2").code])
>>> a == content_hash(start + " - - 0 7", [Move.from_uci("h2e2").code])
True
>>> a == content_hash(start + " - - 0 1", [Move.from_uci("b2e2").code])
False
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence


def content_hash(start_fen: str, codes: Sequence[int]) -> int:
    """Unsigned 64-bit key of (start position, moves); move counters in the FEN are ignored
    because sources disagree about them for the same position.

    The moves are given by their codes (:attr:`xqdb.rules.board.Move.code`), which enter
    the hash as two little-endian bytes each, so the key is the same on every machine."""
    board_and_turn = " ".join(start_fen.split()[:2])
    digest = hashlib.blake2b(digest_size=8)
    digest.update(board_and_turn.encode())
    digest.update(b"|")
    digest.update(struct.pack(f"<{len(codes)}H", *codes))
    return int.from_bytes(digest.digest(), "big")
