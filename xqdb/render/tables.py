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
    raise BadArgumentError(f"{format!r} is not one of {', '.join(OUTPUT_FORMATS)}")


def write_parquet(result: Result, path: str) -> None:
    """The rows as a Parquet file at ``path``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {name: [_plain(row[i]) for row in result.rows]
               for i, name in enumerate(result.columns)}
    pq.write_table(pa.table(columns), path)
