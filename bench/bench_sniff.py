"""Benchmark: what sniffing formats costs, per file and over a whole read.

* Sniffing alone: :func:`xqdb.formats.sniff_format` over the first 4,096 bytes of every
  file of the corpus (``../shared/data``, the members of ``ccpd-dev.zip`` included), read
  into memory first, so only the sniffers are timed; and over the heads that no binary
  magic claims, where the move-list and PGN sniffers replay the first moves.
* A whole ``read`` of the corpus (:func:`xqdb.pipeline.reading.summarize`, with replay): the
  share of it that sniffing takes.

Run it on two trees to compare them (the package found first on ``PYTHONPATH`` is the one
timed)::

    PYTHONPATH=/path/to/old python bench/bench_sniff.py
    PYTHONPATH=$PWD python bench/bench_sniff.py
"""

from __future__ import annotations

import argparse
import time
import zipfile
from pathlib import Path
from typing import Callable

import xqdb
from xqdb.formats import sniff_format
from xqdb.pipeline.reading import summarize

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def heads(root: Path) -> list[tuple[bytes, str]]:
    """The first 4,096 bytes and the name of every file under ``root`` and of every member
    of its zip archives."""
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if path.suffix.lower() == ".zip":
            with zipfile.ZipFile(path) as archive:
                for info in archive.infolist():
                    if not info.is_dir():
                        with archive.open(info) as member:
                            found.append((member.read(4096), info.filename))
        else:
            with path.open("rb") as stream:
                found.append((stream.read(4096), path.name))
    return found


def best(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("root", nargs="?", default=str(DATA))
    args = parser.parse_args()
    print(f"xqdb from {Path(xqdb.__file__).parent}")
    files = heads(Path(args.root))
    seconds = best(args.runs, lambda: [sniff_format(h, n) for h, n in files])
    print(f"sniff every file's head: {len(files):,} files in {seconds:.3f} s, "
          f"{seconds / len(files) * 1e6:.1f} us a file")
    formats = [sniff_format(h, n) for h, n in files]
    text = [f for f, fmt in zip(files, formats) if fmt in (None, "movelist", "pgn")
            and not f[1].lower().endswith(".pgn")]
    if text:
        seconds_text = best(args.runs, lambda: [sniff_format(h, n) for h, n in text])
        print(f"  of which headerless text (PGN with no tags, move lists, unknown): "
              f"{len(text):,} files, {seconds_text / len(text) * 1e6:.1f} us a file")
    start = time.perf_counter()
    summary = summarize([args.root])
    whole = time.perf_counter() - start
    print(f"read (with replay) of {args.root}: {summary.records:,} records in {whole:.2f} s; "
          f"sniffing is {seconds / whole:.2%} of it")


if __name__ == "__main__":
    main()
