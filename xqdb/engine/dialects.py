"""The three ways Xiangqi engines speak: how they write squares, greet and take options.

xqdb keeps one square model (ranks 0-9, Red at rank 0, see :mod:`xqdb.rules.board`) and
converts at the engine boundary:

``uci``
    UCI with ranks 0-9: Pikafish, and xqdb's own ``xqdb engine``.
``uci-variant``
    UCI with ranks 1-10 and ``setoption name UCI_Variant value xiangqi``: Fairy-Stockfish
    in its default protocol, and Debian's Sjaak II (``sjaakii``). Moves are 4 to 6
    characters (``h3e3``, ``b3b10``). Positions are sent with ``h``/``e`` for the horse
    and elephant: Sjaak II takes no other letters, Fairy-Stockfish takes both.
``ucci``
    UCCI: the ``ucci`` greeting, ranks 0-9, ``setoption NAME VALUE`` with option names
    written with underscores. Fairy-Stockfish speaks it after ``ucci``.

>>> from xqdb.rules import Move
>>> DIALECTS["uci-variant"].move_text(Move.from_uci("b2b9"))
'b3b10'
>>> DIALECTS["uci-variant"].parse_move("h10g8")
Move.from_uci('h9g7')
>>> DIALECTS["ucci"].setoption_line("Skill Level", "3")
'setoption Skill_Level 3'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from ..rules.board import FILE_NAMES, Move, square

_MOVE_TEXT: Final = re.compile(r"([a-i])(\d{1,2})([a-i])(\d{1,2})")


@dataclass(frozen=True)
class Dialect:
    """One engine protocol: greeting, square ranks and option syntax."""

    name: str
    greeting: str
    """The first command, and the engine answers with ``greeting + "ok"`` once it has listed
    its name and options."""
    first_rank: int
    """The number written for Red's back rank: 0 or 1."""
    variant: str | None = None
    """The ``UCI_Variant`` to select, for engines that play several games."""
    new_game: str | None = None
    """The command that makes the engine forget earlier searches (hash table, move
    histories), if the protocol has one."""
    fen_letters: str = ""
    """Piece letters to write otherwise in a FEN, as pairs (``"NHBEnhbe"``: N as H...)."""

    @property
    def greeting_ok(self) -> str:
        return self.greeting + "ok"

    def square_text(self, sq: int) -> str:
        return FILE_NAMES[sq % 9] + str(sq // 9 + self.first_rank)

    def fen_text(self, fen: str) -> str:
        """``fen`` with the piece letters this dialect's engines take.

        >>> UCI_VARIANT.fen_text("rnbakabnr/9/9/9/9/9/9/9/9/RNBAKABNR w - - 0 1")
        'rheakaehr/9/9/9/9/9/9/9/9/RHEAKAEHR w - - 0 1'
        """
        if not self.fen_letters:
            return fen
        board, _, rest = fen.partition(" ")
        table = str.maketrans(self.fen_letters[0::2], self.fen_letters[1::2])
        return board.translate(table) + (" " + rest if rest else "")

    def move_text(self, move: Move) -> str:
        """``move`` as this dialect writes it."""
        return self.square_text(move.from_square) + self.square_text(move.to_square)

    def parse_move(self, text: str) -> Move:
        """The move ``text`` names in this dialect; ``ValueError`` if it names none."""
        match = _MOVE_TEXT.fullmatch(text)
        if match is None:
            raise ValueError(f"{text!r} is not a {self.name} move")
        ff, fr, tf, tr = match.groups()
        from_rank, to_rank = int(fr) - self.first_rank, int(tr) - self.first_rank
        if not (0 <= from_rank <= 9 and 0 <= to_rank <= 9):
            raise ValueError(f"{text!r} has a rank outside {self.first_rank}-{self.first_rank + 9}")
        return Move.of(square(FILE_NAMES.index(ff), from_rank),
                       square(FILE_NAMES.index(tf), to_rank))

    def option_name(self, name: str) -> str:
        """``name`` as this dialect writes it (UCCI names have no spaces)."""
        return name.replace(" ", "_") if self.greeting == "ucci" else name

    def setoption_line(self, name: str, value: str) -> str:
        if self.greeting == "ucci":
            return f"setoption {self.option_name(name)} {value}".rstrip()
        return f"setoption name {name} value {value}".rstrip()

    def parse_option_line(self, line: str) -> tuple[str, str, list[str]] | None:
        """``(name, type, choices)`` of an ``option ...`` line, or ``None`` if it is not one."""
        tokens = line.split()
        if not tokens or tokens[0] != "option" or "type" not in tokens:
            return None
        at = tokens.index("type")
        words = tokens[1:at]
        if words and words[0] == "name":
            words = words[1:]
        kind = tokens[at + 1] if at + 1 < len(tokens) else ""
        choices = [tokens[i + 1] for i, t in enumerate(tokens[:-1]) if t == "var"]
        return " ".join(words), kind, choices


UCI: Final = Dialect("uci", "uci", 0, new_game="ucinewgame")
UCI_VARIANT: Final = Dialect("uci-variant", "uci", 1, variant="xiangqi", new_game="ucinewgame",
                             fen_letters="NHBEnhbe")
#: UCCI has no new-game command: engines offer a ``Clear Hash`` button instead.
UCCI: Final = Dialect("ucci", "ucci", 0)

#: The dialects by the name ``--protocol`` takes.
DIALECTS: Final = {d.name: d for d in (UCI, UCI_VARIANT, UCCI)}


def detect_dialect(engine_name: str, options: dict[str, list[str]]) -> Dialect:
    """The dialect of an engine that answered ``uci``, from its name and options.

    An engine offering ``UCI_Variant xiangqi`` plays many games and writes ranks 1-10
    (Fairy-Stockfish); any other writes Xiangqi squares with ranks 0-9 (Pikafish).

    >>> detect_dialect("Fairy-Stockfish 11.1 LB 64", {"UCI_Variant": ["chess", "xiangqi"]}).name
    'uci-variant'
    >>> detect_dialect("Pikafish 2026-01-02", {"UCI_ShowWDL": []}).name
    'uci'
    """
    if "xiangqi" in options.get("UCI_Variant", ()) or "fairy-stockfish" in engine_name.lower():
        return UCI_VARIANT
    return UCI


#: Engines that report a forced mate as centipawns: the start of their name, and the
#: score of a mate on the board (a mate in ``n`` plies is reported as that less ``n``).
MATE_CENTIPAWNS: Final = {"Sjaak": 16000}
#: Scores this close to an engine's mate score are mates.
_MATE_RANGE: Final = 1000


def mate_from_centipawns(engine_name: str, cp: int) -> int | None:
    """The mate in moves (> 0: the side to move mates) that ``cp`` stands for with an engine
    reporting mates as centipawns, else ``None``.

    >>> mate_from_centipawns("Sjaak II 1.4.1", 15999), mate_from_centipawns("Sjaak II", -15998)
    (1, -1)
    >>> mate_from_centipawns("Sjaak II", 420), mate_from_centipawns("Fairy-Stockfish", 15999)
    (None, None)
    """
    for prefix, mate in MATE_CENTIPAWNS.items():
        if engine_name.startswith(prefix) and mate - _MATE_RANGE < abs(cp) <= mate:
            plies = mate - abs(cp)
            moves = max(1, (plies + 1) // 2)
            return moves if cp > 0 else -moves
    return None
