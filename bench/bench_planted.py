"""Planted blunders at the default settings: real master games with one quiet move
replaced by one that hangs a chariot (``tests/planted.py``), analysed by ``xqdb analyze``'s
default two passes with Fairy-Stockfish beside the same real games.

Run: ``python bench/bench_planted.py [--cases 40] [--jobs 2] [--out DIR]``. Prints the
share of planted moves classed a serious error (blunder, allowed_mate, missed_mate) at
their ply, and the share of the real moves at the same plies; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the planted set is the tests' own

from planted import planted_blunders  # noqa: E402

from xqdb.analysis.games import DEFAULT_DEEP, DEFAULT_FAST  # noqa: E402
from xqdb.analysis.judgement import SERIOUS  # noqa: E402
from xqdb.engine import EngineSpec  # noqa: E402
from xqdb.pipeline.analyze import analyse_database  # noqa: E402
from xqdb.pipeline.importer import import_paths  # noqa: E402

FAIRY = "/usr/games/fairy-stockfish"


def pgn(event: str, moves: list) -> str:
    numbered = " ".join(f"{i // 2 + 1}. {m}" if i % 2 == 0 else str(m)
                        for i, m in enumerate(moves))
    return f'[Event "{event}"]\n\n{numbered} *\n'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--score", type=int, default=None,
                        help="Analyse and score only the first N cases (their games come "
                             "first in the database)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "planted-data")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    cases = planted_blunders(args.cases)
    db = args.out / f"planted-{args.cases}.duckdb"
    if not db.exists():
        text = "\n".join(pgn(f"planted {n}", c.planted_moves) + "\n" + pgn(f"real {n}", c.real_moves)
                         for n, c in enumerate(cases))
        (args.out / "planted.pgn").write_text(text, encoding="utf-8")
        import_paths([str(args.out / "planted.pgn")], db, jobs=1)
    began = time.perf_counter()
    if args.score is not None:
        cases = cases[:args.score]
    summary = analyse_database(db, EngineSpec((FAIRY,)), DEFAULT_DEEP, recheck=DEFAULT_FAST,
                               jobs=args.jobs, where=f"game_id <= {2 * len(cases)}")
    print(summary)
    con = duckdb.connect(str(db), read_only=True)
    ids = dict(con.execute("SELECT event, game_id FROM games").fetchall())
    judged = {(g, p): c for g, p, c in con.execute(
        "SELECT game_id, ply, class FROM judgements").fetchall()}
    planted = sum(judged.get((ids[f"planted {n}"], c.ply)) in SERIOUS for n, c in enumerate(cases))
    real = sum(judged.get((ids[f"real {n}"], c.ply)) in SERIOUS for n, c in enumerate(cases))
    print(f"{len(cases)} planted blunders, Fairy-Stockfish at {DEFAULT_FAST.key()} then "
          f"{DEFAULT_DEEP.key()}: {planted}/{len(cases)} planted moves serious at their ply "
          f"({planted / len(cases):.0%}); {real}/{len(cases)} real moves at the same plies "
          f"({real / len(cases):.0%}); {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
