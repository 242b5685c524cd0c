"""``xqdb search``: games by position (any move order, mirror image) and by material,
checked against the games replayed in Python."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from browse_support import replayed_games
from import_support import invoke_xqdb, run_xqdb
from xqdb.cli import cli
from xqdb.db.schema import connect
from xqdb.db.selection import GameFilter
from xqdb.pipeline.importer import import_paths
from xqdb.position import Position
from xqdb.errors import BadArgumentError
from xqdb.rules.board import piece_symbol
from xqdb.browse.search import MaterialPattern, SearchError, mirrored, search_material, \
    search_position
from xqdb.position import position_after


@pytest.fixture(scope="module")
def small_db(small_collection: Path) -> Path:
    return small_collection


@pytest.fixture(scope="module")
def games(small_db: Path) -> dict[int, list[Position]]:
    return replayed_games(small_db)


def first_plies(games: dict[int, list[Position]], keys: set[int]) -> dict[int, int]:
    """Each game that reached one of ``keys``, with the first ply it did."""
    found = {}
    for game_id, positions in games.items():
        for ply, position in enumerate(positions):
            if position.zobrist() in keys:
                found[game_id] = ply
                break
    return found


@pytest.mark.parametrize("moves", ["", "炮二平五", "炮二平五 马8进7 马二进三", "C2.5 H8+7 H2+3",
                                   "兵七进一", "兵七进一 马8进7 炮二平五"])
def test_position_search_finds_every_game_that_reached_the_position(
        small_db: Path, games: dict[int, list[Position]], moves: str) -> None:
    position = position_after(moves)
    expected = first_plies(games, {position.zobrist()})
    with connect(small_db, read_only=True) as con:
        found = search_position(con, position, limit=10_000)
    rows = found.games.records()
    assert {r["game_id"]: r["ply"] for r in rows} == expected
    assert found.total == len(expected) > 0


def test_any_move_order_reaches_the_same_games(small_db: Path,
                                              games: dict[int, list[Position]]) -> None:
    orders: dict[int, dict[tuple[str, ...], set[int]]] = {}
    for game_id, positions in games.items():
        if len(positions) > 4 and positions[0].fen() == Position().fen():
            after = positions[4]
            line = tuple(str(m) for m in after.move_stack)
            orders.setdefault(after.zobrist(), {}).setdefault(line, set()).add(game_id)
    transposed = [lines for lines in orders.values() if len(lines) > 1]
    assert transposed, "the small database has games that transpose"
    with connect(small_db, read_only=True) as con:
        for lines in transposed:
            every_game = set().union(*lines.values())
            for line in lines:
                found = search_position(con, position_after(" ".join(line)), limit=10_000)
                assert every_game <= {r["game_id"] for r in found.games.records()}


def test_the_next_move_is_the_one_the_game_played(small_db: Path,
                                                  games: dict[int, list[Position]]) -> None:
    position = position_after("炮二平五 马8进7")
    with connect(small_db, read_only=True) as con:
        rows = search_position(con, position, notation="wxf", limit=10_000).games.records()
        stored = dict(((g, p), w) for g, p, w in con.execute(
            "SELECT game_id, ply, wxf FROM moves").fetchall())
    assert rows
    for row in rows:
        assert row["next"] == stored.get((row["game_id"], row["ply"] + 1))
    ended = [r for r in rows if r["next"] is None]
    assert all(len(games[r["game_id"]]) == r["ply"] + 1 for r in ended)


def test_next_move_in_a_notation_the_database_does_not_store(small_db: Path) -> None:
    with connect(small_db, read_only=True) as con:
        rows = search_position(con, Position(), notation="san", limit=10_000).games.records()
    counts = Counter(r["next"] for r in rows)
    # The central cannon is the commonest first move; in SAN it is written Che2.
    assert counts.most_common(1)[0][0] == "Che2"


def test_mirror_finds_the_mirror_image_and_says_so(small_db: Path,
                                                   games: dict[int, list[Position]]) -> None:
    left = position_after("炮八平五")
    right = position_after("炮二平五")
    assert mirrored(left).zobrist() == right.zobrist()
    with connect(small_db, read_only=True) as con:
        plain = search_position(con, left, limit=10_000)
        both = search_position(con, left, mirror=True, limit=10_000)
    assert {r["game_id"] for r in plain.games.records()} == set(
        first_plies(games, {left.zobrist()}))
    expected = first_plies(games, {left.zobrist(), right.zobrist()})
    rows = both.games.records()
    assert {r["game_id"]: r["ply"] for r in rows} == expected
    mirrored_games = {r["game_id"] for r in rows if r["mirrored"]}
    assert mirrored_games == set(first_plies(games, {right.zobrist()})) - set(
        first_plies(games, {left.zobrist()}))
    assert len(mirrored_games) > len(plain.games.rows)
    # The move played next is written as played, on the board the game had.
    assert {r["next"] for r in rows if r["mirrored"]} >= {"马８进７"}


def test_the_limit_lists_fewer_but_counts_all(small_db: Path) -> None:
    with connect(small_db, read_only=True) as con:
        found = search_position(con, Position(), limit=3)
        # Every valid game from the standard start is there at ply 0.
        from_start = con.execute("SELECT count(*) FROM games WHERE status = 'valid' AND "
                                 "start_key = ?", [Position().zobrist()]).fetchone()[0]
    assert len(found.games.rows) == 3 and found.total == from_start > 100


def material_of(position: Position) -> Counter[str]:
    return Counter(piece_symbol(p) for p in position.board if p)


@pytest.mark.parametrize("text,plies", [("R1 r1 C0 c0 N0 n0", 1), ("RR rr", 1), ("p0 P3+", 4),
                                        ("N2 n1 C2 c2", 1), ("R0-1 r2 A0", 10),
                                        ("RNC>rnc", 4), ("R0 RNC>=rnc P<p", 1)])
def test_material_search_agrees_with_the_replayed_boards(
        small_db: Path, games: dict[int, list[Position]], text: str, plies: int) -> None:
    pattern = MaterialPattern.parse(text)
    expected = {}
    for game_id, positions in games.items():
        fits = [pattern.matches(material_of(p)) for p in positions]
        for ply in range(len(fits)):
            if all(fits[ply:ply + plies]) and ply + plies <= len(fits):
                expected[game_id] = ply
                break
    with connect(small_db, read_only=True) as con:
        found = search_material(con, pattern, plies=plies, limit=10_000)
    assert {r["game_id"]: r["ply"] for r in found.games.records()} == expected
    assert found.total == len(expected)


def imported_pgn(folder: Path, name: str, text: str) -> Path:
    """A database of the PGN ``text``, imported by one worker."""
    record = folder / f"{name}.pgn"
    record.write_text(text, encoding="utf-8")
    db = folder / f"{name}.duckdb"
    import_paths([str(record)], db, jobs=1)
    return db

def test_material_that_fits_across_a_capture_counts_as_one_run(tmp_path: Path) -> None:
    # Both chariots each all game long; a pawn taken at ply 5 splits the material into two
    # states of 5 plies, which together fit for the whole game.
    db = imported_pgn(tmp_path, "pawns", '[Event "pawns"]\n\n1. c3c4 a6a5 2. c4c5 a5a4 '
                      '3. c5c6 a4a3 4. c6c7 a3a2 5. c7c8 *\n')
    with connect(db, read_only=True) as con:
        rows = [search_material(con, MaterialPattern.parse("R2 r2"), plies=n).games.records()
                for n in (6, 10, 11)]
    assert [[(r["ply"], r["next"]) for r in found] for found in rows] == [
        [(0, "兵七进一")], [(0, "兵七进一")], []]


@pytest.mark.parametrize("indexed", [True, False])
def test_material_that_fits_across_two_captures_counts_as_one_run(tmp_path: Path,
                                                                  indexed: bool) -> None:
    # Pawns taken at plies 4 and 8 split 12 plies into stretches of 4, 4 and 5 plies: no
    # two of them in a row last 10 plies, the three do (13). Read from material_spans, and
    # worked out from the moves for a game past the lookup tables.
    db = imported_pgn(tmp_path, "chain", '[Event "chain"]\n\n1. a3a4 c6c5 2. c3c4 c5c4 '
                      '3. g3g4 g6g5 4. e3e4 g5g4 5. i3i4 i6i5 6. a4a5 e6e5 *\n')
    with connect(db) as con:
        assert con.execute("SELECT ply, until FROM material_spans ORDER BY ply").fetchall() == [
            (0, 4), (4, 8), (8, 13)]
        if not indexed:
            con.execute("DELETE FROM material_spans")
            con.execute("UPDATE meta SET value = '0' WHERE key = 'lookups_through'")
        found = {n: search_material(con, MaterialPattern.parse("R2 r2 N2 n2"), plies=n)
                 for n in (1, 8, 10, 13, 14)}
    assert {n: [r["ply"] for r in f.games.records()] for n, f in found.items()} == {
        1: [0], 8: [0], 10: [0], 13: [0], 14: []}
    assert [f.total for f in found.values()] == [1, 1, 1, 1, 0]


def test_material_patterns() -> None:
    assert str(MaterialPattern.parse("RR,cc h0 E1-2 p3+")) == "R2 B1-2 n0 c2 p3-5"
    assert MaterialPattern.parse("Rr").matches({"R": 1, "r": 1, "C": 2})
    assert not MaterialPattern.parse("R1 P0").matches({"R": 1, "P": 1})
    balance = MaterialPattern.parse("RNC>rnc, P<=p")
    assert str(balance) == "RNC>rnc P<=p"
    assert balance.matches({"R": 2, "N": 1, "r": 2, "P": 3, "p": 3})
    assert not balance.matches({"R": 2, "N": 1, "r": 2, "n": 1, "P": 3, "p": 3})
    assert not balance.matches({"R": 2, "N": 1, "r": 2, "P": 4, "p": 3})
    for bad, says in [("R3", "at most 2 chariots"), ("X1", "not a piece letter"),
                      ("K1", "always has its king"), ("R1 R2", "counted twice"),
                      ("R R1", "counted twice"), ("P3-1", "empty range"), ("", "names no piece"),
                      ("P-2", "needs a number"), ("RK>rk", "'K' in 'RK' is not a piece"),
                      ("R>>r", "not a piece letter")]:
        with pytest.raises(SearchError, match=says):
            MaterialPattern.parse(bad)


# --- the command ---------------------------------------------------------------------------

def test_search_command_lists_games_as_csv_and_json(small_db: Path) -> None:
    done = run_xqdb("search", "--db", str(small_db), "--moves", "h2e2 h9g7", "--format", "json",
                    "--notation", "iccs")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert rows and set(rows[0]) == {"game_id", "ply", "red", "black", "result", "event", "date",
                                     "next"}
    assert all(r["ply"] == 2 for r in rows) and "H0-G2" in {r["next"] for r in rows}
    done = run_xqdb("search", "--db", str(small_db), "--material", "R1 r1 C0 c0 N0 n0",
                    "--plies", "2", "--format", "csv", "--limit", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "game_id,ply,red,black,result,event,date,next"
    assert len(done.stdout.splitlines()) == 3
    assert "(--limit 2 lists 2)" in done.stderr


@pytest.mark.parametrize("args,says,code", [
    (["--fen", "rnbakabnr/9/9 w"], "bad FEN", 2),
    (["--moves", "炮二平五 马8进7 车一进九"], "move 3: '车一进九'", 2),
    (["--moves", "hello"], "move 1: 'hello'", 2),
    (["--material", "R9"], "at most 2 chariots", 2),
])
def test_search_command_errors_are_one_line_and_a_hint(small_db: Path, args: list[str], says: str,
                                                       code: int) -> None:
    done = CliRunner().invoke(cli, ["search", "--db", str(small_db), *args])
    assert done.exit_code == code
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and says in lines[0]
    assert lines[0].endswith(")") and done.stdout == ""


def test_search_command_without_a_database(tmp_path: Path) -> None:
    done = CliRunner().invoke(cli, ["search", "--db", str(tmp_path / "none.duckdb"),
                                    "--moves", "h2e2"])
    assert done.exit_code == 4 and "no such database" in done.stderr
    done = CliRunner().invoke(cli, ["search", "--db", str(tmp_path / "none.duckdb")])
    assert done.exit_code == 2 and "give --fen, --moves or --material" in done.stderr


@pytest.mark.slow
def test_searches_over_ccpd_dev_agree_with_the_replayed_games(
        ccpd_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "ccpd.duckdb"
    shutil.copy(ccpd_db, db)
    games = replayed_games(db)
    assert len(games) > 8_000
    common = position_after("炮二平五 马8进7")
    pattern = MaterialPattern.parse("R1 r1 N0 n0 C0 c0")
    with connect(db, read_only=True) as con:
        for position in (Position(), common, mirrored(common)):
            found = search_position(con, position, limit=100_000)
            assert {r["game_id"]: r["ply"] for r in found.games.records()} == first_plies(
                games, {position.zobrist()})
        both = search_position(con, common, mirror=True, limit=100_000)
        assert both.total == len(first_plies(games, {common.zobrist(),
                                                     mirrored(common).zobrist()})) > 1_000
        found = search_material(con, pattern, plies=2, limit=100_000)
    expected = {}
    for game_id, positions in games.items():
        fits = [pattern.matches(material_of(p)) for p in positions]
        first = next((ply for ply in range(len(fits) - 1) if fits[ply] and fits[ply + 1]), None)
        if first is not None:
            expected[game_id] = first
    assert {r["game_id"]: r["ply"] for r in found.games.records()} == expected
    assert len(expected) > 50


@pytest.mark.parametrize("bitmap", [True, False])
def test_a_game_back_in_the_position_counts_once_at_its_first_ply(
        tmp_path: Path, bitmap: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # The first game shuffles its chariots back to the start twice (plies 4 and 8), so the
    # start has three rows for it: the listing and the count still take it once, at ply 0
    # (its ids counted in a bitmap, or, spread too wide for one, in a hash table).
    if not bitmap:
        from xqdb.db import fetch
        monkeypatch.setattr(fetch, "_BITMAP_IDS", 0)
    db = imported_pgn(tmp_path, "shuffle", '[Event "shuffle"]\n\n1. a0a1 a9a8 2. a1a0 a8a9 '
                      '3. a0a1 a9a8 4. a1a0 a8a9 5. h2e2 *\n\n[Event "other"]\n\n1. h2e2 h9g7 *\n')
    with connect(db, read_only=True) as con:
        listed = [search_position(con, Position(), limit=n) for n in (1, 2, 3)]
        shuffled = search_position(con, position_after("车九进一 车1进1"), limit=1)
        alone = search_position(con, Position(), limit=1, games=GameFilter(event="shuffle"))
    assert [found.total for found in listed] == [2, 2, 2]
    both = [(1, 0, "车九进一"), (2, 0, "炮二平五")]
    assert [[(r["game_id"], r["ply"], r["next"]) for r in found.games.records()]
            for found in listed] == [both[:1], both, both]
    assert shuffled.total == 1 and [(r["ply"], r["next"]) for r in
                                    shuffled.games.records()] == [(2, "车九退一")]
    assert alone.total == 1 and [(r["game_id"], r["ply"]) for r in alone.games.records()] == [
        (1, 0)]


@pytest.mark.parametrize("text,plies", [("RNC>rnc", 4), ("R2 r2", 20), ("RR rr", 1)])
def test_ids_too_spread_for_a_bitmap_are_counted_alike(
        small_db: Path, games: dict[int, list[Position]], text: str, plies: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Game ids spread wider than a bitmap holds are counted and listed through hash tables.
    from xqdb.db import fetch
    monkeypatch.setattr(fetch, "_BITMAP_IDS", 0)
    pattern = MaterialPattern.parse(text)
    expected = {}
    for game_id, positions in games.items():
        fits = [pattern.matches(material_of(p)) for p in positions]
        first = next((ply for ply in range(len(fits) - plies + 1)
                      if all(fits[ply:ply + plies])), None)
        if first is not None:
            expected[game_id] = first
    shuffled = position_after("炮二平五 马8进7")
    with connect(small_db, read_only=True) as con:
        found = search_material(con, pattern, plies=plies, limit=10_000)
        reached = search_position(con, shuffled, mirror=True, limit=10_000)
    assert {r["game_id"]: r["ply"] for r in found.games.records()} == expected
    assert found.total == len(expected) > 0
    keys = {shuffled.zobrist(), mirrored(shuffled).zobrist()}
    assert {r["game_id"]: r["ply"] for r in reached.games.records()} == first_plies(games, keys)
    assert reached.total == len(first_plies(games, keys)) > 0


@pytest.mark.parametrize("option", ["--limit", "--plies"])
def test_a_count_too_large_for_the_database_is_a_usage_error(small_db: Path, option: str
                                                             ) -> None:
    # 2**63 was handed to DuckDB, whose LIMIT failed with a traceback.
    args = ["--material", "R1"] if option == "--plies" else ["--moves", "h2e2"]
    done = invoke_xqdb("search", "--db", str(small_db), *args, option, str(2**63))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"Error: Invalid value for '{option}': {2**63} is not in the range "
        "1<=x<=2147483647. (see 'xqdb search --help')"]
    with connect(small_db, read_only=True) as con:
        with pytest.raises(BadArgumentError, match="limit 9223372036854775808 is more than "
                                                   "2147483647, the most a count can be"):
            search_position(con, Position(), limit=2**63)
        assert len(search_position(con, Position(), limit=2**31 - 1).games.rows) > 100


def test_the_event_filter_takes_percent_and_underscore_as_themselves(tmp_path: Path) -> None:
    # As LIKE patterns, '%' and '_' matched every game.
    events = ["Cup 1997", "50% of the prize", "club_open", "CLUB OPEN"]
    replies = ["h9g7", "b9c7", "h7e7", "c6c5"]  # a game each, no duplicates
    (tmp_path / "e.pgn").write_text("".join(
        f'[Event "{event}"]\n[Red "A"]\n[Black "B"]\n\n1. h2e2 {reply} *\n\n'
        for event, reply in zip(events, replies)), encoding="utf-8")
    db = tmp_path / "e.duckdb"
    import_paths([str(tmp_path / "e.pgn")], db, jobs=1)

    def found(text: str) -> list[str]:
        done = CliRunner().invoke(cli, ["search", "--db", str(db), "--moves", "h2e2",
                                        "--event", text, "--format", "json"])
        assert done.exit_code == 0, done.output
        return [row["event"] for row in json.loads(done.stdout)]

    assert found("%") == ["50% of the prize"]
    assert found("_") == ["club_open"]
    assert found("b_o") == ["club_open"]
    assert found("club") == ["club_open", "CLUB OPEN"]  # still blind to case
    assert found("%%") == found("\\") == []
    with connect(db, read_only=True) as con:
        listed = search_position(con, Position(), games=GameFilter(event="_")).games
        assert [r[listed.columns.index("event")] for r in listed.rows] == ["club_open"]
