"""Named reports: parameterized SQL files, run with bound parameters, shown or written out.

Each report is one file of ``xqdb/queries/`` (``queries/`` at the top of the source tree
points there), shipped inside the package. Its header comment says what it answers: the
first line is the description, and each parameter has a line
``-- @param NAME=DEFAULT  meaning`` (no ``=``: the parameter is required; nothing after
``=``: it defaults to NULL); a line ``-- @needs TABLE`` names a table that must hold rows
for the report to say anything (the analysis's ``evals``), so that a database without them
is told what to run instead of showing an empty table. The SQL reads a parameter as ``$NAME``; values are always
bound, never pasted into the text. ``_shared.sql`` is no report: it defines the table
and scalar macros the reports share, created (as temporary macros, so that a read-only
database takes them) before each report runs.

>>> query = load_query("tree")
>>> [p.name for p in query.params]
['key', 'notation', 'min_games', 'with_partial']
>>> query.params[1].default, query.params[0].required
('chinese', True)
>>> print(render(Result(["name", "games"], [("胡荣华", 1176), ("Li", 3)]), width=40))
name    games
------  -----
胡荣华   1176
Li          3
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from ..errors import closest
from ..reading import display_width

#: Formats a result can be written in.
FORMATS = ("table", "csv", "json", "parquet")

_PARAM = re.compile(r"--\s*@param\s+(\w+)(?:=(\S*))?\s*(.*)")
_NEEDS = re.compile(r"--\s*@needs\s+(\w+)")
#: Parameters that name a player: a name no player has is refused, as a typing error.
_PLAYER_PARAMS = ("player", "opponent")
#: What fills each table a report may need, for the message when it is empty.
_FILLED_BY = {"evals": "analyse some games first (xqdb analyze --db FILE)"}


class QueryError(ValueError):
    """A report that does not exist, a parameter it does not take or lacks, or SQL that
    fails: the message says which."""


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

    def bind(self, given: dict[str, str | None]) -> dict[str, str | None]:
        """Every parameter's value: given, or its default; raises :class:`QueryError` for
        one that is unknown or required and missing."""
        known = {p.name for p in self.params}
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
            values[param.name] = value
        return values


@dataclass
class Result:
    """A report's rows, with their column names."""

    columns: list[str]
    rows: list[tuple[Any, ...]] = field(default_factory=list)

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row)) for row in self.rows]


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
    return Query(name, description, params, text, details, needs)


def _files() -> dict[str, Any]:
    folder = resources.files("xqdb") / "queries"
    return {Path(f.name).stem: f for f in folder.iterdir() if f.name.endswith(".sql")}


def _shared(con: duckdb.DuckDBPyConnection) -> None:
    """Create the macros of ``_shared.sql`` on ``con``."""
    con.execute(_files()["_shared"].read_text(encoding="utf-8"))


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
    """Run ``sql`` with ``params`` bound; DuckDB's errors become :class:`QueryError`."""
    try:
        cursor = con.execute(sql, params or {})
        columns = [d[0] for d in cursor.description or []]
        return Result(columns, cursor.fetchall() if columns else [])
    except duckdb.Error as exc:
        raise QueryError(str(exc).strip().splitlines()[0]) from None


def run_query(con: duckdb.DuckDBPyConnection, name: str, **given: str | None) -> Result:
    """Run the report ``name`` with the parameters ``given`` (the others at their defaults).

    Values are text, as typed on a command line; the SQL casts what it needs.
    """
    query = load_query(name)
    values = query.bind(given)
    for param in _PLAYER_PARAMS:
        player = values.get(param) if any(p.name == param for p in query.params) else None
        if player is not None and not con.execute("SELECT 1 FROM players WHERE name = ?",
                                                  [player]).fetchone():
            names = [r[0] for r in con.execute("SELECT name FROM players").fetchall()]
            meant = closest(player, names)
            hint = f"did you mean {meant}? " if meant else ""
            raise QueryError(f"no player named {player!r} ({hint}xqdb players --search TEXT "
                             "finds the names)")
    for table in query.needs:
        if not run_sql(con, f'SELECT EXISTS (SELECT 1 FROM "{table}")').rows[0][0]:
            raise QueryError(f"{name} reads {table}, which is empty in this database: "
                             f"{_FILLED_BY.get(table, 'fill it first')}")
    _shared(con)
    return run_sql(con, query.sql, values)


# --- output -------------------------------------------------------------------------------

def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float | Decimal):
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, list):
        return ", ".join(map(_cell, value))
    return str(value)


def _fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` terminal columns (an ellipsis marks the cut)."""
    if display_width(text) <= width:
        return text
    out, used = "", 0
    for char in text:
        size = max(display_width(char), 0)
        if used + size > width - 1:
            break
        out, used = out + char, used + size
    return out + "…"


def render(result: Result, width: int = 120) -> str:
    """The rows as a text table at most ``width`` columns wide, Chinese aligned by its
    display width; numbers right-aligned, the widest text columns cut first."""
    cells = [[_cell(v) for v in row] for row in result.rows]
    widths = [max([display_width(c)] + [display_width(r[i]) for r in cells])
              for i, c in enumerate(result.columns)]
    numeric = [all(isinstance(row[i], int | float | Decimal) or row[i] is None
                   for row in result.rows) and bool(result.rows)
               for i in range(len(result.columns))]
    while sum(widths) + 2 * (len(widths) - 1) > width and max(widths, default=0) > 8:
        widest = widths.index(max(widths))
        widths[widest] -= 1

    def line(values: list[str]) -> str:
        parts = []
        for i, value in enumerate(values):
            text = _fit(value, widths[i])
            pad = " " * (widths[i] - display_width(text))
            parts.append(pad + text if numeric[i] else text + pad)
        return "  ".join(parts).rstrip()

    out = [line(result.columns), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in cells]
    return "\n".join(out)


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def to_text(result: Result, format: str, width: int = 120) -> str:
    """The rows as ``table``, ``csv`` or ``json`` (a list of objects) text."""
    if format == "table":
        return render(result, width)
    if format == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(result.columns)
        writer.writerows([_cell(v) if isinstance(v, list) else _plain(v) for v in row]
                         for row in result.rows)
        return buffer.getvalue().rstrip("\n")
    if format == "json":
        return json.dumps([{k: _plain(v) for k, v in r.items()} for r in result.records()],
                          ensure_ascii=False, indent=1)
    raise QueryError(f"{format!r} is not one of {', '.join(FORMATS)}")


def write_parquet(result: Result, path: str) -> None:
    """The rows as a Parquet file at ``path``."""
    import pyarrow.parquet as pq

    columns = {name: [_plain(row[i]) for row in result.rows]
               for i, name in enumerate(result.columns)}
    pq.write_table(pa.table(columns), path)
