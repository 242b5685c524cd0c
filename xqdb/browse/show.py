"""One stored game for people: the board at any ply (drawn by :mod:`xqdb.render.board`),
the moves in any notation, the tags, the opening, and the analysis where there is one.
The library behind ``xqdb show``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


from ..errors import FenError, NotFoundError
from ..position import Position
from ..db.fetch import game_fields, game_moves, game_span, judged_moves_of
from ..db.schema import Connection
from ..pipeline.reading import NO_RULES_ENDING, episode_notes, numbered_moves, played_on_line
from ..render.board import board_text, piece_char, svg_board
from ..render.terminal import visible
from ..rules.board import RED, Move
from ..rules.position import STARTING_FEN

#: Marks of the analysis's judgements after a move, as annotators write them.
MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??", "allowed_mate": "??",
         "missed_mate": "??"}


class GameNotFound(NotFoundError, LookupError):
    """No game has that id."""


class PlyOutOfRange(NotFoundError, ValueError):
    """A ply before the start or past the last move of the game."""


# --- a stored game -----------------------------------------------------------------------

@dataclass
class PlyView:
    """One move of a shown game, with the analysis's word on it when there is one."""

    ply: int
    side: str
    text: str
    score: str | None = None
    """The evaluation after the move, from Red's side: ``+0.35`` (pawns), ``#5`` / ``#-5``."""
    judgement: str | None = None
    """The analysis's class of the move (``blunder``, ``mistake``...), if any."""

    def __str__(self) -> str:
        mark = MARKS.get(self.judgement or "", "")
        return " ".join(part for part in (self.text + mark, self.score) if part)


@dataclass
class GameView:
    """What ``xqdb show`` prints about one game; ``str()`` is that text (plain)."""

    game_id: int
    fields: dict[str, Any]
    """The game's row of ``games``."""
    tags: dict[str, str]
    moves: list[PlyView]
    ply: int
    """The ply the board is shown after (0: the start)."""
    position: Position | None
    """``None`` for an invalid game whose start position cannot be set up."""
    last: Move | None = None
    analysed: bool = False
    events: list[tuple[Any, ...]] | None = None
    """The game's ``rule_events`` rows: ``(verdict_ply, kind, side, verdict, first_ply,
    last_ply, played_on, reason)``."""

    def header(self) -> list[str]:
        f = self.fields
        lines = [f"game {self.game_id}: {f['red'] or '?'} - {f['black'] or '?'}  "
                 f"{f['result'] or 'no result'}"]
        width = max((len(k) for k in self.tags), default=0)
        lines += [f"  {k.ljust(width)}  {v}" for k, v in self.tags.items()]
        if f["ecco"]:
            names = "、".join(f["opening_names"] or [])
            lines.append(f"  opening: {f['ecco']} {f['opening'] or ''}"
                         + (f" {f['variation']}" if f["variation"] else "")
                         + (f" ({names})" if names else ""))
        return lines + self.ending()

    def ending(self) -> list[str]:
        """How the game ended by the rules, what was played on after a verdict, and why
        an invalid game is invalid: the last lines of :meth:`header`."""
        f = self.fields
        lines = []
        if f["termination"]:
            lines.append(f"  ending: {f['termination'].replace('_', ' ')}, "
                         f"{f['rules_result']} by the rules at ply {f['verdict_ply']}: "
                         f"{f['termination_reason']}")
        elif f["status"] == "valid":
            lines.append(NO_RULES_ENDING)
        lines += [played_on_line(e[7], e[4], e[5], f["plies"]) for e in self.events or [] if e[6]]
        if f["status"] != "valid":
            lines.append(f"  invalid: {f['error']}")
        return lines

    def move_lines(self) -> list[str]:
        """The moves numbered as on a score sheet, one line per move number."""
        first_black = self.fields["start_fen"].split()[1:2] == ["b"]
        notes = episode_notes(tuple(e[:7]) for e in self.events or [])
        return numbered_moves([str(m) for m in self.moves], first_black, notes)

    def render(self, color: bool = False) -> str:
        """The game as ``xqdb show`` prints it; with ``color``, for a terminal, the
        board's colour codes among the record's text made :func:`visible` (it is written
        past the terminal's guard, which would show the board's codes as escapes too)."""
        lines = [visible(line) for line in self.header()] if color else self.header()
        if self.position is None:
            return "\n".join(lines + ["", "no board: the start position cannot be set up"])
        lines += ["", f"after ply {self.ply} of {len(self.moves)}, "
                      f"{'Red' if self.position.turn == RED else 'Black'} to move:",
                  board_text(self.position, color=color, last=self.last), ""]
        lines += self.move_lines()
        if self.analysed:
            lines.append("  (evaluations after each move from Red's side; ?! inaccuracy, "
                         "? mistake, ?? blunder, or a mate allowed or missed)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render(color=False)


def _format_score(score_cp: int | None, mate: int | None, side: str) -> str | None:
    """An evaluation of the side to move, turned to Red's view."""
    sign = 1 if side == "red" else -1
    if mate is not None:
        return f"#{mate * sign}"
    if score_cp is None:
        return None
    return f"{score_cp * sign / 100:+.2f}"


def _analysis(con: Connection, game_id: int
              ) -> tuple[dict[int, str], dict[int, str]]:
    """Per ply: the evaluation after the move, and the analysis's class of the move."""
    scores: dict[int, str] = {}
    judged: dict[int, str] = {}
    for ply, cp_after, mate_after, side, judgement in judged_moves_of(con, game_id):
        text = _format_score(cp_after, mate_after, "black" if side == "red" else "red")
        if text is not None:
            scores[ply] = text
        if judgement is not None:
            judged[ply] = judgement
    return scores, judged


def load_game(con: Connection, game_id: int, ply: int | None = None,
              notation: str = "chinese") -> GameView:
    """The game ``game_id`` of the database, its board after ``ply`` plies (default: its
    last position) and its moves in ``notation`` (a name of
    :data:`xqdb.notation.WRITTEN_NOTATIONS`).

    Raises :class:`GameNotFound` and :class:`PlyOutOfRange`.
    """
    fields = game_fields(con, game_id)
    if fields is None:
        span = game_span(con)
        have = f"games are {span[0]} to {span[1]}" if span[0] is not None else \
            "it holds no game"
        raise GameNotFound(f"no game {game_id} in this database ({have})")
    codes = game_moves(con, game_id)
    if ply is None:
        ply = len(codes)
    if not 0 <= ply <= len(codes):
        raise PlyOutOfRange(f"game {game_id} has {len(codes)} plies: --ply takes 0 to "
                            f"{len(codes)}")
    tags = {k: str(v) for k, v in json.loads(fields["tags"] or "{}").items() if str(v).strip()}
    try:
        pos = Position.from_fen(fields["start_fen"] or STARTING_FEN)
    except FenError:
        # Stored as an invalid game (its error says why): there is no board to show.
        return GameView(game_id, fields, tags, [], 0, None)
    scores, judged = _analysis(con, game_id)
    shown, last = pos.copy(), None
    moves = []
    for number, code in enumerate(codes, 1):
        move = Move.from_code(code)
        side = "red" if pos.turn == RED else "black"
        moves.append(PlyView(number, side, pos.move_text(move, notation),
                             scores.get(number), judged.get(number)))
        pos.push(move)
        if number == ply:
            shown, last = pos.copy(), move
    events = [tuple(r) for r in con.execute(
        "SELECT verdict_ply, kind, side, verdict, first_ply, last_ply, played_on, reason"
        " FROM rule_events WHERE game_id = ? ORDER BY verdict_ply, first_ply",
        [game_id]).fetchall()]
    return GameView(game_id, fields, tags, moves, ply, shown, last,
                    analysed=bool(scores or judged), events=events)


__all__ = ["GameView", "GameNotFound", "PlyOutOfRange", "PlyView", "board_text",
           "load_game", "piece_char", "svg_board"]
