"""What every reader owes, whatever bytes it is given: the check both fuzz suites run."""

from __future__ import annotations

import re

from xqdb.formats.record import RESULTS, GameRecord, Line
from xqdb.replay import replay


def lines(line: Line):
    """``line`` and every variation under it."""
    todo = [line]
    while todo:
        current = todo.pop()
        yield current
        todo.extend(variation for _, variation in current.variations)


def check_records(records: list[GameRecord], path: str, *,
                  moves: re.Pattern[str] | None = None,
                  results: tuple[str | None, ...] = (*RESULTS, None)) -> None:
    """Records numbered in order, each naming ``path``; an error record says why and keeps
    the bytes it could not read; a game's result is one of ``results`` (a text may give
    none), its variations
    fork inside their lines and, with ``moves``, every move text has that form; and every
    record replays to a verdict (valid, or invalid with its reason), never an exception."""
    assert [r.origin.index for r in records] == list(range(len(records)))
    for record in records:
        assert isinstance(record, GameRecord)
        assert record.origin.path == path
        assert isinstance(record.raw, (str, bytes))
        if record.error is not None:
            assert isinstance(record.error, str) and record.error.strip()
        else:
            assert record.result in results, record.result
            assert record.fen is None or isinstance(record.fen, str)
            for line in lines(record.mainline):
                assert all(0 <= index < len(line.moves) for index, _ in line.variations)
                if moves is not None:
                    assert all(moves.fullmatch(text) for text in line.moves), line.moves
        game = replay(record)
        assert game.status in ("valid", "invalid")
        if not game.is_valid:
            assert game.error
