"""Real games in their own notation.

* The 15 games of ``pgn-chinese-15.pgn`` (Chinese, full-width Black digits) and of
  ``pgn-wxf-fullwidth-15.pgn`` (full-width WXF) read as the moves of their coordinate twins
  ``uci/same-15-games-uci.pgn``, except at the one ply where the sources disagree.
* Every game of the xqbase GBK files in ``pgn-gbk/`` replays fully, and writing each move
  gives back xqbase's own text.
* A sample of the Big5 CCPD collection (traditional glyphs) replays fully; the traditional
  writer gives back the file's text except exactly at the plies read as *loose*.

The PGN movetext here is plain (no comments or variations), so a small tokenizer suffices.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from datafiles import DATA
from xqdb import Move, Position
from xqdb.notation import read_move, write_move
from xqdb.notation.chinese import write_lone_wxf_and_chinese
from xqdb.notation.registry import REGISTRY
from xqdb.rules import FenError

_TAG = re.compile(r'\[(\w+)\s+"(.*)"\]')
_NOT_A_MOVE = re.compile(r"\d+[.．]?|1-0|0-1|1/2-1/2|\*")


def pgn_games(text: str) -> list[tuple[dict[str, str], list[str]]]:
    """``(tags, move texts)`` per game of a plain PGN text (no comments or variations)."""
    games: list[tuple[dict[str, str], list[str]]] = []
    tags: dict[str, str] = {}
    moves: list[str] | None = None
    for line in text.splitlines():
        line = line.strip()
        tag = _TAG.fullmatch(line)
        if tag:
            if moves is not None:
                games.append((tags, moves))
                tags, moves = {}, None
            tags[tag[1]] = tag[2]
            continue
        if moves is None:
            moves = []
        for token in line.split():
            token = re.sub(r"^\d+[.．]", "", token)
            if token and not _NOT_A_MOVE.fullmatch(token):
                moves.append(token)
    if moves is not None:
        games.append((tags, moves))
    return games


def twin_mismatches(path: Path, notation: str) -> tuple[list[tuple[int, int, str, str, str]], int]:
    """Parse each text of ``path`` in the position its coordinate twin reached.

    Returns the plies where the text's move differs from the twin's, as
    ``(game, ply, text, twin move, move read)``, and the number of loose plies.
    """
    ours = pgn_games(path.read_text(encoding="utf-8"))
    twins = pgn_games((DATA / "uci" / "same-15-games-uci.pgn").read_text(encoding="utf-8"))
    assert len(ours) == len(twins) == 15
    mismatches = []
    loose_plies = 0
    for number, ((tags, texts), (twin_tags, twin_moves)) in enumerate(zip(ours, twins), start=1):
        assert tags["Red"] == twin_tags["Red"] and len(texts) == len(twin_moves) > 20
        pos = Position()
        for ply, (text, uci) in enumerate(zip(texts, twin_moves), start=1):
            move, loose = read_move(pos, text, notation)
            loose_plies += loose
            if str(move) != uci:
                mismatches.append((number, ply, text, uci, str(move)))
            pos.push_legal(Move.from_uci(uci))
    return mismatches, loose_plies


@pytest.mark.parametrize(("name", "notation", "text", "written"), [
    ("pgn-chinese-15.pgn", "chinese", "后兵进一", "前兵进一"),
    ("pgn-chinese-15.pgn", "auto", "后兵进一", "前兵进一"),
    ("pgn-wxf-fullwidth-15.pgn", "wxf", "－Ｐ＋１", "P++1"),
    ("pgn-wxf-fullwidth-15.pgn", "auto", "－Ｐ＋１", "P++1"),
])
def test_fifteen_games_match_their_coordinate_twins(name: str, notation: str, text: str,
                                                    written: str) -> None:
    mismatches, loose_plies = twin_mismatches(DATA / name, notation)
    # Game 2, move 36 (ply 71): the text names the rear pawn (e3e4); the coordinates move
    # the front one (e5e6). We read what the text says, and write the twin's move as 前兵.
    assert mismatches == [(2, 71, text, "e5e6", "e3e4")]
    assert loose_plies == 0
    twins = pgn_games((DATA / "uci" / "same-15-games-uci.pgn").read_text(encoding="utf-8"))
    pos = Position()
    for uci in twins[1][1][:70]:
        pos.push(Move.from_uci(uci))
    assert write_move(pos, Move.from_uci("e5e6"), notation if notation != "auto" else
                      ("chinese" if name.startswith("pgn-chinese") else "wxf")) == written


@pytest.mark.parametrize(("name", "notation"), [
    ("pgn-chinese-15.pgn", "chinese"), ("pgn-wxf-fullwidth-15.pgn", "wxf")])
def test_a_reader_says_the_piece_is_alone_on_its_file_only_when_it_is(name: str,
                                                                      notation: str) -> None:
    """What a replay is told by the reader (that the piece stands alone on its file, so
    its texts follow from the piece and the move) holds on the board at every ply, and
    the texts written from it are the writers' own."""
    describer = REGISTRY[notation].describer
    assert describer is not None
    alone_plies = plies = 0
    for _, texts in pgn_games((DATA / name).read_text(encoding="utf-8")):
        pos = Position()
        for text in texts:
            move, _, alone = describer.read_alone(pos, text)
            piece = pos.board[move.from_square]
            on_file = sum(pos.board[sq] == piece for sq in range(move.from_square % 9, 90, 9))
            assert alone == (on_file == 1), (text, pos.fen())
            if alone:
                assert write_lone_wxf_and_chinese(piece, move) == (
                    write_move(pos, move, "wxf"), write_move(pos, move, "chinese"))
            alone_plies += alone
            plies += 1
            pos.push(move)
    # The 17 others move one of two pieces on a file, told apart by 前/后 (+/-).
    assert (plies, alone_plies) == (1378, 1361)


def gbk_games() -> list[tuple[str, dict[str, str], list[str]]]:
    out = []
    for path in sorted((DATA / "pgn-gbk").glob("*.PGN")):
        text = path.read_bytes().decode("gb18030")
        text = text.split("=====", 1)[0]  # xqbase's advertisement follows the result
        (tags, moves), = pgn_games(text)
        out.append((path.name, tags, moves))
    return out


def test_every_gbk_game_replays_and_writes_back_its_own_text() -> None:
    games = gbk_games()
    assert len(games) == 20
    plies = 0
    for name, tags, texts in games:
        pos = Position()
        for ply, text in enumerate(texts, start=1):
            move, loose = read_move(pos, text, "chinese")
            assert not loose, (name, ply, text)
            assert write_move(pos, move, "chinese") == text, (name, ply)
            pos.push(move)
            plies += 1
        ending = pos.outcome()
        if ending is not None:
            # Mate and stalemate lose for the side to move: the Result tag must agree.
            assert tags["Result"] == ending.result(), name
    assert plies == 1916


def ccpd_games(archive_path: Path, stride: int) -> list[tuple[str, dict[str, str], list[str]]]:
    out = []
    with zipfile.ZipFile(archive_path) as archive:
        names = sorted(n for n in archive.namelist() if n.lower().endswith(".pgn"))
        for name in names[::stride]:
            for tags, moves in pgn_games(archive.read(name).decode("big5")):
                out.append((name, tags, moves))
    return out


def test_ccpd_sample_replays_and_loose_plies_are_exactly_the_sloppy_texts(
        shared_data: Path) -> None:
    games = ccpd_games(shared_data / "ccpd-dev.zip", stride=8)
    replayed = plies = loose_plies = 0
    for name, tags, texts in games:
        try:
            pos = Position.from_fen(tags["FEN"]) if tags.get("FEN") else Position()
        except FenError:
            continue  # a position problem, not a notation one
        for ply, text in enumerate(texts, start=1):
            move, loose = read_move(pos, text, "chinese")
            written = write_move(pos, move, "chinese-traditional")
            # A loose text wrote the file number where 前/後 was due; any other text is
            # exactly what we write.
            if loose:
                assert written[0] in "前後" and text[0] not in "前後中", (name, ply, text)
                loose_plies += 1
            else:
                assert written == text, (name, ply, text, written)
            pos.push(move)
            plies += 1
        replayed += 1
    assert replayed >= 1400 and plies > 100_000
    assert loose_plies > 100
