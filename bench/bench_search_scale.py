"""Benchmark: the searches and trees of ``bench/bench_scale.py`` on databases it built.

Run: ``python bench/bench_search_scale.py DATABASE... [--repeat 5] [--threads 2]``. Opens
each database read-only (none is built or changed) and prints, per call, the median CPU
seconds (every thread of the process) and wall seconds over ``--repeat`` runs, and the
games found, so that two versions of the code run on the same databases can be compared
(run it once per version, alternately). Asserts nothing.

The calls: position search of the popular line (plain and ``--mirror``), of the position
after 30 plies of one game (a single match), its tree, the two material searches of
``bench_scale.py``, one most games fit (``R2 r2``), one a few games spread over the ids fit
(``R2 r0`` over 4 plies), and the popular search and ``RNC>rnc`` with a game filter (from
1990).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

#: The most played line of four plies (as bench_scale.py).
POPULAR = "炮二平五 马8进7 马二进三 车9平8"


def timed(call: Callable[[], object], repeat: int) -> tuple[float, float, object]:
    """Median CPU and wall seconds of ``call`` over ``repeat`` runs, and its last answer."""
    cpu, wall = [], []
    answer: object = None
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        answer = call()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu), statistics.median(wall), answer


def deep_line(con: object) -> tuple[str, str]:
    """The start FEN and first 30 moves of the first long game from the standard start."""
    game, fen = con.execute(  # type: ignore[attr-defined]
        "SELECT game_id, start_fen FROM games WHERE status = 'valid' AND plies >= 40"
        " AND start_fen LIKE 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w%'"
        " ORDER BY game_id LIMIT 1").fetchone()
    moves = [r[0] for r in con.execute(  # type: ignore[attr-defined]
        "SELECT chinese FROM stored_moves WHERE game_id = ? AND ply <= 30 ORDER BY ply",
        [game]).fetchall()]
    return fen, " ".join(moves)


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
            cpu, wall, answer = timed(call, args.repeat)
            found = getattr(answer, "total", None)
            shown = f"{found:,} found" if found is not None else f"{len(answer.rows)} moves"  # type: ignore[attr-defined]
            print(f"  {name:30} {cpu:7.3f} s CPU {wall:7.3f} s wall  {shown}")
        con.close()


if __name__ == "__main__":
    main()
