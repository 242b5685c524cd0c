"""The XQF reader on the real samples: versions 10 to 18, the encryption, comments, the
variation tree, the side-to-move fix and the deliberately broken files.

Oracles: the rules core replays every line of every tree; Fairy-Stockfish (pyffish)
replays the main lines; two files are the same game in version 18 (encrypted) and
version 10 (plain); two files come with their moves as Chinese text and a FEN.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
import time

import pytest

from binary_samples import BINARY, ffish_rejects, read_bytes, read_file, walk
from xqdb.formats import xqf
from xqdb.formats.record import Origin
from xqdb.notation import read_move
from xqdb import Move, Position
from xqdb.rules import CANNON, PAWN

#: name: (version, main-line moves, variations, moves over the whole tree, result)
GOOD = {
    "030-黄松轩先胜冯敬如.XQF": (18, 37, 1, 41, "1-0"),
    "BadMoveTest1.xqf": (10, 43, 0, 43, "1-0"),
    "BadMoveTest2.xqf": (12, 35, 1, 39, "1-0"),
    "BadMoveTest4.xqf": (18, 9, 3, 17, "1-0"),
    "FiveGoatsTest.xqf": (18, 77, 348, 32124, "*"),
    "UnitTest.xqf": (18, 5, 2, 19, "1/2-1/2"),
    "game_test.xqf": (18, 58, 0, 58, "*"),
    "game_varations.xqf": (18, 8, 5, 24, "*"),
    "pawn_move.xqf": (18, 14, 0, 14, "*"),
    "save.xqf": (18, 2, 0, 2, "*"),
    "test.xqf": (18, 110, 0, 110, "0-1"),
    "test1.xqf": (10, 110, 0, 110, "0-1"),
    "test2.xqf": (18, 12, 0, 12, "*"),
    "test_5_variations.xqf": (18, 6, 4, 24, "*"),
    "ucci_test1.xqf": (16, 43, 0, 43, "1-0"),
    "ucci_test2.xqf": (16, 7, 4, 33, "1-0"),
    "ucci_test3.xqf": (16, 3, 1, 5, "1-0"),
}


def one(name: str):
    records = read_file(xqf, name)
    assert len(records) == 1
    return records[0]


def test_every_xqf_sample_is_covered() -> None:
    on_disk = {p.name for p in BINARY.iterdir() if p.suffix.lower() == ".xqf"}
    broken = {"BadMoveTest3.xqf", "EmptyTest.xqf", "NoMove.xqf", "WildHouse.xqf"}
    assert on_disk == set(GOOD) | broken


@pytest.mark.parametrize("name", sorted(GOOD))
def test_good_samples_decode_to_legal_trees(name: str) -> None:
    version, main, variations, tree_moves, result = GOOD[name]
    assert (BINARY / name).read_bytes()[2] == version
    record = one(name)
    assert record.error is None
    assert record.notation == "uci" and record.format == "xqf"
    assert record.raw == (BINARY / name).read_bytes()  # stored as the game's raw record
    assert len(record.moves) == main
    assert record.mainline.count_variations() == variations
    assert record.result == result and record.tags["Result"] == result
    found = walk(record)
    assert found.illegal == []
    assert found.moves == tree_moves


def test_all_versions_in_the_samples_are_read() -> None:
    versions = {(BINARY / name).read_bytes()[2] for name in GOOD}
    assert versions == {10, 12, 16, 18}


@pytest.mark.parametrize("name", sorted(GOOD))
def test_main_lines_are_legal_for_fairy_stockfish(name: str) -> None:
    assert ffish_rejects(one(name)) is None


def test_version_12_needs_the_piece_slot_rotation() -> None:
    # The docs disagree on whether the slots rotate from version 11 or 12; the only
    # version-12 file settles it for 12: with the rotation it is the standard start and
    # every move is legal, without it the first move has no piece to move.
    data = (BINARY / "BadMoveTest2.xqf").read_bytes()
    header = data[:xqf.HEADER_SIZE]
    keys = xqf.header_keys(header)
    assert keys.rotate
    rotated, _ = xqf.header_board(header, keys)
    assert rotated == Position().board
    plain, _ = xqf.header_board(header, dataclasses.replace(keys, rotate=False))
    first = Move.from_uci(one("BadMoveTest2.xqf").moves[0])
    assert rotated[first.from_square] == CANNON  # Red opens with the h2 cannon
    assert plain[first.from_square] == -PAWN


def test_encrypted_version_18_and_plain_version_10_of_one_game_agree() -> None:
    encrypted, plain = one("test.xqf"), one("test1.xqf")
    assert encrypted.moves == plain.moves
    last = len(plain.moves)
    assert {k: v for k, v in encrypted.mainline.comments.items() if k != last} == \
        {k: v for k, v in plain.mainline.comments.items() if k != last}
    # The version-10 copy went through a converter that appended its advertisement.
    assert plain.mainline.comments[last].startswith(encrypted.mainline.comments[last])
    assert plain.mainline.comments[last].endswith("http://www.elephantbase.net/")
    assert (encrypted.tags["Red"], encrypted.tags["Black"]) == ("柳大华", "吕  钦")
    assert plain.tags["Date"] == encrypted.tags["Date"] == "1997年11月16日"


def _chinese_twin(name: str) -> tuple[str, list[str]]:
    lines = (BINARY / name).read_text(encoding="utf-8").split("\n")
    fen, *moves = [line.strip() for line in lines if line.strip()]
    return fen, moves


@pytest.mark.parametrize("xqf_name, text_name", [("test1.xqf", "test1_move.txt"),
                                                ("ucci_test1.xqf", "ucci_test1_move.txt")])
def test_moves_match_the_chinese_text_of_the_same_game(xqf_name: str, text_name: str) -> None:
    record = one(xqf_name)
    fen, texts = _chinese_twin(text_name)
    assert texts[-1] == {"1-0": "红胜", "0-1": "黑胜"}[record.result]
    pos = Position.from_fen(fen)
    assert (record.fen or Position().fen()).split()[:2] == pos.fen().split()[:2]
    expected = []
    for text in texts[:-1]:
        move, _ = read_move(pos, text, "chinese")
        expected.append(str(move))
        pos.push(move)
    assert record.moves == expected


def test_tags_and_comments_come_out_in_gbk() -> None:
    record = one("UnitTest.xqf")
    assert record.tags == {
        "Title": "标题", "Event": "比赛名称", "Date": "比赛日期", "Site": "比赛地点",
        "Red": "红方棋手", "Black": "黑方棋手", "TimeControl": "用时规则",
        "RedTime": "红方用时", "BlackTime": "黑方用时", "Annotator": "棋谱讲评",
        "Creator": "文件作者", "Result": "1/2-1/2",
    }
    assert record.mainline.comments[0] == "棋局注解"
    assert record.mainline.comments[1] == "第一步红注解"
    assert record.mainline.comments[4] == "第二步黑注解"
    # Two alternatives to the very first move, both kept.
    assert [(i, line.moves[:2]) for i, line in record.mainline.variations] == [
        (0, ["b2e2", "b9c7"]), (0, ["h2d2", "h9g7"])]


def test_a_name_cut_in_the_middle_of_a_character_loses_only_that_character() -> None:
    data = bytearray((BINARY / "test.xqf").read_bytes())
    red = "一二三四五六七八".encode("gbk")  # 16 bytes: the field holds 15
    data[0x130] = 15
    data[0x131:0x140] = red[:15]
    record = read_bytes(xqf, bytes(data))[0]
    assert record.tags["Red"] == "一二三四五六七"


def test_endgame_start_positions() -> None:
    assert one("ucci_test2.xqf").fen == "4ka3/4aR3/4N1C1b/c1p1p4/9/9/2N1P1R2/5C3/r1rp5/5K3 w - - 0 1"
    assert one("pawn_move.xqf").tags["FEN"] == "4k4/9/4P4/3PP1p2/3P5/6p2/4P1p2/6p2/6p2/4K4 w - - 0 1"
    assert one("test.xqf").fen is None and "FEN" not in one("test.xqf").tags


def test_side_to_move_comes_from_the_first_move_not_the_header() -> None:
    # The header says Black (byte 50 = 1) but Red plays first: Red it is.
    data = bytearray((BINARY / "test1.xqf").read_bytes())
    data[50] = 1
    assert read_bytes(xqf, bytes(data))[0].fen is None
    # The header says Red, the only move is a black horse's: Black is to move.
    header = (BINARY / "test1.xqf").read_bytes()[:xqf.HEADER_SIZE]
    root = bytes([24, 32, 0xF0, 0, 0, 0, 0, 0])
    h9g7 = bytes([7 * 10 + 9 + 24, 6 * 10 + 7 + 32, 0, 0, 0, 0, 0, 0])
    record = read_bytes(xqf, header + root + h9g7)[0]
    assert record.moves == ["h9g7"]
    assert record.fen == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1"


def test_a_tournament_held_as_variations_is_fast_and_needs_no_deep_stack() -> None:
    depth = len(inspect.stack())
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 40)
    try:
        started = time.perf_counter()
        record = one("FiveGoatsTest.xqf")
        elapsed = time.perf_counter() - started
    finally:
        sys.setrecursionlimit(limit)
    assert record.tags["Title"] == "“五羊杯”象棋赛(第01届-第21届)"
    assert record.mainline.count_variations() == 348
    assert walk(record).moves == 32124
    assert elapsed < 1.0


# --- The deliberately broken files ----------------------------------------------------


@pytest.mark.parametrize("name", ["EmptyTest.xqf", "NoMove.xqf"])
def test_files_without_moves_are_readable_empty_games(name: str) -> None:
    record = one(name)
    assert record.error is None
    assert record.moves == [] and record.mainline.variations == []
    assert record.fen is None


def test_empty_test_keeps_its_header() -> None:
    record = one("EmptyTest.xqf")
    assert record.tags["Red"] == "雅趣居士(日帅)" and record.tags["Black"] == "甄珍(日帅)"
    assert record.result == "0-1"
    assert one("NoMove.xqf").tags == {"Result": "*"}


def test_bad_move_test_3_is_test_4_with_an_illegal_move_inserted() -> None:
    bad, good = one("BadMoveTest3.xqf"), one("BadMoveTest4.xqf")
    assert bad.error is None  # readable: judging moves is the replay's job
    assert bad.fen == good.fen == "2b6/3ka4/2Pab4/5Np2/9/6P2/9/3A5/4A4/4K4 w - - 0 1"
    assert bad.moves == good.moves + ["e1f0"]
    assert walk(bad).illegal == ["main ply 10 e1f0: there is no piece on e1"]
    assert walk(good).illegal == []


def test_wild_house_has_one_variation_that_plays_on_after_its_end() -> None:
    record = one("WildHouse.xqf")
    assert record.error is None
    found = walk(record)
    assert found.illegal == ["main/41.1/2.2 ply 33 e7f7: there is no piece on e7"]
    # The line's 32nd move already carries the verdict "Red wins".
    branch = [line for i, line in record.mainline.variations if i == 40][0]
    line = [line for i, line in branch.variations if i == 1][1]
    assert line.comments[32] == "红胜。"


# --- Read errors: clear messages, never exceptions ------------------------------------


def test_truncated_header() -> None:
    data = (BINARY / "test.xqf").read_bytes()[:600]
    record = read_bytes(xqf, data)[0]
    assert record.error == "truncated XQF header: 600 bytes, the header has 1024"
    assert record.raw == data


def test_not_an_xqf_file() -> None:
    record = read_bytes(xqf, (BINARY / "test.cbf").read_bytes())[0]
    assert record.error == "not an XQF file: it does not start with 'XQ'"


def test_header_only() -> None:
    data = (BINARY / "test.xqf").read_bytes()[:1024]
    assert read_bytes(xqf, data)[0].error == ("no move data after the header "
                                              "(not even the root record)")


def test_truncated_move_data_keeps_the_moves_read() -> None:
    data = (BINARY / "test2.xqf").read_bytes()
    record = read_bytes(xqf, data[:1024 + 4 + 6 * 4 + 2])[0]
    assert record.error == "the move data ends before move node 7 (truncated after 6 moves)"
    assert record.moves == one("test2.xqf").moves[:6]


def test_comment_longer_than_the_file() -> None:
    data = (BINARY / "test.xqf").read_bytes()
    record = read_bytes(xqf, data[:1024 + 8 + 4])[0]
    assert record.error is not None
    assert record.error.startswith("the root record has a comment of ")
    assert record.error.endswith(" bytes but 4 bytes remain")


def test_square_off_the_board() -> None:
    data = bytearray((BINARY / "test1.xqf").read_bytes())  # version 10: no cipher
    root_comment = int.from_bytes(data[1028:1032], "little")
    first = 1024 + 8 + root_comment
    data[first] = 24 + 95
    record = read_bytes(xqf, bytes(data))[0]
    assert record.error == "move node 1 has a square out of the board (from 95, to 24; squares are 0-89)"


# --- Replay: the main line is the game, variations are checked too ---------------------


def test_replay_judges_the_main_line_and_reports_bad_variations() -> None:
    from xqdb.replay import replay

    bad = replay(one("BadMoveTest3.xqf"))
    assert bad.status == "invalid" and bad.error_ply == 10 and bad.error_text == "e1f0"
    assert "there is no piece on e1" in bad.error
    wild = replay(one("WildHouse.xqf"))
    assert wild.status == "valid" and wild.plies == 65
    assert len(wild.variation_errors) == 1
    assert "e7f7" in wild.variation_errors[0]
    assert "there is no piece on e7" in wild.variation_errors[0]
    five = replay(one("FiveGoatsTest.xqf"))
    assert five.status == "valid" and five.plies == 77 and five.variation_errors == []


def test_two_pieces_on_one_point() -> None:
    data = bytearray((BINARY / "test1.xqf").read_bytes())  # version 10: squares in clear
    data[16 + 1] = data[16]  # the first horse slot gets the first chariot's point
    record = read_bytes(xqf, bytes(data))[0]
    assert record.error == "the header puts two pieces on one point (a0)"
    assert record.raw == bytes(data)


def test_an_unknown_encoding_is_a_record_error() -> None:
    with (BINARY / "test.xqf").open("rb") as stream:
        [record] = xqf.read(stream, Origin("test.xqf"), encoding="no-such-codec")
    assert record.error == "unknown text encoding 'no-such-codec'"


def test_an_explicit_encoding_is_used_for_names() -> None:
    with (BINARY / "test.xqf").open("rb") as stream:
        [record] = xqf.read(stream, Origin("test.xqf"), encoding="big5")
    assert record.encoding == "big5" and record.tags["Red"] != "柳大华"
    assert record.moves == one("test.xqf").moves
