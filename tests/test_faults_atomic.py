"""Commands that stop half-way leave nothing half-done: ``players alias`` is one
transaction, ``upgrade`` takes the write-ahead log along, ``export`` replaces its output
only once it is whole."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb

from import_support import DATA, invoke_xqdb, rows, run_xqdb
from xqdb.db.schema import SCHEMA_VERSION
from xqdb.pipeline.importer import import_paths


def _games(tmp_path: Path) -> Path:
    db = tmp_path / "g.duckdb"
    import_paths([str(DATA / "pgn-gbk"), str(DATA / "pgn-chinese-15.pgn")], db, jobs=1)
    return db


def test_players_alias_that_fails_half_way_moves_no_spelling(tmp_path: Path) -> None:
    db = _games(tmp_path)
    before = rows(db, "SELECT spelling, player_id FROM player_names ORDER BY spelling")
    spelling = before[0][0]
    # The relinking fails after the spellings are moved, as a kill at that moment would
    # stop it (the kill itself is in the fault suite, test_faults_kill.py).
    script = f"""
import duckdb
from xqdb.db import players
con = duckdb.connect({str(db)!r})
def broken(con):
    raise RuntimeError("killed here")
players._relink = broken
try:
    players.merge(con, [{spelling!r}], "改过的名字")
except RuntimeError:
    pass
con.close()
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert rows(db, "SELECT spelling, player_id FROM player_names ORDER BY spelling") == before
    again = invoke_xqdb("players", "--db", str(db), "alias", spelling, "--as", "改过的名字")
    assert again.returncode == 0, again.stderr


def test_upgrade_takes_a_leftover_write_ahead_log_along(tmp_path: Path) -> None:
    db = _games(tmp_path)
    # As if the version before had been killed with its log not yet checkpointed.
    script = f"""
import duckdb, os
con = duckdb.connect({str(db)!r})
con.execute("SET checkpoint_threshold = '1GB'")
con.execute("PRAGMA disable_checkpoint_on_shutdown")
con.execute("UPDATE meta SET value = '{SCHEMA_VERSION - 1}' WHERE key = 'schema_version'")
os._exit(0)
"""
    subprocess.run([sys.executable, "-c", script], check=True)
    assert Path(str(db) + ".wal").exists()
    done = run_xqdb("upgrade", "--db", str(db))
    assert done.returncode == 0, done.stderr
    info = invoke_xqdb("info", "--db", str(db))
    assert info.returncode == 0, info.stderr
    assert rows(db, "SELECT value FROM meta WHERE key = 'schema_version'") == \
        [(str(SCHEMA_VERSION),)]


def test_export_with_a_bad_where_keeps_the_old_file(tmp_path: Path) -> None:
    db = _games(tmp_path)
    keep = tmp_path / "keep.pgn"
    assert run_xqdb("export", "--db", str(db), "--out", str(keep)).returncode == 0
    old = keep.read_bytes()
    assert old
    bad = invoke_xqdb("export", "--db", str(db), "--out", str(keep), "--where", "year >>= 2")
    assert bad.returncode != 0
    assert keep.read_bytes() == old
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []
