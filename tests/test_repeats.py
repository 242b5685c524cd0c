"""A record that repeats one replayed lately is not replayed again, and lands exactly as
if it had been: every table the same as an import that replays every record."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from datafiles import DATA, SHARED_DATA
from import_support import all_rows
from xqdb.db import rows
from xqdb.pipeline.importer import ImportSummary, import_paths
from xqdb.replay import Repeats

ENDINGS = DATA / "ccpd" / "endings"
CORPUS = SHARED_DATA / "ccpd-dev.zip"


def import_both_ways(paths: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                     ) -> tuple[dict, dict, ImportSummary, int]:
    """Import ``paths`` in this process replaying every record, then again keeping
    replays for repeats: the rows of each, the second's summary, and how many of its
    records were not replayed."""
    monkeypatch.setattr(rows, "REPEATS", Repeats(kept=0))
    import_paths(paths, tmp_path / "every.duckdb", jobs=1)
    kept = Repeats()
    monkeypatch.setattr(rows, "REPEATS", kept)
    summary = import_paths(paths, tmp_path / "kept.duckdb", jobs=1)
    return (all_rows(tmp_path / "every.duckdb"), all_rows(tmp_path / "kept.duckdb"), summary,
            kept.hits)


def test_a_game_filed_twice_is_replayed_once_and_counted_as_the_duplicate_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The same master games filed in two folders, as collections do; the second folder's
    # copies differ only in a tag.
    for folder in ("by-event", "by-player"):
        (tmp_path / "games" / folder).mkdir(parents=True)
    games = sorted(ENDINGS.glob("*.pgn"))
    for game in games:
        shutil.copy(game, tmp_path / "games" / "by-event" / game.name)
        text = game.read_bytes().replace(b"[Event ", b"[Annotator \"copy\"]\n[Event ", 1)
        (tmp_path / "games" / "by-player" / game.name).write_bytes(text)
    every, kept, summary, hits = import_both_ways([str(tmp_path / "games")], tmp_path,
                                                  monkeypatch)
    assert hits == len(games)
    assert (summary.records, summary.duplicates) == (2 * len(games), len(games))
    for table in every:
        assert kept[table] == every[table], table


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.exists(), reason=f"needs the corpus file {CORPUS}")
def test_every_table_of_the_corpus_is_the_same_with_repeats_not_replayed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    every, kept, summary, hits = import_both_ways([str(CORPUS)], tmp_path, monkeypatch)
    assert hits > 2_500  # of the 3,383 byte-identical repeats in its 11,791 records
    assert summary.records == 11_791
    for table in every:
        assert kept[table] == every[table], table
