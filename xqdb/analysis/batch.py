"""Searching the positions of games in worker processes, one engine process per worker.

A :class:`SearchTask` names some positions of one game by their index (0: the start, i:
after ply i) and whether each is searched with the game's history; :func:`run_task`
replays the game, searches those positions with the engine of the process (started on
first use, restarted when it dies) and returns a :class:`TaskResult`. Tasks are plain
data, so a process pool can carry them.

>>> task = SearchTask(EngineSpec.builtin(), Limit(depth=1), game_id=1,
...                   start_fen="3k5/9/9/9/9/9/9/9/9/R3K4 w", moves=("a0a1",),
...                   targets=((0, False), (1, False)))
>>> result = run_task(task)
>>> [(s.index, s.evaluation.score) for s in result.searched]
[(0, Mate(+1)), (1, Cp(-900))]
>>> close_engines()
"""

from __future__ import annotations

import multiprocessing.util
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..position import Position
from ..rules.board import Move
from .games import Evaluation
from ..engine.client import EngineError, EngineProtocolError
from ..engine.runner import EngineGaveUpError, EngineSpec, PositionFailedError, SupervisedEngine
from ..engine.score import MATE_CP, Limit


@dataclass(frozen=True)
class SearchTask:
    """Positions of one game to search."""

    spec: EngineSpec
    limit: Limit
    game_id: int
    start_fen: str
    moves: tuple[str, ...]
    """The game's moves (coordinates, ranks 0-9), at least up to the last target."""
    targets: tuple[tuple[int, bool], ...]
    """``(index, with_history)`` of each position to search, in increasing index."""
    chained: bool = False
    """Search the targets from the last back to the first, each search keeping what the
    one before it left in the engine's hash (cleared before the first, unless the spec
    keeps it): the search of a position then knows what its successors' searches found."""


@dataclass(frozen=True)
class Searched:
    """One position of a task, searched (or failed, or found to be over)."""

    index: int
    key: int
    turn: int
    with_history: bool
    evaluation: Evaluation | None
    """``None`` when the search failed twice (``error``) or the game is over (``ended``)."""
    error: str | None = None
    refused: str | None = None
    """The engine's own words when it refused the position (an ``Error`` line)."""
    ended: bool = False
    """The side to move has no legal move: mated or stalemated, nothing to search."""
    suspect: str | None = None
    """Why the evaluation is not believed (see :func:`suspect_evaluations`): it is
    stored, but never graded."""


#: A score past this many centipawns that is not a mate is no evaluation. A whole side's
#: pieces are worth about 6,000 centipawns to Fairy-Stockfish and to the built-in engine,
#: and engines that print mates as centipawns (Sjaak II, 16,000) are read as mates; past
#: 20,000 is what an engine prints when its search leaks its "infinite" bounds (±30,000,
#: ±32,000), not what it thinks of the position.
SUSPECT_CP = 20_000
#: Centipawns both sides must claim, on either side of the engine's own best move, for
#: the two to contradict each other: about a chariot. The mover, winning by that much,
#: plays the move its search found best, and its opponent is then winning by as much:
#: one of the two searches is wrong, and a swing of a chariot between them would be
#: graded as a blunder that no one made. Searches of neighbouring plies differ by tens of
#: centipawns, at low depths by a few hundred.
CONTRADICTION_CP = 1_000


def suspect_evaluations(task: SearchTask, searched: Sequence[Searched]) -> list[Searched]:
    """``searched`` with :attr:`Searched.suspect` set where the engine contradicts itself:
    a score past :data:`SUSPECT_CP` that is not a mate, or two positions of the game, one
    ply apart, whose scores contradict the engine's own principal variation (the game
    played the move it found best, and each side to move claims to win or to lose by
    :data:`CONTRADICTION_CP` or more). Both of such a pair are suspect: which is wrong
    cannot be told.

    >>> from xqdb.engine import Cp
    >>> from xqdb.position import STARTING_FEN
    >>> from xqdb.rules.board import BLACK, RED
    >>> task = SearchTask(EngineSpec.builtin(), Limit(depth=1), 1, STARTING_FEN, ("h2e2",),
    ...                   ((0, False), (1, False)))
    >>> found = [Searched(0, 0, RED, False, Evaluation(Cp(1500), best_move=Move.from_uci("h2e2"))),
    ...          Searched(1, 0, BLACK, False, Evaluation(Cp(1200)))]
    >>> for one in suspect_evaluations(task, found):
    ...     print(one.suspect)
    +1500 cp, then +1200 cp for the other side after the engine's own best move h2e2
    +1500 cp, then +1200 cp for the other side after the engine's own best move h2e2
    >>> found[1] = Searched(1, 0, BLACK, False, Evaluation(Cp(-30000)))
    >>> [s.suspect for s in suspect_evaluations(task, found)]
    [None, '-30000 cp is past any evaluation (20,000 cp) and not a mate']
    """
    reasons: dict[int, str] = {}
    by_index = {s.index: s for s in searched if s.evaluation is not None}
    for index, one in by_index.items():
        assert one.evaluation is not None
        score = one.evaluation.score
        if not score.is_mate() and abs(score.score() or 0) > SUSPECT_CP:
            reasons[index] = (f"{score.score():+d} cp is past any evaluation "
                              f"({SUSPECT_CP:,} cp) and not a mate")
    for index, one in by_index.items():
        after = by_index.get(index + 1)
        best = one.evaluation.best_move if one.evaluation is not None else None
        if (after is None or best is None or index >= len(task.moves)
                or best.uci() != task.moves[index] or index in reasons
                or index + 1 in reasons):
            continue
        assert one.evaluation is not None and after.evaluation is not None
        first = one.evaluation.score.score(mate_score=MATE_CP) or 0
        then = after.evaluation.score.score(mate_score=MATE_CP) or 0
        if min(first, then) >= CONTRADICTION_CP or max(first, then) <= -CONTRADICTION_CP:
            reason = (f"{first:+d} cp, then {then:+d} cp for the other side after the "
                      f"engine's own best move {best.uci()}")
            reasons.setdefault(index, reason)
            reasons.setdefault(index + 1, reason)
    return [replace(s, suspect=reasons[s.index]) if s.index in reasons else s
            for s in searched]


@dataclass
class TaskResult:
    game_id: int
    searched: list[Searched] = field(default_factory=list)
    engine_seconds: float = 0.0
    """Seconds spent waiting for the engine's answers."""
    restarts: int = 0
    """Engine restarts during the task."""


class _Engines(threading.local):
    """The engines of this thread, by how they are started: one per worker process, or
    per thread of a worker that runs several tasks at once (a cluster's)."""

    def __init__(self) -> None:
        self.by_spec: dict[EngineSpec, SupervisedEngine] = {}


_ENGINES = _Engines()


def engine_for(spec: EngineSpec) -> SupervisedEngine:
    """This thread's engine for ``spec``, closed when the process exits."""
    engine = _ENGINES.by_spec.get(spec)
    if engine is None:
        engine = _ENGINES.by_spec[spec] = SupervisedEngine(spec)
        # A pool's worker exits through multiprocessing's exit function, which runs these
        # finalizers: the engine is asked to quit instead of left to notice a closed pipe.
        multiprocessing.util.Finalize(engine, engine.close, exitpriority=10)
    return engine


def engine_identity(spec: EngineSpec) -> str:
    """The identity (:attr:`SupervisedEngine.identity`) of the engine ``spec`` starts,
    started in this process and kept for the tasks to come."""
    return engine_for(spec).identity


def _target_positions(task: SearchTask) -> list[tuple[int, bool, Position]]:
    """``(index, with_history, position)`` of each of the task's targets, in game order."""
    wanted = dict(task.targets)
    pos = Position.from_fen(task.start_fen)
    found = []
    for index in range(max(wanted) + 1):
        if index:
            pos.push(Move.from_uci(task.moves[index - 1]))
        if index in wanted:
            found.append((index, wanted[index], pos.copy()))
    return found


def close_engines() -> None:
    """Quit this thread's engines."""
    while _ENGINES.by_spec:
        _, engine = _ENGINES.by_spec.popitem()
        engine.close()


def run_task(task: SearchTask) -> TaskResult:
    """Search the task's positions; a position the engine fails on twice is returned with
    its error, and the next one is searched by a fresh engine."""
    engine = engine_for(task.spec)
    restarts = engine.restarts
    result = TaskResult(task.game_id)
    targets = _target_positions(task)
    if task.chained:
        targets.reverse()
    fresh: bool | None = None  # a chain's first search clears the hash as the spec says
    for index, with_history, pos in targets:
        key = pos.zobrist()
        if not pos.has_legal_moves():
            result.searched.append(Searched(index, key, pos.turn, with_history, None,
                                            ended=True))
            continue
        # Without history the engine sees the position alone, as every game reaching it.
        searched = pos if with_history else Position.from_fen(pos.fen())
        started = time.perf_counter()
        try:
            info = engine.analyse(searched, task.limit, fresh=fresh)
        except EngineGaveUpError:
            raise  # the run stops: every position left would fail the same way
        except EngineProtocolError:
            raise  # every answer of this engine is suspect: the run stops, storing nothing
        except EngineError as exc:  # failed twice, refused, or an answer that makes no sense
            refused = exc.refused if isinstance(exc, PositionFailedError) else None
            result.searched.append(Searched(index, key, pos.turn, with_history, None,
                                            error=str(exc), refused=refused))
            if not isinstance(exc, PositionFailedError):
                engine.close()  # its state is unknown: the next position gets a fresh one
        else:
            result.searched.append(Searched(index, key, pos.turn, with_history,
                                            Evaluation.from_info(info)))
        result.engine_seconds += time.perf_counter() - started
        if task.chained:
            fresh = False
    result.searched = suspect_evaluations(task, result.searched)
    result.restarts = engine.restarts - restarts
    return result
