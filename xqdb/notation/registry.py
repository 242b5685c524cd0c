"""The notation registry: every notation's name, reader, writer and sniffer, in one table.

Formats, replay, ``xqdb read`` and the command line take notation names from here and
nothing else lists them. A new notation is one module plus one :class:`Notation` entry
in :data:`REGISTRY`.

One sniffer serves every caller: :func:`sniff` tells the notation of one move text, and
:func:`sniff_moves` the notation of a game's texts (a vote of the first few texts, then the
winner's own :attr:`Notation.settle` for dialects that texts alone can tell apart).

>>> [sniff(t) for t in ("炮二平五", "C2.5", "C25", "H2-E2", "H2E2", "h2e2", "h10g8", "7747")]
['chinese', 'wxf', 'wxf', 'iccs', 'iccs', 'uci', 'uci10', 'dhtmlxq']
>>> sniff_moves(["h2e2", "h9g7"]), sniff_moves(["h3e3", "h10g8"]), sniff_moves(["??"])
('uci', 'uci10', 'auto')
>>> [n.name for n in REGISTRY.values() if n.writable][:3]
['chinese', 'chinese-traditional', 'wxf']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import AmbiguousMoveError, UnknownNotationError
from ..rules.board import Move
from ..rules.position import BasePosition
from .chinese import CHINESE_READER, parse_chinese, write_chinese
from .coordinates import (
    NotationError, parse_dhtmlxq, parse_iccs, parse_uci, parse_uci10, write_dhtmlxq,
    write_iccs, write_uci, write_uci10,
)
from .describe import DescriptionReader
from .san import dialect_of, fits_san, parse_san, parse_san_fsf, write_san, write_san_fsf
from .tables import fold
from .wxf import WXF_READER, describes_wxf, parse_wxf, write_wxf

#: Reads one move text against a position: ``(move, loose)`` (see :func:`xqdb.notation.read_move`).
MoveReader = Callable[[BasePosition, str], tuple[Move, bool]]
#: Writes a move that is legal in the position.
MoveWriter = Callable[[BasePosition, Move], str]


@dataclass(frozen=True, slots=True)
class Notation:
    """One notation: how its texts look, how they are read, and how they are written."""

    name: str
    example: str
    """A move text in this notation (the central cannon, where it can be written)."""
    read: MoveReader
    write: MoveWriter | None = None
    """``None`` for notations that are read but never written."""
    fits: Callable[[str], bool] | None = None
    """Whether one move text (full-width folded) has this notation's form; ``None`` for a
    notation the sniffer never answers, because its texts read as another one's."""
    names_pieces: bool = False
    """Reading a text already finds the legal move (coordinates leave that to the caller)."""
    tags: tuple[str, ...] = ()
    """Other names a PGN ``Format`` tag gives this notation (lower case)."""
    settle: Callable[[Sequence[str]], str] | None = None
    """For a notation with dialects: which one a game's texts are in, as far as the texts
    tell (see :func:`sniff_moves`)."""
    twin: str | None = None
    """A dialect whose texts look the same but name other moves: which one a game is in
    is decided by replaying it (see :func:`settle_by_replay`)."""
    describer: DescriptionReader | None = None
    """The reader behind ``read`` for notations that describe a piece's move (Chinese,
    WXF): its :meth:`~DescriptionReader.read_alone` also tells whether the piece that
    moves stands alone on its file (a replay then writes the move's texts from the piece
    and the move alone)."""

    @property
    def writable(self) -> bool:
        return self.write is not None


def _coordinates(parse: Callable[[str], Move]) -> MoveReader:
    def read(pos: BasePosition, text: str) -> tuple[Move, bool]:
        return parse(text), False
    return read


def _board_writer(write: Callable[[list[int], Move], str]) -> MoveWriter:
    def write_on(pos: BasePosition, move: Move) -> str:
        return write(pos.board, move)
    return write_on


def _move_writer(write: Callable[[Move], str]) -> MoveWriter:
    def write_on(pos: BasePosition, move: Move) -> str:
        return write(move)
    return write_on


def _write_traditional(pos: BasePosition, move: Move) -> str:
    return write_chinese(pos.board, move, traditional=True)


def _coordinate_ranks(texts: Sequence[str]) -> str:
    """Ranks 1-10 (``uci10``) when a rank 10 shows and no rank 0 does, else 0-9."""
    has_ten = has_zero = False
    for text in texts:
        if "10" in text:
            has_ten = True
        elif "0" in text:
            has_zero = True
    return "uci10" if has_ten and not has_zero else "uci"


_CJK = re.compile(r"[\u3400-\u9fff]")
_ICCS = re.compile(r"[A-I][0-9]-?[A-I][0-9]|[a-i][0-9]-[a-i][0-9]")
_UCI = re.compile(r"[a-i][0-9][a-i][0-9]")
_UCI10 = re.compile(r"[a-i](?:10|[1-9])[a-i](?:10|[1-9])")
_DHTMLXQ = re.compile(r"[0-8][0-9][0-8][0-9]")


def _matches(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    def fits(text: str) -> bool:
        return pattern.fullmatch(text) is not None
    return fits


#: Every notation, in the order the sniffer tries them: the first whose ``fits`` accepts
#: a text names it.
REGISTRY: dict[str, Notation] = {n.name: n for n in (
    Notation("chinese", "炮二平五", parse_chinese, _board_writer(write_chinese),
             fits=lambda text: _CJK.search(text) is not None, names_pieces=True,
             describer=CHINESE_READER),
    Notation("chinese-traditional", "炮二平五", parse_chinese, _write_traditional,
             names_pieces=True, describer=CHINESE_READER),
    Notation("wxf", "C2.5", parse_wxf, _board_writer(write_wxf), fits=describes_wxf,
             names_pieces=True, describer=WXF_READER),
    Notation("iccs", "H2-E2", _coordinates(parse_iccs), _move_writer(write_iccs),
             fits=_matches(_ICCS)),
    Notation("uci", "h2e2", _coordinates(parse_uci), _move_writer(write_uci),
             fits=_matches(_UCI), tags=("ucci",), settle=_coordinate_ranks),
    Notation("uci10", "h3e3", _coordinates(parse_uci10), _move_writer(write_uci10),
             fits=lambda text: "10" in text and _UCI10.fullmatch(text) is not None,
             settle=_coordinate_ranks),
    Notation("dhtmlxq", "7747", _coordinates(parse_dhtmlxq), _move_writer(write_dhtmlxq),
             fits=_matches(_DHTMLXQ)),
    Notation("san", "Che2", parse_san, write_san, fits=fits_san, names_pieces=True,
             tags=("salg", "lalg", "algebraic"), settle=dialect_of, twin="san-fsf"),
    Notation("san-fsf", "Che3", parse_san_fsf, write_san_fsf, names_pieces=True,
             settle=dialect_of, twin="san"),
)}

#: The pseudo-notation that sniffs each text on its own.
AUTO = "auto"
#: Names :func:`xqdb.notation.read_move` takes.
NOTATIONS: tuple[str, ...] = (*REGISTRY, AUTO)
#: Names :func:`xqdb.notation.write_move` takes.
WRITTEN_NOTATIONS: tuple[str, ...] = tuple(name for name, n in REGISTRY.items() if n.writable)
_SNIFFED = tuple(n for n in REGISTRY.values() if n.fits is not None)


def lookup(name: str) -> Notation:
    """The registry entry of ``name``; raises :class:`NotationError` for an unknown name.

    >>> lookup("wxf").example
    'C2.5'
    """
    entry = REGISTRY.get(name)
    if entry is None:
        raise UnknownNotationError(f"notation {name!r} is not supported (use one of "
                            f"{', '.join(NOTATIONS)})")
    return entry


#: Writers by name, looked up once per written move.
_WRITERS: dict[str, MoveWriter] = {name: n.write for name, n in REGISTRY.items()
                                   if n.write is not None}


def writer(name: str) -> MoveWriter:
    """The writer of ``name``; raises :class:`NotationError` if it cannot be written."""
    write = _WRITERS.get(name)
    if write is None:
        raise UnknownNotationError(f"notation {name!r} cannot be written (use one of "
                            f"{', '.join(WRITTEN_NOTATIONS)})")
    return write


def from_tag(value: str) -> str | None:
    """The notation a PGN ``Format`` tag names, or ``None``.

    >>> from_tag("ICCS"), from_tag("UCCI"), from_tag("Chinese"), from_tag("FEN")
    ('iccs', 'uci', 'chinese', None)
    """
    key = value.strip().lower()
    for entry in REGISTRY.values():
        if key == entry.name or key in entry.tags:
            return entry.name
    return None


def sniff(text: str) -> str | None:
    """The notation one move text is written in, or ``None`` when it fits none.

    Four-character coordinates are read with ranks 0-9 (``h2e2``): ranks 1-10 show only
    when a ``10`` does (see :func:`sniff_moves` for a whole game).
    """
    folded = fold(text)
    for entry in _SNIFFED:
        if entry.fits(folded):  # type: ignore[misc]
            return entry.name
    return None


def sniff_moves(texts: Sequence[str], sample: int = 12) -> str:
    """The notation most of a game's first ``sample`` texts are in (``auto`` if none fits).

    The winner's dialect is then settled from all the texts (coordinates: ranks 1-10 when a
    ``10`` shows and no ``0`` does).
    """
    counts: dict[str, int] = {}
    for text in texts[:sample]:
        name = sniff(text)
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
            if counts[name] == 3 and len(counts) == 1:
                break  # three alike and nothing else: settled
    if not counts:
        return AUTO
    best = REGISTRY[max(counts, key=lambda k: counts[k])]
    return best.settle(texts) if best.settle is not None else best.name


class DialectError(AmbiguousMoveError):
    """A game whose texts replay in two dialects of a notation, as two different games:
    its texts are ambiguous, and nothing is guessed."""

    def __init__(self, message: str, ply: int, text: str) -> None:
        super().__init__(message)
        self.ply = ply
        """1-based ply of the first text the dialects read differently."""
        self.text = text


def settle_by_replay(name: str, start: BasePosition, texts: Sequence[str]) -> str:
    """The dialect of notation ``name`` (or of its twin) in which ``texts`` replay from
    ``start``; ``name``, the hint, when neither tells more.

    When both replay to the end as different games, the texts cannot say which game was
    played: :class:`DialectError` names the first text they read differently.

    >>> from xqdb.rules import BasePosition
    >>> settle_by_replay("san", BasePosition(), ["Che3", "Hg8"])
    'san-fsf'
    >>> settle_by_replay("san", BasePosition(), ["Ch4"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xqdb.notation.registry.DialectError: 'Ch4' (ply 1) replays as h2h4 in san and as h2h3 in san-fsf, ...
    """
    entry = REGISTRY[name]
    if entry.twin is None:
        return name
    twin = REGISTRY[entry.twin]
    ours, ours_done = _replayed(entry, start, texts)
    theirs, theirs_done = _replayed(twin, start, texts)
    if ours_done and theirs_done and ours != theirs:
        ply = next(i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b)
        text = texts[ply]
        raise DialectError(
            f"{text!r} (ply {ply + 1}) replays as {ours[ply]} in {entry.name} and as "
            f"{theirs[ply]} in {twin.name}, and the whole game replays either way: "
            f"name its notation to read it", ply + 1, text)
    if theirs_done and not ours_done or not theirs_done and len(theirs) > len(ours):
        return twin.name
    return entry.name


def _replayed(entry: Notation, start: BasePosition, texts: Sequence[str]) -> tuple[list[Move], bool]:
    """The moves ``texts`` make from ``start`` in ``entry``, and whether all of them could."""
    pos = start.copy()
    moves: list[Move] = []
    for text in texts:
        try:
            move, _ = entry.read(pos, text)
        except NotationError:
            return moves, False
        if not entry.names_pieces and not pos.is_legal(move):
            return moves, False
        pos.push(move)
        moves.append(move)
    return moves, True


#: Texts the ``auto`` reader has sniffed, with their entries: files repeat a few thousand
#: texts over and over. Bounded against hostile input.
_SNIFF_CACHE: dict[str, Notation] = {}
_SNIFF_CACHE_LIMIT = 200_000


def _read_sniffed(pos: BasePosition, text: str) -> tuple[Move, bool]:
    entry = _SNIFF_CACHE.get(text)
    if entry is None:
        name = sniff(text)
        if name is None:
            raise NotationError(
                f"{text!r} is not a move in any notation (like "
                f"{', '.join(n.example for n in _SNIFFED if n.name != 'uci10')})")
        entry = REGISTRY[name]
        if len(_SNIFF_CACHE) < _SNIFF_CACHE_LIMIT:
            _SNIFF_CACHE[text] = entry
    return entry.read(pos, text)


def reader(name: str) -> MoveReader:
    """The reader of ``name`` (``auto``: sniff each text); raises :class:`NotationError`."""
    return _read_sniffed if name == AUTO else lookup(name).read


__all__ = [
    "Notation", "MoveReader", "MoveWriter", "REGISTRY", "AUTO", "NOTATIONS",
    "WRITTEN_NOTATIONS", "lookup", "writer", "from_tag", "sniff", "sniff_moves", "reader",
    "DialectError", "settle_by_replay",
]
