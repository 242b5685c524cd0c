"""Which engine to run, and keeping it running through crashes and hangs.

An :class:`EngineSpec` says how to start an engine (command, protocol, options); it is plain
data, so worker processes can each start their own. :func:`choose_engine` finds one when
the user names none: Fairy-Stockfish or Pikafish on the ``PATH`` or in ``/usr/games``, else
the built-in engine, and says which in :attr:`EngineChoice.message`.

A :class:`SupervisedEngine` restarts an engine that exits or stops answering and tries the
position once more; when the second attempt fails too, :class:`PositionFailedError` tells
the caller to record the position as failed and go on.

>>> choose_engine("builtin").spec.label
'xqdb built-in'
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import time
from dataclasses import dataclass, replace
from typing import Mapping, Sequence, overload

from ..errors import BadArgumentError
from ..position import Position
from .client import (
    SEARCH_TIMEOUT, Engine, EngineError, EngineProtocolError, EngineRefusedError,
    EngineTerminatedError, EngineTimeoutError, Info,
)
from .score import Limit

logger = logging.getLogger(__name__)

#: The name that selects xqdb's own engine.
BUILTIN = "builtin"
#: External engines looked for when none is named, strongest-known first among those Debian
#: packages (Pikafish is stronger but users bring their own binary).
KNOWN_ENGINES = ("fairy-stockfish", "pikafish")
#: Where Debian installs game binaries; it is not on every user's ``PATH``.
GAMES_DIR = "/usr/games"


@dataclass(frozen=True)
class EngineSpec:
    """How to start an engine: the command, the protocol (``None``: detect) and options.

    ``fresh``: each search starts from an empty hash table (see :meth:`Engine.forget`), so
    that an evaluation at a fixed node count is the same whichever searches came before
    it, in whichever process; without, it is a few percent faster.
    """

    command: tuple[str, ...]
    protocol: str | None = None
    options: tuple[tuple[str, str], ...] = ()
    label: str = ""
    fresh: bool = True

    @classmethod
    def builtin(cls, options: Mapping[str, object] | None = None) -> "EngineSpec":
        """The built-in engine, served by ``xqdb engine`` in a child process."""
        return cls((sys.executable, "-m", "xqdb", "engine"), "uci", _option_items(options),
                   "xqdb built-in")

    def with_options(self, options: Mapping[str, object]) -> "EngineSpec":
        return replace(self, options=self.options + _option_items(options))

    def open(self, handshake_timeout: float | None = None) -> Engine:
        """Start the engine and greet it."""
        kwargs = {} if handshake_timeout is None else {"handshake_timeout": handshake_timeout}
        return Engine.popen(self.command, protocol=self.protocol, options=dict(self.options),
                            **kwargs)

    def is_builtin(self) -> bool:
        return self.command[1:] == ("-m", "xqdb", "engine")


def _option_items(options: Mapping[str, object] | None) -> tuple[tuple[str, str], ...]:
    return tuple((name, str(value)) for name, value in (options or {}).items())


@dataclass(frozen=True)
class EngineChoice:
    """The engine to use and the sentence telling the user which it is."""

    spec: EngineSpec
    message: str


def find_external_engine() -> str | None:
    """The path of the first of :data:`KNOWN_ENGINES` on the ``PATH`` or in ``/usr/games``."""
    for name in KNOWN_ENGINES:
        found = shutil.which(name) or shutil.which(name, path=GAMES_DIR)
        if found:
            return found
    return None


def choose_engine(name: str | None = None, *, protocol: str | None = None,
                  options: Mapping[str, object] | None = None) -> EngineChoice:
    """The engine ``name`` (a command, a path or ``builtin``), or the best one installed.

    Raises :class:`~xqdb.engine.EngineError` when ``name`` is given but cannot be found.
    """
    if name == BUILTIN or (name is None and find_external_engine() is None):
        spec = EngineSpec.builtin(options)
        if name is None:
            return EngineChoice(spec, "no Fairy-Stockfish or Pikafish found: using the built-in "
                                      "engine, which is weak (install fairy-stockfish for "
                                      "strong analysis)")
        return EngineChoice(spec, "using the built-in engine, which is weak")
    path = name or find_external_engine()
    assert path is not None
    found = shutil.which(path) or shutil.which(path, path=GAMES_DIR)
    if found is None:
        raise EngineError(f"engine {path!r} not found (give the path of an executable, a "
                          f"command on the PATH or {BUILTIN!r})")
    spec = EngineSpec((found,), protocol, _option_items(options), os.path.basename(found))
    how = "found" if name is None else "using"
    return EngineChoice(spec, f"{how} engine {found}")


class PositionFailedError(EngineError):
    """A position could not be analysed, even after the engine was restarted, or because
    the engine refused it (:attr:`refused`: the engine's own words)."""

    def __init__(self, message: str = "", hint: str = "", *, refused: str | None = None) -> None:
        super().__init__(message, hint)
        self.refused = refused

    def __reduce__(self) -> tuple[object, ...]:
        return (_position_failed, (self.message, self.hint, self.refused))


def _position_failed(message: str, hint: str, refused: str | None) -> "PositionFailedError":
    return PositionFailedError(message, hint, refused=refused)


class EngineGaveUpError(EngineError):
    """The engine failed on :data:`GIVE_UP_POSITIONS` positions in a row the same way:
    the run stops, saying why, instead of spending two timeouts on every position left."""


#: Positions in a row that may fail the same way before the engine is given up.
GIVE_UP_POSITIONS = 3
#: A search bounded by depth or nodes may take this many times the longest one the engine
#: finished at that limit, before it counts as hung: searches of one limit differ by a
#: few times between positions (an endgame's extensions), rarely by ten.
SPEED_MARGIN = 10.0
#: The least wait for such a search, in seconds: a loaded machine stalls for seconds.
SEARCH_FLOOR = 10.0
#: Nodes per second of the slowest engine thought of, for a node search's first wait:
#: a tenth of the built-in engine's (about 20,000 on one core).
SLOWEST_NPS = 2_000


def search_wait(limit: Limit, longest: float | None) -> float | None:
    """Seconds a search under ``limit`` may take before the engine counts as hung, given
    the ``longest`` search it finished at that limit (``None``: none yet); ``None`` for a
    timed search, whose wait is its time and a margin (see :meth:`Engine.analyse`).

    >>> search_wait(Limit(depth=12), 0.3), search_wait(Limit(depth=12), 4.0)
    (10.0, 40.0)
    >>> search_wait(Limit(nodes=100_000), None), search_wait(Limit(depth=12), None)
    (60.0, 120.0)
    """
    if limit.time is not None:
        return None
    if longest is not None:
        return min(SEARCH_TIMEOUT, max(SEARCH_FLOOR, SPEED_MARGIN * longest))
    if limit.nodes is not None:
        return min(SEARCH_TIMEOUT, SEARCH_FLOOR + limit.nodes / SLOWEST_NPS)
    return SEARCH_TIMEOUT  # a depth says nothing of the time before a search is seen


class SupervisedEngine:
    """An engine that is restarted when it exits or hangs, with one more try per position.

    The engine is started on first use. :attr:`restarts` counts the restarts so far.
    ``timeout``: the seconds every search may take; ``None``, scaled to the limit and to
    the longest search finished so far (see :func:`search_wait`), and an engine that
    finishes no search at a limit in two tries is given up at once.
    """

    def __init__(self, spec: EngineSpec, *, timeout: float | None = None) -> None:
        self.spec = spec
        self.timeout = timeout
        self.engine: Engine | None = None
        self.restarts = 0
        self._name: str | None = None
        self._failing: tuple[str, int] = ("", 0)
        """How the last positions failed (the kind of failure) and how many in a row."""
        self._longest: dict[Limit, float] = {}
        """The longest search finished at each limit, in seconds (see :func:`search_wait`)."""

    @property
    def name(self) -> str:
        """The name the engine gives itself (starting it if needed)."""
        if self._name is None:
            self._name = self._running().name
        return self._name

    @property
    def identity(self) -> str:
        """The name, dialect and options: evaluations are comparable only when these agree
        (Fairy-Stockfish's centipawns differ between UCI and UCCI, options change strength).

        >>> with SupervisedEngine(EngineSpec.builtin({"MultiPV": 1})) as engine:
        ...     engine.identity
        'xqdb built-in (uci) MultiPV=1'
        """
        engine = self._running()
        options = " ".join(f"{name}={value}" for name, value in sorted(self.spec.options))
        return f"{self.name} ({engine.dialect.name}) {options}".rstrip()

    def _running(self) -> Engine:
        if self.engine is None:
            self.engine = self.spec.open()
        return self.engine

    @overload
    def analyse(self, position: Position, limit: Limit, *, multipv: None = None,
                fresh: bool | None = None) -> Info: ...

    @overload
    def analyse(self, position: Position, limit: Limit, *, multipv: int,
                fresh: bool | None = None) -> list[Info]: ...

    def analyse(self, position: Position, limit: Limit, *, multipv: int | None = None,
                fresh: bool | None = None) -> Info | list[Info]:
        """Like :meth:`Engine.analyse`; raises :class:`PositionFailedError` after two failures,
        and :class:`EngineGaveUpError` when :data:`GIVE_UP_POSITIONS` positions in a row
        failed the same way (an engine that hangs on every ``go``).

        ``fresh``: whether the search starts from an empty hash table; ``None``, as the
        spec says. ``False`` lets a search build on the one before it (a chain of searches
        along a game, see :func:`xqdb.analysis.batch.run_task`)."""
        failure: EngineError | None = None
        for attempt in (1, 2):
            try:
                engine = self._running()
                if self.spec.fresh if fresh is None else fresh:
                    engine.forget()
                wait = self.timeout if self.timeout is not None else search_wait(
                    limit, self._longest.get(limit))
                started = time.perf_counter()
                if multipv is None:
                    found: Info | list[Info] = engine.analyse(position, limit, timeout=wait)
                else:
                    found = engine.analyse(position, limit, multipv=multipv, timeout=wait)
                took = time.perf_counter() - started
                self._longest[limit] = max(took, self._longest.get(limit, 0.0))
                self._failing = ("", 0)
                return found
            except (EngineRefusedError, EngineProtocolError) as exc:
                self.engine = None  # killed by the client: the next search starts afresh
                if isinstance(exc, EngineProtocolError):
                    raise
                # Refused: it would refuse again, so the position fails at once.
                raise PositionFailedError(f"{position.fen()}: {exc}", refused=str(exc)) from None
            except (EngineTerminatedError, EngineTimeoutError) as exc:
                failure = exc
                if self.engine is not None:
                    self.engine.kill()
                    self.engine = None
                self.restarts += 1
                logger.warning("%s; restarting it (attempt %d of 2 for %s)", exc, attempt,
                               position.fen())
        kind = type(failure).__name__
        same = self._failing[1] + 1 if self._failing[0] == kind else 1
        self._failing = (kind, same)
        if same >= GIVE_UP_POSITIONS:
            raise EngineGaveUpError(f"the engine failed on {same} positions in a row, each "
                                    f"twice: {failure}; stopped")
        if (isinstance(failure, EngineTimeoutError) and self.timeout is None
                and limit not in self._longest):
            # Two full waits and not one search finished at this limit: more positions
            # would each take two more (12 minutes under a depth before this rule). A
            # timeout the caller gave is theirs to judge: it keeps the rule above.
            raise EngineGaveUpError(f"the engine finished no search under {limit.key()}, "
                                    f"twice: {failure}; stopped")
        raise PositionFailedError(f"{position.fen()}: {failure}")

    def pid(self) -> int | None:
        """The process id of the running engine, if one runs."""
        return self.engine.process.pid if self.engine is not None else None

    def close(self) -> None:
        if self.engine is not None:
            self.engine.quit()
            self.engine = None

    def __enter__(self) -> "SupervisedEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def parse_options(texts: Sequence[str]) -> dict[str, str]:
    """``NAME=VALUE`` texts (as ``--option`` takes them) as a dictionary.

    >>> parse_options(["Hash=64", "Skill Level=3"])
    {'Hash': '64', 'Skill Level': '3'}
    """
    options = {}
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name.strip():
            raise BadArgumentError(f"option {text!r} is not NAME=VALUE",
                                   "for example --option Hash=64")
        options[name.strip()] = value.strip()
    return options
