"""EPD endgame files (xqwizard): one position per line, names in GBK and Big5."""

from __future__ import annotations

from pathlib import Path

import pyffish

from datafiles import DATA
from xqdb.formats import read_paths
from xqdb.replay import replay


def broken_positions(endgames: Path) -> tuple[int, list[str]]:
    """How many positions the EPD files of a folder hold, and where the invalid ones are.

    Every line must be a position, and our verdict on each must be Fairy-Stockfish's.
    """
    files = sorted(endgames.glob("*.EPD"))
    lines = [line for f in files for line in f.read_bytes().split(b"\n") if line.strip()]
    records = list(read_paths([str(endgames)]))
    assert len(records) == len(lines)
    assert {r.format for r in records} == {"epd"}
    assert [r.fen for r in records] == [line.split(b";")[0].strip().decode() for line in lines]
    assert all(not r.moves and not r.is_error for r in records)
    for record in records:
        game = replay(record)
        fen = game.start_fen if game.is_valid else record.fen
        if len(fen.split()) < 3:
            fen += " - - 0 1"
        # Our verdict on each position matches Fairy-Stockfish's.
        assert game.is_valid == (pyffish.validate_fen(fen, "xiangqi") == 1), str(record.origin)
    return len(records), [str(r.origin) for r in records if not replay(r).is_valid]


def test_two_studies_without_a_red_king_are_the_only_broken_positions():
    endgames = DATA / "endgames"
    assert broken_positions(endgames) == (340, [f"{endgames / '_K.EPD'}, record 51, line 51",
                                                f"{endgames / '_K.EPD'}, record 52, line 52"])


def test_every_study_of_the_corpus_is_read_and_only_those_two_are_broken(shared_data):
    endgames = shared_data / "endgames"
    count, broken = broken_positions(endgames)
    assert count > 6600
    assert broken == [f"{endgames / '_K.EPD'}, record 51, line 51",
                      f"{endgames / '_K.EPD'}, record 52, line 52"]


def test_names_in_both_scripts_say_the_same():
    records = [r for r in read_paths([str(DATA / "endgames")]) if "Name" in r.tags]
    assert len(records) == 340
    assert all("NameBig5" in r.tags for r in records)
    pairs = {("车", "車"), ("马", "馬"), ("胜", "勝"), ("双", "雙")}
    for record in records:
        simplified, traditional = record.tags["Name"], record.tags["NameBig5"]
        assert len(simplified) == len(traditional), str(record.origin)
        for a, b in zip(simplified, traditional):
            # "?" stands where Big5 has no such character (踪 in 寻踪觅迹).
            assert a == b or (a, b) in pairs or b == "?" or (ord(a) > 0x2E80 and ord(b) > 0x2E80), \
                (str(record.origin), simplified, traditional)
    first = next(r for r in records if r.origin.path.endswith("FUNNY.EPD"))
    assert first.tags == {"Name": "第001局：月上柳梢", "NameBig5": "第001局：月上柳梢"}
