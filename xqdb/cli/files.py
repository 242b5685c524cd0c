"""The commands that work on files, and on a database as a whole: ``read``, ``import``,
``info`` and ``upgrade``.

Loading this module loads the readers but no DuckDB: ``xqdb read`` needs none.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import TYPE_CHECKING, Any

import click

from ..errors import CannotRunError
from ..formats import formats
from ..formats.sources import Source, no_such_path, walk
from ..render.terminal import unguarded
from ..pipeline.reading import SHOW_NOTATIONS, format_game, nth_record, summarize
from .common import (EXIT_INVALID, Interrupted, count_range, database, db_option,
                     scheduler_option)

if TYPE_CHECKING:
    from ..pipeline.importer import ImportSummary, UnitResult


class _DefaultFromLibrary(click.Option):
    """An option whose default is a callable taking it from a module loaded when the
    command runs; ``--help`` shows the value (loading the module then) instead of
    ``(dynamic)``."""

    def get_default(self, ctx: click.Context, call: bool = True) -> Any:
        return super().get_default(ctx, call=True)


def _commit_records() -> int:
    from ..pipeline.importer import COMMIT_RECORDS
    return COMMIT_RECORDS


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
    return click.progressbar(length=total, label="importing", file=unguarded(sys.stderr),
                             show_pos=False, show_percent=True, show_eta=True)


@click.command("import")
@click.argument("paths", nargs=-1)
@db_option("DuckDB file to create or add to (env XQDB_DB).")
@click.option("-j", "--jobs", type=click.IntRange(1), default=None,
              help="Worker processes (default: the cores other work leaves idle, by the "
                   "load average; one runs in this process).")
@scheduler_option("Read and replay")
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
              help="DuckDB's memory, as 2GB, 512MB or 10% of the RAM (default: "
                   "XQDB_MEMORY_LIMIT from the environment, which bounds every other "
                   "command too, else 10%, at least 256MiB).")
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
        summary = database(db).import_paths(
            paths, jobs=jobs, format=format_, encoding=encoding, force=force,
            follow_links=follow_links, memory_limit=memory_limit, commit_records=commit_every,
            progress=progress if bar is not None else None, scheduler=scheduler,
            send_inputs=send_inputs)
    except KeyboardInterrupt:
        raise Interrupted("what was committed stays; run the same command to resume") from None
    finally:
        if bar is not None:
            bar.render_finish()
        for handler in handlers:
            logging.getLogger().removeHandler(handler)
            handler.close()
    if not quiet:
        click.echo(str(summary))


@click.command("info")
@db_option("DuckDB file to describe (env XQDB_DB).")
@click.option("--top", type=count_range(1), default=10, show_default=True,
              help="How many players to list.")
def info_command(db: str, top: int) -> None:
    """What is in a database: games, players, years, formats, invalid records.

    \b
    xqdb info --db games.duckdb
    xqdb info --db games.duckdb --top 20
    """
    click.echo(str(database(db).info(top=top)))


@click.command("upgrade")
@db_option("DuckDB file written by an older xqdb (env XQDB_DB).")
def upgrade_command(db: str) -> None:
    """Bring a database of an older schema version up to date, from the records it holds.

    \b
    xqdb upgrade --db games.duckdb

    Every table is derived again from the raw records stored in it: the source files are
    not needed. The old file is kept as DB.vN. The new database replaces it only once it
    is found to hold the same sources, records, games, moves and evaluations; one upgrade
    of a file runs at a time.
    """
    click.echo(str(database(db).upgrade()))


@click.command("read")
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
    examples naming file, record and ply; then the sources not read (not a known format,
    cannot be opened). Exits with 1 when a record is invalid or a source was not read, 3
    when there is no record to read, 2 for a bad option (--show past the last record too).
    """
    from ..formats import checked_overrides

    format_, encoding = checked_overrides(format_, encoding)
    missing = [path for path in paths if path != "-" and not os.path.exists(path)]
    if missing:
        raise CannotRunError(no_such_path(missing[0]))
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
        raise CannotRunError("no records to read")
    if summary.invalid or summary.unread:
        raise click.exceptions.Exit(EXIT_INVALID)


#: The commands of this module, in the order ``xqdb --help`` lists them.
COMMANDS = (import_command, info_command, upgrade_command, read_command)
