"""Derive the ECCO decision tree from games that carry ECCO tags.

ECCO is a hierarchy (family letter, decade, code), and the tree is grown the same way:
inside each group of :func:`xqdb.openings.rules.group`, a node splits the games whose family letters
differ, then their decades, then their codes, each time on the test (a piece's move
within the first ``k`` plies) that leaves the purest parts (least entropy). Growing stops when every game of a node carries the
same code, or when no test separates them (games whose openings are identical).

Regenerate the shipped tree with::

    python -m xqdb.openings.derive ../shared/data/ccpd-dev.zip

and measure how well the method carries to games it has not seen with ``--held-out``
(the tree is then grown on the games of half of the folders and scored on the others)
or ``--folds 4`` (each quarter of the folders scored by the tree grown on the rest).

>>> from xqdb.openings.line import OpeningLine
>>> lines = [OpeningLine.read(m.split()) for m in ("h2e2 h7e7", "h2e2 b7e7", "g3g4 h7g7")]
>>> root = grow(list(zip(lines, ["D00", "D50", "E10"])))
>>> [decide(line, root)[0] for line in lines]
['D00', 'D50', 'E10']
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from ..formats import GameRecord, read_paths
from ..notation import NotationError
from .ecco import ECCO_CODES, Groups, Leaf, Tree, decide, node, tree_to_json
from .line import OPENING_PLIES, OpeningLine
from .rules import group

Example = tuple[OpeningLine, str]
#: How much of a code each level of the hierarchy looks at: family, decade, code.
_LEVELS = (1, 2, 3)


def tagged_games(records: Iterable[GameRecord]) -> Iterator[tuple[str, OpeningLine, str]]:
    """``(where, opening, ECCO tag)`` for every standard-start game of ``records`` whose
    tag is a defined code and whose opening moves can be read."""
    for record in records:
        tag = record.tags.get("ECCO", "").strip().upper()
        if record.is_error or tag not in ECCO_CODES:
            continue
        try:
            line = OpeningLine.read(record.moves, record.fen)
        except NotationError:
            continue
        if line is not None:
            yield record.origin.member or record.origin.path, line, tag


def grow(examples: Sequence[Example]) -> Tree:
    """A decision tree that gives every example its code, where the moves tell them apart:
    one subtree for each group of :func:`~xqdb.openings.rules.group`, and for each group
    that one refines."""
    groups: dict[str, list[tuple[dict[int, int], str]]] = defaultdict(list)
    for line, code in examples:
        grouping = group(line)
        if grouping.final:
            # The rules decide these games' codes alone; in a tree they would only blur
            # the boundaries of the games the rules leave to it.
            continue
        key, row = grouping.key, (line.features(), code)
        groups[key].append(row)
        # A group refines the one its key extends: that one's tree is there for the
        # refinements no tagged game reached.
        while "/" in key:
            key = key.rsplit("/", 1)[0]
            groups[key].append(row)
    return Groups({key: _grow(rows) for key, rows in groups.items()})


def _grow(rows: list[tuple[dict[int, int], str]]) -> Tree:
    counts = Counter(code for _, code in rows)
    code, agreeing = counts.most_common(1)[0]
    leaf = Leaf(code, len(rows), agreeing)
    if agreeing == len(rows):
        return leaf
    cut = next(c for c in _LEVELS if len({code[:c] for _, code in rows}) > 1)
    split = _best_split([(first, code[:cut]) for first, code in rows])
    if split is None:
        return leaf
    feature, within = split
    yes = [row for row in rows if row[0].get(feature, OPENING_PLIES) <= within]
    no = [row for row in rows if row[0].get(feature, OPENING_PLIES) > within]
    return node(feature, within, _grow(yes), _grow(no))


def _xlogx(count: int) -> float:
    return count * math.log(count) if count else 0.0


def _best_split(rows: list[tuple[dict[int, int], str]]) -> tuple[int, int] | None:
    """The ``(feature, within)`` test that leaves the least entropy in its two parts (in
    nats, weighted by size), or ``None`` when no test lowers it. Ties go to the earlier
    ply, then the smaller key, so the tree is the same on every run.

    Entropy rather than Gini impurity: with hundreds of codes it favours the tests that
    split off small, pure groups, and those are ECCO's variations (about two points
    more agreement on the held-out folders).
    """
    n = len(rows)
    total = Counter(label for _, label in rows)
    total_x = sum(_xlogx(c) for c in total.values())
    occurrences: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for first, label in rows:
        for feature, ply in first.items():
            occurrences[feature].append((ply, label))
    best: tuple[float, int, int] | None = None
    for feature, seen in occurrences.items():
        seen.sort()
        # Each part's entropy times its size is n log n - sum(c log c) over its labels;
        # the sums are updated as games move to the "yes" part, O(1) a game.
        left: Counter[str] = Counter()
        left_x, right_x, n_left = 0.0, total_x, 0
        i = 0
        while i < len(seen):
            ply = seen[i][0]
            while i < len(seen) and seen[i][0] == ply:
                label = seen[i][1]
                x, t = left[label], total[label]
                left[label] = x + 1
                left_x += _xlogx(x + 1) - _xlogx(x)
                right_x += _xlogx(t - x - 1) - _xlogx(t - x)
                n_left += 1
                i += 1
            n_right = n - n_left
            if not n_right:
                break
            entropy = (_xlogx(n_left) - left_x) + (_xlogx(n_right) - right_x)
            key = (entropy, ply, feature)
            if best is None or key < best:
                best = key
    if best is None or best[0] >= _xlogx(n) - total_x - 1e-9:
        return None
    return best[2], best[1]


def fold(where: str, folds: int) -> int:
    """``0`` to ``folds - 1``: the fold cross-validation puts a game's folder in. Whole
    folders go together, as a folder holds one event or collection: scoring a tree on a
    folder it has seen other games of would flatter it.

    >>> fold("Dataset/a/x.pgn", 4) == fold("Dataset/a/y.pgn", 4)
    True
    """
    folder = where.rsplit("/", 1)[0]
    return zlib.crc32(folder.encode("utf-8")) % folds


def half(where: str) -> int:
    """0 or 1: the half of the games ``--held-out`` puts a game's folder in."""
    return fold(where, 2)


def cross_validate(games: Sequence[tuple[str, OpeningLine, str]],
                   folds: int) -> tuple[float, float]:
    """Shares of ``games`` given their exact tag, and their family letter, each by the tree
    grown on the games of the other folds: how the shipped tree, grown on all of them,
    may be expected to do on games it has not seen."""
    exact = family = 0.0
    for k in range(folds):
        scored = [g for g in games if fold(g[0], folds) == k]
        if not scored:
            continue
        root = grow([(line, tag) for where, line, tag in games if fold(where, folds) != k])
        share_exact, share_family = agreement(root, scored)
        exact += share_exact * len(scored)
        family += share_family * len(scored)
    return exact / len(games), family / len(games)


def agreement(root: Tree, games: Sequence[tuple[str, OpeningLine, str]]) -> tuple[float, float]:
    """Shares of ``games`` whose tag ``root`` gives exactly, and whose family letter it gives."""
    exact = family = 0
    for _, line, tag in games:
        code = decide(line, root)[0]
        exact += code == tag
        family += code[0] == tag[0]
    return exact / len(games), family / len(games)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xqdb.openings.derive", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="files, folders or archives of tagged games")
    parser.add_argument("--out", default=str(Path(__file__).parent / "data" / "ecco_tree.json"))
    parser.add_argument("--held-out", action="store_true",
                        help="grow on half of the folders, score on the other half; write nothing")
    parser.add_argument("--folds", type=int, metavar="N",
                        help="cross-validate: score each of N folds of folders with the tree "
                             "grown on the others; write nothing")
    args = parser.parse_args(argv)
    games = list(tagged_games(read_paths(args.paths)))
    if args.folds:
        exact, family = cross_validate(games, args.folds)
        print(f"{len(games)} games, {args.folds} folds of folders, each scored by the tree "
              f"grown on the others: exact {exact:.2%}, family letter {family:.2%}")
        return 0
    if args.held_out:
        train = [g for g in games if half(g[0]) == 0]
        test = [g for g in games if half(g[0]) == 1]
        root = grow([(line, tag) for _, line, tag in train])
        print(f"grown on {len(train)} games, scored on {len(test)} held-out games")
        for name, part in (("derivation half", train), ("held-out half", test)):
            exact, family = agreement(root, part)
            print(f"{name}: exact {exact:.2%}, family letter {family:.2%}")
        return 0
    root = grow([(line, tag) for _, line, tag in games])
    document = {
        "about": "ECCO decision tree derived by xqdb.openings.derive from the ECCO tags of "
                 f"{len(games)} games of Chinese-Chess-Practical-Dataset (Yvonne761, CC BY 4.0)",
        "plies": OPENING_PLIES,
        "tree": tree_to_json(root),
    }
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(document, f, ensure_ascii=False, separators=(",", ":"))
    exact, family = agreement(root, games)
    print(f"{len(games)} games; tree written to {args.out}; agreement on them: "
          f"exact {exact:.2%}, family letter {family:.2%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
