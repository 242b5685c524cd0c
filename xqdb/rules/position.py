"""The Xiangqi position of the rules: FEN, legal moves, make/unmake, check, mate and stalemate.

:class:`BasePosition` knows the rules and coordinates only; :class:`xqdb.Position` adds
move notation on top of it (python-chess's ``BaseBoard``/``Board`` split). Use the public
class, unless you are writing the rules themselves.

>>> pos = BasePosition()
>>> len(pos.legal_moves())
44
>>> pos.push(Move.from_uci("h2e2"))
>>> pos.fen()
'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1'
>>> pos.pop()
Move.from_uci('h2e2')
"""

from __future__ import annotations

import functools

from typing import Self

from ..errors import FenError, IllegalMoveError
from .board import (
    ADVISOR, ADVISOR_STEPS, BETWEEN, BLACK, CANNON, CHARIOT, CHECKING, COLOR_NAMES, ELEPHANT,
    ELEPHANT_STEPS, EXPOSING, HORSE, HORSE_ATTACKS, HORSE_STEPS, KING, KING_STEPS, LETTER_TO_TYPE,
    LINES, MOVES_FROM, Move, NUM_SQUARES, RAY_INDEX,
    PAWN, PAWN_ATTACKS, PAWN_STEPS, PIECE_COUNTS, PIECE_NAMES, RAYS, REACHABLE, RED,
    SQUARE_NAMES, Color, Piece, Square, piece_symbol,
)
from .outcome import Outcome, Termination
from .zobrist import BLACK_TO_MOVE_KEY, PIECE_KEYS, board_key

STARTING_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"

_MOVE_OF = Move.of


@functools.lru_cache(maxsize=1024)
def is_standard_start(fen: str | None) -> bool:
    """Whether ``fen`` sets up the standard start with Red to move, whatever its counters
    and piece letters (``None``: no FEN, the start). The one test of "a game from the
    start"; SQL has the macro ``standard_start`` in ``queries/_shared.sql``.

    >>> is_standard_start(None), is_standard_start(STARTING_FEN.replace(" 0 1", " 3 7"))
    (True, True)
    >>> is_standard_start("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w")
    True
    >>> is_standard_start(STARTING_FEN.replace(" w ", " b ")), is_standard_start("xyz")
    (False, False)
    """
    if fen is None or fen.split()[:2] == _START_BOARD_AND_TURN:
        return True
    try:
        return BasePosition.from_fen(fen).fen().split()[:2] == _START_BOARD_AND_TURN
    except ValueError:
        return False


_START_BOARD_AND_TURN = STARTING_FEN.split()[:2]


#: What :meth:`BasePosition.pop` needs to take a move back: ``(move, captured piece, Zobrist
#: key before, halfmove clock before)``. A plain tuple: one is made for every move played.
_Undo = tuple[Move, int, int, int]


def attacked(board: list[Piece], sq: Square, by: Color) -> bool:
    """Whether a piece of colour ``by`` attacks ``sq`` on ``board``.

    The enemy king counts as an attacker along an open file: that is the flying-general
    rule, so a king "attacked" this way may not stay there.
    """
    for ray in RAYS[sq]:
        if _ray_attacks(board, ray, by):
            return True
    horse = HORSE * by
    for leg, origin in HORSE_ATTACKS[sq]:
        if board[origin] == horse and not board[leg]:
            return True
    pawn = PAWN * by
    for origin in PAWN_ATTACKS[by][sq]:
        if board[origin] == pawn:
            return True
    return False


def ray_contacts(board: list[Piece], ray: tuple[Square, ...]) -> tuple[Square, Square]:
    """The first two occupied points of ``ray`` (-1 where there is none): the piece that
    meets the ray's start, and the one a cannon would jump to over it. Every question of
    what attacks along a line is answered from these two.

    Up the middle file from Red's king at the start: Red's pawn, then Black's; from the
    empty point e5: Black's pawn, then Black's king.

    >>> board = BasePosition().board
    >>> ray_contacts(board, RAYS[4][0]), ray_contacts(board, RAYS[49][0])
    ((31, 58), (58, 85))
    """
    first = -1
    for s in ray:
        if board[s]:
            if first >= 0:
                return first, s
            first = s
    return first, -1


def _ray_attacks(board: list[Piece], ray: tuple[Square, ...], by: Color) -> bool:
    """Whether a piece of ``by`` attacks the start of ``ray`` along it (chariot, facing
    king, or cannon over one screen)."""
    first, behind = ray_contacts(board, ray)
    if first < 0:
        return False
    p = board[first]
    return p == CHARIOT * by or p == KING * by or (behind >= 0 and board[behind] == CANNON * by)


def _guards(board: list[Piece], king: Square, by: Color) -> tuple[list[Square], tuple[Square, ...]]:
    """What stands between ``king`` (not in check) and the pieces of ``by``: the squares
    whose piece may not simply leave (it shields the king from a chariot, the other king,
    a cannon or a horse), and the empty points between the king and a cannon of ``by``
    that faces it unscreened (a piece moved onto one becomes the screen).

    Only these can make a move of a piece other than the king illegal.

    >>> _guards(BasePosition.from_fen("4k4/9/9/9/9/4r4/9/9/4R4/4K4 w").board, 4, BLACK)
    ([13], ())
    >>> _guards(BasePosition.from_fen("4k4/9/9/9/9/4c4/9/4N4/4R4/4K4 w").board, 4, BLACK)
    ([13, 22], ())
    >>> _guards(BasePosition.from_fen("4k4/9/9/9/9/4c4/9/9/9/3K5 w").board, 3, BLACK)
    ([], ())
    >>> _guards(BasePosition.from_fen("4k4/9/9/9/9/3c5/9/9/9/3K5 w").board, 3, BLACK)
    ([], (12, 21, 30))
    """
    shields: list[Square] = []
    screens: tuple[Square, ...] = ()
    chariot, cannon, general = CHARIOT * by, CANNON * by, KING * by
    for ray in RAYS[king]:
        # The first three pieces along the line: an attacker further off stays blocked.
        near: list[Square] = []
        for s in ray:
            if board[s]:
                near.append(s)
                if len(near) == 3:
                    break
        if not near:
            continue
        if board[near[0]] == cannon and near[0] != ray[0]:
            screens += ray[:ray.index(near[0])]
        if len(near) >= 2:
            second = board[near[1]]
            if second == chariot or second == general:
                shields.append(near[0])
            if len(near) == 3 and board[near[2]] == cannon:
                shields += near[:2]
    horse = HORSE * by
    for leg, origin in HORSE_ATTACKS[king]:
        if board[origin] == horse and board[leg]:
            shields.append(leg)
    return shields, screens


_NO_SQUARES: list[Square] = []
_NO_POINTS: frozenset[Square] = frozenset()


def attacked_after(board: list[Piece], sq: Square, by: Color, f: Square, t: Square) -> bool:
    """Like :func:`attacked`, for a ``board`` just changed by a move from ``f`` to ``t``
    when ``by`` did not attack ``sq`` before it.

    Only what the move changed needs a look: the lines from ``sq`` through ``f`` (a piece
    gone) and ``t`` (a piece arrived, perhaps as a cannon's screen), horses whose leg was
    ``f`` or that landed on ``t``, and a pawn landing on ``t``.
    """
    rays, index = RAYS[sq], RAY_INDEX[sq]
    d = index[f]
    if d >= 0 and _ray_attacks(board, rays[d], by):
        return True
    e = index[t]
    if e >= 0 and e != d and _ray_attacks(board, rays[e], by):
        return True
    horse = HORSE * by
    for leg, origin in HORSE_ATTACKS[sq]:
        if (leg == f or origin == t) and board[origin] == horse and not board[leg]:
            return True
    return board[t] == PAWN * by and t in PAWN_ATTACKS[by][sq]


class BasePosition:
    """A Xiangqi position with its move history: the rules, without move notation.

    ``board`` is a list of 90 signed piece codes (see :mod:`xqdb.rules.board`); ``turn`` is
    ``RED`` (1) or ``BLACK`` (-1). The Zobrist key is kept up to date by :meth:`push`
    and :meth:`pop`.

    >>> BasePosition.from_fen("3k5/9/9/9/9/9/9/9/9/3RK4 b").is_checkmate()
    True
    """

    __slots__ = ("board", "turn", "halfmove_clock", "fullmove_number", "move_stack",
                 "_key", "_kings", "_undo", "_in_check")

    def __init__(self, fen: str | None = STARTING_FEN) -> None:
        self.board: list[Piece] = [0] * NUM_SQUARES
        self.turn: Color = RED
        self.halfmove_clock: int = 0
        self.fullmove_number: int = 1
        self.move_stack: list[Move] = []
        self._undo: list[_Undo] = []
        self._kings: dict[Piece, Square] = {}
        self._key = 0
        # Whether the side to move is in check, once known (None: not computed yet).
        self._in_check: bool | None = None
        if fen is not None:
            self.set_fen(fen)

    @classmethod
    def from_fen(cls, fen: str) -> Self:
        """A position from a FEN, accepting the forms found in real files.

        >>> BasePosition.from_fen("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w").fen() == STARTING_FEN
        True
        """
        return cls(fen)

    @classmethod
    def empty(cls) -> Self:
        return cls(None)

    def copy(self) -> Self:
        """A copy with the same board and history."""
        # Made empty, not by __new__: compiled by mypyc, __new__ runs __init__, which would
        # parse the starting FEN on every copy (a copy per replay and per adjudication).
        other = type(self)(None)
        other.board = self.board[:]
        other.turn = self.turn
        other.halfmove_clock = self.halfmove_clock
        other.fullmove_number = self.fullmove_number
        other.move_stack = self.move_stack[:]
        other._undo = self._undo[:]
        other._kings = dict(self._kings)
        other._key = self._key
        other._in_check = self._in_check
        return other

    # --- FEN ---------------------------------------------------------------------------

    def set_fen(self, fen: str) -> None:
        """Replace the position by the one ``fen`` describes; see :func:`parse_fen`."""
        board, turn, clock, number = parse_fen(fen)
        self.board = board
        self.turn = turn
        self.halfmove_clock = clock
        self.fullmove_number = number
        self.move_stack = []
        self._undo = []
        self._kings = {board[s]: s for s in range(NUM_SQUARES) if abs(board[s]) == KING}
        self._key = board_key(board, turn)
        self._in_check = None

    def board_fen(self) -> str:
        rows = []
        for rank in range(9, -1, -1):
            row, empty = [], 0
            for sq in range(rank * 9, rank * 9 + 9):
                p = self.board[sq]
                if p:
                    if empty:
                        row.append(str(empty))
                        empty = 0
                    row.append(piece_symbol(p))
                else:
                    empty += 1
            if empty:
                row.append(str(empty))
            rows.append("".join(row))
        return "/".join(rows)

    def fen(self) -> str:
        side = "w" if self.turn == RED else "b"
        return f"{self.board_fen()} {side} - - {self.halfmove_clock} {self.fullmove_number}"

    def __str__(self) -> str:
        rows = []
        for rank in range(9, -1, -1):
            cells = [piece_symbol(p) if (p := self.board[rank * 9 + f]) else "." for f in range(9)]
            rows.append(f"{rank} " + " ".join(cells))
        rows.append("  a b c d e f g h i")
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.fen()!r})"

    # --- Queries -----------------------------------------------------------------------

    def piece_at(self, sq: Square) -> Piece:
        """The signed piece on ``sq`` (0 when empty)."""
        return self.board[sq]

    def king_square(self, color: Color) -> Square | None:
        return self._kings.get(KING * color)

    def zobrist(self) -> int:
        """The 64-bit Zobrist key of the position (board and side to move)."""
        return self._key

    def pieces(self, piece: Piece) -> list[Square]:
        """Squares holding ``piece`` (a signed piece code), in square order."""
        return [sq for sq, p in enumerate(self.board) if p == piece]

    def is_attacked(self, sq: Square, by: Color) -> bool:
        return attacked(self.board, sq, by)

    def is_check(self) -> bool:
        """Whether the side to move is in check (including by the facing king).

        After a move that touches none of the squares from which the king could be
        attacked, the answer is known without looking: the king was safe before it, since
        the previous position was legal.
        """
        in_check = self._in_check
        if in_check is None:
            king = self._kings.get(KING * self.turn)
            if king is None:
                in_check = False
            elif self._undo:
                move = self._undo[-1][0]
                checking = CHECKING[king]
                f, t = move.from_square, move.to_square
                in_check = (f in checking or t in checking) and \
                    attacked_after(self.board, king, -self.turn, f, t)
            else:
                in_check = attacked(self.board, king, -self.turn)
            self._in_check = in_check
        return in_check

    # --- Move generation -----------------------------------------------------------------

    def pseudo_legal_moves(self) -> list[Move]:
        """Moves that follow each piece's pattern, ignoring the safety of one's own king."""
        return self._generate(False)

    def _generate(self, legal: bool, quiet: bool = True, first: bool = False) -> list[Move]:
        """The pseudo-legal moves, in square order of their origins; only the legal ones
        when ``legal``, only captures unless ``quiet``; with ``first``, only those of the
        first origin that has any.

        Legality is settled per origin, not per move: out of check, only the moves of the
        king and of the pieces that shield it need making and a look; of the other pieces'
        moves, those onto the empty points between the king and an enemy cannon (which
        would become its screen) are the only illegal ones (see :func:`_guards`).
        """
        board = self.board
        side = self.turn
        out: list[Move] = []
        # A destination holding ``side * most`` or less: an enemy piece, or empty when quiet.
        most = 0 if quiet else -1
        king = -1
        check_all = False
        shields = _NO_SQUARES
        screens: tuple[Square, ...] = ()
        lines = checking = _NO_POINTS
        if legal:
            found = self._kings.get(KING * side)
            if found is not None:
                king = found
                if self.is_check():
                    check_all = True
                    lines, checking = LINES[king], CHECKING[king]
                else:
                    shields, screens = _guards(board, king, -side)
        for sq in range(NUM_SQUARES):
            p = board[sq] * side
            if p <= 0:
                continue
            if first and out:
                break
            row = MOVES_FROM[sq]
            start = len(out)
            if p == PAWN:
                for t in PAWN_STEPS[side][sq]:
                    if board[t] * side <= most:
                        out.append(row[t])
            elif p == CHARIOT:
                for ray in RAYS[sq]:
                    for t in ray:
                        q = board[t]
                        if q:
                            if q * side < 0:
                                out.append(row[t])
                            break
                        if quiet:
                            out.append(row[t])
            elif p == HORSE:
                for leg, t in HORSE_STEPS[sq]:
                    if not board[leg] and board[t] * side <= most:
                        out.append(row[t])
            elif p == CANNON:
                for ray in RAYS[sq]:
                    screened = False
                    for t in ray:
                        q = board[t]
                        if screened:
                            if q:
                                if q * side < 0:
                                    out.append(row[t])
                                break
                        elif q:
                            screened = True
                        elif quiet:
                            out.append(row[t])
            elif p == ELEPHANT:
                for eye, t in ELEPHANT_STEPS[sq]:
                    if not board[eye] and board[t] * side <= most:
                        out.append(row[t])
            else:
                for t in (KING_STEPS[sq] if p == KING else ADVISOR_STEPS[sq]):
                    if board[t] * side <= most:
                        out.append(row[t])
            if king < 0 or len(out) == start:
                continue
            if check_all:
                candidates = out[start:]
                del out[start:]
                if sq != king and sq not in lines:
                    # A move that neither leaves the king's lines nor lands where an attack
                    # on it comes from or passes cannot end the check.
                    candidates = [m for m in candidates if m.to_square in checking]
                out.extend([m for m in candidates if self._leaves_king_safe(m)])
            elif sq == king or sq in shields:
                candidates = out[start:]
                del out[start:]
                out.extend([m for m in candidates if self._leaves_king_safe(m)])
            elif screens:
                candidates = out[start:]
                del out[start:]
                out.extend([m for m in candidates if m.to_square not in screens])
        return out

    def _leaves_king_safe(self, move: Move) -> bool:
        """Whether making ``move`` (already pattern-legal) keeps the mover's king unattacked."""
        board = self.board
        f, t = move.from_square, move.to_square
        piece = board[f]
        captured = board[t]
        side = self.turn
        in_check = self._in_check
        if in_check is None:
            in_check = self.is_check()
        if piece * side != KING and not in_check:
            king = self._kings.get(KING * side)
            # Out of check, a move can only expose its own king by vacating a square on
            # the king's lines or a horse leg, or by becoming a cannon's screen.
            if king is None or (f not in EXPOSING[king] and t not in LINES[king]):
                return True
            board[t] = piece
            board[f] = 0
            safe = not attacked_after(board, king, -side, f, t)
        else:
            board[t] = piece
            board[f] = 0
            king = t if piece * side == KING else self._kings.get(KING * side)
            safe = king is None or not attacked(board, king, -side)
        board[f] = piece
        board[t] = captured
        return safe

    def legal_moves(self) -> list[Move]:
        """All legal moves of the side to move.

        >>> len(BasePosition.from_fen("3k5/9/9/9/9/9/9/9/9/4K4 w").legal_moves())  # e0d0 would face the king
        2
        """
        return self._generate(True)

    def legal_captures(self) -> list[Move]:
        """The legal moves that capture, in the order of :meth:`legal_moves`.

        >>> [str(m) for m in BasePosition().legal_captures()]
        ['b2b9', 'h2h9']
        """
        return self._generate(True, quiet=False)

    def is_pseudo_legal(self, move: Move) -> bool:
        """Whether ``move`` follows the pattern of the piece on its origin square."""
        board = self.board
        side = self.turn
        f, t = move.from_square, move.to_square
        p = board[f] * side
        if p <= 0 or board[t] * side > 0 or f == t:
            return False
        if p == CHARIOT or p == CANNON:
            between = BETWEEN[f * 90 + t]
            if between is None:
                return False
            screens = 0
            for s in between:
                if board[s]:
                    screens += 1
            if p == CHARIOT:
                return screens == 0
            return screens == 1 if board[t] else screens == 0
        if p == HORSE:
            for leg, dest in HORSE_STEPS[f]:
                if dest == t:
                    return not board[leg]
            return False
        if p == PAWN:
            return t in PAWN_STEPS[side][f]
        if p == ELEPHANT:
            for eye, dest in ELEPHANT_STEPS[f]:
                if dest == t:
                    return not board[eye]
            return False
        if p == ADVISOR:
            return t in ADVISOR_STEPS[f]
        return t in KING_STEPS[f]

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal here, without generating every move."""
        return self.is_pseudo_legal(move) and self._leaves_king_safe(move)

    def gives_check(self, move: Move) -> bool:
        """Whether the (legal) ``move`` puts the opponent in check."""
        self.push(move)
        try:
            return self.is_check()
        finally:
            self.pop()

    def is_capture(self, move: Move) -> bool:
        return self.board[move.to_square] != 0

    def is_checkmate(self) -> bool:
        return not self.legal_moves() and self.is_check()

    def is_stalemate(self) -> bool:
        """No legal move while not in check (困毙): under Xiangqi rules the side to move loses."""
        return not self.legal_moves() and not self.is_check()

    def has_legal_moves(self) -> bool:
        # Asked of the last position of every game replayed: the first piece that can
        # move answers it.
        return bool(self._generate(True, first=True))

    def outcome(self) -> Outcome | None:
        """Checkmate or stalemate when the side to move has no move, else ``None``.

        Either way the side to move has lost. Repetition and move-limit endings depend on
        the history and are decided by :mod:`xqdb.rules.adjudication`.

        >>> BasePosition.from_fen("3k5/9/9/9/9/9/9/9/9/3RK4 b").outcome()
        Outcome(termination=<Termination.CHECKMATE: 'checkmate'>, winner=1)
        """
        if self.has_legal_moves():
            return None
        ending = Termination.CHECKMATE if self.is_check() else Termination.STALEMATE
        return Outcome(ending, -self.turn)

    # --- Making moves ------------------------------------------------------------------

    def push(self, move: Move) -> None:
        """Make ``move`` (assumed legal; see :meth:`push_legal` to validate first)."""
        board = self.board
        f, t = move.from_square, move.to_square
        piece = board[f]
        captured = board[t]
        key = self._key
        self._undo.append((move, captured, key, self.halfmove_clock))
        self.move_stack.append(move)
        keys = PIECE_KEYS[piece]
        key ^= keys[f] ^ keys[t] ^ BLACK_TO_MOVE_KEY
        if captured:
            key ^= PIECE_KEYS[captured][t]
            self.halfmove_clock = 0
            if captured == KING or captured == -KING:
                del self._kings[captured]
        else:
            self.halfmove_clock += 1
        board[t] = piece
        board[f] = 0
        if piece == KING or piece == -KING:
            self._kings[piece] = t
        if self.turn == BLACK:
            self.fullmove_number += 1
        self.turn = -self.turn
        self._key = key
        self._in_check = None

    def push_legal(self, move: Move) -> Piece:
        """Make ``move`` after checking it; returns the captured piece (0 for none).

        >>> BasePosition().push_legal(Move.from_uci("h2h8"))
        Traceback (most recent call last):
        ...
        xqdb.errors.IllegalMoveError: h2h8: the cannon on h2 cannot move to h8
        """
        if not self.is_pseudo_legal(move):
            raise IllegalMoveError(f"{move}: {self.explain_illegal(move)}")
        if not self._leaves_king_safe(move):
            raise IllegalMoveError(f"{move}: {self.explain_illegal(move)}")
        captured = self.board[move.to_square]
        self.push(move)
        return captured

    def pop(self) -> Move:
        """Take back the last move and return it."""
        move, captured, key, clock = self._undo.pop()
        self.move_stack.pop()
        board = self.board
        f, t = move.from_square, move.to_square
        piece = board[t]
        board[f] = piece
        board[t] = captured
        if piece == KING or piece == -KING:
            self._kings[piece] = f
        if captured == KING or captured == -KING:
            self._kings[captured] = t
        self.turn = -self.turn
        if self.turn == BLACK:
            self.fullmove_number -= 1
        self.halfmove_clock = clock
        self._key = key
        self._in_check = None
        return move

    def peek(self) -> Move | None:
        return self.move_stack[-1] if self.move_stack else None

    def history(self) -> list[tuple[int, int, Piece]]:
        """Per move played: the Zobrist key and halfmove clock before it, and the piece it
        captured (0 for none).

        >>> pos = BasePosition()
        >>> pos.push(Move.from_uci("h2e2"))
        >>> pos.history() == [(BasePosition().zobrist(), 0, 0)]
        True
        """
        return [(key, clock, captured) for _, captured, key, clock in self._undo]

    def last_capture(self) -> Piece:
        """The piece captured by the last move (0 for none or no move)."""
        return self._undo[-1][1] if self._undo else 0

    def explain_illegal(self, move: Move) -> str:
        """Why ``move`` is not legal here, in words a user can check on a board."""
        board = self.board
        f, t = move.from_square, move.to_square
        p = board[f]
        fname, tname = SQUARE_NAMES[f], SQUARE_NAMES[t]
        if not p:
            return f"there is no piece on {fname}"
        if p * self.turn < 0:
            return (f"the piece on {fname} is {COLOR_NAMES[-self.turn]}'s "
                    f"{PIECE_NAMES[abs(p)]}, but it is {COLOR_NAMES[self.turn]}'s move")
        if board[t] * self.turn > 0:
            return f"{tname} holds {COLOR_NAMES[self.turn]}'s own {PIECE_NAMES[abs(board[t])]}"
        name = PIECE_NAMES[abs(p)]
        if not self.is_pseudo_legal(move):
            return f"the {name} on {fname} cannot move to {tname}"
        if not self._leaves_king_safe(move):
            if self._kings_face_after(move):
                return f"{fname}-{tname} would leave the kings facing each other on an open file"
            return f"{fname}-{tname} would leave {COLOR_NAMES[self.turn]}'s king in check"
        return "the move is legal"

    def _kings_face_after(self, move: Move) -> bool:
        """Whether the two kings would see each other along an open file after ``move``."""
        f, t = move.from_square, move.to_square
        kings = dict(self._kings)
        if abs(self.board[f]) == KING:
            kings[self.board[f]] = t
        red, black = kings.get(KING), kings.get(-KING)
        if red is None or black is None or red % 9 != black % 9:
            return False
        between = range(red + 9, black, 9)
        return not any(s != f and (s == t or self.board[s]) for s in between)


# --- FEN parsing ---------------------------------------------------------------------


def parse_fen(fen: str) -> tuple[list[Piece], Color, int, int]:
    """Read a FEN into ``(board, turn, halfmove_clock, fullmove_number)``.

    Accepts the forms of real files: ``e``/``h`` letters, side ``w``, ``r`` or ``b``,
    two-field FENs, the side glued to the board (``...C1w``, ``...w--01``) and missing
    counters. Raises :class:`FenError` naming the problem when the text is not a FEN or
    the position cannot occur in a game; a FEN with no side to move is red's, and says
    so when that cannot be.

    >>> parse_fen("3k5/9/9/9/9/9/9/9/9/4K3R")[1] == RED
    True
    >>> parse_fen("3k4R/9/9/9/9/9/9/9/9/4K4")
    Traceback (most recent call last):
    ...
    xqdb.errors.FenError: the FEN names no side to move (red's assumed): black is in check but it is red's move
    """
    text = fen.strip()
    board = [0] * NUM_SQUARES
    rank, file, i = 9, 0, 0
    n = len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            break
        i += 1
        if c == "/":
            if file != 9:
                raise FenError(f"rank {10 - rank} of the FEN has {file} points, not 9")
            rank -= 1
            file = 0
            if rank < 0:
                raise FenError("the FEN has more than 10 ranks")
            continue
        if c.isdigit():
            file += int(c)
        else:
            ptype = LETTER_TO_TYPE.get(c.upper())
            if ptype is None:
                raise FenError(f"unknown piece letter {c!r} in the FEN")
            if file < 9:
                board[rank * 9 + file] = ptype if c.isupper() else -ptype
            file += 1
        if file > 9:
            raise FenError(f"rank {10 - rank} of the FEN has more than 9 points")
        if rank == 0 and file == 9:
            break  # the board is complete; whatever follows (even glued) is the rest
    if rank != 0 or file != 9:
        raise FenError(f"the FEN has {10 - rank} ranks, not 10" if rank else
                       f"rank 10 of the FEN has {file} points, not 9")
    if text[i:i + 1] == "/":
        raise FenError("the FEN has more than 10 ranks")
    if _last_rank_goes_on(text[i:]):
        raise FenError("rank 10 of the FEN has more than 9 points")
    turn, clock, number = _parse_fen_rest(text[i:])
    try:
        _check_position(board, turn)
    except FenError as exc:
        if text[i:].strip():
            raise
        # Some exports write the board alone: say what was assumed, as it may be wrong.
        raise FenError(f"the FEN names no side to move (red's assumed): {exc}") from None
    return board, turn, clock, number


def _last_rank_goes_on(rest: str) -> bool:
    """Whether the text after nine points of the last rank is more of that rank rather
    than the side to move glued to it (``...RNBAKABNRw``).

    >>> [_last_rank_goes_on(r) for r in ("R w - - 0 1", "1 w", "c", "w", "b - - 0 1", " w")]
    [True, True, True, False, False, False]
    """
    if not rest or rest[0].isspace():
        return False
    if rest[0].lower() not in "wrb":
        return rest[0].isdigit() or rest[0].upper() in LETTER_TO_TYPE
    # r and b are pieces too: one is a piece when the side to move still follows it.
    following = rest[1:].replace("-", " ").split()
    return bool(following) and following[0].lower() in ("w", "r", "b")


def _parse_fen_rest(rest: str) -> tuple[Color, int, int]:
    rest = rest.strip()
    if not rest:
        return RED, 0, 1
    side, rest = rest[0].lower(), rest[1:]
    if side not in "wrb":
        raise FenError(f"side to move {side!r} is not w, r or b")
    turn = BLACK if side == "b" else RED
    tokens = rest.replace("-", " - ").split()
    numbers = [tok for tok in tokens if tok != "-"]
    if len(numbers) == 1 and len(numbers[0]) == 2 and not rest.strip().startswith(numbers[0]):
        numbers = list(numbers[0])  # "w--01": the counters glued as well
    try:
        clock = int(numbers[0]) if numbers else 0
        number = int(numbers[1]) if len(numbers) > 1 else 1
    except ValueError:
        raise FenError(f"move counters {' '.join(numbers)!r} are not numbers") from None
    return turn, clock, max(number, 1)


def _check_position(board: list[Piece], turn: Color) -> None:
    counts: dict[Piece, int] = {}
    for sq, p in enumerate(board):
        if not p:
            continue
        counts[p] = counts.get(p, 0) + 1
        if sq not in REACHABLE[p]:
            owner = COLOR_NAMES[1 if p > 0 else -1]
            raise FenError(f"{owner} {PIECE_NAMES[abs(p)]} on {SQUARE_NAMES[sq]} is on a point "
                           f"it can never reach")
    for p, count in counts.items():
        if count > PIECE_COUNTS[abs(p)]:
            owner = COLOR_NAMES[1 if p > 0 else -1]
            raise FenError(f"{count} {owner} {PIECE_NAMES[abs(p)]}s (at most "
                           f"{PIECE_COUNTS[abs(p)]})")
    for color in (RED, BLACK):
        if counts.get(KING * color, 0) != 1:
            raise FenError(f"{COLOR_NAMES[color]} has no king")
    king = board.index(-KING * turn)
    if attacked(board, king, turn):
        raise FenError(f"{COLOR_NAMES[-turn]} is in check but it is {COLOR_NAMES[turn]}'s move")

