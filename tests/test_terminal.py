"""Text from records on a terminal: a tag's control characters (ESC sequences that set
the title, clear the screen or write the clipboard, 8-bit CSI and OSC, bidirectional
overrides) reach the terminal as escapes to read, never as orders, in every command that
prints record text; files get the exact text, and pipes are left unguarded."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from import_support import on_terminal, run_xqdb
from xqdb.db.queries import Result
from xqdb.pipeline.importer import import_paths
from xqdb.render.tables import display_width, render
from xqdb.render.terminal import BOLD, RED, RESET, REVERSE, TerminalText, visible

#: Tags that would order a terminal about, each with the escapes it is shown as.
HOSTILE = {
    "Event": ("Cup\x1b]0;owned\x07\x1b[2J", "Cup\\x1b]0;owned\\x07\\x1b[2J"),
    "Site": ("clip\x1b]52;c;aGVsbG8=\x07", "clip\\x1b]52;c;aGVsbG8=\\x07"),
    "Red": ("胡荣华\x1b[31mred", "胡荣华\\x1b[31mred"),
    "Black": ("吕钦\x9b2J\u202e", "吕钦\\x9b2J\\u202e"),
    "Annotator": ("x\x9d0;t\x07", "x\\x9d0;t\\x07"),
}
#: What no terminal may be sent from a record: ESC (but in xqdb's own colour codes),
#: BEL, the 8-bit CSI and OSC, and the right-to-left override.
RAW = ("\x1b", "\x07", "\x9b", "\x9d", "\u202e")


def hostile_pgn(folder: Path) -> Path:
    tags = "".join(f'[{name} "{raw}"]\n' for name, (raw, _) in HOSTILE.items())
    path = folder / "hostile.pgn"
    path.write_text(f'{tags}[Date "1990.01.01"]\n[Result "1-0"]\n\n1. h2e2 h9g7 1-0\n',
                    encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("hostile")
    db = folder / "h.duckdb"
    import_paths([str(hostile_pgn(folder))], db, jobs=1)
    return hostile_pgn(folder), db


def assert_safe(text: str) -> None:
    """Nothing of ``RAW`` in ``text`` once xqdb's own colour codes are taken out."""
    for code in (RED, BOLD, REVERSE, RESET):
        text = text.replace(code, "")
    assert not [c for c in RAW if c in text], repr(text)


@pytest.mark.parametrize("args,shows", [
    (["players"], ["吕钦\\x9b2J\\u202e 1", "胡荣华\\x1b[31mred 1"]),
    (["tree", "--top-games", "3"], []),
    (["search", "--moves", "h2e2"], ["Cup\\x1b]0;owned"]),
    (["show", "1", "--no-color"], [escaped for _, escaped in HOSTILE.values()]),
    (["show", "1", "--color"], [escaped for _, escaped in HOSTILE.values()]),
    (["info"], []),
    (["openings"], []),
    (["export", "--out", "-"], [escaped for _, escaped in HOSTILE.values()]),
    (["sql", "SELECT event, site, red, black FROM games", "--format", "csv"],
     ["Cup\\x1b]0;owned\\x07\\x1b[2J", "clip\\x1b]52;c;aGVsbG8=\\x07"]),
    (["query", "events"], ["Cup\\x1b]0;owned\\x07\\x1b[2J"]),
])
def test_record_text_reaches_a_terminal_as_escapes(hostile: tuple[Path, Path], args: list[str],
                                                   shows: list[str]) -> None:
    code, shown = on_terminal(*args, "--db", str(hostile[1]))
    assert code == 0, shown
    assert_safe(shown)
    for escaped in shows:
        assert escaped in shown


def test_read_shows_a_record_s_tags_as_escapes(hostile: tuple[Path, Path]) -> None:
    code, shown = on_terminal("read", str(hostile[0]), "--show", "1")
    assert code == 0, shown
    assert_safe(shown)
    assert all(escaped in shown for _, escaped in HOSTILE.values())


def test_show_in_colour_keeps_its_board_s_colours_only(hostile: tuple[Path, Path]) -> None:
    code, shown = on_terminal("show", "1", "--color", "--db", str(hostile[1]))
    assert code == 0 and f"{RED}{BOLD}帅{RESET}" in shown
    # The record's own red is shown, not obeyed, though it is the board's very code.
    assert "胡荣华\\x1b[31mred" in shown and f"胡荣华{RED}" not in shown


def test_files_keep_the_exact_text(hostile: tuple[Path, Path], tmp_path: Path) -> None:
    db = str(hostile[1])
    done = run_xqdb("players", "--db", db, "--output", str(tmp_path / "p.csv"))
    assert done.returncode == 0, done.stderr
    assert "胡荣华\x1b[31mred 1" in (tmp_path / "p.csv").read_text(encoding="utf-8")
    done = run_xqdb("export", "--db", db, "--out", str(tmp_path / "g.pgn"))
    assert done.returncode == 0, done.stderr
    exported = (tmp_path / "g.pgn").read_text(encoding="utf-8")
    assert all(f'[{name} "{raw}"]' in exported for name, (raw, _) in HOSTILE.items())
    # A pipe is read by a program, which gets what the record holds.
    done = run_xqdb("sql", "SELECT site FROM games", "--db", db, "--format", "csv")
    assert done.stdout == "site\nclip\x1b]52;c;aGVsbG8=\x07\n"


def test_visible_escapes_controls_and_keeps_the_rest() -> None:
    assert visible("胡荣华 C2.5\t\n") == "胡荣华 C2.5\t\n"
    assert visible("\x00\x1b\x7f\x85\x9b\x9f\r") == "\\x00\\x1b\\x7f\\x85\\x9b\\x9f\\x0d"
    assert visible("\u202a\u202e\u2066\u2069\u200e\u200f\u061c") == (
        "\\u202a\\u202e\\u2066\\u2069\\u200e\\u200f\\u061c")
    assert visible("a\tb\nc", lines=False) == "a\\x09b\\x0ac"
    assert visible(visible("\x1b]0;t\x07")) == visible("\x1b]0;t\x07")  # said once


def test_the_terminal_stream_writes_escapes_and_refuses_bytes() -> None:
    under = io.StringIO()
    stream = TerminalText(under)  # type: ignore[arg-type]
    assert stream.write("x\x1b]0;t\x07\n") == 8
    assert under.getvalue() == "x\\x1b]0;t\\x07\n"
    with pytest.raises(TypeError):
        stream.write(b"x")  # type: ignore[arg-type]


def test_a_terminal_table_lines_up_rows_with_escaped_cells() -> None:
    table = render(Result(["name", "games"], [("胡荣华\x1b[2J", 3), ("吕钦\n", 12)]), width=80)
    lines = table.splitlines()
    assert lines[2].startswith("胡荣华\\x1b[2J") and lines[3].startswith("吕钦\\x0a")
    assert len({display_width(line) for line in lines}) == 1
    assert "\x1b" not in render(Result(["n"], [("\x1b",)]), width=None).replace("\x1b", "", 1)
