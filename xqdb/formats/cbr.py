"""CBR records and CBL libraries (象棋桥 CCBridge), binary with UTF-16LE strings.

A CBR file holds one record starting with ``CCBridge Record``. A CBL library starts
with ``CCBridgeLibrary``, a library header, then CBR records one after another. The
header's record count is not to be trusted (it reads 128 for a 93-game library), so
records are found by their magic, and read one at a time from the stream.

Only version 2 records (the current one) are decoded; others come out as error
records. An entry with a title on an empty board is a section heading of the library,
not a game: no record comes of it, and the games after it carry its title in a
``Section`` tag. The move tree is stored depth-first: each node is ``flags, 0, from, to``
(squares numbered row by row from Black's top-left corner) where flag 1 ends a line,
flag 2 announces an alternative after the node's subtree and flag 4 a comment.

>>> import io
>>> from xqdb.formats.record import Origin
>>> rec = bytearray(2214 + 12)
>>> rec[:16] = RECORD_MAGIC
>>> rec[19] = 2
>>> rec[2112] = 1
>>> rec[2120:2210] = bytes(90)
>>> rec[2120 + 4], rec[2120 + 85] = 0x25, 0x15       # two kings: e9, e0
>>> rec[2214 + 4:2214 + 8] = bytes([1, 0, 85, 76])   # e0e1, ends the line
>>> [r.moves for r in read(io.BytesIO(bytes(rec)), Origin("a.cbr"))]
[['e0e1']]
"""

from __future__ import annotations

import dataclasses
from typing import BinaryIO, Iterator

from ..rules.board import (
    ADVISOR, BLACK, CANNON, CHARIOT, ELEPHANT, HORSE, KING, NUM_SQUARES, PAWN, RED,
)
from .binary_board import TreeBuilder, board_fen, result_from_code, side_of_first_move, uci
from ..errors import ErrorKind
from .record import GameRecord, Origin

FORMAT = "cbr"

RECORD_MAGIC = b"CCBridge Record\x00"
LIBRARY_MAGIC = b"CCBridgeLibrary\x00"

_CHUNK = 1 << 16
#: A record longer than this is cut (real ones fill one 4,096-byte slot).
MAX_RECORD = 1 << 22

#: (tag, offset, size in bytes) of the UTF-16LE text fields of a version-2 record.
TEXT_FIELDS: tuple[tuple[str, int, int], ...] = (
    ("Title", 180, 128), ("Event", 692, 64), ("Round", 756, 64), ("Group", 820, 32),
    ("Table", 852, 32), ("Date", 884, 64), ("Site", 948, 64), ("TimeControl", 1012, 64),
    ("Red", 1076, 64), ("RedTeam", 1140, 64), ("RedTime", 1204, 64), ("RedElo", 1268, 32),
    ("Black", 1300, 64), ("BlackTeam", 1364, 64), ("BlackTime", 1428, 64),
    ("BlackElo", 1492, 32), ("Referee", 1524, 64), ("Recorder", 1588, 64),
    ("Annotator", 1652, 64), ("Creator", 1780, 64),
)
_RESULT = 2076
_SIDE = 2112
_BOARD = 2120
_MOVES = 2214

#: Piece codes of the board: 0x11-0x17 Red, 0x21-0x27 Black (车马相仕帅炮兵).
_TYPES = (CHARIOT, HORSE, ELEPHANT, ADVISOR, KING, CANNON, PAWN)
PIECE_CODES: dict[int, int] = {
    **{0x11 + i: t * RED for i, t in enumerate(_TYPES)},
    **{0x21 + i: t * BLACK for i, t in enumerate(_TYPES)},
}

_END = 1
_HAS_SIBLING = 2
_HAS_COMMENT = 4


def sniff(head: bytes, name: str) -> bool:
    """Whether ``head`` starts a CBR record or a CBL library.

    >>> sniff(LIBRARY_MAGIC + bytes(8), "x.cbl"), sniff(b"<?xml", "x.cbf")
    (True, False)
    """
    return head.startswith(RECORD_MAGIC) or head.startswith(LIBRARY_MAGIC)


def read(stream: BinaryIO, origin: Origin, encoding: str | None = None) -> Iterator[GameRecord]:
    """Yield each record of a CBR file or a CBL library, one at a time."""
    head = stream.read(len(LIBRARY_MAGIC))
    if not sniff(head, origin.path):
        yield _fail(_empty(origin), head, "not a CBR record or CBL library: no 'CCBridge' magic")
        return
    count, index, section = 0, 0, None
    for count, (offset, data) in enumerate(split_records(stream, head), start=1):
        record = parse(data, dataclasses.replace(origin, index=index, offset=offset))
        if _is_heading(record):
            # A section heading of the library, not a game: it names the games after it.
            section = record.tags["Title"]
            continue
        if section is not None:
            record.tags.setdefault("Section", section)
        index += 1
        yield record
    if not count:
        # An empty library should not pass unnoticed.
        yield _fail(_empty(origin), head, "a CBL library without a single 'CCBridge Record'")


def _is_heading(record: GameRecord) -> bool:
    """Whether ``record`` is a library's section heading: a title on an empty board."""
    return (record.error_kind is ErrorKind.NOT_A_GAME and not record.moves
            and bool(record.tags.get("Title", "").strip()))


def _empty(origin: Origin) -> GameRecord:
    return GameRecord(origin=dataclasses.replace(origin, index=0, offset=0), format=FORMAT,
                      encoding="utf-16-le", notation="uci")


def split_records(stream: BinaryIO, head: bytes = b"",
                  max_record: int = MAX_RECORD) -> Iterator[tuple[int, bytes]]:
    """Cut a stream into ``(offset, bytes)`` records at each ``CCBridge Record`` magic.

    Only one record (plus a read chunk) is held at a time; a record is cut at
    ``max_record`` bytes, the rest up to the next magic skipped, so garbage without a
    magic cannot fill the memory. A library header before the first record is skipped.

    >>> import io
    >>> data = b"lib" + RECORD_MAGIC + b"a" + RECORD_MAGIC + b"bc"
    >>> [(o, len(r)) for o, r in split_records(io.BytesIO(data))]
    [(3, 17), (20, 18)]
    """
    magic = RECORD_MAGIC
    buffer = bytearray(head)
    base = 0  # file offset of buffer[0]
    start: int | None = None  # where the current record starts in buffer
    cut: tuple[int, bytes] | None = None  # the current record, once cut at max_record
    scanned = 0  # no magic starts in buffer before this
    eof = False
    while True:
        found = buffer.find(magic, scanned if start is None else max(scanned, start + 1))
        if found >= 0:
            if cut is not None:
                yield cut
                cut = None
            elif start is not None:
                yield base + start, bytes(buffer[start:found])
            start = scanned = found
            continue
        if eof:
            break
        scanned = max(0, len(buffer) - len(magic) + 1)
        if start is not None and len(buffer) - start > max_record:
            cut = (base + start, bytes(buffer[start:start + max_record]))
            start = None
        # Keep the current record, or else only what may hold the start of a magic.
        keep_from = scanned if start is None else start
        del buffer[:keep_from]
        base += keep_from
        scanned -= keep_from
        if start is not None:
            start = 0
        chunk = stream.read(_CHUNK)
        eof = not chunk
        buffer += chunk
    if cut is not None:
        yield cut
    elif start is not None:
        yield base + start, bytes(buffer[start:])


def _text(data: bytes, offset: int, size: int) -> str:
    raw = data[offset:offset + size]
    end = 0
    while end + 1 < len(raw) and (raw[end] or raw[end + 1]):
        end += 2
    return raw[:end].decode("utf-16-le", errors="replace").strip()


def parse(data: bytes, origin: Origin) -> GameRecord:
    """Decode one CBR record's bytes; never raises for bad content."""
    # Every record keeps its own bytes, read or not: in a library they are all that is
    # stored of it (raw_records), the library itself being many records.
    record = GameRecord(origin=origin, format=FORMAT, encoding="utf-16-le", notation="uci",
                        raw=data)
    if len(data) < _MOVES + 4:
        return _fail(record, data, f"truncated CBR record: {len(data)} bytes, the header "
                                   f"and root move take {_MOVES + 4}")
    if data[19] != 2:
        return _fail(record, data, f"CBR version {data[19]} is not supported (only version 2)")
    for tag, offset, size in TEXT_FIELDS:
        value = _text(data, offset, size)
        if value:
            record.tags[tag] = value
    record.result = result_from_code(data[_RESULT])
    record.tags["Result"] = record.result
    board = [0] * NUM_SQUARES
    for i in range(90):
        code = data[_BOARD + i]
        if code:
            piece = PIECE_CODES.get(code)
            if piece is None:
                return _fail(record, data, f"unknown piece code 0x{code:02x} on the board "
                                           f"(byte {_BOARD + i})")
            board[_square(i)] = piece
    first_from, error = _read_tree(data, record)
    if not any(board):
        # Libraries use such records as section headings between the games.
        record.error_kind = ErrorKind.NOT_A_GAME
        return _fail(record, data, "no game: the board is empty"
                     + (f" (a heading titled {record.tags['Title']!r})" if "Title" in record.tags else ""))
    turn = side_of_first_move(board, first_from, BLACK if data[_SIDE] == 2 else RED)
    record.fen = board_fen(board, turn)
    if record.fen is not None:
        record.tags["FEN"] = record.fen
    if error is not None:
        return _fail(record, data, error)
    return record


def _square(index: int) -> int:
    """Square of a board index counted row by row from Black's top-left corner."""
    return (9 - index // 9) * 9 + index % 9


def _read_tree(data: bytes, record: GameRecord) -> tuple[int | None, str | None]:
    size = len(data)
    pos = _MOVES
    tree = TreeBuilder(record.mainline)
    first_from: int | None = None
    is_root = True
    while True:
        where = "the root node" if is_root else f"move node {tree.nodes + 1}"
        if pos + 4 > size:
            return first_from, (f"the move data ends before {where} "
                                f"(truncated after {tree.nodes} moves)")
        flags, src, dst = data[pos], data[pos + 2], data[pos + 3]
        pos += 4
        comment = ""
        if flags & _HAS_COMMENT:
            if pos + 4 > size:
                return first_from, f"the move data ends inside {where}'s comment length"
            length = int.from_bytes(data[pos:pos + 4], "little")
            pos += 4
            if pos + length > size:
                return first_from, (f"{where} has a comment of {length} bytes but "
                                    f"{size - pos} bytes remain")
            comment = _comment(data[pos:pos + length])
            pos += length
        if is_root:
            is_root = False
            if comment:
                record.mainline.comments[0] = comment
            if flags & _END:
                return None, None
            continue
        if src == dst:
            # An empty node closes the tree early (a root without the end flag and
            # without moves, as some writers leave it).
            if tree.nodes == 0:
                return None, None
            return first_from, f"{where} moves from {src} to itself"
        if src >= 90 or dst >= 90:
            return first_from, (f"{where} has a square out of the board "
                                f"(from {src}, to {dst}; squares are 0-89)")
        from_sq, to_sq = _square(src), _square(dst)
        if first_from is None:
            first_from = from_sq
        if not tree.add(uci(from_sq, to_sq), not flags & _END, bool(flags & _HAS_SIBLING), comment):
            return first_from, None


def _comment(raw: bytes) -> str:
    return raw.decode("utf-16-le", errors="replace").strip("\x00").replace("\r\n", "\n").strip()


def _fail(record: GameRecord, data: bytes, error: str) -> GameRecord:
    record.error = error
    record.raw = data
    return record
