"""Benchmark: the searches and trees of ``bench/bench_scale.py`` on databases it built.

Run: ``python bench/bench_search_scale.py DATABASE... [--repeat 5] [--threads 2]``. Opens
each database read-only (none is built or changed) and prints, per call, the median CPU
seconds (every thread of the process) and wall seconds over ``--repeat`` runs, and the
games found (by one more run), so that two versions of the code run on the same databases
can be compared (run it once per version, alternately). Asserts nothing.

The calls: position search of the popular line (plain and ``--mirror``), of the position
after 30 plies of one game (a single match), its tree, the two material searches of
``bench_scale.py``, one most games fit (``R2 r2``), one a few games spread over the ids fit
(``R2 r0`` over 4 plies), and the popular search and ``RNC>rnc`` with a game filter (from
1990).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from bench_scale import POPULAR, deep_line, timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("databases", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    from xqdb import Database
    from xqdb.db.schema import connect
    from xqdb.db.selection import GameFilter

    since = GameFilter(from_="1990")

    for path in args.databases:
        con = connect(path, read_only=True)
        con.execute(f"SET threads = {args.threads}")
        db = Database(con)
        fen, deep = deep_line(con)
        calls: dict[str, Callable[[], object]] = {
            "search, popular line": lambda: db.search(POPULAR),
            "search --mirror, popular": lambda: db.search(POPULAR, mirror=True),
            "search, after 30 plies": lambda: db.search(deep, fen),
            "tree, after 30 plies": lambda: db.tree(deep, fen),
            "material R1 r1 N0 n0 C0 c0": lambda: db.search_material("R1 r1 N0 n0 C0 c0"),
            "material RNC>rnc, 10 plies": lambda: db.search_material("RNC>rnc", plies=10),
            "material R2 r2 (most games)": lambda: db.search_material("R2 r2"),
            "material R2 r0, 4 plies (few)": lambda: db.search_material("R2 r0", plies=4),
            "search popular, from 1990": lambda: db.search(POPULAR, games=since),
            "material RNC>rnc 10, from 1990": lambda: db.search_material("RNC>rnc", plies=10,
                                                                          games=since),
        }
        games = con.execute("SELECT count(*) FROM games").fetchone()[0]
        print(f"{path.name}: {games:,} games")
        for name, call in calls.items():
            cpu, wall = timed(call, args.repeat)
            answer = call()
            found = getattr(answer, "total", None)
            shown = f"{found:,} found" if found is not None else f"{len(answer.rows)} moves"  # type: ignore[attr-defined]
            print(f"  {name:30} {cpu:7.3f} s CPU {wall:7.3f} s wall  {shown}")
        con.close()


if __name__ == "__main__":
    main()
