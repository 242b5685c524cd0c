"""DhtmlXQ: the dpxq opening book (a collection of games as branches) and a game embedded
in an HTML page."""

from __future__ import annotations

import re
from pathlib import Path

import pyffish
import pytest

from datafiles import SAMPLE_GAMES
from xqdb.formats import dhtmlxq, read_paths
from xqdb.formats.record import Origin
from xqdb.notation.coordinates import parse_dhtmlxq
from xqdb.replay import replay
from xqdb.rules.position import STARTING_FEN

HTML = SAMPLE_GAMES / "wxf-championship-1997.html"


@pytest.fixture(scope="module")
def book_path(shared_data: Path) -> Path:
    """The opening book of the corpus: 1,446 branches in one DhtmlXQ block."""
    return shared_data / "dhtmlxq" / "dhtmlxq.txt"


@pytest.fixture(scope="module")
def book(book_path: Path):
    return list(read_paths([str(book_path)]))


def _branch_tags(text: str) -> dict[int, tuple[int, int, list[str]]]:
    """branch -> (parent, fork ply, moves), read straight from the file with a regex."""
    found = {}
    for m in re.finditer(r"\[DhtmlXQ_move_(\d+)_(\d+)_(\d+)\](\d*)\[/DhtmlXQ_move", text):
        moves = [m[4][i:i + 4] for i in range(0, len(m[4]), 4)]
        found[int(m[3])] = (int(m[1]), int(m[2]), moves)
    return found


def test_the_book_yields_one_record_per_branch_each_a_whole_line(book, book_path):
    text = book_path.read_text(encoding="utf-8-sig")
    branches = _branch_tags(text)
    assert len(branches) == 1446
    assert len(book) == 1 + 1446
    assert all(r.format == "dhtmlxq" and r.notation == "dhtmlxq" and r.encoding == "utf-8"
               for r in book)
    assert [r.origin.index for r in book] == list(range(1447))
    by_branch = {int(r.tags.get("Branch", 0)): r for r in book}
    assert set(by_branch) == set(range(1447))
    # The block is kept once, as the main line's raw text; each branch keeps its own tags.
    assert by_branch[0].raw == text.strip()
    assert "[DhtmlXQ_move_0_7_1]6947815166656465" in by_branch[1].raw
    assert "[DhtmlXQ_comment1_44]和[/DhtmlXQ_comment1_44]" in by_branch[1].raw
    assert sum(len(r.raw) for r in book) < 2 * len(text)
    main = re.search(r"\[DhtmlXQ_movelist\](\d+)", text)[1]
    assert by_branch[0].moves == [main[i:i + 4] for i in range(0, len(main), 4)]
    # Each branch's line is its parent's line up to the fork, then the branch's moves.
    for branch, (parent, ply, moves) in branches.items():
        line = by_branch[branch].moves
        assert line[:ply - 1] == by_branch[parent].moves[:ply - 1], branch
        assert line[ply - 1:] == moves, branch


def test_book_tags_fen_and_comments(book):
    first = book[0]
    assert first.tags["Title"] == "仙人指路全集（史上最全最新版）"
    assert first.tags["Annotator"] == "东方剑客"
    assert first.result == "*"  # 未知
    assert first.fen == STARTING_FEN  # from binit
    assert first.mainline.comments[0].startswith("本文介绍20世纪90年代")
    assert "\n" in first.mainline.comments[0]  # || is a line break
    # comment1_44 (和, a draw) sits after ply 44 of branch 1's line.
    branch1 = next(r for r in book if r.tags.get("Branch") == "1")
    assert branch1.mainline.comments[44] == "和"


def test_book_lines_replay_and_the_one_failure_is_the_files_fault(book):
    games = [replay(r) for r in book]
    failures = [g for g in games if not g.is_valid]
    assert len(failures) == 1
    bad = failures[0]
    assert bad.record.tags["Branch"] == "1194" and bad.error_ply == 65
    assert bad.error_text == "4765" and "would leave red's king in check" in bad.error
    # Fairy-Stockfish agrees: the move is not legal after the 64 moves before it.
    played = [_ffish(parse_dhtmlxq(m)) for m in bad.record.moves[:64]]
    for i, move in enumerate(played):
        assert move in pyffish.legal_moves("xiangqi", STARTING_FEN, played[:i])
    assert _ffish(parse_dhtmlxq("4765")) not in pyffish.legal_moves("xiangqi", STARTING_FEN, played)
    assert sum(g.plies for g in games) > 1446 * 60


def _ffish(move) -> str:
    text = str(move)
    return f"{text[0]}{int(text[1]) + 1}{text[2]}{int(text[3]) + 1}"


def test_the_html_page_yields_its_game():
    records = list(read_paths([str(HTML)]))
    assert len(records) == 1
    record = records[0]
    assert record.format == "dhtmlxq"
    assert record.tags["Red"] == "DING Wa Chong" and record.tags["Black"] == "SCHAEFER Nobert"
    assert record.tags["RedTeam"] == "Holland" and record.tags["Event"] == \
        "World Xiangqi Championships"
    assert record.result == "1-0"  # W: the title marks Red "(W)"
    assert "(W)" in record.tags["Title"].split("Germany")[0]
    assert record.origin.line == 17
    game = replay(record)
    assert game.is_valid and game.plies == 85
    assert game.uci[:2] == ["g0e2", "h7f7"]


def test_variations_of_one_game_stay_in_one_record():
    block = ("[DhtmlXQ][DhtmlXQ_result]红胜[/DhtmlXQ_result]"
             "[DhtmlXQ_movelist]774770627967[/DhtmlXQ_movelist]"
             "[DhtmlXQ_move_0_2_1]10228979[/DhtmlXQ_move_0_2_1]"
             "[DhtmlXQ_move_1_3_2]1917[/DhtmlXQ_move_1_3_2]"
             "[DhtmlXQ_comment1_2]屏风马[/DhtmlXQ_comment1_2]"
             "[DhtmlXQ_comment3]\\u597d[/DhtmlXQ_comment3][/DhtmlXQ]")
    records = list(dhtmlxq.parse_block(block, Origin("x.txt")))
    assert len(records) == 1
    line = records[0].mainline
    assert line.moves == ["7747", "7062", "7967"]
    assert line.comments == {3: "好"}
    (index, first), = line.variations
    assert index == 1 and first.moves == ["1022", "8979"] and first.comments == {1: "屏风马"}
    (index2, second), = first.variations
    assert index2 == 1 and second.moves == ["1917"]
    assert records[0].result == "1-0"
    assert replay(records[0]).uci == ["h2e2", "h9g7", "h0g2"]


@pytest.mark.parametrize("word, result", [("红胜", "1-0"), ("紅勝", "1-0"), ("黑胜", "0-1"),
                                          ("和局", "1/2-1/2"), ("未知", "*")])
def test_chinese_result_words(word, result):
    block = f"[DhtmlXQ_result]{word}[/DhtmlXQ_result][DhtmlXQ_movelist]7747[/DhtmlXQ_movelist]"
    record, = dhtmlxq.parse_block(block, Origin("x"))
    assert record.result == result


def test_binit_gives_a_fen_with_the_side_to_move_from_the_first_move():
    # A rook ending: red king e0, rook a4; black king d9, black to move first.
    slots = ["99"] * 32
    slots[0], slots[4], slots[20] = "05", "49", "30"  # red rook a4, red king e0, black king d9
    binit = "".join(slots)
    block = (f"[DhtmlXQ_binit]{binit}[/DhtmlXQ_binit]"
             "[DhtmlXQ_movelist]3031[/DhtmlXQ_movelist]")
    record, = dhtmlxq.parse_block(block, Origin("x"))
    assert record.fen == "3k5/9/9/9/9/R8/9/9/9/4K4 b - - 0 1"
    assert replay(record).uci == ["d9d8"]


def test_broken_movelists_are_record_errors():
    block = "[DhtmlXQ_movelist]77477[/DhtmlXQ_movelist][DhtmlXQ_binit]12[/DhtmlXQ_binit]"
    record, = dhtmlxq.parse_block(block, Origin("x"))
    assert record.is_error
    assert "5 digits is not a whole number of 4-digit moves" in record.error
    assert "binit" in record.error


def test_an_unclosed_move_tag_is_named_not_silently_dropped(book_path):
    text = book_path.read_text(encoding="utf-8-sig").replace("[/DhtmlXQ_move_0_7_1]", "[/Dhtml")
    record, = dhtmlxq.parse_block(text, Origin("book.txt"))
    assert record.error == ("1 move tags are never closed (moves lost), the first "
                            "[DhtmlXQ_move_0_7_1]")
    assert replay(record).error == record.error
