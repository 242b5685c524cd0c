"""What a user is told: messages that name the problem, and exit codes a script can use."""

from __future__ import annotations

import subprocess
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from datafiles import DATA
from import_support import run_xqdb
from xqdb import cli as cli_module
from xqdb.cli import cli
from xqdb.formats import read_paths
from xqdb.replay import replay
from xqdb.rules import FenError, parse_fen



def xqdb(*args: str) -> subprocess.CompletedProcess[str]:
    return run_xqdb(*args, timeout=300)


@pytest.fixture
def huge_token(tmp_path: Path) -> Path:
    """A WXF game whose second move is a 5 MB run of junk (a binary pasted into the text)."""
    path = tmp_path / "huge.pgn"
    path.write_text('[Event "x"]\n\n1. C2.5 ' + "Q" * 5_000_000 + " *\n", encoding="utf-8")
    return path


def test_a_huge_token_is_quoted_short_and_the_explanation_kept_whole(huge_token: Path) -> None:
    record, = read_paths([str(huge_token)])
    game = replay(record)
    assert not game.is_valid and game.error_ply == 2
    assert len(game.error) < 200, game.error[:300]
    assert game.error.startswith("'QQQQ") and "…'" in game.error
    assert game.error.endswith(" is not a WXF move like C2.5")


def test_read_prints_a_short_example_for_a_huge_token(huge_token: Path) -> None:
    proc = xqdb("read", str(huge_token))
    assert proc.returncode == 1, proc.stderr
    assert len(proc.stdout) < 2_000, proc.stdout[:3_000]
    example = next(line for line in proc.stdout.splitlines() if "ply 2" in line)
    assert example.strip().startswith(f"{huge_token}, record 1, line 1, ply 2: 'QQQ")
    assert example.endswith("…' is not a WXF move like C2.5")
    shown = xqdb("read", str(huge_token), "--show", "1")
    assert len(shown.stdout) < 2_000 and "invalid at ply 2" in shown.stdout, shown.stdout[:3_000]


@pytest.mark.parametrize("fen", [
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w - - 0 1",
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKAB1NR w - - 0 1",
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR1 w",
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRc w",
])
def test_a_last_rank_of_ten_points_is_named(fen: str) -> None:
    with pytest.raises(FenError, match=r"^rank 10 of the FEN has more than 9 points$"):
        parse_fen(fen)


@pytest.mark.parametrize("fen, turn", [
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRw", 1),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRb - - 0 1", -1),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRr - - 0 1", 1),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRw--01", 1),
])
def test_a_side_glued_to_the_last_rank_is_still_the_side(fen: str, turn: int) -> None:
    assert parse_fen(fen)[1] == turn


def test_read_exit_codes_tell_invalid_records_from_nothing_to_read(tmp_path: Path) -> None:
    """0: every record valid; 1: some record invalid; 2: a bad option, --show past the
    last record included; 3: nothing to read."""
    empty = tmp_path / "empty.pgn"
    empty.write_bytes(b"")
    nothing = xqdb("read", str(empty))
    assert nothing.returncode == 3
    assert "no records" in nothing.stderr
    past = xqdb("read", str(DATA / "pgn-chinese-15.pgn"), "--show", "99")
    assert past.returncode == 2
    assert "--show" in past.stderr and "15 records" in past.stderr
    assert xqdb("read", str(DATA / "binary" / "BadMoveTest3.xqf")).returncode == 1
    assert xqdb("read", str(DATA / "pgn-chinese-15.pgn"), "--show", "15").returncode == 0


def test_import_with_a_progress_bar_uses_no_deprecated_click_api(tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = CliRunner().invoke(cli, ["import", str(DATA / "uci" / "same-15-games-uci.pgn"),
                                          "--db", str(tmp_path / "g.duckdb"), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    package = Path(cli_module.__file__).parent
    deprecated = [f"{w.filename}:{w.lineno}: {w.message}" for w in caught
                  if issubclass(w.category, DeprecationWarning)
                  and Path(w.filename).resolve().is_relative_to(package.resolve())]
    assert not deprecated
