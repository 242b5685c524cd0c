"""One error taxonomy: each failure has its exception and its kind, replay and the readers
report the kind, and ``xqdb read`` and ``xqdb info`` group failures the same way."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

import xqdb
from xqdb import (
    AmbiguousMoveError, ErrorKind, FenError, IllegalMoveError, InvalidMoveError, MoveError,
    NotationError, Position, UnknownNotationError,
)
from xqdb.formats import read_paths
from xqdb.formats.record import GameRecord, Origin

from import_support import run_xqdb
from xqdb.pipeline.importer import import_paths
from xqdb.replay import Status, replay


START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"
CHARIOTS = "4k4/9/9/9/7R1/9/9/9/9/3K3R1 w"


@pytest.mark.parametrize(("fen", "text", "notation", "error"), [
    (START, "炮二平", "chinese", InvalidMoveError),
    (START, "X2.5", "wxf", InvalidMoveError),
    (START, "h2-e2", "uci", InvalidMoveError),
    (START, "车二进三", "chinese", IllegalMoveError),   # no chariot on that file
    (START, "马二进四", "chinese", IllegalMoveError),   # a horse cannot go there
    (START, "h2h8", "uci", IllegalMoveError),          # coordinates are checked too
    ("4k4/9/9/9/9/9/9/9/4C4/4K4 w", "炮五平四", "chinese", IllegalMoveError),  # kings facing
    (CHARIOTS, "车二进一", "chinese", AmbiguousMoveError),
    (CHARIOTS, "R2.5", "wxf", AmbiguousMoveError),
    (START, "Nf3", "klingon", UnknownNotationError),
])
def test_each_failure_of_a_move_text_has_its_own_exception(
        fen: str, text: str, notation: str, error: type[MoveError]) -> None:
    with pytest.raises(error) as info:
        Position.from_fen(fen).parse_move(text, notation)
    # One family: the old name and ValueError still catch every one of them.
    assert isinstance(info.value, NotationError) and isinstance(info.value, ValueError)
    assert text in str(info.value) or notation in str(info.value)


def test_an_illegal_move_is_the_same_error_from_text_and_from_push_legal() -> None:
    pos = Position()
    with pytest.raises(IllegalMoveError, match="the cannon on h2 cannot move to h8"):
        pos.parse_move("h2h8")
    with pytest.raises(IllegalMoveError, match="the cannon on h2 cannot move to h8"):
        pos.push_legal(xqdb.Move.from_uci("h2h8"))


def _record(moves: list[str], notation: str = "auto", fen: str | None = None) -> GameRecord:
    rec = GameRecord(origin=Origin("test.pgn"), format="pgn", notation=notation, fen=fen)
    rec.moves.extend(moves)
    return rec


@pytest.mark.parametrize(("record", "kind", "ply", "text"), [
    (_record(["h2e2", "h9g7", "zz"]), ErrorKind.BAD_MOVE_TEXT, 3, "zz"),
    (_record(["h2e2", "h9g7", "h2h9"], "uci"), ErrorKind.ILLEGAL_MOVE, 3, "h2h9"),
    (_record(["炮二平五", "马８进７", "车二进三"]), ErrorKind.ILLEGAL_MOVE, 3, "车二进三"),
    (_record(["车二进一"], "chinese", CHARIOTS), ErrorKind.AMBIGUOUS_MOVE, 1, "车二进一"),
    (_record(["h2e2"], "uci", "rnbakabnr/9/9/9/9/9/9/9/9/RNBA1ABNR w"), ErrorKind.BAD_FEN,
     None, None),
    (_record(["Nf3"], "klingon"), ErrorKind.UNKNOWN_NOTATION, None, None),
])
def test_replay_reports_the_kind_ply_and_text_of_a_failure(
        record: GameRecord, kind: ErrorKind, ply: int | None, text: str | None) -> None:
    game = replay(record)
    assert game.status is Status.INVALID and not game.is_valid
    assert (game.error_kind, game.error_ply, game.error_text) == (kind, ply, text)
    assert game.error  # the message stays, in words
    if ply is not None:
        assert game.plies == ply - 1  # the moves before the failure are kept


def test_a_valid_game_has_no_error_kind() -> None:
    game = replay(_record(["h2e2", "h9g7"]))
    assert (game.status, game.error, game.error_kind) == (Status.VALID, None, None)


def test_readers_name_the_kind_of_a_record_they_cannot_read(tmp_path: Path) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 4)
    empty_game = tmp_path / "words.pgn"
    empty_game.write_text("{a comment, and no game}\n", encoding="utf-8")
    kinds = {Path(r.origin.path).name: r.error_kind for r in read_paths([str(tmp_path)])
             if r.error is not None}
    assert kinds == {"junk.bin": ErrorKind.UNKNOWN_FORMAT, "words.pgn": ErrorKind.NOT_A_GAME}
    # The record's kind is the replay's kind, so both paths of a failure agree.
    for record in read_paths([str(tmp_path)]):
        assert replay(record).error_kind == record.error_kind


def test_an_unknown_text_encoding_is_its_own_kind() -> None:
    from xqdb.formats import xqf

    record = xqf.parse(b"XQ" + bytes(1022), Origin("x.xqf"), encoding="no-such-codec")
    assert record.error_kind is ErrorKind.UNKNOWN_ENCODING


def test_the_error_module_is_a_leaf() -> None:
    """Every layer may import the errors, so the errors import no part of xqdb."""
    tree = ast.parse(Path(xqdb.errors.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names}
    assert imported and not [name for name in imported if name is None or "xqdb" in name]


def test_the_old_import_paths_still_work() -> None:
    from xqdb import notation, rules
    from xqdb.notation import coordinates, describe
    from xqdb.rules import position

    assert notation.NotationError is coordinates.NotationError is MoveError
    assert notation.AmbiguousMoveError is describe.AmbiguousMoveError is AmbiguousMoveError
    assert position.FenError is rules.FenError is FenError
    assert position.IllegalMoveError is rules.IllegalMoveError is IllegalMoveError
    with pytest.warns(DeprecationWarning, match="BasePosition"):
        assert rules.Position is rules.BasePosition


# --- read and info agree ---------------------------------------------------------------



def _groups(out: str, heading: str) -> Counter[str]:
    """The ``count  kind`` lines under ``heading`` in a command's output."""
    lines = out.split(heading, 1)[1].splitlines()[1:]
    found: Counter[str] = Counter()
    for line in lines:
        m = re.fullmatch(r"\s+([\d,]+)  ([a-zA-Z][a-z A-Z]*)", line)
        if m is None:
            if line.startswith("            ") or "--all-errors" in line:
                continue  # an example of the group above
            break
        found[m[2]] = int(m[1].replace(",", ""))
    return found


@pytest.mark.slow
def test_read_and_info_group_the_same_failures_the_same_way(tmp_path: Path, shared_data: Path) -> None:
    bad = tmp_path / "bad.pgn"
    bad.write_text('[Red "A"]\n1. h2e2 h9g7 2. zz *\n\n'
                   f'[Red "B"]\n[FEN "{CHARIOTS}"]\n1. 车二进一 *\n\n'
                   '[Red "C"]\n1. 炮二平五 马８进７ 2. 车二进三 *\n', encoding="utf-8")
    paths = [str(shared_data / "binary"), str(shared_data / "ccpd-dev.zip"), str(bad)]
    read = run_xqdb("read", *paths)
    assert read.returncode == 1, read.stderr
    by_read = _groups(read.stdout, "Invalid records:")

    db = tmp_path / "g.duckdb"
    import_paths(paths, db, jobs=2)
    info = run_xqdb("info", "--db", str(db))
    assert info.returncode == 0, info.stderr
    by_info = _groups(info.stdout, "invalid by kind:")

    # The binary folder's two CBL section headings are no records (a Section tag of the
    # games after them), so no "not a game" is left.
    assert by_read == by_info == {"bad fen": 3, "illegal move": 2, "bad move text": 1,
                                  "ambiguous move": 1}
