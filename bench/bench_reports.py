"""Benchmark: naming the players, each report, and the tree and the HTML report with and
without the game filters, on all of ``../shared/data``.

Imports every file of ``../shared/data`` (or uses the database given), then prints the
seconds :func:`xqdb.db.players.link_players` takes over the whole database (what each
import adds at its end), the seconds of each named report, and the tree (from the start
and after 炮二平五) and the HTML report, each without filters and with a player, side and
years (the filters' cost is the ratio printed).

    python bench/bench_reports.py [DATABASE]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from xqdb import Database
from xqdb.db.players import link_players
from xqdb.db.selection import GameFilter
from xqdb.db.queries import run_query
from xqdb.pipeline.importer import import_paths
from xqdb.position import position_key

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

#: Each report with the parameters it is timed with.
RUNS = {
    "players": {},
    "openings": {"by": "code"},
    "repertoire": {"player": "胡荣华"},
    "family_years": {},
    "lines": {"plies": "6"},
    "tree": {"key": str(position_key("炮二平五 马8进7"))},
    "player": {"player": "胡荣华"},
    "head_to_head": {"player": "胡荣华", "opponent": "吕钦"},
    "events": {},
    "decisive_lengths": {},
    "endings": {},
    "disagreements": {},
    "near_duplicates": {"limit": "100000"},
}


def timed(work) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="xqdb-bench-reports-"))
    try:
        if len(sys.argv) > 1:
            path = folder / "copy.duckdb"
            shutil.copy(sys.argv[1], path)
        else:
            path = folder / "ccpd.duckdb"
            started = time.perf_counter()
            import_paths([str(DATA)], path, jobs=2)
            print(f"import of {DATA}: {time.perf_counter() - started:.0f} s")
        con = duckdb.connect(str(path))
        games, spellings = con.execute(
            "SELECT count(*), (SELECT count(*) FROM player_names) FROM games").fetchall()[0]
        con.execute("UPDATE games SET red_player_id = NULL, black_player_id = NULL")
        con.execute("DELETE FROM player_names; DELETE FROM players")
        seconds = timed(lambda: link_players(con))
        print(f"link_players: {games:,} games, {spellings:,} spellings: {seconds:.2f} s")
        seconds = timed(lambda: link_players(con))
        print(f"link_players again (nothing new): {seconds:.2f} s")
        for name, params in RUNS.items():
            seconds = timed(lambda: run_query(con, name, **params))
            print(f"query {name:<13} {seconds * 1000:8.0f} ms")
        con.close()
        games_db = Database(path)
        hu = GameFilter(player="胡榮華", side="black", from_="1980", to="1999")
        for what, work in (
                ("tree from the start", lambda f: games_db.tree(games=f)),
                ("tree after 炮二平五", lambda f: games_db.tree("炮二平五", games=f)),
                ("HTML report", lambda f: games_db.report(games=f))):
            plain = min(timed(lambda: work(None)) for _ in range(3))
            filtered = min(timed(lambda: work(hu)) for _ in range(3))
            print(f"{what:<20} {plain * 1000:8.0f} ms; with --player 胡榮華 --side black "
                  f"--from 1980 --to 1999: {filtered * 1000:8.0f} ms "
                  f"(x{filtered / plain:.2f})")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
