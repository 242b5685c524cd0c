"""Formats and layouts real collections hold, each read from a real sample (copied into
``tests/data/more-formats``, sources in ``tests/data/SOURCES.md``), the moves checked
against Fairy-Stockfish's rules where there are moves.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyffish
import pytest

from datafiles import DATA
from import_support import count
from xqdb.formats import read_paths, sniff_format
from xqdb.pipeline.importer import import_paths
from xqdb.pipeline.reading import summarize
from xqdb.replay import ReplayedGame, replay

MORE = DATA / "more-formats"
_RANKS = re.compile(r"([a-i])(\d)([a-i])(\d)")


def ffish_accepts(game: ReplayedGame) -> bool:
    """Whether Fairy-Stockfish plays every move of ``game`` (it writes ranks 1-10)."""
    played: list[str] = []
    for move in game.uci:
        theirs = _RANKS.sub(lambda m: f"{m[1]}{int(m[2]) + 1}{m[3]}{int(m[4]) + 1}", move)
        if theirs not in pyffish.legal_moves("xiangqi", game.start_fen, played):
            return False
        played.append(theirs)
    return True


def one_game(path: Path) -> ReplayedGame:
    [record] = read_paths([str(path)])
    return replay(record)


# --- CCBridge libraries of about 2001 -------------------------------------------------

def test_ccbridge_2001_libraries_give_every_game_with_names_events_and_results() -> None:
    folder = MORE / "cbl-ccbridge-2001"
    records = list(read_paths([str(folder)]))
    assert [r.format for r in records] == ["cbl2001"] * 137  # 123 + 14 games
    games = [replay(r) for r in records]
    assert all(g.is_valid for g in games) and sum(g.plies for g in games) == 12_008
    first = records[0]
    assert {k: first.tags[k] for k in ("Title", "Event", "Date", "Red", "Black", "Library")} == {
        "Title": "飞相局对左中炮", "Event": "全运会", "Date": "79-4-30", "Red": "胡荣华",
        "Black": "吕钦", "Library": "吕钦专集"}
    assert first.result == "1-0" and games[0].chinese[:2] == ["相三进五", "炮８平５"]
    # Where the rules end a game in a win, the recorded winner is the same.
    decided = [(g.record.result, g.ending.result) for g in games
               if g.ending is not None and g.ending.result != "1/2-1/2"]
    assert decided and all(recorded == ruled for recorded, ruled in decided
                           if recorded != "1/2-1/2")
    for game in games[::25]:  # a few keep the oracle's time small
        assert ffish_accepts(game), game.record.origin


def test_ccbridge_2001_comments_and_variations() -> None:
    records = list(read_paths([str(MORE / "cbl-ccbridge-2001" / "当头棒喝.CBL")]))
    first = records[0]
    game = replay(first)
    assert first.tags["Title"] == "当头棒喝" and first.result == "*"
    assert game.chinese[10] == "兵七进一"
    assert first.mainline.comments[11].startswith("弃兵活马")
    assert [(i, line.moves[:2]) for i, line in first.mainline.variations] == \
        [(15, ["c4b4", "b2c2"])]
    assert sum(r.mainline.count_variations() for r in records) == 36
    assert all(replay(r).variation_errors == [] for r in records)  # every variation is legal


# --- the WXF file format --------------------------------------------------------------

def test_wxf_file_tags_ratings_and_result() -> None:
    game = one_game(MORE / "wxf-file" / "demo-with-history-playok.wxf")
    record = game.record
    assert record.format == "wxf-file"
    assert record.tags == {
        "Red": "jugador rojo", "RedElo": "1200", "Black": "jugador negro", "BlackElo": "1240",
        "Result": "0-1", "Date": "2020-02-02 02:02:02", "Event": "PlayOK Game",
        "TimeControl": "10m+0s"}
    assert record.result == "0-1"
    assert game.is_valid and game.plies == 54 and ffish_accepts(game)
    assert game.chinese[:2] == ["兵三进一", "炮８平７"]


def test_wxf_file_with_marks_and_a_file_with_only_a_position() -> None:
    game = one_game(MORE / "wxf-file" / "game2.wxf")
    assert game.record.tags["Red"] == "Fairy Stockfish Winboard"
    assert game.record.tags["Black"] == "XieXiemaster"
    assert game.is_valid and game.plies == 101 and ffish_accepts(game)
    position = one_game(MORE / "wxf-file" / "demo.wxf")
    assert position.is_valid and position.plies == 0
    assert position.start_fen == "4kabr1/4a2c1/2n1b1n2/3Rp1C1p/2C6/5rP2/1pP1P3P/8B/9/1cBAKA1R1 b - - 0 1"


def test_wxf_files_import_with_their_ratings(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    summary = import_paths([str(MORE / "wxf-file")], db, jobs=1)
    assert (summary.records, summary.invalid_total) == (4, 0)
    assert count(db, "SELECT red_elo + black_elo FROM games WHERE red = 'jugador rojo'") == 2440


# --- XQMagic endgame libraries --------------------------------------------------------

def test_eglib_lines_are_games_from_their_fen_named_by_the_first_field() -> None:
    path = MORE / "eglib" / "00.基本杀法.eglib"
    assert sniff_format(path.read_bytes()[:4096], path.name) == "eglib"
    records = list(read_paths([str(path)]))
    assert len(records) == 321
    assert records[0].tags == {"Event": "兵的杀法"}
    assert records[0].fen == "9/3k5/3aP4/9/9/9/9/9/9/4K4 w - - 0 1"
    games = [replay(r) for r in records]
    bad = [g for g in games if not g.is_valid]
    # Six positions of the library cannot occur: five have Black in check with Red to move
    # (Fairy-Stockfish agrees that Black is in check in each), one a red advisor in
    # Black's palace.
    in_check = [g for g in bad if "black is in check but it is red's move" in (g.error or "")]
    assert len(bad) == 6 and len(in_check) == 5
    for g in in_check:
        assert pyffish.gives_check("xiangqi", g.record.fen.replace(" w ", " b "), []) is True
    [advisor] = [g for g in bad if g not in in_check]
    assert "red advisor on d9 is on a point it can never reach" in (advisor.error or "")


# --- bare DhtmlXQ digits --------------------------------------------------------------

def test_bare_digits_run_together_are_a_game() -> None:
    game = one_game(MORE / "dhtmlxq-digits" / "game1.ubb")
    assert game.record.format == "movelist"
    # This file counts y from Red's side (7242 = h2e2), not DhtmlXQ's way.
    assert game.is_valid and game.plies == 114 and ffish_accepts(game)
    assert game.chinese[:2] == ["炮二平五", "马８进７"]


def test_digits_in_dhtmlxq_orientation_with_spaces(tmp_path: Path) -> None:
    path = tmp_path / "g.txt"
    path.write_text("7747 7062 7967 8070\n")
    game = one_game(path)
    assert game.uci == ["h2e2", "h9g7", "h0g2", "i9h9"]


def test_a_game_in_digits_at_the_end_of_an_article(tmp_path: Path) -> None:
    # The collection's article as stored has lost its game: put the .ubb game's digits
    # back as its last line, in GBK like the article.
    article = (MORE / "dhtmlxq-digits" / "单兵和单炮类.txt").read_bytes()
    digits = (MORE / "dhtmlxq-digits" / "game1.ubb").read_bytes().strip()
    path = tmp_path / "article.txt"
    path.write_bytes(article + b"\r\n\r\n" + digits + b"\r\n")
    [record] = read_paths([str(path)])
    game = replay(record)
    assert game.is_valid and game.plies == 114
    assert record.mainline.comments[0].startswith("一、单兵和单炮类\n")
    assert record.origin.line == 4


def test_an_article_with_no_game_in_it_is_not_a_known_format() -> None:
    [record] = read_paths([str(MORE / "dhtmlxq-digits" / "单兵和单炮类.txt")])
    assert record.error is not None and record.error.startswith("not a known format")


# --- FENs as some collections write them ----------------------------------------------

def test_a_fen_with_the_spaces_taken_out(tmp_path: Path) -> None:
    path = tmp_path / "g.txt"
    path.write_text("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRw--01\n"
                    "h2e2 h9g7\n")
    game = one_game(path)
    assert game.record.fen == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRw--01"
    assert game.is_valid and game.uci == ["h2e2", "h9g7"]


def test_a_fen_with_no_side_to_move_says_what_was_assumed(tmp_path: Path) -> None:
    # Boards alone, one a ply, as an export writes them: the first has Black in check
    # (a red chariot on e6, nothing between it and the king), so it cannot be Red's move.
    path = tmp_path / "plies.epd"
    path.write_text("rnbakab1r/9/1c4nc1/p1p1R1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABNR\n"
                    "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR\n")
    records = list(read_paths([str(path)]))
    first, second = (replay(r) for r in records)
    assert first.error == ("bad FEN 'rnbakab1r/9/1c4nc1/p1p1R1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABNR':"
                           " the FEN names no side to move (red's assumed): black is in check but "
                           "it is red's move")
    assert second.is_valid and second.start_fen.split()[1] == "w"


# --- WinBoard names Red in White ------------------------------------------------------

def test_winboard_white_and_black_fill_red_and_black(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    import_paths([str(DATA / "algebraic")], db, jobs=1)
    assert count(db, "SELECT count(*) FROM games WHERE red = 'WukongJS 1.0 (UCI2WB)' "
                     "AND black = 'MaxQi 4.8F'") == 3
    # The tags stay as written.
    assert count(db, "SELECT count(*) FROM games WHERE tags::VARCHAR LIKE '%\"White\"%'") == 3


# --- dpxq.com plain text and xqipu ICCS PGN -------------------------------------------

def test_dpxq_plain_text_keys_and_moves() -> None:
    game = one_game(MORE / "dpxq-text" / "liu-yongfu-zhang-yongsheng.txt")
    tags = game.record.tags
    assert game.record.format == "dpxq"
    assert (tags["Red"], tags["Black"], tags["ECCO"], tags["Opening"]) == \
        ("刘永富", "张永生", "B00", "中炮局")
    assert (tags["红方"], tags["RedTeam"]) == ("北京 刘永富", "北京")
    assert game.record.result == "0-1" and tags["Event"] == "2026年第137届龙马鹏程大兴月赛"
    assert game.is_valid and game.plies == 107 and ffish_accepts(game)
    assert (game.chinese[0], game.chinese[-1]) == ("炮二平五", "兵五平四")


def test_xqipu_iccs_pgn() -> None:
    game = one_game(MORE / "iccs-pgn" / "xie-chengyu-chen-guoxing-3.pgn")
    assert game.record.notation == "iccs"
    assert game.is_valid and game.plies == 54 and ffish_accepts(game)
    assert game.uci[:2] == ["h2d2", "g6g5"] and game.chinese[0] == "炮二平六"


@pytest.mark.parametrize("folder, records, valid", [
    ("wxf-file", 4, 4), ("eglib", 321, 315), ("dhtmlxq-digits", 1, 1), ("not-games", 0, 0),
    ("dpxq-text", 1, 1), ("iccs-pgn", 1, 1),
])
def test_read_counts_per_folder(folder: str, records: int, valid: int) -> None:
    summary = summarize([str(MORE / folder)])
    assert (summary.records, summary.valid) == (records, valid)
    assert len(summary.sources) == len(list((MORE / folder).iterdir()))
