"""What is in a database: counts, players, years, formats, positions, invalid records by
kind, and what its sources were (games, position lists, unreadable, passed over).

>>> import duckdb
>>> from xqdb.db.schema import create_schema
>>> con = duckdb.connect()
>>> create_schema(con)
>>> database_info(con).games
0
"""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb

from ..errors import ErrorKind
from ..formats.sources import SKIPPED_PREFIX
from .queries import create_shared_macros


@dataclass
class DatabaseInfo:
    """Counts about a database; ``str()`` is what ``xqdb info`` prints."""

    path: str = ""
    sources: int = 0
    game_sources: int = 0
    """Sources read whole that hold games (or nothing at all)."""
    position_sources: int = 0
    """Sources read whole that hold position lists (EPD)."""
    unreadable_sources: int = 0
    """Sources no reader recognised, or that could not be read (to the end)."""
    passed_over: int = 0
    """Files inside a folder left unread: FIFOs, devices, links out of the folder."""
    problem_sources: list[tuple[str, str]] = field(default_factory=list)
    """(source, error) of the unreadable and passed-over sources, the first few."""
    records: int = 0
    games: int = 0
    valid: int = 0
    invalid: int = 0
    duplicates: int = 0
    moves: int = 0
    positions: int = 0
    """Positions stored from position lists (EPD files), which are not games."""
    players: int = 0
    first_year: int | None = None
    last_year: int | None = None
    dated: int = 0
    top_players: list[tuple[str, int]] = field(default_factory=list)
    formats: list[tuple[str, str, int]] = field(default_factory=list)
    """(format, encoding, records)."""
    results: list[tuple[str, int]] = field(default_factory=list)
    endings: list[tuple[str, int]] = field(default_factory=list)
    """How valid games ended under the rules (checkmate, perpetual_check...), by count."""
    disagreements: int = 0
    """Valid games whose recorded result (``1-0``, ``0-1``, ``1/2-1/2``) contradicts how
    the record ends under the rules (``rules_result``): ``xqdb query disagreements``."""
    disagreement_kinds: list[tuple[str, int]] = field(default_factory=list)
    """The disagreements by kind (``wrong_way_round``, ``draw_after_perpetual``...)."""
    played_on: list[tuple[str, int]] = field(default_factory=list)
    """Episodes of the rules the players went past (``rule_events.played_on``), by kind:
    ``xqdb query played_on``."""
    doubtful_years: int = 0
    """Games whose Date tag's year was set aside as doubtful (``games.year_note``)."""
    invalid_kinds: list[tuple[ErrorKind, int]] = field(default_factory=list)
    """Invalid games by kind of failure (``games.error_kind``), the groups of ``xqdb read``."""

    def __str__(self) -> str:
        doubtful = (f"; {self.doubtful_years:,} doubtful years set aside or corrected"
                    if self.doubtful_years else "")
        years = (f"{self.first_year}-{self.last_year} ({self.dated:,} games dated{doubtful})"
                 if self.first_year is not None else "no dated games")
        lines = [
            f"database: {self.path}" if self.path else "database",
            f"  games:      {self.games:,} ({self.valid:,} valid, {self.invalid:,} invalid)",
            f"  records:    {self.records:,} from {self.sources:,} sources "
            f"({self.duplicates:,} duplicates linked to a kept game)",
            f"  sources:    {self.game_sources:,} of games, {self.position_sources:,} of "
            f"positions, {self.unreadable_sources:,} unreadable, {self.passed_over:,} passed over",
            f"  moves:      {self.moves:,}",
            *([f"  positions:  {self.positions:,} (from position lists, not games)"]
              if self.positions else []),
            f"  players:    {self.players:,}",
            f"  years:      {years}",
        ]
        if self.results:
            lines.append("  results:    " + ", ".join(f"{r} {n:,}" for r, n in self.results))
        if self.endings:
            lines.append("  endings:    " + ", ".join(f"{e.replace('_', ' ')} {n:,}"
                                                      for e, n in self.endings))
        if self.disagreements:
            kinds = ", ".join(f"{k.replace('_', ' ')} {n:,}" for k, n in self.disagreement_kinds)
            lines.append(f"  disagree:   {self.disagreements:,} recorded results contradict how "
                         f"the record ends ({kinds})")
        if self.played_on:
            total = sum(n for _, n in self.played_on)
            kinds = ", ".join(f"{k.replace('_', ' ')} {n:,}" for k, n in self.played_on)
            lines.append(f"  played on:  {total:,} episodes of the rules the players went past "
                         f"({kinds})")
        if self.top_players:
            lines.append("top players (games):")
            lines += [f"  {n:>7,}  {name}" for name, n in self.top_players]
        if self.formats:
            lines.append("formats (records):")
            lines += [f"  {n:>7,}  {fmt} {enc}" for fmt, enc, n in self.formats]
        if self.invalid_kinds:
            lines.append("invalid by kind:")
            lines += [f"  {n:>7,}  {kind.label}" for kind, n in self.invalid_kinds]
        if self.problem_sources:
            lines.append("sources unreadable or passed over:")
            lines += [f"  {source}: {error}" for source, error in self.problem_sources]
        return "\n".join(lines)


def database_info(con: duckdb.DuckDBPyConnection, top: int = 10, path: str = "") -> DatabaseInfo:
    """Gather :class:`DatabaseInfo` from an open database."""
    info = DatabaseInfo(path=path)

    def one(sql: str, params: dict[str, object] | None = None) -> tuple:
        row = con.execute(sql, params or {}).fetchone()
        assert row is not None
        return row

    info.sources, info.game_sources, info.position_sources, info.unreadable_sources, \
        info.passed_over = one(
            "SELECT count(*), count(*) FILTER (error IS NULL AND format IS DISTINCT FROM 'epd'),"
            " count(*) FILTER (error IS NULL AND format = 'epd'),"
            " count(*) FILTER (error IS NOT NULL AND NOT starts_with(error, $passed)),"
            " count(*) FILTER (starts_with(error, $passed)) FROM sources",
            {"passed": SKIPPED_PREFIX})
    info.problem_sources = [tuple(r) for r in con.execute(
        "SELECT path || coalesce('!' || member, ''), error FROM sources WHERE error IS NOT NULL"
        " ORDER BY source_id LIMIT ?", [top]).fetchall()]
    info.records, = one("SELECT count(*) FROM game_records")
    info.games, info.valid, info.invalid = one(
        "SELECT count(*), count(*) FILTER (status = 'valid'), count(*) FILTER (status = 'invalid')"
        " FROM games")
    info.games, info.valid, info.invalid = (info.games or 0, info.valid or 0, info.invalid or 0)
    info.duplicates, = one("SELECT count(*) FROM game_records WHERE NOT is_primary")
    info.moves, = one("SELECT count(*) FROM moves")
    info.positions, = one("SELECT count(*) FROM positions")
    # Players under their canonical names (xqdb players): one player's spellings count once.
    info.players, = one("SELECT count(*) FROM players")
    info.first_year, info.last_year, info.dated = one(
        "SELECT min(year), max(year), count(year) FROM games")
    info.top_players = [tuple(r) for r in con.execute(
        "SELECT p.name, count(*) AS n FROM (SELECT red_player_id AS player_id FROM games"
        " UNION ALL SELECT black_player_id FROM games) JOIN players p USING (player_id)"
        " GROUP BY p.name ORDER BY n DESC, p.name LIMIT ?", [top]).fetchall()]
    info.formats = [tuple(r) for r in con.execute(
        "SELECT coalesce(format, '?'), coalesce(encoding, '-'), count(*) AS n"
        " FROM game_records GROUP BY ALL ORDER BY n DESC, 1, 2").fetchall()]
    info.results = [tuple(r) for r in con.execute(
        "SELECT coalesce(result, 'none'), count(*) AS n FROM games GROUP BY ALL"
        " ORDER BY n DESC, 1").fetchall()]
    info.endings = [tuple(r) for r in con.execute(
        "SELECT coalesce(termination, 'none'), count(*) AS n FROM games WHERE status = 'valid'"
        " GROUP BY ALL ORDER BY n DESC, 1").fetchall()]
    create_shared_macros(con)
    info.disagreement_kinds = [tuple(r) for r in con.execute(
        "SELECT kind, count(*) AS n FROM (SELECT disagreement_kind(result, rules_result,"
        " termination) AS kind FROM games WHERE status = 'valid') WHERE kind IS NOT NULL"
        " GROUP BY ALL ORDER BY n DESC, 1").fetchall()]
    info.disagreements = sum(n for _, n in info.disagreement_kinds)
    info.played_on = [tuple(r) for r in con.execute(
        "SELECT kind, count(*) AS n FROM rule_events WHERE played_on"
        " GROUP BY ALL ORDER BY n DESC, 1").fetchall()]
    info.doubtful_years, = one("SELECT count(year_note) FROM games")
    info.invalid_kinds = [(ErrorKind(kind), n) for kind, n in con.execute(
        "SELECT error_kind, count(*) AS n FROM games WHERE status = 'invalid'"
        " GROUP BY error_kind ORDER BY n DESC, error_kind").fetchall()]
    return info
