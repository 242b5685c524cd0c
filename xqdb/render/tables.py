"""Rows for people and programs: a text table fitted to the terminal's width (Chinese
aligned by its display width), CSV, JSON and Parquet.

>>> from xqdb.db.queries import Result
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
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from wcwidth import wcswidth

from ..db import OUTPUT_FORMATS
from ..errors import BadArgumentError
from .terminal import visible

# Reading files shares display_width; it must not load the database side for it.
if TYPE_CHECKING:
    from ..db.queries import Result


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes: two for a Chinese character.

    >>> display_width("炮二平五"), display_width("C2.5")
    (8, 4)
    """
    width = wcswidth(text)
    return width if width >= 0 else len(text)


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


#: Headers for people, by column name (a report's own labels come first).
HEADERS = {"red_win": "Red win %", "draw": "Draw %", "black_win": "Black win %",
           "red_score": "Red score %", "score": "Score %", "avg_year": "Avg year",
           "first_year": "First year", "last_year": "Last year", "share": "Share %",
           "top_players": "Top players", "top_games": "Top games", "variation": "Variation"}
#: Shorter headers for the numeric columns, when the table is too wide for the terminal.
SHORT = {"red_win": "Red%", "draw": "Drw%", "black_win": "Blk%", "red_score": "Scr%",
         "score": "Scr%", "avg_year": "Year", "first_year": "From", "last_year": "To",
         "share": "Shr%", "games": "N", "players": "Plrs"}
#: Columns of names: never cut so far that two rows read the same.
NAMES = ("name", "opening", "variation", "move", "line", "player", "group")
#: Columns left out first when a table does not fit, least useful first.
LEAST_USEFUL = ("top_games", "top_players", "written_as", "first_year", "last_year",
                "avg_year", "spellings", "player_id")


def header(result: Result, column: str) -> str:
    """The header people read for ``column``: the report's label, or the usual one.

    >>> from xqdb.db.queries import Result
    >>> header(Result(["red_score"]), "red_score")
    'Red score %'
    """
    return result.labels.get(column, HEADERS.get(column, column))


def _distinct_width(values: list[str], least: int) -> int:
    """The fewest columns (at least ``least``) to which every value can be cut and the
    values still differ where they differed: no two names cut to a prefix they share."""
    wanted = len(set(values))
    widest = max([display_width(v) for v in values] + [least])
    width = least
    while width < widest and len({_fit(v, width) for v in values}) < wanted:
        width += 1
    return width


def render(result: Result, width: int | None = 120) -> str:
    """The rows as a text table, Chinese aligned by its display width, numbers
    right-aligned, headers for people.

    With ``width`` (a terminal's), the table is fitted to it: the numeric columns' headers
    shrink first, then the least useful columns are left out (a last line names them),
    then the widest text columns are cut, never so far that two different values read
    the same; the last column wraps instead of being cut; and a cell's control
    characters, tabs and newlines are written as escapes (:func:`~.terminal.visible`),
    before the columns are measured, so that they still line up. With ``width`` ``None``
    (a file or a pipe) nothing is cut or changed.
    """
    columns = list(range(len(result.columns)))
    cells = [[_cell(v) if width is None else visible(_cell(v), lines=False) for v in row]
             for row in result.rows]
    numeric = [all(isinstance(row[i], int | float | Decimal) or row[i] is None
                   for row in result.rows) and bool(result.rows)
               for i in range(len(result.columns))]
    heads = [header(result, c) for c in result.columns]

    def natural(i: int) -> int:
        return max([display_width(heads[i])] + [display_width(r[i]) for r in cells])

    def total(shown: list[int]) -> int:
        return sum(natural(i) for i in shown) + 2 * (len(shown) - 1)

    left_out: list[str] = []
    if width is not None and total(columns) > width:
        for i in columns:
            if numeric[i] and result.columns[i] in SHORT:
                heads[i] = SHORT[result.columns[i]]
        for name in LEAST_USEFUL:
            if total(columns) <= width or len(columns) <= 2:
                break
            if name in result.columns and result.columns.index(name) in columns:
                columns.remove(result.columns.index(name))
                left_out.append(heads[result.columns.index(name)])
    widths = {i: natural(i) for i in columns}
    wrap = None
    if width is not None:
        floors = {i: widths[i] if numeric[i] else
                  _distinct_width([r[i] for r in cells], min(8, widths[i]))
                  if result.columns[i] in NAMES else min(8, widths[i]) for i in columns}
        last = columns[-1]
        # The last column wraps onto more lines rather than being cut.
        wraps = not numeric[last]
        natural_last = widths[last]
        if wraps:
            widths[last] = min(widths[last], max(40, width // 2))
        while sum(widths.values()) + 2 * (len(columns) - 1) > width:
            cuttable = [i for i in columns if widths[i] > floors[i]
                        and not (wraps and i == last)]
            if not cuttable:
                break
            widest = max(cuttable, key=lambda i: widths[i])
            widths[widest] -= 1
        room = width - (sum(widths[i] for i in columns[:-1]) + 2 * (len(columns) - 1))
        if wraps:
            widths[last] = min(natural_last, max(room, 12))
            if widths[last] < natural_last:
                wrap = last

    def line(values: list[str]) -> str:
        parts = []
        for i in columns:
            value = values[i]
            text = value if width is None or i == wrap else _fit(value, widths[i])
            if i == wrap:
                text = _wrapped(value, widths[i], sum(widths[j] + 2 for j in columns[:-1]))
            pad = " " * max(widths[i] - display_width(text.split("\n")[-1]), 0)
            parts.append(pad + text if numeric[i] else text + pad)
        return "  ".join(parts).rstrip()

    out = [line(heads), "  ".join("-" * widths[i] for i in columns)]
    out += [line(row) for row in cells]
    if left_out:
        out.append(f"(left out to fit {width} columns: {', '.join(left_out)}; "
                   "--format csv shows every column)")
    return "\n".join(out)


def _wrapped(text: str, width: int, indent: int) -> str:
    """``text`` in lines of at most ``width`` columns (broken at a space where there is
    one), the later ones indented by ``indent``.

    >>> _wrapped("one two three", 8, 2)
    'one two\\n  three'
    """
    lines: list[str] = []
    rest = text
    while display_width(rest) > width:
        cut = _fit(rest, width + 1)[:-1]  # the most that fits, without the ellipsis
        space = cut.rfind(" ")
        if space > 0:
            cut = cut[:space]
        lines.append(cut)
        rest = rest[len(cut):].lstrip(" ")
    lines.append(rest)
    return ("\n" + " " * indent).join(lines)


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def to_text(result: Result, format: str, width: int | None = 120) -> str:
    """The rows as ``table`` (fitted to ``width``; ``None``: nothing cut), ``csv`` or
    ``json`` (a list of objects) text."""
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
    raise BadArgumentError(f"{format!r} is not one of {', '.join(OUTPUT_FORMATS)}")


def write_parquet(result: Result, path: str) -> None:
    """The rows as a Parquet file at ``path``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {name: [_plain(row[i]) for row in result.rows]
               for i, name in enumerate(result.columns)}
    pq.write_table(pa.table(columns), path)
