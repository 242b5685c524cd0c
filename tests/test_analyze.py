"""``xqdb analyze`` with real engine processes: the built-in engine served by ``xqdb engine``
and Debian's Fairy-Stockfish in UCI and UCCI, run as a user runs them, over a real database."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from import_support import DATA, invoke_xqdb, rows as query, run_xqdb, xqdb_command
from test_locked import refused, wait_for
from xqdb.db.holder import note_path, read_note
from xqdb.analysis.batch import SearchTask, close_engines, run_task
from xqdb.analysis.games import (
    RECHECK_LOSS, RECHECK_REVALUED, RECHECK_SHIFT, RECHECK_UNSETTLED, curve_for, game_positions,
)
from xqdb.engine import EngineSpec, Limit
from xqdb.db.evals import game_evals
from xqdb.pipeline.importer import import_paths
from xqdb.position import Position
from xqdb.rules.board import Move

FAIRY = "/usr/games/fairy-stockfish"
needs_fairy = pytest.mark.skipif(not Path(FAIRY).exists(),
                                 reason=f"Fairy-Stockfish is not at {FAIRY}")
#: 15 real games; game 1 has 127 plies and repeats positions at plies 107 to 110.
GAMES = DATA / "pgn-chinese-15.pgn"


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("games") / "games.duckdb"
    import_paths([str(GAMES)], db, jobs=1)
    return db


@pytest.fixture
def db(imported: Path, tmp_path: Path) -> Path:
    """A fresh copy of the imported games, without evaluations."""
    copy = tmp_path / "games.duckdb"
    copy.write_bytes(imported.read_bytes())
    return copy



def positions_of(db: Path, game_id: int) -> list[tuple[int, int, bool]]:
    """``(key, turn, repeated)`` of each position of the game, replayed here."""
    (fen, moves), = query(db, "SELECT g.start_fen, list(m.uci ORDER BY m.ply) FROM games g"
                              " JOIN moves m USING (game_id) WHERE game_id = ? GROUP BY ALL",
                          game_id)
    return [(p.zobrist(), p.turn, repeated) for _, p, repeated in
            game_positions(fen, [Move.from_uci(m) for m in moves])]


def searched(output: str) -> list[int]:
    """The ``N searched`` figures of a summary, one per pass."""
    return [int(n.replace(",", "")) for n in re.findall(r"([\d,]+) searched", output)]


def analyze(db: Path, *args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    """``xqdb analyze --db DB ARGS`` (in this process, or with ``process`` in its own),
    checked to exit 0."""
    done = (run_xqdb if process else invoke_xqdb)("analyze", "--db", str(db), *args)
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.slow
def test_the_builtin_engine_evaluates_each_position_once(db: Path) -> None:
    first = analyze(db, "--engine", "builtin", "--depth", "1", "--jobs", "2", "--game", "1",
                    "--game", "7", process=True)
    assert "built-in engine, which is weak" in first.stderr
    expected = {(k, t) for g in (1, 7) for k, t, repeated in positions_of(db, g)
                if not repeated}
    # Game 7 ends in checkmate: its last position has nothing to search.
    assert searched(first.stdout) == [len(expected) - 1 + 4]
    shared = query(db, "SELECT key, side, engine, search_limit, status, origin FROM evals"
                       " WHERE game_id IS NULL")
    assert len(shared) == len(expected) - 1
    assert {(r[2], r[3], r[4], r[5]) for r in shared} == {
        ("xqdb built-in (uci)", "depth=1", "ok", "search")}
    # The repetitions of game 1, searched with its moves, are its own.
    assert query(db, "SELECT game_id, ply FROM evals WHERE game_id IS NOT NULL ORDER BY ply"
                 ) == [(1, 107), (1, 108), (1, 109), (1, 110)]
    before = query(db, "SELECT * FROM evals ORDER BY ALL")
    second = analyze(db, "--engine", "builtin", "--depth", "1", "--game", "1", "--game", "7")
    assert searched(second.stdout) == [0]
    assert query(db, "SELECT * FROM evals ORDER BY ALL") == before


@needs_fairy
@pytest.mark.parametrize("protocol, ranks", [("uci-variant", "1-10"), ("ucci", "0-9")])
def test_fairy_stockfish_evaluates_in_both_protocols(db: Path, protocol: str, ranks: str
                                                     ) -> None:
    analyze(db, "--engine", FAIRY, "--protocol", protocol, "--nodes", "2000", "--game", "7")
    rows = query(db, "SELECT engine, score_cp, mate, best_move, pv, nodes FROM evals")
    assert len(rows) == len(positions_of(db, 7)) - 1  # the mated side has no search
    assert {r[0] for r in rows} == {f"Fairy-Stockfish 11.1 LB 64 ({protocol})"}
    assert all((cp is None) != (mate is None) for _, cp, mate, *_ in rows)
    # Moves come back in ranks 0-9 whatever the protocol spoke ({ranks} on the wire),
    # legal where they are.
    (fen, best), = query(db, "SELECT g.start_fen, e.best_move FROM evals e JOIN games g"
                             " ON e.key = g.start_key WHERE g.game_id = 7")
    assert Position.from_fen(fen).is_legal(Move.from_uci(best))
    # Before the mate, the engine sees it coming.
    assert query(db, "SELECT count(*) FROM evals WHERE mate > 0")[0][0] >= 1


#: The built-in engine needs depth 3 for its hash table to change a result: about 20 s.
ENGINES = [pytest.param(("--engine", "builtin", "--depth", "3"), id="builtin",
                        marks=pytest.mark.slow),
           pytest.param(("--engine", FAIRY, "--protocol", "uci-variant", "--nodes", "3000"),
                        id="fairy-uci", marks=needs_fairy),
           pytest.param(("--engine", FAIRY, "--protocol", "ucci", "--nodes", "3000"),
                        id="fairy-ucci", marks=needs_fairy)]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.slow
def test_an_evaluation_does_not_depend_on_the_searches_before_it(
        imported: Path, tmp_path: Path, engine: tuple[str, ...]) -> None:
    alone, after = (tmp_path / "alone.duckdb", tmp_path / "after.duckdb")
    for copy in (alone, after):
        copy.write_bytes(imported.read_bytes())
    analyze(alone, *engine, "--jobs", "1", "--game", "7")
    analyze(after, *engine, "--jobs", "1", "--game", "4", "--game", "7")  # game 4 first
    keys = [k for k, _, _ in positions_of(alone, 7)]
    sql = ("SELECT key, side, score_cp, mate, best_move, pv, depth FROM evals"
           " WHERE list_contains(?, key) ORDER BY ALL")
    assert query(after, sql, keys) == query(alone, sql, keys)
    assert len(query(alone, sql, keys)) == len(keys) - 1  # all but the mate at the end


def test_where_and_game_choose_the_games(db: Path) -> None:
    analyze(db, "--engine", "builtin", "--depth", "1", "--where", "plies < 50")
    assert query(db, "SELECT game_id FROM games WHERE plies < 50 ORDER BY 1") == [(7,), (14,)]
    mated = positions_of(db, 7)[-1][0]  # game 7 ends in checkmate: nothing to search there
    keys = {k for g in (7, 14) for k, _, _ in positions_of(db, g)} - {mated}
    assert {k for k, in query(db, "SELECT key FROM evals")} == keys


@pytest.mark.parametrize("args, message", [
    (["--engine", "/no/such/engine"], "engine '/no/such/engine' not found"),
    (["--engine", "builtin", "--where", "no_such_column = 1"], "--where"),
    (["--engine", "builtin", "--game", "999"], "no game 999"),
    (["--engine", "builtin", "--recheck", "nodes=lots"], "not a number"),
    (["--engine", "builtin", "--option", "Hash"], "not NAME=VALUE"),
    (["--engine", "builtin", "--option", "NoSuchOption=1"], "no option 'NoSuchOption'"),
])
def test_a_bad_setting_is_one_line_and_exit_code(db: Path, args: list[str], message: str
                                                 ) -> None:
    done = run_xqdb("analyze", "--db", str(db), *args)
    assert done.returncode in (2, 3), done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    error_lines = [line for line in done.stderr.splitlines() if "Error" in line]
    assert len(error_lines) == 1
    assert query(db, "SELECT count(*) FROM evals") == [(0,)]


def test_a_missing_database_is_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "none.duckdb"
    done = run_xqdb("analyze", "--db", str(missing), "--engine", "builtin")
    # The line every command prints, hint included, and nothing about an engine.
    assert done.returncode == 4
    assert done.stderr == (f"Error: {missing}: no such database (xqdb import FILES --db "
                           f"{missing} creates one)\n")
    assert not missing.exists()


@pytest.mark.slow
def test_readers_are_told_the_analysis_holds_the_database(db: Path) -> None:
    # Every game at depth 3: longer than the readers take to be refused.
    run = subprocess.Popen(xqdb_command("analyze", "--db", str(db), "--engine", "builtin",
                                        "--depth", "3", "--jobs", "1", "--commit-every", "5",
                                        "-q"),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: getattr(read_note(db), "positions", 0) > 0,
                 "the analysis to store evaluations")
        for line in refused(db):
            assert line.startswith(f"Error: {db}: being written by xqdb analyze (pid "
                                   f"{run.pid}, started ")
            assert " positions evaluated so far): it will be free when that analyze ends" in line
        assert run.poll() is None
        run.send_signal(signal.SIGINT)  # interrupted, the run ends as it does when done
    finally:
        _, err = run.communicate(timeout=300)
    assert run.returncode == 130, err
    assert not note_path(db).exists()
    assert run_xqdb("info", "--db", str(db)).returncode == 0
    assert query(db, "SELECT count(*) FROM evals")[0][0] > 0


# --- crashes, failures and resuming -----------------------------------------------------------

def children(pid: int) -> list[int]:
    """The processes ``pid`` started and that still run."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry))
    return found


def kill_engines(run: subprocess.Popen[str], db: Path, count: int,
                 started: Callable[[], int] | None = None) -> list[int]:
    """SIGKILL ``count`` engine processes of ``run`` one after the other, each as soon as
    it is found, the first once the run has stored evaluations in ``db`` (so it is past
    its greeting, and searching). With ``started`` (how many engines have said they
    started), an engine is killed only once it has said so. Returns the pids killed."""
    killed: list[int] = []
    deadline = time.monotonic() + 120
    while (getattr(read_note(db), "positions", 0) == 0 and run.poll() is None
           and time.monotonic() < deadline):
        time.sleep(0.005)
    while len(killed) < count and run.poll() is None and time.monotonic() < deadline:
        engines = [p for p in children(run.pid) if p not in killed]
        if engines and (started is None or started() > len(killed)):
            os.kill(engines[0], signal.SIGKILL)
            killed.append(engines[0])
        time.sleep(0.005)
    return killed


def stalling_on_second_start(folder: Path) -> Path:
    """A launcher of the built-in engine whose second start never greets: killed, that
    engine dies in its handshake whatever the machine's load. Each start is written to
    ``folder/starts``, a little late, as a loaded machine might."""
    launcher = folder / "engine.sh"
    launcher.write_text(f"""#!/bin/sh
sleep 0.2
echo started >> "{folder}/starts"
if [ "$(wc -l < "{folder}/starts")" -eq 2 ]; then exec sleep 600; fi
exec "{sys.executable}" -m xqdb engine
""")
    launcher.chmod(0o755)
    return launcher


def starts(folder: Path) -> int:
    """How many engines the launcher of :func:`stalling_on_second_start` started."""
    path = folder / "starts"
    return path.read_text().count("started") if path.exists() else 0


@needs_fairy
@pytest.mark.slow
def test_an_engine_killed_mid_run_is_restarted_and_the_position_retried(db: Path) -> None:
    run = subprocess.Popen(xqdb_command("analyze", "--db", str(db), "--engine", FAIRY,
                                        "--nodes", "5000", "--jobs", "1", "--game", "1",
                                        "--commit-every", "5"),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = kill_engines(run, db, 1)
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    assert len(killed) == 1
    assert "1 engine restart," in out and "0 failed" in out
    assert query(db, "SELECT status, count(*) FROM evals GROUP BY ALL") == [
        ("ok", len(positions_of(db, 1)))]


@pytest.mark.slow
def test_a_position_the_engine_fails_twice_is_recorded_and_retried_later(db: Path,
                                                                        tmp_path: Path) -> None:
    launcher = stalling_on_second_start(tmp_path)
    run = subprocess.Popen(xqdb_command("analyze", "--db", str(db), "--engine", str(launcher),
                                        "--depth", "2", "--jobs", "1", "--game", "1",
                                        "--commit-every", "5"),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The engine dies mid-run, and its replacement in its handshake: that position fails
    # twice; the third engine goes on with the rest. A kill that came before the second
    # launcher wrote its start would make the third start the one that stalls (a third
    # restart, after a handshake timeout): each kill waits for its engine's start.
    killed = kill_engines(run, db, 2, started=lambda: starts(tmp_path))
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    assert len(killed) == 2
    assert starts(tmp_path) == 3
    assert "2 engine restarts" in out and "1 failed" in out and "run the same command" in out
    total = len(positions_of(db, 1))
    assert query(db, "SELECT status, count(*) FROM evals GROUP BY ALL ORDER BY 1") == [
        ("failed", 1), ("ok", total - 1)]
    (error,), = query(db, "SELECT error FROM evals WHERE status = 'failed'")
    assert error
    again = analyze(db, "--engine", "builtin", "--depth", "2", "--game", "1")
    assert searched(again.stdout) == [1]
    assert query(db, "SELECT status, count(*) FROM evals GROUP BY ALL") == [("ok", total)]


@needs_fairy
@pytest.mark.slow
def test_a_killed_run_run_again_searches_only_what_is_missing(db: Path) -> None:
    # 300 nodes: what is stored and searched again is counted, not how good it is.
    command = ["analyze", "--db", str(db), "--engine", FAIRY, "--nodes", "300",
               "--where", "game_id <= 8", "--jobs", "2", "--commit-every", "10", "-q"]
    run = subprocess.Popen(xqdb_command(*command), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    wal = Path(f"{db}.wal")
    deadline = time.monotonic() + 120
    while (not wal.exists() or wal.stat().st_size < 20_000) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(children(run.pid)) == 2  # its workers, each with an engine
    os.killpg(run.pid, signal.SIGKILL)  # the run, its workers and their engines, at once
    run.communicate(timeout=60)
    stored = query(db, "SELECT count(*) FROM evals")[0][0]
    planned = analyze(db, *command[3:-1], "--dry-run")
    (to_search,), = [int(n.replace(",", "")) for n in re.findall(r"([\d,]+) to search",
                                                                   planned.stdout)],
    assert query(db, "SELECT count(*) FROM evals")[0][0] == stored
    done = analyze(db, *command[3:-1])
    final = query(db, "SELECT count(*), count(DISTINCT (key, side, game_id, ply)) FROM evals"
                      " WHERE status = 'ok'")[0]
    assert 0 < stored < final[0] == final[1]
    assert searched(done.stdout) == [final[0] - stored] == [to_search]


# --- two passes ---------------------------------------------------------------------------------

@pytest.mark.parametrize("nodes", ["20000", "1000000"])
def test_one_pass_shallower_than_the_default_deep_one_is_warned(db: Path, nodes: str) -> None:
    shallow = analyze(db, "--engine", "builtin", "--nodes", nodes, "--game", "1", "--dry-run")
    assert (f"warning: one pass at nodes={nodes} is too shallow to judge moves: of the moves"
            " one pass at 20,000 nodes classes blunders, 59 in 66 are not blunders for a search"
            " of 2,000,000 nodes (at 50,000 nodes 28 in 37, at 200,000 nodes 7 in 15, at"
            " 1,000,000 nodes 4 in 16" in shallow.stderr)
    # As deep as the default's deep pass, or a fast pass before a deep one: no warning.
    for passes in (["--nodes", "2000000"], ["--nodes", nodes, "--recheck", "nodes=2000"], []):
        trusted = analyze(db, "--engine", "builtin", *passes, "--game", "1", "--dry-run")
        assert "warning" not in trusted.stderr and "a dry run over 1 game" in trusted.stdout


def test_recheck_searches_deeply_only_around_the_flagged_moves(db: Path) -> None:
    done = analyze(db, "--engine", "builtin", "--recheck", "depth=1", "--depth", "2",
                   "--game", "14")
    fast, deep = searched(done.stdout)
    plies = len(positions_of(db, 14)) - 1
    assert fast == plies + 1
    assert 0 < deep < fast
    rechecked = int(re.search(r"([\d,]+) moves rechecked", done.stdout)[1])
    # Each rechecked move needs the positions before and after it.
    assert deep <= 2 * rechecked
    assert query(db, "SELECT search_limit, count(*) FROM evals GROUP BY ALL ORDER BY 1") == [
        ("depth=1", fast), ("depth=2", deep)]


def two_passes_of_game_8(db: Path) -> tuple[dict, dict, Callable[[dict, dict, int], float]]:
    """The fast and deep evaluations, by position, of the built-in engine's two passes over
    game 8, and the loss of a move (by ply) judged with the evaluations before and after."""
    analyze(db, "--engine", "builtin", "--recheck", "depth=1", "--depth", "2", "--game", "8")
    con = duckdb.connect(str(db), read_only=True)
    engine, = con.execute("SELECT DISTINCT engine FROM evals").fetchone()
    fast, deep = (game_evals(con, 8, engine, limit) for limit in ("depth=1", "depth=2"))
    curve = curve_for(engine)

    def loss(before: dict, after: dict, ply: int) -> float:
        mover = 1 if ply % 2 else -1  # Red moves first in these games
        return (before[ply - 1].expectation(curve, ply - 1, mover)
                - (1 - after[ply].expectation(curve, ply, -mover)))
    return fast, deep, loss


def test_the_deep_pass_judges_each_move_the_fast_pass_saw_lose(db: Path) -> None:
    fast, deep, loss = two_passes_of_game_8(db)
    lost = [ply for ply in range(1, len(fast)) if loss(fast, fast, ply) >= RECHECK_LOSS]
    assert lost, "the fast pass saw no move lose: the game tests nothing"
    assert [ply for ply in lost if not {ply - 1, ply} <= set(deep)] == []


def test_the_deep_pass_judges_each_move_its_own_evaluations_show_losing(db: Path) -> None:
    # A move beside a position the deep pass searched is judged again when, with the deep
    # evaluation of that position and the fast one of the other, it loses RECHECK_REVALUED:
    # so no move with one position searched deeply is left losing that much. (On this game
    # the thresholds before, without the rule, left one.)
    assert RECHECK_REVALUED is not None
    fast, deep, loss = two_passes_of_game_8(db)
    half = {ply: loss(deep if ply - 1 in deep else fast, deep if ply in deep else fast, ply)
            for ply in range(1, len(fast)) if (ply - 1 in deep) != (ply in deep)}
    assert len(half) > 5, "few moves beside the deep searches: the game tests nothing"
    assert {p: round(v, 3) for p, v in half.items() if v >= RECHECK_REVALUED} == {}


def test_the_deep_pass_judges_each_move_beside_an_unsettled_fast_search(db: Path) -> None:
    # A fast search whose last depths' scores spread RECHECK_UNSETTLED of expected score or
    # more is the one most likely wrong: both moves beside its position are judged deeply.
    assert RECHECK_UNSETTLED is not None
    analyze(db, "--engine", "builtin", "--recheck", "depth=3", "--depth", "4", "--game", "8")
    con = duckdb.connect(str(db), read_only=True)
    engine, = con.execute("SELECT DISTINCT engine FROM evals").fetchone()
    assert con.execute("SELECT count(*) FROM evals WHERE search_limit = 'depth=3' AND "
                       "spread_low_cp IS NULL").fetchone() == (0,), "a search without spread"
    fast, deep = (game_evals(con, 8, engine, limit) for limit in ("depth=3", "depth=4"))
    curve = curve_for(engine)
    unsettled = [i for i, e in fast.items()
                 if e.unsettled(curve, i, 1 if i % 2 == 0 else -1) >= RECHECK_UNSETTLED]
    assert 0 < len(unsettled) < len(fast) / 2, "the game tests nothing"
    plies = len(fast) - 1
    beside = {p for i in unsettled for p in (i, i + 1) if 1 <= p <= plies}
    assert [ply for ply in sorted(beside) if not {ply - 1, ply} <= set(deep)] == []


@needs_fairy
def test_the_fast_pass_searches_each_game_back_from_its_end_keeping_the_hash(
        imported: Path, tmp_path: Path) -> None:
    # Searched from its end back, a position's search finds in the hash what the searches
    # of the positions after it found: evaluations differ from searches afresh, and are
    # the same on every run, with one worker or two.
    one, two, afresh = (tmp_path / f"{name}.duckdb" for name in ("one", "two", "afresh"))
    for copy in (one, two, afresh):
        copy.write_bytes(imported.read_bytes())
    fairy = ("--engine", FAIRY, "--protocol", "uci-variant")
    for copy, jobs in ((one, "1"), (two, "2")):
        analyze(copy, *fairy, "--recheck", "nodes=2000", "--nodes", "6000", "--jobs", jobs,
                "--game", "4", "--game", "7")
    analyze(afresh, *fairy, "--nodes", "2000", "--jobs", "1", "--game", "4", "--game", "7")
    sql = ("SELECT key, side, game_id, score_cp, mate, best_move, pv, depth FROM evals"
           " WHERE search_limit = ? ORDER BY ALL")
    chained = query(one, sql, "nodes=2000")
    assert len(chained) == len(query(afresh, sql, "nodes=2000")) > 100
    assert chained == query(two, sql, "nodes=2000")
    assert query(one, sql, "nodes=6000") == query(two, sql, "nodes=6000")
    differ = set(chained) - set(query(afresh, sql, "nodes=2000"))
    assert len(differ) > len(chained) // 4


def test_a_chained_task_is_searched_from_its_last_position_back() -> None:
    task = SearchTask(EngineSpec.builtin(), Limit(depth=1), game_id=1,
                      start_fen="3k5/9/9/9/9/9/9/9/9/R3K4 w", moves=("a0a1", "d9d8", "a1a2"),
                      targets=((0, False), (1, False), (3, False)), chained=True)
    try:
        assert [s.index for s in run_task(task).searched] == [3, 1, 0]
    finally:
        close_engines()


@pytest.mark.slow
def test_the_deep_pass_also_judges_the_moves_beside_a_position_it_finds_misjudged(
        db: Path) -> None:
    # A fast pass that misjudges a position blames the move into it or the move out of it,
    # often the wrong one: wherever the deep search moves a position's expected score by
    # RECHECK_SHIFT or more, both moves beside it get the deep verdict.
    analyze(db, "--engine", "builtin", "--recheck", "depth=2", "--depth", "4", "--game", "14")
    con = duckdb.connect(str(db), read_only=True)
    engine, = con.execute("SELECT DISTINCT engine FROM evals").fetchone()
    fast, deep = (game_evals(con, 14, engine, limit) for limit in ("depth=2", "depth=4"))
    curve = curve_for(engine)
    plies = len(positions_of(db, 14)) - 1
    shifted = [i for i in deep if i in fast and abs(
        deep[i].expectation(curve, i, 1 if i % 2 == 0 else -1)
        - fast[i].expectation(curve, i, 1 if i % 2 == 0 else -1)) >= RECHECK_SHIFT]
    assert shifted, "the fast pass misjudged no position: the game tests nothing"
    for index in shifted:
        beside = {index - 1, index, index + 1} & set(range(plies + 1))
        assert beside <= set(deep), (index, sorted(beside - set(deep)))
