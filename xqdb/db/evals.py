"""The ``evals`` table: engine evaluations stored per position, read back as
:class:`~xqdb.analysis.games.Evaluation` objects keyed by :data:`~xqdb.analysis.games.EvalKey`.

An evaluation is shared by every game that reaches its position (``game_id`` NULL), except
where the game's own history decides what the rules allow (a repetition): then it is stored
with the game and the ply before the position, for that game alone.

>>> import duckdb
>>> from xqdb.db.schema import create_schema
>>> from xqdb.engine import Cp
>>> con = duckdb.connect()
>>> create_schema(con)
>>> key = (0x1234, RED, "xqdb built-in (uci)", "depth=2")
>>> write_evals(con, [StoredEval(key, Evaluation(Cp(35), best_move=Move.from_uci("h2e2")))])
1
>>> read_evals(con, "xqdb built-in (uci)", "depth=2")[key].score
Cp(35)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import duckdb

from ..analysis.games import EvalKey, Evaluation
from ..engine.score import MATE_CP, Cp, Mate, Wdl
from ..rules.board import BLACK, RED, Move
from .columns import EVAL_COLUMNS, arrow_schema

if TYPE_CHECKING:
    import pyarrow as pa

#: Values of ``evals.side`` by colour, and back.
SIDE_NAMES = {RED: "red", BLACK: "black"}
SIDES = {name: color for color, name in SIDE_NAMES.items()}

_NAMES = ", ".join(f'"{c.name}"' for c in EVAL_COLUMNS)
# What identifies a row: a later row with the same identity replaces it (a retried
# failure, a search run again). ``game_id`` and ``ply`` are NULL for shared rows.
_SAME_ROW = """e.key = n.key AND e.side = n.side AND e.engine = n.engine
    AND e.search_limit = n.search_limit
    AND e.game_id IS NOT DISTINCT FROM n.game_id AND e.ply IS NOT DISTINCT FROM n.ply"""


@dataclass(frozen=True)
class StoredEval:
    """One row of ``evals``: a position's evaluation, or why there is none."""

    key: EvalKey
    evaluation: Evaluation | None
    """``None`` when the search failed (see ``error``)."""
    game_id: int | None = None
    """Set for a position searched with its game's history (a repetition)."""
    ply: int | None = None
    """With ``game_id``: the plies played before the position."""
    error: str | None = None
    origin: str = "search"
    suspect: str | None = None
    """Why the evaluation is not believed (status ``suspect``, see
    :func:`~xqdb.analysis.batch.suspect_evaluations`); stored as its ``error``."""

    @property
    def status(self) -> str:
        if self.evaluation is None:
            return "failed"
        return "ok" if self.suspect is None else "suspect"

    def row(self) -> dict[str, object]:
        """The row's values by column name."""
        zobrist, turn, engine, limit = self.key
        values: dict[str, object] = {
            "key": zobrist, "side": SIDE_NAMES[turn], "engine": engine, "search_limit": limit,
            "game_id": self.game_id, "ply": self.ply, "status": self.status,
            "error": self.error if self.suspect is None else self.suspect,
            "origin": self.origin}
        found = self.evaluation
        if found is not None:
            wdl = found.wdl
            values |= {
                "score_cp": found.score.score(), "mate": found.score.mate(),
                "wdl_win": wdl.wins if wdl else None, "wdl_draw": wdl.draws if wdl else None,
                "wdl_loss": wdl.losses if wdl else None,
                "best_move": found.best_move.uci() if found.best_move else None,
                "pv": " ".join(m.uci() for m in found.pv) or None,
                "depth": found.depth, "nodes": found.nodes}
            if found.spread is not None:
                low, high = found.spread
                values |= {"spread_low_cp": low.score(mate_score=MATE_CP),
                           "spread_high_cp": high.score(mate_score=MATE_CP)}
        return values


@cache
def _eval_schema() -> pa.Schema:
    """The Arrow schema rows are written in, in table order."""
    return arrow_schema(EVAL_COLUMNS)


def write_evals(con: duckdb.DuckDBPyConnection, rows: Iterable[StoredEval]) -> int:
    """Store ``rows`` in one transaction, each replacing any row stored before for the same
    position, engine, limit (and game); returns how many were written."""
    import pyarrow as pa  # here: the reports read this module and never write

    # Within one batch too, the last row for an identity wins.
    unique = {(r.key, r.game_id, r.ply): r.row() for r in rows}
    table = pa.Table.from_pylist(list(unique.values()), schema=_eval_schema())
    if not table.num_rows:
        return 0
    con.register("new_evals", table)
    try:
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute(f"DELETE FROM evals e USING new_evals n WHERE {_SAME_ROW}")
            con.execute(f"INSERT INTO evals ({_NAMES}) SELECT {_NAMES} FROM new_evals")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    finally:
        con.unregister("new_evals")
    return table.num_rows


def evaluation_of(score_cp: int | None, mate: int | None, wdl: tuple[int | None, ...],
                  best_move: str | None, pv: str | None, depth: int | None,
                  nodes: int | None, spread: tuple[int | None, int | None] = (None, None)
                  ) -> Evaluation:
    """The :class:`Evaluation` a row's values describe.

    >>> evaluation_of(None, -3, (None, None, None), "a0a1", "a0a1 e9e8", 9, 1200).score
    Mate(-3)
    >>> evaluation_of(20, None, (None, None, None), None, None, 9, 1200, (-15, 40)).spread
    (Cp(-15), Cp(40))
    """
    win, draw, loss = wdl
    low, high = spread
    return Evaluation(
        Mate(mate) if mate is not None else Cp(score_cp or 0),
        Wdl(win, draw, loss) if win is not None and draw is not None and loss is not None
        else None,
        Move.from_uci(best_move) if best_move else None,
        tuple(Move.from_uci(m) for m in pv.split()) if pv else (), depth, nodes,
        # A mate is stored as MATE_CP less the moves to it: as centipawns, it is as sure.
        (Cp(low), Cp(high)) if low is not None and high is not None else None)


_VALUES = ("score_cp, mate, wdl_win, wdl_draw, wdl_loss, best_move, pv, depth, nodes, "
           "spread_low_cp, spread_high_cp")


def _evaluation(row: Sequence[Any]) -> Evaluation:
    score_cp, mate, win, draw, loss, best_move, pv, depth, nodes, low, high = row
    return evaluation_of(score_cp, mate, (win, draw, loss), best_move, pv, depth, nodes,
                         (low, high))


def read_evals(con: duckdb.DuckDBPyConnection, engine: str | None = None,
               search_limit: str | None = None) -> dict[EvalKey, Evaluation]:
    """The shared evaluations (``game_id`` NULL, status ``ok``) of ``engine`` at
    ``search_limit`` (every engine or limit when ``None``), by :data:`EvalKey`.

    Ready to fill an :class:`~xqdb.analysis.games.EvalCache`.
    """
    rows = con.execute(f"""
        SELECT key, side, engine, search_limit, {_VALUES} FROM evals
        WHERE game_id IS NULL AND status = 'ok'
          AND (engine = $engine OR $engine IS NULL)
          AND (search_limit = $limit OR $limit IS NULL)""",
                       {"engine": engine, "limit": search_limit}).fetchall()
    return {(key, SIDES[side], name, limit): _evaluation(rest)
            for key, side, name, limit, *rest in rows}


def read_own_evals(con: duckdb.DuckDBPyConnection, engine: str,
                   search_limit: str) -> dict[tuple[int, int], Evaluation]:
    """The evaluations of ``engine`` at ``search_limit`` stored for one game alone (searched
    with the game's history), by ``(game_id, ply)``."""
    rows = con.execute(f"""
        SELECT game_id, ply, {_VALUES} FROM evals
        WHERE engine = ? AND search_limit = ? AND status = 'ok' AND game_id IS NOT NULL""",
                       [engine, search_limit]).fetchall()
    return {(game_id, ply): _evaluation(rest) for game_id, ply, *rest in rows}


#: The rows of the planned positions and games (see :func:`planned`) of one engine and limit.
PLANNED_ROWS = """
    FROM evals WHERE engine = ? AND search_limit = ? AND status = 'ok'
      AND (game_id IS NULL AND key IN (SELECT key FROM planned_keys)
           OR game_id IN (SELECT game_id FROM planned_games))"""


@contextmanager
def planned(con: duckdb.DuckDBPyConnection, keys: Iterable[int], game_ids: Iterable[int]
            ) -> Iterator[None]:
    """While open, the views ``planned_keys`` (``key``) and ``planned_games``
    (``game_id``) hold ``keys`` and ``game_ids``, for a query that reads only their rows."""
    import pyarrow as pa

    con.register("planned_keys", pa.table({"key": pa.array(sorted(set(keys)), pa.uint64())}))
    con.register("planned_games",
                 pa.table({"game_id": pa.array(sorted(set(game_ids)), pa.int64())}))
    try:
        yield
    finally:
        con.unregister("planned_keys")
        con.unregister("planned_games")


def planned_evals(con: duckdb.DuckDBPyConnection, engine: str, search_limit: str,
                  keys: Iterable[int], game_ids: Iterable[int]
                  ) -> tuple[dict[EvalKey, Evaluation], dict[tuple[int, int], Evaluation]]:
    """What :func:`read_evals` and :func:`read_own_evals` give, for the positions of
    ``keys`` and the games ``game_ids`` only: a round of a deep pass reads the rows of its
    own games, however many positions the table holds."""
    with planned(con, keys, game_ids):
        rows = con.execute(f"SELECT key, side, game_id, ply, {_VALUES} {PLANNED_ROWS}",
                           [engine, search_limit]).fetchall()
    shared, own = {}, {}
    for key, side, game_id, ply, *rest in rows:
        if game_id is None:
            shared[key, SIDES[side], engine, search_limit] = _evaluation(rest)
        else:
            own[game_id, ply] = _evaluation(rest)
    return shared, own


def game_evals(con: duckdb.DuckDBPyConnection, game_id: int, engine: str,
               search_limit: str) -> dict[int, Evaluation]:
    """The evaluations of one game's positions by index (0: the start, i: after ply i):
    the game's own where it has one (a repetition), else the shared one."""
    rows = con.execute(f"""
        WITH positions AS (
            SELECT 0 AS at, key_before AS key, side FROM moves WHERE game_id = $game AND ply = 1
            UNION ALL
            SELECT ply, key_after, CASE side WHEN 'red' THEN 'black' ELSE 'red' END
            FROM moves WHERE game_id = $game)
        SELECT p.at, {', '.join('e.' + v.strip() for v in _VALUES.split(','))}
        FROM positions p JOIN evals e ON e.key = p.key AND e.side = p.side
        WHERE e.engine = $engine AND e.search_limit = $limit AND e.status = 'ok'
          AND (e.game_id IS NULL OR (e.game_id = $game AND e.ply = p.at))
        ORDER BY p.at, e.game_id NULLS FIRST""",
                       {"game": game_id, "engine": engine, "limit": search_limit}).fetchall()
    # Ordered shared first, so the game's own evaluation of a position wins.
    return {at: _evaluation(rest) for at, *rest in rows}
