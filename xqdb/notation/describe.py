"""Piece descriptions: the model shared by Chinese and WXF notation.

Both notations name a move by *which piece* (its type and either its file or its place
among same pieces on one file), a *direction* (forward, backward, sideways) and a
*target* (a number of steps or a destination file). Files and directions are counted
from the mover's side: file 1 is the mover's rightmost file, forward is toward the enemy.

:func:`resolve` turns a :class:`Description` into the one legal move it names, and
:func:`locate` tells a writer how to name the piece that moves, so readers and writers of
both notations share one meaning of "front", "rear", "middle" and "second".

>>> from xqdb.rules import BasePosition
>>> move, loose = resolve(BasePosition(), Description(CANNON, 2, None, 0, 5), "C2.5")
>>> str(move), loose
('h2e2', False)
"""

from __future__ import annotations

from collections.abc import Callable

from typing import NamedTuple

from ..rules.board import (
    ADVISOR, ADVISOR_STEPS, BLACK, CANNON, COLOR_NAMES, ELEPHANT, ELEPHANT_STEPS, HORSE, PAWN,
    PIECE_NAMES, RED, SQUARE_NAMES, Color, Move, Piece, PieceType, Square,
)
from ..errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from ..rules.position import BasePosition

FORWARD = 1
BACKWARD = -1
SIDEWAYS = 0

_MOVE_OF = Move.of

#: ``board[FILE_OF[sq]]``: the file of ``sq``, rank 0 first. Made once: the hot paths
#: look at a file on every ply, and a ready slice spares building one each time.
FILE_OF: tuple[slice, ...] = tuple(slice(sq % 9, 90, 9) for sq in range(90))


class Order(NamedTuple):
    """A place among the same pieces on one file, as a function of how many there are.

    ``places[n]`` is the 0-based place, counted from the front, that the marker means when
    ``n`` pieces share the file (``-1``: the marker means nothing for ``n`` pieces).
    ``numeric`` markers (一兵, 二兵...) count across every file with two or more pawns when
    there are several such files, as xqbase does.
    """

    name: str
    places: tuple[int, ...]
    numeric: bool = False

    def place(self, count: int) -> int:
        return self.places[count] if count < len(self.places) else -1


#: 前: the piece nearest the enemy.
FRONT = Order("front", (-1, -1, 0, 0, 0, 0))
#: 后/後: the rearmost piece.
REAR = Order("rear", (-1, -1, 1, 2, 3, 4))
#: 中: the middle one of three (or of five).
MIDDLE = Order("middle", (-1, -1, -1, 1, -1, 2))
#: 一..五: the n-th from the front.
NTH = tuple(Order(f"#{k}", tuple(k - 1 if 2 <= n and k <= n else -1 for n in range(6)), True)
            for k in range(1, 6))
#: WXF official ``P+``/``P-``: front/rear of two or three, second/fourth... of four or five.
WXF_PLUS = Order("+", (-1, -1, 0, 0, 1, 1))
WXF_MINUS = Order("-", (-1, -1, 1, 2, 2, 3))
#: WXF official ``++``/``--``: first/last of four or five pawns.
WXF_FIRST = Order("++", (-1, -1, -1, -1, 0, 0))
WXF_LAST = Order("--", (-1, -1, -1, -1, 3, 4))


class Description(NamedTuple):
    """What a move text says, before it is matched against a position."""

    piece: int
    """Piece type (``KING`` .. ``PAWN``)."""
    file: int | None
    """File number from the mover's right (1..9), when the text gives one."""
    order: Order | None
    """Place among same pieces on one file, when the text gives one."""
    direction: int
    """``FORWARD``, ``BACKWARD`` or ``SIDEWAYS``."""
    target: int
    """Steps (straight moves of K, R, C, P) or destination file (1..9)."""
    file_means_middle: bool = False
    """WXF: a file number on a file of three or five pawns names the middle one."""


class DescriptionReader:
    """Turns the move texts of one notation into descriptions and moves, remembering the
    texts it has read: real files repeat a few thousand texts over and over.

    >>> read = DescriptionReader(lambda text: None, "a move like C2.5")
    >>> read("??")
    Traceback (most recent call last):
    ...
    xqdb.errors.InvalidMoveError: '??' is not a move like C2.5
    """

    #: Only guards against a hostile input; every valid text fits well within it.
    LIMIT = 200_000

    def __init__(self, describe: Callable[[str], "Description | None"], example: str) -> None:
        self._describe = describe
        self._example = example
        self._seen: dict[str, Description] = {}
        self._readings: dict[int, dict[str, _Reading]] = {RED: {}, BLACK: {}}

    def __call__(self, text: str) -> "Description":
        desc = self._seen.get(text)
        if desc is None:
            desc = self._describe(text)
            if desc is None:
                raise InvalidMoveError(f"{text!r} is not {self._example}")
            if len(self._seen) < self.LIMIT:
                self._seen[text] = desc
        return desc

    def read_move(self, pos: BasePosition, text: str) -> tuple[Move, bool]:
        """The one legal move ``text`` names in ``pos``, and whether the text was loose
        (see :func:`resolve`).

        >>> from xqdb.rules import BasePosition
        >>> read = DescriptionReader(lambda text: Description(CANNON, 2, None, 0, 5), "C2.5")
        >>> str(read.read_move(BasePosition(), "C2.5")[0])
        'h2e2'
        """
        move, loose, _ = self.read_alone(pos, text)
        return move, loose

    def read_alone(self, pos: BasePosition, text: str) -> tuple[Move, bool, bool]:
        """Like :meth:`read_move`, and whether the piece that moves stands alone on its
        file, as reading found out: its texts then follow from the piece and the move
        alone, and a replay writing them need not look at the file again.

        >>> from xqdb.rules import BasePosition
        >>> read = DescriptionReader(lambda text: Description(CANNON, 2, None, 0, 5), "C2.5")
        >>> move, loose, alone = read.read_alone(BasePosition(), "C2.5")
        >>> str(move), loose, alone
        ('h2e2', False, True)
        """
        color = pos.turn
        reading = self._readings[color].get(text)
        if reading is None:
            reading = self._reading(text, color)
        desc, piece, file, moves = reading
        if moves is not None and file is not None:
            # Nearly every text names a piece alone on its file: its rank alone gives the move.
            column = pos.board[file]
            if column.count(piece) == 1:
                move = moves[column.index(piece)]
                if move is not None:
                    if pos.is_legal(move):
                        return move, False, True
                    raise IllegalMoveError(f"{text!r}: {pos.explain_illegal(move)}")
        move, loose = resolve(pos, desc, text)
        return move, loose, False

    def _reading(self, text: str, color: Color) -> "_Reading":
        """Prepare ``text`` for ``color`` to move: done once, as reading a text is per ply."""
        desc = self(text)
        moves = None
        file = None
        if desc.order is None and desc.file is not None:
            index = file_index(color, desc.file)
            file = FILE_OF[index]
            moves = tuple(_lone_move(desc, color, rank * 9 + index) for rank in range(10))
        reading = _Reading(desc, desc.piece * color, file, moves)
        readings = self._readings[color]
        if len(readings) < self.LIMIT:
            readings[text] = reading
        return reading


class _Reading(NamedTuple):
    """A description prepared for one side to move."""

    desc: Description
    piece: int
    """The piece the text names, signed for the side to move."""
    file: slice | None
    """The file the text's file number names, as a slice of the board (see ``FILE_OF``)."""
    moves: tuple[Move | None, ...] | None
    """By rank: the move the text names when its piece stands there alone on ``file``
    (``None``: no move fits). ``None`` unless the text names its piece by a file number."""


def _lone_move(desc: Description, color: Color, sq: Square) -> Move | None:
    """The move ``desc`` names for a piece of ``color`` alone on its file at ``sq``."""
    dest = destination(desc.piece, color, sq, desc.direction, desc.target)
    return None if dest is None else _MOVE_OF(sq, dest)


def file_index(color: Color, number: int) -> int:
    """Board file (0..8, a..i) of file ``number`` (1..9) counted from ``color``'s right.

    >>> file_index(RED, 1), file_index(-RED, 1)
    (8, 0)
    """
    return 9 - number if color == RED else number - 1


def file_number(color: Color, file: int) -> int:
    """Inverse of :func:`file_index`."""
    return 9 - file if color == RED else file + 1


def _on_file(board: list[Piece], piece: Piece, file: int, color: Color) -> list[Square]:
    """Squares of ``piece`` on ``file``, front (nearest the enemy) first."""
    squares = [s for s in range(file, 90, 9) if board[s] == piece]
    if color == RED:
        squares.reverse()
    return squares


def _tandem_files(board: list[Piece], piece: Piece, color: Color) -> list[list[Square]]:
    """Files holding two or more of ``piece``, from the mover's right, each front first."""
    return [_on_file(board, piece, file, color) for file in _FILES_FROM_RIGHT[color]
            if board[FILE_OF[file]].count(piece) > 1]


#: Board files in the order of their numbers (1..9) for each side.
_FILES_FROM_RIGHT = {color: tuple(file_index(color, number) for number in range(1, 10))
                     for color in (RED, BLACK)}


_ELEPHANT_DESTS = tuple(frozenset(d for _, d in ELEPHANT_STEPS[s]) for s in range(90))
_ADVISOR_DESTS = tuple(frozenset(ADVISOR_STEPS[s]) for s in range(90))


def destination(ptype: PieceType, color: Color, sq: Square, direction: int,
                target: int) -> Square | None:
    """Where the piece on ``sq`` lands when it follows ``direction`` and ``target``.

    ``None`` when the description cannot fit a piece of that type there (a horse cannot
    move sideways, an elephant does not land one file away, the move leaves the board).

    >>> SQUARE_NAMES[destination(HORSE, RED, 1, FORWARD, 7)]
    'c2'
    """
    f, r = sq % 9, sq // 9
    if ptype == HORSE or ptype == ELEPHANT or ptype == ADVISOR:
        if direction == SIDEWAYS:
            return None
        df = abs(file_index(color, target) - f)
        if ptype == HORSE:
            dr = 3 - df if df in (1, 2) else 0
        elif ptype == ELEPHANT:
            dr = 2 if df == 2 else 0
        else:
            dr = 1 if df == 1 else 0
        if not dr:
            return None
        nr = r + dr * direction * color
        if not 0 <= nr <= 9:
            return None
        dest = nr * 9 + file_index(color, target)
        if ptype == ELEPHANT and dest not in _ELEPHANT_DESTS[sq]:
            return None
        if ptype == ADVISOR and dest not in _ADVISOR_DESTS[sq]:
            return None
        return dest
    if direction == SIDEWAYS:
        tf = file_index(color, target)
        return None if tf == f else r * 9 + tf
    nr = r + target * direction * color
    return nr * 9 + f if 0 <= nr <= 9 else None


def _piece_words(color: Color, ptype: PieceType) -> str:
    return f"{COLOR_NAMES[color]} {PIECE_NAMES[ptype]}"


def _candidates(board: list[Piece], desc: Description, color: Color, text: str) -> list[Square]:
    """Squares of the pieces the text may mean, before looking at the move itself."""
    piece = desc.piece * color
    if desc.order is None:
        if desc.file is None:
            raise InvalidMoveError(f"{text!r} names no file and no front/rear piece")
        squares = _on_file(board, piece, file_index(color, desc.file), color)
        if not squares:
            raise IllegalMoveError(f"{text!r}: there is no {_piece_words(color, desc.piece)} on "
                                f"file {desc.file} ({'abcdefghi'[file_index(color, desc.file)]})")
        return squares
    order = desc.order
    if desc.file is not None:
        files = [_on_file(board, piece, file_index(color, desc.file), color)]
    else:
        files = _tandem_files(board, piece, color)
        if not files:
            raise IllegalMoveError(f"{text!r}: no two {COLOR_NAMES[color]} {PIECE_NAMES[desc.piece]}s "
                                f"stand on one file, so {order.name!r} names no piece")
        if order.numeric and len(files) > 1:
            # xqbase numbers the tandem pawns of all files together.
            flat = [s for squares in files for s in squares]
            place = order.place(len(flat))
            if place < 0:
                raise IllegalMoveError(f"{text!r}: {len(flat)} tandem {PIECE_NAMES[desc.piece]}s "
                                    f"have no place {order.name!r}")
            return [flat[place]]
    out = []
    for squares in files:
        place = order.place(len(squares))
        if place >= 0:
            out.append(squares[place])
    if not out:
        where = " and ".join(f"{len(squares)} on file {file_number(color, squares[0] % 9)}"
                             for squares in files if squares)
        raise IllegalMoveError(f"{text!r}: {order.name!r} names no {_piece_words(color, desc.piece)} "
                            f"({where or 'none on file ' + str(desc.file)})")
    return out


def resolve(pos: BasePosition, desc: Description, text: str) -> tuple[Move, bool]:
    """The one legal move ``desc`` names in ``pos``, and whether the text was loose.

    A text is *loose* when it fits several pieces (a file number where 前/后 was due, 前兵
    with pawns doubled on two files) and exactly one of them can legally make the move.
    Raises :class:`~xqdb.errors.IllegalMoveError` (or :class:`~xqdb.errors.AmbiguousMoveError`)
    naming ``text`` otherwise.
    :meth:`DescriptionReader.read_move` reaches the same answer sooner for a lone piece.
    """
    color = pos.turn
    board = pos.board
    ptype = desc.piece
    squares = _candidates(board, desc, color, text)
    if desc.file_means_middle and len(squares) in (3, 5):
        middle = squares[len(squares) // 2]
        dest = destination(ptype, color, middle, desc.direction, desc.target)
        if dest is not None and pos.is_legal(_MOVE_OF(middle, dest)):
            return _MOVE_OF(middle, dest), False
    fits = []
    for sq in squares:
        dest = destination(ptype, color, sq, desc.direction, desc.target)
        if dest is not None:
            fits.append(_MOVE_OF(sq, dest))
    if not fits:
        where = " or ".join(SQUARE_NAMES[s] for s in squares)
        raise IllegalMoveError(f"{text!r}: the {PIECE_NAMES[ptype]} on {where} cannot move that way")
    legal = [m for m in fits if pos.is_legal(m)]
    if len(legal) == 1:
        # Advisors and elephants keep their file number even when two share a file:
        # the direction tells them apart, so only a second fit makes such a text loose.
        loose = len(fits) > 1 if ptype in (ADVISOR, ELEPHANT) else len(squares) > 1
        return legal[0], loose
    if not legal:
        if len(fits) == 1:
            raise IllegalMoveError(f"{text!r}: {pos.explain_illegal(fits[0])}")
        tried = "; ".join(f"{m}: {pos.explain_illegal(m)}" for m in fits)
        raise IllegalMoveError(f"{text!r}: no {PIECE_NAMES[ptype]} it may name can make the move "
                            f"({tried})")
    which = ", ".join(SQUARE_NAMES[m.from_square] for m in legal)
    raise AmbiguousMoveError(f"{text!r} is ambiguous: the {PIECE_NAMES[ptype]}s on {which} can all "
                             f"make it")


class Locator(NamedTuple):
    """How a writer names the moving piece: by file, or by its place on a shared file."""

    peers: int
    """Same pieces on the mover's file that the text must tell apart (1: none)."""
    place: int
    """0-based place of the mover among them, from the front."""
    several_files: bool
    """Pawns stand two or more deep on another file as well (so the file must be named)."""


_ALONE = Locator(1, 0, False)


def locate(board: list[Piece], move: Move) -> Locator:
    """Whether (and how) the piece making ``move`` must be told apart from its file mates.

    >>> from xqdb.rules import BasePosition
    >>> pos = BasePosition("4k4/9/9/9/4P4/4P4/9/9/9/3K5 w")
    >>> locate(pos.board, Move.from_uci("e5e6"))
    Locator(peers=2, place=0, several_files=False)
    """
    f = move.from_square
    piece = board[f]
    file = f % 9
    column = board[FILE_OF[f]]
    count = column.count(piece)
    if count == 1:
        return _ALONE
    color = 1 if piece > 0 else -1
    ptype = piece * color
    if ptype == ADVISOR or ptype == ELEPHANT:
        if not _twin_fits(board, move, piece, file):
            return _ALONE
    # The mover's place from the front is the number of its file mates ahead of it.
    rank = f // 9
    place = column[rank + 1:].count(piece) if color == RED else column[:rank].count(piece)
    several = False
    if ptype == PAWN:
        for other in range(9):
            if other != file and board[FILE_OF[other]].count(piece) > 1:
                several = True
                break
    return Locator(count, place, several)


def _twin_fits(board: list[Piece], move: Move, piece: Piece, file: int) -> bool:
    """Whether another advisor/elephant on the file fits the same direction and target."""
    f, t = move.from_square, move.to_square
    dr, tf = t // 9 - f // 9, t % 9
    dests = _ELEPHANT_DESTS if abs(piece) == ELEPHANT else _ADVISOR_DESTS
    for s in range(file, 90, 9):
        if s != f and board[s] == piece:
            r = s // 9 + dr
            if 0 <= r <= 9 and r * 9 + tf in dests[s]:
                return True
    return False


def motion(color: Color, move: Move) -> tuple[int, int]:
    """``(direction, target)`` of ``move`` for ``color``: the last two parts of a description.

    >>> motion(RED, Move.from_uci("h2e2")), motion(-RED, Move.from_uci("h9g7"))
    ((0, 5), (1, 7))
    """
    f, t = move.from_square, move.to_square
    dr = (t // 9 - f // 9) * color
    if dr == 0:
        return SIDEWAYS, file_number(color, t % 9)
    direction = FORWARD if dr > 0 else BACKWARD
    if t % 9 == f % 9:
        return direction, abs(dr)
    return direction, file_number(color, t % 9)


__all__ = [
    "FORWARD", "BACKWARD", "SIDEWAYS", "AmbiguousMoveError", "Order", "FRONT", "REAR", "MIDDLE",
    "NTH", "WXF_PLUS", "WXF_MINUS", "WXF_FIRST", "WXF_LAST", "Description", "Locator",
    "FILE_OF", "file_index", "file_number", "destination", "resolve", "locate", "motion",
]
