"""Plain move lists: walker8088's move files (FEN, then one Chinese move per line, a
Chinese result) checked against their XQF twins, and coordinate lists written with
spaces, commas or no separator at all, checked against the same games in PGN."""

from __future__ import annotations


import pytest

from datafiles import DATA
from xqdb.formats import read_paths, sniff_format
from xqdb.replay import replay

BINARY = DATA / "binary"


@pytest.mark.parametrize("moves_file, twin, plies, result", [
    ("test1_move.txt", "test1.xqf", 110, "0-1"),
    ("ucci_test1_move.txt", "ucci_test1.xqf", 43, "1-0"),
])
def test_move_files_replay_like_their_xqf_twins(moves_file, twin, plies, result):
    record, = read_paths([str(BINARY / moves_file)])
    assert record.format == "movelist" and record.notation == "chinese"
    assert record.encoding == "utf-8"
    game = replay(record)
    twin_game = replay(next(read_paths([str(BINARY / twin)])))
    assert game.is_valid and game.plies == plies
    assert game.uci == twin_game.uci[:plies]
    assert record.result == result == twin_game.record.result
    assert record.fen == (BINARY / moves_file).read_text(encoding="utf-8").splitlines()[0].strip()


def test_fen_moves_and_result_on_one_comma_separated_line():
    record, = read_paths([str(BINARY / "uci_test_move.txt")])
    assert record.fen == "9/3k5/4c4/4N4/9/6R2/9/5p3/4r4/5K3 w"
    assert record.moves == ["g4g8", "d8d9", "e6c7", "d9e9", "g8g9"]
    assert record.result == "1-0" and record.notation == "uci"
    game = replay(record)
    assert game.is_valid and game.termination == "checkmate" and game.rules_result == "1-0"


@pytest.fixture(scope="module")
def reference_games():
    """Five games of the coordinate PGN: the reference for the plain layouts."""
    return [replay(r) for r in list(read_paths([str(DATA / "uci" / "same-15-games-uci.pgn")]))[:5]]


@pytest.mark.parametrize("layout", ["spaces", "commas", "concatenated", "lines"])
def test_coordinate_layouts_give_the_pgn_games(tmp_path, reference_games, layout):
    joiner = {"spaces": " ", "commas": ", ", "concatenated": "", "lines": "\n"}[layout]
    games = [joiner.join(g.uci) for g in reference_games]
    path = tmp_path / "games.txt"
    path.write_text("\n\n".join(games) + "\n")
    assert sniff_format(path.read_bytes()[:4096], path.name) == "movelist"
    records = list(read_paths([str(path)]))
    assert [replay(r).uci for r in records] == [g.uci for g in reference_games]
    assert all(r.notation == "uci" and not r.is_error for r in records)
    assert records[1].origin.index == 1 and records[1].origin.line > 1


def test_a_file_of_prose_is_not_a_move_list(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("These are my notes about the tournament.\nNothing to read here.\n")
    record, = read_paths([str(path)])
    assert record.is_error and "not a known format" in record.error
    forced, = read_paths([str(path)], format="movelist")
    assert replay(forced).error_ply == 1  # "These" is no move: named at ply 1
