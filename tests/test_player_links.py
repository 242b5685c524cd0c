"""Linking games to players at each import: the rules name every spelling again, but only
the new games are read, and the result is what naming and linking every game gives."""

from __future__ import annotations

from pathlib import Path

import duckdb

from datafiles import DATA, SAMPLE_GAMES
from xqdb.pipeline.importer import import_paths

#: Openings that make each written game a game of its own (same moves: the same game).
OPENINGS = ["1. 炮二平五 马８进７ 2. 马二进三 车９平８", "1. 兵七进一 卒７进１ 2. 马八进七 马２进３",
            "1. 相三进五 炮８平５ 2. 马二进三 马８进７", "1. 马二进三 卒７进１ 2. 车一平二 马８进７",
            "1. 炮八平五 马２进３ 2. 马八进七 车１平２", "1. 仕四进五 炮８平５ 2. 马二进三 马８进７"]


def written(path: Path, pairs: list[tuple[str, str]], first: int) -> str:
    """A PGN at ``path`` of one game per (red, black) pair, from opening ``first`` on."""
    games = [f'[Game "Chinese Chess"]\n[Red "{red}"]\n[Black "{black}"]\n[Result "*"]\n\n'
             f"{OPENINGS[first + i]} *\n" for i, (red, black) in enumerate(pairs)]
    path.write_text("\n".join(games), encoding="utf-8")
    return str(path)


def links(path: Path) -> tuple[list[tuple[object, ...]], ...]:
    """The players, the spellings' rows and each game's players of the database."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        return tuple(con.execute(sql).fetchall() for sql in (
            "SELECT player_id, name, is_pair FROM players ORDER BY ALL",
            "SELECT spelling, player_id, decided_by FROM player_names ORDER BY ALL",
            "SELECT game_id, red_player_id, black_player_id FROM games ORDER BY ALL"))
    finally:
        con.close()


def import_reading_every_game(inputs: list[str], path: Path) -> None:
    """Import as before a link read only the new games: every game is read."""
    if path.exists():
        con = duckdb.connect(str(path))
        con.execute("DELETE FROM meta WHERE key = 'players_through'")
        con.close()
    import_paths(inputs, path, jobs=1)


def test_importing_in_parts_links_the_players_that_linking_every_game_gives(tmp_path: Path
                                                                            ) -> None:
    # Spellings that a later import renames: 胡荣华吕钦 is one player until the games also
    # have 吕钦, and a pair once they have 胡荣华; 赵国荣徐天红 likewise. The two become new
    # players in one import, numbered by their first games (赵国荣徐天红's comes first,
    # though 吕钦 sorts first).
    parts = [
        [str(DATA / "pgn-chinese-15.pgn"),
         written(tmp_path / "a.pgn", [("赵国荣徐天红", "许银川"), ("胡荣华吕钦", "柳大华")], 0)],
        [str(SAMPLE_GAMES), written(tmp_path / "b.pgn", [("吕钦", "徐天红")], 2)],
        [str(DATA / "pgn-wxf-fullwidth-15.pgn"),
         written(tmp_path / "c.pgn", [("胡荣华", "赵国荣")], 3)],
    ]
    part_by_part, every_game = tmp_path / "parts.duckdb", tmp_path / "every.duckdb"
    for inputs in parts:
        import_paths(inputs, part_by_part, jobs=1)
        import_reading_every_game(inputs, every_game)
        assert links(part_by_part) == links(every_game)
    con = duckdb.connect(str(part_by_part), read_only=True)
    names = dict(con.execute("SELECT n.spelling, p.name FROM player_names n"
                             " JOIN players p USING (player_id)").fetchall())
    assert names["胡荣华吕钦"] == "吕钦+胡荣华"
    assert names["赵国荣徐天红"] == "徐天红+赵国荣"
    assert len(names) > 40  # the real games' spellings were linked too
    unlinked = con.execute("SELECT count(*) FROM games WHERE red IS NOT NULL"
                           " AND red_player_id IS NULL").fetchone()
    assert unlinked == (0,)


def test_a_source_replaced_takes_its_spellings_with_its_games(tmp_path: Path) -> None:
    first = written(tmp_path / "a.pgn", [("一号棋手", "二号棋手"), ("三号棋手", "二号棋手")], 0)
    second = written(tmp_path / "b.pgn", [("二号棋手", "四号棋手")], 2)
    path = tmp_path / "g.duckdb"
    import_paths([first, second], path, jobs=1)
    written(tmp_path / "a.pgn", [("三号棋手", "二号棋手")], 1)  # 一号棋手's game is gone
    summary = import_paths([first], path, jobs=1)
    assert summary.replaced_sources == 1
    con = duckdb.connect(str(path), read_only=True)
    spellings = [s for s, in con.execute("SELECT spelling FROM player_names ORDER BY 1").fetchall()]
    players = [n for n, in con.execute("SELECT name FROM players ORDER BY 1").fetchall()]
    con.close()
    assert spellings == players == ["三号棋手", "二号棋手", "四号棋手"]


def test_characters_that_show_nothing_make_no_player_of_their_own(tmp_path: Path) -> None:
    # Zero-width joiners, a byte-order mark and a right-to-left override, as a name copied
    # from a web page or a file saved by a Windows editor carries them: the same players
    # as the names written plainly, their spellings stored as the records write them.
    hidden = ["胡\u200d荣\u200c华", "\ufeff吕钦", "吕钦\u202e", "\u200b赵国荣\u2066"]
    pairs = [("胡荣华", "吕钦"), (hidden[0], hidden[1]), (hidden[2], "赵国荣"),
             (hidden[3], hidden[0])]
    path = tmp_path / "g.duckdb"
    import_paths([written(tmp_path / "a.pgn", pairs, 0)], path, jobs=1)
    players, spellings, games = links(path)
    assert sorted(name for _, name, _ in players) == ["吕钦", "胡荣华", "赵国荣"]
    names = {name for _, name, _ in players}
    assert not any(c in name for name in names for c in "\u200b\u200c\u200d\u202e\u2066\ufeff")
    assert {s for s, _, _ in spellings} == {"胡荣华", "吕钦", "赵国荣", *hidden}
    con = duckdb.connect(str(path), read_only=True)
    stored = con.execute("SELECT red, black FROM games ORDER BY game_id").fetchall()
    con.close()
    assert stored == pairs
