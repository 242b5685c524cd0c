"""The built-in engine served over UCI (ranks 0-9), so that any UCI client can run it.

``xqdb engine`` calls :func:`serve` on its standard input and output. Commands: ``uci``,
``isready``, ``ucinewgame``, ``setoption name MultiPV value N``, ``setoption name UCI_ShowWDL
value true`` (win/draw/loss per mille from the engine's win curve), ``position startpos|fen FEN
[moves ...]``, ``go [depth N] [nodes N] [movetime MS] [infinite]``, ``stop``, ``quit``. The
search runs in a thread, so ``stop`` and ``isready`` are answered while it thinks. A move
list is read in full or not at all: an illegal move is reported with ``info string`` and
the position is left unset, never silently cut short.

>>> import io
>>> out = io.StringIO()
>>> serve(io.StringIO("uci\\nposition fen 3k5/9/9/9/9/9/9/9/9/R3K4 w\\ngo depth 2\\nquit\\n"), out)
>>> [line for line in out.getvalue().splitlines() if line.startswith(("id name", "bestmove"))]
['id name xqdb built-in', 'bestmove a0d0']
"""

from __future__ import annotations

import threading
from typing import IO

from ..rules.board import RED, Move
from ..position import Position
from ..rules.position import STARTING_FEN, FenError
from .score import curve_for
from .builtin import Line, Searcher, SearchResult
from .score import Cp

ENGINE_NAME = "xqdb built-in"
MAX_MULTIPV = 16


class _Server:
    def __init__(self, output: IO[str]) -> None:
        self.output = output
        self.lock = threading.Lock()
        self.searcher = Searcher()
        self.position: Position | None = Position()
        self.multipv = 1
        self.show_wdl = False
        self.turn = RED
        """The side to move of the position searched: the curve's WDL depends on it."""
        self.thread: threading.Thread | None = None
        self.stop = threading.Event()

    def send(self, line: str) -> None:
        with self.lock:
            self.output.write(line + "\n")
            self.output.flush()

    def handle(self, line: str) -> bool:
        """Obey one command; ``False`` once it was ``quit``."""
        words = line.split()
        if not words:
            return True
        command = words[0]
        if command == "uci":
            self.send(f"id name {ENGINE_NAME}")
            self.send("id author the xqdb authors")
            self.send(f"option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}")
            self.send("option name UCI_ShowWDL type check default false")
            self.send("uciok")
        elif command == "isready":
            self.send("readyok")
        elif command == "ucinewgame":
            self.wait()
            self.searcher.clear()
        elif command == "setoption":
            self.setoption(words[1:])
        elif command == "position":
            self.wait()
            self.set_position(words[1:])
        elif command == "go":
            self.wait()
            self.go(words[1:])
        elif command == "stop":
            self.wait()
        elif command == "quit":
            self.wait()
            return False
        else:
            self.send(f"info string unknown command {command}")
        return True

    def setoption(self, words: list[str]) -> None:
        text = " ".join(words)
        name, _, value = text.partition(" value ")
        name = name.removeprefix("name ").strip()
        if name.lower() == "multipv" and value.strip().isdigit():
            self.multipv = max(1, min(MAX_MULTIPV, int(value)))
        elif name.lower() == "uci_showwdl":
            self.show_wdl = value.strip().lower() == "true"
        else:
            self.send(f"info string no such option: {name}")

    def set_position(self, words: list[str]) -> None:
        if "moves" in words:
            at = words.index("moves")
            words, moves = words[:at], words[at + 1:]
        else:
            moves = []
        fen = STARTING_FEN if words[:1] == ["startpos"] else " ".join(words[1:])
        try:
            position = Position.from_fen(fen)
            for text in moves:
                move = Move.from_uci(text)
                if not position.is_legal(move):
                    raise ValueError(f"illegal move {text}: {position.explain_illegal(move)}")
                position.push(move)
        except (FenError, ValueError) as exc:
            self.position = None
            self.send(f"info string position not set: {exc}")
            return
        self.position = position

    def go(self, words: list[str]) -> None:
        limits: dict[str, int] = {}
        for name, value in zip(words, words[1:]):
            if name in ("depth", "nodes", "movetime") and value.isdigit():
                limits[name] = int(value)
        position = self.position
        if position is None:
            self.send("bestmove (none)")
            return
        seconds = limits["movetime"] / 1000 if "movetime" in limits else None
        self.stop = threading.Event()
        self.thread = threading.Thread(
            target=self.search, args=(position, limits.get("depth"), limits.get("nodes"), seconds),
            daemon=True)
        self.thread.start()

    def search(self, position: Position, depth: int | None, nodes: int | None,
               seconds: float | None) -> None:
        self.turn = position.turn
        result = self.searcher.search(position, depth=depth, nodes=nodes, seconds=seconds,
                                      multipv=self.multipv, on_iteration=self.report,
                                      stop=self.stop)
        if not result.lines or not result.lines[0].pv:
            if result.lines:
                self.report(result)
            self.send("bestmove (none)")
        else:
            self.send(f"bestmove {result.lines[0].pv[0].uci()}")

    def report(self, result: SearchResult) -> None:
        ms = max(1, round(result.seconds * 1000))
        for index, line in enumerate(result.lines, 1):
            mate = line.mate
            score = f"mate {mate}" if mate is not None else f"cp {line.score}"
            wdl = f" wdl {_wdl(line, self.turn)}" if self.show_wdl else ""
            pv = " ".join(move.uci() for move in line.pv)
            self.send(f"info depth {result.depth} seldepth {result.seldepth} multipv {index} "
                      f"score {score}{wdl} nodes {result.nodes} nps {result.nodes * 1000 // ms} "
                      f"time {ms}" + (f" pv {pv}" if pv else ""))

    def wait(self) -> None:
        """Stop the running search, if any, once it has said its best move."""
        if self.thread is not None:
            self.stop.set()
            self.thread.join()
            self.thread = None


def _wdl(line: Line, turn: int) -> str:
    """``W D L`` per mille for the side to move, ``turn``, from the built-in engine's win
    curve (the engine has no model of draws, so it reports none; nor does it know the ply,
    so the curve's scale is its opening one)."""
    mate = line.mate
    if mate is not None:
        return "1000 0 0" if mate > 0 else "0 0 1000"
    wins = round(1000 * curve_for(ENGINE_NAME).expectation(Cp(line.score), 0, turn))
    return f"{wins} 0 {1000 - wins}"


def serve(input: IO[str], output: IO[str]) -> None:
    """Answer UCI commands from ``input`` on ``output`` until ``quit`` or the end of input."""
    server = _Server(output)
    for line in input:
        if not server.handle(line):
            return
    server.wait()
