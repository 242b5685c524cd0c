"""``xqdb info``: what a database holds, pleasant to read, and clear when there is none."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from import_support import DATA, SAME_15, invoke_xqdb, run_xqdb
from xqdb.cli import cli
from xqdb.db.info import database_info
from xqdb.db.schema import connect
from xqdb.pipeline.importer import import_paths


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("info") / "g.duckdb"
    import_paths([*map(str, SAME_15), str(DATA / "pgn-gbk"), str(DATA / "binary" / "BadMoveTest3.xqf"),
                  str(DATA / "binary" / "1956年全国象棋锦标赛93局.CBL")], path, jobs=2)
    return path


def test_info_counts_players_years_formats_and_reasons(db: Path) -> None:
    result = CliRunner().invoke(cli, ["info", "--db", str(db)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    # 16 + 20 + 1 + 93 games, less one: the 1956 final 杨官璘-刘忆慈 in the CBL library is
    # game 8 of the 15-game set (which names Red differently), so it is linked, not stored.
    assert "games:      129 (128 valid, 1 invalid)" in out
    assert "records:    159 from 25 sources (30 duplicates linked to a kept game)" in out
    assert "years:      1956-" in out
    assert "相眼竞技" in out  # the engine that played all 20 GBK games tops the list
    assert "      20  相眼竞技" in out
    assert "pgn gb18030" in out and "pgn utf-8" in out and "cbr utf-16-le" in out
    assert "invalid by kind:\n        1  illegal move" in out
    # How the valid records end under the rules, counted from games.termination: the one
    # repetition (game 12, Ho Shing Kin - Lu Liangcheng) was played on, and the mate of a
    # game without a recorded result contradicts nothing.
    assert "endings:    none 116, checkmate 11, stalemate 1" in out
    assert "played on:  1 episodes of the rules the players went past (repetition 1)" in out
    assert "disagree" not in out


def test_info_from_python_matches_sql(db: Path) -> None:
    con = connect(db, read_only=True)
    info = database_info(con, top=3)
    games = con.execute("SELECT count(*) FROM games").fetchone()[0]
    con.close()
    assert info.games == games == info.valid + info.invalid
    assert len(info.top_players) == 3


def test_info_on_a_missing_or_foreign_file_is_one_line(tmp_path: Path) -> None:
    missing = run_xqdb("info", "--db", str(tmp_path / "none.duckdb"))
    assert missing.returncode == 4 and missing.stderr == (
        f"Error: {tmp_path / 'none.duckdb'}: no such database (xqdb import FILES --db "
        f"{tmp_path / 'none.duckdb'} creates one)\n")
    assert not (tmp_path / "none.duckdb").exists()
    foreign = invoke_xqdb("info", "--db", str(DATA / "perft.tsv"))
    assert foreign.returncode == 4 and "not a DuckDB database" in foreign.stderr
