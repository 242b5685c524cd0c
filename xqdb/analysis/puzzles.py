"""Puzzles from blunders: the positions where only one move punishes the mistake.

After a blunder, the opponent is to move. The position is a puzzle when the engine, asked
for its two best lines (MultiPV 2), finds that the best move wins (the side to move's
expected score reaches :attr:`PuzzleRule.wins`) and that the second best falls short of it
by at least :attr:`PuzzleRule.margin`: the punishing move is the only one. (Lichess's
puzzle miner asks the same, a winning-chances gap of 0.7 on its -1..1 scale, which is 0.35
of an expected score.) A position with a single legal move is no puzzle.

The puzzles are written as PGN games from a ``FEN`` tag, the solution in Chinese notation:

>>> from xqdb.engine import EngineSpec, Limit, SupervisedEngine
>>> from xqdb.analysis.judgement import JudgedMove
>>> hung = JudgedMove(7, 1, "black", None, "d9d8", "d4d8", 0.9, "blunder", "xqdb built-in",
...                   "3k5/9/9/9/9/3r5/9/2N6/9/4K4 b")
>>> with SupervisedEngine(EngineSpec.builtin()) as engine:
...     found = list(find_puzzles(engine, Limit(depth=2), [hung, hung], WinCurve()))
>>> len(found), [str(m) for m in found[0].solution][:1], found[0].fen
(1, ['c2d4'], '9/3k5/9/9/9/3r5/9/2N6/9/4K4 w - - 1 2')
>>> print(puzzle_pgn(found[0], 1).splitlines()[-1])
1. 马七进六 将４退１ *
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..position import Position
from ..rules.board import Move
from ..engine.score import WinCurve
from .games import Evaluation
from .judgement import JudgedMove
from ..engine.runner import PositionFailedError, SupervisedEngine
from ..engine.score import Limit


@dataclass(frozen=True)
class PuzzleRule:
    """When the best reply to a blunder makes a puzzle."""

    wins: float = 0.70
    """Least expected score of the best move for the side to move."""
    margin: float = 0.35
    """Least gap between the expected scores of the best and the second best move."""


@dataclass(frozen=True)
class Puzzle:
    """The position after a blunder, and the line that punishes it."""

    blunder: JudgedMove
    fen: str
    """The position after the blunder: the punishing side is to move."""
    solution: tuple[Move, ...]
    """The engine's line from the punishing move on."""
    best: float
    """The side to move's expected score after the best move."""
    second: float
    """... and after the second best."""


def find_puzzles(engine: SupervisedEngine, limit: Limit, blunders: Iterable[JudgedMove],
                 curve: WinCurve, rule: PuzzleRule = PuzzleRule()) -> Iterator[Puzzle]:
    """The puzzles among the positions after ``blunders``, checked with MultiPV 2 at
    ``limit``; ``curve`` turns the engine's centipawns into expected scores. A position the
    engine fails on is passed over, and so is one met before (the same blunder judged by
    several analyses, or played in several games)."""
    seen: set[str] = set()
    for blunder in blunders:
        pos = Position.from_fen(blunder.fen)
        pos.push_text(blunder.move, "uci")
        if pos.fen() in seen or len(pos.legal_moves()) < 2:
            continue
        seen.add(pos.fen())
        try:
            lines = engine.analyse(Position.from_fen(pos.fen()), limit, multipv=2)
        except PositionFailedError:
            continue
        if len(lines) < 2 or not lines[0].pv:
            continue
        best, second = (Evaluation.from_info(line).expectation(curve) for line in lines[:2])
        if best >= rule.wins and best - second >= rule.margin:
            yield Puzzle(blunder, pos.fen(), tuple(lines[0].pv), best, second)


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def puzzle_pgn(puzzle: Puzzle, number: int, *, plies: int = 5) -> str:
    """One puzzle as a PGN game: tags naming where it comes from, the ``FEN`` tag, and the
    first ``plies`` moves of the solution in Chinese notation (those that are legal)."""
    blunder = puzzle.blunder
    pos = Position.from_fen(puzzle.fen)
    tags = {"Event": f"xqdb puzzle {number}", "Site": f"game {blunder.game_id}, ply "
            f"{blunder.ply}", "Red": "?", "Black": "?", "Result": "*", "SetUp": "1",
            "FEN": puzzle.fen, "Annotator": blunder.engine}
    if blunder.player:
        tags["Red" if blunder.side == "red" else "Black"] = blunder.player
    texts = []
    number_of_move, red_to_move = 1, pos.turn > 0
    for move in puzzle.solution[:plies]:
        if not pos.is_legal(move):
            break
        text = pos.move_text(move, "chinese")
        if red_to_move:
            texts.append(f"{number_of_move}. {text}")
        else:
            texts.append(f"{number_of_move}... {text}" if not texts else text)
            number_of_move += 1
        pos.push(move)
        red_to_move = not red_to_move
    comment = (f"{{{blunder.side} played {blunder.move} ({blunder.judgement}, loss "
               f"{blunder.loss:.2f}); best {puzzle.best:.2f}, second best {puzzle.second:.2f}}}")
    head = "\n".join(f'[{name} "{_quoted(value)}"]' for name, value in tags.items())
    return f"{head}\n\n{comment}\n{' '.join(texts)} *\n"
