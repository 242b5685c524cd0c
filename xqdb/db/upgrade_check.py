"""The check an upgrade makes before its new database replaces the old one: that everything
defined to carry over did, row for row.

Each table is compared by its number of rows and a digest of their content: the sum of
the rows' 64-bit hashes, which a row lost, added or changed alters, and which the order
the rows were written in does not. Both files are attached to one in-memory connection,
so a digest is an aggregate DuckDB computes out of core, never rows held in Python.

What must be equal is what an upgrade carries over, not what it derives again:

* every source (its id, name, sha256 and size), and every raw record, one to one;
* every record read from them (``game_records``, ``positions``) and every game (by the
  record it was stored from);
* but not the section headings of CBL libraries, which versions up to 6 stored as invalid
  games, and which are no records now;
* the moves of each game whose replay is valid in both databases (an older version may
  have judged a record otherwise: its moves are then rightly not the same);
* the evaluations no record holds (an engine's), which games each pass covered, and the
  names users merged (``xqdb players alias``) whose spellings the records still give.

>>> for tally in compare("old.duckdb", "new.duckdb"):  # doctest: +SKIP
...     print(tally)
sources: 11,791 rows, the same in both
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

import duckdb

from ..errors import DatabaseError
from .memory import memory_limit_from_environment
from .rows import POSITION_FORMATS


class UpgradeCheckError(DatabaseError):
    """The upgraded database differs from the old one in what must carry over: the old
    one is kept as it was (exit code 4)."""


@dataclass(frozen=True)
class Tally:
    """One table's rows and digest in the old and in the new database."""

    table: str
    old_rows: int
    new_rows: int
    old_digest: int | None
    new_digest: int | None

    @property
    def same(self) -> bool:
        return (self.old_rows, self.old_digest) == (self.new_rows, self.new_digest)

    def __str__(self) -> str:
        if self.same:
            return f"{self.table}: {self.old_rows:,} rows, the same in both"
        if self.old_rows == self.new_rows:
            return (f"{self.table}: {self.old_rows:,} rows in both, but their content "
                    "differs")
        return (f"{self.table}: {self.old_rows:,} rows in the old database, "
                f"{self.new_rows:,} in the new")


#: A record an older version stored as an invalid game, and this one reads as no record:
#: a section heading between the games of a CBL library (``g`` is its game).
_HEADING = "g.format = 'cbr' AND g.error LIKE 'no game: the board is empty%'"
#: The formats whose records are positions, as SQL: an older version stored them as games.
_POSITIONS = ", ".join(f"'{f}'" for f in sorted(POSITION_FORMATS))
#: A record is known by its source and place in it (its ``record_index`` moves when a
#: heading before it is no record any more), and a game by its first record.
_GAME = ("(SELECT g.game_id, g.format, g.error, g.source_id, r.\"offset\", r.line"
         " FROM {db}.games g JOIN {db}.game_records r"
         " USING (game_id, source_id, record_index))")
#: What is compared, by table: the expression hashed for each row, and the rows (``{db}``
#: is the attached database's name). A table the old database lacks (the last word of
#: the name) is left out. Positions are records of their own table from schema 3 on, and
#: games before: they count among the records, and not among the games.
_CARRIED = {
    "sources": ("hash(source_id, path, member, sha256, bytes)", "{db}.sources"),
    "records of game_records": (
        "hash(source_id, line)",
        "(SELECT r.source_id, r.line FROM {db}.game_records r JOIN {db}.games g"
        f" USING (game_id) WHERE NOT coalesce({_HEADING}, false){{positions}})"),
    "raw_records": ("hash(w.source_id, w.text, w.data)",
                    "{db}.raw_records w JOIN {db}.games g USING (game_id)"
                    f" WHERE NOT coalesce({_HEADING}, false)"
                    f" AND g.format NOT IN ({_POSITIONS})"),
    "positions": ("hash(source_id, record_index, fen)", "{db}.positions"),
    "games": ("hash(g.source_id, g.\"offset\", g.line)",
              f"{_GAME} g WHERE NOT coalesce({_HEADING}, false)"
              f" AND g.format NOT IN ({_POSITIONS})"),
    "moves": ("hash(g.source_id, g.\"offset\", g.line, m.ply, m.uci)",
              "{db}.moves m JOIN " + _GAME + " g USING (game_id)"
              " JOIN valid_in_both v ON v.source_id = g.source_id"
              " AND v.\"offset\" IS NOT DISTINCT FROM g.\"offset\""
              " AND v.line IS NOT DISTINCT FROM g.line"),
    "aliases of player_names": ("hash(n.spelling, p.name)",
                                "{db}.player_names n JOIN {db}.players p USING (player_id)"
                                " WHERE n.decided_by = 'alias'"
                                " AND n.spelling IN (SELECT spelling FROM new.player_names)"),
}


def compare(old: str | os.PathLike[str], new: str | os.PathLike[str]) -> list[Tally]:
    """The tallies of every table that must carry over from ``old`` to ``new``."""
    con = duckdb.connect()
    try:
        memory = memory_limit_from_environment()
        if memory is not None:
            con.execute(f"SET memory_limit = '{memory}B'")
        for name, path in (("old", old), ("new", new)):
            quoted = os.fspath(path).replace("'", "''")
            con.execute(f"ATTACH '{quoted}' AS {name} (READ_ONLY)")
        return list(_tallies(con))
    finally:
        con.close()


def check(old: str | os.PathLike[str], new: str | os.PathLike[str]) -> list[Tally]:
    """The tallies, when every one is the same; else :class:`UpgradeCheckError` naming
    the first that is not."""
    tallies = compare(old, new)
    for tally in tallies:
        if not tally.same:
            raise UpgradeCheckError(f"{old}: the upgrade is refused, as its new database "
                                    f"differs from the old one: {tally} (the old database "
                                    "is kept as it was)")
    return tallies


#: The tables an upgrade in place builds from, and must leave as they are.
KEPT_IN_PLACE = ("sources", "game_records", "raw_records", "positions", "games",
                 "stored_moves", "variation_moves", "evals", "analysed_games", "player_names")


def kept_rows(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """The rows of each table of :data:`KEPT_IN_PLACE` that ``con``'s database has: an
    upgrade in place compares them before and after, in its one transaction (counts
    suffice there, as it writes none of those tables)."""
    present = {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE'"
    ).fetchall()}
    found = {}
    for table in KEPT_IN_PLACE:
        if table in present:
            row = con.execute(f"SELECT count(*) FROM {table}").fetchone()
            found[table] = int(row[0]) if row else 0
    return found


def check_kept(before: dict[str, int], after: dict[str, int], name: str) -> None:
    """Raise :class:`UpgradeCheckError` naming the first table of ``before`` whose rows
    ``after`` does not have as many of."""
    for table, rows in before.items():
        if after.get(table) != rows:
            raise UpgradeCheckError(f"{name}: the upgrade is refused, as it would change "
                                    f"{table}: {rows:,} rows before, {after.get(table, 0):,} "
                                    "after (the database is kept as it was)")


def _tallies(con: duckdb.DuckDBPyConnection) -> Iterator[Tally]:
    tables = {(db, t): [r[0] for r in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_catalog = ?"
        " AND table_name = ? ORDER BY ordinal_position", [db, t]).fetchall()]
        for db in ("old", "new")
        for t in ("sources", "raw_records", "game_records", "positions", "games", "moves",
                  "player_names", "players", "evals", "analysed_games")}
    if tables["old", "games"] and tables["old", "moves"]:
        valid = ("SELECT source_id, \"offset\", line FROM " + _GAME + " g"
                 " WHERE error IS NULL")
        con.execute(f"CREATE TEMP TABLE valid_in_both AS {valid.format(db='old')}"
                    f" INTERSECT {valid.format(db='new')}")
    for table, (row, rows) in _CARRIED.items():
        needs = table.split()[-1]
        if tables["old", needs] and tables["old", "games"]:
            yield _tally(con, table, row, {db: rows.format(db=db, positions=(
                f" UNION ALL SELECT source_id, line FROM {db}.positions"
                if tables[db, "positions"] else "")) for db in ("old", "new")})
    for table in ("evals", "analysed_games"):
        # Every column both have (a newer version adds some); the records' own
        # evaluations (engine comments) are read again with them, not carried.
        common = [c for c in tables["old", table] if c in tables["new", table]]
        if common:
            where = " WHERE origin <> 'comment'" if "origin" in common else ""
            names = ", ".join(f'"{c}"' for c in common)
            yield _tally(con, table, f"hash({names})",
                         {db: f"{db}.{table}{where}" for db in ("old", "new")})


def _tally(con: duckdb.DuckDBPyConnection, table: str, row: str, rows: dict[str, str]
           ) -> Tally:
    """``table``'s rows and the sum of each one's ``row`` hash, ``rows`` being the FROM
    clause of each database."""
    found = [con.execute(f"SELECT count(*), sum({row}) FROM {rows[db]}").fetchone()
             for db in ("old", "new")]
    (old_rows, old_digest), (new_rows, new_digest) = [f or (0, None) for f in found]
    return Tally(table, int(old_rows), int(new_rows),
                 None if old_digest is None else int(old_digest),
                 None if new_digest is None else int(new_digest))
