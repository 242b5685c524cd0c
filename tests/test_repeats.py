"""A record that repeats one replayed earlier in the import is not replayed again (nor
built into rows, when the earlier one is known to be stored), by whichever worker, and
lands exactly as if it had been: every table the same as an import that replays every
record."""

from __future__ import annotations

import multiprocessing
import shutil
from pathlib import Path

import pytest

from datafiles import DATA, SHARED_DATA
from import_support import all_rows, copies_far_apart
from xqdb.db import rows
from xqdb.pipeline import importer
from xqdb.pipeline.importer import ImportSummary, import_paths
from xqdb.pipeline.repeats import SeenRecords, place
from xqdb.replay import Repeats

ENDINGS = DATA / "ccpd" / "endings"
CORPUS = SHARED_DATA / "ccpd-dev.zip"


def import_both_ways(paths: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                     ) -> tuple[dict, dict, ImportSummary, int]:
    """Import ``paths`` in this process replaying every record, then again keeping
    replays for repeats: the rows of each, the second's summary, and how many of its
    records were not replayed."""
    replay_every_record(monkeypatch)
    import_paths(paths, tmp_path / "every.duckdb", jobs=1)
    kept = Repeats()
    monkeypatch.setattr(rows, "REPEATS", kept)
    monkeypatch.setattr(importer, "SEEN_SLOTS", 1 << 12)
    summary = import_paths(paths, tmp_path / "kept.duckdb", jobs=1)
    return (all_rows(tmp_path / "every.duckdb"), all_rows(tmp_path / "kept.duckdb"), summary,
            kept.hits + summary.unreplayed)


def replay_every_record(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rows, "REPEATS", Repeats(kept=0))
    monkeypatch.setattr(importer, "SEEN_SLOTS", 0)


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


def test_a_repeat_read_by_another_worker_is_linked_without_a_replay(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importer, "UNIT_SOURCES", 1)
    copies = copies_far_apart(tmp_path / "games")
    summary = import_paths([str(tmp_path / "games")], tmp_path / "kept.duckdb", jobs=2)
    replay_every_record(monkeypatch)
    import_paths([str(tmp_path / "games")], tmp_path / "every.duckdb", jobs=2)
    assert summary.unreplayed == copies
    assert summary.records == 2 * copies + 30
    every, kept = all_rows(tmp_path / "every.duckdb"), all_rows(tmp_path / "kept.duckdb")
    for table in every:
        assert kept[table] == every[table], table


def test_a_worker_takes_another_ones_replay_only_once_the_writer_has_its_unit() -> None:
    seen = SeenRecords(64, shared=True)
    other = multiprocessing.get_context("fork").Process(
        target=seen.add, args=(12345, place(3, 0), 99))
    other.start()
    other.join()
    assert seen.earlier(12345, place(5, 0)) is None  # unit 3 may yet be lost
    seen.received(3, lost=False)
    assert seen.earlier(12345, place(5, 0)) == 99
    assert seen.earlier(12345, place(3, 0)) is None  # not a repeat of itself
    seen.add(777, place(6, 1), 5)
    seen.received(4, lost=True)  # what other workers replayed may never be stored now
    assert seen.earlier(12345, place(5, 0)) is None
    assert seen.earlier(777, place(6, 2)) == 5  # its own replays still count


def _fill_forever(seen: SeenRecords) -> None:
    """Keep noting replays of keys 1-500 (content: the key times 7), as a busy worker does."""
    index = 0
    while True:
        index += 1
        key = index % 500 + 1
        seen.add(key, place(0, index), key * 7)
        seen.earlier(key, place(0, index))


def test_a_worker_killed_while_it_uses_the_table_stops_no_one_and_leaves_no_wrong_slot(
        ) -> None:
    import os
    import signal
    import threading
    import time

    seen = SeenRecords(64, shared=True)
    context = multiprocessing.get_context("fork")
    for round_ in range(20):
        worker = context.Process(target=_fill_forever, args=(seen,), daemon=True)
        worker.start()
        time.sleep(0.02 + 0.01 * (round_ % 5))
        os.kill(worker.pid, signal.SIGKILL)  # wherever it is: amid a read, amid a write
        worker.join()

    answers: list[int | None] = []

    def parent_and_another_worker_go_on() -> None:
        seen.received(0, lost=False)
        answers.extend(seen.earlier(key, place(1, 0)) for key in range(1, 501))

    going_on = threading.Thread(target=parent_and_another_worker_go_on, daemon=True)
    going_on.start()
    going_on.join(timeout=10)
    assert not going_on.is_alive(), "a killed worker left the table locked"
    found = {key: content for key, content in zip(range(1, 501), answers) if content is not None}
    assert found, "the killed workers' replays are lost"
    assert all(content == key * 7 for key, content in found.items())
