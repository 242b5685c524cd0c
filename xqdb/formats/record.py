"""The unit every reader yields: one game record, as read, not yet replayed.

Readers only tokenize. They never decide whether a move is legal; that is the job of
:mod:`xqdb.replay`. A record that a reader cannot make sense of is still yielded, with
``error`` set and ``raw`` holding what was read, so nothing a user gave us is lost.

>>> rec = GameRecord(origin=Origin(path="a.pgn", index=0), format="pgn")
>>> rec.mainline.moves.append("h2e2")
>>> rec.is_error
False
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import ErrorKind
from .engine_comments import EngineComment, parse_engine_comment

#: Results as stored, PGN style.
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


#: A record bigger than this (bytes, or characters of a decoded text) is not replayed but
#: invalid, "record too large", and keeps only its first :data:`KEPT_RECORD_BYTES` (bytes
#: or characters): game records are kilobytes, and one of many megabytes is a broken or
#: hostile file.
MAX_RECORD_BYTES = 16 << 20
KEPT_RECORD_BYTES = 4096


#: Variations nested deeper than this are dropped when a record is read (the record's raw
#: text keeps them). Real collections nest 7 deep at most (ccpd-dev.zip and every sample
#: file); a hostile one nests thousands deep, which would overflow Python's stack in
#: anything that walks the tree (pickle, repr) and take time quadratic in the depth to
#: export.
MAX_VARIATION_DEPTH = 100


def too_large_message(size: int) -> str:
    """Why a record of ``size`` bytes (or characters) is not replayed.

    >>> too_large_message(20_000_000)
    'record too large: 20000000 bytes (the limit is 16777216)'
    """
    return f"record too large: {size} bytes (the limit is {MAX_RECORD_BYTES})"


@dataclass(slots=True)
class Origin:
    """Where a record came from, precisely enough for a user to find it again."""

    path: str
    """The file on disk as given by the user (``-`` for standard input)."""
    member: str | None = None
    """The member name inside an archive, if any."""
    index: int = 0
    """0-based record number within the file or member."""
    offset: int | None = None
    """Byte offset of the record's first byte within the file or member."""
    line: int | None = None
    """1-based line of the record's first line, for text formats."""

    def __str__(self) -> str:
        where = self.path if self.member is None else f"{self.path}!{self.member}"
        parts = [where, f"record {self.index + 1}"]
        if self.line is not None:
            parts.append(f"line {self.line}")
        elif self.offset is not None:
            parts.append(f"offset {self.offset}")
        return ", ".join(parts)


@dataclass(slots=True)
class Line:
    """A sequence of move texts with the comments and alternatives around them.

    ``comments[i]`` is the comment after the i-th move of this line (``comments[0]``
    stands before the first move). ``variations`` holds ``(i, line)`` pairs: ``line``
    replaces ``moves[i]`` and what follows it. ``nags[i]`` lists the NAG numbers
    attached to move i (1-based like comments).
    """

    moves: list[str] = field(default_factory=list)
    comments: dict[int, str] = field(default_factory=dict)
    variations: list[tuple[int, "Line"]] = field(default_factory=list)
    nags: dict[int, list[int]] = field(default_factory=dict)

    def count_variations(self) -> int:
        """Number of variations in this line and all lines below it.

        >>> Line(variations=[(0, Line(variations=[(0, Line())])), (0, Line())]).count_variations()
        3
        """
        # An explicit stack: records nest variations deeper than Python's recursion limit.
        count, below = 0, [self]
        while below:
            line = below.pop()
            count += len(line.variations)
            below.extend(variation for _, variation in line.variations)
        return count

    def drop_deeper(self, depth: int = MAX_VARIATION_DEPTH) -> int:
        """Drop the variations nested more than ``depth`` deep below this line (its own
        are at depth 1); returns how many were dropped, all depths.

        >>> main = Line(variations=[(0, Line(variations=[(0, Line(variations=[(0, Line())]))]))])
        >>> main.drop_deeper(1), main.count_variations()
        (2, 1)
        """
        dropped, below = 0, [(self, 0)]
        while below:
            line, at = below.pop()
            if at == depth:
                dropped += line.count_variations()
                line.variations = []
            else:
                below.extend((variation, at + 1) for _, variation in line.variations)
        return dropped


@dataclass(slots=True)
class GameRecord:
    """One game as a reader found it."""

    origin: Origin
    format: str
    """Container format: the name of the reader that read it (``pgn``, ``dhtmlxq``, ``xqf``,
    ``cbr``, ``cbl2001``, ``cbf``, ``wxf-file``, ``dpxq``, ``eglib``, ``epd``, ``movelist``)."""
    encoding: str | None = None
    """Text encoding detected or given (``utf-8``, ``gb18030``, ``big5``, ``utf-16``...)."""
    tags: dict[str, str] = field(default_factory=dict)
    fen: str | None = None
    """Start position as written in the source; ``None`` means the standard start."""
    notation: str = "auto"
    """Notation of the move texts: a name of :data:`xqdb.notation.NOTATIONS` (``auto``:
    sniff each text)."""
    mainline: Line = field(default_factory=Line)
    result: str | None = None
    """``1-0``, ``0-1``, ``1/2-1/2``, ``*`` or ``None`` when the source has none."""
    raw: str | bytes = ""
    """The record as read (text for text formats, bytes for binary ones)."""
    error: str | None = None
    """Set when the reader could not read this record; the message says why."""
    error_kind: ErrorKind = ErrorKind.UNREADABLE_RECORD
    """What kind of failure :attr:`error` is, when it is set; readers name a more precise
    kind where they know one (a record that holds no game, an unknown format...)."""
    dropped_variations: int = 0
    """Variations nested deeper than :data:`MAX_VARIATION_DEPTH`, dropped as the record was
    read (see :meth:`Line.drop_deeper`)."""

    def drop_deep_variations(self) -> None:
        """Drop the variations nested deeper than :data:`MAX_VARIATION_DEPTH`, counting them
        in :attr:`dropped_variations`."""
        if self.mainline.variations:
            self.dropped_variations += self.mainline.drop_deeper()

    @property
    def moves(self) -> list[str]:
        """The main line's move texts."""
        return self.mainline.moves

    @property
    def is_error(self) -> bool:
        return self.error is not None

    @property
    def engine_comments(self) -> dict[int, EngineComment]:
        """The engine comments of the main line by 1-based ply (``{+0,10/7 4}``, see
        :mod:`xqdb.formats.engine_comments`); the comment texts stay in ``comments``.

        >>> rec = GameRecord(origin=Origin("a.pgn"), format="pgn")
        >>> rec.mainline.comments.update({1: "+0,10/7", 2: "book"})
        >>> rec.engine_comments
        {1: EngineComment(score=10, depth=7, seconds=None)}
        """
        found = {}
        for ply, text in self.mainline.comments.items():
            # Comments after one move are joined by newlines; the engine's comes first.
            said = parse_engine_comment(text.split("\n", 1)[0])
            if said is not None:
                found[ply] = said
        return found
