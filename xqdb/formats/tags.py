"""Tag values as real files write them: results in words and symbols, dates in many forms.

>>> normalize_result("紅勝"), normalize_result("1/2-1/2"), normalize_result("未知")
('1-0', '1/2-1/2', '*')
>>> parse_date("1997年11月16日"), parse_date("1997")
(datetime.date(1997, 11, 16), None)
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

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


#: The earliest year a game record can plausibly carry: the oldest dated master games in
#: the collections are from the 1930s, and a year before 1920 is a slip of the pen
#: (``1193.4.30`` for 1993, ``1882年`` for 1982).
EARLIEST_YEAR = 1920

# A year the event names: four digits, or two at its start (``93全國象棋錦標賽``) that are
# no edition, round or decade (``10屆``, ``60年代``).
_EVENT_YEAR = re.compile(r"(?<!\d)(19\d{2}|20\d{2})(?!\d)")
_EVENT_YY = re.compile(r"^(\d{2})(?![\d屆届期轮輪回局盘盤名月日号號]|年代)")


@dataclass(frozen=True, slots=True)
class Dating:
    """What a record's tags say of when it was played, doubtful years set aside."""

    date: datetime.date | None
    year: int | None
    note: str | None = None
    """Why the year is NULL or not the Date tag's own, in words; ``None`` when it is."""


def read_dating(raw: str | None, event: str | None = None,
                today: datetime.date | None = None) -> Dating:
    """The date and year of a record from its Date tag, a year before
    :data:`EARLIEST_YEAR` or after ``today`` set aside as doubtful, and taken from the
    event's name when that names it (a two-digit year at its start is 19xx, or 20xx up
    to today's).

    >>> read_dating("1193.4.30", "93全國象棋錦標賽 五六炮對反宮馬")
    Dating(date=datetime.date(1993, 4, 30), year=1993, note="the Date tag's year 1193 is doubtful; 1993 is the event's")
    >>> read_dating("1905-6-17", "七屆亞洲名手賽").note
    "the Date tag's year 1905 is doubtful (before 1920); no other tag names the year"
    >>> read_dating("1997年"), read_dating("2093.1.1", today=datetime.date(2026, 1, 1)).year
    (Dating(date=None, year=1997, note=None), None)
    """
    year = parse_year(raw)
    date = parse_date(raw)
    today = today or datetime.date.today()
    if year is None or EARLIEST_YEAR <= year <= today.year:
        return Dating(date if date is None or date <= today else None, year)
    why = f"before {EARLIEST_YEAR}" if year < EARLIEST_YEAR else "after today"
    told = _event_year(event or "", today)
    if told is None:
        return Dating(None, None, f"the Date tag's year {year} is doubtful ({why}); "
                                  "no other tag names the year")
    if date is not None:
        date = _date(told, date.month, date.day)
    return Dating(date, told, f"the Date tag's year {year} is doubtful; {told} is the event's")


def _event_year(event: str, today: datetime.date) -> int | None:
    text = event.strip().translate(FULLWIDTH)
    m = _EVENT_YEAR.search(text)
    if m and EARLIEST_YEAR <= int(m[1]) <= today.year:
        return int(m[1])
    m = _EVENT_YY.match(text)
    if m:
        yy = int(m[1])
        return 2000 + yy if 2000 + yy <= today.year else 1900 + yy
    return None


def _date(year: int, month: int, day: int) -> datetime.date | None:
    try:
        return datetime.date(year, month, day)
    except ValueError:
        return None
