"""The named reports of ``xqdb query`` on the six games of ``small_db``, every expected
figure counted by hand from the games listed there; and the corpus figures of
ccpd-dev.zip where the issue names them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from xqdb.errors import NotFoundError

from import_support import invoke_xqdb, run_xqdb
from xqdb.db.analysed import mark_analysed
from xqdb.db.queries import QueryError, list_queries, run_query
from xqdb.db.schema import connect


@pytest.fixture()
def con(db: Path):
    connection = connect(db, read_only=True)
    yield connection
    connection.close()


def rows(con: duckdb.DuckDBPyConnection, name: str, *columns: str, **params: str) -> list:
    """The report's rows, reduced to ``columns``."""
    return [tuple(r[c] for c in columns) for r in run_query(con, name, **params).records()]


def test_every_report_has_a_description_and_documented_parameters() -> None:
    for query in list_queries():
        assert query.description.endswith("."), query.name
        assert all(p.doc for p in query.params), query.name


def test_player_record_by_colour_year_and_opponent(con) -> None:
    # 胡荣华: game 1 won as Red against 吕钦 (2600), game 2 drawn as Black against 吕钦
    # (2600), game 3 lost as Red against 赵国荣 (unrated), game 4 won as Black against
    # 赵国荣; the fifth record is game 4 again and does not count twice.
    got = rows(con, "player", "kind", "group", "games", "wins", "draws", "losses", "points",
               "score", "rated", "opp_elo", "performance", player="胡荣华")
    assert got == [
        # 2.5 points of 4; rated games 1 and 2: 2600 + 400 x (1 win - 0 losses) / 2 = 2800.
        ("total", None, 4, 2, 1, 1, 2.5, 62.5, 2, 2600, 2800),
        # Red: games 1 and 3; the rated one won: 2600 + 400 x 1 / 1 = 3000.
        ("colour", "red", 2, 1, 0, 1, 1.0, 50.0, 1, 2600, 3000),
        # Black: games 2 and 4; the rated one drawn: 2600 + 0 = 2600.
        ("colour", "black", 2, 1, 1, 0, 1.5, 75.0, 1, 2600, 2600),
        ("year", "2002", 2, 1, 0, 1, 1.0, 50.0, 0, None, None),
        ("year", "2001", 2, 1, 1, 0, 1.5, 75.0, 2, 2600, 2800),
        ("opponent", "赵国荣", 2, 1, 0, 1, 1.0, 50.0, 0, None, None),
        ("opponent", "吕钦", 2, 1, 1, 0, 1.5, 75.0, 2, 2600, 2800),
    ]
    since_2002 = rows(con, "player", "kind", "games", "score", player="胡荣华", from_year="2002")
    assert since_2002[0] == ("total", 2, 50.0)


def test_head_to_head_from_the_first_player_s_side(con) -> None:
    got = rows(con, "head_to_head", "side", "games", "wins", "draws", "losses", "score",
               "first_year", "last_year", player="胡荣华", opponent="吕钦")
    assert got == [("red", 1, 1, 0, 0, 100.0, 2001, 2001),
                   ("black", 1, 0, 1, 0, 50.0, 2001, 2001),
                   ("total", 2, 1, 1, 0, 75.0, 2001, 2001)]
    reverse = rows(con, "head_to_head", "side", "wins", "losses", "score",
                   player="吕钦", opponent="胡荣华")
    assert reverse[-1] == ("total", 0, 1, 25.0)


def test_results_by_event(con) -> None:
    got = rows(con, "events", "event", "games", "red_wins", "draws", "black_wins",
               "red_score", "players", "first_year")
    # The record under 友谊赛 is game 4 again: it adds no event of its own.
    assert got == [("全国个人赛", 2, 0, 0, 2, 0.0, 2, 2002),
                   ("排局", 2, 0, 1, 1, 25.0, 3, 2003),
                   ("甲级联赛", 2, 1, 1, 0, 75.0, 2, 2001)]
    assert rows(con, "events", "event", event="联赛") == [("甲级联赛",)]


def test_longest_and_shortest_decisive_games(con) -> None:
    # Decisive from the opening position: game 1 (2 plies), 3 (3) and 4 (4); the
    # perpetual check (game 6, 8 plies, 0-1) starts from a set-up position.
    got = rows(con, "decisive_lengths", "kind", "rank", "game_id", "plies", "moves", limit="2")
    assert got == [("longest", 1, 4, 4, 2), ("longest", 2, 3, 3, 2),
                   ("shortest", 1, 1, 2, 1), ("shortest", 2, 3, 3, 2)]
    anywhere = rows(con, "decisive_lengths", "kind", "game_id", limit="1", start="any")
    assert anywhere == [("longest", 6), ("shortest", 1)]


def test_games_by_how_they_ended(con) -> None:
    got = rows(con, "endings", "termination", "games", "share", "red_wins", "draws",
               "black_wins", "recorded_agrees", "recorded_differs", "first_game")
    assert got == [("none", 4, 66.7, 0, 0, 0, 0, 0, 1),
                   ("checkmate", 1, 16.7, 1, 0, 0, 0, 1, 5),
                   ("perpetual_check", 1, 16.7, 0, 0, 1, 1, 0, 6)]


def test_results_the_rules_disagree_with(con) -> None:
    got = run_query(con, "disagreements").records()
    assert [(r["game_id"], r["recorded"], r["rules"], r["termination"]) for r in got] == [
        (5, "1/2-1/2", "1-0", "checkmate")]
    assert "checkmate" in got[0]["reason"]
    assert run_query(con, "disagreements", termination="repetition").rows == []


def test_near_duplicates_prefixes_and_retagged_records(con) -> None:
    got = rows(con, "near_duplicates", "kind", "game_id", "plies", "other_game",
               "source_id", "record_index", "differs", min_plies="1")
    assert got == [("prefix", 1, 2, 2, None, None, "the other game goes on for 1 plies"),
                   ("retagged", 4, 4, None, 1, 4, "Date, Event")]
    # Game 1's two plies are below the default minimum of 10.
    assert rows(con, "near_duplicates", "kind") == [("retagged",)]


#: Evaluations by hand: (game, plies played, side to move, wins per mille of the side to
#: move (no draws), best move: never the move played where a class is expected, since the
#: engine's own move is never classed), for engine "test-engine". The judgement views turn each
#: pair (before, after) of a move into the mover's loss: expected score before less
#: (1 - the opponent's expected score after).
EVALS = [
    (1, 0, "red", 500, "h2e2"),      # the start
    (1, 1, "black", 500, "h7e7"),    # after 炮二平五: ply 1 loses 0.5 - (1 - 0.5) = 0
    (1, 2, "red", 800, "b0c2"),      # after 马８进７: ply 2 loses 0.5 - 0.2 = 0.3, a blunder
    (2, 3, "black", 270, "b9c7"),    # game 2's 马二进三 loses 0.8 - 0.73 = 0.07: inaccuracy
    (3, 1, "black", 720, "b9c7"),    # game 3's 炮八平五 loses 0.5 - 0.28 = 0.22: blunder
    (3, 2, "red", 280, "b0c2"),      # ply 2: 0.72 - 0.72 = 0
    (3, 3, "black", 720, "h9g7"),    # ply 3: 0.28 - 0.28 = 0
    (6, 0, "black", 500, "d9d8"),    # the perpetual check: ply 1 loses 0
    (6, 1, "red", 500, "a9a7"),
    (6, 2, "black", 750, "d8d9"),    # ply 2 (Red) loses 0.5 - 0.25 = 0.25: blunder
    (6, 3, "red", 250, "a8a9"),      # ply 3: 0.75 - 0.75 = 0; plies 4-8 repeat positions,
]                                    # judged but never classed
#: A second engine that sees nothing wrong with 马８进７.
OTHER_EVALS = [(1, 1, "black", 500, "h7e7"), (1, 2, "red", 500, "h0g2")]


def analysed(db: Path, folder: Path) -> Path:
    """A copy of ``db`` with the evaluations above stored in ``evals``, as an analysis
    stores them; the database's views judge the moves."""
    copy = folder / "analysed.duckdb"
    shutil.copy(db, copy)
    con = duckdb.connect(str(copy))
    try:
        for engine, evals in (("test-engine", EVALS), ("zz-other", OTHER_EVALS)):
            for game, plies, side, wins, best in evals:
                key = con.execute(
                    "SELECT CASE WHEN ? = 0 THEN key_before ELSE key_after END FROM moves"
                    " WHERE game_id = ? AND ply = greatest(?, 1)", [plies, game, plies]
                ).fetchone()[0]
                con.execute("""INSERT INTO evals (key, side, engine, search_limit, score_cp,
                    wdl_win, wdl_draw, wdl_loss, best_move, status, origin)
                    VALUES (?, ?, ?, 'nodes=1', 0, ?, 0, ?, ?, 'ok', 'search')""",
                            [key, side, engine, wins, 1000 - wins, best])
        # As each analysis records the games it covered (games 1, 2, 3, 6; the second
        # engine games 1 and 2, which share its positions).
        mark_analysed(con, [1, 2, 3, 6], "test-engine", "nodes=1", [0, 0, 0, 0])
        mark_analysed(con, [1, 2], "zz-other", "nodes=1", [0, 0])
    finally:
        con.close()
    return copy


def test_analysis_reports_say_when_there_is_no_analysis(con, db: Path) -> None:
    with pytest.raises(QueryError, match="empty"):
        run_query(con, "common_blunders")
    result = invoke_xqdb("query", "blunder_phases", "--db", str(db))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "Error: blunder_phases reads evals, which is empty in this database: analyse some "
        "games first (xqdb analyze --db FILE)"]


def test_most_common_blunders_and_their_positions(db: Path, tmp_path: Path) -> None:
    with connect(analysed(db, tmp_path), read_only=True) as con:
        got = rows(con, "common_blunders", "side", "uci", "move", "times", "games",
                   "avg_loss", "best_move", "first_game", "first_ply")
        # 马８进７ after 炮二平五 in games 1 and 2; then by the larger loss. The second
        # engine's kinder word on 马８进７ does not count it again.
        assert got == [("black", "h9g7", "马８进７", 2, 2, 0.3, "h7e7", 1, 2),
                       ("red", "a9a8", "车九退一", 1, 1, 0.25, "a9a7", 6, 2),
                       ("red", "b2e2", "炮八平五", 1, 1, 0.22, "h2e2", 3, 1)]
        key = con.execute("SELECT key_before FROM moves WHERE game_id = 2 AND ply = 2"
                          ).fetchone()
        assert run_query(con, "common_blunders").rows[0][0] == key[0]
        assert rows(con, "common_blunders", "uci", "times", player="胡荣华") == [
            ("h9g7", 1), ("b2e2", 1)]
        assert rows(con, "common_blunders", "uci", **{"class": "inaccuracy"}) == [("h0g2",)]
        assert rows(con, "common_blunders", "uci", engine="zz") == []


def test_blunder_rate_by_phase(db: Path, tmp_path: Path) -> None:
    with connect(analysed(db, tmp_path), read_only=True) as con:
        got = rows(con, "blunder_phases", "player", "phase", "moves", "blunders", "per_100")
        # Judged: every move of games 1, 2, 3 and 6 (game 4 leaves the evaluated
        # positions at once). Game 6 has one chariot on the board: endgame.
        assert sorted(got) == sorted([
            ("胡荣华", "opening", 4, 2, 50.0),      # g1 p1, g2 p2 (blunder), g3 p1 (blunder), g3 p3
            ("吕钦", "opening", 3, 1, 33.3),        # g1 p2 (blunder), g2 p1, g2 p3 (inaccuracy)
            ("吕钦", "endgame", 4, 0, 0.0),         # g6 plies 1, 3, 5, 7
            ("许银川", "endgame", 4, 1, 25.0),      # g6 plies 2, 4, 6, 8 (ply 2 a blunder)
            ("赵国荣", "opening", 1, 0, 0.0),       # g3 p2
        ])
        short = rows(con, "blunder_phases", "phase", "moves", "blunders",
                     player="胡荣华", opening_plies="1")
        assert short == [("opening", 2, 1), ("middlegame", 2, 1)]
        other = rows(con, "blunder_phases", "player", "moves", "blunders", engine="zz")
        assert sorted(other) == [("吕钦", 1, 0), ("胡荣华", 1, 0)]


def test_reports_run_from_the_command_line_with_bound_parameters(db: Path) -> None:
    result = invoke_xqdb("query", "events", "--db", str(db), "-p", "event=联赛' OR '1'='1",
                      "--format", "csv")
    assert result.returncode == 0, result.stderr
    # The quote is bound as a value: no event's name contains it, so no row.
    assert result.stdout.splitlines() == [
        "event,games,red_wins,draws,black_wins,red_score,players,first_year,last_year"]
    result = invoke_xqdb("query", "head_to_head", "--db", str(db), "-p", "player=胡荣华",
                      "-p", "opponent=吕钦", "--format", "csv")
    assert result.stdout.splitlines()[-1] == "total,2,1,1,0,75.0,2001,2001"


def test_a_player_no_game_names_is_refused_with_the_closest_name(con) -> None:
    with pytest.raises(NotFoundError, match=r"^no player named '胡荣话'$") as found:
        run_query(con, "head_to_head", player="胡荣话", opponent="吕钦")
    assert found.value.hint.startswith("did you mean 胡荣华? ")
    with pytest.raises(NotFoundError, match="^no player named 'nobody'$") as found:
        run_query(con, "player", player="nobody")
    assert found.value.hint == "xqdb players --search TEXT finds the names"


def test_analysis_reports_after_a_real_analysis(db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "engine.duckdb"
    shutil.copy(db, copy)
    analysis = run_xqdb("analyze", "--db", str(copy), "--engine", "builtin", "--depth", "1",
                        "-j", "1")
    assert analysis.returncode == 0, analysis.stderr
    with connect(copy, read_only=True) as con:
        phases = run_query(con, "blunder_phases", **{"class": "inaccuracy"}).records()
        judged = con.execute("SELECT count(*), count(*) FILTER (class = 'inaccuracy')"
                             " FROM judgements").fetchone()
        # Every judged move lands in one player's phase (every game has both players).
        assert (sum(r["moves"] for r in phases), sum(r["blunders"] for r in phases)) == judged
        assert judged[0] > 0
    shown = invoke_xqdb("show", "--db", str(copy), "1")
    assert shown.returncode == 0
    assert "evaluations after each move from Red's side" in shown.stdout


def test_the_sql_and_python_tests_of_the_standard_start_agree(con) -> None:
    from xqdb.db.queries import create_shared_macros
    from xqdb.rules.position import STARTING_FEN, is_standard_start

    create_shared_macros(con)
    fens = [STARTING_FEN, STARTING_FEN.replace(" 0 1", " 4 9"), STARTING_FEN.replace(" w ", " b "),
            "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1"]
    for fen in fens:
        assert con.execute("SELECT standard_start(?)", [fen]).fetchone()[0] == \
            is_standard_start(fen), fen


@pytest.mark.parametrize("value", [str(2**63), str(2**31), str(-2**31 - 1)])
def test_a_number_too_large_for_a_report_is_refused_in_our_words(db: Path, value: str) -> None:
    # The reports cast their numbers to INTEGER: DuckDB's "Conversion Error ... INT32"
    # came back as the message.
    done = invoke_xqdb("query", "players", "--db", str(db), "--param", f"limit={value}")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"Error: players: --param limit={value}: limit is a whole number from -2147483648 "
        "to 2147483647"]
    done = invoke_xqdb("players", "--db", str(db), "--limit", value)
    assert done.returncode == 2 and "INT32" not in done.stderr
    assert "is not in the range 1<=x<=2147483647" in done.stderr


def test_a_player_search_takes_percent_and_underscore_as_themselves(con) -> None:
    # As LIKE patterns, they matched every player.
    assert run_query(con, "players", search="%").rows == []
    assert run_query(con, "players", search="_").rows == []
    assert len(run_query(con, "players", search="胡").rows) >= 1
