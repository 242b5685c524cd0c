"""Openings in the database: what the import stores in ``games.ecco``, ``opening``,
``variation`` and ``opening_names``, re-classification in place, and a stored game
explained, on the real files kept in tests/data."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from datafiles import DATA
from import_support import invoke_xqdb, run_xqdb
from xqdb.pipeline.importer import import_paths
from xqdb.openings import classify, explain
from xqdb.db.openings import classify_database, explain_game
from xqdb.errors import NotFoundError
from xqdb.rules.board import Move

#: 20 engine games tagged with ECCO, Opening and Variation; XQF, CBL and PGN samples with
#: broken files and games from set-up positions.
INPUTS = [DATA / "pgn-gbk", DATA / "binary"]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("openings") / "games.duckdb"
    import_paths([str(p) for p in INPUTS], path, jobs=2)
    return path


def games(con: duckdb.DuckDBPyConnection) -> dict[int, tuple]:
    """``(ecco, opening, variation, opening_names)`` of every game, by id."""
    return {row[0]: row[1:] for row in con.execute(
        "SELECT game_id, ecco, opening, variation, opening_names FROM games").fetchall()}


def first_moves(con: duckdb.DuckDBPyConnection, game_id: int) -> list[Move]:
    return [Move.from_code(code) for (code,) in con.execute(
        "SELECT move FROM stored_moves WHERE game_id = ? ORDER BY ply", [game_id]).fetchall()]


def test_the_import_stores_the_computed_classification(db: Path) -> None:
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute("SELECT game_id, status, start_fen, tags->>'ECCO', tags->>'Opening', "
                       "ecco, opening, variation, opening_names, path LIKE '%pgn-gbk%' "
                       "FROM games JOIN sources USING (source_id)").fetchall()
    classified = set_up = invalid = agree = tagged = 0
    for game_id, status, fen, tag, tag_opening, ecco, opening, variation, names, ccgc in rows:
        if status != "valid":
            invalid += 1
            assert (ecco, opening, variation, names) == (None, None, None, None)
            continue
        expected = classify(first_moves(con, game_id), fen)
        if expected is None:
            set_up += 1
            assert (ecco, opening, variation, names) == (None, None, None, None)
            continue
        classified += 1
        assert (ecco, opening, variation or "", tuple(names)) == \
            (expected.ecco, expected.opening, expected.variation, expected.names)
        if ccgc:  # the record's own tags are kept as read, next to ours
            tagged += 1
            agree += (tag, tag_opening) == (ecco, opening)
    print(f"\n{classified} games classified, {set_up} from set-up positions, {invalid} invalid;"
          f" {agree} of {tagged} CCGC tags agree")
    assert classified >= 100 and set_up and invalid
    assert tagged == 20 and agree >= 19  # CCGC: one game's tag is C46, ccpd's C45
    # Each name once: the reports count a game once under each of its names.
    assert all(len(set(row[8])) == len(row[8]) for row in rows if row[8])
    # The names are a list users query by name.
    assert con.execute("SELECT count(*) FROM games WHERE list_contains(opening_names, '中炮')"
                       ).fetchone()[0] == sum('中炮' in (row[8] or ()) for row in rows) > 0
    con.close()


def test_reclassifying_a_database_restores_what_the_import_stored(db: Path,
                                                                   tmp_path: Path) -> None:
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(db.read_bytes())
    con = duckdb.connect(str(copy))
    stored = games(con)
    # A database classified by an older classifier, or not at all.
    con.execute("UPDATE games SET ecco = 'A00', opening = 'x', variation = NULL, "
                "opening_names = NULL WHERE game_id % 3 = 0")
    spoiled = sum(stored[gid] != row for gid, row in games(con).items())
    assert spoiled > 10
    assert classify_database(con) == spoiled
    assert games(con) == stored
    assert classify_database(con) == 0
    con.close()


def test_a_stored_game_is_explained_from_its_moves(db: Path) -> None:
    con = duckdb.connect(str(db), read_only=True)
    game_id, fen = con.execute("SELECT game_id, start_fen FROM games WHERE ecco IS NOT NULL "
                               "ORDER BY game_id LIMIT 1").fetchone()
    text = explain_game(con, game_id)
    assert text == f"Game {game_id}: " + explain(first_moves(con, game_id), fen)
    assert "ply 1: Red played" in text
    set_up = con.execute("SELECT min(game_id) FROM games WHERE status = 'valid' "
                         "AND ecco IS NULL").fetchone()[0]
    assert "not from the standard start position" in explain_game(con, set_up)
    invalid = con.execute("SELECT min(game_id) FROM games WHERE status <> 'valid'").fetchone()[0]
    assert "invalid" in explain_game(con, invalid)
    with pytest.raises(NotFoundError, match=f"^no game {10**9}$"):
        explain_game(con, 10**9)
    con.close()


def test_the_openings_command_classifies_and_explains(db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "cli.duckdb"
    copy.write_bytes(db.read_bytes())
    con = duckdb.connect(str(copy))
    con.execute("UPDATE games SET ecco = NULL WHERE game_id <= 5")
    expected = explain_game(con, 7)
    con.close()
    done = invoke_xqdb("openings", "--db", str(copy), "classify")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "5 games changed their opening classification"
    shown = invoke_xqdb("openings", "--db", str(copy), "explain", "7")
    assert shown.returncode == 0 and shown.stdout.strip() == expected
    missing = invoke_xqdb("openings", "--db", str(copy), "explain", "1000000")
    assert missing.returncode == 2 and "no game 1000000" in missing.stderr
    # Without a subcommand, the command still prints the opening report.
    report = run_xqdb("openings", "--db", str(copy), "--format", "csv")
    assert report.returncode == 0 and report.stdout.startswith("opening,")
