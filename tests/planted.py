"""Planted blunders: real games with one move replaced by a quiet move that hangs a chariot.

From the master games of ``uci/liu-dahua-1125.pgn`` (maksimKorzh/wukong-xiangqi), for each
game the first ply from :data:`FIRST_PLY` on where the game is quiet (material level, no
exchange under way, no check) and the mover has a legal quiet move (no capture, no check)
after which the opponent takes a chariot and the mover can win back no more than a pawn at
once. That move replaces the real one; the planted game goes on with the capture.
Deterministic: the same games come back every run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xqdb.engine.builtin import PIECE_VALUES, material
from xqdb import Position
from xqdb.rules import CHARIOT, Move

from positions import LIU_DAHUA, coordinate_games

#: Plant no earlier than this ply: the opening is book, not play.
FIRST_PLY = 20


@dataclass(frozen=True)
class PlantedBlunder:
    game: int
    """1-based index of the game in its file (``liu-dahua-1125.pgn`` by default)."""
    ply: int
    """1-based ply of the planted move."""
    real_moves: list[Move]
    """The real game up to one ply past :attr:`ply`."""
    planted_moves: list[Move]
    """The real game up to :attr:`ply` - 1, the planted move, and the capture of the chariot."""


def _quiet(pos: Position, real: Move) -> bool:
    """Material level, no exchange under way: neither the last move nor the real one
    captures, and the mover is not in check."""
    return (abs(material(pos)) <= 100 and not pos.last_capture() and not pos.is_check()
            and not pos.board[real.to_square])


def _best_capture(pos: Position) -> int:
    return max((PIECE_VALUES[abs(pos.board[m.to_square])] for m in pos.legal_moves()
                if pos.board[m.to_square]), default=0)


def _chariot_hanger(pos: Position, real: Move) -> tuple[Move, Move] | None:
    """A quiet move other than ``real`` that leaves a chariot to be taken for free, and the
    capture that takes it."""
    side = pos.turn
    for move in pos.legal_moves():
        if move == real or pos.board[move.to_square] or pos.gives_check(move):
            continue
        pos.push(move)
        try:
            for capture in pos.legal_moves():
                if pos.board[capture.to_square] != CHARIOT * side:
                    continue
                pos.push(capture)
                free = pos.has_legal_moves() and _best_capture(pos) <= PIECE_VALUES[CHARIOT] // 9
                pos.pop()
                if free:
                    return move, capture
        finally:
            pos.pop()
    return None


def planted_blunders(count: int, path: Path = LIU_DAHUA) -> list[PlantedBlunder]:
    """The first ``count`` planted blunders, one per game, in file order, from the
    coordinate games of ``path``."""
    cases: list[PlantedBlunder] = []
    for number, texts in enumerate(coordinate_games(path), 1):
        moves = [Move.from_uci(t) for t in texts]
        pos = Position()
        for index, move in enumerate(moves[:-1]):
            if not pos.is_legal(move):
                break
            if index + 1 >= FIRST_PLY and _quiet(pos, move):
                found = _chariot_hanger(pos, move)
                if found is not None:
                    cases.append(PlantedBlunder(number, index + 1, moves[:index + 2],
                                                moves[:index] + list(found)))
                    break
            pos.push(move)
        if len(cases) == count:
            break
    return cases
