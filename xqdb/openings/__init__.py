"""Opening classification: the ECCO code, its opening and variation names, and the
traditional names Chinese players use.

>>> moves = ("炮八平五 马2进3 马八进七 车1平2 车九平八 马8进7 兵三进一 卒3进1 车八进六 炮2平1 "
...          "车八平七 炮1退1 炮二平四 车2进5 马二进三 车2平7 车一平二 车9平8 车二进三 士6进5")
>>> result = classify(moves.split())
>>> result.ecco, result.opening, result.variation, result.mirrored
('C48', '中炮过河车互进七兵对屏风马平炮兑车', '红仕角炮对黑退边炮', True)
>>> result.names
('中炮', '五六炮', '仕角炮', '屏风马', '直车', '骑河车', '过河车')
>>> classify(["h2e2"], start_fen="4k4/9/9/9/9/9/9/9/4C4/4K4 w") is None
True

Games are read in ECCO's frame: when Red opens on the left wing, both sides' moves are
mirrored, so 炮八平五 is classified as 炮二平五 (see :mod:`xqdb.openings.line`).
:func:`explain` says which moves decided the code.

A code is found in two steps: rules written from the ECCO definitions put the opening in
its group (:mod:`xqdb.openings.rules`), and a decision tree picks the code inside the group
(:mod:`xqdb.openings.ecco`). The code table ships as ``data/ecco_codes.tsv``; the tree as
``data/ecco_tree.json``, derived from the ECCO tags of the Chinese-Chess-Practical-Dataset
games (Yvonne761, CC BY 4.0): see ``data/README.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..rules.board import Move
from .ecco import ECCO_CODES, EccoCode, Leaf, Test, decide
from .line import OPENING_PLIES, OpeningLine, lone_move_text
from .names import NAMES, OpeningName, definition, opening_names
from .rules import Grouping, group


@dataclass(frozen=True, slots=True)
class Classification:
    """What a game's opening is, and why."""

    ecco: str
    """The ECCO code (``C45``)."""
    opening: str
    variation: str
    """The variation name; empty when the code has none."""
    names: tuple[str, ...]
    """The traditional names that apply (``('中炮', '屏风马', '过河车')``)."""
    mirrored: bool
    """Whether Red opened on the left wing, so the moves were read mirrored."""
    line: OpeningLine
    """The opening plies read, in ECCO's frame."""
    leaf: Leaf
    """The tree's leaf: how many derivation games reached it, and agreed."""
    grouping: Grouping
    """The group the rules put the opening in, and the moves they read."""

    @property
    def tests(self) -> list[Test]:
        """The tree's tests inside the group that led to the code, in the order made."""
        tests: list[Test] = []
        decide(self.line, tests=tests, grouping=self.grouping)
        return tests

    @property
    def family(self) -> str:
        """The family letter, ``A`` to ``E``."""
        return self.ecco[0]

    def deciding_plies(self) -> list[int]:
        """The 0-based plies of the moves the rules read and that passed a test of the tree
        on the way to the code."""
        plies = {ply for step in self.grouping.steps for ply in step.plies}
        return sorted(plies | {t.ply for t in self.tests if t.held and t.ply is not None})

    def explanation(self) -> str:
        """In words: the code, the rules' steps and the tree's tests, with the moves they read.

        >>> moves = ("炮二平五 炮8平5 马二进三 马8进7 车一平二 车9进1 马八进七 卒3进1 车二进五 车9平3"
        ...          " 相七进九 马2进1 仕六进五 士6进5")
        >>> print(classify(moves.split()).explanation())
        D20 顺炮直车对横车
          group 顺炮直车对横车/其他, by the rules:
            ply 1: Red played 炮二平五
            ply 2: Black played 炮8平5 (顺炮)
            ply 5: Red played 车一平二 as his move 3
            ply 6: Black played 车9进1 as his move 3
            ply 9: Red played 车二进五 after 马八进七, no variation's move
          -> D20: decided by the rules.
        Names: 中炮, 顺炮, 单提马, 直车, 横车, 骑河车
        """
        title = f"{self.ecco} {self.opening}" + (f" {self.variation}" if self.variation else "")
        lines = [title]
        if self.mirrored:
            lines.append("Red opened on the left wing: moves read mirrored (炮八平五 as 炮二平五).")
        lines.append(f"  group {self.grouping.key}, by the rules:")
        lines.extend(f"    {step}" for step in self.grouping.steps)
        texts = self.line.texts()
        tests = self.tests
        if tests:
            lines.append("  inside the group, by the tree:")
        for test in tests:
            lines.append("    " + _describe(test, texts))
        if self.grouping.final:
            lines.append(f"  -> {self.ecco}: decided by the rules.")
        elif self.leaf.games:
            lines.append(f"  -> {self.ecco}: {self.leaf.agreeing} of the {self.leaf.games} tagged "
                         f"games with these moves carry it.")
        else:
            lines.append(f"  -> {self.ecco}: the group's catch-all code (no tagged game reached "
                         "the group).")
        if self.names:
            lines.append("Names: " + ", ".join(self.names))
        return "\n".join(lines)


def _describe(test: Test, texts: list[str]) -> str:
    """One test of :attr:`Classification.tests` in words."""
    piece, code = divmod(test.feature, 8100)
    side = "Red" if piece > 7 else "Black"
    if test.ply is None:
        text = lone_move_text(piece - 7, Move.from_code(code))
        if test.open:
            return (f"open: the game ends before ply {test.within + 1}, by which {side} might "
                    f"still play {text}: the catch-all code of the group")
        return f"no:  {side} had not played {text} by ply {test.within + 1}"
    text = texts[test.ply]
    if test.held:
        return f"yes: {side} played {text} at ply {test.ply + 1} (by ply {test.within + 1})"
    return f"no:  {side} played {text} only at ply {test.ply + 1}, after ply {test.within + 1}"


def classify(moves: Iterable[Move | str], start_fen: str | None = None,
             pieces: Sequence[int] | None = None) -> Classification | None:
    """The opening of a game given as ``Move``s or move texts in any notation.

    Returns ``None`` for a game that does not start from the standard position: ECCO
    has no code for it. Only the first :data:`~xqdb.openings.line.OPENING_PLIES` plies
    are read. ``pieces``, the piece that made each move as a replay found it, spares
    working that out again (see :meth:`OpeningLine.read`).
    """
    line = OpeningLine.read(moves, start_fen, pieces=pieces)
    if line is None:
        return None
    grouping = group(line)
    code, leaf = decide(line, grouping=grouping)
    entry = ECCO_CODES[code]
    return Classification(code, entry.opening, entry.variation, opening_names(line),
                          line.mirrored, line, leaf, grouping)


def explain(moves: Iterable[Move | str], start_fen: str | None = None) -> str:
    """Which moves decided the game's code, in words (see :meth:`Classification.explanation`)."""
    result = classify(moves, start_fen)
    if result is None:
        return "Not from the standard start position: no ECCO code."
    return result.explanation()


__all__ = [
    "Classification", "ECCO_CODES", "EccoCode", "NAMES", "OPENING_PLIES", "OpeningLine",
    "OpeningName", "classify", "definition", "explain", "opening_names",
]
