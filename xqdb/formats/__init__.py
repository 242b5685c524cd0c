"""Game readers: find the sources a user named, sniff each one's format, stream records.

Every reader yields :class:`GameRecord` objects one at a time and never raises for bad
content: a record it cannot read comes out with ``error`` set. A source that cannot be
opened at all (a refused archive member, an unknown format) also comes out as one
error record, so a batch always goes on and every problem is listed.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "g.pgn")
>>> with open(path, "w", encoding="utf-8") as f:
...     _ = f.write('[Red "A"]\\n1. h2e2 h9g7 *\\n\\n[Red "B"]\\n1. c3c4 *\\n')
>>> [(r.tags["Red"], r.moves, r.origin.line) for r in read_paths([path])]
[('A', ['h2e2', 'h9g7'], 1), ('B', ['c3c4'], 4)]
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from typing import BinaryIO, Iterable, Iterator, Protocol, runtime_checkable

from ..errors import BadArgumentError, ErrorKind
from . import cbf, cbl2001, cbr, dhtmlxq, dpxq_text, eglib, epd, movelist, pgn, wxf_file, xqf
from .encoding import detect_encoding, normalize_encoding, rewound
from .record import GameRecord, Origin
from .sources import READ_ERRORS, Skipped, Source, SourceError, iter_sources, read_failure, walk

log = logging.getLogger(__name__)

_HEAD = 4096


@runtime_checkable
class Reader(Protocol):
    """What a format module provides: its name, a sniffer and a record stream.

    The seam for a new format: a module with these three names, added to :data:`READERS`.
    ``read`` never raises for bad content; a record it cannot read comes out with
    ``error`` set.
    """

    FORMAT: str
    """The format's name (``--format``, ``GameRecord.format``)."""

    def sniff(self, head: bytes, name: str) -> bool:
        """Whether a stream whose first 4096 bytes are ``head`` and whose file is called
        ``name`` is in this format."""

    def read(self, stream: BinaryIO, origin: Origin, encoding: str | None = None
             ) -> Iterator[GameRecord]:
        """Yield the records of ``stream`` one at a time (``encoding``: overrides detection)."""


#: The format readers, in sniffing order: binary magic numbers first, then text formats
#: from the most to the least specific.
READERS: tuple[Reader, ...] = (xqf, cbr, cbl2001, cbf, dhtmlxq, wxf_file, dpxq_text, pgn, eglib,
                                epd, movelist)


def formats() -> list[str]:
    """Names of the formats that can be read (for ``--format``)."""
    return [reader.FORMAT for reader in READERS]


def reader_for(format: str) -> Reader:
    """The reader of ``format``; raises ``ValueError`` for an unknown name."""
    for reader in READERS:
        if reader.FORMAT == format:
            return reader
    raise ValueError(f"unknown format {format!r} (known: {', '.join(formats())})")


def sniff_format(head: bytes, name: str) -> str | None:
    """The format of a stream from its first 4096 bytes and its name, or ``None``."""
    for reader in READERS:
        if reader.sniff(head, name):
            return reader.FORMAT
    return None


#: Archives xqdb does not open, by magic number and by suffix.
_ARCHIVE_MAGIC = ((b"Rar!\x1a\x07", "a RAR archive"), (b"7z\xbc\xaf\x27\x1c", "a 7z archive"),
                  (b"MSCF\x00\x00\x00\x00", "a cab archive"))
_ARCHIVE_SUFFIX = {".rar": "a RAR archive", ".7z": "a 7z archive", ".cab": "a cab archive",
                   ".iso": "an ISO image", ".arj": "an ARJ archive", ".lzh": "an LZH archive"}


def unopened_archive(head: bytes, name: str) -> str | None:
    """What kind of archive xqdb does not open ``head`` starts, or ``name`` ends like.

    >>> unopened_archive(b"Rar!\\x1a\\x07\\x00", "games.bin"), unopened_archive(b"", "a.7Z")
    ('a RAR archive', 'a 7z archive')
    >>> unopened_archive(b"[Event", "a.pgn") is None
    True
    """
    for magic, kind in _ARCHIVE_MAGIC:
        if head.startswith(magic):
            return kind
    suffix = name[name.rfind("."):].lower() if "." in name else ""
    return _ARCHIVE_SUFFIX.get(suffix)


def not_a_known_format() -> str:
    """The error of a source no reader claims.

    >>> not_a_known_format()[:40]
    'not a known format (none of xqf, cbr, cb'
    """
    return f"not a known format (none of {', '.join(formats())}; use --format to say which)"


def read_source(source: Source, format: str | None = None, encoding: str | None = None,
                stream: BinaryIO | None = None) -> Iterator[GameRecord]:
    """Yield the records of one source, sniffing its format unless ``format`` is given.

    ``stream``, when given, is the source's bytes already opened (an importer that hashed
    them in memory hands them over, so they are not read twice); it is closed here.
    """
    # Several members of one name are told apart in every message.
    origin = Origin(path=source.display_path, member=source.member
                    if source.member_index is None else source.shown_member_copy)
    if stream is None:
        try:
            stream = source.open()
        except READ_ERRORS as exc:
            yield _source_error(origin, f"cannot open: {read_failure(exc)}")
            return
    try:
        head = stream.read(_HEAD)
        archive = format is None and unopened_archive(head, source.name)
        if archive:
            yield _source_error(origin, f"{archive}, which xqdb does not open (it opens zip "
                                "and tar): extract it (unrar x, 7z x or bsdtar -xf) and read "
                                "the folder", b"", ErrorKind.UNREADABLE_SOURCE)
            return
        fmt = format or sniff_format(head, source.name)
        if fmt is None:
            yield _source_error(origin, not_a_known_format(), head, ErrorKind.UNKNOWN_FORMAT)
            return
        reader = reader_for(fmt)
        if isinstance(stream, io.BytesIO):
            # Bytes in memory rewind for free; an archive member could only rewind by
            # inflating again, so it replays its head through a wrapper instead.
            stream.seek(0)
        else:
            stream = rewound(stream, head)
        count = 0
        try:
            for record in reader.read(stream, origin, encoding):
                count += 1
                record.drop_deep_variations()
                yield record
        except Exception as exc:  # a reader bug must not end the user's batch
            where = Origin(origin.path, origin.member, index=count)
            yield _source_error(where, f"{fmt} reader failed after {count} records: "
                                f"{type(exc).__name__}: {exc}")
    except READ_ERRORS as exc:
        yield _source_error(origin, f"cannot read: {read_failure(exc)}")
    finally:
        stream.close()


@dataclass(frozen=True)
class Splitting:
    """How a big source is read in byte ranges: its format, the encoding detected from
    its head, and the offset and line of each of its records (see :func:`splitting`)."""

    encoding: str
    starts: Iterator[tuple[int, int]]
    format: str = pgn.FORMAT


#: The formats a big file can be read in ranges of, by the module that reads a range.
_RANGED = {pgn.FORMAT: pgn, epd.FORMAT: epd}


def splitting(source: Source, stream: BinaryIO, format: str | None = None,
              encoding: str | None = None) -> Splitting | None:
    """How ``source`` (opened as ``stream``, read from its start) can be read in ranges
    that begin at record starts, or ``None`` when it cannot: a format other than PGN and
    EPD (as sniffed, or ``format``), or PGN in UTF-16. The starts are found as the reader
    would find them, holding one record at a time, from ``stream``, which the caller
    closes.
    """
    head = stream.read(_HEAD)
    if format is None and unopened_archive(head, source.name):
        return None
    fmt = format or sniff_format(head, source.name)
    if fmt == pgn.FORMAT and pgn.splits(head, encoding):
        return Splitting(encoding or detect_encoding(head),
                         pgn.record_starts(rewound(stream, head)))
    if fmt == epd.FORMAT:
        return Splitting(epd.file_encoding(head, encoding),
                         epd.record_starts(rewound(stream, head)), epd.FORMAT)
    return None


def read_range(source: Source, stream: BinaryIO, index: int, offset: int, line: int,
               file_encoding: str, encoding: str | None = None,
               format: str = pgn.FORMAT) -> Iterator[GameRecord]:
    """Yield the records of a byte range of ``source`` (a file of ``format`` that
    :func:`splitting` cuts), whose bytes ``stream`` holds, and which begins at the record
    numbered ``index`` (0-based, in the whole file), at byte ``offset`` and ``line``:
    records are numbered and placed as in the whole file. Like :func:`read_source`, a
    reader that breaks ends with an error record; ``stream`` is closed here.
    """
    origin = Origin(source.display_path, source.member if source.member_index is None
                    else source.shown_member_copy, index, offset, line)
    count = 0
    try:
        for record in _RANGED[format].read_range(stream, origin, file_encoding, encoding):
            count += 1
            record.drop_deep_variations()
            yield record
    except READ_ERRORS as exc:
        yield _source_error(origin, f"cannot read: {read_failure(exc)}")
    except Exception as exc:  # a reader bug must not end the user's batch
        where = Origin(origin.path, origin.member, index=index + count)
        yield _source_error(where, f"{format} reader failed after {index + count} "
                            f"records: {type(exc).__name__}: {exc}")
    finally:
        stream.close()


def read_paths(paths: Iterable[str], format: str | None = None,
               encoding: str | None = None) -> Iterator[GameRecord]:
    """Yield the records of every source under ``paths``; refused sources come out as
    error records naming the archive and member."""
    for item in walk(paths):
        if isinstance(item, SourceError):
            yield _refused(item)
        elif isinstance(item, Skipped):
            log.warning("%s", item)
        elif item.is_note:
            log.info("%s: notes, not game records: skipped", item)
        else:
            yield from read_source(item, format, encoding)


#: The ``format`` of a record that stands for a whole source failing (see :func:`is_source_failure`).
SOURCE_FAILURE = "unknown"


def is_source_failure(record: GameRecord) -> bool:
    """Whether ``record`` is no game but says why its source, from this record on, could
    not be read: unknown bytes, a refused member, a reader that broke down.

    >>> [is_source_failure(r) for r in read_paths(["no/such/file.pgn"])]
    [True]
    """
    return record.format == SOURCE_FAILURE


def _source_error(origin: Origin, reason: str, raw: bytes = b"",
                  kind: ErrorKind = ErrorKind.UNREADABLE_SOURCE) -> GameRecord:
    return GameRecord(origin=origin, format=SOURCE_FAILURE, error=reason, error_kind=kind,
                      raw=raw)


def _refused(error: SourceError) -> GameRecord:
    return _source_error(Origin(path=error.path or "?", member=error.member), str(error))

__all__ = [
    "READERS", "Reader", "GameRecord", "Origin", "Skipped", "Source", "SourceError", "formats",
    "is_source_failure", "iter_sources", "not_a_known_format", "read_paths", "read_source",
    "reader_for", "sniff_format",
]


def checked_overrides(format: str | None, encoding: str | None
                      ) -> tuple[str | None, str | None]:
    """``format`` and ``encoding`` as given to ``read`` or ``import``, checked (the encoding
    by its codec's name); raises :class:`~xqdb.errors.BadArgumentError` for a name no reader
    or codec knows.

    >>> checked_overrides("pgn", "GB2312")
    ('pgn', 'gb18030')
    >>> checked_overrides("bogus", None)
    Traceback (most recent call last):
    ...
    xqdb.errors.BadArgumentError: unknown format 'bogus'
    """
    if format is not None and format not in formats():
        raise BadArgumentError(f"unknown format {format!r}", "known: " + ", ".join(formats()))
    if encoding is not None:
        try:
            encoding = normalize_encoding(encoding)
        except ValueError as exc:
            raise BadArgumentError(str(exc)) from None
    return format, encoding
