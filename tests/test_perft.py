"""Perft: the move generator against the published counts of ``tests/data/perft.tsv``.

Depths 1-3 run in the regular suite; depth 4 (about 20 million nodes in all) is marked
slow, one test per position so progress shows, and runs in CI (``.ci/run``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from datafiles import DATA
from xqdb import Move, Position
from xqdb.rules import divide, perft

PERFT_TSV = DATA / "perft.tsv"

#: Depths 1-3 of the two positions whose published line only gives depth 4; the values
#: come from Fairy-Stockfish runs (rules-and-engines.md, section 5).
FAIRY_STOCKFISH_COUNTS = {
    "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1": (49, 2265, 100326),
    "4kcP1N/8n/3rb4/9/9/9/9/3p1A3/4K4/5CB2 w - - 0 1": (13, 272, 3707),
}


def read_perft_table(path: Path = PERFT_TSV) -> list[tuple[str, dict[int, int]]]:
    """``(fen, {depth: nodes})`` for every line; empty cells are depths not published."""
    table = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fen, *cells = line.split("\t")
        counts = {depth: int(cell) for depth, cell in enumerate(cells, start=1) if cell.strip()}
        for depth, nodes in enumerate(FAIRY_STOCKFISH_COUNTS.get(fen, ()), start=1):
            counts.setdefault(depth, nodes)
        table.append((fen, counts))
    return table


TABLE = read_perft_table()


def _ids() -> list[str]:
    return [f"pos{i + 1}" for i in range(len(TABLE))]


def test_table_is_complete() -> None:
    assert len(TABLE) == 13
    for fen, counts in TABLE:
        assert {1, 2, 3, 4} <= counts.keys(), fen


@pytest.mark.parametrize("fen, counts", TABLE, ids=_ids())
def test_perft_to_depth_3(fen: str, counts: dict[int, int]) -> None:
    pos = Position.from_fen(fen)
    key, board_fen = pos.zobrist(), pos.fen()
    for depth in (1, 2, 3):
        assert perft(pos, depth) == counts[depth], f"depth {depth}"
    # Every push was undone exactly: same board, same incrementally kept key.
    assert pos.fen() == board_fen
    assert pos.zobrist() == key


@pytest.mark.slow
@pytest.mark.parametrize("fen, counts", TABLE, ids=_ids())
def test_perft_depth_4(fen: str, counts: dict[int, int]) -> None:
    assert perft(Position.from_fen(fen), 4) == counts[4]


def test_divide_sums_to_perft_and_names_every_first_move() -> None:
    fen, counts = TABLE[1]
    pos = Position.from_fen(fen)
    split = divide(pos, 2)
    assert sum(split.values()) == counts[2]
    assert set(split) == set(pos.legal_moves())
    assert len(split) == counts[1]


def test_start_position_first_moves() -> None:
    split = divide(Position(), 1)
    assert len(split) == 44
    assert Move.from_uci("h2e2") in split and Move.from_uci("b0c2") in split
    assert Move.from_uci("a0a3") not in split  # the pawn on a3 blocks the chariot
