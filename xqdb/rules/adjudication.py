"""How a game ends under the rules: mate, stalemate, repetition verdicts and the move limit.

An :class:`Adjudicator` follows a game ply by ply. After each ``pos.push(move)`` the caller
passes the position to :meth:`Adjudicator.update`, which returns ``None`` or the
:class:`Ending` reached by that move. The common ply costs a dictionary lookup and a
legal-move probe; the walk over a repetition cycle runs only when a position occurs for
the third time. :func:`adjudicate` is the same over a FEN and a move list.

>>> adjudicate("3k5/9/9/9/9/9/9/9/9/R3K4 w", ["a0d0"])
Ending(name=<Termination.CHECKMATE: 'checkmate'>, result='1-0', ply=1, offender=None, chase=False, move_limit=120)
>>> print(adjudicate("R2k5/9/9/9/9/9/9/9/9/5K3 b", ["d9d8", "a9a8", "d8d9", "a8a9"] * 2).name)
perpetual_check

The endings, by name:

``checkmate``, ``stalemate``
    The side to move has no legal move; in check or not, it has lost (困毙 is a loss).
``perpetual_check``
    A position occurs for the third time and one side gave check with every one of its
    moves since the first occurrence: that side loses. Both sides checking is a draw.
``perpetual_chase``
    No perpetual check, and one side chased the same enemy piece with every one of its
    moves in the cycle: that side loses (``chase`` is set so reports can tell it apart).
    Both sides chasing is a draw.
``repetition``
    Third occurrence with no forbidden action: a draw.
``move_limit``
    ``move_limit`` plies (120 = 60 moves by default, 100 for comparison with
    Fairy-Stockfish) without a capture: a draw. As in the AXF rule, only a side's first
    :data:`COUNTED_CHECKS` checks since the last capture count: each further check by the
    side that checked most leaves a move (two plies) out of the count. The limit applied
    is kept in every ending.

Every ending carries its :attr:`Ending.reason`, in words a user can check on the board.

The first ending and the record's end. :func:`adjudicate`, :func:`judge_history` and an
:class:`Adjudicator` give the *first* ending the rules meet. Real games are played past
such moments, so :func:`episodes` keeps everything the rules said over a game (each
:class:`Episode`: its plies, kind, side at fault, verdict and reason) and
:func:`record_end` picks the one that ends the record, if any: mate or stalemate on the
final position; a repetition, perpetual check or chase whose cycle ends the record, or
ends it within :data:`END_SLACK` plies (the arbiter's ruling or a claim, with the move or
two the score sheet holds meanwhile), unless the side at fault moved again after it; the
move limit when the record ends at or after it; otherwise none (resignation, agreement,
time, an unfinished record).

Forced, must change, or claimed (:func:`settling`). The rules text (``第4條 勝、負、和``)
lists the losses and the draws in different terms:

* ``checkmate`` and ``stalemate`` are **forced**: "4.1.1 帥(將)被對方「將死」" and
  "4.1.3 被「困斃」" are losses; no legal move is left, so nothing can be played past them.
* ``perpetual_check`` and ``perpetual_chase`` **oblige the side at fault to change**: the
  loss is "4.1.7 走棋違反禁例，應變著而不變" -- breaking a prohibition and *not changing
  when it must*. The third occurrence is the moment the side at fault must vary; a record
  in which it then varies goes on, and the episode was played on. Only a cycle that ends
  the record (the offender made no other move) is the loss. By both sides it is a draw,
  as a repetition.
* ``repetition`` and ``move_limit`` are **claimed**: a repetition with no side at fault
  is a draw "4.2.3 雙方走棋出現循環反復三次，符合「棋例」中「不變作和」的有關規定", and the
  summary adds the condition "又均不願意變著時" (when neither wants to vary): the players
  may go on. The move limit "4.2.4 符合自然限著的回合規定" is claimed too: a claim found
  untrue is a foul, "9.1.4 提出自然限著和棋，經審核不屬實". Pyffish agrees in its API:
  ``is_optional_game_end`` (an ending a player may claim) covers repetitions and the move
  limit, perpetual verdicts included, and never mate, which its move generator tells
  (``rules-and-engines.md`` §2.1).

Chasing follows the Asian Xiangqi Federation rule in the simplified form the engines use.
A move *chases* an enemy piece when, after it, one of the mover's horses, chariots,
cannons, elephants or advisors threatens that piece and did not threaten it just before
the move: the attack is new (the attacker moved, or a line opened for it), or it was
there but the victim had a protector that could take back, and the move pinned that
protector. An attack is a threat when:

* the victim is a chariot and the attacker is not, protected or not; or
* the victim is any other piece except the king and a pawn still on its own side of the
  river, it has no real protector (no legal recapture after the capture), and it cannot
  capture its attacker itself (an exchange offer is not a chase).

Pinned pieces neither attack nor protect, except that a side in check is taken to attack
whatever its pieces attack (check does not make an enemy piece safe), and a protector
held only by the check the move gave is not taken as pinned by it. A move that gives check
may chase as well. The cycle is the moves from the first occurrence of the repeated
position to the third; the side that moved last must also have chased with the move that
first reached that position, when the record holds it. Over the 12,913 games of the
project's test data (1,125 coordinate master games and the CCPD collection), all 1,142
repetition verdicts and all move-limit verdicts agree with pyffish's.

Simplifications, on purpose: the king and pawns never chase (AXF allows them to); a side
must chase one and the same piece through the whole cycle, so "one check, one chase"
against different pieces and chasing two pieces in turn are plain repetitions; a piece
that loses its protection under an attack that was already there, other than by a pin
(a protector's line blocked, a cannon's screen taken away), is not chased by that move,
although the AXF examples count it: Fairy-Stockfish does not either; sacrifices and
"idle" moves are not modelled. Verdicts on repetitions are the rules engine's opinion,
not an arbiter's: reports should say so.

Where Fairy-Stockfish (pyffish) judges otherwise, on purpose (the CCPD games pinned in
``tests/test_adjudication.py``):

* it lets a pinned piece chase: its chase test does not ask whether the attacker may
  legally take. An elephant whose capture would expose its own king does not chase here;
  and a king step that frees a pinned chariot makes that chariot's attack a new threat
  here, a chase already under way for pyffish (which then misses the cycle's first chase);
* it takes a piece as pinned by the facing kings whenever it is its side's only piece on
  the kings' file, even with enemy pieces between the kings as well: here a protector is
  pinned only when taking back really exposes its king;
* it lets a pawn chase through a pin: when a move pins the protector of a piece a pawn
  attacks, or makes the pawn's capture a discovered check, pyffish counts the pawn's
  threat as the mover's chase. Pawns never chase here.
"""


from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator, NamedTuple, Sequence

from .board import (
    ADVISOR, ADVISOR_STEPS, BLACK, CANNON, CHARIOT, COLOR_NAMES, ELEPHANT, ELEPHANT_STEPS,
    HORSE, HORSE_ATTACKS, KING, KING_STEPS, PAWN, PAWN_ATTACKS, PIECE_NAMES, RAYS, RED,
    SQUARE_NAMES, Move,
)
from ..errors import IllegalMoveError
from .outcome import Termination
from .position import BasePosition, attacked, ray_contacts

#: Every ending name, in the order they are checked.
ENDING_NAMES = tuple(Termination)

#: Plies without capture after which the game is drawn (Chinese rules: 60 moves).
DEFAULT_MOVE_LIMIT = 120

#: Checks by one side, since the last capture, that count towards the move limit (AXF).
COUNTED_CHECKS = 10

DRAW = "1/2-1/2"

#: Piece types that can chase (the king and pawns may attack freely).
_CHASERS = frozenset({ADVISOR, ELEPHANT, HORSE, CHARIOT, CANNON})


def _win_for(color: int) -> str:
    return "1-0" if color == RED else "0-1"


def _side(color: int) -> str:
    return COLOR_NAMES[color].capitalize()


@dataclass(frozen=True, slots=True)
class Ending:
    """How and when a game ended under the rules.

    >>> Ending(Termination.PERPETUAL_CHASE, "0-1", ply=8, offender=1, chase=True).loser
    1
    >>> cycle = ["a5a6", "i6i5", "a6a5", "i5i6"]
    >>> print(adjudicate("4k4/9/9/8c/R8/9/9/9/9/3K5 w", cycle * 2).reason)
    ... # doctest: +NORMALIZE_WHITESPACE
    perpetual chase by Red: the chariot on a5 chases the unprotected cannon on i5
    with every move from ply 1 to ply 7
    """

    name: Termination
    """One of :data:`ENDING_NAMES`."""
    result: str
    """``1-0``, ``0-1`` or ``1/2-1/2``."""
    ply: int
    """Plies played since the adjudication started when the ending was reached."""
    offender: int | None = None
    """For perpetual check or chase: the side (``RED``/``BLACK``) that broke the rule."""
    chase: bool = False
    """Whether the verdict rests on the perpetual-chase rule."""
    move_limit: int | None = DEFAULT_MOVE_LIMIT
    """The move limit (in plies) that was applied; ``None`` when none was."""
    reason: str = field(default="", compare=False, repr=False)
    """Why, in words a user can check on the board: who did what from which ply."""

    @property
    def loser(self) -> int | None:
        """The side that lost (``None`` for a draw)."""
        if self.result == "1-0":
            return BLACK
        if self.result == "0-1":
            return RED
        return None

    @property
    def is_draw(self) -> bool:
        return self.result == DRAW

    def __str__(self) -> str:
        """A line for reports.

        >>> print(Ending(Termination.PERPETUAL_CHASE, "0-1", ply=8, offender=RED, chase=True))
        perpetual chase by red, 0-1 at ply 8
        >>> print(Ending(Termination.MOVE_LIMIT, "1/2-1/2", ply=120))
        move limit (120 plies), 1/2-1/2 at ply 120
        """
        what = self.name.replace("_", " ")
        if self.offender is not None:
            what += f" by {COLOR_NAMES[self.offender]}"
        elif self.name == "move_limit":
            what += f" ({self.move_limit} plies)"
        return f"{what}, {self.result} at ply {self.ply}"


class Adjudicator:
    """Incremental adjudication of a game, fed one position per ply.

    >>> from xqdb.rules import Move
    >>> pos = BasePosition("4k4/9/9/9/9/9/9/9/9/3K5 w")
    >>> adj = Adjudicator(pos, move_limit=4)
    >>> endings = []
    >>> for text in ["d0d1", "e9e8", "d1d0", "e8e9"]:
    ...     pos.push(Move.from_uci(text))
    ...     endings.append(adj.update(pos))
    >>> endings[-1]
    Ending(name=<Termination.MOVE_LIMIT: 'move_limit'>, result='1/2-1/2', ply=4, offender=None, chase=False, move_limit=4)
    """

    __slots__ = ("move_limit", "ending", "_checks", "_seen")

    def __init__(self, pos: BasePosition, *, move_limit: int | None = DEFAULT_MOVE_LIMIT) -> None:
        self.move_limit = move_limit
        # Whether the side to move is in check, per position since the start.
        self._checks: list[bool] = [pos.is_check()]
        # Zobrist key -> plies where it occurred, for the positions since the last capture:
        # nothing before a capture can ever occur again.
        self._seen: dict[int, list[int]] = {pos.zobrist(): [0]}
        self.ending: Ending | None = self._no_move_ending(pos, 0)
        """The first ending reached, if any (a game over on its start position included)."""

    @property
    def ply(self) -> int:
        """Plies seen since the start position."""
        return len(self._checks) - 1

    def update(self, pos: BasePosition) -> Ending | None:
        """Account for the move just pushed on ``pos``; the ending it reaches, if any.

        Only the first ending of a game is returned; later plies give ``None`` (records
        often go on after a repetition) and :attr:`ending` keeps the first one.
        """
        key = pos.zobrist()
        ply = len(self._checks)
        self._checks.append(pos.is_check())
        if pos.last_capture():
            self._seen = {}
        seen = self._seen.get(key)
        if seen is None:
            self._seen[key] = [ply]
        else:
            seen.append(ply)
        if self.ending is not None:
            return None
        ending = self._no_move_ending(pos, ply)
        if ending is None and seen is not None and len(seen) >= 3:
            ending = self._repetition_ending(pos, seen[-3], ply)
        if ending is None and self.move_limit is not None:
            ending = _move_limit_ending(self._checks, ply, pos.halfmove_clock, self.move_limit)
        self.ending = ending
        return ending

    def _no_move_ending(self, pos: BasePosition, ply: int) -> Ending | None:
        return _no_move_ending(pos, ply, self.move_limit)

    def _repetition_ending(self, pos: BasePosition, first: int, ply: int) -> Ending:
        return _repetition_verdict(_Threats(pos, _window_start(first)), self._checks, first,
                                   ply, self.move_limit)


def judge_history(pos: BasePosition, checks: Sequence[bool], *,
                  move_limit: int | None = DEFAULT_MOVE_LIMIT) -> Ending | None:
    """The first ending of the game that led to ``pos``, judged after the fact.

    ``pos`` holds the game's moves in its history; ``checks[k]`` says whether the side to
    move was in check after ``k`` moves (``checks[0]`` is the start position). The verdict is
    the one an :class:`Adjudicator` fed ply by ply reaches, at a fraction of the cost: the
    scan only looks up Zobrist keys, and positions are rebuilt only for a repetition.

    >>> pos = BasePosition("4k4/9/9/9/9/9/9/9/9/3K5 w")
    >>> for text in ["d0d1", "e9e8", "d1d0", "e8e9"] * 2:
    ...     pos.push(Move.from_uci(text))
    >>> print(judge_history(pos, [False] * 9).name)
    repetition
    """
    history = pos.history()
    plies = len(history)
    history.append((pos.zobrist(), pos.halfmove_clock, 0))
    counts: dict[int, int] = {}
    since = 0  # the first position after the last capture: nothing earlier can recur
    captured_before = 0
    for ply, (key, clock, captured) in enumerate(history):
        if captured_before:
            counts = {}
            since = ply
        captured_before = captured
        count = counts.get(key, 0) + 1
        counts[key] = count
        if count == 3:
            first = [k for k in range(since, ply) if history[k][0] == key][-2]
            return _repetition_verdict(_Threats(pos, _window_start(first), ply), checks,
                                       first, ply, move_limit)
        if ply and move_limit is not None and clock >= move_limit:
            ending = _move_limit_ending(checks, ply, clock, move_limit)
            if ending is not None:
                return ending
    return _no_move_ending(pos, plies, move_limit)


#: Plies a record may go on after a repetition cycle that still ends it: the cycle is
#: ruled or claimed, and the score sheet often holds the move or two played meanwhile.
END_SLACK = 2

#: The endings that stand only when a player claims them or the arbiter rules them (see
#: the module docstring): the players may go on.
CLAIMED = frozenset({Termination.REPETITION, Termination.MOVE_LIMIT})
#: The endings that oblige the side at fault to change: the game is lost only if it does not.
MUST_CHANGE = frozenset({Termination.PERPETUAL_CHECK, Termination.PERPETUAL_CHASE})
#: The endings that end the game by themselves: no legal move is left.
FORCED = frozenset({Termination.CHECKMATE, Termination.STALEMATE})


def settling(kind: Termination) -> str:
    """How an ending of ``kind`` stands: ``forced`` (the game is over), ``must_change``
    (the side at fault must vary; it loses only if it does not) or ``claimed`` (a draw
    when claimed or agreed). A perpetual check or chase by both sides is a draw that
    stands as a repetition's: it is ``must_change`` all the same, for both.

    >>> settling(Termination.STALEMATE), settling(Termination.PERPETUAL_CHASE), settling(Termination.MOVE_LIMIT)
    ('forced', 'must_change', 'claimed')
    """
    if kind in FORCED:
        return "forced"
    return "must_change" if kind in MUST_CHANGE else "claimed"


@dataclass(frozen=True, slots=True)
class Episode:
    """What the rules said at one moment of a game: a repetition cycle, perpetual check or
    chase, the move limit, or mate, with the plies it spans and whether the game went on.

    >>> cycle = ["d9d8", "a9a8", "d8d9", "a8a9"]
    >>> on = ["d9d8", "a9a7", "d8d9", "a7a6"]
    >>> [str(e) for e in game_episodes("R2k5/9/9/9/9/9/9/9/9/5K3 b", cycle * 2 + on)]
    ['perpetual check by red, 0-1 at ply 8 (plies 1-9, played on)']
    """

    ending: Ending
    """The verdict the rules give, at :attr:`verdict_ply` (``ending.ply``)."""
    first_ply: int
    """The first ply of the episode: the cycle's first move, the first ply of the stretch
    without capture, the mating move."""
    last_ply: int
    """Its last ply: the last move of the last cycle of the same verdict, the last ply
    before the next capture, the mating move."""
    played_on: bool
    """Whether the record goes on past it (it does not end the record)."""

    @property
    def kind(self) -> Termination:
        return self.ending.name

    @property
    def verdict_ply(self) -> int:
        return self.ending.ply

    @property
    def side(self) -> str | None:
        """``red`` or ``black``: the side at fault; ``None`` when neither (or both) is."""
        offender = self.ending.offender
        return None if offender is None else COLOR_NAMES[offender]

    def __str__(self) -> str:
        span = f"plies {self.first_ply}-{self.last_ply}"
        return f"{self.ending} ({span}, {'played on' if self.played_on else 'the end'})"


def episodes(pos: BasePosition, checks: Sequence[bool], *,
             move_limit: int | None = DEFAULT_MOVE_LIMIT) -> list[Episode]:
    """Everything the rules said over the game that led to ``pos``, in order of verdict:
    every repetition cycle (cycles of one verdict that overlap are one episode), every
    stretch without capture that reaches the move limit, and mate or stalemate at the end.
    At most one episode ends the record (see :func:`record_end`); the others are
    ``played_on``.

    ``pos`` and ``checks`` are as for :func:`judge_history`, whose verdict is the first
    episode's (``adjudicate`` gives it too).
    """
    history = pos.history()
    plies = len(history)
    history.append((pos.zobrist(), pos.halfmove_clock, 0))
    seen: dict[int, list[int]] = {}
    cycles: list[tuple[int, int]] = []  # (first, ply): the position of ply seen 3 times
    # The move limit reached: (verdict, first ply without capture, last ply before a capture).
    limits: list[tuple[Ending, int, int]] = []
    limit_due = True
    for ply, (key, clock, _) in enumerate(history):
        if ply and history[ply - 1][2]:
            seen = {}
            limit_due = True
            if limits and limits[-1][2] < 0:
                limits[-1] = (*limits[-1][:2], ply - 1)
        occurred = seen.setdefault(key, [])
        occurred.append(ply)
        if len(occurred) >= 3:
            cycles.append((occurred[-3], ply))
        if ply and limit_due and move_limit is not None and clock >= move_limit:
            reached = _move_limit_ending(checks, ply, clock, move_limit)
            if reached is not None:
                limits.append((reached, ply - clock + 1, -1))
                limit_due = False
    if limits and limits[-1][2] < 0:
        limits[-1] = (*limits[-1][:2], plies)
    found: list[tuple[Ending, int, int]] = []
    if cycles:
        # Cycles overlap (a cycle ends at each ply of a long repetition): their moves'
        # threats are worked out once, over the stretch of game they all lie in.
        threats = _Threats(pos, min(_window_start(first) for first, _ in cycles),
                           max(ply for _, ply in cycles))
        found = [(_repetition_verdict(threats, checks, first, ply, move_limit), first + 1, ply)
                 for first, ply in cycles]
    merged: list[tuple[Ending, int, int]] = []
    for ending, first, last in found:
        if merged:
            head, start, end = merged[-1]
            if first <= end and (head.name, head.result, head.offender) == \
                    (ending.name, ending.result, ending.offender):
                merged[-1] = (head, start, max(end, last))
                continue
        merged.append((ending, first, last))
    merged += limits
    final = _no_move_ending(pos, plies, move_limit)
    if final is not None:
        merged.append((final, plies, plies))
    # As the first ending is judged: at one ply, a repetition before the move limit.
    merged.sort(key=lambda item: (item[0].ply, item[0].name == Termination.MOVE_LIMIT))
    ends = _end_of(merged, plies, -pos.turn)
    return [Episode(verdict, first, last, played_on=index != ends)
            for index, (verdict, first, last) in enumerate(merged)]


def _end_of(found: list[tuple[Ending, int, int]], plies: int, last_mover: int) -> int | None:
    """Which of ``found`` ends a record of ``plies`` plies, ``last_mover`` having made its
    last move: mate or stalemate on its final position; else the repetition cycle that
    ends it, or ends it within :data:`END_SLACK` plies, provided that the side at fault of
    a perpetual check or chase made no move after it (a move of its own after the cycle
    is the change the rules ask for); else the move limit reached and not undone by a
    capture; else none."""
    best: tuple[int, int] | None = None  # (rank, index)
    for index, (ending, _, last) in enumerate(found):
        if ending.name in FORCED:
            rank = 0
        elif ending.name == Termination.MOVE_LIMIT:
            rank = 2 if last == plies else -1
        elif last < plies - END_SLACK:
            rank = -1
        elif ending.offender is not None and any(
                (last_mover if (plies - k) % 2 == 0 else -last_mover) == ending.offender
                for k in range(last + 1, plies + 1)):
            rank = -1  # the side at fault changed
        else:
            rank = 1
        if rank >= 0 and (best is None or rank < best[0] or
                          (rank == best[0] and found[best[1]][2] <= found[index][2])):
            best = (rank, index)
    return None if best is None else best[1]


def record_end(found: Sequence[Episode]) -> Episode | None:
    """The episode that ends the record, if any (``None``: it ends otherwise, by
    resignation, agreement, time or unfinished).

    >>> moves = ["d0d1", "e9e8", "d1d0", "e8e9"] * 2
    >>> print(record_end(game_episodes("4k4/9/9/9/9/9/9/9/9/3K5 w", moves)).kind)
    repetition
    >>> print(record_end(game_episodes("4k4/9/9/9/9/9/9/9/9/3K5 w", moves + ["d0d1", "e9f9"])).kind)
    repetition
    >>> record_end(game_episodes("4k4/9/9/9/9/9/9/9/9/3K5 w",
    ...                          moves + ["d0d1", "e9f9", "d1d2", "f9f8"])) is None
    True
    """
    return next((e for e in found if not e.played_on), None)


def game_episodes(fen: str, moves: Iterable[str | Move], *,
                  move_limit: int | None = DEFAULT_MOVE_LIMIT) -> list[Episode]:
    """:func:`episodes` of the game of ``moves`` (``h2e2`` style or :class:`Move`) played
    from ``fen``; raises :class:`~xqdb.errors.IllegalMoveError` naming a bad move's ply."""
    checks = []
    for pos in _replayed(fen, moves):  # the start, then after each move
        checks.append(pos.is_check())
    return episodes(pos, checks, move_limit=move_limit)


def _replayed(fen: str, moves: Iterable[str | Move]) -> Iterator[BasePosition]:
    """The position of ``fen``, then the same object after each of ``moves`` (``h2e2``
    style or :class:`Move`); raises :class:`~xqdb.errors.IllegalMoveError` naming a bad
    move's ply."""
    pos = BasePosition.from_fen(fen)
    yield pos
    for ply, move in enumerate(moves, start=1):
        if isinstance(move, str):
            move = Move.from_uci(move)
        try:
            pos.push_legal(move)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"ply {ply}: {exc}") from None
        yield pos


def _no_move_ending(pos: BasePosition, ply: int, limit: int | None) -> Ending | None:
    """Checkmate or stalemate of the side to move in ``pos``, reached at ``ply``."""
    outcome = pos.outcome()
    if outcome is None:
        return None
    loser = _side(pos.turn)
    if outcome.termination == Termination.CHECKMATE:
        reason = f"checkmate: {loser} is in check and has no legal move"
    else:
        reason = f"stalemate: {loser} has no legal move, which loses even out of check"
    return Ending(outcome.termination, _win_for(-pos.turn), ply, move_limit=limit, reason=reason)


def _move_limit_ending(checks: Sequence[bool], ply: int, clock: int, limit: int
                       ) -> Ending | None:
    """The move-limit draw at ``ply`` after ``clock`` plies without a capture, if they reach
    ``limit`` once each check beyond a side's tenth is left out, a whole move for each."""
    if clock < limit:
        return None
    window = checks[max(ply - clock + 1, 1):ply + 1]
    # Every other position was reached by the same side: its checks are every other flag.
    most = max(sum(window[-1::-2]), sum(window[-2::-2]))
    beyond = max(most - COUNTED_CHECKS, 0)
    if clock - 2 * beyond < limit:
        return None
    reason = f"move limit: {clock} plies without a capture"
    if beyond:
        reason += (f", {clock - 2 * beyond} once the {beyond} checks beyond a side's"
                   f" {COUNTED_CHECKS}th are left out (a move each)")
    return Ending(Termination.MOVE_LIMIT, DRAW, ply, move_limit=limit, reason=f"{reason}: a draw")


def _repetition_verdict(threats: "_Threats", checks: Sequence[bool], first: int, ply: int,
                        limit: int | None) -> Ending:
    """The verdict on the cycle from position ``first`` to position ``ply`` (the same),
    ``threats`` covering its moves."""
    # Move k leads from position k-1 to k.
    last_mover = -threats.turn(ply)
    checked = {RED: True, BLACK: True}
    for k in range(first + 1, ply + 1):
        mover = last_mover if (ply - k) % 2 == 0 else -last_mover
        checked[mover] = checked[mover] and checks[k]
    if checked[RED] or checked[BLACK]:
        if checked[RED] and checked[BLACK]:
            return Ending(Termination.PERPETUAL_CHECK, DRAW, ply, move_limit=limit,
                          reason=f"perpetual check by both sides from ply {first + 1}: a draw")
        offender = RED if checked[RED] else BLACK
        start, end = _moves_of(offender, last_mover, first, ply, lead_in=False)
        return Ending(Termination.PERPETUAL_CHECK, _win_for(-offender), ply, offender=offender,
                      move_limit=limit,
                      reason=f"perpetual check by {_side(offender)}: {_side(offender)} gave"
                             f" check with every move from ply {start} to ply {end}")
    # The side that moved last must also have chased with the move that first made
    # the repeated position, when the history holds it (Fairy-Stockfish counts it).
    chases = threats.chases(first, ply)
    if chases:
        if len(chases) == 2:
            both = "; ".join(f"{_side(side)}'s {chase}" for side, chase in sorted(
                chases.items(), reverse=True))
            return Ending(Termination.PERPETUAL_CHASE, DRAW, ply, chase=True, move_limit=limit,
                          reason=f"perpetual chase by both sides from ply {first + 1}"
                                 f" ({both}): a draw")
        ((offender, chase),) = chases.items()
        start, end = _moves_of(offender, last_mover, first, ply, lead_in=first > 0)
        return Ending(Termination.PERPETUAL_CHASE, _win_for(-offender), ply, offender=offender,
                      chase=True, move_limit=limit,
                      reason=f"perpetual chase by {_side(offender)}: {chase}"
                             f" with every move from ply {start} to ply {end}")
    return Ending(Termination.REPETITION, DRAW, ply, move_limit=limit,
                  reason=f"repetition: the position of ply {first} occurred for the third"
                         f" time with no perpetual check or chase: a draw")


def _moves_of(side: int, last_mover: int, first: int, ply: int, *, lead_in: bool
              ) -> tuple[int, int]:
    """The first and last plies at which ``side`` moved in the cycle from position
    ``first`` to position ``ply``, the move that reached ``first`` included with
    ``lead_in`` when ``side`` made it."""
    if side == last_mover:
        return (first if lead_in else first + 2), ply
    return first + 1, ply - 1


def chasing_sides(pos: BasePosition, plies: int, *, lead_in: bool = False) -> set[int]:
    """The sides that chased one enemy piece with every move of the last ``plies`` plies.

    With ``lead_in``, the move before those plies counts too, for the side that made it.
    ``pos`` is not changed: the walk back and forth runs on a copy.

    >>> from xqdb.rules import Move
    >>> pos = BasePosition("4k4/9/9/8c/R8/9/9/9/9/3K5 w")
    >>> for text in ["a5a6", "i6i5", "a6a5", "i5i6"]:
    ...     pos.push(Move.from_uci(text))
    >>> chasing_sides(pos, 4) == {RED}
    True
    """
    first = len(pos.move_stack) - plies
    return set(_Threats(pos, _window_start(first, lead_in)).chases(
        first, len(pos.move_stack), lead_in=lead_in))


def _window_start(first: int, lead_in: bool | None = None) -> int:
    """The first position whose move a cycle from position ``first`` judges: with
    ``lead_in``, the move that made the repeated position counts too; by default it does
    when the history holds it (Fairy-Stockfish counts it)."""
    if lead_in is None:
        lead_in = first > 0
    return first - 1 if lead_in else first


class _Chase(NamedTuple):
    """One side's chase, as it stood after its last move of the cycle."""

    attacker: int
    victim: int
    attacker_kind: int
    victim_kind: int

    def __str__(self) -> str:
        unprotected = "" if self.victim_kind == CHARIOT != self.attacker_kind else "unprotected "
        return (f"the {PIECE_NAMES[self.attacker_kind]} on {SQUARE_NAMES[self.attacker]}"
                f" chases the {unprotected}{PIECE_NAMES[self.victim_kind]}"
                f" on {SQUARE_NAMES[self.victim]}")


class _Threats:
    """The new threats each move made, over the game that led to ``pos`` from position
    ``start`` to position ``until`` (by default ``pos`` itself), each worked out once, when
    a cycle first asks for it: a long repetition ends a cycle at every ply, and the cycles
    share their moves.

    A piece is followed through the moves by the square it stood on at ``start``, its
    *identity*.
    """

    def __init__(self, pos: BasePosition, start: int, until: int | None = None) -> None:
        work = pos.copy()
        self.start = start
        if until is not None:
            for _ in range(len(pos.move_stack) - until):
                work.pop()
        moves = [work.pop() for _ in range(len(work.move_stack) - start)][::-1]
        identity = {sq: sq for sq, piece in enumerate(work.board) if piece}
        # Per position from ``start``: the board, the side to move, whether it is in check
        # and the identity of each piece by its square.
        self.boards = [work.board[:]]
        self.turns = [work.turn]
        self.checks = [work.is_check()]
        self.identities = [identity]
        for move in moves:
            work.push(move)
            identity = dict(identity)
            identity[move.to_square] = identity.pop(move.from_square)
            self.boards.append(work.board[:])
            self.turns.append(work.turn)
            self.checks.append(work.is_check())
            self.identities.append(identity)
        self._made: dict[int, dict[int, _Chase]] = {}

    def turn(self, ply: int) -> int:
        """The side to move at position ``ply``."""
        return self.turns[ply - self.start]

    def chases(self, first: int, ply: int, *, lead_in: bool | None = None
               ) -> dict[int, _Chase]:
        """Per side that chased one enemy piece with every move of the cycle from
        position ``first`` to position ``ply`` (the move into ``first`` too with
        ``lead_in``, by default when there is one: see :func:`_window_start`), the piece
        it chased (the one that stood on the lowest square at the cycle's start) and one
        chaser."""
        begin = _window_start(first, lead_in) - self.start
        chased: dict[int, set[int] | None] = {RED: None, BLACK: None}
        # Per side, the threats of its last move, by the victim's identity.
        last: dict[int, dict[int, _Chase]] = {RED: {}, BLACK: {}}
        # Sides that already made a move chasing nothing: their other moves cannot
        # change that.
        failed: set[int] = set()
        for index in range(begin, ply - self.start):
            if len(failed) == 2:
                break  # neither side chases
            mover = self.turns[index]
            if mover in failed:
                continue
            new = self._new_threats(index)
            last[mover] = new
            so_far = chased[mover]
            now = set(new) if so_far is None else so_far & new.keys()
            chased[mover] = now
            if not now:
                failed.add(mover)
        where = {piece: sq for sq, piece in self.identities[begin].items()}
        return {side: last[side][min(pieces, key=where.__getitem__)]
                for side, pieces in chased.items() if pieces}

    def _new_threats(self, index: int) -> dict[int, _Chase]:
        """The threats the move from position ``start + index`` made that were not there
        before it, by the victim's identity."""
        made = self._made.get(index)
        if made is None:
            board, after = self.boards[index], self.boards[index + 1]
            mover = self.turns[index]
            identity, moved = self.identities[index], self.identities[index + 1]
            before = {(identity[a], identity[v]): _is_threat(board, a, v)
                      for a, v in _attacks(board, mover)}
            check = self.checks[index + 1]
            made = {moved[v]: _Chase(a, v, abs(after[a]), abs(after[v]))
                    for a, v in _attacks(after, mover)
                    if _is_new_threat(after, a, v, before.get((moved[a], moved[v])),
                                      check=check)}
            self._made[index] = made
        return made


def threatened(pos: BasePosition, side: int) -> set[int]:
    """Squares of the enemy pieces that ``side`` threatens in the chasing sense.

    See the module docstring for what counts. ``pos`` is left as it was.

    >>> sorted(threatened(BasePosition("4k4/9/9/8c/R8/9/9/9/9/3K5 w"), RED))
    []
    >>> threatened(BasePosition("4k4/9/9/R7c/9/9/9/9/9/3K5 w"), RED)
    {62}
    """
    board = pos.board[:]
    return {victim for attacker, victim in _attacks(board, side)
            if _is_threat(board, attacker, victim)}


# The chase analysis asks questions a position to move cannot answer (what could the side
# that just moved take?), so it works on a bare board with the public geometry tables.


def _attackers(board: list[int], sq: int, by: int) -> list[int]:
    """Squares of the pieces of colour ``by`` whose pattern reaches ``sq`` (no king safety)."""
    out = []
    for ray in RAYS[sq]:
        first, behind = ray_contacts(board, ray)
        if first >= 0 and board[first] == CHARIOT * by:
            out.append(first)
        if behind >= 0 and board[behind] == CANNON * by:
            out.append(behind)
    for leg, origin in HORSE_ATTACKS[sq]:
        if board[origin] == HORSE * by and not board[leg]:
            out.append(origin)
    for origin in PAWN_ATTACKS[by][sq]:
        if board[origin] == PAWN * by:
            out.append(origin)
    for origin in ADVISOR_STEPS[sq]:
        if board[origin] == ADVISOR * by and sq in ADVISOR_STEPS[origin]:
            out.append(origin)
    for eye, origin in ELEPHANT_STEPS[sq]:
        if board[origin] == ELEPHANT * by and not board[eye]:
            out.append(origin)
    for origin in KING_STEPS[sq]:
        if board[origin] == KING * by and sq in KING_STEPS[origin]:
            out.append(origin)
    return out


def _king_safe_after(board: list[int], origin: int, target: int) -> bool:
    """Whether the side of the piece on ``origin`` keeps its king safe taking on ``target``."""
    piece, captured = board[origin], board[target]
    color = RED if piece > 0 else BLACK
    board[target], board[origin] = piece, 0
    try:
        king = board.index(KING * color) if KING * color in board else None
        return king is None or not attacked(board, king, -color)
    finally:
        board[origin], board[target] = piece, captured


def _attacks(board: list[int], side: int) -> list[tuple[int, int]]:
    """``(attacker, victim)`` squares: the captures ``side`` could make of enemy pieces
    that can be chased, by pieces that can chase."""
    king = board.index(KING * side) if KING * side in board else None
    # A side in check still attacks what its pieces attack: check does not make an enemy
    # piece safe. Pins are then ignored.
    in_check = king is not None and attacked(board, king, -side)
    out = []
    for victim, piece in enumerate(board):
        kind = piece * -side
        if kind <= 0 or kind == KING or (kind == PAWN and not _crossed_river(victim, -side)):
            continue
        for attacker in _attackers(board, victim, side):
            if abs(board[attacker]) in _CHASERS and \
                    (in_check or _king_safe_after(board, attacker, victim)):
                out.append((attacker, victim))
    return out


def _is_new_threat(board: list[int], attacker: int, victim: int, before: bool | None, *,
                   check: bool) -> bool:
    """Whether the move just made turned the attack on ``victim`` into a threat: the attack
    is new (``before`` is ``None``), or the victim had a protector that could take back
    before the move and is pinned after it (``before`` is ``False``). ``check`` says whether
    the move gave check: a protector held by the check is not pinned."""
    if before or not _is_threat(board, attacker, victim):
        return False
    return before is None or (not check and _is_protected(board, attacker, victim, legal=False))


def _is_threat(board: list[int], attacker: int, victim: int) -> bool:
    """Whether the attack on ``victim`` is a real threat (see the module docstring)."""
    if abs(board[victim]) == CHARIOT and abs(board[attacker]) != CHARIOT:
        return True
    # An exchange offer: the victim may take its attacker first.
    if victim in _attackers(board, attacker, -_color(board[attacker])) and \
            _king_safe_after(board, victim, attacker):
        return False
    return not _is_protected(board, attacker, victim)


def _color(piece: int) -> int:
    return RED if piece > 0 else BLACK


def _is_protected(board: list[int], attacker: int, victim: int, *, legal: bool = True) -> bool:
    """Whether, after the capture, the victim's side can take back (legally, or with
    ``legal=False`` by the pattern of its pieces alone, pins ignored)."""
    piece, captured = board[attacker], board[victim]
    board[victim], board[attacker] = piece, 0
    try:
        return any(not legal or _king_safe_after(board, origin, victim)
                   for origin in _attackers(board, victim, _color(captured)))
    finally:
        board[attacker], board[victim] = piece, captured


def _crossed_river(sq: int, color: int) -> bool:
    rank = sq // 9
    return rank >= 5 if color == RED else rank <= 4


def adjudicate(fen: str, moves: Iterable[str | Move], *,
               move_limit: int | None = DEFAULT_MOVE_LIMIT) -> Ending | None:
    """The first ending reached when ``moves`` (``h2e2`` style or :class:`Move`) are
    played from ``fen``, or ``None`` when the game is still going.

    Raises :class:`~xqdb.errors.IllegalMoveError` naming the ply of a bad move.

    >>> print(adjudicate("4k4/9/9/9/9/9/9/9/9/3K5 w", ["d0d1", "e9e8", "d1d0", "e8e9"] * 2).name)
    repetition
    >>> adjudicate("4k4/9/9/9/9/9/9/9/9/3K5 w", ["d0d1", "e9e8", "d1d3"])
    Traceback (most recent call last):
    ...
    xqdb.errors.IllegalMoveError: ply 3: d1d3: the king on d1 cannot move to d3
    """
    positions = _replayed(fen, moves)
    adjudicator = Adjudicator(next(positions), move_limit=move_limit)
    for pos in positions:
        adjudicator.update(pos)
    return adjudicator.ending
