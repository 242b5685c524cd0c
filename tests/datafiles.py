"""Where the tests find real files.

``DATA`` is the handful of small real files kept with the tests (``tests/data``, each
listed with its source in ``tests/data/SOURCES.md``), laid out as in the corpus so a test
names a file the same way in both; ``SAMPLE_GAMES`` holds a few more, shipped for users.
``SHARED_DATA`` is the whole corpus in ``../shared/data``, beside the repository; a fresh
clone does not have it, so tests that need it ask for the ``shared_data`` fixture of
``conftest.py``, which skips them when it is absent.

>>> (DATA / "perft.tsv").is_file()
True
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xqdb.formats import GameRecord

DATA = Path(__file__).parent / "data"
#: The games of the README's first command, one or two per format.
SAMPLE_GAMES = Path(__file__).parents[1] / "sample_games"
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@functools.cache
def ccpd_dev_records() -> tuple[GameRecord, ...]:
    """Every record of ``ccpd-dev.zip``, read once per test process: the PGN reading and
    the opening tests both go through all 11,791 (some seconds each time)."""
    from xqdb.formats import read_paths

    return tuple(read_paths([str(SHARED_DATA / "ccpd-dev.zip")]))
