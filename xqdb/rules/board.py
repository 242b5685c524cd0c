"""Squares, pieces, moves and the precomputed geometry of the Xiangqi board.

Squares are numbered ``rank * 9 + file``: file 0..8 is ``a``..``i`` from Red's left,
rank 0..9 runs from Red's back rank to Black's, so the red king starts on ``e0`` (4)
and the black king on ``e9`` (85). This is the square model of ICCS and of UCI engines
that write ranks 0-9 (Pikafish, UCCI).

Pieces are signed integers: the piece type (1..7) times the colour (``RED = 1``,
``BLACK = -1``). ``0`` is an empty point.

>>> square_name(square(7, 2))
'h2'
>>> str(Move.from_uci("h2e2"))
'h2e2'
>>> piece_symbol(-HORSE)
'n'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeAlias

# The vocabulary is of plain ints, as in python-chess: the board is a list of piece codes
# that the move generator reads millions of times a second, and an alias costs nothing.
Color: TypeAlias = int
"""``RED`` (1) or ``BLACK`` (-1): the sign of a piece code, and a factor that flips it."""
Square: TypeAlias = int
"""0..89, ``rank * 9 + file``."""
PieceType: TypeAlias = int
"""``KING`` (1) .. ``PAWN`` (7)."""
Piece: TypeAlias = int
"""A signed piece code, ``piece_type * color`` (0: an empty point)."""

RED: Final[Color] = 1
BLACK: Final[Color] = -1
COLORS: Final = (RED, BLACK)
COLOR_NAMES: Final[dict[Color, str]] = {RED: "red", BLACK: "black"}

KING: Final[PieceType] = 1
ADVISOR: Final[PieceType] = 2
ELEPHANT: Final[PieceType] = 3
HORSE: Final[PieceType] = 4
CHARIOT: Final[PieceType] = 5
CANNON: Final[PieceType] = 6
PAWN: Final[PieceType] = 7
PIECE_TYPES: Final = (KING, ADVISOR, ELEPHANT, HORSE, CHARIOT, CANNON, PAWN)

#: FEN letters of the piece types (upper case is Red).
PIECE_LETTERS: Final = " KABNRCP"
#: Letters accepted on input: the standard set plus E (elephant) and H (horse).
LETTER_TO_TYPE: Final[dict[str, PieceType]] = {
    "K": KING, "A": ADVISOR, "B": ELEPHANT, "E": ELEPHANT, "N": HORSE, "H": HORSE,
    "R": CHARIOT, "C": CANNON, "P": PAWN,
}
PIECE_NAMES: Final[dict[PieceType, str]] = {
    KING: "king", ADVISOR: "advisor", ELEPHANT: "elephant", HORSE: "horse",
    CHARIOT: "chariot", CANNON: "cannon", PAWN: "pawn",
}

FILE_NAMES: Final = "abcdefghi"
NUM_SQUARES: Final = 90
SQUARES: Final = range(NUM_SQUARES)


def square(file: int, rank: int) -> Square:
    """The square at ``file`` (0..8, a..i) and ``rank`` (0..9, Red's back rank first)."""
    return rank * 9 + file


def square_file(sq: Square) -> int:
    return sq % 9


def square_rank(sq: Square) -> int:
    return sq // 9


SQUARE_NAMES: Final = tuple(FILE_NAMES[s % 9] + str(s // 9) for s in SQUARES)
_SQUARE_BY_NAME: Final = {name: s for s, name in enumerate(SQUARE_NAMES)}


def square_name(sq: Square) -> str:
    """``e0`` style name of a square (ranks 0-9)."""
    return SQUARE_NAMES[sq]


def parse_square(name: str) -> Square:
    """Inverse of :func:`square_name`; raises ``ValueError`` for anything else."""
    try:
        return _SQUARE_BY_NAME[name]
    except KeyError:
        raise ValueError(f"not a square: {name!r}") from None


def piece_symbol(piece: Piece) -> str:
    """FEN letter of a signed piece: upper case for Red."""
    letter = PIECE_LETTERS[abs(piece)]
    return letter if piece > 0 else letter.lower()


def piece_color(piece: Piece) -> Color:
    return RED if piece > 0 else BLACK


class Move:
    """A move from one square to another.

    Moves are interned: ``Move.of(f, t)`` always returns the same object, so creating
    them costs a list lookup. ``str(move)`` is the coordinate form with ranks 0-9.

    >>> Move.of(7, 4) is Move.from_uci("h0e0")
    True
    """

    __slots__ = ("from_square", "to_square", "code")

    from_square: Square
    to_square: Square
    code: int
    """``from_square * 90 + to_square``: the move as one small number (0..8099), the form
    the database stores (``moves.move``)."""

    def __init__(self, from_square: Square, to_square: Square) -> None:
        self.from_square = from_square
        self.to_square = to_square
        self.code = from_square * 90 + to_square

    @staticmethod
    def of(from_square: Square, to_square: Square) -> "Move":
        return _MOVES[from_square * 90 + to_square]

    @staticmethod
    def from_code(code: int) -> "Move":
        """The move whose :attr:`code` is ``code``."""
        return _MOVES[code]

    @staticmethod
    def from_uci(text: str) -> "Move":
        """Parse ``h2e2`` (ranks 0-9). Raises ``ValueError`` on anything else."""
        if len(text) != 4:
            raise ValueError(f"not a coordinate move: {text!r}")
        return Move.of(parse_square(text[:2]), parse_square(text[2:]))

    def uci(self) -> str:
        return SQUARE_NAMES[self.from_square] + SQUARE_NAMES[self.to_square]

    def __str__(self) -> str:
        return SQUARE_NAMES[self.from_square] + SQUARE_NAMES[self.to_square]

    def __repr__(self) -> str:
        return f"Move.from_uci({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self.from_square == other.from_square and self.to_square == other.to_square
        return NotImplemented

    def __hash__(self) -> int:
        return self.code

    def __reduce__(self) -> tuple[Callable[[Square, Square], "Move"], tuple[Square, Square]]:
        return (Move.of, (self.from_square, self.to_square))


_MOVES: Final = [Move(f, t) for f in SQUARES for t in SQUARES]

#: MOVES_FROM[f][t] is ``Move.of(f, t)``: the move generators index this row by the
#: destination instead of calling a function for every move.
MOVES_FROM: Final = tuple(tuple(_MOVES[f * 90:(f + 1) * 90]) for f in SQUARES)


# --- Geometry tables -------------------------------------------------------------------
# Everything a move generator needs is looked up, never computed, in the hot loops.


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 9 and 0 <= rank < 10


def _in_palace(file: int, rank: int) -> bool:
    return 3 <= file <= 5 and (0 <= rank <= 2 or 7 <= rank <= 9)


def _ray(sq: int, df: int, dr: int) -> tuple[int, ...]:
    f, r = sq % 9 + df, sq // 9 + dr
    out = []
    while _on_board(f, r):
        out.append(square(f, r))
        f, r = f + df, r + dr
    return tuple(out)


ORTHOGONAL: Final = ((0, 1), (0, -1), (1, 0), (-1, 0))
DIAGONAL: Final = ((1, 1), (1, -1), (-1, 1), (-1, -1))

#: RAYS[sq] = the four lines leaving ``sq`` (north, south, east, west), nearest first.
RAYS: Final = tuple(tuple(_ray(s, df, dr) for df, dr in ORTHOGONAL) for s in SQUARES)

#: KING_STEPS[sq] = orthogonal neighbours inside the palace.
KING_STEPS: Final = tuple(
    tuple(square(s % 9 + df, s // 9 + dr) for df, dr in ORTHOGONAL
          if _in_palace(s % 9 + df, s // 9 + dr))
    for s in SQUARES
)

#: ADVISOR_STEPS[sq] = diagonal neighbours inside the palace.
ADVISOR_STEPS: Final = tuple(
    tuple(square(s % 9 + df, s // 9 + dr) for df, dr in DIAGONAL
          if _in_palace(s % 9 + df, s // 9 + dr))
    for s in SQUARES
)


def _same_half(a: int, b: int) -> bool:
    return (a // 9 <= 4) == (b // 9 <= 4)


#: ELEPHANT_STEPS[sq] = (eye, destination) pairs that stay on the elephant's side of the river.
ELEPHANT_STEPS: Final = tuple(
    tuple(
        (square(s % 9 + df, s // 9 + dr), square(s % 9 + 2 * df, s // 9 + 2 * dr))
        for df, dr in DIAGONAL
        if _on_board(s % 9 + 2 * df, s // 9 + 2 * dr)
        and _same_half(s, square(s % 9 + 2 * df, s // 9 + 2 * dr))
    )
    for s in SQUARES
)

_HORSE_JUMPS: Final = tuple(
    ((df, dr), (lf, lr))
    for (lf, lr) in ORTHOGONAL
    for (df, dr) in ((2 * lf + lr, 2 * lr + lf), (2 * lf - lr, 2 * lr - lf))
)

#: HORSE_STEPS[sq] = (leg, destination) pairs: the horse is blocked when ``leg`` is occupied.
HORSE_STEPS: Final = tuple(
    tuple(
        (square(s % 9 + lf, s // 9 + lr), square(s % 9 + df, s // 9 + dr))
        for (df, dr), (lf, lr) in _HORSE_JUMPS
        if _on_board(s % 9 + df, s // 9 + dr)
    )
    for s in SQUARES
)

#: HORSE_ATTACKS[sq] = (leg, origin) pairs: a horse on ``origin`` reaches ``sq`` when ``leg`` is empty.
HORSE_ATTACKS: Final = tuple(
    tuple((leg, origin) for origin in SQUARES for leg, dest in HORSE_STEPS[origin] if dest == target)
    for target in SQUARES
)


def _pawn_steps(sq: Square, color: Color) -> tuple[Square, ...]:
    f, r = sq % 9, sq // 9
    crossed = r >= 5 if color == RED else r <= 4
    steps = []
    if _on_board(f, r + color):
        steps.append(square(f, r + color))
    if crossed:
        steps.extend(square(f + d, r) for d in (-1, 1) if _on_board(f + d, r))
    return tuple(steps)


#: Per colour, then per square: a table indexed by the colour itself, ``RED`` (1) being
#: slot 1 and ``BLACK`` (-1) the last slot, so the hot loops index without a branch.
#: Slot 0 is unused.
ByColor: TypeAlias = tuple[tuple[tuple[Square, ...], ...], ...]

#: PAWN_STEPS[color][sq]: forward, and sideways once across the river.
PAWN_STEPS: Final[ByColor] = ((), tuple(_pawn_steps(s, RED) for s in SQUARES),
                              tuple(_pawn_steps(s, BLACK) for s in SQUARES))

#: PAWN_ATTACKS[color][sq]: squares from which a pawn of ``color`` reaches ``sq``.
PAWN_ATTACKS: Final[ByColor] = (
    (),
    tuple(tuple(o for o in SQUARES if t in PAWN_STEPS[RED][o]) for t in SQUARES),
    tuple(tuple(o for o in SQUARES if t in PAWN_STEPS[BLACK][o]) for t in SQUARES),
)

#: Where each piece type may ever stand, per colour (an advisor off its five points, a red
#: pawn behind its start rank... cannot be reached in a game).
def _reachable(ptype: int, color: int) -> frozenset[int]:
    if ptype in (HORSE, CHARIOT, CANNON):
        return frozenset(SQUARES)
    own_half = [s for s in SQUARES if (s // 9 <= 4) == (color == RED)]
    if ptype == KING:
        return frozenset(s for s in own_half if _in_palace(s % 9, s // 9))
    if ptype == ADVISOR:
        corner_parity = 1 if color == RED else 0  # d0 and d9 lie on different colours
        return frozenset(s for s in own_half
                         if _in_palace(s % 9, s // 9) and (s % 9 + s // 9) % 2 == corner_parity)
    if ptype == ELEPHANT:
        start = 2 if color == RED else 9 * 9 + 2
        seen, todo = {start}, [start]
        while todo:
            for _, dest in ELEPHANT_STEPS[todo.pop()]:
                if dest not in seen:
                    seen.add(dest)
                    todo.append(dest)
        return frozenset(seen)
    # Pawns: on the start files before the river, anywhere beyond it.
    ranks_before = (3, 4) if color == RED else (6, 5)
    before = {square(f, r) for f in (0, 2, 4, 6, 8) for r in ranks_before}
    beyond = {s for s in SQUARES if (s // 9 >= 5) == (color == RED)}
    return frozenset(before | beyond)


REACHABLE: Final = {(t * c): _reachable(t, c) for t in PIECE_TYPES for c in (RED, BLACK)}
#: How many of each piece type a side starts with.
PIECE_COUNTS: Final = {KING: 1, ADVISOR: 2, ELEPHANT: 2, HORSE: 2, CHARIOT: 2, CANNON: 2, PAWN: 5}


def _lines_through(sq: int) -> frozenset[int]:
    return frozenset(s for s in SQUARES if s != sq and (s % 9 == sq % 9 or s // 9 == sq // 9))


#: LINES[sq]: the other squares on ``sq``'s file and rank.
LINES: Final = tuple(_lines_through(s) for s in SQUARES)

#: EXPOSING[sq]: squares whose emptying can open an attack on a king standing on ``sq``
#: (its file and rank, where chariots, cannons and the other king act, and the four
#: diagonal neighbours, which are the legs of horses attacking it).
EXPOSING: Final = tuple(
    LINES[s] | frozenset(leg for leg, _ in HORSE_ATTACKS[s]) for s in SQUARES
)

#: CHECKING[sq]: squares a move must touch (as origin or destination) to give check to a
#: king on ``sq`` that was not in check before it.
CHECKING: Final = tuple(
    EXPOSING[s]
    | frozenset(origin for _, origin in HORSE_ATTACKS[s])
    | frozenset(PAWN_ATTACKS[RED][s]) | frozenset(PAWN_ATTACKS[BLACK][s])
    for s in SQUARES
)


def _ray_index(sq: int) -> tuple[int, ...]:
    index = [-1] * NUM_SQUARES
    for d, ray in enumerate(RAYS[sq]):
        for s in ray:
            index[s] = d
    return tuple(index)


#: RAY_INDEX[sq][other]: which of ``RAYS[sq]`` holds ``other`` (-1: none).
RAY_INDEX: Final = tuple(_ray_index(s) for s in SQUARES)


def _between(f: int, t: int) -> tuple[int, ...] | None:
    d = RAY_INDEX[f][t]
    if d < 0:
        return None
    ray = RAYS[f][d]
    return ray[:ray.index(t)]


#: BETWEEN[f * 90 + t]: the squares strictly between ``f`` and ``t`` on their shared file or
#: rank, nearest ``f`` first (``None`` when they share neither, or are the same square).
BETWEEN: Final = tuple(_between(f, t) for f in SQUARES for t in SQUARES)
