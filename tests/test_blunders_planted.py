"""Blunders found in a database, end to end: real games with a planted blunder imported,
``xqdb analyze`` run with real engine processes (the built-in engine through ``xqdb engine``
and Fairy-Stockfish), then ``xqdb blunders`` and its puzzles, as a user runs them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from blunder_support import blunder_rows, fetch
from datafiles import DATA
from import_support import invoke_xqdb, run_xqdb
from planted import PlantedBlunder, planted_blunders
from positions import LIU_DAHUA
from xqdb import Position
from xqdb.formats import read_paths
from xqdb.replay import replay

FAIRY = "/usr/games/fairy-stockfish"
#: The master games, or the 15 real games kept with the tests when the corpus is absent.
SOURCE = LIU_DAHUA if LIU_DAHUA.exists() else DATA / "uci" / "same-15-games-uci.pgn"
CASES = 5
BAD = ("blunder", "allowed_mate")

needs_fairy = pytest.mark.skipif(not Path(FAIRY).exists(),
                                 reason=f"Fairy-Stockfish is not at {FAIRY}")
#: The real move at ply 21 of game 5 of liu-dahua-1125.pgn, b0b2, is a mistake in
#: Fairy-Stockfish's eyes, searched afresh: at 2,000,000 nodes (depth 20) Red is +1.55
#: before it and -1.13 after it (Black answers b9b6), where g2e1 keeps +0.49; through UCCI
#: +2.18 before, -0.51 after. At 20,000 nodes UCCI judges the drop a blunder (0.27 of
#: the expected score), UCI an inaccuracy (0.08): either verdict is the engine's.
JUDGED_BAD = {(5, 21)}

#: Each engine's analysis and the planted moves (game, ply) it misses. Through UCCI at
#: 20,000 nodes, Black stands at -1.45 before the plant of game 6 (b9b5 at ply 20; UCI
#: says -0.27). A move cannot lose more than the mover still expects: by the curve once
#: shipped (offset 52, scale 145) Black expected 0.20 and lost 0.19 of it, just under the
#: blunder threshold (0.20), and the plant was missed; by the curve fitted on every ply
#: (flatter in the opening and middle game) Black still expects 0.25, and the plant is
#: a blunder.
ENGINES = [
    pytest.param(("builtin", "--depth", "2"), set(), id="builtin"),
    pytest.param((FAIRY, "--nodes", "20000"), set(), id="fairy-stockfish", marks=needs_fairy),
    pytest.param((FAIRY, "--protocol", "ucci", "--nodes", "20000"), set(),
                 id="fairy-stockfish-ucci", marks=needs_fairy),
]


def pgn(event: str, moves: list) -> str:
    numbered = " ".join(f"{i // 2 + 1}. {m}" if i % 2 == 0 else str(m)
                        for i, m in enumerate(moves))
    return f'[Event "{event}"]\n[Red "Red {event}"]\n[Black "Black {event}"]\n\n{numbered} *\n'


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[PlantedBlunder]]:
    """A database of each planted game and its real game, cut one ply past the plant."""
    folder = tmp_path_factory.mktemp("planted")
    cases = planted_blunders(CASES, SOURCE)
    assert len(cases) == CASES
    games = [pgn(f"planted {n}", c.planted_moves) + "\n" + pgn(f"real {n}", c.real_moves)
             for n, c in enumerate(cases)]
    (folder / "planted.pgn").write_text("\n".join(games), encoding="utf-8")
    db = folder / "planted.duckdb"
    done = invoke_xqdb("import", str(folder / "planted.pgn"), "--db", str(db), "-q")
    assert done.returncode == 0, done.stderr
    return db, cases


def game_ids(db: Path) -> dict[str, int]:
    return dict(fetch(db, "SELECT event, game_id FROM games"))


@pytest.mark.slow  # about 20 s per engine
@pytest.mark.parametrize("engine, missed", ENGINES)
def test_planted_blunders_are_classed_at_their_ply_and_the_real_moves_are_not(
        planted: tuple[Path, list[PlantedBlunder]], engine: tuple[str, ...],
        missed: set[tuple[int, int]], tmp_path: Path) -> None:
    games, cases = planted
    db = tmp_path / "analysed.duckdb"  # each engine's analysis alone
    shutil.copy(games, db)
    path, *limit = engine
    done = run_xqdb("analyze", "--db", str(db), "--engine", path, *limit, "--jobs", "1", "-q")
    assert done.returncode == 0, done.stderr
    ids = game_ids(db)
    rows = blunder_rows(db, "--engine", path)
    flagged = {(r["game_id"], r["ply"]): r for r in rows if r["class"] in BAD}
    found, alarms = set(), set()
    for n, case in enumerate(cases):
        hit = flagged.get((ids[f"planted {n}"], case.ply))
        if hit is not None and hit["class"] == "blunder":
            found.add((case.game, case.ply))
        if (ids[f"real {n}"], case.ply) in flagged:
            alarms.add((case.game, case.ply))
        # The blame falls on the planted move, not on the capture that punishes it.
        assert (ids[f"planted {n}"], case.ply + 1) not in flagged
    print(f"{' '.join(engine)}: recall {len(found)}/{len(cases)}, false alarms "
          f"{len(alarms)}/{len(cases)} (planted from {SOURCE.name})")
    if SOURCE == LIU_DAHUA:
        assert {(c.game, c.ply) for c in cases} - found == missed
        assert alarms <= JUDGED_BAD
    else:  # other games: as many misses at most, and no alarm explained above
        assert len(found) >= len(cases) - len(missed) and len(alarms) <= len(JUDGED_BAD)
    # Every row names the engine's better move and the position before the move played.
    for row in rows:
        pos = Position.from_fen(row["fen"])
        assert pos.is_legal(pos.parse_move(row["move"], "uci"))
        assert row["best_move"] != row["move"]


@pytest.mark.slow  # analyses the planted games (a second time: other tests use Fairy-Stockfish)
def test_puzzles_are_the_positions_after_the_blunders_where_one_move_wins(
        planted: tuple[Path, list[PlantedBlunder]], tmp_path: Path) -> None:
    # Fairy-Stockfish finds a second strong move (+3.7 to +5.5 pawns) after every plant, so
    # none is an only-move puzzle for it; the built-in engine finds one where taking the
    # chariot is the only win.
    db, cases = planted
    done = invoke_xqdb("analyze", "--db", str(db), "--engine", "builtin", "--depth", "2",
                    "--jobs", "1", "-q")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "puzzles.pgn"
    done = invoke_xqdb("blunders", "--db", str(db), "--engine", "builtin", "--class", "blunder",
                    "--puzzles", str(out), "--puzzle-nodes", "20000")
    assert done.returncode == 0, done.stderr
    after_plant = {}
    for case in cases:
        pos = Position()
        for move in case.planted_moves[:-1]:
            pos.push(move)
        after_plant[pos.fen()] = case.planted_moves[-1]
    after_blunder: dict[str, set[str]] = {}
    rows = blunder_rows(db, "--engine", "builtin", "--class", "blunder")
    for row in rows:
        pos = Position.from_fen(row["fen"])
        pos.push(pos.parse_move(row["move"], "uci"))
        # A planted game and its real game share their moves before the plant.
        after_blunder.setdefault(pos.fen(), set()).add(f"game {row['game_id']}, ply {row['ply']}")
    records = list(read_paths([str(out)]))
    solved = 0
    for record in records:
        game = replay(record)
        assert game.is_valid, game.error
        assert game.moves and record.fen in after_blunder
        assert record.tags["Site"] in after_blunder[record.fen]
        if record.fen in after_plant:
            solved += 1
            assert game.moves[0] == after_plant[record.fen]  # takes the chariot left hanging
    print(f"{len(records)} puzzles from {len(rows)} blunders, {solved} of them "
          f"planted")
    assert solved >= 1
    assert f"wrote {len(records)} puzzles from {len(rows)} blunders" in done.stderr


@pytest.fixture(scope="module")
def unanalysed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database of the first planted game, not analysed."""
    folder = tmp_path_factory.mktemp("one")
    case = planted_blunders(1, SOURCE)[0]
    (folder / "one.pgn").write_text(pgn("planted 0", case.planted_moves), encoding="utf-8")
    done = invoke_xqdb("import", str(folder / "one.pgn"), "--db", str(folder / "one.duckdb"), "-q")
    assert done.returncode == 0, done.stderr
    return folder / "one.duckdb"


@pytest.fixture(scope="module")
def analysed(unanalysed: Path) -> Path:
    """The same game analysed by the built-in engine."""
    db = unanalysed.with_name("analysed.duckdb")
    shutil.copy(unanalysed, db)
    done = invoke_xqdb("analyze", "--db", str(db), "--engine", "builtin", "--depth", "1",
                    "--jobs", "1", "-q")
    assert done.returncode == 0, done.stderr
    return db


@pytest.mark.slow
def test_the_command_reports_per_game_and_per_player(analysed: Path) -> None:
    per_game = blunder_rows(analysed, "--by", "game", "--game", "1", "--engine", "builtin")
    assert [(r["game_id"], r["side"]) for r in per_game] == [(1, "red"), (1, "black")]
    assert all(0 <= r["accuracy"] <= 100 and r["moves"] > 10 for r in per_game)
    red = per_game[0]["player"]
    per_player = blunder_rows(analysed, "--by", "player", "--player", red, "--engine", "builtin")
    assert [r["player"] for r in per_player] == [red]
    assert per_player[0]["moves"] == per_game[0]["moves"]
    worst = blunder_rows(analysed, "--game", "1", "--blunder", "0.01", "--mistake", "0.01",
                         "--inaccuracy", "0.01", "--engine", "builtin")
    default = blunder_rows(analysed, "--game", "1", "--engine", "builtin")
    assert len(worst) > len(default) > 0
    assert set(worst[0]) == {"game_id", "ply", "side", "player", "move", "best_move", "loss",
                             "class", "engine", "fen"}


@pytest.mark.parametrize("args, code, message", [
    (("--player", "Nobody"), 2, "no player named 'Nobody'"),
    (("--game", "999"), 2, "no game 999"),
    (("--engine", "Pikafish"), 2, "no analysis by engine 'Pikafish'"),
    (("--mistake", "0.5"), 2, "thresholds must rise"),
])
def test_user_errors_are_one_line_with_a_hint_and_exit_codes(analysed: Path, args, code,
                                                             message) -> None:
    done = invoke_xqdb("blunders", "--db", str(analysed), *args)
    assert done.returncode == code
    assert done.stderr.startswith(f"Error: {message}") and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_a_database_without_analysis_or_file_is_refused(unanalysed: Path,
                                                        tmp_path: Path) -> None:
    for command in ("blunders", "calibrate"):
        done = invoke_xqdb(command, "--db", str(unanalysed))
        assert done.returncode == 3 and "Traceback" not in done.stderr
        assert len(done.stderr.splitlines()) == 1
        assert done.stderr.rstrip().endswith("(run 'xqdb analyze --db FILE' first" + (
            ", on games with results)" if command == "calibrate" else ")"))
    missing = invoke_xqdb("blunders", "--db", str(tmp_path / "none.duckdb"))
    assert missing.returncode == 4 and "no such database" in missing.stderr
