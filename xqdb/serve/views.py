"""What the pages and the JSON API of ``xqdb serve`` show, as plain data from
:class:`xqdb.Database`: the explorer of a position, a game, the filters of a request.

Every function here takes the database and the request's values and returns dictionaries
and lists that Flask turns into JSON as they are, and that the templates draw; nothing
here knows of HTTP. The figures are those of ``xqdb tree`` (:meth:`Database.tree`), the
games those of ``xqdb search`` and ``xqdb show``.

>>> filters_from({"player": "胡荣华", "side": "red", "from": "1990", "event": ""})
GameFilter(player='胡荣华', side='red', opponent=None, from_='1990', to=None, event=None, result=None, eco=None, where=None, game_ids=())
>>> line_of("h2e2 h9g7")[1]
[Move.from_uci('h2e2'), Move.from_uci('h9g7')]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..browse.show import MARKS
from ..database import Database
from ..db.selection import SIDES, GameFilter
from ..errors import BadArgumentError
from ..notation import WRITTEN_NOTATIONS
from ..notation.tokens import split_moves
from ..openings import classify
from ..position import Position, position_after
from ..rules.board import RED, Move
from ..rules.position import STARTING_FEN

#: The request parameters that filter games, and the :class:`GameFilter` field of each
#: (``--where``, SQL, is left to the command line).
FILTER_FIELDS = {"player": "player", "side": "side", "opponent": "opponent", "from": "from_",
                 "to": "to", "event": "event", "result": "result", "eco": "eco"}
#: The games listed under the explorer: those that reached its position.
GAMES_LISTED = 12


def filters_from(values: Mapping[str, str]) -> GameFilter:
    """The game filters of a request's parameters (empty ones do not filter), as
    ``xqdb tree --player ... --side ... --from ... --to ... --event ...`` takes them."""
    given: dict[str, Any] = {field: values[name].strip() for name, field in FILTER_FIELDS.items()
             if (values.get(name) or "").strip()}
    if given.get("side", "either") not in SIDES:
        raise BadArgumentError(f"side {given['side']!r} is none of {', '.join(SIDES)}",
                               "side=red, side=black or side=either")
    return GameFilter(**given)


def filter_params(games: GameFilter) -> dict[str, str]:
    """The request parameters that give ``games`` again (for the links of a page).

    >>> filter_params(GameFilter(player="胡荣华", from_="1990"))
    {'player': '胡荣华', 'from': '1990'}
    """
    params = {}
    for name, field in FILTER_FIELDS.items():
        value = getattr(games, field)
        if value and not (field == "side" and value == "either"):
            params[name] = str(value)
    return params


def notation_from(values: Mapping[str, str]) -> str:
    """The notation a request asks moves to be written in (default Chinese)."""
    notation = values.get("notation") or "chinese"
    if notation not in WRITTEN_NOTATIONS:
        raise BadArgumentError(f"notation {notation!r} is not one xqdb writes",
                               "one of " + ", ".join(WRITTEN_NOTATIONS))
    return notation


def line_of(moves: str, fen: str | None = None) -> tuple[Position, list[Move]]:
    """The start position (``fen`` or the standard one) and the moves of ``moves`` (any
    notation), each legal after those before; raises :class:`~xqdb.position.PositionError`
    naming the move at fault, as ``xqdb tree --moves`` does."""
    position_after(moves, fen)  # the one place that words a bad FEN or move
    start = Position(fen or STARTING_FEN)
    pos, line = start.copy(), []
    for text in split_moves(moves):
        line.append(pos.push_text(text))
    return start, line


def written(start: Position, line: Sequence[Move], notation: str) -> list[dict[str, Any]]:
    """The moves of ``line`` from ``start``, numbered by ply, in UCI and in ``notation``."""
    pos, out = start.copy(), []
    for ply, move in enumerate(line, 1):
        out.append({"ply": ply, "side": "red" if pos.turn == RED else "black",
                    "uci": move.uci(), "text": pos.move_text(move, notation)})
        pos.push(move)
    return out


def numbered(moves: Sequence[Mapping[str, Any]]
             ) -> list[tuple[int, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]]]:
    """The moves as a score sheet has them: move number, Red's move and Black's (``None``
    before a game's first move when Black begins, and after its last).

    >>> [(n, tuple(m and m["ply"] for m in pair)) for n, pair in numbered(
    ...     [{"ply": 1, "side": "black"}, {"ply": 2, "side": "red"}])]
    [(1, (None, 1)), (2, (2, None))]
    """
    rows: list[tuple[int, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]]] = []
    red: Mapping[str, Any] | None = None
    for move in moves:
        if move["side"] == "red":
            if red is not None:
                rows.append((len(rows) + 1, (red, None)))
            red = move
        else:
            rows.append((len(rows) + 1, (red, move)))
            red = None
    if red is not None:
        rows.append((len(rows) + 1, (red, None)))
    return rows


def legal_targets(pos: Position) -> dict[int, list[int]]:
    """Each square a piece of the side to move stands on, and the squares it can go to
    (what the board's clicks are checked against)."""
    targets: dict[int, list[int]] = {}
    for move in pos.legal_moves():
        targets.setdefault(move.from_square, []).append(move.to_square)
    return targets


def opening_of(start: Position, line: Sequence[Move]) -> dict[str, Any] | None:
    """The ECCO code and names of the line so far (``None`` before the first move, or
    from a position ECCO does not cover)."""
    if not line:
        return None
    found = classify(line, start.fen())
    if found is None:
        return None
    return {"ecco": found.ecco, "opening": found.opening, "variation": found.variation,
            "names": list(found.names), "mirrored": found.mirrored}


@dataclass(frozen=True)
class Explorer:
    """One state of the explorer: the position after the first ``ply`` moves of ``line``
    from ``start``, with moves beyond ``ply`` kept for stepping forward again."""

    start: Position
    line: list[Move]
    ply: int
    games: GameFilter
    notation: str
    mirror: bool = True

    @classmethod
    def from_request(cls, values: Mapping[str, str]) -> Explorer:
        """The explorer that a page's parameters ask for: ``line`` (moves, any notation),
        ``ply`` (default: the end of the line), ``fen``, ``notation``, ``mirror`` (``0``
        keeps mirror images apart) and the filters."""
        start, line = line_of(values.get("line") or values.get("moves") or "",
                              values.get("fen") or None)
        ply = whole_number(values.get("ply"), "ply", len(line))
        if not 0 <= ply <= len(line):
            raise BadArgumentError(f"ply {ply} is not in the line of {len(line)} moves",
                                   f"give 0 to {len(line)}")
        return cls(start, line, ply, filters_from(values), notation_from(values),
                   values.get("mirror", "1") not in ("0", "false", "no"))

    @property
    def played(self) -> list[Move]:
        return self.line[:self.ply]

    def position(self) -> Position:
        pos = self.start.copy()
        for move in self.played:
            pos.push(move)
        return pos

    def params(self, line: Sequence[Move] | None = None, ply: int | None = None
               ) -> dict[str, str]:
        """The page parameters of this state, or of another ``line`` and ``ply``."""
        line = self.line if line is None else line
        params = {"line": " ".join(m.uci() for m in line)}
        if ply is not None and ply != len(line):
            params["ply"] = str(ply)
        if self.start.fen() != Position().fen():
            params["fen"] = self.start.fen()
        if self.notation != "chinese":
            params["notation"] = self.notation
        if not self.mirror:
            params["mirror"] = "0"
        return {k: v for k, v in {**params, **filter_params(self.games)}.items() if v}

    def playing(self, move: Move) -> dict[str, str]:
        """The parameters after ``move`` is played here: the line goes on as it was when
        ``move`` is its next move (so that forward still works), else it ends with it."""
        if self.ply < len(self.line) and self.line[self.ply] == move:
            return self.params(ply=self.ply + 1)
        return self.params([*self.played, move])


def explore(db: Database, state: Explorer, top_games: int = 3) -> dict[str, Any]:
    """Everything the explorer shows of ``state``: the position, the line so far, its
    opening, every move played next with the figures of ``xqdb tree`` and the games that
    reached the position."""
    pos = state.position()
    moves = tree_moves(db, pos, state.games, state.notation, state.mirror, top_games)
    total = sum(m["games"] for m in moves)
    found = db.search_position(pos, mirror=state.mirror, notation=state.notation,
                               limit=GAMES_LISTED, games=state.games)
    games = [dict(zip(found.games.columns, row)) for row in found.games.rows]
    return {
        "fen": pos.fen(), "turn": "red" if pos.turn == RED else "black", "ply": state.ply,
        "line": written(state.start, state.line, state.notation),
        "opening": opening_of(state.start, state.played),
        "filters": filter_params(state.games), "described": state.games.describe(),
        "notation": state.notation, "mirror": state.mirror,
        "total": total, "moves": moves,
        "games": {"total": found.total, "listed": games},
    }


def tree_moves(db: Database, pos: Position, games: GameFilter, notation: str,
               mirror: bool = True, top_games: int = 3) -> list[dict[str, Any]]:
    """The rows of ``xqdb tree`` for ``pos``, each with its move in UCI too (the move a
    click plays)."""
    result = db.tree(fen=pos.fen(), notation="uci", mirror=mirror, games=games,
                     top_games=max(top_games, 1))
    rows = []
    for record in result.records():
        move = Move.from_uci(record["move"])
        rows.append({**record, "uci": record["move"], "move": pos.move_text(move, notation)})
    return rows


def game(db: Database, game_id: int, ply: int | None, notation: str) -> dict[str, Any]:
    """One game as its page and ``/api/game/ID`` show it: tags, players, opening, ending,
    the moves (in UCI and ``notation``) with the analysis's evaluation and judgement after
    each, and the position after ``ply`` (default: the last)."""
    view = db.show(game_id, ply, "uci")
    f = view.fields
    start = Position(f["start_fen"] or STARTING_FEN) if view.position is not None else None
    moves = []
    pos = start.copy() if start is not None else None
    for shown in view.moves:
        move = Move.from_uci(shown.text)
        assert pos is not None
        moves.append({"ply": shown.ply, "side": shown.side, "uci": shown.text,
                      "text": pos.move_text(move, notation), "score": shown.score,
                      "eval": eval_pawns(shown.score), "judgement": shown.judgement,
                      "mark": MARKS.get(shown.judgement or "", "")})
        pos.push(move)
    return {
        "game_id": game_id, "red": f["red"], "black": f["black"], "result": f["result"],
        "status": f["status"], "tags": view.tags,
        "opening": {"ecco": f["ecco"], "opening": f["opening"], "variation": f["variation"],
                    "names": list(f["opening_names"] or [])} if f["ecco"] else None,
        "ending": [line.strip() for line in view.ending()],
        "start_fen": f["start_fen"] or STARTING_FEN, "ply": view.ply,
        "fen": view.position.fen() if view.position is not None else None,
        "last": view.last.uci() if view.last is not None else None,
        "analysed": view.analysed, "moves": moves, "notation": notation,
    }


def eval_pawns(score: str | None) -> float | None:
    """An evaluation as ``xqdb show`` writes it (``+0.35``, ``#-5``), in pawns from Red's
    side; a mate counts as :data:`MATE_PAWNS`.

    >>> eval_pawns("+0.35"), eval_pawns("#-5"), eval_pawns(None)
    (0.35, -20.0, None)
    """
    if score is None:
        return None
    if score.startswith("#"):
        return math.copysign(MATE_PAWNS, float(score[1:] or 0) or 1)
    return float(score)


#: The pawns a mate counts as on the graph (drawn at its edge).
MATE_PAWNS = 20.0


def eval_graph(moves: Sequence[Mapping[str, Any]], ply: int, href: str = "?ply={ply}",
               width: int = 600, height: int = 140) -> str:
    """The evaluation after each move as an SVG graph, Red's advantage up: the line
    squeezed by ``tanh(pawns / 4)`` (so that a mate and a rook up sit near the edge),
    the judged moves marked by class, the shown ``ply`` as a vertical line; each point
    links to its ply through ``href``.

    >>> svg = eval_graph([{"ply": 1, "eval": 0.3, "judgement": None},
    ...                   {"ply": 2, "eval": -3.0, "judgement": "blunder"}], 1)
    >>> svg.count('class="judged blunder"'), 'class="now"' in svg
    (1, True)
    """
    plies = max((m["ply"] for m in moves), default=1)
    step = width / max(plies, 1)
    middle = height / 2

    def y(pawns: float) -> float:
        return middle - math.tanh(pawns / 4) * (middle - 6)

    points = [(m["ply"] * step, y(m["eval"])) for m in moves if m.get("eval") is not None]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="eval-graph" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}">',
           f'<rect width="{width}" height="{height}" fill="#222"/>',
           f'<rect y="{middle}" width="{width}" height="{middle}" fill="#444"/>']
    if points:
        area = " ".join(f"{x:.1f},{py:.1f}" for x, py in points)
        out.append(f'<polygon class="advantage" points="{points[0][0]:.1f},{middle} {area} '
                   f'{points[-1][0]:.1f},{middle}" fill="#c0392b" fill-opacity="0.55"/>')
        out.append(f'<polyline class="evals" points="{area}" fill="none" stroke="#f2d59b" '
                   'stroke-width="1.5"/>')
    out.append(f'<line x1="0" y1="{middle}" x2="{width}" y2="{middle}" stroke="#888" '
               'stroke-dasharray="4 3"/>')
    if ply:
        out.append(f'<line class="now" x1="{ply * step:.1f}" y1="0" x2="{ply * step:.1f}" '
                   f'y2="{height}" stroke="#2a7fff" stroke-width="2"/>')
    for m in moves:
        if m.get("eval") is None:
            continue
        x, py = m["ply"] * step, y(m["eval"])
        link = href.format(ply=m["ply"])
        judged = m.get("judgement")
        if judged:
            out.append(f'<a href="{link}"><circle class="judged {judged}" data-ply="{m["ply"]}" '
                       f'cx="{x:.1f}" cy="{py:.1f}" r="4.5"><title>ply {m["ply"]}: {judged}'
                       '</title></circle></a>')
        else:
            out.append(f'<a href="{link}"><rect class="hit" data-ply="{m["ply"]}" '
                       f'x="{x - step / 2:.1f}" y="0" width="{max(step, 1):.1f}" '
                       f'height="{height}" fill="transparent"/></a>')
    out.append("</svg>")
    return "\n".join(out)


def whole_number(text: str | None, name: str, default: int) -> int:
    """The number a query parameter ``name`` holds, or ``default`` when it is empty;
    :class:`BadArgumentError` for anything else."""
    if text is None or text == "":
        return default
    try:
        return int(text)
    except ValueError:
        raise BadArgumentError(f"{name} {text!r} is not a number") from None


__all__ = ["Explorer", "whole_number", "FILTER_FIELDS", "eval_graph", "eval_pawns", "explore",
           "filter_params", "filters_from", "game", "legal_targets", "line_of",
           "notation_from", "opening_of", "tree_moves", "written"]
