"""An invalid game keeps the moves before its failure: stored, searched, and counted by the
opening tree when the user asks (``--with-partial``); the game stays invalid, with why.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from click.testing import CliRunner

from datafiles import DATA
from import_support import count
from xqdb.cli import cli
from xqdb.formats import read_paths
from xqdb.pipeline.importer import import_paths
from xqdb.replay import replay

GAME = DATA / "pgn-gbk" / "01.宝岛一号(先负)相眼竞技(A1-A2).PGN"


@pytest.fixture(scope="module")
def stray_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A real game with its 11th move written twice (a stray repeat, as one opening book
    has), imported alone; and the game's first moves in coordinates."""
    [record] = read_paths([str(GAME)])
    moves = replay(record).uci
    folder = tmp_path_factory.mktemp("stray")
    stray = moves[:11] + [moves[10]] + moves[11:]
    (folder / "stray.txt").write_text(" ".join(stray) + "\n")
    db = folder / "g.duckdb"
    import_paths([str(folder / "stray.txt")], db, jobs=1)
    return db, moves


def run_xqdb(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_the_game_stays_invalid_with_its_reason_and_keeps_its_first_moves(stray_db) -> None:
    db, _ = stray_db
    assert count(db, "SELECT status || ' ' || error_ply || ' ' || plies FROM games") == \
        "invalid 12 11"
    assert count(db, "SELECT count(*) FROM moves") == 11


def test_the_tree_counts_the_first_moves_only_when_asked(stray_db) -> None:
    db, moves = stray_db
    start = " ".join(moves[:6])
    plain = run_xqdb("tree", "--db", str(db), "--moves", start, "--notation", "uci",
                     "--format", "csv")
    assert plain.exit_code == 0, plain.output
    assert plain.stdout.strip().splitlines()[1:] == []
    partial = run_xqdb("tree", "--db", str(db), "--moves", start, "--notation", "uci",
                       "--format", "csv", "--with-partial")
    rows = partial.stdout.strip().splitlines()
    assert rows[1].startswith(f"{moves[6]},1,100.0")
    # Past the failure there is nothing to count, even when asked.
    after = run_xqdb("tree", "--db", str(db), "--moves", " ".join(moves[:11]), "--notation",
                     "uci", "--format", "csv", "--with-partial")
    assert after.stdout.strip().splitlines()[1:] == []


def test_position_search_finds_the_invalid_game_up_to_its_failure(stray_db) -> None:
    db, moves = stray_db
    found = run_xqdb("search", "--db", str(db), "--moves", " ".join(moves[:8]),
                     "--format", "csv")
    assert found.exit_code == 0, found.output
    assert len(found.stdout.strip().splitlines()) == 2  # the header and the game
