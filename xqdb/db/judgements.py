"""The judgement views over ``evals``, the reports built on them, and their settings.

The rule that judges a move is :mod:`xqdb.analysis.judgement`'s (its SQL ``CASE`` is
generated there); this module holds the SQL around it: pairing the evaluations of the
positions before and after each move, which evaluation counts (:data:`WITHIN_ENGINE`,
:data:`ACROSS_ENGINES`), which games count (those an analysis covered:
``analysed_games``), the per-game and per-player figures, and the stored curves and
thresholds. See :mod:`xqdb.analysis.judgement` for what each column means.

>>> import duckdb
>>> from xqdb.db.schema import create_schema
>>> con = duckdb.connect()
>>> create_schema(con)
>>> stored_thresholds(con)
Thresholds(inaccuracy=0.05, mistake=0.1, blunder=0.2)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

import duckdb

from ..analysis.calibration import Martingale
from ..analysis.judgement import (
    LOSS_CLASSES, SERIOUS, JudgedMove, Thresholds, accuracy_sql, check_thresholds,
    judgement_sql,
)
from ..engine.score import (
    CURVES_FITTED_AT, CURVES_FITTED_ON, DEFAULT_CURVES, PHASE_PLIES, Cp, Mate, Score, WinCurve,
    curve_sql,
)
from ..rules.board import BLACK, RED
from ..position import Position
from .result import Result

#: Which evaluation of a move counts, when several engines or limits judged it, for every
#: view, report and the game view: of one engine, the one searched with the game's history
#: (``bound``: how many of the two positions were), then the larger search (``nodes`` of
#: both positions, then ``depth``), then the limit's text; across engines, the first
#: engine by name (or the one a report names). Columns of ``judgements`` (with ``bound``,
#: ``nodes`` and ``depth`` of the pair).
WITHIN_ENGINE = "bound DESC, nodes DESC, depth DESC, search_limit"
ACROSS_ENGINES = "engine"


def one_per_move(judged: str) -> str:
    """The judged moves of the query ``judged`` (columns of ``judgements``), one per move:
    the first engine's by :data:`ACROSS_ENGINES`.

    >>> one_per_move("SELECT * FROM judgements").splitlines()[-1].strip()
    'QUALIFY row_number() OVER (PARTITION BY game_id, ply ORDER BY engine) = 1'
    """
    return (f"SELECT * FROM ({judged})\n"
            f"    QUALIFY row_number() OVER (PARTITION BY game_id, ply ORDER BY {ACROSS_ENGINES}) = 1")


#: The ``judged_moves(engine)`` macro the named reports use (see ``queries/_shared.sql``).
JUDGED_MOVES = ("CREATE OR REPLACE TEMP MACRO judged_moves(p_engine) AS TABLE\n"
                + one_per_move("SELECT * FROM judgements\n"
                               "    WHERE p_engine IS NULL OR starts_with(engine, p_engine)"))


#: The curve of any engine that no row of ``win_curves`` names.
ANY_ENGINE = ""

# The engine's curve: the row of win_curves naming the longest start of its name.
_CURVES = """curves AS (
    SELECT e.engine, c.cp_offset, c.cp_scale, c.cp_late_scale, c.cp_red_edge
    FROM (SELECT DISTINCT engine FROM evals) e
    JOIN win_curves c ON starts_with(e.engine, c.engine)
    QUALIFY row_number() OVER (PARTITION BY e.engine ORDER BY length(c.engine) DESC) = 1
)"""

# The evaluations of the judged games' positions only: the others, shared by the positions
# of every game, may be many times more.
_SCORED = """scored AS (
    SELECT e.*, c.cp_offset, c.cp_scale, c.cp_late_scale, c.cp_red_edge
    FROM evals e JOIN curves c USING (engine)
    WHERE e.status = 'ok' AND (e.score_cp IS NOT NULL OR e.mate IS NOT NULL)
      AND e.key IN (SELECT key_before FROM judged_game_moves
                    UNION ALL SELECT key_after FROM judged_game_moves)
)"""


def _expected(e: str, ply: str) -> str:
    """SQL for the expected score of the side to move of the evaluation ``e`` (a row of
    ``scored``) after ``ply`` plies, as :meth:`xqdb.analysis.games.Evaluation.expectation`
    gives it: 1 or 0 for a mate, the engine's WDL when it gave one, else the curve's."""
    curve = curve_sql(f"{e}.score_cp", ply, f"{e}.side", f"{e}.cp_offset", f"{e}.cp_scale",
                      f"{e}.cp_late_scale", f"{e}.cp_red_edge")
    return (f"CASE WHEN {e}.mate IS NOT NULL THEN CASE WHEN {e}.mate > 0 THEN 1.0 ELSE 0.0 END "
            f"WHEN {e}.wdl_win IS NOT NULL THEN ({e}.wdl_win + {e}.wdl_draw / 2) / 1000 "
            f"ELSE {curve} END")


#: The games that can have judgements: those analysed, and those with evaluations of their
#: own (an engine's comments in the record). The moves of no other game are read: a large
#: collection is analysed a few games at a time, and its evaluations are shared by position.
JUDGED_GAMES = """SELECT game_id FROM analysed_games
    UNION SELECT game_id FROM evals WHERE game_id IS NOT NULL"""

_JUDGED_GAMES = f"""judged_games AS (
    {JUDGED_GAMES}
), judged_game_moves AS MATERIALIZED (
    -- Apart, so that these few moves are what meets the evaluations: the planner would
    -- join every move with them first, and keep the games' moves after.
    SELECT game_id, ply, side, uci, key_before, key_after FROM moves
    WHERE game_id IN (SELECT game_id FROM judged_games)
)"""

# Positions of each game by index (0: the start), numbered by captures so far: a position
# met again with the same number of captures is a repetition (nothing taken in between).
_REPEATS = """walked AS (
    SELECT game_id, ply, key_after AS key,
           sum((capture <> 0)::INTEGER) OVER (PARTITION BY game_id ORDER BY ply) AS captures
    FROM stored_moves WHERE game_id IN (SELECT game_id FROM judged_games)
    UNION ALL
    SELECT game_id, 0, key_before, 0 FROM stored_moves
    WHERE ply = 1 AND game_id IN (SELECT game_id FROM judged_games)
), repeats AS (
    SELECT game_id, ply FROM walked
    QUALIFY row_number() OVER (PARTITION BY game_id, captures, key ORDER BY ply) > 1
)"""

_PAIRED = f"""paired AS (
    SELECT m.game_id, m.ply, m.side, m.uci AS move, b.best_move, b.engine, b.search_limit,
           {_expected("b", "m.ply - 1")} AS expected_before,
           1 - {_expected("a", "m.ply")} AS expected_after,
           b.mate AS mate_before, a.mate AS mate_after,
           coalesce(b.nodes, 0) + coalesce(a.nodes, 0) AS nodes,
           coalesce(b.depth, 0) + coalesce(a.depth, 0) AS depth, b.score_cp AS cp_before,
           a.score_cp AS cp_after,
           (b.game_id IS NOT NULL)::INTEGER + (a.game_id IS NOT NULL)::INTEGER AS bound
    FROM judged_game_moves m
    JOIN scored b ON b.key = m.key_before AND b.side = m.side
         AND (b.game_id IS NULL OR (b.game_id = m.game_id AND b.ply = m.ply - 1))
    JOIN scored a ON a.key = m.key_after AND a.side <> m.side
         AND a.engine = b.engine AND a.search_limit = b.search_limit
         AND (a.game_id IS NULL OR (a.game_id = m.game_id AND a.ply = m.ply))
    QUALIFY row_number() OVER (PARTITION BY m.game_id, m.ply, b.engine, b.search_limit
                               ORDER BY bound DESC) = 1
), limits AS (
    -- A game's judgements are those of its own analysis: an evaluation shared through the
    -- cache counts for a game only once that game was analysed at that engine and limit.
    SELECT * FROM paired p
    WHERE p.bound = 2 OR EXISTS (SELECT 1 FROM analysed_games g WHERE g.game_id = p.game_id
                                 AND g.engine = p.engine AND g.search_limit = p.search_limit)
    QUALIFY row_number() OVER (PARTITION BY game_id, ply, engine
                               ORDER BY {WITHIN_ENGINE}) = 1
), thresholds AS (
    SELECT max(min_loss) FILTER (class = 'inaccuracy') AS inaccuracy,
           max(min_loss) FILTER (class = 'mistake') AS mistake,
           max(min_loss) FILTER (class = 'blunder') AS blunder
    FROM judgement_thresholds
)"""

#: The query of the ``judgements`` view.
JUDGEMENTS_QUERY = f"""WITH {_JUDGED_GAMES}, {_CURVES}, {_SCORED}, {_REPEATS}, {_PAIRED}
SELECT l.game_id::BIGINT AS game_id, l.ply::SMALLINT AS ply, l.side, l.move, l.best_move,
       greatest(0.0, l.expected_before - l.expected_after)::DOUBLE AS loss,
       {judgement_sql("greatest(0.0, l.expected_before - l.expected_after)", "l.mate_before",
                      "l.mate_after", "r.ply IS NOT NULL", "l.move = l.best_move",
                      ("t.inaccuracy", "t.mistake", "t.blunder"))} AS class,
       l.engine, l.search_limit,
       l.expected_before::DOUBLE AS expected_before, l.expected_after::DOUBLE AS expected_after,
       ({accuracy_sql('l.expected_before', 'l.expected_after')})::DOUBLE AS accuracy,
       r.ply IS NOT NULL AS repeats, l.mate_before, l.mate_after, l.cp_before, l.cp_after,
       l.bound::INTEGER AS bound, l.nodes::BIGINT AS nodes, l.depth::BIGINT AS depth
FROM limits l CROSS JOIN thresholds t
LEFT JOIN repeats r ON r.game_id = l.game_id AND r.ply = l.ply"""

#: The query of the ``blunders`` view.
BLUNDERS_QUERY = """SELECT game_id, ply, side, move, best_move, loss, class, engine, search_limit,
       expected_before, expected_after
FROM judgements WHERE class IS NOT NULL"""

# Red's win percentage at each position index of a game (0: before ply 1), as the judged
# moves give it: the evaluation before a move where there is one, else the one after.
_GAME_ACCURACY = """series AS (
    SELECT game_id, engine, idx, arg_min(win, kind) AS win FROM (
        SELECT game_id, engine, ply - 1 AS idx, 0 AS kind,
               100 * CASE WHEN side = 'red' THEN expected_before ELSE 1 - expected_before END
               AS win
        FROM judged
        UNION ALL
        SELECT game_id, engine, ply, 1,
               100 * CASE WHEN side = 'red' THEN expected_after ELSE 1 - expected_after END
        FROM judged)
    GROUP BY game_id, engine, idx
), windows AS (
    SELECT game_id, engine, least(8, greatest(2, count(*) // 10)) AS size
    FROM judged GROUP BY game_id, engine
), weights AS (
    SELECT j.game_id, j.engine, j.ply, any_value(j.side) AS side,
           any_value(j.accuracy) AS accuracy,
           least(12.0, greatest(0.5, coalesce(stddev_pop(s.win), 0.5))) AS weight
    FROM judged j JOIN windows w USING (game_id, engine)
    JOIN series s ON s.game_id = j.game_id AND s.engine = j.engine
         AND s.idx BETWEEN greatest(0, j.ply - w.size + 1)
                       AND greatest(0, j.ply - w.size + 1) + w.size - 1
    GROUP BY j.game_id, j.engine, j.ply
), game_accuracy AS (
    SELECT game_id, engine, side,
           (sum(accuracy * weight) / sum(weight)
            + count(*) / sum(1 / greatest(accuracy, 1.0))) / 2 AS accuracy
    FROM weights GROUP BY game_id, engine, side
), sides AS (
    SELECT game_id, unnest(['red', 'black']) AS side,
           unnest([red_player_id, black_player_id]) AS player_id
    FROM games WHERE game_id IN (SELECT game_id FROM judged)
), side_counts AS (
    SELECT game_id, side, count(*) AS side_moves FROM moves
    WHERE game_id IN (SELECT game_id FROM judged) GROUP BY game_id, side
), per_side AS (
    SELECT j.game_id, j.engine, j.side, any_value(s.player_id) AS player_id,
           count(*) AS moves, avg(j.loss) AS avg_loss,
           count(*) FILTER (j.class = 'inaccuracy') AS inaccuracies,
           count(*) FILTER (j.class = 'mistake') AS mistakes,
           count(*) FILTER (j.class = 'blunder') AS blunders,
           count(*) FILTER (j.class IN ('allowed_mate', 'missed_mate')) AS mate_errors,
           count(*) FILTER (j.class IN ('allowed_mate', 'missed_mate', 'blunder')) AS serious,
           any_value(c.side_moves) AS side_moves, any_value(a.accuracy) AS accuracy
    FROM judged j JOIN sides s USING (game_id, side)
    JOIN side_counts c USING (game_id, side)
    LEFT JOIN game_accuracy a USING (game_id, engine, side)
    GROUP BY j.game_id, j.engine, j.side
)"""


_ALL = "SELECT * FROM judgements"


def per_game_query(judged: str = _ALL) -> str:
    """Per game, engine and side: the player, judged moves, average loss, counts per class
    and the game accuracy, from the judged moves the query ``judged`` selects (with the
    columns of ``judgements``)."""
    return f"""WITH judged AS ({judged}), {_GAME_ACCURACY}
SELECT d.game_id, d.side, p.name AS player, d.engine, d.moves,
       d.side_moves, round(d.moves / greatest(1, d.side_moves), 3) AS coverage,
       d.avg_loss, d.inaccuracies, d.mistakes, d.blunders, d.mate_errors, d.serious,
       d.accuracy
FROM per_side d LEFT JOIN players p ON p.player_id = d.player_id"""


def per_player_query(judged: str = _ALL) -> str:
    """What the ``player_blunders`` view holds, from the judged moves ``judged`` selects."""
    return f"""WITH judged AS ({judged}), {_GAME_ACCURACY}, per_player AS (
    SELECT player_id, engine, count(*) AS games, sum(moves) AS moves,
           sum(side_moves) AS side_moves, sum(serious) AS serious,
           sum(avg_loss * moves) / sum(moves) AS avg_loss,
           sum(inaccuracies) AS inaccuracies, sum(mistakes) AS mistakes,
           sum(blunders) AS blunders, sum(mate_errors) AS mate_errors,
           avg(accuracy) AS accuracy
    FROM per_side GROUP BY player_id, engine
)
SELECT p.name AS player, d.player_id::BIGINT AS player_id, d.engine,
       d.games::BIGINT AS games, d.moves::BIGINT AS moves,
       round(d.moves / greatest(1, d.side_moves), 3)::DOUBLE AS coverage,
       d.avg_loss::DOUBLE AS avg_loss,
       d.inaccuracies::BIGINT AS inaccuracies, d.mistakes::BIGINT AS mistakes,
       d.blunders::BIGINT AS blunders, d.mate_errors::BIGINT AS mate_errors,
       (100.0 * d.blunders / d.moves)::DOUBLE AS blunders_per_100,
       d.serious::BIGINT AS serious,
       d.accuracy::DOUBLE AS accuracy
FROM per_player d LEFT JOIN players p ON p.player_id = d.player_id"""


#: The query of the ``player_blunders`` view.
PLAYER_BLUNDERS_QUERY = per_player_query()


@dataclass(frozen=True)
class StoredCurve:
    """A row of ``win_curves``: the curve of the engines whose identity starts with
    :attr:`engine`, and what it was fitted on."""

    engine: str
    curve: WinCurve
    positions: int | None = None
    """Positions it was fitted on; ``None`` for a curve set by hand."""
    log_loss: float | None = None
    fitted_on: str | None = None
    fitted_at: datetime | None = None

    def describe(self) -> str:
        """What judged the figures, in words: the curve, what it was fitted on and when.

        >>> print(StoredCurve("Fairy-Stockfish", WinCurve(180, 14, 200, 21), 9000, 0.6,
        ...                   "games.duckdb, 100 games", datetime(2026, 12, 8)).describe())
        the curve of Fairy-Stockfish: tempo +14 cp, Red's edge +21 cp, scale 180 cp (200 cp from ply 100 on), fitted on games.duckdb, 100 games (9,000 positions), 2026-12-08
        """
        curve = self.curve
        late = f" ({curve.late_scale:.0f} cp from ply {PHASE_PLIES} on)" \
            if curve.late_scale is not None else ""
        name = f"the curve of {self.engine}" if self.engine else "the curve of any engine"
        text = (f"{name}: tempo {curve.offset:+.0f} cp, Red's edge {curve.red_edge:+.0f} cp, "
                f"scale {curve.scale:.0f} cp{late}")
        if self.fitted_on:
            text += f", {'' if self.fitted_on.startswith('shipped') else 'fitted on '}" \
                    f"{self.fitted_on}"
        if self.positions:
            text += f" ({self.positions:,} positions)"
        if self.fitted_at is not None:
            text += f", {self.fitted_at:%Y-%m-%d}"
        return text


def default_curves() -> list[StoredCurve]:
    """The curves a new database starts with: :data:`DEFAULT_CURVES`, and the built-in
    engine's curve again for any engine no row names.

    >>> [c.engine for c in default_curves()]
    ['Fairy-Stockfish', 'xqdb built-in', '']
    """
    shipped = [StoredCurve(name, curve, fitted_on=f"shipped default, {CURVES_FITTED_ON[name]}",
                           fitted_at=CURVES_FITTED_AT)
               for name, curve in DEFAULT_CURVES.items()]
    return shipped + [StoredCurve(ANY_ENGINE, DEFAULT_CURVES["xqdb built-in"],
                                  fitted_on="shipped default for any other engine: the "
                                            "built-in engine's", fitted_at=CURVES_FITTED_AT)]


def store_curves(con: duckdb.DuckDBPyConnection, curves: Iterable[StoredCurve]) -> None:
    """Add or replace rows of ``win_curves``."""
    con.executemany("INSERT OR REPLACE INTO win_curves (engine, cp_offset, cp_scale, "
                    "cp_late_scale, cp_red_edge, positions, log_loss, fitted_on, fitted_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(c.engine, c.curve.offset, c.curve.scale, c.curve.late_scale,
                      c.curve.red_edge, c.positions, c.log_loss, c.fitted_on, c.fitted_at)
                     for c in curves])


def refresh_shipped_curves(con: duckdb.DuckDBPyConnection) -> None:
    """Replace the shipped curves a database holds by this version's (an upgrade keeps the
    curves ``xqdb calibrate`` fitted, not the defaults of an older version)."""
    shipped = {e for e, in con.execute(
        "SELECT engine FROM win_curves WHERE starts_with(fitted_on, 'shipped default')"
    ).fetchall()}
    store_curves(con, [c for c in default_curves() if c.engine in shipped])


def stored_thresholds(con: duckdb.DuckDBPyConnection) -> Thresholds:
    """The thresholds the views judge by."""
    values = dict(con.execute("SELECT class, min_loss FROM judgement_thresholds").fetchall())
    return Thresholds(**{name: values[name] for name in LOSS_CLASSES if name in values})


def store_thresholds(con: duckdb.DuckDBPyConnection, thresholds: Thresholds) -> None:
    """Set the thresholds the views judge by; raises ``ValueError`` unless
    0 < inaccuracy <= mistake <= blunder <= 1."""
    check_thresholds(thresholds)
    con.executemany("INSERT OR REPLACE INTO judgement_thresholds VALUES (?, ?)",
                    [(name, getattr(thresholds, name)) for name in LOSS_CLASSES])


def create_defaults(con: duckdb.DuckDBPyConnection) -> None:
    """Fill the settings of a new database: the shipped curves and thresholds."""
    store_curves(con, default_curves())
    store_thresholds(con, Thresholds())


@dataclass(frozen=True)
class Selection:
    """Which judged moves a report covers, and the thresholds to judge them by.

    >>> Selection(game=3).judged()[1]
    [3]
    """

    engine: str | None = None
    """The start of the engines' identities (``evals.engine``): ``Fairy-Stockfish``."""
    game: int | None = None
    player: str | None = None
    """A player's canonical name (``players.name``)."""
    game_ids: tuple[int, ...] | None = None
    """Only these games (those the game filters selected)."""
    classes: tuple[str, ...] = ()
    """Only moves of these classes (for the list of moves)."""
    thresholds: Thresholds | None = None
    """Judge by these instead of the stored ones."""
    min_coverage: float = 0.0
    """Only games whose moves the engine judged at least this share of (1: analysed to the
    end)."""

    def judged(self) -> tuple[str, list[object]]:
        """A query of the judged moves selected (with the columns of ``judgements``; its
        classes by :attr:`thresholds` when given) and its parameters."""
        where: list[str] = ["true"]
        params: list[object] = []
        if self.engine is not None:
            where.append("starts_with(engine, ?)")
            params.append(self.engine)
        if self.game is not None:
            where.append("game_id = ?")
            params.append(self.game)
        if self.game_ids is not None:
            where.append("list_contains(?, game_id)")
            params.append(list(self.game_ids))
        if self.min_coverage > 0:
            where.append("(game_id, engine) IN (SELECT (j.game_id, j.engine) FROM judgements j "
                         "JOIN games g USING (game_id) GROUP BY j.game_id, j.engine "
                         "HAVING count(*) >= ? * any_value(g.plies))")
            params.append(float(self.min_coverage))
        select = "*"
        if self.thresholds is not None:
            case = judgement_sql("loss", "mate_before", "mate_after", "repeats",
                                 "move = best_move", self.thresholds)
            select = f"* REPLACE ({case} AS class)"
        return f"SELECT {select} FROM judgements WHERE {' AND '.join(where)}", params


def _summary(con: duckdb.DuckDBPyConnection, query: Callable[[str], str],
             selection: Selection, order: str) -> Result:
    """The rows of ``query`` over the judged moves selected, of the selected player alone."""
    judged, params = selection.judged()
    sql = f"SELECT * FROM ({query(judged)})"
    if selection.player is not None:
        sql += " WHERE player = ?"
        params.append(selection.player)
    cursor = con.execute(f"{sql} ORDER BY {order}", params)
    return Result([d[0] for d in cursor.description], cursor.fetchall())


def player_report(con: duckdb.DuckDBPyConnection, selection: Selection) -> Result:
    """Per player and engine, as the ``player_blunders`` view (worst accuracy first)."""
    return _summary(con, per_player_query, selection, "accuracy, player")


def game_report(con: duckdb.DuckDBPyConnection, selection: Selection) -> Result:
    """Per game, engine and side: moves, average loss, counts per class and accuracy."""
    return _summary(con, per_game_query, selection, "game_id, engine, side DESC")


#: The columns of :func:`worst_moves`.
MOVE_COLUMNS = ["game_id", "ply", "side", "player", "move", "best_move", "loss", "class",
                "engine", "fen"]


def worst_moves(con: duckdb.DuckDBPyConnection, selection: Selection,
                limit: int | None = 20) -> list[JudgedMove]:
    """The classed moves selected, worst first (by class, then loss), each with its player
    and the position before it."""
    judged, params = selection.judged()
    where = ["j.class IS NOT NULL"]
    if selection.classes:
        where.append(f"j.class IN ({', '.join('?' for _ in selection.classes)})")
        params.extend(selection.classes)
    if selection.player is not None:
        where.append("p.name = ?")
        params.append(selection.player)
    order = ", ".join(f"'{name}'" for name in ("allowed_mate", "missed_mate", *LOSS_CLASSES[::-1]))
    sql = f"""SELECT j.game_id, j.ply, j.side, p.name, j.move, j.best_move, j.loss, j.class,
                     j.engine, g.start_fen,
                     (SELECT list(uci ORDER BY ply) FROM moves m
                      WHERE m.game_id = j.game_id AND m.ply < j.ply) AS before
              FROM ({judged}) j JOIN games g USING (game_id)
              LEFT JOIN players p ON p.player_id = CASE WHEN j.side = 'red'
                  THEN g.red_player_id ELSE g.black_player_id END
              WHERE {' AND '.join(where)}
              ORDER BY list_position([{order}], j.class), j.loss DESC, j.game_id, j.ply"""
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    found = []
    for (game_id, ply, side, player, move, best_move, loss, judgement, engine, start_fen,
         before) in con.execute(sql, params).fetchall():
        pos = Position.from_fen(start_fen)
        for text in before or []:
            pos.push_text(text, "uci")
        found.append(JudgedMove(game_id, ply, side, player, move, best_move, loss, judgement,
                                engine, pos.fen()))
    return found


def stored_curve(con: duckdb.DuckDBPyConnection, engine: str) -> StoredCurve:
    """The curve the views use for ``engine`` (an identity): the row of ``win_curves`` whose
    ``engine`` is its longest start (the built-in engine's shipped curve when none is)."""
    row = con.execute("SELECT engine, cp_scale, cp_offset, cp_late_scale, cp_red_edge, "
                      "positions, log_loss, fitted_on, fitted_at FROM win_curves "
                      "WHERE starts_with(?, engine) ORDER BY length(engine) DESC LIMIT 1",
                      [engine]).fetchone()
    if row is None:
        return default_curves()[-1]
    name, scale, offset, late, edge, positions, loss, fitted_on, fitted_at = row
    return StoredCurve(name, WinCurve(scale, offset, late, edge or 0.0), positions, loss,
                       fitted_on, fitted_at)


def analysed_engines(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The engines of the stored evaluations, by identity."""
    return [e for e, in con.execute("SELECT DISTINCT engine FROM evals ORDER BY 1").fetchall()]


def database_samples(con: duckdb.DuckDBPyConnection, engine: str,
                     min_ply: int = 20) -> list[tuple[float, float, int, int, int]]:
    """Samples from a database: the evaluations by ``engine`` (an ``evals.engine``) of the
    positions before each move from ply ``min_ply`` on of the games with a recorded
    result (one per position of a game: its own history-bound evaluation if it has one,
    else the deepest shared one), as ``(cp, score, game_id, ply, side to move)`` (``RED``
    or ``BLACK``). Mates are left out: they say nothing about the curve. A game counts
    only once its own analysis covered it (``analysed_games``): an opening position shared
    through the cache would otherwise count once for every game that reached it."""
    # The moves of the games that can count are taken apart first, and only their
    # positions' evaluations read: as for the judgements view, the planner would otherwise
    # join every move of the database with every evaluation.
    rows = con.execute(f"""
        WITH counted_moves AS MATERIALIZED (
            SELECT game_id, ply, side, key_before FROM moves
            WHERE ply >= $min_ply AND game_id IN ({JUDGED_GAMES})
        )
        SELECT first(e.score_cp ORDER BY e.game_id IS NULL, e.nodes DESC),
               any_value(CASE WHEN m.side = 'red' THEN r.points ELSE 1 - r.points END),
               m.game_id, m.ply, any_value(m.side = 'red')
        FROM games g
        JOIN (VALUES ('1-0', 1.0), ('0-1', 0.0), ('1/2-1/2', 0.5)) r(result, points)
             ON r.result = g.result
        JOIN counted_moves m ON m.game_id = g.game_id
        JOIN evals e ON e.key = m.key_before AND e.side = m.side AND e.engine = $engine
             AND (e.game_id IS NULL OR (e.game_id = m.game_id AND e.ply = m.ply - 1))
        WHERE e.status = 'ok' AND e.score_cp IS NOT NULL AND e.mate IS NULL
          AND e.key IN (SELECT key_before FROM counted_moves)
          AND (e.game_id IS NOT NULL
               OR EXISTS (SELECT 1 FROM analysed_games a WHERE a.game_id = m.game_id
                          AND a.engine = e.engine AND a.search_limit = e.search_limit))
        GROUP BY m.game_id, m.ply ORDER BY m.game_id, m.ply""",
                       {"min_ply": min_ply, "engine": engine}).fetchall()
    return [(float(cp), float(y), int(g), int(ply), RED if red else BLACK)
            for cp, y, g, ply, red in rows]


def database_pairs(con: duckdb.DuckDBPyConnection, engine: str,
                   ) -> list[tuple[int, tuple[Score, Score, int, int]]]:
    """The engine's own best moves as the views judge them (one evaluation pair per move,
    by :data:`WITHIN_ENGINE`), those that repeat a position left out, as ``(game_id,
    (score before for the mover, score after for the opponent, plies before the move,
    the mover))``: what the martingale check of a curve reads (see
    :mod:`xqdb.analysis.calibration`)."""
    rows = con.execute("""
        SELECT game_id, ply, side, cp_before, mate_before, cp_after, mate_after
        FROM judgements
        WHERE engine = ? AND move = best_move AND NOT repeats
          AND (cp_before IS NOT NULL OR mate_before IS NOT NULL)
          AND (cp_after IS NOT NULL OR mate_after IS NOT NULL)
        ORDER BY game_id, ply""", [engine]).fetchall()
    return [(int(g), (_score(cp_b, mate_b), _score(cp_a, mate_a), int(ply) - 1,
                      RED if side == "red" else BLACK))
            for g, ply, side, cp_b, mate_b, cp_a, mate_a in rows]


def judged_martingale(con: duckdb.DuckDBPyConnection, engine: str) -> Martingale:
    """The martingale check as the judgement views give it: over the engine's own best
    moves (those that repeat no position), how the mover's expected score changes, from
    the view's own ``expected_before`` and ``expected_after`` (the curve's SQL, or the
    engine's WDL where it gave one)."""
    changes = con.execute("""
        SELECT expected_after - expected_before FROM judgements
        WHERE engine = ? AND move = best_move AND NOT repeats""", [engine]).fetchall()
    return Martingale.of([float(change) for change, in changes])


def _score(cp: int | None, mate: int | None) -> Score:
    return Mate(mate) if mate is not None else Cp(cp or 0)


@dataclass(frozen=True)
class Counted:
    """What a report over judged moves counted, per engine: ``str()`` is its summary line."""

    engine: str
    games: int
    """Analysed games with a judged move selected."""
    moves: int
    """Judged moves selected."""
    played: int
    """Moves played in those games (by the selected player, when one is)."""
    limits: tuple[str, ...]
    by_class: dict[str, int]
    curve: str = ""
    """The curve that judged them, in words (:meth:`StoredCurve.describe`)."""

    @property
    def serious(self) -> int:
        """Blunders and the mate classes: the serious errors."""
        return sum(self.by_class.get(name, 0) for name in SERIOUS)

    @property
    def weak(self) -> bool:
        """Whether the figures come from the built-in engine, too weak to judge masters."""
        return self.engine.startswith(BUILTIN_PREFIX)

    def __str__(self) -> str:
        share = f" ({100 * self.moves / self.played:.0f} % of their {self.played:,} moves)" \
            if self.played else ""
        classes = ", ".join(f"{self.by_class.get(name, 0):,} {name}" for name in SERIOUS)
        text = (f"counted {self.moves:,} judged moves{share} of {self.games:,} analysed "
                f"games by {self.engine} at {' + '.join(self.limits)}: "
                f"{self.serious:,} serious errors ({classes}), "
                f"{self.by_class.get('mistake', 0):,} mistakes, "
                f"{self.by_class.get('inaccuracy', 0):,} inaccuracies")
        if self.curve:
            text += f"; judged through {self.curve}"
        if self.weak:
            text += ("; these figures come from the built-in engine, which is weak (its "
                     "blunders are mostly not blunders): analyse with Fairy-Stockfish")
        return text


#: The start of the built-in engine's identity.
BUILTIN_PREFIX = "xqdb built-in"


def counted(con: duckdb.DuckDBPyConnection, selection: Selection) -> list[Counted]:
    """What the judged moves of ``selection`` hold, per engine (first by name first)."""
    judged, params = selection.judged()
    player = ""
    if selection.player is not None:
        player = ("JOIN games g USING (game_id) JOIN players p ON p.player_id = CASE "
                  "WHEN j.side = 'red' THEN g.red_player_id ELSE g.black_player_id END "
                  "AND p.name = ?")
        params.append(selection.player)
    rows = con.execute(f"""
        WITH j AS (SELECT j.* FROM ({judged}) j {player}),
        per_engine AS (
            SELECT engine, count(DISTINCT game_id) AS games, count(*) AS moves,
                   list(DISTINCT search_limit ORDER BY search_limit) AS limits,
                   histogram(class) FILTER (class IS NOT NULL) AS by_class
            FROM j GROUP BY engine),
        played AS (
            SELECT e.engine, count(*) AS played
            FROM (SELECT DISTINCT engine, game_id, side FROM j) e
            JOIN moves m ON m.game_id = e.game_id AND m.side = e.side
            GROUP BY e.engine)
        SELECT engine, games, moves, coalesce(played, 0), limits, by_class
        FROM per_engine LEFT JOIN played USING (engine) ORDER BY {ACROSS_ENGINES}""",
                       params).fetchall()
    return [Counted(engine, games, moves, played, tuple(limits), dict(by_class or {}),
                    stored_curve(con, engine).describe())
            for engine, games, moves, played, limits, by_class in rows]


def judging_curves(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The curves that judge each analysed engine's moves, in words, one per engine."""
    return [f"{engine}: {stored_curve(con, engine).describe()}"
            for engine in analysed_engines(con)]


def game_tags(con: duckdb.DuckDBPyConnection, game_ids: Iterable[int]) -> dict[int, dict[str, str]]:
    """The tags of the games (Event, Date, Red, Black, Result...), by game id, as PGN names."""
    names = {"event": "Event", "site": "GameSite", "round": "Round", "date_raw": "Date",
             "red": "Red", "black": "Black", "result": "GameResult", "ecco": "ECCO",
             "opening": "Opening"}
    rows = con.execute(f"SELECT game_id, {', '.join(names)} FROM games "
                       "WHERE game_id IN (SELECT unnest(?))", [list(set(game_ids))]).fetchall()
    return {row[0]: {tag: str(value) for tag, value in zip(names.values(), row[1:])
                     if value is not None} for row in rows}
