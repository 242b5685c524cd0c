"""``xqdb show``: a stored game on the terminal and as SVG, on real imported games."""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import duckdb
from click.testing import CliRunner

from import_support import run_xqdb, xqdb_command
from xqdb.cli import cli
from xqdb.db.analysed import mark_analysed
from xqdb.db.schema import connect
from xqdb.browse.show import load_game

SVG = "{http://www.w3.org/2000/svg}"


def show(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["show", *args])
    return result.exit_code, result.stdout, result.stderr


def test_board_tags_opening_and_moves(db: Path) -> None:
    code, out, _ = show("--db", str(db), "2", "--ply", "2")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "game 2: 吕钦 - 胡荣华  1/2-1/2"
    assert "  Event     甲级联赛" in lines and "  RedElo    2600" in lines
    assert "  opening: B05 中炮对进左马 (中炮)" in lines
    assert "after ply 2 of 3, Red to move:" in lines
    # After 炮二平五 马８进７: Black's horse has left h9 for g7, Red's cannon is on e2.
    assert "9 車 馬 象 士 将 士 象 ＋ 車" in lines  # Black in traditional forms
    assert "7 ＋ 砲 ＋ ＋ ＋ ＋ 馬 砲 ＋" in lines
    assert "2 ＋ 炮 ＋ ＋ 炮 ＋ ＋ ＋ ＋" in lines
    assert "0 车 马 相 仕 帅 仕 相 马 车" in lines
    assert lines[-2:] == ["    1. 炮二平五  马８进７", "    2. 马二进三"]
    assert "\x1b[" not in out  # not a terminal: plain


def test_other_notations_colour_and_a_game_starting_with_black(db: Path) -> None:
    code, out, _ = show("--db", str(db), "6", "--notation", "wxf", "--ply", "0", "--color")
    assert code == 0
    assert "    1. ...   K4+1" in out.splitlines()
    assert "ending: perpetual check, 0-1 by the rules" in out
    assert "\x1b[31m\x1b[1m帅\x1b[0m" in out  # Red's king in red
    assert "\x1b[1m将\x1b[0m" in out            # Black's in bold, the terminal's colour
    code, out, _ = show("--db", str(db), "6", "--notation", "uci", "--ply", "1", "--color")
    assert "\x1b[1m\x1b[7m将\x1b[0m" in out      # the piece just moved, in reverse video


def on_terminal(args: list[str], env: dict[str, str]) -> str:
    """What xqdb writes to a real terminal (a pseudo-terminal) for ``args``."""
    leader, follower = pty.openpty()
    with subprocess.Popen(xqdb_command(*args), stdout=follower, stderr=follower,
                          env={**os.environ, **env}) as process:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closes when the process ends
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode("utf-8")


def test_colour_on_a_terminal_unless_no_color(db: Path) -> None:
    clean = {k: "" for k in ("NO_COLOR",)}
    coloured = on_terminal(["show", "--db", str(db), "1"], clean)
    assert "\x1b[31m\x1b[1m帅\x1b[0m" in coloured
    plain = on_terminal(["show", "--db", str(db), "1"], {"NO_COLOR": "1"})
    assert "帅" in plain and "\x1b[" not in plain


def test_svg_board_parses_and_has_every_piece(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "board.svg"
    code, text, _ = show("--db", str(db), "1", "--ply", "0", "--svg", str(out))
    assert code == 0 and text.endswith(f"wrote {out}\n")
    root = ET.parse(out).getroot()
    pieces = [g for g in root.iter(f"{SVG}g") if g.get("class", "").startswith("piece")]
    assert len(pieces) == 32
    assert sum(g.get("class") == "piece red" for g in pieces) == 16
    assert sorted(t.text for g in pieces if g.get("class") == "piece red"
                  for t in g.iter(f"{SVG}text")) == sorted("车马相仕帅仕相马车炮炮兵兵兵兵兵")
    # After the mate of game 5, three pieces are left and the last move is marked.
    code, _, _ = show("--db", str(db), "5", "--svg", str(out))
    root = ET.parse(out).getroot()
    assert len([g for g in root.iter(f"{SVG}g") if g.get("class", "").startswith("piece")]) == 3
    assert len([r for r in root.iter(f"{SVG}rect") if r.get("class") == "last-move"]) == 2


def test_errors_are_one_line(db: Path) -> None:
    result = run_xqdb("show", "--db", str(db), "99")
    assert result.returncode == 2
    assert result.stderr == "Error: no game 99 in this database (games are 1 to 7)\n"
    result = run_xqdb("show", "--db", str(db), "1", "--ply", "3")
    assert result.returncode == 2
    assert result.stderr == "Error: game 1 has 2 plies: --ply takes 0 to 2\n"


def test_evaluations_and_judgements_where_the_game_was_analysed(db: Path,
                                                               tmp_path: Path) -> None:
    copy = tmp_path / "analysed.duckdb"
    shutil.copy(db, copy)
    con = duckdb.connect(str(copy))
    keys = dict(con.execute("SELECT ply, key_after FROM moves WHERE game_id = 3").fetchall())
    keys[0] = con.execute("SELECT start_key FROM games WHERE game_id = 3").fetchone()[0]
    # After ply 1 Black is to move: +35 for Black is -0.35 for Red. After ply 2, a shallow
    # search and a deeper one: the deeper is shown. After ply 3 Black mates in 2, which
    # the views class as a mate allowed by Red's third move (the WDL says even before it).
    con.executemany("""INSERT INTO evals (key, side, engine, search_limit, score_cp, mate,
        wdl_win, wdl_draw, wdl_loss, depth, status, origin)
        VALUES (?, ?, 'e', ?, ?, ?, 500, 0, 500, ?, 'ok', 'search')""",
        [(keys[0], "red", "depth=12", 0, None, 12),
         (keys[1], "black", "depth=12", 35, None, 12),
         (keys[2], "red", "depth=1", 900, None, 1),
         (keys[2], "red", "depth=12", 120, None, 12),
         (keys[3], "black", "depth=12", None, 2, 12)])
    mark_analysed(con, [3], "e", "depth=12", [4])  # as the analysis of game 3 records
    con.close()
    with connect(copy, read_only=True) as ro:
        view = load_game(ro, 3, notation="iccs")
    assert [(str(m), m.judgement) for m in view.moves] == [
        ("B2-E2 -0.35", None), ("B9-C7 +1.20", None), ("B0-C2?? #-2", "allowed_mate")]
    code, out, _ = show("--db", str(copy), "3")
    assert "    1. 炮八平五 -0.35  马２进３ +1.20" in out.splitlines()
    assert "    2. 马八进七?? #-2" in out.splitlines()
    assert "?? blunder, or a mate allowed or missed" in out


def test_an_invalid_game_without_a_board(db: Path, tmp_path: Path) -> None:
    code, out, _ = show("--db", str(db), "7")
    assert code == 0
    assert out.splitlines()[0] == "game 7: 许银川 - 赵国荣  *"
    assert "  invalid: bad FEN " in out and "red has no king" in out
    assert out.splitlines()[-1] == "no board: the start position cannot be set up"
    result = run_xqdb("show", "--db", str(db), "7", "--svg", str(tmp_path / "x.svg"))
    assert result.returncode == 2 and result.stderr == (
        "Error: game 7 has no board to draw: its start position cannot be set up\n")
