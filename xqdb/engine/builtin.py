"""xqdb's own engine: a small alpha-beta search for when no real engine is installed.

It is weak (about 105,000 nodes a second of CPU in pure Python, measured by
``bench/bench_engine.py --builtin-only``, against Fairy-Stockfish's 370,000 on an idle
machine) but it sees short tactics: mates in two and material won within two plies. The
search is
iterative deepening negamax with principal-variation windows, a check extension,
quiescence over captures (and every evasion when in check), a transposition table keyed by
the Zobrist key, and moves ordered by the table's move, captures by victim then attacker,
killer moves and a history table. A position that repeats on the board counts as a draw.

The evaluation is the material of the rules text xqdb started from, in centipawns: chariot
9, horse 4, cannon 4.5, advisor and elephant 2, pawn 1 before the river, 2 after it and 1 on
the last rank; plus small positional terms (horses and pawns near the enemy palace, cannons
on the central file, chariots across the river). Xiangqi has no draw by stalemate: a side
with no legal move has lost, which the search scores like a mate.

>>> from xqdb import Position
>>> result = Searcher().search(Position.from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w"), depth=3)
>>> str(result.lines[0].pv[0]), result.lines[0].mate
('a0d0', 1)
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Final

from ..rules.board import (
    ADVISOR, CANNON, CHARIOT, ELEPHANT, HORSE, KING, NUM_SQUARES, PAWN, Move,
)
from ..position import Position

#: Centipawn values of the pieces (a pawn before the river; see :func:`piece_square_value`).
PIECE_VALUES: Final = {KING: 0, ADVISOR: 200, ELEPHANT: 200, HORSE: 400, CHARIOT: 900,
                       CANNON: 450, PAWN: 100}

MATE: Final = 30_000
#: Scores beyond this are mates: ``MATE - plies to mate``.
MATE_BOUND: Final = MATE - 1_000
INFINITE: Final = MATE + 1
MAX_PLY: Final = 64

_EXACT, _LOWER, _UPPER = 0, 1, 2


def piece_square_value(piece_type: int, file: int, rank: int) -> int:
    """What a red piece of ``piece_type`` on ``file``/``rank`` is worth, in centipawns.

    Black's pieces are worth the same on the mirrored point (rank ``9 - rank``).

    >>> piece_square_value(PAWN, 4, 3), piece_square_value(PAWN, 4, 6), piece_square_value(PAWN, 4, 9)
    (100, 225, 100)
    """
    central = 4 - abs(file - 4)  # 0 on the edge files, 4 on the central file
    if piece_type == PAWN:
        if rank <= 4:
            return 100
        if rank == 9:
            return 100
        # Across the river: worth 2, more the closer it stands to the enemy palace.
        return 200 + 5 * min(central, 3) + (10 if 6 <= rank <= 8 else 0) + (10 if rank == 7 else 0)
    if piece_type == HORSE:
        return PIECE_VALUES[HORSE] + 4 * central + 4 * min(max(rank - 2, 0), 5) - (
            15 if file in (0, 8) else 0)
    if piece_type == CANNON:
        return PIECE_VALUES[CANNON] + (15 if file == 4 and rank <= 4 else 0)
    if piece_type == CHARIOT:
        return PIECE_VALUES[CHARIOT] + (15 if rank >= 5 else 0) + 2 * central
    return PIECE_VALUES[piece_type]


def _tables() -> list[list[int]]:
    """``table[piece][square]``: the signed value of each signed piece on each point (Red
    positive), indexed like :data:`xqdb.rules.zobrist.PIECE_KEYS`."""
    table = [[0] * NUM_SQUARES for _ in range(15)]
    for ptype in PIECE_VALUES:
        for sq in range(NUM_SQUARES):
            file, rank = sq % 9, sq // 9
            table[ptype][sq] = piece_square_value(ptype, file, rank)
            table[-ptype][sq] = -piece_square_value(ptype, file, 9 - rank)
    return table


PIECE_SQUARE_TABLE: Final = _tables()


def evaluate(position: Position) -> int:
    """The static value of ``position`` for the side to move, in centipawns.

    >>> evaluate(Position())
    0
    """
    table = PIECE_SQUARE_TABLE
    total = 0
    for sq, piece in enumerate(position.board):
        if piece:
            total += table[piece][sq]
    return total * position.turn


def _gain(board: list[int], move: Move) -> int:
    """What ``move`` changes of Red's :func:`evaluate` of ``board`` (the search keeps the
    evaluation up to date instead of adding up the board at every node).

    >>> pos = Position()
    >>> gain = _gain(pos.board, Move.from_uci("h2h9"))
    >>> pos.push(Move.from_uci("h2h9"))
    >>> gain == -evaluate(pos)
    True
    """
    table = PIECE_SQUARE_TABLE
    f, t = move.from_square, move.to_square
    piece = board[f]
    return table[piece][t] - table[piece][f] - table[board[t]][t]


def material(position: Position) -> int:
    """Red's material less Black's, in centipawns, every pawn counted at 1 (no positional terms).

    >>> material(Position.from_fen("3k5/9/9/9/n8/9/9/9/9/R3K4 w"))
    500
    """
    return sum(PIECE_VALUES[abs(p)] * (1 if p > 0 else -1) for p in position.board if p)


def _victim_order(piece: int) -> int:
    return PIECE_VALUES[abs(piece)] if abs(piece) != KING else 10_000


@dataclass
class Line:
    """One line of a search result: the score for the side to move and the moves."""

    score: int
    pv: list[Move]

    @property
    def mate(self) -> int | None:
        """Moves to mate (negative when the side to move is mated), or ``None``."""
        if self.score >= MATE_BOUND:
            return (MATE - self.score + 1) // 2
        if self.score <= -MATE_BOUND:
            return -((MATE + self.score) // 2)
        return None


@dataclass
class SearchResult:
    depth: int
    seldepth: int
    nodes: int
    seconds: float
    lines: list[Line] = field(default_factory=list)


class _Stop(Exception):
    """The node or time budget ran out in the middle of an iteration."""


class Searcher:
    """Searches positions; keeps its transposition table between searches of one game."""

    def __init__(self) -> None:
        self.table: dict[int, tuple[int, int, int, Move | None]] = {}
        self._stop: threading.Event | None = None
        self.nodes = 0
        self.seldepth = 0
        self._history = [0] * (NUM_SQUARES * NUM_SQUARES)
        self._killers: list[list[Move | None]] = [[None, None] for _ in range(MAX_PLY + 1)]
        self._seen: dict[int, int] = {}
        self._score = 0
        self._node_limit = 0
        self._deadline = 0.0
        self._can_stop = False

    def clear(self) -> None:
        """Forget what earlier searches learnt (for a new game)."""
        self.table.clear()
        self._history = [0] * (NUM_SQUARES * NUM_SQUARES)

    def search(self, position: Position, *, depth: int | None = None, nodes: int | None = None,
               seconds: float | None = None, multipv: int = 1,
               on_iteration: Callable[[SearchResult], None] | None = None,
               stop: threading.Event | None = None) -> SearchResult:
        """Search ``position`` until ``depth``, ``nodes`` or ``seconds`` run out, or ``stop`` is set.

        Without any limit the search goes on until ``stop`` is set (from another thread).
        The first iteration always completes, so a result always has a move when one exists;
        ``on_iteration`` is called after each complete one.
        """
        pos = position.copy()
        self._stop = stop
        self.nodes = 0
        self.seldepth = 0
        self._killers = [[None, None] for _ in range(MAX_PLY + 1)]
        self._seen = {}
        # Red's evaluation of the position searched, kept up to date move by move.
        self._score = evaluate(pos) * pos.turn
        for key, _, _ in pos.history():
            self._seen[key] = self._seen.get(key, 0) + 1
        self._node_limit = nodes or 0
        started = time.perf_counter()
        self._deadline = started + seconds if seconds else 0.0
        self._can_stop = False
        result = SearchResult(0, 0, 0, 0.0)
        root_moves = pos.legal_moves()
        if not root_moves:
            result.lines = [Line(-MATE, [])]
            return result
        max_depth = min(depth or MAX_PLY, MAX_PLY)
        for iteration in range(1, max_depth + 1):
            stopped = False
            try:
                lines = self._search_root(pos, root_moves, iteration, multipv)
            except _Stop:
                stopped = True  # mypyc compiles no break inside try/finally
            finally:
                self._can_stop = True
            if stopped:
                break
            # The next iteration searches the best lines first: the window is then tight.
            order = {line.pv[0]: i for i, line in enumerate(lines)}
            root_moves.sort(key=lambda m: order.get(m, len(order)))
            result = SearchResult(iteration, self.seldepth, self.nodes,
                                  time.perf_counter() - started, lines)
            if on_iteration is not None:
                on_iteration(result)
            if lines[0].mate is not None and abs(lines[0].mate) * 2 <= iteration:
                break
        result.nodes = self.nodes
        result.seconds = time.perf_counter() - started
        return result

    def _search_root(self, pos: Position, moves: list[Move], depth: int,
                     multipv: int) -> list[Line]:
        lines: list[Line] = []
        remaining = list(moves)
        for _ in range(min(multipv, len(moves))):
            best, best_move = -INFINITE, remaining[0]
            alpha = -INFINITE
            for i, move in enumerate(remaining):
                gain = _gain(pos.board, move)
                self._score += gain
                pos.push(move)
                if i == 0:
                    score = -self._negamax(pos, depth - 1, -INFINITE, -alpha, 1)
                else:
                    score = -self._negamax(pos, depth - 1, -alpha - 1, -alpha, 1)
                    if score > alpha:
                        score = -self._negamax(pos, depth - 1, -INFINITE, -alpha, 1)
                pos.pop()
                self._score -= gain
                if score > best:
                    best, best_move = score, move
                    alpha = max(alpha, score)
            lines.append(Line(best, [best_move] + self._pv_after(pos, best_move, depth)))
            remaining.remove(best_move)
            if not remaining:
                break
        return lines

    def _pv_after(self, pos: Position, move: Move, depth: int) -> list[Move]:
        """The table's best moves after ``move``, while they are legal and new."""
        pv: list[Move] = []
        pos.push(move)
        seen = {pos.zobrist()}
        while len(pv) < depth + 8:
            entry = self.table.get(pos.zobrist())
            if entry is None or entry[3] is None or not pos.is_legal(entry[3]):
                break
            pos.push(entry[3])
            pv.append(entry[3])
            if pos.zobrist() in seen:
                break
            seen.add(pos.zobrist())
        for _ in range(len(pv) + 1):
            pos.pop()
        return pv

    def _tick(self) -> None:
        self.nodes += 1
        if not self._can_stop:
            return
        if self._node_limit and self.nodes >= self._node_limit:
            raise _Stop
        if (self.nodes & 255) == 0 and ((self._stop is not None and self._stop.is_set()) or (
                self._deadline and time.perf_counter() >= self._deadline)):
            raise _Stop

    def _ordered(self, pos: Position, moves: list[Move], best: Move | None,
                 ply: int) -> list[Move]:
        board = pos.board
        killers = self._killers[ply]
        history = self._history

        def key(move: Move) -> int:
            if move is best:
                return -1_000_000
            victim = board[move.to_square]
            if victim:
                return -100_000 - 10 * _victim_order(victim) + PIECE_VALUES[abs(board[move.from_square])] // 10
            if move is killers[0] or move is killers[1]:
                return -50_000
            return -history[move.code]

        return sorted(moves, key=key)

    def _negamax(self, pos: Position, depth: int, alpha: int, beta: int, ply: int) -> int:
        key = pos.zobrist()
        if self._seen.get(key):
            return 0
        if depth <= 0 or ply >= MAX_PLY:
            return self._quiesce(pos, alpha, beta, ply)
        self._tick()
        if ply > self.seldepth:
            self.seldepth = ply
        entry = self.table.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_score, e_flag, tt_move = entry
            if e_depth >= depth:
                score = _from_table(e_score, ply)
                if e_flag == _EXACT or (e_flag == _LOWER and score >= beta) or (
                        e_flag == _UPPER and score <= alpha):
                    return score
        moves = pos.legal_moves()
        if not moves:
            return -MATE + ply
        if pos.is_check():
            depth += 1
        original_alpha = alpha
        best, best_move = -INFINITE, None
        self._seen[key] = 1
        try:
            for i, move in enumerate(self._ordered(pos, moves, tt_move, ply)):
                gain = _gain(pos.board, move)
                self._score += gain
                pos.push(move)
                if i == 0:
                    score = -self._negamax(pos, depth - 1, -beta, -alpha, ply + 1)
                else:
                    score = -self._negamax(pos, depth - 1, -alpha - 1, -alpha, ply + 1)
                    if alpha < score < beta:
                        score = -self._negamax(pos, depth - 1, -beta, -alpha, ply + 1)
                pos.pop()
                self._score -= gain
                if score > best:
                    best, best_move = score, move
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            if not pos.board[move.to_square]:
                                killers = self._killers[ply]
                                if killers[0] is not move:
                                    killers[1], killers[0] = killers[0], move
                                self._history[move.code] += depth * depth
                            break
        finally:
            del self._seen[key]
        flag = _UPPER if best <= original_alpha else _LOWER if best >= beta else _EXACT
        self.table[key] = (depth, _to_table(best, ply), flag, best_move)
        return best

    def _quiesce(self, pos: Position, alpha: int, beta: int, ply: int) -> int:
        self._tick()
        if ply > self.seldepth:
            self.seldepth = ply
        if pos.is_check():
            moves = pos.legal_moves()
            if not moves:
                return -MATE + ply
            if ply >= MAX_PLY:
                return self._score * pos.turn
            best = -INFINITE
        else:
            best = self._score * pos.turn
            if best >= beta or ply >= MAX_PLY:
                return best
            moves = pos.legal_captures()
        if best > alpha:
            alpha = best
        for move in self._ordered(pos, moves, None, ply):
            gain = _gain(pos.board, move)
            self._score += gain
            pos.push(move)
            score = -self._quiesce(pos, -beta, -alpha, ply + 1)
            pos.pop()
            self._score -= gain
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best


def _to_table(score: int, ply: int) -> int:
    """A mate score stored relative to the node, so it can be reused at another ply."""
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


def _from_table(score: int, ply: int) -> int:
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


__all__ = ["PIECE_VALUES", "MATE", "evaluate", "material", "piece_square_value", "Line", "SearchResult",
           "Searcher"]
