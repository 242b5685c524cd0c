"""WXF notation: ``C2.5``, ``H8+7``, ``R+.3``, ``P-+1``, ``3+.4``.

Parsing takes the official form and what real files write: ``=`` for sideways, ``B``/``N``
for elephant/horse, lower case, full-width characters (``Ｃ２＝５``), tandem markers before
the letter (``+P+1``) or after it (``P+.4``), ``++``/``--`` for the first/last of four or
five pawns, the file digit in place of the letter for pawns doubled on two files, xqbase's
``a``..``e`` for the n-th tandem pawn, and ``C25`` with no operator for a sideways move.
Writing is official WXF.

>>> from xqdb.rules import BasePosition
>>> pos = BasePosition()
>>> move, loose = parse_wxf(pos, "Ｃ２＝５")
>>> str(move), write_wxf(pos.board, move)
('h2e2', 'C2.5')
"""

from __future__ import annotations

from ..rules.board import (
    ADVISOR, BLACK, CANNON, CHARIOT, ELEPHANT, HORSE, KING, PAWN, RED, Move,
)
from ..rules.position import BasePosition
from .coordinates import NotationError
from .tables import DIGITS, LETTER_TYPES, WRITTEN_LETTERS, fold
from .describe import (
    BACKWARD, FORWARD, FRONT, MIDDLE, NTH, REAR, SIDEWAYS, WXF_FIRST, WXF_LAST, WXF_MINUS,
    WXF_PLUS, Description, DescriptionReader, FILE_OF, Order, file_number, locate, motion,
)

OPERATORS: dict[str, int] = {"+": FORWARD, "-": BACKWARD, ".": SIDEWAYS, "=": SIDEWAYS}
_SUFFIX_ORDERS: dict[str, Order] = {"+": WXF_PLUS, "-": WXF_MINUS, ".": MIDDLE,
                                    **{c: NTH[k] for k, c in enumerate("ABCDE")}}
_PREFIX_ORDERS: dict[str, Order] = {"+": FRONT, "-": REAR}
_WRITE_OPERATORS = {FORWARD: "+", BACKWARD: "-", SIDEWAYS: "."}
#: Official place markers for n pawns on one file, front first (``None``: the file digit).
_PLACES: tuple[tuple[str | None, ...], ...] = (
    (), (), ("+", "-"), ("+", None, "-"), ("++", "+", "-", "--"),
    ("++", "+", None, "-", "--"))

_HEADS = {piece: tuple(WRITTEN_LETTERS[abs(piece)] + str(file_number(color, sq % 9))
                       for sq in range(90))
          for color in (RED, BLACK) for piece in (color * t for t in range(1, 8))}
_TAILS: dict[int, list[str | None]] = {RED: [None] * 8100, BLACK: [None] * 8100}


#: WXF_PLAIN[piece][move.code]: the text naming the piece by its file (``C2.5``). It
#: depends on nothing else, so each is written once, on first use.
WXF_PLAIN: dict[int, dict[int, str]] = {piece: {} for piece in _HEADS}


def write_wxf_plain(piece: int, move: Move) -> str:
    """The WXF text of ``move`` by ``piece`` alone on its file (``C2.5``)."""
    key = move.code
    text = WXF_PLAIN[piece].get(key)
    if text is None:
        color = RED if piece > 0 else BLACK
        text = WXF_PLAIN[piece][key] = _HEADS[piece][move.from_square] + _tail(color, move)
    return text


def _tail(color: int, move: Move) -> str:
    key = move.code
    text = _TAILS[color][key]
    if text is None:
        direction, target = motion(color, move)
        text = _TAILS[color][key] = _WRITE_OPERATORS[direction] + str(target)
    return text


def write_wxf(board: list[int], move: Move) -> str:
    """The official WXF text of the legal ``move`` on ``board``.

    >>> from xqdb.rules import BasePosition
    >>> pos = BasePosition("4k4/9/9/4P4/4P4/2P6/2P6/9/9/3K5 w")
    >>> write_wxf(pos.board, Move.from_uci("e5d5")), write_wxf(pos.board, Move.from_uci("c4c5"))
    ('5-.6', '7++1')
    """
    f = move.from_square
    piece = board[f]
    if board[FILE_OF[f]].count(piece) == 1:
        # Nearly every move: looked up here, a call less per ply than through write_wxf_plain.
        text = WXF_PLAIN[piece].get(move.code)
        return text if text is not None else write_wxf_plain(piece, move)
    loc = locate(board, move)
    if loc.peers == 1:
        return write_wxf_plain(piece, move)
    color = RED if piece > 0 else BLACK
    tail = _tail(color, move)
    number = str(file_number(color, f % 9))
    if loc.several_files:
        # The file digit replaces the letter; the middle of three repeats the digit.
        places = _PLACES[loc.peers]
        mark = places[loc.place] if places else None
        return number + (mark or number) + tail
    mark = _PLACES[loc.peers][loc.place]
    letter = WRITTEN_LETTERS[abs(piece)]
    if mark is None:
        return letter + number + tail
    if len(mark) == 2:
        return mark + tail
    return letter + mark + tail


def _describe(text: str) -> Description | None:
    """The description a (folded) WXF text gives, or ``None`` if it is not one."""
    n = len(text)
    if n == 3 and text[1] in DIGITS and text[2] in DIGITS:
        text = text[:2] + "." + text[2]  # C25: no operator, a sideways move
        n = 4
    if n != 4:
        return None
    a, b, op, last = text[0], text[1], text[2], text[3]
    direction = OPERATORS.get(op)
    target = DIGITS.get(last)
    if direction is None or target is None:
        return None
    ptype = LETTER_TYPES.get(a.upper())
    if ptype is not None:
        if b in DIGITS:
            return Description(ptype, DIGITS[b], None, direction, target, ptype == PAWN)
        order = _SUFFIX_ORDERS.get(b.upper())
        if order is None:
            return None
        return Description(ptype, None, order, direction, target)
    if a in "+-":
        ptype = LETTER_TYPES.get(b.upper())
        if ptype is not None:
            return Description(ptype, None, _PREFIX_ORDERS[a], direction, target)
        if b == a:
            return Description(PAWN, None, WXF_FIRST if a == "+" else WXF_LAST, direction, target)
        return None
    if a in DIGITS:
        # Pawns doubled on two files: the file digit in place of the letter.
        if b == a:
            return Description(PAWN, DIGITS[a], MIDDLE, direction, target)
        order = _PREFIX_ORDERS.get(b)
        if order is None:
            return None
        return Description(PAWN, DIGITS[a], order, direction, target)
    return None


def describes_wxf(text: str) -> bool:
    """Whether a (folded) text has the form of a WXF move, whatever the position.

    >>> describes_wxf("C25"), describes_wxf("+P+1"), describes_wxf("Che2")
    (True, True, False)
    """
    return _describe(text) is not None


def parse_wxf(pos: BasePosition, text: str) -> tuple[Move, bool]:
    """Read a WXF move text against ``pos``; returns ``(move, loose)``.

    >>> from xqdb.rules import BasePosition
    >>> str(parse_wxf(BasePosition(), "n8+7")[0])
    'b0c2'
    """
    return _read.read_move(pos, text)


_read = DescriptionReader(lambda text: _describe(fold(text)), "a WXF move like C2.5")
#: The reader behind :func:`parse_wxf`, whose
#: :meth:`~xqdb.notation.describe.DescriptionReader.read_alone` also tells whether the
#: piece stands alone on its file.
WXF_READER = _read


__all__ = ["parse_wxf", "write_wxf", "describes_wxf", "OPERATORS"]
