"""A real ``xqdb serve`` process over a real database, for the explorer's tests.

The database is the 15 games of ``tests/data/pgn-chinese-15.pgn`` with the seven of
``sample_games/``: twenty games, thirteen of which open 炮二平五 (or its mirror image).
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from import_support import xqdb_command
from datafiles import DATA
from xqdb.pipeline.importer import import_paths

ROOT = Path(__file__).parents[1]
#: The line ``xqdb serve`` starts with: the address it serves.
_SERVING = re.compile(r"(?m)^Serving .* at (http://127\.0\.0\.1:\d+/)")


def build_serve_db(folder: Path) -> Path:
    path = folder / "explore.duckdb"
    import_paths([str(DATA / "pgn-chinese-15.pgn"), str(ROOT / "sample_games")], path, jobs=1)
    return path


@contextmanager
def serving(db: Path, log: Path, *args: str, timeout: float = 60) -> Iterator[str]:
    """Run ``xqdb serve --db DB --port 0`` (its output into ``log``, which a pipe left
    unread would fill) and yield its address once it serves; stop it at the end
    (SIGTERM, as a service manager would)."""
    with open(log, "w") as out:
        run = subprocess.Popen(xqdb_command("serve", "--db", str(db), "--port", "0", *args),
                               stderr=out, stdout=out, text=True)
    try:
        deadline = time.monotonic() + timeout
        while True:
            found = _SERVING.search(log.read_text())
            if found:
                break
            if run.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"xqdb serve did not start ({run.returncode}): "
                                     f"{log.read_text()}")
            time.sleep(0.05)
        yield found[1]
    finally:
        run.terminate()
        try:
            run.wait(timeout=20)
        except subprocess.TimeoutExpired:
            run.kill()
            run.wait()
