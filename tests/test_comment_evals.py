"""WinBoard's engine comments (``{+0,10/7 4}``) imported as rows of ``evals``, on the three
engine games WinBoard saved (``tests/data/algebraic``, from ``../shared/data/algebraic``)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from datafiles import DATA
from import_support import rows
from xqdb.db.upgrade import upgrade
from xqdb.pipeline.importer import import_paths

GAMES = sorted(str(p) for p in (DATA / "algebraic").glob("winboard-*.pgn"))
#: Plies of the draw, win1 and win2, each move commented by its engine.
PLIES = 98 + 87 + 55



@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "g.duckdb"
    summary = import_paths(GAMES, path, jobs=1)
    assert summary.evals == PLIES
    return path


def test_each_comment_evaluates_the_position_its_engine_searched(db: Path) -> None:
    """The position before the move, the mover to move, the move played as the best move,
    the engine named by the mover's player tag (White is Red)."""
    joined = rows(db, """
        SELECT count(*), count(*) FILTER (e.best_move = m.uci),
               count(*) FILTER (e.engine = CASE m.side WHEN 'red' THEN g.tags->>'White'
                                                       ELSE g.tags->>'Black' END)
        FROM moves m JOIN games g USING (game_id)
        JOIN evals e ON e.key = m.key_before AND e.side = m.side
         AND e.game_id = m.game_id AND e.ply = m.ply - 1
        WHERE e.origin = 'comment' AND e.status = 'ok'""")
    assert joined == [(PLIES, PLIES, PLIES)]
    assert rows(db, "SELECT count(*) FROM evals") == [(PLIES,)]


def test_scores_are_the_side_to_moves_and_mates_are_read(db: Path) -> None:
    win2 = "(SELECT game_id FROM games WHERE tags->>'Annotator' = '1. +0,00   1... +0,11')"
    by_ply = {ply: rest for ply, *rest in rows(db, f"""
        SELECT ply, side, search_limit, score_cp, mate FROM evals WHERE game_id = {win2}""")}
    assert by_ply[0] == ["red", "depth=6", 0, None]         # 1. Che2 {+0,00/6}
    assert by_ply[1] == ["black", "depth=7", 11, None]      # 1... Cxb0 {+0,11/7 1,7}
    assert by_ply[3] == ["black", "depth=7", -22, None]     # 2... Cc7 {-0,22/7 2,2}
    assert by_ply[53] == ["black", "depth=28", -7999, None]  # 27... Ad7 {-79,99/28 0,1}
    # 25. d8 {+1000,04/8} ... 28. Rxd9# {+1000,01/2}: Red mates in 4, 3, 2, 1.
    assert [by_ply[p][3] for p in (48, 50, 52, 54)] == [4, 3, 2, 1]
    # Red won both wins: once the games are decided, each side's engine sees it from its
    # own side, Red's ahead and Black's behind.
    late = rows(db, """
        SELECT e.side, min(coalesce(e.score_cp, e.mate * 100000)),
               max(coalesce(e.score_cp, e.mate * 100000))
        FROM evals e JOIN games g USING (game_id)
        WHERE g.result = '1-0' AND e.ply >= g.plies - 20 GROUP BY e.side ORDER BY e.side""")
    assert late[0][0] == "black" and late[0][2] < 0
    assert late[1][0] == "red" and late[1][1] > 0


def test_reading_the_games_again_replaces_their_evaluations(db: Path) -> None:
    import_paths(GAMES, db, jobs=1, force=True)
    assert rows(db, "SELECT count(*), count(DISTINCT game_id) FROM evals") == [(PLIES, 3)]
    assert rows(db, "SELECT count(*) FROM evals WHERE game_id NOT IN"
                    " (SELECT game_id FROM games)") == [(0,)]


def test_an_upgrade_reads_them_again_and_carries_the_searches(db: Path) -> None:
    con = duckdb.connect(str(db))
    con.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    con.execute("""INSERT INTO evals (key, side, engine, search_limit, score_cp, depth, status,
                                      origin)
                   SELECT key_before, side, 'built-in', 'depth=3', 12, 3, 'ok', 'search'
                   FROM moves WHERE ply = 1 AND game_id = 1""")
    con.close()
    upgrade(db)
    assert rows(db, "SELECT origin, count(*) FROM evals GROUP BY ALL ORDER BY 1") == [
        ("comment", PLIES), ("search", 1)]
