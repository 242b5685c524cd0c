"""A database of seven games small enough to compute every report figure by hand.

The games are short and written here so that each report's expected numbers can be
counted on the page: four games among 胡荣华, 吕钦 and 赵国荣 over two events (2001 and
2002; only 胡荣华 and 吕钦 carry ratings), a record of the fourth game again under other
tags (linked to it as a duplicate), a mate that the record scores as a draw, a
perpetual check the checking side loses, and a record whose start position lacks Red's
king (an invalid game, which no report counts). Game ids follow the order below: the
duplicate record is no game of its own, so the mate is game 5, the perpetual check game 6
and the invalid game 7.
"""

from __future__ import annotations

from pathlib import Path

from xqdb.pipeline.importer import import_paths

SMALL_PGN = """\
[Event "甲级联赛"]
[Date "2001.05.01"]
[Red "胡荣华"]
[Black "吕钦"]
[RedElo "2500"]
[BlackElo "2600"]
[Result "1-0"]

1. h2e2 h9g7 1-0

[Event "甲级联赛"]
[Date "2001.05.02"]
[Red "吕钦"]
[Black "胡荣华"]
[RedElo "2600"]
[BlackElo "2500"]
[Result "1/2-1/2"]

1. h2e2 h9g7 2. h0g2 1/2-1/2

[Event "全国个人赛"]
[Date "2002.10.01"]
[Red "胡荣华"]
[Black "赵国荣"]
[RedElo "2500"]
[Result "0-1"]

1. b2e2 b9c7 2. b0c2 0-1

[Event "全国个人赛"]
[Date "2002.10.02"]
[Red "赵国荣"]
[Black "胡荣华"]
[Result "0-1"]

1. c3c4 g6g5 2. b0c2 b9c7 0-1

[Event "友谊赛"]
[Date "2002"]
[Red "赵国荣"]
[Black "胡荣华"]
[Result "0-1"]

1. c3c4 g6g5 2. b0c2 b9c7 0-1

[Event "排局"]
[Date "2003"]
[Red "吕钦"]
[Black "赵国荣"]
[FEN "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1"]
[Result "1/2-1/2"]

1. a0d0 1/2-1/2

[Event "排局"]
[Date "2003"]
[Red "许银川"]
[Black "吕钦"]
[FEN "R2k5/9/9/9/9/9/9/9/9/5K3 b - - 0 1"]
[Result "0-1"]

1... d9d8 2. a9a8 d8d9 3. a8a9 d9d8 4. a9a8 d8d9 5. a8a9 0-1

[Event "排局"]
[Red "许银川"]
[Black "赵国荣"]
[FEN "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w - - 0 1"]
[Result "*"]

1. h2e2 *
"""


def build_small_db(folder: Path) -> Path:
    """Import the seven games into ``folder/small.duckdb`` (in one worker) and return it."""
    pgn = folder / "small.pgn"
    pgn.write_text(SMALL_PGN, encoding="utf-8")
    db = folder / "small.duckdb"
    import_paths([str(pgn)], db, jobs=1)
    return db
