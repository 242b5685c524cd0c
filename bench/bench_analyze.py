"""Database analysis benchmark: ``xqdb analyze``'s pipeline with Fairy-Stockfish at a fixed
node count over real games of ``../shared/data``.

Run: ``python bench/bench_analyze.py [--nodes 20000] [--fast 5000] [--deep 100000]
[--two-pass-games 4] [--hash-games 5] [--only speed|cache|two-pass|hash ...]``. Prints figures;
asserts nothing.

* positions per second of :func:`xqdb.pipeline.analyze.analyse_database` with 1 and 2 jobs over
  ``pgn-chinese-15.pgn`` (15 master games), each run on a fresh copy of the database;
* the pipeline's overhead: its CPU time with 1 job (planning, replaying, the engine
  client, writing) against the engine's own CPU time for the same searches; on a machine
  shared with other work, wall times include waiting for a core, so CPU time is the
  comparable figure. For reference, the wall time a position of the engine driven bare
  (``position fen``/``go nodes`` written to its pipe, the answer read to ``bestmove``);
* the eval cache's hit rate on ``ccpd-dev.zip``: the positions of its games already
  evaluated for an earlier game when the games are analysed in turn (a dry run: counted,
  not searched);
* two passes (``--recheck nodes=FAST`` then ``--deep`` around the flagged moves) against
  one pass at ``--deep``: searches and time saved, and the recall of the deep pass's
  blunders (mates included) and mistakes, beside what the deep pass run again with 2 jobs
  recalls (all of them: each search starts from an empty hash table, so the order the
  positions are searched in changes nothing);
* the cost of that empty hash table: the engine's CPU time a position with 1 job over
  the first ``--hash-games`` games, clearing before each search (the default) and
  keeping the hash (``--keep-hash``).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import duckdb

from xqdb.pipeline.analyze import AnalysisSummary, analyse_database
from xqdb.db.evals import game_evals
from xqdb.engine import EngineSpec, Limit
from xqdb.analysis.games import (
    MoveJudgement, Thresholds, curve_for, game_positions, judge_moves, recheck_plies,
)
from xqdb.pipeline.importer import import_paths
from xqdb.position import Position
from xqdb.rules.board import Move

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
FAIRY = "/usr/games/fairy-stockfish"
SPEC = EngineSpec((FAIRY,))
BAD = ("blunder", "allowed_mate", "missed_mate")


def copy_of(db: Path, name: str) -> Path:
    copy = db.with_name(name)
    shutil.copy(db, copy)
    return copy


def games_of(db: Path, where: str = "TRUE") -> list[tuple[int, str, list[Move]]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(f"""
            SELECT g.game_id, g.start_fen, list(m.uci ORDER BY m.ply) FROM games g
            JOIN moves m USING (game_id) WHERE {where} GROUP BY ALL ORDER BY 1""").fetchall()
    finally:
        con.close()
    return [(game_id, fen, [Move.from_uci(m) for m in moves]) for game_id, fen, moves in rows]


def distinct_fens(db: Path) -> list[str]:
    """The positions an analysis of ``db`` searches, in its order (repetitions alone)."""
    seen: set[tuple[int, int]] = set()
    fens = []
    for _, start, moves in games_of(db):
        for _, pos, _ in game_positions(start, moves):
            if (pos.zobrist(), pos.turn) not in seen and pos.has_legal_moves():
                seen.add((pos.zobrist(), pos.turn))
                fens.append(pos.fen())
    return fens


def children_cpu() -> float:
    """CPU seconds of this process's children that have been waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def bare_engine(fens: list[str], nodes: int) -> tuple[float, float, float]:
    """``(wall seconds, seconds the engine reports, engine CPU seconds)`` of Fairy-Stockfish
    searching ``fens`` at ``nodes``, driven with nothing between it and its pipe."""
    cpu = children_cpu()
    engine = subprocess.Popen([FAIRY], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, bufsize=1)
    assert engine.stdin is not None and engine.stdout is not None

    def ask(line: str, until: str) -> list[str]:
        assert engine.stdin is not None and engine.stdout is not None
        engine.stdin.write(line + "\n")
        answer = []
        while not (text := engine.stdout.readline()).startswith(until):
            answer.append(text)
        return answer

    ask("uci", "uciok")
    ask("setoption name UCI_Variant value xiangqi\nisready", "readyok")
    reported = 0.0
    started = time.perf_counter()
    for fen in fens:
        info = [line for line in ask(f"position fen {fen}\ngo nodes {nodes}", "bestmove")
                if " time " in line]
        if info:
            words = info[-1].split()
            reported += int(words[words.index("time") + 1]) / 1000
    wall = time.perf_counter() - started
    engine.stdin.write("quit\n")
    engine.stdin.close()
    engine.wait(5)
    return wall, reported, children_cpu() - cpu


def bench_speed(db: Path, nodes: int, bare_positions: int) -> None:
    """Rates with 1 and 2 jobs; the overhead in CPU time, which a machine shared with other
    work leaves comparable (wall times there include waiting for a core)."""
    limit = Limit(nodes=nodes)
    runs: dict[int, AnalysisSummary] = {}
    for jobs in (1, 2):
        cpu, engines_cpu = time.process_time(), children_cpu()
        runs[jobs] = summary = analyse_database(copy_of(db, f"jobs{jobs}.duckdb"), SPEC, limit,
                                                jobs=jobs)
        cpu, engines_cpu = time.process_time() - cpu, children_cpu() - engines_cpu
        one = summary.passes[0]
        print(f"{jobs} job(s), {nodes:,} nodes: {one.searched:,} positions searched, "
              f"{one.cached:,} from the cache, in {one.seconds:.1f} s = "
              f"{one.searched / one.seconds:.1f} positions/s")
        if jobs == 1:  # the engine ran as this process's child: its CPU time is counted
            print(f"  pipeline CPU {cpu:.2f} s ({cpu / one.searched * 1000:.2f} ms a position) "
                  f"against the engine's {engines_cpu:.2f} s: overhead {cpu / engines_cpu:.1%}")
    one = runs[1].passes[0]
    fens = distinct_fens(db)[:bare_positions]
    wall, reported, engine_cpu = bare_engine(fens, nodes)
    print(f"bare Fairy-Stockfish, the first {len(fens):,} of these positions: {wall:.1f} s wall "
          f"({len(fens) / wall:.1f} positions/s), {reported:.1f} s of search reported, "
          f"{engine_cpu:.2f} s CPU")
    print(f"  wall time a position, 1 job: pipeline {one.seconds / one.searched * 1000:.2f} ms, "
          f"bare engine {wall / len(fens) * 1000:.2f} ms; the pipeline's time outside the "
          f"engine client's waits: {(one.seconds - one.engine_seconds) / one.seconds:.1%}")


def bench_cache(tmp: Path) -> None:
    db = tmp / "ccpd.duckdb"
    started = time.perf_counter()
    import_paths([str(DATA / "ccpd-dev.zip")], db, jobs=2)
    imported = time.perf_counter() - started
    summary = analyse_database(db, SPEC, Limit(nodes=20_000), jobs=1, dry_run=True)
    plan = summary.passes[0]
    print(f"eval cache on ccpd-dev.zip ({summary.games:,} games with moves, imported in "
          f"{imported:.0f} s): {plan.cached:,} of {plan.positions:,} positions reach a position "
          f"seen before = {plan.cached / plan.positions:.1%}; {plan.to_search:,} to search "
          f"(planned in {summary.seconds:.1f} s)")
    # The same count over every valid record, duplicates included, as bench_engine.py
    # makes it: what a cache alone would save without the import's deduplication.
    from bench_engine import cache_hit_rate

    halves = ccpd_halves()
    rate, total = cache_hit_rate(halves[0] + halves[1])
    print(f"  over every valid record of ccpd-dev.zip, duplicates included: {rate:.1%} of "
          f"{total:,} positions")
    # The half of the folders the openings tests hold out, as distinct games: alone, and
    # after the other half has been analysed. No count over ccpd-dev.zip gives the 27%
    # once quoted for held-out CCPD games (within: 18.6%, after: 33.2%; every record of
    # the half: 38.3% and 49.3%; a mean of per-game rates over distinct games: 22.8%).
    derivation, held_out = (_distinct(half) for half in halves)
    alone, total = cache_hit_rate(held_out)
    seen: set[tuple[int, int]] = set()
    cache_hit_rate(derivation, seen)
    after, _ = cache_hit_rate(held_out, seen)
    print(f"  held-out half of the folders (as the openings tests split them), "
          f"{len(held_out):,} distinct games, {total:,} positions: {alone:.1%} seen before "
          f"in the half, {after:.1%} once the other half is analysed")


def ccpd_halves() -> tuple[list[tuple[str, list[Move]]], list[tuple[str, list[Move]]]]:
    """The valid records of ccpd-dev.zip as ``(start FEN, moves)``, in the derivation half
    of the folders and in the held-out half (:func:`xqdb.openings.derive.half`)."""
    from xqdb.formats import read_paths
    from xqdb.openings.derive import half
    from xqdb.replay import replay

    halves: tuple[list[tuple[str, list[Move]]], ...] = ([], [])
    for record in read_paths([str(DATA / "ccpd-dev.zip")]):
        game = replay(record)
        if game.is_valid:
            halves[half(record.origin.member or record.origin.path)].append(
                (game.start_fen, game.moves))
    return halves[0], halves[1]


def _distinct(games: list[tuple[str, list[Move]]]) -> list[tuple[str, list[Move]]]:
    """``games`` without the repeats of a game (same start, same moves)."""
    met: set[tuple[str, tuple[Move, ...]]] = set()
    kept = []
    for fen, moves in games:
        if (fen, tuple(moves)) not in met:
            met.add((fen, tuple(moves)))
            kept.append((fen, moves))
    return kept


def judged(db: Path, engine: str, limit: str, game: tuple[int, str, list[Move]]
           ) -> dict[int, MoveJudgement]:
    """Every move of ``game`` judged from the evaluations stored at ``limit``."""
    game_id, start, moves = game
    con = duckdb.connect(str(db), read_only=True)
    try:
        evaluations = game_evals(con, game_id, engine, limit)
    finally:
        con.close()
    repeats = {i for i, _, repeated in game_positions(start, moves) if repeated}
    first = Position.from_fen(start).turn
    return {m.ply: m for m in judge_moves(first, moves, evaluations, range(1, len(moves) + 1),
                                          repeats, curve_for(engine), Thresholds())}


def bench_two_pass(db: Path, games: int, fast: int, deep: int) -> None:
    where = f"game_id <= {games}"
    runs = {name: copy_of(db, f"{name}.duckdb") for name in ("one", "again", "two")}
    one = analyse_database(runs["one"], SPEC, Limit(nodes=deep), jobs=1, where=where)
    # The deep pass once more, in another order: with the hash table cleared before each
    # search it must find what the first found, no more, no less.
    again = analyse_database(runs["again"], SPEC, Limit(nodes=deep), jobs=2, where=where)
    two = analyse_database(runs["two"], SPEC, Limit(nodes=deep), jobs=1, where=where,
                           recheck=Limit(nodes=fast))
    chosen = games_of(db, where)
    plies = sum(len(moves) for _, _, moves in chosen)
    print(f"two passes ({fast:,} nodes, then {deep:,} around the flagged moves) against one "
          f"pass at {deep:,} nodes, {len(chosen)} games, {plies:,} plies: "
          f"{two.passes[0].searched:,} fast and {two.passes[1].searched:,} deep searches in "
          f"{two.seconds:.0f} s against {one.searched:,} deep in {one.seconds:.0f} s "
          f"({1 - two.seconds / one.seconds:.0%} of the time saved); "
          f"{two.passes[1].moves_rechecked:,} moves rechecked")
    classes = {"blunders": BAD, "mistakes": ("mistake",)}
    found: dict[str, dict[str, set[tuple[int, int]]]] = {
        run: {name: set() for name in classes} for run in ("one", "again", "two")}
    for game in chosen:
        final = {"one": judged(runs["one"], one.engine, f"nodes={deep}", game),
                 "again": judged(runs["again"], again.engine, f"nodes={deep}", game)}
        quick = judged(runs["two"], two.engine, f"nodes={fast}", game)
        rechecked = recheck_plies(quick.values(), len(game[2]))
        deep_two = judged(runs["two"], two.engine, f"nodes={deep}", game)
        final["two"] = {p: deep_two[p] if p in rechecked and p in deep_two else m
                        for p, m in quick.items()}
        for run, judgements in final.items():
            for name, kinds in classes.items():
                found[run][name] |= {(game[0], p) for p, m in judgements.items()
                                     if m.judgement in kinds}
    for name in classes:
        wanted = found["one"][name]
        line = f"  {name}: one deep pass finds {len(wanted)}"
        for run, label in (("two", "two passes"), ("again", "the deep pass run again")):
            hit = wanted & found[run][name]
            line += (f"; {label}: {len(hit)} of them (recall "
                     f"{len(hit) / max(len(wanted), 1):.0%}) and {len(found[run][name] - wanted)}"
                     " others")
        print(line)


def bench_hash(db: Path, games: int, nodes: int) -> None:
    """The engine's CPU time a position, clearing its hash before each search or not."""
    where = f"game_id <= {games}"
    for fresh in (True, False):
        engines_cpu = children_cpu()
        summary = analyse_database(copy_of(db, f"hash-{fresh}.duckdb"), replace(SPEC, fresh=fresh),
                                   Limit(nodes=nodes), jobs=1, where=where)
        engines_cpu = children_cpu() - engines_cpu
        one = summary.passes[0]
        print(f"{'hash cleared before each search' if fresh else 'hash kept (--keep-hash)'}, "
              f"{nodes:,} nodes, {one.searched:,} positions: engine CPU "
              f"{engines_cpu / one.searched * 1000:.1f} ms a position, wall "
              f"{one.seconds / one.searched * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--fast", type=int, default=5_000)
    parser.add_argument("--deep", type=int, default=100_000)
    parser.add_argument("--two-pass-games", type=int, default=4)
    parser.add_argument("--hash-games", type=int, default=5)
    parser.add_argument("--bare-positions", type=int, default=300,
                        help="Positions searched by the engine driven bare.")
    parser.add_argument("--only", choices=("speed", "cache", "two-pass", "hash"),
                        action="append",
                        help="Only these figures (as many as wanted; default: all).")
    args = parser.parse_args()
    if not Path(FAIRY).exists() or not DATA.is_dir():
        sys.exit(f"needs Fairy-Stockfish at {FAIRY} and the corpus at {DATA}")
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        db = tmp / "games.duckdb"
        import_paths([str(DATA / "pgn-chinese-15.pgn")], db, jobs=1)
        wanted = set(args.only or ("speed", "cache", "two-pass", "hash"))
        if "speed" in wanted:
            bench_speed(db, args.nodes, args.bare_positions)
        if "cache" in wanted:
            bench_cache(tmp)
        if "two-pass" in wanted:
            bench_two_pass(db, args.two_pass_games, args.fast, args.deep)
        if "hash" in wanted:
            bench_hash(db, args.hash_games, args.nodes)


if __name__ == "__main__":
    main()
