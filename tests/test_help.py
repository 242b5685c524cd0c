"""Every command of ``xqdb``, those to come included, has a ``--help`` with a one-line
summary and an example: the test walks the Click group, so a new command is held to it
without being named here.
"""

from __future__ import annotations

import re

import click
from click.testing import CliRunner

from xqdb.cli import cli


def commands(group: click.Group = cli, path: tuple[str, ...] = ()
             ) -> list[tuple[tuple[str, ...], click.Command]]:
    """Every command and subcommand, with the words that invoke it."""
    found = []
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None
        found.append(((*path, name), command))
        if isinstance(command, click.Group):
            found += commands(command, (*path, name))
    return found


def examples(help_text: str, words: tuple[str, ...]) -> list[str]:
    """The example lines of a command's help: those that run the command itself
    (``xqdb WORDS...``, options allowed between the words)."""
    return [line.strip() for line in help_text.splitlines()
            if f"xqdb {words[0]}" in line and all(f" {word}" in line for word in words)]


def test_the_walk_sees_every_command() -> None:
    names = {" ".join(words) for words, _ in commands()}
    assert {"import", "info", "upgrade", "read", "perft", "engine", "query", "sql", "players",
            "players alias", "openings", "openings classify", "openings explain", "tree",
            "report", "show"} <= names


def test_every_command_has_a_one_line_summary_and_an_example() -> None:
    missing = []
    for words, command in commands():
        result = CliRunner().invoke(cli, [*words, "--help"], terminal_width=200)
        assert result.exit_code == 0, (words, result.output)
        # The summary is the help's first paragraph: one line of one sentence, which
        # `xqdb --help` lists beside the command's name.
        summary = (command.help or "").strip().split("\n\n")[0]
        if "\n" in summary or not summary.endswith(".") or re.search(r"\w\. [A-Z]", summary) \
                or len(summary) > 100:
            missing.append(f"{' '.join(words)}: summary {summary!r}")
        elif summary not in result.output.replace("\n  ", " "):
            missing.append(f"{' '.join(words)}: --help does not show {summary!r}")
        if not examples(result.output, words):
            missing.append(f"{' '.join(words)}: no example")
    assert not missing, "\n".join(missing)
