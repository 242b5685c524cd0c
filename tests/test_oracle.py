"""Differential test of the move generator against pyffish (Fairy-Stockfish) on real positions.

pyffish writes ranks 1-10 (``b3b10``); ours are 0-9 (``b2b9``), so every move is converted
before comparing. One pyffish call costs about 1.5 ms, so the whole set takes seconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pyffish
import pytest

from positions import coordinate_games, epd_lines, oracle_positions, positions_by_kind
from xqdb import FenError, Move, Outcome, Position, Termination
from xqdb.rules import STARTING_FEN
from xqdb.rules.zobrist import board_key

_FFISH_MOVE = re.compile(r"([a-i])(10|[1-9])([a-i])(10|[1-9])")


def from_ffish(text: str) -> str:
    """``b3b10`` (ranks 1-10) -> ``b2b9`` (ranks 0-9).

    >>> from_ffish("b3b10"), from_ffish("h10g8")
    ('b2b9', 'h9g7')
    """
    m = _FFISH_MOVE.fullmatch(text)
    assert m, f"pyffish move {text!r} is not a coordinate move"
    return f"{m[1]}{int(m[2]) - 1}{m[3]}{int(m[4]) - 1}"


@dataclass(frozen=True, slots=True)
class Verdict:
    fen: str
    ours: frozenset[str]
    theirs: frozenset[str]
    our_check: bool
    their_check: bool


@pytest.fixture(scope="module")
def verdicts(shared_data) -> list[Verdict]:
    out = []
    for fen in oracle_positions():
        pos = Position.from_fen(fen)
        out.append(Verdict(
            fen=fen,
            ours=frozenset(str(m) for m in pos.legal_moves()),
            theirs=frozenset(from_ffish(m) for m in pyffish.legal_moves("xiangqi", fen, [])),
            our_check=pos.is_check(),
            their_check=pyffish.gives_check("xiangqi", fen, []),
        ))
    return out


def _show(bad: list[str]) -> str:
    return f"{len(bad)} positions disagree, first ones:\n" + "\n".join(bad[:5])


@pytest.mark.usefixtures("shared_data")
def test_position_set_is_large_and_covers_every_phase() -> None:
    kinds = positions_by_kind()
    assert len(oracle_positions()) >= 3000
    assert len(set(oracle_positions())) == len(oracle_positions())
    for kind, fens in kinds.items():
        assert len(fens) >= 500, kind
    assert all(Position.from_fen(fen).is_check() for fen in kinds["check"])


@pytest.mark.slow
def test_legal_moves_equal_pyffish(verdicts: list[Verdict]) -> None:
    bad = [f"{v.fen}: only ours {sorted(v.ours - v.theirs)}, only pyffish {sorted(v.theirs - v.ours)}"
           for v in verdicts if v.ours != v.theirs]
    assert not bad, _show(bad)
    assert sum(len(v.ours) for v in verdicts) > 100_000  # the comparison was not vacuous


@pytest.mark.slow
def test_check_verdicts_equal_pyffish(verdicts: list[Verdict]) -> None:
    bad = [f"{v.fen}: ours {v.our_check}, pyffish {v.their_check}"
           for v in verdicts if v.our_check != v.their_check]
    assert not bad, _show(bad)
    assert sum(v.their_check for v in verdicts) >= 1000


@pytest.mark.slow
def test_game_over_verdicts_equal_pyffish(verdicts: list[Verdict]) -> None:
    """No legal move: mate when in check, stalemate otherwise; pyffish scores both as a loss."""
    ended = [v for v in verdicts if not v.theirs]
    assert ended, "the set should hold some finished games"
    for v in ended:
        pos = Position.from_fen(v.fen)
        expected = Termination.CHECKMATE if v.their_check else Termination.STALEMATE
        assert pos.outcome() == Outcome(expected, -pos.turn), v.fen
        assert pyffish.game_result("xiangqi", v.fen, []) == -pyffish.VALUE_MATE, v.fen
    for v in verdicts:
        if v.theirs:
            assert Position.from_fen(v.fen).outcome() is None, v.fen


@pytest.mark.parametrize("fen, expected", [
    ("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1", "checkmate"),   # d9e9 would face the red king
    ("3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1", "stalemate"),
    ("3k5/4P4/9/9/9/9/9/9/9/4K4 b - - 0 1", "stalemate"),   # e9 is covered by the pawn
    ("3ak4/4a4/9/9/9/9/9/9/4R4/3K5 b - - 0 1", None),       # e9f9 is the only move
    ("4k4/4a4/4C4/9/9/9/9/9/4R4/3K5 b - - 0 1", None),      # in check, five ways out
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1", None),
])
def test_hand_built_endings_agree_with_pyffish(fen: str, expected: str | None) -> None:
    pos = Position.from_fen(fen)
    outcome = pos.outcome()
    assert (outcome and outcome.termination) == expected
    if outcome is not None:  # the side to move has lost: red won when black is to move
        assert outcome.result() == ("1-0" if " b " in fen else "0-1")
    theirs = pyffish.legal_moves("xiangqi", fen, [])
    assert (not theirs) == (expected is not None)
    assert pos.is_check() == pyffish.gives_check("xiangqi", fen, [])
    assert pos.is_checkmate() == (expected == "checkmate")
    assert pos.is_stalemate() == (expected == "stalemate")


@pytest.mark.slow
def test_is_legal_agrees_with_legal_moves(verdicts: list[Verdict]) -> None:
    """``is_legal`` (one move, no generation) gives the same answer as the generator."""
    for v in verdicts[::7]:
        pos = Position.from_fen(v.fen)
        for move in pos.pseudo_legal_moves():
            assert pos.is_legal(move) == (str(move) in v.theirs), (v.fen, str(move))
        for text in v.theirs:
            assert pos.is_legal(Move.from_uci(text)), (v.fen, text)


@pytest.mark.usefixtures("shared_data")
def test_every_epd_study_is_read_or_rejected_for_a_missing_king() -> None:
    rejected = []
    for fen, name, line in epd_lines():
        try:
            Position.from_fen(fen)
        except FenError as exc:
            rejected.append((name, line, str(exc)))
    assert len(epd_lines()) == 6622
    assert rejected == [("_K.EPD", 51, "red has no king"), ("_K.EPD", 52, "red has no king")]


def to_ffish(move: str) -> str:
    """``b2b9`` (ranks 0-9) -> ``b3b10`` (ranks 1-10)."""
    return f"{move[0]}{int(move[1]) + 1}{move[2]}{int(move[3]) + 1}"


@pytest.mark.usefixtures("shared_data")
def test_push_pop_captures_and_keys_over_real_games() -> None:
    """Whole games: the final FEN is pyffish's, every incremental Zobrist key equals the
    key computed from scratch, the captured piece is the one that stood on the target,
    and popping every move gives back the start exactly."""
    games = coordinate_games()
    assert len(games) == 1125
    for moves in games[::5]:
        pos = Position()
        keys = [pos.zobrist()]
        for text in moves:
            move = Move.from_uci(text)
            on_target = pos.piece_at(move.to_square)
            assert pos.push_legal(move) == on_target
            assert pos.last_capture() == on_target
            assert pos.zobrist() == board_key(pos.board, pos.turn), (pos.fen(), text)
            keys.append(pos.zobrist())
        assert pos.fen() == pyffish.get_fen("xiangqi", STARTING_FEN, [to_ffish(m) for m in moves])
        for text in reversed(moves):
            keys.pop()
            assert str(pos.pop()) == text
            assert pos.zobrist() == keys[-1]
        assert pos.fen() == STARTING_FEN and not pos.move_stack


@pytest.mark.usefixtures("shared_data")
def test_zobrist_keys_are_64_bit_and_tell_positions_apart() -> None:
    fens = oracle_positions()
    keys = {Position.from_fen(fen).zobrist() for fen in fens}
    # Positions equal up to the move counters share a key; all others must differ.
    assert len(keys) == len({" ".join(fen.split()[:2]) for fen in fens})
    assert all(0 <= key < 2**64 for key in keys)
    assert max(keys).bit_length() == 64
    # Same board, other side to move: another key.
    red = Position.from_fen(STARTING_FEN)
    black = Position.from_fen(STARTING_FEN.replace(" w ", " b "))
    assert red.zobrist() != black.zobrist()


def test_transpositions_share_a_key() -> None:
    one, other = Position(), Position()
    for text in ["h2e2", "h9g7", "h0g2", "b9c7"]:
        one.push(Move.from_uci(text))
    for text in ["h0g2", "b9c7", "h2e2", "h9g7"]:
        other.push(Move.from_uci(text))
    assert one.fen().split()[:2] == other.fen().split()[:2]
    assert one.zobrist() == other.zobrist()


@pytest.mark.parametrize("fen, move, reason", [
    # The king itself steps onto the open file of the other king.
    ("4k4/9/9/9/9/9/9/9/9/3K5 w", "d0e0", "kings facing each other"),
    # A piece leaves the file between the kings.
    ("4k4/9/9/9/9/9/9/9/4A4/4K4 w", "e1d2", "kings facing each other"),
    ("4k4/9/9/9/9/9/9/9/r8/3K5 w", "d0d1", "in check"),
    ("4k4/9/9/9/9/9/9/9/9/3K5 w", "d0d2", "cannot move to d2"),
])
def test_illegal_moves_are_explained(fen: str, move: str, reason: str) -> None:
    pos = Position.from_fen(fen)
    assert not pos.is_legal(Move.from_uci(move))
    assert from_ffish(to_ffish(move)) not in {from_ffish(m) for m in
                                              pyffish.legal_moves("xiangqi", fen, [])}
    assert reason in pos.explain_illegal(Move.from_uci(move))


@pytest.mark.parametrize("rule, fen, origin, expected", [
    ("king stays in the palace", "5k3/9/9/9/9/9/9/3K5/9/9 w", "d2", {"d1", "e2"}),
    ("kings may not face each other", "5k3/9/9/9/9/9/9/9/4K4/9 w", "e1", {"e0", "e2", "d1"}),
    ("advisor on the palace diagonals", "5k3/9/9/9/9/9/9/9/4A4/3K5 w", "e1", {"d2", "f2", "f0"}),
    ("elephant eye blocked", "5k3/9/9/9/9/9/9/9/3N5/2B1K4 w", "c0", {"a2"}),
    ("elephant does not cross the river", "5k3/9/9/9/9/2B6/9/9/9/4K4 w", "c4", {"a2", "e2"}),
    ("horse leg blocked", "5k3/9/9/9/9/9/9/9/1R7/1N2K4 w", "b0", {"d1"}),
    ("cannon moves like a chariot, takes over one screen", "5k3/9/9/9/1n7/9/9/1p7/9/1C2K4 w", "b0",
     {"b1", "a0", "c0", "d0", "b5"}),
    ("pawn before the river: forward only", "5k3/9/9/9/2P6/9/2P6/9/9/4K4 w", "c3", {"c4"}),
    ("pawn across the river: sideways too, never back", "5k3/9/9/9/2P6/9/2P6/9/9/4K4 w", "c5",
     {"c6", "b5", "d5"}),
    ("black pawn across the river", "5k3/9/9/9/9/9/2p6/9/9/4K4 b", "c3", {"c2", "b3", "d3"}),
    ("a pinned piece may only move along the pin", "4k4/9/4r4/9/9/9/9/4R4/9/4K4 w", "e2",
     {"e1", "e3", "e4", "e5", "e6", "e7"}),
])
def test_each_piece_moves_as_the_rules_say(rule: str, fen: str, origin: str,
                                           expected: set[str]) -> None:
    ours = {str(m)[2:] for m in Position.from_fen(fen).legal_moves() if str(m)[:2] == origin}
    theirs = {m[2:] for m in map(from_ffish, pyffish.legal_moves("xiangqi", fen, []))
              if m[:2] == origin}
    assert ours == expected, rule
    assert theirs == expected, rule


@pytest.mark.usefixtures("shared_data")
@pytest.mark.slow
def test_check_after_each_move_agrees_with_a_full_scan() -> None:
    """is_check() after a move, and legality, look only at what the move changed; over
    every ply of the master games (and every legal reply) they agree with full scans."""
    from xqdb.rules import attacked
    from xqdb.rules.board import KING

    checks = replies = 0
    for moves in coordinate_games()[::5]:
        pos = Position()
        for text in moves:
            pos.push(Move.from_uci(text))
            king = pos.king_square(pos.turn)
            full = attacked(pos.board, king, -pos.turn)
            assert pos.is_check() == full, (pos.fen(), text)
            checks += full
            for reply in pos.legal_moves():
                board = pos.board[:]
                board[reply.to_square], board[reply.from_square] = board[reply.from_square], 0
                own = reply.to_square if board[reply.to_square] * pos.turn == KING else king
                assert not attacked(board, own, -pos.turn), (pos.fen(), str(reply))
                replies += 1
    assert checks > 500 and replies > 500_000
