"""``xqdb read`` as a user runs it: a real process on the real files."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import duckdb
import pytest

from datafiles import DATA
from import_support import run_installed



xqdb = run_installed


def _out(proc: subprocess.CompletedProcess) -> str:
    return proc.stdout.decode("utf-8")


def test_summary_of_a_clean_folder_exits_0():
    proc = xqdb("read", str(DATA / "pgn-gbk"))
    assert proc.returncode == 0, proc.stderr
    out = _out(proc)
    assert out.startswith("20 records read and replayed from 20 sources")
    assert re.search(r"^\s+pgn\s+gb18030\s+20\s+20\s+0$", out, re.M)
    assert "valid: 100.00% of records, 1,916 plies replayed" in out
    assert "Invalid" not in out


@pytest.mark.slow
def test_summary_of_ccpd_lists_every_failure_with_file_and_reason(shared_data):
    proc = xqdb("read", str(shared_data / "ccpd-dev.zip"), "--all-errors")
    assert proc.returncode == 1
    out = _out(proc)
    assert re.search(r"^\s+pgn\s+big5\s+11,791\s+11,788\s+3$", out, re.M)
    assert "Invalid records: 3" in out
    failures = [line.strip() for line in out.splitlines() if "ccpd-dev.zip!" in line]
    assert len(failures) == 3
    assert failures[0] == (f"{shared_data / 'ccpd-dev.zip'}!Dataset/開局/00000068.pgn, record 1, line 1: "
                           "bad FEN 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR "
                           "w - - 0 1': red has no king")


def test_mixed_formats_counted_per_format_and_encoding_with_reasons_and_plies(shared_data):
    proc = xqdb("read", str(shared_data / "dhtmlxq"), str(DATA / "binary" / "test1_move.txt"),
                str(DATA / "uci" / "same-15-games-uci.pgn"))
    assert proc.returncode == 1
    out = _out(proc)
    assert re.search(r"^\s+dhtmlxq\s+utf-8\s+1,448\s+1,447\s+1$", out, re.M)
    assert re.search(r"^\s+pgn\s+utf-8\s+15\s+15\s+0$", out, re.M)
    assert re.search(r"^\s+movelist\s+utf-8\s+1\s+1\s+0$", out, re.M)
    assert re.search(r"^\s+total\s+1,464\s+1,463\s+1$", out, re.M)
    assert re.search(r"^\s+1\s+illegal move$", out, re.M)
    assert ("dhtmlxq.txt, record 1195, line 1, ply 65: illegal move '4765': "
            "e2-g4 would leave red's king in check") in out


def test_show_prints_one_game_in_the_chosen_notation():
    path = str(DATA / "pgn-chinese-15.pgn")
    proc = xqdb("read", path, "--show", "2", "--notation", "wxf")
    assert proc.returncode == 0, proc.stderr
    out = _out(proc)
    assert out.splitlines()[0] == f"{path}, record 2, line 7  (pgn, utf-8, moves in chinese)"
    assert "Red    LIU DianZhong" in out
    assert re.search(r"^\s+1\. C2\.5\s+H2\+3$", out, re.M)
    assert re.search(r"^\s+36\. P-\+1", out, re.M)  # the rear pawn (后兵进一) in WXF
    uci = _out(xqdb("read", path, "--show", "2", "--notation", "uci"))
    assert re.search(r"^\s+36\. e3e4", uci, re.M)
    source = _out(xqdb("read", path, "--show", "2", "--notation", "source"))
    assert re.search(r"^\s+36\. 后兵进一", source, re.M)
    missing = xqdb("read", path, "--show", "99")
    assert missing.returncode == 2 and b"only 15 records" in missing.stderr


def test_show_of_an_invalid_game_names_the_ply():
    proc = xqdb("read", str(DATA / "binary" / "BadMoveTest3.xqf"), "--show", "1")
    out = _out(proc)
    assert "invalid at ply 10 (e1f0): illegal move 'e1f0': there is no piece on e1" in out


def test_standard_input():
    data = (DATA / "uci" / "same-15-games-uci.pgn").read_bytes()
    proc = xqdb("read", "-", stdin=data)
    assert proc.returncode == 0, proc.stderr
    assert _out(proc).startswith("15 records read and replayed from 1 source ")


def test_encoding_and_format_overrides(tmp_path):
    gbk = sorted((DATA / "pgn-gbk").glob("*.PGN"))[0]
    # Read as Big5, the GBK moves are nonsense: every game fails at its first move.
    wrong = xqdb("read", str(gbk), "--encoding", "big5")
    assert wrong.returncode == 1
    assert re.search(r"^\s+pgn\s+big5\s+1\s+0\s+1$", _out(wrong), re.M)
    assert ", ply 1: " in _out(wrong)
    right = xqdb("read", str(gbk), "--encoding", "GBK")
    assert right.returncode == 0 and re.search(r"pgn\s+gb18030\s+1\s+1\s+0", _out(right))
    # A move list with a .pgn name is sniffed by content; --format forces a reader.
    moves = tmp_path / "moves.pgn"
    moves.write_text("h2e2 h9g7 h0g2 i9h9\n")
    forced = xqdb("read", str(moves), "--format", "movelist")
    assert forced.returncode == 0 and re.search(r"movelist\s+utf-8\s+1\s+1\s+0", _out(forced))
    bad = xqdb("read", str(moves), "--format", "nope")
    assert bad.returncode == 2 and b"unknown format 'nope' (known: xqf, " in bad.stderr
    bad = xqdb("read", str(moves), "--encoding", "klingon")
    assert bad.returncode == 2 and b"unknown encoding" in bad.stderr


def test_no_replay_only_reads():
    proc = xqdb("read", "--no-replay", str(DATA / "binary"))
    out = _out(proc)
    assert "read (not replayed)" in out
    assert re.search(r"^\s+cbr\s+utf-16-le\s+131\s+131\s+0$", out, re.M)


def test_sample_games_read_cleanly_with_their_notes_skipped():
    """sample_games/ holds seven games and SOURCES.md: the notes are no record at all."""
    proc = xqdb("read", str(Path(__file__).parents[1] / "sample_games"))
    assert proc.returncode == 0, proc.stderr
    out = _out(proc)
    assert out.startswith("7 records read and replayed from 7 sources")
    assert "unknown" not in out and "Invalid" not in out


def test_show_says_what_the_rules_said_on_the_way(shared_data):
    # Game 47 of liu-dahua-1125.pgn records no result; Red's cannon chases from ply 75 to
    # ply 81, the rules' verdict falls at ply 82, and the game goes on to ply 132.
    out = _out(xqdb("read", str(shared_data / "uci" / "liu-dahua-1125.pgn"), "--show", "47"))
    assert "  result: none\n" in out
    assert "  ending: none by the rules (resigned, agreed, on time or unfinished)" in out
    assert ("  played on: perpetual chase by Red: the cannon on h5 chases the chariot on e5"
            " with every move from ply 75 to ply 81 (plies 75-82; the record goes on to ply"
            " 132)") in out
    assert "<- perpetual chase by Red, 0-1 (plies 75-82), played on" in out


def test_a_record_too_large_to_import_is_reported_so_by_read(tmp_path):
    """``read`` and ``import`` agree: a record over the size limit is not replayed."""
    game = next((DATA / "pgn-gbk").glob("01.*.PGN")).read_bytes()
    head, moves = game.split(b"\r\n  1.", 1)
    comment = b"{" + b"a long analysis " * (17 * 2**20 // 16) + b"}"
    (tmp_path / "huge.pgn").write_bytes(head + b"\r\n" + comment + b"\r\n  1." + moves)
    proc = xqdb("read", str(tmp_path / "huge.pgn"))
    assert proc.returncode == 1, proc.stderr
    out = _out(proc)
    assert re.search(r"^\s+1\s+record too large$", out, re.M), out
    assert re.search(r"huge\.pgn, record 1, line 1: record too large: \d+ bytes "
                     r"\(the limit is 16777216\)$", out, re.M), out


def test_variations_nested_5000_deep_are_read_and_imported_without_a_traceback(tmp_path):
    """The main line is legal: the game is valid, its deepest variations dropped with a note."""
    path = tmp_path / "deep.pgn"
    path.write_text('[Event "deep"]\n\n1. h2e2 h9g7 ' + "(1... b9c7 " * 5_000 + ")" * 5_000
                    + " 2. h0g2 i9h9 *\n")
    proc = xqdb("read", str(path))
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    assert "valid: 100.00% of records, 4 plies replayed" in _out(proc)
    shown = _out(xqdb("read", str(path), "--show", "1"))
    assert "  (100 variations kept)\n" in shown
    assert "  (4900 variations nested more than 100 deep dropped; the raw record keeps them)" in shown
    db = tmp_path / "g.duckdb"
    proc = xqdb("import", str(path), "--db", str(db))
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    con = duckdb.connect(str(db), read_only=True)
    status, variations, errors, plies = con.execute(
        "SELECT status, variations, variation_errors, plies FROM games").fetchone()
    con.close()
    assert (status, variations, plies) == ("valid", 100, 4)
    assert errors == ["4900 variations nested more than 100 deep dropped; the raw record keeps them"]
