"""The lookup tables: positions by key and material by signature, sorted so that a lookup
reads only the row groups holding its matches.

``moves`` is stored in game order, which suits showing and exporting games; finding the
games that reached a position there means reading the key column of every move. So every
position of every game is also stored in ``position_keys`` (key, game, ply, the move
played from it) sorted by key: DuckDB keeps the least and greatest key of each row group
(a zone map) and skips the groups that cannot hold the key asked for, so a lookup costs
what its matches cost, whatever the size of the database. The tree, position search
(``--mirror`` too), near-duplicates and the analysis read it.

Material changes only at a capture, so a game's material is a few stretches between
captures: ``material_spans`` holds one row per stretch (signature, game, first ply, the ply
it ended), sorted by signature, and ``material_signatures`` spells each signature out as
twelve piece counts. A material search tests its pattern on the few thousand signatures,
then reads the spans of those that fit.

A game's first moves (:data:`LINE_PLIES` of them) are kept as one list per game in
``opening_moves``, in game order: the most played lines group games by that list instead
of gathering the first moves of every game out of ``moves``.

The tables cover the games up to ``meta.lookups_through`` (a game id). An import brings
them up to date once, at its end (:func:`refresh`): the new games' rows are appended,
sorted among themselves, as one more *run*. After :data:`MOST_RUNS` runs, the runs since
the table was last sorted whole (the games past ``meta.lookups_sorted``) are sorted
again into one; the whole table only once they hold a :data:`WHOLE_SHARE` of its games,
so that the import of a few games into ten million never sorts ten million games' rows.
A lookup reads every run (a row group or two each), and the games past
``lookups_through`` (an import killed before its end) from ``moves`` itself, where they
are the last rows: its answer never misses a game.

>>> import duckdb
>>> from xqdb.db.schema import create_schema
>>> con = duckdb.connect()
>>> create_schema(con)
>>> refresh(con)
0
>>> signature({"red_chariot": 2, "black_pawn": 1}) == 2 + (1 << 55)
True
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import duckdb

from .columns import MATERIAL_COUNTS, LINE_PLIES, TABLES
from ..rules.board import (ADVISOR, BLACK, CANNON, CHARIOT, COLOR_NAMES, ELEPHANT, HORSE,
                           PAWN, PIECE_NAMES, RED, Piece, piece_symbol)

#: Sorted runs a lookup table may hold before :func:`refresh` sorts runs again into one.
MOST_RUNS = 8
#: The share of the games the runs since the last whole sort must hold for a table to be
#: sorted whole again, rather than those runs alone: sorting costs what it sorts, so each
#: game's rows are sorted whole a bounded number of times, however small the imports.
WHOLE_SHARE = 1 / 8
#: Games whose rows one statement works out when the tables are brought up to date, and
#: rows one statement sorts, at most: bounds on what a statement holds in memory.
CHUNK_GAMES = 250_000
SORT_ROWS = 40_000_000
#: Bits per piece count in a material signature (a side has at most 5 pawns; a start
#: position given by FEN is checked against the same counts).
BITS = 5

_THROUGH, _RUNS, _SORTED = "lookups_through", "lookups_runs", "lookups_sorted"
_SIGNATURE = " | ".join(f"({name}::BIGINT << {BITS * i})"
                        for i, name in enumerate(MATERIAL_COUNTS))
_COUNTS = ", ".join(f"((signature >> {BITS * i}) & {(1 << BITS) - 1})::TINYINT AS {name}"
                    for i, name in enumerate(MATERIAL_COUNTS))
_COUNT_NAME = re.compile(r"\b(" + "|".join(MATERIAL_COUNTS) + r")\b")
_COUNT_BITS = {name: f"(({{}} >> {BITS * i}) & {(1 << BITS) - 1})"
               for i, name in enumerate(MATERIAL_COUNTS)}
_ORDER = {"position_keys": "key, game_id, ply", "material_spans": "signature, game_id, ply"}


def signature(counts: Mapping[str, int]) -> int:
    """The signature of material given as counts by column name (absent: none)."""
    return sum(counts.get(name, 0) << (BITS * i) for i, name in enumerate(MATERIAL_COUNTS))


def through(con: duckdb.DuckDBPyConnection) -> int:
    """The last game id the lookup tables cover (0: none)."""
    return read_meta(con, _THROUGH)


def positions_sql(since: str, until: str | None = None) -> str:
    """SQL listing ``(key, game_id, ply, move, piece)`` of every position of the games whose
    id is over ``since`` (SQL giving a number), and up to ``until`` if given, from
    ``games`` and ``stored_moves``."""
    def among(game_id: str) -> str:
        return f"{game_id} > {since}" + ("" if until is None else f" AND {game_id} <= {until}")
    return f"""
        SELECT g.start_key AS key, g.game_id, 0::SMALLINT AS ply, m.move, m.piece
        FROM games g LEFT JOIN stored_moves m ON m.game_id = g.game_id AND m.ply = 1
        WHERE g.start_key IS NOT NULL AND {among("g.game_id")}
        UNION ALL
        SELECT key_after, game_id, ply,
               lead(move) OVER next_move, lead(piece) OVER next_move
        FROM stored_moves WHERE {among("game_id")}
        WINDOW next_move AS (PARTITION BY game_id ORDER BY ply)"""


def opening_moves_sql(games: str, plies: str = str(LINE_PLIES)) -> str:
    """SQL listing ``(game_id, moves)`` of the games the condition ``games`` (SQL over
    ``stored_moves``) selects that have moves: their first ``plies`` (SQL giving a number;
    :data:`LINE_PLIES` as ``opening_moves`` holds them) move codes, in order."""
    return f"""
        SELECT game_id, list(move ORDER BY ply) AS moves FROM stored_moves
        WHERE ply <= {plies} AND ({games})
        GROUP BY game_id"""


def spans_sql(states: str) -> str:
    """SQL listing the rows of ``material_spans`` of the material states ``states`` gives
    (SQL of :func:`material_states`' columns)."""
    return _with_next(f"SELECT {_SIGNATURE} AS signature, game_id, ply, until FROM ({states})")


def _with_next(spans: str) -> str:
    """SQL listing the rows of ``material_spans`` of the stretches ``spans`` lists
    (``signature, game_id, ply, until``, every stretch of each game it holds): each with
    its next stretch's signature and until."""
    return f"""
        SELECT signature, game_id, ply, until,
               lead(signature) OVER next_span AS next_signature,
               lead(until) OVER next_span AS next_until
        FROM ({spans})
        WINDOW next_span AS (PARTITION BY game_id ORDER BY ply)"""


def refresh(con: duckdb.DuckDBPyConnection) -> int:
    """Bring the lookup tables up to date with the games stored (within the caller's
    transaction, if any); returns how many games were added to them."""
    done = through(con)
    row = con.execute("SELECT coalesce(max(game_id), 0), count(*) FILTER (game_id > ?)"
                      " FROM games", [done]).fetchone()
    assert row is not None
    last, added = int(row[0]), int(row[1])
    if last <= done:
        return 0
    # The new games' rows are worked out a chunk of games at a time, and stored sorted a
    # range of keys at a time: what a statement holds in memory stays bounded however
    # many games an import (or an upgrade of ten million) adds.
    chunks = [(low, min(low + CHUNK_GAMES, last)) for low in range(done, last, CHUNK_GAMES)]
    con.execute("CREATE OR REPLACE TEMP TABLE new_positions AS"
                " SELECT * FROM position_keys LIMIT 0")
    con.execute("CREATE OR REPLACE TEMP TABLE new_spans AS SELECT * FROM material_spans LIMIT 0")
    for low, high in chunks:
        con.execute(f"INSERT INTO new_positions {positions_sql(str(low), str(high))}")
        among = f"game_id > {low} AND game_id <= {high}"
        con.execute(f"INSERT INTO new_spans {spans_sql(material_states(among))}")
        fill_opening_moves(con, among)
    _insert_sorted(con, "position_keys", "new_positions")
    _insert_sorted(con, "material_spans", "new_spans")
    con.execute(f"""
        INSERT INTO material_signatures
        SELECT signature, {_COUNTS}, count(*) FROM new_spans GROUP BY signature
        ON CONFLICT (signature) DO UPDATE SET spans = spans + excluded.spans""")
    con.execute("DROP TABLE new_positions")
    con.execute("DROP TABLE new_spans")
    runs = read_meta(con, _RUNS) + 1
    if not done:  # the tables held nothing: the one run is the whole table
        write_meta(con, _SORTED, last)
    elif runs > MOST_RUNS:
        runs = _merge_runs(con, last)
    write_meta(con, _RUNS, runs)
    write_meta(con, _THROUGH, last)
    return added


def _merge_runs(con: duckdb.DuckDBPyConnection, last: int) -> int:
    """Sort the runs appended since the tables were last sorted whole into one, or, once
    they hold :data:`WHOLE_SHARE` of the games, the whole tables (then covering the games
    up to ``last``); returns how many runs the tables then hold."""
    sorted_through = read_meta(con, _SORTED)
    row = con.execute("SELECT count(*), count(*) FILTER (game_id > ?) FROM games",
                      [sorted_through]).fetchone()
    assert row is not None
    games, since = int(row[0]), int(row[1])
    if since >= WHOLE_SHARE * games:
        for table in _ORDER:
            _sort(con, table)
        write_meta(con, _SORTED, last)
        return 1
    for table in _ORDER:
        _sort(con, table, f"game_id > {sorted_through}")
    return 2


def fill_opening_moves(con: duckdb.DuckDBPyConnection, games: str) -> None:
    """Append to ``opening_moves`` the rows of the games the condition ``games`` (SQL over
    ``stored_moves``) selects, in game order."""
    con.execute(f"INSERT INTO opening_moves SELECT * FROM ({opening_moves_sql(games)})"
                " ORDER BY game_id")


def rebuild_opening_moves(con: duckdb.DuckDBPyConnection) -> None:
    """Fill ``opening_moves`` anew for the games the other lookup tables cover (``xqdb
    upgrade`` of a database that has those tables and not this one)."""
    con.execute("DELETE FROM opening_moves")
    fill_opening_moves(con, f"game_id <= {through(con)}")


def rebuild(con: duckdb.DuckDBPyConnection) -> int:
    """Build the lookup tables again from ``games`` and ``moves`` (``xqdb upgrade``);
    returns how many games they cover."""
    for table in ("position_keys", "material_spans", "material_signatures", "opening_moves"):
        con.execute(f"DELETE FROM {table}")
    con.execute("DELETE FROM meta WHERE key IN (?, ?, ?)", [_THROUGH, _RUNS, _SORTED])
    return refresh(con)


def add_span_neighbours(con: duckdb.DuckDBPyConnection) -> None:
    """Give the ``material_spans`` of a database of version 10 or older the columns of
    each stretch's next one (``xqdb upgrade``), from its own rows: the table is stored
    again, sorted as before, its rows worked out a chunk of games at a time."""
    row = con.execute("SELECT coalesce(max(game_id), 0) FROM material_spans").fetchone()
    assert row is not None
    def neighbours(among: str) -> str:
        return _with_next(f"SELECT signature, game_id, ply, until FROM material_spans"
                          f" WHERE {among}")
    con.execute(f"CREATE OR REPLACE TEMP TABLE new_spans AS {neighbours('FALSE')}")
    for low in range(0, int(row[0]), CHUNK_GAMES):
        con.execute(f"INSERT INTO new_spans"
                    f" {neighbours(f'game_id > {low} AND game_id <= {low + CHUNK_GAMES}')}")
    con.execute("DROP TABLE material_spans")
    con.execute(TABLES["material_spans"].ddl())
    _insert_sorted(con, "material_spans", "new_spans")
    con.execute("DROP TABLE new_spans")


def forget_removed(con: duckdb.DuckDBPyConnection, game_ids: str) -> None:
    """Remove the rows of the games ``game_ids`` (SQL listing ids) from the lookup
    tables, before those games are deleted. Ids may be given out again after the last
    game left, so the tables then cover up to the last game that stays."""
    for table in ("position_keys", "material_spans", "opening_moves"):
        con.execute(f"DELETE FROM {table} WHERE game_id IN {game_ids}")
    # A signature left without spans matches nothing: kept, it costs a test.
    row = con.execute(f"SELECT coalesce(max(game_id), 0) FROM games"
                      f" WHERE game_id NOT IN {game_ids}").fetchone()
    assert row is not None
    if int(row[0]) < through(con):
        write_meta(con, _THROUGH, int(row[0]))
    if int(row[0]) < read_meta(con, _SORTED):
        # Ids given out again come after the part sorted whole, and are sorted with the runs.
        write_meta(con, _SORTED, int(row[0]))


def create_lookup_macros(con: duckdb.DuckDBPyConnection) -> None:
    """The macros the queries read the lookup tables through (temporary, as the shared
    macros of :func:`xqdb.db.queries.create_shared_macros`):

    ``positions_at(key, other)``: ``(key, game_id, ply, move, piece)`` of every position of
    Zobrist key ``key`` or ``other`` (NULL: only ``key``), games past the tables included.
    ``all_positions()``: every position of every game, likewise.
    ``opening_lines(plies)``: ``(game_id, moves)``, the first ``plies`` move codes of every
    game with moves, from ``opening_moves`` (and ``moves`` past the tables) for a line of
    :data:`LINE_PLIES` plies or fewer, else from ``moves``.
    """
    done = through(con)  # a constant in the SQL, so the scans of moves past it prune
    tail = positions_sql(str(done))
    # A parameter that is a constant prunes the branch that does not apply unread.
    con.execute(f"""
        CREATE OR REPLACE TEMP MACRO opening_lines(p_plies) AS TABLE
            SELECT game_id, moves[1:p_plies] AS moves FROM (
                SELECT * FROM opening_moves
                UNION ALL {opening_moves_sql(f"game_id > {done}")})
            WHERE p_plies <= {LINE_PLIES}
            UNION ALL {opening_moves_sql(f"p_plies > {LINE_PLIES}", "p_plies")};""")
    con.execute(f"""
        CREATE OR REPLACE TEMP MACRO positions_at(p_key, p_other) AS TABLE
            SELECT * FROM position_keys
            WHERE key IN (CAST(p_key AS UBIGINT), CAST(coalesce(p_other, p_key) AS UBIGINT))
            UNION ALL
            SELECT * FROM ({tail})
            WHERE key IN (CAST(p_key AS UBIGINT), CAST(coalesce(p_other, p_key) AS UBIGINT));
        CREATE OR REPLACE TEMP MACRO all_positions() AS TABLE
            SELECT * FROM position_keys UNION ALL {tail};""")


def material_spans_sql(con: duckdb.DuckDBPyConnection, condition: str, plies: int) -> str:
    """SQL listing ``(game_id, ply, until, reach)`` of every stretch of material that fits
    ``condition`` (SQL over the columns of :data:`MATERIAL_COUNTS`, made from a parsed
    pattern), games past the tables included. ``reach`` is the ``until`` of the next
    stretch when this one lasts fewer than ``plies`` plies and the next fits too, else
    ``until``: most short stretches that fit are alone (a piece taken and soon taken
    back), and ``reach`` tells them from those that join others, without putting a game's
    stretches in order."""
    states = material_states(f"game_id > {through(con)}")
    fits = f"signature IN (SELECT signature FROM material_signatures WHERE {condition})"
    if plies <= 1:  # every stretch lasts a ply
        reach = "until"
        tail = f"SELECT game_id, ply, until, until AS reach FROM ({states}) WHERE {condition}"
    else:
        short = f"until - ply < {int(plies)}"
        reach = (f"CASE WHEN {short} AND {on_signature(condition, 'next_signature')}"
                 f" THEN next_until ELSE until END")
        tail = f"""
            SELECT game_id, ply, until,
                   CASE WHEN {short} AND lead(fits) OVER next_span
                        THEN lead(until) OVER next_span ELSE until END AS reach
            FROM (SELECT game_id, ply, until, {condition} AS fits FROM ({states}))
            WINDOW next_span AS (PARTITION BY game_id ORDER BY ply)
            QUALIFY fits"""
    return f"""
        SELECT game_id, ply, until, {reach} AS reach FROM material_spans WHERE {fits}
        UNION ALL {tail}"""


def on_signature(condition: str, column: str) -> str:
    """``condition`` (SQL over the columns of :data:`MATERIAL_COUNTS`) tested on the
    signature ``column`` holds, its counts read from their bits: a test of each row
    costs less so than a join with ``material_signatures``.

    >>> on_signature("red_chariot > black_chariot", "s")
    '((s >> 0) & 31) > ((s >> 30) & 31)'
    """
    return _COUNT_NAME.sub(lambda name: _COUNT_BITS[name[0]].format(column), condition)


def _sort(con: duckdb.DuckDBPyConnection, table: str, rows: str = "TRUE") -> None:
    """Store the rows of ``table`` that the condition ``rows`` selects again, at its end,
    sorted (a new run)."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE unsorted_rows AS SELECT * FROM {table}"
                f" WHERE {rows}")
    con.execute(f"DELETE FROM {table} WHERE {rows}")
    _insert_sorted(con, table, "unsorted_rows")
    con.execute("DROP TABLE unsorted_rows")


def _insert_sorted(con: duckdb.DuckDBPyConnection, table: str, rows: str) -> None:
    """Append the rows of the table ``rows`` to the lookup table ``table`` as one run in
    its order, sorting at most about :data:`SORT_ROWS` rows in one statement: a range of
    the sort's first column at a time, the ranges cut at its approximate quantiles."""
    order = _ORDER[table]
    count = con.execute(f"SELECT count(*) FROM {rows}").fetchone()
    assert count is not None
    parts = -(-int(count[0]) // SORT_ROWS)
    if parts <= 1:
        con.execute(f"INSERT INTO {table} SELECT * FROM {rows} ORDER BY {order}")
        return
    first = order.split(",")[0]
    quantiles = con.execute(f"SELECT approx_quantile({first}::HUGEINT, $q::FLOAT[]) FROM {rows}",
                            {"q": [i / parts for i in range(1, parts)]}).fetchone()
    assert quantiles is not None
    cuts = sorted(set(quantiles[0]))
    for below, upto in zip([None, *cuts], [*cuts, None]):
        where = " AND ".join([*([] if below is None else [f"{first} >= {below}"]),
                              *([] if upto is None else [f"{first} < {upto}"])]) or "TRUE"
        con.execute(f"INSERT INTO {table} SELECT * FROM {rows} WHERE {where} ORDER BY {order}")


def read_meta(con: duckdb.DuckDBPyConnection, key: str) -> int:
    """The number stored under ``key`` in ``meta``, 0 when there is none."""
    row = con.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
    return int(row[0]) if row else 0


def write_meta(con: duckdb.DuckDBPyConnection, key: str, value: int) -> None:
    """Store the number ``value`` under ``key`` in ``meta``."""
    con.execute("DELETE FROM meta WHERE key = ?", [key])
    con.execute("INSERT INTO meta VALUES (?, ?)", [key, str(value)])


#: The pieces a pattern can count, Red's then Black's, in the order patterns are written.
COUNTED: tuple[Piece, ...] = tuple(t * c for c in (RED, BLACK)
                                   for t in (CHARIOT, HORSE, ELEPHANT, ADVISOR, CANNON, PAWN))



def piece_column(piece: Piece) -> str:
    """``red_chariot``: DuckDB's names are case-blind, so ``R`` and ``r`` cannot be two
    columns."""
    return f"{COLOR_NAMES[RED if piece > 0 else BLACK]}_{PIECE_NAMES[abs(piece)]}"


def material_states(games: str = "TRUE") -> str:
    """SQL listing every material state of every game with a start position (a record
    that held no game has none) among those the condition ``games`` (SQL over
    ``games``) selects: ``game_id``, the ``ply`` it began (0: the start),
    ``until`` (the ply of the next capture, or one past the game's last ply) and one count
    column per piece of :data:`COUNTED`."""
    counts = ",\n           ".join(
        f"length(board) - length(replace(board, '{piece_symbol(p)}', '')) AS {piece_column(p)}"
        for p in COUNTED)
    taken = ",\n           ".join(
        f"s.{piece_column(p)} - count(*) FILTER (c.capture = {p}) OVER later AS {piece_column(p)}"
        for p in COUNTED)
    names = ", ".join(piece_column(p) for p in COUNTED)
    return f"""
    WITH start AS (
        SELECT game_id, plies, split_part(start_fen, ' ', 1) AS board
        FROM games WHERE start_key IS NOT NULL AND ({games})
    ), counted AS (
        SELECT game_id, plies,
           {counts}
        FROM start
    ), states AS (
        SELECT game_id, plies, 0 AS ply, {names} FROM counted
        UNION ALL
        SELECT c.game_id, s.plies, c.ply,
           {taken}
        FROM stored_moves c JOIN counted s USING (game_id)
        WHERE c.capture <> 0
        WINDOW later AS (PARTITION BY c.game_id ORDER BY c.ply ROWS UNBOUNDED PRECEDING)
    )
    SELECT game_id, ply,
           coalesce(lead(ply) OVER (PARTITION BY game_id ORDER BY ply), plies + 1) AS until,
           {names}
    FROM states"""
