"""The built-in engine, run as users run it: ``xqdb engine`` in a child process, over UCI.

The positions are real: they come from the master games of ``uci/liu-dahua-1125.pgn``
(maksimKorzh/wukong-xiangqi), named below by game (1-based) and the ply they follow.
Each mate in two ended the game it comes from (Fairy-Stockfish scores it ``mate 2``); each
material win is a position where a capture wins at least three pawns' worth against every
reply, and Fairy-Stockfish's own choice does so. What counts is checked here with the rules
engine, not taken from another engine.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from xqdb.engine import Engine, EngineSpec, Limit, Mate
from xqdb.engine.builtin import Searcher, evaluate, material
from xqdb import Position
from xqdb.rules import BLACK, Move

#: (game, ply, FEN): the side to move mates in two.
MATES_IN_TWO = [
    (30, 106, "2b1k4/3R5/4b4/p6Np/5N3/2P3B2/P7P/3K5/1r2p1c2/2B2A3 w - - 4 54"),
    (346, 129, "5k3/3R5/5a3/3C5/9/9/c1n3P1P/3KCr3/9/3A2B2 b - - 26 65"),
    (600, 92, "3k2b2/2N1aR3/2N2a3/p1p5p/2PP5/4C4/P5p1n/4B4/9/4KA1rc w - - 10 47"),
    (736, 72, "5Rb2/2Nk5/b7n/p3r1p1p/2p6/6P2/P1P5P/4C4/2r1A4/3CKAB2 w - - 15 37"),
]

#: (game, ply, FEN): the side to move wins material within two plies.
MATERIAL_WINS = [
    (41, 74, "3a1kb2/3na4/b8/p7p/3N2p2/9/n2c2PCP/4K4/9/3A1AB2 w - - 0 38"),
    (106, 65, "3akab2/3n5/4b4/N8/4p3N/2B2n3/1c1C2P2/1C1AB4/4A4/4K4 b - - 0 33"),
    (121, 83, "4kab2/4a4/4b4/p2r5/8p/1R7/P3P3P/4B1N2/3cK1C2/2B2A3 b - - 0 42"),
    (136, 20, "2baka1c1/8r/nc2b1n2/2p1p3p/p5p2/2P1Pr3/P5P1P/1CN1B1NC1/4A4/2BAKR3 w - - 0 11"),
    (171, 29, "1R2kab2/4a4/2ncb1n2/c1p1p3p/p2r5/2P3P2/P3PR2P/N1C2CN2/4A4/2B1KAB2 b - - 0 15"),
    (201, 38, "2bak2r1/4a4/3cb1n1c/p3p4/1r4p1R/P2p4C/4P1P1P/4B1N1C/4A4/2R1KAB2 w - - 3 20"),
    (211, 38, "2bak4/4a4/n3b1c2/2p1Rr2p/p8/6C2/P1P1P3P/N3B4/9/2BAKA1r1 w - - 0 20"),
    (256, 74, "3a1k3/4a4/9/8p/5r3/3N2P1P/P8/B3C3n/9/3AK3c w - - 0 38"),
    (291, 47, "4kab2/4a4/b2r1N3/2R5p/2P6/3C2p2/P3P1c1P/1R2B4/4A3n/2BAK3c b - - 4 24"),
    (296, 38, "2baka1n1/5c3/2n1b1c2/p3p3C/9/6r2/P3P1P1P/C1N1B1N2/4A4/2BAK4 w - - 0 20"),
    (316, 20, "3akabr1/9/n1c1b1n1c/p3p3p/2p3p2/2PR5/P3P1P1P/C1N1C1N2/4A4/1rB1KAB2 w - - 0 11"),
    (341, 20, "1rbnkabr1/4a4/1c7/p1R1n3p/2p3p2/9/P1P1P1PcP/N2C2N2/4A4/2BAK1BR1 w - - 0 11"),
]


@pytest.fixture(scope="module")
def engine():
    with EngineSpec.builtin().open() as running:
        yield running


def _two_ply_gain(pos: Position, move: Move) -> int:
    """Material the mover is sure to keep after ``move`` and the opponent's best reply."""
    side, before = pos.turn, material(pos) * pos.turn
    pos.push(move)
    try:
        gains = []
        for reply in pos.legal_moves():
            pos.push(reply)
            gains.append(material(pos) * side - before)
            pos.pop()
        return min(gains, default=10 ** 6)
    finally:
        pos.pop()


def _forces_mate_in_two(pos: Position, move: Move) -> bool:
    """Whether every reply to ``move`` allows a mating move (the rules engine's verdict)."""
    pos.push(move)
    try:
        for reply in pos.legal_moves():
            pos.push(reply)
            mates = False
            for second in pos.legal_moves():
                pos.push(second)
                mates = not pos.has_legal_moves()
                pos.pop()
                if mates:
                    break
            pos.pop()
            if not mates:
                return False
        return True
    finally:
        pos.pop()


@pytest.mark.parametrize("game, ply, fen", MATES_IN_TWO)
def test_finds_mate_in_two_in_real_games(engine, game, ply, fen):
    pos = Position.from_fen(fen)
    info = engine.analyse(pos, Limit(depth=4))
    assert info.score.relative == Mate(2), f"game {game} after ply {ply}"
    assert _forces_mate_in_two(pos, info.pv[0])
    assert info.score.pov(pos.turn) == Mate(2)
    assert info.score.pov(-pos.turn) == Mate(-2)


@pytest.mark.parametrize("game, ply, fen", MATERIAL_WINS)
def test_wins_material_of_two_plies_in_real_games(engine, game, ply, fen):
    pos = Position.from_fen(fen)
    info = engine.analyse(pos, Limit(depth=3))
    assert _two_ply_gain(pos, info.pv[0]) >= 300, f"game {game} after ply {ply}: {info.pv[0]}"


def test_served_moves_are_legal_and_the_pv_replays(engine):
    pos = Position()
    for text in ("h2e2", "h9g7", "h0g2", "i9h9"):
        pos.push(Move.from_uci(text))
    info = engine.analyse(pos, Limit(nodes=2000))
    board = pos.copy()
    for move in info.pv:
        assert board.is_legal(move)
        board.push(move)
    assert info.pv and info.depth and info.depth >= 1


def test_a_mated_side_gets_mate_zero_and_no_move(engine):
    info = engine.analyse(Position.from_fen("3k5/9/9/9/9/9/9/9/9/3RK4 b"), Limit(depth=3))
    assert info.score.relative == Mate(0)
    assert info.score.red().mate() == 0 and info.score.red() > info.score.black()
    assert info.pv == []


def test_stalemate_is_scored_as_a_loss(engine):
    """困毙: Black has no legal move and is not in check; that loses like a mate."""
    info = engine.analyse(Position.from_fen("3k5/R8/9/9/9/9/9/9/9/4K4 b"), Limit(depth=2))
    assert info.score.relative == Mate(0)


def test_multipv_gives_distinct_moves_best_first(engine):
    pos = Position.from_fen(MATES_IN_TWO[0][2])
    infos = engine.analyse(pos, Limit(depth=2), multipv=3)
    assert [info.multipv for info in infos] == [1, 2, 3]
    assert len({info.pv[0] for info in infos}) == 3
    assert infos[0].score.relative >= infos[1].score.relative >= infos[2].score.relative


def test_an_illegal_move_list_is_refused_not_cut_short():
    """Unlike the engines the client guards against, ours says so and analyses nothing."""
    out = subprocess.run(
        [*EngineSpec.builtin().command], input="uci\nposition startpos moves h2e2 h2h9\n"
        "go depth 1\nquit\n", capture_output=True, text=True, timeout=60).stdout
    assert "info string position not set: illegal move h2h9" in out
    assert "bestmove (none)" in out


@pytest.mark.skipif(shutil.which("xqdb") is None, reason="the xqdb command is not installed")
def test_the_xqdb_engine_command_serves_uci():
    with Engine.popen(["xqdb", "engine"]) as running:
        assert running.name == "xqdb built-in"
        assert running.dialect.name == "uci"
        info = running.analyse(Position.from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w"), Limit(depth=2))
    assert info.score.relative == Mate(1) and str(info.pv[0]) == "a0d0"


def test_evaluation_counts_the_rules_text_piece_values():
    # One red chariot against one black horse, kings apart: 9 - 4 = 5 pawns for Red.
    pos = Position.from_fen("3k5/9/9/9/n8/9/9/9/9/R3K4 w")
    assert 450 <= evaluate(pos) <= 560
    pos.push(Move.from_uci("a0a1"))
    assert pos.turn == BLACK and -560 <= evaluate(pos) <= -450


def test_node_limit_stops_the_search_after_the_first_iteration():
    result = Searcher().search(Position(), nodes=500)
    assert result.depth >= 1 and result.lines[0].pv
    assert result.nodes < 5_000


def test_wdl_is_reported_and_read_from_either_side(engine):
    # Red is a chariot up, Black to move: Black's expected score is low, Red's high.
    info = engine.analyse(Position.from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 b"), Limit(depth=2))
    assert info.wdl is not None and info.wdl.relative.total() == 1000
    assert info.wdl.black().expectation() < 0.1 < 0.9 < info.wdl.red().expectation()
