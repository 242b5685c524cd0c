"""The notation registry and the format reader table: one home for each notation's name,
reader, writer and sniffer, and for each format's reader, used by every caller."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from xqdb import Position
from xqdb.formats import READERS, Reader, formats, movelist, read_paths, sniff_format
from xqdb.formats.record import Origin
from xqdb.formats.tags import normalize_result, parse_year
from xqdb.notation import (
    NOTATIONS, REGISTRY, WRITTEN_NOTATIONS, NotationError, read_move, sniff, sniff_moves,
    write_move,
)
from xqdb.notation.tables import FULLWIDTH, fold
from xqdb.pipeline.reading import SHOW_NOTATIONS, format_game
from xqdb.replay import replay

from import_support import run_installed

ROOT = Path(__file__).parents[1]

#: Texts on which the two sniffers of old (``notation.sniff`` and
#: ``formats.movetext.notation_of``) disagreed, with the one answer they now get.
DISAGREED = {
    "C25": "wxf",      # WXF with no operator for a sideways move: was unknown to the format sniffer
    "c25": "wxf",
    "H2E2": "iccs",    # upper case, no hyphen: was "uci" for the notation sniffer
    "h2-e2": "iccs",   # lower case with a hyphen: was unknown to the format sniffer
    "++.4": "wxf",     # first of four pawns: was unknown to the format sniffer
    "--.4": "wxf",
    "PA.4": "wxf",     # xqbase's tandem pawn letters in upper case
    "??": None,        # was "wxf" for the notation sniffer, which fell back to WXF for anything
    "g5": "san",       # algebraic: was "wxf" for one sniffer and unknown to the other
    "Che2": "san",
}
AGREED = {
    "炮二平五": "chinese", "前九平八": "chinese", "二7平6": "chinese", "C2.5": "wxf",
    "C2=5": "wxf", "＋Ｐ＋１": "wxf", "3+.4": "wxf", "Pa.4": "wxf", "H2-E2": "iccs",
    "h2e2": "uci", "ｈ２ｅ２": "uci", "h10g8": "uci10", "a10a9": "uci10", "7747": "dhtmlxq",
}


@pytest.mark.parametrize("text, expected", [*DISAGREED.items(), *AGREED.items()])
def test_one_sniffer_for_every_caller(text: str, expected: str | None) -> None:
    assert sniff(text) == expected
    # A move list's notation is the same sniffer's answer. (Whether a file is a move list
    # at all is for its first moves' legality to say: see test_sniffing.py.)
    data = f"{text} {text} {text}".encode()
    record = next(movelist.read(io.BytesIO(data), Origin("moves.txt")))
    assert record.notation == (expected or "auto")


def test_a_wxf_move_list_with_no_operators_is_read_and_replayed() -> None:
    """``C25 h8+7`` was not a move list to the format sniffer of old."""
    data = b"C25 H8+7 H2+3 R9.8"
    assert sniff_format(data, "moves.txt") == "movelist"
    rec = next(movelist.read(io.BytesIO(data), Origin("moves.txt")))
    assert rec.notation == "wxf"
    assert replay(rec).uci == ["h2e2", "h9g7", "h0g2", "i9h9"]


def test_a_game_is_sniffed_by_most_of_its_texts_and_settles_its_ranks() -> None:
    assert sniff_moves(["炮二平五", "马８进７", "C2.5"]) == "chinese"
    assert sniff_moves(["h2e2", "h9g7", "b0c2"]) == "uci"
    assert sniff_moves(["h3e3", "h10g8", "b1c3"]) == "uci10"
    assert sniff_moves(["??", "!!"]) == "auto"


def test_every_notation_reads_its_own_example() -> None:
    pos = Position()
    for name, entry in REGISTRY.items():
        move, loose = read_move(pos, entry.example, name)
        assert str(move) == "h2e2" and not loose, name
        if entry.writable:
            assert write_move(pos, move, name) == entry.example, name


def test_names_come_from_the_registry() -> None:
    assert NOTATIONS == (*REGISTRY, "auto")
    assert WRITTEN_NOTATIONS == tuple(n for n in REGISTRY if REGISTRY[n].writable)
    assert SHOW_NOTATIONS == (*WRITTEN_NOTATIONS, "chinese-simplified", "source")


def test_unknown_names_are_errors_listing_the_known_ones() -> None:
    with pytest.raises(NotationError, match="notation 'bogus' is not supported.*wxf"):
        read_move(Position(), "h2e2", "bogus")
    with pytest.raises(NotationError, match="'auto' cannot be written.*chinese"):
        write_move(Position(), Position().parse_move("h2e2"), "auto")


def test_an_unknown_text_read_with_auto_names_no_single_notation() -> None:
    with pytest.raises(NotationError, match=r"'\?\?' is not a move in any notation"):
        read_move(Position(), "??")


def test_one_fullwidth_table() -> None:
    assert fold("Ｃ２＝５") == "C2=5"
    assert "１９９７．１１．１６\u3000".translate(FULLWIDTH) == "1997.11.16 "
    assert normalize_result("１－０") == "1-0" and parse_year("１９９７年") == 1997


def test_every_format_module_is_a_registered_reader() -> None:
    assert all(isinstance(reader, Reader) for reader in READERS)
    assert formats() == [reader.FORMAT for reader in READERS]
    assert len(set(formats())) == len(READERS)
    import xqdb.formats as package
    modules = {p.stem for p in Path(package.__file__).parent.glob("*.py")}
    readers = {reader.__name__.rsplit(".", 1)[1] for reader in READERS}  # type: ignore[attr-defined]
    # Every module of the package that reads records is in the table, and nothing else is.
    assert readers == {m for m in modules if hasattr(getattr(package, m, None), "read")}


@pytest.mark.parametrize("notation", SHOW_NOTATIONS)
def test_read_show_prints_a_game_in_every_notation(notation: str) -> None:
    path = ROOT / "sample_games" / "liu-dahua-coordinates.pgn"
    proc = run_installed("read", str(path), "--show", "1", "--notation", notation)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    record = next(read_paths([str(path)]))
    first = record.moves[0]
    start = Position()
    written = "chinese" if notation == "chinese-simplified" else notation
    expected = first if notation == "source" else \
        write_move(start, start.parse_move(first), written)
    assert f"  1. {expected}" in out
    assert format_game(record, notation) == out.rstrip("\n")
