"""The engine client against real engine processes: Fairy-Stockfish in UCI (ranks 1-10) and
UCCI (ranks 0-9), and the built-in engine; crashes, hangs and restarts with real processes
killed or frozen by signals."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from engine_support import signal_engine
from xqdb.engine import (
    Cp, Engine, EngineError, EngineSpec, EngineTerminatedError, EngineTimeoutError, Limit, Mate,
    PositionFailedError, SupervisedEngine, choose_engine, parse_options,
)
from xqdb.engine import runner
from xqdb import Position
from xqdb.rules import BLACK, RED, Move

FAIRY = "/usr/games/fairy-stockfish"
needs_fairy = pytest.mark.skipif(not Path(FAIRY).exists(),
                                 reason=f"Fairy-Stockfish is not installed at {FAIRY} "
                                        "(apt-get install fairy-stockfish)")

#: Red mates with a0d0.
MATE_IN_ONE = "3k5/9/9/9/9/9/9/9/9/R3K4 w"


def _position(fen: str, *moves: str) -> Position:
    pos = Position.from_fen(fen)
    for text in moves:
        pos.push(Move.from_uci(text))
    return pos


@pytest.fixture(params=["uci-variant", "ucci"])
def fairy(request):
    if not Path(FAIRY).exists():
        pytest.skip(f"Fairy-Stockfish is not installed at {FAIRY}")
    protocol = None if request.param == "uci-variant" else "ucci"
    with Engine.popen(FAIRY, protocol=protocol) as engine:
        yield engine


@needs_fairy
def test_dialect_is_detected_from_the_greeting():
    with Engine.popen(FAIRY) as engine:
        assert engine.name.startswith("Fairy-Stockfish")
        assert engine.dialect.name == "uci-variant"
    with Engine.popen(FAIRY, protocol="ucci") as engine:
        assert engine.dialect.name == "ucci"


def test_the_built_in_engine_is_detected_as_plain_uci():
    with EngineSpec((sys.executable, "-m", "xqdb", "engine")).open() as engine:
        assert engine.dialect.name == "uci" and engine.name == "xqdb built-in"


@needs_fairy
def test_history_reaches_the_engine_in_its_own_ranks(fairy):
    """After the history the chariot stands on a2 and mates on d2; from the FEN alone it
    would mate on d0. The move list is converted to the engine's ranks and read in full."""
    pos = _position(MATE_IN_ONE, "a0a1", "d9d8", "a1a2", "d8d9")
    info = fairy.analyse(pos, Limit(depth=5))
    assert info.score.relative == Mate(1)
    assert str(info.pv[0]) == "a2d2"


@needs_fairy
def test_scores_and_pv_in_both_dialects(fairy):
    info = fairy.analyse(Position.from_fen(MATE_IN_ONE), Limit(depth=5))
    assert info.score.relative == Mate(1) and info.score.red() == Mate(1)
    assert str(info.pv[0]) == "a0d0"  # written a1d1 in uci-variant, a0d0 in ucci
    mated = fairy.analyse(Position.from_fen("3k5/9/9/9/9/9/9/9/9/3RK4 b"), Limit(depth=5))
    assert mated.score.relative == Mate(0) and mated.pv == []


@needs_fairy
def test_score_from_either_side(fairy):
    # Black to move, a chariot up: the score is good for Black, bad for Red.
    pos = Position.from_fen("3k4r/9/9/9/9/9/9/9/9/4K4 b")
    info = fairy.analyse(pos, Limit(nodes=5000))
    assert info.score.turn == BLACK
    assert info.score.black() > Cp(300) and info.score.red() < Cp(-300)
    assert info.score.pov(RED) == -info.score.pov(BLACK)


@needs_fairy
def test_multipv_and_engine_statistics(fairy):
    pos = _position(Position().fen(), "h2e2", "h9g7")
    infos = fairy.analyse(pos, Limit(nodes=20_000), multipv=3)
    assert [info.multipv for info in infos] == [1, 2, 3]
    assert len({info.pv[0] for info in infos}) == 3
    assert all(pos.is_legal(info.pv[0]) for info in infos)
    assert infos[0].score.relative >= infos[2].score.relative
    assert infos[0].nodes and infos[0].nodes >= 15_000 and infos[0].depth
    single = fairy.analyse(pos, Limit(nodes=5000))
    assert single.multipv == 1 and single.wdl is None  # Fairy-Stockfish 11.1 gives no WDL


@needs_fairy
def test_illegal_history_is_refused_before_it_is_sent():
    pos = Position()
    pos.push(Move.from_uci("h2e2"))
    pos.push(Move.from_uci("h2h9"))  # Red again: pushed unchecked, as a buggy caller might
    with Engine.popen(FAIRY) as engine:
        with pytest.raises(EngineError, match="move 2 of the history, h2h9, is illegal"):
            engine.analyse(pos, Limit(depth=1))
        # The engine is untouched and still answers.
        assert engine.analyse(Position(), Limit(depth=1)).pv


@needs_fairy
def test_options_pass_through_and_unknown_ones_are_named():
    with Engine.popen(FAIRY, options=parse_options(["Hash=8", "Threads=1"])) as engine:
        assert engine.analyse(Position(), Limit(depth=2)).pv
    with pytest.raises(EngineError, match="has no option 'Hashish'"):
        Engine.popen(FAIRY, options={"Hashish": 8})
    with Engine.popen(FAIRY, protocol="ucci", options={"Skill Level": 0}) as engine:
        assert engine.analyse(Position(), Limit(depth=2)).pv


def test_handshake_timeout_kills_a_silent_program():
    started = time.monotonic()
    with pytest.raises(EngineTimeoutError, match="did not answer 'uci' in time"):
        Engine.popen([sys.executable, "-c", "import time; time.sleep(60)"], handshake_timeout=1)
    assert time.monotonic() - started < 30


def test_a_program_that_exits_at_once_is_reported():
    with pytest.raises(EngineTerminatedError, match="exited"):
        Engine.popen([sys.executable, "-c", "pass"])


def test_a_missing_engine_is_reported():
    with pytest.raises(EngineError, match="not found"):
        choose_engine("/nonexistent/engine")


@needs_fairy
def test_engine_choice_prefers_an_installed_engine_and_says_which():
    choice = choose_engine()
    assert "fairy-stockfish" in choice.message and not choice.spec.is_builtin()


def test_engine_choice_falls_back_to_the_weak_built_in(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(runner, "GAMES_DIR", str(tmp_path))
    choice = choose_engine()
    assert choice.spec.is_builtin() and "weak" in choice.message


@needs_fairy
def test_an_engine_killed_mid_search_is_restarted_and_the_position_retried():
    with SupervisedEngine(EngineSpec((FAIRY,))) as supervised:
        supervised.name  # started before the watcher looks for it
        watcher = signal_engine(supervised, 1, 0.15)
        info = supervised.analyse(Position(), Limit(nodes=300_000))
        watcher.join()
        assert supervised.restarts == 1
        assert info.nodes and info.nodes >= 250_000 and info.pv


@needs_fairy
@pytest.mark.slow
def test_a_hung_engine_times_out_and_is_replaced():
    with SupervisedEngine(EngineSpec((FAIRY,)), timeout=2) as supervised:
        supervised.name
        frozen = supervised.pid()
        signal_engine(supervised, 1, 0.0, signal.SIGSTOP).join()  # it will never answer
        info = supervised.analyse(Position(), Limit(nodes=20_000))
        assert supervised.restarts == 1 and supervised.pid() != frozen and info.pv
    with pytest.raises(ProcessLookupError):
        os.kill(frozen, 0)  # the frozen process was killed and reaped, not left behind


@needs_fairy
def test_a_position_failing_twice_is_reported_and_the_engine_still_serves():
    with SupervisedEngine(EngineSpec((FAIRY,))) as supervised:
        supervised.name
        watcher = signal_engine(supervised, 2, 0.3)
        with pytest.raises(PositionFailedError):
            supervised.analyse(Position(), Limit(nodes=2_000_000))
        watcher.join()
        assert supervised.restarts == 2
        assert supervised.analyse(Position(), Limit(depth=3)).pv
