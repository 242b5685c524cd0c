"""One move-list tokenizer: every ``--moves`` option reads what a move-list file holds,
however it is separated (spaces, commas, full-width commas, move numbers glued on)."""

from __future__ import annotations

from pathlib import Path

import pytest

from import_support import invoke_xqdb, run_xqdb
from xqdb.notation.tokens import split_moves
from xqdb.position import position_after


@pytest.mark.parametrize("text", ["h2e2,h9g7", "1. h2e2, h9g7", "1.h2e2 1...h9g7",
                                  "炮二平五，马８进７", "h2e2h9g7", "C2.5;H8+7"])
def test_every_separation_gives_the_same_position(text: str) -> None:
    assert split_moves(text) in (["h2e2", "h9g7"], ["炮二平五", "马８进７"], ["C2.5", "H8+7"])
    assert position_after(text).fen() == position_after("h2e2 h9g7").fen()


def test_tree_and_search_read_commas_as_a_file_does(db: Path) -> None:
    spaced = run_xqdb("tree", "--db", str(db), "--moves", "h2e2 h9g7", "--format", "csv")
    commas = invoke_xqdb("tree", "--db", str(db), "--moves", "h2e2,h9g7", "--format", "csv")
    assert spaced.returncode == commas.returncode == 0, commas.stderr
    assert commas.stdout == spaced.stdout and len(spaced.stdout.splitlines()) > 1
    found = invoke_xqdb("search", "--db", str(db), "--moves", "1. h2e2, h9g7", "--format", "csv")
    assert found.returncode == 0 and found.stdout == invoke_xqdb(
        "search", "--db", str(db), "--moves", "h2e2 h9g7", "--format", "csv").stdout


@pytest.mark.parametrize("text", ["h2e2,h9g7", "1. h2e2, h9g7", "炮二平五，马８进７", "77477062"])
def test_a_move_list_file_reads_what_the_option_reads(tmp_path: Path, text: str) -> None:
    from xqdb.formats import read_paths

    path = tmp_path / "game.txt"
    path.write_text(text + "\n", encoding="utf-8")
    record = next(read_paths([str(path)]))
    assert record.error is None and record.moves == split_moves(text)
