"""Text encodings of game files: detect one per file, decode one record at a time.

Real collections mix UTF-8 (with or without a BOM), GBK/GB18030 (xqbase, XQStudio
exports), Big5 (Taiwanese and Hong Kong sites) and the odd UTF-16 file. The two Chinese
double-byte encodings overlap so much that strict decoding alone cannot tell them apart:
most Big5 bytes are also valid GBK. What separates them is meaning: decoded the right
way, a game file is full of the few characters Xiangqi records use (炮, 進, 马, 车...).

>>> detect_encoding("1. 炮二平五 馬８進７".encode("big5"))
'big5'
>>> detect_encoding("1. 炮二平五 马８进７".encode("gbk"))
'gb18030'
>>> detect_encoding(b"\\xef\\xbb\\xbf[Event]")
'utf-8'
"""

from __future__ import annotations

import codecs
import functools
import io
from collections.abc import Iterator
from typing import Any, BinaryIO, cast

#: Characters that fill Xiangqi records (pieces, directions, numerals, results, tags)
#: in simplified and traditional forms; counting them tells a right decoding from a wrong one.
_XIANGQI_CHARS = "车車马馬进進平兵"

#: Encodings tried, in order, when a record does not decode with its file's encoding.
FALLBACKS = ("utf-8", "gb18030", "big5", "cp950", "big5hkscs")

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def bom_encoding(head: bytes) -> str | None:
    """The encoding a byte-order mark (or a UTF-16 NUL pattern) announces, if any."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    sample = head[:200]
    if len(sample) >= 4:
        # ASCII text in UTF-16 without a BOM: every other byte is NUL.
        if sample[1::2].count(0) > len(sample) * 0.4 and not sample[0::2].count(0):
            return "utf-16-le"
        if sample[0::2].count(0) > len(sample) * 0.4 and not sample[1::2].count(0):
            return "utf-16-be"
    return None


def _score(text: str) -> int:
    return sum(map(text.count, _XIANGQI_CHARS))


@functools.lru_cache(maxsize=32)
def detect_encoding(head: bytes) -> str:
    """Guess the encoding of a file from its first bytes.

    Returns ``utf-8`` (a BOM is stripped when decoding), ``utf-16``, ``gb18030`` or
    ``big5``. Pure ASCII counts as ``utf-8``.
    """
    named = bom_encoding(head)
    if named is not None:
        return named
    try:
        head.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as exc:
        # A multi-byte character cut at the end of the sample is still UTF-8.
        if exc.start >= len(head) - 3 and exc.reason == "unexpected end of data":
            return "utf-8"
    try:
        big5 = head.decode("big5")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 1:
            return "gb18030"
        big5 = head[:exc.start].decode("big5")  # a character cut at the end
    # Both decode: most Big5 byte pairs are also GBK, but GBK text rarely decodes as
    # Big5, so Big5 wins unless the GBK reading has more Xiangqi characters.
    gbk = head.decode("gb18030", errors="replace")
    return "gb18030" if _score(gbk) > _score(big5) else "big5"


def decode(data: bytes, encoding: str, fallback: bool = True) -> tuple[str, str]:
    """Decode ``data`` as ``encoding``, falling back to the other encodings seen in
    game files when it does not fit; returns ``(text, encoding used)``.

    Bytes that fit no encoding become U+FFFD so a record is never lost: its move
    texts then fail replay with the bad text named. With ``fallback=False`` (the user
    named the encoding) only ``encoding`` is used.

    >>> decode("炮二平五".encode("gbk"), "utf-8")
    ('炮二平五', 'gb18030')
    """
    if encoding.startswith("utf-8") and data.startswith(codecs.BOM_UTF8):
        data = data[3:]
    try:
        return data.decode(encoding), encoding
    except (UnicodeDecodeError, LookupError):
        if not fallback and _known(encoding):
            return data.decode(encoding, errors="replace"), encoding
    for name in FALLBACKS:
        if name != encoding:
            try:
                return data.decode(name), name
            except UnicodeDecodeError:
                continue
    return data.decode(encoding if _known(encoding) else "utf-8", errors="replace"), encoding


def _known(encoding: str) -> bool:
    try:
        codecs.lookup(encoding)
    except LookupError:
        return False
    return True


def normalize_encoding(name: str) -> str:
    """The codec name for a user's ``--encoding`` (``gbk`` reads as GB18030, a superset).

    >>> normalize_encoding("GBK"), normalize_encoding("utf8")
    ('gb18030', 'utf-8')
    """
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        raise ValueError(f"unknown encoding {name!r}") from None
    if codec in ("gbk", "gb2312", "gb18030"):
        return "gb18030"
    if codec in ("utf-8-sig",):
        return "utf-8"
    if codec in ("utf-16-le", "utf-16-be", "utf-16"):
        return codec
    return codec


def ascii_view(head: bytes) -> str:
    """The first bytes with their ASCII characters readable, cheaply: enough to look for
    ASCII markers (``[Event``, ``[DhtmlXQ``) in any encoding but UTF-16.

    >>> "[DhtmlXQ" in ascii_view("[DhtmlXQ_title]中".encode("utf-16"))
    True
    """
    if bom_encoding(head) is not None and not head.startswith(codecs.BOM_UTF8):
        return head_text(head)
    return head.decode("latin-1")


@functools.lru_cache(maxsize=8)
def head_text(head: bytes) -> str:
    """The first bytes of a file as text, good enough for format sniffing."""
    encoding = detect_encoding(head)
    if encoding == "utf-8":
        encoding = "utf-8-sig"
    return head.decode(encoding, errors="replace")


def head_lines(head: bytes) -> list[bytes]:
    """The non-blank lines of a file's first bytes that are whole (the last may be cut
    off), or, in a head of one line, that line: what a line-per-record format sniffs.

    >>> head_lines(b"a|1\\n\\nb|2\\nc|"), head_lines(b"a|1"), head_lines(b"\\n\\n")
    ([b'a|1', b'b|2'], [b'a|1'], [])
    """
    lines = head.split(b"\n")
    return [line for line in lines[:-1] if line.strip()] or [line for line in lines if line.strip()]


def numbered_lines(stream: BinaryIO, head: bytes = b"", chunk_size: int = 1 << 16,
                   first_line: int = 1, offset: int = 0) -> Iterator[tuple[int, int, bytes]]:
    """``(line number, offset, line)`` for each line of ``stream``, whose first bytes
    ``head`` were already read; lines keep a ``\\r`` before their ``\\n``, and are read a
    chunk at a time so that a big file is never held whole. A stream that holds a part of
    a file from a line start on gives that line's number and offset in the whole file.

    >>> import io
    >>> list(numbered_lines(io.BytesIO(b"b\\r\\n\\nc"), b"a"))
    [(1, 0, b'ab\\r'), (2, 4, b''), (3, 5, b'c')]
    >>> list(numbered_lines(io.BytesIO(b"c"), first_line=3, offset=5))
    [(3, 5, b'c')]
    """
    pending, number = head, first_line - 1
    while True:
        chunk = stream.read(chunk_size)
        pending += chunk
        lines = pending.split(b"\n")
        pending = lines.pop() if chunk else b""
        for line in lines:
            number += 1
            yield number, offset, line
            offset += len(line) + 1
        if not chunk:
            return


def text_stream(stream: BinaryIO, head: bytes, encoding: str) -> io.TextIOWrapper:
    """A text view of ``stream`` whose first bytes ``head`` were already read, for the
    encodings whose lines cannot be found in the bytes (UTF-16)."""
    if encoding == "utf-16" and not head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16-le"  # named by the user, but with no BOM to tell the byte order
    # A RawIOBase is all BufferedReader needs; typeshed asks for a narrower protocol.
    joined = io.BufferedReader(cast(Any, _Prepended(head, stream)))
    return io.TextIOWrapper(joined, encoding=encoding, errors="replace", newline="")


def rewound(stream: BinaryIO, head: bytes) -> BinaryIO:
    """``stream`` as if its first bytes ``head`` had not been read (no seek needed, so
    a compressed archive member is not inflated twice)."""
    return io.BufferedReader(cast(Any, _Prepended(head, stream)), 1 << 16)


class _Prepended(io.RawIOBase):
    """A stream whose first bytes were already read: give them back first."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = head
        self._rest = rest

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            self._rest.close()
        super().close()

    def readinto(self, buffer: Any) -> int:  # a memoryview, from BufferedReader
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)
