"""The HTML report in Debian's chromium: Chinese drawn with a real font, the charts drawn.

The font check compares screenshots: the same Chinese text drawn with the report's font
stack on this machine, and drawn where fontconfig knows only a font without CJK glyphs
(DejaVu), where every character becomes the same box. Real glyphs differ from one
character to the next; boxes do not.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from import_support import invoke_xqdb
from xqdb.db.schema import connect
from xqdb.render.report import CJK_FONTS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: Flags for a headless chromium that contacts nothing but the page it is given.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]
#: A folder of fonts with no CJK glyph.
NO_CJK = next((p for p in (Path("/usr/share/fonts/truetype/dejavu"),
                           Path("/usr/share/fonts/TTF")) if p.is_dir()), None)
HAS_CJK = bool(shutil.which("fc-list")) and bool(
    subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout.strip())

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)"),
    pytest.mark.skipif(not HAS_CJK, reason="no CJK font (.ci/run installs fonts-noto-cjk)"),
]


def chromium(page: Path, profile: Path, *args: str, env: dict[str, str] | None = None
             ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CHROMIUM or "chromium", *FLAGS, f"--user-data-dir={profile}",
                           "--virtual-time-budget=15000", *args, page.as_uri()],
                          capture_output=True, text=True, timeout=180,
                          env={**os.environ, **(env or {})})


def shot(tmp_path: Path, text: str, name: str, fonts: Path | None = None) -> str:
    """The digest of a screenshot of ``text`` in the report's fonts (only ``fonts``'s, if
    given)."""
    page = tmp_path / f"{name}.html"
    page.write_text('<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
                    f'<p style=\'font-size: 40px; font-family: {CJK_FONTS}\'>{text}</p>'
                    "</body></html>", encoding="utf-8")
    env = None
    if fonts is not None:
        config = tmp_path / "fonts.conf"
        config.write_text(f'<?xml version="1.0"?><fontconfig><dir>{fonts}</dir>'
                          f"<cachedir>{tmp_path / 'fc-cache'}</cachedir></fontconfig>")
        env = {"FONTCONFIG_FILE": str(config)}
    image = tmp_path / f"{name}.png"
    chromium(page, tmp_path / f"profile-{name}", f"--screenshot={image}",
             "--window-size=400,160", env=env)
    return hashlib.sha256(image.read_bytes()).hexdigest()


@pytest.mark.skipif(NO_CJK is None, reason="no font folder without CJK glyphs to compare with")
@pytest.mark.slow
def test_chinese_renders_with_a_real_font_not_as_boxes(tmp_path: Path) -> None:
    real_a, real_b = shot(tmp_path, "胡荣华", "real-a"), shot(tmp_path, "中炮局", "real-b")
    box_a = shot(tmp_path, "胡荣华", "box-a", NO_CJK)
    box_b = shot(tmp_path, "中炮局", "box-b", NO_CJK)
    assert box_a == box_b      # without a CJK font: three identical boxes either way
    assert real_a != real_b    # with the report's fonts: the characters themselves
    assert real_a != box_a


@pytest.fixture(scope="module")
def db(ccpd_db: Path) -> Path:
    return ccpd_db


@pytest.mark.slow
def test_the_report_and_a_dossier_draw_every_chart(db: Path, tmp_path: Path) -> None:
    con = connect(db, read_only=True)
    top_code = con.execute("SELECT ecco FROM games WHERE status = 'valid' AND ecco IS NOT NULL"
                           " GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1").fetchall()[0][0]
    con.close()
    for args, charts in (([], ("families-by-year", "results-by-family")),
                         (["--player", "胡榮華"], ("results-by-year", "families-by-year",
                                                   "results-by-family"))):
        page = tmp_path / f"report{len(args)}.html"
        written = invoke_xqdb("report", "--db", str(db), "--out", str(page), *args)
        assert written.returncode == 0, written.stderr
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"<(script|link)[^>]+(src|href)=", text)  # self-contained
        dom = chromium(page, tmp_path / f"profile{len(args)}", "--dump-dom").stdout
        assert '<pre id="page-errors"></pre>' in dom, "the page reported errors"
        for chart in charts:
            drawn = re.search(rf'id="{chart}"[^>]*>.*?class="main-svg"', dom, re.S)
            assert drawn, f"{chart} was not drawn"
        if not args:
            first = re.search(r'<table id="openings">.*?</tr><tr><td>(\w+)</td>', dom, re.S)
            assert first and first[1] == top_code
        else:
            assert "<h1>Dossier of 胡荣华</h1>" in dom
