"""Who is writing a database: the note an import leaves beside it, and the words for a
database that another process holds.

DuckDB lets one process write a file and no other process open it meanwhile, not even to
read. Its refusal names a program and a pid; a user wants to hear which command holds
the file and when it will be free. So while :func:`xqdb.pipeline.importer.import_paths` or
:func:`xqdb.pipeline.analyze.analyse_database` holds a database it keeps a small JSON note beside
it, ``DB.import.json`` (its pid, command, start, and what it has stored so far), and
:func:`explain_lock` turns the refusal into one sentence from that note, or from the
process DuckDB names when there is no note.

>>> import os, tempfile
>>> db = os.path.join(tempfile.mkdtemp(), "g.duckdb")
>>> with WriterNote(db, "xqdb import") as note:
...     note.update(games=1200, sources=40)
...     print(explain_lock(db, f"Conflicting lock is held in python (PID {os.getpid()})"))
...     # doctest: +ELLIPSIS
being written by xqdb import (pid ..., started ..., 1,200 games from 40 sources stored so far): it will be free when that import ends
>>> os.path.exists(note_path(db))
False

An upgrade does not write the file it upgrades: it reads it and builds its successor
beside it, so DuckDB's lock does not keep two upgrades apart. :class:`UpgradeLock` does,
an exclusive lock on ``DB.upgrade.lock``; :func:`upgrade_running` tells the other commands
that one runs, rather than have them tell the user to start another:

>>> with UpgradeLock(db):
...     upgrade_running(db) == os.getpid()
True
>>> upgrade_running(db) is None
True
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType

from ..errors import DatabaseError

_PID = re.compile(r"\(PID (\d+)\)")
_HELD_IN = re.compile(r"lock is held in (.+?) \(PID")
#: What :func:`_open_mode` gives for a process whose open files cannot be seen.
_UNTOLD = -1


def note_path(db: str | os.PathLike[str]) -> Path:
    """Where the note of the process writing ``db`` lives."""
    return Path(f"{os.fspath(db)}.import.json")


@dataclass
class Holder:
    """What the note says about the process writing a database."""

    pid: int
    command: str
    started: float
    """Seconds since the epoch."""
    games: int = 0
    """Game records stored so far (new games and duplicates)."""
    sources: int = 0
    """Sources stored so far."""
    positions: int = 0
    """Positions evaluated so far (by an analysis)."""

    def describe(self) -> str:
        started = time.strftime("%H:%M:%S", time.localtime(self.started))
        if self.games or self.sources:
            done = f"{self.games:,} games from {self.sources:,} sources stored so far"
        elif self.positions:
            done = f"{self.positions:,} positions evaluated so far"
        else:
            done = "nothing stored yet"
        return (f"being written by {self.command} (pid {self.pid}, started {started}, "
                f"{done}): it will be free when that {self.command.split()[-1]} ends")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def read_note(db: str | os.PathLike[str]) -> Holder | None:
    """The note beside ``db``, if its process still runs (a killed import leaves one)."""
    try:
        holder = Holder(**json.loads(note_path(db).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None
    return holder if _alive(holder.pid) else None


class WriterNote:
    """The note of this process, present from :meth:`start` to :meth:`remove` (or while
    the ``with`` block runs).

    The note is replaced by a rename, so that a reader never sees half of one.
    """

    def __init__(self, db: str | os.PathLike[str], command: str) -> None:
        self.path = note_path(db)
        self.holder = Holder(os.getpid(), command, time.time())

    def start(self) -> None:
        """Write the note (the database's lock must be held already)."""
        self._write()

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)

    def __enter__(self) -> WriterNote:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.remove()

    def update(self, games: int = 0, sources: int = 0, positions: int = 0) -> None:
        """Note the games and sources (an import's) or the positions (an analysis's)
        stored so far; rewritten only when they changed, which is at each commit."""
        counts = (games, sources, positions)
        if counts != (self.holder.games, self.holder.sources, self.holder.positions):
            self.holder.games, self.holder.sources, self.holder.positions = counts
            self._write()

    def _write(self) -> None:
        partial = self.path.with_name(self.path.name + ".part")
        try:
            partial.write_text(json.dumps(asdict(self.holder)), encoding="utf-8")
            os.replace(partial, self.path)
        except OSError:
            # The note only helps others explain a lock: the import goes on without it.
            pass


def _command_of(pid: int) -> str | None:
    """The command line of a running process, shortened to its program and arguments."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    words = [w.decode(errors="replace") for w in raw.split(b"\0") if w]
    if not words:
        return None
    if Path(words[0]).name.startswith("python"):
        words[0] = Path(words[0]).name
        if len(words) > 1 and Path(words[1]).name == "xqdb":
            # `python .../bin/xqdb analyze ...` is the xqdb command to whoever typed it.
            words = ["xqdb", *words[2:]]
    return " ".join(" ".join(words).split())[:80]  # one line, whatever the arguments hold


def explain_lock(db: str | os.PathLike[str], message: str) -> str:
    """One sentence for DuckDB's refusal ``message`` to open ``db`` because another
    process holds it: who holds it and when it will be free, without DuckDB's words."""
    holder = read_note(db)
    found = _PID.search(message)
    pid = int(found[1]) if found else None
    if holder is not None and (pid is None or pid == holder.pid):
        return holder.describe()
    if pid is None:
        return ("locked by another process, which holds it open for writing: it will be "
                "free when that process closes it")
    reader = _reader(db, pid, message)
    if reader is not None:
        return (f"locked by another process ({reader}), which holds it open for reading (no "
                "writer can open it meanwhile): it will be free when that process closes it")
    return (f"locked by another process ({_named(pid, message)}, pid {pid}), which holds it "
            "open for writing: it will be free when that process closes it or ends")


def reading_holder(db: str | os.PathLike[str], message: str) -> str | None:
    """The process named by DuckDB's refusal ``message`` to open ``db`` for writing, as
    ``"xqdb serve, pid 812"``, when it only reads the file: a writer may wait for it,
    which is a moment for the explorer (it opens the file for each request). ``None``
    when it writes, or cannot be told apart from a writer.

    A process with the file no longer open held it for a moment, as a reader does: a
    writer's lock lasts as long as its work.
    """
    holder = read_note(db)
    found = _PID.search(message)
    if found is None or (holder is not None and holder.pid == int(found[1])):
        return None
    return _reader(db, int(found[1]), message)


def _reader(db: str | os.PathLike[str], pid: int, message: str) -> str | None:
    """``"command, pid N"`` of process ``pid`` when it has ``db`` open for reading only,
    or no longer open at all."""
    if _open_mode(pid, db) in (os.O_RDONLY, None):
        return f"{_named(pid, message)}, pid {pid}"
    return None


def _named(pid: int, message: str) -> str:
    """The command of process ``pid``, or the program DuckDB's ``message`` names."""
    held_in = _HELD_IN.search(message)
    return _command_of(pid) or (Path(held_in[1]).name if held_in else "another process")


def _open_mode(pid: int, db: str | os.PathLike[str]) -> int | None:
    """How process ``pid`` has the file ``db`` open (``os.O_RDONLY``, ``os.O_RDWR``...),
    as the system says of its open files; ``None`` when it has not (or has ended), and
    :data:`_UNTOLD` when the system will not say (another user's process)."""
    target = os.path.realpath(db)
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except FileNotFoundError:
        # Ended, or a system without /proc, which tells nothing.
        return _UNTOLD if not os.path.isdir("/proc/self/fd") else None
    except OSError:
        return _UNTOLD
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") != target:
                continue
            for line in Path(f"/proc/{pid}/fdinfo/{fd}").read_text().splitlines():
                if line.startswith("flags:"):
                    return int(line.split()[1], 8) & os.O_ACCMODE
        except (OSError, ValueError):
            continue
    return None


#: Seconds an upgrade waits for another upgrade of the same database to end before it
#: refuses: enough to ride over a command that looks at the lock (:func:`upgrade_running`),
#: far less than an upgrade takes.
UPGRADE_WAIT = 3.0


def upgrade_lock_path(db: str | os.PathLike[str]) -> Path:
    """The file whose lock an upgrade of ``db`` holds: beside the file itself, so that
    every name of it (a link, another relative path) gives the same lock."""
    return Path(f"{os.path.realpath(db)}.upgrade.lock")


class UpgradeLock:
    """An exclusive lock on upgrading ``db``, held while the ``with`` block runs.

    The lock is the system's (``flock``), so a process killed with ``kill -9`` lets go of
    it: a lock file left behind locks nothing. The file holds the pid of its holder and is
    removed on release; a waiter that locked a file removed meanwhile opens it again.
    Raises :class:`DatabaseError` when another upgrade holds it longer than ``wait``
    seconds.
    """

    def __init__(self, db: str | os.PathLike[str], wait: float = UPGRADE_WAIT) -> None:
        self.db, self.path, self.wait = os.fspath(db), upgrade_lock_path(db), wait
        self._fd: int | None = None

    def __enter__(self) -> UpgradeLock:
        deadline = time.monotonic() + self.wait
        while True:
            fd = _locked(self.path)
            if fd is not None:
                os.ftruncate(fd, 0)
                os.write(fd, str(os.getpid()).encode())
                self._fd = fd
                return self
            if time.monotonic() >= deadline:
                break
            time.sleep(0.1)
        pid = _lock_pid(self.path)
        by = f"xqdb upgrade (pid {pid})" if pid else "another xqdb upgrade"
        raise DatabaseError(f"{self.db}: {by} is upgrading it: run the command again when "
                            "that upgrade ends")

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._fd is not None:
            # Removed while still locked: whoever opens the name next gets a new file.
            self.path.unlink(missing_ok=True)
            os.close(self._fd)
            self._fd = None


def _locked(path: Path) -> int | None:
    """A descriptor of ``path`` holding its exclusive lock, or ``None`` while another
    holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    try:
        current = os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        current = False
    if not current:  # its holder removed it as this one waited: the lock is on nothing
        os.close(fd)
        return _locked(path)
    return fd


def _lock_pid(path: Path) -> int | None:
    try:
        return int(path.read_text(encoding="ascii").strip() or 0) or None
    except (OSError, ValueError):
        return None


def upgrade_running(db: str | os.PathLike[str]) -> int | None:
    """The pid of the upgrade of ``db`` running now (0 when it has not yet said), or
    ``None`` when none runs; a look that costs a ``stat`` when none ever ran."""
    path = upgrade_lock_path(db)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _lock_pid(path) or 0
    finally:
        os.close(fd)  # closing lets go of a lock taken
    return None
