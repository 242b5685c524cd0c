"""Fit the win-probability curve of an engine on games with known results.

Run: ``python bench/fit_win_curve.py [--engine /usr/games/fairy-stockfish] [--nodes 20000]
[--games 400]``. Reads the CCPD games of ``../shared/data/ccpd-dev.zip`` that start from the
initial position and have a result, evaluates the positions at plies 20, 25, ..., 60
(those the game reaches) and fits ``E = 1 / (1 + exp(-(cp - offset) / scale))`` to the
side to move's score (1, 1/2, 0) by maximum likelihood. Prints the fit, its log loss against
a constant 50 %, and what the fitted curve says at a few centipawn values. The figures are
the source of :data:`xqdb.engine.analysis.DEFAULT_CURVES`.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

from xqdb.engine import Limit, SupervisedEngine, choose_engine
from xqdb.formats import read_paths
from xqdb.replay import replay
from xqdb import Position
from xqdb.rules import STARTING_FEN

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
#: Both sides to move, so that the offset measures the side to move's bonus, not Red's.
PLIES = tuple(range(20, 61, 5))
POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def samples(engine: SupervisedEngine, limit: Limit, games: int) -> list[tuple[int, float]]:
    """``(cp for the side to move, its score)`` at the sampled plies of the first games."""
    out = []
    used = 0
    for record in read_paths([str(DATA / "ccpd-dev.zip")]):
        result = POINTS.get(record.result or "")
        if result is None:
            continue
        game = replay(record)
        if not game.is_valid or Position.from_fen(game.start_fen).fen() != STARTING_FEN:
            continue
        used += 1
        pos = Position()
        for ply, move in enumerate(game.moves, 1):
            pos.push(move)
            if ply in PLIES:
                score = engine.analyse(Position.from_fen(pos.fen()), limit).score.relative
                if not score.is_mate():
                    mover = result if pos.turn == 1 else 1.0 - result
                    out.append((score.score() or 0, mover))
        if used >= games:
            break
    return out


def log_loss(data: list[tuple[int, float]], offset: float, scale: float) -> float:
    total = 0.0
    for cp, y in data:
        p = min(max(1 / (1 + math.exp(-(cp - offset) / scale)), 1e-9), 1 - 1e-9)
        total -= y * math.log(p) + (1 - y) * math.log(1 - p)
    return total / len(data)


def fit(data: list[tuple[int, float]]) -> tuple[float, float]:
    """Grid search, then a finer grid around the best point (two parameters: enough)."""
    best = (0.0, 250.0)
    for step_offset, step_scale, span in ((20.0, 25.0, 10), (2.0, 2.5, 10)):
        o0, s0 = best
        candidates = [(o0 + i * step_offset, s0 + j * step_scale)
                      for i in range(-span, span + 1) for j in range(-span, span + 1)
                      if s0 + j * step_scale > 10]
        best = min(candidates, key=lambda c: log_loss(data, *c))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engine", default=None)
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--games", type=int, default=400)
    args = parser.parse_args()
    choice = choose_engine(args.engine)
    print(choice.message)
    started = time.perf_counter()
    with SupervisedEngine(choice.spec) as engine:
        data = samples(engine, Limit(nodes=args.nodes), args.games)
        name = engine.name
    offset, scale = fit(data)
    print(f"{name}, {args.nodes:,} nodes: {len(data):,} positions from up to {args.games} games "
          f"in {time.perf_counter() - started:.0f} s")
    print(f"fit: offset {offset:+.0f} cp, scale {scale:.0f} cp; log loss "
          f"{log_loss(data, offset, scale):.4f} (constant 50 %: {math.log(2):.4f})")
    for cp in (0, 100, 200, 300, 500, 900):
        print(f"  {cp:+5d} cp -> {1 / (1 + math.exp(-(cp - offset) / scale)):.3f}")


if __name__ == "__main__":
    main()
