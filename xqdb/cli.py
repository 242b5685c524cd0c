"""The ``xqdb`` command line: thin Click wrappers over the library."""

from __future__ import annotations

import time

import click

from .rules import Position, divide, perft
from .rules.position import FenError, STARTING_FEN


@click.group()
@click.version_option(package_name="xqdb")
def cli() -> None:
    """Xiangqi game databases: import, validate, classify and analyse game records."""


@cli.command("perft")
@click.option("--fen", default=STARTING_FEN, show_default="the start position",
              help="Position to count from.")
@click.option("--depth", type=click.IntRange(0, 10), default=3, show_default=True)
@click.option("--divide", "split", is_flag=True, help="Count per first move.")
@click.option("--board", is_flag=True, help="Print the board first.")
def perft_command(fen: str, depth: int, split: bool, board: bool) -> None:
    """Count legal move sequences of DEPTH plies (a move generator check)."""
    try:
        pos = Position.from_fen(fen)
    except FenError as exc:
        raise click.ClickException(f"bad FEN: {exc}") from None
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
