"""Engine benchmark: the built-in engine's speed, the client's throughput and overhead with
Fairy-Stockfish, the evaluation cache's hit rate and planted-blunder recall.

Run: ``python bench/bench_engine.py [--nodes 20000] [--positions 200] [--planted 40]
[--ccpd]``. Prints figures; asserts nothing. Positions are sampled from the master games
of ``../shared/data/uci/liu-dahua-1125.pgn`` (every 10th ply from ply 10).

* built-in engine: nodes per second of :class:`xqdb.engine.builtin.Searcher` at depth 4;
* Fairy-Stockfish at a fixed node count through :class:`xqdb.engine.Engine`: positions per
  second with 1 and 2 worker processes (one engine each), and the overhead: wall time less
  the search time the engine reports (which includes waiting for a CPU on a busy machine),
  and the client process's own CPU time against the search time;
* cache: the share of positions whose evaluation comes from the cache when the games are
  analysed in turn (``--ccpd``: over ccpd-dev.zip, which takes a minute to read);
* planted blunders (see ``tests/planted.py``): recall, and false alarms (the real move
  judged a blunder), for each engine;
* two passes (a quarter of ``--nodes``, then five times ``--nodes`` around flagged moves)
  against one pass at five times ``--nodes``: time saved, and the recall of the deep pass's
  blunders and mistakes.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from xqdb.engine import Engine, EngineSpec, Limit, SupervisedEngine
from xqdb.analysis.games import GameAnalyser, analyse_two_pass, game_positions
from xqdb.engine.builtin import Searcher
from xqdb import Position
from xqdb.rules import STARTING_FEN, Move

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
FAIRY = "/usr/games/fairy-stockfish"
_MOVE = re.compile(r"\b[a-i][0-9][a-i][0-9]\b")


def sample_positions(count: int) -> list[str]:
    """FENs at every 10th ply of the coordinate master games, in file order."""
    text = (DATA / "uci" / "liu-dahua-1125.pgn").read_text(encoding="utf-8")
    fens: list[str] = []
    for block in text.split("[Event")[1:]:
        pos = Position()
        for ply, move_text in enumerate(_MOVE.findall(block), 1):
            move = Move.from_uci(move_text)
            if not pos.is_legal(move):
                break
            pos.push(move)
            if ply % 10 == 0 and pos.has_legal_moves():
                fens.append(pos.fen())
                if len(fens) == count:
                    return fens
    return fens


def bench_builtin(fens: list[str]) -> None:
    searcher = Searcher()
    nodes, seconds = 0, 0.0
    cpu = time.process_time()
    for fen in fens:
        searcher.clear()
        result = searcher.search(Position.from_fen(fen), depth=4)
        nodes += result.nodes
        seconds += result.seconds
    cpu = time.process_time() - cpu
    print(f"built-in engine, depth 4, {len(fens)} positions: {nodes:,} nodes in {seconds:.1f} s "
          f"= {nodes / seconds:,.0f} nodes/s ({seconds / len(fens):.2f} s a position); "
          f"{cpu:.1f} s CPU = {nodes / cpu:,.0f} nodes/s of CPU")


_worker_engine: Engine | None = None


def _start_worker() -> None:
    global _worker_engine
    _worker_engine = Engine.popen(FAIRY)


def _search(task: tuple[str, int]) -> tuple[float, float]:
    """``(engine-reported seconds, wall seconds)`` of one search in a worker."""
    fen, nodes = task
    assert _worker_engine is not None
    started = time.perf_counter()
    info = _worker_engine.analyse(Position.from_fen(fen), Limit(nodes=nodes))
    return info.time or 0.0, time.perf_counter() - started


def bench_fairy(fens: list[str], nodes: int) -> None:
    with Engine.popen(FAIRY) as engine:
        engine.analyse(Position(), Limit(nodes=1000))  # warm up
        engine_seconds, started, cpu = 0.0, time.perf_counter(), time.process_time()
        for fen in fens:
            info = engine.analyse(Position.from_fen(fen), Limit(nodes=nodes))
            engine_seconds += info.time or 0.0
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
    print(f"Fairy-Stockfish, {nodes:,} nodes, {len(fens)} positions, 1 engine: "
          f"{len(fens) / wall:.1f} positions/s; engine search {engine_seconds:.2f} s of "
          f"{wall:.2f} s wall: overhead {(wall - engine_seconds) / wall:.1%} "
          f"({(wall - engine_seconds) / len(fens) * 1000:.2f} ms a position, waits for the "
          f"CPU included); the client's own CPU {cpu / len(fens) * 1000:.2f} ms a position = "
          f"{cpu / engine_seconds:.1%} of the search time")
    for jobs in (1, 2):
        with ProcessPoolExecutor(jobs, initializer=_start_worker) as pool:
            list(pool.map(_search, [(STARTING_FEN, 1000)] * jobs))  # engines up
            started = time.perf_counter()
            results = list(pool.map(_search, [(fen, nodes) for fen in fens]))
            wall = time.perf_counter() - started
        searched = sum(r[0] for r in results)
        print(f"  {jobs} job(s): {len(fens) / wall:.1f} positions/s "
              f"(engine search {searched:.2f} s over {jobs} process(es), {wall:.2f} s wall)")


def cache_hit_rate(games: list[tuple[str, list[Move]]],
                   seen: set[tuple[int, int]] | None = None) -> tuple[float, int]:
    """Share of positions a cache would answer when the games are analysed in turn, and the
    number of positions, counting as the analyser does (repeated-in-game positions never).
    ``seen``: the ``(key, turn)`` of positions evaluated before, added to as it goes."""
    seen = set() if seen is None else seen
    hits = total = 0
    for fen, moves in games:
        try:
            for _, pos, repeated in game_positions(fen, moves):
                total += 1
                key = (pos.zobrist(), pos.turn)
                if not repeated and key in seen:
                    hits += 1
                seen.add(key)
        except ValueError:
            continue
    return hits / max(total, 1), total


def coordinate_games() -> list[tuple[str, list[Move]]]:
    text = (DATA / "uci" / "liu-dahua-1125.pgn").read_text(encoding="utf-8")
    return [(STARTING_FEN, [Move.from_uci(t) for t in _MOVE.findall(block)])
            for block in text.split("[Event")[1:]]


def ccpd_games() -> list[tuple[str, list[Move]]]:
    from xqdb.formats import read_paths
    from xqdb.replay import replay

    games = []
    for record in read_paths([str(DATA / "ccpd-dev.zip")]):
        game = replay(record)
        if game.is_valid:
            games.append((game.start_fen, game.moves))
    return games


def bench_planted(count: int, nodes: int) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from planted import planted_blunders

    cases = planted_blunders(count)
    engines = [(EngineSpec.builtin(), Limit(depth=2))]
    if Path(FAIRY).exists():
        engines.insert(0, (EngineSpec((FAIRY,)), Limit(nodes=nodes)))
    for spec, limit in engines:
        missed, alarms = [], []
        started = time.perf_counter()
        with SupervisedEngine(spec) as engine:
            analyser = GameAnalyser(engine, limit)
            for case in cases:
                planted = analyser.analyse(STARTING_FEN, case.planted_moves, [case.ply]).moves[0]
                real = analyser.analyse(STARTING_FEN, case.real_moves, [case.ply]).moves[0]
                if planted.judgement not in ("blunder", "allowed_mate"):
                    missed.append(f"game {case.game} ply {case.ply} ({planted.judgement}, the "
                                  f"mover's expected score before it {planted.expected_before:.2f})")
                if real.judgement in ("blunder", "allowed_mate"):
                    alarms.append(f"game {case.game} ply {case.ply} {real.move} (loss "
                                  f"{real.loss:.2f}, best {real.best_move})")
            name = engine.name
        print(f"planted blunders, {name} at {limit.key()}: recall "
              f"{len(cases) - len(missed)}/{len(cases)}, false alarms {len(alarms)}/{len(cases)} "
              f"real moves ({time.perf_counter() - started:.1f} s)")
        for line in missed:
            print(f"  missed: {line}")
        for line in alarms:
            print(f"  real move judged a blunder: {line}")


def bench_two_pass(games: int, fast: int, deep: int) -> None:
    """Two passes against one deep pass over the first games of the master collection."""
    chosen = coordinate_games()[:games]
    with SupervisedEngine(EngineSpec((FAIRY,))) as engine:
        engine.name  # started outside the timings
        started = time.perf_counter()
        one = [GameAnalyser(engine, Limit(nodes=deep)).analyse(fen, moves) for fen, moves in chosen]
        one_seconds = time.perf_counter() - started
        started = time.perf_counter()
        two = [analyse_two_pass(engine, Limit(nodes=fast), Limit(nodes=deep), fen, moves)
               for fen, moves in chosen]
        two_seconds = time.perf_counter() - started
    plies = sum(len(moves) for _, moves in chosen)
    print(f"two passes ({fast:,} then {deep:,} nodes) against one pass at {deep:,} nodes, "
          f"{games} games, {plies} plies: {sum(a.searches for a in two):,} searches in "
          f"{two_seconds:.0f} s against {sum(a.searches for a in one):,} in {one_seconds:.0f} s "
          f"({1 - two_seconds / one_seconds:.0%} saved)")
    for classes in (("blunder", "allowed_mate", "missed_mate"), ("mistake",)):
        wanted = {(i, m.ply) for i, a in enumerate(one) for m in a.moves if m.judgement in classes}
        found = {(i, m.ply) for i, a in enumerate(two) for m in a.moves if m.judgement in classes}
        print(f"  {'/'.join(classes)}: one deep pass finds {len(wanted)}, two passes find "
              f"{len(wanted & found)} of them (recall {len(wanted & found) / max(len(wanted), 1):.0%})"
              f" and {len(found - wanted)} others")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--builtin-positions", type=int, default=20)
    parser.add_argument("--planted", type=int, default=40)
    parser.add_argument("--ccpd", action="store_true", help="Also the cache hit rate on ccpd-dev.zip.")
    parser.add_argument("--two-pass-games", type=int, default=5)
    parser.add_argument("--builtin-only", action="store_true",
                        help="Only the built-in engine's nodes per second.")
    args = parser.parse_args()

    fens = sample_positions(args.positions)
    bench_builtin(fens[:args.builtin_positions])
    if args.builtin_only:
        return
    if Path(FAIRY).exists():
        bench_fairy(fens, args.nodes)
    else:
        print(f"Fairy-Stockfish not at {FAIRY}: its figures are skipped")
    rate, total = cache_hit_rate(coordinate_games())
    print(f"eval cache on liu-dahua-1125.pgn: {rate:.1%} of {total:,} positions are hits")
    if args.ccpd:
        rate, total = cache_hit_rate(ccpd_games())
        print(f"eval cache on ccpd-dev.zip: {rate:.1%} of {total:,} positions are hits")
    bench_planted(args.planted, args.nodes)
    if Path(FAIRY).exists() and args.two_pass_games:
        bench_two_pass(args.two_pass_games, args.nodes // 4, args.nodes * 5)


if __name__ == "__main__":
    main()
