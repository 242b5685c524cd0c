"""XQMagic endgame libraries (``.eglib``): one puzzle a line, ``name|FEN`` or
``name|FEN|moves`` with coordinate moves.

Each line is a game from its FEN (a puzzle to solve, with its solution when the moves are
there), its name in the ``Event`` tag, so a library's puzzles of one kind share one.

>>> import io
>>> from xqdb.formats.record import Origin
>>> data = "车的杀法|3a1k3/4a4/9/9/9/4R4/9/9/9/4K4 w - - 0 1|e4e9\\n".encode()
>>> rec = next(read(io.BytesIO(data), Origin("a.eglib")))
>>> rec.tags, rec.fen, rec.moves
({'Event': '车的杀法'}, '3a1k3/4a4/9/9/9/4R4/9/9/9/4K4 w - - 0 1', ['e4e9'])
"""

from __future__ import annotations

import dataclasses
import re
from typing import BinaryIO, Iterator

from .encoding import decode, detect_encoding, head_lines, numbered_lines
from ..errors import ErrorKind
from . import movelist
from .record import GameRecord, Origin

FORMAT = "eglib"

_LINE = re.compile(rb"^([^|\r\n]*)\|[ \t]*((?:[1-9kabnrcpehKABNRCPEH]{1,9}/){9}"
                   rb"[1-9kabnrcpehKABNRCPEH]{1,9}[^|\r\n]*)(?:\|([^\r\n]*))?\r?$")


def sniff(head: bytes, name: str) -> bool:
    """Every complete line of the first bytes is ``name|FEN`` or ``name|FEN|moves``."""
    lines = head_lines(head)
    return bool(lines) and all(_LINE.match(line.lstrip(b"\xef\xbb\xbf")) for line in lines)


def read(stream: BinaryIO, origin: Origin, encoding: str | None = None) -> Iterator[GameRecord]:
    """Yield one game per non-blank line."""
    pending = stream.read(4096)
    file_encoding = encoding or detect_encoding(pending)
    index = 0
    for number, _, line in numbered_lines(stream, pending):
        if number == 1:
            line = line.removeprefix(b"\xef\xbb\xbf")
        if line.strip():
            where = dataclasses.replace(origin, index=index, line=number)
            yield parse_line(line.rstrip(b"\r"), where, file_encoding, encoding is None)
            index += 1


def parse_line(line: bytes, origin: Origin, encoding: str, fallback: bool = True) -> GameRecord:
    """One ``name|FEN|moves`` line as a game from its FEN."""
    text, used = decode(line, encoding, fallback)
    m = _LINE.match(line)
    if m is None:
        record = GameRecord(origin=origin, format=FORMAT, encoding=used, raw=text)
        record.error = f"not a name|FEN line: {' '.join(text.split())[:60]!r}"
        record.error_kind = ErrorKind.BAD_FEN
        return record
    fen = m[2].decode("ascii", "replace").strip()
    # The FEN and moves are a move list's: read them as one, so every layout it reads fits.
    record = movelist.parse_game(f"{fen} {decode(m[3] or b'', used, fallback)[0]}", origin, used)
    record.format, record.raw = FORMAT, text
    name = decode(m[1], used, fallback)[0].strip()
    if name:
        record.tags["Event"] = name
    return record
