"""The commands that work on positions alone: ``perft`` and ``engine``.

Loading this module loads neither the readers nor the database side: each is imported by
the commands that use it (:mod:`.files`, the others), since together they would triple the
start-up of ``xqdb engine``, which a GUI may start for every game.
"""

from __future__ import annotations

import sys
import time

import click

from ..position import position_after
from ..rules import divide, perft
from ..rules.position import STARTING_FEN


@click.command("perft")
@click.option("--fen", default=STARTING_FEN, show_default="the start position",
              help="Position to count from.")
@click.option("--depth", type=click.IntRange(0, 10), default=3, show_default=True)
@click.option("--divide", "split", is_flag=True, help="Count per first move.")
@click.option("--board", is_flag=True, help="Print the board first.")
def perft_command(fen: str, depth: int, split: bool, board: bool) -> None:
    """Count legal move sequences of DEPTH plies (a move generator check).

    \b
    xqdb perft --depth 4
    xqdb perft --fen "3k5/9/9/9/9/9/9/9/9/4K4 w" --depth 1 --divide
    """
    pos = position_after("", fen)
    if board:
        click.echo(str(pos))
        click.echo(pos.fen())
    start = time.perf_counter()
    if split:
        counts = divide(pos, depth)
        for move in sorted(counts, key=str):
            click.echo(f"{move} {counts[move]}")
        total = sum(counts.values())
    else:
        total = perft(pos, depth)
    elapsed = time.perf_counter() - start
    rate = f" ({total / elapsed:,.0f} nodes/s)" if elapsed > 0.05 else ""
    click.echo(f"perft({depth}) = {total}{rate}")


@click.command("engine")
def engine_command() -> None:
    """Serve the built-in engine over UCI (ranks 0-9) on stdin and stdout.

    \b
    printf 'uci\\nposition startpos\\ngo depth 3\\nquit\\n' | xqdb engine

    It is a weak engine, for when no Fairy-Stockfish or Pikafish is installed.
    """
    from ..engine.server import serve

    serve(sys.stdin, sys.stdout)


#: The commands of this module, in the order ``xqdb --help`` lists them.
COMMANDS = (perft_command, engine_command)
