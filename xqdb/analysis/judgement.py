"""How a move is judged: the one rule, in Python and as SQL for the views.

This module holds the rule; :mod:`xqdb.db.judgements` runs it as views over the ``evals``
table, so that a later analysis, a new curve or new thresholds show up in the next query
without anything being computed again. The rule is written once: :func:`judge` in Python,
and :func:`judgement_sql` the same decision as a SQL ``CASE`` for the views:

``judgements``
    every move with an evaluation of the position before it and after it (by the same
    engine and limit): the mover's expected score before and after, the ``loss`` between
    them, the move's accuracy and its ``class``;
``blunders``
    the judged moves that have a class;
``player_blunders``
    per player and engine: moves, average loss, counts per class, blunders per 100 moves
    and accuracy.

How a move is judged:

* The expected score (0 lost .. 1 won) of the side to move is the engine's WDL,
  ``(win + draw / 2) / 1000``, when it gave one; otherwise the win curve
  ``1 / (1 + exp(-(cp - cp_offset) / cp_scale))`` of the table ``win_curves`` whose
  ``engine`` is the longest start of the evaluation's engine (``xqdb calibrate`` fits one
  per engine; the row with ``engine = ''`` is the curve of any other engine). A mate for
  the side to move is 1, a mate against it 0.
* ``loss`` = the mover's expected score before the move less its expected score after it
  (never below 0). ``blunder``, ``mistake`` and ``inaccuracy`` when ``loss`` reaches the
  ``min_loss`` of that class in the table ``judgement_thresholds`` (by default 0.20, 0.10
  and 0.05: the cut-offs chess.com publishes, on a curve fitted for Xiangqi).
* Mates are graded like every other move, by what the move threw away from the position
  before it (as lichess grades them): a move that changes a forced mate is named
  ``allowed_mate`` (the opponent has a forced mate after the move and the mover was not
  already being mated) or ``missed_mate`` (the mover had a forced mate and no longer has
  one) only when its ``loss`` is a blunder's; otherwise it gets the class its loss gives.
  So a missed mate that still wins easily is at most an inaccuracy, letting a mate in from
  a position that was already lost is no worse than the little it lost, and letting a mate
  in, or throwing a mate away to a lost or level position, is as serious as a blunder.
  :data:`SERIOUS` (``blunder`` and both mate classes) are the moves every report counts as
  serious errors.
* A move that returns to a position already met in its game since the last capture is
  never classed: repeating is how a side claims a draw or makes the opponent, under the
  repetition rules, deviate, and the engine's score there depends on rules it may not model.
  Nor is the engine's own best move: a drop after it is the search's horizon (the position
  after it is searched as deep again, so sees further), not the mover's error.
* A move's ``accuracy`` is lichess's: with the mover's win percentages ``100 * expected``,
  ``103.1668100711649 * exp(-0.04354415386753951 * drop) - 3.166924740191411 + 1`` clamped
  to 0..100, and 100 when the move lost nothing. A game's accuracy per side is lichess's
  too: the mean of the volatility-weighted mean and the harmonic mean of its moves'
  accuracies, each move weighted by the standard deviation of the win percentages in a
  window around it (size ``plies / 10`` within 2..8; weight clamped to 0.5..12). A
  player's accuracy is the mean over their games.

>>> round(move_accuracy(0.60, 0.60), 1), round(move_accuracy(0.60, 0.50), 1)
(100.0, 64.6)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: The judgements, worst first.
JUDGEMENTS = ("allowed_mate", "missed_mate", "blunder", "mistake", "inaccuracy")
#: The judgement classes that the thresholds decide, mildest first.
LOSS_CLASSES = ("inaccuracy", "mistake", "blunder")
#: The classes of moves that change a forced mate.
MATE_CLASSES = ("allowed_mate", "missed_mate")
#: The serious errors: what every report counts beside the blunders.
SERIOUS = ("allowed_mate", "missed_mate", "blunder")


@dataclass(frozen=True)
class Thresholds:
    """Least drop in expected score for each class (change them to taste)."""

    inaccuracy: float = 0.05
    mistake: float = 0.10
    blunder: float = 0.20

    def judge(self, loss: float) -> str | None:
        """The class that ``loss`` alone gives.

        >>> Thresholds().judge(0.12), Thresholds().judge(0.01)
        ('mistake', None)
        """
        if loss >= self.blunder:
            return "blunder"
        if loss >= self.mistake:
            return "mistake"
        if loss >= self.inaccuracy:
            return "inaccuracy"
        return None


def check_thresholds(thresholds: Thresholds) -> Thresholds:
    """``thresholds``, if they are ordered and within 0..1; else ``ValueError``.

    >>> check_thresholds(Thresholds(0.2, 0.1, 0.3))
    Traceback (most recent call last):
    ...
    ValueError: thresholds must rise from inaccuracy to blunder within 0..1: 0.2, 0.1, 0.3
    """
    values = [getattr(thresholds, name) for name in LOSS_CLASSES]
    if not 0 < values[0] <= values[1] <= values[2] <= 1:
        raise ValueError("thresholds must rise from inaccuracy to blunder within 0..1: "
                         + ", ".join(f"{v:g}" for v in values))
    return thresholds


def judge(loss: float, mate_before: int | None, mate_after: int | None, *, repeats: bool,
          best: bool, thresholds: Thresholds) -> str | None:
    """The class of a move (one of :data:`JUDGEMENTS`, or ``None`` for a good one).

    ``loss``: the drop in the mover's expected score; ``mate_before``: the forced mate of
    the position before the move, for the mover (> 0: the mover mates; ``None``: no mate
    found); ``mate_after``: the same after the move, for the opponent (> 0: the opponent
    mates); ``repeats``: the move returns to a position seen before in its game since the
    last capture; ``best``: it is the engine's own best move.

    >>> t = Thresholds()
    >>> judge(0.9, None, 3, repeats=False, best=False, thresholds=t)   # lets a mate in
    'allowed_mate'
    >>> judge(0.03, None, 3, repeats=False, best=False, thresholds=t)  # was lost anyway
    >>> judge(0.06, 4, None, repeats=False, best=False, thresholds=t)  # still wins easily
    'inaccuracy'
    >>> judge(0.6, 4, None, repeats=False, best=False, thresholds=t)   # threw the mate away
    'missed_mate'
    """
    if repeats or best:
        return None
    if loss >= thresholds.blunder:
        if mate_after is not None and mate_after > 0 and not (
                mate_before is not None and mate_before <= 0):
            return "allowed_mate"
        if mate_before is not None and mate_before > 0 and not (
                mate_after is not None and mate_after <= 0):
            return "missed_mate"
    return thresholds.judge(loss)


def judgement_sql(loss: str, mate_before: str, mate_after: str, repeats: str, best: str,
                  thresholds: Thresholds | tuple[str, str, str]) -> str:
    """:func:`judge` as a SQL ``CASE`` over the expressions named (``best``: a condition
    true when the move is the engine's best); ``thresholds`` as numbers, or as the SQL
    expressions of the inaccuracy, mistake and blunder cut-offs.

    >>> print(judgement_sql("l", "b", "a", "r", "m = bm", Thresholds()))
    CASE WHEN coalesce(r, false) OR coalesce(m = bm, false) THEN NULL
         WHEN l >= 0.2 AND a > 0 AND NOT coalesce(b <= 0, false) THEN 'allowed_mate'
         WHEN l >= 0.2 AND b > 0 AND NOT coalesce(a <= 0, false) THEN 'missed_mate'
         WHEN l >= 0.2 THEN 'blunder'
         WHEN l >= 0.1 THEN 'mistake'
         WHEN l >= 0.05 THEN 'inaccuracy' END
    """
    if isinstance(thresholds, Thresholds):
        t = check_thresholds(thresholds)
        inaccuracy, mistake, blunder = (repr(float(v)) for v in
                                        (t.inaccuracy, t.mistake, t.blunder))
    else:
        inaccuracy, mistake, blunder = thresholds
    return (f"CASE WHEN coalesce({repeats}, false) OR coalesce({best}, false) THEN NULL\n"
            f"     WHEN {loss} >= {blunder} AND {mate_after} > 0"
            f" AND NOT coalesce({mate_before} <= 0, false) THEN 'allowed_mate'\n"
            f"     WHEN {loss} >= {blunder} AND {mate_before} > 0"
            f" AND NOT coalesce({mate_after} <= 0, false) THEN 'missed_mate'\n"
            f"     WHEN {loss} >= {blunder} THEN 'blunder'\n"
            f"     WHEN {loss} >= {mistake} THEN 'mistake'\n"
            f"     WHEN {loss} >= {inaccuracy} THEN 'inaccuracy' END")


#: Coefficients of lichess's move accuracy (drop in win percentage points -> 0..100).
_ACCURACY_SCALE, _ACCURACY_DECAY, _ACCURACY_SHIFT = (103.1668100711649, 0.04354415386753951,
                                                     -3.166924740191411)


def move_accuracy(before: float, after: float) -> float:
    """Lichess's accuracy (0..100) of a move from the mover's expected score ``before`` and
    ``after`` it (0..1): what the ``accuracy`` column of ``judgements`` holds.

    >>> move_accuracy(0.9, 0.4) < move_accuracy(0.9, 0.8) < 100
    True
    """
    if after >= before:
        return 100.0
    drop = 100 * (before - after)
    raw = _ACCURACY_SCALE * math.exp(-_ACCURACY_DECAY * drop) + _ACCURACY_SHIFT + 1
    return min(100.0, max(0.0, raw))


def accuracy_sql(before: str, after: str) -> str:
    return (f"CASE WHEN {after} >= {before} THEN 100.0 ELSE least(100.0, greatest(0.0, "
            f"{_ACCURACY_SCALE} * exp(-{_ACCURACY_DECAY} * 100 * ({before} - {after})) "
            f"+ {_ACCURACY_SHIFT} + 1)) END")



@dataclass(frozen=True)
class JudgedMove:
    """A judged move with what it takes to show it: the position before it."""

    game_id: int
    ply: int
    side: str
    player: str | None
    move: str
    best_move: str | None
    loss: float
    judgement: str | None
    engine: str
    fen: str
    """The position before the move."""

    def row(self) -> tuple[object, ...]:
        return (self.game_id, self.ply, self.side, self.player, self.move, self.best_move,
                round(self.loss, 4), self.judgement, self.engine, self.fen)
