"""The fault suite: real files of every format and archives of them, mutated with a fixed
seed (bytes flipped, cut, inserted, dropped, repeated), imported and read. Nothing may
crash, every file and member must be listed in ``sources``, and the accounting must hold:
the records read are the games stored plus the duplicates linked plus the positions.

``XQDB_FAULT_SEED`` picks another seed; the counts are printed (``-s`` shows them)."""

from __future__ import annotations

import io
import os
import random
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from import_support import DATA, invoke_xqdb, rows, run_xqdb

SEED = int(os.environ.get("XQDB_FAULT_SEED", "24"))
MUTANTS = 6

#: One or more real files of every format the readers know.
ORIGINALS = [
    *sorted((DATA / "pgn-gbk").iterdir())[:2], DATA / "pgn-chinese-15.pgn",
    DATA / "pgn-wxf-fullwidth-15.pgn", DATA / "binary" / "test.xqf",
    DATA / "binary" / "game_varations.xqf", DATA / "binary" / "test.cbr",
    DATA / "binary" / "test.cbf", DATA / "binary" / "1956年全国象棋锦标赛93局.CBL",
    DATA / "binary" / "test1_move.txt", DATA / "endgames" / "FUNNY.EPD",
]


def _mutate(data: bytes, rng: random.Random) -> bytes:
    """``data`` with one fault: bytes flipped, a cut, junk inserted, a range dropped or
    repeated."""
    out = bytearray(data)
    at = rng.randrange(max(1, len(out)))
    kind = rng.randrange(6)
    if kind == 0:
        out[at] ^= 1 << rng.randrange(8)
    elif kind == 1:
        for _ in range(8):
            out[rng.randrange(len(out))] ^= rng.randrange(1, 256)
    elif kind == 2:
        del out[at:]
    elif kind == 3:
        out[at:at] = rng.randbytes(16)
    elif kind == 4:
        del out[at:at + rng.randrange(1, 200)]
    else:
        out[at:at] = out[at:at + rng.randrange(1, 200)]
    return bytes(out)


def _dhtmlxq(tmp_path: Path) -> Path:
    """A DhtmlXQ file of real games: the 15 games exported."""
    db = tmp_path / "for-dhtmlxq.duckdb"
    assert invoke_xqdb("import", str(DATA / "pgn-chinese-15.pgn"), "--db", str(db)).returncode == 0
    out = tmp_path / "games.dhtmlxq"
    assert invoke_xqdb("export", "--db", str(db), "--format", "dhtmlxq", "--out",
                    str(out)).returncode == 0
    return out


def _archives(originals: list[Path]) -> dict[str, bytes]:
    zipped, tarred = io.BytesIO(), io.BytesIO()
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as z:
        for path in originals:
            z.write(path, path.name)
    with tarfile.open(fileobj=tarred, mode="w:gz") as tar:
        for path in originals:
            tar.add(path, path.name)
    return {"all.zip": zipped.getvalue(), "all.tar.gz": tarred.getvalue()}


@pytest.fixture(scope="module")
def mutated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """A folder of mutants of every original, and of archives holding them all."""
    tmp = tmp_path_factory.mktemp("faults")
    originals = [*ORIGINALS, _dhtmlxq(tmp)]
    rng = random.Random(SEED)
    folder = tmp / "mutants"
    folder.mkdir()
    made = []
    for path in originals:
        data = path.read_bytes()
        for n in range(MUTANTS):
            mutant = folder / f"{n}-{path.name}"
            mutant.write_bytes(_mutate(data, rng))
            made.append(mutant)
    for name, data in _archives(originals).items():
        for n in range(MUTANTS):
            # Flips only: a cut archive is refused whole, which is tested elsewhere.
            mutant = folder / f"{n}-{name}"
            damaged = bytearray(data)
            for _ in range(n + 1):
                damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
            mutant.write_bytes(bytes(damaged))
            made.append(mutant)
    return folder, made


@pytest.mark.slow
def test_mutated_files_and_archives_import_with_the_accounting_kept(
        tmp_path: Path, mutated: tuple[Path, list[Path]]) -> None:
    folder, made = mutated
    db = tmp_path / "x.duckdb"
    done = run_xqdb("import", str(folder), "--db", str(db), "--jobs", "2")
    crashes = int("Traceback" in done.stderr)
    print(f"fault suite (seed {SEED}): {len(made)} files tried, {crashes} crashes")
    assert done.returncode == 0, done.stderr[-3000:]
    assert crashes == 0
    listed = {Path(p).name for p, in rows(db, "SELECT DISTINCT path FROM sources")}
    assert listed == {p.name for p in made}
    stored, = rows(db, "SELECT (SELECT coalesce(sum(records), 0) FROM sources),"
                       " (SELECT count(*) FROM game_records),"
                       " (SELECT count(*) FROM positions),"
                       " (SELECT count(*) FROM games),"
                       " (SELECT count(*) FROM game_records WHERE NOT is_primary)")
    read, records, positions, games, duplicates = stored
    assert read == records + positions
    assert records == games + duplicates
    again = run_xqdb("import", str(folder), "--db", str(db), "--jobs", "2")
    assert again.returncode == 0 and "Traceback" not in again.stderr
    assert rows(db, "SELECT count(*) FROM game_records")[0][0] == records


def test_mutated_files_and_archives_read_without_a_crash(
        mutated: tuple[Path, list[Path]]) -> None:
    folder, made = mutated
    done = run_xqdb("read", str(folder))
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.returncode in (0, 1), done.stderr


# --- crafted records: hostile shapes no mutation of a real file reaches --------------------

#: Each crafted file, and the games it must give: ``(status, plies)`` in record order.
#: A record too large within its header stays one record refused (its tail is no game);
#: variations nested thousands deep leave the main line a valid game.
CRAFTED: dict[str, tuple[bytes, list[tuple[str, int]]]] = {
    "huge-tag.pgn": (b'[Event "huge"]\n[Red "' + b"x" * (17 << 20) + b'"]\n[Black "B"]\n'
                     b'1. h2e2 h9g7 *\n\n[Event "next"]\n1. c3c4 *\n', [("invalid", 0),
                                                                       ("valid", 1)]),
    "deep-variations.pgn": (b'[Event "deep"]\n\n1. h2e2 h9g7 ' + b"(1... b9c7 " * 20_000
                            + b")" * 20_000 + b" 2. h0g2 i9h9 *\n", [("valid", 4)]),
}


@pytest.fixture(scope="module")
def crafted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("crafted")
    for name, (data, _) in CRAFTED.items():
        (folder / name).write_bytes(data)
    return folder


@pytest.mark.slow
def test_crafted_records_import_as_the_games_they_hold(tmp_path: Path, crafted: Path) -> None:
    db = tmp_path / "x.duckdb"
    done = run_xqdb("import", str(crafted), "--db", str(db), "--jobs", "2")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    for name, (_, games) in CRAFTED.items():
        assert rows(db, "SELECT g.status, g.plies FROM games g JOIN sources s USING (source_id)"
                        " WHERE s.path LIKE ? ORDER BY g.record_index", f"%{name}") == games


def test_crafted_records_read_without_a_crash(crafted: Path) -> None:
    done = run_xqdb("read", str(crafted))
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.returncode == 1  # the record too large is invalid


# --- engines that lie or sleep, as real processes under xqdb analyze ----------------------

@pytest.mark.slow
@pytest.mark.parametrize("fault", ["scores jump", "silent"])
def test_a_faulty_engine_stores_no_judgement_and_is_given_up_in_time(
        tmp_path: Path, fault: str) -> None:
    """An engine whose scores jump between +30,000 and -30,000 cp judges no move; one that
    never answers ``go`` under a node limit is given up after two waits of 10.5 s, not six
    of 120 s."""
    import time

    from engine_support import lying_engine, scripted_engine

    db = tmp_path / "g.duckdb"
    assert run_xqdb("import", str(DATA / "pgn-chinese-15.pgn"), "--db", str(db),
                    "-q").returncode == 0
    if fault == "scores jump":
        engine = str(lying_engine(tmp_path, [30_000, -30_000]))
    else:
        script = scripted_engine(tmp_path, [], hang=True).command[1]
        engine = str(tmp_path / "silent-engine")
        Path(engine).write_text(f"#!{sys.executable}\n" + Path(script).read_text())
        os.chmod(engine, 0o755)
    started = time.monotonic()
    done = run_xqdb("analyze", "--db", str(db), "--engine", engine, "--nodes", "1000",
                    "--where", "game_id = 1", "-j", "1")
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    if fault == "silent":
        assert done.returncode == 3, done.stderr
        assert "finished no search under nodes=1000, twice" in done.stderr
        assert time.monotonic() - started < 120
    else:
        assert done.returncode == 0, done.stderr
        assert rows(db, "SELECT DISTINCT status FROM evals") == [("suspect",)]
    assert rows(db, "SELECT count(*) FROM judgements") == [(0,)]
