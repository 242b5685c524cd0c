"""Benchmark: the peak memory of ``xqdb import`` for big and hostile inputs.

Each input is made in a temporary folder, imported by ``xqdb import`` in a fresh process
(default jobs), and the peak resident memory printed: of the largest single process (the
parent or one worker, as ``/usr/bin/time -v`` gives it) and of the whole process tree at
once (sampled from ``/proc`` every 50 ms). The goal is under 500 MB whatever the input.

    python bench/bench_memory.py                 # every input
    python bench/bench_memory.py --only comments --only line

Inputs (names for ``--only``):

* ``comments``: 100 valid games, each with a 1 MiB comment, one file each;
* ``nuls``: a zip of 4,000 members of 1 MiB of NULs (a 4 MB file);
* ``line``: one file holding a single 300 MB line;
* ``pgn``: a 200 MB PGN, real games repeated (from ../shared/data or sample_games).

Measured on 2 shared cores, largest process: ``line`` 159 MB (1,313 MB when a record was
held whole), ``comments`` 385 MB (430), ``nuls`` 710 MB (903), ``pgn`` 1,799 MB (1,838): the
last two were above the goal, held by DuckDB while one transaction stored a big source (or
since the last checkpoint), not by reading. Since a big PGN is read and stored in ranges
of 2 MiB, with a checkpoint every 32 MB of log, ``pgn`` peaks at 389 MB; since a zip member
of more than 64 KiB packed over 200 times is refused, ``nuls`` at 171 MB
(``bench_import.py --memory`` runs these two).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
MIB = 1 << 20


def make_comments(folder: Path) -> Path:
    games = folder / "comments"
    games.mkdir()
    for i in range(100):
        (games / f"{i}.pgn").write_bytes(
            b'[Result "*"]\n1. h2e2 {' + b"x" * MIB + b"} h9g7 *\n")
    return games


def make_nuls(folder: Path) -> Path:
    path = folder / "nuls.zip"
    block = bytes(MIB)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(4000):
            archive.writestr(f"{i}.pgn", block)
    return path


def make_line(folder: Path) -> Path:
    path = folder / "line.pgn"
    with open(path, "wb") as f:
        f.write(b'[Event "one line"]\n1. h2e2 {')
        for _ in range(300):
            f.write(b"x" * MIB)
        f.write(b"} *\n")
    return path


def real_games() -> bytes:
    """Real PGN games to repeat: the corpus file when there, else the bundled samples."""
    corpus = DATA / "pgn-chinese-15.pgn"
    if corpus.exists():
        return corpus.read_bytes()
    return b"\n\n".join(p.read_bytes() for p in sorted((ROOT / "sample_games").glob("*.pgn"))
                        if b"\x00" not in p.read_bytes())


def make_pgn(folder: Path) -> Path:
    path = folder / "big.pgn"
    games = real_games().rstrip(b"\n") + b"\n\n"
    with open(path, "wb") as f:
        written, round_ = 0, 0
        while written < 200 * MIB:
            # A round tag per copy: the copies are distinct records, not one game stored
            # once and linked as duplicates.
            chunk = f'[Round "{round_}"]\n'.encode() + games
            f.write(chunk)
            written += len(chunk)
            round_ += 1
    return path


INPUTS = {"comments": make_comments, "nuls": make_nuls, "line": make_line, "pgn": make_pgn}


def tree_rss(pid: int) -> tuple[int, int]:
    """Resident bytes of ``pid`` and every process below it, now: in all, and of the
    largest one."""
    total, largest, todo = 0, 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/statm") as f:
                rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            total, largest = total + rss, max(largest, rss)
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            pass
    return total, largest


def measure(name: str, path: Path, folder: Path) -> dict[str, object]:
    db = folder / f"{name}.duckdb"
    start = time.perf_counter()
    process = subprocess.Popen(["/usr/bin/time", "-v", sys.executable, "-m", "xqdb", "import",
                                str(path), "--db", str(db)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    peak = [0]

    def sample() -> None:
        while process.poll() is None:
            peak[0] = max(peak[0], tree_rss(process.pid)[0])
            time.sleep(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    out, err = process.communicate()
    sampler.join()
    seconds = time.perf_counter() - start
    # /usr/bin/time reports the largest of the process and the children it waited for.
    largest = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)[1])
    lines = err.split("\tCommand being timed")[0].strip().splitlines()
    status = int(re.search(r"Exit status: (\d+)", err)[1])
    summary = [line for line in out.splitlines() if line.startswith(("sources", "records"))]
    return {"exit": status, "seconds": seconds, "largest_mb": largest * 1024 / 1e6,
            "tree_mb": peak[0] / 1e6, "summary": " | ".join(summary),
            "error": lines[-1] if status and lines else ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=sorted(INPUTS))
    args = parser.parse_args()
    names = args.only or list(INPUTS)
    with tempfile.TemporaryDirectory(prefix="xqdb-bench-memory-") as tmp:
        folder = Path(tmp)
        for name in names:
            path = INPUTS[name](folder)
            size = sum(p.stat().st_size for p in path.rglob("*")) if path.is_dir() \
                else path.stat().st_size
            figures = measure(name, path, folder)
            print(f"{name:9} input {size / 1e6:7.1f} MB  exit {figures['exit']}  "
                  f"{figures['seconds']:6.1f} s  largest process {figures['largest_mb']:6.0f} MB"
                  f"  whole tree {figures['tree_mb']:6.0f} MB")
            print(f"          {figures['summary']}")
            if figures["error"]:
                print(f"          {figures['error']}")
            for leftover in folder.iterdir():
                if leftover.name.startswith(name) or leftover == path:
                    if leftover.is_dir():
                        shutil.rmtree(leftover)
                    else:
                        leftover.unlink()


if __name__ == "__main__":
    main()
