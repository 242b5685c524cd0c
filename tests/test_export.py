"""``xqdb export``: PGN and DhtmlXQ that import again as the same games, and Parquet by year."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from xqdb.cli import cli
from xqdb.db.schema import connect
from xqdb.browse.export import ExportError, ExportTargetError, export_games
from xqdb.formats import dhtmlxq, pgn
from xqdb.formats.dhtmlxq import COLLECTION_BRANCHES
from xqdb.formats.record import GameRecord, Line, Origin
from xqdb.pipeline.importer import import_paths

#: Per game: its tags, and its variations' moves (variation, parent, branch ply, ply, move).
GAMES = """
    SELECT g.content_hash, g.tags, g.result,
           (SELECT list((v.variation, v.parent, v.branch_ply, v.ply, v.move)
                        ORDER BY v.variation, v.ply)
            FROM variation_moves v WHERE v.game_id = g.game_id)
    FROM games g WHERE g.status = 'valid'"""


@pytest.fixture(scope="module")
def small_db(small_collection: Path) -> Path:
    return small_collection


def games_of(db: Path) -> dict[int, tuple[dict[str, str], str | None, list | None]]:
    """The valid games of ``db`` by content hash: tags, result and variations."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {h: (json.loads(t), r, v) for h, t, r, v in con.execute(GAMES).fetchall()}
    finally:
        con.close()


def exported_and_imported(db: Path, folder: Path, fmt: str, notation: str | None = None,
                          **select: object) -> tuple[Path, Path]:
    """Export ``db`` to a file in ``folder`` and import that file into a new database."""
    out = folder / f"games.{notation or fmt}.{fmt}"
    with connect(db, read_only=True) as con:
        export_games(con, str(out), fmt, notation, **select)  # type: ignore[arg-type]
    fresh = folder / f"again.{notation or fmt}.duckdb"
    import_paths([str(out)], fresh, jobs=1)
    return out, fresh


def assert_same_games(before: dict, after: dict, added: tuple[str, ...] = ("FEN",)) -> None:
    """The same games, tags, results and variations; the tags ``added`` may be new.

    PGN writes the tags whose names it can (not 棋局类型, a dpxq.com key), and an empty
    ``Event`` for a record that has none (a bare move list), as games are told apart by
    their tags; a ``Format`` tag the record had names the notation the file is written in."""
    assert set(after) == set(before)
    for key, (tags, result, variations) in before.items():
        again, result_again, variations_again = after[key]
        tags = {k: v for k, v in tags.items() if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", k)}
        if not tags and again.get("Event") == "":
            del again["Event"]
        if "Format" in tags:  # a Format tag names the notation written: xqipu's ICCS...
            tags, again = ({k: v for k, v in t.items() if k != "Format"} for t in (tags, again))
        again = {k: v for k, v in again.items() if k in tags or k not in added}
        assert (again, result_again, variations_again) == (tags, result, variations)


# The default run takes one notation stored in the database and two written by replay.
@pytest.mark.parametrize("notation", ["chinese", "uci10", "san", *(
    pytest.param(n, marks=pytest.mark.slow)
    for n in ("chinese-traditional", "wxf", "iccs", "uci", "dhtmlxq"))])
@pytest.mark.slow
def test_pgn_imports_again_as_the_same_games_tags_and_variations(
        small_db: Path, tmp_path: Path, notation: str) -> None:
    out, fresh = exported_and_imported(small_db, tmp_path, "pgn", notation)
    before = games_of(small_db)
    # Texts in these notations do not tell it by themselves: a Format tag says it.
    told = notation in ("uci10", "dhtmlxq", "san")
    assert_same_games(before, games_of(fresh), ("FEN", "Format") if told else ("FEN",))
    assert sum(1 for _, _, v in before.values() if v) >= 15  # variations were tested
    con = duckdb.connect(str(fresh), read_only=True)
    assert con.execute("SELECT count(*) FROM games WHERE status <> 'valid'").fetchone() == (0,)


def test_a_game_from_a_setup_position_gets_a_fen_tag(small_db: Path, tmp_path: Path) -> None:
    with connect(small_db, read_only=True) as con:
        game_id, fen = con.execute(
            "SELECT game_id, start_fen FROM games WHERE status = 'valid' AND "
            "tags->>'FEN' IS NULL AND start_fen NOT LIKE 'rnbakabnr/9/1c5c1/%' LIMIT 1"
        ).fetchone()
    out, fresh = exported_and_imported(small_db, tmp_path, "pgn", game_ids=[game_id])
    assert f'[FEN "{fen}"]' in out.read_text(encoding="utf-8")
    con = duckdb.connect(str(fresh), read_only=True)
    assert con.execute("SELECT start_fen FROM games").fetchall() == [(fen,)]


@pytest.mark.slow
def test_dhtmlxq_imports_again_as_the_same_games(small_db: Path, tmp_path: Path) -> None:
    out, fresh = exported_and_imported(small_db, tmp_path, "dhtmlxq")
    before, after = games_of(small_db), games_of(fresh)
    # A block without a result and with ten variations or more reads as a collection of
    # games, one per line of play (as the DhtmlXQ opening books are): documented.
    collections = {h for h, (_, result, variations) in before.items()
                   if result in (None, "*") and variations
                   and max(v[0] for v in variations) >= COLLECTION_BRANCHES}
    assert len(collections) >= 1
    assert set(before) <= set(after)
    # A line of such a collection may be a game stored on its own as well (the 五羊杯
    # series of FiveGoatsTest.xqf holds games of the 吕钦 library of 2001): read again,
    # the line comes first and the game is linked to it, with the line's tags.
    con = duckdb.connect(str(fresh), read_only=True)
    linked = {h for (h,) in con.execute(
        "SELECT content_hash FROM games JOIN game_records USING (game_id) "
        "GROUP BY content_hash HAVING count(*) > 1").fetchall()}
    con.close()
    for key, (tags, result, variations) in before.items():
        if key in linked:
            continue
        again, result_again, variations_again = after[key]
        assert result_again == result
        if key not in collections:
            assert variations_again == variations
        # Tags with a DhtmlXQ name come back as they were, others in lower case; the
        # result is a tag of its own.
        expected = {k.lower(): v for k, v in tags.items() if v and k not in ("FEN", "Format")}
        if result and "Result" not in tags:
            expected["result"] = result
        assert {k.lower(): v for k, v in again.items() if k != "FEN"} == expected
    assert out.read_text(encoding="utf-8").count("[DhtmlXQ]") == len(before)


def test_invalid_games_are_skipped_and_counted(small_db: Path, tmp_path: Path) -> None:
    with connect(small_db, read_only=True) as con:
        invalid, valid = con.execute("SELECT count(*) FILTER (status <> 'valid'), "
                                     "count(*) FILTER (status = 'valid') FROM games").fetchone()
        summary = export_games(con, str(tmp_path / "all.pgn"), "pgn")
    assert invalid > 0
    assert (summary.games, summary.invalid_skipped) == (valid, invalid)
    assert f"{invalid} invalid games skipped" in str(summary)


def test_where_and_game_select_the_games(small_db: Path, tmp_path: Path) -> None:
    with connect(small_db, read_only=True) as con:
        ids = [r[0] for r in con.execute("SELECT game_id FROM games WHERE status = 'valid' "
                                         "AND year = 1989 ORDER BY game_id").fetchall()]
        picked = export_games(con, str(tmp_path / "a.pgn"), "pgn", where="year = 1989")
        one = export_games(con, str(tmp_path / "b.pgn"), "pgn", game_ids=ids[:2])
        both = export_games(con, str(tmp_path / "c.pgn"), "pgn", where="year = 1990",
                            game_ids=ids[:2])
        with pytest.raises(ExportError, match="cannot select the games"):
            export_games(con, str(tmp_path / "d.pgn"), "pgn", where="no_such_column = 1")
    assert picked.games == len(ids) > 2 and one.games == 2 and both.games == 0


def test_parquet_is_partitioned_by_year(small_db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "parquet"
    with connect(small_db, read_only=True) as con:
        summary = export_games(con, str(folder), "parquet")
        games, moves = con.execute("SELECT (SELECT count(*) FROM games), "
                                   "(SELECT count(*) FROM moves)").fetchone()
        years = {r[0] for r in con.execute("SELECT DISTINCT year FROM games").fetchall()}
        first = con.execute("SELECT * FROM moves ORDER BY game_id, ply LIMIT 1").fetchone()
    assert summary.games == games
    assert {p.name for p in (folder / "games").iterdir()} == {
        f"year={'__HIVE_DEFAULT_PARTITION__' if y is None else y}" for y in years}
    other = duckdb.connect()
    read = "read_parquet('{}/*/*.parquet', hive_partitioning = true)"
    assert other.execute(f"SELECT count(*), count(*) FILTER (year IS NULL) > 0 "
                         f"FROM {read.format(folder / 'games')}").fetchone() == (games, True)
    assert other.execute(f"SELECT count(*) FROM {read.format(folder / 'moves')}").fetchone() == (moves,)
    row = other.execute(f"SELECT * EXCLUDE (year) FROM {read.format(folder / 'moves')} "
                        "ORDER BY game_id, ply LIMIT 1").fetchone()
    assert row == first
    with connect(small_db, read_only=True) as con:
        with pytest.raises(ExportTargetError, match="not an empty"):
            export_games(con, str(folder), "parquet")
        ids = [r[0] for r in con.execute("SELECT game_id FROM games WHERE year = 1989 "
                                         "ORDER BY game_id LIMIT 3").fetchall()]
        some = export_games(con, str(tmp_path / "some"), "parquet", where="year = 1989",
                            game_ids=[*ids, 1])
    assert some.games == len(ids) == 3 == other.execute(
        f"SELECT count(*) FROM {read.format(tmp_path / 'some' / 'games')}").fetchone()[0]


def test_export_command(small_db: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    with connect(small_db, read_only=True) as con:
        game_id = con.execute("SELECT min(game_id) FROM games WHERE status = 'valid' "
                              "AND variations > 0").fetchone()[0]
    done = runner.invoke(cli, ["export", "--db", str(small_db), "--format", "dhtmlxq",
                               "--game", str(game_id), "--out", "-"])
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith("[DhtmlXQ]") and "[DhtmlXQ_move_0_" in done.stdout
    assert "wrote 1 game to -" in done.stderr
    done = runner.invoke(cli, ["export", "--db", str(small_db), "--notation", "wxf",
                               "--where", "year = 1989", "--out", str(tmp_path / "w.pgn")])
    assert done.exit_code == 0 and "games to" in done.stdout
    assert "C2.5" in (tmp_path / "w.pgn").read_text(encoding="utf-8")
    # 2 for what was asked, as for the other commands; 3 for where it was to be written.
    for args, says, code in [
            (["--where", "year ="], "cannot select the games", 2),
            (["--format", "parquet", "--notation", "wxf"], "no choice of notation", 2),
            (["--out", str(tmp_path / "no" / "x.pgn")], "cannot write", 3)]:
        done = runner.invoke(cli, ["export", "--db", str(small_db), "--out",
                                   str(tmp_path / "x.pgn"), *args])
        lines = done.stderr.splitlines()
        assert done.exit_code == code and len(lines) == 1 and says in lines[0], done.stderr
        assert lines[0].startswith("Error: ") and lines[0].endswith(")")


@pytest.mark.slow
def test_every_game_of_ccpd_dev_imports_again_the_same(ccpd_db: Path, tmp_path: Path) -> None:
    source = tmp_path / "ccpd.duckdb"
    shutil.copy(ccpd_db, source)
    before = games_of(source)
    con = duckdb.connect(str(source), read_only=True)
    records, invalid = con.execute("SELECT (SELECT count(*) FROM game_records), (SELECT count(*) "
                                   "FROM games WHERE status <> 'valid')").fetchone()
    con.close()
    # 11,791 records, of which the same game told twice is one game.
    assert records == 11_791 and len(before) > 8_000 and invalid < 10
    _, fresh = exported_and_imported(source, tmp_path, "pgn")
    assert_same_games(before, games_of(fresh), added=())


def flattened(line: Line) -> list[tuple[int, int, tuple[str, ...], str | None]]:
    """A tree of lines as (depth, branch index, moves, first comment), walked without
    recursion."""
    out = []
    stack = [(line, 0, 0)]
    while stack:
        current, depth, at = stack.pop()
        out.append((depth, at, tuple(current.moves), current.comments.get(1)))
        stack.extend((v, depth + 1, i) for i, v in reversed(current.variations))
    return out


@pytest.mark.parametrize("fmt", ["pgn", "dhtmlxq"])
def test_variations_nested_deeper_than_the_recursion_limit(fmt: str) -> None:
    # Each variation replaces the second move of the one above it, 3,000 deep.
    texts = {"pgn": ("h2e2", "h9g7", "b9c7"), "dhtmlxq": ("7747", "7062", "1022")}[fmt]
    main = Line(moves=list(texts[:2]), comments={1: "main"})
    line = main
    for depth in range(3000):
        variation = Line(moves=[texts[2 - depth % 2], texts[1 + depth % 2]])
        line.variations.append((1, variation))
        line = variation
    writer, reader = (pgn.write, pgn.read) if fmt == "pgn" else (dhtmlxq.write, dhtmlxq.read)
    record = GameRecord(Origin("deep"), fmt, tags={"Event": "deep"}, notation=fmt if fmt ==
                        "dhtmlxq" else "uci", result="1-0", mainline=main)
    back = next(reader(io.BytesIO(writer(record).encode()), Origin("deep")))
    assert len(flattened(main)) == 3001
    if fmt == "pgn":
        # The PGN reader keeps 100 levels as it parses (a record of megabytes of "(" would
        # build millions of lines); the rest are counted.
        assert flattened(back.mainline) == [row for row in flattened(main) if row[0] <= 100]
        assert back.dropped_variations == 2900
    else:
        assert flattened(back.mainline) == flattened(main)
