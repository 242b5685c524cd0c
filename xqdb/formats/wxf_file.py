"""The WXF file format, as PlayOK and XieXie save a game: a ``FORMAT WXF`` line, tag
lines of a key and a value, then the moves in WXF notation between ``START{`` and ``}END``.

A player's line holds ``name ; rating ;;`` and the event's ``name ; time control``; so
``RED`` gives the ``Red`` and ``RedElo`` tags, ``EVENT`` the ``Event`` and
``TimeControl`` tags. ``RESULT``, ``DATE`` and ``FEN`` give ``Result``, ``Date`` and the
start position; any other key is kept as a tag of its own name, capitalised. The moves
are read as PGN move text (numbers, ``!`` and ``?`` marks, comments in braces).

>>> import io
>>> from xqdb.formats.record import Origin
>>> data = b"FORMAT WXF\\nRED  A ; 1200 ;;\\nRESULT 1-0\\nSTART{\\n 1. C2.5 h8+7\\n}END\\n"
>>> rec = next(read(io.BytesIO(data), Origin("g.wxf")))
>>> rec.tags, rec.moves, rec.result
({'Red': 'A', 'RedElo': '1200', 'Result': '1-0'}, ['C2.5', 'h8+7'], '1-0')
"""

from __future__ import annotations

import re
from typing import BinaryIO, Iterator

from .encoding import decode, detect_encoding, head_text
from ..errors import ErrorKind
from . import pgn
from .record import GameRecord, Origin
from .tags import normalize_result

FORMAT = "wxf-file"

_MAX_BYTES = 1 << 22
_MAGIC = re.compile(r"^\s*FORMAT[ \t]+WXF\b", re.I)
_LINE = re.compile(r"^[ \t]*([A-Za-z][A-Za-z_]*)[ \t]*(.*?)[ \t]*$")
_MOVES = re.compile(r"START\s*\{(.*?)\}\s*END", re.S)
#: Keys whose value is ``first ; second``, and the tags the two parts go to.
_SPLIT = {"RED": ("Red", "RedElo"), "BLACK": ("Black", "BlackElo"),
          "EVENT": ("Event", "TimeControl")}
_NAMED = {"RESULT": "Result", "DATE": "Date", "FEN": "FEN"}


def sniff(head: bytes, name: str) -> bool:
    """The file starts with ``FORMAT WXF``.

    >>> sniff(b"FORMAT  WXF\\nRED a;;;", "g.wxf"), sniff(b"[Event", "g.pgn")
    (True, False)
    """
    # Bytes first: this runs on every file, and decoding a head costs more than a look.
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:6].upper()
    if start != b"FORMAT" and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    return _MAGIC.match(head_text(head).lstrip("\ufeff")) is not None


def read(stream: BinaryIO, origin: Origin, encoding: str | None = None) -> Iterator[GameRecord]:
    """Yield the one game of a WXF file."""
    data = stream.read(_MAX_BYTES)
    text, used = decode(data, encoding or detect_encoding(data[:4096]), encoding is None)
    yield parse_game(text.lstrip("\ufeff"), origin, used)


def parse_game(text: str, origin: Origin, encoding: str | None = None) -> GameRecord:
    """Read a WXF file's text into a record."""
    moves = _MOVES.search(text)
    header = text[:moves.start()] if moves else text
    tags: dict[str, str] = {}
    for line in header.splitlines()[1:]:  # the first is FORMAT WXF
        m = _LINE.match(line)
        if m is None:
            continue
        key, value = m[1].upper(), m[2]
        if key in _SPLIT:
            parts = [p.strip() for p in value.split(";")]
            for tag, part in zip(_SPLIT[key], parts):
                if part:
                    tags[tag] = part
        elif value:
            tags[_NAMED.get(key, key.capitalize())] = value
    body = moves[1] if moves else ""
    record = pgn.parse_record(body, origin, encoding)
    record.format, record.raw = FORMAT, text
    record.tags = tags
    record.fen = tags.get("FEN") or None
    record.result = normalize_result(tags.get("Result")) or record.result
    if record.error_kind is ErrorKind.NOT_A_GAME and (tags or record.fen):
        record.error = None  # a position, or a game's tags with no moves yet
        record.error_kind = ErrorKind.UNREADABLE_RECORD
    if moves is None and record.error is None:
        record.error = "no START{ ... }END block of moves"
        record.error_kind = ErrorKind.NOT_A_GAME
    return record
