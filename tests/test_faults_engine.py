"""Engines that misbehave, as real processes: lines the client cannot parse are ignored,
and an engine that hangs on every search is given up after a few positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine_support import scripted_engine
from xqdb import Position
from xqdb.engine import Cp, EngineGaveUpError, EngineSpec, Limit, Mate, PositionFailedError, SupervisedEngine


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


def test_an_engine_silent_after_quick_searches_is_given_up_within_its_speed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """It answered two searches in milliseconds: each try after waits the floor (made 0.3 s
    here, 10 s as shipped), not the two minutes of a search nothing is known of."""
    import time

    from xqdb.engine import runner

    monkeypatch.setattr(runner, "SEARCH_FLOOR", 0.3)
    spec = scripted_engine(tmp_path, ["info depth 4 score cp 31 pv h2e2"], hang_after=2)
    started = time.monotonic()
    with SupervisedEngine(spec) as engine:
        for _ in range(2):
            engine.analyse(Position(), Limit(depth=20))
        with pytest.raises(EngineGaveUpError, match="3 positions in a row"):
            for _ in range(3):
                with pytest.raises(PositionFailedError):
                    engine.analyse(Position(), Limit(depth=20))
    assert time.monotonic() - started < 30  # six waits of 0.3 s, and restarts


def test_an_engine_that_never_finishes_a_search_is_given_up_after_one_position(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under a node count its first wait is scaled to the nodes (a floor and 2,000 nodes a
    second); two tries finishing nothing end the run."""
    import time

    from xqdb.engine import runner

    monkeypatch.setattr(runner, "SEARCH_FLOOR", 0.3)
    spec = scripted_engine(tmp_path, [], hang=True)
    started = time.monotonic()
    with SupervisedEngine(spec) as engine:
        with pytest.raises(EngineGaveUpError, match="finished no search under nodes=1000"):
            engine.analyse(Position(), Limit(nodes=1000))
    assert 1.6 < time.monotonic() - started < 30  # two waits of 0.3 s + 0.5 s


def test_the_wait_scales_to_the_limit_and_the_longest_search() -> None:
    from xqdb.engine.runner import search_wait

    assert search_wait(Limit(depth=30), None) == 120  # nothing known yet
    assert search_wait(Limit(nodes=1_000_000), None) == 120  # 510 s, capped
    assert search_wait(Limit(nodes=10_000), None) == 15
    assert search_wait(Limit(depth=30), 2.5) == 25
    assert search_wait(Limit(depth=30), 0.01) == 10
    assert search_wait(Limit(depth=30), 50) == 120
    assert search_wait(Limit(time=1.0), 0.9) is None  # its time and a margin


@pytest.mark.slow
def test_scores_past_any_evaluation_are_stored_suspect_and_never_graded(tmp_path: Path) -> None:
    """An engine whose every score jumps between +30,000 and -30,000 cp: each evaluation
    is stored as suspect, with why, and none makes a blunder."""
    from blunder_support import fetch
    from engine_support import lying_engine
    from import_support import DATA, run_xqdb

    db = tmp_path / "g.duckdb"
    assert run_xqdb("import", str(DATA / "pgn-chinese-15.pgn"), "--db", str(db),
                    "-q").returncode == 0
    engine = lying_engine(tmp_path, [30_000, -30_000])
    done = run_xqdb("analyze", "--db", str(db), "--engine", str(engine), "--depth", "5",
                    "--where", "game_id = 1", "-j", "1")
    assert done.returncode == 0, done.stderr
    statuses = dict(fetch(db, "SELECT status, count(*) FROM evals GROUP BY status"))
    assert set(statuses) == {"suspect"} and statuses["suspect"] > 50
    errors = {e for e, in fetch(db, "SELECT DISTINCT error FROM evals")}
    assert errors == {"+30000 cp is past any evaluation (20,000 cp) and not a mate",
                      "-30000 cp is past any evaluation (20,000 cp) and not a mate"}
    assert fetch(db, "SELECT count(*) FROM judgements") == [(0,)]
    assert fetch(db, "SELECT count(*) FROM blunders") == [(0,)]


@pytest.mark.parametrize("scores, suspect", [
    ((Cp(1500), Cp(1200)), True),  # both sides win by a chariot across the engine's move
    ((Cp(-1500), Cp(-1100)), True),  # both lose
    ((Cp(1500), Cp(-1400)), False),  # the score carried over: as it should be
    ((Cp(300), Cp(900)), False),  # a search that saw more, not a contradiction
    ((Mate(3), Mate(-3)), False),
    ((Mate(3), Mate(2)), True),  # both mate
])
def test_scores_contradicting_the_engine_s_own_move_are_suspect(scores, suspect) -> None:
    from xqdb.analysis.batch import SearchTask, Searched, suspect_evaluations
    from xqdb.analysis.games import Evaluation
    from xqdb.position import STARTING_FEN
    from xqdb.rules.board import BLACK, RED, Move

    task = SearchTask(EngineSpec.builtin(), Limit(depth=1), 1, STARTING_FEN, ("h2e2", "h9g7"),
                      ((0, False), (1, False)))
    found = [Searched(0, 0, RED, False, Evaluation(scores[0], best_move=Move.from_uci("h2e2"))),
             Searched(1, 0, BLACK, False, Evaluation(scores[1], best_move=Move.from_uci("h7e7")))]
    marked = [s.suspect is not None for s in suspect_evaluations(task, found)]
    assert marked == [suspect, suspect]
    # Another move than the engine's best: its opponent may well be winning after it.
    other = (("b2e2", "h9g7"))
    assert not any(s.suspect for s in suspect_evaluations(
        SearchTask(task.spec, task.limit, 1, STARTING_FEN, other, task.targets), found))
