"""Chinese and WXF notation on hand-checked positions, the public Position API, and WXF
against Fairy-Stockfish (pyffish) as an independent writer.

Every expected move below was worked out on a board from the FEN, not produced by the code.
"""

from __future__ import annotations

import pyffish
import pytest

from positions import oracle_positions
from xqdb import Move, NotationError, Position
from xqdb.notation import AmbiguousMoveError, read_move, write_move
from xqdb.notation.coordinates import write_uci10
from xqdb import rules

START = Position().fen()
AFTER_C2_5 = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b"
#: Red chariots h0 and h5 on file 二.
CHARIOTS = "4k4/9/9/9/7R1/9/9/9/9/3K3R1 w"
#: Red pawns e5, e6, e7 on file 五.
THREE_PAWNS = "3k5/9/4P4/4P4/4P4/9/9/9/9/5K3 w"
#: Red pawns d6..d9 and d5..d9 on file 六.
FOUR_PAWNS = "3P1k3/3P5/3P5/3P5/9/9/9/9/9/4K4 w"
FIVE_PAWNS = "3P1k3/3P5/3P5/3P5/3P5/9/9/9/9/4K4 w"
#: Red pawns doubled on files 三 (g5, g6) and 七 (c5, c6).
TWO_FILES = "4k4/9/9/2P3P2/2P3P2/9/9/9/9/3K5 w"
#: Black pawns doubled on files 3 (c3, c4) and 7 (g3, g4); Black's front is the lower rank.
TWO_FILES_BLACK = "4k4/9/9/9/9/2p3p2/2p3p2/9/9/3K5 b"
#: Red pawns e5, e6, e7 (file 五) and c5, c6 (file 七): xqbase numbers all five together.
THREE_AND_TWO = "3k5/9/4P4/2P1P4/2P1P4/9/9/9/9/5K3 w"
#: Red elephants c0 and c4 on file 七.
ELEPHANTS = "3k5/9/9/9/9/2B6/9/9/9/2B1K4 w"

#: (FEN, text, notation, expected move, loose)
READS = [
    # Glyph variants and numeral sets, Red.
    (START, "炮二平五", "chinese", "h2e2", False),
    (START, "砲二平五", "chinese", "h2e2", False),
    (START, "包二平五", "chinese", "h2e2", False),
    (START, "炮2平5", "chinese", "h2e2", False),
    (START, "炮２平５", "chinese", "h2e2", False),
    (START, "马二进三", "chinese", "h0g2", False),
    (START, "馬二進三", "chinese-traditional", "h0g2", False),
    (START, "傌二進三", "chinese", "h0g2", False),
    (START, "马二上三", "chinese", "h0g2", False),
    (START, "车一进一", "chinese", "i0i1", False),
    (START, "車一進一", "chinese", "i0i1", False),
    (START, "俥一進一", "chinese", "i0i1", False),
    (START, "硨一進一", "chinese", "i0i1", False),
    (START, "相三进五", "chinese", "g0e2", False),
    (START, "象三进五", "chinese", "g0e2", False),
    (START, "仕四进五", "chinese", "f0e1", False),
    (START, "士四进五", "chinese", "f0e1", False),
    (START, "帅五进一", "chinese", "e0e1", False),
    (START, "帥五進一", "chinese", "e0e1", False),
    (START, "將五進一", "chinese", "e0e1", False),
    (START, "兵三进一", "chinese", "g3g4", False),
    (START, " 兵七进一\u3000", "chinese", "c3c4", False),
    # Black: ASCII, full-width and Chinese numerals all count from Black's right (file a).
    (AFTER_C2_5, "马８进７", "chinese", "h9g7", False),
    (AFTER_C2_5, "马8进7", "chinese", "h9g7", False),
    (AFTER_C2_5, "馬八進七", "chinese", "h9g7", False),
    (AFTER_C2_5, "炮８平５", "chinese", "h7e7", False),
    (AFTER_C2_5, "卒７进１", "chinese", "g6g5", False),
    (AFTER_C2_5, "车９进１", "chinese", "i9i8", False),
    (AFTER_C2_5, "将５进１", "chinese", "e9e8", False),
    (AFTER_C2_5, "士４进５", "chinese", "d9e8", False),
    (AFTER_C2_5, "象３进５", "chinese", "c9e7", False),
    # WXF: official, '=', B/N, lower case, full width, no operator.
    (START, "C2.5", "wxf", "h2e2", False),
    (START, "C2=5", "wxf", "h2e2", False),
    (START, "c2=5", "wxf", "h2e2", False),
    (START, "Ｃ２＝５", "wxf", "h2e2", False),
    (START, "C25", "wxf", "h2e2", False),
    (START, "H2+3", "wxf", "h0g2", False),
    (START, "N2+3", "wxf", "h0g2", False),
    (START, "E3+5", "wxf", "g0e2", False),
    (START, "B3+5", "wxf", "g0e2", False),
    (START, "A4+5", "wxf", "f0e1", False),
    (START, "K5+1", "wxf", "e0e1", False),
    (START, "R1+1", "wxf", "i0i1", False),
    (START, "P3+1", "wxf", "g3g4", False),
    (AFTER_C2_5, "H8+7", "wxf", "h9g7", False),
    (AFTER_C2_5, "Ｈ８＋７", "wxf", "h9g7", False),
    # Two chariots on one file.
    (CHARIOTS, "前车进一", "chinese", "h5h6", False),
    (CHARIOTS, "后车进一", "chinese", "h0h1", False),
    (CHARIOTS, "後車進一", "chinese", "h0h1", False),
    (CHARIOTS, "车二退一", "chinese", "h5h4", True),  # the rear chariot cannot go back
    (CHARIOTS, "R+.5", "wxf", "h5e5", False),
    (CHARIOTS, "R-.5", "wxf", "h0e0", False),
    (CHARIOTS, "+R.5", "wxf", "h5e5", False),
    (CHARIOTS, "-R=5", "wxf", "h0e0", False),
    (CHARIOTS, "R2-1", "wxf", "h5h4", True),
    # Three pawns on a file: 前/中/后, xqbase 一二三, WXF +, file digit (the middle), -.
    (THREE_PAWNS, "前兵平四", "chinese", "e7f7", False),
    (THREE_PAWNS, "中兵平四", "chinese", "e6f6", False),
    (THREE_PAWNS, "后兵平四", "chinese", "e5f5", False),
    (THREE_PAWNS, "一兵平四", "chinese", "e7f7", False),
    (THREE_PAWNS, "二兵平四", "chinese", "e6f6", False),
    (THREE_PAWNS, "三兵平四", "chinese", "e5f5", False),
    (THREE_PAWNS, "兵五进一", "chinese", "e7e8", True),  # the other two are blocked
    (THREE_PAWNS, "P+.4", "wxf", "e7f7", False),
    (THREE_PAWNS, "P5.4", "wxf", "e6f6", False),
    (THREE_PAWNS, "P-.4", "wxf", "e5f5", False),
    (THREE_PAWNS, "+P.4", "wxf", "e7f7", False),
    (THREE_PAWNS, "P5+1", "wxf", "e7e8", True),  # the middle one is blocked
    # Four and five pawns on a file.
    (FOUR_PAWNS, "前兵平七", "chinese", "d9c9", False),
    (FOUR_PAWNS, "二兵平七", "chinese", "d8c8", False),
    (FOUR_PAWNS, "三兵平七", "chinese", "d7c7", False),
    (FOUR_PAWNS, "四兵平七", "chinese", "d6c6", False),
    (FOUR_PAWNS, "后兵平七", "chinese", "d6c6", False),
    (FOUR_PAWNS, "一兵平七", "chinese", "d9c9", False),
    (FOUR_PAWNS, "++.7", "wxf", "d9c9", False),
    (FOUR_PAWNS, "P+.7", "wxf", "d8c8", False),
    (FOUR_PAWNS, "P-.7", "wxf", "d7c7", False),
    (FOUR_PAWNS, "--.7", "wxf", "d6c6", False),
    (FIVE_PAWNS, "前兵平五", "chinese", "d9e9", False),
    (FIVE_PAWNS, "中兵平五", "chinese", "d7e7", False),
    (FIVE_PAWNS, "五兵平五", "chinese", "d5e5", False),
    (FIVE_PAWNS, "后兵平五", "chinese", "d5e5", False),
    (FIVE_PAWNS, "++.5", "wxf", "d9e9", False),
    (FIVE_PAWNS, "P+.5", "wxf", "d8e8", False),
    (FIVE_PAWNS, "P6.5", "wxf", "d7e7", False),
    (FIVE_PAWNS, "P-.5", "wxf", "d6e6", False),
    (FIVE_PAWNS, "--.5", "wxf", "d5e5", False),
    (FIVE_PAWNS, "Pa.5", "wxf", "d9e9", False),
    (FIVE_PAWNS, "Pe.5", "wxf", "d5e5", False),
    # Pawns doubled on two files: 前兵三平四 / 前三平四, xqbase numbering across files, WXF 3+.
    (TWO_FILES, "前兵三平四", "chinese", "g6f6", False),
    (TWO_FILES, "前三平四", "chinese", "g6f6", False),
    (TWO_FILES, "后三平四", "chinese", "g5f5", False),
    (TWO_FILES, "前七平六", "chinese", "c6d6", False),
    (TWO_FILES, "后兵七平八", "chinese", "c5b5", False),
    (TWO_FILES, "一兵平四", "chinese", "g6f6", False),
    (TWO_FILES, "二兵平四", "chinese", "g5f5", False),
    (TWO_FILES, "三兵平六", "chinese", "c6d6", False),
    (TWO_FILES, "四兵平八", "chinese", "c5b5", False),
    (TWO_FILES, "前兵平六", "chinese", "c6d6", True),  # only g6 or c6 can be "前兵"; g6 cannot
    (TWO_FILES, "3+.4", "wxf", "g6f6", False),
    (TWO_FILES, "3-.4", "wxf", "g5f5", False),
    (TWO_FILES, "7+.6", "wxf", "c6d6", False),
    (TWO_FILES, "P+.6", "wxf", "c6d6", True),
    (TWO_FILES_BLACK, "二7平6", "chinese", "g4f4", False),
    (TWO_FILES_BLACK, "前7平6", "chinese", "g3f3", False),
    (TWO_FILES_BLACK, "后３平４", "chinese", "c4d4", False),
    (TWO_FILES_BLACK, "7+.6", "wxf", "g3f3", False),
    (THREE_AND_TWO, "中五平四", "chinese", "e6f6", False),
    (THREE_AND_TWO, "55.4", "wxf", "e6f6", False),
    (THREE_AND_TWO, "四兵平六", "chinese", "c6d6", False),  # e7 e6 e5 c6 c5, right to left
    # Elephants sharing a file keep the file number: the direction tells them apart.
    (ELEPHANTS, "相七进五", "chinese", "c0e2", False),
    (ELEPHANTS, "相七退五", "chinese", "c4e2", False),
    (ELEPHANTS, "相七退九", "chinese", "c4a2", False),
    (ELEPHANTS, "E7+9", "wxf", "c0a2", False),
    # Coordinates.
    (START, "H2-E2", "iccs", "h2e2", False),
    (START, "h2e2", "uci", "h2e2", False),
    (START, "h3e3", "uci10", "h2e2", False),
    (START, "h1g3", "uci10", "h0g2", False),
    (START, "7747", "dhtmlxq", "h2e2", False),
]

@pytest.mark.parametrize(("fen", "text", "notation", "expected", "loose"), READS)
def test_read(fen: str, text: str, notation: str, expected: str, loose: bool) -> None:
    pos = Position.from_fen(fen)
    assert read_move(pos, text, notation) == (Move.from_uci(expected), loose)
    # "auto" sniffs the same notation from the text alone (ranks 1-10 excepted: h3e3 is
    # also a valid ranks-0-9 move, so uci10 must be named).
    if notation != "uci10":
        assert read_move(pos, text, "auto") == (Move.from_uci(expected), loose)


#: (FEN, move, chinese, traditional, wxf): what the writers must produce.
WRITES = [
    (START, "h2e2", "炮二平五", "炮二平五", "C2.5"),
    (START, "b0c2", "马八进七", "馬八進七", "H8+7"),
    (START, "i0i1", "车一进一", "車一進一", "R1+1"),
    (AFTER_C2_5, "h9g7", "马８进７", "馬８進７", "H8+7"),
    (AFTER_C2_5, "c9e7", "象３进５", "象３進５", "E3+5"),
    (AFTER_C2_5, "e9e8", "将５进１", "將５進１", "K5+1"),
    (CHARIOTS, "h5h6", "前车进一", "前車進一", "R++1"),
    (CHARIOTS, "h0e0", "后车平五", "後車平五", "R-.5"),
    (THREE_PAWNS, "e6f6", "中兵平四", "中兵平四", "P5.4"),
    (THREE_PAWNS, "e5f5", "后兵平四", "後兵平四", "P-.4"),
    (FOUR_PAWNS, "d8c8", "二兵平七", "二兵平七", "P+.7"),
    (FOUR_PAWNS, "d6c6", "四兵平七", "四兵平七", "--.7"),
    (FIVE_PAWNS, "d9e9", "前兵平五", "前兵平五", "++.5"),
    (FIVE_PAWNS, "d7e7", "三兵平五", "三兵平五", "P6.5"),
    (FIVE_PAWNS, "d5e5", "五兵平五", "五兵平五", "--.5"),
    (TWO_FILES, "g6f6", "前三平四", "前三平四", "3+.4"),
    (TWO_FILES, "c5b5", "后七平八", "後七平八", "7-.8"),
    (TWO_FILES_BLACK, "g4f4", "后７平６", "後７平６", "7-.6"),
    (THREE_AND_TWO, "e6f6", "中五平四", "中五平四", "55.4"),
    (ELEPHANTS, "c4e2", "相七退五", "相七退五", "E7-5"),
]


@pytest.mark.parametrize(("fen", "uci", "chinese", "traditional", "wxf"), WRITES)
def test_write(fen: str, uci: str, chinese: str, traditional: str, wxf: str) -> None:
    pos = Position.from_fen(fen)
    move = Move.from_uci(uci)
    assert pos.move_text(move, "chinese") == chinese
    assert pos.move_text(move, "chinese-traditional") == traditional
    assert pos.move_text(move, "wxf") == wxf


@pytest.mark.parametrize("fen", [CHARIOTS, THREE_PAWNS, FOUR_PAWNS, FIVE_PAWNS, TWO_FILES,
                                 TWO_FILES_BLACK, THREE_AND_TWO, ELEPHANTS])
def test_tandem_positions_round_trip(fen: str) -> None:
    """The crafted positions hold the tandem cases real games rarely reach (4-5 pawns)."""
    pos = Position.from_fen(fen)
    for move in pos.legal_moves():
        for notation in ("chinese", "chinese-traditional", "wxf"):
            text = write_move(pos, move, notation)
            assert read_move(pos, text, notation) == (move, False), (fen, str(move), text)


#: (FEN, text, notation, words the error must contain)
ERRORS = [
    (START, "马二进四", "chinese", ["马二进四", "h0", "f1"]),
    (START, "车二进三", "chinese", ["车二进三", "no red chariot on file 2"]),
    (START, "前马进三", "chinese", ["前马进三", "no two red horses"]),
    (START, "中兵进一", "chinese", ["中兵进一", "no two red pawns"]),
    (START, "前九平八", "chinese", ["前九平八", "front"]),
    (START, "炮二平", "chinese", ["炮二平", "not a Chinese move"]),
    (START, "兵三进二", "chinese", ["兵三进二", "g3", "g5"]),
    (START, "X2.5", "wxf", ["X2.5", "not a WXF move"]),
    (START, "C2.5", "chinese", ["C2.5", "not a Chinese move"]),
    (AFTER_C2_5, "炮３平５", "chinese", ["炮３平５", "no black cannon on file 3"]),
    (CHARIOTS, "车二进一", "chinese", ["车二进一", "ambiguous", "h0", "h5"]),
    (CHARIOTS, "R2.5", "wxf", ["R2.5", "ambiguous", "h0", "h5"]),
    (THREE_PAWNS, "兵五平四", "chinese", ["兵五平四", "ambiguous", "e5", "e6", "e7"]),
    (FOUR_PAWNS, "中兵平七", "chinese", ["中兵平七", "middle"]),
    (TWO_FILES, "前兵进一", "chinese", ["前兵进一", "ambiguous", "g6", "c6"]),
    (TWO_FILES, "后兵进一", "chinese", ["后兵进一", "g5", "c5"]),
    # The cannon on e1 screens the kings: moving it would let them face each other.
    ("4k4/9/9/9/9/9/9/9/4C4/4K4 w", "炮五平四", "chinese", ["炮五平四", "kings facing"]),
]


@pytest.mark.parametrize(("fen", "text", "notation", "words"), ERRORS)
def test_errors_name_the_text_and_why(fen: str, text: str, notation: str, words: list[str]) -> None:
    with pytest.raises(NotationError) as info:
        read_move(Position.from_fen(fen), text, notation)
    for word in words:
        assert word in str(info.value)


def test_ambiguity_has_its_own_error_type() -> None:
    with pytest.raises(AmbiguousMoveError):
        read_move(Position.from_fen(CHARIOTS), "车二进一", "chinese")


def test_public_position_api() -> None:
    pos = Position()
    assert isinstance(pos, rules.BasePosition)
    assert pos.fen() == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    assert len(pos.legal_moves()) == 44
    move = pos.parse_move("炮二平五")
    assert move == Move.from_uci("h2e2") and str(move) == "h2e2"
    assert [pos.move_text(move, n) for n in ("chinese", "chinese-traditional", "wxf", "iccs",
                                             "uci", "uci10", "dhtmlxq")] == \
        ["炮二平五", "炮二平五", "C2.5", "H2-E2", "h2e2", "h3e3", "7747"]
    start_key = pos.zobrist()
    pos.push(move)
    assert pos.zobrist() != start_key
    assert pos.parse_move("H8+7") == pos.parse_move("h9g7") == pos.parse_move("马８进７")
    pos.push(pos.parse_move("马８进７"))
    assert pos.fen() == "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2"
    pos.pop()
    pos.pop()
    assert pos.zobrist() == start_key
    assert Position.from_fen(CHARIOTS).read_move("车二退一") == (Move.from_uci("h5h4"), True)
    # Coordinate texts are checked for legality too.
    with pytest.raises(NotationError, match="h2h8.*cannot move"):
        Position().parse_move("h2h8")
    with pytest.raises(NotationError):
        Position().parse_move("h3e3", "uci")
    moved = Position()
    assert moved.push_text("C2.5") == Move.from_uci("h2e2") and moved.turn == -1
    assert type(moved.copy()) is Position


@pytest.mark.slow
@pytest.mark.usefixtures("shared_data")
def test_wxf_agrees_with_fairy_stockfish() -> None:
    """pyffish writes WXF (with '=' for sideways) but does not tell tandem pieces apart, so
    it is the oracle for every move whose piece stands alone on its file."""
    compared = 0
    for fen in oracle_positions()[::45]:
        pos = Position.from_fen(fen)
        for move in pos.legal_moves():
            ours = pos.move_text(move, "wxf")
            if not ours[1].isdigit() or not ours[0].isalpha():
                continue
            theirs = pyffish.get_san("xiangqi", fen, write_uci10(move), False,
                                     pyffish.NOTATION_XIANGQI_WXF)
            assert ours.replace(".", "=") == theirs, (fen, str(move))
            compared += 1
    assert compared > 3000
