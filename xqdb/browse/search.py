"""Finding games in a database: by position, in any move order, and by material.

A position is found through its Zobrist key in ``position_keys`` (every position of every
game: ``games.start_key`` for a game that starts there, ``moves.key_after`` for one that
reaches it after a move, sorted by key, see :mod:`xqdb.db.lookups`). The key covers the
board and the side to move and nothing else, so every move order that reaches the
position finds it (a transposition), and ``mirror=True`` adds the key of the left-right
mirror image, which is the same position for a player (``炮二平五`` mirrored is ``炮八平五``).

Material is found in ``material_spans``: a game's material changes only when a piece is
taken, so its *material states* are the start position's pieces less the pieces taken up
to each capture, stored by the import under a signature of their piece counts.
:class:`MaterialPattern` says which signatures match.

Invalid games are searched too, up to the move where their record failed: those moves
were played.

>>> pattern = MaterialPattern.parse("R r1 N0-1 P2+ p0")
>>> str(pattern)
'R1 N0-1 P2-5 r1 p0'
>>> pattern.matches({"R": 1, "r": 1, "N": 2, "P": 3, "p": 0})
False
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import BadArgumentError
from ..db.columns import move_text_column
from ..db.fetch import game_moves, material_condition, material_hits, position_hits, start_fen
from ..db.lookups import COUNTED, piece_column
from ..db.queries import Result
from ..db.schema import Connection
from ..db.selection import GameFilter
from .export import written_moves
from ..position import Position, mirrored
from ..rules.board import (ADVISOR, CANNON, CHARIOT, COLOR_NAMES, ELEPHANT, HORSE, KING,
                          LETTER_TO_TYPE, PAWN, PIECE_NAMES, RED, BLACK, Move, Piece,
                          PieceType, piece_symbol)

#: How many of each piece type a side has at the start, and so at most (no piece is ever
#: added to the board).
MOST: dict[PieceType, int] = {KING: 1, ADVISOR: 2, ELEPHANT: 2, HORSE: 2, CHARIOT: 2, CANNON: 2,
                        PAWN: 5}
#: Columns every search lists, in order (``next`` is the move played from the position).
COLUMNS = ["game_id", "ply", "red", "black", "result", "event", "date", "next"]


class SearchError(BadArgumentError, ValueError):
    """A material pattern that cannot be read: the message says what is wrong in it."""


@dataclass(frozen=True)
class Found:
    """The games a search found: the rows listed (at most the limit) and how many games
    matched in all."""

    games: Result
    total: int


@dataclass(frozen=True)
class MaterialPattern:
    """Which material a side may have: for each piece named, the fewest and most of it.

    The text form lists pieces by their FEN letters, upper case for Red and lower case for
    Black (``E`` and ``H`` are taken for ``B`` and ``N``, as in WXF). A letter is followed by
    a count: ``R2`` exactly two, ``P1-3`` from one to three, ``P2+`` at least two. A letter
    without a count counts once, so ``RR`` is ``R2``. Pieces not named may be any number;
    ``N0`` asks for none. A balance compares two sums of pieces: ``R>r`` (Red has more
    chariots than Black), ``RNC>=rnc`` (at least as many strong pieces), ``P=p``; the
    comparisons are ``>``, ``>=``, ``=``, ``<=`` and ``<``. Terms may be run together or
    parted by spaces or commas.

    >>> str(MaterialPattern.parse("RRcc, h0 RNC>rnc"))
    'R2 n0 c2 RNC>rnc'
    >>> MaterialPattern.parse("R3")
    Traceback (most recent call last):
    ...
    xqdb.browse.search.SearchError: 'R3': a side has at most 2 chariots
    """

    ranges: tuple[tuple[Piece, int, int], ...]
    """``(piece, fewest, most)`` for every piece named, in :data:`COUNTED` order."""
    balances: tuple[tuple[tuple[Piece, ...], str, tuple[Piece, ...]], ...] = ()
    """``(pieces, comparison, pieces)``: the sum of the counts on the left compared with
    the sum on the right, in the order written."""

    _TERM = re.compile(r"([A-Za-z])(\d+)?(?:(-)(\d+)|(\+))?")
    _BALANCE = re.compile(r"([A-Za-z]+)(>=|<=|=|>|<)([A-Za-z]+)")
    _COMPARE = {">": int.__gt__, ">=": int.__ge__, "=": int.__eq__, "<=": int.__le__,
                "<": int.__lt__}

    @classmethod
    def parse(cls, text: str) -> MaterialPattern:
        """The pattern ``text`` writes; raises :class:`SearchError` saying what is wrong."""
        bare: dict[Piece, int] = {}
        counted: dict[Piece, tuple[int, int]] = {}
        balances = []
        at = 0
        body = text.strip()
        while at < len(body):
            if body[at] in " ,":
                at += 1
                continue
            balance = cls._BALANCE.match(body, at)
            if balance is not None:
                at = balance.end()
                left, right = (cls._pieces(text, balance[i]) for i in (1, 3))
                balances.append((left, balance[2], right))
                continue
            m = cls._TERM.match(body, at)
            if m is None or m[1].upper() not in LETTER_TO_TYPE:
                raise SearchError(f"{text!r}: {body[at:at + 8]!r} is not a piece letter with "
                                  f"a count: R N B A C P, lower case for Black")
            at = m.end()
            ptype = LETTER_TO_TYPE[m[1].upper()]
            piece = ptype if m[1].isupper() else -ptype
            if ptype == KING:
                raise SearchError(f"{text!r}: each side always has its king")
            if m[2] is None:
                if m[3] or m[5]:
                    raise SearchError(f"{text!r}: {m[0]!r} needs a number before "
                                      f"{'-' if m[3] else '+'}")
                bare[piece] = bare.get(piece, 0) + 1
                continue
            if piece in counted:
                raise SearchError(f"{text!r}: {m[1]} is counted twice")
            low = int(m[2])
            high = int(m[4]) if m[3] else MOST[ptype] if m[5] else low
            if low > high:
                raise SearchError(f"{text!r}: {m[0]!r} is an empty range")
            counted[piece] = (low, high)
        for piece, count in bare.items():
            if piece in counted:
                raise SearchError(f"{text!r}: {piece_symbol(piece)} is counted twice")
            counted[piece] = (count, count)
        for piece, (_, high) in counted.items():
            if high > MOST[abs(piece)]:
                raise SearchError(f"{text!r}: a side has at most {MOST[abs(piece)]} "
                                  f"{PIECE_NAMES[abs(piece)]}s")
        if not counted and not balances:
            raise SearchError(f"{text!r} names no piece")
        return cls(tuple((p, *counted[p]) for p in COUNTED if p in counted), tuple(balances))

    @staticmethod
    def _pieces(text: str, letters: str) -> tuple[Piece, ...]:
        """The pieces a side of a balance names (``RNC``: Red's chariots, horses, cannons)."""
        pieces = []
        for letter in letters:
            ptype = LETTER_TO_TYPE.get(letter.upper())
            if ptype is None or ptype == KING:
                raise SearchError(f"{text!r}: {letter!r} in {letters!r} is not a piece that "
                                  f"can be counted: R N B A C P, lower case for Black")
            pieces.append(ptype if letter.isupper() else -ptype)
        return tuple(pieces)

    def __str__(self) -> str:
        counts = [f"{piece_symbol(p)}{low}" + ("" if low == high else f"-{high}")
                  for p, low, high in self.ranges]
        balances = ["".join(map(piece_symbol, left)) + compare + "".join(map(piece_symbol, right))
                    for left, compare, right in self.balances]
        return " ".join(counts + balances)

    def matches(self, counts: Mapping[str, int]) -> bool:
        """Whether material given as counts by FEN letter (absent: none) fits."""
        def total(pieces: tuple[Piece, ...]) -> int:
            return sum(counts.get(piece_symbol(p), 0) for p in pieces)

        return (all(low <= counts.get(piece_symbol(p), 0) <= high
                    for p, low, high in self.ranges)
                and all(self._COMPARE[compare](total(left), total(right))
                        for left, compare, right in self.balances))

    def sql(self) -> str:
        """The condition on the count columns of the material states (SQL written from the
        pattern's numbers and piece names, never from the text)."""
        return material_condition(self.ranges, self.balances)


def search_position(con: Connection, position: Position, *,
                    mirror: bool = False, notation: str = "chinese", limit: int = 100,
                    games: GameFilter | None = None) -> Found:
    """The games that reached ``position`` (or, with ``mirror``, its mirror image), each
    once, at the first ply it reached it, with the move it played next in ``notation``.

    A column ``mirrored`` is added with ``mirror``: whether the game reached the mirror
    image rather than the position itself.
    """
    shapes = {position.zobrist(): (position, False)}
    if mirror:
        image = mirrored(position)
        shapes.setdefault(image.zobrist(), (image, True))
    rows = position_hits(con, list(shapes), games, limit)
    out = []
    for *listed, code, _, key, _ in rows:
        shape, is_mirror = shapes[int(key)]
        text = None if code is None else shape.move_text(Move.from_code(code), notation)
        out.append((*listed, text, *((is_mirror,) if mirror else ())))
    columns = COLUMNS + (["mirrored"] if mirror else [])
    return Found(Result(columns, out), rows[0][-1] if rows else 0)


def search_material(con: Connection, pattern: MaterialPattern, *,
                    plies: int = 1, notation: str = "chinese", limit: int = 100,
                    games: GameFilter | None = None) -> Found:
    """The games whose material fitted ``pattern`` for at least ``plies`` plies in a row,
    each once, at the first ply it did, with the move it played next in ``notation``."""
    rows = material_hits(con, pattern.sql(), plies, games,
                         move_text_column(notation), limit)
    if move_text_column(notation) is None:
        rows = _written_next(con, rows, notation)
    return Found(Result(COLUMNS, [(*listed, text) for *listed, _, text, _, _ in rows]),
                 rows[0][-1] if rows else 0)


def _written_next(con: Connection, rows: Iterable[tuple], notation: str
                  ) -> list[tuple]:
    """``rows`` with the next move written in ``notation`` by replaying each game to it
    (for notations the database does not store)."""
    out = []
    for row in rows:
        game_id, ply, *_, code, _, found, total = row
        text = None
        if code is not None:
            fen, codes = start_fen(con, game_id), game_moves(con, game_id, ply + 1)
            text = written_moves(fen, codes, notation)[-1]
        out.append((*row[:-4], code, text, found, total))
    return out
