"""The opening tree counted ahead for the positions many games reach.

The tree of a position (``queries/tree.sql``) reads every game that reached it: a few for
a middle game, every game of the database for the start. So the positions reached at least
:data:`THRESHOLD` times (``position_keys`` rows) are listed in ``tree_keys``, with the key
of their mirror image, and ``tree_moves`` holds, per such position and move, what the tree
shows of the valid games: games, results, the sum of their years, distinct players and the
:data:`LATEST` latest games as the tree lists them, both for the position alone and merged
with its mirror image (``merged``), each counted exactly as the query counts it. A tree of every
valid game (no game filter) of such a position is then a read of a few rows, sorted by
key (:func:`counted_tree`); any other tree keeps the query.

The table counts the games up to ``meta.tree_through``; ``meta.tree_games`` is a digest of
what it counted of them (ids, status, result, year, players), and ``meta.tree_threshold``
the threshold (:data:`THRESHOLD` unless :func:`rebuild` was given another).
:func:`refresh` runs wherever games are linked to their players (the end of an import,
``xqdb players alias``), in the same transaction, once the lookup tables are up to date:
it adds the new games' moves to the counts of the positions they reached (and of their
mirror images), and counts those that became frequent from every game. The rows it
rewrites are appended to ``tree_moves``, sorted among themselves, and the table is sorted
whole once they make :data:`UNSORTED_SHARE` of it (``meta.tree_appended``). Games removed
or linked to other players change the digest, and everything is counted again. While the
table is behind the games (an import killed before its end) :func:`counted_tree` answers
``None`` and the query runs.

>>> import duckdb
>>> from xqdb.db.schema import create_schema
>>> con = duckdb.connect()
>>> create_schema(con)
>>> refresh(con)
0
>>> counted_tree(con, 1, None, 1, 3) is None  # no position counted
True
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

from ..position import Position, mirrored
from ..rules.board import Move
from .lookups import positions_sql, read_meta, through as lookups_through, write_meta
from .queries import create_macros
from .result import Result

#: Rows of ``position_keys`` a position needs to be counted ahead. Below it the query
#: reads so few rows that counting ahead gains nothing measurable (bench/bench_serve.py).
THRESHOLD = 32
#: Latest games kept per position and move: a tree asking for more reads the games.
LATEST = 10
#: Rows of ``position_keys`` counted in one statement, at most (unless one position has
#: more): what the counting holds in memory follows them, and a writer's memory is bounded.
#: The 80 games of an import into a 1M-game database touch positions of about ten million.
BATCH_ROWS = 2_000_000
#: New positions an import may reach for their rows to be found by a list of their keys
#: rather than by a join (which reads every row's key; a list tests each row's key
#: against every key of it).
LISTED_KEYS = 4096

#: Rows appended to ``tree_moves`` since it was last sorted whole, as a share of its rows,
#: past which it is sorted whole again.
UNSORTED_SHARE = 1 / 8

_THROUGH, _DIGEST, _THRESHOLD = "tree_through", "tree_games", "tree_threshold"
#: ``meta.tree_appended``: rows appended to ``tree_moves`` since it was sorted whole.
_APPENDED = "tree_appended"
#: What the table depends on of each game: any change to it is a change of the digest.
_DIGEST_SQL = ("SELECT coalesce(bit_xor(hash(game_id, status, result, year, red_player_id,"
               " black_player_id)), 0) FROM games WHERE game_id <= ?")


def refresh(con: duckdb.DuckDBPyConnection) -> int:
    """Bring ``tree_keys`` and ``tree_moves`` up to date with the games stored (within the
    caller's transaction, if any), once the lookup tables cover every game; returns how
    many positions were counted (again)."""
    row = con.execute("SELECT coalesce(max(game_id), 0) FROM games").fetchone()
    assert row is not None
    last = int(row[0])
    if lookups_through(con) < last:
        return 0  # position_keys first (xqdb.db.lookups.refresh)
    done = read_meta(con, _THROUGH)
    if done and _digest(con, done) != read_meta(con, _DIGEST):
        done = 0  # games removed or linked anew since: count everything again
    if done == last and done:
        return 0
    if not done:
        con.execute("DELETE FROM tree_keys")
        con.execute("DELETE FROM tree_moves")
    # The positions the new games reached, and those of them now reached often enough.
    touched = "SELECT key FROM position_keys" if not done else (
        f"SELECT key FROM ({positions_sql(str(done))})")
    con.execute(f"CREATE OR REPLACE TEMP TABLE tree_touched AS SELECT DISTINCT key FROM ({touched})")
    among, keys = "", None
    if done:
        uncounted = "SELECT key FROM tree_touched EXCEPT SELECT key FROM tree_keys"
        among = f"WHERE key IN ({uncounted})"
        row = con.execute(f"SELECT list(key) FROM ({uncounted})").fetchone()
        if row is not None and len(row[0] or []) <= LISTED_KEYS:
            # As a list the keys skip the row groups that cannot hold them; a join with
            # their table reads the key of every row of position_keys.
            among, keys = "WHERE list_contains($keys::UBIGINT[], key)", row[0] or []
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE tree_new AS
        SELECT key, count(*) AS positions, min(game_id) AS game_id,
               arg_min(ply, game_id * 65536 + ply) AS ply
        FROM position_keys {among}
        GROUP BY key HAVING count(*) >= {read_meta(con, _THRESHOLD) or THRESHOLD}""",
                {} if keys is None else {"keys": keys})
    _add_keys(con)
    # Counted again: every counted position the new games reached, or whose mirror they did.
    con.execute("""
        CREATE OR REPLACE TEMP TABLE tree_wanted AS
        SELECT key, mirror_key FROM tree_keys
        WHERE key IN (SELECT key FROM tree_touched) OR mirror_key IN (SELECT key FROM tree_touched)""")
    con.execute("UPDATE tree_keys SET positions = c.n FROM (SELECT key, count(*) AS n FROM"
                " position_keys WHERE key IN (SELECT key FROM tree_wanted) GROUP BY key) c"
                " WHERE tree_keys.key = c.key")
    # A position counted before has the new games' moves added to its counts: counting it
    # again would read every game that reached it (all of them, for the start).
    con.execute("CREATE OR REPLACE TEMP TABLE tree_fresh AS SELECT * FROM tree_wanted"
                + (" WHERE key IN (SELECT key FROM tree_new)" if done else ""))
    _count(con, "tree_fresh")
    if done:
        _count_added(con, done)
    _store_counted(con)
    row = con.execute("SELECT count(*) FROM tree_wanted").fetchone()
    assert row is not None
    counted = int(row[0])
    for name in ("tree_touched", "tree_new", "tree_wanted", "tree_fresh"):
        con.execute(f"DROP TABLE {name}")
    write_meta(con, _THROUGH, last)
    write_meta(con, _DIGEST, _digest(con, last))
    return counted


def rebuild(con: duckdb.DuckDBPyConnection, threshold: int = THRESHOLD) -> int:
    """Count every position reached ``threshold`` times or more again (``xqdb upgrade``),
    and from then on those that reach it; returns how many."""
    con.execute("DELETE FROM meta WHERE key IN (?, ?)", [_THROUGH, _DIGEST])
    write_meta(con, _THRESHOLD, threshold)
    return refresh(con)


def forget(con: duckdb.DuckDBPyConnection) -> None:
    """Drop what is counted, as games are about to be removed: the next :func:`refresh`
    counts everything again, and until then trees read the games."""
    con.execute("DELETE FROM tree_keys")
    con.execute("DELETE FROM tree_moves")
    write_meta(con, _THROUGH, 0)


def counted_tree(con: duckdb.DuckDBPyConnection, key: int, mirror_key: int | None,
                 min_games: int, top_games: int) -> Result | None:
    """The rows of ``queries/tree.sql`` (``code`` first, ``top_games`` last) for the valid
    games of every selection, read from ``tree_moves``; ``None`` when the position is not
    counted ahead, the table is behind the games, or more than :data:`LATEST` games a
    move are asked for. ``mirror_key`` (the mirror image's key, or ``None``) merges the
    mirror image's moves in, as the query does."""
    if top_games > LATEST:
        return None
    found = con.execute("SELECT (SELECT value FROM meta WHERE key = $through),"
                        " EXISTS (SELECT 1 FROM tree_keys WHERE key = $key)",
                        {"through": _THROUGH, "key": key}).fetchone()
    if found is None or found[0] is None or not found[1]:
        return None
    # Games past the counts (ids grow: a bound id reads the last row group only).
    behind = con.execute("SELECT EXISTS (SELECT 1 FROM games WHERE game_id > ?)",
                         [int(found[0])]).fetchone()
    if behind is None or behind[0]:
        return None
    # The figures as queries/tree.sql computes them from the counts (the same macros).
    create_macros(con, "pct", "score_pct")
    cursor = con.execute("""
        WITH counted AS (
            SELECT * FROM tree_moves WHERE key = $key AND merged = $merged
        )
        SELECT move AS code, games,
               pct(games, sum(games) OVER ()) AS share,
               pct(red_wins, red_wins + draws + black_wins) AS red_win,
               pct(draws, red_wins + draws + black_wins) AS draw,
               pct(black_wins, red_wins + draws + black_wins) AS black_win,
               score_pct(red_wins, draws, black_wins) AS red_score,
               round(year_sum / nullif(years, 0), 1) AS avg_year, players,
               CASE WHEN $top > 0 THEN array_to_string(latest[1:$top], '; ') END AS top_games
        FROM counted
        QUALIFY games >= $min_games
        ORDER BY games DESC, move""", {"key": key, "merged": mirror_key is not None,
                                       "top": max(top_games, 0),
                                       "min_games": min_games})
    return Result([d[0] for d in cursor.description or []], cursor.fetchall())


def _add_keys(con: duckdb.DuckDBPyConnection) -> None:
    """List the positions of ``tree_new`` in ``tree_keys`` with the key of their mirror
    image, found by playing one game that reached each up to it."""
    wanted = con.execute("SELECT key, game_id, ply, positions FROM tree_new").fetchall()
    if not wanted:
        return
    by_game: dict[int, list[tuple[int, int, int]]] = {}
    for key, game_id, ply, positions in wanted:
        by_game.setdefault(game_id, []).append((int(ply), int(key), int(positions)))
    con.execute("CREATE OR REPLACE TEMP TABLE tree_games AS SELECT game_id, max(ply) AS ply"
                " FROM tree_new GROUP BY game_id")
    starts = dict(con.execute("SELECT game_id, start_fen FROM games"
                              " WHERE game_id IN (SELECT game_id FROM tree_games)").fetchall())
    moves: dict[int, list[int]] = {}
    for game_id, codes in con.execute("""
            SELECT m.game_id, list(m.move ORDER BY m.ply) FROM stored_moves m
            JOIN tree_games t ON m.game_id = t.game_id AND m.ply <= t.ply
            GROUP BY m.game_id""").fetchall():
        moves[game_id] = codes
    con.execute("DROP TABLE tree_games")
    rows = []
    for game_id, needed in by_game.items():
        rows += _mirror_keys(starts.get(game_id), moves.get(game_id, []), sorted(needed))
    if not rows:
        return
    # One statement of lists, not a statement per row (executemany): 459 rows took 0.19 s
    # that way, at the end of an import of 11,791 games, and 4 ms so.
    keys, mirror_keys, positions = (list(column) for column in zip(*rows))
    con.execute("INSERT INTO tree_keys SELECT unnest($keys::UBIGINT[]),"
                " unnest($mirror_keys::UBIGINT[]), unnest($positions::BIGINT[])",
                {"keys": keys, "mirror_keys": mirror_keys, "positions": positions})


def _mirror_keys(fen: str | None, codes: Sequence[int], needed: list[tuple[int, int, int]]
                 ) -> list[tuple[int, int, int]]:
    """``(key, mirror key, positions)`` of each ``(ply, key, positions)`` of ``needed``
    (by ply), playing the game of start ``fen`` and moves ``codes`` up to them; a position
    the game does not give (a record stored with other keys) is left out, so its trees
    keep the query."""
    position = Position(fen) if fen else Position()
    out, ply = [], 0
    for at, key, positions in needed:
        while ply < at and ply < len(codes):
            position.push(Move.from_code(codes[ply]))
            ply += 1
        if ply == at and position.zobrist() == key:
            out.append((key, mirrored(position).zobrist(), positions))
    return out


def _count(con: duckdb.DuckDBPyConnection, wanted: str) -> None:
    """Count the moves of the positions of the table ``wanted`` (``key, mirror_key``) into
    ``tree_counted``, as ``queries/tree.sql`` counts them, from every game."""
    create_macros(con, "mirror_square")
    # In batches of positions (in key order, so that each batch reads a stretch of the
    # sorted position_keys) of about BATCH_ROWS rows each, counting a position's mirror's.
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE tree_batches AS
        SELECT w.key, w.mirror_key,
               (sum(coalesce(k.positions, 0) + coalesce(m.positions, 0)) OVER (ORDER BY w.key)
                - 1) // {BATCH_ROWS} AS batch
        FROM {wanted} w LEFT JOIN tree_keys k ON k.key = w.key
        LEFT JOIN tree_keys m ON m.key = w.mirror_key AND w.mirror_key <> w.key""")
    batches = [int(b) for b, in con.execute(
        "SELECT DISTINCT batch FROM tree_batches ORDER BY batch").fetchall()]
    con.execute("CREATE OR REPLACE TEMP TABLE tree_batch AS"
                " SELECT key, mirror_key FROM tree_batches LIMIT 0")
    for number, batch in enumerate(batches):
        con.execute("DELETE FROM tree_batch")
        con.execute("INSERT INTO tree_batch SELECT key, mirror_key FROM tree_batches"
                    " WHERE batch = ?", [batch])
        into = ("CREATE OR REPLACE TEMP TABLE tree_counted AS" if number == 0
                else "INSERT INTO tree_counted")
        con.execute(f"{into}\n{_COUNT_SQL}")
    if not batches:
        con.execute(f"CREATE OR REPLACE TEMP TABLE tree_counted AS\n{_COUNT_SQL}")
    con.execute("DROP TABLE tree_batches")
    con.execute("DROP TABLE tree_batch")


def _count_added(con: duckdb.DuckDBPyConnection, done: int) -> None:
    """Add to ``tree_counted`` the positions of ``tree_wanted`` counted before (not in
    ``tree_fresh``), their counts those of ``tree_moves`` with the moves of the games
    past ``done`` added in.

    Games, results and years add up, and the latest games merge. A player counts once
    per move, so a new game's mover adds to ``players`` only if none of the games counted
    before has them make that move there: those games are among the few the new movers
    played, not among all that reached the position."""
    con.execute("""
        CREATE OR REPLACE TEMP TABLE tree_grown AS SELECT key, mirror_key FROM tree_wanted
        WHERE key NOT IN (SELECT key FROM tree_fresh)""")
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE tree_played AS
        {_played_sql('tree_grown', f'p.game_id > {int(done)}')} SELECT * FROM played""")
    con.execute(f"CREATE OR REPLACE TEMP TABLE tree_added AS"
                f" WITH played AS (SELECT * FROM tree_played) {_COUNTS}")
    con.execute("""
        CREATE OR REPLACE TEMP TABLE tree_movers AS
        SELECT DISTINCT key, merged, move, mover FROM tree_played WHERE mover IS NOT NULL""")
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE tree_their_games AS
        SELECT game_id FROM games
        WHERE game_id <= {int(done)} AND status = 'valid'
          AND (red_player_id IN (SELECT mover FROM tree_movers)
               OR black_player_id IN (SELECT mover FROM tree_movers))""")
    old_games = f"p.game_id <= {int(done)} AND p.game_id IN (SELECT game_id FROM tree_their_games)"
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE tree_new_players AS
        WITH known AS ({_played_sql('tree_grown', old_games)}
                       SELECT DISTINCT key, merged, move, mover FROM played)
        SELECT key, merged, move, count(*) AS players
        FROM tree_movers ANTI JOIN known USING (key, merged, move, mover)
        GROUP BY key, merged, move""")
    # The latest games: those listed before and the new ones, the latest kept.
    con.execute(f"""
        INSERT INTO tree_counted
        WITH counted AS (
            SELECT key, merged, move, games, red_wins, draws, black_wins, year_sum, years,
                   players, [split_part(entry, ' ', 1)::BIGINT FOR entry IN latest] AS ids
            FROM tree_moves WHERE key IN (SELECT key FROM tree_grown)
        ), listed AS (
            SELECT key, merged, move, unnest(ids) AS game_id FROM counted
            UNION ALL SELECT key, merged, move, unnest(ids) FROM tree_added
        ), latest AS (
            SELECT l.key, l.merged, l.move,
                   arg_max(l.game_id, {{'year': coalesce(g.year, -2147483648),
                                        'game_id': l.game_id}}, {LATEST}) AS ids
            FROM listed l JOIN games g USING (game_id)
            GROUP BY l.key, l.merged, l.move
        )
        SELECT key, merged, move,
               coalesce(c.games, 0) + coalesce(a.games, 0),
               coalesce(c.red_wins, 0) + coalesce(a.red_wins, 0),
               coalesce(c.draws, 0) + coalesce(a.draws, 0),
               coalesce(c.black_wins, 0) + coalesce(a.black_wins, 0),
               coalesce(c.year_sum + a.year_sum, c.year_sum, a.year_sum),
               coalesce(c.years, 0) + coalesce(a.years, 0),
               coalesce(c.players, 0) + coalesce(n.players, 0),
               latest.ids
        FROM counted c FULL JOIN tree_added a USING (key, merged, move)
        LEFT JOIN tree_new_players n USING (key, merged, move)
        JOIN latest USING (key, merged, move)""")
    for name in ("tree_grown", "tree_played", "tree_added", "tree_movers", "tree_their_games",
                 "tree_new_players"):
        con.execute(f"DROP TABLE {name}")


_MIRROR = "mirror_square(p.move // 90) * 90 + mirror_square(p.move % 90)"


def _played_sql(wanted: str, games: str) -> str:
    """The start of a statement (``WITH ... played AS (...)``) listing ``(key, merged,
    move, game_id, result, year, mover)``: one move of each valid game the condition
    ``games`` (SQL over ``position_keys p``) keeps, at each position of the table
    ``wanted``, alone and merged with its mirror image, as ``queries/tree.sql`` counts."""
    # One move of each game there (DISTINCT, as the query), alone and with the mirror
    # image's mirrored back; a position that is its own mirror image writes a move and
    # its mirror as the one on the right of the mover's board, as the query does.
    return f"""
        WITH rows AS (
            SELECT w.key, true AS own, w.mirror_key, p.game_id, p.move, p.piece,
                   {_MIRROR} AS mirrored
            FROM position_keys p JOIN {wanted} w ON p.key = w.key
            WHERE p.move IS NOT NULL AND {games}
            UNION ALL
            SELECT w.key, false AS own, w.mirror_key, p.game_id, p.move, p.piece,
                   {_MIRROR} AS mirrored
            FROM position_keys p JOIN {wanted} w ON p.key = w.mirror_key
            WHERE p.move IS NOT NULL AND w.mirror_key <> w.key AND {games}
        ), here AS (
            SELECT DISTINCT key, false AS merged, game_id, move,
                   CASE WHEN piece > 0 THEN 'red' ELSE 'black' END AS side
            FROM rows WHERE own
            UNION
            SELECT DISTINCT key, true AS merged, game_id,
                   CASE WHEN NOT own THEN mirrored
                        WHEN mirror_key = key THEN greatest(move, mirrored)
                        ELSE move END AS move,
                   CASE WHEN piece > 0 THEN 'red' ELSE 'black' END AS side
            FROM rows
        ), played AS (
            SELECT h.key, h.merged, h.move, g.game_id, g.result, g.year,
                   CASE h.side WHEN 'red' THEN g.red_player_id ELSE g.black_player_id END
                       AS mover
            FROM here h JOIN games g USING (game_id)
            WHERE g.status = 'valid'
        )"""


#: The counts of ``played`` (see :func:`_played_sql`): a row per position, merging and
#: move, with the ids of the :data:`LATEST` latest games.
_COUNTS = f"""
        SELECT key, merged, move, count(*) AS games,
               count(*) FILTER (result = '1-0') AS red_wins,
               count(*) FILTER (result = '1/2-1/2') AS draws,
               count(*) FILTER (result = '0-1') AS black_wins,
               sum(year) AS year_sum, count(year) AS years,
               count(DISTINCT mover) AS players,
               -- the latest first, NULL years last (a top-N in fixed memory: a list of every
               -- game of the start, sorted, would not fit a writer's memory limit)
               arg_max(game_id, {{'year': coalesce(year, -2147483648), 'game_id': game_id}},
                       {LATEST}) AS ids
        FROM played GROUP BY key, merged, move"""


#: The moves of the positions of ``tree_batch`` counted, from every game.
_COUNT_SQL = _played_sql("tree_batch", "TRUE") + _COUNTS


def _store_counted(con: duckdb.DuckDBPyConnection) -> None:
    """Replace the rows of the positions of ``tree_wanted`` in ``tree_moves`` by those of
    ``tree_counted``, with their latest games as the tree lists them."""
    # The latest games as the tree lists them, their players named.
    con.execute("""
        CREATE OR REPLACE TEMP TABLE tree_latest AS
        SELECT l.key, l.merged, l.move,
               list(g.game_id || ' ' || coalesce(r.name, '?') || '-' || coalesce(b.name, '?')
                    || coalesce(' ' || g.year, '') || ' ' || coalesce(g.result, '*')
                    ORDER BY g.year DESC NULLS LAST, g.game_id DESC) AS latest
        FROM (SELECT key, merged, move, unnest(ids) AS game_id FROM tree_counted) l
        JOIN games g USING (game_id)
        LEFT JOIN players r ON r.player_id = g.red_player_id
        LEFT JOIN players b ON b.player_id = g.black_player_id
        GROUP BY l.key, l.merged, l.move""")

    counted = "SELECT * EXCLUDE (ids) FROM tree_counted JOIN tree_latest USING (key, merged, move)"
    row = con.execute("SELECT (SELECT count(*) FROM tree_counted), (SELECT count(*) FROM"
                      " tree_moves)").fetchone()
    assert row is not None
    appended = read_meta(con, _APPENDED) + int(row[0])
    con.execute("DELETE FROM tree_moves WHERE key IN (SELECT key FROM tree_wanted)")
    if appended <= UNSORTED_SHARE * int(row[1]):
        # Appended, in order among themselves: the table's zone maps still find a key's
        # rows in its sorted part and in these.
        con.execute(f"INSERT INTO tree_moves {counted} ORDER BY key, merged, move")
    else:  # sorted whole again, which costs what the table holds
        con.execute(f"CREATE OR REPLACE TEMP TABLE tree_kept AS SELECT * FROM tree_moves"
                    f" UNION ALL {counted}")
        con.execute("DELETE FROM tree_moves")
        con.execute("INSERT INTO tree_moves SELECT * FROM tree_kept ORDER BY key, merged, move")
        con.execute("DROP TABLE tree_kept")
        appended = 0
    write_meta(con, _APPENDED, appended)
    con.execute("DROP TABLE tree_counted")
    con.execute("DROP TABLE tree_latest")


def _digest(con: duckdb.DuckDBPyConnection, last: int) -> int:
    row = con.execute(_DIGEST_SQL, [last]).fetchone()
    assert row is not None
    return int(row[0])
