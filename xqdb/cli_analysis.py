"""``xqdb`` commands over engine analysis: ``analyze`` fills the ``evals`` table,
``blunders`` reports the moves its evaluations judge, ``calibrate`` fits the win curves
they are judged by."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any, NoReturn

import click

from .analyser import (
    COMMIT_POSITIONS, COMMIT_SECONDS, AnalysisError, PassSummary, analyse_database,
)
from .cli_reports import (
    _database, _db_option, _emit, _output_options, _scheduler_option, _write_text,
)
from .db.queries import Result
from .db.schema import DatabaseError, require_database
from .engine import EngineError, Limit, SupervisedEngine, choose_engine, parse_options
from .engine.analysis import JUDGEMENTS, Thresholds
from .engine.calibration import CalibrationError, database_samples, fit_win_curve
from .engine.dialects import DIALECTS
from .engine.judgement import (
    LOSS_CLASSES, MOVE_COLUMNS, Selection, StoredCurve, analysed_engines, check_thresholds,
    game_report, player_report, store_curves, store_thresholds, stored_curve,
    stored_thresholds, worst_moves,
)
from .engine.puzzles import find_puzzles, puzzle_pgn
from .parallel import ExecutorError


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
@_scheduler_option("Search, one engine per worker thread,")
@click.option("--where", default=None, metavar="SQL",
              help="Only the games this condition on the games table selects.")
@click.option("--game", "games", type=int, multiple=True, metavar="ID",
              help="Only this game (games.game_id), as many as needed.")
@click.option("--recheck", default=None, metavar="LIMIT",
              help="Two passes: every position at LIMIT (nodes=2000, depth=6), then at the "
                   "main limit only the moves that pass flags and their neighbours.")
@click.option("--keep-hash", is_flag=True,
              help="Let the engine's hash table carry from one search to the next: a few "
                   "percent faster, but an evaluation then depends on the searches before "
                   "it (by default each search starts afresh, reproducibly).")
@click.option("--commit-every", type=click.IntRange(1), default=COMMIT_POSITIONS,
              show_default=True, help="Positions per transaction (at most "
              f"{COMMIT_SECONDS:g} s apart): what an interrupted run can lose.")
@click.option("--dry-run", is_flag=True,
              help="Only count the positions to search and those already evaluated.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar, no summary.")
def analyze_command(db: str, engine: str | None, protocol: str | None,
                    options: tuple[str, ...], nodes: int | None, depth: int | None,
                    movetime: int | None, jobs: int | None, scheduler: str | None,
                    where: str | None,
                    games: tuple[int, ...], recheck: str | None, keep_hash: bool,
                    commit_every: int, dry_run: bool, quiet: bool) -> None:
    """Evaluate every position of the games with an engine, into the evals table.

    \b
    xqdb analyze --db games.duckdb --nodes 20000 --jobs 2
    xqdb analyze --db games.duckdb --engine builtin --depth 3 --game 12
    xqdb analyze --db games.duckdb --where "year >= 2000" --recheck nodes=2000 --nodes 100000
    xqdb analyze --db games.duckdb --scheduler tcp://10.0.0.1:8786 --nodes 100000

    A position is searched once per engine and limit, whichever games reach it; run
    again, the command searches only what is missing (an interrupted run resumes, failed
    positions are tried again).
    """
    from .cli import EXIT_DATABASE, EXIT_INPUT, EXIT_INTERRUPTED, exit_cluster_failure

    if where and games:
        raise click.UsageError("give --where or --game, not both")
    limit = _limit(nodes, depth, movetime)
    fast = _recheck(recheck)
    try:
        require_database(db)  # before an engine is named or started
    except DatabaseError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_DATABASE)
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
        summary = analyse_database(db, replace(choice.spec, fresh=not keep_hash), limit,
                                   jobs=jobs, where=where, game_ids=games, recheck=fast,
                                   started=bar.start, progress=bar.update,
                                   commit_positions=commit_every,
                                   dry_run=dry_run, scheduler=scheduler)
    except DatabaseError as exc:
        bar.finish()
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_DATABASE)
    except (AnalysisError, EngineError) as exc:
        bar.finish()
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_INPUT)
    except ExecutorError as exc:
        bar.finish()
        exit_cluster_failure(exc)
    except KeyboardInterrupt:
        bar.finish()
        click.echo("Interrupted: what was searched is stored; run the same command to resume.",
                   err=True)
        sys.exit(EXIT_INTERRUPTED)
    bar.finish()
    if not quiet:
        click.echo(str(summary))


def _fail(message: str, hint: str | None = None) -> NoReturn:
    """Print a one-line error (with its hint in brackets) and exit with EXIT_INPUT: the user
    asked for something the database does not hold, or gave settings that cannot be used."""
    from .cli import EXIT_INPUT, fail

    fail(message, hint, EXIT_INPUT)


def _thresholds(con: Any, inaccuracy: float | None, mistake: float | None,
                blunder: float | None) -> Thresholds | None:
    """The thresholds given on the command line, the others as stored; ``None`` if none."""
    if inaccuracy is None and mistake is None and blunder is None:
        return None
    stored = stored_thresholds(con)
    given = Thresholds(stored.inaccuracy if inaccuracy is None else inaccuracy,
                       stored.mistake if mistake is None else mistake,
                       stored.blunder if blunder is None else blunder)
    try:
        return check_thresholds(given)
    except ValueError as exc:
        _fail(str(exc), "for example --inaccuracy 0.05 --mistake 0.1 --blunder 0.2")


def _engine_prefix(con: Any, engine: str | None) -> str | None:
    """The start of the ``evals.engine`` identities ``--engine`` selects: the text itself
    when an identity starts with it, else the name of the engine it runs."""
    analysed = analysed_engines(con)
    if not analysed:
        _fail("the database holds no engine analysis",
              "run 'xqdb analyze --db FILE' first")
    if engine is None or any(name.startswith(engine) for name in analysed):
        return engine
    try:
        with SupervisedEngine(choose_engine(engine).spec) as running:
            name = running.name
    except EngineError:
        name = None
    if name is None or not any(a.startswith(name) for a in analysed):
        _fail(f"no analysis by engine {engine!r} in the database",
              "the engines analysed: " + "; ".join(analysed))
    return name


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
@_db_option
@click.option("--engine", default=None, metavar="NAME|PATH|builtin",
              help="Only the analysis by this engine: the start of its identity "
                   "(Fairy-Stockfish, xqdb built-in) or the engine itself; with --puzzles, "
                   "also the engine that checks them (default: the one installed).")
@click.option("--player", default=None, help="Only this player's moves (canonical name).")
@click.option("--game", type=int, default=None, metavar="ID", help="Only this game "
              "(games.game_id).")
@click.option("--class", "classes", multiple=True, type=click.Choice(JUDGEMENTS),
              help="Only moves of this class (repeatable).")
@_with_thresholds
@click.option("--by", type=click.Choice(["move", "game", "player"]), default="move",
              show_default=True, help="The worst moves, each with the engine's move and the "
                                      "position; or per game and side; or per player.")
@click.option("--limit", type=click.IntRange(1), default=20, show_default=True,
              help="Moves listed (--by move).")
@click.option("--puzzles", type=click.Path(dir_okay=False), default=None, metavar="FILE.pgn",
              help="Also write the positions after the blunders selected where only one "
                   "move wins (checked with MultiPV 2) as PGN.")
@click.option("--puzzle-nodes", type=click.IntRange(1), default=100_000, show_default=True,
              help="Nodes per puzzle check.")
@_output_options
def blunders_command(db: str, engine: str | None, player: str | None, game: int | None,
                     classes: tuple[str, ...], inaccuracy: float | None,
                     mistake: float | None, blunder: float | None, by: str, limit: int,
                     puzzles: str | None, puzzle_nodes: int, format_: str | None,
                     output: str | None) -> None:
    """The moves the engine analysis judges worst: per move, per game or per player.

    A move is classed by how much of the mover's expected score it lost (from the engine's
    WDL, or the engine's win curve: see xqdb calibrate): inaccuracy, mistake, blunder, and
    missed_mate or allowed_mate on their own.

    \b
    xqdb blunders --db games.duckdb
    xqdb blunders --db games.duckdb --player 胡荣华 --by game --format csv
    xqdb blunders --db games.duckdb --game 12 --blunder 0.3 --puzzles puzzles.pgn
    """
    with _database(db) as con:
        if player is not None and con.execute(
                "SELECT 1 FROM players WHERE name = ?", [player]).fetchone() is None:
            _fail(f"no player named {player!r}", "xqdb players --db FILE --search NAME")
        if game is not None and con.execute(
                "SELECT 1 FROM games WHERE game_id = ?", [game]).fetchone() is None:
            _fail(f"no game {game} in {db}")
        selection = Selection(_engine_prefix(con, engine), game, player, classes,
                              _thresholds(con, inaccuracy, mistake, blunder))
        if by == "player":
            report = player_report(con, selection)
            result = Result(report.columns, report.rows)
        elif by == "game":
            report = game_report(con, selection)
            result = Result(report.columns, report.rows)
        else:
            result = Result(list(MOVE_COLUMNS),
                            [m.row() for m in worst_moves(con, selection, limit)])
        if puzzles is not None:
            _write_puzzles(con, selection, engine, puzzle_nodes, puzzles)
    _emit(result, format_, output)


def _write_puzzles(con: Any, selection: Selection, engine: str | None, nodes: int,
                   path: str) -> None:
    if not selection.classes:
        selection = replace(selection, classes=("blunder", "allowed_mate"))
    candidates = worst_moves(con, selection, None)
    try:
        choice = choose_engine(engine)
    except EngineError:
        choice = choose_engine(None)
    click.echo(choice.message, err=True)
    with SupervisedEngine(choice.spec) as running:
        curve = stored_curve(con, running.identity)
        found = list(find_puzzles(running, Limit(nodes=nodes), candidates, curve))
    _write_text(path, "\n".join(puzzle_pgn(p, n) for n, p in enumerate(found, 1)))
    click.echo(f"wrote {len(found)} puzzles from {len(candidates)} blunders to {path}",
               err=True)


@click.command("calibrate")
@_db_option
@click.option("--engine", default=None, metavar="NAME",
              help="Fit only the engines whose identity starts with this (default: every "
                   "engine analysed).")
@click.option("--min-ply", type=click.IntRange(1), default=20, show_default=True,
              help="Use the positions from this ply on (the opening is book, not play).")
@click.option("--min-positions", type=click.IntRange(10), default=200, show_default=True,
              help="Fit no curve from fewer positions.")
@_with_thresholds
def calibrate_command(db: str, engine: str | None, min_ply: int, min_positions: int,
                      inaccuracy: float | None, mistake: float | None,
                      blunder: float | None) -> None:
    """Fit each engine's win curve from its analysis of games with known results.

    The curve is stored (with the thresholds given) for xqdb blunders and the database's
    views.

    \b
    xqdb calibrate --db games.duckdb --engine Fairy-Stockfish
    xqdb calibrate --db games.duckdb --blunder 0.25

    The curve: expected score = 1 / (1 + exp(-(cp - offset) / scale)) for the side to
    move, fitted by maximum likelihood. Until an engine is fitted, the shipped curve is
    used (Fairy-Stockfish: offset 52, scale 145).
    """
    with _database(db, write=True) as con:
        thresholds = _thresholds(con, inaccuracy, mistake, blunder)
        if thresholds is not None:
            store_thresholds(con, thresholds)
            click.echo("thresholds: " + ", ".join(
                f"{name} {getattr(thresholds, name):g}" for name in LOSS_CLASSES))
        engines = [e for e in analysed_engines(con) if engine is None or e.startswith(engine)]
        if not engines:
            if thresholds is not None:
                return
            _fail(f"no analysis{' by ' + repr(engine) if engine else ''} in {db} to fit",
                  "run 'xqdb analyze --db FILE' first, on games with results")
        fitted = 0
        for name in engines:
            samples = database_samples(con, name, min_ply)
            if len(samples) < min_positions:
                click.echo(f"{name}: {len(samples):,} positions with a known result from ply "
                           f"{min_ply} on, fewer than {min_positions}: not fitted")
                continue
            try:
                fit = fit_win_curve(samples)
            except CalibrationError as exc:
                click.echo(f"{name}: {exc}: not fitted")
                continue
            store_curves(con, [StoredCurve(name, fit.curve, fit.positions, fit.log_loss,
                                           f"{db}, positions from ply {min_ply}")])
            click.echo(f"{name}: {fit}")
            fitted += 1
    if not fitted and thresholds is None:
        _fail("no curve fitted", "analyse more games with results, or lower --min-positions")


#: The commands of this module, in the order ``xqdb --help`` lists them.
COMMANDS = (analyze_command, blunders_command, calibrate_command)
