"""CCBridge (象棋桥) libraries of about 2001: ``CCBridge``, a little-endian version 21,
two more 32-bit numbers, then zlib data holding the library's games.

This is not the later ``CCBridgeLibrary`` layout (:mod:`xqdb.formats.cbr`). Inside the
zlib data, strings are a 32-bit length then GBK bytes. The library starts with its name,
two strings, its author, a string, two 19-character dates, the number of games and a
description. Each game follows, after a 32-bit size (its bytes up to the next size):

* 32 bytes, the points of the 32 pieces (Red's 车马相仕帅仕相马车炮炮兵兵兵兵兵, then
  Black's; ``0x19`` is file 1 and row 9 counted from Black's side, both from 1; 0: off the
  board);
* a number, the event, a number, the title, three strings, the date, Red, Black, the
  result (1 Red wins, 2 Black wins, 3 draw, 4 unknown), four strings, a string, a byte
  and two dates;
* the number of move nodes, then 6 bytes a node: the ply (16 bits), from and to (a
  byte each, file then row from Black's side, both from 0, as DhtmlXQ writes them) and
  two bytes not read. A node whose ply is not one more than the one before is an
  alternative to the move of that ply in the line read so far;
* each node's comment, in node order, each ended by CRLF.

The strings whose meaning is not known are kept, when not empty, in the ``Extra`` tag,
in order, joined by ``" | "``.

>>> import io, struct, zlib
>>> from xqdb.formats.record import Origin
>>> s = lambda b: struct.pack("<I", len(b)) + b
>>> board = bytes.fromhex("1a2a3a4a5a6a7a8a9a2888173757779711213141516171819123831434547494")
>>> game = (board + struct.pack("<I", 1) + s("甲级联赛".encode("gbk")) + struct.pack("<I", 1)
...         + s(b"") * 5 + s("吕钦".encode("gbk")) + s(b"B") + struct.pack("<I", 1) + s(b"") * 5
...         + bytes(39) + struct.pack("<I", 2) + bytes.fromhex("010077470000 020070620000")
...         + "好\\r\\n\\r\\n".encode("gbk"))
>>> lib = s(b"L") + s(b"") * 4 + bytes(38) + struct.pack("<II", 1, 0) + struct.pack("<I", len(game) + 4) + game
>>> data = b"CCBridge" + struct.pack("<III", 21, 1, len(lib)) + zlib.compress(lib)
>>> rec = next(read(io.BytesIO(data), Origin("a.cbl")))
>>> rec.tags["Red"], rec.tags["Event"], rec.result, rec.moves, rec.mainline.comments
('吕钦', '甲级联赛', '1-0', ['h2e2', 'h9g7'], {1: '好'})
"""

from __future__ import annotations

import dataclasses
import struct
import zlib
from typing import BinaryIO, Iterator

from ..errors import ErrorKind
from ..rules.board import (
    ADVISOR, BLACK, CANNON, CHARIOT, ELEPHANT, HORSE, KING, NUM_SQUARES, PAWN, RED,
)
from .binary_board import board_fen, result_from_code, side_of_first_move, uci
from .record import GameRecord, Line, Origin

FORMAT = "cbl2001"

MAGIC = b"CCBridge"
VERSION = 21
#: Largest library accepted, inflated (bytes): real ones are a few hundred kilobytes.
MAX_INFLATED = 1 << 26
_ORDER = (CHARIOT, HORSE, ELEPHANT, ADVISOR, KING, ADVISOR, ELEPHANT, HORSE, CHARIOT,
          CANNON, CANNON, PAWN, PAWN, PAWN, PAWN, PAWN)
#: The piece of each of the 32 board bytes.
PIECES = tuple(t * RED for t in _ORDER) + tuple(t * BLACK for t in _ORDER)
_NODE = 6
_ADVERT = "棋谱由XQStudio生成"


def sniff(head: bytes, name: str) -> bool:
    """``CCBridge`` then version 21 (not ``CCBridge Record`` nor ``CCBridgeLibrary``).

    >>> sniff(b"CCBridge" + bytes([21, 0, 0, 0]), "a.cbl"), sniff(b"CCBridgeLibrary", "a.cbl")
    (True, False)
    """
    return head[:8] == MAGIC and head[8:12] == struct.pack("<I", VERSION)


class _Truncated(Exception):
    pass


class _Reader:
    """Reads the numbers and strings of the inflated data, from a position."""

    __slots__ = ("data", "at")

    def __init__(self, data: bytes, at: int = 0) -> None:
        self.data, self.at = data, at

    def number(self) -> int:
        if self.at + 4 > len(self.data):
            raise _Truncated(f"the data ends at byte {self.at}, inside a number")
        value = struct.unpack_from("<I", self.data, self.at)[0]
        self.at += 4
        return int(value)

    def raw(self, size: int) -> bytes:
        if size < 0 or self.at + size > len(self.data):
            raise _Truncated(f"{size} bytes announced at byte {self.at} run past the data")
        value = self.data[self.at:self.at + size]
        self.at += size
        return value

    def text(self) -> str:
        return self.raw(self.number()).decode("gb18030", "replace").strip("\x00 ")


def read(stream: BinaryIO, origin: Origin, encoding: str | None = None) -> Iterator[GameRecord]:
    """Yield every game of a 2001 CCBridge library, one at a time."""
    head = stream.read(20)
    if not sniff(head, origin.path):
        yield _fail(GameRecord(origin, FORMAT), "not a CCBridge library of version 21")
        return
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(stream.read(), MAX_INFLATED)
    except zlib.error as exc:
        yield _fail(GameRecord(origin, FORMAT), f"the zlib data cannot be inflated: {exc}")
        return
    if inflater.unconsumed_tail:
        yield _fail(GameRecord(origin, FORMAT),
                    f"the library inflates past {MAX_INFLATED:,} bytes: refused")
        return
    reader = _Reader(data)
    try:
        library = reader.text()
        for _ in range(4):
            reader.text()
        reader.raw(38)
        count = reader.number()
        reader.text()  # the description of the library
        size = reader.number()
    except _Truncated as exc:
        yield _fail(GameRecord(origin, FORMAT, encoding="gb18030"), f"library header: {exc}")
        return
    for index in range(count):
        start = reader.at
        where = dataclasses.replace(origin, index=index, offset=start)
        if size < 4 or start + size - 4 > len(data):
            yield _fail(GameRecord(where, FORMAT, encoding="gb18030", raw=data[start:start + 4096]),
                        f"game {index + 1} of {count}: its size {size} runs past the data")
            return
        end = start + size - 4
        record = parse(data[start:end], where)
        if library:
            record.tags.setdefault("Library", library)
        yield record
        reader.at = end
        size = reader.number() if end + 4 <= len(data) else 0


def parse(data: bytes, origin: Origin) -> GameRecord:
    """One game's bytes (from its board to the next game's size) as a record."""
    record = GameRecord(origin=origin, format=FORMAT, encoding="gb18030", notation="uci",
                        raw=data)
    reader = _Reader(data)
    try:
        placed = reader.raw(32)
        reader.number()
        event = reader.text()
        reader.number()
        title = reader.text()
        extra = [reader.text() for _ in range(3)]
        date, red, black = reader.text(), reader.text(), reader.text()
        result = reader.number()
        extra += [reader.text() for _ in range(4)]
        reader.text()  # always "||" in the files seen
        reader.raw(1 + 38)
        count = reader.number()
        nodes = reader.raw(count * _NODE)
    except _Truncated as exc:
        return _fail(record, f"game header: {exc}")
    tags = record.tags
    for name, value in (("Title", title), ("Event", event), ("Date", date), ("Red", red),
                        ("Black", black)):
        if value:
            tags[name] = value
    if any(extra):
        tags["Extra"] = " | ".join(e for e in extra if e)
    record.result = result_from_code(result if result != 4 else 0)
    tags["Result"] = record.result
    board = [0] * NUM_SQUARES
    for piece, point in zip(PIECES, placed):
        if point:
            file, row = (point >> 4) - 1, (point & 15) - 1
            if not (0 <= file < 9 and 0 <= row < 10):
                return _fail(record, f"a piece on point 0x{point:02x}, off the board")
            board[(9 - row) * 9 + file] = piece
    comments = data[reader.at:].split(b"\r\n")
    error = _read_tree(nodes, comments, record)
    first = _square(nodes[2]) if count else None
    turn = side_of_first_move(board, first, RED)
    record.fen = board_fen(board, turn)
    if record.fen is not None:
        tags["FEN"] = record.fen
    if error is not None:
        return _fail(record, error)
    return record


def _square(point: int) -> int | None:
    file, row = point >> 4, point & 15
    return (9 - row) * 9 + file if file < 9 and row < 10 else None


def _read_tree(nodes: bytes, comments: list[bytes], record: GameRecord) -> str | None:
    """Place the move nodes into the record's line tree; the error, if any."""
    # path[p - 1]: (line, index) of the move of ply p on the line read so far.
    path: list[tuple[Line, int]] = []
    for i in range(0, len(nodes), _NODE):
        ply = nodes[i] | nodes[i + 1] << 8
        origin, target = _square(nodes[i + 2]), _square(nodes[i + 3])
        node = i // _NODE + 1
        if origin is None or target is None:
            return f"move node {node}: points 0x{nodes[i + 2]:02x}-0x{nodes[i + 3]:02x} are off the board"
        move = uci(origin, target)
        if ply == len(path) + 1:
            line = path[-1][0] if path else record.mainline
            line.moves.append(move)
            path.append((line, len(line.moves) - 1))
        elif 1 <= ply <= len(path):
            host, at = path[ply - 1]
            line = Line(moves=[move])
            host.variations.append((at, line))
            del path[ply - 1:]
            path.append((line, 0))
        else:
            return f"move node {node}: ply {ply} after ply {len(path)}"
        comment = comments[node - 1].decode("gb18030", "replace") if node <= len(comments) else ""
        comment = comment.split("--" + _ADVERT)[0].rstrip("-").strip()
        if comment:
            line, at = path[-1]
            line.comments[at + 1] = comment
    return None


def _fail(record: GameRecord, error: str) -> GameRecord:
    record.error = error
    record.error_kind = ErrorKind.UNREADABLE_RECORD
    return record
