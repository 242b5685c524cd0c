"""Benchmark: searching a database by position and by material, and exporting it.

Run: ``python bench/bench_browse.py [DATABASE] [--repeat 5]``. Prints figures; asserts
nothing. Without DATABASE, imports every file of ``../shared/data`` into a temporary
database first (not timed).

Searches (wall-clock milliseconds, best of ``--repeat``, and the CPU milliseconds of all
the process's threads, which a busy machine inflates less; the whole listing with a limit
of 100 rows and the count of every game found): the start position, a common opening
position, a rare one (the position after the first 20 plies of the longest game), the
same with ``--mirror``, and material searches. Exports (games per second, one run each):
PGN in Chinese, ICCS and SAN (SAN is written by replaying every game), DhtmlXQ and
Parquet.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from xqdb.db.schema import connect
from xqdb.browse.export import export_games
from xqdb.pipeline.importer import import_paths
from xqdb.position import Position
from xqdb.rules.board import Move
from xqdb.browse.search import Found, MaterialPattern, search_material, search_position
from xqdb.position import position_after

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def best_ms(repeat: int, run: Callable[[], Found]) -> tuple[float, float, int]:
    """The fastest of ``repeat`` runs in wall-clock milliseconds, the CPU milliseconds of
    the thriftiest (every thread of the process: DuckDB's too), and the games found."""
    best, cpu, total = float("inf"), float("inf"), 0
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        total = run().total
        best = min(best, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return best * 1000, cpu * 1000, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("database", nargs="?")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="xqdb-bench-browse-"))
    try:
        path = Path(args.database) if args.database else folder / "all.duckdb"
        if not args.database:
            import_paths([str(DATA)], path, jobs=2)
        con = connect(path, read_only=True)
        games, moves = con.execute("SELECT (SELECT count(*) FROM games), "
                                   "(SELECT count(*) FROM stored_moves)").fetchone()
        print(f"{path}: {games:,} games, {moves:,} moves")
        fen, codes = con.execute(
            "SELECT g.start_fen, list(m.move ORDER BY m.ply) FROM games g JOIN stored_moves m "
            "USING (game_id) WHERE g.status = 'valid' GROUP BY g.game_id, g.start_fen "
            "ORDER BY count(*) DESC, g.game_id LIMIT 1").fetchone()
        rare = Position(fen)
        for code in codes[:20]:
            rare.push(Move.from_code(code))
        positions = {
            "start position": Position(),
            "炮二平五 马8进7 (common)": position_after("炮二平五 马8进7"),
            "longest game after 20 plies (rare)": rare,
        }
        print("\nposition search, ms (best of {}), games found".format(args.repeat))
        for name, position in positions.items():
            for mirror in (False, True):
                ms, cpu, total = best_ms(args.repeat, lambda: search_position(
                    con, position, mirror=mirror, limit=100))
                label = name + (" --mirror" if mirror else "")
                print(f"  {label:<45} {ms:8.1f} ms ({cpu:6.1f} ms CPU)  {total:>7,} games")
        print("\nmaterial search, ms (best of {}), games found".format(args.repeat))
        for text, plies in [("R1 r1 N0 n0 C0 c0", 1), ("R1 r1 N0 n0 C0 c0", 6), ("P0 p0", 1),
                            ("R2 r2 N2 n2 C2 c2", 1)]:
            pattern = MaterialPattern.parse(text)
            ms, cpu, total = best_ms(args.repeat, lambda: search_material(
                con, pattern, plies=plies, limit=100))
            label = f"{text} --plies {plies}"
            print(f"  {label:<45} {ms:8.1f} ms ({cpu:6.1f} ms CPU)  {total:>7,} games")
        print("\nexport, games/s (one run each)")
        for fmt, notation in [("pgn", "chinese"), ("pgn", "iccs"), ("pgn", "san"),
                              ("dhtmlxq", None), ("parquet", None)]:
            out = folder / f"out-{fmt}-{notation}"
            summary = export_games(con, str(out), fmt, notation)
            size = (sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
                    if out.is_dir() else out.stat().st_size)
            label = fmt + (f" {notation}" if notation else "")
            print(f"  {label:<20} {summary.games:>7,} games in {summary.seconds:6.2f} s: "
                  f"{summary.rate:>8,.0f} games/s, {size / 2**20:6.1f} MiB")
        con.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
