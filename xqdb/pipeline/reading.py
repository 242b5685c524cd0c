"""What a pile of files holds, without a database: the library behind ``xqdb read``.

:func:`summarize` reads (and by default replays) every record under some paths and
counts them per format and encoding, valid and invalid, grouping the failures by their
:class:`~xqdb.errors.ErrorKind` (as ``xqdb info`` groups the stored games) with examples
that name the file, record and ply. :func:`format_game` prints one game with its moves in
a chosen notation.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "g.pgn")
>>> with open(path, "w") as f:
...     _ = f.write('[Red "A"]\\n1. h2e2 h9g7 *\\n\\n[Red "B"]\\n1. h2e2 h2e2 *\\n')
>>> summary = summarize([path])
>>> summary.records, summary.valid, summary.invalid
(2, 1, 1)
>>> summary.failures[0].ply, summary.failures[0].kind.label
(2, 'illegal move')

A source no reader claims (or that cannot be opened) holds no record: it is listed
among the sources not read, with why, and counts for no record.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Iterator


from ..errors import ErrorKind
from ..formats import is_source_failure, read_paths
from ..formats.record import GameRecord
from ..notation import WRITTEN_NOTATIONS, write_move
from ..notation.chinese import to_traditional
from ..render.tables import display_width
from ..replay import ReplayedGame, dropped_message, replay, shorten
from ..position import Position

#: Notations a game can be shown in: every written one, ``chinese-simplified`` and ``source``
#: (the texts as written). ``chinese`` writes the script the record is written in (see
#: :attr:`ReplayedGame.script`).
SHOW_NOTATIONS = (*WRITTEN_NOTATIONS, "chinese-simplified", "source")


@dataclass(slots=True)
class Failure:
    """One record that could not be read or replayed."""

    where: str
    """File, archive member and record number (and line or offset)."""
    error: str
    kind: ErrorKind
    ply: int | None = None
    text: str | None = None
    """The move text that failed."""

    def __str__(self) -> str:
        at = f", ply {self.ply}" if self.ply is not None else ""
        return f"{self.where}{at}: {self.error}"


@dataclass(slots=True)
class Tally:
    records: int = 0
    valid: int = 0
    invalid: int = 0


@dataclass
class ReadSummary:
    """Counts of what :func:`summarize` found."""

    replayed: bool = True
    sources: set[str] = field(default_factory=set)
    by_kind: dict[tuple[str, str], Tally] = field(default_factory=dict)
    kinds: Counter[ErrorKind] = field(default_factory=Counter)
    """Invalid records by kind of failure."""
    failures: list[Failure] = field(default_factory=list)
    """The failures kept, in reading order: every one, or the first few per kind."""
    unread: list[Failure] = field(default_factory=list)
    """Sources that gave no records, or not to their end, each with why (not a known
    format, cannot be opened, a reader that broke down)."""
    keep: int | None = None
    """How many failures to keep per kind (``None``: all of them)."""
    plies: int = 0
    seconds: float = 0.0

    @property
    def records(self) -> int:
        return sum(t.records for t in self.by_kind.values())

    @property
    def valid(self) -> int:
        return sum(t.valid for t in self.by_kind.values())

    @property
    def invalid(self) -> int:
        return sum(t.invalid for t in self.by_kind.values())

    def add(self, record: GameRecord, game: ReplayedGame | None) -> None:
        where = record.origin.path if record.origin.member is None else \
            f"{record.origin.path}!{record.origin.member}"
        self.sources.add(where)
        if is_source_failure(record):
            self.unread.append(Failure(where, record.error or "not read", record.error_kind))
            return
        tally = self.by_kind.setdefault((record.format, record.encoding or "-"), Tally())
        tally.records += 1
        failure: Failure | None = None
        if game is not None:
            self.plies += game.plies
            if not game.is_valid:
                failure = Failure(str(record.origin), game.error or "invalid",
                                  game.error_kind or record.error_kind, game.error_ply,
                                  game.error_text)
        elif record.error is not None:
            failure = Failure(str(record.origin), record.error, record.error_kind)
        if failure is None:
            tally.valid += 1
            return
        tally.invalid += 1
        self.kinds[failure.kind] += 1
        if self.keep is None or self.kinds[failure.kind] <= self.keep:
            self.failures.append(failure)

    def report(self, examples: int = 3, all_failures: bool = False) -> str:
        """The summary as text: a table per format and encoding, then the failures."""
        rate = f" ({self.records / self.seconds:,.0f} records/s)" if self.seconds > 0.05 else ""
        checked = "read and replayed" if self.replayed else "read (not replayed)"
        lines = [f"{_count(self.records, 'record')} {checked} from "
                 f"{_count(len(self.sources), 'source')} in {self.seconds:.1f} s{rate}", ""]
        rows = [("format", "encoding", "records", "valid", "invalid")]
        for (fmt, enc), t in sorted(self.by_kind.items(), key=lambda kv: -kv[1].records):
            rows.append((fmt, enc, f"{t.records:,}", f"{t.valid:,}", f"{t.invalid:,}"))
        if len(self.by_kind) > 1:
            rows.append(("total", "", f"{self.records:,}", f"{self.valid:,}", f"{self.invalid:,}"))
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        for row in rows:
            lines.append("  " + "  ".join(
                cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))
            ).rstrip())
        if self.replayed and self.records:
            lines.append("")
            lines.append(f"valid: {self.valid / self.records:.2%} of records, "
                         f"{self.plies:,} plies replayed")
        if self.unread:
            lines += ["", f"Sources not read: {len(self.unread):,}"]
            shown = self.unread if all_failures else self.unread[:max(examples, 10)]
            lines += [f"  {failure}" for failure in shown]
            if len(shown) < len(self.unread):
                lines.append(f"  ... and {len(self.unread) - len(shown):,} more "
                             "(--all-errors lists every one)")
        if not self.failures:
            return "\n".join(lines)
        lines += ["", f"Invalid records: {self.invalid:,}"]
        if all_failures and len(self.failures) == self.invalid:
            lines += [f"  {f}" for f in self.failures]
            return "\n".join(lines)
        by_kind: dict[ErrorKind, list[Failure]] = {}
        for failure in self.failures:
            shown = by_kind.setdefault(failure.kind, [])
            if len(shown) < examples:
                shown.append(failure)
        for kind, count in self.kinds.most_common():
            lines.append(f"  {count:>6,}  {kind.label}")
            for failure in by_kind.get(kind, []):
                lines.append(f"            {failure}")
        if any(count > examples for count in self.kinds.values()):
            lines.append("  (--all-errors lists every one)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.report()


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def summarize(paths: Iterable[str], format: str | None = None, encoding: str | None = None,
              replay_games: bool = True, keep: int | None = None) -> ReadSummary:
    """Read (and replay) every record under ``paths`` and count what was found; keeps
    ``keep`` failures per kind (all when ``None``), so memory stays flat."""
    summary = ReadSummary(replayed=replay_games, keep=keep)
    start = time.perf_counter()
    for record in read_paths(paths, format, encoding):
        summary.add(record, replay(record) if replay_games else None)
    summary.seconds = time.perf_counter() - start
    return summary


def nth_record(paths: Iterable[str], n: int, format: str | None = None,
               encoding: str | None = None) -> GameRecord:
    """The ``n``-th record (1-based) under ``paths``; :class:`LookupError` saying how many
    there are when there are fewer."""
    records: Iterator[GameRecord] = (r for r in read_paths(paths, format, encoding)
                                     if not is_source_failure(r))
    count = 0
    for count, record in enumerate(records, start=1):
        if count == n:
            return record
    raise LookupError(f"there {'is' if count == 1 else 'are'} only {_count(count, 'record')}")


def format_game(record: GameRecord, notation: str = "chinese") -> str:
    """One game as text: where it came from, tags, start, numbered moves, result.

    ``notation`` is one of :data:`SHOW_NOTATIONS`; ``source`` shows the texts as written.
    Moves after a failing one are not shown; the failure is.
    """
    game = replay(record)
    lines = [f"{record.origin}  ({record.format}, {record.encoding or '-'}, "
             f"moves in {record.notation})"]
    width = max((len(k) for k in record.tags), default=0)
    lines += [f"  {k.ljust(width)}  {v}" for k, v in record.tags.items() if v.strip()]
    lines.append(f"  start: {game.start_fen}")
    if notation == "source":
        texts = list(record.moves)
    elif notation == "chinese-traditional" or (notation == "chinese"
                                                and game.script == "traditional"):
        texts = [to_traditional(text) for text in game.chinese]
    elif notation.startswith("chinese"):
        texts = list(game.chinese)
    else:
        texts = _texts(game, notation)
    first_black = game.start_fen.split()[1:2] == ["b"]
    lines.append("")
    lines += numbered_moves(texts, first_black, episode_notes(
        (e.verdict_ply, e.kind, e.side, e.ending.result, e.first_ply, e.last_ply, e.played_on)
        for e in game.episodes))
    variations = record.mainline.count_variations()
    if variations:
        lines.append(f"  ({variations} variations kept)")
    if record.dropped_variations:
        lines.append(f"  ({dropped_message(record.dropped_variations)})")
    if not game.is_valid:
        at = f" at ply {game.error_ply} ({shorten(game.error_text or '')})" if game.error_ply else ""
        lines.append(f"  invalid{at}: {game.error}")
    lines.append(f"  result: {record.result or 'none'}"
                 + (f" ({game.termination})" if game.termination else ""))
    if game.end is not None:
        # The rules' verdict may contradict the recorded result: say why, so it can be checked.
        ending = game.end.ending
        lines.append(f"  ending: {ending.result} at ply {ending.ply}, {ending.reason}")
    elif game.is_valid:
        lines.append(NO_RULES_ENDING)
    lines += [played_on_line(e.ending.reason, e.first_ply, e.last_ply, game.plies)
              for e in game.episodes if e.played_on]
    return "\n".join(lines)


def _texts(game: ReplayedGame, notation: str) -> list[str]:
    """The replayed moves of ``game`` written in ``notation``."""
    pos = Position.from_fen(game.start_fen)
    texts = []
    for move in game.moves:
        texts.append(write_move(pos, move, notation))
        pos.push(move)
    return texts


def numbered_moves(texts: list[str], first_black: bool,
                   notes: dict[int, str] | None = None) -> list[str]:
    """Move texts as a score sheet writes them: one line per move number, Red's move and
    Black's in columns (aligned by display width: a Chinese character takes two), with
    ``notes`` (by 1-based ply) beside the line of their ply.

    >>> numbered_moves(["K4+1", "R1-1", "K4-1"], first_black=True, notes={3: "a draw"})
    ['    1. ...   K4+1', '    2. R1-1  K4-1  <- a draw']
    """
    notes = notes or {}
    plies = ([""] if first_black else []) + texts
    width = max((display_width(t) for t in texts), default=4)
    shift = 1 if first_black else 0
    out = []
    for i in range(0, len(plies), 2):
        red = plies[i] or "..."
        black = plies[i + 1] if i + 1 < len(plies) else ""
        pad = " " * (width - display_width(red))
        line = f"  {i // 2 + 1:>3}. {red}{pad}  {black}"
        said = [notes[p] for p in (i + 1 - shift, i + 2 - shift) if p in notes]
        if said:
            line += " " * (width - display_width(black)) + "  <- " + "; ".join(said)
        out.append(line.rstrip())
    return out


#: What ``read --show`` and ``show`` say of a record that ends otherwise than by the rules.
NO_RULES_ENDING = "  ending: none by the rules (resigned, agreed, on time or unfinished)"


def played_on_line(reason: str, first: int, last: int, plies: int) -> str:
    """The line saying an episode of the rules was played past.

    >>> played_on_line("repetition: ...", 17, 26, 72)
    '  played on: repetition: ... (plies 17-26; the record goes on to ply 72)'
    """
    return f"  played on: {reason} (plies {first}-{last}; the record goes on to ply {plies})"


def episode_notes(episodes: Iterable[tuple[int, str, str | None, str, int, int, bool]]
                  ) -> dict[int, str]:
    """What the rules said, by the ply of their verdict, for :func:`numbered_moves`, from
    ``(verdict_ply, kind, side at fault, verdict, first_ply, last_ply, played_on)`` rows.

    >>> episode_notes([(8, "perpetual_check", "red", "0-1", 1, 9, True)])
    {8: 'perpetual check by Red, 0-1 (plies 1-9), played on'}
    """
    notes: dict[int, str] = {}
    for ply, kind, side, verdict, first, last, played_on in episodes:
        what = kind.replace("_", " ") + (f" by {side.capitalize()}" if side else "")
        span = f"ply {first}" if first == last else f"plies {first}-{last}"
        text = f"{what}, {verdict} ({span}), {'played on' if played_on else 'the end'}"
        notes[ply] = f"{notes[ply]}; {text}" if ply in notes else text
    return notes
