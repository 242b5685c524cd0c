"""CBF: CCBridge's XML record, ``<ChineseChessRecord Version="1.0">``, UTF-8 with a BOM.

``<Head>`` holds the tags and the start ``<FEN>``; ``<MoveList>`` holds ``<Move>``
elements. The first, ``value="00-00"``, stands for the start position and carries the
opening comment; each other is ``value="x1y1-x2y2"`` with x from Red's left (0-8) and
y from Black's back rank (0-9), its text the comment after the move, and
``end="1"`` on the last move of the line.

No documentation or sample shows how CBF stores variations, so moves after the end
of the main line are not guessed at: the record is reported as an error instead.

>>> import io
>>> from xqdb.formats.record import Origin
>>> xml = '''<?xml version="1.0" encoding="UTF-8"?>
... <ChineseChessRecord Version="1.0"><Head><Red>A</Red><RecordResult>1</RecordResult></Head>
... <MoveList><Move value="00-00"/><Move value="77-47"/><Move value="70-62" end="1"/></MoveList>
... </ChineseChessRecord>'''
>>> rec = next(read(io.BytesIO(xml.encode()), Origin("a.cbf")))
>>> rec.moves, rec.tags["Red"], rec.result
(['h2e2', 'h9g7'], 'A', '1-0')
"""

from __future__ import annotations

import dataclasses
import re
from typing import BinaryIO, Iterator
from xml.etree import ElementTree

from ..rules.position import is_standard_start
from .binary_board import uci
from .record import GameRecord, Line, Origin

FORMAT = "cbf"

_ROOT_TAG = b"<ChineseChessRecord"

#: ``<Head>`` children and the PGN-style tags they become.
HEAD_TAGS: dict[str, str] = {
    "Name": "Title", "Contest": "Event", "Round": "Round", "Group": "Group",
    "Table": "Table", "Date": "Date", "Site": "Site", "TimeRule": "TimeControl",
    "Red": "Red", "RedTeam": "RedTeam", "RedTime": "RedTime", "RedRating": "RedElo",
    "Black": "Black", "BlackTeam": "BlackTeam", "BlackTime": "BlackTime",
    "BlackRating": "BlackElo", "Referee": "Referee", "Recorder": "Recorder",
    "Commentator": "Annotator", "Creator": "Creator", "ECCO": "ECCO",
}

#: ``<RecordResult>``: 0 unknown, 1 Red wins, 2 Black wins, 3 and 4 draws.
RESULTS: dict[str, str] = {"0": "*", "1": "1-0", "2": "0-1", "3": "1/2-1/2", "4": "1/2-1/2"}

_MOVE = re.compile(r"([0-8])([0-9])-([0-8])([0-9])")


def sniff(head: bytes, name: str) -> bool:
    """Whether ``head`` is the start of a CBF document.

    >>> sniff(b'\\xef\\xbb\\xbf<?xml version="1.0"?>\\n<ChineseChessRecord Version="1.0">', "a")
    True
    """
    return _ROOT_TAG in head


def read(stream: BinaryIO, origin: Origin, encoding: str | None = None) -> Iterator[GameRecord]:
    """Yield the single game of a CBF document (an error record if it cannot be read)."""
    yield parse(stream.read(), dataclasses.replace(origin, index=0, offset=0), encoding)


def parse_move(value: str) -> str:
    """The ``uci`` text of a CBF move value; raises ``ValueError`` for anything else.

    >>> parse_move("77-47"), parse_move("70-62")
    ('h2e2', 'h9g7')
    """
    m = _MOVE.fullmatch(value.strip())
    if not m:
        raise ValueError(f"not a CBF move like 77-47: {value!r}")
    x1, y1, x2, y2 = (int(g) for g in m.groups())
    return uci((9 - y1) * 9 + x1, (9 - y2) * 9 + x2)


def parse(data: bytes, origin: Origin, encoding: str | None = None) -> GameRecord:
    """Decode one CBF document; never raises for bad content."""
    # The record keeps its bytes whether it reads or not: they are what raw_records stores.
    record = GameRecord(origin=origin, format=FORMAT, encoding=encoding or "utf-8",
                        notation="uci", raw=data)
    try:
        parser = ElementTree.XMLParser(encoding=encoding)
        parser.feed(data)
        root = parser.close()
    except (ElementTree.ParseError, LookupError, ValueError) as exc:
        return _fail(record, data, f"not well-formed CBF XML: {exc}")
    if root.tag != "ChineseChessRecord":
        return _fail(record, data, f"the XML root is <{root.tag}>, not <ChineseChessRecord>")
    head = root.find("Head")
    if head is not None:
        for child in head:
            text = (child.text or "").strip()
            if child.tag in HEAD_TAGS and text:
                record.tags[HEAD_TAGS[child.tag]] = text
        result = (head.findtext("RecordResult") or "").strip()
        record.result = RESULTS.get(result, "*")
        record.tags["Result"] = record.result
        fen = (head.findtext("FEN") or "").strip()
        if fen and not is_standard_start(fen):
            record.fen = fen
            record.tags["FEN"] = fen
    moves = root.find("MoveList")
    error = _read_moves(list(moves) if moves is not None else [], record.mainline)
    if error is not None:
        return _fail(record, data, error)
    return record


def _read_moves(elements: list[ElementTree.Element], line: Line) -> str | None:
    """Fill ``line`` from the ``<Move>`` elements; an error message when they are broken."""
    ended = False
    for number, element in enumerate(elements):
        if element.tag != "Move":
            continue
        value = element.get("value", "")
        comment = (element.text or "").strip()
        if number == 0 and value.strip() == "00-00":
            if comment:
                line.comments[0] = comment
            continue
        ply = len(line.moves) + 1
        if ended:
            rest = sum(1 for e in elements[number:] if e.tag == "Move")
            return (f"{rest} moves follow the end of the main line at ply {ply - 1} "
                    f"(CBF variations are not understood)")
        try:
            line.moves.append(parse_move(value))
        except ValueError as exc:
            return f"ply {ply}: {exc}"
        if comment:
            line.comments[ply] = comment
        ended = element.get("end") == "1"
    return None


def _fail(record: GameRecord, data: bytes, error: str) -> GameRecord:
    record.error = error
    record.raw = data
    return record
