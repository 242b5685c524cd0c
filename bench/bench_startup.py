"""Benchmark: how long an ``xqdb`` command takes on a tiny database, where nearly all of
it is starting up (loading the modules it needs).

Run: ``python bench/bench_startup.py [--runs 10] [--code DIR]``. Each command runs
``--runs`` times in a fresh interpreter on a database of ``sample_games/`` (one game
analysed); the best wall and CPU time of each are printed, with the modules of the package
it loaded. ``--code DIR`` runs the same commands with the package of another tree (an
older commit, ``git archive``-d there), alternately with this one, so that both see the
same load, and prints the ratio. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from cached_bytecode import keep_bytecode

ROOT = Path(__file__).resolve().parents[1]

#: What users run most, with its arguments after ``--db FILE`` (for those that take one).
COMMANDS: list[list[str]] = [
    ["--version"],
    ["engine"],  # what a GUI starts for every game: it reads "uci", "quit" from stdin
    ["perft", "--depth", "1"],
    ["info"],
    ["tree"],
    ["tree", "--moves", "炮二平五"],
    ["openings"],
    ["search", "--moves", "炮二平五 马８进７"],
    ["show", "1"],
    ["blunders"],
]

#: The commands above that take no database.
NO_DATABASE = {"--version", "engine", "perft"}

#: Printed by the child after the command: how many of the package's modules it loaded.
_COUNT = ("import sys\n"
          "from xqdb.cli import cli\n"
          "try:\n"
          "    cli(sys.argv[1:])\n"
          "except SystemExit:\n"
          "    pass\n"
          "sys.stderr.write('modules %d\\n' % sum(m.startswith('xqdb') for m in sys.modules))\n")


def run(code: Path, args: list[str]) -> tuple[float, float, int]:
    """One run of ``xqdb ARGS`` with the package of ``code``: wall and CPU seconds, and
    the number of the package's modules loaded."""
    env = dict(os.environ, PYTHONPATH=str(code))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = os.times().elapsed
    done = subprocess.run([sys.executable, "-c", _COUNT, *args], env=env, cwd=code,
                          input="uci\nquit\n", capture_output=True, text=True)
    wall = os.times().elapsed - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    modules = [line for line in done.stderr.splitlines() if line.startswith("modules ")]
    if not modules:
        sys.exit(f"xqdb {' '.join(args)} failed:\n{done.stderr}")
    return wall, cpu, int(modules[-1].split()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--code", type=Path, help="another tree to compare with")
    options = parser.parse_args()
    keep_bytecode()  # the first run of each command compiles what it loads; the best is timed
    trees = [ROOT] + ([options.code.resolve()] if options.code else [])
    with tempfile.TemporaryDirectory() as work:
        db = Path(work) / "sample.duckdb"
        # Its games, and game 1 analysed (by the built-in engine, at depth 1), for blunders.
        for args in (["import", str(ROOT / "sample_games")],
                     ["analyze", "--engine", "builtin", "--depth", "1", "--game", "1"]):
            subprocess.run([sys.executable, "-m", "xqdb", *args, "--db", str(db)], cwd=ROOT,
                           check=True, capture_output=True,
                           env=dict(os.environ, PYTHONPATH=str(ROOT)))
        print(f"best of {options.runs} runs, database of sample_games/; "
              f"trees: {', '.join(map(str, trees))}")
        for args in COMMANDS:
            full = args if args[0] in NO_DATABASE else [args[0], "--db", str(db), *args[1:]]
            best: dict[Path, tuple[float, float, int]] = {}
            for _ in range(options.runs):
                for tree in trees:
                    wall, cpu, modules = run(tree, full)
                    old = best.get(tree)
                    best[tree] = (min(wall, old[0]) if old else wall,
                                  min(cpu, old[1]) if old else cpu, modules)
            figures = "   ".join(f"{wall:5.2f} s wall {cpu:5.2f} s CPU {modules:3d} modules"
                                 for wall, cpu, modules in best.values())
            ratio = (f"   {best[trees[1]][1] / best[ROOT][1]:.2f}x faster (CPU)"
                     if len(trees) > 1 else "")
            print(f"  xqdb {' '.join(args):28} {figures}{ratio}")


if __name__ == "__main__":
    main()
