"""The report commands of ``xqdb``: query, sql, players, openings, tree and report.

Thin Click wrappers: the reports are the SQL files of ``xqdb/queries/``, run by
:mod:`xqdb.db.queries`; these commands pick the report, bind the options as its
parameters and print the rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ..db.selection import GameFilter

from ..notation.registry import WRITTEN_NOTATIONS

from .common import (count_range, database, db_option, emit, game_filters, output_options,
                     write_text)


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
@db_option("DuckDB file (env XQDB_DB); not needed for --list.", required=False)
@click.option("--param", "-p", "pairs", multiple=True, metavar="KEY=VALUE",
              help="A parameter of the report (repeatable).")
@click.option("--list", "list_", is_flag=True, help="List the reports and their parameters.")
@game_filters
@output_options
def query_command(name: str | None, db: str | None, pairs: tuple[str, ...], list_: bool,
                  format_: str | None, output: str | None, games: GameFilter) -> None:
    """Run the named report NAME (its parameters bound, never pasted into the SQL).

    \b
    xqdb query --list --db games.duckdb
    xqdb query openings --db games.duckdb --param by=family --format csv
    """
    if list_ or name is None:
        from ..db.queries import list_queries

        for query in list_queries():
            click.echo(f"{query.name}: {query.description}")
            for param in query.params:
                default = ("required" if param.required else
                           f"default {param.default}" if param.default else "default none")
                click.echo(f"    {param.name} ({default}): {param.doc}")
        return
    emit(database(db).query(name, games, **_params(pairs)), format_, output)


@click.command("sql")
@click.argument("sql")
@db_option()
@output_options
def sql_command(sql: str, db: str, format_: str | None, output: str | None) -> None:
    """Run any SQL on the database (read-only).

    \b
    xqdb sql "SELECT year, count(*) FROM games GROUP BY ALL ORDER BY 1" --db games.duckdb
    """
    emit(database(db).sql(sql), format_, output)


@click.group("players", invoke_without_command=True)
@db_option(required=False)
@click.option("--search", default=None, help="Only players whose name or a spelling "
              "contains this text.")
@click.option("--limit", type=count_range(1), default=100, show_default=True)
@output_options
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
        emit(database(db).players(search, limit), format_, output)


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
    if not split and as_ is None:
        raise click.UsageError("give --as NAME to merge, or --split")
    players = database(db)
    if split:
        for spelling in names:
            click.echo(f"{spelling} -> {players.split_spelling(spelling, as_)}")
    else:
        moved = players.alias(names, as_ or "")
        click.echo(f"{len(moved)} spellings -> {as_}: {', '.join(moved)}")


_filters = [
    click.option("--min-games", type=count_range(1), default=1, show_default=True),
    click.option("--sort", type=click.Choice(["games", "score"]), default="games",
                 show_default=True, help="By popularity, or by score."),
    click.option("--by", type=click.Choice(["code", "family", "name"]), default="code",
                 show_default=True, help="ECCO code, family A-E, or traditional name."),
]


@click.group("openings", invoke_without_command=True)
@db_option(required=False)
@game_filters
@click.option("--as", "as_side", type=click.Choice(["red", "black", "either"]), default=None,
              help="With --player: the opening table of their games with this colour "
                   "(instead of the repertoire).")
@output_options
@click.pass_context
def openings_command(ctx: click.Context, db: str | None, as_side: str | None,
                     min_games: int, sort: str, by: str, format_: str | None,
                     output: str | None, games: GameFilter) -> None:
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
    side = as_side or (None if games.side == "either" else games.side)
    emit(database(db).openings(None, side, by=by, min_games=min_games, sort=sort,
                               games=games), format_, output)


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
    changed = database(db).classify()
    click.echo(f"{changed:,} games changed their opening classification")


@openings_command.command("explain")
@click.argument("game", type=int)
@click.pass_obj
def explain_command(db: str | None, game: int) -> None:
    """Say which moves gave game GAME (its games.game_id) its ECCO code.

    \b
    xqdb openings --db games.duckdb explain 42
    """
    click.echo(database(db).explain(game))


@click.command("tree")
@db_option()
@click.option("--moves", default="", help="Moves from the start (or --fen), any notation.")
@click.option("--fen", default=None, help="The position to start from (default: the start).")
@click.option("--notation", type=click.Choice(WRITTEN_NOTATIONS),
              default="chinese", show_default=True, help="How to write the next moves.")
@click.option("--min-games", type=count_range(1), default=1, show_default=True)
@click.option("--mirror/--no-mirror", default=True, show_default=True,
              help="Count the moves from the mirror image with their mirror (炮八平五 as "
                   "炮二平五), or keep them apart.")
@click.option("--top-games", type=count_range(0), default=3, show_default=True,
              help="Games listed per move (the latest first).")
@click.option("--with-partial", is_flag=True,
              help="Count invalid games too, with their moves up to the failing one.")
@game_filters
@output_options
def tree_command(db: str, moves: str, fen: str | None, notation: str, min_games: int,
                 mirror: bool, top_games: int, with_partial: bool, format_: str | None,
                 output: str | None, games: GameFilter) -> None:
    """Every move played from a position, with how often and how well (transpositions merged).

    Each move has its games, share, results, Red's score and average year. Only valid
    games count, unless --with-partial: an invalid game then counts with the moves it
    has before the one its record failed at (a repeated move, a typo), which were played.

    \b
    xqdb tree --db games.duckdb --moves "炮二平五 马8进7"
    xqdb tree --db games.duckdb --moves "h2e2 h9g7" --notation wxf
    """
    emit(database(db).tree(moves, fen, notation=notation, min_games=min_games, mirror=mirror,
                           games=games, top_games=top_games,
                           with_partial=with_partial), format_, output)


@click.command("report")
@db_option()
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help="The HTML file to write.")
@click.option("--top", type=count_range(1), default=30, show_default=True,
              help="Openings and lines listed.")
@game_filters
def report_command(db: str, out: str, top: int, games: GameFilter) -> None:
    """Write the opening report: one HTML file with tables and charts that works offline.

    \b
    xqdb report --db games.duckdb --out report.html
    xqdb report --db games.duckdb --out hu.html --player 胡荣华
    """
    page = database(db).report(top=top, games=games)
    write_text(out, page)
    click.echo(f"wrote {out} ({len(page.encode()):,} bytes)")


#: The commands this module adds to ``xqdb``.
COMMANDS = (query_command, sql_command, players_command, openings_command, tree_command,
            report_command)
