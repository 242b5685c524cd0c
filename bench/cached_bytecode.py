"""The benchmarks' processes keep their compiled modules, as users' Pythons do.

Where ``PYTHONDONTWRITEBYTECODE`` is set (as on the machines these figures come from),
every process a benchmark starts would compile the modules it loads from source again, and
time that instead of what a user waits for. The tests do the same (``tests/conftest.py``).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path


def keep_bytecode() -> None:
    """Let this process and the processes it starts write compiled modules and load them
    again, in a folder of the system's temporary folder rather than beside the sources
    (a tree under test stays as it was checked out)."""
    if not (os.environ.pop("PYTHONDONTWRITEBYTECODE", None) or sys.dont_write_bytecode):
        return
    prefix = os.environ.get("PYTHONPYCACHEPREFIX") or str(
        Path(tempfile.gettempdir()) / "xqdb-bench-pycache")
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    sys.dont_write_bytecode = False
    sys.pycache_prefix = prefix
