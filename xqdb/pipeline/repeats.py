"""Records that repeat an earlier record of the same import, across its worker processes.

Collections hold the same game many times: one file filed in several folders of an
archive, or copied into every anthology that has it (29 % of the records of ccpd-dev.zip).
:class:`~xqdb.replay.Repeats` reuses a process's own recent replays. This table goes
further: made by the parent before it starts its workers, and shared by them, it tells a
worker that the same record (the same start, notation and move texts) was replayed
earlier in input order, and what its content hash is. The worker then neither replays the
record nor builds its moves: it stages only what ``game_records`` and ``raw_records``
keep, and the writer links it to the earlier game, as it links every duplicate.

A worker takes another process's word only for units the parent has already received
(it stores every unit it receives, or the whole import fails); once a unit is lost with
its worker, only a process's own replays count. A cluster's workers do not share the
parent's memory: each process keeps a table of its own per import (:func:`for_run`),
which holds its own replays and those the parent passes on. The parent keeps the replays
of the last units it received (:class:`SharedReplays`) where every task reads them as it
starts, so a worker learns what the others replayed once the parent has it. The table
has a fixed number of slots, one record each, so memory stays the same however big the
input: a record that lost its slot to another is replayed again, as before.

    seen = SeenRecords(slots=1024, shared=False)
    key = repeat_key(record)
    if key is not None and (content := seen.earlier(key, order)) is not None:
        ...  # a repeat of the game whose content hash is ``content``
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import threading
from array import array
from collections import OrderedDict, deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from hashlib import blake2b
from typing import Any

from ..db.rows import POSITION_FORMATS
from ..formats.record import GameRecord
from ..notation import REGISTRY
from ..replay import REPEAT_BYTES

#: Slots of the table: 10 MiB, shared by the workers.
SLOTS = 1 << 18
#: One slot: the record's key, its game's content hash, its place in input order, the
#: process that replayed it, and a check of those four (see :func:`_check`).
_WIDTH = 5
#: The parent's mark once a unit was lost: below every unit, so that no other process's
#: replay counts from then on.
_LOST = -(1 << 62)
_OWNERS: dict[int, int] = {}
#: Bytes of one replay passed on to a cluster's workers: key, place and content hash.
_PACKED = 3 * 8


def repeat_key(record: GameRecord) -> int | None:
    """A 64-bit key of what a replay of ``record`` reads (start, notation, the ``Format``
    tag, the move texts), or ``None`` for a record that no other may stand for: one that
    failed to read, has variations, is a position rather than a game, is very long, or is
    written in a notation whose dialect a replay settles.

    >>> from xqdb.formats.record import GameRecord, Origin
    >>> first, again = (GameRecord(origin=Origin(name), format="pgn", notation="uci")
    ...                 for name in ("a.pgn", "b.pgn"))
    >>> first.moves.extend(["h2e2", "h9g7"]); again.moves.extend(["h2e2", "h9g7"])
    >>> repeat_key(first) == repeat_key(again) != None
    True
    """
    if (record.error is not None or record.mainline.variations
            or len(record.raw) > REPEAT_BYTES or record.format in POSITION_FORMATS):
        return None
    entry = REGISTRY.get(record.notation)
    if entry is None or entry.twin is not None:
        return None
    texts = (record.fen or "", record.notation, record.tags.get("Format") or "", *record.moves)
    # One update of every text, each ended by a NUL: an update per text took 1.8 times as long.
    digest = blake2b("\x00".join(texts).encode("utf-8", "surrogatepass") + b"\x00",
                     digest_size=8)
    return int.from_bytes(digest.digest(), "little") or 1  # 0 marks an empty slot


def _owner() -> int:
    """This process's mark in the slots it fills: drawn at random, as a process id can
    be given again to the worker that replaces a lost one."""
    pid = os.getpid()
    if pid not in _OWNERS:
        _OWNERS[pid] = int.from_bytes(os.urandom(8), "little") | 1
    return _OWNERS[pid]


def _check(key: int, content: int, at: int, owner: int) -> int:
    """The word that tells a slot written whole from one being written, or left half
    written by a worker that was killed: it matches a mix of two writes' fields only
    by a 2**-64 chance."""
    fields = key.to_bytes(8, "little") + content.to_bytes(8, "little") \
        + at.to_bytes(8, "little") + owner.to_bytes(8, "little")
    return int.from_bytes(blake2b(fields, digest_size=8).digest(), "little")


def place(unit: int, index: int) -> int:
    """A record's place in input order: its unit's number, then its index in the unit."""
    return unit << 32 | index


class SeenRecords:
    """The records replayed so far in an import, by :func:`repeat_key`: a fixed table of
    ``slots``, in memory that forked workers share when ``shared``.

    No lock guards it: a worker killed while it held one (the OOM killer, a user's
    ``kill``) would stop every other worker and the parent for good. Each slot carries a
    check of its fields instead, and a slot whose check fails is read as empty, so its
    record is simply replayed; only the parent writes the mark of what it received.
    """

    def __init__(self, slots: int = SLOTS, *, shared: bool = True) -> None:
        self.slots = slots
        self._table: Any = (multiprocessing.RawArray(ctypes.c_uint64, _WIDTH * slots)
                            if shared else (ctypes.c_uint64 * (_WIDTH * slots))())
        # The last unit received by the parent, or _LOST once a unit was lost: one
        # aligned word, which every process reads whole.
        self._received: Any = (multiprocessing.RawValue(ctypes.c_int64, -1) if shared
                               else ctypes.c_int64(-1))

    def earlier(self, key: int, at: int) -> int | None:
        """The content hash of the record ``key`` replayed before place ``at`` (see
        :func:`place`), if this process can rely on it being stored."""
        slot = _WIDTH * (key % self.slots)
        found, content, first, owner, check = self._table[slot:slot + _WIDTH]
        if found != key or first >= at or check != _check(found, content, first, owner):
            return None
        if owner == _owner() or first >> 32 <= self._received.value:
            return int(content)
        return None

    def add(self, key: int, at: int, content: int) -> None:
        """Note that the record ``key`` at place ``at`` replayed to a valid game whose
        content hash is ``content``."""
        slot = _WIDTH * (key % self.slots)
        if self._table[slot] == key and self._table[slot + 2] <= at:
            return
        owner = _owner()
        self._table[slot:slot + _WIDTH] = [key, content, at, owner,
                                           _check(key, content, at, owner)]

    def learn(self, replays: bytes) -> None:
        """Add the replays the parent passes on (see :func:`pack`) as if this process had
        made them: the parent has received, and so stores, every one of them."""
        values = array("Q")
        values.frombytes(replays)
        for i in range(0, len(values) - 2, 3):
            self.add(values[i], values[i + 1], values[i + 2])

    def received(self, unit: int, lost: bool) -> None:
        """Note (in the parent) that unit ``unit`` was received, read or ``lost`` with
        its worker: a lost unit's replays will never be stored."""
        if lost:
            self._received.value = _LOST
        elif self._received.value != _LOST:
            self._received.value = max(self._received.value, unit)


def pack(replays: Iterable[tuple[int, int, int]]) -> bytes:
    """``(key, place, content hash)`` of valid replays, as the bytes a unit's result
    carries them in and the parent publishes them in (24 bytes each).

    >>> seen = SeenRecords(64, shared=False)
    >>> seen.learn(pack([(12345, place(3, 0), 99)]))
    >>> seen.earlier(12345, place(5, 0)), seen.earlier(12345, place(2, 0))
    (99, None)
    """
    return array("Q", [value for replay in replays for value in replay]).tobytes()


def shared_replays_name(run: int) -> str:
    """The name under which the parent of the import ``run`` publishes the replays it
    passes on to a cluster's workers (see :class:`SharedReplays`)."""
    return f"xqdb-replays-{run:x}"


class SharedReplays:
    """What the parent passes on to a cluster's workers: the valid replays of the last
    ``units`` units it received, newest first, at most ``limit`` of them. The parent
    publishes them on the scheduler after each unit it receives, and every task reads
    them as it starts (the limit bounds what each task reads): a worker that starts at
    least one unit while the parent receives ``units`` learns every replay of the others.

    >>> shared = SharedReplays(units=2, limit=3)
    >>> for unit in range(3):
    ...     shared.received(pack([(100 + unit, place(unit, 0), 7),
    ...                           (200 + unit, place(unit, 1), 8)]))
    >>> latest = array("Q"); latest.frombytes(shared.latest()); latest[::3].tolist()
    [102, 202, 101]
    """

    def __init__(self, units: int, limit: int) -> None:
        self.limit = limit
        self._units: deque[bytes] = deque(maxlen=units)

    def received(self, replays: bytes) -> None:
        """Note the replays of a unit the parent has received."""
        if replays:
            self._units.appendleft(replays)

    def latest(self) -> bytes:
        """The replays to publish now (see :func:`pack`)."""
        return b"".join(self._units)[:self.limit * _PACKED]


_SEEN: SeenRecords | None = None


@contextmanager
def seen_records(slots: int, shared: bool) -> Iterator[SeenRecords | None]:
    """A table for one import (none when ``slots`` is 0), which :func:`current` gives
    its reading processes; made before the workers are forked, so they share it."""
    global _SEEN
    _SEEN = SeenRecords(slots, shared=shared) if slots else None
    try:
        yield _SEEN
    finally:
        _SEEN = None


def current() -> SeenRecords | None:
    """The table of the import this process reads for, if any."""
    return _SEEN


#: Imports whose tables a cluster worker keeps (a worker may serve several imports).
RUNS_KEPT = 2
_RUNS: OrderedDict[int, SeenRecords] = OrderedDict()
_RUNS_LOCK = threading.Lock()


def for_run(run: int) -> SeenRecords:
    """This process's own table for the import ``run`` (a random number the parent draws),
    for a worker that does not share the parent's memory: a cluster's. Only this
    process's own replays count in it, and a worker whose process is lost takes them
    with it. Threads of one process share it: each slot is read and written whole."""
    with _RUNS_LOCK:
        table = _RUNS.get(run)
        if table is None:
            table = _RUNS[run] = SeenRecords(shared=False)
            while len(_RUNS) > RUNS_KEPT:
                _RUNS.popitem(last=False)
        _RUNS.move_to_end(run)
        return table
