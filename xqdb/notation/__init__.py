"""Read and write moves in every notation Xiangqi records use.

``read_move(pos, text, notation)`` returns the move and whether the text was *loose*
(it fit several pieces but only one could legally make the move). An ambiguous or
impossible text raises :class:`NotationError` naming the text; nothing is guessed.

>>> from xqdb.rules import Position
>>> move, loose = read_move(Position(), "h2e2", "uci")
>>> write_move(Position(), move, "iccs")
'H2-E2'
"""

from __future__ import annotations

from ..rules.board import Move
from ..rules.position import Position
from .coordinates import (
    NotationError, parse_dhtmlxq, parse_iccs, parse_uci, parse_uci10, write_dhtmlxq,
    write_iccs, write_uci, write_uci10,
)

_COORDINATE_READERS = {
    "uci": parse_uci,
    "iccs": parse_iccs,
    "uci10": parse_uci10,
    "dhtmlxq": parse_dhtmlxq,
}
_COORDINATE_WRITERS = {
    "uci": write_uci,
    "iccs": write_iccs,
    "uci10": write_uci10,
    "dhtmlxq": write_dhtmlxq,
}


def read_move(pos: Position, text: str, notation: str = "auto") -> tuple[Move, bool]:
    """Parse ``text`` against ``pos``; returns ``(move, loose)``.

    Coordinate notations are returned as written (legality is the caller's check).
    """
    reader = _COORDINATE_READERS.get(notation)
    if reader is not None:
        return reader(text), False
    raise NotationError(f"notation {notation!r} is not supported")


def parse_move(pos: Position, text: str, notation: str = "auto") -> Move:
    """Like :func:`read_move`, returning only the move."""
    return read_move(pos, text, notation)[0]


def write_move(pos: Position, move: Move, notation: str) -> str:
    """Write the legal ``move`` of ``pos`` in ``notation``."""
    writer = _COORDINATE_WRITERS.get(notation)
    if writer is not None:
        return writer(move)
    raise NotationError(f"notation {notation!r} is not supported")


__all__ = ["NotationError", "read_move", "parse_move", "write_move"]
