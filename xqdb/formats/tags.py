"""Tag values as real files write them: results in words and symbols, dates in many forms.

>>> normalize_result("紅勝"), normalize_result("1/2-1/2"), normalize_result("未知")
('1-0', '1/2-1/2', '*')
>>> parse_date("1997年11月16日"), parse_date("1997")
(datetime.date(1997, 11, 16), None)
"""

from __future__ import annotations

import datetime
import re

from ..notation.tables import FULLWIDTH

_RESULTS = {
    "1-0": "1-0", "0-1": "0-1", "1/2-1/2": "1/2-1/2", "*": "*",
    "½-½": "1/2-1/2", "0.5-0.5": "1/2-1/2", "1/2": "1/2-1/2",
    "红胜": "1-0", "紅勝": "1-0", "红先胜": "1-0", "紅先勝": "1-0", "黑负": "1-0", "黑負": "1-0",
    "黑胜": "0-1", "黑勝": "0-1", "红负": "0-1", "紅負": "0-1", "红先负": "0-1", "紅先負": "0-1",
    "和局": "1/2-1/2", "和棋": "1/2-1/2", "和": "1/2-1/2", "红先和": "1/2-1/2", "紅先和": "1/2-1/2",
    "未知": "*", "": None,
}


def normalize_result(text: str | None) -> str | None:
    """``1-0``, ``0-1``, ``1/2-1/2`` or ``*`` for a result as written, else ``None``."""
    if text is None:
        return None
    return _RESULTS.get(text.strip().translate(FULLWIDTH).replace(" ", ""))


_SEP = r"\s*[-./:·。、年\s]\s*"
_YMD = re.compile(rf"(\d{{4}}){_SEP}(\d{{1,2}}){_SEP.replace('年', '年月')}(\d{{1,2}})(?!\d)")
_COMPACT = re.compile(r"(\d{4})(\d{2})(\d{2})(?!\d)")
_DMY = re.compile(r"(?<!\d)(\d{1,2})\s*[-./]\s*(\d{1,2})\s*[-./]\s*(\d{4}|\d{2})(?!\d)")
_YY_MD = re.compile(r"(\d{2})-(\d{1,2})-(\d{1,2})")
_YEAR = re.compile(r"(?<!\d)(1[0-9]{3}|20[0-9]{2})(?!\d)")


def parse_date(raw: str | None) -> datetime.date | None:
    """The calendar date a Date tag names, or ``None`` when it names no full date.

    Accepts the forms of real files: ``1997.11.16``, ``1997-11-16``, ``1997.1.05``,
    ``1997年11月16日``, ``1997·11·16``, ``1997 11 16``, ``19971116`` (also followed by a
    time), ``97-11-19`` (two-digit years are 1930-2029), ``16-1-1997`` and ``16/11/1997``
    (day first, unless only the other order makes a date, as in ``11/23/97``). A year
    alone (``1982``, ``1997年``), a zero day (``2003-04-00``) or an order that cannot be
    told (``26.05.01``) is no date: see :func:`parse_year`.

    >>> parse_date("16/11/1997"), parse_date("11/16/1997"), parse_date("1997.??.??")
    (datetime.date(1997, 11, 16), datetime.date(1997, 11, 16), None)
    >>> parse_date("20081010-14：30"), parse_date("81-1-16"), parse_date("2003-04-00")
    (datetime.date(2008, 10, 10), datetime.date(1981, 1, 16), None)
    """
    if not raw:
        return None
    text = raw.strip().translate(FULLWIDTH)
    m = _YMD.match(text)
    if m:
        return _date(int(m[1]), int(m[2]), int(m[3]))
    m = _COMPACT.match(text)
    if m:
        return _date(int(m[1]), int(m[2]), int(m[3]))
    m = _YY_MD.fullmatch(text)
    if m:
        return _date(_century(int(m[1])), int(m[2]), int(m[3]))
    m = _DMY.fullmatch(text)
    if m:
        first, second, year = int(m[1]), int(m[2]), int(m[3])
        if len(m[3]) == 2:
            if year <= 31:
                return None  # 26.05.01: which number is the year cannot be told
            year = _century(year)
        return _date(year, second, first) or _date(year, first, second)
    return None


def _century(yy: int) -> int:
    return 2000 + yy if yy < 30 else 1900 + yy


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
    m = _YEAR.search(raw.translate(FULLWIDTH))
    return int(m[1]) if m else None


def _date(year: int, month: int, day: int) -> datetime.date | None:
    try:
        return datetime.date(year, month, day)
    except ValueError:
        return None
