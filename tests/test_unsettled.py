"""How settled an engine's search was: the spread of its last depths' scores, read from real
engine processes, and the fast pass's unsettled searches checked again by the deep pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine_support import scripted_engine
from xqdb import Position
from xqdb.engine import Cp, Engine, Limit, Mate, SupervisedEngine
from xqdb.engine.score import MATE_CP

FAIRY = "/usr/games/fairy-stockfish"


def test_the_spread_spans_the_last_three_depths_of_the_first_line(tmp_path: Path) -> None:
    spec = scripted_engine(tmp_path, [
        "info depth 1 score cp 10 pv h2e2",
        "info depth 2 score cp 80 pv h2e2",
        "info depth 3 score cp -30 lowerbound pv h2e2",  # a bound is no score of a depth
        "info depth 3 score cp 25 pv h2e2",
        "info depth 3 multipv 2 score cp -200 pv h0g2",  # nor is another line's
        "info depth 4 score cp 40 pv h2e2"])
    with SupervisedEngine(spec, timeout=10) as engine:
        info = engine.analyse(Position(), Limit(depth=4))
    assert info.score.relative == Cp(40) and info.spread is not None
    assert [s.relative for s in info.spread] == [Cp(25), Cp(80)]


def test_a_mate_found_at_the_last_depth_is_the_top_of_the_spread(tmp_path: Path) -> None:
    spec = scripted_engine(tmp_path, ["info depth 7 score cp 310 pv h2e2",
                                      "info depth 8 score cp -20 pv h2e2",
                                      "info depth 9 score mate 3 pv h2e2"])
    with SupervisedEngine(spec, timeout=10) as engine:
        info = engine.analyse(Position(), Limit(depth=9))
    assert info.spread is not None
    assert [s.relative for s in info.spread] == [Cp(-20), Mate(3)]
    assert info.spread[1].relative.score(mate_score=MATE_CP) == MATE_CP - 3


def test_a_search_without_depths_has_no_spread(tmp_path: Path) -> None:
    spec = scripted_engine(tmp_path, ["info score cp 12 pv h2e2"])
    with SupervisedEngine(spec, timeout=10) as engine:
        assert engine.analyse(Position(), Limit(depth=1)).spread is None


@pytest.mark.skipif(not Path(FAIRY).exists(), reason=f"Fairy-Stockfish is not at {FAIRY}")
def test_fairy_stockfish_reports_a_spread_around_its_score() -> None:
    # A middle-game position with pieces of both sides in play.
    position = Position.from_fen(
        "2bakab2/9/2n1c1n2/p1p1p3p/6p2/2P3P2/P3P3P/2N1C1N2/4A4/2BAK1B1c w")
    with Engine.popen(FAIRY) as engine:
        info = engine.analyse(position, Limit(nodes=50_000))
    assert info.spread is not None and info.depth is not None and info.depth >= 5
    low, high = (s.relative.score(mate_score=MATE_CP) for s in info.spread)
    assert low is not None and high is not None
    assert low <= info.score.relative.score(mate_score=MATE_CP) <= high
