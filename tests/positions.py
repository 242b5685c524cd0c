"""A deterministic set of real positions for differential tests of the rules and notations.

Built from the files of the corpus in ``../shared/data``, never random: the same FENs
come back on every run and on every machine, so a failure names a position that can be
replayed by hand.

* ``opening``, ``middlegame``, ``endgame``: plies sampled from the 1,125 coordinate games
  of ``uci/liu-dahua-1125.pgn`` (early, middle and last plies of every game);
* ``check``: one in four of the positions met in those games where the side to move is
  in check;
* ``epd``: one in six of the endgame studies of ``endgames/*.EPD``.

The strides keep the set above 3,000 positions while the pyffish oracle (about 3 ms a
position) stays near ten seconds.

>>> _ = getfixture("shared_data")  # skipped when the corpus is absent
>>> kinds = positions_by_kind()
>>> sorted(kinds)
['check', 'endgame', 'epd', 'middlegame', 'opening']
>>> len(oracle_positions()) >= 3000
True
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from datafiles import SHARED_DATA
from xqdb import FenError, Move, Position

LIU_DAHUA = SHARED_DATA / "uci" / "liu-dahua-1125.pgn"
ENDGAMES = SHARED_DATA / "endgames"

#: Keep one position in check out of CHECK_STRIDE, one EPD study out of EPD_STRIDE.
CHECK_STRIDE = 4
EPD_STRIDE = 6

_COORDINATE_MOVE = re.compile(r"\b[a-i][0-9][a-i][0-9]\b")


def coordinate_games(path: Path = LIU_DAHUA) -> list[list[str]]:
    """The move lists (``h2e2`` style) of a coordinate PGN file, one list per game."""
    games: list[list[str]] = []
    moves: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            if moves:
                games.append(moves)
                moves = []
            continue
        moves.extend(_COORDINATE_MOVE.findall(line))
    if moves:
        games.append(moves)
    return games


def epd_lines() -> list[tuple[str, str, int]]:
    """``(fen, file name, 1-based line)`` for every position of ``endgames/*.EPD``.

    The names after ``;`` are in GBK and Big5 on the same line, so only the FEN part,
    which is ASCII, is decoded.
    """
    out = []
    for path in sorted(ENDGAMES.glob("*.EPD")):
        for number, raw in enumerate(path.read_bytes().splitlines(), start=1):
            fen = raw.split(b";", 1)[0].decode("ascii").strip()
            if fen:
                out.append((fen, path.name, number))
    return out


def _sample_plies(length: int) -> dict[int, str]:
    """Which plies (positions after that many moves) to keep from a game, and their kind.

    >>> _sample_plies(40)
    {8: 'opening', 16: 'opening', 20: 'middlegame', 40: 'endgame'}
    """
    return {min(8, length): "opening", min(16, length): "opening",
            length // 2: "middlegame", length: "endgame"}


@cache
def positions_by_kind() -> dict[str, tuple[str, ...]]:
    """The position set, grouped by where the positions come from (FENs, no duplicates)."""
    kinds: dict[str, list[str]] = {k: [] for k in ("opening", "middlegame", "endgame", "check", "epd")}
    seen: set[str] = set()

    def keep(kind: str, fen: str) -> None:
        if fen not in seen:
            seen.add(fen)
            kinds[kind].append(fen)

    checks = 0
    for moves in coordinate_games():
        picks = _sample_plies(len(moves))
        pos = Position()
        for ply in range(len(moves) + 1):
            if ply in picks:
                keep(picks[ply], pos.fen())
            if pos.is_check():
                # One check in four: checks come in runs, and the runs look alike.
                if checks % CHECK_STRIDE == 0:
                    keep("check", pos.fen())
                checks += 1
            if ply < len(moves):
                pos.push_legal(Move.from_uci(moves[ply]))
    for index, (fen, _, _) in enumerate(epd_lines()):
        if index % EPD_STRIDE:
            continue
        try:
            keep("epd", Position.from_fen(fen).fen())
        except FenError:
            continue  # two studies without a red king; test_oracle checks they are rejected
    return {kind: tuple(fens) for kind, fens in kinds.items()}


@cache
def oracle_positions() -> list[str]:
    """Every FEN of :func:`positions_by_kind`, in a fixed order (standard letters, 0-9 ranks)."""
    return [fen for fens in positions_by_kind().values() for fen in fens]
