"""How a record really ends, and what the rules said on the way: real CCPD games (copied
to ``tests/data/ccpd/endings``), minimal copies of cases from larger collections, and
pyffish as the oracle at the end of every record."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import duckdb
import pyffish
import pytest

from datafiles import DATA
from import_support import invoke_xqdb
from xqdb.db.info import database_info
from xqdb.db.queries import run_query
from xqdb.formats import read_paths
from xqdb.formats.record import GameRecord, Origin
from xqdb.formats.tags import read_dating
from xqdb.pipeline.importer import import_paths
from xqdb.formats.player_names import canonical_names
from xqdb.replay import replay
from xqdb import Position
from xqdb.rules import Termination, adjudicate
from xqdb.rules.adjudication import game_episodes, record_end, settling

ENDINGS = DATA / "ccpd" / "endings"
KING_AND_ROOK = "R2k5/9/9/9/9/9/9/9/9/5K3 b"
CHECKS = ["d9d8", "a9a8", "d8d9", "a8a9"]  # Red's rook checks with every move


def to_ffish(move: str) -> str:
    return f"{move[0]}{int(move[1]) + 1}{move[2]}{int(move[3]) + 1}"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("endings") / "endings.duckdb"
    import_paths([str(ENDINGS)], path, jobs=1)
    return path


def game_row(db: Path, file: str, columns: str) -> tuple:
    con = duckdb.connect(str(db), read_only=True)
    try:
        row = con.execute(f"SELECT {columns} FROM games g JOIN sources s USING (source_id)"
                          " WHERE s.path LIKE ?", [f"%{file}"]).fetchone()
        assert row is not None, file
        return row
    finally:
        con.close()


def events(db: Path, file: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(
            "SELECT first_ply, e.verdict_ply, last_ply, kind, side, verdict, settles, played_on"
            " FROM rule_events e JOIN games g USING (game_id) JOIN sources s USING (source_id)"
            " WHERE s.path LIKE ? ORDER BY verdict_ply", [f"%{file}"]).fetchall()
    finally:
        con.close()


# --- the end of the record -----------------------------------------------------------------

def test_a_perpetual_check_the_checker_changes_is_played_on_not_the_end(db: Path) -> None:
    # 90年杭州個人賽, 傅光明 - 張廣增, 1-0: Red checks with every move from ply 110 to 118,
    # then changes at ply 119 (車四退五) and the game goes on; the record ends at ply 120.
    # The first ending was stored before: Red losing by perpetual check.
    file = "perpetual-check-played-on-00007165.pgn"
    assert game_row(db, file, "result, termination, rules_result, verdict_ply, plies") == \
        ("1-0", None, None, None, 120)
    assert events(db, file) == [(110, 117, 118, "perpetual_check", "red", "0-1", "must_change",
                                 True)]


def test_a_repetition_early_in_a_won_game_is_an_episode(db: Path) -> None:
    # 世界盃: a repetition at plies 17-26 of a 72-ply game that Red then won.
    file = "early-repetition-then-won-00000962.pgn"
    assert game_row(db, file, "result, termination, rules_result, plies") == \
        ("1-0", None, None, 72)
    (first, _, last, kind, side, verdict, settles, played_on), = events(db, file)
    assert (first, last, kind, side, verdict, settles, played_on) == \
        (17, 26, "repetition", None, "1/2-1/2", "claimed", True)


def test_perpetual_check_then_mate_is_a_win_for_the_mating_side() -> None:
    # A minimal copy of the adjudicating site's games: the mating side gave perpetual check
    # earlier (plies 1-9), then changed (f0e0) and mated (a9d9: the king faces Red's king
    # on the e file and cannot leave the d file).
    moves = CHECKS * 2 + ["d9d8", "f0e0", "d8d7", "a9d9"]
    found = game_episodes(KING_AND_ROOK, moves)
    assert [(e.kind, e.ending.result, e.first_ply, e.last_ply, e.played_on) for e in found] == [
        ("perpetual_check", "0-1", 1, 9, True), ("checkmate", "1-0", 12, 12, False)]
    assert record_end(found).ending.result == "1-0"
    # The first ending is still what adjudicate gives: the perpetual check.
    assert adjudicate(KING_AND_ROOK, moves).name == "perpetual_check"
    fen = Position.from_fen(KING_AND_ROOK).fen()
    assert pyffish.legal_moves("xiangqi", fen, [to_ffish(m) for m in moves]) == []


def test_a_cycle_ends_the_record_within_two_plies_unless_the_offender_moves() -> None:
    for extra, ends in (([], True), (["d9d8"], True), (["d9d8", "a9a7"], False)):
        end = record_end(game_episodes(KING_AND_ROOK, CHECKS * 2 + extra))
        # Red, at fault, must change: a Red move after the cycle is the change.
        assert (end is not None and end.kind == "perpetual_check") is ends, extra
    shuffle = ["d0d1", "e9e8", "d1d0", "e8e9"] * 2
    start = "4k4/9/9/9/9/9/9/9/9/3K5 w"
    assert record_end(game_episodes(start, shuffle + ["d0d1", "e9f9"])).kind == "repetition"
    assert record_end(game_episodes(start, shuffle + ["d0d1", "e9f9", "d1d2", "f9f8"])) is None


def test_the_move_limit_ends_a_record_at_or_after_it(db: Path) -> None:
    # 許銀川 00002154.pgn: 333 plies, the last 120 without a capture, drawn.
    file = "move-limit-00002154.pgn"
    assert game_row(db, file, "result, termination, rules_result, verdict_ply, end_ply, plies"
                    ) == ("1/2-1/2", "move_limit", "1/2-1/2", 333, 333, 333)
    assert events(db, file)[-1][3:] == ("move_limit", None, "1/2-1/2", "claimed", False)


def test_claimed_forced_or_must_change_per_kind() -> None:
    assert {t.value: settling(t) for t in Termination} == {
        "checkmate": "forced", "stalemate": "forced", "perpetual_check": "must_change",
        "perpetual_chase": "must_change", "repetition": "claimed", "move_limit": "claimed"}


# --- reports ---------------------------------------------------------------------------------

def test_disagreements_list_only_results_that_contradict_the_end(db: Path) -> None:
    con = duckdb.connect(str(db), read_only=True)
    try:
        result = run_query(con, "disagreements")
        info = database_info(con)
    finally:
        con.close()
    at = {c: i for i, c in enumerate(result.columns)}
    found = {(row[at["kind"]], row[at["termination"]], row[at["recorded"]], row[at["rules"]])
             for row in result.rows}
    assert found == {
        # 楊官璘 00000343: Black's cannon chases Red's chariot to the end, recorded a draw.
        ("draw_after_perpetual", "perpetual_chase", "1/2-1/2", "1-0"),
        # 世界盃 00000143: Red mates at ply 49; the record says Black won.
        ("wrong_way_round", "checkmate", "0-1", "1-0"),
        # 呂欽 00002535: the record ends in a repetition (plies 87-114); Black is recorded
        # the winner. Its perpetual check at plies 69-76 was played on.
        ("decisive_after_repetition", "repetition", "0-1", "1/2-1/2"),
    }
    assert {"verdict_ply", "end_ply", "plies"} <= set(at)
    assert info.disagreements == 3
    assert dict(info.disagreement_kinds) == {"draw_after_perpetual": 1, "wrong_way_round": 1,
                                             "decisive_after_repetition": 1}
    assert dict(info.played_on) == {"perpetual_check": 2, "repetition": 1}
    assert "played on:  3 episodes" in str(info)


def test_played_on_counts_the_episodes_per_kind_and_player(db: Path) -> None:
    con = duckdb.connect(str(db), read_only=True)
    try:
        result = run_query(con, "played_on", kind="perpetual_check")
    finally:
        con.close()
    at = {c: i for i, c in enumerate(result.columns)}
    rows = {(r[at["player"]], r[at["episodes"]], r[at["as_red"]], r[at["as_black"]],
             r[at["then_won"]]) for r in result.rows}
    # 傅光明 checked perpetually as Red and changed, then won; 柳大華 (呂欽 00002535)
    # checked as Red at plies 69-76 and changed.
    assert ("傅光明", 1, 1, 0, 1) in rows
    assert len(rows) == 2


def test_show_and_read_list_the_episodes_beside_the_moves(db: Path) -> None:
    game_id, = game_row(db, "perpetual-check-played-on-00007165.pgn", "game_id")
    shown = invoke_xqdb("show", "--db", str(db), str(game_id))
    assert shown.returncode == 0, shown.stderr
    line = next(l for l in shown.stdout.splitlines() if l.lstrip().startswith("59."))
    assert line.endswith("<- perpetual check by Red, 0-1 (plies 110-118), played on")
    assert "ending: none by the rules" in shown.stdout
    assert "played on: perpetual check by Red: Red gave check with every move from ply 111 " \
           "to ply 117 (plies 110-118; the record goes on to ply 120)" in shown.stdout
    read = invoke_xqdb("read", str(ENDINGS / "perpetual-check-played-on-00007165.pgn"),
                       "--show", "1")
    assert read.returncode == 0, read.stderr
    assert "<- perpetual check by Red, 0-1 (plies 110-118), played on" in read.stdout
    assert "ending: none by the rules" in read.stdout


# --- pyffish at the end of every record -------------------------------------------------------

def pyffish_at_end(fen: str, moves: list[str]) -> tuple[str | None, str | None]:
    """(forced result, claimable result) pyffish gives after ``moves``."""
    red = (len(moves) % 2 == 0) == (fen.split()[1] == "w")

    def result(value: int) -> str:
        return "1/2-1/2" if value == 0 else ("1-0" if (value > 0) == red else "0-1")
    forced = None
    if not pyffish.legal_moves("xiangqi", fen, moves):
        forced = result(pyffish.game_result("xiangqi", fen, moves))
    ended, value = pyffish.is_optional_game_end("xiangqi", fen, moves)
    return forced, result(value) if ended else None


def agrees_with_pyffish(game) -> bool:  # noqa: ANN001 - a ReplayedGame
    fen = Position.from_fen(game.start_fen).fen()
    moves = [to_ffish(m) for m in game.uci]
    forced, claimable = pyffish_at_end(fen, moves)
    ours = game.termination
    if ours in ("checkmate", "stalemate"):
        return forced == game.rules_result and claimable is None
    if ours is None:
        return forced is None and claimable is None
    # A cycle that ends a ply or two before the record's end: pyffish sees it there.
    return forced is None and any(
        pyffish_at_end(fen, moves[:len(moves) - back])[1] == game.rules_result
        for back in range(3))


def test_the_record_end_agrees_with_pyffish_on_the_games_that_differed(
        shared_data: Path) -> None:
    """The 12 CCPD games whose *first* ending differs from pyffish's: at the end of the
    record xqdb and pyffish agree on every one (11 end otherwise, 1 in a repetition)."""
    ends = []
    for index, line in enumerate((shared_data / "adjudication-differs.jsonl").read_text(
            encoding="utf-8").splitlines()):
        item = json.loads(line)
        record = GameRecord(origin=Origin("differs", item["path"], index), format="pgn",
                            notation="uci", fen=item["fen"])
        record.moves.extend(item["moves_uci"])
        game = replay(record, move_limit=100)
        assert agrees_with_pyffish(game), item["path"]
        ends.append(game.termination)
    assert ends.count(None) == 11


@pytest.mark.parametrize("step", [
    9,  # one game in nine (125 games), in the daily run
    pytest.param(1, marks=pytest.mark.slow),  # all 1,125: some 25 s
])
def test_the_record_end_agrees_with_pyffish_on_the_liu_dahua_games(shared_data: Path,
                                                                   step: int) -> None:
    records = read_paths([str(shared_data / "uci" / "liu-dahua-1125.pgn")])
    games = [replay(r, move_limit=100) for index, r in enumerate(records) if not index % step]
    assert len(games) == len(range(0, 1125, step))
    assert all(agrees_with_pyffish(g) for g in games)
    # The first ending is kept apart: many more games met one on the way.
    assert sum(g.ending is not None for g in games) > 2 * sum(g.end is not None for g in games)


# --- dates and names ---------------------------------------------------------------------------

def test_doubtful_years_are_set_aside_or_taken_from_the_event(db: Path) -> None:
    # A minimal copy of the larger archive's game: Date 1193.4.30, event 93全國象棋錦標賽.
    assert read_dating("1193.4.30", "93全國象棋錦標賽").year == 1993
    # 趙國榮 00000521: Date 1882年12月5日, event 1982年全國象棋個人賽.
    assert game_row(db, "date-1882-00000521.pgn", "date_raw, year, date, year_note") == (
        "1882年12月5日", 1982, datetime.date(1982, 12, 5),
        "the Date tag's year 1882 is doubtful; 1982 is the event's")
    # 中炮局 00003109: Date 1905-6-17, event 七屆亞洲名手賽: nothing names the year.
    assert game_row(db, "date-1905-00003109.pgn", "date_raw, year, date, year_note") == (
        "1905-6-17", None, None,
        "the Date tag's year 1905 is doubtful (before 1920); no other tag names the year")
    assert read_dating("2093.1.1", today=datetime.date(2026, 12, 1)).year is None


def test_player_names_from_teams_and_decades() -> None:
    names = canonical_names(["五、六十年代隊胡榮華", "胡榮華", "中國-火車頭 宋", "柳大華、張國鳳"])
    assert names["五、六十年代隊胡榮華"] == "胡荣华"
    assert names["中國-火車頭 宋"] == "火车头宋"
    assert names["柳大華、張國鳳"] == "张国凤+柳大华"  # a pair all the same


def test_a_team_joined_by_a_dash_keeps_no_dash_in_the_database(db: Path) -> None:
    # 各地杯賽 00002510: 中國-湖北 李智 - 中國-火車頭 宋.
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM players WHERE name LIKE '-%'").fetchone() == (0,)
        assert con.execute("SELECT p.name FROM games g JOIN players p ON p.player_id ="
                           " g.black_player_id WHERE g.black = '中國-火車頭 宋'").fetchone() == \
            ("火车头宋",)
    finally:
        con.close()

