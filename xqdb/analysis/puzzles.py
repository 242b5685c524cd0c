"""Puzzles from blunders: the positions where only one move keeps the win.

After a blunder, the opponent is to move. As lichess's puzzle miner does, the punishing
line is checked again with MultiPV 2 at a deeper limit than the analysis: the position is
a puzzle when the best move wins (the side to move's expected score reaches
:attr:`PuzzleRule.wins`) and the second best does not (it stays below
:attr:`PuzzleRule.second_below`): only a move that keeps the win counts as a solution. The
line then goes on with the engine's reply, and the solution grows while the solver's next
move is again the only one that keeps the win (up to :attr:`PuzzleRule.moves`). A
position with a single legal move is no puzzle. Every candidate that is not one is counted
under the test it failed (:class:`PuzzleCount`), so a short list says why.

The puzzles are written as PGN games from a ``FEN`` tag, the game's own tags beside it,
the solution in Chinese notation:

>>> from xqdb.engine import EngineSpec, Limit, SupervisedEngine
>>> from xqdb.analysis.judgement import JudgedMove
>>> hung = JudgedMove(7, 1, "black", None, "d9d8", "d4d8", 0.9, "blunder", "xqdb built-in",
...                   "3k5/9/9/9/9/3r5/9/2N6/9/4K4 b")
>>> count = PuzzleCount()
>>> with SupervisedEngine(EngineSpec.builtin()) as engine:
...     found = list(find_puzzles(engine, Limit(depth=2), [hung, hung], WinCurve(), count=count))
>>> len(found), [str(m) for m in found[0].solution][:1], found[0].fen
(1, ['c2d4'], '9/3k5/9/9/9/3r5/9/2N6/9/4K4 w - - 1 2')
>>> count.tried, count.failed["met before"]
(2, 1)
>>> print(puzzle_pgn(found[0], 1, {"Black": "黎德志"}).splitlines()[3])
[Black "黎德志"]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

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
    """Least expected score of the best move for the side to move: it keeps the win."""
    second_below: float = 0.60
    """The second best move must stay below this: it does not keep the win."""
    moves: int = 3
    """Most solver moves in a solution."""


#: The tests a candidate can fail, in the order they are tried.
FAILURES = ("met before", "one legal move", "engine failed", "no winning reply",
            "a second winning move")


@dataclass
class PuzzleCount:
    """How many blunders were tried, and how many failed each test."""

    tried: int = 0
    found: int = 0
    failed: Counter[str] = field(default_factory=Counter)

    def __str__(self) -> str:
        """The reasons, in words.

        >>> print(PuzzleCount(5, 1, Counter({"a second winning move": 4})))
        1 puzzle from 5 blunders tried; 4 with a second winning move
        """
        text = f"{self.found} puzzle{'s' * (self.found != 1)} from {self.tried} blunders tried"
        reasons = [f"{self.failed[name]} {_REASON[name]}" for name in FAILURES
                   if self.failed[name]]
        return text + ("; " + ", ".join(reasons) if reasons else "")


_REASON = {"met before": "met before (the same position)",
           "one legal move": "with a single legal reply",
           "engine failed": "that the engine failed on",
           "no winning reply": "where the deeper check finds no winning reply",
           "a second winning move": "with a second winning move"}


@dataclass(frozen=True)
class Puzzle:
    """The position after a blunder, and the line that punishes it."""

    blunder: JudgedMove
    fen: str
    """The position after the blunder: the punishing side is to move."""
    solution: tuple[Move, ...]
    """The solver's only winning moves with the engine's replies between them."""
    best: float
    """The side to move's expected score after the best move."""
    second: float
    """... and after the second best."""


def _only_win(engine: SupervisedEngine, pos: Position, limit: Limit, curve: WinCurve,
              rule: PuzzleRule, ply: int) -> tuple[str | None, list[Move], float, float]:
    """``(failure, line, best, second)``: the failed test's name (``None`` when only one
    move keeps the win), the engine's line and both expected scores (``pos`` is the
    position after ``ply`` plies of its game)."""
    if len(pos.legal_moves()) < 2:
        return "one legal move", [], 0.0, 0.0
    try:
        lines = engine.analyse(Position.from_fen(pos.fen()), limit, multipv=2)
    except PositionFailedError:
        return "engine failed", [], 0.0, 0.0
    if len(lines) < 2 or not lines[0].pv:
        return "engine failed", [], 0.0, 0.0
    best, second = (Evaluation.from_info(line).expectation(curve, ply, pos.turn)
                    for line in lines[:2])
    if best < rule.wins:
        return "no winning reply", list(lines[0].pv), best, second
    if second >= rule.second_below:
        return "a second winning move", list(lines[0].pv), best, second
    return None, list(lines[0].pv), best, second


def find_puzzles(engine: SupervisedEngine, limit: Limit, blunders: Iterable[JudgedMove],
                 curve: WinCurve, rule: PuzzleRule = PuzzleRule(), *,
                 count: PuzzleCount | None = None) -> Iterator[Puzzle]:
    """The puzzles among the positions after ``blunders``, checked with MultiPV 2 at
    ``limit`` (deeper than the analysis); ``curve`` turns the engine's centipawns into
    expected scores. ``count`` is told how many were tried and why each other failed."""
    count = count if count is not None else PuzzleCount()
    seen: set[str] = set()
    for blunder in blunders:
        count.tried += 1
        pos = Position.from_fen(blunder.fen)
        pos.push_text(blunder.move, "uci")
        if pos.fen() in seen:
            count.failed["met before"] += 1
            continue
        seen.add(pos.fen())
        failure, line, best, second = _only_win(engine, pos, limit, curve, rule, blunder.ply)
        if failure is not None:
            count.failed[failure] += 1
            continue
        solution = [line[0]]
        # Go on while the solver's next move is again the only one that keeps the win.
        board = Position.from_fen(pos.fen())
        reply = line[1] if len(line) > 1 else None
        while len(solution) < 2 * rule.moves - 1 and reply is not None:
            board.push(solution[-1])
            if not board.is_legal(reply):
                break
            board.push(reply)
            further, more, _, _ = _only_win(engine, board, limit, curve, rule,
                                            blunder.ply + len(solution) + 1)
            if further is not None or not more:
                break
            solution += [reply, more[0]]
            reply = more[1] if len(more) > 1 else None
        count.found += 1
        yield Puzzle(blunder, pos.fen(), tuple(solution), best, second)


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def puzzle_pgn(puzzle: Puzzle, number: int, game_tags: Mapping[str, str] | None = None, *,
               plies: int = 5) -> str:
    """One puzzle as a PGN game: tags naming where it comes from (the game's own
    ``game_tags``: Event, Date, Red, Black...), the ``FEN`` tag, and the first ``plies``
    moves of the solution in Chinese notation (those that are legal)."""
    blunder = puzzle.blunder
    pos = Position.from_fen(puzzle.fen)
    tags = {"Event": f"xqdb puzzle {number}", "Site": f"game {blunder.game_id}, ply "
            f"{blunder.ply}", "Red": "?", "Black": "?", "Result": "*", "SetUp": "1",
            "FEN": puzzle.fen, "Annotator": blunder.engine}
    if blunder.player:
        tags["Red" if blunder.side == "red" else "Black"] = blunder.player
    for name, value in (game_tags or {}).items():
        if value and name not in ("Result", "SetUp", "FEN", "Site", "Annotator"):
            tags["Event" if name == "Event" else name] = (
                f"{value} (xqdb puzzle {number})" if name == "Event" else value)
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
