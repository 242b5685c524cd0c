"""The ``xqdb`` command line: thin Click wrappers over the library.

The library raises typed exceptions; the exit codes are decided here, and documented in
the README.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

import click

from .errors import FenError
from .position import Position
from .rules import divide, perft
from .rules.position import STARTING_FEN
from .formats import formats
from .formats.sources import Source, no_such_path, walk
from .reading import SHOW_NOTATIONS, format_game, nth_record, summarize
from .parallel import ExecutorError

# The database side (DuckDB, Arrow) is imported by the commands that use it: loading it
# would triple the start-up of ``xqdb engine``, which a GUI may start for every game.
if TYPE_CHECKING:
    from .importer import ImportSummary, UnitResult

#: Exit codes of a run that failed as a whole (Click itself uses 1 for errors and 2 for
#: usage): nothing to read or a setting that cannot be used, and a database that cannot
#: be used.
EXIT_INPUT = 3
EXIT_DATABASE = 4
#: The cluster could not run the work: no scheduler or worker, a worker missing an
#: input or xqdb, tasks lost too often.
EXIT_CLUSTER = 5
#: The hint after a FEN that cannot be read.
FEN_HINT = f"the start position reads {STARTING_FEN.split(' - ')[0]}"
#: Ctrl-C, as shells report a process ended by SIGINT.
EXIT_INTERRUPTED = 130
#: ``xqdb read`` exits with this when a record is invalid (and with EXIT_INPUT when the
#: paths hold no record at all).
EXIT_INVALID = 1


def fail(message: str, hint: str | None, code: int) -> NoReturn:
    """Report a mistake the user can mend the way every command does, on one line
    (``Error: message (hint)``), and exit with ``code``."""
    click.echo(f"Error: {message}" + (f" ({hint})" if hint else ""), err=True)
    sys.exit(code)


def exit_cluster_failure(exc: ExecutorError) -> NoReturn:
    """Say why the cluster could not run the work, and what to do, then exit."""
    fail(str(exc), exc.hint, EXIT_CLUSTER)


class _Group(click.Group):
    """The ``xqdb`` group: a usage error is one line with its hint, as every other error.

    Usage errors come from parsing, here or in a subcommand (which this group invokes),
    so both are caught here; everything else is Click's standalone handling.

    The commands of other modules (:func:`_add_report_commands`), and the database side
    they load, are added only when one of them is asked for or the commands are listed.
    """

    _added = False

    def main(self, *args: Any, **kwargs: Any) -> Any:
        # Run as `python -m xqdb` or from a script, the command is still called xqdb.
        if len(args) < 2:
            kwargs["prog_name"] = kwargs.get("prog_name") or "xqdb"
        # SIGTERM (a service manager, `kill`) stops a command as Ctrl-C does, so what it
        # cleans up on the way out (its note beside the database, its spool) is cleaned.
        signal.signal(signal.SIGTERM, _terminated)
        return super().main(*args, **kwargs)

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:
            _usage_error(exc)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            _usage_error(exc)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and not _Group._added:
            self._add()
            command = super().get_command(ctx, cmd_name)
        return command

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._add()
        return super().list_commands(ctx)

    def _add(self) -> None:
        if not _Group._added:
            _Group._added = True
            _add_report_commands()


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _usage_error(exc: click.UsageError) -> NoReturn:
    path = exc.ctx.command_path if exc.ctx is not None else "xqdb"
    click.echo(f"Error: {exc.format_message()} (see '{path} --help')", err=True)
    sys.exit(exc.exit_code)


class _DefaultFromLibrary(click.Option):
    """An option whose default is a callable taking it from a module loaded when the
    command runs; ``--help`` shows the value (loading the module then) instead of
    ``(dynamic)``."""

    def get_default(self, ctx: click.Context, call: bool = True) -> Any:
        return super().get_default(ctx, call=True)


def _commit_records() -> int:
    from .importer import COMMIT_RECORDS
    return COMMIT_RECORDS


def _scheduler_option(doing: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--scheduler`` (env ``XQDB_SCHEDULER``); ``doing`` says what the workers do."""
    return click.option("--scheduler", default=None, envvar="XQDB_SCHEDULER",
                        metavar="tcp://HOST:8786",
                        help=f"{doing} on the workers of this Dask cluster instead of local "
                             "processes (env XQDB_SCHEDULER; needs xqdb[cluster]).")


@click.group(cls=_Group)
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
    """Count legal move sequences of DEPTH plies (a move generator check).

    \b
    xqdb perft --depth 4
    xqdb perft --fen "3k5/9/9/9/9/9/9/9/9/4K4 w" --depth 1 --divide
    """
    try:
        pos = Position.from_fen(fen)
    except FenError as exc:
        raise click.ClickException(f"bad FEN: {exc} ({FEN_HINT})") from None
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


def _logging(verbose: int, quiet: bool, log_file: str | None) -> list[logging.Handler]:
    """Send xqdb's log records to stderr (and ``log_file``); returns the handlers added."""
    level = logging.ERROR if quiet else (logging.WARNING, logging.INFO)[min(verbose, 1)]
    if verbose >= 2:
        level = logging.DEBUG
    console = logging.StreamHandler()
    console.setLevel(level)
    console.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    handlers: list[logging.Handler] = [console]
    if log_file:
        to_file = logging.FileHandler(log_file, encoding="utf-8")
        to_file.setLevel(logging.DEBUG if verbose >= 2 else logging.INFO)
        to_file.setFormatter(logging.Formatter(
            "%(asctime)s %(processName)s %(levelname)s %(name)s: %(message)s"))
        handlers.append(to_file)
    root = logging.getLogger()
    root.setLevel(min(h.level for h in handlers))
    for handler in handlers:
        root.addHandler(handler)
    return handlers


def _progress_bar(paths: tuple[str, ...], enabled: bool, follow_links: bool) -> Any:
    """A bytes-and-games bar on stderr when it is a terminal (``None`` otherwise)."""
    if not enabled or not sys.stderr.isatty():
        return None
    total = None
    if "-" not in paths:
        total = sum(s.size for s in walk(paths, follow_links=follow_links)
                    if isinstance(s, Source)) or None
    return click.progressbar(length=total, label="importing", file=sys.stderr,
                             show_pos=False, show_percent=True, show_eta=True)


@cli.command("import")
@click.argument("paths", nargs=-1)
@click.option("--db", "db", required=True, envvar="XQDB_DB", type=click.Path(dir_okay=False),
              help="DuckDB file to create or add to (env XQDB_DB).")
@click.option("-j", "--jobs", type=click.IntRange(1), default=None,
              help="Worker processes (default: all cores).")
@_scheduler_option("Read and replay")
@click.option("--send-inputs", is_flag=True,
              help="With --scheduler: send the inputs' bytes to the workers, for workers "
                   "that do not share the input paths.")
@click.option("--format", "format_", default=None, help="Read every source as this format.")
@click.option("--encoding", default=None, help="Text encoding (default: detected).")
@click.option("--force", is_flag=True,
              help="Read every source again, replacing the rows stored from it before.")
@click.option("--follow-links", is_flag=True,
              help="Follow links inside folders even where they lead out of the folder.")
@click.option("--memory-limit", default=None, metavar="SIZE",
              help="DuckDB's memory, as 2GB, 512MB or 10% of the RAM (default: 10%, "
                   "at least 256MiB).")
@click.option("--commit-every", type=click.IntRange(1), default=_commit_records,
              show_default=True, cls=_DefaultFromLibrary,
              help="Records per transaction (at least).")
@click.option("--log-file", type=click.Path(dir_okay=False), help="Also log to this file.")
@click.option("-v", "--verbose", count=True, help="Say more (-vv for debug).")
@click.option("-q", "--quiet", is_flag=True, help="Only errors; no progress bar or summary.")
def import_command(paths: tuple[str, ...], db: str, jobs: int | None, scheduler: str | None,
                   send_inputs: bool, format_: str | None,
                   encoding: str | None, force: bool, follow_links: bool,
                   memory_limit: str | None, commit_every: int, log_file: str | None,
                   verbose: int, quiet: bool) -> None:
    """Import game records from files, folders and archives (PATH ... or - for stdin).

    \b
    xqdb import sample_games --db games.duckdb
    xqdb import big.zip more/ --db games.duckdb --jobs 2 --log-file import.log
    xqdb import old/ --db games.duckdb --encoding big5 --force
    xqdb import /shared/games --db games.duckdb --scheduler tcp://10.0.0.1:8786

    Bad records are stored as invalid games with their reason; the exit code is 0
    whenever the import ran. Importing the same files again adds nothing, but reads
    again the sources that could not be read; --force reads every source again.
    """
    from .importer import InputError, StorageError, import_paths

    handlers = _logging(verbose, quiet, log_file)
    bar = _progress_bar(paths, not quiet, follow_links)
    started = time.perf_counter()

    read = [0, 0]  # records and invalid records replayed so far, committed or not

    def progress(unit: UnitResult, summary: ImportSummary) -> None:
        read[0] += unit.records
        read[1] += unit.invalid
        rate = read[0] / max(time.perf_counter() - started, 1e-9)
        bar.label = f"{read[0]:,} games, {read[1]:,} invalid, {rate:,.0f} games/s"
        bar.update(unit.bytes)

    try:
        summary = import_paths(list(paths), db, jobs=jobs, format=format_, encoding=encoding,
                               force=force, follow_links=follow_links,
                               memory_limit=memory_limit, commit_records=commit_every,
                               progress=progress if bar is not None else None,
                               scheduler=scheduler, send_inputs=send_inputs)
    except InputError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_INPUT)
    except StorageError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_DATABASE)
    except ExecutorError as exc:
        exit_cluster_failure(exc)
    except KeyboardInterrupt:
        click.echo("Interrupted: what was committed stays; run the same command to resume.",
                   err=True)
        sys.exit(EXIT_INTERRUPTED)
    finally:
        if bar is not None:
            bar.render_finish()
        for handler in handlers:
            logging.getLogger().removeHandler(handler)
            handler.close()
    if not quiet:
        click.echo(str(summary))


@cli.command("info")
@click.option("--db", "db", required=True, envvar="XQDB_DB", type=click.Path(dir_okay=False),
              help="DuckDB file to describe (env XQDB_DB).")
@click.option("--top", type=click.IntRange(1), default=10, show_default=True,
              help="How many players to list.")
def info_command(db: str, top: int) -> None:
    """What is in a database: games, players, years, formats, invalid records.

    \b
    xqdb info --db games.duckdb
    xqdb info --db games.duckdb --top 20
    """
    from .db.info import database_info
    from .db.schema import DatabaseError, connect

    try:
        con = connect(db, read_only=True)
    except DatabaseError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_DATABASE)
    try:
        click.echo(str(database_info(con, top=top, path=db)))
    finally:
        con.close()


@cli.command("upgrade")
@click.option("--db", "db", required=True, envvar="XQDB_DB", type=click.Path(dir_okay=False),
              help="DuckDB file written by an older xqdb (env XQDB_DB).")
def upgrade_command(db: str) -> None:
    """Bring a database of an older schema version up to date, from the records it holds.

    \b
    xqdb upgrade --db games.duckdb

    Every table is derived again from the raw records stored in it: the source files are
    not needed. The old file is kept as DB.vN.
    """
    from .db.schema import DatabaseError
    from .db.upgrade import upgrade

    try:
        summary = upgrade(db)
    except DatabaseError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_DATABASE)
    click.echo(str(summary))


@cli.command("read")
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "format_", default=None,
              help="Read every source as this format (one of: " + ", ".join(formats()) + ").")
@click.option("--encoding", default=None, help="Text encoding (default: detected per file).")
@click.option("--show", type=click.IntRange(1), default=None, metavar="N",
              help="Print the N-th record (1-based) with its moves instead of the summary.")
@click.option("--notation", type=click.Choice(SHOW_NOTATIONS), default="chinese",
              show_default=True, help="Notation of the moves --show prints (chinese: in the "
              "script the record is written in).")
@click.option("--replay/--no-replay", default=True, show_default=True,
              help="Replay every game to tell valid from invalid.")
@click.option("--examples", type=click.IntRange(0), default=3, show_default=True,
              help="Failures shown per kind of failure.")
@click.option("--all-errors", is_flag=True, help="List every invalid record.")
def read_command(paths: tuple[str, ...], format_: str | None, encoding: str | None,
                 show: int | None, notation: str, replay: bool, examples: int,
                 all_errors: bool) -> None:
    """Summarize the game records in PATHS (files, folders, archives, - for stdin).

    \b
    xqdb read games/ archive.zip
    xqdb read game.pgn --show 1 --notation wxf

    Counts records per format and encoding, valid and invalid, by kind of failure with
    examples naming file, record and ply. Exits with 1 when a record is invalid, 3 when
    there is no record to read, 2 for a bad option (--show past the last record too).
    """
    from .formats.encoding import normalize_encoding

    if format_ is not None and format_ not in formats():
        raise click.BadParameter(f"{format_!r} is not one of {', '.join(formats())}",
                                 param_hint="--format")
    if encoding is not None:
        try:
            encoding = normalize_encoding(encoding)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--encoding") from None
    missing = [path for path in paths if path != "-" and not os.path.exists(path)]
    if missing:
        click.echo(f"Error: {no_such_path(missing[0])}", err=True)
        sys.exit(EXIT_INPUT)
    if show is not None:
        try:
            record = nth_record(paths, show, format_, encoding)
        except LookupError as exc:
            raise click.BadParameter(str(exc), param_hint="--show") from None
        click.echo(format_game(record, notation))
        return
    summary = summarize(paths, format_, encoding, replay_games=replay,
                        keep=None if all_errors else examples)
    click.echo(summary.report(examples=examples, all_failures=all_errors))
    if not summary.records:
        click.echo("Error: no records to read", err=True)
        sys.exit(EXIT_INPUT)
    if summary.invalid:
        sys.exit(EXIT_INVALID)


@cli.command("engine")
def engine_command() -> None:
    """Serve the built-in engine over UCI (ranks 0-9) on stdin and stdout.

    \b
    printf 'uci\\nposition startpos\\ngo depth 3\\nquit\\n' | xqdb engine

    It is a weak engine, for when no Fairy-Stockfish or Pikafish is installed.
    """
    from .engine.server import serve

    serve(sys.stdin, sys.stdout)


def _add_report_commands() -> None:
    from .cli_reports import COMMANDS
    from .cli_analysis import COMMANDS as ANALYSIS_COMMANDS
    from .cli_browse import COMMANDS as BROWSE_COMMANDS
    from .cli_show import COMMANDS as SHOW_COMMANDS

    for command in (*COMMANDS, *ANALYSIS_COMMANDS, *BROWSE_COMMANDS, *SHOW_COMMANDS):
        cli.add_command(command)
