"""A client for Xiangqi engines running as separate processes (UCI and UCCI).

Shaped like python-chess's ``chess.engine.SimpleEngine``, which cannot drive Xiangqi: open an
engine, :meth:`Engine.analyse` a :class:`~xqdb.Position` under a :class:`~xqdb.engine.Limit`,
get :class:`Info` back with a :class:`~xqdb.engine.PovScore`, the principal variation as
:class:`~xqdb.Move` objects and, when the engine reports it, a :class:`~xqdb.engine.PovWdl`.

The dialect (see :mod:`xqdb.engine.dialects`) is detected from the greeting unless given.
Every move of the position's history is checked legal before it is sent: engines stop
reading a move list at the first move they cannot play, without a word, and would then
analyse another position. The greeting and every search run under a timeout; an engine that
exits or stops answering raises :class:`EngineTerminatedError` or :class:`EngineTimeoutError`
and is killed, so no process is left behind.

>>> import sys
>>> from xqdb import Position
>>> from xqdb.engine import Limit
>>> with Engine.popen([sys.executable, "-m", "xqdb", "engine"]) as engine:
...     info = engine.analyse(Position.from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w"), Limit(depth=2))
>>> info.score.relative, [str(m) for m in info.pv]
(Mate(+1), ['a0d0'])
"""

from __future__ import annotations

import logging
import queue
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Mapping, Sequence, overload

from ..errors import CannotRunError
from ..rules.board import Move
from ..position import Position
from .dialects import DIALECTS, Dialect, detect_dialect, mate_from_centipawns
from .score import Cp, Limit, Mate, PovScore, PovWdl, Score, Wdl

log = logging.getLogger(__name__)

#: Seconds an engine may take to greet and list its options, and to answer ``isready``.
HANDSHAKE_TIMEOUT = 10.0
#: Seconds a search bounded by depth or nodes may take before the engine counts as hung.
SEARCH_TIMEOUT = 120.0
#: Seconds added to a time-limited search before the engine counts as hung.
TIME_MARGIN = 5.0


#: The depths (iterations) whose scores :attr:`Info.spread` spans.
SPREAD_ITERATIONS = 3


#: The widest number an engine may print: scores, nodes and times are stored as BIGINT.
_INT_LIMIT = 1 << 63


def _int(text: str, what: str, least: int = -_INT_LIMIT) -> int:
    """``text`` as the integer it must be; ``ValueError`` saying what is wrong.

    >>> _int("35", "depth"), _int("-12", "score")
    (35, -12)
    >>> _int("abc", "depth")
    Traceback (most recent call last):
    ...
    ValueError: depth 'abc' is not a number
    """
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{what} {text[:40]!r} is not a number") from None
    if not least <= value < _INT_LIMIT:
        raise ValueError(f"{what} {text[:40]} is out of range")
    return value


def _numbers(tokens: list[str]) -> tuple[Score, str | None, Wdl | None, dict[str, int], int | None]:
    """The numbers of an ``info`` line's tokens: the score, its bound, the WDL, the named
    counts (``depth``, ``nodes``...) and where the PV starts; ``ValueError`` for a number
    that is none or out of range.

    >>> _numbers("info depth 9 score cp 31 wdl 10 980 10 pv h2e2".split())[1:]
    (None, Wdl(wins=10, draws=980, losses=10), {'depth': 9}, 11)
    >>> _numbers("info depth abc score cp xyz".split())
    Traceback (most recent call last):
    ...
    ValueError: depth 'abc' is not a number
    """
    values: dict[str, int] = {}
    score: Score = Cp(0)
    bound: str | None = None
    wdl: Wdl | None = None
    i = 1
    while i < len(tokens):
        token = tokens[i]
        if token == "score" and i + 2 < len(tokens):
            kind, value = tokens[i + 1], _int(tokens[i + 2], "score")
            score = Mate(value) if kind == "mate" else Cp(value)
            i += 3
            if i < len(tokens) and tokens[i] in ("lowerbound", "upperbound"):
                bound = tokens[i]
                i += 1
        elif token == "wdl" and i + 3 < len(tokens):
            wins, draws, losses = (_int(t, "wdl", 0) for t in tokens[i + 1:i + 4])
            wdl = Wdl(wins, draws, losses)
            i += 4
        elif token == "pv":
            return score, bound, wdl, values, i + 1
        elif token == "string":
            break
        elif token in _COUNTS and i + 1 < len(tokens):
            values[token] = _int(tokens[i + 1], token)
            i += 2
        elif i + 1 < len(tokens) and tokens[i + 1].lstrip("-").isdigit():
            values[token] = _int(tokens[i + 1], token)
            i += 2
        else:
            i += 1
    return score, bound, wdl, values, None


_COUNTS = frozenset(("depth", "seldepth", "multipv", "nodes", "nps", "hashfull", "time"))


class EngineError(CannotRunError, RuntimeError):
    """The engine cannot do what was asked (an unknown option, a refused greeting...)."""


class EngineTerminatedError(EngineError):
    """The engine process exited."""


class EngineTimeoutError(EngineError):
    """The engine did not answer in time; it has been killed."""


class EngineRefusedError(EngineError):
    """The engine answered a position with an ``Error``, ``Illegal`` or ``Unknown`` line (its
    words are the message): it will not search that position."""


class EngineProtocolError(EngineError):
    """The engine answered with a move that is illegal in the position: it speaks another
    protocol or dialect, or plays another game; nothing it says can be trusted."""


#: The starts of the lines with which engines refuse a command or a position.
_REFUSALS = ("Error", "Illegal", "Unknown", "Bad move", "error", "illegal", "unknown")


@dataclass
class Info:
    """What the engine reported about one line of play (one MultiPV slot) of a search."""

    score: PovScore
    pv: list[Move] = field(default_factory=list)
    multipv: int = 1
    depth: int | None = None
    seldepth: int | None = None
    nodes: int | None = None
    nps: int | None = None
    time: float | None = None
    """Seconds the engine says it searched."""
    hashfull: int | None = None
    wdl: PovWdl | None = None
    bound: str | None = None
    """``"lowerbound"`` or ``"upperbound"`` when the score is only a bound."""
    spread: tuple[PovScore, PovScore] | None = None
    """The lowest and highest exact score of the search's last :data:`SPREAD_ITERATIONS`
    depths (the first line only): how far the search was from settling when it stopped."""


@dataclass
class EngineOption:
    """An option the engine listed in its greeting."""

    name: str
    type: str
    choices: list[str]


class Engine:
    """A running engine process. Use :meth:`popen`; close with :meth:`quit` (or ``with``)."""

    def __init__(self, process: subprocess.Popen[str], command: Sequence[str]) -> None:
        self.process = process
        self.command = list(command)
        self.name = command[0]
        self.author = ""
        self.dialect: Dialect = DIALECTS["uci"]
        self.options: dict[str, EngineOption] = {}
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._multipv = 1
        reader = threading.Thread(target=self._read, name=f"engine reader {process.pid}",
                                  daemon=True)
        reader.start()

    # --- Starting and stopping ------------------------------------------------------------

    @classmethod
    def popen(cls, command: str | Sequence[str], *, protocol: str | None = None,
              options: Mapping[str, object] | None = None,
              handshake_timeout: float = HANDSHAKE_TIMEOUT) -> "Engine":
        """Start ``command``, greet it in ``protocol`` (detected when ``None``) and set ``options``.

        Raises :class:`EngineError` (or a subclass) when the engine cannot be started, does
        not greet in time or lacks an option; the process is then gone.
        """
        argv = [command] if isinstance(command, str) else list(command)
        if protocol is not None and protocol not in DIALECTS:
            raise EngineError(f"unknown protocol {protocol!r}: use one of {', '.join(DIALECTS)}")
        try:
            # Its error output joins the answers: Sjaak II writes there why it will not
            # search a position, and then stays silent.
            process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, text=True, bufsize=1,
                                       errors="replace")
        except OSError as exc:
            raise EngineError(f"cannot start engine {argv[0]}: {exc.strerror or exc}") from None
        engine = cls(process, argv)
        try:
            engine._handshake(protocol, dict(options or {}), handshake_timeout)
        except BaseException:
            engine.kill()
            raise
        return engine

    def _handshake(self, protocol: str | None, options: dict[str, object],
                   timeout: float) -> None:
        greeting = DIALECTS[protocol].greeting if protocol else "uci"
        self._send(greeting)
        deadline = time.monotonic() + timeout
        while True:
            line = self._next_line(deadline, f"answer {greeting!r}")
            if line.startswith("id name "):
                self.name = line[len("id name "):].strip()
            elif line.startswith("id author "):
                self.author = line[len("id author "):].strip()
            elif line.startswith("option "):
                parsed = DIALECTS["uci"].parse_option_line(line)
                if parsed is not None:
                    name, kind, choices = parsed
                    self.options[name] = EngineOption(name, kind, choices)
            elif line.strip() == greeting + "ok":
                break
        if protocol:
            self.dialect = DIALECTS[protocol]
        else:
            self.dialect = detect_dialect(
                self.name, {name: opt.choices for name, opt in self.options.items()})
        if self.dialect.variant is not None:
            self._setoption("UCI_Variant", self.dialect.variant)
        if self._option("UCI_ShowWDL") is not None:
            self._setoption("UCI_ShowWDL", "true")
        self.configure(options)
        self._ping(deadline=time.monotonic() + timeout)

    def quit(self, timeout: float = 2.0) -> None:
        """Ask the engine to exit; kill it if it has not within ``timeout`` seconds."""
        if self.process.poll() is None:
            try:
                self._send("quit")
                self.process.wait(timeout)
            except (EngineError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def kill(self) -> None:
        """End the process now (nothing is asked of it) and reap it."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()

    def __repr__(self) -> str:
        return f"<Engine {self.name!r} pid={self.process.pid} dialect={self.dialect.name}>"

    # --- Options -----------------------------------------------------------------------

    def configure(self, options: Mapping[str, object]) -> None:
        """Set engine options by name; :class:`EngineError` names any the engine does not have."""
        for name, value in options.items():
            option = self._option(name)
            if option is None:
                known = ", ".join(sorted(self.options)) or "none"
                raise EngineError(f"engine {self.name} has no option {name!r} (it has: {known})")
            if option.name == "MultiPV":
                self._multipv = int(str(value))
            self._setoption(option.name, value)

    def _option(self, name: str) -> EngineOption | None:
        """The listed option called ``name``, ignoring case and spaces written as underscores."""
        wanted = name.replace("_", " ").lower()
        for option in self.options.values():
            if option.name.replace("_", " ").lower() == wanted:
                return option
        return None

    def _setoption(self, name: str, value: object) -> None:
        if isinstance(value, bool):
            value = "true" if value else "false"
        self._send(self.dialect.setoption_line(name, str(value)))

    def forget(self) -> bool:
        """Make the engine forget what earlier searches left in its hash table and move
        histories, so that the next search depends on its position alone (a search at a
        fixed node count otherwise depends on the searches before it). ``False`` when the
        engine offers no way: no new-game command in its dialect, no ``Clear Hash``.

        The engine obeys commands in order, so the next search waits for the clearing
        without an ``isready`` round trip.
        """
        line = self.dialect.new_game
        if line is None:
            button = self._option("Clear Hash")
            if button is None:
                return False
            line = self.dialect.setoption_line(button.name, "")
        self._send(line)
        return True

    # --- Searching ---------------------------------------------------------------------

    @overload
    def analyse(self, position: Position, limit: Limit, *, multipv: None = None,
                timeout: float | None = None) -> Info: ...

    @overload
    def analyse(self, position: Position, limit: Limit, *, multipv: int,
                timeout: float | None = None) -> list[Info]: ...

    def analyse(self, position: Position, limit: Limit, *, multipv: int | None = None,
                timeout: float | None = None) -> Info | list[Info]:
        """Search ``position`` (with its move history) under ``limit``.

        Returns the principal line's :class:`Info`, or with ``multipv`` a list of up to that
        many, best first. ``timeout`` (seconds) overrides the hang detection: by default a
        depth or node search may take :data:`SEARCH_TIMEOUT`, a timed one its time plus
        :data:`TIME_MARGIN`.
        """
        wanted = multipv or 1
        if wanted != self._multipv:
            if wanted > 1 and self._option("MultiPV") is None:
                raise EngineError(f"engine {self.name} has no MultiPV option")
            self.configure({"MultiPV": wanted})
        self._send(self._position_line(position))
        self._send(self._go_line(limit))
        if timeout is None:
            timeout = limit.time + TIME_MARGIN if limit.time is not None else SEARCH_TIMEOUT
        infos = self._collect(position, time.monotonic() + timeout)
        if multipv is None:
            return infos[0]
        return infos

    def _position_line(self, position: Position) -> str:
        """``position fen ... moves ...`` for ``position`` and its history, each move checked."""
        history = list(position.move_stack)
        root = position.copy()
        for _ in history:
            root.pop()
        words = ["position", "fen", self.dialect.fen_text(root.fen())]
        if history:
            words.append("moves")
            for ply, move in enumerate(history, 1):
                if not root.is_legal(move):
                    raise EngineError(f"move {ply} of the history, {move}, is illegal: "
                                      f"{root.explain_illegal(move)}")
                words.append(self.dialect.move_text(move))
                root.push(move)
        return " ".join(words)

    @staticmethod
    def _go_line(limit: Limit) -> str:
        words = ["go"]
        if limit.depth is not None:
            words += ["depth", str(limit.depth)]
        if limit.nodes is not None:
            words += ["nodes", str(limit.nodes)]
        if limit.time is not None:
            words += ["movetime", str(max(1, round(limit.time * 1000)))]
        return " ".join(words)

    def _collect(self, position: Position, deadline: float) -> list[Info]:
        """Read ``info`` lines until ``bestmove``; the latest exact line of each MultiPV slot.

        Lines are only sorted while the engine searches; the few kept are parsed at the end
        (a search prints dozens, and parsing checks every PV move).
        """
        exact: dict[int, str] = {}
        bounds: dict[int, str] = {}
        by_depth: dict[int, Score] = {}  # the first line's exact scores
        while True:
            line = self._next_line(deadline, "finish its search")
            if line.startswith("info ") and " score " in line:
                try:
                    score, bound, _, values, _ = _numbers(line.split())
                except ValueError as exc:
                    # A line that makes no sense is not worth a failed search.
                    log.warning("engine %s: ignored the line %r: %s", self.name, line[:200], exc)
                    continue
                slot = values.get("multipv", 1)
                (bounds if bound else exact)[slot] = line
                if slot == 1 and bound is None and "depth" in values:
                    by_depth[values["depth"]] = score
            elif line.startswith("bestmove"):
                break
            elif line.startswith(_REFUSALS):
                # It will not search (Sjaak II then ignores ``go``): fail now, not after
                # the timeout. Its state is unknown, so the caller starts it afresh.
                self.kill()
                raise EngineRefusedError(f"engine {self.name} said: {line.strip()}")
        if position.has_legal_moves():  # else "(none)" or "0000": nothing to play
            self._check_move(line.split()[1] if len(line.split()) > 1 else "", position,
                             "bestmove")
        kept = {**bounds, **exact}
        if not kept:
            raise EngineError(f"engine {self.name} gave a best move but no score")
        infos = [self._parse_info(kept[slot], position) for slot in sorted(kept)]
        if by_depth:
            last = sorted(by_depth)[-SPREAD_ITERATIONS:]
            ordered = sorted(self._engine_score(by_depth[d]) for d in last)
            infos[0].spread = (PovScore(ordered[0], position.turn),
                               PovScore(ordered[-1], position.turn))
        return infos

    def _check_move(self, text: str, position: Position, what: str) -> Move:
        """The move ``text`` if it is legal in ``position``, else :class:`EngineProtocolError`."""
        try:
            move = self.dialect.parse_move(text)
        except ValueError:
            move = None
        if move is None or not position.is_legal(move):
            self.kill()
            raise EngineProtocolError(
                f"engine {self.name} answered {what} {text!r}, not a legal move in "
                f"{position.fen()}: it speaks another protocol or dialect than "
                f"{self.dialect.name} (choose one with --protocol)")
        return move

    def _parse_info(self, line: str, position: Position) -> Info:
        tokens = line.split()
        score, bound, wdl, values, pv_at = _numbers(tokens)
        info = Info(PovScore(self._engine_score(score), position.turn))
        info.bound = bound
        if wdl is not None:
            info.wdl = PovWdl(wdl, position.turn)
        if pv_at is not None:
            info.pv = self._parse_pv(tokens[pv_at:], position)
        info.multipv = values.get("multipv", 1)
        info.depth = values.get("depth")
        info.seldepth = values.get("seldepth")
        info.nodes = values.get("nodes")
        info.nps = values.get("nps")
        info.hashfull = values.get("hashfull")
        if "time" in values:
            info.time = values["time"] / 1000
        return info

    def _engine_score(self, score: Score) -> Score:
        """``score`` as the engine means it: engines that report a mate as centipawns
        (Sjaak II) get the mate it stands for."""
        if isinstance(score, Cp):
            mate = mate_from_centipawns(self.name, score.cp)
            return Mate(mate) if mate is not None else score
        return score

    def _parse_pv(self, texts: list[str], position: Position) -> list[Move]:
        """The moves of a PV, each checked legal (:class:`EngineProtocolError` if not)."""
        board = position.copy()
        pv = []
        for text in texts:
            move = self._check_move(text, board, "in its PV")
            board.push(move)
            pv.append(move)
        return pv

    # --- Lines -------------------------------------------------------------------------

    def _read(self) -> None:
        """Forward the engine's output lines to the queue; ``None`` once it has closed it."""
        stdout = self.process.stdout
        assert stdout is not None
        try:
            for line in stdout:
                self._lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        self._lines.put(None)

    def _next_line(self, deadline: float, doing: str) -> str:
        try:
            line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            self.kill()
            raise EngineTimeoutError(f"engine {self.name} did not {doing} in time") from None
        if line is None:
            self._lines.put(None)  # later reads see the end as well
            status = self.process.wait()
            raise EngineTerminatedError(f"engine {self.name} exited (status {status}) "
                                        f"instead of trying to {doing}")
        return line

    def _send(self, line: str) -> None:
        stdin = self.process.stdin
        try:
            assert stdin is not None
            stdin.write(line + "\n")
            stdin.flush()
        except (OSError, ValueError):
            status = self.process.wait()
            raise EngineTerminatedError(f"engine {self.name} exited (status {status})") from None

    def _ping(self, deadline: float) -> None:
        self._send("isready")
        while self._next_line(deadline, "answer 'isready'").strip() != "readyok":
            pass
