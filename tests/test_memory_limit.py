"""XQDB_MEMORY_LIMIT: the memory DuckDB may hold, in every command that opens a database."""

from __future__ import annotations

from pathlib import Path

import pytest

from datafiles import SAMPLE_GAMES
from import_support import invoke_xqdb
from xqdb.db.memory import MEMORY_VARIABLE
from xqdb.pipeline.importer import import_paths

SETTING = "SELECT current_setting('memory_limit') AS memory_limit"


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("memory") / "sample.duckdb"
    import_paths([str(SAMPLE_GAMES)], path, jobs=1)
    return path


def test_every_command_s_connection_takes_the_limit(sample_db: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    unset = invoke_xqdb("sql", "--db", str(sample_db), SETTING, "--format", "csv")
    monkeypatch.setenv(MEMORY_VARIABLE, "300MB")
    limited = invoke_xqdb("sql", "--db", str(sample_db), SETTING, "--format", "csv")
    assert limited.returncode == 0, limited.stderr
    assert limited.stdout.splitlines() == ["memory_limit", "286.1 MiB"]
    assert unset.returncode == 0 and unset.stdout.splitlines()[1] != "286.1 MiB"


@pytest.mark.parametrize("value, why", [("lots", "is not a size"),
                                        ("1MB", "is too small")])
def test_a_limit_that_is_no_size_is_refused_by_name(sample_db: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    value: str, why: str) -> None:
    monkeypatch.setenv(MEMORY_VARIABLE, value)
    for args in (("info", "--db", str(sample_db)),
                 ("report", "--db", str(sample_db), "--out", str(tmp_path / "r.html")),
                 ("import", str(SAMPLE_GAMES), "--db", str(tmp_path / "new.duckdb"))):
        done = invoke_xqdb(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert f"{MEMORY_VARIABLE}: memory limit {value!r} {why}" in done.stderr, \
            (args, done.stderr)
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "new.duckdb").exists()
