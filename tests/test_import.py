"""Import into DuckDB through the library: dedupe, idempotence, invalid games, worker logs."""

from __future__ import annotations

import logging
import shutil
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from import_support import DATA, SAME_15, all_rows, count
from xqdb.db.dedupe import content_hash
from xqdb.db.rows import POSITION_FORMATS
from xqdb.formats import is_source_failure, read_paths
from xqdb.formats.sources import Source, iter_sources
from xqdb.db.writer import StoredSources
from xqdb.pipeline import importer
from xqdb.pipeline.importer import ImportSummary, import_paths
from xqdb.replay import replay
from xqdb.rules.board import piece_symbol
from xqdb import Position
from xqdb.rules.position import STARTING_FEN


def test_same_games_in_three_notations_are_16_games_with_45_records(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    summary = import_paths([str(p) for p in SAME_15], db, jobs=2)
    assert (summary.records, summary.imported, summary.duplicates) == (45, 16, 29)
    assert count(db, "SELECT count(*) FROM games") == 16
    assert count(db, "SELECT count(*) FROM game_records") == 45
    assert count(db, "SELECT count(DISTINCT game_id) FROM game_records") == 16
    # Every game keeps its first record and links the copies from the other two files.
    assert count(db, "SELECT count(*) FROM (SELECT game_id FROM game_records GROUP BY game_id"
                     " HAVING count(DISTINCT source_id) = 3)") == 14
    # Game 2's coordinate copy is a game of its own: it leaves the others at move 36.
    con = duckdb.connect(str(db), read_only=True)
    odd = con.execute("SELECT g.game_id FROM games g JOIN sources s USING (source_id)"
                      " WHERE s.path LIKE '%same-15-games-uci.pgn'").fetchall()
    assert len(odd) == 1
    first_difference = con.execute("""
        SELECT min(a.ply) FROM moves a JOIN moves b ON a.ply = b.ply
        WHERE a.game_id = ? AND b.game_id = 2 AND a.uci <> b.uci""", [odd[0][0]]).fetchone()[0]
    assert first_difference in (71, 72)
    # Moves are stored once per kept game, with every notation and the keys chained.
    assert con.execute("SELECT count(*) FROM moves").fetchone()[0] == summary.moves
    row = con.execute("SELECT uci, iccs, wxf, chinese, piece, key_before, key_after FROM moves"
                      " WHERE game_id = 1 AND ply = 1").fetchone()
    assert row[:5] == ("h2e2", "H2-E2", "C2.5", "炮二平五", "C")
    assert 0 <= row[5] < 2 ** 64 and row[5] != row[6]
    assert con.execute("""SELECT count(*) FROM moves a JOIN moves b
                          ON a.game_id = b.game_id AND b.ply = a.ply + 1
                          WHERE a.key_after <> b.key_before""").fetchone()[0] == 0
    # Pieces and captures are stored as codes; the view gives the letters of the board.
    first = next(read_paths([str(SAME_15[0])]))
    board = Position.from_fen(first.fen or STARTING_FEN)
    letters = []
    for move in replay(first).moves:
        taken = board.board[move.to_square]
        letters.append((piece_symbol(board.board[move.from_square]),
                        piece_symbol(taken) if taken else None))
        board.push(move)
    assert con.execute("SELECT piece, capture FROM moves WHERE game_id = 1 ORDER BY ply"
                       ).fetchall() == letters
    assert sum(1 for _, taken in letters if taken) > 10
    # Tags are one JSON object per game and per record.
    assert con.execute("SELECT tags->>'Red', tags->>'Black', tags->>'NoSuchTag' FROM games"
                       " WHERE game_id = 1").fetchone() == (first.tags["Red"], first.tags["Black"], None)
    con.close()


def test_stored_coordinates_are_the_files_own_texts(tmp_path: Path) -> None:
    """``uci`` and ``iccs`` are computed from the stored move code: they must give back,
    ply for ply, what a coordinate file says."""
    path = DATA / "uci" / "same-15-games-uci.pgn"
    db = tmp_path / "g.duckdb"
    import_paths([str(path)], db, jobs=1)
    con = duckdb.connect(str(db), read_only=True)
    stored = con.execute("""SELECT string_agg(uci, ' ' ORDER BY ply),
                                   string_agg(iccs, ' ' ORDER BY ply) FROM moves
                            GROUP BY game_id ORDER BY game_id""").fetchall()
    con.close()
    games = [record.moves for record in read_paths([str(path)])]
    assert [uci for uci, _ in stored] == [" ".join(moves) for moves in games]
    assert [iccs for _, iccs in stored] == [" ".join(f"{m[:2]}-{m[2:]}".upper() for m in moves)
                                            for moves in games]
    assert len(stored) == 15 and all(len(uci) > 100 for uci, _ in stored)


def test_reimport_adds_nothing(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    paths = [str(p) for p in SAME_15] + [str(DATA / "pgn-gbk")]
    first = import_paths(paths, db, jobs=2)
    before = all_rows(db)
    again = import_paths(paths, db, jobs=2)
    assert (again.imported, again.records, again.sources) == (0, 0, 0)
    assert again.skipped_sources == first.sources == 23
    assert all_rows(db) == before


def test_a_copy_under_another_name_is_linked_not_stored_twice(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    copy = tmp_path / "copy.pgn"
    shutil.copy(DATA / "uci" / "same-15-games-uci.pgn", copy)
    summary = import_paths([str(DATA / "uci" / "same-15-games-uci.pgn"), str(copy)], db, jobs=1)
    assert (summary.sources, summary.imported, summary.duplicates) == (2, 15, 15)
    assert count(db, "SELECT count(*) FROM game_records WHERE NOT is_primary AND source_id = 2") == 15
    assert count(db, "SELECT count(*) FROM raw_records") == 30


def test_invalid_games_are_stored_with_moves_reason_and_raw_text(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pgn"
    bad.write_text('[Red "A"]\n[Black "B"]\n1. h2e2 h9g7 2. h0g2 i9h9 3. b0b9 *\n\n'
                   '[Red "C"]\n1. h2e2 h7e7 *\n', encoding="utf-8")
    db = tmp_path / "g.duckdb"
    summary = import_paths([str(bad), str(DATA / "binary" / "BadMoveTest3.xqf")], db, jobs=2)
    assert summary.records == 3
    assert summary.invalid_total == 2
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute("""SELECT g.red, g.status, g.error_ply, g.error, g.plies,
                                 (SELECT count(*) FROM moves m WHERE m.game_id = g.game_id),
                                 r.text, r.data, g.error_kind
                          FROM games g JOIN raw_records r USING (game_id)
                          ORDER BY g.game_id""").fetchall()
    a, c, xqf = rows
    assert a[:3] == ("A", "invalid", 5) and "b0b9" in a[3]
    assert a[4] == a[5] == 4  # the moves up to the error are kept
    assert "3. b0b9" in a[6]
    assert c[1] == "valid" and c[4] == c[5] == 2 and c[3] is None
    assert xqf[1:3] == ("invalid", 10) and xqf[4] == xqf[5] == 9
    assert xqf[7] is not None and xqf[6] is None  # a binary record keeps its bytes
    # The kind of failure is stored next to the message, and the summary counts by it.
    assert a[8] == xqf[8] == "illegal_move" and c[8] is None
    assert summary.invalid == {"illegal_move": 2}
    con.close()


def test_every_game_of_a_cbl_library_keeps_its_own_record_bytes(tmp_path: Path) -> None:
    library = next((DATA / "binary").glob("1956*.CBL"))
    db = tmp_path / "g.duckdb"
    summary = import_paths([str(library)], db, jobs=1)
    assert summary.records == 93
    data = library.read_bytes()
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute("SELECT r.data, g.\"offset\" FROM raw_records r JOIN game_records g"
                       " USING (source_id, record_index) ORDER BY record_index").fetchall()
    con.close()
    assert len(rows) == 93
    # Each game's raw record is its own slot of the library, where its offset says.
    assert all(raw is not None and raw.startswith(b"CCBridge Record")
               and data[offset:offset + len(raw)] == raw and len(raw) < len(data) // 10
               for raw, offset in rows)


def test_worker_log_records_reach_the_parents_handlers(tmp_path: Path) -> None:
    seen: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    root = logging.getLogger()
    handler, level = Keep(level=logging.INFO), root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        import_paths([str(DATA / "binary" / "BadMoveTest3.xqf"), str(DATA / "pgn-gbk")],
                     tmp_path / "g.duckdb", jobs=2)
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    from_workers = [r for r in seen if r.processName.startswith("ForkPoolWorker")]
    assert any("BadMoveTest3.xqf" in r.getMessage() and "ply 10" in r.getMessage()
               for r in from_workers)
    assert {r.process for r in from_workers}.isdisjoint({__import__("os").getpid()})


@pytest.mark.slow
def test_everything_in_shared_data_gives_the_readers_numbers(tmp_path: Path,
                                                             shared_data: Path) -> None:
    db = tmp_path / "all.duckdb"
    summary = import_paths([str(shared_data)], db, jobs=2)

    records = invalid = positions = 0
    kept: dict[int, int] = {}
    plies_invalid = 0
    unreadable = []
    for record in read_paths([str(shared_data)]):
        if is_source_failure(record):  # a source no reader knows is no game
            unreadable.append(record.origin.path)
            continue
        if record.format in POSITION_FORMATS:
            positions += 1  # EPD lines: positions, not games
            continue
        records += 1
        game = replay(record)
        if game.is_valid:
            kept.setdefault(content_hash(game.start_fen, [m.code for m in game.moves]), game.plies)
        else:
            invalid += 1
            plies_invalid += game.plies
    games = len(kept) + invalid
    moves = sum(kept.values()) + plies_invalid

    assert count(db, "SELECT count(*) FROM game_records") == records
    assert count(db, "SELECT count(*) FROM positions") == positions == summary.positions > 6000
    assert summary.records == records + positions
    assert count(db, "SELECT count(*) FROM raw_records") == records
    assert count(db, "SELECT count(*) FROM games") == games == summary.imported
    assert count(db, "SELECT count(*) FROM games WHERE status = 'invalid'") == invalid
    assert count(db, "SELECT count(*) FROM moves") == moves == summary.moves
    assert count(db, "SELECT sum(plies) FROM games") == moves
    assert summary.invalid_total == invalid
    assert records > 11_791 + 1_125
    # Files that hold no game: the corpus's data files, the two of more-formats/not-games/
    # and the article whose game is not in it; and the layouts not read yet, the .SG files
    # and the puzzle files that write the moves before the FEN.
    assert sorted(Path(p).name for p in unreadable) == [
        "00 - 朋友你好.doc", "0003bdc6764f68c8be549c7f348c65eb",
        "0009a98c41d43ed1e2f5db210c477c57", "adjudication-differs.jsonl", "ecco_codes.tsv",
        "perft.tsv", "单兵和单炮类.txt", "广东 许银川 先和 黑龙江 谢岿.SG",
        "广东 黄海林 先胜 开滦 庄玉庭.SG", "江苏 王斌 先和 广东 吕钦.SG"]
    assert count(db, "SELECT count(*) FROM sources WHERE error LIKE '%not a known format%'"
                     " AND records = 0") == len(unreadable) == len(summary.failed_sources)
    # Per source, the stored record count is what the reader yielded for it.
    per_source = Counter((r.origin.path, r.origin.member)
                         for r in read_paths([str(shared_data / "binary")])
                         if not is_source_failure(r))
    con = duckdb.connect(str(db), read_only=True)
    stored = {(p, m): n for p, m, n in con.execute(
        "SELECT path, member, records FROM sources WHERE path LIKE '%/binary/%'").fetchall()}
    con.close()
    assert stored == dict(per_source)


@pytest.mark.slow
def test_a_big_source_spills_to_disk_and_stores_the_same_rows(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import xqdb.pipeline.importer

    paths = [str(DATA / "pgn-chinese-15.pgn"), str(DATA / "pgn-gbk")]
    import_paths(paths, tmp_path / "held.duckdb", jobs=2)
    # The workers fork after this, so they spill every 50 moves instead of 400,000: the
    # 15 games of the first file (1,378 moves) make a big source.
    monkeypatch.setattr(xqdb.pipeline.importer, "SPILL_ROWS", 50)
    source = next(iter_sources([paths[0]]))
    unit = xqdb.pipeline.importer.read_unit(xqdb.pipeline.importer.WorkUnit(0, (source,), (None,), spool=str(tmp_path)))
    assert len(unit.staged.files["moves"]) > 10 and not unit.staged.tables
    spilled = import_paths(paths, tmp_path / "spilled.duckdb", jobs=2)
    assert spilled.records == 15 + 20
    assert all_rows(tmp_path / "spilled.duckdb") == all_rows(tmp_path / "held.duckdb")
    assert not (tmp_path / "spilled.duckdb.spool").exists()


def test_a_big_source_is_hashed_while_it_is_read_and_skipped_unread_when_unchanged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    import xqdb.formats.hashing

    path = DATA / "pgn-chinese-15.pgn"
    import_paths([str(path)], tmp_path / "small.duckdb", jobs=1)
    # Below this size a source is read into memory whole; the file (21 kB) is now "big".
    monkeypatch.setattr(xqdb.formats.hashing, "KEEP_BYTES", 1000)
    db = tmp_path / "big.duckdb"
    first = import_paths([str(path)], db, jobs=1)
    assert first.records == 15
    assert all_rows(db) == all_rows(tmp_path / "small.duckdb")
    assert count(db, "SELECT count(*) FROM sources WHERE sha256 = '"
                 + hashlib.sha256(path.read_bytes()).hexdigest() + "'") == 1
    again = import_paths([str(path)], db, jobs=1)
    assert (again.records, again.skipped_sources) == (0, 1)


def test_what_the_database_knows_of_many_files_is_read_a_block_of_files_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "g.duckdb"
    folder = DATA / "pgn-gbk"
    import_paths([str(folder)], db, jobs=1)
    monkeypatch.setattr(importer, "UNIT_SOURCES", 2)
    monkeypatch.setattr(importer, "READ_AHEAD_SOURCES", 6)
    con = duckdb.connect(str(db), read_only=True)
    stored = dict(con.execute("SELECT real_path, sha256 FROM sources").fetchall())
    last = con.execute("SELECT max(source_id) FROM sources").fetchone()
    assert last is not None
    known = StoredSources(con, int(last[0]))
    units = list(importer.plan_units([str(folder)], known, ImportSummary()))
    con.close()
    hints = {source.real_path: hint for unit in units
             for source, hint in zip(unit.sources, unit.known)
             if isinstance(source, Source)}
    # Every file of the 20 is planned once, with the hash stored of it, in 4 reads, not
    # one per unit.
    assert len(units) == 10
    assert len(hints) == len(stored) == 20
    assert hints == stored
    assert known.queries == 4
