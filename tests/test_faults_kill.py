"""kill -9 at random moments (fixed seed) of import, analyze, upgrade, classify and
players alias; the same command run again gives the database an uninterrupted run gives,
compared table by table. Slow: run with ``-m slow``."""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

import duckdb
import pytest

from import_support import DATA, all_rows, kill_after, run_xqdb
from xqdb.db.schema import SCHEMA_VERSION

pytestmark = pytest.mark.slow

SEED = int(os.environ.get("XQDB_FAULT_SEED", "24"))
KILLS = 4
INPUTS = [str(DATA / "pgn-gbk"), str(DATA / "pgn-chinese-15.pgn"), str(DATA / "binary")]


def _snapshot(db: Path) -> dict[str, list[tuple]]:
    out = all_rows(db)
    con = duckdb.connect(str(db), read_only=True)
    try:
        for table, order in (("evals", "key, side, engine, search_limit, game_id, ply"),
                             ("players", "player_id"), ("player_names", "spelling")):
            out[table] = con.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
    finally:
        con.close()
    return out


def _base(tmp: Path) -> Path:
    db = tmp / "base.duckdb"
    if not db.exists():
        assert run_xqdb("import", *INPUTS, "--db", str(db), "--jobs", "2").returncode == 0
    return db


def _old_version(db: Path) -> None:
    con = duckdb.connect(str(db))
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'",
                [str(SCHEMA_VERSION - 1)])
    con.close()


def _alias(db: Path) -> list[str]:
    con = duckdb.connect(str(db), read_only=True)
    names = [r[0] for r in con.execute("SELECT name FROM players ORDER BY player_id LIMIT 6")
             .fetchall()]
    con.close()
    return ["players", "--db", str(db), "alias", *names, "--as", "合并的名字"]


#: Each command's arguments for a database, and what makes the database ready for it.
COMMANDS = {
    "import": (lambda db: ["import", *INPUTS, "--db", str(db), "--jobs", "2",
                           "--commit-every", "20"], None),
    "analyze": (lambda db: ["analyze", "--db", str(db), "--engine", "builtin", "--depth", "1",
                            "--jobs", "2", "--game", "1", "--game", "2", "--game", "3"], None),
    "upgrade": (lambda db: ["upgrade", "--db", str(db)], _old_version),
    "classify": (lambda db: ["openings", "--db", str(db), "classify"], None),
    "alias": (_alias, None),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_kill_9_at_random_moments_then_rerun(tmp_path_factory: pytest.TempPathFactory,
                                             command: str) -> None:
    tmp = tmp_path_factory.mktemp(command)
    base = _base(tmp_path_factory.getbasetemp())
    args, prepare = COMMANDS[command]

    def fresh(name: str) -> Path:
        db = tmp / name
        if command == "import":
            return db
        shutil.copy(base, db)
        if prepare is not None:
            prepare(db)
        return db

    clean = fresh("clean.duckdb")
    started = time.monotonic()
    done = run_xqdb(*args(clean))
    assert done.returncode == 0, done.stderr
    took = time.monotonic() - started
    want = _snapshot(clean)
    rng = random.Random(f"{SEED}-{command}")
    survived = 0
    for n in range(KILLS):
        db = fresh(f"killed-{n}.duckdb")
        command_line = args(db)  # once: the same command is run again
        kill_after(command_line, rng.uniform(0.3, max(0.4, took)))
        if command == "alias" and _snapshot(db) == want:
            # Killed after its one transaction committed: the names it merged are gone,
            # and the same command is rightly refused.
            survived += 1
            continue
        again = run_xqdb(*command_line)
        assert again.returncode == 0, again.stderr
        assert _snapshot(db) == want
        survived += 1
    print(f"{command}: {survived} kills survived")
