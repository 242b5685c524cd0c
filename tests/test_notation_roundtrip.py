"""Notation round trip over the real position set of ``positions.py``.

For every legal move of every position (openings, middlegames, endgames, positions in
check, EPD endgame studies), the text written in each notation reads back as the same move,
strictly (never *loose*), both under its own notation name and with ``auto``.
"""

from __future__ import annotations

import pytest

from positions import oracle_positions, positions_by_kind
from xqdb import Position
from xqdb.notation import (
    WRITTEN_NOTATIONS, read_move, sniff, write_move, write_wxf_and_chinese,
)

pytestmark = pytest.mark.usefixtures("shared_data")  # the position set comes from the corpus


def test_the_position_set_covers_every_kind() -> None:
    kinds = positions_by_kind()
    assert len(oracle_positions()) >= 3000
    assert all(len(kinds[k]) >= 100 for k in ("opening", "middlegame", "endgame", "check", "epd"))
    assert all(Position.from_fen(fen).is_check() for fen in kinds["check"])


@pytest.mark.slow
def test_every_legal_move_round_trips_in_every_notation() -> None:
    failures: list[str] = []
    moves = 0
    tandem = 0
    for fen in oracle_positions():
        pos = Position.from_fen(fen)
        for move in pos.legal_moves():
            moves += 1
            for notation in WRITTEN_NOTATIONS:
                text = write_move(pos, move, notation)
                # Ranks 1-10 cannot be told from ranks 0-9 by one text without a "10" in
                # it; algebraic texts are read as WinBoard's ranks 0-9 by ``auto``.
                auto = notation not in ("uci10", "san-fsf") or notation == sniff(text)
                names = (notation, "auto") if auto else (notation,)
                for name in names:
                    try:
                        back = read_move(pos, text, name)
                    except ValueError as exc:
                        back = (str(exc), None)
                    if back != (move, False):
                        failures.append(f"{fen} {move} {notation} {text!r} read as {name}: {back}")
            if write_move(pos, move, "chinese")[0] in "前中后二三四五":
                tandem += 1
    assert not failures, f"{len(failures)} failures, first: {failures[:5]}"
    assert moves > 150_000
    assert tandem > 1_000  # the set really exercises tandem pieces


@pytest.mark.slow
def test_texts_of_one_position_are_distinct() -> None:
    """A writer never gives two legal moves the same text (checked per notation)."""
    for fen in oracle_positions()[::7]:
        pos = Position.from_fen(fen)
        legal = pos.legal_moves()
        for notation in ("chinese", "chinese-traditional", "wxf"):
            texts = {write_move(pos, move, notation) for move in legal}
            assert len(texts) == len(legal), (fen, notation)


def test_writing_both_piece_notations_at_once_gives_each_writers_text() -> None:
    """``write_wxf_and_chinese`` (what replay uses) takes a shortcut for lone pieces; it
    must agree with the two writers everywhere, tandem pieces included."""
    moves = tandem = 0
    for fen in oracle_positions()[::3]:
        pos = Position.from_fen(fen)
        for move in pos.legal_moves():
            both = write_wxf_and_chinese(pos.board, move)
            assert both == (write_move(pos, move, "wxf"), write_move(pos, move, "chinese")), \
                (fen, str(move))
            moves += 1
            tandem += both[1][0] in "前中后二三四五"
    assert moves > 50_000 and tandem > 300
