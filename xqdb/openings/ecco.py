"""ECCO codes: the code table and the decision tree that assigns them.

The tree tests one thing per node: whether a given piece made a given move (in ECCO's
frame, see :mod:`xqdb.openings.line`) within the first ``k`` plies. It was derived from
the ECCO tags of master games (see :mod:`xqdb.openings.derive` and ``data/README.md``)
and is shipped as ``data/ecco_tree.json``; each leaf keeps how many of those games
reached it and how many of them carried its code.

>>> from xqdb.openings.line import OpeningLine
>>> moves = "炮二平五 炮8平5 马二进三 马8进7 车一平二 车9进1 马八进七 卒3进1 车二进五 车9平3"
>>> line = OpeningLine.read(moves.split())
>>> code, _ = decide(line)
>>> code, ECCO_CODES[code].opening
('D20', '顺炮直车对横车')
"""

from __future__ import annotations

import csv
import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Union

from .line import OpeningLine, parse_feature
from .rules import Grouping, group

_DATA = resources.files(__package__) / "data"


@dataclass(frozen=True, slots=True)
class EccoCode:
    """One of the 260 ECCO codes, with its names as the standard table gives them."""

    code: str
    group: str
    """The family letter, ``A`` to ``E``."""
    heading: str
    """The decade heading (``中炮对屏风马(一)``)."""
    opening: str
    variation: str


def _load_codes() -> dict[str, EccoCode]:
    with (_DATA / "ecco_codes.tsv").open(encoding="utf-8") as f:
        rows = csv.reader((line for line in f if not line.startswith("#")), delimiter="\t")
        next(rows)  # the header
        return {row[0]: EccoCode(*row[:5]) for row in rows}


#: The ECCO code table, by code.
ECCO_CODES: dict[str, EccoCode] = _load_codes()


@dataclass(frozen=True, slots=True)
class Leaf:
    code: str
    games: int
    """How many of the games the tree was derived from end at this leaf."""
    agreeing: int
    """How many of those carried :attr:`code` as their tag."""


@dataclass(frozen=True, slots=True)
class Node:
    feature: int
    """The :func:`~xqdb.openings.line.feature` tested."""
    within: int
    """The test holds when the feature first occurs at a 0-based ply <= ``within``."""
    yes: "Tree"
    no: "Tree"
    catch_all: Leaf | None = None
    """For a game that ends before this test's window does, when every code below is of
    one decade: that decade's smallest code below, as ECCO falls back on a group's
    "(其他)" code when no finer rule fires. ``None`` above the decade level."""


def node(feature: int, within: int, yes: "Tree", no: "Tree") -> Node:
    """A :class:`Node` with its :attr:`~Node.catch_all` worked out."""
    leaves = _leaves(yes) + _leaves(no)
    catch_all = None
    if len({leaf.code[:2] for leaf in leaves}) == 1:
        code = min(leaf.code for leaf in leaves)
        catch_all = Leaf(code, sum(leaf.games for leaf in leaves),
                         sum(leaf.agreeing for leaf in leaves if leaf.code == code))
    return Node(feature, within, yes, no, catch_all)


def _leaves(tree: "Tree") -> list[Leaf]:
    if isinstance(tree, Leaf):
        return [tree]
    if isinstance(tree, Node):
        return _leaves(tree.yes) + _leaves(tree.no)
    return [leaf for child in tree.children.values() for leaf in _leaves(child)]


@dataclass(frozen=True, slots=True)
class Groups:
    """The root: one subtree for each group of :func:`~xqdb.openings.rules.group`."""

    children: dict[str, "Tree"]


Tree = Union[Node, Groups, Leaf]


@dataclass(frozen=True, slots=True)
class Test:
    """One test of the tree on the way to a code: was ``feature`` played by ply ``within`` + 1?"""

    feature: int
    """The feature looked for."""
    within: int
    held: bool
    ply: int | None
    """The 0-based ply the game played the feature at (``None``: not in the opening)."""
    open: bool = False
    """The game ended before the test's window did: the decade's catch-all code was given."""


def _build(data: dict) -> Tree:
    if "code" in data:
        return Leaf(data["code"], data["games"], data["agreeing"])
    if "groups" in data:
        return Groups({key: _build(child) for key, child in data["groups"].items()})
    return node(parse_feature(data["move"]), data["within"], _build(data["yes"]), _build(data["no"]))


def tree_to_json(tree: Tree) -> dict:
    """The JSON form of ``tree`` (what ``data/ecco_tree.json`` holds)."""
    from .line import feature_name

    if isinstance(tree, Leaf):
        return {"code": tree.code, "games": tree.games, "agreeing": tree.agreeing}
    if isinstance(tree, Groups):
        return {"groups": {key: tree_to_json(child) for key, child in sorted(tree.children.items())}}
    return {"move": feature_name(tree.feature), "within": tree.within,
            "yes": tree_to_json(tree.yes), "no": tree_to_json(tree.no)}


@functools.cache
def tree() -> Tree:
    """The shipped decision tree, read on first use."""
    with (_DATA / "ecco_tree.json").open(encoding="utf-8") as f:
        return _build(json.load(f)["tree"])


_ABSENT = 1 << 30


def decide(line: OpeningLine, root: Tree | None = None, tests: list[Test] | None = None,
           grouping: Grouping | None = None) -> tuple[str, Leaf]:
    """The code ``root`` (default: the shipped tree) gives ``line``, and the leaf reached.

    The rules of :mod:`xqdb.openings.rules` pick the subtree (``grouping``, when already
    worked out): the group's own, or when no tagged game reached the group, the one of the
    group it refines (``a/b/c`` refines ``a/b``), else the group's catch-all code. When
    ``tests`` is given, each test made in the subtree is appended to it (what
    :func:`~xqdb.openings.explain` shows); without it, nothing but the walk is done.
    """
    at: Tree = tree() if root is None else root
    if isinstance(at, Groups):
        grouping = group(line) if grouping is None else grouping
        if grouping.final:
            return grouping.default, Leaf(grouping.default, 0, 0)
        key = grouping.key
        while key not in at.children and "/" in key:
            key = key.rsplit("/", 1)[0]
        child = at.children.get(key)
        at = Leaf(grouping.default, 0, 0) if child is None else child
    if isinstance(at, Leaf):
        return at.code, at
    first = line.features().get
    plies = len(line.moves)
    while isinstance(at, Node):
        ply = first(at.feature, _ABSENT)
        held = ply <= at.within
        if not held and plies <= at.within and at.catch_all is not None:
            if tests is not None:
                tests.append(Test(at.feature, at.within, held, None, open=True))
            return at.catch_all.code, at.catch_all
        if tests is not None:
            tests.append(Test(at.feature, at.within, held, None if ply == _ABSENT else ply))
        at = at.yes if held else at.no
    assert isinstance(at, Leaf), "a group's tree holds no further groups"
    return at.code, at
