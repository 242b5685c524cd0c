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
    # Names are too short to tell GBK from Big5 by their characters; xqwizard writes
    # GBK first, so a file that is not UTF-8 is read as GB18030.
    file_encoding = encoding or ("utf-8" if detect_encoding(head) == "utf-8" else "gb18030")
    index = 0
    for number, offset, line in numbered_lines(stream, head):
        if line.strip():
            where = dataclasses.replace(origin, index=index, line=number, offset=offset)
            yield parse_line(line.rstrip(b"\r"), where, file_encoding, encoding is None)
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
