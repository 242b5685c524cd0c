"""The README's tour, run as written: every command of its ``sh`` blocks, in a fresh folder
holding a copy of ``sample_games/``, by the installed ``xqdb`` in a process of its own.

Each command must exit 0 and print the excerpt shown after it (a ``text`` block: each of
its lines is a line of the output; ``...`` alone stands for lines left out, and a line
ending in ``...`` for the start of one), and each step must leave what a user would check:
the games imported, an ECCO code, a search hit, evaluations, a blunder table, an export
that imports again as the same games, a board.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from datafiles import SAMPLE_GAMES
from import_support import rows

README = Path(__file__).parents[1] / "README.md"
#: The terminal width the excerpts were taken at (tables are fitted to the terminal).
COLUMNS = "120"


@dataclass
class Step:
    """A block of the tour's commands and the excerpt of their output the README shows."""

    commands: list[list[str]]
    excerpt: list[str]


def tour_steps(readme: str) -> list[Step]:
    """The blocks of commands of the README's tour, each with the excerpt shown after it.

    >>> tour_steps("## A tour\\n```sh\\nxqdb info --db g.duckdb  # what\\n```\\n"
    ...            "```text\\nok\\n```\\n## Next\\n")
    [Step(commands=[['xqdb', 'info', '--db', 'g.duckdb']], excerpt=['ok'])]
    """
    section = readme.split("\n## A tour\n", 1)[-1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```(\w+)\n(.*?)^```$", section, flags=re.M | re.S)
    steps: list[Step] = []
    for kind, body in blocks:
        if kind == "sh":
            steps.append(Step([shlex.split(line, comments=True)
                               for line in body.splitlines() if line.strip()], []))
        elif kind == "text" and steps:
            steps[-1].excerpt = body.splitlines()
    return steps


def missing_lines(excerpt: list[str], output: str) -> list[str]:
    """The lines of ``excerpt`` that ``output`` does not print.

    >>> missing_lines(["a", "...", "b c..."], "a\\nx\\nb c d\\n")
    []
    >>> missing_lines(["a b"], "a  b\\n")
    ['a b']
    """
    lines = [line.rstrip() for line in output.splitlines()]
    missing = []
    for line in excerpt:
        if line == "...":
            continue
        if line.endswith("..."):
            found = any(out.startswith(line[:-3]) for out in lines)
        else:
            found = line.rstrip() in lines
        if not found:
            missing.append(line)
    return missing


def installed_xqdb() -> str:
    """The ``xqdb`` script installed beside this Python (the package's entry point)."""
    script = Path(sys.executable).parent / "xqdb"
    found = str(script) if script.is_file() else shutil.which("xqdb")
    assert found, "xqdb is not installed: pip install -e ."
    return found



def test_the_readme_tour_runs_as_written(tmp_path: Path) -> None:
    steps = tour_steps(README.read_text(encoding="utf-8"))
    commands = [argv for step in steps for argv in step.commands]
    assert all(argv[0] == "xqdb" for argv in commands)
    for needed in ("import", "info", "openings", "tree", "search", "analyze", "blunders",
                   "export", "show"):
        assert any(argv[1] == needed for argv in commands), f"the tour lost its {needed} step"

    shutil.copytree(SAMPLE_GAMES, tmp_path / "sample_games")
    env = {**os.environ, "COLUMNS": COLUMNS, "NO_COLOR": "1"}
    xqdb = installed_xqdb()
    outputs: dict[str, str] = {}
    for step in steps:
        printed = ""
        for argv in step.commands:
            done = subprocess.run([xqdb, *argv[1:]], cwd=tmp_path, env=env,
                                  capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, (argv, done.stderr)
            assert "Traceback" not in done.stderr
            outputs[argv[1]] = outputs.get(argv[1], "") + done.stdout + done.stderr
            printed += done.stdout + done.stderr
        assert not missing_lines(step.excerpt, printed), (step.commands, printed)

    games = tmp_path / "games.duckdb"
    assert rows(games, "SELECT count(*) FROM games WHERE status = 'valid'") == [(7,)]
    assert "games:      7 (7 valid, 0 invalid)" in outputs["info"]
    assert re.search(r"^C48 ", outputs["openings"], flags=re.M)
    assert re.search(r"^ +3 +1 +宝岛一号 .* True$", outputs["search"], flags=re.M)
    evaluated = rows(games, "SELECT count(*), count(DISTINCT engine) FROM evals "
                            "WHERE status = 'ok'")
    assert evaluated[0][0] >= 60 and evaluated[0][1] == 1
    assert outputs["blunders"].startswith("game_id  ply  side   player    move  best_move")
    assert "after ply 21 of 26, Black to move:" in outputs["show"]

    # The export imported again: the same games, move for move, with the same tags.
    again = tmp_path / "again.duckdb"
    same = "SELECT content_hash, tags FROM games ORDER BY content_hash"
    assert rows(again, same) == rows(games, same)

