"""Engines users have, each as it really speaks: Debian's Sjaak II (``sjaakii``: ``h``/``e``
FEN letters only, mates reported as centipawns, refusals written to its error output) and
Fairy-Stockfish asked to speak a protocol it plays chess in; every answer is checked legal."""

from __future__ import annotations

from pathlib import Path

import pytest

from import_support import DATA, rows, run_xqdb
from xqdb.engine import Engine, Limit, Mate
from xqdb.engine.client import EngineProtocolError, EngineRefusedError
from xqdb.pipeline.importer import import_paths
from xqdb import Position

SJAAK = "/usr/games/sjaakii"
FAIRY = "/usr/games/fairy-stockfish"
needs_sjaak = pytest.mark.skipif(not Path(SJAAK).exists(), reason=f"Sjaak II is not installed "
                                 f"at {SJAAK} (apt-get install sjaakii)")
needs_fairy = pytest.mark.skipif(not Path(FAIRY).exists(), reason=f"Fairy-Stockfish is not "
                                 f"installed at {FAIRY} (apt-get install fairy-stockfish)")
#: Red mates with a0d0; Black to move is mated next move.
MATE_IN_ONE = "3k5/9/9/9/9/9/9/9/9/R3K4 w"
MATED_IN_ONE = "3k5/9/9/9/9/9/9/9/9/R3K4 b"
START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "games.duckdb"
    import_paths([str(DATA / "pgn-chinese-15.pgn")], path, jobs=1)
    return path


@needs_sjaak
def test_sjaak_searches_the_start_position_and_reports_mates_as_mates() -> None:
    with Engine.popen(SJAAK) as engine:
        assert engine.dialect.name == "uci-variant"
        start = engine.analyse(Position.from_fen(
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"), Limit(depth=3))
        mate = engine.analyse(Position.from_fen(MATE_IN_ONE), Limit(depth=3))
        mated = engine.analyse(Position.from_fen(MATED_IN_ONE), Limit(depth=3))
    assert start.pv and abs(start.score.relative.score()) < 300
    assert mate.score.relative == Mate(1) and str(mate.pv[0]) == "a0d0"
    assert mated.score.relative == Mate(-1)


@needs_sjaak
@pytest.mark.slow
def test_a_game_analysed_with_sjaak_is_stored_and_judged(db: Path) -> None:
    done = run_xqdb("analyze", "--db", str(db), "--engine", SJAAK, "--depth", "3",
                    "--game", "2", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    (plies,), = rows(db, "SELECT plies FROM games WHERE game_id = 2")
    assert rows(db, "SELECT count(*), count(*) FILTER (status = 'ok'), "
                    "count(*) FILTER (best_move IS NULL) FROM evals") == [(plies + 1, plies + 1, 0)]
    assert rows(db, "SELECT count(*) FROM judgements WHERE game_id = 2") == [(plies,)]


@needs_sjaak
def test_an_engine_refusing_a_position_fails_it_at_once() -> None:
    with Engine.popen(SJAAK, protocol="uci") as engine:  # chess mode: no Xiangqi letters
        with pytest.raises(EngineRefusedError, match="unknown piece type"):
            engine.analyse(Position.from_fen(START), Limit(depth=2), timeout=60)


@needs_sjaak
def test_refusals_of_the_first_positions_stop_the_run_with_the_engines_words(db: Path) -> None:
    done = run_xqdb("analyze", "--db", str(db), "--engine", SJAAK, "--protocol", "uci",
                    "--depth", "3", "--game", "3", "--jobs", "1", timeout=60)
    assert done.returncode == 3
    assert "refused the first 3 positions" in done.stderr
    assert "Error: unknown piece type" in done.stderr
    assert "did not finish its search in time" not in done.stderr


@needs_fairy
def test_an_illegal_best_move_stops_the_run_and_stores_nothing(db: Path) -> None:
    # In plain UCI, Fairy-Stockfish stays in chess mode and answers chess moves.
    done = run_xqdb("analyze", "--db", str(db), "--engine", FAIRY, "--protocol", "uci",
                    "--nodes", "2000", "--game", "3", "--jobs", "1")
    assert done.returncode == 3
    assert "not a legal move" in done.stderr and "protocol or dialect" in done.stderr
    assert rows(db, "SELECT count(*) FROM evals") == [(0,)]


@needs_fairy
def test_every_pv_move_is_checked() -> None:
    with Engine.popen(FAIRY, protocol="uci") as engine:
        with pytest.raises(EngineProtocolError, match="another protocol or dialect than uci"):
            engine.analyse(Position.from_fen(MATE_IN_ONE), Limit(nodes=500))
