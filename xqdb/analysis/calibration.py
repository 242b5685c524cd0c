"""Fitting an engine's win curve on positions of games with known results.

Each sample is an engine's centipawn score for the side to move and what that side went on
to score in the game (1, 1/2 or 0). The curve ``E = 1 / (1 + exp(-(cp - offset) / scale))``
is fitted to them by maximum likelihood: the same log loss a logistic regression minimises,
solved by Newton's method (two parameters, a convex problem: a few steps suffice).

>>> samples = [(cp, 1.0 if cp > 60 else 0.0) for cp in range(-400, 400, 7)]
>>> samples += [(60, 1.0), (60, 0.0), (100, 0.0), (20, 1.0)]
>>> fit = fit_win_curve(samples)
>>> 40 < fit.curve.offset < 80, fit.log_loss < fit.baseline_log_loss
(True, True)
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import CannotRunError
from ..engine.score import Cp, WinCurve

#: ``(centipawns for the side to move, that side's score in the game)``.
Sample = tuple[float, float]

#: Results as the side to move's score, from Red's result text.
RED_POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


class CalibrationError(CannotRunError, ValueError):
    """Too few or too one-sided samples to fit a curve."""


@dataclass(frozen=True)
class CurveFit:
    """A fitted curve and how well it fits."""

    curve: WinCurve
    positions: int
    log_loss: float
    """Mean log loss of the curve on the samples."""
    baseline_log_loss: float
    """Mean log loss of always saying 50 % (ln 2 = 0.693): what the curve improves on."""

    def __str__(self) -> str:
        return (f"offset {self.curve.offset:+.0f} cp, scale {self.curve.scale:.0f} cp, from "
                f"{self.positions:,} positions: log loss {self.log_loss:.4f} (constant 50 %: "
                f"{self.baseline_log_loss:.4f})")


def log_loss(samples: Sequence[Sample], curve: WinCurve) -> float:
    """Mean log loss of ``curve`` on ``samples`` (lower is better)."""
    total = 0.0
    for cp, y in samples:
        p = min(max(1 / (1 + math.exp(-(cp - curve.offset) / curve.scale)), 1e-12), 1 - 1e-12)
        total -= y * math.log(p) + (1 - y) * math.log(1 - p)
    return total / len(samples)


def fit_win_curve(samples: Sequence[Sample], *, iterations: int = 50,
                  start: WinCurve | None = None) -> CurveFit:
    """The maximum-likelihood curve for ``samples`` (Newton's method from ``start``, or
    from a flat guess); :class:`CalibrationError` when they cannot give one (fewer than
    10, or scores that never vary with the centipawns)."""
    if len(samples) < 10:
        raise CalibrationError(f"{len(samples)} positions are too few to fit a curve")
    # Fit p = sigmoid(a + b * x) with x in hundreds of centipawns (keeps Newton well scaled).
    a, b = 0.0, 0.5
    if start is not None:
        b = 100 / start.scale
        a = -start.offset * b / 100
    for _ in range(iterations):
        ga = gb = haa = hab = hbb = 0.0
        for cp, y in samples:
            x = cp / 100
            p = 1 / (1 + math.exp(-max(-500.0, min(500.0, a + b * x))))
            w = p * (1 - p)
            ga += p - y
            gb += (p - y) * x
            haa += w
            hab += w * x
            hbb += w * x * x
        det = haa * hbb - hab * hab
        if det <= 1e-12:
            break
        step_a = (hbb * ga - hab * gb) / det
        step_b = (haa * gb - hab * ga) / det
        a, b = a - step_a, b - step_b
        if abs(step_a) < 1e-9 and abs(step_b) < 1e-9:
            break
    if not b > 1e-6 or not math.isfinite(a):
        raise CalibrationError("the results do not rise with the engine's scores: no curve "
                               "fits these positions")
    curve = WinCurve(scale=100 / b, offset=-100 * a / b)
    baseline = WinCurve(scale=1e12)
    return CurveFit(curve, len(samples), log_loss(samples, curve), log_loss(samples, baseline))


#: A sample with where it comes from: ``(cp, score, game_id, ply)``.
GameSample = tuple[float, float, int, int]
#: The fewest games and positions a curve is fitted from.
MIN_GAMES = 20
MIN_POSITIONS = 500
#: One game in this many is held out of the fit, to judge it on games it did not see.
HOLD_OUT_EVERY = 4
#: The phases the curve is checked in, by ply.
PHASES = ((0, 20), (20, 40), (40, 60), (60, 80), (80, 10_000))


@dataclass(frozen=True)
class Bucket:
    """One row of a reliability table: predicted against actual score."""

    low: float
    high: float
    positions: int
    predicted: float
    actual: float


@dataclass(frozen=True)
class CheckedFit:
    """A fit on some games, judged on the games held out: its confidence interval, its
    reliability table, and whether it beats the curve in use there."""

    fit: CurveFit
    games: int
    offset_interval: tuple[float, float]
    scale_interval: tuple[float, float]
    """90 % intervals, from refits on games drawn again with replacement (bootstrap)."""
    held_out_games: int
    held_out_positions: int
    held_out_log_loss: float
    current_log_loss: float
    """The curve in use, on the same held-out positions."""
    reliability: list[Bucket]
    """On the held-out positions."""
    phases: list[tuple[str, int, float]]
    """``(plies, positions, scale)``: the scale of a curve refitted on each phase alone."""

    @property
    def better(self) -> bool:
        """Whether the fit predicts the unseen games better than the curve in use."""
        return self.held_out_log_loss < self.current_log_loss

    def lines(self) -> list[str]:
        """The fit, its intervals, the check on unseen games and the table, in words."""
        lo, hi = self.offset_interval
        slo, shi = self.scale_interval
        out = [f"fitted on {self.games:,} games: {self.fit}",
               f"  90 % interval: offset {lo:+.0f} .. {hi:+.0f} cp, scale {slo:.0f} .. "
               f"{shi:.0f} cp",
               f"  on {self.held_out_games:,} games it did not see ({self.held_out_positions:,} "
               f"positions): log loss {self.held_out_log_loss:.4f}, the curve in use "
               f"{self.current_log_loss:.4f}",
               "  reliability on those games (predicted / actual score, positions):"]
        out += [f"    {b.low:.1f}-{b.high:.1f}: {b.predicted:.3f} / {b.actual:.3f} "
                f"({b.positions:,})" for b in self.reliability if b.positions]
        out.append("  scale by phase: " + ", ".join(
            f"plies {name}: {scale:.0f} cp ({n:,})" for name, n, scale in self.phases))
        return out


def reliability(samples: Sequence[Sample], curve: WinCurve, buckets: int = 10) -> list[Bucket]:
    """Predicted against actual score of ``samples``, by bucket of the prediction.

    >>> [b.positions for b in reliability([(-1000, 0.0), (1000, 1.0)], WinCurve(), 2)]
    [1, 1]
    """
    rows: list[list[tuple[float, float]]] = [[] for _ in range(buckets)]
    for cp, y in samples:
        p = curve.expectation(Cp(int(cp)))
        rows[min(buckets - 1, int(p * buckets))].append((p, y))
    return [Bucket(i / buckets, (i + 1) / buckets, len(r),
                   sum(p for p, _ in r) / len(r) if r else 0.0,
                   sum(y for _, y in r) / len(r) if r else 0.0) for i, r in enumerate(rows)]


def _bootstrap(by_game: dict[int, list[Sample]], start: WinCurve, draws: int,
               seed: int = 1) -> tuple[tuple[float, float], tuple[float, float]]:
    rng = random.Random(seed)
    games = sorted(by_game)
    offsets, scales = [], []
    for _ in range(draws):
        picked = [s for g in rng.choices(games, k=len(games)) for s in by_game[g]]
        try:
            curve = fit_win_curve(picked, iterations=8, start=start).curve
        except CalibrationError:
            continue
        offsets.append(curve.offset)
        scales.append(curve.scale)
    if not offsets:
        raise CalibrationError("no refit of the drawn games gives a curve")
    return _interval(offsets), _interval(scales)


def _interval(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return (ordered[int(0.05 * (len(ordered) - 1))], ordered[int(0.95 * (len(ordered) - 1))])


def checked_fit(samples: Sequence[GameSample], current: WinCurve, *,
                min_games: int = MIN_GAMES, min_positions: int = MIN_POSITIONS,
                draws: int = 60) -> CheckedFit:
    """Fit a curve on all but one game in :data:`HOLD_OUT_EVERY` of ``samples``, and judge
    it on those it did not see against ``current`` (the curve in use).

    Raises :class:`CalibrationError` with fewer than ``min_games`` games or
    ``min_positions`` positions, or samples no curve fits.
    """
    games = {g for _, _, g, _ in samples}
    if len(games) < min_games or len(samples) < min_positions:
        raise CalibrationError(f"{len(samples):,} positions of {len(games):,} games are too few "
                               f"to fit a curve (at least {min_positions:,} positions of "
                               f"{min_games:,} games)")
    held = {g for i, g in enumerate(sorted(games)) if i % HOLD_OUT_EVERY == HOLD_OUT_EVERY - 1}
    train = [(cp, y) for cp, y, g, _ in samples if g not in held]
    test = [(cp, y) for cp, y, g, _ in samples if g in held]
    fit = fit_win_curve(train)
    by_game: dict[int, list[Sample]] = {}
    for cp, y, g, _ in samples:
        if g not in held:
            by_game.setdefault(g, []).append((cp, y))
    offsets, scales = _bootstrap(by_game, fit.curve, draws)
    phases = []
    for low, high in PHASES:
        part = [(cp, y) for cp, y, g, ply in samples if low <= ply < high]
        if len(part) >= 100:
            try:
                scale = fit_win_curve(part, start=fit.curve).curve.scale
            except CalibrationError:
                continue
            name = f"{low}-{high}" if high < 10_000 else f"{low}+"
            phases.append((name, len(part), scale))
    return CheckedFit(fit, len(games) - len(held), offsets, scales, len(held), len(test),
                      log_loss(test, fit.curve), log_loss(test, current),
                      reliability(test, fit.curve), phases)
