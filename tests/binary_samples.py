"""Helpers for the tests of the binary and XML readers: the sample files and a legality
walk over a record's whole line tree.

The walk is iterative (a file may hold hundreds of variations) and uses the rules core
directly, so it checks the readers' decoding independently of the notation writers.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from types import ModuleType

import pyffish

from datafiles import DATA
from xqdb.formats.record import GameRecord, Line, Origin
from xqdb import Move, Position

BINARY = DATA / "binary"


def read_file(module: ModuleType, name: str) -> list[GameRecord]:
    """All records a reader module yields for a sample file."""
    path = BINARY / name
    with path.open("rb") as stream:
        return list(module.read(stream, Origin(str(path))))


def read_bytes(module: ModuleType, data: bytes, name: str = "mutated") -> list[GameRecord]:
    return list(module.read(io.BytesIO(data), Origin(name)))


@dataclass
class Walk:
    """What replaying every line of a record's tree found."""

    moves: int
    """Moves played over the whole tree (main line and all variations)."""
    lines: int
    """Lines walked: the main line plus every variation."""
    illegal: list[str]
    """``path ply move: reason`` of each line's first illegal move."""
    max_depth: int


def walk(record: GameRecord) -> Walk:
    """Play every line of ``record`` from its start position, checking each move."""
    start = Position.from_fen(record.fen) if record.fen else Position()
    todo: list[tuple[Position, Line, str, int]] = [(start, record.mainline, "main", 0)]
    result = Walk(0, 0, [], 0)
    while todo:
        pos, line, path, depth = todo.pop()
        result.lines += 1
        result.max_depth = max(result.max_depth, depth)
        branches: dict[int, list[Line]] = {}
        for index, variation in line.variations:
            branches.setdefault(index, []).append(variation)
        for ply, text in enumerate(line.moves):
            for n, variation in enumerate(branches.get(ply, ())):
                todo.append((pos.copy(), variation, f"{path}/{ply + 1}.{n + 1}", depth + 1))
            move = Move.from_uci(text)
            if not pos.is_legal(move):
                result.illegal.append(f"{path} ply {ply + 1} {text}: {pos.explain_illegal(move)}")
                break
            pos.push(move)
            result.moves += 1
    return result


_RANKS = re.compile(r"([a-i])(\d)([a-i])(\d)")


def ffish_rejects(record: GameRecord) -> str | None:
    """The first main-line move Fairy-Stockfish does not accept, or ``None``.

    pyffish writes ranks 1-10, so our ``h2e2`` is its ``h3e3``.
    """
    fen = record.fen or pyffish.start_fen("xiangqi")
    played: list[str] = []
    for ply, text in enumerate(record.moves, start=1):
        theirs = _RANKS.sub(lambda m: f"{m[1]}{int(m[2]) + 1}{m[3]}{int(m[4]) + 1}", text)
        if theirs not in pyffish.legal_moves("xiangqi", fen, played):
            return f"ply {ply} {text}"
        played.append(theirs)
    return None
