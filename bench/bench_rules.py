"""Rules-engine benchmark: perft nodes/s and validating replay games/s on one core.

Run: ``python bench/bench_rules.py [--depth 4] [--repeat 3] [--fairy PATH]``. Prints
figures; asserts nothing. Times are CPU seconds (the machine may be shared), best of
``--repeat``. perft is measured side by side with Fairy-Stockfish's ``go perft`` (the CPU
time of its process, which includes its start-up) when it is installed.

Validating replay = for every ply: parse the coordinate text, check the move is legal,
make it (updating the Zobrist key) and detect check, as the importer does before it writes
notations.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import time
from pathlib import Path

from xqdb import Move, Position
from xqdb.rules import perft

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
_MOVE = re.compile(r"\b[a-i][0-9][a-i][0-9]\b")


def load_coordinate_games(path: Path) -> list[list[str]]:
    """Move lists of a coordinate PGN, one per ``[Event`` block (benchmark input only)."""
    text = path.read_text(encoding="utf-8")
    return [_MOVE.findall(block) for block in text.split("[Event")[1:]]


FAIRY = "/usr/games/fairy-stockfish"


def fairy_perft(path: str, depth: int) -> tuple[int, float]:
    """``(nodes, CPU seconds)`` of Fairy-Stockfish's perft from the Xiangqi start."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    commands = (f"setoption name UCI_Variant value xiangqi\nposition startpos\n"
                f"go perft {depth}\nquit\n")
    out = subprocess.run([path], input=commands, capture_output=True, text=True,
                         check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    found = re.search(r"Nodes searched: (\d+)", out)
    if found is None:
        raise RuntimeError(f"no perft count in Fairy-Stockfish's output: {out[-200:]!r}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return int(found.group(1)), cpu


def validating_replay(games: list[list[str]]) -> int:
    plies = 0
    for moves in games:
        pos = Position()
        for text in moves:
            move = Move.from_uci(text)
            if not pos.is_legal(move):
                raise AssertionError(f"illegal {text} in {pos.fen()}")
            pos.push(move)
            pos.is_check()
            plies += 1
    return plies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--fairy", default=FAIRY, help="Fairy-Stockfish binary")
    args = parser.parse_args()

    ours, fairy, fairy_start = float("inf"), float("inf"), float("inf")
    nodes = fairy_nodes = 0
    for _ in range(args.repeat):  # alternating, so both see the same load
        start = time.process_time()
        nodes = perft(Position(), args.depth)
        ours = min(ours, time.process_time() - start)
        if os.access(args.fairy, os.X_OK):
            fairy_nodes, seconds = fairy_perft(args.fairy, args.depth)
            fairy = min(fairy, seconds)
            fairy_start = min(fairy_start, fairy_perft(args.fairy, 1)[1])
    print(f"perft({args.depth}) start position: {nodes:,} nodes in {ours:.2f} s CPU = "
          f"{nodes / ours:,.0f} nodes/s")
    if fairy_nodes:
        net = max(fairy - fairy_start, 1e-3)
        print(f"Fairy-Stockfish perft({args.depth}): {fairy_nodes:,} nodes in {fairy:.3f} s CPU "
              f"({net:.3f} s net of its start-up, {fairy_start:.3f} s for perft(1)); "
              f"xqdb/Fairy-Stockfish = {ours / fairy:.1f}x, {ours / net:.1f}x net"
              + ("" if fairy_nodes == nodes else "  (COUNTS DIFFER)"))
    else:
        print(f"Fairy-Stockfish not found at {args.fairy}: no side-by-side figure")

    games = load_coordinate_games(DATA / "uci" / "liu-dahua-1125.pgn")
    best = float("inf")
    for _ in range(args.repeat):
        start = time.process_time()
        plies = validating_replay(games)
        best = min(best, time.process_time() - start)
    print(f"validating replay liu-dahua-1125.pgn: {len(games):,} games, {plies:,} plies, "
          f"best of {args.repeat}: {best:.3f} s CPU = {len(games) / best:,.0f} games/s, "
          f"{plies / best:,.0f} plies/s")


if __name__ == "__main__":
    main()
