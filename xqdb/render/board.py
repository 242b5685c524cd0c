"""Boards for people: the position in Chinese characters for a terminal, and as an SVG image.

>>> from xqdb import Position
>>> board = board_text(Position(), color=False)
>>> print(board.splitlines()[1])
9 車 馬 象 士 将 士 象 馬 車
>>> print(board.splitlines()[-3])
0 车 马 相 仕 帅 仕 相 马 车
>>> svg_board(Position()).count('class="piece')
32
"""

from __future__ import annotations

from ..position import Position
from ..notation.chinese import SIMPLIFIED_PIECES, TRADITIONAL_PIECES
from ..rules.board import CANNON, CHARIOT, HORSE, RED, Move, PIECE_TYPES, piece_color
from .terminal import BOLD, RED as RED_STYLE, RESET, REVERSE

#: The characters of the pieces, by piece type, as the notation writes them: Red's and
#: Black's differ for king, advisor, elephant and pawn.
RED_CHARS = {ptype: SIMPLIFIED_PIECES[ptype][0] for ptype in PIECE_TYPES}
BLACK_CHARS = {ptype: SIMPLIFIED_PIECES[ptype][1] for ptype in PIECE_TYPES}
#: Black's characters on a board without colour: the traditional forms 馬 車 and 砲 for
#: the pieces whose character is otherwise the same for both sides, as printed books do.
PLAIN_BLACK_CHARS = {**BLACK_CHARS, HORSE: TRADITIONAL_PIECES[HORSE][1],
                     CHARIOT: TRADITIONAL_PIECES[CHARIOT][1], CANNON: "砲"}
#: An empty point: full width, so that every point of the board is two columns wide.
EMPTY = "＋"
def piece_char(piece: int, plain: bool = False) -> str:
    """The Chinese character of a signed piece code; ``plain`` (no colour to tell the
    sides apart) gives Black's horse, chariot and cannon their traditional forms.

    >>> piece_char(1), piece_char(-1), piece_char(-7), piece_char(-5), piece_char(-5, True)
    ('帅', '将', '卒', '车', '車')
    """
    chars = RED_CHARS if piece_color(piece) == RED else (
        PLAIN_BLACK_CHARS if plain else BLACK_CHARS)
    return chars[abs(piece)]


def _styled(text: str, red: bool, reverse: bool) -> str:
    """``text`` in bold, red or not, in reverse video or not (ANSI SGR codes, as terminals
    and ``click.style`` write them: :mod:`xqdb.render.terminal`)."""
    codes = (RED_STYLE if red else "") + BOLD + (REVERSE if reverse else "")
    return f"{codes}{text}{RESET}"


def board_text(pos: Position, color: bool = False, last: Move | None = None) -> str:
    """The board as text, Red at the bottom: ranks 9-0 at the left, files a-i below and
    the file numbers of Chinese notation (Black's 1-9 above, Red's 九-一 below).

    With ``color``, Red's pieces are red, Black's bold, and the piece that made ``last``
    is shown in reverse video; without, Black's horses, chariots and cannons are written
    馬 車 砲, so that the sides differ in plain text too.
    """
    lines = ["  " + " ".join("１２３４５６７８９")]
    for rank in range(9, -1, -1):
        cells = []
        for file in range(9):
            square = rank * 9 + file
            piece = pos.piece_at(square)
            if not piece:
                cells.append(EMPTY)
                continue
            text = piece_char(piece, plain=not color)
            if color:
                text = _styled(text, red=piece > 0,
                               reverse=last is not None and last.to_square == square)
            cells.append(text)
        lines.append(f"{rank} " + " ".join(cells))
        if rank == 5:
            lines.append("  " + "　  楚 河　　　　 汉 界　  ".rstrip())
    lines.append("  " + " ".join("九八七六五四三二一"))
    lines.append("  " + " ".join("ａｂｃｄｅｆｇｈｉ"))
    return "\n".join(lines)


# --- SVG ---------------------------------------------------------------------------------

_STEP = 50
_MARGIN = 40


def _point(file: int, rank: int) -> tuple[int, int]:
    """Pixel centre of a point; rank 9 (Black's back rank) at the top."""
    return _MARGIN + file * _STEP, _MARGIN + (9 - rank) * _STEP


def svg_board(pos: Position, last: Move | None = None, points: bool = False) -> str:
    """The board as a standalone SVG image: the lines, river and palaces, and one
    ``<g class="piece red|black">`` per piece (a disc with its character).

    With ``points``, every point of the board, empty or not, is a target to click: each
    piece's group carries ``data-square`` (0-89, a1 is 0, as :class:`Move` counts) and an
    invisible ``<circle class="point" data-square=...>`` lies over every point, above the
    pieces, so that a page can tell which point was clicked.

    >>> svg = svg_board(Position(), points=True)
    >>> svg.count('class="point"'), 'data-square="4"' in svg
    (90, True)
    """
    width, height = 2 * _MARGIN + 8 * _STEP, 2 * _MARGIN + 9 * _STEP
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="serif">',
           f'<rect width="{width}" height="{height}" fill="#f2d59b"/>',
           '<g stroke="#5a3b16" stroke-width="1.5">']
    for rank in range(10):
        (x1, y), (x2, _) = _point(0, rank), _point(8, rank)
        out.append(f'<line x1="{x1}" y1="{y}" x2="{x2}" y2="{y}"/>')
    for file in range(9):
        # The river cuts the inner files; the edge files run through.
        spans = [(0, 9)] if file in (0, 8) else [(0, 4), (5, 9)]
        for low, high in spans:
            (x, y1), (_, y2) = _point(file, low), _point(file, high)
            out.append(f'<line x1="{x}" y1="{y1}" x2="{x}" y2="{y2}"/>')
    for low in (0, 7):  # the palaces' diagonals
        for (f1, r1), (f2, r2) in (((3, low), (5, low + 2)), ((5, low), (3, low + 2))):
            (x1, y1), (x2, y2) = _point(f1, r1), _point(f2, r2)
            out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>')
    out.append("</g>")
    river_y = (_point(0, 5)[1] + _point(0, 4)[1]) // 2 + 9
    for file, word in ((2, "楚 河"), (6, "汉 界")):
        out.append(f'<text x="{_point(file, 0)[0]}" y="{river_y}" font-size="26" '
                   f'text-anchor="middle" fill="#5a3b16">{word}</text>')
    if last is not None:
        for square in (last.from_square, last.to_square):
            x, y = _point(square % 9, square // 9)
            out.append(f'<rect class="last-move" x="{x - 23}" y="{y - 23}" width="46" '
                       'height="46" fill="none" stroke="#2a7fff" stroke-width="2"/>')
    for square in range(90):
        piece = pos.piece_at(square)
        if not piece:
            continue
        x, y = _point(square % 9, square // 9)
        side, ink = ("red", "#c0180c") if piece > 0 else ("black", "#111")
        square_data = f' data-square="{square}"' if points else ""
        out.append(f'<g class="piece {side}"{square_data}><circle cx="{x}" cy="{y}" r="21" fill="#fbe9c4" '
                   f'stroke="{ink}" stroke-width="2"/><text x="{x}" y="{y + 8}" '
                   f'font-size="24" text-anchor="middle" fill="{ink}">{piece_char(piece)}'
                   "</text></g>")
    if points:
        for square in range(90):
            x, y = _point(square % 9, square // 9)
            out.append(f'<circle class="point" data-square="{square}" cx="{x}" cy="{y}" '
                       'r="24" fill="transparent"/>')
    out.append("</svg>")
    return "\n".join(out)
