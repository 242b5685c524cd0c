"""PGN files as Xiangqi programs write them, one or many games per file.

The encoding is detected once per file (UTF-8 with or without a BOM, GB18030, Big5,
UTF-16) and a record that does not fit it is decoded with the next likely one. The file
is split into records line by line, so memory holds one record, not the file. Each
record's movetext is tokenized by one compiled pattern: comments ``{}``, variations
``()``, NAGs and ``!?`` marks, move numbers glued to moves or with full-width periods,
commas between moves (as move lists write them, see :mod:`xqdb.notation.tokens`), results,
and the adverts or ``=====`` rules some programs write after the result.

>>> import io
>>> from xqdb.formats.record import Origin
>>> text = '[Format "ICCS"]\\n1. H2-E2 {central cannon} H9-G7 (1... H7-E7) 1-0\\n'
>>> rec = next(read(io.BytesIO(text.encode()), Origin("a.pgn")))
>>> rec.notation, rec.moves, rec.result, rec.mainline.comments
('iccs', ['H2-E2', 'H9-G7'], '1-0', {1: 'central cannon'})
>>> rec.mainline.variations[0][0], rec.mainline.variations[0][1].moves
(1, ['H7-E7'])
"""

from __future__ import annotations

import codecs
import dataclasses
import re
from typing import Any, BinaryIO, Iterator

from .encoding import ascii_view, decode, detect_encoding, head_text, text_stream
from ..errors import ErrorKind
from ..notation import REGISTRY, from_tag, sniff_moves
from .movelist import SNIFF_PLIES, first_moves, opens_legally
from .record import (KEPT_RECORD_BYTES, MAX_RECORD_BYTES, MAX_VARIATION_DEPTH, GameRecord,
                     Line, Origin, too_large_message)
from .tags import normalize_result

FORMAT = "pgn"

_CHUNK = 1 << 16
_HEAD = 4096
#: A line longer than this is handed on in pieces of this size rather than held whole.
_LONG_LINE = 1 << 20
#: The bytes kept of a record too large, to give the characters kept once decoded.
_KEPT_HEAD = 4 * KEPT_RECORD_BYTES

_TAG_LINE = re.compile(r'^[ \t]*\[[A-Za-z][A-Za-z0-9_]*[ \t]+"', re.M)
_TAG = re.compile(r'^[ \t\ufeff]*\[([A-Za-z][A-Za-z0-9_]*)[ \t]*(?:"(.*)"|([^"\]\r\n]*))[ \t]*\]?[ \t]*\r?$',
                  re.M)
_HEADER = re.compile(r'(?:[ \t\ufeff]*(?:\[[^\r\n]*)?\r?\n)*')
_MOVE_NUMBER_LINE = re.compile(r"^\s*[0-9０-９]+\s*[.．]", re.M)
_TOKEN = re.compile(r"""
    (?P<comment>\{[^}]*\}?)
  | (?P<open>[(（])
  | (?P<close>[)）])
  | (?P<nag>\$[0-9]+)
  | (?P<result>(?:1-0|0-1|1/2-1/2|½-½|\*)(?![^\s{}()]))
  | (?P<number>[0-9０-９]+[ \t]*(?:\.\.\.|…|[.．。、])+(?![0-9０-９]))
  | (?P<semi>;[^\n]*)
  | (?P<skip>\.\.\.|…|[.．]+|[,，]+)
  | (?P<stop>[=＝]{3,}|-{3,}|_{3,}|\*{3,})
  | (?P<move>[^\s{}()（）;$,，]+)
""", re.X)
#: Characters that only the full tokenizer handles (comments, variations, NAGs, marks).
#: Rules like ``=====`` and stray periods are caught token by token in the fast path.
#: (A character class: searching a long text for any of them is several times faster with
#: a regex than with a set, which makes a string of every character.)
_SPECIAL_CHARS = re.compile("[{}()（）;$!?！？…]")
_DOTS = frozenset(".．。、")
#: First characters no move text has in the fast path (numbers, rules like =====).
_LEADS = frozenset("0123456789０１２３４５６７８９=＝-_*.．")
_TERMINATORS = frozenset(("1-0", "0-1", "1/2-1/2", "½-½", "*"))
_MARKS = re.compile(r"([!?！？]{1,2})$")
_MARK_NAGS = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}


def sniff(head: bytes, name: str) -> bool:
    """PGN tags, a ``.pgn`` file, or numbered moves whose first moves replay as legal
    moves (a numbered list in prose, ``1. Introduction``, is not claimed)."""
    view = ascii_view(head)
    if "[DhtmlXQ" in view:
        return False
    if _TAG_LINE.search(view) or name.lower().endswith(".pgn"):
        return True
    text = head_text(head)
    numbered = _MOVE_NUMBER_LINE.search(text)
    return numbered is not None and opens_legally(
        first_moves(text[numbered.start():numbered.start() + 400], SNIFF_PLIES))


def read(stream: BinaryIO, origin: Origin, encoding: str | None = None) -> Iterator[GameRecord]:
    """Yield the games of a PGN stream one at a time."""
    head = stream.read(_HEAD)
    file_encoding = encoding or detect_encoding(head)
    base = 0
    if head.startswith(codecs.BOM_UTF8):
        head, base = head[3:], 3
    if file_encoding.startswith("utf-16"):
        chunks = _text_records(stream, head, file_encoding)
    else:
        chunks = _byte_records(stream, head, base)
    yield from _records(chunks, origin, file_encoding, encoding is None)


def splits(head: bytes, encoding: str | None = None) -> bool:
    """Whether a PGN file starting with ``head`` can be read in byte ranges cut at record
    starts (see :func:`record_starts`): every encoding but UTF-16, whose records are found
    in the decoded text.

    >>> splits(b'[Event "a"]'), splits(b"\\xff\\xfe[\\x00")
    (True, False)
    """
    return not (encoding or detect_encoding(head)).startswith("utf-16")


def record_starts(stream: BinaryIO) -> Iterator[tuple[int, int]]:
    """Byte offset and 1-based line of every record of a PGN stream, in order, found as
    :func:`read` finds them (holding one record at a time), for a file that
    :func:`splits`: :func:`read_range` from any of them on reads the records that
    :func:`read` reads there, numbered alike.

    >>> import io
    >>> list(record_starts(io.BytesIO(b'[Red "A"]\\n1. h2e2 *\\n\\n[Red "B"]\\n1. c3c4 *\\n')))
    [(0, 1), (21, 4)]
    """
    head = stream.read(_HEAD)
    base = 3 if head.startswith(codecs.BOM_UTF8) else 0
    for _, offset, line in _split(_byte_chunks(stream, head[base:]), _BOUNDARY_BYTES, base):
        yield offset, line


def read_range(stream: BinaryIO, origin: Origin, file_encoding: str,
               encoding: str | None = None) -> Iterator[GameRecord]:
    """Yield the games of a byte range of a PGN file: ``stream`` holds the range's bytes,
    which begin at a record start (see :func:`record_starts`); ``origin`` gives the
    range's first record number (``index``), byte offset and line in the whole file, so
    records are numbered and placed as :func:`read` of the whole file would.
    ``file_encoding`` is the encoding detected from the file's head; ``encoding`` the
    user's override, if any.

    >>> import io
    >>> second = next(read_range(io.BytesIO(b'[Red "B"]\\n1. c3c4 *\\n'),
    ...                          Origin("a.pgn", None, 1, 21, 4), "utf-8"))
    >>> str(second.origin), second.moves
    ('a.pgn, record 2, line 4', ['c3c4'])
    """
    head = stream.read(_HEAD)
    base = origin.offset or 0
    if not base and head.startswith(codecs.BOM_UTF8):
        head, base = head[3:], 3
    chunks = _split(_byte_chunks(stream, head), _BOUNDARY_BYTES, base,
                    first_line=origin.line or 1)
    yield from _records(chunks, origin, file_encoding, encoding is None, origin.index)


def _records(chunks: Iterator[tuple[bytes | str | _TooLarge, int | None, int]], origin: Origin,
             file_encoding: str, fallback: bool, first: int = 0) -> Iterator[GameRecord]:
    """The records of split chunks, decoded and parsed, numbered from ``first``; a
    record that does not fit ``file_encoding`` is decoded with the next likely one when
    ``fallback`` (the encoding was detected, not given)."""
    for index, (data, offset, line) in enumerate(chunks, start=first):
        where = Origin(origin.path, origin.member, index, offset, line)
        if isinstance(data, _TooLarge):
            yield data.record(where, file_encoding)
            continue
        if isinstance(data, str):
            text, used = data, file_encoding
        else:
            text, used = decode(data, file_encoding, fallback=fallback)
        yield parse_record(text, where, used)


def parse_record(text: str, origin: Origin, encoding: str | None = None) -> GameRecord:
    """Read one PGN game from its text (tags, then movetext)."""
    record = GameRecord(origin=origin, format=FORMAT, encoding=encoding, raw=text)
    header = _HEADER.match(text)
    body_start = header.end() if header else 0
    tags = record.tags
    _read_tags(text, body_start, tags)
    fen = tags.get("FEN", "").strip()
    record.fen = fen or None
    result = _parse_movetext(text, body_start, record)
    if isinstance(result, _Unreadable):
        record.error = result.reason
        result = None
    record.result = normalize_result(tags.get("Result")) or result
    record.notation = from_tag(tags.get("Format", "")) or sniff_moves(record.mainline.moves)
    if not tags and not record.mainline.moves and record.error is None:
        snippet = " ".join(text.split())[:60]
        record.error = f"no tags and no moves: {snippet!r} is not a game"
        record.error_kind = ErrorKind.NOT_A_GAME
    return record


@dataclasses.dataclass(slots=True)
class _Unreadable:
    reason: str


def _parse_movetext(text: str, start: int, record: GameRecord) -> str | None | _Unreadable:
    """Fill ``record``'s main line from the movetext at ``text[start:]``; returns the
    result token. Variations nested deeper than :data:`MAX_VARIATION_DEPTH` are passed
    over as they are met and counted in ``record.dropped_variations``: a record of
    megabytes of ``(`` would otherwise build millions of nested lines."""
    root = record.mainline
    body = text[start:] if start else text
    if _SPECIAL_CHARS.search(body) is None:
        plain = _plain_movetext(body, root.moves)
        if plain is not _NOT_PLAIN:
            return plain  # type: ignore[return-value]
        root.moves.clear()
    line = root
    stack: list[Line] = []
    forks: dict[int, tuple[Line, int]] = {}  # where each variation hangs, by id
    passing = 0  # how deep inside a variation passed over, when in one
    for m in _TOKEN.finditer(text, start):
        kind = m.lastgroup
        if passing:
            if kind == "open":
                passing += 1
                record.dropped_variations += 1
            elif kind == "close":
                passing -= 1
            continue
        if kind == "move":
            move = m[0]
            mark = _MARKS.search(move)
            if mark is not None and mark.start() > 0:
                move = move[:mark.start()]
                nag = _MARK_NAGS.get(mark[1].replace("！", "!").replace("？", "?"))
                if nag:
                    line.nags.setdefault(len(line.moves) + 1, []).append(nag)
            line.moves.append(move)
        elif kind == "number" or kind == "skip":
            continue
        elif kind == "comment":
            body = m[0]
            if not body.endswith("}"):
                lineno = text.count("\n", 0, m.start()) + 1
                return _Unreadable(f"comment opened on line {lineno} of the record is never "
                                   f"closed: {' '.join(body.split())[:40]!r}")
            _add_comment(line, body[1:-1].strip())
        elif kind == "open":
            if len(stack) == MAX_VARIATION_DEPTH:
                passing = 1
                record.dropped_variations += 1
                continue
            variation = Line()
            if not line.moves and id(line) in forks:
                # A variation opened before its line has a move ("( (") has nothing in that
                # line to replace: it is another alternative to what that line replaces.
                holder, fork = forks[id(line)]
            else:
                holder, fork = line, max(len(line.moves) - 1, 0)
            holder.variations.append((fork, variation))
            forks[id(variation)] = holder, fork
            stack.append(line)
            line = variation
        elif kind == "close":
            if stack:
                line = stack.pop()
        elif kind == "nag":
            line.nags.setdefault(len(line.moves), []).append(int(m[0][1:]))
        elif kind == "semi":
            _add_comment(line, m[0][1:].strip())
        elif kind == "result":
            if not stack:
                return normalize_result(m[0])
        elif kind == "stop":
            if not stack:
                return None
    return None


_NOT_PLAIN = object()


def _plain_movetext(body: str, moves: list[str]) -> str | None | object:
    """The common case, quickly: numbered moves and a result, nothing else.

    Returns the result, or ``_NOT_PLAIN`` when a token needs the full tokenizer.
    """
    if "," in body or "，" in body:
        return _NOT_PLAIN  # commas between the moves, as move lists write them
    tokens = body.split()
    result = None
    ends = _TERMINATORS.intersection(tokens)
    if ends:
        cut = min(map(tokens.index, ends))
        result = normalize_result(tokens[cut])
        del tokens[cut:]
    # Drop move numbers ("12." or "12．"); anything else starting with a digit is a
    # number glued to a move or a WXF pawn move: the full tokenizer sorts those out.
    plain = [t for t in tokens if not (t[-1] in _DOTS and t[:-1].isdigit())]
    if not _LEADS.isdisjoint([t[0] for t in plain]):
        return _NOT_PLAIN
    moves.extend(plain)
    return result


def _read_tags(text: str, end: int, tags: dict[str, str]) -> None:
    """Add the tags of ``text[:end]`` (a record's header) to ``tags``."""
    for name, quoted, bare in _TAG.findall(text, 0, end):
        value = quoted or bare.strip()
        tags[name] = value.replace('\\"', '"') if "\\" in value else value


def _add_comment(line: Line, comment: str) -> None:
    if not comment:
        return
    key = len(line.moves)
    old = line.comments.get(key)
    line.comments[key] = comment if old is None else f"{old}\n{comment}"


# A record ends after a line that is not a tag line, where the next non-blank line
# is a tag line: the start of the next game's header.
_BOUNDARY_BYTES = re.compile(rb"^(?![ \t]*\[)[^\n]*[^\s][ \t\r]*\n(?:[ \t\r]*\n)*(?=[ \t]*\[)", re.M)
_BOUNDARY_TEXT = re.compile(_BOUNDARY_BYTES.pattern.decode(), re.M)
_HEADER_BYTES = re.compile(rb"(?:[ \t]*(?:\[[^\n]*)?\n)*")
_HEADER_TEXT = re.compile(_HEADER_BYTES.pattern.decode())
_TAG_START_BYTES = re.compile(rb"\n[ \t]*\[")
_TAG_START_TEXT = re.compile(_TAG_START_BYTES.pattern.decode())


class _TooLarge:
    """A record longer than :data:`~xqdb.replay.MAX_RECORD_BYTES`, of which only the
    first :data:`~xqdb.replay.KEPT_RECORD_BYTES` were kept: the rest was read past, never
    held."""

    def __init__(self, head: bytes | str, size: int, tail: bytes | str) -> None:
        self.head = head
        self.size = size
        #: What the text read past ends with, as :func:`_tail` gives it.
        self.tail = tail

    def record(self, origin: Origin, encoding: str) -> GameRecord:
        text = self.head if isinstance(self.head, str) else decode(self.head, encoding)[0]
        text = text[:KEPT_RECORD_BYTES]  # characters, as the replay keeps of a decoded one
        header = _HEADER.match(text)
        tags: dict[str, str] = {}
        _read_tags(text, header.end() if header else 0, tags)
        return GameRecord(tags=tags, 
            origin=origin, format=FORMAT, encoding=encoding, raw=text,
            error=too_large_message(self.size),
            error_kind=ErrorKind.RECORD_TOO_LARGE)


def _split(chunks: Iterator[bytes] | Iterator[str], boundary: re.Pattern, base: int = 0,
           limit: int | None = None, first_line: int = 1) -> Iterator[tuple[bytes | str | _TooLarge, int, int]]:
    """Cut a stream of chunks (each of whole lines but the last) into records; yields
    ``(record, offset, line)`` where offset counts bytes (or characters) and line is
    1-based, both of its first non-blank line.

    A record that grows past ``limit`` (default :data:`~xqdb.replay.MAX_RECORD_BYTES`)
    is no longer held: its head is kept, the rest read past up to the next tag line, and
    it comes out as a :class:`_TooLarge`, so memory holds at most ``limit`` whatever the
    file (a single line of hundreds of megabytes).
    """
    limit = MAX_RECORD_BYTES if limit is None else limit
    is_bytes = boundary is _BOUNDARY_BYTES
    # The text is bytes or str, as the stream is; the same all along.
    header: Any
    tag_start: Any
    header, tag_start = (_HEADER_BYTES, _TAG_START_BYTES) if is_bytes else (_HEADER_TEXT,
                                                                          _TAG_START_TEXT)
    newline: Any = b"\n" if is_bytes else "\n"
    pending: Any
    # The chunks of a record are held apart and joined once, when a record may end:
    # adding each to the text so far would copy a record of many megabytes once per chunk.
    parts: list[Any] = []
    size = 0
    start = None  # where the first header ends in the text held, once it does
    offset, line = base, first_line
    chunk: Any
    too_large: _TooLarge | None = None  # the record being read past
    lines = 0  # its newlines
    for chunk in chunks:
        if too_large is not None:
            cut = _boundary_after(too_large.tail, chunk, boundary)
            if cut is None:
                too_large.size += len(chunk)
                lines += chunk.count(newline)
                too_large.tail = _tail(too_large.tail + chunk, newline)
                continue
            too_large.size += cut
            lines += chunk.count(newline, 0, cut)
            yield too_large, offset, line
            offset, line = offset + too_large.size, line + lines
            too_large, chunk = None, chunk[cut:]
        at = size
        before = parts[-1][-1:] if parts else newline[:0]
        parts.append(chunk)
        size += len(chunk)
        if start is None:
            end = header.match(chunk).end()
            if end < len(chunk):
                start = at + end
        # A boundary needs a tag line after the first header: most files of one game
        # have none, and are found so without running the boundary pattern. A tag
        # line's newline may end the chunk before.
        if start is not None:
            window_at = at - len(before)
            if tag_start.search(before + chunk, max(start, at - 1) - window_at) is not None:
                pending = newline[:0].join(parts)
                cut = 0
                for m in boundary.finditer(pending, start):
                    yield from _emit(pending[cut:m.end()], offset, line)
                    offset += m.end() - cut
                    line += pending.count(newline, cut, m.end())
                    cut = m.end()
                rest = pending[cut:]
                parts, size, start = [rest], len(rest), None
                end = header.match(rest).end()
                if end < len(rest):
                    start = end
        if size > limit:
            # What is held is one record (no boundary in it), and too long to hold on.
            held = newline[:0].join(parts)
            body = held.lstrip()
            skipped = len(held) - len(body)
            offset += skipped
            line += held.count(newline, 0, skipped)
            # Bytes enough for the characters kept, whatever the encoding.
            too_large = _TooLarge(body[:_KEPT_HEAD], len(body), _tail(body, newline))
            lines = body.count(newline)
            parts, size, start = [], 0, None
            del held, body
    if too_large is not None:
        yield too_large, offset, line
    elif size:
        yield from _emit(newline[:0].join(parts), offset, line)


#: A line that is a tag line, by its start (as the boundary pattern tells them).
_TAG_LINE_BYTES = re.compile(rb"[ \t]*\[")
_TAG_LINE_TEXT = re.compile(_TAG_LINE_BYTES.pattern.decode())
#: The characters of an unfinished line kept by :func:`_tail`: enough to tell a tag line.
_TAIL_LINE = 256


def _tail(text: Any, newline: Any) -> Any:
    """A short stand-in for ``text`` (bytes or str) that ends as it ends, as far as the
    boundary pattern can tell: ``"x\\n"`` when its last non-blank whole line is not a tag
    line (a record may end after it), then the head of its unfinished last line.

    A record read past is ended, as any other, by a boundary: a tag line after a line that
    is not one. Its next tag line alone would not do: a record too large within its
    header (a tag of megabytes) would leave its other tags and its moves as a game of
    their own, made up.

    >>> _tail(b'[Red "A"]\\n1. h2e2 {a}\\n\\n', b"\\n"), _tail(b'1. h2e2\\n[Red "A"]\\n[Bla', b"\\n")
    (b'x\\n', b'[Bla')
    """
    start = text.rfind(newline) + 1
    whole = text[:start].rstrip()
    last = whole[whole.rfind(newline) + 1:]
    tag_line, mark = (_TAG_LINE_BYTES, b"x\n") if isinstance(text, bytes) else (_TAG_LINE_TEXT,
                                                                                "x\n")
    if not last or tag_line.match(last):
        mark = mark[:0]
    return mark + text[start:start + _TAIL_LINE]


def _boundary_after(tail: Any, chunk: Any, boundary: re.Pattern) -> int | None:
    """Where in ``chunk`` the first record boundary after a text ending as ``tail`` ends
    (see :func:`_tail`), or None. A tag line begun before ``chunk`` (one longer than a
    chunk) starts no record there: it is read past with the rest."""
    for found in boundary.finditer(tail + chunk):
        if found.end() >= len(tail):
            return found.end() - len(tail)
    return None


def _emit(record: bytes | str, offset: int, line: int) -> Iterator[tuple[bytes | str, int, int]]:
    body = record.lstrip()
    if not body:
        return
    skipped = len(record) - len(body)
    if isinstance(record, bytes):
        newlines = record.count(b"\n", 0, skipped)
    else:
        newlines = record.count("\n", 0, skipped)
    yield record, offset + skipped, line + newlines


def _byte_chunks(stream: BinaryIO, head: bytes) -> Iterator[bytes]:
    """The stream in large chunks, each cut after its last newline, or, within a line
    longer than :data:`_LONG_LINE`, at that length (the record it belongs to then holds
    it, up to its limit: see :func:`_split`)."""
    # The pieces of a line are joined once it ends: adding each to the line so far
    # would copy a line of many megabytes (a huge comment) once per piece.
    pieces = [head]
    held = len(head)
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            break
        cut = chunk.rfind(b"\n") + 1
        if cut:
            pieces.append(chunk[:cut])
            yield b"".join(pieces)
            pieces = [chunk[cut:]]
            held = len(pieces[0])
        else:
            pieces.append(chunk)
            held += len(chunk)
            if held >= _LONG_LINE:
                yield b"".join(pieces)
                pieces, held = [], 0
    rest = b"".join(pieces)
    if rest:
        yield rest


def _byte_records(stream: BinaryIO, head: bytes, base: int = 0
                  ) -> Iterator[tuple[bytes | str | _TooLarge, int | None, int]]:
    yield from _split(_byte_chunks(stream, head), _BOUNDARY_BYTES, base)


def _text_records(stream: BinaryIO, head: bytes, encoding: str
                  ) -> Iterator[tuple[bytes | str | _TooLarge, int | None, int]]:
    """UTF-16 files: records are found in the decoded text (byte offsets are not kept)."""
    text = text_stream(stream, head, encoding)

    def chunks() -> Iterator[str]:
        pending = ""
        while True:
            chunk = text.read(_CHUNK)
            if not chunk:
                break
            pending += chunk.replace("\r\n", "\n")
            cut = pending.rfind("\n") + 1
            if not cut and len(pending) >= _LONG_LINE:
                cut = len(pending)  # within a long line (see _byte_chunks)
            if cut:
                yield pending[:cut]
                pending = pending[cut:]
        if pending:
            yield pending

    for record, _, line in _split(chunks(), _BOUNDARY_TEXT):
        if isinstance(record, str):
            record = record.lstrip("\ufeff")
        yield record, None, line


# --- writing ------------------------------------------------------------------------------

#: Tag names the reader takes (others cannot be written as PGN tags).
_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
#: Longest movetext line written, in characters (tokens are never split).
LINE_WIDTH = 80


def write(record: GameRecord) -> str:
    """The PGN text of ``record``, which :func:`read` reads back as the same game.

    Tags are written as they are, in their order; a ``FEN`` tag is added for a record that
    starts from a set-up position, and a ``Format`` tag when the move texts alone would
    not tell their notation (``uci10``, ``san``, ``san-fsf``...). A ``Format`` tag already there is
    set to ``record.notation``. Tag values lose their line breaks (PGN has one line per
    tag), and tags whose names PGN cannot write are left out; a record without tags gets
    an empty ``Event``, since games in a file are told apart by their tags. Comments, NAGs and
    variations are written in place; the result ends the movetext when there is one, and
    a record with neither moves nor result gets ``{}`` for its movetext.

    >>> import io
    >>> rec = GameRecord(Origin("a.pgn"), FORMAT, tags={"Red": 'A "B"'}, notation="iccs",
    ...                  result="1-0")
    >>> rec.mainline.moves.extend(["H2-E2", "H9-G7"])
    >>> rec.mainline.variations.append((1, Line(moves=["H7-E7"])))
    >>> rec.mainline.comments[1] = "central cannon"
    >>> print(write(rec))
    [Red "A \\"B\\""]
    <BLANKLINE>
    1. H2-E2 {central cannon} 1... H9-G7 (1... H7-E7) 1-0
    >>> back = next(read(io.BytesIO(write(rec).encode()), Origin("a.pgn")))
    >>> back.tags, back.moves, back.result, back.mainline.variations[0][1].moves
    ({'Red': 'A "B"'}, ['H2-E2', 'H9-G7'], '1-0', ['H7-E7'])
    """
    tags = dict(record.tags)
    if record.fen and "FEN" not in tags:
        tags["FEN"] = record.fen
    if "Format" in tags or (record.moves and not _reads_as(sniff_moves(record.moves),
                                                         record.notation)):
        tags["Format"] = record.notation
    lines = [f'[{name} "{_tag_value(value)}"]' for name, value in tags.items()
             if _TAG_NAME.fullmatch(name)] or ['[Event ""]']  # a game's first line is a tag
    black_first = (record.fen or "").split()[1:2] == ["b"]
    tokens = _line_tokens(record.mainline, black_first)
    if record.result is not None:
        tokens.append(record.result)
    if not tokens:
        # A position with no moves and no result (a puzzle): an empty comment stands for
        # the movetext, or the next game's tags would be read as this game's.
        tokens.append("{}")
    return "\n".join(lines) + "\n\n" + "\n".join(_wrapped(tokens))


def _reads_as(sniffed: str, notation: str) -> bool:
    """Whether texts sniffed as ``sniffed`` are read as ``notation`` reads them. Never
    for a notation with a twin dialect: its texts can replay in both, as two games."""
    if notation in REGISTRY and REGISTRY[notation].twin is not None:
        return False
    return sniffed == notation or (sniffed in REGISTRY and notation in REGISTRY
                                   and REGISTRY[sniffed].read is REGISTRY[notation].read)


def _tag_value(value: str) -> str:
    return " ".join(value.splitlines()).replace('"', '\\"')


def _comment(text: str) -> str:
    # A brace would end the comment: PGN has no way to write one inside.
    return "{" + text.replace("}", ")") + "}"


@dataclasses.dataclass(slots=True)
class _Writing:
    """A line being written: where it starts and how far it has got."""

    line: Line
    first_ply: int
    """The game ply of the line's first move, less one."""
    index: int = 0
    """The next move to write."""
    numbered: bool = True
    """The next move needs its number: a line's first, or one after a comment or a
    variation."""
    pending: list[Line] = dataclasses.field(default_factory=list)
    """Variations still to write after the move just written."""


def _line_tokens(root: Line, black_first: bool) -> list[str]:
    """The movetext tokens of ``root`` and its variations, ``(`` and ``)`` glued to the
    tokens they enclose."""
    # An explicit stack: records nest variations deeper than Python's recursion limit.
    tokens: list[str] = []
    stack = [_Writing(root, 0)]
    if root.comments.get(0):
        tokens.append(_comment(root.comments[0]))
    while stack:
        top = stack[-1]
        if top.pending:
            variation = top.pending.pop(0)
            top.numbered = True
            stack.append(_Writing(variation, top.first_ply + top.index - 1))
            tokens.append("(")
            if variation.comments.get(0):
                tokens.append(_comment(variation.comments[0]))
            continue
        if top.index == len(top.line.moves):
            stack.pop()
            if stack:
                tokens.append(")")
            continue
        index = top.index
        ply = top.first_ply + index + int(black_first)  # 0-based, counting from a Red move
        if ply % 2 == 0:
            tokens.append(f"{ply // 2 + 1}.")
        elif top.numbered:
            tokens.append(f"{ply // 2 + 1}...")
        tokens.append(top.line.moves[index])
        top.numbered = False
        tokens.extend(f"${nag}" for nag in top.line.nags.get(index + 1, ()))
        if top.line.comments.get(index + 1):
            tokens.append(_comment(top.line.comments[index + 1]))
            top.numbered = True
        top.pending = [v for at, v in top.line.variations if at == index]
        top.index += 1
    return _glued(tokens)


def _glued(tokens: list[str]) -> list[str]:
    """``(`` joined to the token after it and ``)`` to the token before it."""
    out: list[str] = []
    opening = ""
    for token in tokens:
        if token == "(":
            opening += "("
        elif token == ")" and out and not opening:
            out[-1] += ")"
        else:
            out.append(opening + token)
            opening = ""
    if opening:
        out.append(opening)
    return out


def _wrapped(tokens: list[str]) -> list[str]:
    lines: list[str] = []
    current = ""
    for token in tokens:
        if current and len(current) + 1 + len(token) > LINE_WIDTH:
            lines.append(current)
            current = token
        else:
            current = f"{current} {token}" if current else token
    lines.append(current)
    return lines
