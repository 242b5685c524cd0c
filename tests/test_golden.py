"""Golden values: the keys a database stores must never change silently.

Zobrist keys (``moves.key_before``/``key_after``, ``games.start_key``/``final_key``) and
content hashes (``games.content_hash``, which decide what is a duplicate) are compared
across databases built months apart. A change to the key table, the move codes or the
hash input would split every old game from its new twin, so the values are pinned here;
changing one of them is a change of the database format and needs an upgrade path.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from datafiles import SAMPLE_GAMES
from xqdb import Move, Position
from xqdb.db.dedupe import content_hash
from xqdb.formats import read_paths
from xqdb.pipeline.importer import import_paths
from xqdb.replay import replay

START_KEY = 0x7D5B48F105E561F2

#: (FEN or moves from the start, key): a few positions of every kind.
ZOBRIST = [
    ("", START_KEY),
    ("h2e2", 0x101886D3930EADCB),                     # black to move
    ("h2e2 h9g7", 0x492F3C94D274966B),
    ("4kab2/1r1na4/2c1b3n/p1p2cp2/4p3p/2PN1NPR1/P3P3P/Cr2B4/4A4/R2CKAB2 w - - 0 1",
     0x1849F2CDE44518C9),                            # the CCPD midgame of tests/data/ccpd
    ("3k5/9/9/9/9/9/9/9/9/4K4 w", 0x73092C9E8CCE75E5),  # kings alone
]

#: The sample games' content hashes: (file, plies, hash).
CONTENT_HASHES = [
    ("ccpd-endgame-big5.pgn", 43, 0x18BD28077A9BCC1E),
    ("ccpd-hu-ronghua-big5.pgn", 78, 0x9E07336F2351134B),
    ("eleeye-01-gbk.pgn", 26, 0xCEA5459599FA2171),
    ("huang-songxuan-feng-jingru.xqf", 37, 0x2720C7962A85CF06),
    ("liu-dahua-coordinates.pgn", 76, 0x77F8FE676D74893A),
    ("wxf-championship-1997.html", 85, 0x9313661FCC936F4A),
    ("zhao-guorong-ke-yongqing-wxf.pgn", 127, 0xD5C2ED229460924B),
]


def _position(text: str) -> Position:
    if "/" in text:
        return Position.from_fen(text)
    pos = Position()
    for move in text.split():
        pos.push(Move.from_uci(move))
    return pos


@pytest.mark.parametrize("text, key", ZOBRIST, ids=[t or "start" for t, _ in ZOBRIST])
def test_zobrist_keys_are_pinned(text: str, key: int) -> None:
    assert _position(text).zobrist() == key


@pytest.mark.parametrize("name, plies, key", CONTENT_HASHES, ids=[n for n, _, _ in CONTENT_HASHES])
def test_content_hashes_of_real_games_are_pinned(name: str, plies: int, key: int) -> None:
    record, = read_paths([str(SAMPLE_GAMES / name)])
    game = replay(record)
    assert game.is_valid and game.plies == plies
    assert content_hash(game.start_fen, [move.code for move in game.moves]) == key


def test_an_imported_database_stores_the_pinned_values(tmp_path: Path) -> None:
    db = tmp_path / "sample.duckdb"
    import_paths([str(SAMPLE_GAMES)], db, jobs=1)
    con = duckdb.connect(str(db), read_only=True)
    try:
        stored = set(con.execute("SELECT content_hash, plies FROM games").fetchall())
        first_plies = con.execute(
            "SELECT m.key_before, m.key_after FROM moves m JOIN games g USING (game_id) "
            "WHERE g.content_hash = ? AND m.ply = 1", [CONTENT_HASHES[4][2]]).fetchall()
        start_keys = {key for key, in con.execute(
            "SELECT start_key FROM games WHERE start_fen LIKE 'rnbakabnr/9/1c5c1/%'").fetchall()}
    finally:
        con.close()
    assert stored == {(key, plies) for _, plies, key in CONTENT_HASHES}
    # The coordinate game opens with h2e2.
    assert first_plies == [(START_KEY, ZOBRIST[1][1])]
    assert start_keys == {START_KEY}
