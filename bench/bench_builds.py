"""The compiled build against the pure-Python one, side by side in one run.

Run: ``python bench/bench_builds.py [--tree DIR] [--rounds 2] [--only rules|engine|import]``. ``DIR`` (default:
this tree) must hold the compiled modules, built in place with ``python setup.py build_ext
--inplace``. Every benchmark runs there twice per round, once compiled and once with
``XQDB_PURE=1`` (the same sources, loaded as pure Python), alternately, so that both see the
same load; the best figure of each is kept and their ratio printed. The figures are the
benchmarks' own, CPU time where they measure it (the machine may be shared):

* ``bench_rules.py``: perft(4) nodes/s (and Fairy-Stockfish's, beside it) and validating
  replay games/s;
* ``bench_engine.py --builtin-only``: the built-in engine's nodes per second of CPU;
* ``bench_import.py --copies 1``: importing ccpd-dev.zip with 1 and 2 jobs, games/s (wall
  time) and the CPU time of all its processes.

Prints figures; asserts nothing.

Measured on 2 cores shared with other work (load 10-17), CPU time, compiled (17 modules)
against pure: perft(4) 0.40 s against 1.34 s (3.4x; Fairy-Stockfish 0.33-0.38 s, so 1.1x
its time compiled and 3.6x pure), validating replay 6,857 against 3,405 games/s (2.0x), the
built-in engine 289,041 against 89,448 nodes/s (3.2x), importing ccpd-dev.zip 18.8 against
26.0 s of CPU with 1 job (1.38x) and 19.5 against 25.1 s with 2 jobs (1.29x).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (label, script and arguments, {figure: pattern}); a pattern's
#: first group is the figure, digits with commas.
BENCHES: list[tuple[str, list[str], dict[str, str]]] = [
    ("rules", ["bench_rules.py", "--repeat", "2"], {
        "perft(4) nodes/s": r"perft\(4\) start position: .* = ([\d,]+) nodes/s",
        "perft(4) CPU s": r"perft\(4\) start position: [\d,]+ nodes in ([\d.]+) s CPU",
        "Fairy-Stockfish perft(4) CPU s": r"Fairy-Stockfish perft\(4\): [\d,]+ nodes in ([\d.]+) s CPU",
        "replay games/s": r"validating replay .* = ([\d,]+) games/s",
    }),
    ("engine", ["bench_engine.py", "--builtin-only", "--builtin-positions", "10"], {
        "built-in engine nodes/s of CPU": r"s CPU = ([\d,]+) nodes/s of CPU",
    }),
    ("import", ["bench_import.py", "--copies", "1"], {
        f"import {what}, {jobs} job{'s' * (jobs > 1)}":
            rf"^\s*{jobs}\s+1\s+[\d,]+\s+[\d,]+\s+[\d.]+\s+{row}"
        for jobs in (1, 2)
        for what, row in (("games/s", r"([\d,]+)"),
                          ("CPU s", r"[\d,]+\s+[\d,]+\s+[\d.]+%\s+[\d.]+%\s+([\d.]+)"))
    }),
]
#: Figures where less is better (those naming seconds); the rest are rates.
LOWER_IS_BETTER = "CPU s"


def run(tree: Path, script: list[str], pure: bool) -> tuple[str, str]:
    """The output of one benchmark in ``tree``, compiled or pure, and the build it reported."""
    env = {k: v for k, v in os.environ.items() if k != "XQDB_PURE"}
    env["PYTHONPATH"] = str(tree)
    if pure:
        env["XQDB_PURE"] = "1"
    # In the tree, as the benchmark runs: the working directory comes ahead of PYTHONPATH.
    build = subprocess.run([sys.executable, "-c", "import xqdb; print(xqdb.BUILD)"], env=env,
                           capture_output=True, text=True, check=True, cwd=tree).stdout.strip()
    done = subprocess.run([sys.executable, str(tree / "bench" / script[0]), *script[1:]],
                          env=env, capture_output=True, text=True, cwd=tree)
    if done.returncode:
        raise RuntimeError(f"{script} failed ({build}):\n{done.stderr[-2000:]}")
    return done.stdout, build


def figures(out: str, patterns: dict[str, str]) -> dict[str, float]:
    found = {}
    for name, pattern in patterns.items():
        match = re.search(pattern, out, re.MULTILINE)
        if match:
            found[name] = float(match.group(1).replace(",", ""))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", action="append", choices=[label for label, _, _ in BENCHES],
                        help="only these benchmarks (default: all)")
    args = parser.parse_args()
    tree = args.tree.resolve()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    best: dict[tuple[str, bool], float] = {}
    for label, script, patterns in BENCHES:
        if args.only and label not in args.only:
            continue
        for _ in range(args.rounds):
            for pure in (False, True):
                out, build = run(tree, script, pure)
                print(f"--- {' '.join(script)}  [{build}]\n{out.rstrip()}", flush=True)
                for name, value in figures(out, patterns).items():
                    lower = LOWER_IS_BETTER in name
                    old = best.get((name, pure))
                    if old is None or (value < old if lower else value > old):
                        best[(name, pure)] = value
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"\n{'figure (best of each)':36} {'compiled':>12} {'pure':>12} {'compiled/pure':>14}")
    names = dict.fromkeys(name for name, _ in best)
    for name in names:
        fast, slow = best.get((name, False)), best.get((name, True))
        if fast is None or slow is None or name.startswith("Fairy"):
            continue
        gain = slow / fast if LOWER_IS_BETTER in name else fast / slow
        print(f"{name:36} {fast:>12,.2f} {slow:>12,.2f} {gain:>13.2f}x")
    fairy = best.get(("Fairy-Stockfish perft(4) CPU s", False))
    for pure in (False, True):
        ours = best.get(("perft(4) CPU s", pure))
        if fairy and ours:
            print(f"perft(4), {'pure' if pure else 'compiled'}: {ours / fairy:.1f}x "
                  f"Fairy-Stockfish's CPU time")


if __name__ == "__main__":
    main()
