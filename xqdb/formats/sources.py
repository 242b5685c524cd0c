"""Where records come from: files, folders, archive members and standard input.

A :class:`Source` names one stream of bytes by its path and archive member alone, so it
pickles to a worker process, which re-opens it there. :func:`iter_sources` expands what
a user typed into sources: folders recursively in sorted order, ``.zip`` (member names
in UTF-8 or GBK), ``.tar``, ``.tar.gz`` and ``-`` for standard input.

Archive members that would escape a folder (``../x``, ``/etc/x``, links) or expand past
a sane size are refused with a :class:`SourceError` naming the archive and member.
Inside a folder, what is not a regular file (a FIFO, a device, a socket) and links that
lead out of the folder are passed over as :class:`Skipped`: reading a FIFO waits
forever, and a link may point anywhere (``/etc/passwd``). ``follow_links=True`` follows
every link, as a user may ask.

>>> import tempfile, os
>>> folder = tempfile.mkdtemp()
>>> with open(os.path.join(folder, "a.pgn"), "w") as f:
...     _ = f.write("1. h2e2 h9g7 *")
>>> [(os.path.basename(s.path), s.member, s.size) for s in iter_sources([folder])]
[('a.pgn', None, 14)]
"""

from __future__ import annotations

import atexit
import io
import os
import posixpath
import shutil
import stat
import sys
import tarfile
import tempfile
import threading
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import BinaryIO, Iterable, Iterator

from ..errors import closest

#: Largest member an archive may expand to (bytes). Game files are kilobytes; a member
#: larger than this is a mistake or an attack, not a game collection.
MAX_MEMBER_SIZE = 1 << 30
#: Largest expansion ratio accepted for a member bigger than :data:`MEMBER_RATIO_FLOOR`
#: bytes. Text game files compress about 3 to 10 times; a zip bomb compresses a thousand
#: times. (A member of 1 MiB of NULs packs into 1 KiB: thousands of them, each stored as a
#: record of a megabyte, drove an import's memory past 700 MB.)
MAX_RATIO = 200
MEMBER_RATIO_FLOOR = 64 << 10
RATIO_FLOOR = 1 << 20
#: Largest expansion ratio of a whole archive (its members' sizes over the file's size),
#: once past :data:`RATIO_FLOOR`: thousands of members each too small for the check of
#: one member make a bomb too.
MAX_TOTAL_RATIO = 50

def name_bytes(name: str) -> bytes | None:
    """The bytes of a file or member name that is not UTF-8, as Python hands it over
    (each undecodable byte a surrogate), or ``None`` for a name that is UTF-8.

    >>> name_bytes("象棋.pgn") is None, name_bytes(b"\\xcf\\xf3.pgn".decode("utf-8", "surrogateescape"))
    (True, b'\\xcf\\xf3.pgn')
    """
    try:
        name.encode("utf-8")
        return None
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape")


def readable(name: str) -> str:
    """A name that is not UTF-8 in a form that can be shown and stored: decoded as
    GB18030 (Chinese collections' names), else UTF-8 with U+FFFD for what is not.

    >>> readable("象棋.pgn".encode("gbk").decode("utf-8", "surrogateescape")), readable("ok.pgn")
    ('象棋.pgn', 'ok.pgn')
    """
    raw = name_bytes(name)
    if raw is None:
        return name
    try:
        return raw.decode("gb18030")
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace")


STDIN = "-"
_ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz")


class SourceError(Exception):
    """A path, archive or member that cannot be read as a source; the message names it."""

    def __init__(self, message: str, path: str | None = None, member: str | None = None) -> None:
        super().__init__(readable(message))
        self.path = path
        """The path as the user gave it (``-`` for standard input)."""
        self.member = member
        """The archive member refused, if any."""

    def __reduce__(self) -> tuple:
        return (type(self), (str(self), self.path, self.member))


#: What reading a source's bytes may raise when the bytes are damaged rather than the
#: code wrong: a bad CRC or deflate stream in a zip member, a truncated gzip stream, a
#: broken tar header. Every reader of sources catches these and stores the source as
#: unreadable, naming why (see :func:`read_failure`), so one damaged member never stops
#: the members after it. :class:`SourceError` is among them: a refusal met
#: while opening (no such member).
READ_ERRORS: tuple[type[BaseException], ...] = (
    OSError, EOFError, zipfile.BadZipFile, zlib.error, tarfile.TarError, SourceError)


def read_failure(exc: BaseException) -> str:
    """One line saying why reading failed, for a source's stored error.

    >>> read_failure(zipfile.BadZipFile("Bad CRC-32 for file 'a.pgn'"))
    "damaged archive member (Bad CRC-32 for file 'a.pgn')"
    >>> read_failure(zlib.error("Error -3 while decompressing data: invalid code lengths set"))
    'damaged archive member (Error -3 while decompressing data: invalid code lengths set)'
    """
    if isinstance(exc, (zipfile.BadZipFile, zlib.error, tarfile.TarError, EOFError)):
        return f"damaged archive member ({exc})"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


@dataclass(frozen=True)
class Skipped:
    """A file inside a folder that is passed over unread, and why.

    >>> str(Skipped("games/pipe", "a FIFO, not a regular file"))
    'games/pipe: skipped, a FIFO, not a regular file'
    """

    path: str
    reason: str

    @property
    def error(self) -> str:
        """What an import stores as the file's error: :data:`SKIPPED_PREFIX` and why."""
        return SKIPPED_PREFIX + self.reason

    def __str__(self) -> str:
        return f"{self.path}: {self.error}"


#: How the error of a file passed over begins, to tell it from a file that failed.
SKIPPED_PREFIX = "skipped, "


#: Suffixes of files that hold notes about a collection, never game records.
NOTE_SUFFIXES = (".md", ".markdown", ".rst")


@dataclass(frozen=True)
class Source:
    """One stream of bytes: a file, or a member of an archive file."""

    path: str
    """The file on disk (for standard input, the temporary file holding it)."""
    member: str | None
    """The member name inside the archive at ``path``, or ``None`` for a plain file."""
    size: int
    """Size in bytes (expanded size for an archive member)."""
    label: str | None = None
    """How to name ``path`` to the user when it is not the path itself (``-``)."""
    real: str | None = None
    """The file's resolved absolute path (``-`` for standard input): what a source is
    known by, so the same file reached by two paths is one source."""
    member_index: int | None = None
    """Which of the archive's members named :attr:`member` this is, when there are several:
    1, 2... for the earlier ones in the archive's order, ``None`` for the last (the one
    extracting the archive keeps), as for every member of a name used once."""

    @property
    def display_path(self) -> str:
        """The path as the user gave it (``-`` for standard input), readable (see
        :func:`readable`)."""
        return readable(self.given_path)

    @property
    def given_path(self) -> str:
        """The path as the user gave it, as the file system names it (see :attr:`display_path`
        for the readable form)."""
        return self.label if self.label is not None else self.path

    @property
    def shown_member(self) -> str | None:
        """The member name, readable (see :func:`readable`)."""
        return None if self.member is None else readable(self.member)

    @property
    def shown_member_copy(self) -> str | None:
        """The member name, readable, saying which of several of that name it is.

        >>> Source("a.zip", "a.pgn", 9, member_index=1).shown_member_copy
        'a.pgn (member 1 of that name)'
        """
        if self.member is None or self.member_index is None:
            return self.shown_member
        return f"{self.shown_member} (member {self.member_index} of that name)"

    @property
    def real_path(self) -> str:
        """:attr:`real`, or resolved here when the walk did not."""
        if self.real is not None:
            return self.real
        return STDIN if self.label == STDIN else os.path.realpath(self.path)

    @property
    def is_note(self) -> bool:
        """Whether the name says this is prose beside the games (``README.md``...), which
        readers skip rather than report as an unknown format."""
        return self.name.lower().endswith(NOTE_SUFFIXES)

    @property
    def name(self) -> str:
        """The innermost name (the member if any), used to sniff formats by suffix."""
        return self.member if self.member is not None else self.display_path

    def open(self) -> BinaryIO:
        """Open the bytes for reading; works in any process, any number of times."""
        if self.member is None:
            return open(self.path, "rb")
        archive, index = _ARCHIVES.get(self.path)
        info = index.get(self.member)
        if self.member_index is not None:
            earlier = index.earlier.get(self.member, [])
            info = earlier[self.member_index - 1] if self.member_index <= len(earlier) else None
        if info is None:
            raise SourceError(f"{self.path}: no member {self.member!r}", self.display_path,
                              self.member)
        if isinstance(archive, zipfile.ZipFile):
            return archive.open(info)  # type: ignore[arg-type, return-value]
        stream = archive.extractfile(info)  # type: ignore[arg-type]
        if stream is None:
            raise SourceError(f"{self.path}: member {self.member!r} is not a file",
                              self.display_path, self.member)
        return stream  # type: ignore[return-value]

    def __str__(self) -> str:
        where = self.display_path
        return where if self.member is None else f"{where}!{self.shown_member_copy}"

    def with_bytes(self) -> SentSource:
        """This source carrying its bytes, for a process that cannot see ``path`` (a
        machine of a cluster, or any process for standard input's temporary file).

        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "a.pgn")
        >>> with open(path, "wb") as f:
        ...     _ = f.write(b"1. h2e2 *")
        >>> sent = Source(path, None, 9).with_bytes()
        >>> os.remove(path)
        >>> sent.open().read(), str(sent) == path
        (b'1. h2e2 *', True)
        """
        with self.open() as stream:
            data = stream.read()
        return SentSource(self.path, self.member, self.size, self.label, self.real,
                          self.member_index, data)


@dataclass(frozen=True)
class SentSource(Source):
    """A :class:`Source` that carries its bytes, read where the source is visible."""

    data: bytes = field(default=b"", repr=False)

    def open(self) -> BinaryIO:
        return io.BytesIO(self.data)


def iter_sources(paths: Iterable[str], max_member_size: int = MAX_MEMBER_SIZE,
                 follow_links: bool = False) -> Iterator[Source]:
    """Expand ``paths`` into sources; raises :class:`SourceError` on the first refusal.

    Files passed over (see :class:`Skipped`) are left out. Use :func:`walk` to go on past
    refused members and to hear of the files passed over.
    """
    for item in walk(paths, max_member_size, follow_links):
        if isinstance(item, SourceError):
            raise item
        if isinstance(item, Source):
            yield item


def walk(paths: Iterable[str], max_member_size: int = MAX_MEMBER_SIZE,
         follow_links: bool = False) -> Iterator[Source | SourceError | Skipped]:
    """Like :func:`iter_sources`, but yields each refusal as a :class:`SourceError` and
    each file passed over as a :class:`Skipped`, and goes on with the next source.

    A path named in ``paths`` is read whatever it is (a user may name a FIFO on purpose);
    what a folder holds is read only if it is a regular file inside that folder, or with
    ``follow_links``, anywhere a link leads.
    """
    for path in paths:
        if path == STDIN:
            yield from _stdin_sources(max_member_size)
        elif os.path.isdir(path):
            yield from _folder_sources(path, max_member_size, follow_links)
        elif os.path.exists(path):
            yield from _file_sources(path, max_member_size)
        else:
            yield SourceError(no_such_path(path), path)


def no_such_path(path: str) -> str:
    """The message for a path that does not exist, with the likeliest path meant.

    >>> no_such_path("/")[:0], no_such_path("/nowhere/at/all")
    ('', '/nowhere/at/all: no such file or folder (there is no folder /nowhere)')
    """
    parent = os.path.dirname(os.path.normpath(path)) or "."
    if not os.path.isdir(parent):
        # The deepest folder that exists is where the path went wrong.
        while parent not in ("", os.sep, ".") and not os.path.isdir(os.path.dirname(parent)
                                                                    or "."):
            parent = os.path.dirname(parent)
        return f"{path}: no such file or folder (there is no folder {parent})"
    try:
        names = os.listdir(parent)
    except OSError:
        names = []
    meant = closest(os.path.basename(os.path.normpath(path)), names)
    hint = f" (did you mean {os.path.join(os.path.dirname(path), meant)}?)" if meant else ""
    return f"{path}: no such file or folder{hint}"


def _folder_sources(folder: str, max_member_size: int, follow_links: bool
                    ) -> Iterator[Source | SourceError | Skipped]:
    """The sources of a folder, walked recursively in sorted order."""
    tree = os.path.realpath(folder)
    seen: set[str] = set()
    for root, dirs, files in os.walk(folder, followlinks=follow_links):
        real = os.path.realpath(root)
        if real in seen:  # reached again through a link: walked once is enough
            dirs.clear()
            continue
        seen.add(real)
        kept = []
        for name in sorted(dirs):
            path = os.path.join(root, name)
            if not follow_links and os.path.islink(path):
                outside = _outside(path, tree)
                if outside is not None:
                    yield Skipped(path, outside)
                # A link to a folder inside the tree adds nothing: its files are walked
                # under their own names.
                continue
            kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            path = os.path.join(root, name)
            why = None if follow_links else _outside(path, tree)
            if why is None:
                why = _not_regular(path)
            if why is not None:
                yield Skipped(path, why)
            else:
                yield from _file_sources(path, max_member_size)


def _outside(path: str, tree: str) -> str | None:
    """Why following the link ``path`` would leave the folder ``tree`` (a real path), or
    ``None`` when ``path`` is no link or stays inside."""
    if not os.path.islink(path):
        return None
    target = os.path.realpath(path)
    if os.path.commonpath([tree, target]) == tree:
        return None
    return f"a link leading out of the folder (to {target}); --follow-links follows it"


_SPECIAL_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                  (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _not_regular(path: str) -> str | None:
    """Why ``path`` is not a file to read (a FIFO would block, a device never end), or
    ``None`` for a regular file or one that cannot be looked at (reading it says why)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    for test, kind in _SPECIAL_KINDS:
        if test(mode):
            return f"{kind}, not a regular file"
    return None


def _file_sources(path: str, max_member_size: int, label: str | None = None
                  ) -> Iterator[Source | SourceError]:
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        yield SourceError(f"{label or path}: {exc.strerror}", label or path)
        return
    kind = _archive_kind(path)
    real = STDIN if label == STDIN else os.path.realpath(path)
    if kind is None:
        yield Source(path, None, size, label, real)
        return
    try:
        if kind == "zip":
            yield from _zip_members(path, max_member_size, label, real)
        else:
            yield from _tar_members(path, max_member_size, label, real)
    except READ_ERRORS as exc:
        yield SourceError(f"{label or path}: not a readable {kind} archive ({exc})", label or path)


def _archive_kind(path: str) -> str | None:
    lower = path.lower()
    if lower.endswith(".zip"):
        return "zip"
    if lower.endswith(_ARCHIVE_SUFFIXES):
        return "tar"
    return None


def _zip_name(info: zipfile.ZipInfo) -> str:
    """The member name as its writer meant it: UTF-8 when flagged, else UTF-8 or GBK."""
    if info.flag_bits & 0x800:
        return info.filename
    try:
        raw = info.filename.encode("cp437")
    except UnicodeEncodeError:
        return info.filename
    for encoding in ("utf-8", "gb18030"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return info.filename


def _unsafe(name: str) -> str | None:
    """Why a member name would escape the archive's folder, or ``None`` if it is safe."""
    clean = name.replace("\\", "/")
    if clean.startswith("/") or (len(clean) > 1 and clean[1] == ":"):
        return "an absolute path"
    if ".." in posixpath.normpath(clean).split("/") or ".." in clean.split("/"):
        return "a path that climbs out of the archive's folder (..)"
    return None


def _refuse_size(shown: str, name: str, size: int, packed: int | None, limit: int
                 ) -> SourceError | None:
    where = f"{shown}!{name}"
    if size > limit:
        return SourceError(f"{where}: refused, it would expand to {size:,} bytes "
                           f"(the limit is {limit:,})", shown, name)
    if packed is not None and size > MEMBER_RATIO_FLOOR and size > MAX_RATIO * max(packed, 1):
        return SourceError(f"{where}: refused, it would expand {size // max(packed, 1):,} times "
                           f"({packed:,} to {size:,} bytes), like a zip bomb", shown, name)
    return None


def _zip_members(path: str, limit: int, label: str | None, real: str
                 ) -> Iterator[Source | SourceError]:
    # A compact listing, so the walk holds no archive index of its own (see _OpenArchives).
    index = _ARCHIVES.get(path)[1]
    listing: list[tuple[str, int, int | None, str | None, int | None]] = [
        (name, info.file_size,  # type: ignore[union-attr]
         info.compress_size if info.compress_type != zipfile.ZIP_STORED  # type: ignore[union-attr]
         else None, None, number)
        for name, info, number in index.members()]
    yield from _unlisted(path, label, index)
    yield from _checked_members(path, limit, label, listing, real)


def _tar_members(path: str, limit: int, label: str | None, real: str
                 ) -> Iterator[Source | SourceError]:
    index = _ARCHIVES.get(path)[1]
    listing: list[tuple[str, int, int | None, str | None, int | None]] = [
        (name, info.size,  # type: ignore[union-attr]
         None, info.linkname if info.issym() or info.islnk() else None,  # type: ignore[union-attr]
         number)
        for name, info, number in index.members()]
    yield from _unlisted(path, label, index)
    yield from _checked_members(path, limit, label, listing, real)
    if index.damage is not None:
        shown = label or path
        yield SourceError(f"{shown}: damaged after {len(listing):,} members, the rest cannot be "
                          f"listed ({index.damage})", shown)


def _unlisted(path: str, label: str | None, index: _Index) -> Iterator[SourceError]:
    """The members no source reads, each as a refusal saying why: a FIFO or device in a
    tar."""
    shown = label or path
    for name, why in index.unread:
        yield SourceError(f"{shown}!{name}: not read, {why}", shown, name)


def _checked_members(path: str, limit: int, label: str | None,
                     listing: list[tuple[str, int, int | None, str | None, int | None]],
                     real: str) -> Iterator[Source | SourceError]:
    """Sources for the listed ``(name, size, packed size, link target, member index)``
    members, and a refusal for each one that could escape the folder, is a link or would
    expand too far."""
    shown = label or path
    try:
        archive_size = os.path.getsize(path)
    except OSError:
        archive_size = 0
    total = 0
    for name, size, packed, link, number in listing:
        why = _unsafe(name)
        if why is None and link is not None:
            why = f"a link (to {link!r})"
        if why is not None:
            yield SourceError(f"{shown}!{name}: refused, the member is {why}", shown, name)
            continue
        refusal = _refuse_size(shown, name, size, packed, limit)
        if refusal is not None:
            yield refusal
            continue
        # Many members each small enough make a bomb too: the members read are bounded
        # as a whole.
        if total + size > RATIO_FLOOR and total + size > MAX_TOTAL_RATIO * max(archive_size, 1):
            yield SourceError(f"{shown}!{name}: refused, the archive's members would expand "
                              f"to more than {total + size:,} bytes from {archive_size:,}, "
                              "like a zip bomb", shown, name)
            continue
        total += size
        yield Source(path, name, size, label, real, number)


class _OpenArchives(threading.local):
    """The archives this thread has open, each with its member index, at most
    :attr:`limit` of them: re-reading a zip's directory for each of its ten thousand members
    would make reading quadratic, yet an index costs about 1 KB per member, so keeping every
    archive a long run has met would make memory grow with the input.

    Work goes through sources in input order, so one archive at a time is all that is
    needed: where a unit straddles two archives, each is opened once more. The walk keeps
    only a compact listing of the archive it lists, and opening the next archive lets the
    previous one go. A forked worker starts afresh rather than share its parent's open
    files and their offsets, and each thread (a cluster worker may run several tasks at
    once) has its own, as an open archive's file offset cannot be shared.
    """

    def __init__(self, limit: int = 1) -> None:
        self.limit = limit
        self._pid = os.getpid()
        self._open: dict[str, tuple[zipfile.ZipFile | tarfile.TarFile, _Index]] = {}

    def get(self, path: str) -> tuple[zipfile.ZipFile | tarfile.TarFile, _Index]:
        if self._pid != os.getpid():
            self._pid, self._open = os.getpid(), {}
        entry = self._open.pop(path, None)
        if entry is None:
            entry = _load_archive(path)
            while len(self._open) >= self.limit:
                oldest = next(iter(self._open))
                self._open.pop(oldest)[0].close()
        self._open[path] = entry  # the most recently used comes last
        return entry


class _Index(dict[str, "zipfile.ZipInfo | tarfile.TarInfo"]):
    """An archive's readable members by name (the last of a name used more than once),
    with the earlier members of such names and what is in it but cannot be read."""

    def __init__(self) -> None:
        super().__init__()
        self.earlier: dict[str, list[zipfile.ZipInfo | tarfile.TarInfo]] = {}
        """The members before the last of a name used more than once, in archive order:
        each is data the user gave, read as a source of its own (see
        :attr:`Source.member_index`)."""
        self.unread: list[tuple[str, str]] = []
        """``(name, why)`` of members left unread: special files."""
        self.damage: str | None = None
        """Why listing stopped early (a damaged tar), if it did."""

    def put(self, name: str, info: zipfile.ZipInfo | tarfile.TarInfo) -> None:
        if name in self:
            self.earlier.setdefault(name, []).append(self[name])
        self[name] = info

    def members(self) -> Iterator[tuple[str, zipfile.ZipInfo | tarfile.TarInfo, int | None]]:
        """Every readable member as ``(name, info, member index)``, a name's earlier
        members just before its last."""
        for name, info in self.items():
            for number, before in enumerate(self.earlier.get(name, ()), start=1):
                yield name, before, number
            yield name, info, None


def _tar_tail_damage(tar: tarfile.TarFile) -> str | None:
    """Why a tar whose listing ended is damaged, or ``None``: tarfile ends a listing
    quietly at a header it cannot parse, where a whole archive ends in zero blocks."""
    fileobj = tar.fileobj
    if fileobj is None:
        return None
    fileobj.seek(tar.offset)
    tail = fileobj.read(tarfile.BLOCKSIZE)
    if tail.strip(b"\0"):
        return f"a damaged member header at byte {tar.offset:,}"
    # A compressed tar checks its CRC at the end of the stream only: read on to it.
    while fileobj.read(1 << 20):
        pass
    return None


_TAR_KINDS = ((tarfile.TarInfo.isfifo, "a FIFO"), (tarfile.TarInfo.ischr, "a character device"),
              (tarfile.TarInfo.isblk, "a block device"))


def _load_archive(path: str) -> tuple[zipfile.ZipFile | tarfile.TarFile, _Index]:
    index = _Index()
    if _archive_kind(path) == "zip":
        archive = zipfile.ZipFile(path)
        try:
            for info in archive.infolist():
                if not info.is_dir():
                    index.put(_zip_name(info), info)
            return archive, index
        except BaseException:
            archive.close()
            raise
    tar = tarfile.open(path)
    try:
        try:
            for member in tar:
                if member.isfile() or member.issym() or member.islnk():
                    index.put(member.name, member)
                    continue
                for test, kind in _TAR_KINDS:
                    if test(member):
                        index.unread.append((member.name, f"{kind}, not a regular file"))
            index.damage = _tar_tail_damage(tar)
        except READ_ERRORS as exc:
            if not index and not index.unread:
                raise
            # The members listed before the damage are read; the rest is one error.
            index.damage = str(exc) or type(exc).__name__
        return tar, index
    except BaseException:
        tar.close()
        raise


_ARCHIVES = _OpenArchives()


_SPOOLED: list[str] = []


def _stdin_sources(limit: int) -> Iterator[Source | SourceError]:
    """Spool standard input to a temporary file, so it can be re-opened like any file."""
    _remove_stale_spools()
    fd, spool = tempfile.mkstemp(prefix=f"{_SPOOL_PREFIX}{os.getpid()}-")
    if not _SPOOLED:
        atexit.register(_remove_spools)
    _SPOOLED.append(spool)
    stdin = getattr(sys.stdin, "buffer", None) or io.BytesIO(sys.stdin.read().encode())
    with os.fdopen(fd, "wb") as out:
        shutil.copyfileobj(stdin, out)
    with open(spool, "rb") as f:
        magic = f.read(262)
    # Piped archives are expanded like archive files.
    suffix = ""
    if magic.startswith(b"PK\x03\x04"):
        suffix = ".zip"
    elif magic.startswith(b"\x1f\x8b") or magic[257:262] == b"ustar":
        suffix = ".tar"
    if suffix:
        os.rename(spool, spool + suffix)
        _SPOOLED[-1] = spool = spool + suffix
    yield from _file_sources(spool, limit, label=STDIN)


_SPOOL_PREFIX = "xqdb-stdin-"


def _remove_stale_spools() -> None:
    """Remove the spools of standard input that runs killed outright left behind (their
    process is gone, so nothing else would)."""
    folder = tempfile.gettempdir()
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if not name.startswith(_SPOOL_PREFIX):
            continue
        pid = name[len(_SPOOL_PREFIX):].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            try:
                os.remove(os.path.join(folder, name))
            except OSError:
                pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: alive, and not ours to remove
        return True
    return True


def _remove_spools() -> None:
    for spool in _SPOOLED:
        try:
            os.remove(spool)
        except OSError:
            pass
    _SPOOLED.clear()
