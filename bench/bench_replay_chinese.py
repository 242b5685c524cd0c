"""Benchmark: the notation work of importing ccpd-dev.zip, one core.

Run: ``python bench/bench_replay_chinese.py [--repeat 3]``. Prints figures; asserts nothing.

Input: the games of ``ccpd-dev.zip`` (about 11,800 games, 990,000 plies), read as Chinese
notation: the texts the importer reads most. Each ply is read against its position and the move
made; the writer figures are the cost of also writing the move in WXF or Chinese, net of
that reading. The last line is :func:`xqdb.replay.replay` on every record, CPU time.
Each figure is the best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from xqdb.formats import read_paths
from xqdb.formats.record import GameRecord
from xqdb.notation import reader_for
from xqdb.notation.chinese import write_chinese
from xqdb.notation.wxf import write_wxf
from xqdb.replay import _start_position, replay
from xqdb.rules.board import Move

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def readable(records: list[GameRecord]) -> list[GameRecord]:
    """The records whose start position can be set up (the others fail at once)."""
    out = []
    for record in records:
        try:
            _start_position(record.fen)
        except Exception:
            continue
        out.append(record)
    return out


def read_and_push(records: list[GameRecord], write: Callable[[list[int], Move], str] | None
                  ) -> int:
    """Read every text (up to a game's first bad one), write it if asked, make the move."""
    read = reader_for("chinese")
    plies = 0
    for record in records:
        pos = _start_position(record.fen).copy()
        board = pos.board
        for text in record.moves:
            try:
                move, _ = read(pos, text)
            except ValueError:
                break
            if write is not None:
                write(board, move)
            pos.push(move)
            plies += 1
    return plies


def best_of(repeat: int, run: Callable[[], int], clock: Callable[[], float] = time.perf_counter
            ) -> tuple[float, int]:
    best, count = float("inf"), 0
    for _ in range(repeat):
        start = clock()
        count = run()
        best = min(best, clock() - start)
    return best, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    records = list(read_paths([str(DATA / "ccpd-dev.zip")]))
    games = readable(records)
    base, plies = best_of(args.repeat, lambda: read_and_push(games, None))
    print(f"{len(games):,} games, {plies:,} plies (ccpd-dev.zip)")
    print(f"read + push:      {base:6.2f} s  ({base / plies * 1e6:.2f} us/ply)")
    for label, write in (("write_wxf", write_wxf), ("write_chinese", write_chinese)):
        elapsed, _ = best_of(args.repeat, lambda: read_and_push(games, write))
        net = elapsed - base
        print(f"{label + ':':<17} {net:6.2f} s  ({net / plies * 1e6:.2f} us/ply, net of read + push)")
    elapsed, _ = best_of(args.repeat, lambda: sum(replay(r).plies for r in records),
                         clock=time.process_time)
    print(f"replay() of all {len(records):,} records: {elapsed:.2f} s CPU")


if __name__ == "__main__":
    main()
