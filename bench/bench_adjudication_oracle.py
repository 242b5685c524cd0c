"""Benchmark: how often xqdb's game endings agree with pyffish's, and what judging costs.

Run: ``python bench/bench_adjudication_oracle.py [--stride 1] [--show 20]``. Prints figures;
asserts nothing (the tests pin the verdicts).

Input: ``ccpd-dev.zip`` (Big5 PGN, Chinese notation) and ``uci/liu-dahua-1125.pgn``
(coordinates), every game or one in ``--stride``. Each valid game is replayed with a move
limit of 100 plies, pyffish's; where xqdb finds a repetition or a move limit, pyffish's
``is_optional_game_end`` must give the same result at the same ply, and where xqdb finds
no such ending (or mate or stalemate, which pyffish leaves to its move generator), pyffish
must find none either. The disagreements are listed with the game and both verdicts.

The judging time is :func:`xqdb.rules.adjudication.judge_history` on every valid game
(CPU time, best of ``--repeat``), apart from replaying the moves.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

import pyffish

from xqdb.formats import read_paths
from xqdb.replay import ReplayedGame, replay
from xqdb import Position
from xqdb.rules.adjudication import Ending, judge_history

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SOURCES = ("ccpd-dev.zip", "uci/liu-dahua-1125.pgn")
MOVE_LIMIT = 100  # pyffish's, in plies
MATE = pyffish.VALUE_MATE


def ffish_move(move: str) -> str:
    """``b2b9`` (ranks 0-9) -> ``b3b10`` (pyffish's ranks 1-10)."""
    return f"{move[0]}{int(move[1]) + 1}{move[2]}{int(move[3]) + 1}"


def expected_pyffish(ending: Ending | None, turn: int) -> tuple[bool, int] | None:
    """What pyffish's ``is_optional_game_end`` should say at the ending's ply, ``turn``
    being the side to move there; ``None`` where any value will do (no ending)."""
    if ending is None or ending.name in ("checkmate", "stalemate"):
        return None
    if ending.is_draw:
        return True, 0
    return True, -MATE if ending.loser == turn else MATE


def compare(game: ReplayedGame) -> tuple[str, str | None]:
    """``(ending name or "none", disagreement text or None)`` for one valid game."""
    ending = game.ending
    plies = ending.ply if ending is not None else len(game.uci)
    pos = Position.from_fen(game.start_fen)
    turn = pos.turn if plies % 2 == 0 else -pos.turn
    theirs = pyffish.is_optional_game_end("xiangqi", pos.fen(),
                                          [ffish_move(m) for m in game.uci[:plies]])
    expected = expected_pyffish(ending, turn)
    agrees = theirs[0] is False if expected is None else theirs == expected
    name = ending.name if ending is not None else "none"
    if agrees:
        return name, None
    where = game.record.origin
    return name, f"{where}: ply {plies}, xqdb {ending}, pyffish {theirs}"


def judging_time(games: list[ReplayedGame], repeat: int) -> float:
    histories = []
    for game in games:
        pos = Position.from_fen(game.start_fen)
        checks = [pos.is_check(), *game.checks]
        for move in game.moves:
            pos.push(move)
        histories.append((pos, checks))
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for pos, checks in histories:
            judge_history(pos, checks, move_limit=MOVE_LIMIT)
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stride", type=int, default=1, help="take one game in STRIDE")
    parser.add_argument("--show", type=int, default=20, help="disagreements to list")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    for source in SOURCES:
        games = []
        invalid = 0
        for index, record in enumerate(read_paths([str(DATA / source)])):
            if index % args.stride:
                continue
            game = replay(record, move_limit=MOVE_LIMIT)
            if game.is_valid:
                games.append(game)
            else:
                invalid += 1
        names: Counter[str] = Counter()
        differing: Counter[str] = Counter()
        disagreements = []
        for game in games:
            name, disagreement = compare(game)
            names[name] += 1
            if disagreement is not None:
                differing[name] += 1
                disagreements.append(disagreement)
        plies = sum(len(game.uci) for game in games)
        seconds = judging_time(games, args.repeat)
        agree = len(games) - len(disagreements)
        print(f"{source}: {len(games):,} valid games ({invalid} not replayed), {plies:,} plies")
        print(f"  agree with pyffish: {agree:,} / {len(games):,}; differ: {len(disagreements)}")
        for name, count in sorted(names.items()):
            print(f"  {name:<16} {count:6,}  differ {differing[name]}")
        print(f"  judge_history: {seconds:.3f} s CPU ({seconds / len(games) * 1e6:.0f} us/game)")
        for line in disagreements[:args.show]:
            print("   ", line)


if __name__ == "__main__":
    main()
