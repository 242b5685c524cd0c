"""Engine analysis of a whole database into its ``evals`` table (``xqdb analyze``).

Every position of the chosen games is searched once per engine and limit: a position
already in ``evals`` (from an earlier run, or from another game of this one) is taken from
there, so a transposition or an opening shared by many games costs one search, and a run
that was killed, run again, searches only what is missing. A position that has occurred
before in its game since the last capture is searched with the game's moves, since the
repetition rules then decide what may be played, and stored for that game alone.

Worker processes each run one engine (:mod:`xqdb.analysis.batch`); the parent plans, writes
the results in batches and counts. A position the engine fails on twice is stored as
failed and the run goes on; the next run tries it again. Given a Dask scheduler, the
workers are those of that cluster (see :mod:`xqdb.pipeline.executors`): each keeps one engine
alive, and only the positions missing from ``evals`` travel to them.

With a recheck limit the run has two passes: every position at that (low) limit, each
game's from its end back by one engine that keeps its hash through the game (a position
is then judged knowing what the searches of the positions after it found, and far fewer
moves are flagged wrongly), then, at the run's own limit, only the positions of the moves
the first pass flags (:func:`xqdb.analysis.games.recheck_plies`), in rounds while the deep
searches find positions the first pass misjudged (:func:`xqdb.analysis.games.followup_plies`)::

    summary = analyse_database("games.duckdb", EngineSpec(("/usr/games/fairy-stockfish",)),
                               Limit(nodes=20_000), jobs=2, where="year >= 2000")
    print(summary)
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import CannotRunError
from ..db.analysed import AnalysisError, evaluated, game_lines, mark_analysed
from ..db.evals import SIDES, StoredEval, planned_evals, write_evals
from ..db.holder import WriterNote
from ..db.schema import Connection, connect, require_database
from ..analysis.games import (
    Evaluation, MoveJudgement, Repetitions, Thresholds, curve_for, followup_plies, judge_moves,
    recheck_plies,
)
from ..analysis.batch import SearchTask, TaskResult, close_engines, engine_identity, run_task
from ..engine.runner import EngineSpec
from ..engine.score import Limit
from .executors import Executor, WorkerSetupError, open_executor, worker_name
from ..rules.board import Move
from ..rules.outcome import Termination

#: Positions per task: small enough that two workers share even one game's positions.
TASK_POSITIONS = 16
#: Results written per transaction (at least), and at most this many seconds apart: what
#: a killed run can lose.
COMMIT_POSITIONS = 200
COMMIT_SECONDS = 5.0
#: Refusals of the first positions (with no answer yet) that stop a run: an engine that
#: refuses them all will refuse every position.
REFUSALS_TO_STOP = 3
#: Endings after which the last position has no legal move: nothing to search.
_OVER = (Termination.CHECKMATE, Termination.STALEMATE)


class EngineRefusedRunError(CannotRunError):
    """The engine refused the first positions of the run (its words are in the message)."""


@dataclass
class PassSummary:
    """What one pass over the positions did."""

    limit: str
    positions: int = 0
    """Positions of the games the pass looked at (the start and after each ply)."""
    dry_run: bool = False
    to_search: int = 0
    searched: int = 0
    cached: int = 0
    """Positions already evaluated (in ``evals``, or earlier in this run)."""
    failed: int = 0
    ended: int = 0
    """Positions where the side to move is mated or stalemated: nothing to search."""
    restarts: int = 0
    engine_seconds: float = 0.0
    seconds: float = 0.0
    moves_rechecked: int | None = None
    """For a deep pass: the moves the fast pass flagged, with their neighbours."""

    def __str__(self) -> str:
        what = f"{self.positions:,} positions"
        if self.moves_rechecked is not None:
            what = f"{self.moves_rechecked:,} moves rechecked, {what}"
        if self.dry_run:
            return (f"{self.limit}: {what}: {self.to_search:,} to search, {self.cached:,} "
                    f"taken from the cache, {self.ended:,} with the game over (a dry run)")
        rate = f" ({self.searched / self.seconds:,.1f}/s)" if self.seconds > 0 else ""
        text = (f"{self.limit}: {what}: {self.searched:,} searched{rate}, "
                f"{self.cached:,} taken from the cache, {self.failed:,} failed")
        if self.ended:
            text += f", {self.ended:,} with the game over"
        return (text + f"; {self.restarts:,} engine restart{'s' * (self.restarts != 1)}, "
                f"{self.seconds:,.1f} s")


@dataclass
class AnalysisSummary:
    """What ``xqdb analyze`` did; ``str()`` is what it prints."""

    path: str
    engine: str
    games: int = 0
    passes: list[PassSummary] = field(default_factory=list)
    seconds: float = 0.0
    cluster: str | None = None
    """The cluster the engines ran on (``None``: this machine)."""
    retried_tasks: int = 0
    """Tasks searched again because the cluster worker searching them was lost."""

    @property
    def searched(self) -> int:
        return sum(p.searched for p in self.passes)

    @property
    def failed(self) -> int:
        return sum(p.failed for p in self.passes)

    def __str__(self) -> str:
        games = f"{self.games:,} game{'s' * (self.games != 1)}"
        verb = "a dry run over" if any(p.dry_run for p in self.passes) else "analysed"
        lines = [f"{verb} {games} of {self.path} with {self.engine}"]
        lines += [f"  {p}" for p in self.passes]
        if self.failed:
            lines.append(f"{self.failed:,} positions failed: run the same command again to "
                         "retry them")
        lines.append(f"{self.searched:,} searches in {self.seconds:,.1f} s")
        if self.cluster is not None:
            lines.append(f"searched on {self.cluster}; {self.retried_tasks:,} tasks retried "
                         "after their worker was lost")
        return "\n".join(lines)


@dataclass(frozen=True)
class _Game:
    """A game's positions as the database has them: keys, sides, repetitions."""

    game_id: int
    start_fen: str
    moves: tuple[str, ...]
    keys: tuple[int, ...]
    """Zobrist key of each position (0: the start, i: after ply i)."""
    first_side: int
    repeats: frozenset[int]
    over: bool
    """The last position has no legal move."""

    def turn(self, index: int) -> int:
        return self.first_side if index % 2 == 0 else -self.first_side


#: Called with the pass so far: as it starts, and after each task.
Progress = Callable[[PassSummary], None]


def analyse_database(path: str | os.PathLike[str], spec: EngineSpec, limit: Limit, *,
                     jobs: int | None = None, where: str | None = None,
                     game_ids: Sequence[int] = (), recheck: Limit | None = None,
                     thresholds: Thresholds | None = None,
                     progress: Progress | None = None,
                     started: Progress | None = None,
                     commit_positions: int = COMMIT_POSITIONS,
                     dry_run: bool = False, scheduler: str | None = None,
                     chained: bool | None = None) -> AnalysisSummary:
    """Evaluate the positions of the games of the database at ``path`` (those ``where``
    selects, or ``game_ids``; all by default) with the engine ``spec`` at ``limit`` into
    its ``evals`` table.

    ``recheck``: first every position at this limit, then at ``limit`` only the moves it
    flags (by ``thresholds``) and their neighbours. ``chained``: the first pass searches
    each game's positions from its end back, one engine keeping its hash through the game
    (``None``: when it is the fast pass of two, whose false alarms that makes far fewer;
    see :class:`~xqdb.analysis.batch.SearchTask`). ``started`` is called as each pass
    begins, ``progress`` after each batch of searches. ``dry_run``: count what the
    (first) pass would search, and search nothing.

    ``scheduler`` (``tcp://HOST:8786``) searches on the workers of that Dask cluster
    instead of ``jobs`` local processes: the engine must be at the same path on every
    worker (the built-in engine runs with each worker's own Python).

    Raises :class:`~xqdb.db.schema.DatabaseError`, :class:`AnalysisError`,
    :class:`~xqdb.engine.EngineError` (an engine that does not start or greet) and
    :class:`xqdb.pipeline.executors.ExecutorError` (the cluster cannot be used: no worker, a
    worker without the engine).
    """
    db_path = Path(path)
    require_database(db_path)
    begun = time.perf_counter()
    # The pool first: it forks, and must do so before DuckDB or an engine starts threads.
    with open_executor(jobs, scheduler) as executor:
        identify = engine_identity if executor.is_local else identity_on_worker
        identity = next(executor.map(identify, [spec], window=1))
        con = connect(db_path, create=False)
        # Readers refused meanwhile are told who holds the database, until when.
        note = WriterNote(db_path, "xqdb analyze")
        try:
            note.start()
            games = _games(con, where, game_ids)
            summary = AnalysisSummary(str(path), identity, len(games))
            runner = _PassRunner(con, note, executor, spec, identity, commit_positions,
                                 progress, started, dry_run)
            first_chained = recheck is not None if chained is None else chained
            summary.passes.append(runner.run(recheck or limit, games, None,
                                             chained=first_chained))
            if recheck is not None and not dry_run:
                summary.passes.append(runner.recheck(limit, recheck, games,
                                                     thresholds or Thresholds()))
            if not executor.is_local:
                summary.cluster = executor.describe()
                summary.retried_tasks = executor.retried
        finally:
            note.remove()
            con.close()
            if executor.in_this_process:
                close_engines()  # the engine ran in this process
    summary.seconds = time.perf_counter() - begun
    return summary


class _PassRunner:
    """Runs passes over games: plans the searches, farms them out, writes the results."""

    def __init__(self, con: Connection, note: WriterNote, executor: Executor,
                 spec: EngineSpec, identity: str, commit_positions: int,
                 progress: Progress | None, started: Progress | None, dry_run: bool) -> None:
        self.con, self.note, self.executor = con, note, executor
        self.stored = 0
        """Positions written by the passes so far."""
        self.dry_run = dry_run
        self.spec, self.identity = spec, identity
        self.commit_positions = commit_positions
        self.progress, self.started = progress, started
        self.answered = 0
        """Positions the engine answered so far."""
        self.refusals: list[str] = []
        """What the engine said refusing positions, while it has answered none."""

    def run(self, limit: Limit, games: list[_Game],
            wanted: dict[int, tuple[set[int], set[int]]] | None,
            summary: PassSummary | None = None, *, chained: bool = False) -> PassSummary:
        """One pass at ``limit``: every position, or by game id only the positions
        ``wanted[game][1]``; counted into ``summary`` when given. A pass over every
        position marks its games analysed at ``limit``. ``chained``: each game's positions
        are one task, searched from the last back by one engine keeping its hash."""
        began = time.perf_counter()
        summary = summary or PassSummary(limit.key(), dry_run=self.dry_run)
        spent = summary.seconds
        tasks = list(self._plan(limit, games, wanted, summary, chained))
        summary.to_search += sum(len(t.targets) for t in tasks)
        if self.dry_run:
            return summary
        if self.started is not None:
            self.started(summary)
        pending: list[StoredEval] = []
        last_commit = time.monotonic()
        try:
            search = run_task if self.executor.is_local else search_on_worker
            for result in self.executor.map(search, tasks, window=self.executor.jobs * 4):
                pending += self._rows(result, limit, summary)
                summary.seconds = spent + time.perf_counter() - began
                if (len(pending) >= self.commit_positions
                        or time.monotonic() - last_commit >= COMMIT_SECONDS):
                    self._store(pending)
                    pending, last_commit = [], time.monotonic()
                if self.progress is not None:
                    self.progress(summary)
        finally:
            self._store(pending)  # what was searched stays, even when interrupted
        if wanted is None:
            # Only now do the games' judgements at this limit count for them (a killed run
            # leaves them uncounted until it is run again to the end).
            mark_analysed(self.con, [g.game_id for g in games], self.identity, limit.key(),
                          [len(g.keys) for g in games])
        summary.seconds = spent + time.perf_counter() - began
        return summary

    def recheck(self, deep: Limit, fast: Limit, games: list[_Game],
                thresholds: Thresholds) -> PassSummary:
        """The deep pass after a fast one: at ``deep``, the moves the ``fast`` pass flags,
        then in rounds the moves :func:`~xqdb.analysis.games.followup_plies` adds (beside
        the positions the deep searches found misjudged, or that those searches show
        losing), until a round finds none."""
        by_id = {g.game_id: g for g in games}
        quick = self._judged(games, fast, thresholds)
        tried = {g: found for g, judged in quick.items()
                 if (found := recheck_plies(judged.values(), len(by_id[g].moves)))}
        todo = dict(tried)
        summary = PassSummary(deep.key(), dry_run=self.dry_run)
        while todo:
            self.run(deep, games, {g: (plies, _positions(plies)) for g, plies in todo.items()},
                     summary)
            judged = self._judged([by_id[g] for g in todo], deep, thresholds)
            todo = {}
            for game_id, moves in judged.items():
                own = {p: m for p, m in moves.items() if p in tried[game_id]}
                more = followup_plies(quick[game_id], own, len(by_id[game_id].moves))
                if more := more - tried[game_id]:
                    tried[game_id] |= more
                    todo[game_id] = more
        # The games' deep judgements count for them once every round is done.
        if tried:
            mark_analysed(self.con, list(tried), self.identity, deep.key(),
                          [len(_positions(plies)) for plies in tried.values()])
        summary.moves_rechecked = sum(len(plies) for plies in tried.values())
        return summary

    def _judged(self, games: list[_Game], limit: Limit, thresholds: Thresholds
                ) -> dict[int, dict[int, MoveJudgement]]:
        """By game id, the moves of ``games`` that the evaluations stored at ``limit``
        judge, by ply."""
        shared, own = planned_evals(self.con, self.identity, limit.key(),
                                    (k for g in games for k in g.keys),
                                    (g.game_id for g in games))
        curve = curve_for(self.identity)
        judged = {}
        for game in games:
            evaluations: dict[int, Evaluation] = {}
            for index, key in enumerate(game.keys):
                found = (own.get((game.game_id, index)) if index in game.repeats
                         else shared.get((key, game.turn(index), self.identity, limit.key())))
                if found is not None:
                    evaluations[index] = found
            plies = len(game.moves)
            judged[game.game_id] = {m.ply: m for m in judge_moves(
                game.first_side, [Move.from_uci(m) for m in game.moves], evaluations,
                range(1, plies + 1), game.repeats, curve, thresholds)}
        return judged

    def _store(self, rows: list[StoredEval]) -> None:
        write_evals(self.con, rows)
        self.stored += len(rows)
        self.note.update(positions=self.stored)

    def _plan(self, limit: Limit, games: list[_Game],
              wanted: dict[int, tuple[set[int], set[int]]] | None,
              summary: PassSummary, chained: bool = False) -> Iterator[SearchTask]:
        done_shared, done_own = evaluated(self.con, self.identity, limit.key(),
                                          (key for game in games for key in game.keys),
                                          (game.game_id for game in games))
        for game in games:
            indices: Iterable[int] = range(len(game.keys))
            if wanted is not None:
                indices = sorted(wanted.get(game.game_id, (set(), set()))[1])
            targets: list[tuple[int, bool]] = []
            for index in indices:
                summary.positions += 1
                if game.over and index == len(game.keys) - 1:
                    summary.ended += 1
                    continue
                if index in game.repeats:
                    if (game.game_id, index) in done_own:
                        summary.cached += 1
                    else:
                        targets.append((index, True))
                    continue
                position = (game.keys[index], game.turn(index))
                if position in done_shared:
                    summary.cached += 1
                else:
                    done_shared.add(position)  # the first game to reach it searches it
                    targets.append((index, False))
            size = max(len(targets), 1) if chained else TASK_POSITIONS
            for at in range(0, len(targets), size):
                chunk = tuple(targets[at:at + size])
                yield SearchTask(self.spec, limit, game.game_id, game.start_fen,
                                 game.moves[:chunk[-1][0]], chunk, chained)

    def _rows(self, result: TaskResult, limit: Limit, summary: PassSummary
              ) -> list[StoredEval]:
        summary.restarts += result.restarts
        summary.engine_seconds += result.engine_seconds
        rows = []
        for searched in result.searched:
            if searched.ended:
                summary.ended += 1
                continue
            summary.searched += 1
            summary.failed += searched.evaluation is None
            if searched.evaluation is not None:
                self.answered += 1
            elif searched.refused is not None and not self.answered:
                self.refusals.append(searched.refused)
                if len(self.refusals) >= REFUSALS_TO_STOP:
                    raise EngineRefusedRunError(
                        f"the engine refused the first {len(self.refusals)} positions, "
                        f"saying: {self.refusals[0]}",
                        "check that the engine plays Xiangqi in this protocol (--protocol, "
                        "--option)")
            own = searched.with_history
            rows.append(StoredEval((searched.key, searched.turn, self.identity, limit.key()),
                                   searched.evaluation,
                                   game_id=result.game_id if own else None,
                                   ply=searched.index if own else None, error=searched.error,
                                   suspect=searched.suspect))
        return rows


def search_on_worker(task: SearchTask) -> TaskResult:
    """:func:`~xqdb.analysis.batch.run_task` on a worker of a cluster, with the engine as
    this worker has it (see :func:`worker_spec`)."""
    return run_task(replace(task, spec=worker_spec(task.spec)))


def identity_on_worker(spec: EngineSpec) -> str:
    """:func:`~xqdb.analysis.batch.engine_identity` on a worker of a cluster."""
    return engine_identity(worker_spec(spec))


def worker_spec(spec: EngineSpec) -> EngineSpec:
    """``spec`` as this worker starts it: the built-in engine with this worker's Python;
    an external engine at the same path, or :class:`WorkerSetupError` naming the worker
    and the missing path.

    >>> worker_spec(EngineSpec(("/no/such/engine",)))
    Traceback (most recent call last):
    ...
    xqdb.pipeline.executors.WorkerSetupError: worker MainProcess (pid ...) has no engine /no/such/engine
    """
    if spec.is_builtin():
        return replace(spec, command=(sys.executable, *spec.command[1:]))
    if shutil.which(spec.command[0]) is None:
        raise WorkerSetupError(f"worker {worker_name()} has no engine {spec.command[0]}",
                               "install the engine at the same path on every worker")
    return spec


def _games(con: Connection, where: str | None, game_ids: Sequence[int]) -> list[_Game]:
    """The chosen games with at least one move, in game order."""
    games = []
    for game_id, fen, termination, moves, start_key, keys, captures, side in game_lines(
            con, where, game_ids):
        repetitions = Repetitions(start_key)
        repeats = frozenset(i for i, (key, captured) in enumerate(zip(keys, captures), 1)
                            if repetitions.reached(key, captured))
        games.append(_Game(game_id, fen, tuple(moves), (start_key, *keys), SIDES[side],
                           repeats, termination in _OVER))
    return games


def _positions(plies: set[int]) -> set[int]:
    """The positions that judge the moves at ``plies``: before and after each."""
    return {p - d for p in plies for d in (0, 1)}
