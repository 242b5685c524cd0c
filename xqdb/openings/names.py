"""Traditional opening names (中炮, 屏风马, 过河车 ...), each defined once, in :data:`NAMES`.

A name is a set of :class:`Pattern`\\ s: a piece arriving on a square (from given squares),
with other pieces of the same side standing on given squares after the move, within a
range of plies. Squares are written in the mover's own frame (Black's are turned half
round, so 马8进7 reads as 马二进三) and, unless a pattern says otherwise, on either wing
(马二进三 or 马八进七). The line is read in ECCO's frame (see :mod:`xqdb.openings.line`),
so the first move of 中炮 is always 炮二平五.

>>> from xqdb.openings.line import OpeningLine
>>> opening_names(OpeningLine.read("炮二平五 马8进7 马二进三 马2进3 车一平二 车9平8 车二进六".split()))
('中炮', '屏风马', '直车', '过河车')
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..rules.board import (
    ADVISOR, BLACK, CANNON, CHARIOT, ELEPHANT, HORSE, PAWN, RED, parse_square,
)
from ..rules.board import Move
from .line import OpeningLine, feature

#: Each side's first moves: 三步虎's three steps.
_OPENING_MOVES = 3


@dataclass(frozen=True, slots=True)
class Pattern:
    """A piece of ``piece`` type arriving on ``to`` from one of ``froms`` (any square when
    empty), with the side's ``also`` pieces standing where they say afterwards."""

    piece: int
    froms: frozenset[int]
    to: int
    also: tuple[tuple[int, int], ...] = ()
    side: int | None = None
    """``RED``, ``BLACK``, or ``None`` for either side."""
    plies: range = range(0, 10_000)
    """The 0-based plies of the game the move may come at."""
    wings: bool = True
    """Whether the mirror image (the other wing) counts too."""


@dataclass(frozen=True, slots=True)
class OpeningName:
    """A traditional name and what makes a game carry it."""

    name: str
    definition: str
    """The definition in words and moves (in the frame where Red opens on the right)."""
    patterns: tuple[Pattern, ...]
    aliases: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    """Names the game must also carry."""
    excludes: tuple[str, ...] = ()
    """Names the game must not carry."""


def _sq(name: str) -> int:
    return parse_square(name)


def move(piece: int, uci: str, *also: tuple[int, str], side: int | None = None,
         plies: range = range(0, 10_000), wings: bool = True) -> Pattern:
    """A :class:`Pattern` for one move written in coordinates (``move(HORSE, "h0g2")``)."""
    return Pattern(piece, frozenset({_sq(uci[:2])}), _sq(uci[2:]),
                   tuple((p, _sq(s)) for p, s in also), side, plies, wings)


def advance(piece: int, rank: int, files: str = "abcdefghi") -> tuple[Pattern, ...]:
    """``piece`` moving straight up its file to ``rank`` (in its own frame)."""
    return tuple(Pattern(piece, frozenset(_sq(f"{f}{r}") for r in range(rank)), _sq(f"{f}{rank}"))
                 for f in files)


def arrive(piece: int, squares: Iterable[str], *also: tuple[int, str]) -> tuple[Pattern, ...]:
    """``piece`` arriving on any of ``squares`` from anywhere."""
    extra = tuple((p, _sq(s)) for p, s in also)
    return tuple(Pattern(piece, frozenset(), _sq(s), extra) for s in squares)


def opens(piece: int, uci: str) -> Pattern:
    """Red's first move (in ECCO's frame, so on the right wing)."""
    return move(piece, uci, side=RED, plies=range(0, 1))


def replies(piece: int, uci: str) -> Pattern:
    """Black's first move, in its own frame, on the wing given."""
    return move(piece, uci, side=BLACK, plies=range(1, 2), wings=False)

#: Every traditional name the classifier gives, in the order names are listed.
NAMES: tuple[OpeningName, ...] = (
    # Red's first move: the opening families.
    OpeningName("中炮", "红方首着架中炮: 炮二平五", (opens(CANNON, "h2e2"),),
                aliases=("当头炮",)),
    OpeningName("仙人指路", "红方首着挺三兵: 兵三进一", (opens(PAWN, "g3g4"),),
                aliases=("进兵局",)),
    OpeningName("飞相局", "红方首着飞相: 相三进五", (opens(ELEPHANT, "g0e2"),)),
    OpeningName("起马局", "红方首着跳马: 马二进三", (opens(HORSE, "h0g2"),)),
    OpeningName("上仕局", "红方首着上仕: 仕四进五", (opens(ADVISOR, "f0e1"),)),
    OpeningName("边马局", "红方首着跳边马: 马二进一", (opens(HORSE, "h0i2"),)),
    OpeningName("边兵局", "红方首着挺边兵: 兵一进一", (opens(PAWN, "i3i4"),)),
    # Black's first reply.
    OpeningName("顺炮", "中炮, 黑方以同侧炮还架中炮: 炮二平五 炮8平5",
                (replies(CANNON, "b2e2"),), requires=("中炮",)),
    OpeningName("列炮", "中炮, 黑方以异侧炮还架中炮: 炮二平五 炮2平5",
                (replies(CANNON, "h2e2"),), requires=("中炮",)),
    OpeningName("半途列炮", "中炮, 黑方先出子, 后补架异侧中炮: 炮二平五 马8进7 … 炮2平5",
                (move(CANNON, "h2e2", side=BLACK, plies=range(3, 10_000), wings=False),),
                aliases=("后补列炮",), requires=("中炮",), excludes=("顺炮", "列炮")),
    OpeningName("卒底炮", "仙人指路, 黑方炮平到红方挺起之兵的底下: 兵三进一 炮8平7",
                (replies(CANNON, "b2c2"),), requires=("仙人指路",)),
    OpeningName("对兵局", "仙人指路, 黑方对挺卒: 兵三进一 卒3进1",
                (replies(PAWN, "g3g4"),), requires=("仙人指路",)),
    # Cannons.
    OpeningName("五七炮", "中炮之外, 另一炮平七路: 炮二平五 … 炮八平七",
                (move(CANNON, "b2c2", (CANNON, "e2")),)),
    OpeningName("五六炮", "中炮之外, 另一炮平六路: 炮二平五 … 炮八平六",
                (move(CANNON, "b2d2", (CANNON, "e2")),)),
    OpeningName("五八炮", "中炮之外, 另一炮过河: 炮二平五 … 炮八进四",
                (move(CANNON, "b2b6", (CANNON, "e2")),)),
    OpeningName("五九炮", "中炮之外, 另一炮平边: 炮二平五 … 炮八平九",
                (move(CANNON, "b2a2", (CANNON, "e2")),)),
    OpeningName("仕角炮", "炮平到己方仕角: 炮二平四", (move(CANNON, "h2f2"),), aliases=("士角炮",)),
    OpeningName("过宫炮", "炮经九宫平到另一侧仕角: 炮二平六", (move(CANNON, "h2d2"),)),
    OpeningName("金钩炮", "炮平到另一侧的七路, 制约对方的兵或相: 炮二平七", (move(CANNON, "h2c2"),)),
    OpeningName("巡河炮", "炮直升到己方河沿: 炮二进二", (move(CANNON, "h2h4"),)),
    OpeningName("过河炮", "炮直进到对方卒林: 炮二进四", (move(CANNON, "h2h6"),)),
    OpeningName("天地炮", "一炮镇中路, 另一炮沉到对方底线",
                arrive(CANNON, [f"{f}9" for f in "abcdefghi"], (CANNON, "e2"))),
    # Horses.
    OpeningName("屏风马", "双炮未动时双马正起: 马二进三 与 马八进七",
                (move(HORSE, "b0c2", (HORSE, "g2"), (CANNON, "b2"), (CANNON, "h2")),)),
    OpeningName("反宫马", "双马正起, 仕角有一炮相隔, 另一炮未动: 马二进三 炮二平四 马八进七",
                (move(HORSE, "b0c2", (HORSE, "g2"), (CANNON, "f2"), (CANNON, "b2")),
                 move(HORSE, "h0g2", (HORSE, "c2"), (CANNON, "f2"), (CANNON, "b2")),
                 move(CANNON, "h2f2", (HORSE, "c2"), (HORSE, "g2"), (CANNON, "b2"))),
                aliases=("夹炮屏风",)),
    OpeningName("单提马", "一马正起, 一马屯边: 马二进三 与 马八进九",
                (move(HORSE, "b0a2", (HORSE, "g2")), move(HORSE, "h0g2", (HORSE, "a2")))),
    OpeningName("三步虎", "开局三步之内上马、平边炮 (以便亮车): 马二进三 炮二平一",
                (Pattern(CANNON, frozenset({_sq("h2")}), _sq("i2"), ((HORSE, _sq("g2")),),
                         None, range(0, 2 * _OPENING_MOVES)),)),
    OpeningName("两头蛇", "双马正起, 三兵七兵齐挺: 马二进三 马八进七 兵三进一 兵七进一",
                (move(PAWN, "c3c4", (PAWN, "g4"), (HORSE, "c2"), (HORSE, "g2")),
                 move(HORSE, "b0c2", (PAWN, "c4"), (PAWN, "g4"), (HORSE, "g2")))),
    OpeningName("盘头马", "中炮挺中兵, 马从中路连环策应: 兵五进一 马三进五",
                (move(HORSE, "g2e3", (CANNON, "e2"), (PAWN, "e4")),),
                aliases=("中炮连环夹马",)),
    OpeningName("拐角马", "上相后马从相田出到仕前: 马二进四", (move(HORSE, "h0f1"),)),
    OpeningName("窝心马", "马跳入己方九宫花心", arrive(HORSE, ["e1"]), aliases=("塞心马", "入宫马")),
    # Chariots.
    OpeningName("直车", "车平到二路或八路, 从直线出动: 车一平二", (move(CHARIOT, "i0h0"),)),
    OpeningName("横车", "车升一步, 以后横向出动: 车一进一", (move(CHARIOT, "i0i1"),)),
    OpeningName("巡河车", "车进到己方河沿: 车二进四", advance(CHARIOT, 4)),
    OpeningName("骑河车", "车进到对方河沿", advance(CHARIOT, 5)),
    OpeningName("过河车", "车进到对方卒林: 车二进六", advance(CHARIOT, 6)),
    OpeningName("肋车", "车开到四路或六路", arrive(CHARIOT, [f"{f}{r}" for f in "df" for r in range(10)])),
)

_BY_NAME = {entry.name: entry for entry in NAMES}
_ORDER = {entry.name: i for i, entry in enumerate(NAMES)}


def _turned(sq: int) -> int:
    return 89 - sq


def _mirrored(sq: int) -> int:
    return sq - sq % 9 + 8 - sq % 9


#: A pattern as seen from the board in ECCO's frame, for one side and one wing: the name,
#: the first and last ply it may come at, and the (signed piece, square) pairs that must hold.
_Check = tuple[str, int, int, tuple[tuple[int, int], ...]]


def _index() -> tuple[dict[int, list[_Check]], dict[int, list[_Check]]]:
    """The patterns with every side and wing spelt out, so that reading a ply looks at only
    those its move could complete: by :func:`~xqdb.openings.line.feature` of the move, and,
    for the patterns that take a piece from anywhere, by (signed piece, square arrived on)."""
    by_move: dict[int, list[_Check]] = defaultdict(list)
    by_arrival: dict[int, list[_Check]] = defaultdict(list)
    for entry in NAMES:
        for p in entry.patterns:
            for color in (RED, BLACK) if p.side is None else (p.side,):
                for wing in (False, True) if p.wings else (False,):
                    def place(sq: int, wing: bool = wing, color: int = color) -> int:
                        sq = _mirrored(sq) if wing else sq
                        return sq if color == RED else _turned(sq)
                    check = (entry.name, p.plies.start, p.plies.stop - 1,
                             tuple((piece * color, place(s)) for piece, s in p.also))
                    piece, to = p.piece * color, place(p.to)
                    if p.froms:
                        for origin in p.froms:
                            found = by_move[feature(piece, Move.of(place(origin), to))]
                            if check not in found:
                                found.append(check)
                    elif check not in by_arrival[(piece + 7) * 90 + to]:
                        by_arrival[(piece + 7) * 90 + to].append(check)
    return dict(by_move), dict(by_arrival)


_BY_MOVE, _BY_ARRIVAL = _index()


def opening_names(line: OpeningLine) -> tuple[str, ...]:
    """The traditional names ``line`` carries, in :data:`NAMES` order."""
    found: set[str] = set()
    by_move, by_arrival = _BY_MOVE, _BY_ARRIVAL
    for ply, board in enumerate(line.boards()):
        piece, mv = line.pieces[ply], line.moves[ply]
        for checks in (by_move.get((piece + 7) * 8100 + mv.code),
                       by_arrival.get((piece + 7) * 90 + mv.to_square)):
            if checks is None:
                continue
            for name, first, last, also in checks:
                if first <= ply <= last and name not in found:
                    for p, sq in also:
                        if board[sq] != p:
                            break
                    else:
                        found.add(name)
    kept = [name for name in found
            if all(r in found for r in _BY_NAME[name].requires)
            and not any(x in found for x in _BY_NAME[name].excludes)]
    return tuple(sorted(kept, key=_ORDER.__getitem__))


def definition(name: str) -> OpeningName:
    """The table entry of ``name`` or of one of its aliases; ``KeyError`` if none."""
    for entry in NAMES:
        if name == entry.name or name in entry.aliases:
            return entry
    raise KeyError(name)
