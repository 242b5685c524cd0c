"""Does the database hold it: the game ids and player names a command was given, checked
once here, with the closest names as the hint, so every command says the same."""

from __future__ import annotations

import duckdb

from ..errors import NotFoundError, closest


def require_game(con: duckdb.DuckDBPyConnection, game_id: int, path: str = "") -> None:
    """Raise :class:`~xqdb.errors.NotFoundError` unless ``game_id`` is a game of ``con``."""
    if con.execute("SELECT 1 FROM games WHERE game_id = ?", [game_id]).fetchone() is None:
        count, last = con.execute("SELECT count(*), max(game_id) FROM games").fetchone() \
            or (0, None)
        where = f" in {path}" if path else ""
        hint = f"its games are 1 to {last}" if count else "the database holds no game"
        raise NotFoundError(f"no game {game_id}{where}", hint)


def require_player(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Raise :class:`~xqdb.errors.NotFoundError` unless ``name`` is a player's canonical
    name; the hint names the closest one."""
    if con.execute("SELECT 1 FROM players WHERE name = ?", [name]).fetchone() is not None:
        return
    names = [row[0] for row in con.execute("SELECT name FROM players").fetchall()]
    meant = closest(name, names)
    hint = f"did you mean {meant}? " if meant else ""
    raise NotFoundError(f"no player named {name!r}",
                        f"{hint}xqdb players --search TEXT finds the names")
