"""One set of game filters in every command, on ccpd-dev.zip imported for real.

Each figure is checked against SQL written here by hand over the same database.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from import_support import invoke_xqdb, run_xqdb
from xqdb import Database
from xqdb.db.schema import connect
from xqdb.db.selection import GameFilter
from xqdb.pipeline.importer import import_paths
from xqdb.position import Position, position_after


def _after(moves: str) -> int:
    return position_after(moves).zobrist()

HU = "胡荣华"


@pytest.fixture(scope="module")
def db(ccpd_db: Path) -> Path:
    return ccpd_db


def scalar(db: Path, sql: str, params: list[object] | None = None) -> object:
    con = connect(db, read_only=True)
    try:
        return con.execute(sql, params or []).fetchone()[0]
    finally:
        con.close()


HU_RED = """FROM games g JOIN players p ON p.player_id = g.red_player_id
            WHERE p.name = '胡荣华' AND g.status = 'valid'"""


def test_a_name_in_traditional_script_finds_the_player(db: Path) -> None:
    simplified = invoke_xqdb("openings", "--db", str(db), "--player", HU, "--format", "csv")
    traditional = invoke_xqdb("openings", "--db", str(db), "--player", "胡榮華",
                              "--format", "csv")
    assert traditional.returncode == 0, traditional.stderr
    assert traditional.stdout == simplified.stdout
    assert traditional.stdout.count("\n") > 20


def test_an_unknown_name_suggests_and_a_part_lists_the_players(db: Path) -> None:
    typo = invoke_xqdb("openings", "--db", str(db), "--player", "胡荣话")
    assert typo.returncode == 2
    assert "did you mean 胡荣华" in typo.stderr
    several = invoke_xqdb("tree", "--db", str(db), "--player", "胡")
    assert several.returncode == 2
    assert "names 23 players: 胡荣华 (801 games), 胡庆阳 (43 games)" in several.stderr


def test_where_reads_canonical_names(db: Path) -> None:
    result = Database(db).openings(by="family", games=GameFilter(where="red_name = '胡荣华'"))
    expected = scalar(db, f"SELECT count(*) {HU_RED} AND g.ecco IS NOT NULL")
    assert sum(r[result.columns.index("games")] for r in result.rows) == expected
    assert expected > 300


def test_share_keeps_its_meaning_with_min_games(db: Path) -> None:
    games = Database(db)
    every = {r[1]: r[5] for r in games.openings(HU).rows if r[0] == "red"}
    some = {r[1]: r[5] for r in games.openings(HU, min_games=10).rows if r[0] == "red"}
    assert some and all(every[code] == share for code, share in some.items())
    a28 = scalar(db, f"SELECT round(100.0 * count(*) FILTER (ecco = 'A28') / count(*), 1) {HU_RED}")
    assert some["A28"] == a28


def test_by_name_counts_games_and_their_share_of_the_selection(db: Path) -> None:
    result = Database(db).openings(by="name", games=GameFilter(player=HU, side="red"))
    rows = {r[0]: r for r in result.rows}
    column = result.columns.index
    games = scalar(db, f"SELECT count(*) {HU_RED} AND list_contains(g.opening_names, '直车')")
    total = scalar(db, f"SELECT count(*) {HU_RED}")
    assert rows["直车"][column("games")] == games
    assert rows["直车"][column("share")] == round(100 * games / total, 1)
    assert rows["直车"][column("name")]  # the ECCO code it is filed under, never empty
    assert result.labels["share"].startswith(f"Share % of {total:,} games")


def test_variation_names_tell_codes_apart(db: Path) -> None:
    rows = {r[0]: r for r in Database(db).openings().rows}
    assert rows["A31"][1] == rows["A33"][1]
    assert rows["A31"][2] != rows["A33"][2]


def test_tree_merges_mirror_images_and_takes_the_filters(db: Path) -> None:
    games = Database(db)
    merged = {r[0]: r for r in games.tree().rows}
    apart = {r[0]: r for r in games.tree(mirror=False).rows}
    start = Position().zobrist()
    left, right = (scalar(db, "SELECT count(DISTINCT game_id) FROM moves m JOIN games g"
                              " USING (game_id) WHERE m.key_before = ? AND m.uci = ?"
                              " AND g.status = 'valid'", [start, uci])
                   for uci in ("h2e2", "b2e2"))
    assert apart["炮二平五"][1] == left
    assert merged["炮二平五"][1] == left + right
    assert "炮八平五" not in merged
    answers = games.tree("炮二平五", games=GameFilter(player="胡榮華", side="black"))
    hand = scalar(db, """
        SELECT count(DISTINCT (m.game_id, m.move)) FROM moves m JOIN games g USING (game_id)
        JOIN players p ON p.player_id = g.black_player_id
        WHERE g.status = 'valid' AND p.name = '胡荣华'
          AND m.key_before IN (?, ?)""", [_after("h2e2"),
                                         _after("b2e2")])
    assert sum(r[1] for r in answers.rows) == hand
    assert {r[answers.columns.index("players")] for r in answers.rows} == {1}


def test_tree_reads_the_algebraic_form_with_ranks_1_to_10(db: Path) -> None:
    result = invoke_xqdb("tree", "--db", str(db), "--moves", "Che3", "--notation", "wxf")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[2].startswith("H8+7")


def test_a_parameter_that_is_not_a_number_is_named(db: Path) -> None:
    result = invoke_xqdb("query", "lines", "--db", str(db), "-p", "plies=abc")
    assert result.returncode == 2
    assert "--param plies=abc: plies is a whole number" in result.stderr


def test_export_search_and_query_take_the_same_filters(db: Path, tmp_path: Path) -> None:
    wanted = scalar(db, f"SELECT count(*) {HU_RED} AND g.year BETWEEN 1980 AND 1989"
                        " AND g.result = '1-0'")
    out = tmp_path / "hu.pgn"
    result = invoke_xqdb("export", "--db", str(db), "--out", str(out), "--player", "胡榮華",
                      "--side", "red", "--from", "1980", "--to", "1989", "--result", "win")
    assert result.returncode == 0, result.stderr
    assert out.read_text(encoding="utf-8").count("[Event ") == wanted
    found = Database(db).search("炮二平五", games=GameFilter(player=HU, side="red",
                                                           from_="1980", to="1989",
                                                           result="1-0"))
    reached = scalar(db, f"""SELECT count(*) {HU_RED} AND g.year BETWEEN 1980 AND 1989
        AND g.result = '1-0' AND g.game_id IN (SELECT game_id FROM moves WHERE uci = 'h2e2'
                                               AND ply = 1)""")
    assert found.total == reached
    record = Database(db).query("player", GameFilter(player=HU, from_="1980", to="1989"))
    total = record.records()[0]
    assert total["games"] == scalar(db, """
        SELECT count(*) FROM games g JOIN players r ON r.player_id = g.red_player_id
        JOIN players b ON b.player_id = g.black_player_id
        WHERE '胡荣华' IN (r.name, b.name) AND g.status = 'valid' AND g.year BETWEEN 1980
        AND 1989 AND g.result IN ('1-0', '0-1', '1/2-1/2')""")


def test_report_for_a_player_is_their_dossier(db: Path) -> None:
    page = Database(db).report(games=GameFilter(player="胡榮華", from_="1980"))
    for section in ("repertoire-red", "repertoire-black", "results-by-year", "opponents",
                    "decisive", "phases"):
        assert f'id="{section}"' in page
    assert "Noto Sans CJK SC" in page
    whole = Database(db).report()
    for section in ("openings", "tree", "families-by-year", "results-by-family",
                    "top-players", "endings", "disagreements"):
        assert f'id="{section}"' in whole
    assert "<th>Variation</th>" in whole and "<th>Red score %</th>" in whole
    import re

    row = re.search(r'<table id="openings">.*?</tr><tr>(.*?)</tr>', whole, re.S)[1]
    code, _, _, games, share, red_win = re.findall(r"<td[^>]*>(.*?)</td>", row)[:6]
    hand = connect(db, read_only=True).execute("""
        SELECT count(*), round(100.0 * count(*) / (SELECT count(*) FROM games
                                                    WHERE status = 'valid'), 1),
               round(100.0 * count(*) FILTER (result = '1-0')
                     / count(*) FILTER (result IN ('1-0', '0-1', '1/2-1/2')), 1)
        FROM games WHERE status = 'valid' AND ecco = ?""", [code]).fetchone()
    assert (int(games), float(share), float(red_win)) == hand


def test_a_terminal_table_never_cuts_names_to_a_shared_prefix(db: Path) -> None:
    from xqdb.render.tables import render

    result = Database(db).openings()
    table = render(result, width=120).splitlines()
    from wcwidth import wcswidth

    assert max(wcswidth(line) for line in table) <= 120
    names = {line.split()[0]: line for line in table[2:] if line[:1].isalpha()}
    # The three central-cannon openings of the report read apart, variation included.
    shown = {code: names[code].split()[1:3] for code in ("C49", "C23", "C45")}
    assert len({tuple(v) for v in shown.values()}) == 3
    assert shown["C49"][1] == "红进中兵对黑退边炮"
    assert "Red win %" in table[0] or "Red%" in table[0]
    assert table[-1].startswith("(left out to fit 120 columns: Top players")


def test_files_and_pipes_get_every_character(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "o.txt"
    written = run_xqdb("openings", "--db", str(db), "--output", str(out))
    assert written.returncode == 0, written.stderr
    text = out.read_text(encoding="utf-8")
    assert "…" not in text and "中炮过河车互进七兵对屏风马平炮兑车" in text
    piped = run_xqdb("query", "disagreements", "--db", str(db))
    assert piped.returncode == 0 and "…" not in piped.stdout
    assert "occurred for the third time with no perpetual check or chase: a draw" in piped.stdout


def test_a_wide_last_column_wraps_on_a_terminal_instead_of_being_cut(db: Path) -> None:
    from wcwidth import wcswidth
    from xqdb.render.tables import render

    table = render(Database(db).query("disagreements"), width=200)
    assert max(wcswidth(line) for line in table.splitlines()) <= 200
    flat = " ".join(line.strip() for line in table.splitlines())
    assert "occurred for the third time with no perpetual check or chase: a draw" in flat


@pytest.mark.slow
def test_analyze_and_blunders_take_the_filters(tmp_path: Path) -> None:
    sample = Path(__file__).resolve().parents[1] / "sample_games"
    db = tmp_path / "sample.duckdb"
    import_paths([str(sample)], db, jobs=1)
    hu_games = scalar(db, "SELECT count(*) FROM games g JOIN players p ON p.player_id IN "
                          "(g.red_player_id, g.black_player_id) WHERE p.name = '胡荣华'")
    dry = invoke_xqdb("analyze", "--db", str(db), "--engine", "builtin", "--depth", "1",
                   "--player", "胡榮華", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert f"a dry run over {hu_games} game of" in dry.stdout + dry.stderr
    unknown = invoke_xqdb("analyze", "--db", str(db), "--engine", "builtin", "--player", "无名")
    assert unknown.returncode == 2 and "no player named '无名'" in unknown.stderr
    done = invoke_xqdb("analyze", "--db", str(db), "--engine", "builtin", "--depth", "1",
                    "--from", "2006", "--to", "2006", "-q")
    assert done.returncode == 0, done.stderr
    in_2006 = {r[0] for r in connect(db, read_only=True).execute(
        "SELECT game_id FROM games WHERE year = 2006").fetchall()}
    listed = invoke_xqdb("blunders", "--db", str(db), "--from", "2006", "--format", "csv",
                      "--limit", "100")
    assert listed.returncode == 0, listed.stderr
    games = {int(line.split(",")[0]) for line in listed.stdout.splitlines()[1:]}
    assert games and games <= in_2006
    none = invoke_xqdb("blunders", "--db", str(db), "--to", "2000", "--format", "csv")
    assert none.returncode == 0 and none.stdout.strip().count("\n") == 0
