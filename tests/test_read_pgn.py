"""PGN reading on the real collections: CCPD (Big5), CCGC (GBK with adverts), Wukong
(UTF-8, Chinese, full-width WXF, coordinates) and walker8088's samples."""

from __future__ import annotations

import codecs
import datetime
import re
import subprocess
from pathlib import Path

import pyffish
import pytest

from datafiles import DATA, SHARED_DATA, ccpd_dev_records
from xqdb.formats import pgn, read_paths
from xqdb.formats.record import Origin
from xqdb.formats.tags import parse_date, parse_year
from xqdb.replay import replay

CCPD = SHARED_DATA / "ccpd-dev.zip"


@pytest.fixture(scope="module")
def ccpd_records(shared_data):
    """Every CCPD record."""
    return list(ccpd_dev_records())


#: The start position's placement: CCPD gives every record a FEN tag, nearly all this one.
_START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"


@pytest.fixture(scope="module", params=[
    9,  # the daily run: one record in nine, and every one that starts elsewhere (some 1,900)
    pytest.param(1, marks=pytest.mark.slow),  # every record: some 10 s more
])
def ccpd_games(ccpd_records, request):
    """The CCPD records replayed, each with its replay: every record that does not start
    from the start position (the broken FENs and the Black-first games among them), and
    one record in ``request.param`` of the others."""
    step = request.param
    return [(record, replay(record)) for index, record in enumerate(ccpd_records)
            if not index % step or (record.fen or "").split()[:1] != [_START]]


def test_ccpd_every_record_is_read_once_with_its_member_and_big5(ccpd_records):
    # Info-ZIP's own listing is the witness for the member names.
    listing = subprocess.run(["unzip", "-Z1", str(CCPD)], capture_output=True, check=True)
    members = {name for name in listing.stdout.decode("utf-8").splitlines()
               if not name.endswith("/")}
    records = ccpd_records
    assert len(records) == 11_791
    assert {r.origin.member for r in records} == members
    assert all(r.origin.path == str(CCPD) and r.origin.index == 0 and r.origin.line == 1
               for r in records)
    assert {r.format for r in records} == {"pgn"}
    assert {r.encoding for r in records} == {"big5"}
    assert not [r for r in records if r.is_error]
    # The raw text is the record as read, decoded.
    for record in records[::2000]:
        data = subprocess.run(["unzip", "-p", str(CCPD), record.origin.member],
                              capture_output=True, check=True).stdout
        assert record.raw == data.decode("big5")


def test_ccpd_tags_and_notation(ccpd_records):
    records = ccpd_records
    with_moves = [r for r in records if r.moves]
    assert all(r.notation == "chinese" for r in with_moves)
    assert all(r.tags.get("Game") == "Chinese Chess" for r in records)
    # Every result tag is one of the PGN results and matches the record's result.
    assert {r.result for r in records} <= {"1-0", "0-1", "1/2-1/2", "*"}
    assert all(r.result == r.tags["Result"] for r in records if r.tags.get("Result"))
    # Traditional glyphs and full-width Black digits come through as written.
    texts = {c for r in with_moves for m in r.moves for c in m}
    assert {"車", "馬", "進", "後", "帥", "將", "２"} <= texts


def test_ccpd_replays_at_least_999_per_mille_and_names_every_failure(ccpd_records, ccpd_games):
    failures = [(record, game) for record, game in ccpd_games if not game.is_valid]
    assert len(failures) <= len(ccpd_records) // 1000
    found = {record.origin.member: game.error for record, game in failures}
    # Every failure is a broken FEN tag, named with the file and the reason.
    assert found == {
        "Dataset/開局/00000068.pgn": "bad FEN 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/"
                                   "RNBA1ABNR w - - 0 1': red has no king",
        "Dataset/開局/00000207.pgn": "bad FEN 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/"
                                   "RNBA1ABNR w - - 0 1': red has no king",
        "Dataset/開局/00000306.pgn": "bad FEN 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/6B2/"
                                   "RNBAKA1NR w - - 0 1': red elephant on g1 is on a point it can "
                                   "never reach",
    }
    # An independent library agrees that the king-less FENs are broken.
    for record, _ in failures:
        if "no king" in found[record.origin.member]:
            assert pyffish.validate_fen(record.fen, "xiangqi") != 1


def _pyffish_uci(move: str) -> str:
    """Our ranks 0-9 as Fairy-Stockfish's ranks 1-10."""
    return f"{move[0]}{int(move[1]) + 1}{move[2]}{int(move[3]) + 1}"


@pytest.mark.slow
def test_ccpd_moves_are_legal_for_pyffish(ccpd_records):
    """A sample of the replayed games (one record in 60), move by move, against
    Fairy-Stockfish."""
    sample = [game for game in map(replay, ccpd_records[::60]) if game.is_valid and game.plies]
    assert len(sample) > 150
    for game in sample:
        played: list[str] = []
        for move in game.uci:
            legal = pyffish.legal_moves("xiangqi", game.start_fen, played)
            assert _pyffish_uci(move) in legal, (str(game.record.origin), len(played) + 1, move)
            played.append(_pyffish_uci(move))


def test_ccpd_black_first_games_without_ellipsis(ccpd_games):
    black_first = [(r, g) for r, g in ccpd_games if r.fen and r.fen.split()[1:2] == ["b"]
                   and r.moves]
    assert len(black_first) >= 50
    assert all("..." not in r.raw for r, _ in black_first)
    assert sum(g.is_valid for _, g in black_first) == len(black_first)


def test_ccpd_double_spaces_between_moves_split_cleanly(ccpd_records, ccpd_games):
    doubled = [(r, g) for r, g in ccpd_games if re.search(r"\S  \S", r.raw.split("\n\n", 1)[-1])]
    # Over 500 of all the records (1,208), as many of the daily run's (361 of 1,830).
    assert len(doubled) > 500 * len(ccpd_games) // len(ccpd_records)
    # No move of these games fails (three of them have a broken FEN, see above).
    assert all(g.error_ply is None for _, g in doubled)
    assert sum(g.is_valid for _, g in doubled) >= len(doubled) - 3
    assert all(len(m) == 4 for r, _ in doubled for m in r.moves)


def _replayed(path: Path):
    return [replay(r) for r in read_paths([str(path)])]


def test_three_notations_of_the_same_15_games_agree_except_one_pinned_move():
    chinese = _replayed(DATA / "pgn-chinese-15.pgn")
    wxf = _replayed(DATA / "pgn-wxf-fullwidth-15.pgn")
    coords = _replayed(DATA / "uci" / "same-15-games-uci.pgn")
    assert len(chinese) == len(wxf) == len(coords) == 15
    assert [g.record.notation for g in chinese + wxf + coords] == \
        ["chinese"] * 15 + ["wxf"] * 15 + ["uci"] * 15
    assert all(g.is_valid for g in chinese + wxf + coords)
    for i in range(15):
        assert chinese[i].uci == wxf[i].uci, i
        if i != 1:
            assert chinese[i].uci == coords[i].uci, i
    # Game 2, LIU DianZhong v LIU DaHua, move 36 (ply 71): both notations move the rear
    # pawn, the coordinate file the front one; the readings differ there and only there.
    game = chinese[1]
    assert (game.record.tags["Red"], game.record.tags["Black"]) == ("LIU DianZhong", "LIU DaHua")
    diff = [p for p, (a, b) in enumerate(zip(game.uci, coords[1].uci)) if a != b]
    assert diff == [70]
    assert game.record.moves[70] == "后兵进一"
    assert wxf[1].record.moves[70] == "－Ｐ＋１"
    assert coords[1].record.moves[70] == "e5e6"
    assert game.uci[70] == "e3e4"
    assert len(game.uci) == len(coords[1].uci)


@pytest.mark.parametrize("step", [
    9,  # every record read, one in nine (125) replayed, in the daily run
    pytest.param(1, marks=pytest.mark.slow),  # all 1,125 replayed
])
def test_liu_dahua_1125_games_replay_completely(shared_data, step):
    records = list(read_paths([str(shared_data / "uci" / "liu-dahua-1125.pgn")]))
    assert len(records) == 1125
    assert all(r.notation == "uci" and r.result is None for r in records)
    assert all(set(r.tags) == {"Event", "Red", "Black"} for r in records)
    # Records are numbered and located by line in the one file.
    assert [r.origin.index for r in records] == list(range(1125))
    lines = (shared_data / "uci" / "liu-dahua-1125.pgn").read_text().splitlines()
    assert all(lines[r.origin.line - 1].startswith("[Event ") for r in records)
    games = [replay(r) for r in records[::step]]
    assert len(games) == len(range(0, 1125, step))
    assert all(g.is_valid for g in games)
    assert sum(g.plies for g in games) > len(games) * 40


_CCGC_RESULTS = {"先胜": "1-0", "先负": "0-1", "先和": "1/2-1/2"}


def test_every_ccgc_file_replays_and_keeps_its_tags():
    files = sorted((DATA / "pgn-gbk").glob("*.PGN"))
    assert len(files) == 20
    for path in files:
        records = list(read_paths([str(path)]))
        assert len(records) == 1, path.name
        record = records[0]
        game = replay(record)
        assert game.is_valid, (path.name, game.error)
        assert record.encoding == "gb18030"
        assert record.tags["Event"] == "1st Chinese Computer Games Championship, Beijing 2006"
        assert re.fullmatch(r"[A-E]\d\d", record.tags["ECCO"])
        assert record.tags["Opening"] and "Variation" in record.tags
        # The file name says who played Red and how it ended: an independent witness.
        red, outcome = re.match(r"\d+\.(.+?)\((先[胜负和])\)", path.name).groups()
        assert record.tags["Red"] == red
        assert record.result == _CCGC_RESULTS[outcome]
        # The advert after the result is kept in raw, not taken for moves.
        assert "xqbase.com" in record.raw
        assert not any("xqbase" in m or "=" in m for m in record.moves)


def test_walker8088_samples_black_on_its_own_line_and_two_field_fen():
    endgame = list(read_paths([str(DATA / "binary" / "endgame_test.pgn")]))[0]
    assert endgame.fen == "3aka3/2c1n4/4bP3/9/4N4/9/9/9/9/4K4 w"
    assert endgame.moves[:4] == ["马五进六", "炮３平４", "兵四进一", "象５进７"]
    assert replay(endgame).is_valid
    opening = list(read_paths([str(DATA / "binary" / "中炮对列炮黑先平士角炮.pgn")]))[0]
    game = replay(opening)
    assert game.is_valid and game.plies == 23 and opening.result == "*"
    test2 = list(read_paths([str(DATA / "binary" / "test2.pgn")]))[0]
    assert test2.tags["TimeControl"] == "15-5-15" and test2.result == "1/2-1/2"
    assert replay(test2).is_valid


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-le", "gb18030", "big5"])
def test_encodings_are_detected_per_file_and_give_the_same_games(tmp_path, encoding):
    """A CCPD game and a CCGC game, written in each encoding, read back identically."""
    originals = [(DATA / "ccpd" / "midgame-00000150.pgn").read_bytes().decode("big5")]
    ccgc = sorted((DATA / "pgn-gbk").glob("*.PGN"))[0]
    ccgc_text = ccgc.read_bytes().decode("gb18030")
    if encoding != "big5":  # Big5 has no simplified characters
        originals.append(ccgc_text)
    path = tmp_path / "both.pgn"
    path.write_bytes("\n\n".join(originals).encode(encoding))
    records = list(read_paths([str(path)]))
    assert len(records) == len(originals)
    expected = {"utf-8-sig": "utf-8", "utf-16-le": "utf-16-le"}.get(encoding, encoding)
    if encoding == "utf-16-le":
        expected = "utf-16-le"
    for record, text in zip(records, originals):
        reference = pgn.parse_record(text, Origin("ref"))
        assert record.moves == reference.moves
        assert record.tags == reference.tags
        assert record.encoding == expected
        assert replay(record).is_valid


def test_utf16_with_bom_is_recorded_as_utf16(tmp_path):
    text = (DATA / "pgn-chinese-15.pgn").read_text(encoding="utf-8")
    path = tmp_path / "games.pgn"
    path.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    records = list(read_paths([str(path)]))
    assert len(records) == 15 and {r.encoding for r in records} == {"utf-16"}
    assert records[1].moves[70] == "后兵进一"


def test_comments_variations_nags_and_glued_numbers():
    """The layout quirks the docs list, in one xqbase-style record."""
    text = ("[Game \"Chinese Chess\"]\r\n[Result \"1-0\"]\r\n"
            "{intro} 1.炮二平五 $1 马８进７ {the usual reply}\r\n"
            "2．马二进三 (2．兵七进一 卒７进１ (2...车９平８)) 车９平８!? \r\n"
            "3.          车一平二 1-0\r\n==========\r\n欢迎访问\r\n")
    record = pgn.parse_record(text, Origin("x.pgn"))
    assert record.moves == ["炮二平五", "马８进７", "马二进三", "车９平８", "车一平二"]
    assert record.mainline.comments == {0: "intro", 2: "the usual reply"}
    assert record.mainline.nags == {1: [1], 4: [5]}
    index, variation = record.mainline.variations[0]
    assert index == 2 and variation.moves == ["兵七进一", "卒７进１"]
    assert variation.variations[0][1].moves == ["车９平８"]
    assert record.mainline.count_variations() == 2
    assert record.result == "1-0" and record.notation == "chinese"
    assert replay(record).is_valid


def test_a_variation_opened_before_its_line_has_a_move_is_another_alternative():
    # "( (": the inner variation has no move of its line to replace, so it replaces what
    # that line replaces, here Red's first move, as a sibling.
    text = "1. h2e2 ( ( 1. b2e2 ) 1. h0g2 ) h9g7 *\n"
    record = pgn.parse_record(text, Origin("x.pgn"))
    assert record.moves == ["h2e2", "h9g7"]
    assert [(i, v.moves) for i, v in record.mainline.variations] == [(0, ["h0g2"]),
                                                                      (0, ["b2e2"])]
    game = replay(record)
    assert game.is_valid and game.variations == 2 and not game.variation_errors


def test_an_unclosed_comment_is_a_record_error_and_the_next_record_still_reads(tmp_path):
    path = tmp_path / "two.pgn"
    path.write_text('[Red "A"]\n1. h2e2 {never closed h9g7\n\n[Red "B"]\n1. h2e2 h9g7 *\n')
    first, second = read_paths([str(path)])
    assert first.is_error and "never closed" in first.error and first.origin.line == 1
    assert not second.is_error and second.moves == ["h2e2", "h9g7"] and second.origin.line == 4


def test_format_tag_is_honoured():
    text = '[Format "ICCS"]\n1. H2-E2 H9-G7 *\n'
    assert pgn.parse_record(text, Origin("x")).notation == "iccs"
    text = '[Format "WXF"]\n1. C2.5 H8+7 *\n'
    record = pgn.parse_record(text, Origin("x"))
    assert record.notation == "wxf" and replay(record).uci == ["h2e2", "h9g7"]


def test_offsets_point_at_each_record(tmp_path):
    data = (DATA / "uci" / "same-15-games-uci.pgn").read_bytes()
    records = list(read_paths([str(DATA / "uci" / "same-15-games-uci.pgn")]))
    assert len(records) == 15
    for record in records:
        assert data[record.origin.offset:].startswith(b"[Event ")
        assert data[record.origin.offset:].decode().startswith(record.raw.lstrip())


@pytest.mark.parametrize("raw, expected", [
    ("1997-11-16", datetime.date(1997, 11, 16)),
    ("1997.1.05", datetime.date(1997, 1, 5)),
    ("1997年11月16日", datetime.date(1997, 11, 16)),
    ("19971116", datetime.date(1997, 11, 16)),
    ("16-1-1997", datetime.date(1997, 1, 16)),
    ("16/11/1997", datetime.date(1997, 11, 16)),
    ("2006.08.03", datetime.date(2006, 8, 3)),
    ("97-11-19", datetime.date(1997, 11, 19)), ("11/23/97", datetime.date(1997, 11, 23)),
    ("1997·11·16", datetime.date(1997, 11, 16)), ("2008 10 10", datetime.date(2008, 10, 10)),
    ("20081010-14：30", datetime.date(2008, 10, 10)), ("2003-04-00", None), ("26.05.01", None),
    ("1982", None), ("1997年", None), ("", None), ("1997.??.??", None), ("2001-02-30", None),
])
def test_parse_date(raw, expected):
    assert parse_date(raw) == expected


def test_ccpd_dates_are_kept_raw_and_parsed_when_they_can_be(ccpd_records):
    raw = [r.tags.get("Date", "") for r in ccpd_records]
    parsed = [parse_date(d) for d in raw]
    assert sum(d is not None for d in parsed) > 1000
    years = [parse_year(d) for d in raw if d]
    assert all(y is None or 1800 <= y <= 2030 for y in years)
    # Every date with a four-digit year, a month and a non-zero day parses, whatever the
    # separators (measured forms: - . / · 。 、 space 年月日, and a time after it).
    full = re.compile(r"\s*(\d{4})\D{1,3}(\d{1,2})\D{1,3}(\d{1,2})\D*")
    for date_raw, date in zip(raw, parsed):
        m = full.fullmatch(date_raw)
        if m and 1 <= int(m[2]) <= 12 and 1 <= int(m[3]) <= 28:
            assert date == datetime.date(int(m[1]), int(m[2]), int(m[3])), date_raw


@pytest.mark.parametrize("quirk", ["two fields", "glued side", "glued counters", "side r",
                                   "e and h letters"])
def test_fen_tag_quirks_give_the_same_game(quirk):
    """A CCPD midgame whose FEN tag is rewritten in each form real files use."""
    record, = read_paths([str(DATA / "ccpd" / "midgame-00000150.pgn")])
    game = replay(record)
    assert game.is_valid and game.plies > 10 and record.fen.split()[1] == "w"
    board = record.fen.split()[0]
    fen = {"two fields": f"{board} w", "glued side": f"{board}w", "glued counters": f"{board}w--01",
           "side r": f"{board} r - - 0 1",
           "e and h letters": f"{board.replace('B', 'E').replace('N', 'H')} w - - 0 1"}[quirk]
    text = record.raw.replace(f'[FEN "{record.fen}"]', f'[FEN "{fen}"]')
    assert text != record.raw
    rewritten = pgn.parse_record(text, Origin("quirk.pgn"))
    assert rewritten.fen == fen
    assert replay(rewritten).uci == game.uci


def test_a_record_past_the_limit_is_read_past_not_held() -> None:
    # A 10,000-byte line in a record, read with a limit of 1,000 bytes and in chunks of 100:
    # the reader holds at most the limit, keeps the record's head and goes on at the next game.
    text = (b'[Event "a"]\n1. h2e2 h9g7 *\n\n[Event "huge"]\n1. h2e2 {' + b"x" * 10_000
            + b'} *\n\n[Event "c"]\n1. c3c4 *\n')
    chunks = (text[i:i + 100] for i in range(0, len(text), 100))
    records = list(pgn._split(chunks, pgn._BOUNDARY_BYTES, limit=1_000))
    huge = records[1][0]
    assert isinstance(huge, pgn._TooLarge)
    assert huge.size == len(b'[Event "huge"]\n1. h2e2 {' + b"x" * 10_000 + b"} *\n\n")
    assert huge.head.startswith(b'[Event "huge"]\n1. h2e2 {xxx')
    assert [(offset, line) for _, offset, line in records] == [
        (0, 1), (text.index(b'[Event "huge"]'), 4), (text.index(b'[Event "c"]'), 7)]
    assert records[2][0] == b'[Event "c"]\n1. c3c4 *\n'


def test_a_single_line_of_40_mb_is_one_record_too_large_and_the_next_game_lands() -> None:
    import io

    from xqdb.formats.record import Origin

    text = (b'[Event "huge"]\n1. h2e2 {' + b"x" * (40 << 20) + b'} *\n[Event "next"]\n'
            b"1. h2e2 h9g7 *\n")
    huge, after = pgn.read(io.BytesIO(text), Origin("big.pgn"))
    assert huge.error == f"record too large: {len(text) - 30} bytes (the limit is 16777216)"
    assert huge.error_kind == "record_too_large"
    assert huge.tags == {"Event": "huge"} and huge.raw.startswith('[Event "huge"]\n1. h2e2 {x')
    assert len(huge.raw) == 4096
    assert (after.tags, after.moves, after.origin.line) == ({"Event": "next"}, ["h2e2", "h9g7"], 3)


@pytest.mark.parametrize("step", [7, 100, 5_000])
def test_a_record_too_large_within_its_header_keeps_its_tail(step: int) -> None:
    # The record grows past the limit in a tag: its other tags and its moves are still
    # its own, not a game of their own; the next game after them is found as ever.
    text = (b'[Event "huge"]\n[Red "' + b"x" * 5_000 + b'"]\n[Black "B"]\n1. h2e2 h9g7 *\n\n'
            b'[Event "c"]\n1. c3c4 *\n')
    chunks = (text[i:i + step] for i in range(0, len(text), step))
    records = list(pgn._split(chunks, pgn._BOUNDARY_BYTES, limit=1_000))
    assert len(records) == 2
    huge, (last, offset, line) = records[0][0], records[1]
    assert isinstance(huge, pgn._TooLarge) and huge.size == text.index(b'[Event "c"]')
    assert (last, offset, line) == (b'[Event "c"]\n1. c3c4 *\n', text.index(b'[Event "c"]'), 6)


def test_a_tag_of_17_mb_is_one_record_too_large_not_two_games() -> None:
    import io

    from xqdb.formats.record import Origin

    text = b'[Event "huge"]\n[Red "' + b"x" * (17 << 20) + b'"]\n[Black "B"]\n1. h2e2 h9g7 *\n'
    huge, = pgn.read(io.BytesIO(text), Origin("big.pgn"))
    assert huge.error_kind == "record_too_large" and huge.tags == {"Event": "huge"}
    assert huge.error == f"record too large: {len(text)} bytes (the limit is 16777216)"
    assert list(pgn.record_starts(io.BytesIO(text))) == [(0, 1)]


def _nested(depth: int) -> str:
    """A legal game whose second move has an alternative nested ``depth`` deep."""
    return ('[Event "deep"]\n\n1. h2e2 h9g7 ' + "(1... b9c7 " * depth + ")" * depth
            + " 2. h0g2 i9h9 *\n")


@pytest.mark.parametrize("depth", [500, 5_000, 200_000])
def test_variations_nested_too_deep_are_dropped_and_the_main_line_kept(depth: int) -> None:
    import pickle

    record = pgn.parse_record(_nested(depth), Origin("deep.pgn"))
    assert record.moves == ["h2e2", "h9g7", "h0g2", "i9h9"] and record.result == "*"
    assert record.mainline.count_variations() == 100
    assert record.dropped_variations == depth - 100
    game = replay(record)
    assert game.is_valid and game.plies == 4 and game.variations == 100
    assert game.variation_errors == [f"{depth - 100} variations nested more than 100 deep "
                                     "dropped; the raw record keeps them"]
    assert len(game.variation_moves) == 100
    pickle.loads(pickle.dumps(game))  # as a worker hands it on


def test_variations_nested_too_deep_by_any_reader_are_dropped() -> None:
    """A tree nested deeper than the bound, as a binary reader could build it."""
    from xqdb.formats.record import GameRecord, Line

    record = GameRecord(Origin("deep.xqf"), "xqf")
    line = record.mainline
    for _ in range(3_000):
        line.variations.append((0, Line(moves=["h2e2"])))
        line = line.variations[0][1]
    record.drop_deep_variations()
    assert (record.mainline.count_variations(), record.dropped_variations) == (100, 2_900)
