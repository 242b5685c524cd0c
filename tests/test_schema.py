"""The database schema: one column specification behind the tables, the import and the
documentation, and the details users query by."""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import duckdb
import pytest

from datafiles import SHARED_DATA
from import_support import DATA, all_rows, invoke_xqdb, rows, run_xqdb
from old_versions import UPGRADE_INPUTS, VERSION_2, old_database
from xqdb.db.columns import TABLES
from xqdb.db.info import database_info
from xqdb.db.schema import SCHEMA_VERSION, connect
from xqdb.pipeline.importer import import_paths
from xqdb.notation import write_move
from xqdb.rules.adjudication import ENDING_NAMES
from xqdb.rules.board import Move
from xqdb import Position

DOCS = Path(__file__).parents[1] / "docs" / "schema.md"
CCPD = SHARED_DATA / "ccpd-dev.zip"


def documented_columns() -> dict[str, list[tuple[str, str, str]]]:
    """``(name, type, meaning)`` of every column row of docs/schema.md, by table section."""
    tables: dict[str, list[tuple[str, str, str]]] = {}
    current = None
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"## `(\w+)`", line)
        if heading:
            current = tables.setdefault(heading[1], [])
        elif line.startswith("#"):
            current = None
        cells = re.fullmatch(r"\| `(\w+)` \| ([^|]+) \| (.*) \|", line)
        if cells and current is not None:
            current.append((cells[1], cells[2].strip(), cells[3].strip()))
    return tables


def test_the_documentation_lists_every_column_as_specified() -> None:
    documented = documented_columns()
    for table in TABLES.values():
        assert documented.get(table.name) == [(c.name, c.sql, c.doc) for c in table.columns], \
            f"docs/schema.md, section `{table.name}`"
    assert set(documented) == set(TABLES)


def test_the_documentation_lists_every_termination_and_rules_result() -> None:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("### Endings")[1].split("\n## ")[0]
    endings = re.findall(r"^\| `([a-z_]+)` \| .* \| (.*) \|$", section, re.M)[1:]  # less the head
    assert [name for name, _ in endings] == list(ENDING_NAMES)
    assert {r for _, verdict in endings for r in re.findall(r"`([\d/-]+)`", verdict)} == \
        {"1-0", "0-1", "1/2-1/2"}
    assert f"`schema_version` is now `{SCHEMA_VERSION}`" in text


def test_the_tables_have_the_specified_columns_and_types(tmp_path: Path) -> None:
    con = connect(tmp_path / "new.duckdb")
    try:
        for table in TABLES.values():
            found = con.execute("SELECT column_name, data_type FROM information_schema.columns"
                                " WHERE table_name = ? ORDER BY ordinal_position",
                                [table.name]).fetchall()
            assert [name for name, _ in found] == table.names
            if table.view_of is None:
                assert [kind for _, kind in found] == [c.sql
                                                       for c in table.columns], table.name
    finally:
        con.close()


# --- details users query by ------------------------------------------------------------------

@pytest.fixture(scope="module")
def ccpd(tmp_path_factory: pytest.TempPathFactory, ccpd_db: Path) -> Path:
    """ccpd-dev.zip imported whole: 11,791 games written in traditional script (Big5).
    The import takes over 20 s, so the tests using it are marked slow."""
    db = tmp_path_factory.mktemp("ccpd") / "ccpd.duckdb"
    shutil.copy(ccpd_db, db)
    return db


@pytest.mark.slow
def test_a_game_starting_with_black_numbers_its_moves_from_black(ccpd: Path) -> None:
    # Dataset/中局/00000013.pgn: a middle game from a FEN with Black to move, 19 plies.
    game, = rows(ccpd, "SELECT g.game_id FROM games g JOIN sources s USING (source_id)"
                       " WHERE s.member = 'Dataset/中局/00000013.pgn'")[0]
    numbered = rows(ccpd, "SELECT ply, move_number, side FROM moves WHERE game_id = ?"
                          " ORDER BY ply", game)
    assert numbered[:4] == [(1, 1, "black"), (2, 2, "red"), (3, 2, "black"), (4, 3, "red")]
    assert numbered[-1] == (19, 10, "black")
    # A game from the start: Red's move 1, then Black's move 1.
    assert rows(ccpd, "SELECT count(*) FROM moves WHERE ply <= 2 AND move_number <> 1"
                      " AND game_id IN (SELECT game_id FROM games WHERE start_fen LIKE '% w %')"
                ) == [(0,)]
    assert rows(ccpd, "SELECT count(*) FROM moves WHERE (side = 'red') <> (piece = upper(piece))"
                ) == [(0,)]


@pytest.mark.slow
def test_a_year_alone_is_kept_in_year(ccpd: Path) -> None:
    assert rows(ccpd, "SELECT g.date, g.year, g.date_raw FROM games g JOIN sources s"
                      " USING (source_id) WHERE s.member = 'Dataset/中局/00000013.pgn'"
                ) == [(None, 1999, "1999")]
    info = database_info(connect(ccpd, read_only=True))
    dated, = rows(ccpd, "SELECT count(*) FROM games WHERE date IS NOT NULL")[0]
    assert info.dated > dated  # games with only a year count as dated


@pytest.mark.slow
def test_traditional_games_show_their_moves_as_written(ccpd: Path, tmp_path: Path) -> None:
    assert rows(ccpd, "SELECT script, count(*) FROM games GROUP BY ALL") == [("traditional", 8407)]
    game, fen = rows(ccpd, "SELECT g.game_id, g.start_fen FROM games g JOIN sources s"
                           " USING (source_id) WHERE s.member = 'Dataset/中局/00000013.pgn'")[0]
    moves = rows(ccpd, "SELECT move, chinese_traditional FROM moves WHERE game_id = ?"
                       " ORDER BY ply", game)
    pos = Position.from_fen(fen)
    for code, text in moves:
        move = Move.from_code(code)
        assert text == write_move(pos, move, "chinese-traditional")
        pos.push(move)
    # read --show writes the record's script by default, simplified on request.
    with zipfile.ZipFile(CCPD) as archive:
        (tmp_path / "13.pgn").write_bytes(archive.read("Dataset/中局/00000013.pgn"))
    shown = invoke_xqdb("read", str(tmp_path / "13.pgn"), "--show", "1")
    assert shown.returncode == 0, shown.stderr
    first = moves[0][1]
    assert re.search(rf"^\s+1\. \.\.\.\s+{first}$", shown.stdout, re.M)
    simplified = invoke_xqdb("read", str(tmp_path / "13.pgn"), "--show", "1",
                          "--notation", "chinese-simplified").stdout
    assert first not in simplified and "車" not in simplified.split("start:")[1]


@pytest.mark.slow
def test_info_counts_results_that_differ_from_the_rules(ccpd: Path) -> None:
    counted, = rows(ccpd, "SELECT count(*) FROM games WHERE status = 'valid' AND"
                          " result IN ('1-0', '0-1', '1/2-1/2') AND result <> rules_result")[0]
    # How the record ends, not the first episode: 12 of the 8,404 valid games contradict
    # it (317 when the first ending counted), as `xqdb query disagreements` lists them.
    assert counted == 12
    shown = invoke_xqdb("info", "--db", str(ccpd))
    assert f"disagree:   {counted:,} recorded results contradict how the record ends" \
        in shown.stdout


def test_empty_tags_are_null(tmp_path: Path) -> None:
    # binary/test.pgn writes Event, Round, Date, Site and the teams as "".
    db = tmp_path / "g.duckdb"
    import_paths([str(DATA / "binary" / "test.pgn")], db, jobs=1)
    assert rows(db, "SELECT event, site, round, date_raw, red_team, variation, red FROM games"
                ) == [(None, None, None, None, None, None, "象棋巫师(大师)")]
    assert rows(db, "SELECT tags->>'Event' FROM games") == [("",)]  # as read, in tags


def test_variations_are_stored_move_by_move(tmp_path: Path) -> None:
    db = tmp_path / "v.duckdb"
    import_paths([str(DATA / "binary" / "test_5_variations.xqf")], db, jobs=1)
    (game, start, variations), = rows(db, "SELECT game_id, start_fen, variations FROM games")
    assert rows(db, "SELECT variation, parent, branch_ply, min(ply), count(*) FROM"
                    " variation_moves GROUP BY ALL ORDER BY 1") == [
        (1, 0, 1, 1, 5), (2, 0, 5, 5, 4), (3, 0, 5, 5, 6), (4, 2, 6, 6, 3)]
    assert variations == 4
    # Every variation replays from its parent line's position before its branch ply.
    lines = {0: [code for code, in rows(db, "SELECT move FROM moves WHERE game_id = ?"
                                            " ORDER BY ply", game)]}
    for variation, parent, branch in rows(db, "SELECT DISTINCT variation, parent, branch_ply"
                                              " FROM variation_moves ORDER BY 1"):
        played = rows(db, "SELECT move, chinese, key_after FROM variation_moves"
                          " WHERE variation = ? ORDER BY ply", variation)
        lines[variation] = lines[parent][:branch - 1] + [code for code, _, _ in played]
        pos = Position.from_fen(start)
        for code in lines[parent][:branch - 1]:
            pos.push(Move.from_code(code))
        assert Move.from_code(played[0][0]) != Move.from_code(lines[parent][branch - 1])
        for code, chinese, key in played:
            move = Move.from_code(code)
            assert chinese == write_move(pos, move, "chinese")
            pos.push(move)
            assert key == pos.zobrist()


def test_position_lists_are_positions_not_games(tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    epd = DATA / "endgames" / "FUNNY.EPD"
    lines = [line for line in epd.read_bytes().splitlines() if line.strip()]
    summary = import_paths([str(epd), str(DATA / "pgn-gbk")], db, jobs=1)
    assert summary.positions == len(lines) and summary.imported == 20
    assert rows(db, "SELECT count(*) FROM games WHERE format = 'epd'") == [(0,)]
    assert rows(db, "SELECT count(*), count(fen), count(key), count(name) FROM positions") == \
        [(len(lines),) * 4]
    fen, key, name = rows(db, "SELECT fen, key, name FROM positions ORDER BY record_index")[0]
    assert key == Position.from_fen(fen).zobrist() and name
    out = invoke_xqdb("info", "--db", str(db)).stdout
    assert "games:      20 (20 valid, 0 invalid)" in out
    assert f"positions:  {len(lines):,} (from position lists, not games)" in out
    assert "epd" not in out.split("formats (records):")[1]


# --- upgrades ---------------------------------------------------------------------------------



@pytest.fixture(scope="module")
def version_2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database written by the xqdb of schema version 2, from :data:`UPGRADE_INPUTS`."""
    return old_database(VERSION_2, UPGRADE_INPUTS, tmp_path_factory.mktemp("v2") / "old.duckdb",
                        2)


def test_an_old_database_is_refused_until_upgraded(version_2: Path, tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    shutil.copy(version_2, db)
    refused = invoke_xqdb("info", "--db", str(db))
    assert refused.returncode == 4
    assert f"run 'xqdb upgrade --db {db}'" in refused.stderr
    again = invoke_xqdb("import", str(DATA / "pgn-chinese-15.pgn"), "--db", str(db))
    assert again.returncode == 4 and "xqdb upgrade" in again.stderr
    assert rows(db, "SELECT value FROM meta") == [("2",)]  # refused untouched


@pytest.mark.slow
def test_an_upgrade_gives_the_rows_of_a_fresh_import(version_2: Path, tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    shutil.copy(version_2, db)
    stamps = rows(db, "SELECT source_id, imported_at FROM sources ORDER BY 1")
    done = run_xqdb("upgrade", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert f"from schema version 2 to {SCHEMA_VERSION}" in done.stdout
    fresh = tmp_path / "fresh.duckdb"
    import_paths([str(p) for p in UPGRADE_INPUTS], fresh, jobs=2)
    upgraded, expected = all_rows(db), all_rows(fresh)
    for table in expected:
        assert upgraded[table] == expected[table], table
    assert len(expected["positions"]) and len(expected["variation_moves"])
    # The episodes the rules saw are derived anew: an old database gets them too.
    assert rows(db, "SELECT count(*) FILTER (played_on), count(*) FROM rule_events")[0][0] > 0
    assert rows(db, "SELECT source_id, imported_at FROM sources ORDER BY 1") == stamps
    # The old file is kept; a second upgrade has nothing to do.
    assert rows(Path(f"{db}.v2"), "SELECT value FROM meta") == [("2",)]
    twice = invoke_xqdb("upgrade", "--db", str(db))
    assert twice.returncode == 0 and "already at schema version" in twice.stdout


def test_the_rules_verdict_is_stored_with_its_reason(tmp_path: Path) -> None:
    """A user who sees a verdict that contradicts the recorded result can check it."""
    db = tmp_path / "g.duckdb"
    library = next((DATA / "binary").glob("1989*.CBL"))
    import_paths([str(library)], db, jobs=1)
    con = duckdb.connect(str(db), read_only=True)
    # Record 5 goes on after Black's perpetual chase (plies 73-81) to ply 115: the
    # episode is kept, and the record ends otherwise.
    row = con.execute("SELECT termination, rules_result, plies FROM games"
                      " WHERE record_index = 4").fetchone()
    assert row == (None, None, 115)
    assert con.execute("SELECT first_ply, e.verdict_ply, last_ply, kind, side, verdict, reason,"
                       " played_on FROM rule_events e JOIN games USING (game_id)"
                       " WHERE record_index = 4").fetchall() == [
        (73, 80, 81, "perpetual_chase", "black", "1-0",
         "perpetual chase by Black: the chariot on f5 chases the unprotected pawn on f6 with"
         " every move from ply 72 to ply 80", True)]
    # Games the rules did not end carry no reason.
    assert con.execute("SELECT count(*) FROM games WHERE (termination IS NULL)"
                       " <> (termination_reason IS NULL)").fetchone() == (0,)
