"""Sources: folders, zip (UTF-8 and GBK member names), tar, tar.gz, standard input, and
the archive members that must be refused."""

from __future__ import annotations

import io
import multiprocessing
import os
import pickle
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from datafiles import DATA
from xqdb.formats import read_paths
from xqdb.formats.sources import Source, SourceError, iter_sources, walk

GBK_FILES = sorted((DATA / "pgn-gbk").glob("*.PGN"))


def _read_bytes(source: Source) -> bytes:
    with source.open() as f:
        return f.read()


def test_folders_are_walked_recursively_in_sorted_order(tmp_path):
    (tmp_path / "b" / "d").mkdir(parents=True)
    (tmp_path / "a").mkdir()
    for name in ("b/d/2.pgn", "b/1.pgn", "a/z.pgn", "0.pgn"):
        shutil.copy(GBK_FILES[0], tmp_path / name)
    names = [os.path.relpath(s.path, tmp_path) for s in iter_sources([str(tmp_path)])]
    assert names == ["0.pgn", "a/z.pgn", "b/1.pgn", "b/d/2.pgn"]
    assert all(s.size == GBK_FILES[0].stat().st_size for s in iter_sources([str(tmp_path)]))


def _gbk_named_zip(path: Path, members: dict[str, bytes]) -> None:
    """A zip whose member names are raw GBK bytes with no UTF-8 flag, as Chinese Windows
    tools write them: written with placeholder names of the same byte length, then
    patched (names are not covered by the CRC)."""
    placeholders = {}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for i, (name, data) in enumerate(members.items()):
            raw = name.encode("gbk")
            placeholder = (f"P{i}".encode() * len(raw))[:len(raw)]
            placeholders[placeholder] = raw
            archive.writestr(placeholder.decode(), data)
    blob = path.read_bytes()
    for placeholder, raw in placeholders.items():
        assert blob.count(placeholder) == 2
        blob = blob.replace(placeholder, raw)
    path.write_bytes(blob)


def test_zip_member_names_in_gbk_and_utf8(tmp_path):
    gbk_zip = tmp_path / "gbk.zip"
    members = {f"对局/{p.name}": p.read_bytes() for p in GBK_FILES[:3]}
    _gbk_named_zip(gbk_zip, members)
    # The zip really has no UTF-8 flag: the names are only readable as GBK.
    with zipfile.ZipFile(gbk_zip) as archive:
        assert not any(info.flag_bits & 0x800 for info in archive.infolist())
    sources = list(iter_sources([str(gbk_zip)]))
    assert [s.member for s in sources] == list(members)
    assert [_read_bytes(s) for s in sources] == list(members.values())

    utf8_zip = tmp_path / "utf8.zip"
    with zipfile.ZipFile(utf8_zip, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    assert [s.member for s in iter_sources([str(utf8_zip)])] == list(members)


def test_tar_and_tar_gz_members_read_like_files(tmp_path):
    for suffix, mode in ((".tar", "w"), (".tar.gz", "w:gz"), (".tgz", "w:gz")):
        path = tmp_path / f"games{suffix}"
        with tarfile.open(path, mode) as archive:
            for p in GBK_FILES[:4]:
                archive.add(p, arcname=f"ccgc/{p.name}")
        sources = list(iter_sources([str(path)]))
        assert [s.member for s in sources] == [f"ccgc/{p.name}" for p in GBK_FILES[:4]]
        assert [_read_bytes(s) for s in sources] == [p.read_bytes() for p in GBK_FILES[:4]]
        records = list(read_paths([str(path)]))
        assert [r.tags["Red"] for r in records] == [
            next(read_paths([str(p)])).tags["Red"] for p in GBK_FILES[:4]]
        assert all(r.origin.path == str(path) and r.origin.member.startswith("ccgc/")
                   for r in records)


def _member_bytes(args: tuple[bytes]) -> bytes:
    source = pickle.loads(args[0])
    with source.open() as f:
        return f.read()


def test_sources_pickle_and_reopen_in_another_process(tmp_path):
    archive = tmp_path / "gbk.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        for path in GBK_FILES:
            out.write(path, f"pgn-gbk/{path.name}")
    sources = list(iter_sources([str(archive)]))[::7]
    assert len(sources) == 3
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        remote = pool.map(_member_bytes, [(pickle.dumps(s),) for s in sources])
    assert remote == [_read_bytes(s) for s in sources]
    assert all(len(data) == s.size for data, s in zip(remote, sources))


def test_members_escaping_the_folder_are_refused_and_the_batch_goes_on(tmp_path):
    path = tmp_path / "evil.zip"
    good = GBK_FILES[0].read_bytes()
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("../escape.pgn", good)
        archive.writestr("/etc/absolute.pgn", good)
        archive.writestr("ok/../../up.pgn", good)
        archive.writestr("ok/game.pgn", good)
    with pytest.raises(SourceError, match=r"evil\.zip!\.\./escape\.pgn: refused"):
        list(iter_sources([str(path)]))
    items = list(walk([str(path)]))
    refused = [str(i) for i in items if isinstance(i, SourceError)]
    assert len(refused) == 3
    assert all(str(path) in r and "refused" in r for r in refused)
    assert "/etc/absolute.pgn" in refused[1] and "absolute path" in refused[1]
    records = list(read_paths([str(path)]))
    assert [r.is_error for r in records] == [True, True, True, False]
    assert records[0].origin.member == "../escape.pgn" and "climbs out" in records[0].error
    assert records[3].tags["Red"] == "宝岛一号"


def test_tar_links_are_refused(tmp_path):
    path = tmp_path / "links.tar"
    with tarfile.open(path, "w") as archive:
        link = tarfile.TarInfo("passwd.pgn")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        archive.addfile(link)
        archive.add(GBK_FILES[0], arcname="game.pgn")
    items = list(walk([str(path)]))
    assert isinstance(items[0], SourceError) and "link" in str(items[0])
    assert "/etc/passwd" in str(items[0])
    assert isinstance(items[1], Source) and items[1].member == "game.pgn"


def test_members_expanding_past_a_sane_size_are_refused(tmp_path):
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("zeros.pgn", b"\0" * (8 << 20))
        archive.writestr("game.pgn", GBK_FILES[0].read_bytes())
    items = list(walk([str(bomb)]))
    assert isinstance(items[0], SourceError)
    assert "zeros.pgn" in str(items[0]) and "zip bomb" in str(items[0])
    assert isinstance(items[1], Source)
    # A plain size limit applies to every archive kind.
    items = list(walk([str(bomb)], max_member_size=100))
    assert all(isinstance(i, SourceError) for i in items)
    assert "the limit is 100" in str(items[1])


def test_a_member_of_a_megabyte_packed_a_thousand_times_is_refused(tmp_path):
    # Too small for the check of a big member before, so thousands of them each stored a
    # record of a megabyte of NULs.
    bomb = tmp_path / "nuls.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("nuls.pgn", bytes(1 << 20))
        archive.writestr("game.pgn", GBK_FILES[0].read_bytes())
    items = list(walk([str(bomb)]))
    assert isinstance(items[0], SourceError) and "zip bomb" in str(items[0])
    assert isinstance(items[1], Source) and items[1].member == "game.pgn"


def test_missing_paths_and_broken_archives_are_error_records(tmp_path):
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 this is not really a zip")
    records = list(read_paths([str(tmp_path / "nope.pgn"), str(broken), str(GBK_FILES[0])]))
    assert [r.is_error for r in records] == [True, True, False]
    assert "no such file" in records[0].error
    assert "not a readable zip archive" in records[1].error


def test_standard_input_is_spooled_and_readable(tmp_path):
    text = (DATA / "pgn-gbk" / GBK_FILES[0].name).read_bytes()
    code = ("import sys; from xqdb.formats import read_paths\n"
            "for r in read_paths(['-']): print(r.origin.path, r.origin.member, r.encoding, "
            "len(r.moves), r.tags.get('Red'))")
    out = subprocess.run([sys.executable, "-c", code], input=text, capture_output=True,
                         check=True).stdout.decode()
    assert out.split() == ["-", "None", "gb18030", "26", "宝岛一号"]
    # A zip piped in is expanded like a zip file.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for p in GBK_FILES[:2]:
            archive.writestr(p.name, p.read_bytes())
    out = subprocess.run([sys.executable, "-c", code], input=buffer.getvalue(),
                         capture_output=True, check=True).stdout.decode().splitlines()
    assert [line.split()[1] for line in out] == [p.name for p in GBK_FILES[:2]]
    assert all(line.startswith("- ") for line in out)


def test_refusals_carry_the_archive_and_member_and_pickle(tmp_path):
    path = tmp_path / "evil.tar"
    with tarfile.open(path, "w") as archive:
        archive.add(GBK_FILES[0], arcname="../up.pgn")
    error, = walk([str(path)])
    assert isinstance(error, SourceError)
    assert (error.path, error.member) == (str(path), "../up.pgn")
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.path, copy.member) == (str(error), error.path, error.member)
    record, = read_paths([str(path)])
    assert (record.origin.path, record.origin.member) == (str(path), "../up.pgn")
