"""Benchmark: the queries of a large collection at 100k, 1M (and more) games.

Builds databases of the sizes asked for by replicating the games of a real one (an
import of ccpd-dev.zip, made once and kept in the work folder), then times tree, position
search (plain and ``--mirror``), material search, openings, ``query lines``, the report and
the analysis's planning step at each size: CPU seconds of the process (DuckDB's threads
included) and wall seconds, the median of ``--repeat`` runs. It prints how each grows
from one size to the next, the database's size per game and per move, and the peak
memory of the process that ran the queries, with the DuckDB memory limit it was given,
the most DuckDB held by its own count (sampled) and what the process held before the
first query (the interpreter, its libraries and the open database).

What a replica keeps and what it changes, so that the figures are those of a real large
collection and not of one game repeated:

- every row is copied: games, records (with their raw text), moves, rule events,
  sources, players; game, source and record ids are new, dates move on by a day per
  replica (and the year with them), the duplicate key (``content_hash``) differs;
- players come in ten groups (``胡荣华``, ``胡荣华 1`` ... ``胡荣华 9``): a large
  collection has more players than a small one, but not a new set per thousand games;
- the positions of the first 20 plies keep their Zobrist keys, later ones are changed
  per replica (xor with a constant of the replica, the same in ``key_before`` and
  ``key_after``, so each replica's games still join up). The openings of a large
  collection are shared by ever more games, while a middle game is nearly always its
  own: a popular opening position is reached by every replica, a position after 30
  plies by one game (and its genuine transpositions);
- the players are then linked by the naming rules, and the tree counted, as at the end of
  an import;
- the analysis has evaluated the positions of one replica in ten (shared ``evals`` rows
  of an engine "bench"): the "already evaluated" check runs against an ``evals`` table
  that grows with the collection; the first :data:`ANALYSED` valid games are marked
  analysed with it, so the blunders report judges their moves among all those rows.

    python bench/bench_scale.py                          # 100k and 1M games
    python bench/bench_scale.py --sizes 100000 1000000 10000000 --work /tmp/scale
    python bench/bench_scale.py --keep                   # keep the databases for the next run
    python bench/bench_scale.py --keep --small-imports 19  # and time 19 one-game imports
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

import duckdb

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
#: Plies whose positions keep their keys in every replica (see the module's text).
SHARED_PLIES = 20
#: Player groups (see the module's text).
PLAYER_GROUPS = 10
#: One replica in this many has its positions evaluated.
EVALUATED_EVERY = 10
#: Games marked analysed (of the first replica, whose every position is evaluated).
ANALYSED = 2000
#: The most played line of four plies (a third of the games of ccpd-dev).
POPULAR = "炮二平五 马8进7 马二进三 车9平8"
ENGINE, LIMIT = "bench", "depth=1"
#: Games the planning step plans for (from the middle of the database).
PLANNED = 200


def mix(replica: int) -> int:
    """The constant a replica's later keys are xored with (0 for the original)."""
    return (replica * 0x9E3779B97F4A7C15) & 0xFFFF_FFFF_FFFF_FFFF


def base_database(work: Path) -> Path:
    """An import of ccpd-dev.zip, made once."""
    base = work / "base.duckdb"
    if not base.exists():
        from xqdb.pipeline.importer import import_paths

        import_paths([str(DATA / "ccpd-dev.zip")], work / "base.tmp.duckdb", jobs=2)
        (work / "base.tmp.duckdb").rename(base)
    return base


def timed_step(con: duckdb.DuckDBPyConnection, module: str, name: str
               ) -> tuple[float, float] | None:
    """CPU and wall seconds of ``name(con)`` from ``module``, run after a checkpoint;
    ``None`` where the code measured has no such step (an older layout)."""
    try:
        step = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None
    con.execute("CHECKPOINT")
    start, cpu = time.perf_counter(), time.process_time()
    step(con)
    return time.process_time() - cpu, time.perf_counter() - start


def build(base: Path, target: Path, games: int, memory: str) -> dict[str, Any]:
    """Replicate ``base`` into a new database at ``target`` until it holds at least
    ``games`` games; returns what was built and how long it took."""
    from xqdb.db.schema import connect

    began = time.perf_counter()
    con = connect(target)
    con.execute(f"SET memory_limit = '{memory}'")
    con.execute(f"ATTACH '{base}' AS base (READ_ONLY)")
    g_span, s_span, p_span, base_games = con.execute(
        "SELECT max(game_id), (SELECT max(source_id) FROM base.sources),"
        " (SELECT max(player_id) FROM base.players), count(*) FROM base.games").fetchone()
    replicas = math.ceil(games / base_games)

    def columns(table: str, changed: dict[str, str]) -> str:
        names = [r[0] for r in con.execute(f"DESCRIBE base.{table}").fetchall()]
        return ", ".join(changed.get(n, f'"{n}"') for n in names)

    group = f"($r % {PLAYER_GROUPS})"
    suffix = f"CASE WHEN {group} = 0 THEN '' ELSE ' ' || {group} END"
    for r in range(min(replicas, PLAYER_GROUPS)):
        con.execute(f"INSERT INTO players SELECT {columns('players', {'player_id': f'player_id + {r} * {p_span}', 'name': 'name || ' + suffix})} FROM base.players", {"r": r})
        con.execute(f"INSERT INTO player_names SELECT {columns('player_names', {'player_id': f'player_id + {r} * {p_span}', 'spelling': 'spelling || ' + suffix})} FROM base.player_names", {"r": r})
    def key(col: str, from_ply: int | None = None) -> str:
        changed = f"xor({col}, $mix::UBIGINT)"
        return changed if from_ply is None else (
            f"CASE WHEN {from_ply} THEN {changed} ELSE {col} END")

    def copy(table: str, changed: dict[str, str], order: str, params: dict[str, Any]) -> None:
        sql = (f"INSERT INTO {table} SELECT {columns(table, changed)} FROM base.{table}"
               f" ORDER BY {order}")
        con.execute(sql, {k: v for k, v in params.items() if f"${k}" in sql})

    for r in range(replicas):
        params: dict[str, Any] = {"mix": mix(r), "r": r}
        game = f"game_id + {r} * {g_span}"
        source = f"source_id + {r} * {s_span}"
        day = f"date + INTERVAL ({r}) DAY"
        tag = repr("#" + str(r))
        copy("sources", {"source_id": source, "path": f"path || {tag}",
                         "real_path": f"real_path || {tag}"}, "source_id", {})
        copy("games", {
            "game_id": game, "source_id": source, "content_hash": key("content_hash"),
            "date": day, "year": f"CASE WHEN date IS NULL THEN year ELSE year({day}) END",
            "final_key": key("final_key", f"plies >= {SHARED_PLIES}"),
            **{c: f"CASE WHEN {c} IS NULL THEN NULL ELSE {c} + {group} * {p_span} END"
               for c in ("red_player_id", "black_player_id")}}, "game_id", params)
        for table in ("game_records", "raw_records"):
            copy(table, {"game_id": game, "source_id": source}, "source_id, record_index", {})
        copy("stored_moves", {"game_id": game,
                              "key_before": key("key_before", f"ply > {SHARED_PLIES}"),
                              "key_after": key("key_after", f"ply >= {SHARED_PLIES}")},
             "game_id, ply", params)
        copy("variation_moves", {"game_id": game, "key_after": key("key_after")},
             "game_id, variation, ply", params)
        copy("rule_events", {"game_id": game}, "game_id", {})
        if r % EVALUATED_EVERY == 0:
            con.execute(f"""
                INSERT INTO evals (key, side, engine, search_limit, score_cp, depth, status, origin)
                SELECT DISTINCT m.key_after, CASE WHEN m.piece > 0 THEN 'black' ELSE 'red' END,
                       '{ENGINE}', '{LIMIT}', 0, 1, 'ok', 'search'
                FROM stored_moves m WHERE m.game_id BETWEEN {r * g_span + 1} AND {(r + 1) * g_span}
                  AND ($r = 0 OR m.ply >= {SHARED_PLIES})""", {"r": r})
    con.execute(f"""INSERT INTO analysed_games (game_id, engine, search_limit)
                    SELECT game_id, '{ENGINE}', '{LIMIT}' FROM games WHERE status = 'valid'
                    ORDER BY game_id LIMIT {ANALYSED}""")
    # The lookup tables of a layout that has them; then the players linked by the naming
    # rules and the tree counted, as the end of an import leaves them.
    refreshed = timed_step(con, "xqdb.db.lookups", "refresh")
    linked = timed_step(con, "xqdb.db.players", "link_players")
    con.execute("CHECKPOINT")
    count, moves = con.execute("SELECT (SELECT count(*) FROM games),"
                               " (SELECT count(*) FROM stored_moves)").fetchone()
    con.close()
    return {"games": count, "moves": moves, "replicas": replicas,
            "build_s": time.perf_counter() - began, "lookups": refreshed, "linked": linked}


def upgrade_to_this(target: Path) -> str | None:
    """Upgrade a database kept from a run of an older layout (``xqdb upgrade``, timed; the
    copy of the old file it keeps is removed); what it did, ``None`` if nothing."""
    from xqdb.db.schema import SCHEMA_VERSION
    from xqdb.db.upgrade import upgrade

    con = duckdb.connect(str(target), read_only=True)
    version = int(con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])
    con.close()
    if version >= SCHEMA_VERSION:
        return None
    cpu, wall = time.process_time(), time.perf_counter()
    summary = upgrade(target)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if summary.kept:
        Path(summary.kept).unlink()
    return f"{str(summary).splitlines()[0]} in {cpu:.1f} s CPU, {wall:.1f} s wall"


class MemoryWatch:
    """The most memory DuckDB held by its own count (``duckdb_memory()``), sampled every
    ``interval`` seconds from a second cursor while the queries run.

    The process holds more than that: the interpreter and its libraries, the results in
    Python, and what DuckDB allocates outside its buffer manager. Beside the process's
    peak, this tells how much of it the DuckDB memory limit governs."""

    def __init__(self, con: duckdb.DuckDBPyConnection, interval: float = 0.01) -> None:
        self._cursor = con.cursor()
        self._interval = interval
        self._done = threading.Event()
        self.peak_mib = 0.0
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._done.wait(self._interval):
            (used,) = self._cursor.execute(
                "SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory()").fetchall()[0]
            self.peak_mib = max(self.peak_mib, used / 2**20)

    def stop(self) -> float:
        self._done.set()
        self._thread.join()
        self._cursor.close()
        return self.peak_mib


def timed(call: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median CPU and wall seconds of ``call`` over ``repeat`` runs."""
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        call()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu), statistics.median(wall)


def deep_line(con: duckdb.DuckDBPyConnection) -> tuple[str, str]:
    """The start FEN and first 30 moves of the first long game from the standard start."""
    game, fen = con.execute(
        "SELECT game_id, start_fen FROM games WHERE status = 'valid' AND plies >= 40"
        " AND start_fen LIKE 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w%'"
        " ORDER BY game_id LIMIT 1").fetchone()
    moves = [r[0] for r in con.execute(
        "SELECT chinese FROM stored_moves WHERE game_id = ? AND ply <= 30 ORDER BY ply",
        [game]).fetchall()]
    return fen, " ".join(moves)


def run_queries(path: Path, memory: str, threads: int, repeat: int) -> dict[str, Any]:
    """Time every query on the database at ``path`` (in a fresh process, for its peak)."""
    from xqdb import Database
    from xqdb.db.schema import connect
    from xqdb.engine.score import Limit
    from xqdb.pipeline import analyze

    con = connect(path, read_only=True)
    con.execute(f"SET memory_limit = '{memory}'")
    con.execute(f"SET threads = {threads}")
    db = Database(con)
    before_mib = peak_mib()
    watch = MemoryWatch(con)
    fen, deep = deep_line(con)
    low, high = con.execute("SELECT min(game_id), max(game_id) FROM games").fetchone()
    middle = (low + high) // 2
    where = f"game_id BETWEEN {middle} AND {middle + PLANNED - 1}"

    def plan() -> int:
        games = analyze._games(con, where, ())
        runner = analyze._PassRunner(con, None, None, None, ENGINE, 0,  # type: ignore[arg-type]
                                     None, None, True)
        return runner.run(Limit.parse(LIMIT), games, None).to_search

    calls: dict[str, Callable[[], object]] = {
        "tree, start (one ply)": lambda: db.tree(""),
        "tree, popular line": lambda: db.tree(POPULAR),
        "tree, after 30 plies": lambda: db.tree(deep, fen),
        "search, popular line": lambda: db.search(POPULAR),
        "search --mirror, popular": lambda: db.search(POPULAR, mirror=True),
        "search, after 30 plies": lambda: db.search(deep, fen),
        "material R1 r1 N0 n0 C0 c0": lambda: db.search_material("R1 r1 N0 n0 C0 c0"),
        "material RNC>rnc, 10 plies": lambda: db.search_material("RNC>rnc", plies=10),
        "openings": lambda: db.openings(),
        "query lines": lambda: db.query("lines"),
        "report": lambda: db.report(),
        f"analysis planning, {PLANNED} games": plan,
        "blunders, by move": lambda: db.blunders(db.selection()),
        "blunders, by player": lambda: db.blunders(db.selection(), "player"),
    }
    try:  # the tree's counts of a layout that has them: the query alone beside them
        from xqdb.browse import tree
        counted = tree.counted_tree
    except (ImportError, AttributeError):
        pass
    else:
        def alone(call: Callable[[], object]) -> Callable[[], object]:
            def run() -> object:
                tree.counted_tree = lambda *_: None  # type: ignore[assignment]
                try:
                    return call()
                finally:
                    tree.counted_tree = counted
            return run

        for name in ("tree, start (one ply)", "tree, popular line"):
            calls[f"{name}, query alone"] = alone(calls[name])
    figures = {name: timed(call, repeat) for name, call in calls.items()}
    checks = {"tree start moves": len(db.tree("").rows),
              "search popular": db.search(POPULAR).total,
              "search deep": db.search(deep, fen).total,
              "material": db.search_material("R1 r1 N0 n0 C0 c0").total,
              "to search": plan()}
    duckdb_mib = watch.stop()
    con.close()
    return {"figures": figures, "checks": checks, "peak_mib": peak_mib(),
            "before_mib": before_mib, "duckdb_peak_mib": duckdb_mib}


def peak_mib() -> float:
    """The peak resident memory of this process, in MiB.

    ``ru_maxrss`` survives ``execve``: a process started by one that built a database
    under a DuckDB limit of 4 GB reports that parent's peak as its own. The kernel's
    high-water mark of this process's memory (``VmHWM``) starts afresh with the program."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def small_imports(target: Path, count: int) -> None:
    """Import ``count`` files of one game each (the xqbase games of ``tests/data``, at
    most 20) into a copy of the database at ``target``, one import at a time, and print how
    long each took: what keeping a large collection up to date costs."""
    import shutil
    from xqdb.pipeline.importer import import_paths

    size = target.stat().st_size
    if shutil.disk_usage(target.parent).free < 2 * size:
        print(f"\nsmall imports: no room for a copy of {size / 2**30:.1f} GiB", flush=True)
        return
    copy = target.with_name("small-imports.duckdb")
    shutil.copyfile(target, copy)
    games = sorted((Path(__file__).resolve().parents[1] / "tests" / "data" / "pgn-gbk")
                   .glob("*.PGN"))
    took = []
    try:
        for game in games[:count]:  # each once: a file imported again is only skipped
            start = time.perf_counter()
            import_paths([str(game)], copy, jobs=1)
            took.append(time.perf_counter() - start)
    finally:
        for leftover in (copy, copy.with_name(copy.name + ".wal")):
            leftover.unlink(missing_ok=True)
    rest = took[1:] or took
    print(f"\nsmall imports of one game each: the first {took[0]:.1f} s, then median "
          f"{statistics.median(rest):.2f} s, longest {max(rest):.2f} s: "
          + " ".join(f"{t:.1f}" for t in took), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000],
                        help="games in each database (rounded up to whole replicas)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/xqdb-scale"),
                        help="folder for the databases")
    parser.add_argument("--memory", default="4GB", help="DuckDB memory_limit")
    parser.add_argument("--threads", type=int, default=2, help="DuckDB threads")
    parser.add_argument("--repeat", type=int, default=3, help="runs per query (median)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the databases (and reuse those of an earlier run)")
    parser.add_argument("--small-imports", type=int, default=0, metavar="N",
                        help="after the queries, import N files of one game each into a copy "
                             "of each database (where the disk holds a copy), one at a time")
    parser.add_argument("--query", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.query:
        print(json.dumps(run_queries(args.query, args.memory, args.threads, args.repeat)))
        return
    args.work.mkdir(parents=True, exist_ok=True)
    base = base_database(args.work)
    results = []
    for size in args.sizes:
        target = args.work / f"scale-{size}.duckdb"
        if target.exists() and not args.keep:
            target.unlink()
        built = None
        if target.exists():
            upgraded = upgrade_to_this(target)
            if upgraded:
                print(upgraded, flush=True)
        else:
            built = build(base, target, size, args.memory)
            print(f"built {target}: {built['games']:,} games, {built['moves']:,} moves from "
                  f"{built['replicas']} replicas in {built['build_s']:.1f} s"
                  + (f"; lookup tables {built['lookups'][0]:.1f} s CPU, "
                     f"{built['lookups'][1]:.1f} s wall" if built["lookups"] else "")
                  + (f"; players linked and the tree counted {built['linked'][0]:.1f} s CPU, "
                     f"{built['linked'][1]:.1f} s wall" if built["linked"] else ""),
                  flush=True)
        out = subprocess.run([sys.executable, __file__, "--query", str(target), "--memory",
                              args.memory, "--threads", str(args.threads), "--repeat",
                              str(args.repeat)], stdout=subprocess.PIPE, text=True, check=True)
        queried = json.loads(out.stdout.strip().splitlines()[-1])
        con = duckdb.connect(str(target), read_only=True)
        games, moves = con.execute("SELECT (SELECT count(*) FROM games),"
                                   " (SELECT count(*) FROM stored_moves)").fetchone()
        con.close()
        size_bytes = target.stat().st_size
        results.append((games, moves, size_bytes, queried))
        print(f"\n{games:,} games, {moves:,} moves: {size_bytes / 2**30:.2f} GiB, "
              f"{size_bytes / games:,.0f} B/game, {size_bytes / moves:,.1f} B/move; "
              f"peak memory {queried['peak_mib']:,.0f} MiB (DuckDB memory_limit "
              f"{args.memory}, {args.threads} threads; DuckDB's own count at most "
              f"{queried['duckdb_peak_mib']:,.0f} MiB, the process "
              f"{queried['before_mib']:,.0f} MiB before the first query); "
              f"checks {queried['checks']}")
        print(f"{'query':<40} {'cpu s':>8} {'wall s':>8}")
        for name, (cpu, wall) in queried["figures"].items():
            print(f"{name:<40} {cpu:>8.3f} {wall:>8.3f}")
        sys.stdout.flush()
        if args.small_imports:
            small_imports(target, args.small_imports)
        if not args.keep:
            target.unlink()
    if len(results) > 1:
        print("\nhow each grows (CPU s at each size; last column: the growth from the first "
              "size to the last, over the growth in games)")
        sizes = "".join(f"{r[0]:>12,}" for r in results)
        print(f"{'query':<40}{sizes} {'growth':>8}")
        for name in results[0][3]["figures"]:
            cpu = [r[3]["figures"][name][0] for r in results]
            growth = (cpu[-1] / cpu[0]) / (results[-1][0] / results[0][0]) if cpu[0] else 0
            print(f"{name:<40}" + "".join(f"{c:>12.3f}" for c in cpu) + f" {growth:>8.2f}")


if __name__ == "__main__":
    main()
