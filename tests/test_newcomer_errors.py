"""The errors a newcomer meets first: each is one line on stderr, with a hint, and the exit
code the README documents; never a traceback. Each runs xqdb in a process of its own, as
a user would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from import_support import DATA, run_xqdb
from small_db import build_small_db


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_small_db(tmp_path_factory.mktemp("errors"))


def one_line(code: int, *args: str) -> str:
    """Run xqdb with ``args``; check the exit code and that stderr is one ``Error:`` line
    and stdout empty; return that line."""
    result = run_xqdb(*args)
    assert result.returncode == code, (args, result.returncode, result.stderr)
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, \
        result.stderr
    return result.stderr.rstrip("\n")


@pytest.mark.parametrize("command", [["info", "DB"], ["query", "events", "DB"],
                                     ["show", "1", "DB"], ["openings", "DB", "classify"]])
def test_a_missing_database_says_how_to_make_one(tmp_path: Path, command: list[str]) -> None:
    missing = tmp_path / "games.duckdb"
    args = [a for word in command for a in (["--db", str(missing)] if word == "DB" else [word])]
    assert one_line(4, *args) == (
        f"Error: {missing}: no such database (xqdb import FILES --db {missing} creates one)")
    assert not missing.exists()


def test_a_mistyped_path_names_the_likely_one(tmp_path: Path) -> None:
    (tmp_path / "games.pgn").write_bytes((DATA / "pgn-chinese-15.pgn").read_bytes())
    typo = str(tmp_path / "gmaes.pgn")
    meant = f"(did you mean {tmp_path / 'games.pgn'}?)"
    line = one_line(3, "import", typo, "--db", str(tmp_path / "g.duckdb"))
    assert line == f"Error: {typo}: no such file or folder {meant}"
    assert one_line(3, "read", typo) == line
    nowhere = str(tmp_path / "no" / "such" / "x.pgn")
    assert one_line(3, "read", nowhere) == (
        f"Error: {nowhere}: no such file or folder (there is no folder {tmp_path / 'no'})")


def test_a_folder_given_as_the_database(tmp_path: Path) -> None:
    assert one_line(2, "info", "--db", str(tmp_path)) == (
        f"Error: Invalid value for '--db': File '{tmp_path}' is a directory. "
        "(see 'xqdb info --help')")


def test_an_unknown_query_suggests_the_closest(db: Path) -> None:
    assert one_line(2, "query", "evnts", "--db", str(db)) == (
        "Error: no query named 'evnts' (did you mean events? xqdb query --list lists them)")


def test_a_missing_parameter_or_option(db: Path) -> None:
    assert one_line(2, "query", "player", "--db", str(db)) == (
        "Error: player needs --param player=VALUE: the player (canonical name, see "
        "`xqdb players`)")
    assert one_line(2, "info") == "Error: Missing option '--db'. (see 'xqdb info --help')"
    assert one_line(2, "openings", "explain", "1") == (
        "Error: Missing option '--db' (or env XQDB_DB). (see 'xqdb openings explain --help')")
    assert one_line(2, "nothing") == "Error: No such command 'nothing'. (see 'xqdb --help')"


def test_a_bad_fen_shows_a_good_one(db: Path) -> None:
    hint = ("(the start position reads "
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w)")
    assert one_line(2, "perft", "--fen", "rnbakabnr/9/xyz w") == (
        f"Error: bad FEN: unknown piece letter 'x' in the FEN {hint}")
    assert one_line(2, "tree", "--db", str(db), "--fen", "rnbakabnr/9/xyz w").endswith(hint)
    assert one_line(2, "search", "--db", str(db), "--fen", "rnbakabnr/9/xyz w").endswith(hint)


def test_a_bad_move_text_names_the_move_and_the_notations(db: Path) -> None:
    tree = one_line(2, "tree", "--db", str(db), "--moves", "炮二平五 zzz")
    assert tree == (
        "Error: move 2: 'zzz' is not a move in any notation (like 炮二平五, C2.5, H2-E2, "
        "h2e2, 7747, Che2) (moves are separated by spaces or commas, in Chinese (炮二平五), "
        "WXF (C2.5), ICCS (H2-E2) or coordinates (h2e2), each legal after the ones before)")
    assert one_line(2, "search", "--db", str(db), "--moves", "炮二平五 zzz") == tree
    assert one_line(2, "tree", "--db", str(db), "--moves", "炮二平九").startswith(
        "Error: move 1: '炮二平九': the cannon on h2 cannot move to ")


def test_an_engine_that_is_not_found(db: Path) -> None:
    assert one_line(3, "analyze", "--db", str(db), "--engine", "no-such-engine") == (
        "Error: engine 'no-such-engine' not found (give the path of an executable, a command "
        "on the PATH or 'builtin')")
