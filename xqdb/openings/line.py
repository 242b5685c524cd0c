"""The opening of a game as the classifiers read it: its first plies, in ECCO's frame.

ECCO reads at most :data:`OPENING_PLIES` plies and names wings as if Red had opened on
the right: when Red's first move starts on files 六-九 (board files a-d), every move of
both sides is mirrored left to right, so 炮八平五 reads as 炮二平五 and 兵七进一 as 兵三进一.

>>> line = OpeningLine.read(["炮八平五", "马2进3", "马八进七"])
>>> line.mirrored, [str(move) for move in line.moves]
(True, ['h2e2', 'h9g7', 'h0g2'])
>>> line.texts()
['炮二平五', '马８进７', '马二进三']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from ..notation import NotationError
from ..notation.chinese import write_chinese
from ..position import Position
from ..rules.board import NUM_SQUARES, Move, piece_symbol
from ..rules.position import is_standard_start

#: Plies ECCO looks at: a code is fixed within the first ten rounds.
OPENING_PLIES = 20

_START = Position()
_START_BOARD: tuple[int, ...] = tuple(_START.board)
_MIRROR = tuple(sq - sq % 9 + 8 - sq % 9 for sq in range(NUM_SQUARES))
#: A red first move starting on files a-d (六-九 from Red's side) is mirrored.
_LEFT_FILES = frozenset(range(4))


def mirror_move(move: Move) -> Move:
    """``move`` reflected left to right (file a <-> i).

    >>> str(mirror_move(Move.from_uci("b2e2")))
    'h2e2'
    """
    return Move.of(_MIRROR[move.from_square], _MIRROR[move.to_square])


def feature(piece: int, move: Move) -> int:
    """One small number for "``piece`` made ``move``": what a classifier tests."""
    return (piece + 7) * 8100 + move.code


def feature_name(key: int) -> str:
    """The readable form of a :func:`feature` key: FEN letter and coordinates (``Ch2e2``).

    >>> feature_name(feature(6, Move.from_uci("h2e2")))
    'Ch2e2'
    """
    piece, code = divmod(key, 8100)
    return piece_symbol(piece - 7) + str(Move.from_code(code))


def parse_feature(name: str) -> int:
    """Inverse of :func:`feature_name`."""
    letter = name[0]
    piece = " KABNRCP".index(letter.upper()) * (1 if letter.isupper() else -1)
    return feature(piece, Move.from_uci(name[1:]))


@dataclass(frozen=True, slots=True)
class OpeningLine:
    """The first plies of a game from the standard start, mirrored into ECCO's frame.

    ``pieces[i]`` is the signed piece that made ``moves[i]``. Only games from the standard
    start with Red to move have one: :meth:`read` returns ``None`` for any other start.
    """

    moves: tuple[Move, ...]
    pieces: tuple[int, ...]
    mirrored: bool

    @classmethod
    def read(cls, moves: Iterable[Move | str], start_fen: str | None = None,
             plies: int = OPENING_PLIES, pieces: Sequence[int] | None = None
             ) -> OpeningLine | None:
        """The opening of a game given as ``Move``s or move texts in any notation.

        Moves are not checked when given as ``Move``s (a replayed game's are already);
        texts are read on the board, and one that names no legal move raises
        :class:`~xqdb.notation.NotationError`. ``pieces``, the signed piece that made each
        of the ``Move``s, as a replay found them, spares following them on a board.

        >>> OpeningLine.read(["h2e2"], start_fen="4k4/9/9/9/9/9/9/9/4C4/4K4 w") is None
        True
        >>> OpeningLine.read([Move.from_uci("h2e2")], pieces=[6]).pieces
        (6,)
        """
        if start_fen is not None and not is_standard_start(start_fen):
            return None
        if pieces is not None and isinstance(moves, Sequence):
            return cls._of(list(moves[:plies]), list(pieces[:plies]))
        board = list(_START_BOARD)
        played: list[Move] = []
        made_by: list[int] = []
        pos: Position | None = None
        for item in moves:
            if len(played) == plies:
                break
            if isinstance(item, str):
                if pos is None:
                    pos = Position()
                    for move in played:
                        pos.push(move)
                move = pos.parse_move(item)
            else:
                move = item
            piece = board[move.from_square]
            if not piece:
                raise NotationError(f"{move}: no piece on {str(move)[:2]}")
            board[move.to_square] = piece
            board[move.from_square] = 0
            if pos is not None:
                pos.push(move)
            played.append(move)
            made_by.append(piece)
        return cls._of(played, made_by)

    @classmethod
    def _of(cls, played: list[Move], pieces: list[int]) -> OpeningLine:
        """The line of the moves ``played`` by ``pieces``, mirrored into ECCO's frame when
        it opens on the left."""
        mirrored = bool(played) and played[0].from_square % 9 in _LEFT_FILES
        if mirrored:
            played = [mirror_move(move) for move in played]
        return cls(tuple(played), tuple(pieces), mirrored)

    def features(self) -> dict[int, int]:
        """Each :func:`feature` of this line mapped to the 0-based ply it first occurs at."""
        first: dict[int, int] = {}
        for ply, (piece, move) in enumerate(zip(self.pieces, self.moves)):
            first.setdefault((piece + 7) * 8100 + move.code, ply)
        return first

    def feature_at(self, ply: int) -> int | None:
        """The :func:`feature` of the move at ``ply`` (``None`` past the last move)."""
        if ply >= len(self.moves):
            return None
        return feature(self.pieces[ply], self.moves[ply])

    def boards(self) -> Iterator[Sequence[int]]:
        """The board after each ply (in ECCO's frame). The same list is updated in place."""
        board = list(_START_BOARD)
        for piece, move in zip(self.pieces, self.moves):
            board[move.to_square] = piece
            board[move.from_square] = 0
            yield board

    def texts(self) -> list[str]:
        """The moves in Chinese notation, in ECCO's frame."""
        texts = []
        board = list(_START_BOARD)
        for piece, move in zip(self.pieces, self.moves):
            texts.append(write_chinese(board, move))
            board[move.to_square] = piece
            board[move.from_square] = 0
        return texts


def lone_move_text(piece: int, move: Move) -> str:
    """The Chinese text of ``piece`` making ``move`` with no twin on its file.

    >>> lone_move_text(5, Move.from_uci("h0h6"))
    '车二进六'
    """
    board = [0] * NUM_SQUARES
    board[move.from_square] = piece
    return write_chinese(board, move)


