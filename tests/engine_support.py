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
#: then ``bestmove``, or nothing at all when HANG is set.
ENGINE = '''
import sys
LINES = {lines!r}
HANG = {hang!r}
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "uci":
        print("id name scripted"); print("uciok")
    elif word == "isready":
        print("readyok")
    elif word == "go" and not HANG:
        for out in LINES:
            print(out)
        print("bestmove h2e2")
    elif word == "quit":
        break
    sys.stdout.flush()
'''


def scripted_engine(tmp_path: Path, lines: list[str], hang: bool = False) -> EngineSpec:
    """A real engine process that prints ``lines`` to each ``go`` (see :data:`ENGINE`)."""
    script = tmp_path / "engine.py"
    script.write_text(ENGINE.format(lines=lines, hang=hang))
    return EngineSpec((sys.executable, str(script)), "uci")
