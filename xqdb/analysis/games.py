"""Engine analysis of whole games, and every move judged by what it lost.

Each position of a game is evaluated once: an :class:`EvalCache` keyed by Zobrist key, side
to move, engine and limit means that a transposition, or an opening shared by many games,
costs one search. A position that has already occurred in its game since the last capture
is the exception: there the history decides what the rules allow (repetition verdicts), so
it is searched with its move list and its evaluation is neither taken from nor given to
the cache.

A move is judged by the drop in the mover's expected score (0 lost .. 1 won), from the
evaluation before it and the one after it. The expected score is the engine's WDL when it
gives one, otherwise a :class:`WinCurve` over centipawns fitted for that engine. The class
is :func:`xqdb.analysis.judgement.judge`'s, the one rule the database's views run too:
``blunder``, ``mistake``, ``inaccuracy`` by the drop against :class:`Thresholds`, a
blunder that lets a mate in or throws one away named ``allowed_mate`` or ``missed_mate``,
and never a move that repeats a position or is the engine's own best move.

>>> from xqdb.engine import EngineSpec, SupervisedEngine, Limit
>>> with SupervisedEngine(EngineSpec.builtin()) as engine:  # the red king walks away from
...     game = analyse_game(engine, Limit(depth=2),         # its attacked chariot
...                         "3k5/9/9/9/9/9/9/9/r8/R4K3 w", [Move.from_uci("f0e0")])
>>> judged = game.moves[0]
>>> judged.judgement, str(judged.best_move), round(judged.loss, 2)
('blunder', 'a0a1', 0.95)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Collection, Iterable, Iterator, Mapping, Sequence

from ..rules.board import RED, Move
from ..position import Position
from ..rules.position import STARTING_FEN
from ..engine.client import Info
from ..engine.runner import PositionFailedError, SupervisedEngine
from ..engine.score import Cp, Limit, Mate, Score, Wdl, WinCurve, curve_for
from .judgement import JUDGEMENTS, Thresholds, judge

__all__ = ["JUDGEMENTS", "Thresholds", "DEFAULT_FAST", "DEFAULT_DEEP", "BUILTIN_FAST",
           "BUILTIN_DEEP", "too_shallow", "Evaluation", "EvalCache", "MoveJudgement",
           "GameAnalysis", "GameAnalyser", "judge_moves", "recheck_plies", "shifted_plies",
           "revalued_plies", "followup_plies", "analyse_two_pass", "game_positions",
           "Repetitions", "analyse_game", "Cp", "Mate", "WinCurve", "curve_for", "RECHECK_LOSS",
           "RECHECK_GAIN", "RECHECK_SHIFT", "RECHECK_REVALUED"]


@dataclass(frozen=True)
class Evaluation:
    """One searched position, from the side to move's point of view."""

    score: Score
    wdl: Wdl | None = None
    best_move: Move | None = None
    pv: tuple[Move, ...] = ()
    depth: int | None = None
    nodes: int | None = None
    spread: tuple[Score, Score] | None = None
    """The lowest and highest score of the search's last depths (:attr:`Info.spread`)."""

    @classmethod
    def from_info(cls, info: Info) -> "Evaluation":
        spread = (info.spread[0].relative, info.spread[1].relative) if info.spread else None
        return cls(info.score.relative, info.wdl.relative if info.wdl else None,
                   info.pv[0] if info.pv else None, tuple(info.pv), info.depth, info.nodes,
                   spread)

    def unsettled(self, curve: WinCurve, ply: int, turn: int) -> float:
        """How much expected score the search's last depths spanned (0 when unknown): a
        search still moving when it stopped is the one most likely wrong.

        >>> evaluation = Evaluation(Cp(0), spread=(Cp(-40), Cp(60)))
        >>> round(evaluation.unsettled(WinCurve(scale=100), 0, RED), 2)
        0.24
        """
        if self.spread is None:
            return 0.0
        low, high = self.spread
        return curve.expectation(high, ply, turn) - curve.expectation(low, ply, turn)

    def expectation(self, curve: WinCurve, ply: int, turn: int) -> float:
        """Expected score of the side to move, ``turn``, after ``ply`` plies: the WDL's
        when there is one, else the curve's."""
        if self.wdl is not None and not self.score.is_mate():
            return self.wdl.expectation()
        return curve.expectation(self.score, ply, turn)


#: What identifies an evaluation: Zobrist key, side to move, engine, limit.
EvalKey = tuple[int, int, str, str]


class EvalCache:
    """Evaluations by :data:`EvalKey`, counting hits and misses.

    >>> cache = EvalCache()
    >>> cache.get((1, 1, "e", "nodes=1")) is None, cache.hit_rate()
    (True, 0.0)
    """

    def __init__(self) -> None:
        self._evaluations: dict[EvalKey, Evaluation] = {}
        self.hits = 0
        self.misses = 0

    def get(self, key: EvalKey) -> Evaluation | None:
        found = self._evaluations.get(key)
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    def put(self, key: EvalKey, evaluation: Evaluation) -> None:
        self._evaluations[key] = evaluation

    def __len__(self) -> int:
        return len(self._evaluations)

    def hit_rate(self) -> float:
        looked = self.hits + self.misses
        return self.hits / looked if looked else 0.0


@dataclass
class MoveJudgement:
    """One move of a game, judged."""

    ply: int
    """1-based: the first move of the game is ply 1."""
    side: int
    move: Move
    best_move: Move | None
    expected_before: float
    """The mover's expected score before the move."""
    expected_after: float
    loss: float
    judgement: str | None
    """One of :data:`JUDGEMENTS`, or ``None`` for a good move."""
    unsettled: float = 0.0
    """The larger :meth:`Evaluation.unsettled` of the move's two positions."""


@dataclass
class GameAnalysis:
    """The judged moves of one game, and the positions the engine could not analyse."""

    moves: list[MoveJudgement] = field(default_factory=list)
    failed_positions: list[int] = field(default_factory=list)
    """Positions (0: the start, i: after ply i) recorded as failed; the moves next to
    them are not judged."""
    searches: int = 0
    """Engine searches run (cache hits and ended games need none)."""

    def judgement_at(self, ply: int) -> MoveJudgement | None:
        for judged in self.moves:
            if judged.ply == ply:
                return judged
        return None


class GameAnalyser:
    """Evaluates the positions of games with one engine and limit, sharing a cache."""

    def __init__(self, engine: SupervisedEngine, limit: Limit, *, cache: EvalCache | None = None,
                 curve: WinCurve | None = None, thresholds: Thresholds | None = None) -> None:
        self.engine = engine
        self.limit = limit
        self.cache = cache if cache is not None else EvalCache()
        self.curve = curve or curve_for(engine.name)
        self.thresholds = thresholds or Thresholds()
        self.searches = 0
        """Engine searches run so far."""

    def evaluate(self, position: Position, repeated: bool) -> Evaluation:
        """The evaluation of ``position``: cached unless ``repeated`` (history matters)."""
        if not position.has_legal_moves():
            return Evaluation(Mate(0))  # mate or stalemate: both lose, no search needed
        key: EvalKey = (position.zobrist(), position.turn, self.engine.identity,
                        self.limit.key())
        if not repeated:
            cached = self.cache.get(key)
            if cached is not None:
                return cached
            position = Position.from_fen(position.fen())  # history-free: shareable
        evaluation = Evaluation.from_info(self.engine.analyse(position, self.limit))
        self.searches += 1
        if not repeated:
            self.cache.put(key, evaluation)
        return evaluation

    def analyse(self, start_fen: str, moves: Sequence[Move],
                plies: Collection[int] | None = None) -> GameAnalysis:
        """Judge the moves of a game (only those at ``plies`` when given; 1-based)."""
        result = GameAnalysis()
        first_side = Position.from_fen(start_fen).turn
        wanted = set(range(1, len(moves) + 1)) if plies is None else set(plies)
        # Position i stands after ply i: ply p is judged from positions p - 1 and p.
        needed = wanted | {p - 1 for p in wanted}
        evaluations: dict[int, Evaluation] = {}
        repeats: set[int] = set()
        searches_before = self.searches
        for index, pos, repeated in game_positions(start_fen, moves):
            if repeated:
                repeats.add(index)
            if index in needed:
                try:
                    evaluations[index] = self.evaluate(pos, repeated)
                except PositionFailedError:
                    result.failed_positions.append(index)
        result.moves = judge_moves(first_side, moves, evaluations, wanted, repeats,
                                   self.curve, self.thresholds)
        result.searches = self.searches - searches_before
        return result


def judge_moves(first_side: int, moves: Sequence[Move], evaluations: Mapping[int, Evaluation],
                plies: Collection[int], repeats: Collection[int], curve: WinCurve,
                thresholds: Thresholds) -> list[MoveJudgement]:
    """Judge the moves at ``plies`` (1-based) of a game whose first mover is ``first_side``
    from the evaluations of its positions by index (0: the start, i: after ply i); a move
    without both evaluations is left out, and a move to a position in ``repeats`` (one seen
    before in the game) is never flagged.

    >>> judged = judge_moves(1, [Move.from_uci("h2e2")], {0: Evaluation(Cp(50)),
    ...                      1: Evaluation(Cp(400))}, [1], (), WinCurve(), Thresholds())
    >>> judged[0].judgement, round(judged[0].loss, 2)
    ('blunder', 0.38)
    """
    judged = []
    for ply in sorted(plies):
        before, after = evaluations.get(ply - 1), evaluations.get(ply)
        if before is None or after is None:
            continue
        side = first_side if ply % 2 else -first_side
        judged.append(_judge(ply, side, moves[ply - 1], before, after, ply in repeats, curve,
                             thresholds))
    return judged


def _judge(ply: int, side: int, move: Move, before: Evaluation, after: Evaluation,
           repeats: bool, curve: WinCurve, thresholds: Thresholds) -> MoveJudgement:
    expected_before = before.expectation(curve, ply - 1, side)
    expected_after = 1.0 - after.expectation(curve, ply, -side)
    loss = max(0.0, expected_before - expected_after)
    # after.score is the opponent's view: a mate > 0 there means the opponent mates.
    judgement = judge(loss, before.score.mate(), after.score.mate(), repeats=repeats,
                      best=before.best_move == move, thresholds=thresholds)
    return MoveJudgement(ply, side, move, before.best_move, expected_before, expected_after,
                         loss, judgement,
                         max(before.unsettled(curve, ply - 1, side),
                             after.unsettled(curve, ply, -side)))


#: The default analysis is two passes: every position at :data:`DEFAULT_FAST`, then at
#: :data:`DEFAULT_DEEP` the moves the fast pass flags and those beside the positions the
#: deep searches find misjudged. Chosen with ``bench/bench_defaults.py`` (Fairy-Stockfish,
#: real master games, against one pass as deep as the deep one): one pass at 50,000 nodes
#: classes mostly the wrong moves, but as a fast pass it flags the moves worth searching
#: again at half the cost of 100,000 nodes. The fast pass searches each game from its end
#: back, keeping the engine's hash through the game (``SearchTask.chained``): a position's
#: search then knows what the searches after it found, so it misjudges fewer positions,
#: flags fewer good moves, and the net can be wider (:data:`RECHECK_LOSS`) for the cost.
#: The deep limit is the reference's, because the two passes agree with a reference only
#: where their deep searches are its own: against one pass at 2,000,000 nodes over 24 games
#: (49 mistakes or worse), a deep pass of 1,000,000 finds 39 with precision 0.76, one of
#: 2,000,000 finds 46 with no move classed wrong.
DEFAULT_FAST = Limit(nodes=50_000)
DEFAULT_DEEP = Limit(nodes=2_000_000)
#: The same for the built-in engine, which searches about a sixth as many nodes a second
#: and is weak at any limit.
BUILTIN_FAST = Limit(depth=3)
BUILTIN_DEEP = Limit(depth=5)


def too_shallow(limit: Limit) -> str | None:
    """Why a single pass at ``limit`` cannot be trusted to judge moves, or ``None``.

    >>> print(too_shallow(Limit(nodes=20_000)))
    one pass at nodes=20000 is too shallow to judge moves: of the moves one pass at 20,000 nodes classes blunders, 59 in 66 are not blunders for a search of 2,000,000 nodes (at 50,000 nodes 28 in 37, at 200,000 nodes 7 in 15, at 1,000,000 nodes 4 in 16: bench/bench_defaults.py); leave out the limit for the default two passes, or give --recheck
    >>> too_shallow(DEFAULT_DEEP) is None
    True
    """
    if limit.nodes is None or DEFAULT_DEEP.nodes is None or limit.nodes >= DEFAULT_DEEP.nodes:
        return None
    return (f"one pass at {limit.key()} is too shallow to judge moves: of the moves one "
            "pass at 20,000 nodes classes blunders, 59 in 66 are not blunders for a search "
            "of 2,000,000 nodes (at 50,000 nodes 28 in 37, at 200,000 nodes 7 in 15, at "
            "1,000,000 nodes 4 in 16: bench/bench_defaults.py); leave out the limit for the "
            "default two passes, or give --recheck")


#: The classes that ``recheck_plies(least_loss=None)`` checks again.
RECHECKED = ("allowed_mate", "missed_mate", "blunder", "mistake")
#: Which moves of the fast pass the deep pass checks again, by default: those that lost at
#: least this much of the expected score, and the moves within this many plies of them.
#: Chosen with bench/bench_defaults.py (Fairy-Stockfish, a fast pass at 50,000 nodes
#: searched from each game's end back, a deep pass and a reference of 2,000,000 nodes) with
#: :data:`RECHECK_GAIN`, :data:`RECHECK_SHIFT`, :data:`RECHECK_REVALUED` and
#: :data:`RECHECK_UNSETTLED` (``--grid``) on the 16 real games of bench/data's
#: ``ccpd-heldout-k``, judged through the curve of schema 14: the cheapest rule finding 0.90
#: of their 118 mistakes or worse, 107 at 50.2 % of the reference's nodes, all 30 serious
#: errors, no move classed wrong. No rule of the grid finds 0.90 within a third of the
#: nodes. Checked on games it was not chosen on (``-j``): see the README.
RECHECK_LOSS = 0.085
RECHECK_RADIUS = 0
#: And the moves that gained at least this much (``None``: none by their gain). No move can
#: do better than the best one, so a gain says the fast pass misjudged the position before
#: the move or the one after. It paid when the fast pass searched every position afresh
#: (0.16 found 72 of 82 mistakes or worse instead of 69 over 31 games); with the curve
#: before schema 14, which credited every move about 0.05, it found nothing more once the
#: fast pass kept its hash through a game, and with the curve of schema 14 it is on the
#: grid's cheapest rules again.
RECHECK_GAIN: float | None = 0.16
#: Then, as long as a deep search moves a position's expected score this far from the fast
#: pass's, the two moves beside that position are checked again too (:func:`shifted_plies`).
RECHECK_SHIFT: float | None = 0.09
#: And, in the same rounds, each move beside a position searched deeply that loses this much
#: once its positions take the deep evaluations where there are some
#: (:func:`revalued_plies`): the fast pass can misjudge both positions of a move a little,
#: each too little to count as a shift (with the curve before, over 80 games, without it
#: the cheapest rule finding 139 cost 30.7 %, and 143 cost 36.4 %).
RECHECK_REVALUED: float | None = 0.07
#: And from the start, the moves beside a position whose fast search had not settled: its
#: last depths' scores span this much expected score or more (:meth:`Evaluation.unsettled`;
#: ``None``: none by that). A move the fast pass sees lose nothing, though it is a mistake,
#: is most often one where the fast search's score was still moving.
RECHECK_UNSETTLED: float | None = 0.12


def recheck_plies(judged: Iterable[MoveJudgement], plies: int, *,
                  least_loss: float | None = RECHECK_LOSS,
                  radius: int = RECHECK_RADIUS,
                  least_gain: float | None = RECHECK_GAIN,
                  least_unsettled: float | None = RECHECK_UNSETTLED) -> set[int]:
    """The plies a deep pass searches again after a fast one: each move that lost at least
    ``least_loss`` (with ``None``: each move flagged a mistake or worse, :data:`RECHECKED`)
    or gained at least ``least_gain``, or one of whose positions the fast search left
    ``least_unsettled`` or more unsettled, and the moves within ``radius`` plies of it, in a
    game of ``plies`` moves.

    A wider ``radius`` catches a swing the fast pass put on the wrong move (a shallow
    search sees the punishment a ply late, or the threat a ply early), at a cost.

    >>> fast = judge_moves(1, [Move.from_uci("h2e2")] * 4, {0: Evaluation(Cp(0)),
    ...     1: Evaluation(Cp(0)), 2: Evaluation(Cp(900)), 3: Evaluation(Cp(-900)),
    ...     4: Evaluation(Cp(-300))}, [1, 2, 3, 4], (), WinCurve(), Thresholds())
    >>> sorted(recheck_plies(fast, 4, least_gain=None)), sorted(recheck_plies(fast, 4))
    ([2], [2, 4])
    >>> sorted(recheck_plies(fast, 4, least_loss=None, radius=1, least_gain=None))
    [1, 2, 3]
    >>> unsettled = {0: Evaluation(Cp(0)), 1: Evaluation(Cp(0), spread=(Cp(-90), Cp(40))),
    ...              2: Evaluation(Cp(0))}
    >>> sorted(recheck_plies(judge_moves(1, [Move.from_uci("h2e2")] * 2, unsettled, [1, 2],
    ...                                  (), WinCurve(), Thresholds()), 2))
    [1, 2]
    """
    flagged = {m.ply for m in judged
               if (m.judgement in RECHECKED if least_loss is None else m.loss >= least_loss)
               or (least_gain is not None
                   and m.expected_after - m.expected_before >= least_gain)
               or (least_unsettled is not None and m.unsettled >= least_unsettled)}
    return {p + d for p in flagged for d in range(-radius, radius + 1)} & \
        set(range(1, plies + 1))


def shifted_plies(fast: Mapping[int, MoveJudgement], deep: Mapping[int, MoveJudgement],
                  plies: int, *, least_shift: float | None = RECHECK_SHIFT) -> set[int]:
    """The moves, not yet judged deeply, beside a position whose deep evaluation moved at
    least ``least_shift`` of the expected score from the fast one (moves by ply, of a game
    of ``plies`` moves).

    A misjudged position misjudges both moves beside it: the move into it and the move out
    of it. The fast pass blames the wrong one of the two as often as not, so a move it
    passed as good is searched again once the deep pass finds its neighbour's position
    misjudged.

    >>> def move(ply, before, after):
    ...     return MoveJudgement(ply, 1, Move.from_uci("h2e2"), None, before, after,
    ...                          max(0.0, before - after), None)
    >>> fast = {p: move(p, 0.5, 0.5) for p in (1, 2, 3)}
    >>> sorted(shifted_plies(fast, {2: move(2, 0.5, 0.3)}, 3))
    [3]
    """
    if least_shift is None:
        return set()
    found = set()
    for ply, judged in deep.items():
        quick = fast.get(ply)
        if quick is None:
            continue
        if abs(judged.expected_before - quick.expected_before) >= least_shift:
            found.add(ply - 1)
        if abs(judged.expected_after - quick.expected_after) >= least_shift:
            found.add(ply + 1)
    return (found - set(deep)) & set(range(1, plies + 1))


def revalued_plies(fast: Mapping[int, MoveJudgement], deep: Mapping[int, MoveJudgement],
                   plies: int, *, least_loss: float | None = RECHECK_REVALUED) -> set[int]:
    """The moves, not yet judged deeply, next to a move that was (by ply, of a game of
    ``plies`` moves), that lose at least ``least_loss`` of the expected score once each of
    their two positions takes its deep evaluation where the deep pass has one.

    A shallow search often misjudges both positions of a move a little, in opposite
    directions: neither moves far enough to count as a shift (:func:`shifted_plies`), and the
    fast pass sees no loss, but the deep evaluation of one of them, put beside the fast
    evaluation of the other, shows the move losing.

    >>> def move(ply, before, after):
    ...     return MoveJudgement(ply, 1, Move.from_uci("h2e2"), None, before, after,
    ...                          max(0.0, before - after), None)
    >>> fast = {p: move(p, 0.5, 0.5) for p in (1, 2, 3)}
    >>> sorted(revalued_plies(fast, {3: move(3, 0.58, 0.5)}, 3))  # after ply 2: 1 - 0.58
    [2]
    >>> sorted(revalued_plies(fast, {3: move(3, 0.55, 0.5)}, 3))
    []
    """
    if least_loss is None:
        return set()
    found = set()
    for ply, quick in fast.items():
        before_deep, after_deep = deep.get(ply - 1), deep.get(ply + 1)
        if ply in deep or (before_deep is None and after_deep is None):
            continue
        # The position between two moves is the one after the first, seen by its mover,
        # and the one before the second: the two sides' expected scores add up to 1.
        before = quick.expected_before if before_deep is None else 1.0 - before_deep.expected_after
        after = quick.expected_after if after_deep is None else 1.0 - after_deep.expected_before
        if before - after >= least_loss:
            found.add(ply)
    return found & set(range(1, plies + 1))


def followup_plies(fast: Mapping[int, MoveJudgement], deep: Mapping[int, MoveJudgement],
                   plies: int, *, least_shift: float | None = RECHECK_SHIFT,
                   least_loss: float | None = RECHECK_REVALUED) -> set[int]:
    """The moves the deep pass searches in its next round, given what it has judged so far:
    :func:`shifted_plies` and :func:`revalued_plies`."""
    return (shifted_plies(fast, deep, plies, least_shift=least_shift)
            | revalued_plies(fast, deep, plies, least_loss=least_loss))


def analyse_two_pass(engine: SupervisedEngine, fast: Limit, deep: Limit, start_fen: str,
                     moves: Sequence[Move], *, cache: EvalCache | None = None) -> GameAnalysis:
    """Judge a game at the ``fast`` limit, then again at the ``deep`` limit only the moves
    :func:`recheck_plies` picks from the fast pass, and those :func:`followup_plies` adds
    while the deep searches move evaluations.

    A cheap pass finds the swings; the deep search confirms or clears them, as puzzle
    miners do. The result holds the deep judgement where there is one, the fast one
    elsewhere, and the searches of both passes.
    """
    cache = cache if cache is not None else EvalCache()
    quick = GameAnalyser(engine, fast, cache=cache).analyse(start_fen, moves)
    fast_by_ply = {m.ply: m for m in quick.moves}
    deep_analyser = GameAnalyser(engine, deep, cache=cache)
    deep_by_ply: dict[int, MoveJudgement] = {}
    failed = set(quick.failed_positions)
    searches = quick.searches
    tried: set[int] = set()
    todo = recheck_plies(quick.moves, len(moves))
    while todo:
        tried |= todo
        found = deep_analyser.analyse(start_fen, moves, todo)
        deep_by_ply.update((m.ply, m) for m in found.moves)
        failed.update(found.failed_positions)
        searches += found.searches
        todo = followup_plies(fast_by_ply, deep_by_ply, len(moves)) - tried
    by_ply = fast_by_ply | deep_by_ply
    return GameAnalysis([by_ply[p] for p in sorted(by_ply)], sorted(failed), searches)


def game_positions(start_fen: str, moves: Sequence[Move]) -> Iterator[tuple[int, Position, bool]]:
    """``(index, position, repeated)`` for the start (index 0) and after each ply.

    ``repeated`` tells that the position has occurred before in the game since the last
    capture, so its history matters. The same :class:`Position` object is yielded each time,
    moved on: copy it to keep it. Raises ``ValueError`` at an illegal move.

    >>> moves = [Move.from_uci(t) for t in ("h0g2", "h9g7", "g2h0", "g7h9")]
    >>> [repeated for _, _, repeated in game_positions("3k5/9/9/9/9/9/9/9/9/4K4 w", [])]
    [False]
    >>> [repeated for _, _, repeated in game_positions(STARTING_FEN, moves)]
    [False, False, False, False, True]
    """
    pos = Position.from_fen(start_fen)
    repetitions = Repetitions(pos.zobrist())
    yield 0, pos, False
    for index, move in enumerate(moves, 1):
        if not pos.is_legal(move):
            raise ValueError(f"ply {index}, {move}: {pos.explain_illegal(move)}")
        captured = bool(pos.board[move.to_square])
        pos.push(move)
        yield index, pos, repetitions.reached(pos.zobrist(), captured)


class Repetitions:
    """Which positions of a game have occurred before in it since the last capture: those
    whose history decides what the rules allow. Fed the Zobrist key after each move.

    >>> seen = Repetitions(start_key=1)
    >>> [seen.reached(2, False), seen.reached(1, False), seen.reached(2, True)]
    [False, True, False]
    """

    def __init__(self, start_key: int) -> None:
        self._since_capture = {start_key}

    def reached(self, key: int, captured: bool) -> bool:
        """Whether the position ``key``, reached by a move that ``captured`` or not, is a
        repetition."""
        if captured:
            self._since_capture = set()  # no position before a capture can come back
        repeated = key in self._since_capture
        self._since_capture.add(key)
        return repeated


def analyse_game(engine: SupervisedEngine, limit: Limit, start_fen: str, moves: Sequence[Move],
                 *, cache: EvalCache | None = None,
                 plies: Collection[int] | None = None) -> GameAnalysis:
    """Judge every move of one game (see :class:`GameAnalyser` for the options)."""
    return GameAnalyser(engine, limit, cache=cache).analyse(start_fen, moves, plies)
