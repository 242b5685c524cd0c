"""The ``xqdb search`` and ``xqdb export`` commands: thin wrappers over :mod:`xqdb.browse.search`
and :mod:`xqdb.browse.export`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ..db.selection import GameFilter

from ..browse.export import FORMATS as EXPORT_FORMATS
from ..errors import BadArgumentError
from ..notation import WRITTEN_NOTATIONS
from .common import (cannot_write, count_range, database, db_option, emit, game_filters,
                     output_options)

_notations = click.Choice(WRITTEN_NOTATIONS)
#: What a material pattern looks like, for the error that refuses one.
_PATTERN_HINT = ("write counts like 'R2 r1-2 P2+ n0' or balances like 'RNC>rnc'; "
                 "xqdb search --help shows how")


@click.command("search")
@db_option()
@click.option("--fen", default=None, help="The position (with --moves: where they start).")
@click.option("--moves", default=None, help="Moves from the start (or --fen), any notation.")
@click.option("--mirror", is_flag=True, help="Also find the left-right mirror image.")
@click.option("--material", default=None, metavar="PATTERN",
              help="Find a balance of material instead, e.g. 'R1 r1 N0 n0 C0 c0' "
                   "(upper case Red, lower case Black; R2, P1-3, P2+; unnamed: any; "
                   "RNC>rnc compares sums).")
@click.option("--plies", type=count_range(1), default=1, show_default=True,
              help="With --material: for at least this many plies in a row.")
@click.option("--notation", type=_notations, default="chinese", show_default=True,
              help="How to write the move played next.")
@click.option("--limit", type=count_range(1), default=100, show_default=True,
              help="Games listed at most.")
@game_filters
@output_options
def search_command(db: str, fen: str | None, moves: str | None, mirror: bool,
                   material: str | None, plies: int, notation: str, limit: int,
                   format_: str | None, output: str | None, games: GameFilter) -> None:
    """List the games that reached a position, in any move order, or a balance of material.

    Each game is listed once, at the first ply it got there, with its players, result,
    event and date and the move it played next.

    \b
    xqdb search --db games.duckdb --moves "炮二平五 马8进7 马二进三"
    xqdb search --db games.duckdb --moves "h2e2 h9g7" --mirror --format csv
    xqdb search --db games.duckdb --fen "3k5/9/9/9/9/9/9/9/4R4/4K4 w"
    xqdb search --db games.duckdb --material "R1 r0 N0 n1 C0 c0" --plies 6
    xqdb search --db games.duckdb --material "RNC>rnc P<p" --plies 10
    """
    if material is not None:
        if fen is not None or moves is not None or mirror:
            raise click.UsageError("--material searches by material alone: leave out "
                                   "--fen, --moves and --mirror")
        try:
            found = database(db).search_material(material, plies=plies, notation=notation,
                                                 limit=limit, games=games)
        except BadArgumentError as exc:
            exc.hint = exc.hint or _PATTERN_HINT
            raise
    else:
        if fen is None and moves is None:
            raise click.UsageError("give --fen, --moves or --material")
        found = database(db).search(moves or "", fen, mirror=mirror, notation=notation,
                                    limit=limit, games=games)
    emit(found.games, format_, output)
    shown = len(found.games.rows)
    if (format_ in (None, "table") and output is None) or shown < found.total:
        more = f" (--limit {limit} lists {shown})" if shown < found.total else ""
        click.echo(f"{found.total:,} games{more}", err=True)


@click.command("export")
@db_option()
@click.option("--format", "format_", type=click.Choice(list(EXPORT_FORMATS)), default="pgn",
              show_default=True, help="pgn, dhtmlxq (blocks for web viewers), or parquet "
                                      "(a folder of files partitioned by year).")
@click.option("--notation", type=_notations, default=None,
              help="PGN only: how to write the moves (default chinese).")
@click.option("--out", "out", required=True,
              help="The file to write (- for standard output), or for parquet a new folder.")
@game_filters
def export_command(db: str, format_: str, notation: str | None, out: str,
                   games: GameFilter) -> None:
    """Write games out as PGN, DhtmlXQ or Parquet; invalid games are skipped and counted.

    Imported again, a PGN or DhtmlXQ export gives the same games with the same tags.

    \b
    xqdb export --db games.duckdb --out games.pgn
    xqdb export --db games.duckdb --out wxf.pgn --notation wxf --where "year >= 2000"
    xqdb export --db games.duckdb --format dhtmlxq --game 42 --out -
    xqdb export --db games.duckdb --format parquet --out games-parquet
    """
    try:
        summary = database(db).export(out, format_, notation, games=games)
    except BrokenPipeError:
        raise  # the reader of standard output went away: the handler ends quietly
    except OSError as exc:
        raise cannot_write(out, exc) from None
    click.echo(str(summary), err=out == "-")


#: The commands this module adds to ``xqdb``.
COMMANDS = (search_command, export_command)
