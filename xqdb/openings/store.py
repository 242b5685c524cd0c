"""The classification of a replayed game as the import stores it: ``games.ecco``,
``games.opening``, ``games.variation`` and ``games.opening_names`` (see
:mod:`xqdb.db.columns`); the record's own tags stay in ``games.tags``. Classifying a
stored database again is :mod:`xqdb.db.openings`."""

from __future__ import annotations

from ..replay import ReplayedGame
from . import Classification, classify


def classify_game(game: ReplayedGame) -> Classification | None:
    """The opening of a replayed game; ``None`` for an invalid game or one from a set-up
    position.

    >>> from xqdb.formats.record import GameRecord, Origin
    >>> from xqdb.replay import replay
    >>> record = GameRecord(origin=Origin("x.pgn"), format="pgn", notation="chinese")
    >>> record.moves.extend(["炮二平五", "马8进7", "马二进三", "车9平8"])
    >>> classify_game(replay(record)).ecco
    'B05'
    """
    if not game.is_valid:
        return None
    return classify(game.moves, game.start_fen, pieces=game.pieces)


def stored_values(result: Classification | None) -> tuple[str | None, str | None, str | None,
                                                          list[str] | None]:
    """``(ecco, opening, variation, opening_names)`` as ``games`` stores them: NULL for an
    unclassified game, and for a code without a variation name."""
    if result is None:
        return None, None, None, None
    return result.ecco, result.opening, result.variation or None, list(result.names)
