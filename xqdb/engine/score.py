"""Search limits, scores and win/draw/loss statistics, in the shape of python-chess's engine API.

Engines report a score from the side to move's point of view. A :class:`PovScore` keeps that
relative score together with the side it belongs to, so it can be read from Red's or Black's
side without sign mistakes.

>>> from xqdb.rules import BLACK
>>> score = PovScore(Mate(-3), BLACK)
>>> score.red(), score.black()
(Mate(+3), Mate(-3))
>>> score.red().score(mate_score=100_000)
99997
>>> PovScore(Cp(35), BLACK).red()
Cp(-35)
>>> Limit(nodes=20_000).key()
'nodes=20000'
"""

from __future__ import annotations

import math
from datetime import datetime

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from ..rules.board import RED


@dataclass(frozen=True)
class Limit:
    """When a search stops: after ``depth`` plies, ``nodes`` nodes or ``time`` seconds,
    whichever comes first. At least one must be given.

    >>> Limit(depth=12, time=0.5).key()
    'depth=12,time=0.5'
    """

    depth: int | None = None
    nodes: int | None = None
    time: float | None = None

    def __post_init__(self) -> None:
        if self.depth is None and self.nodes is None and self.time is None:
            raise ValueError("a limit needs a depth, a node count or a time")
        for name in ("depth", "nodes", "time"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"limit {name} must be positive, not {value}")

    @classmethod
    def parse(cls, text: str) -> "Limit":
        """The limit a :meth:`key` names (``nodes=2000``, ``depth=8,time=0.5``).

        >>> Limit.parse("depth=8,time=0.5") == Limit(depth=8, time=0.5)
        True
        """
        values: dict[str, float] = {}
        for part in text.split(","):
            name, _, value = part.strip().partition("=")
            if name not in ("depth", "nodes", "time") or name in values:
                raise ValueError(f"{text!r} is not a limit such as nodes=2000, depth=8 or "
                                 f"time=0.5")
            try:
                values[name] = float(value) if name == "time" else int(value)
            except ValueError:
                raise ValueError(f"{part.strip()!r}: {value!r} is not a number") from None
        return cls(**values)  # type: ignore[arg-type]

    def key(self) -> str:
        """A stable text naming the limit: evaluations made with equal keys are interchangeable."""
        parts = [f"{name}={value}" for name, value in
                 (("depth", self.depth), ("nodes", self.nodes), ("time", self.time))
                 if value is not None]
        return ",".join(parts)


#: What a mate counts as where scores are put in order or stored as centipawns (less the
#: moves to it): beyond any real evaluation.
MATE_CP = 100_000


class Score(ABC):
    """A score from one side's point of view: centipawns (:class:`Cp`) or a mate (:class:`Mate`)."""

    __slots__ = ()

    @abstractmethod
    def score(self, *, mate_score: int | None = None) -> int | None:
        """Centipawns; a mate counts as ``mate_score`` less the moves to it (``None`` without it)."""

    @abstractmethod
    def mate(self) -> int | None:
        """Moves to mate: positive when this side mates, negative (or ``-0``) when it is mated."""

    def is_mate(self) -> bool:
        return self.mate() is not None

    @abstractmethod
    def __neg__(self) -> "Score":
        """The same score from the other side's point of view."""

    def _order(self) -> tuple[int, int]:
        """A key ordering scores from worst to best for this side."""
        mate = self.mate()
        if mate is None:
            return (1, self.score() or 0)
        if mate > 0 or isinstance(self, MateGiven):
            return (2, -mate)
        return (0, -mate)

    def __lt__(self, other: "Score") -> bool:
        return self._order() < other._order()

    def __le__(self, other: "Score") -> bool:
        return self._order() <= other._order()

    def __gt__(self, other: "Score") -> bool:
        return self._order() > other._order()

    def __ge__(self, other: "Score") -> bool:
        return self._order() >= other._order()


class Cp(Score):
    """A centipawn score.

    >>> -Cp(20), Cp(20) > Cp(-5)
    (Cp(-20), True)
    """

    __slots__ = ("cp",)

    def __init__(self, cp: int) -> None:
        self.cp = int(cp)

    def score(self, *, mate_score: int | None = None) -> int:
        return self.cp

    def mate(self) -> None:
        return None

    def __neg__(self) -> "Cp":
        return Cp(-self.cp)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Cp) and other.cp == self.cp

    def __hash__(self) -> int:
        return hash(("cp", self.cp))

    def __repr__(self) -> str:
        return f"Cp({self.cp})"

    def __str__(self) -> str:
        return f"{self.cp:+d}"


class Mate(Score):
    """Mate in ``moves`` moves: positive when this side mates, ``0`` or negative when it is mated.

    ``Mate(0)`` is the side that has already been mated (or stalemated: in Xiangqi both
    lose); its opposite is :class:`MateGiven`.

    >>> -Mate(2), -Mate(0)
    (Mate(-2), MateGiven)
    """

    __slots__ = ("moves",)

    def __init__(self, moves: int) -> None:
        self.moves = int(moves)

    def score(self, *, mate_score: int | None = None) -> int | None:
        if mate_score is None:
            return None
        return mate_score - self.moves if self.moves > 0 else -mate_score - self.moves

    def mate(self) -> int:
        return self.moves

    def __neg__(self) -> Score:
        return MateGiven() if self.moves == 0 else Mate(-self.moves)

    def __eq__(self, other: object) -> bool:
        return type(other) is Mate and other.moves == self.moves

    def __hash__(self) -> int:
        return hash(("mate", self.moves))

    def __repr__(self) -> str:
        return f"Mate({self.moves:+d})" if self.moves else "Mate(-0)"

    def __str__(self) -> str:
        return f"#{self.moves:+d}" if self.moves else "#-0"


class MateGiven(Mate):
    """The winning side's view of a position where the opponent is already mated."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(0)

    def score(self, *, mate_score: int | None = None) -> int | None:
        return mate_score

    def __neg__(self) -> Score:
        return Mate(0)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MateGiven)

    def __hash__(self) -> int:
        return hash("mate-given")

    def __repr__(self) -> str:
        return "MateGiven"

    def __str__(self) -> str:
        return "#+0"


class _Negatable(Protocol):
    def __neg__(self) -> Any: ...


_Value = TypeVar("_Value", bound=_Negatable)


@dataclass(frozen=True)
class _Pov(Generic[_Value]):
    """A value ``relative`` to the side ``turn`` (``RED`` or ``BLACK``) that was to move,
    readable from either side (negation turns it round)."""

    relative: _Value
    turn: int

    def pov(self, color: int) -> _Value:
        """The value from ``color``'s point of view."""
        return self.relative if color == self.turn else -self.relative

    def red(self) -> _Value:
        return self.pov(RED)

    def black(self) -> _Value:
        return self.pov(-RED)


@dataclass(frozen=True)
class PovScore(_Pov[Score]):
    """A :class:`Score` relative to the side that was to move."""

    def is_mate(self) -> bool:
        return self.relative.is_mate()


@dataclass(frozen=True)
class Wdl:
    """Wins, draws and losses per thousand (or any total) from one side's point of view.

    >>> Wdl(600, 300, 100).expectation()
    0.75
    >>> PovWdl(Wdl(600, 300, 100), RED).black()
    Wdl(wins=100, draws=300, losses=600)
    """

    wins: int
    draws: int
    losses: int

    def total(self) -> int:
        return self.wins + self.draws + self.losses

    def expectation(self) -> float:
        """The expected score: a win counts 1, a draw 1/2."""
        return (self.wins + 0.5 * self.draws) / self.total()

    def __neg__(self) -> "Wdl":
        return Wdl(self.losses, self.draws, self.wins)


@dataclass(frozen=True)
class PovWdl(_Pov[Wdl]):
    """A :class:`Wdl` relative to the side that was to move."""


#: The ply from which a curve's scale is its ``late_scale`` (see :class:`WinCurve`).
PHASE_PLIES = 100


@dataclass(frozen=True)
class WinCurve:
    """Expected score from centipawns, for the side to move (``turn``) after ``ply``
    plies: ``1 / (1 + exp(-((cp - offset) / s + sign * red_edge / scale)))``, where ``s``
    is ``scale`` at the start and ``late_scale`` from ply :data:`PHASE_PLIES` on, its
    inverse moving in a straight line between (a curve with no ``late_scale`` keeps
    ``scale`` throughout), and ``sign`` is +1 with Red to move, -1 with Black.

    Never chess's constant: each engine scores Xiangqi on its own scale, so each has its
    own curve (see :data:`DEFAULT_CURVES`). The scale depends on the phase: the same
    advantage in centipawns wins more often late in a game, when fewer pieces are left to
    turn it around.

    One game state has one expected score, whoever is to move, so the two other terms are
    kept apart. ``offset`` is the engine's tempo: what its scores give the side to move
    for having the move, as its consecutive evaluations show it (the best move's score
    before it and after it, the other way round, sum to about twice the tempo). Taking it
    off makes the engine's own best move keep the mover's expected score on average.
    ``red_edge`` is Red's edge for moving first, in centipawns of ``scale``: the results
    that Red scores beyond what the engine's scores say, whichever side is to move.
    Fitted on results alone, one offset would stand for both (Red's edge looks like a
    bonus of the side to move every other ply) and credit every move with the difference.

    >>> curve = WinCurve(scale=145, offset=52)
    >>> round(curve.expectation(Mate(3), 0, RED), 2), round(curve.expectation(Mate(-2), 0, RED), 2)
    (1.0, 0.0)
    >>> round(curve.expectation(Cp(100), 0, RED), 2)
    0.58
    >>> phased = WinCurve(scale=240, offset=60, late_scale=140)
    >>> [round(phased.expectation(Cp(160), ply, RED), 2) for ply in (0, 50, 100, 150)]
    [0.6, 0.64, 0.67, 0.67]

    Red's edge is the same for both sides' view of one state: Red to move at +30, or Black
    to move at -30 after a move that changed nothing (an offset of 15 each time):

    >>> edged = WinCurve(scale=200, offset=15, red_edge=20)
    >>> round(edged.expectation(Cp(30), 40, RED), 4) == round(1 - edged.expectation(Cp(0), 41, -RED), 4)
    True
    """

    scale: float = 250.0
    offset: float = 0.0
    late_scale: float | None = None
    red_edge: float = 0.0

    def scale_at(self, ply: int) -> float:
        """The scale after ``ply`` plies."""
        if self.late_scale is None:
            return self.scale
        t = min(ply, PHASE_PLIES) / PHASE_PLIES
        return 1.0 / ((1.0 - t) / self.scale + t / self.late_scale)

    def expectation(self, score: Score, ply: int, turn: int) -> float:
        """The expected score of the side ``score`` belongs to, ``turn`` (``RED`` or
        ``BLACK``), to move after ``ply`` plies."""
        mate = score.mate()
        if mate is not None:
            return 1.0 if mate > 0 or isinstance(score, MateGiven) else 0.0
        cp = score.score() or 0
        edge = self.red_edge / self.scale if turn == RED else -self.red_edge / self.scale
        logit = (cp - self.offset) / self.scale_at(ply) + edge
        # Bounded: a trial curve of a fit can make it far too large for exp.
        return 1.0 / (1.0 + math.exp(-max(-500.0, min(500.0, logit))))


def curve_sql(cp: str, ply: str, side: str, offset: str = "cp_offset",
              scale: str = "cp_scale", late_scale: str = "cp_late_scale",
              red_edge: str = "cp_red_edge") -> str:
    """SQL for :meth:`WinCurve.expectation` of the centipawns ``cp`` after ``ply`` plies
    with ``side`` (``'red'`` or ``'black'``) to move, from columns holding the curve (as
    ``win_curves`` does): the one formula, for the views.

    >>> curve_sql("e.score_cp", "m.ply", "e.side").count("exp(")
    1
    """
    t = f"(least({ply}, {PHASE_PLIES}) / {PHASE_PLIES}.0)"
    inverse = f"((1 - {t}) / {scale} + {t} / coalesce({late_scale}, {scale}))"
    edge = (f"(CASE WHEN {side} = 'red' THEN 1 ELSE -1 END) * coalesce({red_edge}, 0) "
            f"/ {scale}")
    return f"1 / (1 + exp(-(({cp} - {offset}) * {inverse} + {edge})))"


#: Curves by the start of the engine's name, fitted by ``xqdb calibrate`` (see
#: :func:`xqdb.analysis.calibration.fit_win_curve`). Fairy-Stockfish 11.1's: on 240 games
#: of ccpd-dev.zip with results from the standard start (the first by
#: ``md5('curve-fit' || game_id)`` of an import, none of the games of ``bench/data``),
#: analysed as the default's fast pass analyses (50,000 nodes, each game from its end back
#: with the hash kept): tempo +16 cp (90 % interval 16..17) read from its 8,103 best moves,
#: scale 166 cp at the start (135..251) and 152 cp from ply 100 on (110..186) from 16,862
#: positions from ply 20 on; Red's edge left out, since with it the games left out scored
#: worse (log loss 0.5511 against 0.5434). Checked on games it was not fitted on: see the
#: README. The curve before (offset 45, fitted on results alone) took Red's edge and more
#: for a bonus of the side to move and credited every move about 0.05. The built-in
#: engine's tempo, +2 cp (2..3), is read the same way from its 2,989 best moves in 100
#: other games of the same draw at depth 3 (its fast pass). Its scale stays the 250 cp set
#: by hand before: fitted on those games' results (204 cp, 90 % interval 180..441, no Red's
#: edge) it predicts the games left out worse (log loss 0.5761 against 0.5695). Without the
#: tempo its best moves lost 0.004 each and rose after 20 % of those they moved.
DEFAULT_CURVES: dict[str, WinCurve] = {
    "Fairy-Stockfish": WinCurve(scale=166.0, offset=16.0, late_scale=152.0),
    "xqdb built-in": WinCurve(scale=250.0, offset=2.0),
}
#: What each shipped curve was fitted on, in words (stored in ``win_curves.fitted_on``).
CURVES_FITTED_ON: dict[str, str] = {
    "Fairy-Stockfish": "fitted on 240 games of ccpd-dev.zip at 50,000 nodes (chained)",
    "xqdb built-in": "tempo fitted on 100 games of ccpd-dev.zip at depth 3",
}
#: When the shipped curves were fitted.
CURVES_FITTED_AT = datetime(2026, 12, 8)


def curve_for(engine_name: str) -> WinCurve:
    """The default curve for an engine, by its name (the built-in engine's when unknown).

    >>> curve_for("Fairy-Stockfish 11.1 LB 64").scale
    166.0
    """
    for prefix, curve in DEFAULT_CURVES.items():
        if engine_name.startswith(prefix):
            return curve
    return DEFAULT_CURVES["xqdb built-in"]
