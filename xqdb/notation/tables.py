"""The characters move texts are made of, in one place: full-width folding, piece letters,
numerals and Chinese glyphs.

Every notation reader and writer, and the format readers that look at tag values, take
their characters from here, so a variant glyph or a full-width form accepted in one place
is accepted everywhere.

>>> fold(" Ｃ２＝５\u3000")
'C2=5'
>>> LETTER_TYPES["N"] == LETTER_TYPES["H"] == HORSE, WRITTEN_LETTERS[HORSE]
(True, 'H')
>>> NUMERALS["七"], NUMERALS["７"], NUMERALS["7"]
(7, 7, 7)
"""

from __future__ import annotations

from typing import Final

from ..rules.board import (
    ADVISOR, BLACK, CANNON, CHARIOT, ELEPHANT, HORSE, KING, LETTER_TO_TYPE, PAWN, RED,
)

#: Full-width ASCII (U+FF01..FF5E) and the ideographic space, to ASCII: a ``str.translate``
#: table. Real files write WXF (``Ｃ２＝５``), digits, results and dates in full width.
FULLWIDTH: Final = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


def fold(text: str) -> str:
    """``text`` with full-width ASCII folded to ASCII and outer blanks removed.

    >>> fold(" ＋Ｐ＋１ ")
    '+P+1'
    """
    return text.translate(FULLWIDTH).strip()


#: Piece letters read by WXF and algebraic notation (and FEN): K A E/B H/N R C P.
LETTER_TYPES: Final = LETTER_TO_TYPE
#: The letter WXF and algebraic notation write for each piece type (index = type).
WRITTEN_LETTERS: Final = " KAEHRCP"

#: Chinese numerals 一..九, Red's file numbers as written.
CHINESE_NUMERALS: Final = "一二三四五六七八九"
#: Full-width digits １..９, Black's file numbers as xqbase writes them.
FULLWIDTH_DIGITS: Final = "１２３４５６７８９"
#: Numerals as written for each side (Red: Chinese, Black: full-width digits).
SIDE_NUMERALS: Final = {RED: CHINESE_NUMERALS, BLACK: FULLWIDTH_DIGITS}
#: Every numeral a file number or step count is read from: Chinese, ASCII and full width,
#: for either side.
NUMERALS: Final = {
    glyph: n
    for n, glyphs in enumerate(zip(CHINESE_NUMERALS, "123456789", FULLWIDTH_DIGITS), 1)
    for glyph in glyphs
}
#: ASCII digits 1..9 alone (WXF file numbers and targets).
DIGITS: Final = {str(n): n for n in range(1, 10)}

#: Chinese piece glyphs, simplified, traditional and the variants of real files.
PIECE_GLYPHS: Final = {
    "帅": KING, "帥": KING, "将": KING, "將": KING,
    "仕": ADVISOR, "士": ADVISOR,
    "相": ELEPHANT, "象": ELEPHANT,
    "马": HORSE, "馬": HORSE, "傌": HORSE,
    "车": CHARIOT, "車": CHARIOT, "俥": CHARIOT, "硨": CHARIOT,
    "炮": CANNON, "砲": CANNON, "包": CANNON,
    "兵": PAWN, "卒": PAWN,
}

__all__ = [
    "FULLWIDTH", "fold", "LETTER_TYPES", "WRITTEN_LETTERS", "CHINESE_NUMERALS",
    "FULLWIDTH_DIGITS", "SIDE_NUMERALS", "NUMERALS", "DIGITS", "PIECE_GLYPHS",
]
