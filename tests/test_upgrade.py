"""Upgrading a database written by an older xqdb: nothing is lost, two upgrades never run
at once, and the new database replaces the old one only once it is found to hold
everything the old one did.

The old databases are written by the code of old commits (:mod:`old_versions`); without
the repository's history the tests are skipped."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from import_support import DATA, all_rows, invoke_xqdb, rows, run_xqdb
from old_versions import VERSION_6, more_inputs, old_code, old_database
from xqdb.db import upgrade as upgrade_module
from xqdb.db.holder import UpgradeLock, upgrade_lock_path
from xqdb.db.schema import SCHEMA_VERSION
from xqdb.db.upgrade_check import UpgradeCheckError, compare
from xqdb.pipeline.importer import import_paths

#: The section headings of CBL libraries, which schema 6 stored as invalid games and this
#: version reads as no record.
HEADING = "coalesce(format = 'cbr' AND error LIKE 'no game: the board is empty%', false)"
#: What a user counts on an upgrade to keep, each as one query.
COUNTS = {"sources": "SELECT count(*) FROM sources",
          "records": "SELECT count(*) FROM game_records WHERE game_id NOT IN"
                     f" (SELECT game_id FROM games WHERE {HEADING})",
          "positions": "SELECT count(*) FROM positions",
          "games": f"SELECT count(*) FROM games WHERE NOT {HEADING}",
          "valid games": "SELECT count(*) FROM games WHERE error IS NULL",
          "moves": "SELECT count(*) FROM moves",
          "evals": "SELECT count(*) FROM evals WHERE origin <> 'comment'",
          "aliases": "SELECT count(*) FROM player_names WHERE decided_by = 'alias'"}


def counts(db: Path) -> dict[str, int]:
    return {name: rows(db, sql)[0][0] for name, sql in COUNTS.items()}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return more_inputs(tmp_path_factory.mktemp("inputs"))


@pytest.fixture(scope="module")
def version_6(tmp_path_factory: pytest.TempPathFactory, inputs: list[Path]) -> Path:
    """A database written by the xqdb of schema version 6 from ``inputs``: 2,584 records
    (240 of them positions), 57 + 4 sources, 3 of them byte-identical."""
    db = old_database(VERSION_6, inputs, tmp_path_factory.mktemp("v6") / "old.duckdb", 6)
    assert rows(db, "SELECT count(*) FROM game_records") == [(2344,)]
    assert rows(db, "SELECT count(*), count(DISTINCT sha256) FROM sources"
                    " WHERE path LIKE '%/same/%'") == [(3, 1)]
    return db


@pytest.fixture
def old(version_6: Path, tmp_path: Path) -> Path:
    db = tmp_path / "games.duckdb"
    shutil.copy(version_6, db)
    return db


def test_an_upgrade_of_schema_6_keeps_every_record_source_and_position(
        old: Path, inputs: list[Path], tmp_path: Path) -> None:
    before = counts(old)
    assert before["records"] > upgrade_module.FETCH_ROWS and before["positions"] == 240
    done = run_xqdb("upgrade", "--db", str(old))
    assert done.returncode == 0, done.stderr
    assert counts(old) == before
    assert "checked, the same in both: 61 sources" in done.stdout
    # Row for row what a fresh import of the same files gives.
    fresh = tmp_path / "fresh.duckdb"
    import_paths([str(p) for p in inputs], fresh, jobs=1)
    upgraded, expected = all_rows(old), all_rows(fresh)
    for table in expected:
        assert upgraded[table] == expected[table], table


def test_records_are_streamed_a_few_at_a_time(old: Path, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    """Each fetch of the stored records is followed by other queries on the old
    database: they must not end the rows still to come."""
    before = counts(old)
    monkeypatch.setattr(upgrade_module, "FETCH_ROWS", 7)
    monkeypatch.setattr(upgrade_module, "BATCH_SOURCES", 3)
    summary = upgrade_module.upgrade(old)
    assert summary.records == before["records"] + before["positions"]
    assert counts(old) == before


def _lose_a_move(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("DELETE FROM stored_moves WHERE game_id = (SELECT min(game_id) FROM games"
                " WHERE error IS NULL AND plies > 0) AND ply = 1")


def _change_a_record(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("UPDATE raw_records SET text = text || ' ' WHERE text IS NOT NULL"
                " AND game_id = (SELECT min(game_id) FROM raw_records WHERE text IS NOT NULL)")


@pytest.mark.parametrize("fault, says", [
    (_lose_a_move, r"moves: [\d,]+ rows in the old database, [\d,]+ in the new"),
    (_change_a_record, "raw_records: 2,342 rows in both, but their content differs")])
def test_an_upgrade_that_would_lose_anything_is_refused(
        old: Path, monkeypatch: pytest.MonkeyPatch, fault, says: str) -> None:
    link_players = upgrade_module.link_players

    def faulty(con: duckdb.DuckDBPyConnection) -> int:
        linked = link_players(con)
        if con.execute("SELECT count(*) FROM games").fetchone() != (0,):
            fault(con)
        return linked

    monkeypatch.setattr(upgrade_module, "link_players", faulty)
    was = digest(old)
    refused = invoke_xqdb("upgrade", "--db", str(old))
    assert refused.returncode == 4
    assert "the upgrade is refused" in refused.stderr
    assert re.search(says, refused.stderr), refused.stderr
    assert "the old database is kept as it was" in refused.stderr
    assert digest(old) == was
    assert sorted(p.name for p in old.parent.iterdir()) == ["games.duckdb"]


def test_the_check_raises_naming_the_table(old: Path, tmp_path: Path) -> None:
    lost = tmp_path / "lost.duckdb"
    shutil.copy(old, lost)
    con = duckdb.connect(str(lost))
    con.execute("DELETE FROM sources WHERE source_id = (SELECT max(source_id) FROM sources)")
    con.close()
    tallies = {t.table: t for t in compare(old, lost)}
    assert not tallies["sources"].same and tallies["games"].same
    assert str(tallies["sources"]) == "sources: 61 rows in the old database, 60 in the new"
    with pytest.raises(UpgradeCheckError, match="sources: 61 rows"):
        upgrade_module.check(old, lost)


def test_a_second_upgrade_is_refused_while_one_runs(old: Path) -> None:
    was = digest(old)
    with UpgradeLock(old):
        refused = run_xqdb("upgrade", "--db", str(old))
        assert refused.returncode == 4
        assert f"xqdb upgrade (pid {os.getpid()}) is upgrading it" in refused.stderr
        assert "Traceback" not in refused.stderr
        # The other commands do not ask for an upgrade while one runs.
        info = run_xqdb("info", "--db", str(old))
        assert info.returncode == 4
        assert "is upgrading it now" in info.stderr and "run 'xqdb upgrade" not in info.stderr
    assert digest(old) == was and not Path(f"{old}.v6").exists()
    assert "run 'xqdb upgrade" in invoke_xqdb("info", "--db", str(old)).stderr
    assert run_xqdb("upgrade", "--db", str(old)).returncode == 0
    assert not upgrade_lock_path(old).exists()


def test_what_a_killed_upgrade_left_does_not_stop_the_next(old: Path) -> None:
    # A lock file nobody holds, a half-made database and its log.
    upgrade_lock_path(old).write_text("999999999")
    Path(f"{old}.upgrading").write_bytes(b"half")
    Path(f"{old}.upgrading.wal").write_bytes(b"junk")
    before = counts(old)
    done = run_xqdb("upgrade", "--db", str(old))
    assert done.returncode == 0, done.stderr
    assert counts(old) == before
    assert sorted(p.name for p in old.parent.iterdir()) == ["games.duckdb", "games.duckdb.v6"]


@pytest.mark.slow
def test_an_upgrade_of_all_of_ccpd_dev_made_at_d03d4c4(shared_data: Path, tmp_path: Path
                                                       ) -> None:
    """The issue's database: ccpd-dev.zip imported whole by the xqdb of schema 6, with an
    engine's evaluations and a merge of names made by that version too."""
    db = old_database(VERSION_6, [shared_data / "ccpd-dev.zip"], tmp_path / "ccpd.duckdb", 6)
    code = old_code(VERSION_6, tmp_path)
    old_xqdb = [sys.executable, "-c", "from xqdb.cli import cli; cli()"]
    env = {**os.environ, "PYTHONPATH": str(code)}
    subprocess.run([*old_xqdb, "analyze", "--db", str(db), "--engine", "builtin", "--depth",
                    "1", "--jobs", "1", "--game", "1", "--game", "2"], env=env, cwd=code,
                   check=True, capture_output=True)
    names = [r[0] for r in rows(db, "SELECT name FROM players ORDER BY player_id LIMIT 2")]
    subprocess.run([*old_xqdb, "players", "--db", str(db), "alias", *names, "--as", "合并"],
                   env=env, cwd=code, check=True, capture_output=True)
    before = counts(db)
    assert (before["sources"], before["records"], before["games"]) == (11791, 11791, 8407)
    assert before["evals"] > 0 and before["aliases"] > 0
    done = run_xqdb("upgrade", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert f"from schema version 6 to {SCHEMA_VERSION}: 11,791 sources, 11,791 records" \
        in done.stdout
    assert counts(db) == before
    assert all(t.same for t in compare(Path(f"{db}.v6"), db))
    print(before)


def test_an_upgrade_in_place_that_would_change_the_rows_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "games.duckdb"
    import_paths([str(DATA / "pgn-chinese-15.pgn")], db, jobs=1)
    con = duckdb.connect(str(db))
    con.execute("UPDATE meta SET value = '12' WHERE key = 'schema_version'")
    con.close()
    refresh = upgrade_module.refresh_shipped_curves

    def faulty(con: duckdb.DuckDBPyConnection) -> None:
        refresh(con)
        con.execute("DELETE FROM game_records WHERE game_id = 3")

    monkeypatch.setattr(upgrade_module, "refresh_shipped_curves", faulty)
    with pytest.raises(UpgradeCheckError, match="game_records: 15 rows before, 14 after"):
        upgrade_module.upgrade(db)
    assert rows(db, "SELECT value FROM meta WHERE key = 'schema_version'") == [("12",)]
    assert rows(db, "SELECT count(*) FROM game_records") == [(15,)]
