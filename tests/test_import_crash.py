"""Crash safety, for real: ``kill -9`` an import at several moments, run the same command
again, and the database holds exactly the rows of an uninterrupted run."""

from __future__ import annotations

from pathlib import Path

import pytest

from datafiles import SHARED_DATA
from import_support import DATA, SAME_15, all_rows, kill_after_commits, run_xqdb

# The big file of the corpus gives the kills time to land inside its transaction.
pytestmark = pytest.mark.usefixtures("shared_data")

# Small sources first, so that a kill can land between their commits and inside the
# big file's transaction at the end.
INPUTS = [str(DATA / "pgn-gbk"), str(DATA / "binary"), *map(str, SAME_15),
          str(SHARED_DATA / "uci" / "liu-dahua-1125.pgn")]


def _import_args(db: Path, log: Path) -> list[str]:
    return ["import", *INPUTS, "--db", str(db), "--jobs", "2", "--commit-every", "50",
            "-vv", "--log-file", str(log)]


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple]]:
    folder = tmp_path_factory.mktemp("clean")
    done = run_xqdb(*_import_args(folder / "clean.duckdb", folder / "log"))
    assert done.returncode == 0, done.stderr
    return all_rows(folder / "clean.duckdb")


@pytest.mark.parametrize("commits", [
    # A kill before the first commit: the daily run's kill after one commit also leaves
    # a run to resume (and a spool), so this one and the kill after 3 run with the slow set.
    pytest.param(0, marks=pytest.mark.slow),
    1,
    pytest.param(3, marks=pytest.mark.slow),  # a kill between commits again, as after 1
])
@pytest.mark.slow
def test_kill_9_then_rerun_gives_the_clean_database(tmp_path: Path, commits: int,
                                                    clean_run: dict[str, list[tuple]]) -> None:
    db, log = tmp_path / "killed.duckdb", tmp_path / "log"
    kill_after_commits(_import_args(db, log), log, commits)
    if commits:
        # The kill really interrupted a run that had stored something.
        assert 0 < log.read_text(encoding="utf-8").count("committed")
    again = run_xqdb(*_import_args(db, tmp_path / "log2"))
    assert again.returncode == 0, again.stderr
    assert all_rows(db) == clean_run
    assert not (tmp_path / "killed.duckdb.spool").exists()


@pytest.mark.slow
def test_rows_are_the_same_whatever_the_number_of_jobs(tmp_path: Path,
                                                       clean_run: dict[str, list[tuple]]) -> None:
    db = tmp_path / "one.duckdb"
    done = run_xqdb("import", *INPUTS, "--db", str(db), "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert all_rows(db) == clean_run
