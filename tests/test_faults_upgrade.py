"""Faults of an upgrade that reads every record again (of a schema-6 database written by
d03d4c4): kill -9 at random moments (fixed seed), and two upgrades of one file started at
once. The old database survives byte for byte, as the file or as the kept ``FILE.v6``,
and the next upgrade gives what an uninterrupted one gives. Slow: run with ``-m slow``."""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from import_support import all_rows, kill_after, rows, run_xqdb, xqdb_command
from old_versions import VERSION_6, more_inputs, old_database
from xqdb.db.holder import upgrade_lock_path
from xqdb.db.schema import SCHEMA_VERSION
from xqdb.db.upgrade_check import compare

pytestmark = pytest.mark.slow

SEED = int(os.environ.get("XQDB_FAULT_SEED", "24"))
KILLS = 4
TRIES = 4


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _version(db: Path) -> int:
    return int(rows(db, "SELECT value FROM meta WHERE key = 'schema_version'")[0][0])


@pytest.fixture(scope="module")
def version_6(tmp_path_factory: pytest.TempPathFactory) -> Path:
    inputs = more_inputs(tmp_path_factory.mktemp("inputs"))
    return old_database(VERSION_6, inputs, tmp_path_factory.mktemp("v6") / "old.duckdb", 6)


def _copy(version_6: Path, folder: Path) -> Path:
    folder.mkdir()
    db = folder / "games.duckdb"
    shutil.copy(version_6, db)
    return db


def _upgraded_whole(db: Path, original: str) -> None:
    """``db`` is upgraded, its old self kept as ``db.v6``, and nothing else is left."""
    kept = Path(f"{db}.v6")
    assert _version(db) == SCHEMA_VERSION and _digest(kept) == original
    assert all(t.same for t in compare(kept, db))
    assert sorted(p.name for p in db.parent.iterdir()) == [db.name, kept.name]


def test_kill_9_during_an_upgrade_then_rerun(version_6: Path, tmp_path: Path) -> None:
    original = _digest(version_6)
    clean = _copy(version_6, tmp_path / "clean")
    started = time.monotonic()
    done = run_xqdb("upgrade", "--db", str(clean))
    assert done.returncode == 0, done.stderr
    took = time.monotonic() - started
    want = all_rows(clean)
    rng = random.Random(f"{SEED}-upgrade-6")
    outcomes = []
    for n in range(KILLS):
        db = _copy(version_6, tmp_path / f"killed-{n}")
        kill_after(["upgrade", "--db", str(db)], rng.uniform(0.3, max(0.4, took)))
        # A database is at the name at every moment: the old one untouched, or the new
        # one with the old kept.
        if _version(db) == 6:
            assert _digest(db) == original
            outcomes.append("old")
        else:
            assert _digest(Path(f"{db}.v6")) == original
            outcomes.append("new")
        again = run_xqdb("upgrade", "--db", str(db))
        assert again.returncode == 0, again.stderr
        _upgraded_whole(db, original)
        assert all_rows(db) == want
    print(f"upgrade killed {KILLS} times: {outcomes}")


def test_two_upgrades_at_once(version_6: Path, tmp_path: Path) -> None:
    original = _digest(version_6)
    seen = []
    for n in range(TRIES):
        db = _copy(version_6, tmp_path / f"twice-{n}")
        both = [subprocess.Popen(xqdb_command("upgrade", "--db", str(db)),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for _ in range(2)]
        ended = [(p.wait(), *p.communicate()) for p in both]
        codes = sorted(code for code, _, _ in ended)
        seen.append(codes)
        assert codes in ([0, 0], [0, 4]), ended
        for code, out, err in ended:
            assert "Traceback" not in err
            if code == 4:
                assert "is upgrading it: run the command again" in err
            elif "already at schema version" not in out:
                assert "the old database is kept as" in out
        _upgraded_whole(db, original)
        assert not upgrade_lock_path(db).exists()
    print(f"two upgrades at once, exit codes: {seen}")
