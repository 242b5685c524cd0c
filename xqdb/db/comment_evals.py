"""Engine comments carried by a record, as rows of ``evals`` (``origin`` ``comment``).

WinBoard saves each engine move with what its engine said of it (``{+0,10/7 4}``, see
:mod:`xqdb.formats.engine_comments`): the score of the position it searched, from its own
point of view, and the depth. That position is the one before the move, with the mover to
move, so the score is already the side to move's and the move played is the engine's best
move. The engine is the one the player tag of the mover names (``Red``, or ``White`` as
WinBoard writes it, and ``Black``). An evaluation read from a record belongs to that
game, searched with its history: its rows carry the game and the ply, and an upgrade
reads them again from the record.

>>> from xqdb.formats.record import GameRecord, Origin
>>> from xqdb.replay import replay
>>> record = GameRecord(origin=Origin("a.pgn"), format="pgn", notation="uci",
...                     tags={"White": "Engine A", "Black": "Engine B"})
>>> record.moves.extend(["h2e2", "h9g7"])
>>> record.mainline.comments.update({1: "+0,10/7 4", 2: "-0,25/8"})
>>> for row in comment_evals(replay(record)):
...     print(row["ply"], row["side"], row["engine"], row["search_limit"], row["score_cp"],
...           row["best_move"])
0 red Engine A depth=7 10 h2e2
1 black Engine B depth=8 -25 h9g7
"""

from __future__ import annotations

from ..engine.score import Limit
from ..replay import ReplayedGame
from ..rules.board import BLACK, RED
from .evals import SIDE_NAMES

#: The tags naming the player of each side, in the order they are looked at.
PLAYER_TAGS = {RED: ("Red", "White"), BLACK: ("Black",)}

ORIGIN = "comment"


def player(game: ReplayedGame, side: int) -> str | None:
    """The name the record's tags give the player of ``side``, if any.

    >>> from xqdb.formats.record import GameRecord, Origin
    >>> record = GameRecord(origin=Origin("a.pgn"), format="pgn", tags={"White": "MaxQi 4.8F"})
    >>> player(ReplayedGame(record, ""), RED), player(ReplayedGame(record, ""), BLACK)
    ('MaxQi 4.8F', None)
    """
    tags = game.record.tags
    for tag in PLAYER_TAGS[side]:
        name = (tags.get(tag) or "").strip()
        if name:
            return name
    return None


def comment_evals(game: ReplayedGame) -> list[dict[str, object]]:
    """The ``evals`` rows of the engine comments of ``game``'s main line, by column name
    (``game_id`` is the writer's to give), one per commented move that was replayed.

    A comment is left out when no tag names the mover's player, or when its depth is 0
    (a book move: nothing was searched).
    """
    said = game.record.engine_comments
    if not said:
        return []
    rows: list[dict[str, object]] = []
    engines = {RED: player(game, RED), BLACK: player(game, BLACK)}
    for ply, comment in sorted(said.items()):
        if ply > game.plies or comment.depth <= 0:
            continue
        side = RED if game.pieces[ply - 1] > 0 else BLACK
        engine = engines[side]
        if engine is None:
            continue
        mate = comment.mate
        rows.append({
            "key": game.keys[ply - 2] if ply > 1 else game.start_key,
            "side": SIDE_NAMES[side], "engine": engine,
            "search_limit": Limit(depth=comment.depth).key(), "ply": ply - 1,
            "score_cp": comment.score if mate is None else None, "mate": mate,
            "best_move": game.moves[ply - 1].uci(), "depth": comment.depth,
            "status": "ok", "origin": ORIGIN})
    return rows


__all__ = ["ORIGIN", "PLAYER_TAGS", "player", "comment_evals"]
