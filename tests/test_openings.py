"""Opening classification on real games: ECCO agreement with the tags of ccpd-dev.zip
(Chinese-Chess-Practical-Dataset, Yvonne761, CC BY 4.0) and of the CCGC engine games
(xqbase/eleeye), mirrored games, set-up positions, notations, and the traditional names.

Every game is classified from its moves and start position only: its tags stay hidden.
"""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import assume, given, settings, strategies as st

from datafiles import DATA, SHARED_DATA, ccpd_dev_records
from xqdb.formats import GameRecord, read_paths
from xqdb.openings import ECCO_CODES, NAMES, classify, explain
from xqdb.openings.derive import agreement, cross_validate, grow, half, tagged_games
from xqdb.openings.line import mirror_move
from xqdb.openings.rules import group
from xqdb.replay import replay

CCGC = DATA / "pgn-gbk"
MASTERS = "Dataset/對局/大師對局/"

#: The lowest exact agreement with the ccpd-dev.zip tags accepted. The shipped tree was
#: grown from these very tags, so this guards the rules, the tree and the code that reads
#: them; how the method does on games it has not seen is measured by the tests below.
AGREEMENT_FLOOR = 0.999
#: The lowest exact agreement on the held-out half of the folders, scored by the rules and
#: a tree grown on the other half only (98.81% measured).
HELD_OUT_FLOOR = 0.988
#: The lowest exact agreement over four folds of folders, each scored by the rules and the
#: tree grown on the other three (98.98% measured).
CROSS_VALIDATED_FLOOR = 0.9895


@functools.cache
def ccpd() -> dict[str, GameRecord]:
    """The records of ccpd-dev.zip by archive member."""
    return {record.origin.member or "": record for record in ccpd_dev_records()}


def tag(record: GameRecord) -> str:
    return record.tags.get("ECCO", "").strip().upper()


@pytest.mark.usefixtures("shared_data")
@pytest.mark.slow
def test_ecco_agreement_with_ccpd_tags() -> None:
    tagged = [(member, record) for member, record in ccpd().items()
              if not record.is_error and tag(record) in ECCO_CODES]
    exact = family = standard = 0
    misses: Counter[tuple[str, str]] = Counter()
    for member, record in tagged:
        result = classify(record.moves, record.fen)
        if result is None:
            continue
        standard += 1
        exact += result.ecco == tag(record)
        family += result.family == tag(record)[0]
        if result.ecco != tag(record):
            misses[(tag(record), result.ecco)] += 1
    print(f"\nccpd-dev.zip, standard-start games with an ECCO tag: {standard}; "
          f"exact {exact / standard:.2%}, family letter {family / standard:.2%}")
    for (expected, got), count in misses.most_common(10):
        print(f"  tag {expected}, classified {got}: {count}")
    assert standard > 11_000
    assert family == standard
    assert exact / standard >= AGREEMENT_FLOOR


@pytest.mark.usefixtures("shared_data")
@pytest.mark.slow
def test_the_method_carries_to_held_out_folders() -> None:
    games = list(tagged_games(ccpd().values()))
    derivation = [g for g in games if half(g[0]) == 0]
    held_out = [g for g in games if half(g[0]) == 1]
    root = grow([(line, code) for _, line, code in derivation])
    exact, family = agreement(root, held_out)
    print(f"\ntree grown on {len(derivation)} games of half the folders; on the {len(held_out)} "
          f"games of the other half: exact {exact:.2%}, family letter {family:.2%}")
    assert len(held_out) > 5000
    assert exact >= HELD_OUT_FLOOR
    assert family == 1.0, "the rules give every held-out game its family letter"


@pytest.mark.usefixtures("shared_data")
@pytest.mark.slow
def test_codes_the_rules_decide_alone_agree_with_every_tag() -> None:
    decided = [(line, code) for _, line, code in tagged_games(ccpd().values())
               if group(line).final]
    agreeing = sum(group(line).default == code for line, code in decided)
    print(f"\n{len(decided)} games get their code from the rules alone; {agreeing} agree")
    assert len(decided) > 1000
    assert agreeing == len(decided)


@pytest.mark.slow
@pytest.mark.usefixtures("shared_data")
def test_cross_validated_agreement_over_folders() -> None:
    games = list(tagged_games(ccpd().values()))
    exact, family = cross_validate(games, 4)
    print(f"\n{len(games)} games, each scored by the tree grown on the other three quarters of "
          f"the folders: exact {exact:.2%}, family letter {family:.2%}")
    assert exact >= CROSS_VALIDATED_FLOOR
    assert family == 1.0, "the rules give every game its family letter"


#: CCGC games whose tags we do not reproduce, and why.
CCGC_DISAGREEMENTS = {
    # Tagged C46 (…上右士右直车) for 车1平2 at ply 16, one ply outside what the ccpd games
    # tagged C45/C46 taught the tree; see the note in docs/openings.md.
    "19.相眼竞技(先负)棋天大圣(D2-E1).PGN": "C45",
}


def test_ccgc_tags_agree() -> None:
    records = list(read_paths([str(CCGC)]))
    assert len(records) == 20
    agreeing = 0
    for record in records:
        result = classify(record.moves, record.fen)
        assert result is not None
        name = Path(record.origin.path).name
        ours = (result.ecco, result.opening, result.variation)
        theirs = (tag(record), record.tags["Opening"], record.tags.get("Variation", ""))
        if name in CCGC_DISAGREEMENTS:
            assert result.ecco == CCGC_DISAGREEMENTS[name]
            assert result.family == theirs[0][0]
        else:
            assert ours == theirs, name
            agreeing += 1
    print(f"\nCCGC files: {agreeing} of {len(records)} agree on ECCO, Opening and Variation")


@functools.cache
def standard_members() -> list[str]:
    """The master games of ccpd-dev.zip that start from the standard position."""
    return sorted(member for member, record in ccpd().items()
                  if member.startswith(MASTERS) and classify([], record.fen) is not None)


@pytest.mark.usefixtures("shared_data")
@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_mirrored_game_gets_its_mirrors_code(data: st.DataObject) -> None:
    member = data.draw(st.sampled_from(standard_members()))
    game = replay(ccpd()[member])
    moves = game.moves[:40]
    assume(game.is_valid and moves and moves[0].from_square % 9 != 4)
    mirrored = [mirror_move(move) for move in moves]
    ours, mirror = classify(moves), classify(mirrored)
    assert ours is not None and mirror is not None
    assert (mirror.ecco, mirror.names) == (ours.ecco, ours.names)
    assert mirror.mirrored != ours.mirrored


@pytest.mark.usefixtures("shared_data")
def test_a_game_from_a_set_up_position_gets_no_code() -> None:
    record = ccpd()["Dataset/中局/00000001.pgn"]
    assert record.fen is not None and record.moves
    assert classify(record.moves, record.fen) is None
    assert explain(record.moves, record.fen).startswith("Not from the standard start")


def test_every_notation_gets_the_same_opening() -> None:
    files = ["pgn-chinese-15.pgn", "pgn-wxf-fullwidth-15.pgn", "uci/same-15-games-uci.pgn"]
    results = []
    for name in files:
        results.append([(r.ecco, r.names) for record in read_paths([str(DATA / name)])
                        if (r := classify(record.moves, record.fen)) is not None])
    assert len(results[0]) == 15
    assert results[0] == results[1] == results[2]
    assert len({code for code, _ in results[0]}) > 3


def test_explain_names_the_deciding_moves() -> None:
    record = next(read_paths([str(CCGC / "01.宝岛一号(先负)相眼竞技(A1-A2).PGN")]))
    result = classify(record.moves)
    assert result is not None and result.mirrored and result.ecco == "C48"
    text = explain(record.moves)
    lines = text.splitlines()
    assert lines[0] == "C48 中炮过河车互进七兵对屏风马平炮兑车 红仕角炮对黑退边炮"
    # Red opened 炮八平五, so the game is read mirrored, as ECCO does: its 过河车 车八进六
    # reads 车二进六, and Black's horses 马2进3, 马8进7 read 马8进7, 马2进3.
    assert "group 中炮对屏风马/车二进六, by the rules:" in text
    assert "ply 1: Red played 炮二平五" in text
    assert "ply 2 and 6: Black played 马8进7 and 马2进3 (屏风马)" in text
    assert ("ply 9: Red played 车二进六, the first move past the development of both horses"
            in text)
    assert "yes: Black played 炮９退１ at ply 12" in text
    deciding = [result.line.texts()[ply] for ply in result.deciding_plies()]
    assert {"炮二平五", "马８进７", "马２进３", "车二进六", "炮８平９", "炮９退１"} <= set(deciding)


#: Each traditional name on a real game of ccpd-dev.zip that carries it, and on one that
#: does not (members under Dataset/對局/大師對局/; the ECCO tag of each in the comment).
NAME_GAMES = [
    ("中炮", "以棋手分類/呂欽/00000013.pgn", "以棋手分類/吳貴臨/00000012.pgn"),  # B24; E48
    ("仙人指路", "以棋手分類/呂欽/00000161.pgn", "以棋手分類/吳貴臨/00000007.pgn"),  # E02; C45
    ("飞相局", "以棋手分類/呂欽/00000536.pgn", "以棋手分類/呂欽/00000158.pgn"),  # A14; A60
    ("起马局", "以棋手分類/呂欽/00000608.pgn", "以棋手分類/吳貴臨/00000020.pgn"),  # A44; A22
    ("上仕局", "以棋手分類/許銀川/00003124.pgn", "以棋手分類/呂欽/00000438.pgn"),  # A01; A02
    ("边马局", "以棋手分類/呂欽/00000438.pgn", "以棋手分類/許銀川/00003124.pgn"),  # A02; A01
    ("边兵局", "以賽事分類/亞洲杯/00000413.pgn", "以棋手分類/呂欽/00000438.pgn"),  # A08; A02
    ("顺炮", "以棋手分類/吳貴臨/00000014.pgn", "以棋手分類/呂欽/00000005.pgn"),  # D05; D41
    ("列炮", "以棋手分類/呂欽/00002369.pgn", "以棋手分類/呂欽/00001393.pgn"),  # D50; D53
    ("半途列炮", "以棋手分類/呂欽/00001393.pgn", "以棋手分類/呂欽/00002369.pgn"),  # D53; D50
    ("卒底炮", "以棋手分類/呂欽/00000102.pgn", "以棋手分類/吳貴臨/00000012.pgn"),  # E17; E48
    ("对兵局", "以棋手分類/吳貴臨/00000012.pgn", "以棋手分類/呂欽/00000268.pgn"),  # E48; E45
    ("五七炮", "以棋手分類/呂欽/00000010.pgn", "以棋手分類/吳貴臨/00000007.pgn"),  # C65; C45
    ("五六炮", "以棋手分類/呂欽/00000226.pgn", "以棋手分類/吳貴臨/00000007.pgn"),  # C55; C45
    ("五八炮", "以棋手分類/呂欽/00000460.pgn", "以棋手分類/呂欽/00000352.pgn"),  # C95; C99
    ("五九炮", "以棋手分類/呂欽/00000352.pgn", "以棋手分類/呂欽/00000460.pgn"),  # C99; C95
    ("仕角炮", "以棋手分類/呂欽/00000193.pgn", "以棋手分類/呂欽/00000006.pgn"),  # A53; A36
    ("过宫炮", "以棋手分類/呂欽/00000158.pgn", "以棋手分類/吳貴臨/00000020.pgn"),  # A60; A22
    ("金钩炮", "以賽事分類/全國賽對局譜/00013574.pgn", "以棋手分類/呂欽/00000438.pgn"),  # A07; A02
    ("巡河炮", "以棋手分類/呂欽/00000012.pgn", "以棋手分類/吳貴臨/00000007.pgn"),  # C85; C45
    ("过河炮", "以棋手分類/呂欽/00000013.pgn", "以棋手分類/呂欽/00000401.pgn"),  # B24; B22
    ("天地炮", "以棋手分類/李來群/00001697.pgn", "以棋手分類/呂欽/00000039.pgn"),  # D14; D14
    ("屏风马", "以棋手分類/吳貴臨/00000007.pgn", "以棋手分類/吳貴臨/00000012.pgn"),  # C45; E48
    ("反宫马", "以棋手分類/呂欽/00000184.pgn", "以棋手分類/呂欽/00000270.pgn"),  # B33; B30
    ("单提马", "以棋手分類/呂欽/00000773.pgn", "以棋手分類/許銀川/00002614.pgn"),  # B11; B11
    ("三步虎", "以棋手分類/呂欽/00000013.pgn", "以棋手分類/呂欽/00000401.pgn"),  # B24; B22
    ("两头蛇", "以棋手分類/呂欽/00000064.pgn", "以棋手分類/吳貴臨/00000007.pgn"),  # C22; C45
    ("盘头马", "以棋手分類/呂欽/00000069.pgn", "以棋手分類/呂欽/00000022.pgn"),  # C14; C19
    ("拐角马", "以棋手分類/呂欽/00000161.pgn", "以棋手分類/呂欽/00000267.pgn"),  # E02; E03
    ("窝心马", "以棋手分類/呂欽/00000440.pgn", "以棋手分類/吳貴臨/00000007.pgn"),  # C47; C45
    ("直车", "以棋手分類/呂欽/00000039.pgn", "以賽事分類/世界盃/00000242.pgn"),  # D14; D01
    ("横车", "以棋手分類/呂欽/00000425.pgn", "以棋手分類/呂欽/00000005.pgn"),  # D28; D41
    ("巡河车", "以棋手分類/呂欽/00000032.pgn", "以棋手分類/呂欽/00000022.pgn"),  # C15; C19
    ("骑河车", "以棋手分類/呂欽/00000401.pgn", "以棋手分類/呂欽/00000013.pgn"),  # B22; B24
    ("过河车", "以棋手分類/呂欽/00000064.pgn", "以棋手分類/呂欽/00000009.pgn"),  # C22; C78
    ("肋车", "以棋手分類/吳貴臨/00000014.pgn", "以棋手分類/李來群/00000097.pgn"),  # D05; D02
]


def test_every_name_of_the_table_is_tested() -> None:
    assert [name for name, _, _ in NAME_GAMES] == [entry.name for entry in NAMES]


@pytest.mark.usefixtures("shared_data")
@pytest.mark.parametrize(("name", "carrier", "other"), NAME_GAMES)
@pytest.mark.slow
def test_a_traditional_name_on_real_games(name: str, carrier: str, other: str) -> None:
    with_it = classify(ccpd()[MASTERS + carrier].moves)
    without = classify(ccpd()[MASTERS + other].moves)
    assert with_it is not None and without is not None
    assert name in with_it.names
    assert name not in without.names
