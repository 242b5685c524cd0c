"""What the command line loads: ``xqdb engine``, which a GUI may start for every game,
starts without the database side (DuckDB, Arrow), while every command stays listed."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from xqdb.cli import cli
from xqdb.pipeline.importer import COMMIT_RECORDS

_HEAVY = ("duckdb", "pyarrow")


def _loaded_after(args: list[str], stdin: str) -> tuple[list[str], list[str]]:
    """The output lines of ``xqdb ARGS`` run in a fresh interpreter, and which of the
    heavy modules it loaded."""
    code = ("import sys\n"
            "from xqdb.cli import cli\n"
            "try:\n"
            f"    cli({args!r})\n"
            "except SystemExit:\n"
            "    pass\n"
            f"print('loaded:', *[m for m in {_HEAVY!r} if m in sys.modules])\n")
    done = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    return lines[:-1], lines[-1].split()[1:]


def test_the_engine_starts_without_the_database_side() -> None:
    lines, loaded = _loaded_after(["engine"], "uci\nisready\nquit\n")
    assert "uciok" in lines and "readyok" in lines
    assert loaded == []


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
