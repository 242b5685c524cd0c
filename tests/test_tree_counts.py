"""The tree counted ahead (tree_keys, tree_moves): the tree of every valid game of a
frequent position, read from the counts, gives the rows the query over the games gives,
and imports, replaced sources, player aliases and upgrades keep the counts up to date."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from browse_support import replayed_games
from datafiles import DATA, SAMPLE_GAMES
from xqdb import Database
from xqdb.db.queries import run_report
from xqdb.db.schema import SCHEMA_VERSION
from xqdb.db import tree_counts
from xqdb.db.tree_counts import THRESHOLD, counted_tree, rebuild
from xqdb.db.upgrade import upgrade
from xqdb.pipeline.importer import import_paths
from xqdb.position import Position, mirrored, position_after

#: The ways a tree is asked: mirror images merged or not, top games, fewest games.
ASKED = [(True, 3, 1), (False, 3, 1), (True, 0, 2), (False, 10, 2)]


def scanned(con: duckdb.DuckDBPyConnection, position: Position, mirror: bool, top: int,
            least: int) -> tuple[list[str], list[tuple[object, ...]]]:
    """The rows of the query over the games (``queries/tree.sql``)."""
    image = mirrored(position).zobrist()
    found = run_report(con, "tree", None, {
        "key": str(position.zobrist()), "mirror_key": str(image) if mirror else None,
        "min_games": str(least), "top_games": str(top)})
    return found.columns, found.rows


def compare(path: Path, positions: list[Position], most: int = 40) -> tuple[int, int]:
    """Check each position's counted tree against the query's, up to ``most`` counted
    positions; returns how many positions were counted and how many were not (their
    trees read the games)."""
    con = duckdb.connect(str(path), read_only=True)
    counted = uncounted = 0
    try:
        for position in positions:
            if counted == most:
                break
            image = mirrored(position).zobrist()
            answers = [counted_tree(con, position.zobrist(), image if mirror else None,
                                    least, top) for mirror, top, least in ASKED]
            if answers[0] is None:
                uncounted += 1
                assert all(a is None for a in answers), position.fen()
                continue
            counted += 1
            for (mirror, top, least), answer in zip(ASKED, answers):
                assert answer is not None
                assert (answer.columns, answer.rows) == scanned(con, position, mirror, top,
                                                                 least), (position.fen(),
                                                                          mirror, top, least)
    finally:
        con.close()
    return counted, uncounted


def opening_positions(path: Path, plies: int, games: int | None = None) -> list[Position]:
    """Every distinct position of the first ``plies`` plies of the database's games (of
    the first ``games`` from the standard start), with its mirror image."""
    found: dict[int, Position] = {}
    con = duckdb.connect(str(path), read_only=True)
    ids = [g for g, in con.execute("SELECT game_id FROM games WHERE start_key = ?"
                                   " ORDER BY game_id LIMIT ?",
                                   [Position().zobrist(), games]).fetchall()]
    con.close()
    replayed = replayed_games(path, plies, ids)
    for game_id in ids:
        for position in replayed[game_id]:
            for one in (position, mirrored(position)):
                found.setdefault(one.zobrist(), one)
    return list(found.values())


def start_tree(path: Path) -> list[tuple[object, ...]]:
    """The counted tree of the start (mirror images merged), checked to be counted."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        found = counted_tree(con, Position().zobrist(), Position().zobrist(), 1, 3)
        assert found is not None, "the start is not counted, or the counts are behind"
        return found.rows
    finally:
        con.close()


def games_from_the_start(path: Path) -> int:
    """Valid games that played a move from the start: the start's tree counts each once."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute("SELECT count(*) FROM games WHERE status = 'valid' AND plies > 0"
                           " AND start_key = ?", [Position().zobrist()]).fetchone()[0]
    finally:
        con.close()


def set_threshold(path: Path, threshold: int) -> None:
    con = duckdb.connect(str(path))
    rebuild(con, threshold)
    con.close()


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The games of tests/data (but the 20 of pgn-gbk) and sample_games, every position
    of two games or more counted."""
    path = tmp_path_factory.mktemp("counted") / "small.duckdb"
    inputs = [str(p) for p in sorted(DATA.iterdir()) if p.name != "pgn-gbk"]
    import_paths([*inputs, str(SAMPLE_GAMES)], path, jobs=1)
    set_threshold(path, 2)
    return path


@pytest.mark.slow
def test_counted_trees_are_the_trees_of_the_games(small: Path) -> None:
    positions = opening_positions(small, 14)[::5]
    counted, uncounted = compare(small, positions, most=20)
    assert counted == 20 and uncounted > 20  # frequent positions and rare ones
    # The public tree (which picks the counts when it can) is the query's, in every way.
    db = Database(small)
    con = duckdb.connect(str(small), read_only=True)
    for position in positions[::60]:
        for mirror in (True, False):
            columns, rows = scanned(con, position, mirror, 3, 1)
            shown = db.tree(fen=position.fen(), notation="uci", mirror=mirror)
            assert [r[1:] for r in shown.rows] == [r[1:] for r in rows], position.fen()
    con.close()


@pytest.mark.slow
def test_counted_in_many_small_batches_the_trees_are_the_same(
        small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A big collection is counted a few million rows at a time, so that the counting fits
    # a writer's memory: batches of 50 rows split the positions of these games many ways,
    # and one position (the start) is a batch alone.
    path = tmp_path / "batched.duckdb"
    shutil.copyfile(small, path)
    monkeypatch.setattr(tree_counts, "BATCH_ROWS", 50)
    set_threshold(path, 2)
    counted, _ = compare(path, opening_positions(path, 14)[::5], most=20)
    assert counted == 20
    con = duckdb.connect(str(path), read_only=True)
    rows = con.execute("SELECT count(*), sum(positions) FROM tree_keys").fetchone()
    con.close()
    assert rows is not None and rows[1] > 20 * 50  # many batches


def test_the_start_merges_a_move_with_its_mirror_image(small: Path) -> None:
    db = Database(small)
    merged = {r[0]: r[1] for r in db.tree("", notation="uci").rows}
    plain = {r[0]: r[1] for r in db.tree("", notation="uci", mirror=False).rows}
    assert "h2e2" in merged and "b2e2" not in merged
    assert merged["h2e2"] == plain["h2e2"] + plain["b2e2"] > plain["h2e2"]


@pytest.mark.slow
def test_an_import_counts_its_games_in(small: Path, tmp_path: Path) -> None:
    path = tmp_path / "more.duckdb"
    shutil.copyfile(small, path)
    before = sum(r[1] for r in start_tree(path))
    assert before == games_from_the_start(path)
    import_paths([str(DATA / "pgn-gbk")], path, jobs=1)  # 20 new games
    after = sum(r[1] for r in start_tree(path))
    assert after == games_from_the_start(path) > before
    assert compare(path, [Position(), position_after("炮二平五")]) == (2, 0)
    assert compare(path, opening_positions(path, 12)[::10], most=10)[0] == 10


def counts(path: Path) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute("SELECT * FROM tree_moves ORDER BY key, merged, move").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("share", [1.0, 0.0])
def test_new_games_are_added_to_the_counts_as_a_count_of_everything_gives_them(
        small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, share: float) -> None:
    # The engines of pgn-gbk play each other again and again: the second half of the
    # match brings players who made the same moves in the first half. The rows counted
    # anew are appended to the table, or (share 0) the table is sorted whole each time.
    monkeypatch.setattr(tree_counts, "UNSORTED_SHARE", share)
    path = tmp_path / "grown.duckdb"
    shutil.copyfile(small, path)
    files = sorted((DATA / "pgn-gbk").iterdir())
    halves = [tmp_path / "first", tmp_path / "second"]
    for half, chosen in zip(halves, (files[::2], files[1::2])):
        half.mkdir()
        for file in chosen:
            shutil.copy(file, half)
        import_paths([str(half)], path, jobs=1)
    con = duckdb.connect(str(path), read_only=True)
    first, second = ({name for name, in con.execute(
        "SELECT DISTINCT p.name FROM sources s JOIN game_records r USING (source_id)"
        " JOIN games g USING (game_id) JOIN players p"
        " ON p.player_id IN (g.red_player_id, g.black_player_id) WHERE s.path LIKE ?",
        [f"{half}%"]).fetchall()} for half in halves)
    assert len(first & second) >= 4
    appended = con.execute("SELECT value FROM meta WHERE key = 'tree_appended'").fetchone()
    con.close()
    assert appended is not None and (int(appended[0]) > 0) == (share > 0)
    grown = counts(path)
    recounted = tmp_path / "recounted.duckdb"
    shutil.copyfile(path, recounted)
    set_threshold(recounted, 2)
    assert grown == counts(recounted)
    assert sum(r[1] for r in start_tree(path)) == games_from_the_start(path)


@pytest.mark.slow
def test_a_replaced_source_and_an_alias_count_again(small: Path, tmp_path: Path) -> None:
    path = tmp_path / "changed.duckdb"
    shutil.copyfile(small, path)
    db = Database(path)
    # Two players who opened 炮二平五 become one: the move has one player fewer.
    con = duckdb.connect(str(path), read_only=True)
    first, second = (r[0] for r in con.execute("""
        SELECT p.name FROM games g JOIN stored_moves m USING (game_id)
        JOIN players p ON p.player_id = g.red_player_id
        WHERE m.ply = 1 AND m.chinese = '炮二平五' AND g.status = 'valid' AND g.start_key = ?
        GROUP BY p.name ORDER BY p.name LIMIT 2""", [Position().zobrist()]).fetchall())
    con.close()
    def players() -> int:
        shown = db.tree("", mirror=False)
        return {r[0]: r[shown.columns.index("players")] for r in shown.rows}["炮二平五"]

    before = players()
    db.alias([second], first)
    assert players() == before - 1
    assert compare(path, opening_positions(path, 10)[::10], most=10)[0] == 10
    # A file imported again without its game: the game leaves the counts.
    folder = tmp_path / "in"
    shutil.copytree(DATA / "pgn-gbk", folder)
    import_paths([str(folder)], path, jobs=1)
    con = duckdb.connect(str(path), read_only=True)
    before = games_from_the_start(path)
    only, = con.execute("""  -- a file whose game no other record holds
        SELECT min(s.path) FROM sources s JOIN game_records r USING (source_id)
        JOIN games g USING (game_id) WHERE s.path LIKE ? AND g.plies > 0
          AND (SELECT count(*) FROM game_records o WHERE o.game_id = g.game_id) = 1""",
                        [f"{folder}%"]).fetchone()
    con.close()
    Path(only).write_text("[Event \"no game here any more\"]\n", encoding="utf-8")
    import_paths([str(folder)], path, jobs=1, force=True)
    assert sum(r[1] for r in start_tree(path)) == games_from_the_start(path) == before - 1
    assert compare(path, opening_positions(path, 10)[::10], most=10)[0] == 10


def test_games_not_counted_yet_are_read_from_the_games(small: Path, tmp_path: Path) -> None:
    # As an import killed before its end leaves it: games past the counts.
    path = tmp_path / "behind.duckdb"
    shutil.copyfile(small, path)
    con = duckdb.connect(str(path))
    con.execute("UPDATE meta SET value = '5' WHERE key = 'tree_through'")
    con.close()
    con = duckdb.connect(str(path), read_only=True)
    assert counted_tree(con, Position().zobrist(), None, 1, 3) is None
    con.close()
    db, fresh = Database(path), Database(small)
    assert db.tree("炮二平五").rows == fresh.tree("炮二平五").rows


@pytest.mark.slow
def test_upgrade_from_version_8_counts_the_tree(small: Path, tmp_path: Path) -> None:
    path = tmp_path / "v8.duckdb"
    shutil.copyfile(small, path)
    con = duckdb.connect(str(path))  # a database as version 8 wrote it
    for table in ("tree_keys", "tree_moves", "opening_moves"):
        con.execute(f"DROP TABLE {table}")
    con.execute("DELETE FROM meta WHERE key LIKE 'tree_%'")
    con.execute("UPDATE meta SET value = '8' WHERE key = 'schema_version'")
    con.close()
    summary = upgrade(path)
    assert "the tree's counts" in str(summary) and Path(f"{path}.v8").exists()
    con = duckdb.connect(str(path), read_only=True)
    assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (
        str(SCHEMA_VERSION),)
    assert con.execute("SELECT value FROM meta WHERE key = 'tree_threshold'").fetchone() == (
        str(THRESHOLD),)
    con.close()
    set_threshold(path, 2)
    assert Database(path).tree("").rows == Database(small).tree("").rows


@pytest.mark.slow
def test_the_corpus_trees_are_those_of_the_games(ccpd_db: Path, tmp_path: Path) -> None:
    counted, uncounted = compare(ccpd_db, opening_positions(ccpd_db, 10, games=300)[::3],
                                 most=25)
    assert counted == 25 and uncounted > 20
    assert sum(r[1] for r in start_tree(ccpd_db)) == games_from_the_start(ccpd_db) > 7_900
    popular = position_after("炮二平五 马8进7 马二进三 车9平8")
    assert compare(ccpd_db, [popular]) == (1, 0)
    # An import into the corpus counts its games in, positions just become frequent too.
    path = tmp_path / "grown.duckdb"
    shutil.copyfile(ccpd_db, path)
    import_paths([str(DATA / "pgn-gbk"), str(DATA / "pgn-chinese-15.pgn")], path, jobs=1)
    con = duckdb.connect(str(path), read_only=True)
    last = [g for g, in con.execute("SELECT game_id FROM games WHERE start_key IS NOT NULL"
                                    " ORDER BY game_id DESC LIMIT 35").fetchall()]
    con.close()
    replayed = replayed_games(path, 15, last)
    positions = {p.zobrist(): p for g in sorted(last) for p in replayed[g]}
    counted, _ = compare(path, list(positions.values()), most=20)
    assert counted == 20
