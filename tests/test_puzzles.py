"""Puzzles from the serious errors of real analysed games (the built-in engine, for speed):
the criterion real positions meet, the reasons for the others, and the game's own tags."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from import_support import DATA, rows, run_xqdb
from xqdb.engine import EngineSpec, Limit
from xqdb.formats import read_paths
from xqdb.pipeline.analyze import analyse_database
from xqdb.pipeline.importer import import_paths
from xqdb.replay import replay


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("puzzles") / "games.duckdb"
    import_paths([str(DATA / "pgn-chinese-15.pgn")], db, jobs=1)
    # Depth 1 (as depth 2) gives blunders that make puzzles and blunders with each reason.
    analyse_database(db, EngineSpec.builtin(), Limit(depth=1), jobs=1,
                     game_ids=[2, 4, 7, 11, 14])
    return db


@pytest.mark.slow
def test_puzzles_come_with_their_reasons_and_their_games_tags(analysed: Path,
                                                                 tmp_path: Path) -> None:
    out = tmp_path / "puzzles.pgn"
    done = run_xqdb("blunders", "--db", str(analysed), "--engine", "builtin", "--puzzles",
                    str(out), "--puzzle-nodes", "5000")
    assert done.returncode == 0, done.stderr
    (serious,), = rows(analysed, "SELECT count(*) FROM judgements WHERE class IN "
                                 "('blunder', 'allowed_mate', 'missed_mate')")
    line = next(l for l in done.stderr.splitlines() if l.startswith("wrote "))
    found = int(re.search(r"(\d+) puzzles? from (\d+) blunders tried", line).group(1))
    assert f"from {serious} blunders tried" in line
    failures = sum(int(n) for n in re.findall(r"[;,] (\d+) ", line))
    assert found + failures == serious  # every candidate is a puzzle or has a reason
    records = list(read_paths([str(out)]))
    assert len(records) == found >= 1
    players = {g: (r, b, e) for g, r, b, e in rows(analysed, "SELECT game_id, red, black, "
                                                         "event FROM games")}
    for record in records:
        game = int(re.match(r"game (\d+), ply", record.tags["Site"]).group(1))
        red, black, event = players[game]
        assert (record.tags["Red"], record.tags["Black"]) == (red, black)
        assert record.tags["Event"].startswith(event)
        assert replay(record).is_valid
