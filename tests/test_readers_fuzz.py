"""Malformed input never crashes a batch: real files, mutated (truncated, bytes flipped,
wrong encodings, junk between games), read by every text reader, must give records or
record-level errors, and every record must replay to a verdict. Readers stream: they
hand out the first game long before the end of a large file."""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from datafiles import DATA, SAMPLE_GAMES, SHARED_DATA
from xqdb.formats import dhtmlxq, epd, movelist, pgn, read_source
from xqdb.formats.record import Origin
from xqdb.formats.sources import Source

from fuzz_support import check_records

def _samples() -> dict[str, bytes]:
    samples = {
        "ccpd-big5": b"\n".join(p.read_bytes() for p in sorted(SAMPLE_GAMES.glob("ccpd-*.pgn"))),
        "ccgc-gbk": b"".join(p.read_bytes() for p in sorted((DATA / "pgn-gbk").glob("*.PGN"))[:3]),
        "wxf-utf8": (DATA / "pgn-wxf-fullwidth-15.pgn").read_bytes()[:6000],
        "uci": (DATA / "uci" / "same-15-games-uci.pgn").read_bytes()[:5000],
        "walker-pgn": (DATA / "binary" / "test2.pgn").read_bytes(),
        "html": (SAMPLE_GAMES / "wxf-championship-1997.html").read_bytes(),
        "moves": (DATA / "binary" / "test1_move.txt").read_bytes(),
        "epd": (DATA / "endgames" / "FUNNY.EPD").read_bytes()[:3000],
    }
    if SHARED_DATA.is_dir():  # the opening book is too big to keep with the tests
        book = (SHARED_DATA / "dhtmlxq" / "dhtmlxq.txt").read_bytes()
        samples["book"] = book[:9000] + book[-3000:]
    return samples


SAMPLES = _samples()
READERS = (pgn, dhtmlxq, movelist, epd)
JUNK = [b"\x00\xff\xfe", "=====\r\n广告 https://example.com\r\n".encode("gbk"), b"[[[", b"{(",
        b"\n1. \n", b"[DhtmlXQ_move_9_9_9]12[/DhtmlXQ_move_9_9_9]", b"\xef\xbb\xbf", b"}}))"]


def _read_all(data: bytes, encoding: str | None = None) -> None:
    for reader in READERS:
        records = list(reader.read(io.BytesIO(data), Origin("fuzz.pgn"), encoding))
        check_records(records, "fuzz.pgn")
        visible = data.decode("utf-8", "replace").strip().strip("\x00\ufeff\ufffd").strip()
        if reader is not dhtmlxq and visible:
            # Nothing is silently dropped: text gives at least one record or error.
            assert records, reader.FORMAT


mutation = st.sampled_from(sorted(SAMPLES)).flatmap(lambda name: st.tuples(
    st.just(SAMPLES[name]),
    st.lists(st.tuples(st.sampled_from(["truncate", "flip", "junk", "delete"]),
                       st.floats(0, 1), st.integers(0, 255)), min_size=1, max_size=6)))


def _mutate(data: bytes, steps: list[tuple[str, float, int]]) -> bytes:
    for kind, where, value in steps:
        at = int(where * len(data))
        if kind == "truncate":
            data = data[:at]
        elif kind == "flip":
            data = data[:at] + bytes([value]) + data[at + 1:]
        elif kind == "delete":
            data = data[:at] + data[at + value:]
        else:
            # Junk between games: before a line that starts a record, when there is one.
            start = data.find(b"\n[", at)
            at = at if start < 0 else start + 1
            data = data[:at] + JUNK[value % len(JUNK)] + data[at:]
    return data


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutation)
def test_mutated_real_files_give_records_or_record_errors(case):
    data, steps = case
    _read_all(_mutate(data, steps))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(SAMPLES)),
       st.sampled_from(["utf-8", "gb18030", "big5", "utf-16", "utf-16-le", "latin-1"]))
def test_wrong_encodings_given_or_transcoded(name, encoding):
    data = SAMPLES[name]
    _read_all(data, encoding)  # the user names the wrong encoding
    text = data.decode("utf-8", errors="replace")
    _read_all(text.encode(encoding, errors="replace"))  # the file is in another one


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=3000))
@example(b"\x00((")  # a variation inside a variation that never gets a move
def test_arbitrary_bytes_through_the_dispatcher(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "junk.pgn"
    path.write_bytes(data)
    records = list(read_source(Source(str(path), None, len(data))))
    check_records(records, str(path))


class _CountingStream(io.RawIOBase):
    """A stream of ``copies`` copies of ``data`` that counts the bytes handed out."""

    def __init__(self, data: bytes, copies: int) -> None:
        self.data, self.copies, self.position, self.served = data, copies, 0, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        total = len(self.data) * self.copies
        n = min(len(buffer), total - self.position)
        out = bytearray()
        while len(out) < n:
            offset = (self.position + len(out)) % len(self.data)
            out += self.data[offset:offset + n - len(out)]
        buffer[:n] = out
        self.position += n
        self.served += n
        return n


@pytest.mark.parametrize("reader, path", [
    (pgn, DATA / "uci" / "same-15-games-uci.pgn"),
    (dhtmlxq, SAMPLE_GAMES / "wxf-championship-1997.html"),
])
def test_readers_stream_instead_of_loading_the_input(reader, path):
    data = path.read_bytes()
    if not data.endswith(b"\n"):
        data += b"\n"
    copies = max(1, (30 << 20) // len(data))  # about 30 MB in all
    stream = _CountingStream(data, copies)
    records = reader.read(io.BufferedReader(stream), Origin(str(path)))
    first = next(records)
    assert first.moves and not first.is_error
    assert stream.served < 1 << 20  # the first game came after at most a megabyte
    for _ in range(50):
        next(records)
    assert stream.served < 2 << 20
