"""Reader benchmark: XQF records/s (and CBL records/s) on one core, decoding only.

Run: ``python bench/bench_read_xqf.py [--seconds 2]``. Prints figures; asserts nothing.

The files are read from memory so the figures measure decryption and tree decoding, not
the disk. ``FiveGoatsTest.xqf`` (32,124 move nodes) is timed apart: it is one record but
weighs as much as a few hundred ordinary games.
"""

from __future__ import annotations

import argparse
import io
import time
from pathlib import Path

from xqdb.formats import cbr, xqf
from xqdb.formats.record import Line, Origin

BINARY = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "binary"
BIG = "FiveGoatsTest.xqf"


def tree_moves(line: Line) -> int:
    todo, count = [line], 0
    while todo:
        current = todo.pop()
        count += len(current.moves)
        todo.extend(v for _, v in current.variations)
    return count


def rate(files: list[tuple[str, bytes]], module, seconds: float) -> tuple[float, float, int]:
    """(records/s, move nodes/s, rounds) reading ``files`` over and over for ``seconds``."""
    records = nodes = rounds = 0
    started = time.perf_counter()
    while True:
        for name, data in files:
            for record in module.read(io.BytesIO(data), Origin(name)):
                records += 1
                nodes += tree_moves(record.mainline)
        rounds += 1
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            return records / elapsed, nodes / elapsed, rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    xqfs = [(p.name, p.read_bytes()) for p in sorted(BINARY.iterdir()) if p.suffix.lower() == ".xqf"]
    ordinary = [(n, d) for n, d in xqfs if n != BIG]
    big = [(n, d) for n, d in xqfs if n == BIG]
    cbls = [(p.name, p.read_bytes()) for p in sorted(BINARY.iterdir()) if p.suffix.lower() == ".cbl"]
    for label, files, module in (
        (f"XQF, {len(ordinary)} ordinary samples", ordinary, xqf),
        (f"XQF, {BIG} alone", big, xqf),
        (f"XQF, all {len(xqfs)} samples", xqfs, xqf),
        (f"CBL, {len(cbls)} libraries", cbls, cbr),
    ):
        records, nodes, rounds = rate(files, module, args.seconds)
        print(f"{label:36s} {records:10,.0f} records/s {nodes:12,.0f} move nodes/s ({rounds} rounds)")


if __name__ == "__main__":
    main()
