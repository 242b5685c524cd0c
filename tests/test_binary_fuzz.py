"""Malformed input never crashes a reader: real XQF, CBR, CBL and CBF files are cut short,
have bytes flipped, overwritten or removed, and every reader must still either yield
records or record-level errors, never raise.
"""

from __future__ import annotations

import io
import re
from functools import cache
from types import ModuleType

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binary_samples import BINARY
from xqdb.formats import cbf, cbr, xqf
from xqdb.formats.record import RESULTS, Origin

from fuzz_support import check_records

_UCI = re.compile(r"[a-i][0-9][a-i][0-9]")


@cache
def samples() -> list[tuple[ModuleType, str, bytes]]:
    out = []
    for path in sorted(BINARY.iterdir()):
        suffix = path.suffix.lower()
        data = path.read_bytes()
        if suffix == ".xqf":
            out.append((xqf, path.name, data))
        elif suffix == ".cbr":
            out.append((cbr, path.name, data))
        elif suffix == ".cbl":
            # The library header and three records: the whole libraries are slow to mutate.
            out.append((cbr, path.name, data[:101952 + 3 * 4096]))
        elif suffix == ".cbf":
            out.append((cbf, path.name, data))
    return out


def test_every_binary_and_xml_sample_is_in_the_pool() -> None:
    kinds = {(module.FORMAT, name.rsplit(".", 1)[1].lower()) for module, name, _ in samples()}
    assert kinds == {("xqf", "xqf"), ("cbr", "cbr"), ("cbr", "cbl"), ("cbf", "cbf")}
    assert len(samples()) == 21 + 2 + 2 + 2


def test_sniffers_claim_only_their_own_samples() -> None:
    for module, name, data in samples():
        claims = [m.FORMAT for m in (xqf, cbr, cbf) if m.sniff(data[:4096], name)]
        assert claims == [module.FORMAT], name


@st.composite
def mutated(draw) -> tuple[ModuleType, str, bytes]:
    module, name, data = draw(st.sampled_from(samples()))
    buffer = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        if not buffer:
            break
        kind = draw(st.sampled_from(["truncate", "flip", "overwrite", "delete"]))
        at = draw(st.integers(0, len(buffer) - 1))
        if kind == "truncate":
            del buffer[at:]
        elif kind == "flip":
            buffer[at] ^= draw(st.integers(1, 255))
        elif kind == "overwrite":
            chunk = draw(st.binary(min_size=1, max_size=16))
            buffer[at:at + len(chunk)] = chunk
        else:
            del buffer[at:at + draw(st.integers(1, 64))]
    return module, name, bytes(buffer)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_files_yield_records_or_record_errors(case: tuple[ModuleType, str, bytes]) -> None:
    module, name, data = case
    records = list(module.read(io.BytesIO(data), Origin(name)))
    assert records, "a reader must yield at least one record (or an error record)"
    check_records(records, name, moves=_UCI, results=RESULTS)
    for record in records:
        # The binary readers write every move as coordinates.
        assert record.error is not None or record.notation == "uci"
        if record.error is not None and data:
            assert record.raw, "an error record keeps the bytes it could not read"


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=3000))
def test_random_bytes_behind_each_magic(tail: bytes) -> None:
    for module, head in ((xqf, b"XQ\x12"), (xqf, b"XQ\x0a"), (cbr, cbr.RECORD_MAGIC),
                         (cbr, cbr.LIBRARY_MAGIC + b"x" * 48 + cbr.RECORD_MAGIC),
                         (cbf, b"<ChineseChessRecord>")):
        records = list(module.read(io.BytesIO(head + tail), Origin("random")))
        # Bytes behind a known magic are that format's: a game, or that reader's error
        # keeping the bytes; never nothing.
        assert records and all(r.format == module.FORMAT for r in records), module.FORMAT
        check_records(records, "random", moves=_UCI, results=RESULTS)
        assert all(r.raw for r in records if r.error is not None)
