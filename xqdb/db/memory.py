"""How much memory DuckDB may use: sizes as users write them, and the limit every
connection takes from the environment.

``XQDB_MEMORY_LIMIT`` (``4GB``, ``512MiB``, ``25%`` of the RAM) bounds what DuckDB holds by
its own count in every command that opens a database; without it DuckDB takes 80 % of the
RAM. ``xqdb import`` takes it as the default of ``--memory-limit``.

>>> memory_bytes("512MB"), memory_bytes("1GiB")
(512000000, 1073741824)
"""

from __future__ import annotations

import os
import re

from ..errors import BadArgumentError

#: The environment variable every connection takes its memory limit from.
MEMORY_VARIABLE = "XQDB_MEMORY_LIMIT"

_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(%|[KMGT]i?B|B)?\s*", re.IGNORECASE)
_UNITS = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def memory_bytes(text: str) -> int:
    """Bytes of memory named like ``"2GB"``, ``"512MiB"``, ``"800000000"`` bytes or ``"10%"``
    of the RAM; raises :class:`~xqdb.errors.BadArgumentError` for anything else, or less
    than 16 MB."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise BadArgumentError(f"memory limit {text!r} is not a size",
                               "give one like 2GB, 512MB or 10%")
    number, unit = float(match.group(1)), (match.group(2) or "B").lower()
    size = int(number * (physical_memory() / 100 if unit == "%" else _UNITS[unit]))
    if size < 16 * 10**6:
        raise BadArgumentError(f"memory limit {text!r} is too small",
                               "DuckDB needs 16MB at least")
    return size


def physical_memory() -> int:
    """The machine's RAM in bytes (4 GiB where the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 4 << 30


def memory_limit_from_environment() -> int | None:
    """The bytes :data:`MEMORY_VARIABLE` names, ``None`` when it is unset or empty."""
    text = os.environ.get(MEMORY_VARIABLE, "").strip()
    if not text:
        return None
    try:
        return memory_bytes(text)
    except BadArgumentError as exc:
        raise BadArgumentError(f"{MEMORY_VARIABLE}: {exc.message}", exc.hint) from None
