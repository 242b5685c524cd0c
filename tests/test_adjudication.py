"""Game adjudication against pyffish's verdicts: hand-built endings and 1,125 master games.

pyffish's ``is_optional_game_end(variant, fen, moves)`` gives ``(ended, value)`` with the
value from the point of view of the side to move after the moves (+32000 win, -32000
loss, 0 draw), and it applies a 100-ply move limit: so the comparisons use
``move_limit=100``.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pyffish
import pytest

from datafiles import SHARED_DATA
from positions import coordinate_games
from xqdb.formats import pgn, read_paths
from xqdb.formats.record import Origin
from xqdb.replay import replay
from xqdb import IllegalMoveError, Move, Position
from xqdb.rules import BLACK, RED, STARTING_FEN, Termination, square_name
from xqdb.rules.adjudication import Adjudicator, Ending, adjudicate, chasing_sides, threatened

MATE = pyffish.VALUE_MATE


def to_ffish(move: str) -> str:
    """``b2b9`` (ranks 0-9) -> ``b3b10`` (ranks 1-10)."""
    return f"{move[0]}{int(move[1]) + 1}{move[2]}{int(move[3]) + 1}"


def played(fen: str, moves: list[str]) -> Position:
    pos = Position.from_fen(fen)
    for text in moves:
        pos.push_legal(Move.from_uci(text))
    return pos


def value_for_side_to_move(ending: Ending, pos: Position) -> int:
    """Our verdict on pyffish's scale."""
    if ending.is_draw:
        return 0
    return -MATE if ending.loser == pos.turn else MATE


def pyffish_verdict(fen: str, moves: list[str]) -> tuple[bool, int]:
    return pyffish.is_optional_game_end("xiangqi", Position.from_fen(fen).fen(),
                                        [to_ffish(m) for m in moves])


# (name, fen, one cycle of moves, expected ending, offender)
REPETITIONS = [
    ("rook checks every move", "R2k5/9/9/9/9/9/9/9/9/5K3 b",
     ["d9d8", "a9a8", "d8d9", "a8a9"], "perpetual_check", RED),
    ("kings shuffle", "4k4/9/9/9/9/9/9/9/9/3K5 w",
     ["d0d1", "e9e8", "d1d0", "e8e9"], "repetition", None),
    ("rook chases a lone cannon", "4k4/9/9/8c/R8/9/9/9/9/3K5 w",
     ["a5a6", "i6i5", "a6a5", "i5i6"], "perpetual_chase", RED),
    ("rook attacks a cannon protected by a chariot", "4k3r/9/9/8c/R8/9/9/9/9/3K5 w",
     ["a5a6", "i6i5", "a6a5", "i5i6"], "repetition", None),
    ("rook chases a pawn across the river", "5k3/9/9/9/9/9/6p2/9/9/3K3R1 w",
     ["h0g0", "g3h3", "g0h0", "h3g3"], "perpetual_chase", RED),
    ("horse chases a lone chariot", "5k3/9/9/9/4r4/5N3/9/9/9/3K5 w",
     ["f4d3", "e5e6", "d3f4", "e6e5"], "perpetual_chase", RED),
    ("horse chases a protected chariot", "4rk3/9/9/9/4r4/5N3/9/9/9/3K5 w",
     ["f4d3", "e5e6", "d3f4", "e6e5"], "perpetual_chase", RED),
    ("rook offers a rook exchange", "4k4/9/9/8r/R8/9/9/9/9/3K5 w",
     ["a5a6", "i6i5", "a6a5", "i5i6"], "repetition", None),
    ("the only protector is pinned by the facing kings", "4k4/9/4b4/9/6c2/9/9/9/9/4K2R1 w",
     ["h0g0", "g5h5", "g0h0", "h5g5"], "perpetual_chase", RED),
    ("the same protector, free", "3k5/9/4b4/9/6c2/9/9/9/9/4K2R1 w",
     ["h0g0", "g5h5", "g0h0", "h5g5"], "repetition", None),
]


@pytest.mark.parametrize("fen, cycle, name, offender",
                         [case[1:] for case in REPETITIONS], ids=[case[0] for case in REPETITIONS])
def test_repetition_verdicts_agree_with_pyffish(fen: str, cycle: list[str], name: str,
                                                offender: int | None) -> None:
    once, twice = cycle, cycle * 2
    # Second occurrence: nothing yet, for both.
    assert adjudicate(fen, once) is None
    assert pyffish_verdict(fen, once)[0] is False
    # Third occurrence: the ending, at the last ply.
    ending = adjudicate(fen, twice)
    assert ending is not None
    assert (ending.name, ending.offender, ending.ply) == (name, offender, len(twice))
    assert ending.chase == (name == "perpetual_chase")
    assert ending.result == {RED: "0-1", BLACK: "1-0", None: "1/2-1/2"}[offender]
    assert pyffish_verdict(fen, twice) == (True, value_for_side_to_move(ending, played(fen, twice)))


@pytest.mark.parametrize("fen, moves, name, result", [
    ("3k5/9/9/9/9/9/9/9/9/R3K4 w", ["a0d0"], "checkmate", "1-0"),        # rook + facing king
    ("3k5/9/9/9/9/9/9/9/9/R3K4 w", ["a0a8"], "stalemate", "1-0"),        # d9e9 faces the king
    ("3k5/9/9/9/9/9/9/1r7/r8/4K4 b", ["b2b0"], "checkmate", "0-1"),     # two chariots
    ("3k5/2P6/9/9/9/9/9/9/9/4K4 w", ["c8d8"], None, None),                 # pawn check, king escapes
])
def test_mate_and_stalemate_agree_with_pyffish(fen: str, moves: list[str], name: str | None,
                                               result: str | None) -> None:
    ending = adjudicate(fen, moves)
    pos = played(fen, moves)
    theirs = pyffish.legal_moves("xiangqi", pos.fen(), [])
    if name is None:
        assert ending is None and theirs
        return
    assert (ending.name, ending.result, ending.ply, ending.offender) == (name, result, 1, None)
    assert theirs == []
    assert pyffish.gives_check("xiangqi", pos.fen(), []) == (name == "checkmate")
    assert pyffish.game_result("xiangqi", pos.fen(), []) == -MATE  # the side to move lost
    assert ending.loser == pos.turn


def test_move_limit_agrees_with_pyffish_at_100_plies() -> None:
    board = "4k4/9/9/9/9/9/9/9/9/3K5"
    ending = adjudicate(f"{board} w - - 99 80", ["d0d1"], move_limit=100)
    assert ending == Ending(Termination.MOVE_LIMIT, "1/2-1/2", 1, move_limit=100)
    assert pyffish_verdict(f"{board} w - - 99 80", ["d0d1"]) == (True, 0)
    assert adjudicate(f"{board} w - - 98 80", ["d0d1"], move_limit=100) is None
    assert pyffish_verdict(f"{board} w - - 98 80", ["d0d1"]) == (False, 0)


def test_move_limit_is_configurable_and_recorded() -> None:
    board = "4k4/9/9/9/9/9/9/9/9/3K5"
    assert adjudicate(f"{board} w - - 99 80", ["d0d1"]) is None  # 120 plies by default
    ending = adjudicate(f"{board} w - - 119 80", ["d0d1"])
    assert (ending.name, ending.move_limit, ending.is_draw) == ("move_limit", 120, True)
    assert adjudicate(f"{board} w - - 500 80", ["d0d1"], move_limit=None) is None
    assert adjudicate(f"{board} w - - 0 1", ["d0d1", "e9e8"], move_limit=2).name == "move_limit"


def test_a_capture_restarts_the_move_count() -> None:
    fen = "4k4/9/9/9/9/9/9/r8/R8/3K5 w - - 118 80"
    assert adjudicate(fen, ["a1a2", "e9e8"]) is None   # a1xa2 took the chariot
    assert adjudicate(fen, ["a1b1", "e9e8"]).name == "move_limit"


@pytest.mark.usefixtures("shared_data")
def test_incremental_and_pure_forms_agree_on_real_games() -> None:
    for moves in coordinate_games()[:150]:
        pos = Position()
        adjudicator = Adjudicator(pos)
        endings = []
        for text in moves:
            pos.push(Move.from_uci(text))
            ending = adjudicator.update(pos)
            if ending is not None:
                endings.append(ending)
        assert len(endings) <= 1  # only the first ending is reported
        assert adjudicator.ending == (endings[0] if endings else None)
        assert adjudicate(STARTING_FEN, moves) == adjudicator.ending
        assert adjudicator.ply == len(moves)
        if adjudicator.ending is not None:
            assert adjudicator.ending.reason
            assert adjudicate(STARTING_FEN, moves).reason == adjudicator.ending.reason


def test_repetition_analysis_leaves_the_position_untouched() -> None:
    fen, cycle = REPETITIONS[2][1], REPETITIONS[2][2]
    pos = Position.from_fen(fen)
    adjudicator = Adjudicator(pos)
    for text in cycle * 2:
        pos.push(Move.from_uci(text))
        ending = adjudicator.update(pos)
    assert ending is not None and ending.name == "perpetual_chase"
    assert pos.fen() == played(fen, cycle * 2).fen()
    assert [str(m) for m in pos.move_stack] == cycle * 2
    assert pos.zobrist() == Position.from_fen(pos.fen()).zobrist()
    # Playing on: the ending stays the first one, later plies report nothing new.
    pos.push(Move.from_uci("a5a6"))
    assert adjudicator.update(pos) is None
    assert adjudicator.ending == ending


def test_game_over_in_the_start_position() -> None:
    adjudicator = Adjudicator(Position.from_fen("3k5/9/9/9/9/9/9/9/9/3RK4 b"))
    assert adjudicator.ending == Ending(Termination.CHECKMATE, "1-0", 0)
    assert adjudicate("3k5/9/9/9/9/9/9/9/9/3RK4 b", []) == adjudicator.ending


def test_illegal_move_is_named_with_its_ply() -> None:
    with pytest.raises(IllegalMoveError, match=r"ply 2: e9e7: the king on e9 cannot move to e7"):
        adjudicate("4k4/9/9/9/9/9/9/9/9/3K5 w", ["d0d1", "e9e7"])


def test_threats_follow_the_chasing_rule() -> None:
    # A pawn still on its own side of the river is not chased; across it, it is.
    assert threatened(Position("4k4/9/9/R5p2/9/9/9/9/9/3K5 w"), RED) == set()
    assert threatened(Position("4k4/9/9/9/9/R5p2/9/9/9/3K5 w"), RED) == {9 * 4 + 6}
    # Kings are never chased, and kings and pawns never chase.
    assert threatened(Position("4k4/9/9/9/9/9/9/9/4c4/3K5 w"), RED) == set()
    assert threatened(Position("4k4/9/9/4c4/4P4/9/9/9/9/3K5 w"), RED) == set()
    # A cannon threatens over a screen only.
    assert threatened(Position("4k4/9/9/9/9/C1P3n2/9/9/9/3K5 w"), RED) == {9 * 4 + 6}
    assert threatened(Position("4k4/9/9/9/9/C5n2/9/9/9/3K5 w"), RED) == set()


def test_chasing_sides_needs_every_move_of_the_cycle() -> None:
    pos = played("4k4/9/9/8c/R8/9/9/9/9/3K5 w", ["a5a6", "i6i5", "a6a5", "i5i6"])
    assert chasing_sides(pos, 4) == {RED}
    quiet = played("4k4/9/9/8c/R8/9/9/9/9/3K5 w", ["d0d1", "e9e8", "d1d0", "e8e9"])
    assert chasing_sides(quiet, 4) == set()


@pytest.mark.usefixtures("shared_data")
@pytest.mark.parametrize("step", [
    9,  # one game in nine (125 games), in the daily run
    pytest.param(1, marks=pytest.mark.slow),  # all 1,125: some 20 s
])
def test_master_games_agree_with_pyffish(step: int) -> None:
    """The games of liu-dahua-1125.pgn (all 1,125, or one in ``step``): every ending we
    find, at its ply, is pyffish's verdict too, and where we find none pyffish finds none
    either."""
    counts: dict[str | None, int] = {}
    disagreements = []
    for index, moves in enumerate(coordinate_games()):
        if index % step:
            continue
        pos = Position()
        adjudicator = Adjudicator(pos, move_limit=100)
        for text in moves:
            pos.push(Move.from_uci(text))
            if adjudicator.update(pos):
                break
        ending = adjudicator.ending
        name = ending.name if ending else None
        counts[name] = counts.get(name, 0) + 1
        theirs = pyffish_verdict(STARTING_FEN, moves[:adjudicator.ply])
        if name is None or name in ("checkmate", "stalemate"):
            expected = (False, theirs[1])  # pyffish leaves mate to legal_moves
        else:
            expected = (True, value_for_side_to_move(ending, pos))
        if theirs != expected:
            disagreements.append(f"game {index + 1}, ply {adjudicator.ply}: ours {ending}, "
                                 f"pyffish {theirs}")
    assert not disagreements, "\n".join(disagreements[:5])
    if step > 1:
        assert sum(counts.values()) == 125
        # Its endings: 11 repetitions, a perpetual check and a perpetual chase.
        assert counts.get("repetition", 0) >= 5, counts
        assert counts.get("perpetual_check", 0) >= 1 and counts.get("perpetual_chase", 0) >= 1
        return
    assert sum(counts.values()) == 1125
    assert counts.get("perpetual_check", 0) >= 10
    assert counts.get("perpetual_chase", 0) >= 10
    assert counts.get("repetition", 0) >= 50
    assert counts.get("checkmate", 0) >= 1


def test_real_cannon_duel_counts_new_attacks_only() -> None:
    """Yan Mujiang - Yang Guanlin, 1981 (CCPD, 00000343.pgn), from move 15: Black's
    cannons attack Red's chariot anew with every move, one of them a check; Red's cannon
    only cuts the protection of a horse its chariot already attacked (it blocks, then
    takes away the screen of Black's cannon on g1), which is no chase: only a pin of the
    protector would make one. The record says 1/2-1/2: the arbiters did not apply the
    rule, or counted the cut protection as a chase too, as the AXF examples do; pyffish
    applies it as here."""
    fen = "r2akabr1/9/2n1b1n2/p1p1p1R1p/6c2/2P6/P3P2CP/2N1C4/7cN/R1BAKAB2 b - - 2 15"
    moves = ["h1g1"] + ["e2g2", "g5e5", "g2e2", "e5g5"] * 2
    ending = adjudicate(fen, moves)
    assert (ending.name, ending.offender, ending.result, ending.ply) == \
        ("perpetual_chase", BLACK, "1-0", 9)
    assert pyffish_verdict(fen, moves) == (True, value_for_side_to_move(ending, played(fen, moves)))


@pytest.mark.slow
def test_practical_dataset_sample_agrees_with_pyffish(shared_data: Path) -> None:
    """One game in twenty of ccpd-dev.zip (Big5 PGN, Chinese notation), read and replayed
    by xqdb itself: every verdict, ending or not, is pyffish's too."""
    path = shared_data / "ccpd-dev.zip"
    endings, games, disagreements = 0, 0, []
    with zipfile.ZipFile(path) as archive:
        names = sorted(n for n in archive.namelist() if n.lower().endswith(".pgn"))
        for name in names[::20]:
            for record in pgn.read(io.BytesIO(archive.read(name)), Origin(str(path), member=name)):
                game = replay(record)
                assert game.is_valid, (name, game.error)
                games += 1
                pos = Position.from_fen(game.start_fen)
                adjudicator = Adjudicator(pos, move_limit=100)
                for text in game.uci:
                    pos.push(Move.from_uci(text))
                    if adjudicator.update(pos):
                        break
                ending = adjudicator.ending
                theirs = pyffish_verdict(game.start_fen, game.uci[:adjudicator.ply])
                if ending is None or ending.name in ("checkmate", "stalemate"):
                    expected = (False, theirs[1])
                else:
                    endings += 1
                    expected = (True, value_for_side_to_move(ending, pos))
                if theirs != expected:
                    disagreements.append(f"{name}, ply {adjudicator.ply}: ours {ending}, "
                                         f"pyffish {theirs}")
    assert not disagreements, "\n".join(disagreements[:5])
    assert games >= 580
    assert endings >= 40


@pytest.mark.parametrize("fen, threatened_squares", [
    ("3k5/9/9/9/9/5c3/9/4N4/9/4K4 w", {"f4"}),              # a lone cannon
    ("3k5/9/4r4/9/9/5c3/9/4N4/9/4K4 w", set()),             # the horse is pinned on the e file
    ("3k5/9/9/6n2/9/5c3/9/4N4/9/4K4 w", set()),             # the cannon is protected
    ("3k5/9/9/9/5r3/5r3/9/4N4/9/4K4 w", {"f4"}),            # a chariot, protected or not
    ("3k5/9/9/9/9/5n3/9/4N4/9/4K4 w", set()),               # horse for horse: an exchange offer
])
def test_what_a_horse_threatens(fen: str, threatened_squares: set[str]) -> None:
    assert {square_name(sq) for sq in threatened(Position.from_fen(fen), RED)} == threatened_squares


@pytest.mark.parametrize("step", [
    9,  # one record in nine (127 of 1,140), in the daily run
    pytest.param(1, marks=pytest.mark.slow),  # all of them: some 15 s
])
def test_replay_judges_real_games_as_the_incremental_adjudicator_does(shared_data: Path,
                                                                      step: int) -> None:
    """judge_history (after the fact, used by replay) agrees with Adjudicator ply by ply,
    on every record of the two files or one in ``step``."""
    endings = 0
    paths = [str(shared_data / "uci" / "liu-dahua-1125.pgn"), str(shared_data / "pgn-chinese-15.pgn")]
    for index, record in enumerate(read_paths(paths)):
        if index % step:
            continue
        game = replay(record, move_limit=100)
        assert game.is_valid, game.error
        expected = adjudicate(game.start_fen, game.uci, move_limit=100)
        assert game.ending == expected, record.origin
        if expected is not None:
            assert game.ending.reason == expected.reason, record.origin
        endings += expected is not None
    assert endings > 100 // step


DIFFERS = SHARED_DATA / "adjudication-differs.jsonl"

# The CCPD games (outside ccpd-dev.zip) whose first ending under these rules once differed
# from pyffish's: file name -> (ending, offender, result, ply, whether pyffish agrees now).
# The comment gives the reason for the verdict; the module docstring says why pyffish
# judges otherwise where it still does.
DIFFERING_GAMES = {
    # Black's cannon goes e5-d5-e5 while Red's king steps e0-d0-e0. The chariot on d3
    # attacks the horse on d2 all along; with the king on d0 the advisor on e1 protects
    # it, and each cannon move takes that protection away by a pin (on e5 the cannon pins
    # the advisor to the king over the elephant on e2; on d5 taking back would leave the
    # king in check from the cannon): a chase by Black with every move. Filed twice.
    "胡榮華/00001983.pgn": ("perpetual_chase", BLACK, "1-0", 66, True),
    "金鉤炮/00000040.pgn": ("perpetual_chase", BLACK, "1-0", 66, True),
    # Red's chariot goes d9-c9, Black's cannon d8-b8. Cannon to d8 attacks the chariot on
    # d9 over the new screen; cannon to b8 only clears the eye of the elephant on e7,
    # which is pinned by Red's cannon on e2 (screen: Black's chariot on e4) and cannot
    # take the chariot on c9. Black does not chase with every move: a draw. pyffish lets
    # the pinned elephant chase. The same game is filed four times.
    "許銀川/00001299.pgn": ("repetition", None, "1/2-1/2", 76, False),
    "象甲聯賽/00000381.pgn": ("repetition", None, "1/2-1/2", 76, False),
    "象甲聯賽/00000681.pgn": ("repetition", None, "1/2-1/2", 76, False),
    "中炮局/00004105.pgn": ("repetition", None, "1/2-1/2", 76, False),
    # Black's cannon goes f8-e8 while Red's king steps e0-f0. The cannon's own attacks
    # (advisor on e1, advisor on f2) are on protected pieces; what each cannon move does
    # is pin the advisor that protects f2 against the pawn on f3, or make the pawn's
    # capture a discovered check. Pawns never chase: a draw. pyffish counts the pawn.
    "許銀川/00003030.pgn": ("repetition", None, "1/2-1/2", 229, False),
    # Black's king steps e9-d9, unpinning the chariot on e5 (with the king on e9, taking
    # would let Red's cannon on e2 check over the advisor on e8), which then attacks the
    # unprotected cannon on f5; the chariot follows that cannon e5-e3-e5 with every move
    # after. A perpetual chase by Black. pyffish does not see the pin, so for it the king
    # step chases nothing, and it requires that move (the one that first reached the
    # repeated position) to chase.
    "世界智力運動會/00000323.pgn": ("perpetual_chase", BLACK, "1-0", 108, False),
    # Black's chariot follows Red's cannon a6-b6-a6-d6-a6 along rank 5; the cannon stays
    # protected by Red's chariot on e6. That chariot is Red's only piece on the kings' e
    # file, but Black's elephant and advisor stand there too: it is not pinned. No chase:
    # a draw. pyffish takes the chariot as pinned by the facing kings.
    "全國賽對局譜/00012391.pgn": ("repetition", None, "1/2-1/2", 60, False),
    # Move limit (100 plies here): 106 plies without a capture, with 13 checks by one
    # side; the 3 beyond the tenth are left out, a move each.
    "象甲聯賽/00000090.pgn": ("move_limit", None, "1/2-1/2", 348, True),
    # 118 plies without a capture, 19 checks by one side: 9 moves left out. Filed twice.
    "電腦對局競賽/00000020.pgn": ("move_limit", None, "1/2-1/2", 190, True),
    "電腦對局競賽/00000046.pgn": ("move_limit", None, "1/2-1/2", 190, True),
}


def differing_games() -> dict[str, dict]:
    if not DIFFERS.exists():
        pytest.skip(f"{DIFFERS} is not here")
    games = {}
    for line in DIFFERS.read_text(encoding="utf-8").splitlines():
        game = json.loads(line)
        games["/".join(game["path"].split("/")[-2:])] = game
    return games


@pytest.mark.parametrize("name", DIFFERING_GAMES)
def test_verdicts_where_pyffish_once_differed(name: str) -> None:
    game = differing_games()[name]
    ending_name, offender, result, ply, pyffish_agrees = DIFFERING_GAMES[name]
    ending = adjudicate(game["fen"], game["moves_uci"], move_limit=100)
    assert (ending.name, ending.offender, ending.result, ending.ply) == \
        (ending_name, offender, result, ply)
    assert ending.reason.startswith(ending_name.replace("_", " "))
    moves = game["moves_uci"][:ply]
    agrees = pyffish_verdict(game["fen"], moves) == \
        (True, value_for_side_to_move(ending, played(game["fen"], moves)))
    assert agrees == pyffish_agrees


def test_reasons_name_the_chase_and_the_checks_left_out() -> None:
    games = differing_games()
    chase = adjudicate(games["胡榮華/00001983.pgn"]["fen"],
                       games["胡榮華/00001983.pgn"]["moves_uci"], move_limit=100)
    assert chase.reason == ("perpetual chase by Black: the chariot on d3 chases the unprotected"
                            " horse on d2 with every move from ply 58 to ply 66")
    limit = adjudicate(games["電腦對局競賽/00000020.pgn"]["fen"],
                       games["電腦對局競賽/00000020.pgn"]["moves_uci"], move_limit=100)
    assert limit.reason == ("move limit: 118 plies without a capture, 100 once the 9 checks"
                            " beyond a side's 10th are left out (a move each): a draw")
    # Without the checks left out, the limit would have come at ply 172.
    assert adjudicate(games["電腦對局競賽/00000020.pgn"]["fen"],
                      games["電腦對局競賽/00000020.pgn"]["moves_uci"][:189],
                      move_limit=100) is None


def ccpd_game(shared_data: Path, member: str):
    """A game of ccpd-dev.zip, replayed by xqdb with pyffish's move limit."""
    path = shared_data / "ccpd-dev.zip"
    with zipfile.ZipFile(path) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(member)]
        (record,) = pgn.read(io.BytesIO(archive.read(name)), Origin(str(path), member=name))
    return replay(record, move_limit=100)


def test_a_check_does_not_pin_the_protector(shared_data: Path) -> None:
    """Zhao Guorong's game 00001075.pgn (CCPD), from ply 29: Red's chariots on f1 and g9
    attack the advisor on f9, which the advisor on e8 protects. Red's cannon goes e4-d4-e4.
    On e4 it pins the advisor on e8 against the king on e9: a chase of f9. On d4 it gives
    check, and the advisor may not take back only because Black must answer the check:
    that is no pin, so Red does not chase with every move. A repetition, as for pyffish."""
    game = ccpd_game(shared_data, "趙國榮/00001075.pgn")
    ending = game.ending
    assert (ending.name, ending.ply, ending.result) == ("repetition", 37, "1/2-1/2")
    assert pyffish_verdict(game.start_fen, game.uci[:37]) == (True, 0)
