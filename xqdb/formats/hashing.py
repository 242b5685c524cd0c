"""A source's sha256, taken from the same single pass that reads it.

An import stores each source's sha256 to recognise it the next time, so the bytes would
be read twice: once to hash, once to parse. :func:`open_hashed` reads them once. A small
source is read into memory and hashed there; a big one is hashed as the reader streams
it; and when the hash decides whether to read at all (a source stored before under the
same name and size), it is hashed first and not read if unchanged.

>>> import hashlib, os, tempfile
>>> from xqdb.formats.sources import Source
>>> path = os.path.join(tempfile.mkdtemp(), "a.pgn")
>>> with open(path, "wb") as f:
...     _ = f.write(b"1. h2e2 h9g7 *")
>>> stream, digest = open_hashed(Source(path, None, 14))
>>> stream.read(), digest.hexdigest() == hashlib.sha256(b"1. h2e2 h9g7 *").hexdigest()
(b'1. h2e2 h9g7 *', True)
>>> open_hashed(Source(path, None, 14), known=digest.hexdigest())[0] is None
True
"""

from __future__ import annotations

import hashlib
import io
from typing import Any, BinaryIO, cast

from .sources import SentSource, Source

#: A source up to this size is read into memory whole, hashed, and read from there.
KEEP_BYTES = 1 << 20
_BLOCK = 1 << 20


def open_hashed(source: Source, known: str | None = None) -> tuple[BinaryIO | None, Any]:
    """The source's bytes to read, and the sha256 that covers them once they are read.

    ``known`` is the sha256 stored for a source of the same name and size: when the
    bytes still hash to it, the stream is ``None`` (the source is unchanged, and skipped
    unread). Raises ``OSError`` or :class:`~xqdb.formats.sources.SourceError` when the
    source cannot be opened.
    """
    if source.size <= KEEP_BYTES:
        with source.open() as stream:
            content = stream.read()
        digest = hashlib.sha256(content)
        if digest.hexdigest() == known:
            return None, digest
        return io.BytesIO(content), digest
    if known is not None:
        digest = hashlib.sha256()
        with source.open() as stream:
            for block in iter(lambda: stream.read(_BLOCK), b""):
                digest.update(block)
        if digest.hexdigest() == known:
            return None, digest
    hashing = HashingReader(source.open())
    return cast(BinaryIO, hashing), hashing.digest


class _Passing(io.RawIOBase):
    """A read-only stream over another, whose subclass's ``read`` decides what passes."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer)) or b""
        buffer[:len(data)] = data
        return len(data)


class HashingReader(_Passing):
    """A read-only stream that hashes what passes through it; closing it hashes the rest
    (a reader may stop before the end), so :attr:`digest` always covers the whole source.

    >>> reader = HashingReader(io.BytesIO(b"abcdef"))
    >>> reader.read(2)
    b'ab'
    >>> reader.close()
    >>> reader.digest.hexdigest() == hashlib.sha256(b"abcdef").hexdigest()
    True
    """

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.digest = hashlib.sha256()

    def read(self, size: int | None = -1) -> bytes:
        data = self._stream.read(-1 if size is None else size)
        self.digest.update(data)
        return data

    def close(self) -> None:
        if not self.closed:
            try:
                for block in iter(lambda: self._stream.read(_BLOCK), b""):
                    self.digest.update(block)
            finally:
                self._stream.close()
        super().close()


def open_range(source: Source, start: int, stop: int) -> HashingReader:
    """The bytes ``start`` to ``stop`` of the file of ``source``, hashed as they are read
    (the hash covers the whole range once the stream is closed), held a block at a time
    whatever the range's size. A source that carries its bytes (sent to a cluster worker)
    carries only the range's.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.pgn")
    >>> with open(path, "wb") as f:
    ...     _ = f.write(b"0123456789")
    >>> stream = open_range(Source(path, None, 10), 2, 5)
    >>> stream.read(), stream.read()
    (b'234', b'')
    """
    if isinstance(source, SentSource):
        return HashingReader(source.open())
    stream = open(source.path, "rb")
    stream.seek(start)
    return HashingReader(cast(BinaryIO, _Bounded(stream, stop - start)))


class _Bounded(_Passing):
    """The next ``size`` bytes of a stream, then its end."""

    def __init__(self, stream: BinaryIO, size: int) -> None:
        self._stream = stream
        self._left = size

    def read(self, size: int | None = -1) -> bytes:
        want = self._left if size is None or size < 0 else min(size, self._left)
        data = self._stream.read(want) if want else b""
        self._left -= len(data)
        return data

    def close(self) -> None:
        if not self.closed:
            self._stream.close()
        super().close()
