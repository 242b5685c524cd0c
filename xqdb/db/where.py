"""``--where``: a condition on the ``games`` table, and nothing else.

A condition is pasted into a query (DuckDB cannot bind an expression), so it is checked
first, as one expression: its parentheses must balance and it may hold no statement
separator or comment (``game_id=1) OR (1=1`` would otherwise escape the parentheses put
around it, and ``--`` cut off what follows it). It is then bound against an empty copy
of the schema in a DuckDB of its own with file access and extension loading turned off,
so a condition that reads a file (``read_text('/etc/hostname')``) or would load an
extension is refused before it reaches the database.

>>> game_condition("year >= 2000 AND red = '胡荣华'")
"(year >= 2000 AND red = '胡荣华')"
>>> game_condition("game_id=1) OR (1=1")
Traceback (most recent call last):
...
xqdb.db.where.ConditionError: --where 'game_id=1) OR (1=1': a ')' closes more than was opened: give one condition on the games table
"""

from __future__ import annotations

import threading

import duckdb

from .schema import SCHEMA


class ConditionError(ValueError):
    """A ``--where`` that is not one condition on ``games``; the message says why."""


def game_condition(where: str) -> str:
    """``where`` checked and wrapped in parentheses, ready for ``WHERE``; raises
    :class:`ConditionError` naming what is wrong."""
    why = _structure(where)
    if why is None:
        why = _binds(where)
    if why is not None:
        raise ConditionError(f"--where {where!r}: {why}: give one condition on the games table")
    return f"({where})"


def _structure(where: str) -> str | None:
    """Why ``where`` is not one expression by its shape, or ``None``: parentheses outside
    quotes balance, and there is no ``;`` or comment."""
    depth = 0
    quote: str | None = None
    for i, char in enumerate(where):
        if quote is not None:
            if char == quote:
                quote = None  # a doubled quote closes and reopens: the same for depth
            continue
        if char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return "a ')' closes more than was opened"
        elif char == ";":
            return "a ';' would end the statement"
        elif where.startswith(("--", "/*"), i):
            return "a comment would hide what follows"
    if quote is not None:
        return f"a {quote} is never closed"
    if depth:
        return "a '(' is never closed"
    return None


_CHECKER = threading.local()


def _binds(where: str) -> str | None:
    """Why ``where`` does not bind as a condition on an empty ``games`` (with the players'
    canonical names ``red_name`` and ``black_name``) in a DuckDB that can reach no file and
    load no extension, or ``None``."""
    con = getattr(_CHECKER, "con", None)
    if con is None:
        con = duckdb.connect(":memory:")
        con.execute(SCHEMA)
        for setting in ("autoinstall_known_extensions", "autoload_known_extensions",
                        "enable_external_access"):
            con.execute(f"SET {setting} = false")
        _CHECKER.con = con
    try:
        # As the selection offers it: the games with their players' canonical names.
        con.execute("SELECT count(*) FROM (SELECT *, '' AS red_name, '' AS black_name "
                    f"FROM games) WHERE ({where})").fetchall()
    except duckdb.Error as exc:
        return str(exc).strip().splitlines()[0]
    return None
