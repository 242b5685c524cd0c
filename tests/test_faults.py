"""Damaged archives and hostile inputs: each damaged part is stored as a source with its
reason, every other part lands, and nothing is read twice or passed over unsaid."""

from __future__ import annotations

import io
import os
import random
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from import_support import invoke_xqdb, on_terminal, rows, run_xqdb

GAME = b"1. h2e2 h9g7 *\n"


def _zip(members: list[tuple[str, bytes]], deflate: bool = True) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED) as z:
        for name, data in members:
            z.writestr(name, data)
    return out.getvalue()


def _sources(db: Path) -> list[tuple]:
    return rows(db, "SELECT member, records, error FROM sources ORDER BY source_id")


@pytest.mark.slow
def test_a_member_with_a_bad_crc_is_a_source_with_an_error_and_the_others_land(
        tmp_path: Path) -> None:
    data = bytearray(_zip([("a.pgn", GAME * 20), ("b.pgn", GAME)], deflate=False))
    data[40] ^= 1  # inside a.pgn's stored bytes: its CRC no longer matches
    (tmp_path / "bad.zip").write_bytes(bytes(data))
    db = tmp_path / "x.duckdb"
    done = run_xqdb("import", str(tmp_path / "bad.zip"), "--db", str(db), "--jobs", "2")
    assert "Traceback" not in done.stderr, done.stderr
    sources = _sources(db)
    assert sources[0][0] == "a.pgn" and "Bad CRC-32" in sources[0][2]
    assert sources[1] == ("b.pgn", 1, None)
    again = run_xqdb("import", str(tmp_path / "bad.zip"), "--db", str(db))
    assert "Traceback" not in again.stderr and again.returncode == done.returncode


def test_a_member_with_bad_deflate_data_is_a_source_with_an_error(tmp_path: Path) -> None:
    data = bytearray(_zip([("a.pgn", GAME * 200), ("b.pgn", GAME)]))
    data[45] ^= 0xFF
    (tmp_path / "bad.zip").write_bytes(bytes(data))
    db = tmp_path / "x.duckdb"
    done = run_xqdb("import", str(tmp_path / "bad.zip"), "--db", str(db))
    assert "Traceback" not in done.stderr, done.stderr
    sources = _sources(db)
    assert sources[0][0] == "a.pgn" and "damaged archive member" in sources[0][2]
    assert sources[1] == ("b.pgn", 1, None)
    read = run_xqdb("read", str(tmp_path / "bad.zip"))
    assert "Traceback" not in read.stderr and "damaged archive member" in read.stdout


def _tar_gz(members: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def test_a_tar_gz_damaged_in_the_middle_keeps_the_members_before_the_damage(
        tmp_path: Path) -> None:
    noise = random.Random(24)
    members = [(f"{i:02}.pgn", noise.randbytes(3000).hex().encode()) for i in range(30)]
    members[0] = ("00.pgn", GAME)
    data = bytearray(_tar_gz(members))
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "bad.tar.gz").write_bytes(bytes(data))
    db = tmp_path / "x.duckdb"
    done = run_xqdb("import", str(tmp_path / "bad.tar.gz"), "--db", str(db))
    assert "Traceback" not in done.stderr, done.stderr
    sources = _sources(db)
    assert sources[0] == ("00.pgn", 1, None)
    assert any(error and "damaged" in error for _, _, error in sources), sources[-3:]


def test_tar_fifo_and_device_are_listed_and_both_members_of_one_name_imported(
        tmp_path: Path) -> None:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        for name, kind, data in [("a.pgn", tarfile.REGTYPE, b"1. h2e2 *\n"),
                                 ("pipe", tarfile.FIFOTYPE, b""),
                                 ("tty", tarfile.CHRTYPE, b""),
                                 ("a.pgn", tarfile.REGTYPE, GAME)]:
            info = tarfile.TarInfo(name)
            info.type, info.size = kind, len(data)
            tar.addfile(info, io.BytesIO(data) if data else None)
    (tmp_path / "odd.tar").write_bytes(out.getvalue())
    db = tmp_path / "x.duckdb"
    invoke_xqdb("import", str(tmp_path / "odd.tar"), "--db", str(db))
    sources = _sources(db)
    unread = {m: e.split(": ", 1)[1] for m, _, e in sources if e}
    assert unread == {"pipe": "not read, a FIFO, not a regular file",
                      "tty": "not read, a character device, not a regular file"}
    assert rows(db, "SELECT member, member_index, records FROM sources WHERE error IS NULL"
                " ORDER BY source_id") == [("a.pgn", 1, 1), ("a.pgn", None, 1)]
    assert rows(db, "SELECT count(*) FROM games")[0][0] == 2


def _duplicate_zip(path: Path) -> None:
    """A zip, made by Python's zipfile, holding two different members named a.pgn."""
    import warnings

    with zipfile.ZipFile(path, "w") as z:
        z.writestr("a.pgn", b'[Event "first"]\n1. h2e2 *\n')
        z.writestr("b.pgn", GAME)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zipfile warns of the duplicate name
            z.writestr("a.pgn", b'[Event "second"]\n1. c3c4 h9g7 *\n')


def test_two_zip_members_with_one_name_are_both_imported(tmp_path: Path) -> None:
    archive = tmp_path / "dup.zip"
    _duplicate_zip(archive)
    # unzip, the independent witness, sees three members, two of them a.pgn.
    listing = subprocess.run(["unzip", "-Z1", str(archive)], capture_output=True, text=True,
                             check=True).stdout.split()
    assert listing == ["a.pgn", "b.pgn", "a.pgn"]
    db = tmp_path / "x.duckdb"
    done = invoke_xqdb("import", str(archive), "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "0 unreadable" in done.stdout
    assert rows(db, "SELECT member, member_index, records, error FROM sources"
                " ORDER BY source_id") == [("a.pgn", 1, 1, None), ("a.pgn", None, 1, None),
                                           ("b.pgn", None, 1, None)]
    # Each member's own game, the earlier one's too.
    assert rows(db, "SELECT s.member_index, r.tags->>'Event' FROM game_records r"
                " JOIN sources s USING (source_id) WHERE s.member = 'a.pgn'"
                " ORDER BY s.source_id") == [(1, "first"), (None, "second")]
    # Each is known again: a second import reads neither.
    again = invoke_xqdb("import", str(archive), "--db", str(db))
    assert again.returncode == 0, again.stderr
    assert "0 imported, 3 skipped" in again.stdout
    assert rows(db, "SELECT count(*) FROM sources")[0][0] == 3


def test_xqdb_read_reads_both_members_of_one_name(tmp_path: Path) -> None:
    archive = tmp_path / "dup.zip"
    _duplicate_zip(archive)
    done = invoke_xqdb("read", str(archive))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 records read and replayed from 3 sources" in done.stdout


def _dhtmlxq(moves: str, extra: str = "") -> str:
    return (f"[DhtmlXQ][DhtmlXQ_movelist]{moves}[/DhtmlXQ_movelist]{extra}"
            "[DhtmlXQ_result]红胜[/DhtmlXQ_result][/DhtmlXQ]\n")


def test_dhtmlxq_variation_forking_from_an_orphaned_variation_loses_only_its_block(
        tmp_path: Path) -> None:
    good = _dhtmlxq("77477062")  # 炮二平五 马8进7
    # Branch 1 forks from branch 9, which does not exist; branch 2 forks from branch 1.
    broken = _dhtmlxq("77477062", "[DhtmlXQ_move_9_2_1]7062[/DhtmlXQ_move_9_2_1]"
                                  "[DhtmlXQ_move_1_3_2]1927[/DhtmlXQ_move_1_3_2]")
    (tmp_path / "games.txt").write_text(good + broken + good, encoding="utf-8")
    db = tmp_path / "x.duckdb"
    done = invoke_xqdb("import", str(tmp_path / "games.txt"), "--db", str(db))
    assert done.returncode == 0, done.stderr
    records = rows(db, "SELECT r.record_index, g.error FROM game_records r JOIN games g "
                       "USING (game_id) ORDER BY r.record_index")
    assert [index for index, _ in records] == [0, 1, 2]
    assert records[1][1] is not None and "fork from branches that do not exist" in records[1][1]
    assert "[1, 2]" in records[1][1]
    assert rows(db, "SELECT error FROM sources") == [(None,)]


def test_dhtmlxq_variation_forking_past_the_end_of_its_line_is_a_record_error(
        tmp_path: Path) -> None:
    # Branch 1 is an alternative to ply 3 of a main line of two moves (a cut move list);
    # branch 2 forks from branch 1. Read as variations, they would fork at a move that
    # is not there.
    broken = _dhtmlxq("77477062", "[DhtmlXQ_move_0_3_1]1927[/DhtmlXQ_move_0_3_1]"
                                  "[DhtmlXQ_move_1_3_2]7062[/DhtmlXQ_move_1_3_2]")
    (tmp_path / "games.txt").write_text(_dhtmlxq("77477062") + broken, encoding="utf-8")
    db = tmp_path / "x.duckdb"
    done = invoke_xqdb("import", str(tmp_path / "games.txt"), "--db", str(db))
    assert done.returncode == 0, done.stderr
    records = rows(db, "SELECT r.record_index, g.status, g.error, t.text LIKE '%move_1_3_2%' "
                       "FROM game_records r JOIN games g USING (game_id) JOIN raw_records t "
                       "ON t.source_id = r.source_id AND t.record_index = r.record_index "
                       "ORDER BY 1")
    assert [r[:2] for r in records] == [(0, "valid"), (1, "invalid")]
    assert "branches [1] fork after the last move of the line they branch from" in records[1][2]
    assert records[1][3]  # the record is kept whole


@pytest.mark.slow
def test_a_batch_of_records_with_1_mib_comments_is_stored(tmp_path: Path) -> None:
    folder = tmp_path / "big"
    folder.mkdir()
    for i in range(100):
        (folder / f"{i:03}.pgn").write_bytes(
            b'[Result "*"]\n1. h2e2 {' + bytes([65 + i % 26]) * (1 << 20) + b"} h9g7 *\n")
    db = tmp_path / "x.duckdb"
    done = run_xqdb("import", str(folder), "--db", str(db), "--jobs", "2")
    assert done.returncode == 0, done.stderr
    assert rows(db, "SELECT count(*), count(DISTINCT source_id) FROM game_records") == [(100, 100)]
    assert rows(db, "SELECT min(length(text)) FROM raw_records")[0][0] > 1 << 20
    info = run_xqdb("info", "--db", str(db))
    assert info.returncode == 0, info.stderr


def _gbk_name_zip(name: str, data: bytes) -> bytes:
    """A zip whose member name is stored in GBK without the UTF-8 flag, as Chinese
    archivers write it."""
    raw = name.encode("gbk")
    placeholder = "p" * (len(raw) - 4) + ".pgn"
    packed = bytes(_zip([(placeholder, data)], deflate=False))
    return packed.replace(placeholder.encode(), raw)


def test_file_names_that_are_not_utf8_are_stored_readable_with_their_bytes(
        tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    raw = os.path.join(os.fsencode(folder), "象棋".encode("gbk") + b".pgn")
    with open(raw, "wb") as f:
        f.write(GAME)
    (folder / "ok.pgn").write_bytes(b"1. h2e2 *\n")
    (tmp_path / "gbk.zip").write_bytes(_gbk_name_zip("对局.pgn", GAME))
    db = tmp_path / "x.duckdb"
    done = invoke_xqdb("import", str(folder), str(tmp_path / "gbk.zip"), "--db", str(db))
    assert done.returncode == 0, done.stderr
    stored = {(os.path.basename(p), m): b for p, m, b in
              rows(db, "SELECT path, member, path_bytes FROM sources")}
    assert stored == {("象棋.pgn", None): raw, ("ok.pgn", None): None,
                      ("gbk.zip", "对局.pgn"): None}
    again = invoke_xqdb("import", str(folder), str(tmp_path / "gbk.zip"), "--db", str(db))
    assert "0 imported, 3 skipped" in again.stdout, again.stdout + again.stderr


def test_the_same_file_under_another_path_is_not_imported_twice(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "a.pgn").write_bytes(GAME)
    db = tmp_path / "x.duckdb"
    invoke_xqdb("import", str(folder / "a.pgn"), "--db", str(db))
    again = invoke_xqdb("import", str(folder / ".." / "data" / "a.pgn"), "--db", str(db))
    assert "0 imported, 1 skipped" in again.stdout, again.stdout + again.stderr
    assert rows(db, "SELECT count(*) FROM game_records") == [(1,)]


def test_a_file_edited_in_place_has_its_rows_replaced(tmp_path: Path) -> None:
    game = tmp_path / "a.pgn"
    game.write_bytes(GAME)
    db = tmp_path / "x.duckdb"
    invoke_xqdb("import", str(game), "--db", str(db))
    game.write_bytes(b"1. c3c4 c6c5 *\n")
    again = invoke_xqdb("import", str(game), "--db", str(db))
    assert "1 stored before replaced" in again.stdout, again.stdout
    assert rows(db, "SELECT uci FROM moves ORDER BY game_id, ply") == \
        [("c3c4",), ("c6c5",)]
    assert rows(db, "SELECT count(*) FROM sources") == [(1,)]


@pytest.mark.slow
def test_import_of_the_folder_holding_the_database_never_reads_its_files(
        tmp_path: Path) -> None:
    (tmp_path / "a.pgn").write_bytes(GAME)
    for _ in range(2):
        done = run_xqdb("import", str(tmp_path), "--db", str(tmp_path / "x.duckdb"))
        assert done.returncode == 0, done.stderr
    assert rows(tmp_path / "x.duckdb", "SELECT path FROM sources") == [(str(tmp_path / "a.pgn"),)]
    assert rows(tmp_path / "x.duckdb", "SELECT count(*) FROM games") == [(1,)]


@pytest.mark.slow
def test_an_archive_of_many_small_members_is_bounded_as_a_whole(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(300):
            z.writestr(f"{i:03}.pgn", b"\0" * (1 << 20))  # 1 MiB each: under the member check
    db = tmp_path / "x.duckdb"
    done = run_xqdb("import", str(bomb), "--db", str(db))
    assert "Traceback" not in done.stderr, done.stderr
    read, refused = rows(db, "SELECT count(*) FILTER (error IS NULL OR error NOT LIKE '%bomb%'),"
                             " count(*) FILTER (error LIKE '%like a zip bomb%') FROM sources")[0]
    assert read + refused == 300
    assert read * (1 << 20) <= 50 * bomb.stat().st_size + (1 << 20) and refused > 250


def test_hostile_tags_order_no_terminal_about_and_hide_in_no_name(tmp_path: Path) -> None:
    # A record whose names carry terminal sequences, zero-width joiners, a byte-order mark
    # and a right-to-left override, in an archive: on a terminal its text is shown, never
    # obeyed, and its players are the ones the names show.
    record = ('[Event "\x1b]52;c;aGVsbG8=\x07\x1b]0;owned\x07"]\n[Red "\ufeff胡\u200d荣\u200c华"]\n'
              '[Black "\u202e吕钦\x9b"]\n\n1. h2e2 h9g7 *\n\n'
              '[Red "胡荣华"]\n[Black "吕钦"]\n\n1. h2e2 b9c7 *\n')
    (tmp_path / "hostile.zip").write_bytes(_zip([("\x1b]0;member\x07.pgn",
                                                  record.encode("utf-8"))]))
    db = tmp_path / "x.duckdb"
    code, shown = on_terminal("import", str(tmp_path / "hostile.zip"), "--db", str(db))
    assert code == 0, shown
    assert "\x1b]0;member" not in shown  # the member's name, in the summary or a log
    assert rows(db, "SELECT name FROM players ORDER BY name") == [("吕钦",), ("胡荣华",)]
    assert rows(db, "SELECT red FROM games ORDER BY game_id")[0] == ("\ufeff胡\u200d荣\u200c华",)
    for args in (["players"], ["search", "--moves", "h2e2"], ["show", "1"], ["info"],
                 ["export", "--out", "-"], ["sql", "SELECT * FROM sources"]):
        code, shown = on_terminal(*args, "--db", str(db))
        assert code == 0, shown
        board = shown.replace("\x1b[31m", "").replace("\x1b[1m", "").replace(
            "\x1b[7m", "").replace("\x1b[0m", "")
        assert not {"\x1b", "\x07", "\x9b", "\u202e"} & set(board), (args, shown)
