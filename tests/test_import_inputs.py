"""Inputs that must not spoil a database: wrong overrides, failed sources, huge records,
FIFOs and devices, links out of a folder, bytes no reader knows."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from xqdb.errors import BadArgumentError

from import_support import DATA, all_rows, count, invoke_xqdb, run_xqdb
from xqdb.pipeline.importer import import_paths, memory_bytes

GBK = DATA / "pgn-gbk"
GBK_FILES = sorted(GBK.glob("*.PGN"))


def _one_line_error(result: subprocess.CompletedProcess[str], code: int, text: str) -> None:
    assert result.returncode == code, (result.stdout, result.stderr)
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert result.stderr.startswith("Error: ") and text in result.stderr


@pytest.mark.parametrize("option, value, text", [
    ("--format", "bogus", "unknown format 'bogus' (known: xqf, cbr"),
    ("--encoding", "nope", "unknown encoding 'nope'"),
    ("--memory-limit", "lots", "memory limit 'lots' is not a size"),
])
def test_a_bad_override_is_refused_before_anything_is_written(tmp_path: Path, option: str,
                                                              value: str, text: str) -> None:
    db = tmp_path / "g.duckdb"
    # A bad value is a bad argument (exit 2), in import as in read.
    _one_line_error(invoke_xqdb("import", str(GBK), "--db", str(db), option, value), 2, text)
    assert not db.exists()
    # The corrected command imports everything.
    assert invoke_xqdb("import", str(GBK), "--db", str(db)).returncode == 0
    assert count(db, "SELECT count(*) FROM games WHERE status = 'valid'") == 20


def test_a_wrong_but_valid_encoding_is_undone_with_force(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    wrong = invoke_xqdb("import", str(GBK), "--db", str(db), "--encoding", "big5")
    assert wrong.returncode == 0
    assert count(db, "SELECT count(*) FROM games WHERE status = 'valid'") < 20
    # Unchanged files are not read again without --force...
    again = invoke_xqdb("import", str(GBK), "--db", str(db), "--encoding", "gbk")
    assert "sources: 0 imported, 20 skipped" in again.stdout
    # ...and with it, their rows are replaced: the same rows as a right first import.
    forced = invoke_xqdb("import", str(GBK), "--db", str(db), "--encoding", "gbk", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "sources: 20 imported" in forced.stdout and "20 stored before replaced" in forced.stdout
    right = tmp_path / "right.duckdb"
    assert invoke_xqdb("import", str(GBK), "--db", str(right), "--encoding", "gbk").returncode == 0
    for table, rows in all_rows(right).items():
        # Ids go on from the replaced ones, so compare what is not an id.
        replaced = all_rows(db)[table]
        assert len(replaced) == len(rows), table
    assert count(db, "SELECT count(*) FROM games WHERE status = 'valid'") == 20
    assert count(db, "SELECT count(*) FROM game_records") == 20
    assert count(db, "SELECT count(*) FROM raw_records") == 20
    assert count(db, "SELECT count(*) FROM sources") == 20
    assert count(db, "SELECT count(*) FROM moves") == count(right, "SELECT count(*) FROM moves")
    assert count(db, "SELECT string_agg(DISTINCT encoding, ',') FROM sources") == "gb18030"


def test_force_keeps_the_games_other_sources_link_to(tmp_path: Path) -> None:
    """A game kept from a replaced source but linked from another one stays, and now
    belongs to that other source's record."""
    db = tmp_path / "g.duckdb"
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(GBK_FILES[0], copy / "same.pgn")
    import_paths([str(GBK_FILES[0]), str(copy)], db, jobs=1)
    assert count(db, "SELECT count(*) FROM games") == 1
    import_paths([str(GBK_FILES[0])], db, jobs=1, force=True)
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM games").fetchone()[0] == 1
    assert con.execute("SELECT count(*) FROM game_records").fetchone()[0] == 2
    # Every record's game exists, with its moves, and exactly one record is its primary.
    assert con.execute("""SELECT count(*) FROM game_records r LEFT JOIN games g USING (game_id)
                          WHERE g.game_id IS NULL""").fetchone()[0] == 0
    assert con.execute("""SELECT count(*) FROM games g JOIN game_records r
                          ON r.game_id = g.game_id AND r.source_id = g.source_id
                          AND r.record_index = g.record_index AND r.is_primary""").fetchone()[0] == 1
    assert con.execute("SELECT count(*) FROM game_records WHERE is_primary").fetchone()[0] == 1
    assert con.execute("SELECT count(*) FROM moves").fetchone()[0] == 26
    kept_from = con.execute("SELECT s.path FROM games g JOIN sources s USING (source_id)").fetchone()[0]
    con.close()
    assert kept_from == str(copy / "same.pgn")


def _unsniffable_pgn(path: Path) -> None:
    """A real GBK game behind 5 KB of '%' escape lines: no reader recognises its head."""
    preamble = b"".join(b"%% exported by a game viewer, line %d\r\n" % i for i in range(150))
    path.write_bytes(preamble + GBK_FILES[0].read_bytes())


def test_a_source_that_failed_is_read_again_by_the_next_import(tmp_path: Path) -> None:
    folder, db = tmp_path / "in", tmp_path / "g.duckdb"
    folder.mkdir()
    _unsniffable_pgn(folder / "game.txt")
    first = import_paths([str(folder)], db, jobs=1)
    assert (first.sources, len(first.failed_sources), first.records) == (0, 1, 0)
    assert count(db, "SELECT count(*) FROM games") == 0
    assert "not a known format" in count(db, "SELECT error FROM sources")
    # Named as PGN, the same unchanged file is read again, and replaces the failure.
    second = import_paths([str(folder)], db, jobs=1, format="pgn")
    assert (second.sources, second.skipped_sources, second.replaced_sources) == (1, 0, 1)
    assert count(db, "SELECT count(*) FROM sources") == 1
    assert count(db, "SELECT count(*) FROM sources WHERE error IS NULL AND format = 'pgn'") == 1
    assert count(db, "SELECT count(*) FROM games WHERE status = 'valid' AND red = '宝岛一号'") == 1
    # Read whole, it is done: the next import skips it.
    third = import_paths([str(folder)], db, jobs=1, format="pgn")
    assert (third.sources, third.skipped_sources) == (0, 1)


def test_bytes_no_reader_knows_make_a_source_error_not_a_game(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    result = invoke_xqdb("import", str(GBK_FILES[0]), str(DATA / "perft.tsv"),
                      str(DATA / "endgames" / "_K.EPD"), "--db", str(db))
    assert result.returncode == 0, result.stderr
    assert "1 unreadable" in result.stdout
    assert "unreadable: " + str(DATA / "perft.tsv") + ": not a known format" in result.stdout
    assert count(db, "SELECT count(*) FROM game_records r JOIN sources s USING (source_id)"
                     " WHERE s.path LIKE '%perft.tsv'") == 0
    assert count(db, "SELECT count(*) FROM games WHERE format = 'unknown'") == 0
    info = invoke_xqdb("info", "--db", str(db))
    assert "sources:    1 of games, 1 of positions, 1 unreadable, 0 passed over" in info.stdout
    assert f"{DATA / 'perft.tsv'}: not a known format" in info.stdout


@pytest.mark.slow
def test_a_huge_record_is_stored_as_too_large_and_the_others_land(tmp_path: Path) -> None:
    folder, db = tmp_path / "in", tmp_path / "g.duckdb"
    folder.mkdir()
    for path in GBK_FILES:
        shutil.copy(path, folder / path.name)
    # A game whose comment is 50 MB: the record is bigger than any real one.
    head, moves = GBK_FILES[0].read_bytes().split(b"\r\n  1.", 1)
    comment = b"{" + b"a long analysis " * (50 * 2**20 // 16) + b"}"
    (folder / "huge.pgn").write_bytes(head + b"\r\n" + comment + b"\r\n  1." + moves)
    result = run_xqdb("import", str(folder), "--db", str(db), "--jobs", "2")
    assert result.returncode == 0, result.stderr
    assert "records: 21 read" in result.stdout
    assert "invalid 1: record too large" in result.stdout
    assert count(db, "SELECT count(*) FROM games WHERE status = 'valid'") == 20
    con = duckdb.connect(str(db), read_only=True)
    error, kind, kept = con.execute("""SELECT g.error, g.error_kind, r.text FROM games g
                                       JOIN raw_records r USING (game_id)
                                       WHERE g.status = 'invalid'""").fetchone()
    con.close()
    assert error.startswith("record too large: ") and "the limit is 16777216" in error
    assert kind == "record_too_large"
    # Its first 4,096 characters are kept (the record is stored as decoded text).
    assert kept == (head + b"\r\n" + comment).decode("gb18030")[:4096]


@pytest.mark.slow
def test_records_of_megabytes_get_the_memory_they_need(tmp_path: Path) -> None:
    """Three records of 15 MB, under the size limit, are stored whole in one batch."""
    folder, db = tmp_path / "in", tmp_path / "g.duckdb"
    folder.mkdir()
    head, moves = GBK_FILES[0].read_bytes().split(b"\r\n  1.", 1)
    for i in range(3):
        comment = b"{" + (b"analysis %d " % i) * (15 * 2**20 // 11) + b"}"
        (folder / f"big{i}.pgn").write_bytes(head + b"\r\n" + comment + b"\r\n  1." + moves)
    result = run_xqdb("import", str(folder), "--db", str(db), "--jobs", "2")
    assert result.returncode == 0, result.stderr
    assert "records: 3 read, 1 new games, 2 duplicates linked, 0 invalid" in result.stdout
    assert count(db, "SELECT min(length(text)) FROM raw_records") > 15 * 10**6


def test_the_memory_limit_is_a_size_or_a_share_of_the_ram() -> None:
    assert memory_bytes("2GB") == 2 * 10**9
    assert memory_bytes("256 MiB") == 256 << 20
    assert memory_bytes("10%") == memory_bytes("20%") // 2
    with pytest.raises(BadArgumentError, match="too small"):
        memory_bytes("1MB")
    with pytest.raises(BadArgumentError, match="not a size"):
        memory_bytes("2 GB of it")


def test_a_fifo_in_a_folder_is_passed_over_and_said(tmp_path: Path) -> None:
    folder, db = tmp_path / "in", tmp_path / "g.duckdb"
    folder.mkdir()
    shutil.copy(GBK_FILES[0], folder / "a.pgn")
    os.mkfifo(folder / "pipe.pgn")
    result = run_xqdb("import", str(folder), "--db", str(db), "--jobs", "1", timeout=120)
    assert result.returncode == 0, result.stderr
    assert "1 passed over" in result.stdout
    assert f"passed over: {folder / 'pipe.pgn'}: a FIFO, not a regular file" in result.stdout
    assert count(db, "SELECT count(*) FROM games") == 1
    info = run_xqdb("info", "--db", str(db))
    assert "sources:    1 of games, 0 of positions, 0 unreadable, 1 passed over" in info.stdout


@pytest.mark.slow
def test_links_do_not_leave_the_folder_unless_asked(tmp_path: Path) -> None:
    folder, db = tmp_path / "in", tmp_path / "g.duckdb"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(GBK_FILES[0], folder / "a.pgn")
    (folder / "passwd.pgn").symlink_to("/etc/passwd")
    (folder / "outside").symlink_to(GBK, target_is_directory=True)
    (folder / "zero.pgn").symlink_to("/dev/zero")
    (folder / "sub" / "inside.pgn").symlink_to(folder / "a.pgn")
    result = run_xqdb("import", str(folder), "--db", str(db), "--jobs", "1", timeout=120)
    assert result.returncode == 0, result.stderr
    assert "3 passed over" in result.stdout
    assert f"passed over: {folder / 'passwd.pgn'}: a link leading out of the folder " \
           "(to /etc/passwd)" in result.stdout
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM raw_records WHERE text LIKE '%root:%'").fetchone()[0] == 0
    # The link that stays inside leads to a.pgn itself: the same file, read once.
    assert con.execute("SELECT count(*), count(DISTINCT game_id) FROM game_records").fetchone() == (1, 1)
    con.close()
    # Asked to, the import follows the links (a device is still not read).
    followed = run_xqdb("import", str(folder), "--db", str(db), "--jobs", "1", "--follow-links",
                        timeout=120)
    assert followed.returncode == 0, followed.stderr
    assert f"passed over: {folder / 'zero.pgn'}: a character device, not a regular file" \
        in followed.stdout
    assert count(db, "SELECT count(*) FROM games WHERE status = 'valid'") == 20
    assert count(db, "SELECT count(*) FROM sources WHERE path LIKE '%passwd.pgn'") == 1
