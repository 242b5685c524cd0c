"""How far to trust the default analysis: precision and recall per class, and engine cost,
of the default two passes and of single passes (50,000 and 20,000 nodes), against a deep
single pass (the reference), with Fairy-Stockfish on real games of ``../shared/data``.

Run: ``python bench/bench_defaults.py [--out DIR] [--pgn FILE] [--reference 2000000] [--fast
50000] [--single 20000 ...] [--jobs 2] [--report-only] [--other DB ...] [--pool DIR ...]
[--grid] [--middle NODES] [--deep NODES] [--fresh-fast] [--keep-reference]``. Prints
figures; asserts nothing. ``--fast`` and ``--single`` take a node count or a limit such as
``depth=11``. ``--other`` scores another analysis of the same games (the built-in engine's
default two passes, or ``xqdb analyze``'s own, say) by its own ``judgements`` view. ``--pgn
bench/data/ccpd-heldout-8.pgn``, ``-b``, ``-c`` (8 games each) and ``-d`` (16), each with
its own ``--out``, score other games: the default's thresholds were first chosen on these 40
(against a reference of 1,000,000 nodes), the 15 games of ``pgn-chinese-15.pgn`` check them,
and ``-e`` (16), ``-f`` (8), ``-g`` (16) and ``-h`` (16) check them with the deep pass and
the reference at the default's 2,000,000 nodes (see the README); with ``-c`` and ``-d`` they
then chose the recheck thresholds, which ``-i`` and ``-j`` (16 each) check, and ``-k`` (16)
the rule chosen after them; ``-i`` and ``-k`` then chose the thresholds with the unsettled
searches, which ``-j`` checks. With ``--report-only``, ``--pool DIR`` scores the games of other
``--out`` folders (each run before) together with those of ``--out``, counts and nodes
summed. ``--confirm NODES`` searches the positions around each move the reference calls a
mistake or worse again at NODES (kept in ``--out``'s ``confirm-NODES.jsonl``) and says how
many of those the default finds, and of those it misses, hold up there. ``--grid`` also
scores a grid of recheck thresholds (least loss, gain, shift, revalued loss and unsettled
spread) after the ``--fast`` pass, and prints the rules that no other beats on both cost and
mistakes or worse found: the way to compare fast passes, each at its best thresholds.
``--middle 200000`` also runs a single pass at that limit and scores three passes
(:func:`three_passes`: the middle search settles the moves the fast pass half suspects, and
only what it still suspects goes deep) over a grid of thresholds, printing their frontier
beside the grid's. ``--deep 1000000`` with ``--reference 2000000`` scores two passes whose
deep pass is the single pass at 1,000,000 nodes against the deeper reference (its nodes
counted for the positions rechecked): how a deep pass half as deep as the reference holds up
against it (the default's was 1,000,000 nodes before it was raised to the reference's
2,000,000).

Each limit is one single pass over every position of the games (``pgn-chinese-15.pgn``)
into its own database under ``--out``, so the passes share no cache; a run that was
stopped resumes where it was. The two-pass figures are then those of ``xqdb analyze``'s
default: the fast pass everywhere, searched as the default's (each game from its end back,
one engine keeping its hash through the game: ``nodes-50000-chained.duckdb``;
``--fresh-fast`` scores the pass searched afresh instead), and the deep limit (the
reference's: searches start from an empty hash table with one thread, so a search at a
limit gives the same answer whenever it runs) on the moves the fast pass flags and their
neighbours. Its cost is the fast pass's nodes and the deep nodes of the positions
rechecked, against the reference's nodes; the engine seconds of each single pass are
printed beside.

A reference pass takes about an hour of both cores per 16 games. ``--keep-reference``
writes it to ``bench/data`` (``ccpd-heldout-k.nodes-2000000.parquet``: the name of
``--pgn`` and the reference's nodes), and a later run over the same games begins its
reference from that file when the Fairy-Stockfish installed is the one that searched it
(another engine searches it again), so that scoring those games again costs only the
fast passes: a few minutes.

Only the games whose every position has a reference evaluation are scored (a reference
run that could not finish scores fewer games, and says so).
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import NamedTuple

import duckdb

from xqdb.analysis.games import (
    DEFAULT_DEEP, DEFAULT_FAST, RECHECK_GAIN, RECHECK_LOSS, RECHECK_REVALUED, RECHECK_SHIFT,
    RECHECK_UNSETTLED,
    Evaluation, MoveJudgement, Thresholds, curve_for, followup_plies, game_positions,
    judge_moves, recheck_plies,
)
from xqdb.analysis.batch import engine_for
from xqdb.analysis.calibration import Martingale
from xqdb.analysis.judgement import SERIOUS
from xqdb.db.evals import StoredEval, evaluation_of, game_evals
from xqdb.engine import EngineSpec, Limit
from xqdb.engine.runner import SupervisedEngine
from xqdb.position import Position
from xqdb.rules.board import Move

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT.parent / "shared" / "data" / "pgn-chinese-15.pgn"
FAIRY = "/usr/games/fairy-stockfish"
#: The groups scored: each class alone, and "at least" groups.
GROUPS = {
    "serious (blunder or mate)": set(SERIOUS),
    "mistake or worse": {*SERIOUS, "mistake"},
    "inaccuracy or worse": {*SERIOUS, "mistake", "inaccuracy"},
    "blunder": {"blunder"},
    "mistake": {"mistake"},
    "inaccuracy": {"inaccuracy"},
}


def pass_path(out: Path, limit: Limit, chained: bool = False) -> Path:
    """Where the single pass at ``limit`` is kept: ``out/nodes-50000.duckdb``,
    ``out/depth-11.duckdb``; searched chained (each game from its end back, the hash kept
    through it, as the default's fast pass), ``out/nodes-50000-chained.duckdb``."""
    name = limit.key().replace('=', '-').replace(',', '_')
    return out / f"{name}{'-chained' if chained else ''}.duckdb"


def described(limit: Limit) -> str:
    """``limit`` as the figures name it: ``50,000 nodes``, ``depth 11``."""
    if limit.nodes is not None and limit.depth is None and limit.time is None:
        return f"{limit.nodes:,} nodes"
    if limit.depth is not None and limit.nodes is None and limit.time is None:
        return f"depth {limit.depth}"
    return limit.key()


def limit_argument(text: str) -> Limit:
    """A pass's limit on the command line: a node count (``50000``) or a limit's key
    (``depth=11``)."""
    return Limit(nodes=int(text)) if text.isdigit() else Limit.parse(text)


def pass_database(out: Path, limit: Limit, games: Path, chained: bool = False) -> Path:
    """:func:`pass_path`, made (the games of ``games`` imported, no evaluation) if new."""
    from xqdb.pipeline.importer import import_paths
    base = out / "base.duckdb"
    if not base.exists():
        import_paths([str(games)], base, jobs=1)
    db = pass_path(out, limit, chained)
    if not db.exists():
        shutil.copy(base, db)
    return db


def run_pass(out: Path, limit: Limit, jobs: int, games: Path = GAMES,
             chained: bool = False) -> None:
    """One single pass at ``limit`` over ``games`` into :func:`pass_path` (resumed if
    stopped), ``chained`` as the default's fast pass."""
    from xqdb.pipeline.analyze import analyse_database
    db = pass_database(out, limit, games, chained)
    began = time.perf_counter()
    summary = analyse_database(db, EngineSpec((FAIRY,)), limit, jobs=jobs, chained=chained)
    record = {"limit": limit.key() + (" chained" if chained else ""),
              "wall": time.perf_counter() - began,
              "engine_seconds": summary.passes[0].engine_seconds,
              "searched": summary.searched, "failed": summary.failed}
    with open(out / "costs.jsonl", "a") as costs:
        costs.write(json.dumps(record) + "\n")
    print(json.dumps(record), flush=True)


def kept_reference(games: Path, nodes: int) -> Path:
    """Where the reference pass over ``games`` is kept in the repository:
    ``bench/data/ccpd-heldout-k.nodes-2000000.parquet``, its ``evals`` rows."""
    return ROOT / "bench" / "data" / f"{games.stem}.nodes-{nodes}.parquet"


def keep_reference(out: Path, nodes: int, kept: Path) -> None:
    """Write the reference pass of ``out`` to ``kept``: an hour of both cores per 16 games
    that scoring them again then does without (:func:`seed_reference`)."""
    con = open_copy(pass_path(out, Limit(nodes=nodes)), out / "scratch")
    con.execute("COPY (SELECT * FROM evals WHERE search_limit = ? ORDER BY game_id NULLS FIRST, "
                "ply, key, side) TO ? (FORMAT parquet, COMPRESSION zstd)",
                [Limit(nodes=nodes).key(), str(kept)])
    count, = con.execute("SELECT count(*) FROM read_parquet(?)", [str(kept)]).fetchall()[0]
    print(f"the reference kept in {kept} ({count:,} evaluations, {kept.stat().st_size:,} bytes)",
          flush=True)


def seed_reference(out: Path, nodes: int, games: Path, kept: Path) -> None:
    """Begin the reference pass of ``out`` with the evaluations ``kept``, if the engine
    installed is the one that made them: the pass then searches only what they lack."""
    with SupervisedEngine(EngineSpec((FAIRY,))) as engine:
        identity = engine.identity
    con = duckdb.connect(str(pass_database(out, Limit(nodes=nodes), games)))
    try:
        made_by = [e for e, in con.execute("SELECT DISTINCT engine FROM read_parquet(?)",
                                           [str(kept)]).fetchall()]
        if made_by != [identity]:
            print(f"{kept} was searched by {', '.join(made_by)}, not {identity}: "
                  f"the reference is searched again", flush=True)
            return
        con.execute("INSERT INTO evals BY NAME SELECT * FROM read_parquet(?)", [str(kept)])
        print(f"the reference begins with the {kept.name}'s evaluations", flush=True)
    finally:
        con.close()


def open_copy(db: Path, scratch: Path) -> duckdb.DuckDBPyConnection:
    """A read-only connection to a copy of ``db`` (readable while a run still writes it)."""
    scratch.mkdir(parents=True, exist_ok=True)
    for stale in scratch.glob(db.name + "*"):  # a log left by an older copy spoils this one
        stale.unlink()
    for path in db.parent.glob(db.name + "*"):
        if not path.name.endswith(".json"):
            shutil.copy(path, scratch / path.name)
    return duckdb.connect(str(scratch / db.name), read_only=True)


class Analysed:
    """The evaluations of one single pass, by game."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        found = con.execute(
            "SELECT engine, search_limit FROM evals GROUP BY ALL ORDER BY count(*) DESC"
        ).fetchone()
        if found is None:
            raise SystemExit("a pass's database holds no evaluation: run it first")
        self.engine, self.limit = found
        self.curve = curve_for(self.engine)

    def evaluations(self, game_id: int) -> dict:
        return game_evals(self.con, game_id, self.engine, self.limit)

    def nodes(self, evaluations: dict, indices: set[int]) -> int:
        return sum(evaluations[i].nodes or 0 for i in indices if i in evaluations)


def judged(first: int, moves: list[Move], evaluations: dict, plies: set[int], repeats: set[int],
           analysed: Analysed) -> dict[int, MoveJudgement]:
    return {m.ply: m for m in judge_moves(first, moves, evaluations, plies, repeats,
                                          analysed.curve, Thresholds())}


class Rule(NamedTuple):
    """Which moves of the fast pass the deep one searches again: those that lost ``least``
    or more (``None``: those the fast pass classes mistakes or worse), or gained ``gain``
    or more, or beside a position the fast search left ``unsettled`` or more, with
    ``radius`` plies either side; then in rounds the moves beside positions the deep pass
    moved ``shift`` or more, and those it shows losing ``revalued``
    (:func:`xqdb.analysis.games.followup_plies`; ``None``: not by that)."""

    least: float | None
    radius: int = 0
    shift: float | None = None
    gain: float | None = None
    revalued: float | None = None
    unsettled: float | None = None


def rechecked(fast: dict[int, MoveJudgement], deep: dict[int, MoveJudgement], plies: int,
              rule: Rule) -> set[int]:
    """The plies the two passes judge deeply under ``rule``, as ``analyse_two_pass`` picks
    them: the fast pass's flags, then the follow-ups of the deep pass's rounds."""
    return with_neighbours(recheck_plies(fast.values(), plies, least_loss=rule.least,
                                         radius=rule.radius, least_gain=rule.gain,
                                         least_unsettled=rule.unsettled),
                           fast, deep, plies, rule.shift, rule.revalued)


def with_neighbours(todo: set[int], fast: dict[int, MoveJudgement],
                    deep: dict[int, MoveJudgement], plies: int, shift: float | None,
                    revalued: float | None = None) -> set[int]:
    """The plies ``todo`` and, in rounds as ``analyse_two_pass`` adds them, the moves beside
    the positions whose deep evaluation moved ``shift`` or more from the fast one, and
    those the deep evaluations show losing ``revalued`` or more."""
    tried: set[int] = set()
    while todo:
        tried |= todo
        todo = followup_plies(fast, {p: deep[p] for p in tried if p in deep}, plies,
                              least_shift=shift, least_loss=revalued) - tried
    return tried


def score(name: str, predicted: dict, reference: dict) -> list[str]:
    lines = []
    for group, classes in GROUPS.items():
        hit, pred, ref = found(predicted, reference, classes)
        precision = hit / pred if pred else float("nan")
        recall = hit / ref if ref else float("nan")
        lines.append(f"  {name[:44]:<44} {group:<26} predicted {pred:>4}  reference "
                     f"{ref:>4}  agree {hit:>4}  precision {precision:5.2f}  "
                     f"recall {recall:5.2f}")
    return lines


def found(predicted: dict, reference: dict, group: set[str]) -> tuple[int, int, int]:
    """(agreed, predicted, in the reference) for the moves of one group of classes."""
    pred = {k for k, c in predicted.items() if c in group}
    ref = {k for k, c in reference.items() if c in group}
    return len(pred & ref), len(pred), len(ref)


#: The rules scored beside the default.
RECHECK_RULES = {"two passes (mistake+, +-1)": Rule(None, 1),
                 "two passes (loss >= 0.05)": Rule(0.05),
                 "two passes (loss >= 0.05, +-1)": Rule(0.05, 1),
                 "two passes (loss >= 0.03, +-1)": Rule(0.03, 1),
                 "two passes (loss >= 0.05, shift >= 0.07)": Rule(0.05, shift=0.07),
                 "two passes (loss >= 0.085, gain >= 0.16, shift >= 0.055: the first default)":
                     Rule(0.085, shift=0.055, gain=0.16),
                 f"two passes (loss >= {RECHECK_LOSS:g}, shift >= {RECHECK_SHIFT:g}, revalued "
                 f"loss >= {RECHECK_REVALUED:g}, unsettled >= {RECHECK_UNSETTLED}: the default)":
                     Rule(RECHECK_LOSS, shift=RECHECK_SHIFT, gain=RECHECK_GAIN,
                          revalued=RECHECK_REVALUED, unsettled=RECHECK_UNSETTLED),
                 "two passes (loss >= 0.06, shift >= 0.1, revalued loss >= 0.07, unsettled "
                 ">= 0.1: the default with the curve before schema 14)":
                     Rule(0.06, shift=0.10, revalued=0.07, unsettled=0.10),
                 "two passes (loss >= 0.035, shift >= 0.11, revalued loss >= 0.06, "
                 "unsettled >= 0.1: the default before)":
                     Rule(0.035, shift=0.11, revalued=0.06, unsettled=0.10),
                 "two passes (loss >= 0.035, shift >= 0.11, revalued loss >= 0.06: the "
                 "default before that)": Rule(0.035, shift=0.11, revalued=0.06),
                 "two passes (loss >= 0.04, shift >= 0.08: the default before those)":
                     Rule(0.04, shift=0.08),
                 "two passes (loss >= 0.05, shift >= 0.055)": Rule(0.05, shift=0.055),
                 "two passes (loss >= 0.1, shift >= 0.05)": Rule(0.1, shift=0.05)}
"""The rules scored beside the default: "the first default" is the rule before the fast
pass was chained; "the default before those" the rule chosen on 80 games at 2,000,000 nodes
before the deep pass's rounds also took the moves revalued, "the default before that" the
rule chosen then, before the fast pass's unsettled searches were searched again too, and
"the default before" that rule with the unsettled searches, before the thresholds were
chosen again with them on ``-i`` and ``-k``."""


def score_folder(out: Path, reference_nodes: int, fast_limit: Limit,
                 singles: tuple[Limit, ...], classes: dict[str, dict], nodes: Counter,
                 rules: dict[str, Rule] = RECHECK_RULES, middle_limit: Limit | None = None,
                 middle_rules: dict[str, tuple] | None = None,
                 deep_nodes: int | None = None,
                 chained: bool = True, changes: dict[str, list[float]] | None = None
                 ) -> dict[tuple[str, int], tuple]:
    """Add the judgements (by folder, game and ply) and nodes of the games of ``out``
    that the reference has reached to ``classes`` and ``nodes``, under each of ``rules``
    and, with a ``middle_limit``, each of ``middle_rules`` (:func:`three_passes`); returns
    those games' start and moves, by folder and game. The deep pass of the rules is the
    single pass at ``deep_nodes``, or with ``None`` the reference's. The fast pass is the
    one searched ``chained``, as the default's, or the one searched afresh. ``changes``
    gathers, by pass or rule, the changes of the mover's expected score over the engine's
    best moves (see :func:`keep`)."""
    changes = {} if changes is None else changes
    scratch = out / "scratch"
    ref = Analysed(open_copy(pass_path(out, Limit(nodes=reference_nodes)), scratch))
    deeper = (ref if deep_nodes is None
              else Analysed(open_copy(pass_path(out, Limit(nodes=deep_nodes)), scratch)))
    fast = Analysed(open_copy(pass_path(out, fast_limit, chained), scratch))
    middle = (Analysed(open_copy(pass_path(out, middle_limit), scratch))
              if middle_limit is not None else None)
    alone = {f"one pass at {described(n)}": Analysed(open_copy(pass_path(out, n), scratch))
             for n in singles if n != fast_limit or chained}
    games = ref.con.execute("SELECT g.game_id, g.start_fen, list(m.uci ORDER BY m.ply) "
                            "FROM games g JOIN moves m USING (game_id) GROUP BY ALL "
                            "ORDER BY 1").fetchall()
    scored = {}
    for game_id, fen, texts in games:
        moves = [Move.from_uci(t) for t in texts]
        repeats = {i for i, _, r in game_positions(fen, moves) if r}
        deep = ref.evaluations(game_id)
        over = not Position.from_fen(fen).has_legal_moves()
        positions = set(range(len(moves) + 1))
        last = Position.from_fen(fen)
        for m in moves:
            last.push(m)
        needed = positions - ({len(moves)} if not last.has_legal_moves() else set())
        if not needed <= set(deep):
            continue  # the reference has not reached this game (yet)
        scored[str(out), game_id] = (fen, texts)
        quick = fast.evaluations(game_id)
        first = Position.from_fen(fen).turn
        plies = set(range(1, len(moves) + 1))
        ref_j = judged(first, moves, deep, plies, repeats, ref)
        fast_j = judged(first, moves, quick, plies, repeats, fast)
        deep_evaluations = deep if deeper is ref else deeper.evaluations(game_id)
        deep_j = ref_j if deeper is ref else judged(first, moves, deep_evaluations, plies,
                                                    repeats, deeper)
        nodes["reference"] += ref.nodes(deep, positions)
        nodes["fast single pass"] += fast.nodes(quick, positions)
        game = (str(out), game_id)
        for name, judgements in (("reference", ref_j), ("fast single pass", fast_j)):
            keep(classes[name], game, judgements, changes.setdefault(name, []), repeats)
        for name, single in alone.items():
            evaluations = single.evaluations(game_id)
            nodes[name] += single.nodes(evaluations, positions)
            keep(classes.setdefault(name, {}), game,
                 judged(first, moves, evaluations, plies, repeats, single),
                 changes.setdefault(name, []), repeats)
        for name, rule in rules.items():
            again = rechecked(fast_j, deep_j, len(moves), rule)
            searched = {p - d for p in again for d in (0, 1)}
            nodes[name] += fast.nodes(quick, positions) + deeper.nodes(deep_evaluations,
                                                                       searched)
            keep(classes.setdefault(name, {}), game, merged(fast_j, (deep_j, again)),
                 changes.setdefault(name, []), repeats)
        if middle is None:
            continue
        between = middle.evaluations(game_id)
        middle_j = judged(first, moves, between, plies, repeats, middle)
        for name, tripled in (middle_rules or {}).items():
            again, looked = three_passes(fast_j, middle_j, deep_j, len(moves), *tripled)
            searched = {p - d for p in again for d in (0, 1)}
            nodes[name] += (fast.nodes(quick, positions) + deeper.nodes(deep_evaluations, searched)
                            + middle.nodes(between, {p - d for p in looked for d in (0, 1)}))
            keep(classes.setdefault(name, {}), game,
                 merged(fast_j, (middle_j, looked), (deep_j, again)),
                 changes.setdefault(name, []), repeats)
    return scored


def merged(fast: dict[int, MoveJudgement],
           *later: tuple[dict[int, MoveJudgement], set[int]]) -> dict[int, MoveJudgement]:
    """One rule's judgements of a game: the ``fast`` pass's, and each ``later`` pass's over
    them on the plies it judged."""
    judged = dict(fast)
    for judgements, plies in later:
        judged.update({p: judgements[p] for p in plies if p in judgements})
    return judged


def keep(classes: dict, game: tuple[str, int], judged: dict[int, MoveJudgement],
         changes: list[float], repeats: set[int]) -> None:
    """Keep in ``classes`` (by folder, game and ply) the classes of one pass or rule over
    ``game``, and in ``changes`` how the mover's expected score changed over the engine's
    own best moves (those to no repeated position): the martingale check of the curve."""
    for ply, judgement in judged.items():
        classes[(*game, ply)] = judgement.judgement
    changes += [j.expected_after - j.expected_before for ply, j in judged.items()
                if j.move == j.best_move and ply not in repeats]


def three_passes(fast: dict[int, MoveJudgement], middle: dict[int, MoveJudgement],
                 deep: dict[int, MoveJudgement], plies: int, wide: float, middle_loss: float,
                 least: float, shift: float | None, gain: float | None
                 ) -> tuple[set[int], set[int]]:
    """The plies judged deeply, and those searched at the middle limit, by three passes:
    the fast pass everywhere; the middle one on the moves that lost ``wide`` or more in the
    fast pass, short of what the deep pass takes at once (``least`` lost, ``gain`` gained);
    the deep one on those and on the moves the middle pass finds losing ``middle_loss``,
    then on the neighbours of positions it finds misjudged (``shift``), as in
    :func:`rechecked`."""
    todo = recheck_plies(fast.values(), plies, least_loss=least, radius=0, least_gain=gain)
    looked = recheck_plies(fast.values(), plies, least_loss=wide, radius=0,
                           least_gain=None) - todo
    todo |= {p for p in looked if p in middle and middle[p].loss >= middle_loss}
    return with_neighbours(todo, fast, deep, plies, shift), looked


#: With ``--grid``: the recheck rules tried beside :data:`RECHECK_RULES` (least loss,
#: least gain, least shift, least revalued loss; radius 0), to choose thresholds for another
#: fast pass.
GRID_LOSS = (0.03, 0.035, 0.04, 0.045, 0.05, 0.06, 0.07, 0.085, 0.10)
GRID_GAIN = (None, 0.16)
GRID_SHIFT = (None, 0.03, 0.055, 0.07, 0.08, 0.09, 0.1, 0.11, 0.12, 0.14)
GRID_REVALUED = (None, 0.04, 0.05, 0.06, 0.07, 0.08)
GRID_UNSETTLED = (None, 0.08, 0.10, 0.12, 0.15)


def grid_rules() -> dict[str, Rule]:
    """The rules of the grid, named by their thresholds."""
    return {f"grid loss {loss} gain {gain} shift {shift} revalued {revalued} "
            f"unsettled {unsettled}":
            Rule(loss, shift=shift, gain=gain, revalued=revalued, unsettled=unsettled)
            for loss in GRID_LOSS for gain in GRID_GAIN for shift in GRID_SHIFT
            for revalued in GRID_REVALUED for unsettled in GRID_UNSETTLED}


#: With ``--middle NODES``: the rules of :func:`three_passes` scored (least loss in the
#: fast pass for a middle search, least loss there for a deep one; then the deep pass's
#: own least loss, shift and gain, as in the grid).
MIDDLE_WIDE = (0.02, 0.03, 0.04, 0.05)
MIDDLE_LOSS = (0.05, 0.06, 0.07, 0.085)
MIDDLE_DEEP_LOSS = (0.085, 0.10, 0.12, 0.15)
MIDDLE_SHIFT = (0.04, 0.055, 0.07)


def middle_rules() -> dict[str, tuple]:
    """The three-pass rules scored, named by their thresholds."""
    return {f"three passes: wide {wide} middle loss {middle} loss {least} shift {shift} "
            f"gain {gain}": (wide, middle, least, shift, gain)
            for wide in MIDDLE_WIDE for middle in MIDDLE_LOSS for least in MIDDLE_DEEP_LOSS
            for shift in MIDDLE_SHIFT for gain in (None, 0.16)}


def print_frontier(classes: dict[str, dict], nodes: Counter, names: list[str],
                   title: str = "the grid's frontier") -> None:
    """The rules of ``names`` that no other finds more mistakes or worse for less cost:
    cost, then serious errors and mistakes or worse found, with precision."""
    rows = []
    for name in names:
        share = nodes[name] / nodes["reference"]
        serious = found(classes[name], classes["reference"], GROUPS["serious (blunder or mate)"])
        mistakes = found(classes[name], classes["reference"], GROUPS["mistake or worse"])
        rows.append((share, -mistakes[0], name, serious, mistakes))
    best = -1
    print(f"{title} (cost, then serious errors and mistakes or worse: found of "
          "the reference's, precision):")
    for share, _, name, serious, mistakes in sorted(rows):
        if mistakes[0] <= best:
            continue
        best = mistakes[0]
        print(f"  {share:6.1%}  serious {serious[0]:>3}/{serious[2]:<3} P "
              f"{serious[0] / max(serious[1], 1):.2f}  mistake+ {mistakes[0]:>3}/{mistakes[2]:<3}"
              f" P {mistakes[0] / max(mistakes[1], 1):.2f}  {name}")


def report(outs: tuple[Path, ...], reference_nodes: int, fast: Limit,
           others: tuple[Path, ...] = (), singles: tuple[Limit, ...] = (),
           confirm_nodes: int | None = None, jobs: int = 2, grid: bool = False,
           middle: Limit | None = None, deep: int | None = None,
           chained: bool = True) -> None:
    """Score the passes stored in each folder of ``outs``, their games pooled; with
    ``confirm_nodes``, check the reference's mistakes by a deeper search
    (:func:`confirm`); with ``grid``, also the rules of :func:`grid_rules`, of which the
    frontier is printed; with ``middle``, the three-pass rules of :func:`middle_rules`
    with a middle pass at that limit, and their frontier; with ``deep``, the deep pass of
    the rules is the single pass at that many nodes instead of the reference's; the fast
    pass is searched ``chained``, as the default's, or afresh."""
    classes: dict[str, dict] = {"reference": {}, "fast single pass": {}}
    changes: dict[str, list[float]] = {}
    nodes: Counter = Counter()
    scored: dict[tuple[str, int], tuple] = {}
    gridded = grid_rules() if grid else {}
    rules = RECHECK_RULES | gridded
    tripled = middle_rules() if middle is not None else {}
    if deep == reference_nodes:
        deep = None  # the reference's own pass
    for out in outs:
        scored.update(score_folder(out, reference_nodes, fast, singles, classes, nodes, rules,
                                   middle, tripled, deep, chained, changes))
    searched: dict[str, tuple[int, int | None]] = {}
    for other in others:
        # Another analysis of the same games (another engine, or xqdb analyze's own two
        # passes), judged by its database's judgements view, on the games scored.
        folder = outs[0]
        con = open_copy(other, folder / "scratch")
        name = f"{other.stem}: the judgements view"
        classes[name] = {(str(folder), g, p): c for g, p, c in con.execute(
            "SELECT game_id, ply, class FROM judgements "
            "QUALIFY row_number() OVER (PARTITION BY game_id, ply ORDER BY nodes DESC) = 1"
        ).fetchall() if (str(folder), g) in scored}
        count, total = con.execute("SELECT count(*), sum(nodes) FROM evals").fetchone() or (0, 0)
        searched[name] = (count, total)
    deep_pass = "the reference's limit" if deep is None else f"{deep:,} nodes"
    print(f"scored {len(scored)} games ({', '.join(f'{Path(o).name}:{g}' for o, g in scored)}); "
          f"{len(classes['reference']):,} judged moves; reference nodes={reference_nodes:,}, "
          f"fast pass at {described(fast)} ({'chained' if chained else 'afresh'}), "
          f"deep pass at {deep_pass}")
    print(f"  {'the reference':44} martingale: {Martingale.of(changes['reference'])}")
    for name, judgements in classes.items():
        if name == "reference" or name in gridded or name in tripled:
            continue
        if name in searched:  # perhaps another engine, whose nodes do not compare
            count, total = searched[name]
            print(f"{name}: {count:,} searches, {total or 0:,} nodes in all")
        else:
            share = nodes[name] / nodes["reference"] if nodes["reference"] else float("nan")
            print(f"{name}: {nodes[name]:,} nodes, {share:.1%} of the reference's")
        for line in score(name, judgements, classes["reference"]):
            print(line)
        if name in changes:
            print(f"  {name:44} martingale: {Martingale.of(changes[name])}")
    if gridded:
        print_frontier(classes, nodes, list(gridded))
    if middle is not None:
        print_frontier(classes, nodes, list(tripled),
                       f"three passes, the middle one at {described(middle)}: the frontier")
    if confirm_nodes is not None:
        confirm(scored, classes, confirm_nodes, jobs, outs[0] / f"confirm-{confirm_nodes}.jsonl")
    for out in outs:
        costs = out / "costs.jsonl"
        if costs.exists():
            print(f"engine seconds of each single pass run into {out} (all its games; a "
                  f"resumed run counts only what it searched):")
            for line in costs.read_text().splitlines():
                print("  " + line)


def _search_deeper(job: tuple[str, int]) -> tuple[str, dict]:
    """One position (FEN) searched at a node count, by this process's engine, from an
    empty hash table; the evaluation as the columns of ``evals``."""
    fen, count = job
    info = engine_for(EngineSpec((FAIRY,))).analyse(Position.from_fen(fen), Limit(nodes=count))
    row = StoredEval((0, 1, "", ""), Evaluation.from_info(info)).row()
    return fen, {k: row[k] for k in ("score_cp", "mate", "wdl_win", "wdl_draw", "wdl_loss",
                                     "best_move", "pv", "depth", "nodes")}


def confirm(scored: dict[tuple[str, int], tuple], classes: dict[str, dict], count: int,
            jobs: int, cache: Path) -> None:
    """Search the positions before and after each move the reference calls a mistake or
    worse again at ``count`` nodes, judge the moves again, and print how many of those the
    default finds, and of those it misses, are mistakes or worse there too. The searches
    are kept in ``cache`` (a stopped run resumes)."""
    group = GROUPS["mistake or worse"]
    default = next(name for name in RECHECK_RULES if name.endswith("the default)"))
    cases = []
    for (out, game_id, ply), judgement in sorted(classes["reference"].items()):
        if judgement not in group:
            continue
        fen, texts = scored[out, game_id]
        position = Position.from_fen(fen)
        for text in texts[:ply - 1]:
            position.push(Move.from_uci(text))
        before = position.fen()
        position.push(Move.from_uci(texts[ply - 1]))
        found = classes[default].get((out, game_id, ply)) in group
        cases.append((found, before, position.fen(), Move.from_uci(texts[ply - 1])))
    known = {}
    if cache.exists():
        known = dict(json.loads(line) for line in cache.read_text().splitlines())
    wanted = sorted({fen for _, before, after, _ in cases for fen in (before, after)} - set(known))
    with ProcessPoolExecutor(jobs) as pool, open(cache, "a") as kept:
        for fen, row in pool.map(_search_deeper, [(fen, count) for fen in wanted]):
            known[fen] = row
            kept.write(json.dumps([fen, row]) + "\n")
    with SupervisedEngine(EngineSpec((FAIRY,))) as engine:
        curve = curve_for(engine.identity)
    evaluation = {fen: evaluation_of(r["score_cp"], r["mate"],
                                     (r["wdl_win"], r["wdl_draw"], r["wdl_loss"]),
                                     r["best_move"], r["pv"], r["depth"], r["nodes"])
                  for fen, r in known.items()}
    held: Counter[tuple[bool, bool]] = Counter()
    for found, before, after, move in cases:
        judged_again = judge_moves(Position.from_fen(before).turn, [move],
                                   {0: evaluation[before], 1: evaluation[after]}, [1], (),
                                   curve, Thresholds())[0].judgement
        held[found, judged_again in group] += 1
    for found, what in ((True, "finds"), (False, "misses")):
        total = held[found, True] + held[found, False]
        print(f"of the {total} mistakes or worse of the reference the default {what}, "
              f"{held[found, True]} are mistakes or worse at {count:,} nodes too")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "defaults-data")
    parser.add_argument("--reference", type=int, default=DEFAULT_DEEP.nodes,
                        help="the reference: one pass at this many nodes, and the deep pass "
                             "of the two (default: the default's deep limit)")
    parser.add_argument("--fast", type=limit_argument, default=DEFAULT_FAST,
                        help="the fast pass of the two: nodes, or a limit such as depth=11 "
                             "(default: the default's)")
    parser.add_argument("--single", type=limit_argument, action="append", default=None,
                        help="also score one pass at this many nodes, or at a limit such as "
                             "depth=11 (default: 20000)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--pgn", type=Path, default=GAMES,
                        help="the games (default: pgn-chinese-15.pgn); give another --out for "
                             "other games, to check defaults on games they were not chosen on")
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--other", type=Path, action="append", default=[],
                        help="also score this database's judgements (another engine or "
                             "analysis of the same games)")
    parser.add_argument("--confirm", type=int, default=None, metavar="NODES",
                        help="search the positions around each of the reference's mistakes "
                             "or worse again at NODES, and say how many hold up")
    parser.add_argument("--grid", action="store_true",
                        help="also score a grid of recheck thresholds and print its frontier")
    parser.add_argument("--middle", type=limit_argument, default=None,
                        help="also run a single pass at this limit, and score three passes "
                             "with a middle pass there (a grid of thresholds; its frontier)")
    parser.add_argument("--deep", type=int, default=None, metavar="NODES",
                        help="the deep pass of the two at NODES instead of the reference's "
                             "limit (a single pass run there too): the defaults against a "
                             "deeper reference")
    parser.add_argument("--fresh-fast", action="store_true",
                        help="the fast pass searched afresh position by position, instead of "
                             "chained as the default's (each game from its end back, the "
                             "hash kept through it)")
    parser.add_argument("--keep-reference", action="store_true",
                        help="write the reference pass to bench/data (--pgn's name, "
                             ".nodes-N.parquet); a later run over the same games then begins "
                             "from it instead of searching it again")
    parser.add_argument("--pool", type=Path, action="append", default=[],
                        help="with --report-only: also score the games of this --out folder, "
                             "pooled with those of --out")
    args = parser.parse_args()
    if args.pool and (args.other or not args.report_only):
        parser.error("--pool scores folders already run: give --report-only, without --other")
    if args.pool and args.keep_reference:
        parser.error("--keep-reference keeps the reference of --out's games: give no --pool")
    singles = args.single if args.single is not None else [Limit(nodes=20_000)]
    args.out.mkdir(parents=True, exist_ok=True)
    kept = kept_reference(args.pgn, args.reference)
    if not args.report_only:
        middle = [args.middle] if args.middle is not None else []
        deep = [Limit(nodes=args.deep)] if args.deep is not None else []
        if kept.exists() and not pass_path(args.out, Limit(nodes=args.reference)).exists():
            seed_reference(args.out, args.reference, args.pgn, kept)
        run_pass(args.out, args.fast, args.jobs, args.pgn, chained=not args.fresh_fast)
        for limit in (*singles, Limit(nodes=args.reference), *middle, *deep):
            run_pass(args.out, limit, args.jobs, args.pgn)
    if args.keep_reference:
        keep_reference(args.out, args.reference, kept)
    report((args.out, *args.pool), args.reference, args.fast, tuple(args.other),
           tuple(singles), args.confirm, args.jobs, args.grid, args.middle, args.deep,
           not args.fresh_fast)


if __name__ == "__main__":
    main()
