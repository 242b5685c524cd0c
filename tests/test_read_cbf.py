"""The CBF (CCBridge XML) reader on the two real samples and on broken copies of them."""

from __future__ import annotations

import pytest

from binary_samples import BINARY, ffish_rejects, read_bytes, read_file, walk
from xqdb.formats import cbf


def one(name: str):
    [record] = read_file(cbf, name)
    return record


@pytest.mark.parametrize("name, moves, comments, result", [
    ("test.cbf", 50, 8, "*"),
    ("test2.cbf", 75, 17, "1/2-1/2"),
])
def test_samples_decode_to_legal_games(name: str, moves: int, comments: int, result: str) -> None:
    record = one(name)
    assert record.error is None
    assert record.notation == "uci" and record.format == "cbf"
    assert record.raw == (BINARY / name).read_bytes()  # stored as the game's raw record
    assert len(record.moves) == moves
    assert len(record.mainline.comments) == comments
    assert record.result == result and record.tags["Result"] == result
    assert walk(record).illegal == []
    assert ffish_rejects(record) is None
    assert record.fen is None  # the <FEN> is the standard start


def test_tags_and_comments() -> None:
    record = one("test.cbf")
    assert record.tags == {
        "Title": "第一局 屏风马巡河炮抵当头炮局(和)", "Event": "居荣鑫《象棋古谱全局三种》",
        "Annotator": "居荣鑫", "ECCO": "C03", "Result": "*",
    }
    assert record.mainline.comments[0] == "中炮横车盘头马对屏风马双炮巡河"
    assert record.moves[:4] == ["h2e2", "h9g7", "h0g2", "g6g5"]
    assert record.mainline.comments[7].startswith("当对方布成屏风马后")
    assert record.mainline.comments[50].startswith("至此，红方多兵")


def _sample() -> bytes:
    return (BINARY / "test2.cbf").read_bytes()


def test_truncated_xml_is_a_clear_error() -> None:
    data = _sample()[:2000]
    [record] = read_bytes(cbf, data)
    assert record.error is not None
    assert record.error.startswith("not well-formed CBF XML: ")
    assert record.raw == data


def test_a_bad_move_value_names_the_ply() -> None:
    data = _sample().replace(b'<Move value="79-67" />', b'<Move value="7x-67" />', 1)
    [record] = read_bytes(cbf, data)
    assert record.error == "ply 3: not a CBF move like 77-47: '7x-67'"


def test_moves_after_the_end_are_not_guessed_at() -> None:
    data = _sample().replace(b"</MoveList>", b'<Move value="77-47" /><Move value="70-62" end="1" /></MoveList>')
    [record] = read_bytes(cbf, data)
    assert record.error == ("2 moves follow the end of the main line at ply 75 "
                            "(CBF variations are not understood)")


def test_another_xml_document() -> None:
    [record] = read_bytes(cbf, b'<?xml version="1.0"?><game/>')
    assert record.error == "the XML root is <game>, not <ChineseChessRecord>"


def test_a_start_position_other_than_the_standard_one() -> None:
    fen = "3aka3/2c1n4/4bP3/9/4N4/9/9/9/9/4K4 w - - 0 1"
    data = _sample()
    start = data.index(b"<FEN>") + 5
    data = data[:start] + fen.encode() + data[data.index(b"</FEN>"):]
    [record] = read_bytes(cbf, data)
    assert record.fen == fen and record.tags["FEN"] == fen
