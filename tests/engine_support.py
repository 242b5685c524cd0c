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
