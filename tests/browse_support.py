"""A small real database for the search and export tests, and its games replayed in Python."""

from __future__ import annotations

from pathlib import Path

import duckdb

from datafiles import DATA, SAMPLE_GAMES
from xqdb.pipeline.importer import import_paths
from xqdb.position import Position
from xqdb.rules.board import Move


#: What the small database holds: every game of ``tests/data`` and ``sample_games``
#: (about 200: PGN in every notation, XQF and CBL with variations, games from set-up
#: positions, a few invalid records).
SMALL_INPUTS = [str(DATA), str(SAMPLE_GAMES)]


def build_small_database(folder: Path) -> Path:
    """The games of :data:`SMALL_INPUTS` imported into ``folder/small.duckdb`` (the
    ``small_collection`` fixture holds them once per test run)."""
    path = folder / "small.duckdb"
    import_paths(SMALL_INPUTS, path, jobs=1)
    return path


def replayed_games(db: Path, plies: int | None = None,
                   game_ids: list[int] | None = None) -> dict[int, list[Position]]:
    """Every game's positions from its start to its last move, replayed in Python from its
    start FEN and move codes (a record that held no game has none): the oracle the SQL
    searches are checked against. Only to ``plies`` plies, and of the games ``game_ids``,
    when given (replaying a corpus whole takes a while)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "SELECT g.game_id, g.start_fen, list(m.move ORDER BY m.ply) FILTER "
            "(m.move IS NOT NULL AND ($plies IS NULL OR m.ply <= $plies)) FROM games g "
            "LEFT JOIN stored_moves m USING (game_id) WHERE g.start_key IS NOT NULL "
            "AND ($ids IS NULL OR list_contains($ids, g.game_id)) GROUP BY ALL",
            {"plies": plies, "ids": game_ids}).fetchall()
    finally:
        con.close()
    games = {}
    for game_id, fen, codes in rows:
        position = Position(fen)
        positions = [position.copy()]
        for code in codes or []:
            position.push(Move.from_code(code))
            positions.append(position.copy())
        games[game_id] = positions
    return games
