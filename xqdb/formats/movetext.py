"""Move texts shared by the text readers: which notation they are in, and coordinate
lists written with no separator.

>>> sniff_notation(["炮二平五", "马８进７"]), sniff_notation(["Ｃ２＝５"]), sniff_notation(["h2e2"])
('chinese', 'wxf', 'uci')
>>> split_coordinates("h2e2h7e7h0g2")
['h2e2', 'h7e7', 'h0g2']
"""

from __future__ import annotations

import re

_FULLWIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}
_UCI = re.compile(r"[a-i][0-9][a-i][0-9]")
_UCI10 = re.compile(r"[a-i](?:10|[1-9])[a-i](?:10|[1-9])")
_ICCS = re.compile(r"[A-I][0-9]-?[A-I][0-9]")
_DHTMLXQ = re.compile(r"[0-8][0-9][0-8][0-9]")
_WXF = re.compile(r"(?:[KAEBHNRCPkaebhnrcp][1-9+\-abcde]|[+\-][KAEBHNRCPkaebhnrcp]|[1-9][+\-1-9])"
                  r"[+\-.=][1-9]")
_CONCATENATED = re.compile(r"(?:[a-i][0-9][a-i][0-9]){2,}")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def notation_of(text: str) -> str | None:
    """The notation one move text is written in, or ``None`` if it fits none.

    >>> notation_of("H2-E2"), notation_of("h10g8"), notation_of("+P+1"), notation_of("??")
    ('iccs', 'uci10', 'wxf', None)
    """
    if _CJK.search(text):
        return "chinese"
    ascii_text = text.translate(_FULLWIDTH)
    if _UCI.fullmatch(ascii_text):
        return "uci"
    if _ICCS.fullmatch(ascii_text):
        return "iccs"
    if _UCI10.fullmatch(ascii_text):
        return "uci10"
    if _WXF.fullmatch(ascii_text):
        return "wxf"
    if _DHTMLXQ.fullmatch(ascii_text):
        return "dhtmlxq"
    return None


def sniff_notation(moves: list[str], sample: int = 12) -> str:
    """The notation most of the first ``sample`` move texts are in (``auto`` if none).

    Lower-case coordinates are ranks 0-9 (``uci``) unless a rank 10 shows up and no
    rank 0 does (``uci10``).
    """
    counts: dict[str, int] = {}
    for text in moves[:sample]:
        kind = notation_of(text)
        if kind is not None:
            counts[kind] = counts.get(kind, 0) + 1
            if counts[kind] == 3 and len(counts) == 1:
                break  # three alike and nothing else: settled
    if not counts:
        return "auto"
    best = max(counts, key=lambda k: counts[k])
    if best in ("uci", "uci10"):
        return _ranks_notation(moves)
    return best


def _ranks_notation(moves: list[str]) -> str:
    has_ten = has_zero = False
    for text in moves:
        if "10" in text:
            has_ten = True
        elif "0" in text:
            has_zero = True
    return "uci10" if has_ten and not has_zero else "uci"


def split_coordinates(text: str) -> list[str] | None:
    """Split coordinates written with no separator (``h2e2h7e7``), or ``None``."""
    if _CONCATENATED.fullmatch(text):
        return [text[i:i + 4] for i in range(0, len(text), 4)]
    return None
