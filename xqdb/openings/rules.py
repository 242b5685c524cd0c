"""ECCO's groups, as rules written from the ECCO definitions.

A code is found in two steps. These rules first put a game in its *group*: the opening
its first moves define (中炮对屏风马, 中炮对反宫马, 顺炮, 仙人指路对卒底炮, 飞相局…) and,
where ECCO decides a decade by the first characteristic move, that move (过河车, 五七炮,
巡河炮…). The decision tree of :mod:`xqdb.openings.ecco` then picks the code inside the
group. Where an ECCO definition fixes the code outright (对兵局, 先上士, 鸳鸯炮, the
variations of 仙人指路转左中炮对卒底炮…), the rules give it and no tree is asked. So they do
where a definition names a variation by a move *at a given turn* (Red's seventh move
车九进一 in 五七炮…边卒右马外盘河, Black's answer to 车九平八…): the tree, asking whether a
move came within some plies, would accept it later than ECCO does. Codes the rules give
are :attr:`Grouping.final`.

A group's key names the groups it refines: ``中炮对屏风马/车二进四/进左马`` refines
``中炮对屏风马/车二进四``, and a game whose group no tagged game reached is classified by
the tree of the nearest group it refines.

The rules read moves as texts in ECCO's frame (Red on the right wing), Black's files
in ASCII digits, so that a rule reads as the opening books write it.

>>> from xqdb.openings.line import OpeningLine
>>> moves = "炮二平五 马8进7 马二进三 马2进3 车一平二 车9平8 兵七进一 卒7进1 车二进六"
>>> grouping = group(OpeningLine.read(moves.split()))
>>> grouping.key
'中炮对屏风马/车二进六'
>>> [str(step) for step in grouping.steps]
['ply 1: Red played 炮二平五', 'ply 2 and 4: Black played 马8进7 and 马2进3 (屏风马)', \
'ply 9: Red played 车二进六, the first move past the development of both horses']
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..notation.tables import FULLWIDTH_DIGITS
from ..rules.board import Move
from .line import OpeningLine, lone_move_text

_ASCII_DIGITS = str.maketrans(FULLWIDTH_DIGITS, "123456789")


@functools.lru_cache(maxsize=4096)
def _text(piece: int, code: int) -> str:
    # The text of a lone piece: 前/后 only tell twins apart, a rule names the move itself.
    return lone_move_text(piece, Move.from_code(code)).translate(_ASCII_DIGITS)


@dataclass(frozen=True, slots=True)
class Step:
    """One fact a rule relied on: the plies (0-based) and what was played there."""

    plies: tuple[int, ...]
    what: str

    def __str__(self) -> str:
        if not self.plies:
            return self.what
        where = " and ".join(str(ply + 1) for ply in self.plies)
        return f"ply {where}: {self.what}"


@dataclass(frozen=True, slots=True)
class Grouping:
    """The group a game's opening falls in, and why."""

    key: str
    """The group's name, as the decision tree files it (``中炮对屏风马/车二进六``)."""
    default: str
    """The group's catch-all code, for a group no tagged game has reached; with
    :attr:`final`, the code itself."""
    steps: tuple[Step, ...]
    final: bool = False
    """Whether the rules decided the code outright, with no tree to ask."""


class _Reading:
    """The plies of a line as texts, and the steps the rules take on them."""

    def __init__(self, line: OpeningLine) -> None:
        self.texts = [_text(piece, move.code) for piece, move in zip(line.pieces, line.moves)]
        self.steps: list[Step] = []

    def at(self, ply: int) -> str:
        return self.texts[ply] if ply < len(self.texts) else ""

    def ply_of(self, text: str, side: int, start: int = 0) -> int | None:
        """The first ply from ``start`` at which ``side`` (0 Red, 1 Black) played ``text``."""
        for ply in range(start + (start + side) % 2, len(self.texts), 2):
            if self.texts[ply] == text:
                return ply
        return None

    def note(self, plies: tuple[int, ...], what: str) -> None:
        self.steps.append(Step(plies, what))


#: Red's developing moves against 屏风马 that leave the decade open: ECCO reads past them
#: to the first other move, which names the system (过河车, 五七炮…).
_DEVELOPING = frozenset({"马二进三", "马八进七", "马八进九", "车一平二", "兵三进一", "兵七进一",
                         "车九平八"})
#: The first non-developing moves that name a system against 屏风马; any other move
#: leaves the game in the 七路马/边马 decade (C0x).
_SYSTEMS = frozenset({"车二进六", "车二进四", "车一进一", "炮八平六", "炮八平七", "炮八进二",
                      "炮八进四", "炮八平九"})
#: Red's second move against 卒底炮 that names the line: 飞相, 右中炮 or 左中炮.
_AGAINST_CANNON_BELOW_PAWN = {"相三进五": "飞相", "相七进五": "飞相", "炮二平五": "右中炮",
                              "炮八平五": "左中炮"}

#: The catch-all code of the opening each first move starts (in ECCO's frame).
_FIRST_MOVE_DEFAULT = {"炮二平五": "B00", "兵三进一": "E00", "相三进五": "A10", "马二进三": "A40",
                       "炮二平四": "A50", "炮二平六": "A60", "仕四进五": "A01", "马二进一": "A02",
                       "炮二平一": "A03", "炮二进二": "A04", "炮二进四": "A05", "炮二平三": "A06",
                       "炮二平七": "A07", "兵一进一": "A08"}


def group(line: OpeningLine) -> Grouping:
    """The group of ``line``'s opening: see the module documentation."""
    reading = _Reading(line)
    first, reply = reading.at(0), reading.at(1)
    default = _FIRST_MOVE_DEFAULT.get(first, "A00")
    if not first:
        return Grouping("", default, ())
    reading.note((0,), f"Red played {first}")
    if not reply:
        return Grouping(first, default, tuple(reading.steps))
    if first == "炮二平五" and reply not in ("炮8平5", "炮2平5"):
        key = _central_cannon(reading)
        if key is not None:
            key, code = _screen_horses_variation(reading, key)
            return Grouping(key, code or "C00", tuple(reading.steps), final=code is not None)
        fixed = _right_horse_and_pawn(reading)
        if fixed is not None:
            return Grouping(f"中炮对进右马/{fixed}", fixed, tuple(reading.steps), final=True)
        key = _palace_horses(reading)
        if key is not None:
            return Grouping(key, "B30", tuple(reading.steps))
        key = _central_cannon_other_defence(reading)
        if key is not None:
            if key.startswith("中炮对马2进3/车9进1"):
                key += _cross_rook_or_edge_horse_first(reading)
            return Grouping(key, "B00", tuple(reading.steps))
    if first == "炮二平五" and reply == "炮8平5":
        key = _same_side_cannons(reading)
        fixed = {"顺炮直车对横车/其他": "D20", "顺炮直车对横车/两头蛇/双横车": "D29"}.get(key)
        if fixed is not None:
            return Grouping(key, fixed, tuple(reading.steps), final=True)
        if key == "顺炮/直车对缓开车":
            code = _slow_rook_answer(reading)
            return Grouping(f"{key}/{code}", code, tuple(reading.steps), final=True)
        return Grouping(key, "D00", tuple(reading.steps))
    if first == "兵三进一" and reply == "炮8平7":
        reading.note((1,), "Black played 炮8平7 (卒底炮)")
        line_name = _AGAINST_CANNON_BELOW_PAWN.get(reading.at(2))
        if line_name is None:
            reading.note((2,), f"Red played {reading.at(2) or 'nothing'}: neither 飞相 nor 中炮")
            return Grouping("仙人指路对卒底炮", "E10", tuple(reading.steps))
        reading.note((2,), f"Red played {reading.at(2)} ({line_name})")
        if line_name == "左中炮":
            key, code = _left_central_cannon_against_cannon_below_pawn(reading)
            return Grouping(key, code, tuple(reading.steps), final=key.endswith("/其他"))
        code = "E11" if line_name == "飞相" else "E12"
        return Grouping(f"仙人指路{line_name}对卒底炮", code, tuple(reading.steps))
    if first == "兵三进一" and reply in ("卒3进1", "马2进3"):
        code = _pawns_facing(reading)
        return Grouping(f"仙人指路/{code}", code, tuple(reading.steps), final=True)
    reading.note((1,), f"Black played {reply}")
    if first == "炮二平六" and reply == "炮8平5" and reading.at(2) == "马二进三" \
            and reading.at(4) == "车一平二":
        code = _crossing_cannon_straight_rook(reading)
        return Grouping(f"{first} {reply}/{code}", code, tuple(reading.steps), final=True)
    if first == "相三进五" and reply == "炮8平4":
        code = _elephant_against_palace_cannon(reading)
        if code is not None:
            return Grouping(f"{first} {reply}/{code}", code, tuple(reading.steps), final=True)
    by_second = _BY_RED_SECOND_MOVE.get((first, reply))
    if by_second is not None:
        second = reading.at(2)
        code = by_second.get(second, by_second[""])
        reading.note((2,), f"Red played {second or 'nothing'} as his move 2")
        return Grouping(f"{first} {reply}/{code}", code, tuple(reading.steps), final=True)
    return Grouping(f"{first} {reply}", default, tuple(reading.steps))


#: Where ECCO names the code by Red's second move after a first move and its reply, the
#: code for each second move ("" for any other).
_BY_RED_SECOND_MOVE = {
    ("相三进五", "马2进3"): {"兵三进一": "A15", "兵七进一": "A16", "": "A14"},
    ("相三进五", "卒7进1"): {"马八进七": "A37", "兵七进一": "A38", "": "A36"},
    ("相三进五", "炮8平4"): {"马二进三": "A31", "": "A30"},
}


def _crossing_cannon_straight_rook(reading: _Reading) -> str:
    """过宫炮直车对左中炮 (马二进三, 车一平二 as Red's second and third moves): 横车 (A65)
    when Black's second and third moves are 马8进7 and 车9进1 in either order, else A64."""
    black = {reading.at(3), reading.at(5)}
    if black == {"马8进7", "车9进1"}:
        reading.note((2, 3, 4, 5), "Red played 马二进三 and 车一平二, Black 马8进7 and 车9进1 "
                                   "(直车对左中炮横车)")
        return "A65"
    reading.note((2, 4), "Red played 马二进三 and 车一平二 (直车), Black not 马8进7 and 车9进1")
    return "A64"


#: 飞相进右马对左过宫炮, 红直车对黑进７卒 (A32), as ECCO writes it, and Red's fourth
#: moves that name the lines after it: 边炮 (A33), 互进七兵 (A34).
_ELEPHANT_AGAINST_PALACE_CANNON = ("相三进五", "炮8平4", "马二进三", "马8进7", "车一平二", "卒7进1")
_AFTER_ELEPHANT_AGAINST_PALACE_CANNON = {"炮二平一": "A33", "兵七进一": "A34"}


def _elephant_against_palace_cannon(reading: _Reading) -> str | None:
    """A32-A34 when the game opens with :data:`_ELEPHANT_AGAINST_PALACE_CANNON` in that
    order, by Red's fourth move; ``None`` (the tree decides among A30, A31) otherwise."""
    plies = tuple(range(len(_ELEPHANT_AGAINST_PALACE_CANNON)))
    if tuple(reading.at(ply) for ply in plies) != _ELEPHANT_AGAINST_PALACE_CANNON:
        return None
    fourth = reading.at(len(plies))
    code = _AFTER_ELEPHANT_AGAINST_PALACE_CANNON.get(fourth, "A32")
    reading.note(plies[2:], "Red played 马二进三 and 车一平二, Black 马8进7 and 卒7进1 (红直车对黑进７卒)")
    if code != "A32":
        reading.note((len(plies),), f"Red played {fourth} as his move 4")
    return code


def _left_horse(reading: _Reading) -> str:
    """巡河车 with or without the left horse: 进左马 when Red brings it out by his fifth move."""
    for ply in range(2, min(len(reading.texts), 10), 2):
        if reading.texts[ply] in ("马八进七", "马八进九"):
            reading.note((ply,), f"Red played {reading.texts[ply]} by his fifth move (进左马)")
            return "进左马"
    reading.note((), "Red had not brought out his left horse by his fifth move (不进左马)")
    return "不进左马"


#: What Black may play before the second horse and still reach 屏风马: the 车 beside the
#: horse, and the pawns in front of the horses.
_BEFORE_SCREEN_HORSES = frozenset({"车9平8", "卒7进1", "卒3进1"})


def _central_cannon(reading: _Reading) -> str | None:
    """For 中炮 answered by a horse, the 屏风马 group and its system: Black brings out the
    second horse by his fifth move, having played nothing but :data:`_BEFORE_SCREEN_HORSES`
    before it."""
    first_horse = reading.texts[1]
    if first_horse not in ("马8进7", "马2进3"):
        return None
    second_horse = "马2进3" if first_horse == "马8进7" else "马8进7"
    second = reading.ply_of(second_horse, 1)
    if second is None or second > 9:
        return None
    if any(reading.texts[ply] not in _BEFORE_SCREEN_HORSES for ply in range(3, second, 2)):
        return None
    reading.note((1, second), f"Black played {first_horse} and {second_horse} (屏风马)")
    system = _red_system(reading, _SYSTEMS)
    if system == "车二进四":
        return "中炮对屏风马/车二进四/" + _left_horse(reading)
    return f"中炮对屏风马/{system}"


def _screen_horses_variation(reading: _Reading, key: str) -> tuple[str, str | None]:
    """Where an ECCO definition inside a 屏风马 system fixes the code by a move at a given
    turn, the key refined by it and the code (``None``: the tree decides)."""
    if key == "中炮对屏风马/炮八平七":
        key, code = _five_seven_cannons_edge_pawn(reading, key)
        if code is None and key == "中炮对屏风马/炮八平七":
            return _five_seven_cannons_both_straight_rooks(reading, key)
        return key, code
    if key == "中炮对屏风马/炮八进二" and reading.at(8) == "炮八进二":
        return _river_cannon_elephant(reading, key)
    if key == "中炮对屏风马/车二进六" and _central_pawn_before_left_wing(reading):
        return f"{key}/进中兵", "C17"
    if key == "中炮对屏风马/车二进六" and reading.at(11) == "炮9退1" and reading.at(12) == "马八进七":
        return _seven_road_horse_against_edge_cannon(reading, key)
    return key, None


def _seven_road_horse_against_edge_cannon(reading: _Reading, key: str) -> tuple[str, str | None]:
    """中炮过河车互进七兵对屏风马平炮兑车, 红七路马对黑退边炮 (C42-C46): Black's 炮9退1 as
    his sixth move and Red's 马八进七 as his seventh. 上右士 (士4进5) as Black's seventh
    opens C43-C46, and Red's eighth 马七进六 then makes it 左马盘河 (C44); without the
    士 there it is C42."""
    reading.note((11, 12), "Black played 炮9退1 as his move 6, Red 马八进七 as his move 7")
    if reading.at(13) != "士4进5":
        reading.note((13,), f"Black played {reading.at(13) or 'nothing'} as his move 7, not 士4进5")
        return f"{key}/七路马对退边炮", "C42"
    if reading.at(14) == "马七进六":
        reading.note((13, 14), "Black played 士4进5 (上右士), Red 马七进六 (左马盘河)")
        return f"{key}/七路马对退边炮上右士/马七进六", "C44"
    reading.note((13,), "Black played 士4进5 as his move 7 (上右士)")
    return f"{key}/七路马对退边炮上右士", None


#: Black's move after 飞左象 against 中炮巡河炮 that names the variation: 右横车 (C82),
#: 左炮巡河 (C83); any other is C81.
_AFTER_RIVER_CANNON_LEFT_ELEPHANT = {"车1进1": "C82", "炮8进2": "C83"}


def _river_cannon_elephant(reading: _Reading, key: str) -> tuple[str, str | None]:
    """中炮巡河炮对屏风马 with 炮八进二 as Red's fifth move: Black's answer 象3进5 is 飞右象
    (C84), 象7进5 飞左象 (C81-C83, by Black's next move); any other answer is left to
    the tree."""
    answer = reading.at(9)
    if answer == "象3进5":
        reading.note((8, 9), "Red played 炮八进二 as his move 5, Black 象3进5 (飞右象)")
        return f"{key}/飞右象", "C84"
    if answer != "象7进5":
        return key, None
    after = reading.at(11)
    code = _AFTER_RIVER_CANNON_LEFT_ELEPHANT.get(after, "C81")
    reading.note((8, 9, 11), f"Red played 炮八进二 as his move 5, Black 象7进5 (飞左象), then "
                             f"{after or 'nothing'}")
    return f"{key}/飞左象/{code}", code


def _central_pawn_before_left_wing(reading: _Reading) -> bool:
    """Whether Red's first move past 过河车 (his pawns 三/七 and the 车二 read past) is
    兵五进一, with neither 兵七进一 nor a left horse before it: no 七路马, 左边马 or 互进七兵
    line is reached, and the code stays 中炮过河车对屏风马 (C17)."""
    rook = reading.ply_of("车二进六", 0)
    assert rook is not None, "the 过河车 group is named by 车二进六"
    for ply in range(rook + 2, len(reading.texts), 2):
        move = reading.texts[ply]
        if move in ("兵三进一", "兵七进一") or move.startswith("车二"):
            continue
        if move != "兵五进一" or any(
                reading.texts[before] in ("兵七进一", "马八进七", "马八进九")
                for before in range(0, ply, 2)):
            return False
        reading.note((ply,), "Red played 兵五进一 before 兵七进一 or a left horse (进中兵)")
        return True
    return False


def _five_seven_cannons_edge_pawn(reading: _Reading, key: str) -> tuple[str, str | None]:
    """五七炮互进三兵对屏风马边卒右马外盘河 (C72-C78): Red's 马八进九 and 兵三进一 and
    Black's 卒1进1 before Black's sixth move 马3进2. Red's seventh move 车九进一 (左横车)
    opens C73-C78; any other seventh move is C72."""
    if reading.at(11) != "马3进2" or any(
            (ply := reading.ply_of(move, side)) is None or ply > 10
            for move, side in (("马八进九", 0), ("兵三进一", 0), ("卒1进1", 1))):
        return key, None
    reading.note((11,), "Black played 马3进2 as his move 6, after 卒1进1 (边卒右马外盘河)")
    if reading.at(12) != "车九进一":
        reading.note((12,), f"Red played {reading.at(12) or 'nothing'} as his move 7, not 车九进一")
        return f"{key}/边卒右马外盘河", "C72"
    answer, eighth = reading.at(13), reading.at(14)
    code = _AGAINST_LEFT_CROSS_ROOK.get(answer, "C73")
    if code == "C74":
        code = {"马三进四": "C75", "车二进四": "C76"}.get(eighth, code)
    reading.note((12, 13, 14) if code in ("C75", "C76") else (12, 13),
                 f"Red played 车九进一 as his move 7 (左横车), Black {answer or 'nothing'}"
                 + (f", Red {eighth}" if code in ("C75", "C76") else ""))
    return f"{key}/边卒右马外盘河/左横车/{code}", code


#: Black's answer to 红左直车 in 五七炮对屏风马进７卒 that names the variation: 左炮过河,
#: 右炮巡河, 右炮过河; any other is C63.
_AGAINST_FIVE_SEVEN_LEFT_STRAIGHT_ROOK = {"炮8进4": "C64", "炮2进2": "C65", "炮2进4": "C66"}


def _five_seven_cannons_both_straight_rooks(reading: _Reading, key: str) -> tuple[str, str | None]:
    """五七炮对屏风马进７卒, 黑右直车 (C62-C66): Black's 卒7进1 and 车1平2 by his fifth
    move, Red's left rook and 七兵 still home. Red's 车九平八 as his sixth move makes it 红左直车对
    黑右直车 (C63-C66), Black's answer to it naming the variation; any other sixth move
    leaves C62."""
    pawn, rook = reading.ply_of("卒7进1", 1), reading.ply_of("车1平2", 1)
    if pawn is None or rook is None or max(pawn, rook) > 9:
        return key, None
    # A 车九平八 or 兵七进一 (互进七兵, C68) before Red's sixth move is another line.
    if any((ply := reading.ply_of(move, 0)) is not None and ply < 10
           for move in ("车九平八", "兵七进一")):
        return key, None
    if reading.at(10) != "车九平八":
        reading.note((pawn, rook, 10), f"Black played 卒7进1 and 车1平2 (进７卒, 右直车), Red "
                                       f"{reading.at(10) or 'nothing'} as his move 6, not 车九平八")
        return f"{key}/进7卒/右直车", "C62"
    answer = reading.at(11)
    code = _AGAINST_FIVE_SEVEN_LEFT_STRAIGHT_ROOK.get(answer, "C63")
    reading.note((pawn, rook, 10, 11), f"Black played 卒7进1 and 车1平2, Red 车九平八 as his move 6 "
                                      f"(左直车对右直车), Black {answer or 'nothing'}")
    return f"{key}/进7卒/左直车对右直车/{code}", code


#: Black's seventh move against 五七炮…边卒右马外盘河 and 红左横车 that names the variation:
#: 飞左象 (C74, then C75 右马盘河 or C76 右车巡河 by Red's eighth), 飞右象, 兑边卒; any
#: other is C73.
_AGAINST_LEFT_CROSS_ROOK = {"象7进5": "C74", "象3进5": "C77", "卒1进1": "C78"}


def _red_system(reading: _Reading, systems: frozenset[str]) -> str:
    """Red's first move past the development of both horses (:data:`_DEVELOPING`) when it
    is one of ``systems``, else ``其他/`` and that move (``其他`` when there is none)."""
    for ply in range(2, len(reading.texts), 2):
        move = reading.texts[ply]
        if move in _DEVELOPING:
            continue
        if move in systems:
            reading.note((ply,), f"Red played {move}, the first move past the development of "
                                 "both horses")
            return move
        reading.note((ply,), f"Red played {move}, before any move that names a system")
        return f"其他/{move}"
    return "其他"


def _right_horse_and_pawn(reading: _Reading) -> str | None:
    """中炮对进右马 with a pawn at Black's second move: 先上士 (B02) when his third is a
    士, 鸳鸯炮 (B03) when it is 车9进2."""
    black = reading.texts[1::2]
    if black[:1] != ["马2进3"] or len(black) < 3 or black[1] not in ("卒3进1", "卒7进1"):
        return None
    code = {"士4进5": "B02", "士6进5": "B02", "车9进2": "B03"}.get(black[2])
    if code is not None:
        name = "先上士" if code == "B02" else "鸳鸯炮"
        reading.note((1, 3, 5), f"Black played 马2进3, {black[1]} and {black[2]} ({name})")
    return code


#: The moves that name Red's system against 反宫马, as :data:`_SYSTEMS` against 屏风马:
#: 五六炮 (B4x), 五七炮 (B5x), 过河车, 右横车, 巡河炮, 五八炮, 急进左马 (B33-B36, B32).
_SYSTEMS_AGAINST_PALACE_HORSES = frozenset({"炮八平六", "炮八平七", "车二进六", "车一进一",
                                            "炮八进二", "炮八进四", "马七进六"})


def _palace_horses(reading: _Reading) -> str | None:
    """For 中炮 answered by 马2进3, the 反宫马 group: Black's first named move is the
    士角炮 炮8平6 and his next horse move is 马8进7 (马8进9 or 车9进1 first make it a
    单提马). The left horse comes late (后补左马, B30) after Black's fifth move, or at his
    fifth when the 士角炮 waited for his third; otherwise Red's system names the decade."""
    if reading.texts[1] != "马2进3":
        return None
    black = reading.texts[1::2]
    named = [move for move in black[1:] if move in _DEFENCES or move == "马8进7"]
    if not named or named[0] != "炮8平6":
        return None
    corner = black.index("炮8平6")
    after = [move for move in black[corner + 1:] if move in ("马8进7", "马8进9", "车9进1")]
    if after and after[0] != "马8进7":
        return None
    left = black.index("马8进7") if "马8进7" in black else None
    if left is None or left >= 5 or (left == 4 and corner == 2):
        reading.note((1, 2 * corner + 1), "Black played 马2进3 and 炮8平6, and 马8进7 "
                     + ("only later" if left is not None else "not at all") + " (后补左马)")
        return "中炮对反宫马/后补左马"
    reading.note((1, 2 * corner + 1, 2 * left + 1), "Black played 马2进3, 炮8平6 and 马8进7 (反宫马)")
    return f"中炮对反宫马/{_red_system(reading, _SYSTEMS_AGAINST_PALACE_HORSES)}"


#: Black's moves that name a defence to 中炮 other than 屏风马: 后补列炮, 左炮封车,
#: 左三步虎, 反宫马 (士角炮), 单提马 and its 横车, 右三步虎.
_DEFENCES = {"炮2平5": "后补列炮", "炮8进4": "左炮封车", "炮8平9": "左三步虎", "炮8平6": "反宫马",
             "马8进9": "单提马", "车9进1": "横车", "炮2平1": "右三步虎"}


def _late_central_cannon_counts(reading: _Reading, ply: int) -> bool:
    """Whether Black's 炮2平5 at ``ply`` makes the game a 后补列炮: by Black's fifth
    move, or at his sixth after 左三步虎骑河车 (炮8平9, 车8进5)."""
    if ply <= 9:
        return True
    before = reading.texts[1:ply:2]
    return ply == 11 and "炮8平9" in before and "车8进5" in before


def _central_cannon_other_defence(reading: _Reading) -> str | None:
    """For 中炮 answered by a horse but not by 屏风马: the first two of Black's moves that
    name a defence (:data:`_DEFENCES`) or bring out the other horse, in their order."""
    reply = reading.texts[1]
    if reply not in ("马8进7", "马2进3"):
        return None
    other_horse = "马2进3" if reply == "马8进7" else "马8进7"
    named = [ply for ply in range(3, len(reading.texts), 2)
             if (reading.texts[ply] in _DEFENCES or reading.texts[ply] == other_horse)
             and (reading.texts[ply] != "炮2平5" or _late_central_cannon_counts(reading, ply))][:2]
    moves = [reading.texts[ply] for ply in named]
    names = [_DEFENCES.get(move, "the other horse") for move in moves]
    if named:
        reading.note(tuple(named), f"Black played {' then '.join(moves)} ({', '.join(names)}), "
                                   "not 屏风马")
    else:
        reading.note((1,), f"Black played {reply}, then neither 屏风马 nor a named defence")
    if reply == "马8进7" and moves[:1] == ["炮2平5"]:
        return f"中炮对后补列炮/{_rooks_against_late_central_cannon(reading)}"
    if reply == "马8进7" and moves[:1] == ["炮8平9"] and moves[1:2] != ["炮2平5"]:
        return f"中炮对左三步虎/{_against_left_three_step_tiger(reading)}"
    return "/".join([f"中炮对{reply}"] + (moves or ["其他"]))


def _cross_rook_or_edge_horse_first(reading: _Reading) -> str:
    """For 中炮对进右马横车: ``/横车先平肋`` when the 横车 moves to the rib file (车9平4)
    before 马8进9, which makes it 单提马横车 (B12-B14), else ``/边马先`` (单提马, B10)."""
    rib, edge = reading.ply_of("车9平4", 1), reading.ply_of("马8进9", 1)
    if rib is not None and (edge is None or rib < edge):
        reading.note((rib,), "Black played 车9平4 before 马8进9 (单提马横车)")
        return "/横车先平肋"
    reading.note((), "Black played 马8进9 before moving the 横车 to the rib file")
    return "/边马先"


#: Red's moves read past when his rooks name the line against 后补列炮.
_HORSES_AND_PAWNS = frozenset({"马二进三", "马八进七", "马八进九", "兵三进一", "兵七进一"})


def _rooks_against_late_central_cannon(reading: _Reading) -> str:
    """Red's line against 后补列炮 from his first two moves past horses and pawns:
    右直车 (D52) and then 过河车 (D53) or 双直车 (D55), 左直车 (D54), else 其他 (D51)."""
    plies = [ply for ply in range(2, len(reading.texts), 2)
             if reading.texts[ply] not in _HORSES_AND_PAWNS][:2]
    moves = [reading.texts[ply] for ply in plies] + ["", ""]
    if moves[0] == "车一平二":
        line = {"车二进六": "过河车", "车九平八": "双直车"}.get(moves[1], "右直车")
    elif moves[0] == "车九平八":
        line = "双直车" if moves[1] == "车一平二" else "左直车"
    else:
        line = "其他"
    shown = plies if line in ("过河车", "双直车") else plies[:1]
    reading.note(tuple(shown), "Red played " + " then ".join(reading.texts[p] for p in shown)
                 + f" past horses and pawns ({line})")
    return line


def _same_side_cannons(reading: _Reading) -> str:
    """顺炮 (炮二平五 炮8平5), by how soon each side's rook comes out: Red's 直车 at his
    third move against Black's 横车 by his third is 直车对横车 (D2x, then by Red's next
    move past 马八进七), against a later rook 直车对缓开车 (D1x); Red's 横车 at his second
    move is 横车对缓开车 (D03), at his third against Black's 直车 横车对直车 (D04, D05);
    a later Red rook is 缓开车 (D00-D02)."""
    reading.note((1,), "Black played 炮8平5 (顺炮)")
    red = _first_of(reading, 0, ("车一平二", "车一进一"))
    black = _first_of(reading, 1, ("车9平8", "车9进1"))
    if red is None or red[0] > 4:
        return "顺炮/缓开车"
    ply, move = red
    reading.note((ply,), f"Red played {move} as his move {ply // 2 + 1}")
    if move == "车一进一":
        if ply == 2:
            return "顺炮/横车对缓开车"
        if black is not None and black == (3, "车9平8"):
            reading.note((3,), "Black played 车9平8 as his move 2")
            return "顺炮/横车对直车"
        return "顺炮/横车"
    if black is None or black[1] != "车9进1" or black[0] > 5:
        reading.note((), "Black had not played 车9进1 by his move 3")
        return "顺炮/直车对缓开车"
    reading.note((black[0],), f"Black played 车9进1 as his move {black[0] // 2 + 1}")
    pawns: list[int] = []
    for ply in range(6, len(reading.texts), 2):
        move = reading.texts[ply]
        if move == "马八进七":
            continue
        if move in ("兵三进一", "兵七进一"):
            # A pawn leaves the variation open: the move after it may still name one
            # (进三兵 then 过河车 is 红过河车), and the other pawn makes it 两头蛇.
            pawns.append(ply)
            if len(pawns) == 2:
                reading.note(tuple(pawns), "Red played 兵三进一 and 兵七进一 before any other "
                                           "move after 马八进七 (两头蛇)")
                if reading.at(ply + 1) == "车1进1" and "车9平4" in reading.texts[5:ply:2]:
                    reading.note((ply + 1,), "Black answered with his second 横车 车1进1, "
                                             "the first already on the rib file (双横车)")
                    return "顺炮直车对横车/两头蛇/双横车"
                return "顺炮直车对横车/两头蛇"
            continue
        if move in _AGAINST_SAME_SIDE_CANNONS_AND_CROSS_ROOK:
            reading.note((ply,), f"Red played {move}, his first move after 马八进七"
                         + (" and the pawn" if pawns else ""))
            return f"顺炮直车对横车/{move}"
        if pawns:
            break
        reading.note((ply,), f"Red played {move} after 马八进七, no variation's move")
        return "顺炮直车对横车/其他"
    if pawns:
        pawn = reading.texts[pawns[0]]
        reading.note((pawns[0],), f"Red played {pawn}, then no other variation's move")
        return f"顺炮直车对横车/{pawn}"
    return "顺炮直车对横车/其他"


#: Black's moves that name a variation of 顺炮直车对缓开车: 左横车, 右横车, 兑直车, 过河炮,
#: 边炮.
_SLOW_ROOK_ANSWERS = {"车9进1": "D11", "车1进1": "D12", "车9平8": "D13", "炮2进4": "D14",
                      "炮2平1": "D15"}


def _slow_rook_answer(reading: _Reading) -> str:
    """顺炮直车对缓开车 (D10-D15) by the first of Black's :data:`_SLOW_ROOK_ANSWERS` from his
    third move to his fifth; D10 when he plays none of them."""
    for ply in range(5, min(len(reading.texts), 11), 2):
        code = _SLOW_ROOK_ANSWERS.get(reading.texts[ply])
        if code is not None:
            reading.note((ply,), f"Black played {reading.texts[ply]} as his move {ply // 2 + 1}")
            return code
    reading.note((), "Black played none of 车9进1, 车1进1, 车9平8, 炮2进4, 炮2平1 by his move 5")
    return "D10"


#: Red's moves that name a variation of 顺炮直车对横车 (D21-D25): 先上仕, 左边马,
#: 巡河车, 过河车, 仕角炮. The pawns before them are read past; alone they name 进三兵,
#: 进七兵 (D26, D27), both 两头蛇 (D28, D29).
_AGAINST_SAME_SIDE_CANNONS_AND_CROSS_ROOK = frozenset({
    "仕四进五", "仕六进五", "马八进九", "车二进四", "车二进六", "炮八平六"})


def _first_of(reading: _Reading, side: int, moves: tuple[str, ...]) -> tuple[int, str] | None:
    """The first ply at which ``side`` (0 Red, 1 Black) played one of ``moves``, and the move."""
    for ply in range(side, len(reading.texts), 2):
        if reading.texts[ply] in moves:
            return ply, reading.texts[ply]
    return None


#: After 兵三进一 炮8平7 炮八平五 象7进5, Red's third move that names the variation.
_AGAINST_LEFT_ELEPHANT = {"仕四进五": "E21", "炮五进四": "E38", "马二进一": "E37"}


def _left_central_cannon_against_cannon_below_pawn(reading: _Reading) -> tuple[str, str]:
    """仙人指路转左中炮对卒底炮 (E13-E38), by Black's second move and the moves after it:
    飞右象 (E14-E16), 转顺炮 (E17), 飞左象 (E20-E38), anything else E13. Returns the
    group's key and its code (final when the key ends in ``/其他``)."""
    reply, third, answer = reading.at(3), reading.at(4), reading.at(5)
    key = "仙人指路转左中炮对卒底炮"
    if reply == "炮2平5":
        reading.note((3,), "Black played 炮2平5 (转顺炮)")
        return f"{key}/转顺炮/其他", "E17"
    if reply == "象3进5":
        reading.note((3,), "Black played 象3进5 (飞右象)")
        if third != "马二进一":
            return f"{key}/飞右象/其他", "E14"
        edge = answer == "马8进9"
        reading.note((4, 5) if edge else (4,), "Red played 马二进一 (右边马)"
                     + (", Black 马8进9 (互进边马)" if edge else ""))
        return f"{key}/飞右象/{'互进边马' if edge else '红右边马'}/其他", "E16" if edge else "E15"
    if reply != "象7进5":
        reading.note((3,), f"Black played {reply or 'nothing'}: neither 象 nor 炮2平5")
        return f"{key}/其他", "E13"
    reading.note((3,), "Black played 象7进5 (飞左象)")
    code = _AGAINST_LEFT_ELEPHANT.get(third)
    if code is not None:
        reading.note((4,), f"Red played {third}")
        return f"{key}/飞左象/{third}/其他", code
    if third != "马八进七":
        reading.note((4,), f"Red played {third or 'nothing'}")
        return f"{key}/飞左象/其他", "E20"
    if answer not in ("车1进1", "卒7进1"):
        reading.note((4,), f"Red played 马八进七 (进左马), Black {answer or 'nothing'}")
        return f"{key}/飞左象/马八进七/其他", "E22"
    reading.note((4, 5), f"Red played 马八进七 (进左马), Black {answer}")
    if answer == "车1进1":
        return _left_straight_rook_against_right_cross_rook(reading, f"{key}/飞左象/马八进七/车1进1")
    return f"{key}/飞左象/马八进七/{answer}", "E30"


#: Black's answer to 右马盘河 (马三进四) in 红左直车…对黑右横车 that names the variation:
#: 上士, 过河 (the 横车, now on 8, crosses), 边卒; any other answer stays E24.
_AGAINST_RIGHT_HORSE_TO_RIVER = {"士6进5": "E25", "车8进6": "E26", "卒1进1": "E27"}


def _left_straight_rook_against_right_cross_rook(reading: _Reading, key: str) -> tuple[str, str]:
    """…红进左马对黑右横车 (E23-E27): the 左直车 车九平八 as Red's fourth move, met by
    车1平8 and, after 马二进三, 马8进6, makes it E24-E27, and Black's answer to Red's
    马三进四 (右马盘河) then names E25-E27; any other order leaves E23."""
    plies = (6, 7, 8, 9)
    if [reading.at(ply) for ply in plies] != ["车九平八", "车1平8", "马二进三", "马8进6"]:
        reading.note((), "Red's moves 4 and 5 and Black's answers are not "
                         "车九平八 车1平8 马二进三 马8进6")
        return f"{key}/其他", "E23"
    reading.note(plies, "Red played 车九平八 (左直车) and 马二进三, Black 车1平8 and 马8进6")
    horse = reading.ply_of("马三进四", 0)
    code = "E24" if horse is None else _AGAINST_RIGHT_HORSE_TO_RIVER.get(reading.at(horse + 1), "E24")
    if horse is not None and code != "E24":
        reading.note((horse, horse + 1), f"Red played 马三进四 (右马盘河), Black {reading.at(horse + 1)}")
    return f"{key}/车九平八/{code}/其他", code


#: Red's third move in 对兵互进右马局 that names the variation: 飞相, 横车, 边炮.
_BOTH_RIGHT_HORSES = {"相三进五": "E43", "相七进五": "E43", "车一进一": "E44", "炮二平一": "E45"}


def _pawns_facing(reading: _Reading) -> str:
    """仙人指路 answered by 卒3进1 (对兵局, E40-E48) or 马2进3 (E06-E09, or 对兵互进右马
    when both sides' horses and Black's pawn follow), decided move by move."""
    reply, second, answer, third = (reading.at(ply) for ply in range(1, 5))
    if reply == "马2进3":
        if second == "兵七进一":
            cannon = answer == "炮8平7"
            reading.note((1, 2, 3) if cannon else (1, 2), "Black played 马2进3, Red 兵七进一 "
                         "(两头蛇)" + (", Black 炮8平7 (转卒底炮)" if cannon else ""))
            return "E09" if cannon else "E08"
        if second != "马二进三":
            reading.note((1, 2), f"Black played 马2进3, Red {second or 'nothing'}")
            return "E06"
        if answer != "卒3进1":
            reading.note((1, 2), "Black played 马2进3, Red 马二进三 (互进右马)")
            return "E07"
        reading.note((1, 2, 3), "Black played 马2进3, Red 马二进三, Black 卒3进1 (对兵互进右马)")
    else:
        reading.note((1,), "Black played 卒3进1 (对兵)")
        if second == "炮八平七":
            code = {"炮2平5": "E47", "炮8平5": "E48"}.get(answer, "E46")
            reading.note((2, 3) if code != "E46" else (2,), f"Red played 炮八平七 (兵底炮)"
                         + (f", Black {answer} (中炮)" if code != "E46" else ""))
            return code
        if second != "马二进三":
            reading.note((2,), f"Red played {second or 'nothing'}")
            return "E40"
        if answer != "马2进3":
            reading.note((2,), "Red played 马二进三 (进右马)")
            return "E41"
        reading.note((2, 3), "Red played 马二进三, Black 马2进3 (互进右马)")
    code = _BOTH_RIGHT_HORSES.get(third, "E42")
    if code != "E42":
        reading.note((4,), f"Red played {third}")
    return code


#: Red's first move past development that names his line against 左三步虎 (B21-B24).
_AGAINST_LEFT_THREE_STEP_TIGER = {"相七进九": "边相", "车一进一": "右横车", "炮八进二": "巡河炮",
                                  "炮八进四": "过河炮"}


def _against_left_three_step_tiger(reading: _Reading) -> str:
    """Red's line against 左三步虎: 两头蛇 (B25) when both his side pawns came before his
    first move past development (:data:`_DEVELOPING`), else that move's line or 其他."""
    for ply in range(2, len(reading.texts), 2):
        move = reading.texts[ply]
        if move in _DEVELOPING:
            continue
        pawns = [reading.ply_of(pawn, 0) for pawn in ("兵三进一", "兵七进一")]
        if all(p is not None and p < ply for p in pawns):
            reading.note(tuple(sorted(p for p in pawns if p is not None)),
                         "Red played 兵三进一 and 兵七进一 (两头蛇)")
            return "两头蛇"
        line = _AGAINST_LEFT_THREE_STEP_TIGER.get(move, "其他")
        reading.note((ply,), f"Red played {move}, the first move past development")
        return line
    return "其他"
