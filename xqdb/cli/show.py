"""``xqdb show``: one stored game on the terminal (and as an SVG image).

A thin Click wrapper over :mod:`xqdb.browse.show`.
"""

from __future__ import annotations

import os
import sys

import click

from ..errors import NotFoundError
from ..render.terminal import unguarded
from .common import database, db_option, write_text
from ..notation import WRITTEN_NOTATIONS


def _use_color(choice: bool | None) -> bool:
    """Colour when asked, else when standard output is a terminal and NO_COLOR is unset."""
    if choice is not None:
        return choice
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


@click.command("show")
@click.argument("game_id", type=int)
@db_option()
@click.option("--ply", type=click.IntRange(0), default=None,
              help="Show the board after this many plies (0: the start; default: the end).")
@click.option("--notation", type=click.Choice(WRITTEN_NOTATIONS), default="chinese",
              show_default=True, help="How to write the moves.")
@click.option("--svg", "svg", type=click.Path(dir_okay=False), default=None,
              help="Also write the board as an SVG image to this file.")
@click.option("--color/--no-color", "color", default=None,
              help="Red and black in colour (default: on a terminal, unless NO_COLOR is set).")
def show_command(game_id: int, db: str, ply: int | None, notation: str, svg: str | None,
                 color: bool | None) -> None:
    """Show one game: the board in Chinese characters, the moves, tags, opening and analysis.

    \b
    xqdb show --db games.duckdb 42
    xqdb show --db games.duckdb 42 --ply 20 --notation wxf --svg board.svg
    """
    from ..render.board import svg_board

    view = database(db).show(game_id, ply, notation)
    use_color = _use_color(color)
    # In colour, the view makes the record's text visible itself, and the board's codes
    # go past the terminal's guard (which would show them as escapes); without, the
    # guard shows a record's codes as escapes (colour False would have Click drop them).
    click.echo(view.render(color=use_color), color=use_color or None,
               file=unguarded(sys.stdout) if use_color else None)
    if svg is not None:
        if view.position is None:
            raise NotFoundError(f"game {game_id} has no board to draw: its start position "
                                "cannot be set up")
        write_text(svg, svg_board(view.position, view.last))
        click.echo(f"wrote {svg}")


#: The commands this module adds to ``xqdb``.
COMMANDS = (show_command,)
