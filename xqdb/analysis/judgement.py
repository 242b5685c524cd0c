"""Every analysed move of a database judged in SQL, from the stored evaluations.

The judgement of :mod:`xqdb.analysis.games`, as views over the ``evals`` table, so that a
later analysis, a new curve or new thresholds show up in the next query without anything
being computed again:

``judgements``
    every move with an evaluation of the position before it and after it (by the same
    engine and limit): the mover's expected score before and after, the ``loss`` between
    them, the move's accuracy and its ``class``;
``blunders``
    the judged moves that have a class;
``player_blunders``
    per player and engine: moves, average loss, counts per class, blunders per 100 moves
    and accuracy.

How a move is judged:

* The expected score (0 lost .. 1 won) of the side to move is the engine's WDL,
  ``(win + draw / 2) / 1000``, when it gave one; otherwise the win curve
  ``1 / (1 + exp(-(cp - cp_offset) / cp_scale))`` of the table ``win_curves`` whose
  ``engine`` is the longest start of the evaluation's engine (``xqdb calibrate`` fits one
  per engine; the row with ``engine = ''`` is the curve of any other engine). A mate for
  the side to move is 1, a mate against it 0.
* ``loss`` = the mover's expected score before the move less its expected score after it
  (never below 0). The classes, worst first: ``allowed_mate`` (the opponent has a forced
  mate after the move and the mover was not already being mated), ``missed_mate`` (the
  mover had a forced mate and no longer has one), then ``blunder``, ``mistake`` and
  ``inaccuracy`` when ``loss`` reaches the ``min_loss`` of that class in the table
  ``judgement_thresholds`` (by default 0.20, 0.10 and 0.05: the cut-offs chess.com
  publishes, on a curve fitted for Xiangqi).
* A move that returns to a position already met in its game since the last capture is
  never classed: repeating is how a side claims a draw or makes the opponent, under the
  repetition rules, deviate, and the engine's score there depends on rules it may not model.
  Nor is the engine's own best move: a drop after it is the search's horizon (the position
  after it is searched as deep again, so sees further), not the mover's error.
* Where a position was searched with its game's history (``evals.game_id`` set, because it
  repeats), that evaluation is used for that game instead of any shared one. Where a move
  was judged at several limits of one engine (as a two-pass analysis leaves it), the
  judgement of the larger search (more nodes, before and after together) counts.
* A move's ``accuracy`` is lichess's: with the mover's win percentages ``100 * expected``,
  ``103.1668100711649 * exp(-0.04354415386753951 * drop) - 3.166924740191411 + 1`` clamped
  to 0..100, and 100 when the move lost nothing. A game's accuracy per side is lichess's
  too: the mean of the volatility-weighted mean and the harmonic mean of its moves'
  accuracies, each move weighted by the standard deviation of the win percentages in a
  window around it (size ``plies / 10`` within 2..8; weight clamped to 0.5..12). A
  player's accuracy is the mean over their games.

>>> round(move_accuracy(0.60, 0.60), 1), round(move_accuracy(0.60, 0.50), 1)
(100.0, 64.6)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import duckdb

from ..position import Position
from ..engine.score import DEFAULT_CURVES, WinCurve
from .games import Thresholds

#: The judgement classes that the thresholds decide, mildest first.
LOSS_CLASSES = ("inaccuracy", "mistake", "blunder")
#: The classes of moves that change a forced mate.
MATE_CLASSES = ("allowed_mate", "missed_mate")

#: The curve of any engine that no row of ``win_curves`` names.
ANY_ENGINE = ""

#: Coefficients of lichess's move accuracy (drop in win percentage points -> 0..100).
_ACCURACY_SCALE, _ACCURACY_DECAY, _ACCURACY_SHIFT = (103.1668100711649, 0.04354415386753951,
                                                     -3.166924740191411)


def move_accuracy(before: float, after: float) -> float:
    """Lichess's accuracy (0..100) of a move from the mover's expected score ``before`` and
    ``after`` it (0..1): what the ``accuracy`` column of ``judgements`` holds.

    >>> move_accuracy(0.9, 0.4) < move_accuracy(0.9, 0.8) < 100
    True
    """
    if after >= before:
        return 100.0
    drop = 100 * (before - after)
    raw = _ACCURACY_SCALE * math.exp(-_ACCURACY_DECAY * drop) + _ACCURACY_SHIFT + 1
    return min(100.0, max(0.0, raw))


def _accuracy_sql(before: str, after: str) -> str:
    return (f"CASE WHEN {after} >= {before} THEN 100.0 ELSE least(100.0, greatest(0.0, "
            f"{_ACCURACY_SCALE} * exp(-{_ACCURACY_DECAY} * 100 * ({before} - {after})) "
            f"+ {_ACCURACY_SHIFT} + 1)) END")


# The engine's curve: the row of win_curves naming the longest start of its name.
_CURVES = """curves AS (
    SELECT e.engine, c.cp_offset, c.cp_scale
    FROM (SELECT DISTINCT engine FROM evals) e
    JOIN win_curves c ON starts_with(e.engine, c.engine)
    QUALIFY row_number() OVER (PARTITION BY e.engine ORDER BY length(c.engine) DESC) = 1
)"""

_SCORED = """scored AS (
    SELECT e.*, CASE
        WHEN e.mate IS NOT NULL THEN CASE WHEN e.mate > 0 THEN 1.0 ELSE 0.0 END
        WHEN e.wdl_win IS NOT NULL THEN (e.wdl_win + e.wdl_draw / 2) / 1000
        ELSE 1 / (1 + exp(-(e.score_cp - c.cp_offset) / c.cp_scale)) END AS expected
    FROM evals e JOIN curves c USING (engine)
    WHERE e.status = 'ok' AND (e.score_cp IS NOT NULL OR e.mate IS NOT NULL)
)"""

# Positions of each game by index (0: the start), numbered by captures so far: a position
# met again with the same number of captures is a repetition (nothing taken in between).
_REPEATS = """walked AS (
    SELECT game_id, ply, key_after AS key,
           sum((capture <> 0)::INTEGER) OVER (PARTITION BY game_id ORDER BY ply) AS captures
    FROM stored_moves
    UNION ALL
    SELECT game_id, 0, key_before, 0 FROM stored_moves WHERE ply = 1
), repeats AS (
    SELECT game_id, ply FROM walked
    QUALIFY row_number() OVER (PARTITION BY game_id, captures, key ORDER BY ply) > 1
)"""

_PAIRED = """paired AS (
    SELECT m.game_id, m.ply, m.side, m.uci AS move, b.best_move, b.engine, b.search_limit,
           b.expected AS expected_before, 1 - a.expected AS expected_after,
           b.mate AS mate_before, a.mate AS mate_after,
           coalesce(b.nodes, 0) + coalesce(a.nodes, 0) AS nodes,
           (b.game_id IS NOT NULL)::INTEGER + (a.game_id IS NOT NULL)::INTEGER AS bound
    FROM moves m
    JOIN scored b ON b.key = m.key_before AND b.side = m.side
         AND (b.game_id IS NULL OR (b.game_id = m.game_id AND b.ply = m.ply - 1))
    JOIN scored a ON a.key = m.key_after AND a.side <> m.side
         AND a.engine = b.engine AND a.search_limit = b.search_limit
         AND (a.game_id IS NULL OR (a.game_id = m.game_id AND a.ply = m.ply))
    QUALIFY row_number() OVER (PARTITION BY m.game_id, m.ply, b.engine, b.search_limit
                               ORDER BY bound DESC) = 1
), limits AS (
    SELECT * FROM paired
    QUALIFY row_number() OVER (PARTITION BY game_id, ply, engine
                               ORDER BY bound DESC, nodes DESC, search_limit) = 1
), thresholds AS (
    SELECT max(min_loss) FILTER (class = 'inaccuracy') AS inaccuracy,
           max(min_loss) FILTER (class = 'mistake') AS mistake,
           max(min_loss) FILTER (class = 'blunder') AS blunder
    FROM judgement_thresholds
)"""

#: The query of the ``judgements`` view.
JUDGEMENTS_QUERY = f"""WITH {_CURVES}, {_SCORED}, {_REPEATS}, {_PAIRED}
SELECT l.game_id::BIGINT AS game_id, l.ply::SMALLINT AS ply, l.side, l.move, l.best_move,
       greatest(0.0, l.expected_before - l.expected_after)::DOUBLE AS loss,
       CASE WHEN r.ply IS NOT NULL OR l.move = l.best_move THEN NULL
            WHEN l.mate_after > 0 AND NOT coalesce(l.mate_before <= 0, false)
                THEN 'allowed_mate'
            WHEN l.mate_before > 0 AND NOT coalesce(l.mate_after <= 0, false)
                THEN 'missed_mate'
            WHEN l.expected_before - l.expected_after >= t.blunder THEN 'blunder'
            WHEN l.expected_before - l.expected_after >= t.mistake THEN 'mistake'
            WHEN l.expected_before - l.expected_after >= t.inaccuracy THEN 'inaccuracy'
       END AS class,
       l.engine, l.search_limit,
       l.expected_before::DOUBLE AS expected_before, l.expected_after::DOUBLE AS expected_after,
       ({_accuracy_sql('l.expected_before', 'l.expected_after')})::DOUBLE AS accuracy,
       r.ply IS NOT NULL AS repeats
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
    SELECT game_id, 'red' AS side, red_player_id AS player_id FROM games
    UNION ALL
    SELECT game_id, 'black', black_player_id FROM games
), per_side AS (
    SELECT j.game_id, j.engine, j.side, any_value(s.player_id) AS player_id,
           count(*) AS moves, avg(j.loss) AS avg_loss,
           count(*) FILTER (j.class = 'inaccuracy') AS inaccuracies,
           count(*) FILTER (j.class = 'mistake') AS mistakes,
           count(*) FILTER (j.class = 'blunder') AS blunders,
           count(*) FILTER (j.class IN ('allowed_mate', 'missed_mate')) AS mate_errors,
           any_value(a.accuracy) AS accuracy
    FROM judged j JOIN sides s USING (game_id, side)
    LEFT JOIN game_accuracy a USING (game_id, engine, side)
    GROUP BY j.game_id, j.engine, j.side
)"""


_ALL = "SELECT * FROM judgements"


def per_game_query(judged: str = _ALL) -> str:
    """Per game, engine and side: the player, judged moves, average loss, counts per class
    and the game accuracy, from the judged moves the query ``judged`` selects (with the
    columns of ``judgements``)."""
    return f"""WITH judged AS ({judged}), {_GAME_ACCURACY}
SELECT d.game_id, d.side, p.name AS player, d.engine, d.moves, d.avg_loss, d.inaccuracies,
       d.mistakes, d.blunders, d.mate_errors, d.accuracy
FROM per_side d LEFT JOIN players p ON p.player_id = d.player_id"""


def per_player_query(judged: str = _ALL) -> str:
    """What the ``player_blunders`` view holds, from the judged moves ``judged`` selects."""
    return f"""WITH judged AS ({judged}), {_GAME_ACCURACY}, per_player AS (
    SELECT player_id, engine, count(*) AS games, sum(moves) AS moves,
           sum(avg_loss * moves) / sum(moves) AS avg_loss,
           sum(inaccuracies) AS inaccuracies, sum(mistakes) AS mistakes,
           sum(blunders) AS blunders, sum(mate_errors) AS mate_errors,
           avg(accuracy) AS accuracy
    FROM per_side GROUP BY player_id, engine
)
SELECT p.name AS player, d.player_id::BIGINT AS player_id, d.engine,
       d.games::BIGINT AS games, d.moves::BIGINT AS moves, d.avg_loss::DOUBLE AS avg_loss,
       d.inaccuracies::BIGINT AS inaccuracies, d.mistakes::BIGINT AS mistakes,
       d.blunders::BIGINT AS blunders, d.mate_errors::BIGINT AS mate_errors,
       (100.0 * d.blunders / d.moves)::DOUBLE AS blunders_per_100,
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


def default_curves() -> list[StoredCurve]:
    """The curves a new database starts with: :data:`DEFAULT_CURVES`, and the built-in
    engine's curve again for any engine no row names.

    >>> [c.engine for c in default_curves()]
    ['Fairy-Stockfish', 'xqdb built-in', '']
    """
    shipped = [StoredCurve(name, curve, fitted_on="shipped default")
               for name, curve in DEFAULT_CURVES.items()]
    return shipped + [StoredCurve(ANY_ENGINE, DEFAULT_CURVES["xqdb built-in"],
                                  fitted_on="shipped default, for any other engine")]


def store_curves(con: duckdb.DuckDBPyConnection, curves: Iterable[StoredCurve]) -> None:
    """Add or replace rows of ``win_curves``."""
    con.executemany("INSERT OR REPLACE INTO win_curves VALUES (?, ?, ?, ?, ?, ?)",
                    [(c.engine, c.curve.offset, c.curve.scale, c.positions, c.log_loss,
                      c.fitted_on) for c in curves])


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


def check_thresholds(thresholds: Thresholds) -> Thresholds:
    """``thresholds``, if they are ordered and within 0..1; else ``ValueError``.

    >>> check_thresholds(Thresholds(0.2, 0.1, 0.3))
    Traceback (most recent call last):
    ...
    ValueError: thresholds must rise from inaccuracy to blunder within 0..1: 0.2, 0.1, 0.3
    """
    values = [getattr(thresholds, name) for name in LOSS_CLASSES]
    if not 0 < values[0] <= values[1] <= values[2] <= 1:
        raise ValueError("thresholds must rise from inaccuracy to blunder within 0..1: "
                         + ", ".join(f"{v:g}" for v in values))
    return thresholds


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
        select = "*"
        if self.thresholds is not None:
            t = check_thresholds(self.thresholds)
            select = (f"* REPLACE (CASE WHEN repeats OR move = best_move THEN NULL "
                      f"WHEN class IN {MATE_CLASSES} THEN class "
                      f"WHEN loss >= {float(t.blunder)!r} THEN 'blunder' "
                      f"WHEN loss >= {float(t.mistake)!r} THEN 'mistake' "
                      f"WHEN loss >= {float(t.inaccuracy)!r} THEN 'inaccuracy' END AS class)")
        return f"SELECT {select} FROM judgements WHERE {' AND '.join(where)}", params


@dataclass(frozen=True)
class Report:
    """Rows of a report with their column names."""

    columns: list[str]
    rows: list[tuple[object, ...]]


def _summary(con: duckdb.DuckDBPyConnection, query: Callable[[str], str],
             selection: Selection, order: str) -> Report:
    """The rows of ``query`` over the judged moves selected, of the selected player alone."""
    judged, params = selection.judged()
    sql = f"SELECT * FROM ({query(judged)})"
    if selection.player is not None:
        sql += " WHERE player = ?"
        params.append(selection.player)
    cursor = con.execute(f"{sql} ORDER BY {order}", params)
    return Report([d[0] for d in cursor.description], cursor.fetchall())


def player_report(con: duckdb.DuckDBPyConnection, selection: Selection) -> Report:
    """Per player and engine, as the ``player_blunders`` view (worst accuracy first)."""
    return _summary(con, per_player_query, selection, "accuracy, player")


def game_report(con: duckdb.DuckDBPyConnection, selection: Selection) -> Report:
    """Per game, engine and side: moves, average loss, counts per class and accuracy."""
    return _summary(con, per_game_query, selection, "game_id, engine, side DESC")


#: The columns of :func:`worst_moves`.
MOVE_COLUMNS = ["game_id", "ply", "side", "player", "move", "best_move", "loss", "class",
                "engine", "fen"]


@dataclass(frozen=True)
class JudgedMove:
    """A judged move with what it takes to show it: the position before it."""

    game_id: int
    ply: int
    side: str
    player: str | None
    move: str
    best_move: str | None
    loss: float
    judgement: str | None
    engine: str
    fen: str
    """The position before the move."""

    def row(self) -> tuple[object, ...]:
        return (self.game_id, self.ply, self.side, self.player, self.move, self.best_move,
                round(self.loss, 4), self.judgement, self.engine, self.fen)


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


def stored_curve(con: duckdb.DuckDBPyConnection, engine: str) -> WinCurve:
    """The curve the views use for ``engine`` (an identity): the row of ``win_curves`` whose
    ``engine`` is its longest start."""
    row = con.execute("SELECT cp_scale, cp_offset FROM win_curves WHERE starts_with(?, engine) "
                      "ORDER BY length(engine) DESC LIMIT 1", [engine]).fetchone()
    return WinCurve(scale=row[0], offset=row[1]) if row else WinCurve()


def analysed_engines(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The engines of the stored evaluations, by identity."""
    return [e for e, in con.execute("SELECT DISTINCT engine FROM evals ORDER BY 1").fetchall()]
