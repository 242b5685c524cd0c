"""The one move-list tokenizer: the texts of a move list, however it is separated.

Move lists are written with spaces, newlines, commas (ASCII or full-width), enumeration
commas or semicolons between the moves, with move numbers (``1.``, ``2...``, ``１．``)
between or glued to them, and coordinates or DhtmlXQ digits sometimes written with no
separator at all (``h2e2h7e7``, ``77477062``). Every reader of move lists and every ``--moves`` option splits with
:func:`split_moves`, so a text that one of them reads the other reads too.

>>> split_moves("1. h2e2, h9g7 2.h0g2")
['h2e2', 'h9g7', 'h0g2']
>>> split_moves("炮二平五，马８进７；h2e2h7e7")
['炮二平五', '马８进７', 'h2e2', 'h7e7']
"""

from __future__ import annotations

import re
from collections.abc import Iterator

SEPARATORS = re.compile(r"[\s,，、;；]+")
#: A move number standing alone between the moves.
_NUMBER = re.compile(r"^[0-9０-９]+[.．、)]*$")
#: A move number glued to the move after it (``1.h2e2``).
_NUMBER_PREFIX = re.compile(r"^[0-9０-９]+[.．、)]+")
_CONCATENATED = re.compile(r"(?:[a-i][0-9][a-i][0-9]){2,}")
_DIGITS = re.compile(r"(?:[0-8][0-9][0-8][0-9])+")


def split_coordinates(text: str) -> list[str] | None:
    """Split coordinates written with no separator (``h2e2h7e7``), or ``None``.

    >>> split_coordinates("h2e2h7e7h0g2"), split_coordinates("h2e2")
    (['h2e2', 'h7e7', 'h0g2'], None)
    """
    if _CONCATENATED.fullmatch(text):
        return [text[i:i + 4] for i in range(0, len(text), 4)]
    return None


def split_digits(text: str) -> list[str] | None:
    """Split DhtmlXQ-style digit moves (four a move, ``7747``), alone or run together, or
    ``None``: a move number is shorter, or has its dot.

    >>> split_digits("77477062"), split_digits("2004"), split_digits("12")
    (['7747', '7062'], ['2004'], None)
    """
    if _DIGITS.fullmatch(text):
        return [text[i:i + 4] for i in range(0, len(text), 4)]
    return None


def iter_tokens(text: str) -> Iterator[str]:
    """Every token of ``text`` but the move numbers, with glued numbers taken off and
    run-together coordinates and digits split; results and other words are yielded as they
    are, for the caller to recognise."""
    for token in SEPARATORS.split(text):
        if not token:
            continue
        digits = split_digits(token)
        if digits is not None:
            yield from digits
            continue
        if _NUMBER.match(token):
            continue
        token = _NUMBER_PREFIX.sub("", token)
        if not token:
            continue
        split = split_coordinates(token)
        if split is not None:
            yield from split
        else:
            yield token


def split_moves(text: str) -> list[str]:
    """The move texts of ``text``, in order (see the module's description)."""
    return list(iter_tokens(text))
