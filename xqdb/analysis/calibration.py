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
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import CannotRunError
from ..engine.score import WinCurve

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


def fit_win_curve(samples: Sequence[Sample], *, iterations: int = 50) -> CurveFit:
    """The maximum-likelihood curve for ``samples``; :class:`CalibrationError` when they
    cannot give one (fewer than 10, or scores that never vary with the centipawns)."""
    if len(samples) < 10:
        raise CalibrationError(f"{len(samples)} positions are too few to fit a curve")
    # Fit p = sigmoid(a + b * x) with x in hundreds of centipawns (keeps Newton well scaled).
    a, b = 0.0, 0.5
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
