"""Game analysis with real engine processes: planted blunders found at their ply, the real
moves not flagged, positions shared through the cache, and a run that survives its engine
being killed."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine_support import signal_engine
from planted import planted_blunders
from positions import LIU_DAHUA
from xqdb.engine import EngineSpec, Limit, SupervisedEngine
from xqdb.analysis.games import EvalCache, GameAnalyser, analyse_two_pass
from xqdb.rules import STARTING_FEN, Move

FAIRY = "/usr/games/fairy-stockfish"
BAD = ("blunder", "allowed_mate")

needs_corpus = pytest.mark.skipif(not LIU_DAHUA.exists(),
                                  reason=f"{LIU_DAHUA} is absent (../shared/data)")


ENGINES = [
    pytest.param(EngineSpec.builtin(), Limit(depth=2), id="builtin"),
    pytest.param(EngineSpec((FAIRY,)), Limit(nodes=20_000), id="fairy-stockfish",
                 marks=pytest.mark.skipif(not Path(FAIRY).exists(),
                                          reason=f"Fairy-Stockfish is not at {FAIRY}")),
]


@needs_corpus
@pytest.mark.parametrize("spec, limit", ENGINES)
@pytest.mark.slow
def test_planted_blunders_are_found_at_their_ply_and_real_moves_are_not(spec, limit):
    cases = planted_blunders(6)
    cache = EvalCache()
    with SupervisedEngine(spec) as engine:
        analyser = GameAnalyser(engine, limit, cache=cache)
        for case in cases:
            # The planted move and the capture that punishes it: the blame must fall on the
            # former, not one ply late.
            planted = analyser.analyse(STARTING_FEN, case.planted_moves, [case.ply, case.ply + 1])
            flagged = [m.ply for m in planted.moves if m.judgement in BAD]
            assert flagged == [case.ply], f"game {case.game}: {planted.moves}"
            judged = planted.judgement_at(case.ply)
            assert judged is not None and judged.judgement == "blunder"
            assert judged.best_move is not None and judged.best_move != judged.move
            real = analyser.analyse(STARTING_FEN, case.real_moves, [case.ply])
            real_judged = real.judgement_at(case.ply)
            assert real_judged is not None and real_judged.judgement not in BAD, \
                f"game {case.game}, ply {case.ply}: {real_judged}"
    # The real game shares the position before the planted ply: searched once, not twice.
    assert cache.hits >= len(cases)


def test_a_move_that_only_repeats_a_position_is_not_flagged():
    """Black leaves its chariot to the horse twice; the second time it repeats the start."""
    moves = [Move.from_uci(t) for t in ("e0f0", "d9d8", "f0e0", "d8d9")]
    with SupervisedEngine(EngineSpec.builtin()) as engine:
        game = GameAnalyser(engine, Limit(depth=2)).analyse(
            "3k5/9/9/9/9/3r5/9/2N6/9/4K4 w", moves)
    by_ply = {m.ply: m for m in game.moves}
    assert by_ply[2].judgement == "blunder"
    assert by_ply[4].loss >= 0.2 and by_ply[4].judgement is None
    assert by_ply[1].judgement == "blunder"  # Red does not take the chariot


@needs_corpus
@pytest.mark.slow
def test_killing_the_engine_mid_run_retries_the_position_and_the_run_finishes():
    cases = planted_blunders(3)
    games = [(STARTING_FEN, case.planted_moves) for case in cases]
    with SupervisedEngine(EngineSpec.builtin()) as engine:
        engine.name  # started, so the watcher finds it at once
        watcher = signal_engine(engine, 1, after=0.5)
        # Deep enough that the run outlasts the half second before the kill.
        analyser = GameAnalyser(engine, Limit(depth=4))
        analyses = [analyser.analyse(fen, moves, range(len(moves) - 2, len(moves) + 1))
                    for fen, moves in games]
        watcher.join()
        assert engine.restarts == 1
    assert all(not a.failed_positions for a in analyses)
    assert [len(a.moves) for a in analyses] == [3, 3, 3]
    for case, analysis in zip(cases, analyses):
        judged = analysis.judgement_at(case.ply)
        assert judged is not None and judged.judgement in BAD


@pytest.mark.skipif(not Path(FAIRY).exists(), reason=f"Fairy-Stockfish is not at {FAIRY}")
@needs_corpus
@pytest.mark.slow
def test_a_position_that_fails_twice_is_recorded_and_the_run_goes_on():
    case = planted_blunders(1)[0]
    with SupervisedEngine(EngineSpec((FAIRY,))) as engine:
        engine.name
        watcher = signal_engine(engine, 2, after=0.15)
        analysis = GameAnalyser(engine, Limit(nodes=250_000)).analyse(
            STARTING_FEN, case.planted_moves, [case.ply - 1, case.ply])
        watcher.join()
    assert engine.restarts == 2
    assert analysis.failed_positions == [case.ply - 2]
    assert [m.ply for m in analysis.moves] == [case.ply]
    assert analysis.moves[0].judgement == "blunder"


@needs_corpus
@pytest.mark.slow
def test_two_passes_search_deeply_only_around_flagged_moves():
    case = planted_blunders(1)[0]
    with SupervisedEngine(EngineSpec.builtin()) as engine:
        both = analyse_two_pass(engine, Limit(depth=1), Limit(depth=2), STARTING_FEN,
                                case.planted_moves)
        deep = GameAnalyser(engine, Limit(depth=2)).analyse(STARTING_FEN, case.planted_moves)
    assert [m.ply for m in both.moves] == list(range(1, len(case.planted_moves) + 1))
    planted = both.judgement_at(case.ply)
    assert planted is not None and planted.judgement == "blunder"
    assert planted == deep.judgement_at(case.ply)  # judged by the deep pass
    fast_searches = len(case.planted_moves) + 1
    assert both.searches - fast_searches < deep.searches
