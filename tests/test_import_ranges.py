"""A big PGN file is read in byte ranges cut at record starts, by every worker at once,
and stored a range per transaction: the database is the one a reading in one piece gives,
and a kill -9 in the middle of the file resumes at the next range.

The file is made of the real PGN games of tests/data (UTF-8 and GBK files, so the ranges
must also read with the encoding found at the file's head), one invalid record in the
middle, then the same games again (duplicates linked across ranges). Small ranges make a
small file many ranges.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from import_support import DATA, all_rows, kill_after_commits, rows, run_xqdb
from xqdb.pipeline.importer import RANGE_BYTES_VARIABLE, import_paths

#: Bytes per range in these tests: the file is cut into several dozen.
RANGE = 6000
BAD = b'[Event "bad"]\n[Red "nobody"]\n1. h2e2 h2e2 *\n\n'


@pytest.fixture(scope="module")
def big_pgn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    games = b"".join(p.read_bytes().strip() + b"\n\n" for p in sorted(DATA.rglob("*"))
                     if p.suffix.lower() == ".pgn" and not p.read_bytes().startswith(
                         (b"\xff\xfe", b"\xfe\xff")))
    path = tmp_path_factory.mktemp("big") / "big.pgn"
    path.write_bytes(games + BAD + games)
    assert path.stat().st_size > 20 * RANGE
    return path


@pytest.fixture(scope="module")
def whole(big_pgn: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The file imported in one piece, by one worker."""
    db = tmp_path_factory.mktemp("whole") / "whole.duckdb"
    import_paths([str(big_pgn)], db, jobs=1, range_bytes=1 << 40)
    assert rows(db, "SELECT count(*) FROM source_ranges") == [(0,)]
    return db


def _ranges(db: Path) -> list[tuple]:
    return rows(db, "SELECT range, start, stop, line, first_record, records, error"
                    " FROM source_ranges ORDER BY range")


@pytest.mark.slow
def test_two_jobs_on_ranges_give_the_rows_and_ids_of_one_reading(
        big_pgn: Path, whole: Path, tmp_path: Path) -> None:
    two, one = tmp_path / "two.duckdb", tmp_path / "one.duckdb"
    summary = import_paths([str(big_pgn)], two, jobs=2, range_bytes=RANGE)
    import_paths([str(big_pgn)], one, jobs=1, range_bytes=RANGE)
    ranges = _ranges(two)
    assert len(ranges) > 20
    # The ranges tile the file, each starting where the one before stopped.
    assert ranges[0][1] == 0 and ranges[-1][2] == big_pgn.stat().st_size
    assert all(a[2] == b[1] for a, b in zip(ranges, ranges[1:]))
    assert sum(r[5] for r in ranges) == summary.records
    assert all_rows(two) == all_rows(whole) == all_rows(one)
    assert rows(two, "SELECT * FROM stored_moves ORDER BY ALL") == \
        rows(whole, "SELECT * FROM stored_moves ORDER BY ALL")
    # The accounting of the one source is that of the reading in one piece.
    (records, error), = rows(two, "SELECT records, error FROM sources")
    assert error is None and records == summary.records == \
        summary.imported + summary.duplicates
    assert summary.duplicates > 0 and summary.invalid_total > 0


@pytest.mark.slow
def test_a_record_across_a_nominal_cut_lands_once_in_one_range(
        big_pgn: Path, whole: Path, tmp_path: Path) -> None:
    db = tmp_path / "ranges.duckdb"
    import_paths([str(big_pgn)], db, jobs=2, range_bytes=RANGE)
    offsets = [o for o, in rows(whole, "SELECT \"offset\" FROM game_records ORDER BY record_index")]
    for number, start, stop, *_ in _ranges(db)[:-1]:
        # The record holding the byte a range of RANGE bytes would end at...
        straddling = max(i for i, o in enumerate(offsets) if o < start + RANGE)
        assert offsets[straddling] < start + RANGE < (offsets + [1 << 62])[straddling + 1]
        # ...is read whole by that range, which stops at the next record's start.
        assert stop == offsets[straddling + 1], number
        assert rows(db, "SELECT count(*), min(text) FROM raw_records WHERE record_index = ?",
                    straddling) == rows(whole, "SELECT count(*), min(text) FROM raw_records"
                                               " WHERE record_index = ?", straddling)


@pytest.mark.slow
def test_errors_name_the_record_by_its_number_in_the_whole_file(
        big_pgn: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # What `xqdb read` (one reader, the whole file) says of the bad record...
    read = run_xqdb("read", str(big_pgn), "--all-errors")
    said = [line.strip() for line in read.stdout.splitlines() if "no piece on h2" in line]
    assert len(said) == 1 and ", ply 2:" in said[0], read.stdout
    where = said[0].split(", ply 2:")[0]  # "big.pgn, record N, line L"
    record = int(where.split("record ")[1].split(",")[0])
    assert record > 50  # far into the file: not in its first range
    # ...the import on ranges logs in the same words, and stores under the same number.
    monkeypatch.setenv(RANGE_BYTES_VARIABLE, str(RANGE))
    db, log = tmp_path / "g.duckdb", tmp_path / "log"
    done = run_xqdb("import", str(big_pgn), "--db", str(db), "--jobs", "2", "-v",
                    "--log-file", str(log))
    assert done.returncode == 0, done.stderr
    assert f"{where}: invalid at ply 2: illegal move" in log.read_text(encoding="utf-8")
    assert rows(db, "SELECT r.record_index, g.error_ply FROM game_records r JOIN games g"
                    " USING (game_id) WHERE g.error LIKE '%no piece on h2%'") == [(record - 1, 2)]
    assert len(_ranges(db)) > 20


def _import_args(big_pgn: Path, db: Path, log: Path) -> list[str]:
    return ["import", str(big_pgn), "--db", str(db), "--jobs", "2", "-vv",
            "--log-file", str(log)]


@pytest.mark.slow
def test_kill_9_in_the_middle_of_a_file_resumes_at_the_next_range(
        big_pgn: Path, whole: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RANGE_BYTES_VARIABLE, str(RANGE // 2))
    clean = tmp_path / "clean.duckdb"
    assert run_xqdb(*_import_args(big_pgn, clean, tmp_path / "clean.log")).returncode == 0
    db, log = tmp_path / "killed.duckdb", tmp_path / "killed.log"
    kill_after_commits(_import_args(big_pgn, db, log), log, 5)
    # Killed in the middle of the file: some ranges are stored, and the source says so.
    stored = len(_ranges(db))
    assert 5 <= stored < len(_ranges(clean))
    (error, records), = rows(db, "SELECT error, records FROM sources")
    assert error.startswith("partly stored: bytes 0-")
    again = run_xqdb(*_import_args(big_pgn, db, tmp_path / "again.log"))
    assert again.returncode == 0, again.stderr
    # The second run read only the ranges not stored...
    read_again = int(again.stdout.split("records: ")[1].split(" read")[0].replace(",", ""))
    assert read_again == rows(clean, "SELECT records FROM sources")[0][0] - records
    # ...and the database is the uninterrupted one, which is the one of a single reading.
    assert all_rows(db) == all_rows(clean) == all_rows(whole)
    assert _ranges(db) == _ranges(clean)
    assert rows(db, "SELECT * FROM stored_moves ORDER BY ALL") == \
        rows(clean, "SELECT * FROM stored_moves ORDER BY ALL")


@pytest.mark.slow
def test_a_file_changed_after_a_killed_import_is_read_again_from_its_start(
        big_pgn: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RANGE_BYTES_VARIABLE, str(RANGE // 2))
    path = tmp_path / "changing.pgn"
    path.write_bytes(big_pgn.read_bytes())
    db, log = tmp_path / "g.duckdb", tmp_path / "log"
    kill_after_commits(_import_args(path, db, log), log, 3)
    assert rows(db, "SELECT count(*) FROM source_ranges")[0][0] >= 3
    # The file's first range changes: what is stored of it must not be kept.
    path.write_bytes(path.read_bytes().replace(b"[Event", b'[Site "x"]\n[Event', 1))
    again = run_xqdb(*_import_args(path, db, tmp_path / "again.log"))
    assert again.returncode == 0, again.stderr
    fresh = tmp_path / "fresh.duckdb"
    assert run_xqdb(*_import_args(path, fresh, tmp_path / "fresh.log")).returncode == 0
    # Replaced, as a file edited in place is: new ids, the fresh reading's rows.
    assert "1 stored before replaced" in again.stdout
    for sql in ("SELECT path, sha256, bytes, records, error FROM sources",
                "SELECT record_index, text FROM raw_records ORDER BY ALL",
                "SELECT record_index, is_primary, status FROM game_records ORDER BY ALL",
                "SELECT count(*) FROM games", "SELECT count(*) FROM stored_moves"):
        assert rows(db, sql) == rows(fresh, sql), sql


@pytest.mark.slow
def test_an_unchanged_big_file_is_skipped_on_the_next_import(big_pgn: Path,
                                                             tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    first = import_paths([str(big_pgn)], db, jobs=2, range_bytes=RANGE)
    again = import_paths([str(big_pgn)], db, jobs=2, range_bytes=RANGE)
    assert first.sources == 1 and first.records > 0
    assert (again.sources, again.skipped_sources, again.records) == (0, 1, 0)


@pytest.mark.parametrize("send_inputs", [False, pytest.param(True, marks=pytest.mark.slow)])
@pytest.mark.slow
def test_ranges_read_on_a_dask_cluster_give_the_same_database(
        big_pgn: Path, whole: Path, tmp_path: Path, send_inputs: bool) -> None:
    import logging

    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=logging.CRITICAL) as cluster:
        db = tmp_path / "cluster.duckdb"
        summary = import_paths([str(big_pgn)], db, scheduler=cluster.scheduler_address,
                               send_inputs=send_inputs, range_bytes=RANGE)
    assert summary.cluster is not None
    assert len(_ranges(db)) > 20
    assert all_rows(db) == all_rows(whole)


@pytest.mark.slow
def test_force_reads_a_big_file_again_in_ranges_and_replaces_its_rows(
        big_pgn: Path, whole: Path, tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    import_paths([str(big_pgn)], db, jobs=2, range_bytes=RANGE)
    again = import_paths([str(big_pgn)], db, jobs=2, range_bytes=RANGE, force=True)
    assert again.replaced_sources == 1 and again.records == again.imported + again.duplicates
    for sql in ("SELECT path, sha256, bytes, records, error FROM sources",
                "SELECT record_index, text FROM raw_records ORDER BY ALL",
                "SELECT count(*) FROM games", "SELECT count(*) FROM stored_moves"):
        assert rows(db, sql) == rows(whole, sql), sql
    assert len(_ranges(db)) > 20


def test_a_big_position_list_is_read_in_ranges_with_the_rows_of_one_reading(
        tmp_path: Path) -> None:
    # xqwizard's EPD files (GBK names), twice over with blank lines and a line that is no
    # FEN between: a few dozen ranges of whole lines.
    lists = [(DATA / "endgames" / name).read_bytes() for name in ("FUNNY.EPD", "_K.EPD")]
    path = tmp_path / "positions.epd"
    path.write_bytes(b"\n\n".join(lists) + b"\nnot a position\n" + b"\r\n".join(lists))
    assert path.stat().st_size > 20 * 2000
    whole, two = tmp_path / "whole.duckdb", tmp_path / "two.duckdb"
    import_paths([str(path)], whole, jobs=1, range_bytes=1 << 40)
    summary = import_paths([str(path)], two, jobs=2, range_bytes=2000)
    ranges = _ranges(two)
    assert len(ranges) > 20
    assert ranges[0][1] == 0 and ranges[-1][2] == path.stat().st_size
    assert all(a[2] == b[1] for a, b in zip(ranges, ranges[1:]))
    assert sum(r[5] for r in ranges) == summary.records == summary.positions
    assert all_rows(two) == all_rows(whole)
    # Placed as in the whole file: the line that is no FEN, by its line number.
    line = path.read_bytes().split(b"\n").index(b"not a position") + 1
    assert rows(two, "SELECT line FROM positions WHERE error LIKE '%not a position%'") == \
        [(line,)]
