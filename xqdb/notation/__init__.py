"""Read and write moves in every notation Xiangqi records use.

``read_move(pos, text, notation)`` returns the move and whether the text was *loose*
(it fit several pieces but only one could legally make the move). An ambiguous or
impossible text raises :class:`NotationError` naming the text; nothing is guessed.

Notations: ``chinese`` (writes simplified glyphs), ``chinese-traditional`` (writes
traditional glyphs; both read every variant), ``wxf``, ``iccs`` (``H2-E2``), ``uci``
(``h2e2``, ranks 0-9), ``uci10`` (``h3e3``, ranks 1-10), ``dhtmlxq`` (``7747``) and, for
reading only, ``auto``, which sniffs each text.

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

from collections.abc import Callable

from ..errors import AmbiguousMoveError, NotationError, UnknownNotationError
from ..rules.board import Move
from ..rules.position import BasePosition
from .chinese import SIMPLIFIED_PLAIN, parse_chinese, write_chinese
from .coordinates import (
    parse_dhtmlxq, parse_iccs, parse_uci, parse_uci10, write_dhtmlxq,
    write_iccs, write_uci, write_uci10,
)
from .describe import FILE_OF
from .wxf import WXF_PLAIN, fold, parse_wxf, write_wxf

#: Notation names :func:`read_move` takes (``auto`` sniffs each text).
NOTATIONS = ("chinese", "chinese-traditional", "wxf", "iccs", "uci", "uci10", "dhtmlxq", "auto")
#: Notation names :func:`write_move` takes.
WRITTEN_NOTATIONS = NOTATIONS[:-1]

_COORDINATE_READERS: dict[str, Callable[[str], Move]] = {
    "uci": parse_uci,
    "iccs": parse_iccs,
    "uci10": parse_uci10,
    "dhtmlxq": parse_dhtmlxq,
}
_COORDINATE_WRITERS: dict[str, Callable[[Move], str]] = {
    "uci": write_uci,
    "iccs": write_iccs,
    "uci10": write_uci10,
    "dhtmlxq": write_dhtmlxq,
}
_PIECE_READERS: dict[str, Callable[[BasePosition, str], tuple[Move, bool]]] = {
    "chinese": parse_chinese,
    "chinese-traditional": parse_chinese,
    "wxf": parse_wxf,
}
#: Notations whose texts name a piece: reading one already finds the legal move.
PIECE_NOTATIONS = frozenset(_PIECE_READERS)
_FILES = frozenset("abcdefghiABCDEFGHI")
_DIGITS = frozenset("0123456789")


def sniff(text: str) -> str:
    """The notation a single move text is written in.

    Four-character coordinates are read with ranks 0-9 (``h2e2``): ranks 1-10 can only be
    told apart when a ``10`` shows, so name ``uci10`` explicitly for such files.

    >>> [sniff(t) for t in ("炮二平五", "九平八", "C2.5", "＋Ｐ＋１", "H2-E2", "h2e2", "h10g8", "7747")]
    ['chinese', 'chinese', 'wxf', 'wxf', 'iccs', 'uci', 'uci10', 'dhtmlxq']
    """
    text = text.strip()
    if text and "\u3400" <= text[0] < "\uff00":
        return "chinese"  # CJK; full-width ASCII (WXF, coordinates) starts at U+FF01
    text = fold(text)
    n = len(text)
    if n == 5 and text[2] == "-" and text[0] in _FILES and text[3] in _FILES:
        return "iccs"
    if n == 4:
        if text[0] in _FILES and text[2] in _FILES and text[1] in _DIGITS and text[3] in _DIGITS:
            return "uci"
        if all(c in _DIGITS for c in text):
            return "dhtmlxq"
    if 5 <= n <= 6 and "10" in text and text[0] in _FILES:
        return "uci10"
    return "wxf"


def read_move(pos: BasePosition, text: str, notation: str = "auto") -> tuple[Move, bool]:
    """Parse ``text`` against ``pos``; returns ``(move, loose)``.

    Chinese and WXF texts are resolved to a legal move (or raise :class:`NotationError`).
    Coordinate notations are returned as written (legality is the caller's check).
    """
    return reader_for(notation)(pos, text)


def reader_for(notation: str) -> Callable[[BasePosition, str], tuple[Move, bool]]:
    """The function :func:`read_move` applies for ``notation``, to bind once for a game.

    >>> from xqdb.rules import BasePosition
    >>> read = reader_for("chinese")
    >>> str(read(BasePosition(), "炮二平五")[0])
    'h2e2'
    """
    reader = _READERS.get(notation)
    if reader is None:
        raise UnknownNotationError(f"notation {notation!r} is not supported "
                            f"(use one of {', '.join(NOTATIONS)})")
    return reader


def _coordinates(parse: Callable[[str], Move]) -> Callable[[BasePosition, str], tuple[Move, bool]]:
    def read(pos: BasePosition, text: str) -> tuple[Move, bool]:
        return parse(text), False
    return read


def _sniffed(pos: BasePosition, text: str) -> tuple[Move, bool]:
    found = sniff(text)
    reader = _PIECE_READERS.get(found)
    if reader is not None:
        return reader(pos, text)
    return _COORDINATE_READERS[found](fold(text)), False


_READERS: dict[str, Callable[[BasePosition, str], tuple[Move, bool]]] = {
    **_PIECE_READERS,
    **{name: _coordinates(parse) for name, parse in _COORDINATE_READERS.items()},
    "auto": _sniffed,
}


def parse_move(pos: BasePosition, text: str, notation: str = "auto") -> Move:
    """Like :func:`read_move`, returning only the move."""
    return read_move(pos, text, notation)[0]


def write_move(pos: BasePosition, move: Move, notation: str) -> str:
    """Write the legal ``move`` of ``pos`` in ``notation``."""
    if notation == "chinese":
        return write_chinese(pos.board, move)
    if notation == "wxf":
        return write_wxf(pos.board, move)
    writer = _COORDINATE_WRITERS.get(notation)
    if writer is not None:
        return writer(move)
    if notation == "chinese-traditional":
        return write_chinese(pos.board, move, traditional=True)
    raise UnknownNotationError(f"notation {notation!r} cannot be written (use one of "
                        f"{', '.join(WRITTEN_NOTATIONS)})")


def write_wxf_and_chinese(board: list[int], move: Move) -> tuple[str, str]:
    """The WXF and (simplified) Chinese texts of the legal ``move`` on ``board``.

    What a replay writes for every ply. Both writers first ask whether the piece stands
    alone on its file, and then look its text up; asked together, the board is looked at
    once, which saves a quarter of the cost of writing both.

    >>> from xqdb.rules import BasePosition
    >>> write_wxf_and_chinese(BasePosition().board, Move.from_uci("h2e2"))
    ('C2.5', '炮二平五')
    """
    f = move.from_square
    piece = board[f]
    if board[FILE_OF[f]].count(piece) == 1:
        key = move.code
        wxf = WXF_PLAIN[piece].get(key)
        chinese = SIMPLIFIED_PLAIN[piece].get(key)
        if wxf is not None and chinese is not None:
            return wxf, chinese
    return write_wxf(board, move), write_chinese(board, move)


__all__ = ["NOTATIONS", "WRITTEN_NOTATIONS", "NotationError", "AmbiguousMoveError", "sniff",
           "read_move", "reader_for", "PIECE_NOTATIONS", "parse_move", "write_move",
           "write_wxf_and_chinese"]
