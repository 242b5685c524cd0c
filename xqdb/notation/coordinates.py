"""Coordinate notations: ICCS (``H2-E2``), UCI with ranks 0-9 (``h2e2``), UCI with ranks
1-10 (``h3e3``, Fairy-Stockfish in UCI mode) and DhtmlXQ digits (``7747``).

All four name squares, not pieces, so parsing needs no position; legality is checked by
the caller.

>>> str(parse_uci10("h10g8"))
'h9g7'
>>> write_dhtmlxq(parse_iccs("H2-E2"))
'7747'
"""

from __future__ import annotations

import re

from ..errors import InvalidMoveError, NotationError
from ..rules.board import FILE_NAMES, Move
from .tables import fold




_UCI10 = re.compile(r"([a-i])(10|[1-9])([a-i])(10|[1-9])")
_ICCS = re.compile(r"([A-Ia-i])([0-9])-?([A-Ia-i])([0-9])")
_DHTMLXQ = re.compile(r"([0-8])([0-9])([0-8])([0-9])")


def _match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """``pattern`` on ``text``, or on ``text`` folded to ASCII (``ｈ２ｅ２``, blanks)."""
    return pattern.fullmatch(text) or pattern.fullmatch(fold(text))


def _move(f1: str, r1: int, f2: str, r2: int) -> Move:
    return Move.of(r1 * 9 + FILE_NAMES.index(f1.lower()), r2 * 9 + FILE_NAMES.index(f2.lower()))


def parse_uci(text: str) -> Move:
    """``h2e2``: files a-i, ranks 0-9 (Pikafish, UCCI, ElephantEye)."""
    move = _UCI_MOVES.get(text)
    if move is None:
        m = _match(_ICCS, text)
        if not m or "-" in m[0]:
            raise InvalidMoveError(f"{text!r} is not a coordinate move like h2e2")
        move = _move(m[1], int(m[2]), m[3], int(m[4]))
    return move


def parse_iccs(text: str) -> Move:
    """``H2-E2`` (the hyphen and the case are optional)."""
    m = _match(_ICCS, text)
    if not m:
        raise InvalidMoveError(f"{text!r} is not an ICCS move like H2-E2")
    return _move(m[1], int(m[2]), m[3], int(m[4]))


def parse_uci10(text: str) -> Move:
    """``h3e3``, ``h10g8``: ranks 1-10, as Fairy-Stockfish writes in UCI mode."""
    m = _match(_UCI10, text)
    if not m:
        raise InvalidMoveError(f"{text!r} is not a coordinate move with ranks 1-10 like h3e3")
    return _move(m[1], int(m[2]) - 1, m[3], int(m[4]) - 1)


def parse_dhtmlxq(text: str) -> Move:
    """``7747``: x from Red's left (0-8), y from Black's back rank (0-9), twice."""
    m = _match(_DHTMLXQ, text)
    if not m:
        raise InvalidMoveError(f"{text!r} is not a DhtmlXQ move like 7747")
    x1, y1, x2, y2 = (int(g) for g in m.groups())
    return Move.of((9 - y1) * 9 + x1, (9 - y2) * 9 + x2)


def write_uci(move: Move) -> str:
    return str(move)


def write_iccs(move: Move) -> str:
    return _ICCS_TEXTS[move.code]


def write_uci10(move: Move) -> str:
    f, t = move.from_square, move.to_square
    return f"{FILE_NAMES[f % 9]}{f // 9 + 1}{FILE_NAMES[t % 9]}{t // 9 + 1}"


def write_dhtmlxq(move: Move) -> str:
    f, t = move.from_square, move.to_square
    return f"{f % 9}{9 - f // 9}{t % 9}{9 - t // 9}"


# Every from-to pair, precomputed: replay parses and writes coordinates at every ply.
_ALL_MOVES = [Move.of(f, t) for f in range(90) for t in range(90)]
_UCI_MOVES = {str(move): move for move in _ALL_MOVES}
_ICCS_TEXTS = [f"{str(move)[:2].upper()}-{str(move)[2:].upper()}" for move in _ALL_MOVES]
