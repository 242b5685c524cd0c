"""The ``players`` table: each ``red``/``black`` spelling linked to one player.

:func:`link_players` runs the naming rules of :mod:`xqdb.formats.player_names` over every spelling of
the database (the rules look at all of them together) and points ``games.red_player_id``
and ``black_player_id`` at the result; corrections made with :func:`merge` and
:func:`split` (``xqdb players alias``) are stored in ``player_names`` as ``alias`` and kept
whenever the rules run again.

>>> import duckdb
>>> from xqdb.db.schema import create_schema
>>> con = duckdb.connect()
>>> create_schema(con)
>>> _ = con.execute("INSERT INTO games (game_id, source_id, record_index, plies, status,"
...     " red, black) VALUES (1, 1, 0, 0, 'valid', '上海 胡榮華', '呂欽'),"
...     " (2, 1, 1, 0, 'valid', '胡榮華', '廣東呂欽')")
>>> link_players(con)
2
>>> con.execute("SELECT red_player_id, black_player_id FROM games ORDER BY game_id").fetchall()
[(2, 1), (2, 1)]
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import duckdb

from ..errors import NotFoundError
from ..formats.player_names import canonical_names, fold
from .lookups import read_meta, write_meta
from .tree_counts import refresh as refresh_tree


class PlayerError(NotFoundError, ValueError):
    """A correction names no spelling or player of the database."""


#: ``meta.players_through``: the last game the rules have linked. The games after it are
#: new to them: a link reads only those games, and the spellings of the others from
#: ``player_names``. Removing games forgets it (:func:`forget_links`): the next link reads
#: every game.
_THROUGH = "players_through"
#: ``meta.players_stale_aliases``: corrections whose spelling no game had at the last link
#: of every game. The rules must not see those spellings, so while there are any, each
#: link reads every game to learn the spellings the games have.
_STALE = "players_stale_aliases"


def link_players(con: duckdb.DuckDBPyConnection) -> int:
    """Name every spelling of the database by the rules (aliases kept), add the players
    that are new, and link each game to its players; returns how many players there are.

    The rules look at every spelling together, and a new spelling may rename old ones
    (``胡荣华吕钦`` is one player until the games also have ``吕钦``): the games read are
    only the new ones, but the names of all the spellings are worked out again, and the
    old games of a spelling whose player changed are linked anew.
    """
    import pyarrow as pa  # here: renaming a player (alias, split) needs no Arrow

    with one_transaction(con):  # the games linked anew and the tree counted at once
        last = _scalar(con, "SELECT coalesce(max(game_id), 0) FROM games")
        through = 0 if read_meta(con, _STALE) else read_meta(con, _THROUGH)
        first_game = _first_games(con, "game_id > $through", {"through": through})
        stored = con.execute("""
            SELECT n.spelling, n.player_id, n.decided_by = 'alias', p.name
            FROM player_names n JOIN players p USING (player_id)""").fetchall()
        aliases = {spelling: name for spelling, _, alias, name in stored if alias}
        by_rules = {spelling: player for spelling, player, alias, _ in stored if not alias}
        # Every spelling of the games linked before has its row (no game has gone since).
        spellings = set(first_game) | (set(by_rules) | set(aliases) if through else set())
        names = canonical_names(sorted(spellings))
        names.update(aliases)
        _add_players(con, names, first_game, set(by_rules) if through else set())
        ids = dict(con.execute("SELECT name, player_id FROM players").fetchall())
        wanted = {s: ids[names[s]] for s in spellings if s not in aliases}
        changed = sorted(s for s, player in wanted.items() if by_rules.get(s) != player)
        gone = [s for s in by_rules if s not in wanted]
        if changed or gone:
            con.execute("DELETE FROM player_names WHERE decided_by = 'rules'"
                        " AND list_contains($s::VARCHAR[], spelling)", {"s": changed + gone})
            con.register("new_player_names", pa.table({
                "spelling": changed, "player_id": pa.array([wanted[s] for s in changed],
                                                           pa.int64())}))
            try:
                con.execute("INSERT INTO player_names SELECT spelling, player_id, 'rules'"
                            " FROM new_player_names")
            finally:
                con.unregister("new_player_names")
        relinked = [s for s in changed if s in by_rules] if through else []
        count = _relink(con, through, relinked)
        write_meta(con, _THROUGH, last)
        if not through:
            write_meta(con, _STALE, len(set(aliases) - set(first_game)))
        return count


def forget_links(con: duckdb.DuckDBPyConnection) -> None:
    """Make the next :func:`link_players` read every game (games are being removed, and
    their spellings may go with them)."""
    con.execute("DELETE FROM meta WHERE key = ?", [_THROUGH])


def _first_games(con: duckdb.DuckDBPyConnection, which: str, params: dict[str, object]
                 ) -> dict[str, int]:
    """Each spelling of the games the condition ``which`` selects (SQL in which
    ``{side}`` stands for the column of the spelling, ``red`` or ``black``), with the
    first of those games."""
    return dict(con.execute(f"""
        SELECT name, min(game_id) FROM (
            SELECT red AS name, game_id FROM games WHERE {which.format(side='red')}
            UNION ALL
            SELECT black, game_id FROM games WHERE {which.format(side='black')})
        WHERE name IS NOT NULL GROUP BY name""", params).fetchall())


def _add_players(con: duckdb.DuckDBPyConnection, names: dict[str, str],
                 first_game: dict[str, int], old: set[str]) -> None:
    """Add the canonical names not yet in ``players``, numbered in the order of their
    first game, so that the same games give the same ids. ``first_game`` holds the first
    games of the spellings read; those of the spellings ``old`` (not read again) that the
    rules now give a new name are looked up."""
    import pyarrow as pa

    known = {name for name, in con.execute("SELECT name FROM players").fetchall()}
    renamed = sorted(s for s in old if names[s] not in known)
    if renamed:
        first_game = first_game | _first_games(con, "list_contains($s::VARCHAR[], {side})",
                                               {"s": renamed})
    first: dict[str, int] = {}
    for spelling, name in names.items():
        if name not in known:
            game = first_game.get(spelling, 0)
            first[name] = min(first.get(name, game), game)
    new = sorted(first, key=lambda n: (first[n], n))
    start = _scalar(con, "SELECT coalesce(max(player_id), 0) FROM players")
    con.register("new_players", pa.table({
        "player_id": pa.array(range(start + 1, start + 1 + len(new)), pa.int64()),
        "name": new, "is_pair": ["+" in n for n in new]}))
    try:
        con.execute("INSERT INTO players SELECT player_id, name, is_pair FROM new_players")
    finally:
        con.unregister("new_players")


def _relink(con: duckdb.DuckDBPyConnection, through: int = 0, spellings: list[str] | None = None
            ) -> int:
    """Point the games after ``through`` (and those of ``spellings``) at their players,
    drop players no spelling names any more, and bring the tree's counts (which count
    players) up to date (in the caller's one transaction: a kill leaves no games linked
    anew and counted as before)."""
    for side in ("red", "black"):
        _point(con, side, "games.game_id > $through", {"through": through})
        if spellings:
            _point(con, side, f"list_contains($s::VARCHAR[], games.{side})", {"s": spellings})
    con.execute("DELETE FROM players WHERE player_id NOT IN (SELECT player_id FROM player_names)")
    refresh_tree(con)
    return _scalar(con, "SELECT count(*) FROM players")


def _point(con: duckdb.DuckDBPyConnection, side: str, which: str, params: dict[str, object]
           ) -> None:
    """Point ``side`` of the games the condition ``which`` selects at its spelling's player."""
    con.execute(f"""
        UPDATE games SET {side}_player_id = n.player_id FROM player_names n
        WHERE {which} AND games.{side} = n.spelling
          AND games.{side}_player_id IS DISTINCT FROM n.player_id""", params)


def _scalar(con: duckdb.DuckDBPyConnection, sql: str, params: list[object] | None = None
            ) -> int:
    """The one number ``sql`` gives (0 for no row)."""
    rows = con.execute(sql, params or []).fetchall()
    return int(rows[0][0]) if rows and rows[0][0] is not None else 0


def _player_id(con: duckdb.DuckDBPyConnection, name: str) -> int:
    """The id of the player called ``name``, added when there is none."""
    found = _scalar(con, "SELECT player_id FROM players WHERE name = ?", [name])
    if found:
        return found
    con.execute("INSERT INTO players SELECT coalesce(max(player_id), 0) + 1, ?, ? FROM players",
                [name, "+" in name])
    return _player_id(con, name)


def _spellings(con: duckdb.DuckDBPyConnection, texts: list[str]) -> list[str]:
    """The spellings ``texts`` name: each text is a spelling or a player's name (all of
    its spellings)."""
    found: list[str] = []
    for text in texts:
        rows = con.execute("""
            SELECT spelling FROM player_names WHERE spelling = $t
            UNION SELECT n.spelling FROM player_names n JOIN players p USING (player_id)
            WHERE p.name = $t ORDER BY 1""", {"t": text}).fetchall()
        if not rows:
            raise PlayerError(f"{text!r} is neither a spelling nor a player of the database")
        found += [r[0] for r in rows if r[0] not in found]
    return found


def merge(con: duckdb.DuckDBPyConnection, texts: list[str], name: str) -> list[str]:
    """Make every spelling of ``texts`` (spellings or players' names) the player ``name``;
    returns the spellings moved. Kept when the rules run again."""
    with one_transaction(con):  # a kill half-way must not leave some spellings moved
        spellings = _spellings(con, texts)
        player = _player_id(con, name)
        for spelling in spellings:
            con.execute("UPDATE player_names SET player_id = ?, decided_by = 'alias'"
                        " WHERE spelling = ?", [player, spelling])
        _relink(con)
    return spellings


@contextmanager
def one_transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Run the block in one transaction, committed at its end and rolled back if it
    raises; inside a transaction already, the block is part of that one.

    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE t (x INTEGER)")
    >>> try:
    ...     with one_transaction(con):
    ...         _ = con.execute("INSERT INTO t VALUES (1)")
    ...         raise ValueError
    ... except ValueError:
    ...     pass
    >>> con.execute("SELECT count(*) FROM t").fetchone()
    (0,)
    >>> _ = con.execute("BEGIN TRANSACTION")
    >>> with one_transaction(con):
    ...     _ = con.execute("INSERT INTO t VALUES (2)")
    >>> _ = con.execute("ROLLBACK")  # the caller's transaction, with the block's insert
    >>> con.execute("SELECT count(*) FROM t").fetchone()
    (0,)
    """
    if _in_transaction(con):
        yield  # the caller's transaction holds this block too
        return
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def _in_transaction(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether ``con`` is within a transaction: its statements then share one transaction
    id, where each statement is a transaction of its own otherwise. (A ``BEGIN`` would
    tell as well, but DuckDB 2 aborts the transaction it fails in.)"""
    ids = [con.execute("SELECT txid_current()").fetchone() for _ in range(2)]
    return ids[0] == ids[1]


def split(con: duckdb.DuckDBPyConnection, spelling: str, name: str | None = None) -> str:
    """Give the spelling ``spelling`` a player of its own, ``name`` (by default the spelling
    folded, with nothing taken off); returns that name."""
    if not _scalar(con, "SELECT count(*) FROM player_names WHERE spelling = ?", [spelling]):
        raise PlayerError(f"{spelling!r} is not a spelling of the database")
    name = name or fold(spelling)
    merge(con, [spelling], name)
    return name
