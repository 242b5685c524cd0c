"""What an analysis reads and records besides the evaluations: the games it covers, the
positions already evaluated, and ``analysed_games``, which says which games each pass
covered so that a game's judgements are those of its own analysis.

>>> import duckdb
>>> from xqdb.db.schema import create_schema
>>> con = duckdb.connect()
>>> create_schema(con)
>>> mark_analysed(con, [1, 2], "xqdb built-in 1", "depth=2", [90, 60])
>>> con.execute("SELECT game_id, positions FROM analysed_games ORDER BY 1").fetchall()
[(1, 90), (2, 60)]

A pass covering a game again replaces its row; other passes' rows stay:

>>> mark_analysed(con, [2], "xqdb built-in 1", "depth=2", [61])
>>> mark_analysed(con, [2], "xqdb built-in 1", "depth=3", [61])
>>> con.execute("SELECT game_id, search_limit, positions FROM analysed_games ORDER BY ALL"
...             ).fetchall()
[(1, 'depth=2', 90), (2, 'depth=2', 61), (2, 'depth=3', 61)]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import duckdb

from ..errors import BadArgumentError, NotFoundError
from .evals import PLANNED_ROWS, SIDES, planned
from .selection import GameFilter, SelectionError, select_games


class AnalysisError(BadArgumentError, ValueError):
    """The run cannot start: a ``--where`` that is not SQL over ``games``, a game that is
    not in the database, no game to analyse."""


#: A game as an analysis plans it: id, start FEN, termination, moves (coordinates), the
#: key of the start, the keys after each ply, which plies captured, the first mover.
GameLine = tuple[int, str, str | None, list[str], int, list[int], list[bool], str]


def game_lines(con: duckdb.DuckDBPyConnection, where: str | None,
               game_ids: Sequence[int]) -> list[GameLine]:
    """The chosen games with at least one move, in game order: those ``where`` (SQL over
    ``games``) selects and ``game_ids``; all by default (the one selection of games,
    :func:`xqdb.db.selection.select_games`, every value bound). Raises
    :class:`AnalysisError`."""
    try:
        select_games(con, GameFilter(where=where, game_ids=tuple(game_ids)), valid_only=False)
    except NotFoundError as exc:
        raise AnalysisError(f"{exc.message} (game ids are games.game_id)") from None
    except SelectionError as exc:
        raise AnalysisError(f"--where {where!r}: {exc.message} (a condition "
                            "on the columns of games, such as \"year >= 2000\")") from None
    rows = con.execute("""
        SELECT g.game_id, g.start_fen, g.termination, list(m.uci ORDER BY m.ply),
               first(m.key_before ORDER BY m.ply), list(m.key_after ORDER BY m.ply),
               list(m.capture IS NOT NULL ORDER BY m.ply), first(m.side ORDER BY m.ply)
        FROM games g JOIN moves m USING (game_id)
        WHERE g.game_id IN (SELECT game_id FROM selected_games)
        GROUP BY ALL ORDER BY g.game_id""").fetchall()
    if not rows:
        raise AnalysisError("no game with moves to analyse"
                            + (f" where {where}" if where else ""))
    return rows


def evaluated(con: duckdb.DuckDBPyConnection, identity: str, limit: str,
              keys: Iterable[int], game_ids: Iterable[int]
              ) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """The positions among ``keys`` (those of the games planned) evaluated without failure
    with this engine and limit: shared ones by ``(key, turn)``, those of the games
    ``game_ids`` own by ``(game_id, ply)``. Only the rows of those positions and games are
    read, however many positions the table holds."""
    with planned(con, keys, game_ids):
        rows = con.execute(f"SELECT key, side, game_id, ply {PLANNED_ROWS}",
                           [identity, limit]).fetchall()
    shared = {(key, SIDES[side]) for key, side, game_id, _ in rows if game_id is None}
    own = {(game_id, ply) for _, _, game_id, ply in rows if game_id is not None}
    return shared, own


def mark_analysed(con: duckdb.DuckDBPyConnection, game_ids: Sequence[int], engine: str,
                  limit: str, positions: Sequence[int]) -> None:
    """Record that a pass with ``engine`` at ``limit`` covered ``game_ids`` (``positions``
    of each): from now on their moves judged by that engine and limit count for them."""
    # Lists in one statement each: executemany runs a statement per game.
    params = {"games": list(game_ids), "engine": engine, "limit": limit}
    con.execute("DELETE FROM analysed_games WHERE engine = $engine AND search_limit = $limit"
                " AND list_contains($games::BIGINT[], game_id)", params)
    con.execute("INSERT INTO analysed_games SELECT unnest($games::BIGINT[]), $engine, $limit,"
                " unnest($positions::INTEGER[]), now()", params | {"positions": list(positions)})


def mark_fully_evaluated(con: duckdb.DuckDBPyConnection) -> int:
    """Record as analysed every game, engine and limit whose positions all have an
    evaluation (what a database of an older version, which kept no record of the games
    each pass covered, can be sure of); returns the rows added."""
    before = con.execute("SELECT count(*) FROM analysed_games").fetchone()
    con.execute("""
        INSERT INTO analysed_games
        SELECT m.game_id, e.engine, e.search_limit, any_value(g.plies) + 1, now()
        FROM moves m JOIN games g USING (game_id)
        JOIN evals e ON e.key = m.key_after AND e.side <> m.side
             AND (e.game_id IS NULL OR (e.game_id = m.game_id AND e.ply = m.ply))
        WHERE e.origin = 'search'
          AND NOT EXISTS (SELECT 1 FROM analysed_games a WHERE a.game_id = m.game_id
                          AND a.engine = e.engine AND a.search_limit = e.search_limit)
        GROUP BY m.game_id, e.engine, e.search_limit
        HAVING count(DISTINCT m.ply) >= any_value(g.plies) - 1""")
    after = con.execute("SELECT count(*) FROM analysed_games").fetchone()
    return int(after[0] if after else 0) - int(before[0] if before else 0)
