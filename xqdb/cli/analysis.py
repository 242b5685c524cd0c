"""``xqdb`` commands over engine analysis: ``analyze`` fills the ``evals`` table,
``blunders`` reports the moves its evaluations judge, ``calibrate`` fits the win curves
they are judged by."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from ..db.selection import GameFilter

from ..analysis.games import (
    BUILTIN_DEEP, BUILTIN_FAST, DEFAULT_DEEP, DEFAULT_FAST, RECHECK_LOSS, RECHECK_REVALUED,
    RECHECK_SHIFT, RECHECK_UNSETTLED,
    too_shallow,
)
from ..analysis.calibration import MIN_GAMES, MIN_POSITIONS
from ..analysis.judgement import JUDGEMENTS, LOSS_CLASSES, Thresholds
from ..engine import Limit, choose_engine, parse_options
from ..errors import CannotRunError
from ..engine.dialects import DIALECTS
from ..pipeline.analyze import COMMIT_POSITIONS, COMMIT_SECONDS, PassSummary
from ..render.terminal import unguarded
from .common import (Interrupted, database, db_option, emit, game_filters, output_options,
                     scheduler_option)
from .common import count_range, write_text


def _limit(nodes: int | None, depth: int | None, movetime: int | None) -> Limit | None:
    """The limit given, or ``None`` for the default."""
    given = [v for v in (nodes, depth, movetime) if v is not None]
    if len(given) > 1:
        raise click.UsageError("give one of --nodes, --depth and --movetime")
    if not given:
        return None
    return Limit(depth=depth, nodes=nodes, time=movetime / 1000 if movetime else None)


def _passes(limit: Limit | None, fast: Limit | None, builtin: bool
            ) -> tuple[Limit, Limit | None]:
    """The deep (or only) limit and the fast one: the default two passes unless a limit
    is given (one pass at it, or two with --recheck)."""
    deep_default, fast_default = ((BUILTIN_DEEP, BUILTIN_FAST) if builtin
                                  else (DEFAULT_DEEP, DEFAULT_FAST))
    if limit is None:
        return deep_default, fast or fast_default
    return limit, fast


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
            self.bar = click.progressbar(length=summary.to_search, file=unguarded(sys.stderr),
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
@db_option("DuckDB file to analyse (env XQDB_DB).")
@click.option("--engine", default=None, metavar="PATH|builtin",
              help="Engine to run (default: fairy-stockfish or pikafish if installed, else "
                   "the built-in engine).")
@click.option("--protocol", type=click.Choice(list(DIALECTS)), default=None,
              help="The engine's protocol (default: detected from its greeting).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Engine option, as many as needed (--option Hash=64).")
@click.option("--nodes", type=click.IntRange(1), default=None,
              help="Nodes per position: one pass at this limit (by default two passes: "
                   f"every position at {DEFAULT_FAST.key()}, then {DEFAULT_DEEP.key()} for "
                   "the moves it flags; the built-in engine "
                   f"{BUILTIN_FAST.key()}, then {BUILTIN_DEEP.key()}).")
@click.option("--depth", type=click.IntRange(1), default=None, help="Depth per position.")
@click.option("--movetime", type=click.IntRange(1), default=None, metavar="MS",
              help="Milliseconds per position (not reproducible: prefer --nodes).")
@click.option("-j", "--jobs", type=click.IntRange(1), default=None,
              help="Worker processes, each with its own engine (default: all cores).")
@scheduler_option("Search, one engine per worker thread,")
@game_filters
@click.option("--recheck", default=None, metavar="LIMIT",
              help="Two passes: every position at LIMIT (nodes=2000, depth=6), each game's "
                   "from its end back with the hash kept through the game, then at the "
                   "main limit (given, or the default deep one) only the moves that lost "
                   f"{RECHECK_LOSS:g} of the expected score or more in that pass, and those "
                   "beside a position whose fast search had not settled (the scores of its "
                   f"last depths spanned {RECHECK_UNSETTLED:g} of it or more); then, in "
                   "rounds, the moves beside a position whose deep evaluation moved "
                   f"{RECHECK_SHIFT:g} or more from the fast one, and those beside a move "
                   "judged deeply that lose "
                   f"{RECHECK_REVALUED:g} or more once their positions take the deep "
                   "evaluations.")
@click.option("--keep-hash", is_flag=True,
              help="Let the engine's hash table carry from one search to the next: a few "
                   "percent faster, but an evaluation then depends on the searches before "
                   "it (by default each search starts afresh, reproducibly; the fast pass "
                   "of two clears it as each game starts).")
@click.option("--commit-every", type=click.IntRange(1), default=COMMIT_POSITIONS,
              show_default=True, help="Positions per transaction (at most "
              f"{COMMIT_SECONDS:g} s apart): what an interrupted run can lose.")
@click.option("--dry-run", is_flag=True,
              help="Only count the positions to search and those already evaluated.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar, no summary.")
def analyze_command(db: str, engine: str | None, protocol: str | None,
                    options: tuple[str, ...], nodes: int | None, depth: int | None,
                    movetime: int | None, jobs: int | None, scheduler: str | None,
                    recheck: str | None, keep_hash: bool,
                    commit_every: int, dry_run: bool, quiet: bool, games: GameFilter) -> None:
    """Evaluate every position of the games with an engine, into the evals table.

    \b
    xqdb analyze --db games.duckdb --jobs 2
    xqdb analyze --db games.duckdb --engine builtin --depth 3 --game 12
    xqdb analyze --db games.duckdb --where "year >= 2000" --recheck nodes=2000 --nodes 100000
    xqdb analyze --db games.duckdb --scheduler tcp://10.0.0.1:8786 --nodes 100000

    A position is searched once per engine and limit, whichever games reach it; run
    again, the command searches only what is missing (an interrupted run resumes, failed
    positions are tried again).
    """
    given = _limit(nodes, depth, movetime)
    fast_given = _recheck(recheck)
    games_db = database(db)
    games_db.require()  # before an engine is named or started
    choice = choose_engine(engine, protocol=protocol, options=parse_options(options))
    limit, fast = _passes(given, fast_given, choice.spec.is_builtin())
    if not quiet:
        click.echo(choice.message, err=True)
        warning = too_shallow(limit) if fast is None else None
        if warning is not None:
            click.echo(f"warning: {warning}", err=True)
    logging.basicConfig(level=logging.ERROR if quiet else logging.WARNING,
                        format="%(levelname)s: %(message)s")
    bar = _Bar(not quiet)
    try:
        summary = games_db.analyze(replace(choice.spec, fresh=not keep_hash), limit,
                                   jobs=jobs, games=games, recheck=fast,
                                   started=bar.start, progress=bar.update,
                                   commit_positions=commit_every,
                                   dry_run=dry_run, scheduler=scheduler)
    except KeyboardInterrupt:
        raise Interrupted("what was searched is stored; run the same command to resume"
                          ) from None
    finally:
        bar.finish()
    if not quiet:
        click.echo(str(summary))


_threshold_options = [
    click.option(f"--{name}", type=float, default=None, metavar="LOSS",
                 help=f"Least loss of expected score (0..1) for the class {name} (stored: "
                      f"{getattr(Thresholds(), name):g} unless changed).")
    for name in LOSS_CLASSES
]


def _with_thresholds(command: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(_threshold_options):
        command = option(command)
    return command


@click.command("blunders")
@db_option()
@click.option("--engine", default=None, metavar="NAME|PATH|builtin",
              help="Only the analysis by this engine: the start of its identity "
                   "(Fairy-Stockfish, xqdb built-in) or the engine itself; with --puzzles, "
                   "also the engine that checks them (default: the one installed).")
@game_filters
@click.option("--class", "classes", multiple=True, type=click.Choice(JUDGEMENTS),
              help="Only moves of this class (repeatable).")
@click.option("--min-coverage", type=click.FloatRange(0, 1), default=0.0, metavar="SHARE",
              help="Only games whose moves were judged at least this share of (1: games "
                   "analysed to the end).")
@_with_thresholds
@click.option("--by", type=click.Choice(["move", "game", "player"]), default="move",
              show_default=True, help="The worst moves, each with the engine's move and the "
                                      "position; or per game and side; or per player.")
@click.option("--limit", type=count_range(1), default=20, show_default=True,
              help="Moves listed (--by move).")
@click.option("--puzzles", type=click.Path(dir_okay=False), default=None, metavar="FILE.pgn",
              help="Also write the positions after the serious errors selected where only "
                   "one move keeps the win (checked again with MultiPV 2) as PGN, and say "
                   "why the others are not puzzles.")
@click.option("--puzzle-nodes", type=click.IntRange(1), default=200_000, show_default=True,
              help="Nodes per puzzle check (deeper than the analysis's fast pass).")
@output_options
def blunders_command(db: str, engine: str | None, classes: tuple[str, ...],
                     min_coverage: float, inaccuracy: float | None,
                     mistake: float | None, blunder: float | None, by: str, limit: int,
                     puzzles: str | None, puzzle_nodes: int, format_: str | None,
                     output: str | None, games: GameFilter) -> None:
    """The moves the engine analysis judges worst: per move, per game or per player.

    A move is classed by how much of the mover's expected score it lost (from the engine's
    WDL, or the engine's win curve: see xqdb calibrate): inaccuracy, mistake, blunder; a
    blunder that lets a mate in or throws one away is allowed_mate or missed_mate. The
    serious errors are the blunders and both mate classes. Only games an analysis covered
    count, and a line on stderr says what was counted.

    \b
    xqdb blunders --db games.duckdb
    xqdb blunders --db games.duckdb --player 胡荣华 --by game --format csv
    xqdb blunders --db games.duckdb --game 12 --blunder 0.3 --puzzles puzzles.pgn
    """
    games_db = database(db)
    # --player selects the player's moves; the other filters select games.
    player, others = games.player, replace(games, player=None, side="either")
    selection = games_db.selection(engine, player, None, classes, inaccuracy=inaccuracy,
                                   mistake=mistake, blunder=blunder, games=others,
                                   min_coverage=min_coverage)
    result = games_db.blunders(selection, by, limit)
    for line in games_db.counted(selection):  # what the figures are, before the figures
        click.echo(str(line), err=True)
    if puzzles is not None:
        found = games_db.puzzles(selection, engine, puzzle_nodes)
        click.echo(found.engine, err=True)
        write_text(puzzles, found.pgn())
        click.echo(f"wrote {len(found.puzzles)} puzzles from {found.candidates} blunders to "
                   f"{puzzles}: {found.count}", err=True)
    emit(result, format_, output)


@click.command("calibrate")
@db_option()
@click.option("--engine", default=None, metavar="NAME",
              help="Fit only the engines whose identity starts with this (default: every "
                   "engine analysed).")
@click.option("--min-ply", type=click.IntRange(1), default=20, show_default=True,
              help="Fit on the positions from this ply on (the opening is book, not play).")
@click.option("--min-positions", type=click.IntRange(10), default=MIN_POSITIONS,
              show_default=True, help="Fit no curve from fewer positions.")
@click.option("--min-games", type=click.IntRange(2), default=MIN_GAMES, show_default=True,
              help="Fit no curve from fewer games.")
@click.option("--check", is_flag=True,
              help="Fit nothing: print both checks of each curve in use on the database's "
                   "own analysis.")
@_with_thresholds
def calibrate_command(db: str, engine: str | None, min_ply: int, min_positions: int,
                      min_games: int, check: bool, inaccuracy: float | None,
                      mistake: float | None, blunder: float | None) -> None:
    """Fit each engine's win curve from its analysis of games with known results.

    One game state has one expected score, whoever is to move. The curve has three
    parts: the engine's tempo (what its scores give the side to move for having the
    move), read from its consecutive evaluations so that its own best moves keep the
    mover's expected score on average; and the scale and Red's edge (for moving first),
    fitted on the games' results by maximum likelihood:

    \b
    expected score = 1 / (1 + exp(-((cp - tempo) / scale + sign * edge / scale)))
    for the side to move, sign +1 with Red to move and -1 with Black.

    The curve is fitted on all the games, and stored (with the thresholds given) for
    xqdb blunders and the database's views only if it beats the curve in use on games
    it did not see (each game predicted by a curve fitted on the others, four folds): it
    keeps the best moves level where the curve in use does not, or predicts the results
    better. Both checks are printed, for the fit and for the curve in use: the
    martingale (over the engine's best moves the mover's expected score changes by 0 on
    average, rising after 30-70 % of them) and the calibration (predicted against actual
    score by tenth, for Red to move and Black to move apart; * marks a tenth off by more
    than 0.03).

    \b
    xqdb calibrate --db games.duckdb --engine Fairy-Stockfish
    xqdb calibrate --db games.duckdb --check
    xqdb calibrate --db games.duckdb --blunder 0.25

    Until an engine is fitted, the shipped curve is used (xqdb calibrate --check names
    it, with what it was fitted on).
    """
    if check and (inaccuracy is not None or mistake is not None or blunder is not None):
        raise click.UsageError("--check stores nothing: give the thresholds without it")
    report = database(db).calibrate(engine, min_ply, min_positions, min_games, check=check,
                                    inaccuracy=inaccuracy, mistake=mistake, blunder=blunder)
    for line in report.lines():
        click.echo(line)
    if not check and not report.fitted and report.thresholds is None:
        raise CannotRunError("no curve stored",
                             "analyse more games with results, or lower --min-positions")


#: The commands of this module, in the order ``xqdb --help`` lists them.
COMMANDS = (analyze_command, blunders_command, calibrate_command)
