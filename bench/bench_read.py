"""Benchmark: how fast the text readers hand out records, on one core.

* PGN, Big5: every record of ``ccpd-dev.zip`` (11,791 one-game files in a zip), read
  through :func:`xqdb.formats.read_paths` (zip member, sniffing, encoding detection,
  record parsing), and the same records parsed from memory (the reader alone).
* PGN, UTF-8: ``uci/liu-dahua-1125.pgn`` and ``pgn-chinese-15.pgn`` (many games per file).
* DhtmlXQ: the 1,447-line book.
* Read plus replay of ``ccpd-dev.zip``: games/s on one core (the importer's worker loop).

Reading must cost a small share of read-plus-replay: the last line prints that share.

    python bench/bench_read.py            # best of 3 runs each
    python bench/bench_read.py --runs 1
"""

from __future__ import annotations

import argparse
import io
import time
import zipfile
from pathlib import Path
from typing import Callable

from xqdb.formats import dhtmlxq, pgn, read_paths
from xqdb.formats.record import Origin
from xqdb.replay import replay

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
CCPD = DATA / "ccpd-dev.zip"


def best(runs: int, work: Callable[[], int]) -> tuple[float, int]:
    """Fastest of ``runs`` timings of ``work`` (which returns a count)."""
    times, count = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        count = work()
        times.append(time.perf_counter() - start)
    return min(times), count


def report(name: str, seconds: float, count: int, unit: str = "records") -> None:
    print(f"{name:<44} {count:>7,} {unit} in {seconds:6.2f} s  "
          f"{count / seconds:>9,.0f} {unit}/s  {seconds / count * 1e6:7.1f} us each")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs

    seconds, n = best(runs, lambda: sum(1 for _ in read_paths([str(CCPD)])))
    report("PGN Big5, ccpd-dev.zip via read_paths", seconds, n)
    read_seconds = seconds / n

    with zipfile.ZipFile(CCPD) as archive:
        blobs = [archive.read(i) for i in archive.infolist() if not i.is_dir()]
    origin = Origin("bench")
    seconds, n = best(runs, lambda: sum(sum(1 for _ in pgn.read(io.BytesIO(b), origin))
                                        for b in blobs))
    report("PGN Big5, the same records from memory", seconds, n)

    for path in (DATA / "uci" / "liu-dahua-1125.pgn", DATA / "pgn-chinese-15.pgn"):
        data = path.read_bytes() * (20 if path.stat().st_size < 100_000 else 2)
        seconds, n = best(runs, lambda: sum(1 for _ in pgn.read(io.BytesIO(data), origin)))
        report(f"PGN UTF-8, {path.name} (repeated)", seconds, n)

    book = (DATA / "dhtmlxq" / "dhtmlxq.txt").read_bytes()
    seconds, n = best(runs, lambda: sum(1 for _ in dhtmlxq.read(io.BytesIO(book), origin)))
    report("DhtmlXQ book, one record per line", seconds, n)

    def read_and_replay() -> int:
        return sum(1 for record in read_paths([str(CCPD)]) if replay(record) is not None)

    seconds, n = best(max(1, runs - 1), read_and_replay)
    report("read + replay, ccpd-dev.zip, one core", seconds, n, "games")
    print(f"reading is {read_seconds / (seconds / n):.0%} of read + replay")


if __name__ == "__main__":
    main()
