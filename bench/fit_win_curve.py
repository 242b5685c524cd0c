"""Fit the win-probability curve of an engine on games with known results, without a database.

Run: ``python bench/fit_win_curve.py [--engine /usr/games/fairy-stockfish] [--protocol ucci]
[--nodes 20000] [--games 400]``. Reads the CCPD games of ``../shared/data/ccpd-dev.zip`` that
start from the initial position and have a result, evaluates the positions at plies 20, 25,
..., 60 (those the game reaches) and the position after the engine's best move in each, and
fits the curve (:func:`xqdb.analysis.calibration.fit_win_curve`, which ``xqdb calibrate``
runs on a database's own analysis): the tempo that keeps the engine's best moves level, and
the scale and Red's edge that fit the side to move's score (1, 1/2, 0) given it. Prints the
fit, its log loss against a constant 50 %, and what the fitted curve says at a few
centipawn values. ``xqdb calibrate`` on a database analysed as the defaults analyse is what
fitted :data:`xqdb.engine.score.DEFAULT_CURVES` (see the README).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from xqdb.engine import Cp, Limit, SupervisedEngine, choose_engine
from xqdb.analysis.calibration import RED_POINTS, Pair, Sample, fit_win_curve
from xqdb.formats import read_paths
from xqdb.replay import replay
from xqdb import Position
from xqdb.rules import RED, STARTING_FEN

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
#: Both sides to move, so that the offset measures the side to move's bonus, not Red's.
PLIES = tuple(range(20, 61, 5))


def samples(engine: SupervisedEngine, limit: Limit, games: int
            ) -> tuple[list[Sample], list[Pair]]:
    """``(cp for the side to move, its score, plies played, side to move)`` at the sampled
    plies of the first games, and the engine's best move from each of those positions."""
    out: list[Sample] = []
    pairs: list[Pair] = []
    used = 0
    for record in read_paths([str(DATA / "ccpd-dev.zip")]):
        result = RED_POINTS.get(record.result or "")
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
                info = engine.analyse(Position.from_fen(pos.fen()), limit)
                score = info.score.relative
                if not score.is_mate():
                    mover = result if pos.turn == 1 else 1.0 - result
                    out.append((float(score.score() or 0), mover, ply, pos.turn))
                if info.pv:
                    after = Position.from_fen(pos.fen())
                    after.push(info.pv[0])
                    reply = engine.analyse(after, limit).score.relative
                    pairs.append((score, reply, ply, pos.turn))
        if used >= games:
            break
    return out, pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engine", default=None)
    parser.add_argument("--protocol", default=None, help="uci, uci-variant or ucci")
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--games", type=int, default=400)
    args = parser.parse_args()
    choice = choose_engine(args.engine, protocol=args.protocol)
    print(choice.message)
    started = time.perf_counter()
    with SupervisedEngine(choice.spec) as engine:
        data, pairs = samples(engine, Limit(nodes=args.nodes), args.games)
        name = engine.identity
    fit = fit_win_curve(data, pairs)
    print(f"{name}, {args.nodes:,} nodes: {len(data):,} positions from up to {args.games} games "
          f"in {time.perf_counter() - started:.0f} s")
    print(f"fit: {fit}")
    for cp in (0, 100, 200, 300, 500, 900):
        print(f"  {cp:+5d} cp -> " + ", ".join(
            f"{fit.curve.expectation(Cp(cp), ply, RED):.3f} at ply {ply}" for ply in (20, 40, 60)))


if __name__ == "__main__":
    main()
