"""Read and write moves in every notation Xiangqi records use.

``read_move(pos, text, notation)`` returns the move and whether the text was *loose*
(it fit several pieces but only one could legally make the move). An ambiguous or
impossible text raises :class:`NotationError` naming the text; nothing is guessed.

The notations are the entries of :data:`REGISTRY` (see :mod:`xqdb.notation.registry`),
and, for reading only, ``auto``, which sniffs each text.

>>> from xqdb.rules import BasePosition
>>> move, loose = read_move(BasePosition(), "h2e2", "uci")
>>> write_move(BasePosition(), move, "iccs")
'H2-E2'
>>> [write_move(BasePosition(), move, n) for n in ("chinese", "wxf", "dhtmlxq")]
['炮二平五', 'C2.5', '7747']
>>> str(parse_move(BasePosition(), "Ｈ８＋７")), str(parse_move(BasePosition(), "馬八進七"))
('b0c2', 'b0c2')
"""

from __future__ import annotations

from ..rules.board import Move
from ..rules.position import BasePosition
from .chinese import write_wxf_and_chinese
from .coordinates import NotationError
from .describe import AmbiguousMoveError
from .registry import (
    AUTO, NOTATIONS, REGISTRY, WRITTEN_NOTATIONS, MoveReader, Notation, from_tag, lookup,
    reader, sniff, sniff_moves, writer,
)
from .tables import fold


def read_move(pos: BasePosition, text: str, notation: str = AUTO) -> tuple[Move, bool]:
    """Parse ``text`` against ``pos``; returns ``(move, loose)``.

    Chinese, WXF and algebraic texts are resolved to a legal move (or raise
    :class:`NotationError`). Coordinate notations are returned as written (legality is the
    caller's check).
    """
    return reader(notation)(pos, text)


def reader_for(notation: str) -> MoveReader:
    """The function :func:`read_move` applies for ``notation``, to bind once for a game.

    >>> from xqdb.rules import BasePosition
    >>> read = reader_for("chinese")
    >>> str(read(BasePosition(), "炮二平五")[0])
    'h2e2'
    """
    return reader(notation)


def parse_move(pos: BasePosition, text: str, notation: str = AUTO) -> Move:
    """Like :func:`read_move`, returning only the move."""
    return read_move(pos, text, notation)[0]


def write_move(pos: BasePosition, move: Move, notation: str) -> str:
    """Write the legal ``move`` of ``pos`` in ``notation``."""
    return writer(notation)(pos, move)


__all__ = ["NOTATIONS", "WRITTEN_NOTATIONS", "REGISTRY", "Notation", "NotationError",
           "AmbiguousMoveError", "lookup", "from_tag", "sniff", "sniff_moves", "fold", "read_move",
           "reader_for", "parse_move", "write_move", "write_wxf_and_chinese"]
