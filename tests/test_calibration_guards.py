"""``xqdb calibrate``'s guard rails on real analysed games: too few games fit nothing; a
fit is stored only if it predicts games it did not see better than the curve in use, and
comes with intervals, a reliability table and the scale by phase."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import duckdb
import pytest

from import_support import DATA, rows, run_xqdb
from xqdb.engine import EngineSpec, Limit
from xqdb.pipeline.analyze import analyse_database
from xqdb.pipeline.importer import import_paths


def curves(db: Path) -> dict[str, tuple]:
    return {r[0]: r[1:] for r in rows(db, "SELECT * FROM win_curves")}


STANDARD_FEN = b'[FEN "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w'


def ccpd_games(shared_data: Path, folder: Path, count: int, from_start: bool = False) -> Path:
    """A database of the first ``count`` games of ccpd-dev.zip (they have results), or of
    those played from the standard start."""
    folder.mkdir()
    with zipfile.ZipFile(shared_data / "ccpd-dev.zip") as archive:
        members = [m for m in archive.namelist() if m.lower().endswith(".pgn")
                   and (not from_start or STANDARD_FEN in archive.read(m))][:count]
        for number, member in enumerate(members):
            (folder / f"{number}.pgn").write_bytes(archive.read(member))
    db = folder.with_name("ccpd.duckdb")
    import_paths([str(folder)], db, jobs=1)
    return db


@pytest.mark.slow
def test_a_few_games_fit_no_curve(shared_data: Path, tmp_path: Path) -> None:
    # Three games with results, as the 204 positions of 3 games a curve was once fitted on.
    db = ccpd_games(shared_data, tmp_path / "ccpd", 3)
    analyse_database(db, EngineSpec.builtin(), Limit(depth=1), jobs=1)
    before = curves(db)
    done = run_xqdb("calibrate", "--db", str(db), "--min-ply", "1")
    assert done.returncode == 3
    assert re.search(r"positions of 3 games are too few to fit a curve \(at least 500 "
                     r"positions of 20 games\)", done.stdout)
    assert curves(db) == before


@pytest.mark.slow
def test_only_the_games_analysed_give_samples(shared_data: Path, tmp_path: Path) -> None:
    from xqdb.db.judgements import database_samples

    db = ccpd_games(shared_data, tmp_path / "ccpd", 3, from_start=True)
    analyse_database(db, EngineSpec.builtin(), Limit(depth=1), jobs=1, where="game_id = 2")
    (identity,), = rows(db, "SELECT DISTINCT engine FROM evals")
    # The start position was searched for game 2 alone; games 1 and 3 reach it too.
    assert rows(db, "SELECT count(DISTINCT key_before) FROM moves WHERE ply = 1") == [(1,)]
    con = duckdb.connect(str(db), read_only=True)
    try:
        samples = database_samples(con, identity, min_ply=1)
    finally:
        con.close()
    assert {game for _, _, game, _, _ in samples} == {2}
    assert len(samples) == rows(db, "SELECT plies FROM games WHERE game_id = 2")[0][0] - \
        rows(db, "SELECT count(*) FROM evals WHERE mate IS NOT NULL")[0][0]


@pytest.mark.slow  # analyses 40 games of ccpd-dev.zip with the built-in engine
def test_a_fit_is_stored_only_if_it_beats_the_curve_in_use_on_unseen_games(
        shared_data: Path, tmp_path: Path) -> None:
    db = ccpd_games(shared_data, tmp_path / "ccpd", 40)
    analyse_database(db, EngineSpec.builtin(), Limit(depth=1), jobs=2)
    (identity,), = rows(db, "SELECT DISTINCT engine FROM evals")
    # A poor curve in use for this engine (the longest start of its name wins): any fit
    # on these games predicts the unseen ones better.
    con = duckdb.connect(str(db))
    con.execute("INSERT INTO win_curves (engine, cp_offset, cp_scale, fitted_on) "
                "VALUES (?, 400, 40, 'a poor curve')", [identity])
    con.close()
    first = run_xqdb("calibrate", "--db", str(db), "--min-ply", "1", "--min-positions", "300")
    print(first.stdout)
    name = identity
    assert first.returncode == 0, first.stderr
    assert "90 % interval: tempo" in first.stdout and "scale by phase: plies 0-20" in first.stdout
    lo, hi = (float(v) for v in re.search(r"scale (\d+) \.\. (\d+) cp", first.stdout).groups())
    offset, scale = curves(db)[name][:2]
    assert lo <= scale <= hi
    seen, shipped = (float(v) for v in re.search(
        r"log loss (\d+\.\d+), the curve in use (\d+\.\d+)", first.stdout).groups())
    assert seen < shipped and f"{name}: tempo {offset:+.0f} cp" in first.stdout
    # Every game is judged, each by a fit that did not see it: no quarter decides alone.
    fitted = re.search(r"fitted on (\d+) games: .* from ([\d,]+) positions", first.stdout)
    unseen = re.search(r"on (\d+) games it did not see, each predicted by a fit on the others "
                       r"\(4 folds, ([\d,]+) positions\)", first.stdout)
    assert fitted and unseen and fitted.groups() == unseen.groups()
    table = re.findall(r"(\d\.\d)-(\d\.\d): (0\.\d+|1\.000) / (0\.\d+|1\.000) \(", first.stdout)
    assert len(table) >= 5
    # Fitted again on the same games, the fit is the curve in use: no better, not stored.
    stored = curves(db)
    second = run_xqdb("calibrate", "--db", str(db), "--min-ply", "1", "--min-positions", "300")
    assert second.returncode == 3 and "does no better on it than the curve in use" in second.stdout
    assert curves(db) == stored
