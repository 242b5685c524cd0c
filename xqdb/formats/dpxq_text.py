"""The plain text dpxq.com (东萍象棋网) gives for a game: ``标题: ...`` and other
``key: value`` lines, then numbered Chinese moves (``1.炮二平五 士６进５``) and a line
naming the site that made it.

The keys become the tags PGN uses where there is one (标题 ``Title``, 赛事 ``Event``,
轮次 ``Round``, 红方 ``Red``, 黑方 ``Black``, 日期 ``Date``, 地点 ``Site``, 红方团体
``RedTeam``...; 布局 ``B00 中炮局`` gives ``ECCO`` and ``Opening``; 结果 ``黑方胜`` the
result); any other key is kept as a tag of its own name. Where 红方姓名 (the name alone)
is given, it is ``Red``, and 红方 (team and name) keeps its own key; likewise for Black.

>>> import io
>>> from xqdb.formats.record import Origin
>>> text = "标题: A 负 B\\n红方: A\\n结果: 黑方胜\\n \\n  1.炮二平五  士６进５\\n"
>>> rec = next(read(io.BytesIO(text.encode()), Origin("g.txt")))
>>> rec.tags, rec.moves, rec.result
({'Title': 'A 负 B', 'Red': 'A', 'Result': '0-1'}, ['炮二平五', '士６进５'], '0-1')
"""

from __future__ import annotations

import re
from typing import BinaryIO, Iterator

from .encoding import decode, detect_encoding, head_text
from . import pgn
from .record import GameRecord, Origin

FORMAT = "dpxq"


def _encodes(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


_MAX_BYTES = 1 << 22
#: 标题 or 標題 then a colon, as UTF-8, GBK and Big5 write them.
_TITLE_BYTES = tuple({(title + colon).encode(encoding)
                      for title in ("标题", "標題") for colon in (":", "：", " :", " ：")
                      for encoding in ("utf-8", "gb18030", "big5")
                      if _encodes(title + colon, encoding)})
_FIRST = re.compile(r"^\s*标题\s*[:：]")
_KEY = re.compile(r"^\s*([^\s:：\d][^:：]{0,11})\s*[:：]\s*(.*?)\s*$")
_FOOTER = re.compile(r"^\s*棋谱由.*生成\s*$", re.M)
_ECCO = re.compile(r"^([A-E]\d\d)\s*(.*)$")
_TAGS = {
    "标题": "Title", "赛事": "Event", "轮次": "Round", "红方": "Red", "黑方": "Black",
    "日期": "Date", "地点": "Site", "红方团体": "RedTeam", "黑方团体": "BlackTeam",
    "记时规则": "TimeControl", "分类": "Class", "记录": "Annotator",
}
_RESULTS = {"红方胜": "1-0", "红胜": "1-0", "黑方胜": "0-1", "黑胜": "0-1", "和棋": "1/2-1/2",
            "和局": "1/2-1/2", "未知": "*"}


def sniff(head: bytes, name: str) -> bool:
    """The text starts with a ``标题:`` line.

    >>> sniff("标题: A 负 B".encode("gbk"), "g.txt"), sniff(b"[Event", "g.pgn")
    (True, False)
    """
    # Bytes first: this runs on every file, and decoding a head costs more than a look.
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return _FIRST.match(head_text(head).lstrip("\ufeff")) is not None
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(_TITLE_BYTES)


def read(stream: BinaryIO, origin: Origin, encoding: str | None = None) -> Iterator[GameRecord]:
    """Yield the one game of a dpxq.com text."""
    data = stream.read(_MAX_BYTES)
    text, used = decode(data, encoding or detect_encoding(data[:4096]), encoding is None)
    yield parse_game(text.lstrip("\ufeff"), origin, used)


def parse_game(text: str, origin: Origin, encoding: str | None = None) -> GameRecord:
    """Read a dpxq.com text into a record: the key lines, then the moves."""
    lines = text.splitlines()
    tags: dict[str, str] = {}
    body_start = len(lines)
    for number, line in enumerate(lines):
        m = _KEY.match(line)
        if m is None:
            if line.strip():
                body_start = number
                break
            continue
        key, value = m[1].strip(), m[2]
        if not value:
            continue
        if key == "布局" and (ecco := _ECCO.match(value)):
            tags["ECCO"] = ecco[1]
            if ecco[2]:
                tags["Opening"] = ecco[2]
        elif key == "结果":
            tags["Result"] = _RESULTS.get(value, value)
        else:
            tags[_TAGS.get(key, key)] = value
    for side in ("Red", "Black"):
        # 红方 is "team name"; 红方姓名 the name alone, which names the player.
        name = tags.pop(f"{'红' if side == 'Red' else '黑'}方姓名", None)
        if name:
            if side in tags and tags[side] != name:
                tags[f"{'红' if side == 'Red' else '黑'}方"] = tags[side]
            tags[side] = name
    body = _FOOTER.sub("", "\n".join(lines[body_start:]))
    record = pgn.parse_record(body, origin, encoding)
    record.format, record.raw = FORMAT, text
    record.tags = tags
    if tags.get("Result") in ("1-0", "0-1", "1/2-1/2", "*"):
        record.result = tags["Result"]
    return record
