"""Player names: one canonical name per player, from the many ways records spell it.

Records name the same player in many ways: ``胡榮華``, ``上海胡榮華``, ``上海 胡榮華``,
``中國胡榮華``, ``南方隊胡榮華``... :func:`canonical_names` maps each spelling to one
canonical name by these rules, applied in order:

1. **Folding.** Unicode NFKC folds full-width letters, digits and signs (``／`` is ``/``,
   the ideographic space a space); characters that show nothing are dropped (zero-width
   spaces and joiners, the byte-order mark, the marks and overrides of bidirectional
   text, control characters); traditional script becomes simplified through OpenCC
   (``t2s``); a trailing note in brackets (a rank such as ``(5r)`` or ``(8段)``) is dropped.
2. **Pairs.** A consultation pair, written with ``+``, ``/``, ``、`` or ``&``, is a player
   of its own: its members are made canonical one by one and joined with ``+`` in a fixed
   order, so ``伍霞+胡榮華`` is ``伍霞+胡荣华``, never ``胡荣华``. A ``、`` between numerals
   is no pair (``五、六十年代隊胡榮華`` is a team of the fifties and sixties), nor is a
   split that leaves a member of one character.
3. **Spaces.** Runs of one-character pieces are a name written spaced out (``呂  欽`` is
   ``吕钦``). Otherwise, the last piece is the name and what comes before it the team
   (``上海棋院 胡榮華`` is ``胡荣华``). Names in Latin letters keep their words, in title
   case (``ZHANG RONGAN`` is ``Zhang Rongan``).
4. **Known prefixes.** A province, city, country or works team from :data:`PREFIXES`, or
   anything up to a word that names a team (:data:`TEAM_WORDS`: ``队``, ``棋院``...), is
   taken off the front while at least two characters remain (``黑龍江趙國榮`` is
   ``赵国荣``). A name that ends in a team word is a team, and stays whole. The dash or
   dot that joins a team to its region (``中國-火車頭 宋``) goes with the prefix: a
   name never starts with one.
5. **Names seen bare.** Across all the spellings of a database, a name of four characters
   or more that ends in a name written bare elsewhere (two or three characters), after at
   least two other characters, is that name (``上海八建胡榮華`` is ``胡荣华``) -- unless
   what comes before is itself a name written bare, which makes the spelling a pair written
   without its sign (``伍霞胡榮華`` is ``伍霞+胡荣华``), or the name starts with a compound
   surname (``欧阳``...).

Two different people are never merged by these rules when they share only a surname or a
given name: a name is only ever shortened to a *whole* name written bare elsewhere.

>>> names = canonical_names(["胡榮華", "上海 胡榮華", "上海八建胡榮華", "伍霞+胡榮華", "伍霞"])
>>> names["上海 胡榮華"], names["上海八建胡榮華"], names["伍霞+胡榮華"]
('胡荣华', '胡荣华', '伍霞+胡荣华')
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

#: Regions and works teams that records put before a player's name (simplified script).
PREFIXES: frozenset[str] = frozenset("""
    中国 中华 中华台北 中国台北 中国香港 中国澳门 台北 台湾 香港 澳门 新加坡 马来西亚 印尼
    泰国 越南 菲律宾 日本 美国 加拿大 德国 法国 英国 意大利 荷兰 芬兰 俄罗斯 澳洲 澳大利亚
    北京 天津 上海 重庆 河北 山西 辽宁 吉林 黑龙江 江苏 浙江 安徽 福建 江西 山东 河南 湖北
    湖南 广东 海南 四川 贵州 云南 陕西 甘肃 青海 内蒙古 内蒙 广西 西藏 宁夏 新疆
    广州 深圳 厦门 成都 沈阳 大连 青岛 武汉 南京 杭州 宁波 温州 苏州 无锡 惠州 汕头 哈尔滨
    长春 石家庄 太原 济南 郑州 长沙 南昌 福州 合肥 昆明 贵阳 兰州 西安 西宁 银川 乌鲁木齐
    南宁 海口 呼和浩特 拉萨 包头 鞍山 抚顺 丹东 锦州 淄博 烟台 潍坊 寿光 东莞 佛山 珠海
    中山 江门 湛江 梅州 潮州 揭阳 泉州 漳州 莆田 徐州 常州 南通 扬州 镇江 绍兴 嘉兴 湖州
    金华 台州 卢湾 浦东 闸北 黄浦 徐汇 长宁 静安 普陀 虹口 杨浦 宝山 闵行 嘉定
    火车头 煤矿 邮电 冶金 轻工 八一 前卫 农协 体协 通讯 中汽 电力 石化 银行 建设 纺织 化工
""".split())
_LONGEST_PREFIX = max(map(len, PREFIXES))

#: Words that end a team's name: what comes before them, and they, are the team.
TEAM_WORDS: tuple[str, ...] = ("俱乐部", "象棋队", "棋院", "协会", "体协", "队")

#: Two-character surnames: a four-character name starting with one is a name, not a team
#: plus a two-character name.
COMPOUND_SURNAMES: frozenset[str] = frozenset(
    "欧阳 司马 上官 诸葛 东方 慕容 司徒 夏侯 皇甫 尉迟 公孙 令狐 长孙 宇文 轩辕 端木 南宫 独孤"
    .split())

_NUMERALS = "一二三四五六七八九十〇零两0-9"
_PAIR = re.compile(rf"\s*(?:[+/&]|(?<![{_NUMERALS}])、|、(?![{_NUMERALS}]))\s*")
#: What joins a prefix to the rest (``中国-火车头``): never the start of a name.
_JOINERS = "-－·・._—"
_NOTE = re.compile(r"\s*[(\[（【].*$")
_LATIN = re.compile(r"[A-Za-z]")
_TEAM = re.compile("|".join(TEAM_WORDS))


@lru_cache(maxsize=1)
def _converter() -> Any:  # opencc ships no type information
    import opencc  # imported on first use: loading its dictionaries takes a moment

    return opencc.OpenCC("t2s")


def fold(spelling: str) -> str:
    """Rule 1: full-width folded, invisible characters dropped, simplified script,
    trailing bracketed note dropped, spaces collapsed.

    >>> fold("上海\\u3000胡榮華（5r）"), fold("\\ufeff胡\\u200d榮\\u200c華\\u202e")
    ('上海 胡荣华', '胡荣华')
    """
    text = _visible(unicodedata.normalize("NFKC", spelling))
    text = _converter().convert(text)
    text = _NOTE.sub("", text)
    return " ".join(text.split())


#: The Unicode categories of characters that show nothing in a name: format characters
#: (zero-width space, joiners, the byte-order mark, bidirectional marks, overrides and
#: isolates, the soft hyphen) and control characters. Private-use characters are kept:
#: the old Chinese encodings map rare characters there.
_INVISIBLE = ("Cf", "Cc")


def _visible(text: str) -> str:
    """``text`` without the characters that show nothing (whitespace stays, to be
    collapsed). A name copied from a web page or a file saved with a byte-order mark
    carries them unseen, and would otherwise be a player of its own."""
    if text.isprintable():  # the usual case, quickly
        return text
    return "".join(c for c in text
                   if c.isspace() or unicodedata.category(c) not in _INVISIBLE)


def _strip_prefixes(name: str) -> tuple[str, str]:
    """Rule 4: ``name`` without its known prefixes, and what was taken off."""
    if name.endswith(TEAM_WORDS):
        return name, ""
    whole = name
    while True:
        team = None
        for match in _TEAM.finditer(name):
            if len(name) - match.end() >= 2:
                team = match
        if team is not None:
            name = name[team.end():]
            continue
        joined = name.lstrip(_JOINERS)
        if joined != name and len(joined) >= 1:
            name = joined
            continue
        # The longest prefix that leaves two characters at least.
        size = next((k for k in range(min(_LONGEST_PREFIX, len(name) - 2), 0, -1)
                     if name[:k] in PREFIXES), 0)
        if not size:
            return name, whole[:len(whole) - len(name)]
        name = name[size:]


def clean(spelling: str) -> tuple[str, str]:
    """Rules 1-4 for one spelling of one player: the name, and what was written before it
    (``""`` when the name was written bare).

    >>> clean("上海棋院 胡榮華"), clean("呂  欽"), clean("黑龍江趙國榮"), clean("ZHANG RongAn")
    (('胡荣华', '上海棋院'), ('吕钦', ''), ('赵国荣', '黑龙江'), ('Zhang Rongan', ''))
    """
    text = fold(spelling)
    if _LATIN.search(text):
        return text.title(), ""
    pieces: list[str] = []
    for piece in text.split(" "):
        # A name written spaced out: its one-character pieces belong together.
        if len(piece) == 1 and pieces and len(pieces[-1]) == 1:
            pieces[-1] += piece
        else:
            pieces.append(piece)
    if not pieces or not pieces[0]:
        return "", ""
    if len(pieces[-1]) < 2:
        pieces = ["".join(pieces)]
    name, head = _strip_prefixes(pieces[-1])
    return name, "".join(pieces[:-1]) + head


def _members(spelling: str) -> list[str]:
    """The spellings of a pair's members (one item for a single player)."""
    text = fold(spelling)
    parts = [p for p in _PAIR.split(text) if p]
    return parts if len(parts) > 1 and min(map(len, parts)) >= 2 else [spelling]


def canonical_names(spellings: Iterable[str]) -> dict[str, str]:
    """Each spelling's canonical name, by the rules of this module (rule 5 looks at all the
    spellings together: give every spelling of a database at once)."""
    spellings = list(dict.fromkeys(s for s in spellings if s is not None))
    members = {s: [clean(m) for m in _members(s)] for s in spellings}
    bare = {name for parts in members.values() if len(parts) == 1
            for name, head in parts if not head and 2 <= len(name) <= 4}

    def is_player(text: str) -> bool:
        return text in bare and text not in PREFIXES and not _TEAM.search(text)

    def resolve(name: str, head: str) -> list[str]:
        if is_player(head):  # two names side by side: a pair written without its sign
            return [head, name]
        if name in bare or len(name) < 4 or name[:2] in COMPOUND_SURNAMES:
            return [name]
        for size in (3, 2):
            before, tail = name[:-size], name[-size:]
            if len(before) >= 2 and tail in bare:
                return [before, tail] if is_player(before) else [tail]
        return [name]

    out = {}
    for spelling, parts in members.items():
        names = sorted({n for name, head in parts for n in resolve(name, head) if n})
        out[spelling] = "+".join(names)
    return out
