"""Plain move lists: an optional FEN, then moves separated by spaces, commas or newlines,
or coordinates with no separator at all (``h2e2h7e7...``), and an optional result.

Games in one file are separated by blank lines, or by a line starting with a FEN. The
notation is sniffed from the moves (coordinates, Chinese or WXF).

>>> import io
>>> from xqdb.formats.record import Origin
>>> data = b"9/3k5/4c4/4N4/9/6R2/9/5p3/4r4/5K3 w, g4g8 d8d9 e6c7, 1-0"
>>> rec = next(read(io.BytesIO(data), Origin("m.txt")))
>>> rec.fen, rec.moves, rec.result, rec.notation
('9/3k5/4c4/4N4/9/6R2/9/5p3/4r4/5K3 w', ['g4g8', 'd8d9', 'e6c7'], '1-0', 'uci')
>>> next(read(io.BytesIO(b"h2e2h7e7h0g2"), Origin("m.txt"))).moves
['h2e2', 'h7e7', 'h0g2']
"""

from __future__ import annotations

import codecs
import dataclasses
import re
from typing import BinaryIO, Iterator

from .encoding import decode, detect_encoding, head_text, text_stream
from ..errors import ErrorKind
from ..notation import sniff as notation_of, sniff_moves
from .movetext import split_coordinates
from .record import GameRecord, Origin
from .tags import normalize_result

FORMAT = "movelist"

_HEAD = 4096
_CHUNK = 1 << 16
_FEN = re.compile(r"^\s*((?:[1-9kabnrcpehKABNRCPEH]{1,9}/){9}[1-9kabnrcpehKABNRCPEH]{1,9}"
                  r"(?:[ \t]*[wbrWBR](?:[ \t]+[-\d]+){0,4}|[wbr](?:--?\d*)?)?)")
_SEPARATORS = re.compile(r"[\s,，、;；]+")
_NUMBER = re.compile(r"^[0-9０-９]+[.．、)]*$")
_NUMBER_PREFIX = re.compile(r"^[0-9０-９]+[.．、)]+")


def sniff(head: bytes, name: str) -> bool:
    """A FEN line or coordinate/Chinese moves and nothing that looks like tags."""
    text = head_text(head).lstrip("\ufeff")
    if not text.strip() or "[" in text[:200] or "<" in text[:200]:
        return False
    rest = text
    fen = _FEN.match(text)
    if fen is not None:
        rest = text[fen.end():]
    tokens = [t for t in _SEPARATORS.split(rest) if t][:12]
    if not tokens:
        return fen is not None
    known = sum(1 for t in tokens if notation_of(t) or split_coordinates(t)
                or normalize_result(t) or _NUMBER.match(t))
    return known >= max(1, len(tokens) * 3 // 4)


def read(stream: BinaryIO, origin: Origin, encoding: str | None = None) -> Iterator[GameRecord]:
    """Yield the games of a move-list file (usually one), one game in memory at a time."""
    head = stream.read(_HEAD)
    file_encoding = encoding or detect_encoding(head)
    if head.startswith(codecs.BOM_UTF8):
        head = head[3:]
    lines = _lines(stream, head, file_encoding, fallback=encoding is None)
    for index, (chunk, line, used) in enumerate(_games(lines)):
        where = dataclasses.replace(origin, index=index, line=line)
        yield parse_game(chunk, where, used)


def _lines(stream: BinaryIO, head: bytes, encoding: str, fallback: bool
           ) -> Iterator[tuple[str, str]]:
    """Decoded lines with the encoding each chunk was decoded with."""
    if encoding.startswith("utf-16"):
        for line in text_stream(stream, head, encoding):
            yield line.lstrip("\ufeff"), encoding
        return
    pending = head
    while True:
        chunk = stream.read(_CHUNK)
        pending += chunk
        cut = pending.rfind(b"\n") + 1 if chunk else len(pending)
        if cut:
            text, used = decode(pending[:cut], encoding, fallback)
            for line in text.splitlines():
                yield line, used
            pending = pending[cut:]
        if not chunk:
            break


def _games(lines: Iterator[tuple[str, str]]) -> Iterator[tuple[str, int, str]]:
    """Split a file into games: at blank lines, or before a line starting with a FEN."""
    current: list[str] = []
    start, used = 1, ""
    for number, (line, encoding) in enumerate(lines, start=1):
        if not line.strip() or (current and _FEN.match(line)):
            if current:
                yield "\n".join(current), start, used
                current = []
            if not line.strip():
                continue
        if not current:
            start, used = number, encoding
        current.append(line)
    if current:
        yield "\n".join(current), start, used


def parse_game(text: str, origin: Origin, encoding: str | None = None) -> GameRecord:
    """Read one game of a move list."""
    record = GameRecord(origin=origin, format=FORMAT, encoding=encoding, raw=text)
    rest = text
    fen = _FEN.match(text)
    if fen is not None:
        record.fen = fen[1].strip()
        rest = text[fen.end():]
    moves = record.mainline.moves
    for token in _SEPARATORS.split(rest):
        if not token or _NUMBER.match(token):
            continue
        result = normalize_result(token)
        if result is not None:
            record.result = result
            break
        token = _NUMBER_PREFIX.sub("", token)
        split = split_coordinates(token)
        if split is not None:
            moves.extend(split)
        else:
            moves.append(token)
    record.notation = sniff_moves(moves)
    if not moves and record.fen is None:
        record.error = "no moves and no FEN found"
        record.error_kind = ErrorKind.NOT_A_GAME
    return record
