"""Benchmark: the latency of ``xqdb serve``'s tree endpoint (``/api/tree``), the call
behind every click of the explorer.

The positions are those real games reached: the first ``--plies`` plies of ``--games``
games spread over the database (each distinct line once). Each is asked over HTTP of a
real server (``xqdb.serve.make_server`` in a thread of this process, as ``xqdb serve``
runs it), ``--repeat`` times; the script prints the median, 95th percentile and worst
wall milliseconds per request, and beside them the parts: :meth:`xqdb.Database.tree`
alone (which opens the file, as every request does) and opening the file alone. Each is
measured twice in the one run: with the tree's counts (``tree_moves``, read for the
positions many games reach) and with the query over the games alone (the counts left
unread, as before they existed), so the two are side by side on the same load.

    python bench/bench_serve.py --db /tmp/all.duckdb          # all of ../shared/data
    python bench/bench_serve.py --db /tmp/all.duckdb --import # import ../shared/data first

The goal is under 100 ms a request at 1M games.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

from xqdb import Database
from xqdb.browse import tree
from xqdb.rules.board import Move
from xqdb.serve import make_server

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def lines(db: Database, games: int, plies: int) -> list[str]:
    """The distinct lines of the first ``plies`` plies (and every shorter one) of
    ``games`` games spread over the database, as UCI move lists."""
    total = db.sql("SELECT count(*) FROM games WHERE status = 'valid' "
                   "AND start_fen IS NULL OR start_fen LIKE 'rnbakabnr/9/1c5c1/%'").rows[0][0]
    step = max(total // games, 1)
    rows = db.sql(f"""
        WITH picked AS (
            SELECT game_id FROM (
                SELECT game_id, row_number() OVER (ORDER BY game_id) AS n FROM games
                WHERE status = 'valid'
                  AND (start_fen IS NULL OR start_fen LIKE 'rnbakabnr/9/1c5c1/%'))
            WHERE n % {step} = 0 LIMIT {games})
        SELECT game_id, list(move ORDER BY ply) FROM moves
        WHERE game_id IN (SELECT game_id FROM picked) AND ply <= {plies}
        GROUP BY game_id""").rows
    found = {""}
    for _, codes in rows:
        ucis = [Move.from_code(code).uci() for code in codes]
        found.update(" ".join(ucis[:n]) for n in range(1, len(ucis) + 1))
    return sorted(found, key=lambda line: (len(line.split()), line))


def summary(times: tuple[list[float], float]) -> str:
    ms, cpu = times
    ordered = sorted(ms)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return (f"median {statistics.median(ordered):7.1f} ms   p95 {p95:7.1f} ms   "
            f"worst {ordered[-1]:7.1f} ms   CPU {cpu:6.1f} ms a call   ({len(ordered)} calls)")


def timed(call: object, items: list[str], repeat: int) -> tuple[list[float], float]:
    """The wall milliseconds of each call, and the CPU milliseconds of this process per
    call (DuckDB's and the server's threads included: the figure a busy machine
    disturbs least)."""
    out = []
    cpu = time.process_time()
    for _ in range(repeat):
        for item in items:
            start = time.perf_counter()
            call(item)  # type: ignore[operator]
            out.append((time.perf_counter() - start) * 1000)
    return out, (time.process_time() - cpu) * 1000 / max(len(out), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="the database to serve")
    parser.add_argument("--import", dest="import_", action="store_true",
                        help="first import every file of ../shared/data into --db")
    parser.add_argument("--games", type=int, default=20, help="games whose lines are asked")
    parser.add_argument("--plies", type=int, default=10, help="plies of each game")
    parser.add_argument("--repeat", type=int, default=2, help="runs over the positions")
    parser.add_argument("--only-counts", action="store_true",
                        help="time the tree with its counts only (the query alone is slow "
                             "at 1M games)")
    args = parser.parse_args()
    if args.import_:
        subprocess.run([sys.executable, "-m", "xqdb", "import", str(DATA), "--db",
                        str(args.db), "-q"], check=False)
    db = Database(args.db)
    info = db.info(top=1)
    asked = lines(db, args.games, args.plies)
    load = os.getloadavg()[0]
    print(f"{args.db}: {info.games:,} games; load average {load:.1f} on {os.cpu_count()} "
          f"cores; {len(asked)} positions (the first "
          f"{args.plies} plies of {args.games} games), {args.repeat} runs")

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    server = make_server(args.db, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.port}/api/tree?"

    def request(line: str) -> None:
        with urllib.request.urlopen(base + urllib.parse.urlencode({"moves": line})) as answer:
            json.load(answer)

    request("")  # the first request loads the app's modules
    counted = tree.counted_tree
    ways = [("the counts", counted), ("the query alone", lambda *_: None)]
    for name, reader in ways[:1] if args.only_counts else ways:
        tree.counted_tree = reader  # type: ignore[assignment]
        print(f"with {name}:")
        print(f"  GET /api/tree (HTTP, the app, the tree)  "
              f"{summary(timed(request, asked, args.repeat))}")
        print(f"  Database.tree (opening the file each)    "
              f"{summary(timed(lambda line: db.tree(line), asked, args.repeat))}")
        by_depth: dict[int, list[float]] = {}
        for line in asked:
            by_depth.setdefault(len(line.split()), []).extend(timed(request, [line], 1)[0])
        print("  GET /api/tree by plies played: " + ", ".join(
            f"{n}: {statistics.median(ms):.0f} ms" for n, ms in sorted(by_depth.items())))
    tree.counted_tree = counted
    print(f"opening the file alone                     "
          f"{summary(timed(lambda _: db.sql('SELECT 1'), asked[:50], args.repeat))}")
    server.shutdown()


if __name__ == "__main__":
    main()
