"""EPD position files: one FEN per line, optionally followed by ``; name``.

Each line is a record with a start position and no moves (an endgame study or a
puzzle). xqwizard's files write the name twice, ``GBK|Big5``, on the same line, so
each half is decoded on its own: ``Name`` holds the first (GBK, the file's encoding
unless it is UTF-8), ``NameBig5`` the second.

>>> import io
>>> from xqdb.formats.record import Origin
>>> data = "r4k3/9/9/9/9/4R4/9/9/9/4K4 w - - 0 1 ; 01.对面笑|".encode("gbk") + "01.對面笑".encode("big5")
>>> rec = next(read(io.BytesIO(data), Origin("a.epd")))
>>> rec.fen, rec.tags
('r4k3/9/9/9/9/4R4/9/9/9/4K4 w - - 0 1', {'Name': '01.对面笑', 'NameBig5': '01.對面笑'})
"""

from __future__ import annotations

import dataclasses
import re
from typing import BinaryIO, Iterator

from .encoding import decode, detect_encoding, head_lines, numbered_lines
from ..errors import ErrorKind
from .record import GameRecord, Origin

FORMAT = "epd"

_HEAD = 4096
_FEN_LINE = re.compile(rb"^\s*((?:[1-9kabnrcpehKABNRCPEH]{1,9}/){9}[1-9kabnrcpehKABNRCPEH]{1,9}"
                       rb"(?:[ \t]*[wbr](?:[ \t]+[-\d]+){0,4}|[wbr](?:--?\d*)?)?)[ \t]*(?:;(.*))?$")


def sniff(head: bytes, name: str) -> bool:
    """Every complete line of the first bytes is a FEN, and there are moves nowhere."""
    lines = head_lines(head)
    if not lines:
        return False
    return all(_FEN_LINE.match(line.rstrip(b"\r")) for line in lines) and (
        name.lower().endswith(".epd") or any(b";" in line for line in lines) or len(lines) > 1)


def read(stream: BinaryIO, origin: Origin, encoding: str | None = None) -> Iterator[GameRecord]:
    """Yield one record per non-blank line."""
    head = stream.read(_HEAD)
    yield from _records(numbered_lines(stream, head), origin, file_encoding(head, encoding),
                        encoding is None)


def file_encoding(head: bytes, encoding: str | None = None) -> str:
    """The encoding a file starting with ``head`` is read in (``encoding``, the user's,
    if given). Names are too short to tell GBK from Big5 by their characters; xqwizard
    writes GBK first, so a file that is not UTF-8 is read as GB18030.

    >>> file_encoding(b"9/9 w ; a"), file_encoding("9/9 w ; 对".encode("gbk"))
    ('utf-8', 'gb18030')
    """
    return encoding or ("utf-8" if detect_encoding(head) == "utf-8" else "gb18030")


def record_starts(stream: BinaryIO) -> Iterator[tuple[int, int]]:
    """Byte offset and 1-based line of every record (non-blank line) of an EPD stream:
    :func:`read_range` from any of them on reads the records :func:`read` reads there.

    >>> import io
    >>> list(record_starts(io.BytesIO(b"9/9 w\\n\\n9/9 b\\n")))
    [(0, 1), (7, 3)]
    """
    for number, offset, line in numbered_lines(stream):
        if line.strip():
            yield offset, number


def read_range(stream: BinaryIO, origin: Origin, file_encoding: str,
               encoding: str | None = None) -> Iterator[GameRecord]:
    """Yield the records of a byte range of an EPD file that begins at a record start
    (see :func:`record_starts`): ``origin`` gives the range's first record number, byte
    offset and line in the whole file, so records are numbered and placed as :func:`read`
    of the whole file would; ``file_encoding`` is :func:`file_encoding` of the file's head.
    """
    lines = numbered_lines(stream, first_line=origin.line or 1, offset=origin.offset or 0)
    yield from _records(lines, origin, file_encoding, encoding is None, origin.index)


def _records(lines: Iterator[tuple[int, int, bytes]], origin: Origin, file_encoding: str,
             fallback: bool, index: int = 0) -> Iterator[GameRecord]:
    for number, offset, line in lines:
        if line.strip():
            where = dataclasses.replace(origin, index=index, line=number, offset=offset)
            yield parse_line(line.rstrip(b"\r"), where, file_encoding, fallback)
            index += 1


def parse_line(line: bytes, origin: Origin, encoding: str, fallback: bool = True) -> GameRecord:
    """One EPD line as a record with a start position and no moves."""
    text, used = decode(line, encoding, fallback)
    record = GameRecord(origin=origin, format=FORMAT, encoding=used, raw=text)
    m = _FEN_LINE.match(line)
    if m is None:
        record.error = f"not a FEN line: {' '.join(text.split())[:60]!r}"
        record.error_kind = ErrorKind.BAD_FEN
        return record
    record.fen = m[1].decode("ascii").strip()
    if m[2] and m[2].strip():
        first, bar, second = m[2].strip().partition(b"|")
        record.tags["Name"] = decode(first, used, fallback)[0].strip()
        if bar and second.strip():
            # The second half is the same name in the other Chinese encoding.
            other = "big5" if used == "gb18030" else "gb18030"
            record.tags["NameBig5" if other == "big5" else "NameGBK"] = \
                decode(second, other, fallback)[0].strip()
    return record
