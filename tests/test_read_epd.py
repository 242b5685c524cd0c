"""EPD endgame files (xqwizard): one position per line, names in GBK and Big5."""

from __future__ import annotations

from pathlib import Path

import pyffish

from xqdb.formats import read_paths
from xqdb.replay import replay

ENDGAMES = Path(__file__).parents[1].parent / "shared" / "data" / "endgames"


def test_every_line_is_a_position_and_fairy_stockfish_agrees_on_which_are_broken():
    files = sorted(ENDGAMES.glob("*.EPD"))
    lines = [line for f in files for line in f.read_bytes().split(b"\n") if line.strip()]
    records = list(read_paths([str(ENDGAMES)]))
    assert len(records) == len(lines) > 6600
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
    broken = [str(r.origin) for r in records if not replay(r).is_valid]
    assert broken == [f"{ENDGAMES / '_K.EPD'}, record 51, line 51",
                      f"{ENDGAMES / '_K.EPD'}, record 52, line 52"]


def test_names_in_both_scripts_say_the_same():
    records = [r for r in read_paths([str(ENDGAMES)]) if "Name" in r.tags]
    assert len(records) > 2500
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
