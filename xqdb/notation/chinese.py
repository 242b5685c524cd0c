"""Chinese move notation (中文记谱): ``炮二平五``, ``马８进７``, ``前车退二``, ``前九平八``.

Parsing accepts simplified and traditional glyphs and their variants (車 俥 硨 傌 馬 砲 包
帥 將 進 後 上 下...), Chinese numerals, ASCII and full-width digits for either side, and
every way of telling tandem pieces apart found in real files: 前/中/后, 前/二/三/四/五,
xqbase's 一兵..五兵 numbered across files, and 前兵九平八 / 前九平八 for pawns doubled on
two files. Writing follows xqbase: Red numerals 一..九, Black full-width digits １..９.

>>> from xqdb.rules import BasePosition
>>> pos = BasePosition()
>>> move, loose = parse_chinese(pos, "炮二平五")
>>> str(move), loose
('h2e2', False)
>>> write_chinese(pos.board, move)
'炮二平五'
>>> pos.push(move)
>>> write_chinese(pos.board, parse_chinese(pos, "馬8進7")[0], traditional=True)
'馬８進７'
"""

from __future__ import annotations

from collections.abc import Iterable

from ..rules.board import (
    ADVISOR, BLACK, CANNON, CHARIOT, ELEPHANT, HORSE, KING, PAWN, RED, Move,
)
from ..rules.position import BasePosition
from .coordinates import NotationError
from .tables import CHINESE_NUMERALS, NUMERALS, PIECE_GLYPHS, SIDE_NUMERALS
from .wxf import write_wxf, write_wxf_plain
from .describe import (
    BACKWARD, FORWARD, FRONT, MIDDLE, NTH, REAR, SIDEWAYS, Description, DescriptionReader,
    FILE_OF, Order, file_number, locate, motion,
)

DIRECTION_GLYPHS: dict[str, int] = {
    "进": FORWARD, "進": FORWARD, "上": FORWARD,
    "退": BACKWARD, "下": BACKWARD,
    "平": SIDEWAYS,
}
#: Words in front of a piece (or of a file, for pawns doubled on two files).
ORDER_GLYPHS: dict[str, Order] = {
    "前": FRONT, "后": REAR, "後": REAR, "中": MIDDLE,
    **{cn: NTH[k] for k, cn in enumerate(CHINESE_NUMERALS[:5])},
}


class _Style:
    """The glyphs one written form uses, with its lookup tables."""

    def __init__(self, pieces: dict[int, str], directions: str, words: str) -> None:
        numerals = SIDE_NUMERALS
        self.numerals = numerals
        self.pieces = pieces
        self.directions = {FORWARD: directions[0], BACKWARD: directions[1], SIDEWAYS: directions[2]}
        front, middle, rear = words[0], words[1], words[2]
        #: words[n] = the words for n same pieces on a file, front first.
        self.words: tuple[tuple[str, ...], ...] = ((), (), (front, rear), (front, middle, rear),
                      (front, "二", "三", "四"), (front, "二", "三", "四", "五"))
        #: heads[piece][square] = piece glyph and file number (``炮二``).
        self.heads: dict[int, tuple[str, ...]] = {}
        for ptype, glyph_pair in pieces.items():
            for color, glyph in zip((RED, BLACK), glyph_pair):
                self.heads[ptype * color] = tuple(
                    glyph + numerals[color][file_number(color, sq % 9) - 1] for sq in range(90))
        #: tails[color][move.code] = direction and target (``平五``), filled on first use.
        self.tails: dict[int, list[str | None]] = {RED: [None] * 8100, BLACK: [None] * 8100}
        #: plain[piece][move.code] = the text naming the piece by its file (``炮二平五``).
        #: It depends on nothing else, so each is written once, on first use.
        self.plain: dict[int, dict[int, str]] = {piece: {} for piece in self.heads}

    def tail(self, color: int, move: Move) -> str:
        key = move.code
        text = self.tails[color][key]
        if text is None:
            direction, target = motion(color, move)
            text = self.directions[direction] + self.numerals[color][target - 1]
            self.tails[color][key] = text
        return text

    def plain_text(self, piece: int, move: Move) -> str:
        key = move.code
        text = self.plain[piece].get(key)
        if text is None:
            color = RED if piece > 0 else BLACK
            text = self.heads[piece][move.from_square] + self.tail(color, move)
            self.plain[piece][key] = text
        return text


#: The characters of the pieces by piece type, Red's then Black's, as simplified and as
#: traditional texts write them (the one table of glyphs; boards use it too).
SIMPLIFIED_PIECES = {KING: "帅将", ADVISOR: "仕士", ELEPHANT: "相象", HORSE: "马马",
                     CHARIOT: "车车", CANNON: "炮炮", PAWN: "兵卒"}
TRADITIONAL_PIECES = {KING: "帥將", ADVISOR: "仕士", ELEPHANT: "相象", HORSE: "馬馬",
                      CHARIOT: "車車", CANNON: "炮炮", PAWN: "兵卒"}
_SIMPLIFIED = _Style(SIMPLIFIED_PIECES, "进退平", "前中后")
_TRADITIONAL = _Style(TRADITIONAL_PIECES, "進退平", "前中後")
#: SIMPLIFIED_PLAIN[piece][move.code]: the simplified text of a move by a piece alone
#: on its file, once written (see :func:`write_wxf_and_chinese`).
SIMPLIFIED_PLAIN = _SIMPLIFIED.plain


def write_chinese(board: list[int], move: Move, traditional: bool = False) -> str:
    """The Chinese text of the legal ``move`` on ``board``.

    >>> from xqdb.rules import BasePosition
    >>> pos = BasePosition("4k4/9/9/4P4/4P4/2P6/2P6/9/9/3K5 w")
    >>> [write_chinese(pos.board, Move.from_uci(m)) for m in ("e5d5", "c4c5")]
    ['后五平六', '前七进一']
    """
    style = _TRADITIONAL if traditional else _SIMPLIFIED
    f = move.from_square
    piece = board[f]
    if board[FILE_OF[f]].count(piece) == 1:
        # Nearly every move: looked up here, a call less per ply than through plain_text.
        text = style.plain[piece].get(move.code)
        return text if text is not None else style.plain_text(piece, move)
    loc = locate(board, move)
    if loc.peers == 1:
        return style.plain_text(piece, move)
    color = RED if piece > 0 else BLACK
    tail = style.tail(color, move)
    word = style.words[loc.peers][loc.place]
    if loc.several_files:
        # 前兵九平八 shortened to four characters, as the DhtmlXQ viewer writes it.
        return word + style.numerals[color][file_number(color, f % 9) - 1] + tail
    return word + style.pieces[abs(piece)][0 if color == RED else 1] + tail


def write_wxf_and_chinese(board: list[int], move: Move) -> tuple[str, str]:
    """The WXF and (simplified) Chinese texts of the legal ``move`` on ``board``.

    What a replay writes for every ply. Both writers first ask whether the piece stands
    alone on its file, and then look its text up; asked together, the board is looked at
    once, which saves a quarter of the cost of writing both. (Here rather than in the
    package's ``__init__``, so that the compiled build compiles it.)

    >>> from xqdb.rules import BasePosition
    >>> write_wxf_and_chinese(BasePosition().board, Move.from_uci("h2e2"))
    ('C2.5', '炮二平五')
    """
    f = move.from_square
    piece = board[f]
    if board[FILE_OF[f]].count(piece) == 1:
        return write_lone_wxf_and_chinese(piece, move)
    return write_wxf(board, move), write_chinese(board, move)


#: LONE_TEXTS[piece][move.code]: the WXF and simplified texts of a move by a piece alone
#: on its file, once written (see :func:`write_lone_wxf_and_chinese`).
LONE_TEXTS: dict[int, dict[int, tuple[str, str]]] = {piece: {} for piece in SIMPLIFIED_PLAIN}


def write_lone_wxf_and_chinese(piece: int, move: Move) -> tuple[str, str]:
    """The WXF and (simplified) Chinese texts of the legal ``move`` of ``piece``, which
    stands alone on its file: they follow from the two alone. A replay whose reader found
    the piece alone (:meth:`~xqdb.notation.describe.DescriptionReader.read_alone`) writes
    its texts so.

    >>> write_lone_wxf_and_chinese(-HORSE, Move.from_uci("h9g7"))
    ('H8+7', '马８进７')
    """
    texts = LONE_TEXTS[piece].get(move.code)
    if texts is None:
        texts = LONE_TEXTS[piece][move.code] = (
            write_wxf_plain(piece, move), _SIMPLIFIED.plain_text(piece, move))
    return texts


def _describe(text: str) -> Description | None:
    """The description a Chinese move text gives, or ``None`` if it is not one."""
    n = len(text)
    if n == 4:
        head, second = text[0], text[1]
        ptype = PIECE_GLYPHS.get(head)
        if ptype is not None:
            file = NUMERALS.get(second)
            if file is None:
                return None
            order = None
        else:
            order = ORDER_GLYPHS.get(head)
            if order is None:
                return None
            ptype = PIECE_GLYPHS.get(second)
            file = None
            if ptype is None:
                # 前九平八: pawns doubled on two files, the piece name dropped.
                file = NUMERALS.get(second)
                if file is None:
                    return None
                ptype = PAWN
    elif n == 5:
        # 前兵九平八
        order = ORDER_GLYPHS.get(text[0])
        ptype = PIECE_GLYPHS.get(text[1])
        file = NUMERALS.get(text[2])
        if order is None or ptype is None or file is None:
            return None
    else:
        return None
    direction = DIRECTION_GLYPHS.get(text[-2])
    target = NUMERALS.get(text[-1])
    if direction is None or target is None:
        return None
    return Description(ptype, file, order, direction, target)


def parse_chinese(pos: BasePosition, text: str) -> tuple[Move, bool]:
    """Read a Chinese move text against ``pos``; returns ``(move, loose)``.

    >>> from xqdb.rules import BasePosition
    >>> parse_chinese(BasePosition(), "车二进三")
    Traceback (most recent call last):
    ...
    xqdb.errors.IllegalMoveError: '车二进三': there is no red chariot on file 2 (h)
    """
    return _read.read_move(pos, text)


_read = DescriptionReader(lambda text: _describe(text.strip()), "a Chinese move like 炮二平五")
#: The reader behind :func:`parse_chinese`, whose
#: :meth:`~xqdb.notation.describe.DescriptionReader.read_alone` also tells whether the
#: piece stands alone on its file.
CHINESE_READER = _read


def _glyphs(style: _Style) -> str:
    return ("".join(style.pieces[ptype] for ptype in sorted(style.pieces))
            + "".join(style.directions[d] for d in sorted(style.directions))
            + "".join(style.words[3] or ()))


#: Simplified glyph -> traditional glyph, for the glyphs the two written forms do not share.
TRADITIONAL_GLYPHS: dict[str, str] = {
    s: t for s, t in zip(_glyphs(_SIMPLIFIED), _glyphs(_TRADITIONAL)) if s != t}
_SIMPLIFIED_ONLY = frozenset(TRADITIONAL_GLYPHS)
_TO_TRADITIONAL = str.maketrans(TRADITIONAL_GLYPHS)
# Besides the glyphs the writer uses, sources write these variants, traditional forms only.
_TRADITIONAL_ONLY = frozenset(TRADITIONAL_GLYPHS.values()) | frozenset("俥傌硨")


def script_of(texts: Iterable[str]) -> str | None:
    """``traditional`` or ``simplified``: the script of the first text written with a glyph
    only one of them uses, or ``None`` when no text tells.

    >>> script_of(["炮二平五", "馬8進7"]), script_of(["炮二平五", "马8进7"]), script_of(["C2.5"])
    ('traditional', 'simplified', None)
    """
    for text in texts:
        for glyph in text:
            if glyph in _SIMPLIFIED_ONLY:
                return "simplified"
            if glyph in _TRADITIONAL_ONLY:
                return "traditional"
    return None


def to_traditional(text: str) -> str:
    """A simplified move text as the traditional script writes it.

    >>> to_traditional("马八进七"), to_traditional("后炮平五")
    ('馬八進七', '後炮平五')
    """
    return text.translate(_TO_TRADITIONAL)
