"""Named reports: parameterized SQL files, run with bound parameters, shown or written out.

Each report is one file of ``xqdb/queries/`` (``queries/`` at the top of the source tree
points there), shipped inside the package. Its header comment says what it answers: the
first line is the description, and each parameter has a line
``-- @param NAME=DEFAULT  meaning`` (no ``=``: the parameter is required; nothing after
``=``: it defaults to NULL); a line ``-- @needs TABLE`` names a table that must hold rows
for the report to say anything (the analysis's ``evals``), so that a database without them
is told what to run instead of showing an empty table. The SQL reads a parameter as
``$NAME``; values are always
bound, never pasted into the text. ``_shared.sql`` is no report: it defines the table
and scalar macros the reports share, created (as temporary macros, so that a read-only
database takes them) before each report runs. A report that reads ``picked_games()``
(or ``picked_rows()``, the same games without their players' names) takes the game
filters of :mod:`xqdb.db.selection` as parameters too (``player``, ``side``, ``from``,
``to``, ...): they fill the table that macro reads.

>>> query = load_query("tree")
>>> [p.name for p in query.params][:5]
['key', 'mirror_key', 'min_games', 'top_games', 'player']
>>> query.params[2].default, query.params[0].required
('1', True)
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb

from ..errors import BadArgumentError, closest
from . import MAX_COUNT
from .judgements import JUDGED_MOVES
from .result import Result
from .lookups import create_lookup_macros
from .selection import (FILTER_PARAMS, GameFilter, create_selection, filter_from_params,
                        resolved, select_games)

_PARAM = re.compile(r"--\s*@param\s+(\w+)(?:=(\S*))?\s*(.*)")
_NEEDS = re.compile(r"--\s*@needs\s+(\w+)")
#: The game filters every report over ``picked_games()`` or ``picked_rows()`` takes (see
#: :mod:`xqdb.db.selection`), with what each means.
FILTERS = {
    "player": "only the games of this player (any script or spelling, see `xqdb players`)",
    "side": "with player: the games where they had red, black or either",
    "opponent": "only the games against this player",
    "from": "only games of this year (1990) or date (1990-05-01) or later",
    "to": "only games of this year or date or earlier",
    "event": "only games whose event contains this text",
    "result": "1-0, 0-1, 1/2-1/2, red, black, draw, or with player win or loss",
    "eco": "only these ECCO codes or their starts, comma-separated (C, C4, A30,B21)",
    "where": "SQL on the columns of games (red_name, black_name: canonical names)",
    "game": "only these game ids, comma-separated",
}
_FILTER_DEFAULTS = {"side": "either"}
#: Older names of the year filters, still taken.
_ALIASES = ("from_year", "to_year")
_USES_FILTERS = re.compile(r"\bpicked_(?:games|rows)\s*\(|\bselected_games\b")
_BOUND = re.compile(r"\$(\w+)")
_INTEGER = re.compile(r"-?\d+")
#: What fills each table a report may need, for the message when it is empty.
_FILLED_BY = {"evals": "analyse some games first (xqdb analyze --db FILE)"}


class QueryError(BadArgumentError, ValueError):
    """A report that does not exist, a parameter it does not take or lacks, or SQL that
    fails: the message says which."""


class SqlError(QueryError):
    """SQL that DuckDB refused to run: the message is DuckDB's first line (for ``xqdb
    sql``, whose user wrote the SQL and needs DuckDB's words to mend it)."""


#: DuckDB's own exception, for the layers above to catch one that escaped unworded
#: (only the database side imports DuckDB).
DuckDBError = duckdb.Error


@dataclass(frozen=True)
class Param:
    """One parameter a report takes."""

    name: str
    default: str | None
    """Bound when the parameter is not given (``None``: NULL)."""
    required: bool
    doc: str


@dataclass(frozen=True)
class Query:
    """A report: its name (the file's stem), description, parameters and SQL."""

    name: str
    description: str
    params: tuple[Param, ...]
    sql: str
    details: str = ""
    """The rest of the header comment: what the columns hold."""
    needs: tuple[str, ...] = ()
    """Tables that must hold rows for the report to say anything."""

    @property
    def filtered(self) -> bool:
        """Whether the report reads the games the game filters select."""
        return bool(_USES_FILTERS.search(self.sql))

    def bind(self, given: dict[str, str | None]) -> dict[str, str | None]:
        """Every parameter's value: given, or its default; raises :class:`QueryError` for
        one that is unknown, required and missing, or not a whole number where the default
        is one."""
        known = {p.name for p in self.params} | (set(_ALIASES) if self.filtered else set())
        unknown = sorted(set(given) - known)
        if unknown:
            raise QueryError(f"{self.name} takes no parameter {', '.join(unknown)} "
                             f"(it takes: {', '.join(p.name for p in self.params)})")
        values = {}
        for param in self.params:
            value = given.get(param.name, param.default)
            if param.required and value is None:
                raise QueryError(f"{self.name} needs --param {param.name}=VALUE: "
                                 f"{param.doc}")
            if (value is not None and param.default is not None
                    and _INTEGER.fullmatch(param.default)):
                if not _INTEGER.fullmatch(value):
                    raise QueryError(f"{self.name}: --param {param.name}={value}: "
                                     f"{param.name} is a whole number (default "
                                     f"{param.default})")
                # The SQL casts it to INTEGER: past that, DuckDB's words would say why.
                if not -MAX_COUNT - 1 <= int(value) <= MAX_COUNT:
                    raise QueryError(f"{self.name}: --param {param.name}={value}: "
                                     f"{param.name} is a whole number from {-MAX_COUNT - 1}"
                                     f" to {MAX_COUNT}")
            values[param.name] = value
        for alias in _ALIASES:
            if given.get(alias) is not None:
                values[alias] = given[alias]
        return values


def parse_query(name: str, text: str) -> Query:
    """A report from its file's text.

    >>> q = parse_query("n", "-- Games per year.\\n-- @param since=1990 first year\\nSELECT 1")
    >>> q.description, q.params[0]
    ('Games per year.', Param(name='since', default='1990', required=False, doc='first year'))
    """
    header = []
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        header.append(line)
    params = tuple(Param(m[1], m[2] or None, m[2] is None, m[3].strip())
                   for m in map(_PARAM.match, header) if m)
    needs = tuple(m[1] for m in map(_NEEDS.match, header) if m)
    prose = [line[2:].strip() for line in header
             if not _PARAM.match(line) and not _NEEDS.match(line)]
    description = prose[0] if prose else ""
    details = " ".join(p for p in prose[1:] if p)
    if _USES_FILTERS.search(text):
        declared = {p.name for p in params}
        params += tuple(Param(n, _FILTER_DEFAULTS.get(n), False, doc)
                        for n, doc in FILTERS.items() if n not in declared)
    return Query(name, description, params, text, details, needs)


def _files() -> dict[str, Any]:
    folder = resources.files("xqdb") / "queries"
    return {Path(f.name).stem: f for f in folder.iterdir() if f.name.endswith(".sql")}


def create_shared_macros(con: duckdb.DuckDBPyConnection) -> None:
    """Create the macros of ``_shared.sql`` on ``con`` (temporary: a read-only database
    takes them too), and those reading the lookup tables (see
    :func:`xqdb.db.lookups.create_lookup_macros`).

    The shared macros are created once per connection (about 30 ms, more than many a
    report's read): a temporary view made with them tells they are there, and goes with
    them when the transaction that made them is rolled back (asking for a missing macro
    would abort the caller's transaction). The lookup macros hold how far the tables go,
    which an import on the same connection moves, so they are made anew each time.
    """
    marker = con.execute("SELECT count(*) FROM duckdb_views() WHERE temporary"
                         " AND view_name = ?", [_SHARED_MARKER]).fetchone()
    if not (marker and marker[0]):
        create_selection(con)
        con.execute(_files()["_shared"].read_text(encoding="utf-8"))
        con.execute(JUDGED_MOVES)
        con.execute(f"CREATE OR REPLACE TEMP VIEW {_SHARED_MARKER} AS SELECT true AS made")
    create_lookup_macros(con)


#: The temporary view whose presence tells that a connection has the shared macros.
_SHARED_MARKER = "xqdb_shared_macros"



def create_macros(con: duckdb.DuckDBPyConnection, *names: str) -> None:
    """Create only the scalar macros ``names`` of ``_shared.sql`` on ``con``: for a read of
    a few rows, creating them all costs more than the read.

    >>> con = duckdb.connect()
    >>> create_macros(con, "pct")
    >>> con.execute("SELECT pct(1, 3)").fetchone()
    (33.3,)
    """
    for name in names:
        con.execute(_macro_sql(name))


@functools.cache
def _macro_sql(name: str) -> str:
    """The statement of ``_shared.sql`` that creates the macro ``name``: read once, as the
    tree asks for its macros at every position it shows (a report's tree of main lines
    shows 28)."""
    text = _files()["_shared"].read_text(encoding="utf-8")
    found = re.search(rf"^CREATE OR REPLACE TEMP MACRO {name}\(.*?;$", text,
                      re.MULTILINE | re.DOTALL)
    if found is None:
        raise QueryError(f"_shared.sql defines no macro {name}")
    return found.group(0)


def list_queries() -> list[Query]:
    """Every report shipped, by name."""
    return [parse_query(name, f.read_text(encoding="utf-8"))
            for name, f in sorted(_files().items()) if not name.startswith("_")]


def load_query(name: str) -> Query:
    """The report ``name``; raises :class:`QueryError` when there is none."""
    files = _files()
    if name not in files or name.startswith("_"):
        meant = closest(name, [n for n in files if not n.startswith("_")])
        hint = f"did you mean {meant}? " if meant else ""
        raise QueryError(f"no query named {name!r} ({hint}xqdb query --list lists them)")
    return parse_query(name, files[name].read_text(encoding="utf-8"))


def run_sql(con: duckdb.DuckDBPyConnection, sql: str,
            params: dict[str, str | None] | None = None) -> Result:
    """Run ``sql`` with ``params`` bound; DuckDB's errors become :class:`SqlError`."""
    try:
        cursor = con.execute(sql, params or {})
        columns = [d[0] for d in cursor.description or []]
        return Result(columns, cursor.fetchall() if columns else [])
    except duckdb.Error as exc:
        raise SqlError(str(exc).strip().splitlines()[0]) from None


def run_query(con: duckdb.DuckDBPyConnection, name: str, games: GameFilter | None = None,
              **given: str | None) -> Result:
    """Run the report ``name`` with the parameters ``given`` (the others at their defaults)
    over the valid games ``games`` selects (and the filters among ``given``), as
    :func:`run_report` runs it."""
    return run_report(con, name, games, given)


def run_report(con: duckdb.DuckDBPyConnection, name: str, games: GameFilter | None,
               given: dict[str, str | None], *, valid_only: bool = True) -> Result:
    """Run the report ``name`` with the parameters ``given`` (the others at their defaults)
    over the games ``games`` selects (and the filters among ``given``): the valid ones, or
    with ``valid_only`` false the invalid ones too, with their moves up to the failing one.

    Values are text, as typed on a command line; the SQL casts what it needs. A player or
    opponent is resolved to a canonical name (any script or spelling).
    """
    query = load_query(name)
    if games is not None:
        for param in ("player", "opponent"):
            if given.get(param) is None and getattr(games, param) is not None:
                given[param] = getattr(games, param)
    values = query.bind(given)
    picked, values = filter_from_params(values)
    if games is not None:
        picked = _merged(games, picked)
    picked = resolved(con, picked)
    values.update(player=picked.player, opponent=picked.opponent, side=picked.side,
                  from_year=None, to_year=None, event=None)
    required = [p.name for p in query.params if p.required and values.get(p.name) is None]
    if required:
        query.bind({})  # raises, naming the first missing parameter
    for table in query.needs:
        if not run_sql(con, f'SELECT EXISTS (SELECT 1 FROM "{table}")').rows[0][0]:
            raise QueryError(f"{name} reads {table}, which is empty in this database: "
                             f"{_FILLED_BY.get(table, 'fill it first')}")
    if query.filtered:
        select_games(con, picked, check=False, valid_only=valid_only)
    create_shared_macros(con)
    used = set(_BOUND.findall(query.sql))
    return run_sql(con, query.sql, {k: v for k, v in values.items() if k in used})


def _merged(games: GameFilter, given: GameFilter) -> GameFilter:
    """``games`` with the filters ``given`` set over it."""
    empty = GameFilter()
    return GameFilter(**{f: getattr(given, f) if getattr(given, f) != getattr(empty, f)
                         else getattr(games, f) for f in games.__dataclass_fields__})
