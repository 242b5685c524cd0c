"""Making engine processes fail for real: a watcher that signals the running engine."""

from __future__ import annotations

import os
import signal
import threading
import time

from xqdb.engine import SupervisedEngine


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
