"""The opening tree: every move played from a position, with its figures, as SCID's tree
window and the lichess explorer show it.

Transpositions are merged (the moves are counted by the position they leave, not by the
move order that reached it) and, with ``mirror``, so are the left-right mirror images:
炮八平五 from the start counts as 炮二平五.

>>> from xqdb.db.schema import connect
>>> con = connect(":memory:")
>>> opening_tree(con, Position()).columns[:3]
['move', 'games', 'share']
"""

from __future__ import annotations

from ..db.queries import Result, run_report
from ..db.schema import Connection
from ..db.selection import GameFilter
from ..db.tree_counts import counted_tree
from ..position import Move, Position, mirrored


def opening_tree(con: Connection, position: Position, *, notation: str = "chinese",
                 min_games: int = 1, mirror: bool = True, games: GameFilter | None = None,
                 top_games: int = 3, with_partial: bool = False) -> Result:
    """Every move played from ``position`` in the games ``games`` selects, most played
    first: games, share, results, score, average year, distinct players and the
    ``top_games`` latest games (a column left out with none).
    With ``with_partial``, invalid games count too, with their moves up to the failing one."""
    image = mirrored(position).zobrist()
    found = None
    if not with_partial and (games is None or games.is_empty()):
        # Every valid game: counted ahead for a position many games reach.
        found = counted_tree(con, position.zobrist(), image if mirror else None,
                             min_games, top_games)
    if found is None:
        found = run_report(con, "tree", games,
                           {"key": str(position.zobrist()),
                            "mirror_key": str(image) if mirror else None,
                            "min_games": str(min_games), "top_games": str(top_games)},
                           valid_only=not with_partial)
    named = ["move", *found.columns[1:]]
    kept = [i for i, name in enumerate(named) if top_games or name != "top_games"]
    rows = [tuple(row[i] for i in kept)
            for row in ((position.move_text(Move.from_code(code), notation), *rest)
                        for code, *rest in found.rows)]
    result = Result([named[i] for i in kept], rows)
    counted = result.columns.index("games")
    result.labels["share"] = f"Share % of {sum(r[counted] for r in rows):,}"
    return result
