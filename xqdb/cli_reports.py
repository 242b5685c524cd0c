"""The report commands of ``xqdb``: query, sql, players, openings, tree and report.

Thin Click wrappers: the reports are the SQL files of ``xqdb/queries/``, run by
:mod:`xqdb.db.queries`; these commands pick the report, bind the options as its
parameters and print the rows.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import click
import duckdb

from .db.queries import FORMATS, QueryError, Result, list_queries, run_query, run_sql, \
    to_text, write_parquet
from .db.schema import DatabaseError, connect
# The command line's own options, shared with these commands (re-exported for the others).
from .cli import _scheduler_option as _scheduler_option

#: Exit code of a report that cannot run: unknown, missing or bad parameters, failing SQL.
EXIT_QUERY = 2

_db_option = click.option("--db", "db", required=True, envvar="XQDB_DB",
                          type=click.Path(dir_okay=False), help="DuckDB file (env XQDB_DB).")
# A group checks its --db itself (Click would demand a required one before the
# subcommand's --help could answer), and so does query, which needs none for --list.
_group_db_option = click.option("--db", "db", envvar="XQDB_DB", type=click.Path(dir_okay=False),
                                help="DuckDB file (env XQDB_DB).")


def _needed(db: str | None) -> str:
    """``db``, or a usage error saying it is missing (for an optional --db)."""
    if db is None:
        raise click.UsageError("Missing option '--db' (or env XQDB_DB).")
    return db


def _output_options(command: Callable[..., Any]) -> Callable[..., Any]:
    command = click.option("--output", "-o", type=click.Path(dir_okay=False), default=None,
                           help="Write to this file instead of the terminal.")(command)
    return click.option("--format", "format_", type=click.Choice(FORMATS), default=None,
                        help="table (fitted to the terminal), csv, json or parquet "
                             "(default: table, or as the --output file's suffix says).")(command)


@contextmanager
def _database(db: str, write: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """The database, or exit with a one-line message."""
    from .cli import EXIT_DATABASE  # here: xqdb.cli imports this module as it loads

    try:
        # Only an import makes a database: a mistyped path here must not leave an empty one.
        con = connect(db, read_only=not write, create=False)
    except DatabaseError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_DATABASE)
    try:
        yield con
    except QueryError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_QUERY)
    finally:
        con.close()


def _cannot_write(path: str, exc: OSError) -> NoReturn:
    """Say that the output file ``path`` cannot be written, and exit with EXIT_INPUT."""
    from .cli import EXIT_INPUT, fail  # here: xqdb.cli imports this module as it loads

    fail(f"cannot write {path}: {exc.strerror or exc}",
         "choose a path in a folder you can write to", EXIT_INPUT)


def _write_text(path: str, text: str) -> None:
    """Write ``text`` to the file ``path``, or exit saying why it cannot be written."""
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        _cannot_write(path, exc)


def _emit(result: Result, format_: str | None, output: str | None) -> None:
    """Print or write ``result`` in ``format_`` (guessed from ``output``'s suffix)."""
    if format_ is None:
        suffix = (output or "").rsplit(".", 1)[-1].lower() if output and "." in output else ""
        format_ = suffix if suffix in FORMATS else "table"
    if format_ == "parquet":
        if output is None:
            raise click.UsageError("--format parquet needs --output FILE")
        try:
            write_parquet(result, output)
        except OSError as exc:
            _cannot_write(output, exc)
        return
    text = to_text(result, format_, width=shutil.get_terminal_size((120, 24)).columns)
    if output is None:
        click.echo(text)
    else:
        _write_text(output, text + "\n")


def _params(pairs: tuple[str, ...]) -> dict[str, str | None]:
    values: dict[str, str | None] = {}
    for pair in pairs:
        if "=" not in pair:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--param")
        key, value = pair.split("=", 1)
        values[key.strip()] = value
    return values


@click.command("query")
@click.argument("name", required=False)
@click.option("--db", "db", envvar="XQDB_DB", type=click.Path(dir_okay=False),
              help="DuckDB file (env XQDB_DB); not needed for --list.")
@click.option("--param", "-p", "pairs", multiple=True, metavar="KEY=VALUE",
              help="A parameter of the report (repeatable).")
@click.option("--list", "list_", is_flag=True, help="List the reports and their parameters.")
@_output_options
def query_command(name: str | None, db: str | None, pairs: tuple[str, ...], list_: bool,
                  format_: str | None, output: str | None) -> None:
    """Run the named report NAME (its parameters bound, never pasted into the SQL).

    \b
    xqdb query --list --db games.duckdb
    xqdb query openings --db games.duckdb --param by=family --format csv
    """
    if list_ or name is None:
        for query in list_queries():
            click.echo(f"{query.name}: {query.description}")
            for param in query.params:
                default = ("required" if param.required else
                           f"default {param.default}" if param.default else "default none")
                click.echo(f"    {param.name} ({default}): {param.doc}")
        return
    with _database(_needed(db)) as con:
        _emit(run_query(con, name, **_params(pairs)), format_, output)


@click.command("sql")
@click.argument("sql")
@_db_option
@_output_options
def sql_command(sql: str, db: str, format_: str | None, output: str | None) -> None:
    """Run any SQL on the database (read-only).

    \b
    xqdb sql "SELECT year, count(*) FROM games GROUP BY ALL ORDER BY 1" --db games.duckdb
    """
    with _database(db) as con:
        _emit(run_sql(con, sql), format_, output)


@click.group("players", invoke_without_command=True)
@_group_db_option
@click.option("--search", default=None, help="Only players whose name or a spelling "
              "contains this text.")
@click.option("--limit", type=click.IntRange(1), default=100, show_default=True)
@_output_options
@click.pass_context
def players_command(ctx: click.Context, db: str | None, search: str | None, limit: int,
                    format_: str | None, output: str | None) -> None:
    """List the players under their canonical names, with every spelling and its games.

    \b
    xqdb players --db games.duckdb --search 胡荣华
    xqdb players --db games.duckdb alias 上海八建胡榮華 --as 胡荣华
    """
    ctx.obj = db
    if ctx.invoked_subcommand is None:
        with _database(_needed(db)) as con:
            _emit(run_query(con, "players", search=search, limit=str(limit)), format_, output)


@players_command.command("alias")
@click.argument("names", nargs=-1, required=True)
@click.option("--as", "as_", default=None, help="Merge: the player NAMES become (a "
              "canonical name, new or existing).")
@click.option("--split", is_flag=True, help="Split: give each spelling NAMES a player of its "
              "own (named --as, or the spelling itself).")
@click.pass_obj
def alias_command(db: str | None, names: tuple[str, ...], as_: str | None, split: bool) -> None:
    """Merge spellings or players into one player, or split a spelling off.

    NAMES are spellings as written in the records or players' canonical names. The
    correction is kept when the naming rules run again (at the next import).

    \b
    xqdb players --db games.duckdb alias 杨官麟 杨官璘 --as 杨官璘
    xqdb players --db games.duckdb alias --split 伍霞胡榮華 --as 伍霞+胡荣华
    """
    from .db.players import PlayerError, merge, split as split_off

    if not split and as_ is None:
        raise click.UsageError("give --as NAME to merge, or --split")
    with _database(_needed(db), write=True) as con:
        try:
            if split:
                for spelling in names:
                    click.echo(f"{spelling} -> {split_off(con, spelling, as_)}")
            else:
                moved = merge(con, list(names), as_ or "")
                click.echo(f"{len(moved)} spellings -> {as_}: {', '.join(moved)}")
        except PlayerError as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(EXIT_QUERY)


_filters = [
    click.option("--from", "from_year", type=int, default=None, help="First year."),
    click.option("--to", "to_year", type=int, default=None, help="Last year."),
    click.option("--event", default=None, help="Only events containing this text."),
    click.option("--min-games", type=click.IntRange(1), default=1, show_default=True),
    click.option("--sort", type=click.Choice(["games", "score"]), default="games",
                 show_default=True, help="By popularity, or by score."),
    click.option("--by", type=click.Choice(["code", "family", "name"]), default="code",
                 show_default=True, help="ECCO code, family A-E, or traditional name."),
]


def _text(value: object) -> str | None:
    return None if value is None else str(value)


@click.group("openings", invoke_without_command=True)
@_group_db_option
@click.option("--player", default=None, help="A player's canonical name: with --as, only "
              "their games; alone, their repertoire.")
@click.option("--as", "side", type=click.Choice(["red", "black", "either"]), default=None,
              help="With --player: the opening table of their games with this colour "
                   "(instead of the repertoire).")
@_output_options
@click.pass_context
def openings_command(ctx: click.Context, db: str | None, player: str | None, side: str | None,
                     from_year: int | None,
                     to_year: int | None, event: str | None, min_games: int, sort: str,
                     by: str, format_: str | None, output: str | None) -> None:
    """How often each opening was played and how it scored, or a player's repertoire.

    Openings are counted per ECCO code, family A-E or traditional name (--by); with
    --player alone, that player's repertoire as Red and as Black.

    \b
    xqdb openings --db games.duckdb --by family
    xqdb openings --db games.duckdb --from 1990 --to 1999 --min-games 20 --sort score
    xqdb openings --db games.duckdb --player 胡荣华
    xqdb openings --db games.duckdb classify
    xqdb openings --db games.duckdb explain 42
    """
    ctx.obj = db
    if ctx.invoked_subcommand is not None:
        return
    common = dict(by=by, from_year=_text(from_year), to_year=_text(to_year), event=event,
                  min_games=str(min_games), sort=sort)
    with _database(_needed(db)) as con:
        if player is not None and side is None:
            result = run_query(con, "repertoire", player=player, **common)
        else:
            result = run_query(con, "openings", player=player, side=side or "either", **common)
        _emit(result, format_, output)


for _option in reversed(_filters):
    openings_command = _option(openings_command)


@openings_command.command("classify")
@click.pass_obj
def classify_command(db: str | None) -> None:
    """Classify every game of the database again, after a better classifier.

    Each game gets its ECCO code, opening, variation and traditional names anew.

    \b
    xqdb openings --db games.duckdb classify
    """
    from .openings.store import classify_database

    with _database(_needed(db), write=True) as con:
        changed = classify_database(con)
    click.echo(f"{changed:,} games changed their opening classification")


@openings_command.command("explain")
@click.argument("game", type=int)
@click.pass_obj
def explain_command(db: str | None, game: int) -> None:
    """Say which moves gave game GAME (its games.game_id) its ECCO code.

    \b
    xqdb openings --db games.duckdb explain 42
    """
    from .openings.store import explain_game

    with _database(_needed(db)) as con:
        try:
            click.echo(explain_game(con, game))
        except KeyError:
            click.echo(f"Error: no game {game} in {db}", err=True)
            sys.exit(EXIT_QUERY)


@click.command("tree")
@_db_option
@click.option("--moves", default="", help="Moves from the start (or --fen), any notation.")
@click.option("--fen", default=None, help="The position to start from (default: the start).")
@click.option("--notation", type=click.Choice(["chinese", "wxf", "iccs", "uci"]),
              default="chinese", show_default=True, help="How to write the next moves.")
@click.option("--min-games", type=click.IntRange(1), default=1, show_default=True)
@click.option("--with-partial", is_flag=True,
              help="Count invalid games too, with their moves up to the failing one.")
@_output_options
def tree_command(db: str, moves: str, fen: str | None, notation: str, min_games: int,
                 with_partial: bool, format_: str | None, output: str | None) -> None:
    """Every move played from a position, with how often and how well (transpositions merged).

    Each move has its games, share, results, Red's score and average year. Only valid
    games count, unless --with-partial: an invalid game then counts with the moves it
    has before the one its record failed at (a repeated move, a typo), which were played.

    \b
    xqdb tree --db games.duckdb --moves "炮二平五 马8进7"
    xqdb tree --db games.duckdb --moves "h2e2 h9g7" --notation wxf
    """
    from .tree import PositionError, position_key

    try:
        key = position_key(moves, fen)
    except PositionError as exc:
        from .cli import FEN_HINT

        hint = f" ({FEN_HINT})" if str(exc).startswith("bad FEN") else ""
        click.echo(f"Error: {exc}{hint}", err=True)
        sys.exit(EXIT_QUERY)
    with _database(db) as con:
        _emit(run_query(con, "tree", key=str(key), notation=notation,
                        min_games=str(min_games), with_partial="yes" if with_partial else "no"),
              format_, output)


@click.command("report")
@_db_option
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help="The HTML file to write.")
@click.option("--player", default=None, help="The same report for one player's games "
              "(canonical name).")
@click.option("--top", type=click.IntRange(1), default=30, show_default=True,
              help="Openings and lines listed.")
def report_command(db: str, out: str, player: str | None, top: int) -> None:
    """Write the opening report: one HTML file with tables and charts that works offline.

    \b
    xqdb report --db games.duckdb --out report.html
    xqdb report --db games.duckdb --out hu.html --player 胡荣华
    """
    from .report import build_report

    with _database(db) as con:
        page = build_report(con, player=player, top=top)
    _write_text(out, page)
    click.echo(f"wrote {out} ({len(page.encode()):,} bytes)")


#: The commands this module adds to ``xqdb``.
COMMANDS = (query_command, sql_command, players_command, openings_command, tree_command,
            report_command)
