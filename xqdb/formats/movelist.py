"""Plain move lists: an optional FEN, then moves separated by spaces, commas or newlines,
or coordinates with no separator at all (``h2e2h7e7...``, ``77477062...``), and an
optional result.

Games in one file are separated by blank lines, or by a line starting with a FEN. The
notation is sniffed from the moves (coordinates, Chinese, WXF or DhtmlXQ digits).

A move list has no header, so the reader only claims a file on evidence that it holds a
game (:func:`sniff`, the last reader tried): the file starts with a FEN (ten ranks, as
:data:`_FEN` reads it, the side glued on or not), or its first move texts (up to
:data:`SNIFF_PLIES`, move numbers left out) replay as legal moves from the standard
start. Text that merely looks like moves (prose, whose characters sniff as Chinese
moves; numbers, which look like DhtmlXQ digits; binary junk) is not claimed, and a file
no reader claims is a source that is not a known format, not an invalid game.

A text of prose with games written as lines of bare digits (an article ending with its
game run together) gives one game per such line, the prose before it its first comment.
Bare digits are four a move, x then y: DhtmlXQ's orientation (y from Black's side,
``7747`` = 炮二平五) when the first moves replay in it, else y from Red's side
(``7242`` = h2e2), as some collections write them.

>>> import io
>>> from xqdb.formats.record import Origin
>>> data = b"9/3k5/4c4/4N4/9/6R2/9/5p3/4r4/5K3 w, g4g8 d8d9 e6c7, 1-0"
>>> rec = next(read(io.BytesIO(data), Origin("m.txt")))
>>> rec.fen, rec.moves, rec.result, rec.notation
('9/3k5/4c4/4N4/9/6R2/9/5p3/4r4/5K3 w', ['g4g8', 'd8d9', 'e6c7'], '1-0', 'uci')
>>> next(read(io.BytesIO(b"h2e2h7e7h0g2"), Origin("m.txt"))).moves
['h2e2', 'h7e7', 'h0g2']
"""

from __future__ import annotations

import codecs
import dataclasses
import re
from typing import BinaryIO, Iterator

from .encoding import decode, detect_encoding, head_text, text_stream
from ..errors import ErrorKind
from ..notation import reader_for, sniff_moves
from ..notation.tokens import SEPARATORS, iter_tokens, split_digits
from ..rules.position import BasePosition
from .record import GameRecord, Origin
from .tags import normalize_result

FORMAT = "movelist"

_HEAD = 4096
_CHUNK = 1 << 16
#: A FEN at the start of a line: the side to move spaced or glued to the board, and the
#: rest spaced or run together (``...RNBAKABNRw--01``, as some collections store it).
_FEN = re.compile(r"^\s*((?:[1-9kabnrcpehKABNRCPEH]{1,9}/){9}[1-9kabnrcpehKABNRCPEH]{1,9}"
                  r"(?:[wbr]--?\d+|[ \t]*[wbrWBR](?:[ \t]+[-\d]+){0,4})?)(?![^\s,，;；])")


#: How many first move texts must replay as legal moves for a file with no FEN to be
#: taken for a move list.
SNIFF_PLIES = 4
_SNIFF_CHARS = 400


def sniff(head: bytes, name: str) -> bool:
    """A FEN first, or first move texts that replay as legal moves (see the module's
    docstring), and nothing that looks like tags or markup.

    >>> sniff(b"h2e2 h9g7 h0g2", "a.txt"), sniff(b"Read me first. Then play.", "a.txt")
    (True, False)
    """
    text = head_text(head).lstrip("\ufeff")
    if not text.strip() or "[" in text[:200] or "<" in text[:200]:
        return False
    if _FEN.match(text) is not None:
        return True
    cut = text[:_SNIFF_CHARS]
    if len(text) > len(cut):
        # The last token may be cut short: drop it, or keep whole moves of a run.
        kept = cut.rstrip()
        last = SEPARATORS.split(kept)[-1]
        cut = kept[:len(kept) - len(last)] if len(last) < len(kept) else kept[:len(kept) // 4 * 4]
    return opens_legally(first_moves(cut, SNIFF_PLIES)) or _digit_lines(head_text(head)) != []


def _digit_lines(text: str) -> list[int]:
    """The lines (0-based) of ``text`` that are a game in bare digits whose first moves
    replay legally: a text that ends with a game written so, after prose."""
    found = []
    for number, line in enumerate(text.splitlines()):
        bare = "".join(line.split())
        if len(bare) >= 8 and split_digits(bare) is not None and \
                opens_legally(first_moves(bare[:SNIFF_PLIES * 4], SNIFF_PLIES)):
            found.append(number)
    return found


def first_moves(text: str, limit: int) -> list[str]:
    """The first ``limit`` move texts of a move list (digits oriented), for sniffing.

    >>> first_moves("1. h2e2 h9g7 2. h0g2", 2), first_moves("7242 7967", 2)
    (['h2e2', 'h9g7'], ['h2e2', 'h9g7'])
    """
    return _oriented(_move_texts(text, limit)[0][:limit], None)


def opens_legally(moves: list[str], fen: str | None = None) -> bool:
    """Whether the first :data:`SNIFF_PLIES` of ``moves`` replay as legal moves.

    >>> opens_legally(["h2e2", "h9g7"]), opens_legally(["2004"]), opens_legally(["一、单兵"])
    (True, False, False)
    """
    if not moves:
        return False
    try:
        pos = BasePosition(fen) if fen else BasePosition()
    except ValueError:
        return False
    read = reader_for(sniff_moves(moves[:SNIFF_PLIES]))
    for text in moves[:SNIFF_PLIES]:
        try:
            move, _ = read(pos, text)
        except ValueError:  # every move error is one
            return False
        if not pos.is_legal(move):
            return False
        pos.push(move)
    return True


def read(stream: BinaryIO, origin: Origin, encoding: str | None = None) -> Iterator[GameRecord]:
    """Yield the games of a move-list file (usually one), one game in memory at a time."""
    head = stream.read(_HEAD)
    file_encoding = encoding or detect_encoding(head)
    if head.startswith(codecs.BOM_UTF8):
        head = head[3:]
    lines = _lines(stream, head, file_encoding, fallback=encoding is None)
    text = head_text(head)
    if _FEN.match(text) is None and not opens_legally(first_moves(text[:_SNIFF_CHARS],
                                                                  SNIFF_PLIES)):
        digits = _digit_lines(text)
        if digits:
            yield from _article_games(list(lines), origin)
            return
    for index, (chunk, line, used) in enumerate(_games(lines)):
        where = dataclasses.replace(origin, index=index, line=line)
        yield parse_game(chunk, where, used)


def _article_games(lines: list[tuple[str, str]], origin: Origin) -> Iterator[GameRecord]:
    """The games of a text whose games are lines of bare digits among prose: one record
    per such line, the prose before it (since the game before) its opening comment."""
    texts = [line for line, _ in lines]
    prose_start, index = 0, 0
    for number in _digit_lines("\n".join(texts)):
        where = dataclasses.replace(origin, index=index, line=number + 1)
        record = parse_game("".join(texts[number].split()), where, lines[number][1])
        prose = "\n".join(t.strip() for t in texts[prose_start:number] if t.strip())
        if prose:
            record.mainline.comments[0] = prose
        record.raw = "\n".join(texts[prose_start:number + 1])
        yield record
        prose_start, index = number + 1, index + 1


def _lines(stream: BinaryIO, head: bytes, encoding: str, fallback: bool
           ) -> Iterator[tuple[str, str]]:
    """Decoded lines with the encoding each chunk was decoded with."""
    if encoding.startswith("utf-16"):
        for line in text_stream(stream, head, encoding):
            yield line.lstrip("\ufeff"), encoding
        return
    pending = head
    while True:
        chunk = stream.read(_CHUNK)
        pending += chunk
        cut = pending.rfind(b"\n") + 1 if chunk else len(pending)
        if cut:
            text, used = decode(pending[:cut], encoding, fallback)
            for line in text.splitlines():
                yield line, used
            pending = pending[cut:]
        if not chunk:
            break


def _games(lines: Iterator[tuple[str, str]]) -> Iterator[tuple[str, int, str]]:
    """Split a file into games: at blank lines, or before a line starting with a FEN."""
    current: list[str] = []
    start, used = 1, ""
    for number, (line, encoding) in enumerate(lines, start=1):
        if not line.strip() or (current and _FEN.match(line)):
            if current:
                yield "\n".join(current), start, used
                current = []
            if not line.strip():
                continue
        if not current:
            start, used = number, encoding
        current.append(line)
    if current:
        yield "\n".join(current), start, used


def parse_game(text: str, origin: Origin, encoding: str | None = None) -> GameRecord:
    """Read one game of a move list."""
    record = GameRecord(origin=origin, format=FORMAT, encoding=encoding, raw=text)
    rest = text
    fen = _FEN.match(text)
    if fen is not None:
        record.fen = fen[1].strip()
        rest = text[fen.end():]
    moves, result = _move_texts(rest)
    record.mainline.moves.extend(moves)
    record.result = result
    record.mainline.moves[:] = moves = _oriented(moves, record.fen)
    record.notation = sniff_moves(moves)
    if not moves and record.fen is None:
        record.error = "no moves and no FEN found"
        record.error_kind = ErrorKind.NOT_A_GAME
    return record


def _move_texts(text: str, limit: int | None = None) -> tuple[list[str], str | None]:
    """The move texts of a move list (move numbers left out, runs split) up to its result,
    and that result; stops after ``limit`` moves when given."""
    moves: list[str] = []
    for token in iter_tokens(text):
        if limit is not None and len(moves) >= limit:
            break
        result = normalize_result(token)
        if result is not None:
            return moves, result
        moves.append(token)
    return moves, None


_FILES = "abcdefghi"


def _oriented(moves: list[str], fen: str | None) -> list[str]:
    """Bare digit moves as DhtmlXQ's when they replay so, else with y from Red's side
    (as coordinates); other moves as they are."""
    if sniff_moves(moves) != "dhtmlxq" or opens_legally(moves, fen):
        return moves
    from_red = [_red_side_digits(text) for text in moves]
    return from_red if opens_legally(from_red, fen) else moves


def _red_side_digits(text: str) -> str:
    """Four digits with y counted from Red's side as a coordinate move (``7242`` -> ``h2e2``)."""
    if len(text) != 4 or not text.isdigit():
        return text
    return f"{_FILES[int(text[0])]}{text[1]}{_FILES[int(text[2])]}{text[3]}"
