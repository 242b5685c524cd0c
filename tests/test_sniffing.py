"""What no reader claims is no record: files found among game collections that hold no
game become sources that are not a known format, in ``xqdb read`` and ``xqdb import``
alike, while every real move list is still read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from datafiles import DATA
from import_support import count, invoke_xqdb, run_xqdb
from xqdb.formats import is_source_failure, read_paths, sniff_format
from xqdb.pipeline.importer import import_paths
from xqdb.replay import replay
from xqdb.formats.movelist import opens_legally

NOT_GAMES = DATA / "more-formats" / "not-games"


def test_files_that_hold_no_game_give_no_record_in_read() -> None:
    result = invoke_xqdb("read", str(NOT_GAMES))
    assert result.returncode == 3  # no record to read
    assert result.stdout.startswith("0 records read and replayed from 2 sources")
    assert "Sources not read: 2" in result.stdout
    for name in ("00 - 朋友你好.doc", "江苏 王斌 先和 广东 吕钦.SG"):
        assert f"{NOT_GAMES / name}: not a known format" in result.stdout
    assert "Invalid records" not in result.stdout


def test_files_that_hold_no_game_are_unreadable_sources_in_import(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    result = invoke_xqdb("import", str(NOT_GAMES), "--db", str(db))
    assert result.returncode == 0, result.stderr
    assert "records: 0 read" in result.stdout and "2 unreadable" in result.stdout
    assert count(db, "SELECT count(*) FROM games") == 0
    assert count(db, "SELECT count(*) FROM sources WHERE error LIKE 'not a known format%'") == 2


def test_a_source_not_read_beside_games_makes_read_exit_1(tmp_path: Path) -> None:
    result = run_xqdb("read", str(NOT_GAMES), str(DATA / "binary" / "test1_move.txt"))
    assert result.returncode == 1
    assert result.stdout.startswith("1 record read and replayed from 3 sources")
    assert "valid: 100.00% of records" in result.stdout


@pytest.mark.parametrize("text", [
    "一、单兵和单炮类\n棋战中，如果说一往无前富有牺牲精神的兵是成杀花样最少的冠军。\n",
    "2004-12-29 148 150 152 154 156\n",
    "README\nThese games were collected in 1998.\n",
    "1. 炮二平五 马８进７ 2. 马二进三 马８进７\n",  # the fourth move is no legal move
    "1. Introduction\n2. The games\n",
])
def test_text_that_only_looks_like_moves_is_not_a_move_list(tmp_path: Path, text: str) -> None:
    path = tmp_path / "notes.txt"
    path.write_text(text, encoding="gbk")
    [record] = read_paths([str(path)])
    assert is_source_failure(record) and record.error.startswith("not a known format")


@pytest.mark.parametrize("text, notation", [
    ("炮二平五 马８进７ 马二进三 车９平８\n", "chinese"),
    ("C2.5 h8+7 H2+3 r9.8", "wxf"),
    ("h2e2h9g7h0g2i9h9", "uci"),
    ("7747 7062 7967 8070", "dhtmlxq"),
    # A FEN first is evidence enough: what follows is that game's moves, good or bad.
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w\n这不是一步棋\n", "chinese"),
])
def test_a_file_whose_first_moves_are_legal_is_a_move_list(tmp_path: Path, text: str,
                                                           notation: str) -> None:
    path = tmp_path / "game.txt"
    path.write_text(text, encoding="utf-8")
    assert sniff_format(path.read_bytes(), path.name) == "movelist"
    [record] = read_paths([str(path)])
    assert record.notation == notation


def test_the_first_moves_are_checked_from_the_fen_the_file_gives() -> None:
    fen = "9/3k5/4c4/4N4/9/6R2/9/5p3/4r4/5K3 w"
    assert opens_legally(["g4g8", "d8d9"], fen) and not opens_legally(["h2e2"], fen)


def test_every_real_move_list_of_the_corpus_samples_is_still_read() -> None:
    records = [r for r in read_paths([str(DATA / "binary")]) if r.format == "movelist"]
    assert sorted(len(replay(r).moves) for r in records) == [5, 43, 110]
    assert all(replay(r).is_valid for r in records)


def test_numbered_moves_with_no_tags_are_a_pgn_game(tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    path.write_text("1. 炮二平五 马８进７ 2. 马二进三 车９平８\n", encoding="utf-8")
    [record] = read_paths([str(path)])
    assert record.format == "pgn" and len(replay(record).moves) == 4


@pytest.mark.parametrize("name, head, kind", [
    ("games.rar", b"Rar!\x1a\x07\x01\x00", "a RAR archive"),
    ("games.bin", b"7z\xbc\xaf\x27\x1c\x00\x04", "a 7z archive"),
])
def test_an_archive_xqdb_cannot_open_says_what_it_is_and_how_to_read_it(
        tmp_path: Path, name: str, head: bytes, kind: str) -> None:
    # No real RAR file is at hand: these carry the formats' magic numbers, then the bytes
    # of a game, which must not be read as one.
    path = tmp_path / name
    path.write_bytes(head + b"\n1. h2e2 h9g7 2. h0g2 i9h9\n" * 50)
    result = invoke_xqdb("read", str(path))
    assert result.returncode == 3
    assert (f"{path}: {kind}, which xqdb does not open (it opens zip and tar): extract it "
            "(unrar x, 7z x or bsdtar -xf) and read the folder") in result.stdout
    db = tmp_path / "g.duckdb"
    summary = import_paths([str(path)], db, jobs=1)
    assert summary.records == 0 and len(summary.failed_sources) == 1
    assert count(db, f"SELECT count(*) FROM sources WHERE error LIKE '{kind}, which%'") == 1
