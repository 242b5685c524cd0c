"""``xqdb`` commands over engine analysis: ``analyze`` fills the ``evals`` table."""

from __future__ import annotations

import logging
import sys
from typing import Any

import click

from .analyser import (
    COMMIT_POSITIONS, COMMIT_SECONDS, AnalysisError, PassSummary, analyse_database,
)
from .db.schema import DatabaseError
from .engine import EngineError, Limit, choose_engine, parse_options
from .engine.dialects import DIALECTS


def _limit(nodes: int | None, depth: int | None, movetime: int | None) -> Limit:
    given = [v for v in (nodes, depth, movetime) if v is not None]
    if len(given) > 1:
        raise click.UsageError("give one of --nodes, --depth and --movetime")
    if not given:
        nodes = 20_000
    return Limit(depth=depth, nodes=nodes, time=movetime / 1000 if movetime else None)


def _recheck(text: str | None) -> Limit | None:
    if text is None:
        return None
    try:
        return Limit.parse(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--recheck") from None


class _Bar:
    """A positions bar on stderr, with positions per second and an ETA, one per pass."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.bar: Any = None
        self.shown = 0

    def start(self, summary: PassSummary) -> None:
        self.finish()
        if self.enabled and summary.to_search:
            self.bar = click.progressbar(length=summary.to_search, file=sys.stderr,
                                         label=f"analysing at {summary.limit}",
                                         show_pos=True, show_eta=True)
            self.bar.render_progress()
            self.shown = 0

    def update(self, summary: PassSummary) -> None:
        if self.bar is None:
            return
        rate = summary.searched / summary.seconds if summary.seconds > 0 else 0.0
        self.bar.label = (f"{summary.limit}: {rate:,.1f} positions/s, "
                          f"{summary.failed:,} failed")
        self.bar.update(summary.searched - self.shown)
        self.shown = summary.searched

    def finish(self) -> None:
        if self.bar is not None:
            self.bar.render_finish()
            self.bar = None


@click.command("analyze")
@click.option("--db", "db", required=True, envvar="XQDB_DB", type=click.Path(dir_okay=False),
              help="DuckDB file to analyse (env XQDB_DB).")
@click.option("--engine", default=None, metavar="PATH|builtin",
              help="Engine to run (default: fairy-stockfish or pikafish if installed, else "
                   "the built-in engine).")
@click.option("--protocol", type=click.Choice(list(DIALECTS)), default=None,
              help="The engine's protocol (default: detected from its greeting).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Engine option, as many as needed (--option Hash=64).")
@click.option("--nodes", type=click.IntRange(1), default=None,
              help="Nodes per position (the default: 20000).")
@click.option("--depth", type=click.IntRange(1), default=None, help="Depth per position.")
@click.option("--movetime", type=click.IntRange(1), default=None, metavar="MS",
              help="Milliseconds per position (not reproducible: prefer --nodes).")
@click.option("-j", "--jobs", type=click.IntRange(1), default=None,
              help="Worker processes, each with its own engine (default: all cores).")
@click.option("--where", default=None, metavar="SQL",
              help="Only the games this condition on the games table selects.")
@click.option("--game", "games", type=int, multiple=True, metavar="ID",
              help="Only this game (games.game_id), as many as needed.")
@click.option("--recheck", default=None, metavar="LIMIT",
              help="Two passes: every position at LIMIT (nodes=2000, depth=6), then at the "
                   "main limit only the moves that pass flags and their neighbours.")
@click.option("--commit-every", type=click.IntRange(1), default=COMMIT_POSITIONS,
              show_default=True, help="Positions per transaction (at most "
              f"{COMMIT_SECONDS:g} s apart): what an interrupted run can lose.")
@click.option("--dry-run", is_flag=True,
              help="Only count the positions to search and those already evaluated.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar, no summary.")
def analyze_command(db: str, engine: str | None, protocol: str | None,
                    options: tuple[str, ...], nodes: int | None, depth: int | None,
                    movetime: int | None, jobs: int | None, where: str | None,
                    games: tuple[int, ...], recheck: str | None, commit_every: int,
                    dry_run: bool, quiet: bool) -> None:
    """Evaluate every position of the games with an engine, into the evals table.

    \b
    xqdb analyze --db games.duckdb --nodes 20000 --jobs 2
    xqdb analyze --db games.duckdb --engine builtin --depth 3 --game 12
    xqdb analyze --db games.duckdb --where "year >= 2000" --recheck nodes=2000 --nodes 100000

    A position is searched once per engine and limit, whichever games reach it; run
    again, the command searches only what is missing (an interrupted run resumes, failed
    positions are tried again).
    """
    from .cli import EXIT_DATABASE, EXIT_INPUT, EXIT_INTERRUPTED

    if where and games:
        raise click.UsageError("give --where or --game, not both")
    limit = _limit(nodes, depth, movetime)
    fast = _recheck(recheck)
    try:
        choice = choose_engine(engine, protocol=protocol, options=parse_options(options))
    except (EngineError, ValueError) as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_INPUT)
    if not quiet:
        click.echo(choice.message, err=True)
    logging.basicConfig(level=logging.ERROR if quiet else logging.WARNING,
                        format="%(levelname)s: %(message)s")
    bar = _Bar(not quiet)
    try:
        summary = analyse_database(db, choice.spec, limit, jobs=jobs, where=where,
                                   game_ids=games, recheck=fast, started=bar.start,
                                   progress=bar.update, commit_positions=commit_every,
                                   dry_run=dry_run)
    except DatabaseError as exc:
        bar.finish()
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_DATABASE)
    except (AnalysisError, EngineError) as exc:
        bar.finish()
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_INPUT)
    except KeyboardInterrupt:
        bar.finish()
        click.echo("Interrupted: what was searched is stored; run the same command to resume.",
                   err=True)
        sys.exit(EXIT_INTERRUPTED)
    bar.finish()
    if not quiet:
        click.echo(str(summary))


#: The commands of this module, in the order ``xqdb --help`` lists them.
COMMANDS = (analyze_command,)
