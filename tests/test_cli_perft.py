"""``xqdb perft``: output, exit codes and errors, in process and as the installed command."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_perft import TABLE
from xqdb.cli import cli

_TOTAL = re.compile(r"^perft\((\d+)\) = (\d+)(?: \([\d,]+ nodes/s\))?$")


def run(*args: str):
    return CliRunner().invoke(cli, ["perft", *args])


def total_line(output: str) -> tuple[int, int]:
    match = _TOTAL.match(output.strip().splitlines()[-1])
    assert match, output
    return int(match[1]), int(match[2])


def test_start_position_by_default() -> None:
    result = run("--depth", "2")
    assert result.exit_code == 0, result.output
    assert total_line(result.stdout) == (2, 1920)


@pytest.mark.parametrize("fen, counts", TABLE[1:4], ids=["pos2", "pos3", "pos4"])
def test_published_counts_from_a_fen(fen: str, counts: dict[int, int]) -> None:
    result = run("--fen", fen, "--depth", "3")
    assert result.exit_code == 0, result.output
    assert total_line(result.stdout) == (3, counts[3])


def test_divide_lists_every_first_move_and_the_total() -> None:
    fen, counts = TABLE[1]
    result = run("--fen", fen, "--depth", "2", "--divide")
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    split = dict(line.split() for line in lines[:-1])
    assert len(split) == counts[1]
    assert all(re.fullmatch(r"[a-i][0-9][a-i][0-9]", move) for move in split)
    assert list(split) == sorted(split)
    assert sum(int(n) for n in split.values()) == counts[2]
    assert total_line(lines[-1]) == (2, counts[2])


def test_depth_zero_counts_the_position_itself() -> None:
    assert total_line(run("--depth", "0").stdout) == (0, 1)


def test_board_flag_prints_the_board_and_normalised_fen() -> None:
    result = run("--fen", "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r",
                 "--depth", "1", "--board")
    assert result.exit_code == 0, result.output
    assert "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1" in result.stdout
    assert "a b c d e f g h i" in result.stdout
    assert total_line(result.stdout) == (1, 44)


@pytest.mark.parametrize("fen, reason", [
    ("4k4/9/9/9/9/9/9/9/9/3KK4 w", "2 red kings"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1X1P1P/1C5C1/9/RNBAKABNR w", "unknown piece letter 'X'"),
    ("4k4/9/9/9/9/9/9/9/4K4 w", "9 ranks"),
    ("3k5/9/9/9/9/9/9/9/9/3K5 w", "in check but it is red's move"),
])
def test_bad_fen_is_a_clear_error(fen: str, reason: str) -> None:
    result = run("--fen", fen, "--depth", "1")
    # A bad FEN is a bad argument, exit 2, in perft as in tree and search.
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("Error: bad FEN: ")
    assert reason in result.stderr
    assert "Traceback" not in result.output


def test_depth_out_of_range_is_a_usage_error() -> None:
    result = run("--depth", "11")
    assert result.exit_code == 2
    assert "--depth" in result.stderr


def test_installed_command() -> None:
    """The console script, as a user runs it: counts on stdout, errors on stderr."""
    xqdb = shutil.which("xqdb", path=os.pathsep.join([str(Path(sys.executable).parent),
                                                       os.environ.get("PATH", "")]))
    assert xqdb, "the xqdb console script is not installed (pip install -e .)"
    ok = subprocess.run([xqdb, "perft", "--depth", "3"], capture_output=True, text=True,
                        timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert total_line(ok.stdout) == (3, 79666)
    bad = subprocess.run([xqdb, "perft", "--fen", "4k4/9/9/9/9/9/9/9/9/3KK4 w"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr.strip().startswith("Error: bad FEN: 2 red kings (at most 1) (the start ")
