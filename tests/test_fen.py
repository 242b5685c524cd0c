"""FEN in and out: the forms real files use, and positions no game can reach.

pyffish is the independent reader: for every accepted form, our normalised FEN must be
the one Fairy-Stockfish writes for the same text in standard form.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pyffish
import pytest

from datafiles import DATA
from positions import epd_lines, oracle_positions
from xqdb import FenError, Position
from xqdb.rules import BLACK, CANNON, HORSE, RED, STARTING_FEN, parse_fen

START_BOARD = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"


@pytest.mark.parametrize("text, expected", [
    (STARTING_FEN, STARTING_FEN),
    # e/h letters for elephant and horse (the chessprogramming wiki "cheat sheet" form)
    ("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1", STARTING_FEN),
    # side r for Red, b for Black, w for Red
    (f"{START_BOARD} r - - 0 1", STARTING_FEN),
    (f"{START_BOARD} b - - 0 1", f"{START_BOARD} b - - 0 1"),
    (f"{START_BOARD} W - - 0 1", STARTING_FEN),
    # two fields, and the board alone
    (f"{START_BOARD} w", STARTING_FEN),
    (f"{START_BOARD} b", f"{START_BOARD} b - - 0 1"),
    (START_BOARD, STARTING_FEN),
    # the side glued to the board, with and without glued counters
    (f"{START_BOARD}w", STARTING_FEN),
    (f"{START_BOARD}b", f"{START_BOARD} b - - 0 1"),
    (f"{START_BOARD} w--01", STARTING_FEN),
    # missing dashes, kept counters, stray blanks
    (f"{START_BOARD} w 5 12", f"{START_BOARD} w - - 5 12"),
    (f"{START_BOARD} b - - 7 30", f"{START_BOARD} b - - 7 30"),
    (f"  {START_BOARD} w - - 0 1 \r\n", STARTING_FEN),
])
def test_real_file_forms_are_read(text: str, expected: str) -> None:
    assert Position.from_fen(text).fen() == expected


def test_side_to_move_and_pieces_are_placed() -> None:
    pos = Position.from_fen("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR b")
    assert pos.turn == BLACK
    assert pos.piece_at(1) == HORSE * RED            # b0
    assert pos.piece_at(7 * 9 + 1) == CANNON * BLACK  # b7
    board, turn, clock, number = parse_fen(f"{START_BOARD} w - - 3 9")
    assert (turn, clock, number) == (RED, 3, 9)
    assert board == Position().board


@pytest.mark.parametrize("text, message", [
    ("4k4/9/9/9/9/9/9/9/9/3KK4 w", "2 red kings"),
    ("3kk4/9/9/9/9/9/9/9/9/4K4 w", "2 black kings"),
    ("3k5/9/9/9/9/9/9/9/9/K8 w", "red king on a0"),             # outside its palace
    ("3k5/9/9/9/9/9/9/9/4K4/9 w", None),                        # e1 is inside: accepted
    ("9/9/9/4k4/9/9/9/9/9/3K5 w", "black king on e6"),
    ("4k4/9/9/9/2B6/9/9/9/9/4K4 w", "red elephant on c5"),      # across the river
    ("4k4/9/9/9/9/2b6/9/9/9/4K4 w", "black elephant on c4"),
    ("4k4/9/9/9/9/9/4A4/9/9/4K4 w", "red advisor on e3"),
    ("4k4/9/9/9/9/9/9/P8/9/4K4 w", "red pawn on a2"),           # behind its start rank
    ("4k4/9/9/PPPPPPPPP/PPPPPPPP1/9/9/9/9/4K4 w", "17 red pawns"),
    ("RRRk5/9/9/9/9/9/9/9/9/4K4 b", "3 red chariots"),
    ("4k4/9/9/9/9/9/9/9/9/9 w", "red has no king"),
    ("9/9/9/9/9/9/9/9/9/4K4 w", "black has no king"),
    ("4k4/9/9/9/9/9/9/9/4K4 w", "9 ranks"),                     # too few ranks
    ("4k4/9/9/9/9/9/9/9/9/4K5 w", "more than 9 points"),
    ("4k4/9/9/9/9/9/9/9/8/4K4 w", "8 points"),
    ("4k4/9/9/9/9/9/9/9/9/4KQ3 w", "unknown piece letter 'Q'"),
    ("4k4/9/9/9/9/9/9/9/9/4K4 x", "side to move 'x'"),
    ("4k4/9/9/9/9/9/9/9/9/3K5 w - - a b", "not numbers"),
    ("3k5/9/9/9/9/9/9/9/9/3K5 w", "in check but it is red's move"),  # kings face each other
    ("3k5/9/9/9/9/9/9/9/9/3R1K3 w", "black is in check but it is red's move"),
])
def test_impossible_positions_are_rejected_with_a_reason(text: str, message: str | None) -> None:
    if message is None:
        Position.from_fen(text)
        return
    with pytest.raises(FenError, match=message.replace("(", r"\(")):
        Position.from_fen(text)


def test_too_many_ranks_are_named() -> None:
    """Eleven ranks must be reported as too many ranks, not as a bad side to move."""
    with pytest.raises(FenError, match="ranks"):
        Position.from_fen("4k4/9/9/9/9/9/9/9/9/9/4K4 w")


def test_empty_text_is_rejected() -> None:
    with pytest.raises(FenError):
        Position.from_fen("")


@pytest.mark.usefixtures("shared_data")
def test_fen_round_trips_and_equals_pyffish() -> None:
    """Our FEN out reads back to the same position, and is what Fairy-Stockfish writes."""
    fens = oracle_positions()
    for fen in fens:
        pos = Position.from_fen(fen)
        again = Position.from_fen(pos.fen())
        assert again.fen() == fen
        assert again.zobrist() == pos.zobrist()
    for fen in fens[::20]:
        assert pyffish.get_fen("xiangqi", fen, []) == fen


@pytest.mark.usefixtures("shared_data")
def test_epd_studies_with_letters_read_like_pyffish() -> None:
    """The EPD files write standard letters; their h/e twins must give the same position."""
    for fen, _, _ in epd_lines()[:300:3]:
        try:
            ours = Position.from_fen(fen)
        except FenError:
            continue
        twin = fen.split()[0].replace("n", "h").replace("N", "H").replace("b", "e").replace("B", "E")
        assert Position.from_fen(twin + " w").fen() == ours.fen()
        assert pyffish.get_fen("xiangqi", fen, []).split()[:2] == ours.fen().split()[:2]


def _fen_tags(text: str) -> list[str]:
    return re.findall(r'\[FEN "([^"]*)"\]', text)


def test_fen_tags_of_the_practical_dataset(shared_data: Path) -> None:
    """All 11,791 FEN tags of ccpd-dev.zip (Big5 PGN): three are broken in the source."""
    rejected, read = [], []
    with zipfile.ZipFile(shared_data / "ccpd-dev.zip") as archive:
        for name in archive.namelist():
            if not name.lower().endswith(".pgn"):
                continue
            for fen in _fen_tags(archive.read(name).decode("big5", "replace")):
                try:
                    read.append(Position.from_fen(fen).fen())
                except FenError as exc:
                    rejected.append((name.rsplit("/", 1)[-1], str(exc)))
    assert len(read) + len(rejected) == 11_791
    assert sorted(rejected) == [
        ("00000068.pgn", "red has no king"),
        ("00000207.pgn", "red has no king"),
        ("00000306.pgn", "red elephant on g1 is on a point it can never reach"),
    ]
    for fen in read[::97]:
        assert pyffish.get_fen("xiangqi", fen, []) == fen


def test_two_field_fen_tag_of_a_real_endgame_file() -> None:
    tags = _fen_tags((DATA / "binary" / "endgame_test.pgn").read_text(encoding="gb18030"))
    assert tags == ["3aka3/2c1n4/4bP3/9/4N4/9/9/9/9/4K4 w"]
    for fen in tags:
        pos = Position.from_fen(fen)
        assert pos.fen() == f"{fen} - - 0 1"
        assert pyffish.get_fen("xiangqi", pos.fen(), []) == pos.fen()
