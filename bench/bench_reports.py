"""Benchmark: naming the players, and running each report, on ``ccpd-dev.zip``.

Imports ``ccpd-dev.zip`` (or uses the database given), then prints the seconds
:func:`xqdb.db.players.link_players` takes over the whole database (what each import adds
at its end), and the seconds of each named report and of the HTML report.

    python bench/bench_reports.py [DATABASE]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from xqdb.db.players import link_players
from xqdb.db.queries import run_query
from xqdb.pipeline.importer import import_paths
from xqdb.render.report import build_report
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
            import_paths([str(DATA / "ccpd-dev.zip")], path, jobs=2)
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
        seconds = timed(lambda: build_report(con))
        print(f"HTML report   {seconds * 1000:8.0f} ms")
        con.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
