"""The database side of xqdb: every column once (:mod:`.columns`), the schema
(:mod:`.schema`), the rows a worker stages (:mod:`.rows`), the single writer of an import
(:mod:`.writer`), the duplicate key (:mod:`.dedupe`), the summary of a database
(:mod:`.info`) and upgrades from older schema versions (:mod:`.upgrade`).

Loading this package loads no DuckDB: the command line takes its output formats and the
bounds of a count from here."""

from __future__ import annotations

from ..errors import BadArgumentError

#: The largest count (a limit, a number of top rows, a minimum of games) a command, an
#: endpoint or a report takes: DuckDB's INTEGER, to which the reports cast theirs. Every
#: game of any database fits within it, so a larger one would mean nothing more.
MAX_COUNT = 2**31 - 1


def checked_count(value: int, name: str, least: int = 0) -> int:
    """``value``, a count ``name`` was given, if it is from ``least`` to
    :data:`MAX_COUNT`; else :class:`~xqdb.errors.BadArgumentError` saying so, rather
    than DuckDB's words for an integer that does not fit.

    >>> checked_count(20, "limit")
    20
    >>> checked_count(2**63, "limit")
    Traceback (most recent call last):
    ...
    xqdb.errors.BadArgumentError: limit 9223372036854775808 is more than 2147483647, the most a count can be
    """
    if value > MAX_COUNT:
        raise BadArgumentError(f"{name} {value} is more than {MAX_COUNT}, the most a count "
                               "can be")
    if value < least:
        raise BadArgumentError(f"{name} {value} is below {least}")
    return value


#: The formats a report is written in (``xqdb query --format``); here, where loading it
#: loads no DuckDB, for the command line's options.
OUTPUT_FORMATS = ("table", "csv", "json", "parquet")
