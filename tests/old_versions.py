"""Databases written by earlier versions of xqdb, for the upgrade tests: the code of an old
commit, taken from the repository's history, imports the inputs.

>>> old_database(VERSION_6, [DATA / "pgn-chinese-15.pgn"], tmp / "old.duckdb")  # doctest: +SKIP
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from datafiles import SAMPLE_GAMES
from import_support import DATA, rows

ROOT = Path(__file__).parents[1]
#: The last commit writing schema version 2.
VERSION_2 = "98438a2e408f6f78960821e2c614c98c7a60c8b4"
#: A commit writing schema version 6 (the upgrade of its day lost every record after the
#: first 2,000, byte-identical sources and the positions of positions lists).
VERSION_6 = "d03d4c4"
#: Files of every kind an upgrade reads again: PGN in GBK, the binary formats (CBL
#: libraries with section headings among them), a positions list and an HTML page.
UPGRADE_INPUTS = [DATA / "pgn-gbk", DATA / "binary", DATA / "endgames" / "FUNNY.EPD",
                  SAMPLE_GAMES / "wxf-championship-1997.html", DATA / "pgn-chinese-15.pgn"]


def old_code(commit: str, folder: Path) -> Path:
    """The package ``xqdb`` as it was at ``commit``, unpacked under ``folder`` (kept there
    for later calls); the test is skipped when the history is not at hand."""
    if shutil.which("git") is None or subprocess.run(
            ["git", "-C", str(ROOT), "cat-file", "-e", commit], capture_output=True).returncode:
        pytest.skip(f"the code of commit {commit[:7]} is not at hand (no git history)")
    code = folder / f"xqdb-{commit[:7]}"
    if not code.is_dir():
        code.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "xqdb"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(code)], input=archive, check=True)
    return code


def old_database(commit: str, inputs: list[Path], db: Path, version: int) -> Path:
    """``inputs`` imported into ``db`` by the xqdb of ``commit``, which writes schema
    ``version``."""
    code = old_code(commit, db.parent)
    subprocess.run([sys.executable, "-c", "from xqdb.cli import cli; cli()", "import",
                    *map(str, inputs), "--db", str(db), "-q", "--jobs", "1"], cwd=code,
                   env={**os.environ, "PYTHONPATH": str(code)}, check=True)
    assert rows(db, "SELECT value FROM meta WHERE key = 'schema_version'") == [(str(version),)]
    return db


def more_inputs(folder: Path) -> list[Path]:
    """:data:`UPGRADE_INPUTS` and, made under ``folder``, what the upgrade of schema 6 lost:
    a file of 2,100 records (more than it fetched at a time) and three byte-identical
    files under their own names."""
    folder.mkdir(parents=True, exist_ok=True)
    same = folder / "same"
    same.mkdir(exist_ok=True)
    for name in ("a.pgn", "b.pgn", "c.pgn"):
        shutil.copy(DATA / "pgn-wxf-fullwidth-15.pgn", same / name)
    return [*UPGRADE_INPUTS, short_games(folder / "short.pgn", 2100), same]


def short_games(path: Path, count: int) -> Path:
    """A PGN file of ``count`` short games: ``count`` records, of 64 different games (the
    others are linked to them as duplicates)."""
    opening = ["h2e2", "b2e2", "h0g2", "b0c2", "g3g4", "c3c4", "a3a4", "i3i4"]
    replies = ["h9g7", "b9c7", "h7e7", "b7e7", "g6g5", "c6c5", "a6a5", "i6i5"]
    with open(path, "w", encoding="utf-8") as out:
        for n in range(count):
            out.write(f'[Event "short {n}"]\n[Red "R{n % 97}"]\n[Black "B{n % 89}"]\n\n'
                      f"1. {opening[n % 8]} {replies[n // 8 % 8]} *\n\n")
    return path
