"""The ``xqdb`` command line: thin Click wrappers over :class:`xqdb.Database`.

The library raises :class:`~xqdb.errors.XqdbError`; one handler here prints each as
``Error: message (hint)`` and exits with its family's code (:data:`.common.EXIT_CODES`).
A closed pipe (``xqdb export --out - | head``) ends the command quietly, as other Unix
tools end. On a terminal, every text is written through
:class:`~xqdb.render.terminal.TerminalText`: a record's control characters are shown as
escapes, never obeyed.

The commands live in a module per family: :mod:`.core` (positions: perft, the engine),
:mod:`.files` (files, the import, the database as a whole), :mod:`.reports`,
:mod:`.analysis`, :mod:`.browse`, :mod:`.show` and :mod:`.serve`. Only :mod:`.core` is
loaded to start: a command of another family loads that family's module alone (``xqdb
tree`` never loads the analysis side), and listing the commands loads them all.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from typing import Any, NoReturn

import click

from ..build import BUILD
from ..errors import XqdbError
from ..render.terminal import guard_terminal
from .common import EXIT_INTERRUPTED, Interrupted, error_line, exit_code
from .core import COMMANDS as CORE_COMMANDS


class _Group(click.Group):
    """The ``xqdb`` group: every error a command raises, and every usage error, is one line
    with its hint and its exit code."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        # Run as `python -m xqdb` or from a script, the command is still called xqdb.
        if len(args) < 2:
            kwargs["prog_name"] = kwargs.get("prog_name") or "xqdb"
        # SIGTERM (a service manager, `kill`) stops a command as Ctrl-C does, so what it
        # cleans up on the way out (its note beside the database, its spool) is cleaned.
        global _MAIN_PID
        _MAIN_PID = os.getpid()
        signal.signal(signal.SIGTERM, _terminated)
        # What a record says reaches a terminal as text, never as its orders (a title, the
        # clipboard): one guard over the streams, for every command.
        guard_terminal()
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
        except XqdbError as exc:
            click.echo(error_line(exc), err=True)
            sys.exit(exit_code(exc))
        except Interrupted as exc:
            click.echo(f"Interrupted: {exc}", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            _closed_pipe()

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in FAMILY_OF:
            _add_family(FAMILY_OF[cmd_name])
            command = super().get_command(ctx, cmd_name)
        return command

    def list_commands(self, ctx: click.Context) -> list[str]:
        for family in dict.fromkeys(FAMILY_OF.values()):
            _add_family(family)
        return super().list_commands(ctx)


#: The command's own process: a worker forked from it inherits the SIGTERM handler until
#: its own set-up replaces it.
_MAIN_PID = 0


def _terminated(signum: int, frame: object) -> None:
    if os.getpid() != _MAIN_PID:
        # A worker stopped before its set-up ran (the pool stops its workers with SIGTERM):
        # it dies as SIGTERM kills, rather than unwind while holding a queue's lock.
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    raise KeyboardInterrupt


def _usage_error(exc: click.UsageError) -> NoReturn:
    path = exc.ctx.command_path if exc.ctx is not None else "xqdb"
    click.echo(f"Error: {exc.format_message()} (see '{path} --help')", err=True)
    sys.exit(exc.exit_code)


def _closed_pipe() -> NoReturn:
    # The reader went away: say nothing, and keep Python from complaining at exit when it
    # flushes what is left for the closed pipe.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(0)


@click.group(cls=_Group)
@click.version_option(package_name="xqdb", message=f"%(prog)s, version %(version)s ({BUILD})")
def cli() -> None:
    """Xiangqi game databases: import, validate, classify and analyse game records."""


#: The commands outside :mod:`.core`, each with the module of this package that defines it.
#: A command's first use loads its module alone: most of the start-up time of a command is
#: the modules it loads.
FAMILY_OF = {
    **dict.fromkeys(("import", "info", "upgrade", "read"), "files"),
    **dict.fromkeys(("query", "sql", "players", "openings", "tree", "report"), "reports"),
    **dict.fromkeys(("analyze", "blunders", "calibrate"), "analysis"),
    **dict.fromkeys(("search", "export"), "browse"),
    "show": "show",
    "serve": "serve",
}

def _add_family(family: str) -> None:
    # Adding a family again adds the same commands under the same names: Python loads a
    # module once.
    for command in importlib.import_module(f".{family}", __name__).COMMANDS:
        cli.add_command(command)


for _command in CORE_COMMANDS:
    cli.add_command(_command)
