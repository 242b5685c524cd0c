"""Openings in a stored database: every game classified again in place (after a better
classifier), and a stored game's code explained, without reading the sources again.

>>> import duckdb
>>> from xqdb.db.schema import create_schema
>>> con = duckdb.connect()
>>> create_schema(con)
>>> classify_database(con)
0
"""

from __future__ import annotations

import duckdb

from ..openings import Classification, classify
from ..openings.line import OPENING_PLIES
from ..openings.store import stored_values
from ..rules.board import Move
from .columns import arrow_type
from .lookup import require_game


#: The first plies of every valid game, with its start position.
_OPENINGS_SQL = f"""
    SELECT g.game_id, g.start_fen, list(m.move ORDER BY m.ply) FILTER (WHERE m.ply IS NOT NULL)
    FROM games g LEFT JOIN stored_moves m ON m.game_id = g.game_id AND m.ply <= {OPENING_PLIES}
    WHERE g.status = 'valid' {{where}}
    GROUP BY g.game_id, g.start_fen
"""


def _opening(start_fen: str, codes: list[int] | None) -> Classification | None:
    return classify([Move.from_code(code) for code in codes or ()], start_fen)


#: The columns :func:`classify_database` computes, keyed by game, with their Arrow types.
_STORED = {"game_id": "int64", "ecco": "string", "opening": "string", "variation": "string",
           "opening_names": "list<string>"}


def classify_database(con: duckdb.DuckDBPyConnection) -> int:
    """Classify every game of the database again, in place; returns how many games' stored
    classification changed. Invalid games and games from a set-up position get NULL."""
    import pyarrow as pa

    rows = con.execute(_OPENINGS_SQL.format(where="")).fetchall()
    values = [(game_id, *stored_values(_opening(fen, codes))) for game_id, fen, codes in rows]
    columns = list(zip(*values)) or [()] * len(_STORED)
    con.register("computed", pa.Table.from_arrays(
        [pa.array(list(column), type=arrow_type(kind))
         for column, kind in zip(columns, _STORED.values())],
        names=list(_STORED)))
    try:
        # Games absent from ``computed`` (invalid ones) get NULL; only changed rows are
        # written, so classifying an up-to-date database again writes nothing.
        changed = con.execute("""
            UPDATE games SET ecco = c.ecco, opening = c.opening, variation = c.variation,
                             opening_names = c.opening_names
            FROM (SELECT g.game_id, c.ecco, c.opening, c.variation, c.opening_names
                  FROM games g LEFT JOIN computed c USING (game_id)) AS c
            WHERE games.game_id = c.game_id
              AND (games.ecco IS DISTINCT FROM c.ecco OR games.opening IS DISTINCT FROM c.opening
                   OR games.variation IS DISTINCT FROM c.variation
                   OR games.opening_names IS DISTINCT FROM c.opening_names)""").fetchone()
    finally:
        con.unregister("computed")
    return changed[0] if changed else 0


def explain_game(con: duckdb.DuckDBPyConnection, game_id: int) -> str:
    """Why the stored game ``game_id`` has its opening code, in words (see
    :func:`xqdb.openings.explain`). Raises :class:`~xqdb.errors.NotFoundError` when there
    is no such game."""
    require_game(con, game_id)
    found = con.execute("SELECT status FROM games WHERE game_id = ?", [game_id]).fetchone()
    assert found is not None
    if found[0] != "valid":
        return f"Game {game_id} is invalid: no ECCO code."
    row = con.execute(_OPENINGS_SQL.format(where="AND g.game_id = ?"), [game_id]).fetchone()
    assert row is not None
    result = _opening(row[1], row[2])
    if result is None:
        return f"Game {game_id} is not from the standard start position: no ECCO code."
    return f"Game {game_id}: {result.explanation()}"
