"""Engine processes for tests: a watcher that signals the running engine, and an engine that
prints what it is told to."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

from xqdb.engine import EngineSpec, SupervisedEngine


def signal_engine(engine: SupervisedEngine, times: int, after: float,
                  sig: int = signal.SIGKILL) -> threading.Thread:
    """Send ``sig`` to ``engine``'s process ``after`` seconds once it is running, and again to
    each replacement, ``times`` processes in all. Join the returned thread when done."""
    def watch() -> None:
        seen: set[int] = set()
        deadline = time.monotonic() + 60
        while len(seen) < times and time.monotonic() < deadline:
            pid = engine.pid()
            if pid is not None and pid not in seen:
                time.sleep(after)
                seen.add(pid)
                os.kill(pid, sig)
            time.sleep(0.01)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


#: A UCI engine in a few lines: it answers the handshake, and to ``go`` prints LINES
#: then ``bestmove``, or nothing at all when HANG is set or once it has answered
#: HANG_AFTER searches (counted in a file beside it, so a restarted process goes on
#: counting). LINES may hold a list of lines per search, used in turn.
ENGINE = '''
import pathlib, sys
LINES = {lines!r}
HANG = {hang!r}
HANG_AFTER = {hang_after!r}
COUNT = pathlib.Path(__file__).with_suffix(".count")
searches = int(COUNT.read_text()) if COUNT.exists() else 0
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "uci":
        print("id name scripted"); print("uciok")
    elif word == "isready":
        print("readyok")
    elif word == "go" and not HANG and (HANG_AFTER is None or searches < HANG_AFTER):
        lines = LINES[searches % len(LINES)] if LINES and isinstance(LINES[0], list) else LINES
        searches += 1
        COUNT.write_text(str(searches))
        for out in lines:
            print(out)
        print("bestmove h2e2")
    elif word == "quit":
        break
    sys.stdout.flush()
'''


def scripted_engine(tmp_path: Path, lines: list[str] | list[list[str]], hang: bool = False,
                    hang_after: int | None = None) -> EngineSpec:
    """A real engine process that prints ``lines`` to each ``go`` (see :data:`ENGINE`)."""
    script = tmp_path / "engine.py"
    script.write_text(ENGINE.format(lines=lines, hang=hang, hang_after=hang_after))
    return EngineSpec((sys.executable, str(script)), "uci")


#: A UCI engine that plays legal moves (it replays the position with xqdb) and prints for
#: each search in turn the next of SCORES as its centipawns, with its move as the PV.
LYING_ENGINE = '''#!{python}
import sys
SCORES = {scores!r}
searches, position = 0, None
for line in sys.stdin:
    words = line.split()
    word = words[0] if words else ""
    if word == "uci":
        print("id name lying"); print("uciok")
    elif word == "isready":
        print("readyok")
    elif word == "position":
        from xqdb import Position  # after the greeting, which has a short timeout
        from xqdb.rules.board import Move
        fen = " ".join(words[2:words.index("moves")] if "moves" in words else words[2:])
        position = Position.from_fen(fen) if words[1] == "fen" else Position()
        for text in words[words.index("moves") + 1:] if "moves" in words else []:
            position.push(Move.from_uci(text))
    elif word == "go":
        move = min(m.uci() for m in position.legal_moves())
        print(f"info depth 5 score cp {{SCORES[searches % len(SCORES)]}} pv {{move}}")
        print(f"bestmove {{move}}")
        searches += 1
    elif word == "quit":
        break
    sys.stdout.flush()
'''


def lying_engine(tmp_path: Path, scores: list[int]) -> Path:
    """An executable engine printing ``scores`` in turn (see :data:`LYING_ENGINE`)."""
    script = tmp_path / "lying-engine"
    script.write_text(LYING_ENGINE.format(python=sys.executable, scores=scores))
    script.chmod(0o755)
    return script
