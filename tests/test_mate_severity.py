"""Mates graded by the position before the move, as lichess grades them, on a real game
that ends in mate (game 7 of ``pgn-chinese-15.pgn``), analysed by the built-in engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from import_support import DATA, rows, run_xqdb
from xqdb.analysis.games import analyse_game
from xqdb.engine import EngineSpec, Limit, SupervisedEngine
from xqdb.pipeline.analyze import analyse_database
from xqdb.pipeline.importer import import_paths
from xqdb.position import Position
from xqdb.rules.board import Move

#: Game 7 ends in mate at ply 43: Black's 40th ply lets Red mate in 2, from a lost position.
GAME = 7
LIMIT = Limit(depth=3)


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("mates") / "games.duckdb"
    import_paths([str(DATA / "pgn-chinese-15.pgn")], db, jobs=1)
    analyse_database(db, EngineSpec.builtin(), LIMIT, jobs=1, game_ids=[GAME])
    return db


def test_a_mate_let_in_from_a_lost_position_is_no_allowed_mate(analysed: Path) -> None:
    (loss, before, mate_after, judged), = rows(
        analysed, "SELECT loss, expected_before, mate_after, class FROM judgements "
                  "WHERE game_id = ? AND ply = 40", GAME)
    assert mate_after > 0 and before < 0.05  # Red mates after it; Black was lost anyway
    assert judged is None and loss < 0.05
    # Every mate class that remains is a serious loss.
    assert all(loss >= 0.2 for loss, in rows(
        analysed, "SELECT loss FROM judgements WHERE class IN ('allowed_mate', 'missed_mate')"))


@pytest.mark.slow
def test_a_missed_mate_is_graded_by_what_is_left(analysed: Path) -> None:
    (fen, moves), = rows(analysed, "SELECT g.start_fen, list(m.uci ORDER BY m.ply) FROM games g "
                                   "JOIN moves m USING (game_id) WHERE game_id = ? GROUP BY ALL",
                         GAME)
    played = [Move.from_uci(m) for m in moves[:40]]
    pos = Position.from_fen(fen)
    for move in played:
        pos.push(move)
    judged = []
    with SupervisedEngine(EngineSpec.builtin()) as engine:  # Red has a mate in 2 here
        for other in pos.legal_moves():
            judged.append(analyse_game(engine, LIMIT, fen, played + [other], plies=[41]).moves[0])
    still_wins = [j for j in judged if j.expected_after >= 0.9]
    thrown = [j for j in judged if j.expected_after < 0.75]
    assert len(still_wins) >= 10 and len(thrown) >= 2
    assert {j.judgement for j in still_wins} <= {None, "inaccuracy"}
    assert {j.judgement for j in thrown} == {"missed_mate"}


def test_reports_count_mate_classes_as_serious_errors(analysed: Path) -> None:
    done = run_xqdb("blunders", "--db", str(analysed), "--by", "game", "--format", "csv")
    assert done.returncode == 0, done.stderr
    header, *lines = [line.split(",") for line in done.stdout.splitlines()]
    for line in lines:
        row = dict(zip(header, line))
        assert int(row["serious"]) == int(row["blunders"]) + int(row["mate_errors"])
    (serious,), = rows(analysed, "SELECT count(*) FROM judgements WHERE class IN "
                                 "('blunder', 'allowed_mate', 'missed_mate')")
    assert f"{serious:,} serious errors" in done.stderr
