"""Pieces shared by the binary readers (XQF, CBR/CBL) and the CBF reader.

Those formats store a start position as piece placements and a game as a tree of
moves written depth-first, each node flagged "a move follows" and "an alternative to
me follows after my subtree". :class:`TreeBuilder` turns such a node stream into the
:class:`~xqdb.formats.record.Line` tree without recursion, so a file holding thousands
of variations (a whole tournament series in one XQF) cannot hit Python's stack limit.

>>> from xqdb.formats.record import Line
>>> main = Line()
>>> tree = TreeBuilder(main)
>>> tree.add("h2e2", has_child=True, has_sibling=True)
True
>>> tree.add("h9g7", has_child=False, has_sibling=False)
True
>>> tree.add("b2e2", has_child=False, has_sibling=False, comment="other cannon")
False
>>> main.moves, [(i, line.moves) for i, line in main.variations]
(['h2e2', 'h9g7'], [(0, ['b2e2'])])
>>> main.variations[0][1].comments
{1: 'other cannon'}
"""

from __future__ import annotations

from ..rules.board import BLACK, NUM_SQUARES, RED, Move
from ..position import Position
from ..rules.position import is_standard_start
from .record import Line

#: Result codes shared by XQF and CBR headers: 0 unknown, 1 Red wins, 2 Black wins, 3 draw.
RESULT_CODES: dict[int, str] = {0: "*", 1: "1-0", 2: "0-1", 3: "1/2-1/2"}


def result_from_code(code: int) -> str:
    """PGN result of a header result byte; anything unknown is ``*``.

    >>> result_from_code(3), result_from_code(9)
    ('1/2-1/2', '*')
    """
    return RESULT_CODES.get(code, "*")


def board_fen(board: list[int], turn: int) -> str | None:
    """FEN of ``board`` with ``turn`` to move, ``None`` when it is exactly the standard start.

    >>> board_fen(Position().board, RED) is None
    True
    >>> board_fen(Position().board, -RED)
    'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1'
    """
    pos = Position.empty()
    pos.board = board
    pos.turn = turn
    fen = pos.fen()
    return None if is_standard_start(fen) else fen


def side_of_first_move(board: list[int], from_square: int | None, default: int) -> int:
    """The side to move, decided by the colour of the piece on the first move's origin.

    Real files often carry a wrong side-to-move byte; the first move cannot lie. When
    there is no move or its origin is empty, ``default`` (the header's word) stands.

    >>> side_of_first_move(Position().board, 7 * 9 + 1, RED)
    -1
    """
    if from_square is None or not 0 <= from_square < NUM_SQUARES or not board[from_square]:
        return default
    return RED if board[from_square] > 0 else BLACK


#: UCI_TEXTS[from * 90 + to]: the coordinate text of every move, built once (readers
#: produce one per move node, millions in a large import).
UCI_TEXTS: tuple[str, ...] = tuple(str(Move.of(f, t)) for f in range(NUM_SQUARES)
                                   for t in range(NUM_SQUARES))


def uci(from_square: int, to_square: int) -> str:
    """Coordinate text (ranks 0-9) of a move between two valid squares.

    >>> uci(7 * 9 + 7, 7 * 9 + 4)
    'h7e7'
    """
    return UCI_TEXTS[from_square * 90 + to_square]


class TreeBuilder:
    """Places moves stored depth-first into a :class:`Line` tree.

    Each node says whether its continuation follows (``has_child``) and whether an
    alternative to it follows once its whole subtree has been read (``has_sibling``).
    An alternative to the first move of a variation is attached to the line that
    variation branches from, as PGN does, so long chains of alternatives stay flat.
    """

    __slots__ = ("_next", "_pending", "nodes")

    def __init__(self, mainline: Line) -> None:
        # Where the next node goes: (line to extend, None) or (host line, index) for an
        # alternative to host.moves[index].
        self._next: tuple[Line, int | None] | None = (mainline, None)
        self._pending: list[tuple[Line, int]] = []
        self.nodes = 0
        """Moves placed so far."""

    @property
    def expecting(self) -> bool:
        """Whether the flags read so far announce another node."""
        return self._next is not None

    def add(self, move: str, has_child: bool, has_sibling: bool, comment: str = "") -> bool:
        """Place ``move``; returns whether another node is expected."""
        target = self._next
        if target is None:
            raise ValueError("no move is expected here")
        line, index = target
        anchor: tuple[Line, int]
        if index is None:
            line.moves.append(move)
            here = len(line.moves) - 1
            anchor = (line, here)
        else:
            variation = Line(moves=[move])
            line.variations.append((index, variation))
            anchor = (line, index)
            line, here = variation, 0
        if comment:
            line.comments[here + 1] = comment
        self.nodes += 1
        if has_sibling:
            self._pending.append(anchor)
        if has_child:
            self._next = (line, None)
        elif self._pending:
            self._next = self._pending.pop()
        else:
            self._next = None
        return self._next is not None
