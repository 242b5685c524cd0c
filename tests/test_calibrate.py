"""``xqdb calibrate``: a win curve fitted from a database's own analysis of games with known
results, and thresholds stored, both changing what ``xqdb blunders`` reports."""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import duckdb
import pytest

from blunder_support import blunder_rows, fetch
from datafiles import DATA
from import_support import invoke_xqdb, run_xqdb
from xqdb.engine.score import CURVES_FITTED_ON, DEFAULT_CURVES

FAIRY = "/usr/games/fairy-stockfish"


def curves(db: Path) -> dict[str, tuple]:
    return {row[0]: row[1:] for row in fetch(
        db, "SELECT engine, cp_offset, cp_scale, positions, log_loss, fitted_on, cp_late_scale "
            "FROM win_curves")}


@pytest.mark.slow  # analyses 30 games with Fairy-Stockfish
@pytest.mark.skipif(not Path(FAIRY).exists(), reason=f"Fairy-Stockfish is not at {FAIRY}")
def test_a_curve_is_fitted_per_engine_from_games_with_results(shared_data: Path,
                                                              tmp_path: Path) -> None:
    folder = tmp_path / "ccpd"
    folder.mkdir()
    with zipfile.ZipFile(shared_data / "ccpd-dev.zip") as archive:
        members = [m for m in archive.namelist() if m.lower().endswith(".pgn")][:30]
        for number, member in enumerate(members):
            (folder / f"{number}.pgn").write_bytes(archive.read(member))
    db = tmp_path / "ccpd.duckdb"
    for command in (("import", str(folder)), ("analyze", "--engine", FAIRY, "--nodes", "2000",
                                               "--jobs", "1", "-q")):
        done = run_xqdb(*command, "--db", str(db))
        assert done.returncode == 0, done.stderr
    before = blunder_rows(db)
    # Only a fit that beats the curve in use on unseen games is stored: here the curve in
    # use is a poor one named for this version, so the fit replaces it.
    (identity,), = fetch(db, "SELECT DISTINCT engine FROM evals")
    con = duckdb.connect(str(db))
    con.execute("INSERT INTO win_curves (engine, cp_offset, cp_scale, fitted_on) "
                "VALUES (?, 400, 40, 'a poor curve')",
                [identity])
    con.close()
    done = invoke_xqdb("calibrate", "--db", str(db), "--engine", "Fairy", "--min-ply", "10",
                    "--min-games", "10", "--min-positions", "200")
    assert done.returncode == 0, done.stderr
    print(done.stdout)
    fitted = {name: row for name, row in curves(db).items() if row[2] is not None}
    assert re.search(r"on \d+ games it did not see, each predicted by a fit on the others", done.stdout)
    assert len(fitted) == 1
    (name, (offset, scale, positions, log_loss, fitted_on, late_scale)), = fitted.items()
    assert name.startswith("Fairy-Stockfish") and positions >= 200
    assert 0 < scale < 1000 and -200 < offset < 200 and log_loss < 0.693
    # These 30 records are middle-game fragments (their plies count from the fragment):
    # too few positions early and late for a scale that changes with the phase.
    assert late_scale is None and "from ply 100 on" not in done.stdout
    assert re.search(rf"{re.escape(f'{name}: tempo {offset:+.0f} cp')} \(from [\d,]+ best "
                     rf"moves\), Red's edge [-+]\d+ cp, scale {scale:.0f} cp", done.stdout)
    # The shipped row stays, for other versions; the views now judge by the fitted curve.
    shipped = DEFAULT_CURVES["Fairy-Stockfish"]
    assert curves(db)["Fairy-Stockfish"][:2] == (shipped.offset, shipped.scale)
    after = blunder_rows(db)
    assert [r["loss"] for r in after] != [r["loss"] for r in before]


def test_thresholds_are_stored_and_bad_ones_refused(tmp_path: Path) -> None:
    db = tmp_path / "empty.duckdb"
    shutil.copy(DATA / "ccpd" / "midgame-00000150.pgn", tmp_path / "games.pgn")
    assert invoke_xqdb("import", str(tmp_path / "games.pgn"), "--db", str(db),
                       "-q").returncode == 0
    done = invoke_xqdb("calibrate", "--db", str(db), "--blunder", "0.3", "--mistake", "0.15")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "thresholds: inaccuracy 0.05, mistake 0.15, blunder 0.3"
    stored = dict(fetch(db, "SELECT * FROM judgement_thresholds"))
    assert stored == {"inaccuracy": 0.05, "mistake": 0.15, "blunder": 0.3}
    bad = invoke_xqdb("calibrate", "--db", str(db), "--inaccuracy", "0.5")
    assert bad.returncode == 2 and bad.stderr.startswith("Error: thresholds must rise")


def test_an_upgrade_keeps_the_fitted_curves_and_thresholds(tmp_path: Path) -> None:
    db = tmp_path / "games.duckdb"
    shutil.copy(DATA / "ccpd" / "midgame-00000150.pgn", tmp_path / "games.pgn")
    assert invoke_xqdb("import", str(tmp_path / "games.pgn"), "--db", str(db),
                       "-q").returncode == 0
    assert invoke_xqdb("calibrate", "--db", str(db), "--blunder", "0.3").returncode == 0
    con = duckdb.connect(str(db))
    try:
        # As a database written by version 7 would read: no cp_late_scale yet.
        for view in ("player_blunders", "blunders", "judgements"):
            con.execute(f"DROP VIEW {view}")
        for column in ("cp_late_scale", "cp_red_edge", "fitted_at"):
            con.execute(f"ALTER TABLE win_curves DROP COLUMN {column}")
        con.execute("INSERT INTO win_curves VALUES ('Pikafish', 10, 120, 5000, 0.5, 'a fit')")
        # Version 7 shipped another Fairy-Stockfish curve.
        con.execute("UPDATE win_curves SET cp_offset = 52, cp_scale = 145 "
                    "WHERE engine = 'Fairy-Stockfish'")
        con.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    finally:
        con.close()
    done = run_xqdb("upgrade", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert curves(db)["Pikafish"] == (10.0, 120.0, 5000, 0.5, "a fit", None)
    # The fitted curves stay; the shipped ones are this version's.
    shipped = DEFAULT_CURVES["Fairy-Stockfish"]
    assert curves(db)["Fairy-Stockfish"] == (
        shipped.offset, shipped.scale, None, None,
        f"shipped default, {CURVES_FITTED_ON['Fairy-Stockfish']}", shipped.late_scale)
    assert fetch(db, "SELECT min_loss FROM judgement_thresholds WHERE class = 'blunder'"
                 ) == [(0.3,)]
