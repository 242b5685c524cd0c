"""The evals table: evaluations stored per position and read back as they were searched."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from import_support import DATA, run_xqdb
from xqdb.db.evals import StoredEval, game_evals, read_evals, write_evals
from xqdb.db.analysed import mark_analysed
from xqdb.db.schema import SCHEMA_VERSION, connect
from xqdb.db.upgrade import IN_PLACE
from xqdb.engine import Cp, Mate, Wdl
from xqdb.analysis.games import Evaluation, game_positions
from xqdb.pipeline.importer import import_paths
from xqdb.rules.board import BLACK, RED, Move

ENGINE, LIMIT = "Fairy-Stockfish 11.1 LB 64 (uci-variant)", "nodes=20000"


def moves(text: str) -> tuple[Move, ...]:
    return tuple(Move.from_uci(m) for m in text.split())


@pytest.fixture
def game_db(tmp_path: Path) -> Path:
    db = tmp_path / "g.duckdb"
    import_paths([str(DATA / "pgn-chinese-15.pgn")], db, jobs=1)
    return db


def test_evaluations_come_back_as_they_were_stored(tmp_path: Path) -> None:
    con = connect(tmp_path / "e.duckdb")
    stored = {
        (11, RED, ENGINE, LIMIT): Evaluation(Cp(-42), None, Move.from_uci("h2e2"),
                                             moves("h2e2 h9g7"), 14, 20_000),
        (12, BLACK, ENGINE, LIMIT): Evaluation(Mate(-3), None, Move.from_uci("e9e8"),
                                               moves("e9e8"), 22, 19_000),
        (13, RED, "Pikafish (uci)", LIMIT): Evaluation(Cp(80), Wdl(310, 650, 40),
                                                       Move.from_uci("b2e2"), moves("b2e2"),
                                                       9, 20_001),
        (14, RED, ENGINE, LIMIT): Evaluation(Cp(35), None, Move.from_uci("h2e2"),
                                             moves("h2e2"), 12, 50_000, (Cp(-20), Cp(64))),
    }
    assert write_evals(con, [StoredEval(k, e) for k, e in stored.items()]) == 4
    assert read_evals(con) == stored
    assert read_evals(con, ENGINE, LIMIT) == {k: e for k, e in stored.items() if k[2] == ENGINE}
    assert read_evals(con, ENGINE, "depth=9") == {}
    row = con.execute("SELECT side, score_cp, mate, pv, status, origin FROM evals"
                      " WHERE key = 12").fetchone()
    assert row == ("black", None, -3, "e9e8", "ok", "search")
    assert con.execute("SELECT spread_low_cp, spread_high_cp FROM evals WHERE key IN (12, 14)"
                       " ORDER BY key").fetchall() == [(None, None), (-20, 64)]


def test_a_mate_in_the_spread_is_stored_beyond_any_score(tmp_path: Path) -> None:
    con = connect(tmp_path / "e.duckdb")
    key = (15, RED, ENGINE, LIMIT)
    write_evals(con, [StoredEval(key, Evaluation(Mate(3), spread=(Cp(480), Mate(3))))])
    assert con.execute("SELECT spread_low_cp, spread_high_cp FROM evals").fetchall() == [
        (480, 99_997)]
    assert read_evals(con)[key].spread == (Cp(480), Cp(99_997))


def test_a_failed_position_is_stored_and_replaced_when_it_succeeds(tmp_path: Path) -> None:
    con = connect(tmp_path / "e.duckdb")
    key = (99, RED, ENGINE, LIMIT)
    write_evals(con, [StoredEval(key, None, error="engine exited")])
    assert con.execute("SELECT status, error FROM evals").fetchall() == [
        ("failed", "engine exited")]
    assert read_evals(con) == {}  # a failure is no evaluation
    write_evals(con, [StoredEval(key, Evaluation(Cp(5)))])
    assert con.execute("SELECT status, score_cp FROM evals").fetchall() == [("ok", 5)]


def test_a_game_reads_its_own_evaluation_of_a_repetition(game_db: Path) -> None:
    con = duckdb.connect(str(game_db))
    start, ucis = con.execute("SELECT g.start_fen, list(m.uci ORDER BY m.ply) FROM games g"
                              " JOIN moves m USING (game_id) WHERE game_id = 1"
                              " GROUP BY ALL").fetchall()[0]
    positions = [(i, p.zobrist(), p.turn, repeated) for i, p, repeated in
                 game_positions(start, [Move.from_uci(u) for u in ucis])]
    repeats = [i for i, _, _, repeated in positions if repeated]
    assert repeats == [107, 108, 109, 110]
    # Shared rows as the analysis stores them, the repetitions with the game's history
    # (and a shared row for a repeated position, as another game may have stored it).
    write_evals(con, [StoredEval((key, turn, ENGINE, LIMIT), Evaluation(Cp(i)),
                                 game_id=1 if repeated else None, ply=i if repeated else None)
                      for i, key, turn, repeated in positions])
    _, key, turn, _ = positions[107]
    write_evals(con, [StoredEval((key, turn, ENGINE, LIMIT), Evaluation(Cp(-1000)))])
    found = game_evals(con, 1, ENGINE, LIMIT)
    assert sorted(found) == [i for i, _, _, _ in positions]
    assert [found[i].score for i in repeats] == [Cp(i) for i in repeats]
    assert read_evals(con, ENGINE, LIMIT)[(key, turn, ENGINE, LIMIT)].score == Cp(-1000)
    assert con.execute("SELECT count(*) FROM evals WHERE game_id = 1").fetchall() == [(4,)]


def test_an_upgrade_keeps_the_evaluations(game_db: Path) -> None:
    con = duckdb.connect(str(game_db))
    rows = [StoredEval((7, RED, ENGINE, LIMIT), Evaluation(Cp(12), best_move=Move.from_uci(
        "h2e2"), pv=moves("h2e2 h9g7"), depth=11, nodes=20_000)),
            StoredEval((8, BLACK, ENGINE, LIMIT), None, error="engine hung"),
            StoredEval((9, RED, ENGINE, LIMIT), Evaluation(Mate(2)), game_id=1, ply=30)]
    write_evals(con, rows)
    mark_analysed(con, [1, 2], ENGINE, LIMIT, [127, 80])
    before = con.execute("SELECT * FROM evals ORDER BY key").fetchall()
    analysed = con.execute("SELECT * FROM analysed_games ORDER BY game_id").fetchall()
    assert len(analysed) == 2
    # A database of the newest version whose upgrade rebuilds every table from the raw
    # records (the later ones are brought up to date in place).
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'",
                [str(min(IN_PLACE) - 1)])
    con.close()
    done = run_xqdb("upgrade", "--db", str(game_db))
    assert done.returncode == 0, done.stderr
    con = duckdb.connect(str(game_db), read_only=True)
    assert con.execute("SELECT * FROM evals ORDER BY key").fetchall() == before
    # Which games the pass covered comes along too (timestamps included).
    assert con.execute("SELECT * FROM analysed_games ORDER BY game_id").fetchall() == analysed
    assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall() == [
        (str(SCHEMA_VERSION),)]


def test_an_upgrade_from_version_12_adds_the_spread_and_keeps_the_evaluations(
        game_db: Path) -> None:
    con = duckdb.connect(str(game_db))
    write_evals(con, [StoredEval((7, RED, ENGINE, LIMIT), Evaluation(
        Cp(12), best_move=Move.from_uci("h2e2"), pv=moves("h2e2 h9g7"), depth=11,
        nodes=20_000))])
    before = con.execute("SELECT * EXCLUDE (spread_low_cp, spread_high_cp) FROM evals"
                         ).fetchall()
    for name in ("spread_low_cp", "spread_high_cp"):  # as version 12 wrote it
        con.execute(f"ALTER TABLE evals DROP COLUMN {name}")
    con.execute("UPDATE meta SET value = '12' WHERE key = 'schema_version'")
    con.close()
    done = run_xqdb("upgrade", "--db", str(game_db))
    assert done.returncode == 0, done.stderr
    assert "evals.spread_low_cp" in done.stdout
    con = duckdb.connect(str(game_db))
    assert con.execute("SELECT * EXCLUDE (spread_low_cp, spread_high_cp) FROM evals"
                       ).fetchall() == before
    assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall() == [
        (str(SCHEMA_VERSION),)]
    write_evals(con, [StoredEval((8, RED, ENGINE, LIMIT),
                                 Evaluation(Cp(5), spread=(Cp(-30), Cp(40))))])
    assert read_evals(con)[(8, RED, ENGINE, LIMIT)].spread == (Cp(-30), Cp(40))
    con.close()
