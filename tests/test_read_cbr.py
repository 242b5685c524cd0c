"""The CBR/CBL reader on the real samples: two CCBridge libraries and two single records.

Oracles: the rules core replays every line; pyffish replays main lines; the titles of
the library games say who won ("红先胜", "先负"...), which must agree with the result
byte.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from binary_samples import BINARY, ffish_rejects, read_bytes, read_file, walk
from xqdb.formats import cbr
from xqdb.formats.record import Origin

LIB_93 = "1956年全国象棋锦标赛93局.CBL"
LIB_35 = "1989年龙化杯象棋名师邀请赛35局.CBL"
FIRST_RECORD = 101952
SLOT = 4096

_VERDICT = re.compile(r"先(胜|负|和)")
_RESULT_OF_VERDICT = {"胜": "1-0", "负": "0-1", "和": "1/2-1/2"}


@pytest.fixture(scope="module")
def lib93() -> list:
    return read_file(cbr, LIB_93)


@pytest.fixture(scope="module")
def lib35() -> list:
    return read_file(cbr, LIB_35)


def test_first_library_yields_all_93_games_though_its_header_says_128(lib93) -> None:
    header_count = int.from_bytes((BINARY / LIB_93).read_bytes()[60:64], "little")
    assert header_count == 128
    assert len(lib93) == 93
    assert [r.origin.index for r in lib93] == list(range(93))
    assert [r.origin.offset for r in lib93] == [FIRST_RECORD + i * SLOT for i in range(93)]
    assert all(r.error is None and r.notation == "uci" and r.format == "cbr" for r in lib93)
    assert sum(len(r.moves) for r in lib93) == 7313
    # Each game keeps its own record's bytes (its slot), not the library's.
    data = (BINARY / LIB_93).read_bytes()
    assert all(r.raw == data[r.origin.offset:r.origin.offset + SLOT] for r in lib93)


def test_first_library_games_are_legal_and_results_match_titles(lib93) -> None:
    disagree = []
    for record in lib93:
        found = walk(record)
        assert found.illegal == [], (record.origin, found.illegal)
        assert record.fen is None
        verdict = _VERDICT.search(record.tags["Title"])
        assert verdict, record.tags["Title"]
        if record.result != _RESULT_OF_VERDICT[verdict[1]]:
            disagree.append((record.origin.index, record.tags["Title"], record.result))
    # One record's title and result byte disagree in the file itself.
    assert disagree == [(29, "初赛 天津薛占金(红先负)武汉李义庭", "1/2-1/2")]


def test_first_library_tags(lib93) -> None:
    first = lib93[0]
    assert first.tags == {
        "Title": "初赛 保定邓裕如(红先负)哈尔滨王嘉良", "Event": "1956年全国象棋锦标赛（初赛）",
        "Date": "1956年12月17日", "Site": "北京市", "Red": "保定邓裕如",
        "Black": "哈尔滨王嘉良", "Result": "0-1",
    }
    assert first.moves[:4] == ["h2e2", "h7e7", "h0g2", "h9g7"] and len(first.moves) == 82
    assert str(lib93[92].origin).endswith("record 93, offset 478784")


@pytest.mark.slow
def test_some_library_main_lines_are_legal_for_fairy_stockfish(lib93, lib35) -> None:
    # Every fifth game keeps the oracle under a few seconds.
    for record in lib93[::5] + [r for r in lib35 if r.error is None][::5]:
        assert ffish_rejects(record) is None, record.origin


def test_second_library_holds_35_games_two_headings_and_a_duplicate(lib35) -> None:
    assert len(lib35) == 36
    # The two section headings (a title on an empty board) are no records: they name the
    # games after them.
    assert all(r.error is None for r in lib35)
    games = lib35
    assert len(games) == 36
    # 20 men's games after the first heading, 16 records after the second: the last
    # two are one game, copied with a different creator.
    assert [r.origin.index for r in games] == list(range(36))
    assert {r.tags["Section"] for r in games[:20]} == {"龙化杯象棋名师邀请赛对局（男子组20局）"}
    assert {r.tags["Section"] for r in games[20:]} == {"龙化杯象棋名师邀请赛对局（女子组15局）"}
    copy, original = lib35[35], lib35[34]
    assert copy.moves == original.moves and len(copy.moves) == 111
    assert copy.mainline.comments == original.mainline.comments
    assert copy.tags["Title"] == original.tags["Title"] == "第五轮 陈淑兰 先胜 高华"
    assert (original.tags["Creator"], copy.tags["Creator"]) == ("千秋雪", "小刀飘来、千秋雪")
    distinct = {tuple(r.moves) for r in games}
    assert len(distinct) == 35


def test_second_library_games_and_variations_are_legal(lib35) -> None:
    games = [r for r in lib35 if r.error is None]
    for record in games:
        found = walk(record)
        assert found.illegal == [], (record.origin, found.illegal)
        verdict = _VERDICT.search(record.tags["Title"])
        assert record.result == _RESULT_OF_VERDICT[verdict[1]], record.tags["Title"]
    assert sum(r.mainline.count_variations() for r in games) == 13
    assert lib35[32].mainline.count_variations() == 4 and walk(lib35[32]).moves == 81


def test_single_record_with_variations_and_comments() -> None:
    [record] = read_file(cbr, "test.cbr")
    assert record.error is None
    assert record.tags == {"Title": "黄丹青讲座004-破解新式弃马局的攻防要领", "Result": "*"}
    assert len(record.moves) == 28 and record.mainline.count_variations() == 11
    found = walk(record)
    assert found.illegal == [] and found.moves == 102
    assert record.mainline.comments[14] == "不能退马"
    assert record.mainline.variations[0][0] == 20
    assert record.mainline.variations[0][1].moves[:3] == ["e3e4", "h9h3", "a3a4"]


def test_root_comment_becomes_the_opening_comment() -> None:
    [record] = read_file(cbr, "test2.cbr")
    assert record.moves == ["h2e2", "h7e7"]
    assert record.mainline.comments == {0: "李1", 1: "李2", 2: "李3"}


class CountingReader(io.RawIOBase):
    """A file that remembers how far it has been read."""

    def __init__(self, path: Path) -> None:
        self._file = path.open("rb")
        self.consumed = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self._file.readinto(buffer)
        self.consumed += n
        return n

    def close(self) -> None:
        self._file.close()
        super().close()


def test_library_is_read_record_by_record() -> None:
    path = BINARY / LIB_93
    stream = CountingReader(path)
    try:
        records = cbr.read(stream, Origin(str(path)))
        first = next(records)
        assert first.tags["Red"] == "保定邓裕如"
        # The first game comes out long before the 480 KB library has been read.
        assert stream.consumed < FIRST_RECORD + 16 * SLOT
        assert sum(1 for _ in records) == 92
    finally:
        stream.close()


# --- Read errors ----------------------------------------------------------------------


def test_truncated_record() -> None:
    data = (BINARY / "test.cbr").read_bytes()[:1000]
    [record] = read_bytes(cbr, data)
    assert record.error == "truncated CBR record: 1000 bytes, the header and root move take 2218"


def test_truncated_move_tree() -> None:
    data = (BINARY / "test2.cbr").read_bytes()
    # root (4 bytes, a 4-byte length, 4 bytes of comment), move 1 (the same), then 2 bytes
    [record] = read_bytes(cbr, data[:2214 + 12 + 12 + 2])
    assert record.error == "the move data ends before move node 2 (truncated after 1 moves)"
    assert record.moves == ["h2e2"]


def test_unsupported_version() -> None:
    data = bytearray((BINARY / "test2.cbr").read_bytes())
    data[19] = 1
    [record] = read_bytes(cbr, bytes(data))
    assert record.error == "CBR version 1 is not supported (only version 2)"


def test_unknown_piece_code() -> None:
    data = bytearray((BINARY / "test2.cbr").read_bytes())
    data[2120] = 0x31
    [record] = read_bytes(cbr, bytes(data))
    assert record.error == "unknown piece code 0x31 on the board (byte 2120)"


def test_not_a_ccbridge_file() -> None:
    [record] = read_bytes(cbr, (BINARY / "test.xqf").read_bytes())
    assert record.error == "not a CBR record or CBL library: no 'CCBridge' magic"


def test_a_broken_record_does_not_stop_the_library() -> None:
    data = bytearray((BINARY / LIB_93).read_bytes()[:FIRST_RECORD + 3 * SLOT])
    data[FIRST_RECORD + SLOT + 19] = 7  # the second record's version byte
    records = read_bytes(cbr, bytes(data))
    assert [r.error for r in records] == [None, "CBR version 7 is not supported (only version 2)", None]
    assert records[1].origin.index == 1 and records[1].origin.offset == FIRST_RECORD + SLOT


def test_a_library_without_records_says_so() -> None:
    data = (BINARY / LIB_35).read_bytes()[:FIRST_RECORD]
    [record] = read_bytes(cbr, data)
    assert record.error == "a CBL library without a single 'CCBridge Record'"


def test_splitting_matches_the_magic_positions_and_bounds_each_record() -> None:
    data = (BINARY / LIB_93).read_bytes()
    starts = [m.start() for m in re.finditer(re.escape(cbr.RECORD_MAGIC), data)]
    records = list(cbr.split_records(io.BytesIO(data)))
    assert [offset for offset, _ in records] == starts
    assert b"".join(chunk for _, chunk in records) == data[starts[0]:]
    # A record without a following magic for megabytes is cut, not held whole.
    junk = data[:FIRST_RECORD + SLOT] + bytes(300_000) + data[FIRST_RECORD:FIRST_RECORD + SLOT]
    cut = list(cbr.split_records(io.BytesIO(junk), max_record=10_000))
    assert [(offset, len(chunk)) for offset, chunk in cut] == [
        (FIRST_RECORD, 10_000), (FIRST_RECORD + SLOT + 300_000, SLOT)]
    assert cut[0][1] == data[FIRST_RECORD:FIRST_RECORD + SLOT] + bytes(10_000 - SLOT)
