"""The SQL behind finding, showing and exporting games: what ``xqdb.browse`` reads.

Each function runs one statement over the games the game filters selected (the table
``selected_games``, see :mod:`xqdb.db.selection`) or over one game, with its values bound.

>>> import duckdb
>>> from xqdb.db.schema import create_schema
>>> con = duckdb.connect()
>>> create_schema(con)
>>> game_fields(con, 1) is None
True
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb

from .judgements import JUDGED_GAMES, one_per_move
from .lookups import material_spans_sql, piece_column
from ..rules.board import Piece
from .columns import TABLES
from .queries import create_shared_macros
from . import checked_count
from .selection import GameFilter, SelectionError, select_games

#: Games fetched from the database at a time.
BATCH = 2000


def game_fields(con: duckdb.DuckDBPyConnection, game_id: int) -> dict[str, Any] | None:
    """Every column of game ``game_id`` (``None``: no such game)."""
    cursor = con.execute("SELECT * FROM games WHERE game_id = ?", [game_id])
    row = cursor.fetchone()
    return None if row is None else dict(zip([d[0] for d in cursor.description or []], row))


def game_span(con: duckdb.DuckDBPyConnection) -> tuple[int | None, int | None]:
    """The first and last game id."""
    row = con.execute("SELECT min(game_id), max(game_id) FROM games").fetchone()
    return (row[0], row[1]) if row else (None, None)


def game_moves(con: duckdb.DuckDBPyConnection, game_id: int, up_to: int | None = None
               ) -> list[int]:
    """The move codes of game ``game_id``'s main line (the first ``up_to`` plies)."""
    return [r[0] for r in con.execute(
        "SELECT move FROM stored_moves WHERE game_id = $game AND ($up_to IS NULL OR ply <= $up_to)"
        " ORDER BY ply", {"game": game_id, "up_to": up_to}).fetchall()]


def judged_moves_of(con: duckdb.DuckDBPyConnection, game_id: int
                    ) -> list[tuple[int, int | None, int | None, str, str | None]]:
    """Per judged move of game ``game_id``, by the one rule of which evaluation counts
    (:func:`xqdb.db.judgements.one_per_move`): ply, score and mate after the move (from the
    side to move then), the mover, and the move's class."""
    return [tuple(r) for r in con.execute(
        "SELECT ply, cp_after, mate_after, side, class FROM "
        f"({one_per_move('SELECT * FROM judgements WHERE game_id = ?')}) ORDER BY ply",
        [game_id]).fetchall()]


def variation_lines(con: duckdb.DuckDBPyConnection, game_id: int
                    ) -> list[tuple[int, int, int, list[int]]]:
    """Game ``game_id``'s stored variations: number, parent line, branch ply, move codes."""
    return [tuple(r) for r in con.execute(
        "SELECT variation, any_value(parent), any_value(branch_ply), list(move ORDER BY ply) "
        "FROM variation_moves WHERE game_id = ? GROUP BY variation ORDER BY variation",
        [game_id]).fetchall()]


def export_rows(con: duckdb.DuckDBPyConnection, games: GameFilter, column: str
                ) -> Iterator[list[tuple[Any, ...]]]:
    """Batches of the games ``games`` selects (invalid ones too, to be counted), in
    ``game_id`` order: id, tags, start FEN, result, status, variations and the moves'
    ``column`` of ``moves``."""
    select_games(con, games, valid_only=False)
    if column not in TABLES["moves"].names:
        raise SelectionError(f"moves has no column {column!r}")
    cursor = con.execute(f"""
        WITH picked AS (SELECT game_id, tags, start_fen, result, status, variations
                        FROM games WHERE game_id IN (SELECT game_id FROM selected_games)),
        texts AS (SELECT game_id, list({column} ORDER BY ply) AS moves FROM moves
                  WHERE game_id IN (SELECT game_id FROM picked) GROUP BY game_id)
        SELECT game_id, tags, start_fen, result, status, variations, moves
        FROM picked LEFT JOIN texts USING (game_id) ORDER BY game_id""")
    while rows := cursor.fetchmany(BATCH):
        yield rows


def export_parquet(con: duckdb.DuckDBPyConnection, folder: Path, games: GameFilter) -> int:
    """Write the games ``games`` selects and their moves under ``folder`` as Parquet files
    partitioned by year (``games/``, ``moves/``); returns how many games."""
    count = select_games(con, games, valid_only=False)
    moves = ", ".join(f"m.{name}" for name in TABLES["moves"].names)
    options = "(FORMAT PARQUET, PARTITION_BY (year), OVERWRITE_OR_IGNORE)"
    # COPY takes no parameters; the selection is a table and the paths are quoted.
    con.execute("COPY (SELECT g.* FROM games g SEMI JOIN selected_games USING (game_id)) "
                f"TO '{_quoted(folder / 'games')}' {options}")
    con.execute(f"COPY (SELECT {moves}, g.year FROM moves m JOIN games g USING (game_id) "
                "WHERE m.game_id IN (SELECT game_id FROM selected_games) "
                f"ORDER BY m.game_id, m.ply) TO '{_quoted(folder / 'moves')}' {options}")
    return count


def _quoted(path: Path) -> str:
    return str(path).replace("'", "''")


# The page of hits shown is chosen first (``hits``: at most the limit, with the ply and the
# key found): only its games are joined to ``games``, ``players`` and ``moves``, each a
# handful of rows found through the zone maps of ids in order, and the total is given.
_LISTED = """
, page AS (
    SELECT h.game_id, h.ply, h.found, g.red, g.black, g.red_player_id, g.black_player_id,
           g.result, g.event, coalesce(CAST(g.date AS VARCHAR), g.date_raw) AS date
    FROM hits h
    JOIN (SELECT * FROM games WHERE game_id IN (SELECT game_id FROM hits)) g USING (game_id)),
named AS (
    SELECT p.game_id, p.ply, coalesce(r.name, p.red) AS red, coalesce(b.name, p.black) AS black,
           p.result, p.event, p.date, p.found
    FROM page p
    LEFT JOIN players r ON r.player_id = p.red_player_id
    LEFT JOIN players b ON b.player_id = p.black_player_id),
next AS (  -- the listed games' moves only: their ids may lie far apart
    SELECT game_id, ply, move, {text} AS text FROM moves
    WHERE game_id IN (SELECT game_id FROM hits))
SELECT p.game_id, p.ply, p.red, p.black, p.result, p.event, p.date,
       n.move AS next_code, n.text AS next_text, p.found, CAST($total AS BIGINT) AS total
FROM named p
LEFT JOIN next n ON n.game_id = p.game_id AND n.ply = p.ply + 1
ORDER BY p.game_id
"""

#: The widest span of game ids counted with a bitmap (16 MiB) rather than a hash table.
_BITMAP_IDS = 1 << 27


def _listed(con: duckdb.DuckDBPyConnection, hits: str, params: dict[str, object],
            column: str | None, total: int) -> list[tuple[Any, ...]]:
    """The games of ``hits`` (SQL giving the page: ``game_id``, ``ply``, ``found``) with
    their players, result, event, date and next move (its code, its text from ``column`` of
    ``moves`` or NULL), the key found, and ``total``."""
    if column is not None and column not in TABLES["moves"].names:
        raise SelectionError(f"moves has no column {column!r}")
    sql = f"WITH hits AS MATERIALIZED ({hits}) {_LISTED.format(text=column or 'NULL')}"
    return con.execute(sql, {**params, "total": total}).fetchall()


def _among_selected(games: GameFilter | None) -> str:
    """The condition keeping the rows of the games selected: none when every game is (the
    lookup tables hold rows of stored games only), so that no list of every id is built."""
    if games is None or games.is_empty():
        return "TRUE"
    return "game_id IN (SELECT game_id FROM selected_games)"


def _games_at(con: duckdb.DuckDBPyConnection, rows: str, params: dict[str, object]
              ) -> tuple[int, int]:
    """How many rows ``rows`` (SQL listing positions: ``game_id``, ``ply``) gives, and how
    many distinct games.

    A game is in the same position again four plies later at the soonest (each side moves
    away and back), so when the plies found lie within four of each other no game has two
    rows, and the rows are the games; else :func:`_games_in` counts them."""
    row = con.execute(f"SELECT count(*), max(ply) - min(ply) FROM ({rows})", params).fetchone()
    if row is None or not row[0]:
        return 0, 0
    return int(row[0]), int(row[0]) if row[1] < 4 else _games_in(con, rows, params)


def _games_in(con: duckdb.DuckDBPyConnection, rows: str, params: dict[str, object]) -> int:
    """How many distinct games ``rows`` (SQL with a ``game_id`` column) names: one bit per
    game id set in a bitmap, which costs less than a hash table of the ids."""
    low, high = game_span(con)
    if low is None or high is None:
        return 0
    count = ("count(DISTINCT game_id)" if high - low >= _BITMAP_IDS else
             f"bit_count(bitstring_agg(game_id, {int(low)}::BIGINT, {int(high)}::BIGINT))")
    row = con.execute(f"SELECT coalesce({count}, 0) FROM ({rows})"
                      f" WHERE game_id BETWEEN {int(low)} AND {int(high)}", params).fetchone()
    return int(row[0]) if row else 0


def position_hits(con: duckdb.DuckDBPyConnection, keys: list[int], games: GameFilter | None,
                  limit: int) -> list[tuple[Any, ...]]:
    """The games among those ``games`` selects (invalid ones too, up to where they failed)
    that reached a position of Zobrist key in ``keys`` (one or two: a position and its
    mirror image), each at the first ply it did (read from ``position_keys``)."""
    checked_count(limit, "limit")
    select_games(con, games, valid_only=False)
    create_shared_macros(con)
    params: dict[str, object] = {"key": keys[0], "other": keys[1] if keys[1:] else None}
    found = (f"SELECT game_id, ply, key FROM positions_at($key, $other)"
             f" WHERE {_among_selected(games)}")
    kept = games is not None and not games.is_empty()
    if kept:
        # Kept once, so that the selection's ids are looked up once, not per statement.
        con.execute(f"CREATE OR REPLACE TEMP TABLE position_found AS {found}", params)
        found, params = "SELECT * FROM position_found", {}
    try:
        return _first_games(con, found, params, limit)
    finally:
        if kept:
            con.execute("DROP TABLE IF EXISTS position_found")


def _first_games(con: duckdb.DuckDBPyConnection, found: str, params: dict[str, object],
                 limit: int) -> list[tuple[Any, ...]]:
    """The first ``limit`` games of the positions ``found`` (SQL: ``game_id``, ``ply``,
    ``key``) listed, each at its first ply, with the count of them all."""
    found_rows, total = _games_at(con, found, params)
    # The page from the first rows in id order: a game reaching the position more than once
    # has a row each time, so fewer games than rows may be read first; then more rows are.
    head = limit
    while True:
        hits = f"""
            SELECT game_id, min(ply) AS ply, arg_min(key, ply) AS found
            FROM (SELECT * FROM ({found}) ORDER BY game_id, ply LIMIT $head)
            GROUP BY game_id ORDER BY game_id LIMIT $limit"""
        rows = _listed(con, hits, {**params, "head": head, "limit": limit}, None, total)
        if len(rows) >= min(limit, total) or head >= found_rows:
            return rows
        head *= 4


def material_hits(con: duckdb.DuckDBPyConnection, condition: str, plies: int,
                  games: GameFilter | None, column: str | None, limit: int
                  ) -> list[tuple[Any, ...]]:
    """The games among those ``games`` selects whose material (``material_spans``) fitted
    ``condition`` (SQL over the count columns of :func:`xqdb.db.lookups.material_states`, made from a
    parsed pattern, never from a user's text) for at least ``plies`` plies in a row."""
    checked_count(limit, "limit")
    checked_count(plies, "plies", 1)
    select_games(con, games, valid_only=False)
    low, high = game_span(con)
    if low is None or high is None:
        return []
    # A run of stretches that lasts starts either with one that lasts alone or with one
    # whose next fits too (``reach`` past ``until``), and every stretch of it but the last
    # is of the second kind, the last one's end their ``reach``: only those are read.
    spans = f"""SELECT * FROM ({material_spans_sql(con, condition, plies)})
                WHERE (reach > until OR reach - ply >= $plies) AND {_among_selected(games)}"""
    # The games with a stretch lasting ``plies`` alone or with the next one (``reach``): a
    # bitmap of their ids, which costs less than a hash table of them, the first of them
    # read off it in order.
    if high - low < _BITMAP_IDS:
        long = f"""long AS MATERIALIZED (
            SELECT bitstring_agg(game_id, {int(low)}::BIGINT, {int(high)}::BIGINT) AS ids
            FROM spans WHERE reach - ply >= $plies),"""
        long_count = "SELECT coalesce(bit_count(ids), 0) FROM long"
        first_long = f"""SELECT {int(low)} + i AS game_id
                         FROM range(0, {int(high - low) + 1}) AS bits(i)
                         WHERE get_bit((SELECT ids FROM long), i::INTEGER) = 1 LIMIT $limit"""
    else:
        long = """long AS MATERIALIZED (
            SELECT DISTINCT game_id FROM spans WHERE reach - ply >= $plies),"""
        long_count = "SELECT count(*) FROM long"
        first_long = "SELECT game_id FROM long ORDER BY game_id LIMIT $limit"
    # Consecutive stretches that fit (one ending where the next begins: a pawn taken need
    # not end a run) make one run. Along a game's stretches in order, ``until`` less the
    # plies of the stretches so far is the same within a run and grows from one to the
    # next: it names the run. The other games fit only through three stretches or more
    # that fit in a row, each with the next too short: only stretches whose next one fits
    # (``reach`` past ``until``) are put in order for them, a run of those reaching as far
    # as its last one's ``reach``. The games listed are put in order whole, for their first
    # run that lasts.
    runs = """
        SELECT game_id, min(ply) AS first, max(reach) AS last FROM (
            SELECT game_id, ply, reach, until - sum(until - ply) OVER (
                PARTITION BY game_id ORDER BY ply ROWS UNBOUNDED PRECEDING) AS run
            FROM {rows})
        GROUP BY game_id, run"""
    shown_spans = "(SELECT * FROM spans WHERE game_id IN (SELECT game_id FROM shown))"
    # (The games ``chained`` leaves out are looked up in a hash table of their ids: tested
    # against the bitmap, every row would hold a copy of it. At 10M games, the search then
    # peaked at 3.7 GiB.)
    # (A single ply: every stretch lasts it, and none is put in order.)
    joined = "SELECT NULL::BIGINT AS game_id WHERE FALSE" if plies <= 1 else f"""
            WITH chained AS MATERIALIZED (
                SELECT game_id, ply, until, reach FROM spans
                WHERE reach > until AND reach - ply < $plies
                  AND game_id NOT IN (SELECT game_id FROM spans WHERE reach - ply >= $plies))
            SELECT DISTINCT game_id FROM ({runs.format(rows="chained")})
            WHERE last - first >= $plies"""
    hits = f"""
        WITH spans AS MATERIALIZED ({spans}),
        {long}
        joined AS MATERIALIZED ({joined}),
        shown AS (SELECT game_id FROM ({first_long}) UNION ALL
                  (SELECT game_id FROM joined ORDER BY game_id LIMIT $limit)
                  ORDER BY game_id LIMIT $limit)
        SELECT game_id, min(first) AS ply, NULL AS found,
               ({long_count}) + (SELECT count(*) FROM joined) AS total
        FROM ({runs.format(rows=shown_spans)})
        WHERE last - first >= $plies
        GROUP BY game_id"""
    params = {"plies": plies, "limit": limit}
    create_shared_macros(con)
    page = con.execute(hits, params).fetchall()
    if not page:
        return []
    return _listed(con, "SELECT unnest($ids) AS game_id, unnest($plies_at) AS ply,"
                        " NULL::UBIGINT AS found",
                   {"ids": [r[0] for r in page], "plies_at": [r[1] for r in page]},
                   column, int(page[0][3]))


def start_fen(con: duckdb.DuckDBPyConnection, game_id: int) -> str | None:
    """Game ``game_id``'s start position as stored."""
    row = con.execute("SELECT start_fen FROM games WHERE game_id = ?", [game_id]).fetchone()
    return row[0] if row else None


def material_condition(ranges: tuple[tuple[Piece, int, int], ...],
                       balances: tuple[tuple[tuple[Piece, ...], str, tuple[Piece, ...]], ...]
                       ) -> str:
    """The SQL condition on the columns :func:`material_states` gives: each piece's count
    within ``(piece, fewest, most)``, each balance ``(pieces, comparison, pieces)`` held.

    >>> material_condition(((1, 1, 2),), ())
    'red_king BETWEEN 1 AND 2'
    """
    def total(pieces: tuple[Piece, ...]) -> str:
        return "(" + " + ".join(map(piece_column, pieces)) + ")"

    compare = {">", ">=", "=", "<=", "<"}
    return " AND ".join(
        [f"{piece_column(p)} BETWEEN {int(low)} AND {int(high)}" for p, low, high in ranges]
        + [f"{total(left)} {op} {total(right)}" for left, op, right in balances
           if op in compare])


def doubtful_year_count(con: duckdb.DuckDBPyConnection) -> int:
    """How many games of the last selection have no year because their ``Date`` tag's
    was set aside as doubtful (``games.year_note``)."""
    row = con.execute("""
        SELECT count(*) FROM games
        WHERE game_id IN (SELECT game_id FROM selected_games)
          AND year IS NULL AND year_note IS NOT NULL""").fetchone()
    return int(row[0]) if row else 0


def analysed_count(con: duckdb.DuckDBPyConnection) -> int:
    """How many games of the last selection have judged moves: those analysed, and those
    with evaluations of their own (an engine's comments in the record). A game that only
    shares a position with one of them, its opening say, is not analysed."""
    row = con.execute(f"""
        SELECT count(*) FROM ({JUDGED_GAMES})
        WHERE game_id IN (SELECT game_id FROM selected_games)""").fetchone()
    return int(row[0]) if row else 0
