"""The judgement views on a tiny database, against values worked out by hand.

One game of five plies (the red horse out and back twice, so plies 4 and 5 repeat
positions), with evaluations written as an analysis would store them: shared ones, one
searched with the game's history, a deeper pair for ply 1, and another engine with WDL.
"""

from __future__ import annotations

import math
import shutil
import statistics
from pathlib import Path

import duckdb
import pytest

from xqdb.db.analysed import mark_analysed
from xqdb.db.schema import connect
from xqdb.analysis.games import Thresholds, WinCurve
from xqdb.analysis.calibration import fit_win_curve
from xqdb.engine.score import DEFAULT_CURVES
from xqdb.db.judgements import database_samples
from xqdb.db.judgements import (
    Selection, StoredCurve, game_report, player_report, store_curves, store_thresholds,
    worst_moves,
)
from xqdb.pipeline.importer import import_paths
from xqdb.rules import STARTING_FEN

GAME = """[Event "horse out and back"]
[Red "甲"]
[Black "乙"]
[Result "1-0"]

1. h0g2 h9g7 2. g2h0 g7h9 3. h0g2 1-0
"""
FAIRY = "Fairy-Stockfish 11.1 LB 64 (uci-variant)"
PIKA = "Pikafish dev (uci)"


SHIPPED = DEFAULT_CURVES["Fairy-Stockfish"]


def sigmoid(cp: float, ply: int, tempo: float = SHIPPED.offset, scale: float = SHIPPED.scale,
            late_scale: float | None = SHIPPED.late_scale,
            red_edge: float = SHIPPED.red_edge) -> float:
    """The shipped Fairy-Stockfish curve after ``ply`` plies of this game from the start
    (Red to move after an even number), as docs/schema.md gives it."""
    t = min(ply, 100) / 100
    inverse = (1 - t) / scale + t / (late_scale or scale)
    sign = 1 if ply % 2 == 0 else -1
    return 1 / (1 + math.exp(-((cp - tempo) * inverse + sign * red_edge / scale)))


def lichess_accuracy(before: float, after: float) -> float:
    """Lichess's move accuracy from win percentages, as its page defines it."""
    if after >= before:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * (before - after)) \
        - 3.166924740191411 + 1
    return min(100.0, max(0.0, raw))


#: The mover's expected score before and after each ply, by hand, for Fairy-Stockfish.
EXPECTED = {
    1: (sigmoid(60, 0), 1 - sigmoid(200, 1)),      # the deeper pair (nodes=5000) counts
    2: (sigmoid(-40, 1), 1 - sigmoid(300, 2)),
    3: (sigmoid(300, 2), 0.0),                     # Black then mates in 3
    4: (1.0, 1 - sigmoid(-500, 4)),                # the history-bound evaluation of the start
    5: (sigmoid(-500, 4), 1 - sigmoid(-40, 5)),
}
CLASSES = {1: "blunder", 2: "blunder", 3: "allowed_mate", 4: None, 5: None}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("views")
    (folder / "game.pgn").write_text(GAME, encoding="utf-8")
    path = folder / "tiny.duckdb"
    import_paths([str(folder / "game.pgn")], str(path), jobs=1)
    con = connect(path)
    keys = [k for k, in con.execute("SELECT key_before FROM moves ORDER BY ply").fetchall()]
    keys.append(con.execute("SELECT key_after FROM moves WHERE ply = 5").fetchone()[0])
    rows = [  # key, side, engine, limit, game_id, ply, cp, mate, wdl, best, nodes
        (keys[0], "red", FAIRY, "nodes=1000", None, None, 60, None, None, "h2e2", 1000),
        (keys[1], "black", FAIRY, "nodes=1000", None, None, -40, None, None, "b9c7", 1000),
        (keys[2], "red", FAIRY, "nodes=1000", None, None, 300, None, None, "b0c2", 1000),
        (keys[3], "black", FAIRY, "nodes=1000", None, None, None, 3, None, "b9c7", 1000),
        (keys[4], "red", FAIRY, "nodes=1000", 1, 4, -500, None, None, "h0g2", 1000),
        (keys[0], "red", FAIRY, "nodes=5000", None, None, 60, None, None, "h2e2", 5000),
        (keys[1], "black", FAIRY, "nodes=5000", None, None, 200, None, None, "h9g7", 5000),
        (keys[0], "red", PIKA, "depth=9", None, None, 999, None, (500, 300, 200), "h2e2", 10),
        (keys[1], "black", PIKA, "depth=9", None, None, 999, None, (100, 200, 700), "h9g7", 10),
    ]
    assert keys[4] == keys[0] and keys[5] == keys[1]
    for key, side, engine, limit, game, ply, cp, mate, wdl, best, nodes in rows:
        con.execute("INSERT INTO evals (key, side, engine, search_limit, game_id, ply, "
                    "score_cp, mate, wdl_win, wdl_draw, wdl_loss, best_move, nodes, status, "
                    "origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'ok', 'search')",
                    [key, side, engine, limit, game, ply, cp, mate, *(wdl or (None,) * 3),
                     best, nodes])
    for engine, limit in {(r[2], r[3]) for r in rows}:  # as each pass records its games
        mark_analysed(con, [1], engine, limit, [6])
    con.close()
    return path


def judged(db: Path, engine: str) -> dict[int, dict]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        cursor = con.execute("SELECT * FROM judgements WHERE engine = ? ORDER BY ply", [engine])
        names = [d[0] for d in cursor.description]
        return {row[1]: dict(zip(names, row)) for row in cursor.fetchall()}
    finally:
        con.close()


def test_each_move_is_judged_as_worked_out_by_hand(db: Path) -> None:
    rows = judged(db, FAIRY)
    assert sorted(rows) == [1, 2, 3, 4, 5]
    for ply, (before, after) in EXPECTED.items():
        row = rows[ply]
        assert row["expected_before"] == pytest.approx(before), ply
        assert row["expected_after"] == pytest.approx(after), ply
        assert row["loss"] == pytest.approx(max(0.0, before - after)), ply
        assert row["class"] == CLASSES[ply], ply
        assert row["accuracy"] == pytest.approx(lichess_accuracy(100 * before, 100 * after))
    assert rows[1]["search_limit"] == "nodes=5000" and rows[2]["search_limit"] == "nodes=1000"
    assert [rows[p]["repeats"] for p in range(1, 6)] == [False, False, False, True, True]
    assert (rows[2]["side"], rows[2]["move"], rows[2]["best_move"]) == ("black", "h9g7", "b9c7")


def test_a_game_not_analysed_is_judged_by_its_own_evaluations_alone(db: Path,
                                                                   tmp_path: Path) -> None:
    copy = tmp_path / "own.duckdb"
    shutil.copy(db, copy)
    con = duckdb.connect(str(copy))
    # The position after ply 5 searched with the game's history, as ply 4's was: ply 5 has
    # both its evaluations of its own.
    key = con.execute("SELECT key_after FROM moves WHERE ply = 5").fetchone()[0]
    con.execute("INSERT INTO evals (key, side, engine, search_limit, game_id, ply, score_cp,"
                " best_move, nodes, status, origin) VALUES (?, 'black', ?, 'nodes=1000', 1, 5,"
                " -40, 'b9c7', 1000, 'ok', 'search')", [key, FAIRY])
    con.execute("DELETE FROM analysed_games")
    left = con.execute("SELECT game_id, ply, engine, search_limit, bound FROM judgements"
                       ).fetchall()
    con.close()
    assert left == [(1, 5, FAIRY, "nodes=1000", 2)]


def test_the_blunders_view_holds_the_classed_moves(db: Path) -> None:
    con = duckdb.connect(str(db), read_only=True)
    try:
        found = con.execute("SELECT ply, class FROM blunders ORDER BY ply").fetchall()
    finally:
        con.close()
    assert found == [(1, "blunder"), (2, "blunder"), (3, "allowed_mate")]


def test_an_engine_with_wdl_is_judged_by_its_wdl(db: Path) -> None:
    row = judged(db, PIKA)[1]
    assert row["expected_before"] == pytest.approx(0.65)
    assert row["expected_after"] == pytest.approx(0.80)
    assert row["loss"] == 0 and row["class"] is None


def reference_game_accuracy(moves: dict[int, dict]) -> dict[str, float]:
    """Lichess's game accuracy per side, from the judged moves (a second implementation)."""
    plies = sorted(moves)
    red = [100 * (m["expected_before"] if m["side"] == "red" else 1 - m["expected_before"])
           for m in (moves[p] for p in plies)]
    last = moves[plies[-1]]
    red.append(100 * (last["expected_after"] if last["side"] == "red"
                      else 1 - last["expected_after"]))
    size = min(8, max(2, len(plies) // 10))
    windows = [red[:size]] * (size - 2) + [red[i:i + size] for i in range(len(red) - size + 1)]
    weights = [min(12.0, max(0.5, statistics.pstdev(w))) for w in windows]
    out = {}
    for side in ("red", "black"):
        pairs = [(moves[p]["accuracy"], weights[i]) for i, p in enumerate(plies)
                 if moves[p]["side"] == side]
        weighted = sum(a * w for a, w in pairs) / sum(w for _, w in pairs)
        harmonic = len(pairs) / sum(1 / max(a, 1.0) for a, _ in pairs)
        out[side] = (weighted + harmonic) / 2
    return out


def test_the_player_view_counts_losses_and_accuracy_per_player(db: Path) -> None:
    moves = judged(db, FAIRY)
    accuracy = reference_game_accuracy(moves)
    con = duckdb.connect(str(db), read_only=True)
    try:
        cursor = con.execute("SELECT * FROM player_blunders WHERE engine = ?", [FAIRY])
        names = [d[0] for d in cursor.description]
        players = {row[0]: dict(zip(names, row)) for row in cursor.fetchall()}
    finally:
        con.close()
    red, black = players["甲"], players["乙"]
    assert (red["games"], red["moves"], red["blunders"], red["mate_errors"]) == (1, 3, 1, 1)
    assert red["avg_loss"] == pytest.approx(sum(moves[p]["loss"] for p in (1, 3, 5)) / 3)
    assert red["blunders_per_100"] == pytest.approx(100 / 3)
    assert (black["moves"], black["mistakes"], black["blunders"]) == (2, 0, 1)
    assert red["accuracy"] == pytest.approx(accuracy["red"])
    assert black["accuracy"] == pytest.approx(accuracy["black"])
    assert black["accuracy"] > red["accuracy"]


def test_stored_thresholds_and_curves_change_the_views_without_recomputing(db: Path,
                                                                           tmp_path: Path) -> None:
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(db.read_bytes())
    con = connect(copy)
    try:
        store_thresholds(con, Thresholds(0.05, 0.10, 0.15))
        assert con.execute("SELECT class FROM blunders WHERE ply = 2").fetchone() == ("blunder",)
        # The engine's own move is never classed, whatever the drop after it.
        con.execute("UPDATE evals SET best_move = 'h9g7' WHERE best_move = 'b9c7'")
        assert con.execute("SELECT class FROM judgements WHERE ply = 2 AND engine = ?",
                           [FAIRY]).fetchone() == (None,)
        store_curves(con, [StoredCurve(FAIRY, WinCurve(scale=1000.0))])
        loss = con.execute("SELECT loss FROM judgements WHERE ply = 2 AND engine = ?",
                           [FAIRY]).fetchone()[0]
    finally:
        con.close()
    assert loss == pytest.approx((1 / (1 + math.exp(40 / 1000))) - (1 - 1 / (1 + math.exp(-0.3))))


def test_reports_select_by_engine_player_and_thresholds(db: Path) -> None:
    con = connect(db, read_only=True)
    try:
        worst = worst_moves(con, Selection(engine="Fairy"))
        lenient = worst_moves(con, Selection(engine="Fairy",
                                             thresholds=Thresholds(0.05, 0.1, 0.3)))
        black_only = worst_moves(con, Selection(player="乙"))
        games = game_report(con, Selection(engine="Fairy", game=1))
        players = player_report(con, Selection(engine="Fairy", player="甲"))
    finally:
        con.close()
    assert [(m.ply, m.judgement) for m in worst] == [(3, "allowed_mate"), (1, "blunder"),
                                                    (2, "blunder")]
    assert worst[0].player == "甲" and worst[1].fen == STARTING_FEN
    assert [(m.ply, m.judgement) for m in lenient][-1] == (2, "mistake")
    assert [m.ply for m in black_only] == [2]
    assert [(r[1], r[2]) for r in games.rows] == [("red", "甲"), ("black", "乙")]
    assert [r[0] for r in players.rows] == ["甲"]


def test_a_curve_is_fitted_from_the_database(db: Path) -> None:
    con = connect(db, read_only=True)
    try:
        samples = database_samples(con, FAIRY, min_ply=1)
    finally:
        con.close()
    # Red won: Red to move at plies 1, 3 and 5 (cp 60, 300, and -500 bound to the game's
    # history) scores 1; Black at ply 2 (the deeper search's 200, not -40) scores 0, and
    # at ply 4 it has a mate, which is left out.
    assert sorted(samples) == sorted([(60.0, 1.0, 1, 1, 1), (200.0, 0.0, 1, 2, -1),
                                      (300.0, 1.0, 1, 3, 1), (-500.0, 1.0, 1, 5, 1)])
    with pytest.raises(ValueError, match="too few"):
        fit_win_curve([(cp, y, ply, turn) for cp, y, _, ply, turn in samples], [])
