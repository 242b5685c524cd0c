"""Coordinate lists written with no separator, as some collections store a game.

Which notation a move text is in is the notation registry's call
(:func:`xqdb.notation.sniff`, :func:`xqdb.notation.sniff_moves`).

>>> split_coordinates("h2e2h7e7h0g2")
['h2e2', 'h7e7', 'h0g2']
>>> split_digits("77477062"), split_digits("2004"), split_digits("12")
(['7747', '7062'], ['2004'], None)
"""

from __future__ import annotations

import re

_CONCATENATED = re.compile(r"(?:[a-i][0-9][a-i][0-9]){2,}")


def split_coordinates(text: str) -> list[str] | None:
    """Split coordinates written with no separator (``h2e2h7e7``), or ``None``."""
    if _CONCATENATED.fullmatch(text):
        return [text[i:i + 4] for i in range(0, len(text), 4)]
    return None


_DIGITS = re.compile(r"(?:[0-8][0-9][0-8][0-9])+")


def split_digits(text: str) -> list[str] | None:
    """Split DhtmlXQ-style digit moves (four a move, ``7747``), alone or run together, or
    ``None``: a move number is shorter, or has its dot."""
    if _DIGITS.fullmatch(text):
        return [text[i:i + 4] for i in range(0, len(text), 4)]
    return None
