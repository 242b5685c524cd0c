"""XQF (XQStudio, 象棋演播室): one game per file, a 1024-byte header then a move tree.

Versions 10 (XQF 1.0, plain) to 18 (encrypted) are read. From version 11 on the
header carries keys that shift the piece squares, the move squares and every byte
after the header; from version 12 on the 32 piece slots are also rotated (the files
decide this: version-12 games only come out legal with the rotation). Texts are GBK.

The header's side-to-move byte is often wrong; the colour of the piece on the first
move's origin square decides it.

>>> import io
>>> from xqdb.formats.record import Origin
>>> data = bytearray(1024 + 8 * 3)
>>> data[0:3] = b"XQ\\x0a"
>>> data[16:48] = bytes([80, 70, 60, 50, 40, 30, 20, 10, 0, 72, 12, 83, 63, 43, 23, 3,
...                      9, 19, 29, 39, 49, 59, 69, 79, 89, 17, 77, 6, 26, 46, 66, 86])
>>> data[1024:1032] = bytes([24, 32, 0xF0, 0, 0, 0, 0, 0])       # root: a move follows
>>> data[1032:1040] = bytes([72 + 24, 42 + 32, 0xF0, 0, 0, 0, 0, 0])  # h2e2
>>> data[1040:1048] = bytes([79 + 24, 67 + 32, 0, 0, 0, 0, 0, 0])     # h9g7
>>> rec = next(read(io.BytesIO(bytes(data)), Origin("a.xqf")))
>>> rec.moves, rec.fen, rec.notation
(['h2e2', 'h9g7'], None, 'uci')
"""

from __future__ import annotations

import codecs
import dataclasses
from typing import BinaryIO, Iterator

from ..rules.board import (
    ADVISOR, BLACK, CANNON, CHARIOT, ELEPHANT, HORSE, KING, NUM_SQUARES, PAWN, RED,
    square_name,
)
from .binary_board import TreeBuilder, board_fen, result_from_code, side_of_first_move, uci
from ..errors import ErrorKind
from .record import GameRecord, Origin

FORMAT = "xqf"

HEADER_SIZE = 1024
_MAGIC = b"XQ"

#: Piece of each of the 32 header slots: Red R N B A K A B N R C C P P P P P, then Black.
_SLOT_TYPES = (CHARIOT, HORSE, ELEPHANT, ADVISOR, KING, ADVISOR, ELEPHANT, HORSE, CHARIOT,
               CANNON, CANNON, PAWN, PAWN, PAWN, PAWN, PAWN)
SLOT_PIECES: tuple[int, ...] = tuple(t * RED for t in _SLOT_TYPES) + tuple(t * BLACK for t in _SLOT_TYPES)

#: (tag, offset, field size) of the length-prefixed GBK strings in the header.
HEADER_TEXTS: tuple[tuple[str, int, int], ...] = (
    ("Title", 0x50, 64), ("Event", 0xD0, 64), ("Date", 0x110, 16), ("Site", 0x120, 16),
    ("Red", 0x130, 16), ("Black", 0x140, 16), ("TimeControl", 0x150, 64),
    ("RedTime", 0x190, 16), ("BlackTime", 0x1A0, 16), ("Annotator", 0x1D0, 16),
    ("Creator", 0x1E0, 16),
)

_KEY_TEXT = b"[(C) Copyright Mr. Dong Shiwei.]"

#: Move-record tag bits of versions 11 and later.
_HAS_CHILD = 0x80
_HAS_SIBLING = 0x40
_HAS_COMMENT = 0x20


@dataclasses.dataclass(frozen=True, slots=True)
class Keys:
    """The decryption parameters a header gives (all zero for version 10)."""

    piece: int = 0
    src: int = 0
    dst: int = 0
    comment: int = 0
    stream: bytes = bytes(32)
    rotate: bool = False


def _square54(k: int) -> int:
    return (k * k * 54 + 221) & 0xFF


def header_keys(header: bytes) -> Keys:
    """The decryption parameters of an XQF header.

    >>> header_keys(b"XQ\\x0a" + bytes(1021)) == Keys()
    True
    """
    version = header[2]
    if version <= 10:
        return Keys()
    mask = header[3]
    piece = _square54(header[13]) * header[13] & 0xFF
    src = _square54(header[14]) * piece & 0xFF
    dst = _square54(header[15]) * src & 0xFF
    comment = (header[12] * 256 + header[13]) % 32000 + 767
    key = [(header[12 + i] & mask) | header[8 + i] for i in range(4)]
    stream = bytes(key[j % 4] & _KEY_TEXT[j] for j in range(32))
    return Keys(piece, src, dst, comment, stream, rotate=version >= 12)


def decrypt(data: bytes, keys: Keys) -> bytes:
    """Undo the byte stream cipher on everything after the header.

    The cipher's 32-byte period starts at the header's end (1024 is a multiple of 32).
    """
    if not any(keys.stream):
        return data[HEADER_SIZE:]
    stream = keys.stream
    body = data[HEADER_SIZE:]
    # Subtracting a repeating key is a per-column table lookup; bytes.translate does
    # each of the 32 columns at C speed.
    out = bytearray(body)
    for j in range(32):
        k = stream[j]
        if k:
            out[j::32] = body[j::32].translate(_SUBTRACT[k])
    return bytes(out)


#: _SUBTRACT[k] maps each byte b to (b - k) mod 256, as a bytes.translate table.
_SUBTRACT: tuple[bytes, ...] = tuple(bytes((b - k) & 0xFF for b in range(256)) for k in range(256))


def header_board(header: bytes, keys: Keys) -> tuple[list[int], str | None]:
    """The start board of a header, or an error message when two pieces share a point."""
    raw = header[16:48]
    squares = [0] * 32
    for i in range(32):
        value = (raw[i] - keys.piece) & 0xFF
        squares[(keys.piece + 1 + i) % 32 if keys.rotate else i] = value
    board = [0] * NUM_SQUARES
    for slot, value in enumerate(squares):
        if value >= 90:
            continue  # captured
        sq = (value % 10) * 9 + value // 10
        if board[sq]:
            return board, f"the header puts two pieces on one point ({square_name(sq)})"
        board[sq] = SLOT_PIECES[slot]
    return board, None


def _text(raw: bytes, encoding: str) -> str:
    # A name cut at the field's size can end in half a character: drop it.
    text = raw.decode(encoding, errors="replace").rstrip("\x00").rstrip("\ufffd")
    return text.replace("\r\n", "\n").strip()


def header_tags(header: bytes, encoding: str) -> dict[str, str]:
    """The PGN-style tags of the header's non-empty text fields."""
    tags: dict[str, str] = {}
    for tag, offset, size in HEADER_TEXTS:
        length = min(header[offset], size - 1)
        if length:
            value = _text(header[offset + 1:offset + 1 + length], encoding)
            if value:
                tags[tag] = value
    return tags


def sniff(head: bytes, name: str) -> bool:
    """Whether ``head`` starts an XQF file: ``XQ`` and a plausible version byte.

    >>> sniff(b"XQ\\x12" + bytes(10), "a.bin"), sniff(b"XQ is a word", "a.txt")
    (True, False)
    """
    return head[:2] == _MAGIC and (len(head) < 3 or 1 <= head[2] < 0x20)


def read(stream: BinaryIO, origin: Origin, encoding: str | None = None) -> Iterator[GameRecord]:
    """Yield the single game of an XQF stream (an error record if it cannot be read)."""
    data = stream.read()
    yield parse(data, dataclasses.replace(origin, index=0, offset=0), encoding)


def parse(data: bytes, origin: Origin, encoding: str | None = None) -> GameRecord:
    """Decode one XQF file's bytes into a record; never raises for bad content."""
    codec = encoding or "gb18030"
    # The record keeps its bytes whether it reads or not: they are what raw_records stores.
    record = GameRecord(origin=origin, format=FORMAT, encoding=codec, notation="uci", raw=data)
    try:
        codecs.lookup(codec)
    except LookupError:
        record.raw = data
        record.error = f"unknown text encoding {codec!r}"
        record.error_kind = ErrorKind.UNKNOWN_ENCODING
        return record
    if len(data) < HEADER_SIZE or data[:2] != _MAGIC:
        record.raw = data
        record.error = ("not an XQF file: it does not start with 'XQ'" if data[:2] != _MAGIC
                        else f"truncated XQF header: {len(data)} bytes, the header has {HEADER_SIZE}")
        return record
    header = data[:HEADER_SIZE]
    version = header[2]
    keys = header_keys(header)
    record.tags = header_tags(header, codec)
    record.result = result_from_code(header[51])
    record.tags["Result"] = record.result
    board, board_error = header_board(header, keys)
    first_from, error = _read_tree(decrypt(data, keys), version, keys, codec, record)
    turn = side_of_first_move(board, first_from, BLACK if header[50] == 1 else RED)
    record.fen = board_fen(board, turn)
    if record.fen is not None:
        record.tags["FEN"] = record.fen
    error = board_error or error
    if error is not None:
        record.error = error
        record.raw = data
    return record


def _read_tree(body: bytes, version: int, keys: Keys, codec: str,
               record: GameRecord) -> tuple[int | None, str | None]:
    """Read the move tree into ``record.mainline``.

    Returns the first main-line move's origin square (``None`` without moves) and an
    error message when the data is broken.
    """
    old = version <= 10
    size = len(body)
    src_shift = 24 + keys.src
    dst_shift = 32 + keys.dst
    tree = TreeBuilder(record.mainline)
    first_from: int | None = None
    pos = 0
    is_root = True
    while True:
        node = tree.nodes + 1  # 1-based node number for messages (the root is node 0)
        where = "the root record" if is_root else f"move node {node}"
        if pos + (8 if old else 4) > size:
            if is_root:
                return None, "no move data after the header (not even the root record)"
            return first_from, (f"the move data ends before {where} "
                                f"(truncated after {tree.nodes} moves)")
        src, dst, tag = body[pos], body[pos + 1], body[pos + 2]
        if old:
            has_child, has_sibling = bool(tag & 0xF0), bool(tag & 0x0F)
            length = int.from_bytes(body[pos + 4:pos + 8], "little", signed=True)
            pos += 8
        else:
            has_child, has_sibling = bool(tag & _HAS_CHILD), bool(tag & _HAS_SIBLING)
            pos += 4
            length = 0
            if tag & _HAS_COMMENT:
                if pos + 4 > size:
                    return first_from, f"the move data ends inside {where}'s comment length"
                length = int.from_bytes(body[pos:pos + 4], "little", signed=True) - keys.comment
                pos += 4
        if length < 0 or pos + length > size:
            return first_from, (f"{where} has a comment of {length} bytes but "
                                f"{size - pos} bytes remain")
        comment = _text(body[pos:pos + length], codec) if length else ""
        pos += length
        if is_root:
            is_root = False
            if comment:
                record.mainline.comments[0] = comment
            if not has_child:
                return None, None
            continue
        a = (src - src_shift) & 0xFF
        b = (dst - dst_shift) & 0xFF
        if a >= 90 or b >= 90:
            return first_from, (f"{where} has a square out of the board "
                                f"(from {a}, to {b}; squares are 0-89)")
        from_sq = (a % 10) * 9 + a // 10
        to_sq = (b % 10) * 9 + b // 10
        if first_from is None:
            first_from = from_sq
        if not tree.add(uci(from_sq, to_sq), has_child, has_sibling, comment):
            return first_from, None
