"""DhtmlXQ blocks (the dpxq.com viewer format) in text files and HTML pages.

A block ``[DhtmlXQ]...[/DhtmlXQ]`` (or ``[DhtmlXQiFrame]``) holds tags
``[DhtmlXQ_name]value[/DhtmlXQ_name]``. Moves are 4 digits per ply (``7747`` = h2e2),
kept as written with ``notation="dhtmlxq"``. ``binit`` (32 pieces as x, y digit pairs)
becomes a FEN. Branches ``move_<parent>_<ply>_<id>`` fork from their parent at an
absolute ply.

A block is either one game with its variations, or a *collection*: a tree whose
branches are whole games (dpxq opening books collect a thousand master games that
share their first moves, each branch ending in a resignation or a draw). A block with
no known result and at least :data:`COLLECTION_BRANCHES` branches is a collection: each
root-to-leaf line is yielded as a record of its own, with the tag ``Branch`` naming the
branch. Otherwise the block is one record with its branches as variations.

>>> import io
>>> from xqdb.formats.record import Origin
>>> page = b"<p>[DhtmlXQ][DhtmlXQ_result]\\xe7\\xba\\xa2\\xe8\\x83\\x9c[/DhtmlXQ_result]" \\
...        b"[DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist][/DhtmlXQ]</p>"
>>> rec = next(read(io.BytesIO(page), Origin("p.html")))
>>> rec.moves, rec.notation, rec.result, rec.fen
(['7747', '7062'], 'dhtmlxq', '1-0', None)
"""

from __future__ import annotations

import dataclasses
import html
import re
from typing import BinaryIO, Iterator

from .encoding import ascii_view, decode, detect_encoding
from ..errors import ErrorKind
from ..rules.board import piece_symbol
from ..rules.position import is_standard_start, parse_fen
from .record import GameRecord, Line, Origin
from .tags import normalize_result

FORMAT = "dhtmlxq"

#: A block with no known result and this many branches is a collection of games.
COLLECTION_BRANCHES = 10

_HEAD = 4096
_CHUNK = 1 << 16
_BLOCK_END = re.compile(r"\[/DhtmlXQ(?:iFrame)?\]", re.I)
_BLOCK_START = re.compile(r"\[DhtmlXQ(?:iFrame)?\]", re.I)
# A value runs to its closing tag but never across another DhtmlXQ tag, so an unclosed
# tag costs a scan to the next tag, not to the end of the file.
_TAG = re.compile(r"\[DhtmlXQ_(\w+?)\]([^\[]*(?:\[(?!/?DhtmlXQ_)[^\[]*)*)\[/DhtmlXQ_\1\]")
_MOVE_OPEN = re.compile(r"\[DhtmlXQ_(movelist|move_\d+_\d+_\d+)\]", re.I)
_MOVE_TAG = re.compile(r"move_(\d+)_(\d+)_(\d+)")
_COMMENT_TAG = re.compile(r"comment(?:(\d+)_)?(\d+)")
_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_DIGITS = re.compile(r"[0-9]*")

#: Order of the 32 binit slots: Red R N B A K A B N R C C P P P P P, then Black.
_SLOTS = "RNBAKABNRCCPPPPP"

_TAG_NAMES = {
    "title": "Title", "event": "Event", "date": "Date", "place": "Site", "round": "Round",
    "table": "Table", "red": "Red", "redteam": "RedTeam", "redrating": "RedElo",
    "redtime": "RedTime", "black": "Black", "blackteam": "BlackTeam",
    "blackrating": "BlackElo", "blacktime": "BlackTime", "timerule": "TimeControl",
    "type": "Type", "endtype": "EndType", "remark": "Remark", "author": "Annotator",
    "owner": "Owner", "adddate": "AddDate", "editdate": "EditDate", "refer": "Refer",
    "generator": "Generator", "result": "Result",
}
_SKIPPED = frozenset(("ver", "init", "movelist", "binit", "fen", "pver"))
#: wxf.ca's English viewer writes Red's result as a letter.
_LETTER_RESULTS = {"W": "1-0", "L": "0-1", "D": "1/2-1/2"}


def sniff(head: bytes, name: str) -> bool:
    """Any ``[DhtmlXQ`` tag in the first bytes (or a name ending in ``.dhtmlxq``)."""
    return "[DhtmlXQ" in ascii_view(head) or name.lower().endswith(".dhtmlxq")


def read(stream: BinaryIO, origin: Origin, encoding: str | None = None) -> Iterator[GameRecord]:
    """Yield the games of every DhtmlXQ block in the stream, one block in memory at a time."""
    head = stream.read(_HEAD)
    file_encoding = encoding or detect_encoding(head)
    index = 0
    for block, line in _blocks(_text_chunks(stream, head, file_encoding, encoding is None)):
        where = dataclasses.replace(origin, index=index, line=line)
        for record in _guarded(parse_block(block, where, file_encoding), block, where):
            yield record
            index += 1
            where = dataclasses.replace(origin, index=index, line=line)


def _guarded(records: Iterator[GameRecord], block: str, origin: Origin
             ) -> Iterator[GameRecord]:
    """The records of one block; where reading it breaks down, what was read and then
    the block as one record with the error, so the blocks after it are still read."""
    try:
        yield from records
    except Exception as exc:  # a block this reader cannot make sense of: keep it raw
        yield GameRecord(origin=origin, format=FORMAT, notation="dhtmlxq", raw=block,
                         error=f"block could not be read: {type(exc).__name__}: {exc}")


def _text_chunks(stream: BinaryIO, head: bytes, encoding: str, fallback: bool
                 ) -> Iterator[str]:
    pending = head
    first = True
    while True:
        chunk = stream.read(_CHUNK)
        pending += chunk
        # Cut after a newline or a ']' so no multi-byte character is split.
        cut = len(pending) if not chunk else max(pending.rfind(b"\n"), pending.rfind(b"]")) + 1
        if cut:
            text, _ = decode(pending[:cut], encoding, fallback)
            if first:
                text = text.lstrip("\ufeff")
                first = False
            yield text
            pending = pending[cut:]
        if not chunk:
            break


def _blocks(chunks: Iterator[str]) -> Iterator[tuple[str, int]]:
    """Cut decoded text into blocks; yields ``(block, 1-based line of its start)``."""
    pending = ""
    line = 1
    for chunk in chunks:
        pending += chunk
        while True:
            end = _BLOCK_END.search(pending)
            if end is None:
                break
            block = pending[:end.end()]
            yield from _located(block, line)
            line += block.count("\n")
            pending = pending[end.end():]
    if "[DhtmlXQ_" in pending:
        yield from _located(pending, line)


def _located(block: str, line: int) -> Iterator[tuple[str, int]]:
    start = _BLOCK_START.search(block)
    if start is None:
        start = re.search(r"\[DhtmlXQ_", block)
    if start is None:
        return
    yield block[start.start():], line + block.count("\n", 0, start.start())


@dataclasses.dataclass(slots=True)
class _Branch:
    parent: int
    start: int
    """Absolute 1-based ply of the branch's first move."""
    moves: list[str]
    comments: dict[int, str] = dataclasses.field(default_factory=dict)
    """Comments by absolute ply (the comment after that ply's move)."""


def parse_block(block: str, origin: Origin, encoding: str | None = None,
                collection: bool | None = None) -> Iterator[GameRecord]:
    """The records of one block: one game, or one per line of a collection
    (``collection=None`` decides from the block, see the module doc)."""
    is_html = "<" in block and ">" in block
    values: dict[str, str] = {}
    branches: dict[int, _Branch] = {}
    comments: list[tuple[int, int, str]] = []
    errors: list[str] = []
    seen: set[str] = set()
    texts: dict[int, list[str]] = {}  # the tags read per branch, a collection line's raw
    for m in _TAG.finditer(block):
        name, value = m[1], _clean(m[2], is_html)
        lower = name.lower()
        seen.add(lower)
        move = _MOVE_TAG.fullmatch(lower)
        if move is not None:
            parent, ply, branch = int(move[1]), int(move[2]), int(move[3])
            moves, problem = _split_moves(value)
            if problem:
                errors.append(f"branch {branch}: {problem}")
            if branch == 0:
                values.setdefault("movelist", value)
                continue
            branches[branch] = _Branch(parent, ply, moves)
            texts.setdefault(branch, []).append(m[0])
            continue
        comment = _COMMENT_TAG.fullmatch(lower)
        if comment is not None:
            comments.append((int(comment[1] or 0), int(comment[2]), value.replace("||", "\n")))
            texts.setdefault(int(comment[1] or 0), []).append(m[0])
            continue
        values[lower] = value
    unclosed = sorted({name.lower() for name in _MOVE_OPEN.findall(block)} - seen)
    if unclosed:
        errors.append(f"{len(unclosed)} move tags are never closed (moves lost), the first "
                      f"[DhtmlXQ_{unclosed[0]}]")
    main_moves, problem = _split_moves(values.get("movelist", ""))
    if problem:
        errors.append(f"movelist: {problem}")
    branches[0] = _Branch(-1, 1, main_moves)
    for branch, ply, text in comments:
        if branch in branches and text.strip():
            branches[branch].comments[ply] = text.strip()
    template = GameRecord(origin=origin, format=FORMAT, encoding=encoding, notation="dhtmlxq",
                          raw=block)
    _fill_tags(template, values)
    try:
        template.fen = _start_fen(values, main_moves)
    except ValueError as exc:
        if not errors:
            template.error_kind = ErrorKind.BAD_FEN
        errors.append(str(exc))
    orphans = _orphans(branches)
    if orphans:
        errors.append(f"branches {orphans[:5]} fork from branches that do not exist")
        for b in orphans:
            del branches[b]
    beyond = _past_the_end(branches)
    if beyond:
        errors.append(f"branches {beyond[:5]} fork after the last move of the line they "
                      "branch from")
        for b in beyond:
            del branches[b]
        for b in _orphans(branches):  # what forked from them
            del branches[b]
    if errors:
        template.error = "; ".join(errors)
    if collection is None:
        collection = template.result in (None, "*") and len(branches) - 1 >= COLLECTION_BRANCHES
    if not collection or template.error:
        template.mainline = _tree(branches)
        yield template
        return
    for index, branch in enumerate(sorted(branches)):
        record = dataclasses.replace(template, origin=dataclasses.replace(origin, index=origin.index
                                                                           + index),
                                     tags=dict(template.tags), mainline=_path(branches, branch))
        if branch:
            record.tags["Branch"] = str(branch)
            # The block is kept once, by the main line; a branch keeps the tags it came from.
            record.raw = "\n".join(texts.get(branch, []))
        yield record


def _orphans(branches: dict[int, _Branch]) -> list[int]:
    """The branches that do not lead back to the main line (branch 0): those forking
    from a missing branch, from an orphan, or from each other in a cycle.

    >>> _orphans({0: _Branch(-1, 1, []), 1: _Branch(7, 2, []), 2: _Branch(1, 3, []),
    ...           3: _Branch(0, 2, [])})
    [1, 2]
    """
    rooted = {0}
    changed = True
    while changed:
        changed = False
        for b, br in branches.items():
            if b not in rooted and br.parent in rooted:
                rooted.add(b)
                changed = True
    return sorted(b for b in branches if b not in rooted)


def _clean(value: str, is_html: bool) -> str:
    if "\\u" in value:
        value = _UNICODE_ESCAPE.sub(lambda m: chr(int(m[1], 16)), value)
    if is_html and "&" in value:
        value = html.unescape(value)
    return value.strip()


def _split_moves(value: str) -> tuple[list[str], str | None]:
    digits = "".join(value.split())
    if _DIGITS.fullmatch(digits) is None:
        return [], f"moves {digits[:24]!r} are not 4-digit groups"
    if len(digits) % 4:
        return [digits[i:i + 4] for i in range(0, len(digits) - 3, 4)], \
            f"{len(digits)} digits is not a whole number of 4-digit moves"
    return [digits[i:i + 4] for i in range(0, len(digits), 4)], None


def _fill_tags(record: GameRecord, values: dict[str, str]) -> None:
    tags = record.tags
    for name, value in values.items():
        if name in _SKIPPED or not value:
            continue
        if name == "open":
            code = re.match(r"([A-E]\d\d)\s*(.*)", value)
            if code:
                tags["ECCO"] = code[1]
                if code[2]:
                    tags["Opening"] = code[2]
            else:
                tags["Opening"] = value
            continue
        tags[_TAG_NAMES.get(name, name)] = value
    raw_result = values.get("result")
    if raw_result:
        record.result = normalize_result(raw_result) or _LETTER_RESULTS.get(raw_result.upper())


def _start_fen(values: dict[str, str], moves: list[str]) -> str | None:
    fen = values.get("fen")
    if fen:
        return fen
    binit = "".join(values.get("binit", "").split())
    if not binit:
        return None
    if not binit.isdigit() or len(binit) != 64:
        raise ValueError(f"binit {binit[:24]!r} is not 32 digit pairs")
    return binit_fen(binit, moves[0] if moves else None)


def binit_fen(binit: str, first_move: str | None = None) -> str:
    """The FEN of a 64-digit ``binit``; the side to move is the owner of the piece on
    the first move's square (Red when there is none).

    >>> binit_fen("8979695949392919097717866646260600102030405060708012720323436383")
    'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1'
    """
    grid = [["" for _ in range(9)] for _ in range(10)]  # grid[y][x], y from Black's side
    for slot in range(32):
        x, y = int(binit[2 * slot]), int(binit[2 * slot + 1])
        if x > 8:
            continue  # 99: the piece is not on the board
        letter = _SLOTS[slot % 16]
        grid[y][x] = letter if slot < 16 else letter.lower()
    side = "w"
    if first_move is not None and len(first_move) == 4:
        piece = grid[int(first_move[1])][int(first_move[0])]
        if piece.islower():
            side = "b"
    rows = []
    for y in range(10):
        row, empty = "", 0
        for x in range(9):
            if grid[y][x]:
                row += (str(empty) if empty else "") + grid[y][x]
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + f" {side} - - 0 1"


def _past_the_end(branches: dict[int, _Branch]) -> list[int]:
    """The branches that fork at a ply the line they branch from does not reach: an
    alternative to a move that is not there (a damaged or cut move list).

    >>> _past_the_end({0: _Branch(-1, 1, ["7747"]), 1: _Branch(0, 1, ["1927"]),
    ...                2: _Branch(0, 2, ["7062"])})
    [2]
    """
    return sorted(b for b, br in branches.items() if b and br.parent in branches
                  and max(br.start - branches[br.parent].start, 0)
                  >= len(branches[br.parent].moves))


def _tree(branches: dict[int, _Branch]) -> Line:
    """One game: branch 0 is the main line, the others hang below their parents."""
    lines = {b: Line(moves=br.moves) for b, br in branches.items()}
    for b, br in branches.items():
        for ply, text in br.comments.items():
            lines[b].comments[ply - br.start + 1] = text
    for b in sorted(branches):
        br = branches[b]
        if b == 0:
            continue
        parent = branches[br.parent]
        lines[br.parent].variations.append((max(br.start - parent.start, 0), lines[b]))
    return lines[0]


def _path(branches: dict[int, _Branch], leaf: int) -> Line:
    """The whole line from the start to the end of branch ``leaf``: each branch on the
    way contributes its moves up to the ply where the next one forks."""
    chain = [leaf]
    while chain[-1] != 0:
        parent = branches[chain[-1]].parent
        if parent in chain:
            break  # a cycle in a broken file: stop rather than loop
        chain.append(parent)
    chain.reverse()
    line = Line()
    for b, following in zip(chain, chain[1:] + [None]):
        branch = branches[b]
        end = None if following is None else max(branches[following].start - branch.start, 0)
        take = branch.moves[:end]
        del line.moves[branch.start - 1:]
        line.moves.extend(take)
        for ply, text in branch.comments.items():
            if branch.start <= ply < branch.start + len(take) or (ply == 0 and b == 0):
                line.comments[ply] = text
    return line


# --- writing ------------------------------------------------------------------------------

#: DhtmlXQ tag names by the names records give the tags (the reader's table turned round).
_WRITTEN_NAMES = {tag: name for name, tag in _TAG_NAMES.items()}
_WRITABLE_NAME = re.compile(r"\w+")


def write(record: GameRecord) -> str:
    """One ``[DhtmlXQ]`` block of ``record`` (moves in ``dhtmlxq`` notation), which
    :func:`read` reads back as the same game, for pasting into a page with a viewer.

    Tags go under their DhtmlXQ names (``Site`` as ``place``, ``ECCO`` and ``Opening``
    together as ``open``); other tags under their own names, which the reader gives back
    in lower case. Empty tags are left out, as the reader leaves them. A set-up start
    position is written as ``binit`` (and as ``fen`` too when ``binit`` cannot say who
    moves first: no moves, Black to move). Comments and variations are written as
    ``comment`` and ``move_<parent>_<ply>_<id>`` tags. A block with no result and ten
    variations or more reads back as a collection of games (see the module doc).

    >>> import io
    >>> rec = GameRecord(Origin("g.txt"), FORMAT, tags={"Red": "A", "Site": "B"},
    ...                  notation="dhtmlxq", result="1-0")
    >>> rec.mainline.moves.extend(["7747", "7062"])
    >>> print(write(rec))
    [DhtmlXQ]
    [DhtmlXQ_red]A[/DhtmlXQ_red]
    [DhtmlXQ_place]B[/DhtmlXQ_place]
    [DhtmlXQ_result]1-0[/DhtmlXQ_result]
    [DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist]
    [/DhtmlXQ]
    >>> back = next(read(io.BytesIO(write(rec).encode()), Origin("g.txt")))
    >>> back.tags, back.moves, back.result
    ({'Red': 'A', 'Site': 'B', 'Result': '1-0'}, ['7747', '7062'], '1-0')
    """
    if record.notation != "dhtmlxq":
        raise ValueError(f"DhtmlXQ moves are 4 digits (notation 'dhtmlxq'), not "
                         f"{record.notation!r}")
    tags = {name: value for name, value in record.tags.items()
            if value and name not in ("FEN", "Format")}
    opening = " ".join(filter(None, (tags.pop("ECCO", ""), tags.pop("Opening", ""))))
    if opening:
        tags["Opening"] = opening
    if "Result" not in tags and record.result:
        tags["Result"] = record.result
    parts = ["[DhtmlXQ]"]
    for name, value in tags.items():
        key = "open" if name == "Opening" else _WRITTEN_NAMES.get(name, name.lower())
        if key in _SKIPPED or not _WRITABLE_NAME.fullmatch(key):
            continue
        parts.append(_value(key, " ".join(value.split("[/DhtmlXQ"))))
    fen = record.fen
    if fen is not None and not is_standard_start(fen):
        binit, side = _binit(fen)
        if binit is not None:
            parts.append(_value("binit", binit))
        if binit is None or side == "b" and not record.moves:
            parts.append(_value("fen", fen))
    parts.append(_value("movelist", "".join(record.moves)))
    parts.extend(_branch_tags(record.mainline))
    parts.append("[/DhtmlXQ]")
    return "\n".join(parts)


def _value(name: str, value: str) -> str:
    return f"[DhtmlXQ_{name}]{value}[/DhtmlXQ_{name}]"


def _binit(fen: str) -> tuple[str | None, str]:
    """``binit`` for ``fen`` (``None`` when its pieces do not fit the 32 slots) and the
    side to move."""
    board, turn, _, _ = parse_fen(fen)
    slots = ["99"] * 32
    for square, piece in enumerate(board):
        if not piece:
            continue
        letter = piece_symbol(piece).upper()
        base = 0 if piece > 0 else 16
        free = [i for i in range(16) if _SLOTS[i] == letter and slots[base + i] == "99"]
        if not free:
            return None, "w" if turn > 0 else "b"
        file, rank = square % 9, square // 9
        slots[base + free[0]] = f"{file}{9 - rank}"
    return "".join(slots), "w" if turn > 0 else "b"


def _branch_tags(main: Line) -> list[str]:
    """The comment tags of ``main`` and the move and comment tags of every variation below
    it, the variations numbered 1, 2, 3... as they are met."""
    parts = []
    number = 0
    # (line, its branch number, the absolute ply of its first move); an explicit stack,
    # since records nest variations deeper than Python's recursion limit.
    stack = [(main, 0, 1)]
    while stack:
        line, branch, start = stack.pop()
        prefix = f"comment{branch}_" if branch else "comment"
        for index, text in sorted(line.comments.items()):
            if text:
                parts.append(_value(f"{prefix}{start + index - 1}", text.replace("\n", "||")))
        # A parent's variations get rising numbers in their order, which the reader keeps.
        children = []
        for index, variation in line.variations:
            number += 1
            parts.append(_value(f"move_{branch}_{start + index}_{number}",
                                "".join(variation.moves)))
            children.append((variation, number, start + index))
        stack.extend(reversed(children))
    return parts
