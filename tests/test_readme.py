"""The README as a user's manual stays whole: every command has its place and its row in
the exit-code table, every benchmark script is listed with what it prints, and every FEN
the README, the docs and ``--help`` give sets up a position.
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from xqdb import Position

from test_help import commands

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    """The text of the README's ``## title`` section, up to the next one."""
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def exit_code_rows(text: str) -> list[tuple[int, str, set[str] | None]]:
    """The rows of the exit-code table: the code, what it is for, and the commands (``None``
    for every command).

    >>> exit_code_rows("| 2 | bad | `tree` |\\n| 4 | db | every command |")
    [(2, 'bad', {'tree'}), (4, 'db', None)]
    >>> exit_code_rows("| 4 | db | every command with `--db`: `info` |")
    [(4, 'db', {'info'})]
    """
    rows = []
    for code, when, commands in re.findall(r"^\| (\d+) \| (.+?) \| ([^|]+) \|$", text,
                                           flags=re.M):
        named = set(re.findall(r"`(\w+)`", commands.split(":", 1)[-1]))
        rows.append((int(code), when, named or None))
    return rows


def table_commands(text: str) -> set[str]:
    """Every command the exit-code table gives a row of its own."""
    return {name for _, _, named in exit_code_rows(text) if named for name in named}


def all_commands() -> dict[str, click.Command]:
    """Every command of ``xqdb`` by name, those whose module is loaded only when asked
    for included."""
    return {words[0]: command for words, command in commands() if len(words) == 1}


@pytest.mark.parametrize("name", sorted(all_commands()))
def test_every_command_is_shown_in_the_usage_and_has_its_exit_codes(name: str) -> None:
    usage = section("Usage")
    assert re.search(rf"^xqdb {name}\b", usage, flags=re.M) or f"`xqdb {name}`" in usage, \
        f"xqdb {name} is not shown under Usage"
    assert name in table_commands(section("Exit codes and errors")), \
        f"xqdb {name} has no row in the exit-code table"


def test_there_is_one_exit_code_table() -> None:
    assert README.count("| exit code | when | commands |") == 1
    assert "Exit codes:" not in README


def test_every_benchmark_script_is_listed_with_what_it_prints() -> None:
    listed = set(re.findall(r"`(\w+\.py)`", section("Benchmarks")))
    scripts = {path.name for path in (ROOT / "bench").glob("*.py")}
    assert scripts <= listed, f"not listed: {sorted(scripts - listed)}"


def test_every_fen_the_readme_docs_and_help_give_sets_up_a_position() -> None:
    texts = [README] + [doc.read_text(encoding="utf-8") for doc in (ROOT / "docs").glob("*.md")]
    texts += [command.help or "" for command in all_commands().values()]
    fens = {fen for text in texts for fen in re.findall(r'--fen "([^"]+)"', text)}
    # The examples of perft's and search's --help are found, among those of the pages.
    assert {"3k5/9/9/9/9/9/9/9/9/4K4 w", "3k5/9/9/9/9/9/9/9/4R4/4K4 w"} <= fens
    for fen in fens:
        Position.from_fen(fen)


def test_the_library_examples_run_and_print_what_they_say(tmp_path: Path, monkeypatch) -> None:
    """Each ``python`` block of the README, run in order in one folder holding the sample
    games, as a user pasting them would."""
    import contextlib
    import io
    import shutil

    import xqdb

    blocks = re.findall(r"```python\n(.*?)```", section("The library"), flags=re.S)
    assert len(blocks) == 3
    shutil.copytree(ROOT / "sample_games", tmp_path / "sample_games")
    monkeypatch.chdir(tmp_path)
    printed = []
    for block in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, "README.md", "exec"), {})
        printed.append(out.getvalue())
    imported, missing, analysed = printed
    assert "records: 7 read, 7 new games" in imported
    assert "wrote 7 games to games.pgn" in imported
    again = xqdb.Database(tmp_path / "again.duckdb").import_paths(["games.pgn"], jobs=1)
    assert (again.records, sum(again.invalid.values())) == (7, 0)
    assert "after ply 6 of" in imported
    assert missing.startswith("no game 999 in this database")
    assert "analysed 1 game of games.duckdb with xqdb built-in" in analysed
    assert {line.split()[0] for line in analysed.splitlines()[-2:]} == {"red", "black"}
