"""Algebraic notation (SAN, long algebraic) in its two dialects: WinBoard (ranks 0-9, pawns
without a letter) and Fairy-Stockfish (ranks 1-10, ``P``).

Hand-checked moves on real positions, the three WinBoard engine games of
``tests/data/algebraic`` (from ``../shared/data/algebraic``), pyffish as an independent writer of the Fairy-Stockfish
dialect on every legal move of the real position set, and an import of the same games in
five notations.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import duckdb
import pytest

from datafiles import DATA
from xqdb import AmbiguousMoveError, Move, NotationError, Position
from xqdb.errors import ErrorKind
from xqdb.formats import pgn, read_paths
from xqdb.formats.engine_comments import EngineComment
from xqdb.formats.record import GameRecord, Origin
from xqdb.pipeline.importer import import_paths
from xqdb.notation import read_move, sniff, sniff_moves, write_move
from xqdb.replay import replay

ALGEBRAIC = DATA / "algebraic"

START = Position().fen()
#: Red chariots on a0 and a4 (one file), cannons on d2 and h2 (one rank); black king f9.
TWINS = "5k3/9/9/9/9/R8/9/3C3C1/9/R3K4 w"
#: Red pawns crossed the river on c5 and e5, and one at home on c3; black king d9.
PAWNS = "3k5/9/9/9/2P1P4/9/2P6/9/9/4K4 w"

#: (FEN, text, notation, expected move): worked out on a board from the FEN.
READS = [
    (START, "Che2", "san", "h2e2"),
    (START, "Che3", "san-fsf", "h2e2"),
    (START, "Ch2-e2", "san", "h2e2"),            # long algebraic
    (START, "Ch3-e3", "san-fsf", "h2e2"),
    (START, "Ｃｈｅ２", "san", "h2e2"),             # full width
    (START, "Hc2", "san", "b0c2"),
    (START, "Nc2", "san", "b0c2"),                # N for horse
    (START, "Ece2", "san", "c0e2"),
    (START, "Bce2", "san", "c0e2"),               # B for elephant
    (START, "Ade1", "san", "d0e1"),
    (START, "Afe2", "san-fsf", "f0e1"),
    (START, "Ke1", "san", "e0e1"),
    (START, "g4", "san", "g3g4"),                 # WinBoard pawn: no letter
    (START, "Pg5", "san-fsf", "g3g4"),
    (START, "Pg4", "san", "g3g4"),                # a P is read in WinBoard texts too
    (START, "Cxb9", "san", "b2b9"),
    (START, "Cxb9+", "san", "b2b9"),
    (START, "Cb2xb9!?", "san", "b2b9"),
    (START, "Cxb10", "san-fsf", "b2b9"),
    (START, "Cbc2", "san", "b2c2"),               # both cannons reach c2: named by file
    (TWINS, "R0a2", "san", "a0a2"),             # same file: named by rank
    (TWINS, "R4a2", "san", "a4a2"),
    (TWINS, "R5a3", "san-fsf", "a4a2"),
    (TWINS, "Cdf2", "san", "d2f2"),            # same rank: named by file
    (TWINS, "Chf2", "san", "h2f2"),
    (PAWNS, "c6", "san", "c5c6"),                 # forward: the destination alone
    (PAWNS, "cd5", "san", "c5d5"),                # sideways: the origin file
    (PAWNS, "ed5", "san", "e5d5"),
    (PAWNS, "c4", "san", "c3c4"),
    (PAWNS, "Pcd6", "san-fsf", "c5d5"),
    (PAWNS, "Ped6", "san-fsf", "e5d5"),
]


@pytest.mark.parametrize("fen, text, notation, expected", READS)
def test_hand_checked_texts(fen: str, text: str, notation: str, expected: str) -> None:
    move, loose = read_move(Position.from_fen(fen), text, notation)
    assert (str(move), loose) == (expected, False)


@pytest.mark.parametrize("fen, text, notation, words", [
    (START, "Chh0", "san", ["Chh0", "h0 holds red's own horse"]),
    (START, "Rd2", "san", ["Rd2", "no red chariot on a0, i0 can move to d2"]),
    (START, "Ra10", "san", ["no rank 10 in ranks 0-9"]),
    (START, "Ra0", "san-fsf", ["no rank 0 in ranks 1-10"]),
    (START, "Qd1", "san", ["not an algebraic move"]),
    (TWINS, "Ra2", "san", ["ambiguous", "a0, a4"]),
])
def test_impossible_or_ambiguous_texts_are_errors_naming_the_text(
        fen: str, text: str, notation: str, words: list[str]) -> None:
    with pytest.raises(NotationError) as info:
        read_move(Position.from_fen(fen), text, notation)
    assert all(word in str(info.value) for word in words), str(info.value)


@pytest.mark.parametrize("text, notation, kind", [
    ("Ra10", "san", ErrorKind.BAD_MOVE_TEXT),
    ("Qd1", "san", ErrorKind.BAD_MOVE_TEXT),
    ("Re5", "san", ErrorKind.ILLEGAL_MOVE),  # no chariot reaches e5
])
def test_algebraic_failures_carry_their_kind(text: str, notation: str, kind: ErrorKind) -> None:
    with pytest.raises(NotationError) as info:
        read_move(Position.from_fen(START), text, notation)
    assert info.value.kind == kind


def test_ambiguity_has_its_own_error_type() -> None:
    with pytest.raises(AmbiguousMoveError):
        read_move(Position.from_fen(PAWNS), "Pd6", "san-fsf")


@pytest.mark.parametrize("fen, move, san, fsf", [
    (START, "h2e2", "Che2", "Che3"),
    (START, "b2c2", "Cbc2", "Cbc3"),
    (START, "b2b9", "Cxb9", "Cxb10"),
    (START, "g3g4", "g4", "Pg5"),
    (START, "d0e1", "Ade1", "Ade2"),
    (TWINS, "a0a2", "R0a2", "R1a3"),
    (TWINS, "d2f2", "Cdf2", "Cdf3"),
    (PAWNS, "c5d5", "cd5", "Pcd6"),
    (PAWNS, "e5e6", "e6", "Pe7"),
    # Check: Black's king escapes to f9 (d9 would face Red's king).
    ("4k4/9/9/9/9/9/9/9/R8/3K5 w", "a1e1", "Re1+", "Re2+"),
    # Black's king on d9 has d8 (the chariot on b8) and e9 (facing Red's king): mate.
    ("3k5/1R7/9/9/9/9/9/9/9/R3K4 w", "a0a9", "Ra9#", "Ra10#"),
    # Black's king on d9 is left no move out of check (d8 is the chariot's, e9 faces Red's
    # king): a stalemate, which loses. WinBoard marks it as a mate, Fairy-Stockfish does not.
    ("3k5/9/2R6/9/9/9/9/9/9/4K4 w", "c7c8", "Rc8#", "Rc9"),
])
def test_both_dialects_are_written(fen: str, move: str, san: str, fsf: str) -> None:
    pos = Position.from_fen(fen)
    m = Move.from_uci(move)
    assert pos.move_text(m, "san") == san
    assert pos.move_text(m, "san-fsf") == fsf
    assert pos.parse_move(san, "san") == pos.parse_move(fsf, "san-fsf") == m


def test_algebraic_texts_are_sniffed_and_their_dialect_settled_by_ranks() -> None:
    assert [sniff(t) for t in ("Che2", "g5", "ixi5", "Ch2-e2", "Rxd9#")] == ["san"] * 5
    assert sniff_moves(["Che2", "Hc7", "Rb0"]) == "san"
    assert sniff_moves(["Che3", "Hc8", "Rxb10"]) == "san-fsf"
    assert sniff_moves(["Che3", "Pc6", "Pg6"]) == "san-fsf"


def _record(texts: list[str], notation: str) -> GameRecord:
    record = GameRecord(origin=Origin("test"), format="pgn", notation=notation)
    record.moves.extend(texts)
    return record


def test_the_dialect_of_a_game_is_the_one_it_replays_in() -> None:
    # No rank 0 or 10 shows, and "san" is the hint: only the Fairy-Stockfish reading
    # replays (Hg8 is no move in ranks 0-9: the horse on h9 cannot reach g8).
    game = replay(_record(["Che3", "Hg8", "Hg3"], "san"))
    assert game.is_valid and game.uci == ["h2e2", "h9g7", "h0g2"]
    assert game.record.notation == "san-fsf"
    game = replay(_record(["Che2", "Hg7", "Hg2"], "san-fsf"))
    assert game.is_valid and game.uci == ["h2e2", "h9g7", "h0g2"]
    assert game.record.notation == "san"


def test_a_game_that_replays_in_both_dialects_is_an_error_naming_the_text() -> None:
    # Ch4 is h2h4 with ranks 0-9 and h2h3 with ranks 1-10; Ch6 then h7h6 or h7h5 for Black:
    # both readings replay, as two different games. Nothing is guessed.
    game = replay(_record(["Ch4", "Ch6"], "san"))
    assert not game.is_valid
    assert (game.error_ply, game.error_text) == (1, "Ch4")
    assert game.error_kind == ErrorKind.AMBIGUOUS_MOVE
    assert "'Ch4' (ply 1) replays as h2h4 in san and as h2h3 in san-fsf" in (game.error or "")



@pytest.mark.parametrize("tag, expected", [("san", ["h2h4", "h7h6"]),
                                           ("SAN-FSF", ["h2h3", "h7h5"])])
def test_a_format_tag_naming_the_dialect_decides_it(tag: str, expected: list[str]) -> None:
    # As xqdb's PGN export writes a game in algebraic notation: the tag names the dialect,
    # so a game that replays in both is read as the one named, not refused.
    text = f'[Format "{tag}"]\n1. Ch4 Ch6 *\n'.encode()
    record = next(pgn.read(io.BytesIO(text), Origin("exported.pgn")))
    game = replay(record)
    assert game.is_valid and game.uci == expected


def test_a_pgn_written_in_algebraic_notation_names_its_dialect() -> None:
    record = GameRecord(origin=Origin("x.pgn"), format="pgn", notation="san")
    record.mainline.moves.extend(["Ch4", "Ch6"])
    written = pgn.write(record)
    assert '[Format "san"]' in written
    back = replay(next(pgn.read(io.BytesIO(written.encode()), Origin("back.pgn"))))
    assert back.is_valid and back.uci == ["h2h4", "h7h6"]

def _winboard_games() -> list[GameRecord]:
    return [next(read_paths([str(path)])) for path in sorted(ALGEBRAIC.glob("winboard-*.pgn"))]


def test_the_three_winboard_games_replay_to_their_recorded_results() -> None:
    games = {Path(r.origin.path).stem.rsplit("-", 1)[1]: replay(r) for r in _winboard_games()}
    assert {name: (g.record.notation, g.status, g.plies) for name, g in games.items()} == {
        "draw": ("san", "valid", 98), "win1": ("san", "valid", 87), "win2": ("san", "valid", 55)}
    assert all(g.plies == len(g.record.moves) for g in games.values())
    assert games["win2"].record.moves[-1] == "Rxd9#"
    # The wins end as WinBoard adjudicated them: checkmate, and stalemate (a loss in Xiangqi).
    assert (games["win2"].record.result, games["win2"].termination, games["win2"].rules_result) \
        == ("1-0", "checkmate", "1-0")
    assert (games["win1"].record.result, games["win1"].termination, games["win1"].rules_result) \
        == ("1-0", "stalemate", "1-0")
    # WinBoard called the draw a repetition; it is Red checking on every move (Rc8+ Kd7
    # Rc7+ Kd8 ...), which the Asian rules count as a perpetual check, lost by the checker.
    draw = games["draw"]
    assert draw.record.result == "1/2-1/2"
    assert (draw.termination, draw.rules_result) == ("perpetual_check", "0-1")
    assert draw.record.moves[-6:] == ["Rc7+", "Kd8", "Rc8+", "Kd7", "Rc7+", "Kd8"]


def test_winboard_engine_comments_are_kept_per_ply() -> None:
    for record in _winboard_games():
        comments = record.engine_comments
        assert sorted(comments) == list(range(1, len(record.moves) + 1)), record.origin
    win2 = _winboard_games()[2]
    comments = win2.engine_comments
    assert comments[1] == EngineComment(0, 6, None)           # {+0,00/6}
    assert comments[2] == EngineComment(11, 7, 1.7)           # {+0,11/7 1,7}
    assert comments[4] == EngineComment(-22, 7, 2.2)          # 2... Cc7 {-0,22/7 2,2}
    assert comments[13] == EngineComment(121, 8, 3.0)         # 7. Hg2 {+1,21/8 3}
    assert comments[55] == EngineComment(100001, 2, 0.1)      # {+1000,01/2 0,1}: mate in 1
    assert win2.mainline.comments[55].endswith("Xboard adjudication: Checkmate")


def _stored_san(db: Path) -> list[tuple[str, list[Move], list[str]]]:
    """``(start FEN, moves, SAN texts)`` of each stored game, in game order."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return [(fen, [Move.from_code(c) for c in codes], texts) for fen, codes, texts in
                con.execute("SELECT g.start_fen, list(m.move ORDER BY m.ply),"
                            " list(m.san ORDER BY m.ply) FROM games g JOIN moves m USING"
                            " (game_id) GROUP BY g.game_id, g.start_fen ORDER BY g.game_id"
                            ).fetchall()]
    finally:
        con.close()


def test_the_moves_table_gives_the_winboard_games_texts_back(tmp_path: Path) -> None:
    """WinBoard wrote these texts itself: the stored SAN is the same, marks included (the
    checkmate of win2 and the stalemate of win1 are both ``#``)."""
    db = tmp_path / "g.duckdb"
    import_paths([str(p) for p in sorted(ALGEBRAIC.glob("winboard-*.pgn"))], db, jobs=1)
    stored = _stored_san(db)
    assert [texts for _, _, texts in stored] == [r.moves for r in _winboard_games()]
    assert [texts[-1] for _, _, texts in stored] == ["Kd8", "Hf7#", "Rxd9#"]


@pytest.mark.slow
def test_the_stored_san_is_what_the_position_writes(tmp_path: Path) -> None:
    """The import writes SAN its own quick way (a mate looked for after the last move
    alone); on 113 real games it gives the texts of ``Position.move_text``, twins told
    apart and checks marked."""
    db = tmp_path / "g.duckdb"
    import_paths([str(DATA / "pgn-gbk"), str(next((DATA / "binary").glob("1956*.CBL")))], db,
                 jobs=2)
    stored = _stored_san(db)
    assert len(stored) == 113
    differ = []
    for fen, moves, texts in stored:
        pos = Position.from_fen(fen)
        for move, text in zip(moves, texts):
            if pos.move_text(move, "san") != text:
                differ.append(f"{pos.fen()} {move}: stored {text}, "
                              f"written {pos.move_text(move, 'san')}")
            pos.push(move)
    assert not differ, differ[:5]
    every = [text for _, _, texts in stored for text in texts]
    assert sum(bool(re.fullmatch(r"[AEHRC][a-i0-9]x?[a-i]\d[+#]?", t)) for t in every) > 100
    assert sum(t.endswith("+") for t in every) > 100


def _fsf_square(match: re.Match[str]) -> str:
    return f"{match[1]}{int(match[2]) - 1}"


#: (start FEN, moves, WinBoard texts): the marks the ``moves`` view cannot tell from the
#: move and its pieces alone, worked out on a board.
MARKED_GAMES = [
    (TWINS, "a0a2 f9f8 d2f2 f8f9", "R0a2 Kf8 Cdf2 Kf9"),       # twins told apart: rank, file
    ("3k5/9/9/9/2Pn1P3/9/2P6/9/9/4K4 w", "c5d5 d9d8 f5e5 d8d9",
     "cxd5 Kd8 fe5 Kd9"),                                       # pawns name their file
    ("3k5/9/2R6/9/9/9/9/9/9/4K4 w", "c7c8", "Rc8#"),             # stalemate, marked as mate
]


def test_the_moves_view_writes_the_marks_of_twins_pawns_and_stalemate(tmp_path: Path) -> None:
    """The ``moves`` view writes SAN from the stored move, pieces, check and ``san_marks``:
    a chariot named by its rank, a cannon by its file, a pawn capturing or stepping
    sideways by its file, and a stalemating move with ``#`` though it gives no check."""
    pgn = tmp_path / "marks.pgn"
    pgn.write_text("".join(f'[Event "marks {i}"]\n[FEN "{fen}"]\n\n{moves} *\n\n'
                           for i, (fen, moves, _) in enumerate(MARKED_GAMES)))
    db = tmp_path / "g.duckdb"
    import_paths([str(pgn)], db, jobs=1)
    stored = _stored_san(db)
    assert [texts for _, _, texts in stored] == [san.split() for _, _, san in MARKED_GAMES]
    for fen, moves, texts in stored:
        pos = Position.from_fen(fen)
        for move, text in zip(moves, texts):
            assert pos.move_text(move, "san") == text
            pos.push(move)


@pytest.mark.slow
@pytest.mark.usefixtures("shared_data")  # the position set comes from the corpus
def test_pyffish_writes_what_we_write_and_we_read_what_it_writes() -> None:
    """On every legal move of 3,000 real positions: pyffish.get_san read back by us is
    the same move, our Fairy-Stockfish writer gives pyffish's text, and our WinBoard text
    reads back to the move too."""
    pyffish = pytest.importorskip("pyffish")
    from positions import oracle_positions
    every = oracle_positions()
    # 3,000 of them, spread over every kind: each move costs pyffish and us four texts.
    fens = [every[i * len(every) // 3000] for i in range(3000)]
    assert len(set(fens)) == 3000
    failures: list[str] = []
    moves = 0
    for fen in fens:
        pos = Position.from_fen(fen)
        for uci in pyffish.legal_moves("xiangqi", fen, []):
            move = Move.from_uci(re.sub(r"([a-i])(10|[1-9])", _fsf_square, uci))
            theirs = pyffish.get_san("xiangqi", fen, uci)
            ours = write_move(pos, move, "san-fsf")
            winboard = write_move(pos, move, "san")
            moves += 1
            if (ours != theirs or read_move(pos, theirs, "san-fsf") != (move, False)
                    or read_move(pos, winboard, "san") != (move, False)):
                failures.append(f"{fen} {uci}: pyffish {theirs!r}, ours {ours!r}, "
                                f"winboard {winboard!r}")
    assert not failures, f"{len(failures)} of {moves}, first: {failures[:5]}"
    assert moves > 75_000


def _pgn(games: list[tuple[dict[str, str], list[str]]]) -> str:
    out = []
    for tags, texts in games:
        out += [f'[{k} "{v}"]' for k, v in tags.items()]
        numbered = [f"{i // 2 + 1}. {t}" if i % 2 == 0 else t for i, t in enumerate(texts)]
        out += ["", " ".join(numbered) + " *", ""]
    return "\n".join(out)


@pytest.mark.slow
def test_the_same_games_in_five_notations_import_as_one_game_each(tmp_path: Path) -> None:
    source = DATA / "pgn-chinese-15.pgn"
    games = [replay(r) for r in read_paths([str(source)])]
    assert all(g.is_valid for g in games) and len(games) == 15
    for notation in ("wxf", "iccs", "san", "san-fsf"):
        written = []
        for game in games:
            pos = Position.from_fen(game.start_fen)
            texts = []
            for move in game.moves:
                texts.append(write_move(pos, move, notation))
                pos.push(move)
            written.append((dict(game.record.tags), texts))
        (tmp_path / f"{notation}.pgn").write_text(_pgn(written), encoding="utf-8")
    paths = [str(source), *(str(p) for p in sorted(tmp_path.glob("*.pgn")))]
    for path in paths[1:]:
        assert {r.notation for r in read_paths([path])} == {Path(path).stem}
    db = tmp_path / "g.duckdb"
    summary = import_paths(paths, db, jobs=2)
    assert (summary.records, summary.imported, summary.invalid_total) == (75, 15, 0)
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM games").fetchone() == (15,)
        assert con.execute("SELECT count(*) FROM (SELECT game_id FROM game_records GROUP BY "
                           "game_id HAVING count(DISTINCT source_id) = 5)").fetchone() == (15,)
    finally:
        con.close()
