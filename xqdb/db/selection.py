"""One selection of games for every command: the game filters, resolved and always bound.

``openings``, ``tree``, ``search``, ``export``, ``analyze``, ``blunders``, ``report`` and
``query`` take the same filters (:class:`GameFilter`): a player (any script or spelling,
resolved through the ``players`` table by :func:`resolve_player`), their side, an opponent,
a span of years or dates, an event (a text it contains, case-blind: matched with
``contains``, not ``LIKE``, so that ``%`` and ``_`` are the characters they are), a
result, ECCO codes, SQL on the games (``--where``) and game ids. :func:`select_games`
turns them into the temporary table ``selected_games`` (one ``game_id`` a row), with
every value bound as a parameter; the reports read it through the ``picked_games()``
macro of ``queries/_shared.sql``. ``--where`` is SQL a user writes, so it is the one piece
of text placed into the statement; it sees the columns of ``games`` and the players'
canonical names ``red_name`` and ``black_name``.

>>> import duckdb
>>> from xqdb.db.schema import create_schema
>>> con = duckdb.connect()
>>> create_schema(con)
>>> _ = con.execute("INSERT INTO players VALUES (1, '胡荣华', false), (2, '吕钦', false)")
>>> _ = con.execute("INSERT INTO games (game_id, source_id, record_index, plies, status, red,"
...     " black, red_player_id, black_player_id, year, result) VALUES"
...     " (1, 1, 0, 0, 'valid', '上海胡榮華', '呂欽', 1, 2, 1990, '1-0'),"
...     " (2, 1, 1, 0, 'valid', '呂欽', '胡榮華', 2, 1, 1995, '0-1')")
>>> resolve_player(con, "胡榮華")
'胡荣华'
>>> select_games(con, GameFilter(player="胡榮華", side="black", result="win"))
1
>>> con.execute("SELECT game_id FROM selected_games").fetchall()
[(2,)]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from datetime import date

import duckdb

from .where import ConditionError, game_condition
from ..errors import BadArgumentError, NotFoundError
from ..formats.player_names import fold

#: The sides ``--side`` takes.
SIDES = ("red", "black", "either")
#: What ``--result`` takes: a result as stored, a colour that won, or (with a player)
#: how it went for them.
RESULTS = {"1-0": "1-0", "0-1": "0-1", "1/2-1/2": "1/2-1/2", "red": "1-0", "black": "0-1",
           "draw": "1/2-1/2", "win": "win", "loss": "loss"}
#: The table :func:`select_games` fills.
TABLE = "selected_games"
#: The temporary view of the selected games' rows of ``games`` (what the reports'
#: ``picked_games()`` reads), and its query for a selection that is a list of ids.
ROWS = "selected_rows"
SELECTED_ROWS = f"SELECT * FROM games WHERE game_id IN (SELECT game_id FROM {TABLE})"
_ECCO = re.compile(r"[A-Ea-e]\d{0,2}$")
_WHERE_HINT = ("--where takes SQL on the columns of games, with the players' canonical names "
               "as red_name and black_name, e.g. \"year >= 2000 AND red_name = '胡荣华'\"")


class SelectionError(BadArgumentError, ValueError):
    """Filters that select nothing sensible: a bad date, result, ECCO code or ``--where``."""


@dataclass(frozen=True)
class GameFilter:
    """The games a command works on; a field left at its default does not filter.

    >>> GameFilter(player="胡荣华").is_empty(), GameFilter().is_empty()
    (False, True)
    """

    player: str | None = None
    side: str = "either"
    """With ``player``: the games where they had red, black or either."""
    opponent: str | None = None
    from_: str | None = None
    """A year (``1990``) or a date (``1990-05-01``): only games of then or later."""
    to: str | None = None
    event: str | None = None
    """Only games whose event contains this text (case-blind)."""
    result: str | None = None
    """A key of :data:`RESULTS`."""
    eco: str | None = None
    """ECCO codes or their starts, comma-separated: ``C``, ``C4``, ``A30,B21``."""
    where: str | None = None
    game_ids: tuple[int, ...] = ()

    def is_empty(self) -> bool:
        return self == GameFilter()

    def describe(self) -> str:
        """The filters in words, for a title.

        >>> GameFilter(player="胡荣华", side="red", from_="1990").describe()
        '胡荣华 as red, from 1990'
        """
        parts = []
        if self.player:
            parts.append(self.player + ("" if self.side == "either" else f" as {self.side}"))
        if self.opponent:
            parts.append(f"against {self.opponent}")
        if self.from_ or self.to:
            parts.append(f"from {self.from_}" if not self.to else
                         f"to {self.to}" if not self.from_ else f"{self.from_}-{self.to}")
        for name in ("event", "result", "eco", "where"):
            if getattr(self, name):
                parts.append(f"{name} {getattr(self, name)}")
        if self.game_ids:
            parts.append("games " + ", ".join(map(str, self.game_ids)))
        return ", ".join(parts)


#: The names of :class:`GameFilter`'s fields, as the reports take them as parameters.
FILTER_PARAMS = tuple("from" if f.name == "from_" else f.name for f in fields(GameFilter))


def filter_from_params(values: dict[str, str | None]) -> tuple[GameFilter, dict[str, str | None]]:
    """Split a report's parameters into the game filters and the rest (``from_year``
    and ``to_year``, the older names, are taken for ``from`` and ``to``).

    >>> filter_from_params({"player": "胡荣华", "from_year": "1990", "by": "code"})
    (GameFilter(player='胡荣华', side='either', opponent=None, from_='1990', to=None, event=None, result=None, eco=None, where=None, game_ids=()), {'by': 'code'})
    """
    rest = dict(values)
    given: dict[str, object] = {}
    for old, new in (("from_year", "from_"), ("to_year", "to"), ("from", "from_")):
        if rest.get(old) is not None:
            given[new] = rest.pop(old)
        rest.pop(old, None)
    for name in FILTER_PARAMS:
        if name in rest:
            value = rest.pop(name)
            if value is not None:
                given[name] = (tuple(int(v) for v in str(value).split(",") if v.strip())
                               if name == "game_ids" else value)
    if "game" in rest:
        value = rest.pop("game")
        if value:
            given["game_ids"] = tuple(int(v) for v in str(value).split(",") if v.strip())
    return replace(GameFilter(), **given), rest  # type: ignore[arg-type]


def _folded(text: str) -> str:
    return fold(text).replace(" ", "").replace("\u3000", "")


def resolve_player(con: duckdb.DuckDBPyConnection, name: str) -> str:
    """The canonical name of the player ``name`` means: their canonical name, a spelling the
    records use, or either in another script (folded as the naming rules fold, OpenCC
    traditional to simplified), or a part of one name only. Raises
    :class:`~xqdb.errors.NotFoundError` with the closest players, or with every player
    matched when the text names several."""
    if con.execute("SELECT 1 FROM players WHERE name = ?", [name]).fetchone():
        return name
    spelled = con.execute("SELECT DISTINCT p.name FROM player_names n JOIN players p "
                          "USING (player_id) WHERE n.spelling = ?", [name]).fetchall()
    if len(spelled) == 1:
        return str(spelled[0][0])
    rows = con.execute("SELECT p.name, n.spelling, p.player_id FROM players p "
                       "LEFT JOIN player_names n USING (player_id)").fetchall()
    wanted = _folded(name)
    exact = sorted({p for p, s, _ in rows if wanted in (_folded(p), _folded(s or ""))})
    if len(exact) == 1:
        return exact[0]
    games = _games_per_player(con)
    within = exact or sorted({p for p, s, _ in rows if "+" not in p and wanted
                              and (wanted in _folded(p) or wanted in _folded(s or ""))},
                             key=lambda p: (-games.get(p, 0), p))
    if len(within) == 1:
        return within[0]
    if within:
        listed = ", ".join(f"{p} ({games.get(p, 0)} games)" for p in within[:12])
        more = f" and {len(within) - 12} more" if len(within) > 12 else ""
        raise NotFoundError(f"{name!r} names {len(within)} players: {listed}{more}",
                            "give one of them exactly")
    from difflib import get_close_matches

    folded = {_folded(p): p for p, _, _ in rows}
    close = [folded[f] for f in get_close_matches(wanted, list(folded), n=3, cutoff=0.5)]
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    raise NotFoundError(f"no player named {name!r}",
                        f"{hint}xqdb players --search TEXT finds the names")


def _games_per_player(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    return dict(con.execute(
        "SELECT p.name, count(*) FROM (SELECT red_player_id AS player_id FROM games UNION ALL "
        "SELECT black_player_id FROM games) JOIN players p USING (player_id) GROUP BY 1"
    ).fetchall())


def resolved(con: duckdb.DuckDBPyConnection, games: GameFilter) -> GameFilter:
    """``games`` with its player and opponent as canonical names, its values checked."""
    if games.side not in SIDES:
        raise SelectionError(f"--side {games.side}: not one of {', '.join(SIDES)}")
    if games.result is not None:
        result = RESULTS.get(games.result.lower())
        if result is None:
            raise SelectionError(f"--result {games.result}: not one of {', '.join(RESULTS)}")
        if result in ("win", "loss") and games.player is None:
            raise SelectionError(f"--result {games.result} needs --player",
                                 "or give 1-0, 0-1, 1/2-1/2, red, black or draw")
    for code in _codes(games.eco):
        if not _ECCO.match(code):
            raise SelectionError(f"--eco {games.eco}: {code!r} is not an ECCO code or its "
                                 "start", "for example C, C4, C45 or A30,B21")
    for name, value in (("from", games.from_), ("to", games.to)):
        _bound(name, value)
    return replace(games,
                   player=None if games.player is None else resolve_player(con, games.player),
                   opponent=None if games.opponent is None
                   else resolve_player(con, games.opponent))


def _codes(eco: str | None) -> list[str]:
    return [c.strip().upper() for c in (eco or "").split(",") if c.strip()]


def _bound(name: str, value: str | None) -> tuple[int | None, date | None]:
    """A ``--from``/``--to`` value as a year or a date."""
    if value is None:
        return None, None
    text = str(value).strip()
    if re.fullmatch(r"\d{1,4}", text):
        return int(text), None
    try:
        return None, date.fromisoformat(text)
    except ValueError:
        raise SelectionError(f"--{name} {value}: not a year or a date",
                             "for example 1990 or 1990-05-01") from None


_SELECT = """
CREATE OR REPLACE TEMP TABLE selected_games AS
SELECT g.game_id FROM (
    SELECT g.*, r.name AS red_name, b.name AS black_name
    FROM games g
    LEFT JOIN players r ON r.player_id = g.red_player_id
    LEFT JOIN players b ON b.player_id = g.black_player_id) g
WHERE ($valid_only = false OR g.status = 'valid')
  AND ($player IS NULL
       OR ($side IN ('red', 'either') AND g.red_name = $player
           AND ($opponent IS NULL OR g.black_name = $opponent))
       OR ($side IN ('black', 'either') AND g.black_name = $player
           AND ($opponent IS NULL OR g.red_name = $opponent)))
  AND ($opponent IS NULL OR $player IS NOT NULL
       OR $opponent IN (g.red_name, g.black_name))
  AND ($from_year IS NULL OR g.year >= $from_year)
  AND ($to_year IS NULL OR g.year <= $to_year)
  AND ($from_date IS NULL OR coalesce(g.date, make_date(g.year, 1, 1)) >= $from_date)
  AND ($to_date IS NULL OR coalesce(g.date, make_date(g.year, 12, 31)) <= $to_date)
  AND ($event IS NULL OR contains(lower(g.event), lower($event)))
  AND ($result IS NULL OR g.result = $result
       OR ($result = 'win' AND g.result = CASE WHEN g.red_name = $player THEN '1-0' ELSE '0-1' END)
       OR ($result = 'loss' AND g.result = CASE WHEN g.red_name = $player THEN '0-1' ELSE '1-0' END))
  AND (len($eco) = 0 OR list_has_any($eco, [g.ecco, left(g.ecco, 1), left(g.ecco, 2)]))
  AND (len($ids) = 0 OR list_contains($ids, g.game_id))
  AND ({where})
ORDER BY g.game_id
"""


def selection_params(games: GameFilter, valid_only: bool = True) -> dict[str, object]:
    """The values :func:`select_games` binds for ``games`` (resolved already)."""
    from_year, from_date = _bound("from", games.from_)
    to_year, to_date = _bound("to", games.to)
    return {"valid_only": valid_only, "player": games.player, "side": games.side,
            "opponent": games.opponent, "from_year": from_year, "to_year": to_year,
            "from_date": from_date, "to_date": to_date, "event": games.event,
            "result": None if games.result is None else RESULTS[games.result.lower()],
            "eco": _codes(games.eco), "ids": [int(i) for i in games.game_ids]}


def select_games(con: duckdb.DuckDBPyConnection, games: GameFilter | None = None, *,
                 valid_only: bool = True, check: bool = True) -> int:
    """Fill the temporary table ``selected_games`` with the games ``games`` selects (only
    valid ones unless ``valid_only`` is false); returns how many. Names are resolved and
    values checked first unless ``check`` is false (already :func:`resolved`)."""
    games = games or GameFilter()
    if check:
        games = resolved(con, games)
    if games.game_ids:
        from .lookup import require_game

        for game_id in games.game_ids:
            require_game(con, game_id)
    if games.is_empty():
        # Every game: a view, not a copy of every id, so that a lookup among ten million
        # games does not begin by writing ten million ids; and the games' rows are read
        # as they are, not matched against a list of every id.
        every = "SELECT {} FROM games" + (" WHERE status = 'valid'" if valid_only else "")
        _drop_selection(con, "TABLE")
        con.execute(f"CREATE OR REPLACE TEMP VIEW {TABLE} AS {every.format('game_id')}")
        con.execute(f"CREATE OR REPLACE TEMP VIEW {ROWS} AS {every.format('*')}")
        return selected_count(con)
    try:
        where = game_condition(games.where) if games.where else "TRUE"
    except ConditionError as exc:
        raise SelectionError(f"cannot select the games: {exc}", _WHERE_HINT) from None
    sql = _SELECT.format(where=where)
    _drop_selection(con, "VIEW")
    try:
        con.execute(sql, selection_params(games, valid_only))
    except duckdb.Error as exc:
        raise SelectionError(f"cannot select the games: {str(exc).strip().splitlines()[0]}",
                             _WHERE_HINT) from None
    con.execute(f"CREATE OR REPLACE TEMP VIEW {ROWS} AS {SELECTED_ROWS}")
    return selected_count(con)


def create_selection(con: duckdb.DuckDBPyConnection) -> None:
    """Make the selection empty, unless the connection holds one already."""
    con.execute(f"CREATE TEMP TABLE IF NOT EXISTS {TABLE} (game_id BIGINT)")
    con.execute(f"CREATE TEMP VIEW IF NOT EXISTS {ROWS} AS {SELECTED_ROWS}")


def selected_count(con: duckdb.DuckDBPyConnection) -> int:
    """How many games the last selection holds."""
    row = con.execute(f"SELECT count(*) FROM {TABLE}").fetchone()
    return int(row[0]) if row else 0


def selected_ids(con: duckdb.DuckDBPyConnection, games: GameFilter | None = None, *,
                 valid_only: bool = True) -> Sequence[int]:
    """The ids of the games ``games`` selects, in order."""
    select_games(con, games, valid_only=valid_only)
    return [int(r[0]) for r in con.execute(
        "SELECT game_id FROM selected_games ORDER BY game_id").fetchall()]


def _drop_selection(con: duckdb.DuckDBPyConnection, kind: str) -> None:
    """Drop the selection if it is of ``kind`` (``TABLE`` or ``VIEW``): the one name is a
    table for a selection and a view for every game."""
    found = con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = ?"
                        " AND temporary", [TABLE]).fetchone()
    is_view = bool(found and found[0])
    if (kind == "VIEW") == is_view:
        con.execute(f"DROP {kind} IF EXISTS {TABLE}")
