"""Tag values as real files write them: results in words and symbols, dates in many forms.

>>> normalize_result("紅勝"), normalize_result("1/2-1/2"), normalize_result("未知")
('1-0', '1/2-1/2', '*')
>>> parse_date("1997年11月16日"), parse_date("1997")
(datetime.date(1997, 11, 16), None)
"""

from __future__ import annotations

import datetime
import re

_RESULTS = {
    "1-0": "1-0", "0-1": "0-1", "1/2-1/2": "1/2-1/2", "*": "*",
    "½-½": "1/2-1/2", "0.5-0.5": "1/2-1/2", "1/2": "1/2-1/2",
    "红胜": "1-0", "紅勝": "1-0", "红先胜": "1-0", "紅先勝": "1-0", "黑负": "1-0", "黑負": "1-0",
    "黑胜": "0-1", "黑勝": "0-1", "红负": "0-1", "紅負": "0-1", "红先负": "0-1", "紅先負": "0-1",
    "和局": "1/2-1/2", "和棋": "1/2-1/2", "和": "1/2-1/2", "红先和": "1/2-1/2", "紅先和": "1/2-1/2",
    "未知": "*", "": None,
}
_FULLWIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}


def normalize_result(text: str | None) -> str | None:
    """``1-0``, ``0-1``, ``1/2-1/2`` or ``*`` for a result as written, else ``None``."""
    if text is None:
        return None
    return _RESULTS.get(text.strip().translate(_FULLWIDTH).replace(" ", ""))


_YMD = re.compile(r"(\d{4})\s*[-./年]\s*(\d{1,2})\s*[-./月]\s*(\d{1,2})\s*日?")
_COMPACT = re.compile(r"(\d{4})(\d{2})(\d{2})")
_DMY = re.compile(r"(\d{1,2})\s*[-./]\s*(\d{1,2})\s*[-./]\s*(\d{4})")
_YEAR = re.compile(r"(?<!\d)(1[0-9]{3}|20[0-9]{2})(?!\d)")


def parse_date(raw: str | None) -> datetime.date | None:
    """The calendar date a Date tag names, or ``None`` when it names no full date.

    Accepts ``1997.11.16``, ``1997-11-16``, ``1997.1.05``, ``1997年11月16日``,
    ``19971116``, ``16-1-1997`` and ``16/11/1997`` (day first, unless only the other
    order makes a date). A year alone (``1982``, ``1997年``, ``1997.??.??``) is no
    date: see :func:`parse_year`.

    >>> parse_date("16/11/1997"), parse_date("11/16/1997"), parse_date("1997.??.??")
    (datetime.date(1997, 11, 16), datetime.date(1997, 11, 16), None)
    """
    if not raw:
        return None
    text = raw.strip().translate(_FULLWIDTH)
    m = _YMD.search(text)
    if m:
        return _date(int(m[1]), int(m[2]), int(m[3]))
    m = _COMPACT.fullmatch(text)
    if m:
        return _date(int(m[1]), int(m[2]), int(m[3]))
    m = _DMY.search(text)
    if m:
        first, second, year = int(m[1]), int(m[2]), int(m[3])
        return _date(year, second, first) or _date(year, first, second)
    return None


def parse_year(raw: str | None) -> int | None:
    """The year a Date tag names, even when the month or day is missing.

    >>> parse_year("1997年"), parse_year("16-1-1997"), parse_year("??")
    (1997, 1997, None)
    """
    if not raw:
        return None
    full = parse_date(raw)
    if full is not None:
        return full.year
    m = _YEAR.search(raw.translate(_FULLWIDTH))
    return int(m[1]) if m else None


def _date(year: int, month: int, day: int) -> datetime.date | None:
    try:
        return datetime.date(year, month, day)
    except ValueError:
        return None
