"""Engines that misbehave, as real processes: lines the client cannot parse are ignored,
and an engine that hangs on every search is given up after a few positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine_support import scripted_engine
from xqdb import Position
from xqdb.engine import Cp, EngineGaveUpError, EngineSpec, Limit, PositionFailedError, SupervisedEngine


@pytest.mark.parametrize("bad", ["info depth abc score cp xyz",
                                 f"info depth 5 score cp {2 ** 64}",
                                 "info depth 5 score cp 10 wdl 999999 -5 abc",
                                 f"info depth 5 nodes {2 ** 63} score cp 7"])
def test_a_line_the_client_cannot_parse_is_ignored(tmp_path: Path, bad: str) -> None:
    spec = scripted_engine(tmp_path, ["info depth 4 score cp 31 pv h2e2", bad])
    with SupervisedEngine(spec, timeout=10) as engine:
        info = engine.analyse(Position(), Limit(depth=5))
    assert info.score.relative == Cp(31) and info.depth == 4


@pytest.mark.slow
def test_an_engine_that_hangs_on_go_is_given_up_after_a_few_positions(tmp_path: Path) -> None:
    spec = scripted_engine(tmp_path, [], hang=True)
    failures = []
    with SupervisedEngine(spec, timeout=0.5) as engine:
        with pytest.raises(EngineGaveUpError, match="3 positions in a row") as gave_up:
            for _ in range(10):
                try:
                    engine.analyse(Position(), Limit(depth=5))
                except PositionFailedError as exc:
                    failures.append(exc)
    assert len(failures) == 2
    assert "did not finish its search in time; stopped" in str(gave_up.value)
