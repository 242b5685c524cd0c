"""Both checks of a win curve on analysed databases, recomputed from their definitions.

Run: ``python bench/bench_curve.py DB [DB ...] [--curve shipped|before|T,S,L,E] [--min-ply 1]``.
Prints, for the games of the databases analysed by Fairy-Stockfish (or ``--engine``):

* the martingale: over the engine's own best moves (those that repeat no position), how
  the mover's expected score changes, on average and how often it rises. One game state
  has one expected score, so the mean must be about 0 (``|mean| <= 0.01``) and the share
  rising 30-70 %;
* the calibration: by tenth of predicted score, the mean predicted and the mean actual
  score (the game's result for the side to move), for Red to move and Black to move apart,
  each tenth to be within 0.03.

Nothing here goes through the judgement views or :mod:`xqdb.analysis.calibration`: the
pairs and positions are read from ``evals`` and ``moves`` by their own SQL, and the curve's
formula is written out again, so the figures check those. Each move is judged by the pair
of evaluations the views would take: both at one limit, the deepest, searched with the
game's history where it was. ``--curve before`` is the curve Fairy-Stockfish shipped with
until schema 14, in that version's formula (``cp / s - offset / scale``, offset +45, scale
173, 194 from ply 100 on); ``shipped`` (the default) is this version's; ``T,S,L,E`` any
other (tempo, scale, late scale or 0 for none, Red's edge). Asserts nothing.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path

import duckdb

from xqdb.engine.score import DEFAULT_CURVES

#: ``(centipawns or None, mate or None, ply after which, Red to move) -> expected score``.
Curve = Callable[[int | None, int | None, int, bool], float]


def new_formula(tempo: float, scale: float, late: float | None, edge: float) -> Curve:
    def expected(cp: int | None, mate: int | None, ply: int, red: bool) -> float:
        if mate is not None:
            return 1.0 if mate > 0 else 0.0
        t = min(ply, 100) / 100
        inverse = (1 - t) / scale + t / (late or scale)
        logit = ((cp or 0) - tempo) * inverse + (1 if red else -1) * edge / scale
        return 1 / (1 + math.exp(-logit))
    return expected


def old_formula(offset: float, scale: float, late: float | None) -> Curve:
    def expected(cp: int | None, mate: int | None, ply: int, red: bool) -> float:
        if mate is not None:
            return 1.0 if mate > 0 else 0.0
        t = min(ply, 100) / 100
        inverse = (1 - t) / scale + t / (late or scale)
        return 1 / (1 + math.exp(-((cp or 0) * inverse - offset / scale)))
    return expected


def curve_argument(text: str) -> tuple[str, Curve]:
    if text == "shipped":
        c = DEFAULT_CURVES["Fairy-Stockfish"]
        return (f"shipped: tempo {c.offset:+.1f}, scale {c.scale:.1f}, late "
                f"{c.late_scale}, Red's edge {c.red_edge:+.1f}",
                new_formula(c.offset, c.scale, c.late_scale, c.red_edge))
    if text == "before":
        return ("before: offset +45, scale 173, late 194 (cp / s - offset / scale)",
                old_formula(45.0, 173.0, 194.0))
    tempo, scale, late, edge = (float(v) for v in text.split(","))
    return (f"tempo {tempo:+.1f}, scale {scale:.1f}, late {late or None}, edge {edge:+.1f}",
            new_formula(tempo, scale, late or None, edge))


_PAIRS = """
WITH judged AS (SELECT game_id FROM analysed_games WHERE starts_with(engine, $engine)),
walked AS (
    SELECT game_id, ply, key_after AS key,
           sum((capture IS NOT NULL)::INTEGER) OVER (PARTITION BY game_id ORDER BY ply) AS takes
    FROM moves WHERE game_id IN (SELECT game_id FROM judged)
    UNION ALL SELECT game_id, 0, key_before, 0 FROM moves
    WHERE ply = 1 AND game_id IN (SELECT game_id FROM judged)
), repeated AS (
    SELECT game_id, ply FROM walked
    QUALIFY row_number() OVER (PARTITION BY game_id, takes, key ORDER BY ply) > 1
)
SELECT m.game_id, m.ply, m.side, b.score_cp, b.mate, a.score_cp, a.mate,
       m.uci = b.best_move AS best, (m.game_id, m.ply) IN (SELECT (game_id, ply) FROM repeated)
FROM moves m
JOIN evals b ON b.key = m.key_before AND b.side = m.side AND starts_with(b.engine, $engine)
     AND b.status = 'ok' AND (b.game_id IS NULL OR (b.game_id = m.game_id AND b.ply = m.ply - 1))
JOIN evals a ON a.key = m.key_after AND a.side <> m.side AND a.engine = b.engine
     AND a.search_limit = b.search_limit AND a.status = 'ok'
     AND (a.game_id IS NULL OR (a.game_id = m.game_id AND a.ply = m.ply))
WHERE m.game_id IN (SELECT game_id FROM judged)
QUALIFY row_number() OVER (PARTITION BY m.game_id, m.ply
    ORDER BY (b.game_id IS NOT NULL)::INTEGER + (a.game_id IS NOT NULL)::INTEGER DESC,
             coalesce(b.nodes, 0) + coalesce(a.nodes, 0) DESC) = 1
"""

_RESULTS = """
SELECT g.game_id, (CASE g.result WHEN '1-0' THEN 1.0 WHEN '0-1' THEN 0.0 ELSE 0.5 END)::DOUBLE
FROM games g WHERE g.result IN ('1-0', '0-1', '1/2-1/2')
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("databases", nargs="+", type=Path)
    parser.add_argument("--curve", type=curve_argument, action="append", default=None)
    parser.add_argument("--engine", default="Fairy-Stockfish")
    parser.add_argument("--min-ply", type=int, default=1,
                        help="calibrate on the positions before the moves from this ply on")
    args = parser.parse_args()
    rows, results = [], {}
    for number, path in enumerate(args.databases):
        con = duckdb.connect(str(path), read_only=True)
        try:
            found = con.execute(_PAIRS, {"engine": args.engine}).fetchall()
            rows += [((number, g), *rest) for g, *rest in found]
            results.update({(number, g): y for g, y in con.execute(_RESULTS).fetchall()})
        finally:
            con.close()
    games = {row[0] for row in rows}
    print(f"{len(games):,} games, {len(rows):,} judged moves of {len(args.databases)} databases")
    for name, curve in args.curve or [curve_argument("shipped")]:
        changes = []
        by_side: dict[bool, list[list[tuple[float, float]]]] = {
            True: [[] for _ in range(10)], False: [[] for _ in range(10)]}
        for game, ply, side, cp_b, mate_b, cp_a, mate_a, best, repeats in rows:
            red = side == "red"
            before = curve(cp_b, mate_b, ply - 1, red)
            if best and not repeats:
                changes.append((1 - curve(cp_a, mate_a, ply, not red)) - before)
            if game in results and ply >= args.min_ply and mate_b is None:
                actual = results[game] if red else 1 - results[game]
                by_side[red][min(9, int(before * 10))].append((before, actual))
        mean = sum(changes) / len(changes)
        rising = sum(c > 1e-12 for c in changes) / len(changes)
        print(f"\n{name}\n  martingale: {len(changes):,} best moves, mean change {mean:+.4f}, "
              f"rising after {100 * rising:.1f} %")
        print("  calibration, predicted / actual (positions): Red to move | Black to move")
        for tenth in range(10):
            cells = []
            for red in (True, False):
                cell = by_side[red][tenth]
                if cell:
                    p = sum(v for v, _ in cell) / len(cell)
                    y = sum(v for _, v in cell) / len(cell)
                    cells.append(f"{p:.3f} / {y:.3f} ({len(cell):,}){' *' if abs(p - y) > 0.03 else ''}")
                else:
                    cells.append("-")
            print(f"    {tenth / 10:.1f}-{(tenth + 1) / 10:.1f}: " + " | ".join(cells))


if __name__ == "__main__":
    main()
