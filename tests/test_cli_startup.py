"""What the command line loads: ``xqdb engine``, which a GUI may start for every game,
starts without the database side (DuckDB, Arrow) or the readers; a command that reads a
database loads neither Arrow nor the import and analysis sides (most of a command's
start-up is loading modules); and every command stays listed."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from xqdb import Database
from xqdb.cli import FAMILY_OF, cli
from xqdb.pipeline.importer import COMMIT_RECORDS

SAMPLES = Path(__file__).resolve().parents[1] / "sample_games"

_HEAVY = ("duckdb", "pyarrow", "numpy", "xqdb.pipeline.importer", "xqdb.pipeline.analyze",
          "xqdb.db.upgrade", "xqdb.db.writer", "xqdb.cli.analysis")


def _loaded_after(args: list[str], stdin: str = "", heavy: tuple[str, ...] = _HEAVY
                  ) -> tuple[list[str], list[str]]:
    """The output lines of ``xqdb ARGS`` run in a fresh interpreter, and which of the
    ``heavy`` modules it loaded."""
    code = ("import sys\n"
            "from xqdb.cli import cli\n"
            "try:\n"
            f"    cli({args!r})\n"
            "except SystemExit:\n"
            "    pass\n"
            f"print('loaded:', *[m for m in {heavy!r} if m in sys.modules])\n")
    done = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    return lines[:-1], lines[-1].split()[1:]


def test_the_engine_starts_without_the_database_side_or_the_readers() -> None:
    lines, loaded = _loaded_after(["engine"], "uci\nisready\nquit\n",
                                  _HEAVY + ("xqdb.formats", "xqdb.pipeline.reading"))
    assert "uciok" in lines and "readyok" in lines
    assert loaded == []


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("startup") / "sample.duckdb")
    assert Database(path).import_paths([str(SAMPLES)], jobs=1).imported > 0
    analysed = CliRunner().invoke(cli, ["analyze", "--db", path, "--engine", "builtin",
                                        "--depth", "1", "--game", "1", "--jobs", "1"])
    assert analysed.exit_code == 0, analysed.output
    return path


@pytest.mark.parametrize("args", [["tree"], ["openings"], ["show", "1"], ["info"],
                                  ["search", "--moves", "炮二平五"]])
def test_a_command_that_reads_the_database_loads_only_duckdb_of_the_heavy_modules(
        sample_db: str, args: list[str]) -> None:
    lines, loaded = _loaded_after([args[0], "--db", sample_db, *args[1:]])
    assert loaded == ["duckdb"]
    assert lines, "the command printed nothing"
    if args == ["tree"]:
        assert lines[2].startswith("炮二平五"), lines[:3]


def test_the_blunders_report_loads_no_arrow(sample_db: str) -> None:
    lines, loaded = _loaded_after(["blunders", "--db", sample_db, "--limit", "3"],
                                  heavy=("pyarrow", "numpy"))
    assert loaded == []
    assert lines[0].split()[:3] == ["game_id", "ply", "side"]
    rows = lines[2:]  # after the header and its rule: the judged moves, all of game 1
    assert rows and all(row.split()[0] == "1" for row in rows), lines


def test_every_command_outside_the_core_is_mapped_to_the_module_that_defines_it() -> None:
    defined = {command.name: family for family in set(FAMILY_OF.values())
               for command in importlib.import_module(f"xqdb.cli.{family}").COMMANDS}
    assert defined == FAMILY_OF


def test_every_command_is_listed_and_found() -> None:
    shown = CliRunner().invoke(cli, ["--help"])
    assert shown.exit_code == 0
    for name in ("engine", "import", "info", "read", "upgrade", "query", "sql", "players",
                 "openings", "tree", "report"):
        assert f"\n  {name} " in shown.output, name
    assert CliRunner().invoke(cli, ["query", "--help"]).exit_code == 0
    # A default taken from the database side is shown as its value, not as "(dynamic)".
    shown = CliRunner().invoke(cli, ["import", "--help"])
    assert "dynamic" not in shown.output
    assert f"[default: {COMMIT_RECORDS}" in " ".join(shown.output.split())
