"""A game's figures are its own analysis's: evaluations shared through the cache (an
opening many games reach) never count for a game that was not analysed, and every
per-game and per-player row says how much of the games was judged. Real games, the
built-in engine at a small depth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from import_support import DATA, invoke_xqdb, rows, run_xqdb
from xqdb.engine import EngineSpec, Limit
from xqdb.pipeline.analyze import analyse_database
from xqdb.pipeline.importer import import_paths


@pytest.fixture(scope="module")
def one_analysed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("coverage") / "games.duckdb"
    import_paths([str(DATA / "pgn-chinese-15.pgn")], db, jobs=1)
    analyse_database(db, EngineSpec.builtin(), Limit(depth=1), jobs=1, game_ids=[1])
    return db


def report(db: Path, *args: str) -> tuple[list[dict], str]:
    done = invoke_xqdb("blunders", "--db", str(db), "--format", "json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def test_shared_evaluations_do_not_spill_into_games_not_analysed(one_analysed: Path) -> None:
    # Other games reach positions of game 1 (the opening), evaluated both before and after
    # one of their moves: what the views used to judge as those games' moves.
    (reached,), = rows(one_analysed, """
        SELECT count(DISTINCT m.game_id) FROM moves m
        WHERE m.game_id <> 1
          AND EXISTS (SELECT 1 FROM evals e WHERE e.key = m.key_before AND e.side = m.side)
          AND EXISTS (SELECT 1 FROM evals e WHERE e.key = m.key_after AND e.side <> m.side)""")
    assert reached >= 3
    assert rows(one_analysed, "SELECT DISTINCT game_id FROM judgements") == [(1,)]
    (red, black, plies), = rows(one_analysed, "SELECT r.name, b.name, g.plies FROM games g "
                                "JOIN players r ON r.player_id = g.red_player_id "
                                "JOIN players b ON b.player_id = g.black_player_id "
                                "WHERE game_id = 1")
    players, summary = report(one_analysed, "--by", "player")
    assert {(p["player"], p["games"]) for p in players} == {(red, 1), (black, 1)}
    assert sum(p["moves"] for p in players) == plies
    assert "of 1 analysed games" in summary and f"{plies:,} moves" in summary


def test_a_player_s_dossier_counts_the_games_analysed_not_those_sharing_a_position(
        one_analysed: Path) -> None:
    from xqdb import Database

    # A player of a game that reaches evaluated positions of game 1, who did not play it.
    (name, played), = rows(one_analysed, """
        WITH sides AS (SELECT game_id, red_player_id AS player_id FROM games
                       UNION ALL SELECT game_id, black_player_id FROM games)
        SELECT p.name, (SELECT count(*) FROM sides t JOIN games g USING (game_id)
                        WHERE t.player_id = p.player_id AND g.status = 'valid')
        FROM sides s JOIN players p USING (player_id)
        WHERE s.game_id IN (SELECT m.game_id FROM moves m JOIN evals e
                            ON e.key = m.key_after AND e.side <> m.side WHERE m.game_id <> 1)
          AND p.player_id NOT IN (SELECT player_id FROM sides WHERE game_id = 1)
        ORDER BY p.name LIMIT 1""")
    page = Database(one_analysed).report(player=name)
    assert f"None of the {played:,} games is analysed yet" in page


@pytest.mark.slow
def test_each_row_says_how_much_was_analysed(one_analysed: Path, tmp_path: Path) -> None:
    db = tmp_path / "two.duckdb"
    db.write_bytes(one_analysed.read_bytes())
    analyse_database(db, EngineSpec.builtin(), Limit(depth=1), jobs=1, game_ids=[7])
    games, _ = report(db, "--by", "game")
    moves = dict(((g, s), n) for g, s, n in rows(
        db, "SELECT game_id, side, count(*) FROM moves GROUP BY ALL"))
    assert {g["game_id"] for g in games} == {1, 7}
    for row in games:
        assert row["side_moves"] == moves[row["game_id"], row["side"]]
        assert row["coverage"] == pytest.approx(row["moves"] / row["side_moves"], abs=1e-3)
        assert row["coverage"] > 0.95
    players, _ = report(db, "--by", "player", "--min-coverage", "1")
    complete = {g for g, in rows(db, "SELECT j.game_id FROM judgements j JOIN games g "
                                     "USING (game_id) GROUP BY j.game_id HAVING "
                                     "count(*) = any_value(g.plies)")}
    assert sum(p["games"] for p in players) == 2 * len(complete)
    done = run_xqdb("blunders", "--db", str(db), "--min-coverage", "1.5")
    assert done.returncode == 2


def test_the_summary_says_the_built_in_engine_is_weak(one_analysed: Path) -> None:
    _, summary = report(one_analysed)
    assert "xqdb built-in" in summary and "weak" in summary
