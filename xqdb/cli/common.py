"""What the commands of ``xqdb`` share: the exit codes, the ``--db`` and output options,
and printing a result.

Nothing here loads DuckDB: ``xqdb engine`` and ``xqdb perft`` import this module too.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from ..errors import (
    BadArgumentError, CannotRunError, ClusterError, DatabaseError, FenError, XqdbError,
)
from ..db import MAX_COUNT, OUTPUT_FORMATS as FORMATS
from ..position import FEN_HINT

if TYPE_CHECKING:
    from ..database import Database
    from ..db.queries import Result

#: Exit codes (Click itself uses 1 for an unexpected error and 2 for a usage error).
EXIT_BAD_ARGUMENT = 2
EXIT_CANNOT_RUN = 3
EXIT_DATABASE = 4
EXIT_CLUSTER = 5
#: Ctrl-C, as shells report a process ended by SIGINT.
EXIT_INTERRUPTED = 130
#: ``xqdb read`` exits with this when a record is invalid.
EXIT_INVALID = 1

#: Each family of :class:`~xqdb.errors.XqdbError` and its exit code, most specific first:
#: the one table the README's "Exit codes and errors" documents.
EXIT_CODES: tuple[tuple[type[XqdbError], int], ...] = (
    (BadArgumentError, EXIT_BAD_ARGUMENT),
    (CannotRunError, EXIT_CANNOT_RUN),
    (DatabaseError, EXIT_DATABASE),
    (ClusterError, EXIT_CLUSTER),
)


class Interrupted(Exception):
    """Ctrl-C stopped a long job; the message says what stays (exit code 130)."""


def exit_code(error: XqdbError) -> int:
    """The exit code of ``error``, by its family.

    >>> from xqdb.errors import NotFoundError
    >>> exit_code(NotFoundError("no game 9")), exit_code(FenError("bad"))
    (2, 2)
    """
    for family, code in EXIT_CODES:
        if isinstance(error, family):
            return code
    return 1


def error_line(error: XqdbError) -> str:
    """``Error: message (hint)``, the one line every failing command prints.

    >>> error_line(FenError("rank 10 of the FEN has more than 9 points"))  # doctest: +ELLIPSIS
    'Error: rank 10 of the FEN has more than 9 points (the start position reads rnbakabnr/...)'
    """
    hint = error.hint or (FEN_HINT if isinstance(error, FenError) else "")
    return f"Error: {error.message or error}" + (f" ({hint})" if hint else "")


def scheduler_option(doing: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--scheduler`` (env ``XQDB_SCHEDULER``); ``doing`` says what the workers do."""
    return click.option("--scheduler", default=None, envvar="XQDB_SCHEDULER",
                        metavar="tcp://HOST:8786",
                        help=f"{doing} on the workers of this Dask cluster instead of local "
                             "processes (env XQDB_SCHEDULER; needs xqdb[cluster]).")


def count_range(least: int = 1) -> click.IntRange:
    """The type of an option that counts rows or games (``--limit``, ``--top``,
    ``--min-games``): a whole number from ``least`` to :data:`~xqdb.db.MAX_COUNT`, so that
    one too large for the database is a usage error of ours, not DuckDB's traceback."""
    return click.IntRange(least, MAX_COUNT)


def db_option(help: str = "DuckDB file (env XQDB_DB).", required: bool = True
              ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The ``--db FILE`` option (env ``XQDB_DB``). A group takes it as not required and
    checks it with :func:`needed`, since Click would demand a required one before a
    subcommand's ``--help`` could answer."""
    return click.option("--db", "db", required=required, envvar="XQDB_DB",
                        type=click.Path(dir_okay=False), help=help)


def needed(db: str | None) -> str:
    """``db``, or a usage error saying it is missing (for an optional --db)."""
    if db is None:
        raise click.UsageError("Missing option '--db' (or env XQDB_DB).")
    return db


def database(db: str | None) -> Database:
    """The :class:`~xqdb.Database` at ``db`` (loading the database side on first use)."""
    from ..database import Database

    return Database(needed(db))


def output_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--output FILE`` and ``--format table|csv|json|parquet``."""
    command = click.option("--output", "-o", type=click.Path(dir_okay=False), default=None,
                           help="Write to this file instead of the terminal.")(command)
    return click.option("--format", "format_", type=click.Choice(FORMATS), default=None,
                        help="table (fitted to the terminal), csv, json or parquet "
                             "(default: table, or as the --output file's suffix says).")(command)


def cannot_write(path: str, exc: OSError) -> CannotRunError:
    """The error for an output file ``path`` that cannot be written."""
    return CannotRunError(f"cannot write {path}: {exc.strerror or exc}",
                          "choose a path in a folder you can write to")


def write_text(path: str, text: str) -> None:
    """Write ``text`` to the file ``path``, or raise saying why it cannot be written."""
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise cannot_write(path, exc) from None


def output_format(format_: str | None, output: str | None) -> str:
    """The format asked for, or the one ``output``'s suffix names (``table`` without one);
    an output suffix that names no format is refused rather than written as a table.

    >>> output_format(None, "o.csv"), output_format(None, None), output_format("json", "o.txt")
    ('csv', 'table', 'json')
    """
    if format_ is not None:
        return format_
    if output is None:
        return "table"
    suffix = output.rsplit(".", 1)[-1].lower() if "." in output.rsplit("/", 1)[-1] else ""
    if suffix in FORMATS:
        return suffix
    if suffix in ("txt", "text", ""):
        return "table"
    raise BadArgumentError(f"--output {output}: .{suffix} is not a format xqdb writes",
                           "use .txt, .csv, .json or .parquet, or give --format")


def emit(result: Result, format_: str | None, output: str | None) -> None:
    """Print or write ``result`` in ``format_`` (guessed from ``output``'s suffix)."""
    from ..render.tables import to_text, write_parquet

    format_ = output_format(format_, output)
    if format_ == "parquet":
        if output is None:
            raise click.UsageError("--format parquet needs --output FILE")
        try:
            write_parquet(result, output)
        except OSError as exc:
            raise cannot_write(output, exc) from None
        return
    # Fitted to a terminal; into a file or a pipe, nothing is cut.
    width = (shutil.get_terminal_size((120, 24)).columns
             if output is None and sys.stdout.isatty() else None)
    text = to_text(result, format_, width=width)
    if output is None:
        click.echo(text)
    else:
        write_text(output, text + "\n")


def game_filters(command: Callable[..., Any]) -> Callable[..., Any]:
    """The game filters every command that selects games takes, given to the command as
    one ``games`` argument (a :class:`xqdb.db.selection.GameFilter`)."""
    import functools

    options = [
        click.option("--player", default=None, help="Only this player's games (any script "
                     "or spelling: 胡荣华, 胡榮華, 上海胡榮華)."),
        click.option("--side", type=click.Choice(["red", "black", "either"]),
                     default="either", show_default=True,
                     help="With --player: the games where they had this colour."),
        click.option("--opponent", default=None, help="Only the games against this player."),
        click.option("--from", "from_", default=None, metavar="YEAR|DATE",
                     help="Only games of this year (1990) or date (1990-05-01) or later."),
        click.option("--to", default=None, metavar="YEAR|DATE",
                     help="Only games of this year or date or earlier."),
        click.option("--event", default=None, help="Only events containing this text."),
        click.option("--result", default=None, metavar="RESULT",
                     help="1-0, 0-1, 1/2-1/2, red, black, draw; with --player win or loss."),
        click.option("--eco", default=None, metavar="CODES",
                     help="Only these ECCO codes or their starts (C, C4, A30,B21)."),
        click.option("--where", default=None, metavar="SQL",
                     help="SQL on the columns of games; red_name and black_name are the "
                          "canonical names (\"year >= 2000 AND red_name = '胡荣华'\")."),
        click.option("--game", "game_ids", type=int, multiple=True, metavar="ID",
                     help="Only this game (games.game_id), as many as needed."),
    ]

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        from ..db.selection import GameFilter

        names = ("player", "side", "opponent", "from_", "to", "event", "result", "eco",
                 "where", "game_ids")
        kwargs["games"] = GameFilter(**{n: kwargs.pop(n) for n in names})
        return command(*args, **kwargs)

    for option in reversed(options):
        run = option(run)
    return run
