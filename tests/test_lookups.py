"""The lookup tables (position_keys, material_spans): the tree, position search, material
search and near-duplicates answer from them exactly as a scan of the moves table does, on
a real database, and import, replacement and upgrade keep them up to date."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from xqdb import Database
from xqdb.db import lookups
from xqdb.db.lookups import MOST_RUNS, material_states, rebuild, through
from xqdb.db.judgements import JUDGEMENTS_QUERY
from xqdb.db.schema import SCHEMA_VERSION
from xqdb.db.upgrade import upgrade
from xqdb.pipeline.importer import import_paths
from xqdb.position import position_after
from datafiles import DATA

SAMPLE_GAMES = Path(__file__).resolve().parents[1] / "sample_games"

#: The start (its own mirror image), the most played line, and a line and its mirror.
LINES = ["", "炮二平五 马8进7 马二进三 车9平8", "兵七进一 卒7进1", "兵三进一 卒3进1"]
PATTERNS = [("R1 r1 N0 n0 C0 c0", 1), ("RNC>rnc", 10), ("P5 p5", 30)]


def answers(path: Path) -> dict[str, object]:
    """What a user sees from the tree, position and material search and near-duplicates."""
    db = Database(path)
    out: dict[str, object] = {}
    for line in LINES:
        for mirror in (True, False):
            out[f"tree {line} {mirror}"] = db.tree(line, mirror=mirror,
                                                   with_partial=not mirror).rows
            found = db.search(line, mirror=mirror, limit=100_000)
            out[f"search {line} {mirror}"] = (found.total, found.games.rows)
    for pattern, plies in PATTERNS:
        found = db.search_material(pattern, plies=plies, limit=100_000)
        out[f"material {pattern} {plies}"] = (found.total, found.games.rows)
    out["near"] = db.query("near_duplicates").rows
    for plies in ("6", "16", "17"):  # from opening_moves, then past what it holds
        out[f"lines {plies}"] = db.query("lines", plies=plies, limit="40").rows
    return out


def without_lookups(source: Path, target: Path) -> Path:
    """A copy of the database whose lookup tables are empty: every query reads ``moves``."""
    shutil.copyfile(source, target)
    con = duckdb.connect(str(target))
    for table in ("position_keys", "material_spans", "material_signatures", "opening_moves"):
        con.execute(f"DELETE FROM {table}")
    con.execute("UPDATE meta SET value = '0' WHERE key = 'lookups_through'")
    con.close()
    return target


@pytest.fixture(scope="module")
def scanned(ccpd_db: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    return answers(without_lookups(ccpd_db, tmp_path_factory.mktemp("scan") / "scan.duckdb"))


def test_the_import_fills_the_lookup_tables_sorted_by_key(ccpd_db: Path) -> None:
    con = duckdb.connect(str(ccpd_db), read_only=True)
    games, last, positions, moves, starts, spans, unsorted = con.execute("""
        SELECT (SELECT count(*) FROM games), (SELECT max(game_id) FROM games),
               (SELECT count(*) FROM position_keys), (SELECT count(*) FROM stored_moves),
               (SELECT count(*) FROM games WHERE start_key IS NOT NULL),
               (SELECT sum(spans) FROM material_signatures),
               (SELECT count(*) FROM (SELECT key < lag(key) OVER (ORDER BY rowid) AS down
                                      FROM position_keys) WHERE down)""").fetchone()
    assert through(con) == last and games == 8_407
    assert positions == moves + starts  # the start and after each ply
    assert spans == con.execute("SELECT count(*) FROM material_spans").fetchone()[0] > games
    assert unsorted == 0  # one import: one sorted run
    con.close()


@pytest.mark.slow
def test_lookups_answer_as_the_moves_table_does(ccpd_db: Path,
                                                scanned: dict[str, object]) -> None:
    indexed = answers(ccpd_db)
    assert indexed["search 炮二平五 马8进7 马二进三 车9平8 False"][0] > 2_000  # type: ignore[index]
    for name, rows in scanned.items():
        assert indexed[name] == rows, name


def test_position_search_finds_what_a_plain_scan_of_moves_finds(ccpd_db: Path) -> None:
    db = Database(ccpd_db)
    con = duckdb.connect(str(ccpd_db), read_only=True)
    for line in LINES[1:]:
        found = db.search(line).games  # the position's games, first ply each
        expected = con.execute("""
            SELECT game_id, min(ply) FROM (
                SELECT game_id, 0 AS ply FROM games WHERE start_key = $k
                UNION ALL SELECT game_id, ply FROM moves WHERE key_after = $k)
            GROUP BY game_id ORDER BY game_id LIMIT 100""",
                               {"k": position_after(line, None).zobrist()}).fetchall()
        assert [(r[0], r[1]) for r in found.rows] == expected, line
    con.close()


def test_material_search_finds_what_the_moves_table_gives(ccpd_db: Path) -> None:
    con = duckdb.connect(str(ccpd_db), read_only=True)
    # Games that ever had exactly one chariot each and no horse or cannon, from the moves.
    expected = [r[0] for r in con.execute(f"""
        SELECT DISTINCT game_id FROM ({material_states()})
        WHERE red_chariot = 1 AND black_chariot = 1 AND red_horse = 0 AND black_horse = 0
          AND red_cannon = 0 AND black_cannon = 0 ORDER BY game_id""").fetchall()]
    con.close()
    found = Database(ccpd_db).search_material("R1 r1 N0 n0 C0 c0", limit=100_000)
    assert found.total == len(expected) > 100
    assert [r[0] for r in found.games.rows] == expected


@pytest.mark.slow
def test_games_past_the_tables_are_read_from_moves(ccpd_db: Path, tmp_path: Path,
                                                   scanned: dict[str, object]) -> None:
    # As an import killed before its end leaves it: the last games not in the tables.
    path = tmp_path / "killed.duckdb"
    shutil.copyfile(ccpd_db, path)
    con = duckdb.connect(str(path))
    con.execute("DELETE FROM position_keys WHERE game_id > 5000")
    con.execute("DELETE FROM material_spans WHERE game_id > 5000")
    con.execute("DELETE FROM opening_moves WHERE game_id > 5000")
    con.execute("UPDATE meta SET value = '5000' WHERE key = 'lookups_through'")
    con.close()
    assert answers(path) == scanned


@pytest.mark.slow
def test_each_import_appends_a_run_and_many_runs_are_sorted_again(tmp_path: Path,
                                                                  shared_data: Path) -> None:
    folder = shared_data / "pgn-gbk"
    files = sorted(folder.glob("*.PGN"))
    path = tmp_path / "runs.duckdb"
    for one in files[:MOST_RUNS + 1]:
        import_paths([str(one)], path, jobs=1)
    con = duckdb.connect(str(path))
    runs = int(con.execute("SELECT value FROM meta WHERE key = 'lookups_runs'").fetchone()[0])
    last = con.execute("SELECT max(game_id) FROM games").fetchone()[0]
    assert through(con) == last == MOST_RUNS + 1  # one game a file
    assert runs == 1  # the ninth run made the table sorted whole again
    before = con.execute("SELECT * FROM position_keys ORDER BY ALL").fetchall()
    ordered = con.execute("SELECT count(*) FROM (SELECT key < lag(key) OVER (ORDER BY rowid)"
                          " AS down FROM position_keys) WHERE down").fetchone()[0]
    rebuild(con)
    assert con.execute("SELECT * FROM position_keys ORDER BY ALL").fetchall() == before
    assert ordered == 0
    con.close()


def physical(con: duckdb.DuckDBPyConnection, table: str, columns: str) -> list[tuple]:
    """The rows of ``table``, as stored (in the order of their row ids)."""
    return con.execute(f"SELECT {columns} FROM {table} ORDER BY rowid").fetchall()


def test_the_runs_of_small_imports_are_sorted_again_without_the_rest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many small imports into a big database sort their own rows again, not the big
    import's: the import of a few games into millions must not sort millions of rows."""
    monkeypatch.setattr(lookups, "WHOLE_SHARE", 0.5)
    path = tmp_path / "runs.duckdb"
    import_paths([str(DATA / "pgn-chinese-15.pgn")], path, jobs=1)
    con = duckdb.connect(str(path))
    first = physical(con, "position_keys", "*")
    first_spans = physical(con, "material_spans", "*")
    con.close()
    small = sorted((DATA / "pgn-gbk").glob("*.PGN"))[:MOST_RUNS]
    for one in small:
        import_paths([str(one)], path, jobs=1)
    con = duckdb.connect(str(path))
    meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
    # The 15 games' run, then the 8 imports' runs sorted into one: 8 of 23 games is less
    # than half, so the first run stays as it was.
    assert (meta["lookups_runs"], meta["lookups_sorted"], meta["lookups_through"]) == ("2", "15", "23")
    for table, order, before in (("position_keys", "key, game_id, ply", first),
                                 ("material_spans", "signature, game_id, ply", first_spans)):
        stored = physical(con, table, "*")
        assert stored[:len(before)] == before
        assert stored[len(before):] == con.execute(
            f"SELECT * FROM {table} WHERE game_id > 15 ORDER BY {order}").fetchall()
    everything = con.execute("SELECT * FROM position_keys ORDER BY ALL").fetchall()
    con.close()
    shutil.copyfile(path, tmp_path / "rebuilt.duckdb")
    con = duckdb.connect(str(tmp_path / "rebuilt.duckdb"))
    rebuild(con)
    assert con.execute("SELECT * FROM position_keys ORDER BY ALL").fetchall() == everything
    con.close()
    # Seven more runs make too many again, and the 15 games since the whole sort are half
    # of the 30: the table is sorted whole.
    for one in sorted((DATA / "pgn-gbk").glob("*.PGN"))[MOST_RUNS:MOST_RUNS * 2 - 1]:
        import_paths([str(one)], path, jobs=1)
    con = duckdb.connect(str(path))
    meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
    assert (meta["lookups_runs"], meta["lookups_sorted"], meta["lookups_through"]) == ("1", "30", "30")
    keys = [row[0] for row in physical(con, "position_keys", "key")]
    assert keys == sorted(keys)
    con.close()


def test_many_games_are_added_a_chunk_at_a_time_and_sorted_a_range_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bringing the tables up to date in small chunks of games and small sorts gives the
    same rows as doing it at once, stored as one sorted run: what a statement holds stays
    bounded when ten million games are added (one sort of them ran out of 4 GB)."""
    path = tmp_path / "chunks.duckdb"
    import_paths([str(DATA / "pgn-chinese-15.pgn"), str(DATA / "pgn-gbk")], path, jobs=1)
    shutil.copyfile(path, tmp_path / "at-once.duckdb")
    monkeypatch.setattr(lookups, "CHUNK_GAMES", 4)
    monkeypatch.setattr(lookups, "SORT_ROWS", 300)
    tables = ("position_keys", "material_spans", "material_signatures", "opening_moves")
    con = duckdb.connect(str(path))
    assert rebuild(con) == 35
    chunked = {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in tables}
    keys = [row[0] for row in physical(con, "position_keys", "key")]
    signatures = [row[0] for row in physical(con, "material_spans", "signature")]
    con.close()
    assert len(keys) > 10 * lookups.SORT_ROWS  # sorted in more than ten ranges
    assert keys == sorted(keys) and signatures == sorted(signatures)
    monkeypatch.undo()
    con = duckdb.connect(str(tmp_path / "at-once.duckdb"))
    rebuild(con)
    assert chunked == {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
                       for t in tables}
    con.close()


def test_a_replaced_source_takes_its_positions_with_it(tmp_path: Path,
                                                       shared_data: Path) -> None:
    games = sorted((shared_data / "pgn-gbk").glob("*.PGN"))[:3]
    folder = tmp_path / "in"
    folder.mkdir()
    for one in games:
        shutil.copyfile(one, folder / one.name)
    path = tmp_path / "replaced.duckdb"
    import_paths([str(folder)], path, jobs=1)
    # The last file now holds the first one's game: its own game leaves the database.
    shutil.copyfile(games[0], folder / games[-1].name)
    import_paths([str(folder)], path, jobs=1, force=True)
    con = duckdb.connect(str(path))
    kept = {r[0] for r in con.execute("SELECT game_id FROM games").fetchall()}
    indexed = {r[0] for r in con.execute("SELECT DISTINCT game_id FROM position_keys").fetchall()}
    assert indexed == kept and len(kept) == 2
    con.close()


@pytest.mark.slow
def test_upgrade_from_version_7_builds_the_lookup_tables_in_place(
        ccpd_db: Path, tmp_path: Path, scanned: dict[str, object]) -> None:
    path = tmp_path / "old.duckdb"
    shutil.copyfile(ccpd_db, path)
    con = duckdb.connect(str(path))  # a database as version 7 wrote it
    for table in ("position_keys", "material_spans", "material_signatures", "opening_moves"):
        con.execute(f"DROP TABLE {table}")
    con.execute("DELETE FROM meta WHERE key <> 'schema_version'")
    con.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    con.close()
    summary = upgrade(path)
    assert "built the lookup tables" in str(summary) and summary.games == 8_407
    assert Path(f"{path}.v7").exists()
    con = duckdb.connect(str(path), read_only=True)
    assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (
        str(SCHEMA_VERSION),)
    con.close()
    assert answers(path) == scanned


#: What a database of version 10 lacks (11 added the next stretch's columns).
BEFORE_11 = ("ALTER TABLE material_spans DROP COLUMN next_signature",
             "ALTER TABLE material_spans DROP COLUMN next_until")


def upgraded_from(tmp_path: Path, version: int, changes: tuple[str, ...]
                  ) -> tuple[Path, Path, str]:
    """A fresh import of the sample games, and a copy of it made as version ``version``
    wrote it (by the statements ``changes``) and upgraded: both paths, and what the
    upgrade said."""
    fresh = tmp_path / "fresh.duckdb"
    import_paths([str(SAMPLE_GAMES)], fresh, jobs=1)
    path = tmp_path / f"v{version}.duckdb"
    shutil.copyfile(fresh, path)
    con = duckdb.connect(str(path))
    for change in changes:
        con.execute(change)
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", [str(version)])
    con.close()
    summary = str(upgrade(path))
    assert Path(f"{path}.v{version}").exists()
    return fresh, path, summary


def test_upgrade_from_version_9_fills_the_first_moves_in_place(tmp_path: Path) -> None:
    fresh, path, summary = upgraded_from(tmp_path, 9, ("DROP TABLE opening_moves", *BEFORE_11))
    assert "built the games' first moves (opening_moves)" in summary
    con = duckdb.connect(str(path), read_only=True)
    filled = con.execute("SELECT count(*), max(len(moves)) FROM opening_moves").fetchone()
    with_moves = con.execute("SELECT count(DISTINCT game_id) FROM stored_moves").fetchone()
    con.close()
    assert filled == (with_moves[0], 16)
    for plies in ("2", "6"):
        assert Database(path).query("lines", plies=plies).rows == \
            Database(fresh).query("lines", plies=plies).rows != []


def test_upgrade_from_version_10_gives_the_stretches_their_next_in_place(tmp_path: Path) -> None:
    fresh, path, summary = upgraded_from(tmp_path, 10, BEFORE_11)
    assert "built each stretch of material's next one" in summary
    tables = []
    for db in (fresh, path):
        con = duckdb.connect(str(db), read_only=True)
        tables.append(physical(con, "material_spans", "*"))
        con.close()
    assert tables[0] == tables[1]
    assert sum(1 for row in tables[1] if row[4] is None) == \
        len({row[1] for row in tables[1]}) > 1
    found = [[(f.total, f.games.rows) for f in (Database(db).search_material(p, plies=n)
                                                for p, n in PATTERNS)] for db in (fresh, path)]
    assert found[0] == found[1] and any(total for total, _ in found[1])


def views(path: Path) -> list[tuple[str, str]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute("SELECT view_name, sql FROM duckdb_views() WHERE NOT internal"
                           " ORDER BY view_name").fetchall()
    finally:
        con.close()


def test_upgrade_from_version_11_makes_the_views_anew_in_place(tmp_path: Path) -> None:
    # Version 11's judgements read the moves of every game; a stand-in of another text.
    stale = ("DROP VIEW player_blunders", "DROP VIEW blunders", "DROP VIEW judgements",
             f"CREATE VIEW judgements AS SELECT * FROM ({JUDGEMENTS_QUERY}) WHERE true")
    fresh, path, summary = upgraded_from(tmp_path, 11, stale)
    assert "built the views anew" in summary and "stretch" not in summary
    assert views(path) == views(fresh)
    assert any("judged_games" in sql for name, sql in views(path) if name == "judgements")
