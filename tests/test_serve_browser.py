"""``xqdb serve`` in a real browser: Debian's chromium driven through chromium-driver by
Selenium, against a real ``xqdb serve`` process over a real database.

A user's clicks: 炮二平五 played on the board, the replies read off the page and compared
with :meth:`xqdb.Database.tree` (what ``xqdb tree --moves 炮二平五`` prints); a game opened
from the explorer and stepped to its end with the keyboard; a player's page and its link
into the explorer. When a test fails, a screenshot of the browser is saved in
``tests/screens-failed/`` (named after the test) and its path is printed.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from serve_support import ROOT, build_serve_db, serving
from xqdb import Database
from xqdb.db.selection import GameFilter

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed "
                                "(pip install 'xqdb[test]')")
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver") or (
    "/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() else None)
#: Where the screenshot of a failed test goes (ignored by git).
FAILED_SHOTS = ROOT / "tests" / "screens-failed"

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)"),
    pytest.mark.skipif(CHROMEDRIVER is None,
                       reason="chromedriver is not installed (Debian's chromium-driver; "
                              ".ci/run installs it)"),
]

#: The points of the board as the SVG numbers them (a1 is 0, files a-i, ranks 0-9).
H2, E2 = 2 * 9 + 7, 2 * 9 + 4


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_serve_db(tmp_path_factory.mktemp("serve"))


@pytest.fixture(scope="module")
def url(db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(db, tmp_path_factory.mktemp("serve-log") / "serve.log") as address:
        yield address


@pytest.fixture
def browser(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[object]:
    """A headless chromium; on a failing test, its screenshot is saved first."""
    options = Options()
    options.binary_location = CHROMIUM or ""
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1100",
                 "--disable-background-networking", "--disable-component-update",
                 f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        report = getattr(request.node, "report_call", None)
        if report is None or report.failed:
            FAILED_SHOTS.mkdir(exist_ok=True)
            shot = FAILED_SHOTS / f"{request.node.name}.png"
            driver.save_screenshot(str(shot))
            print(f"screenshot of the failed test: {shot}")
        driver.quit()


def wait(driver: object, seconds: float = 20) -> WebDriverWait:
    return WebDriverWait(driver, seconds)


def click_point(driver: object, square: int) -> None:
    driver.find_element(By.CSS_SELECTOR, f'#board circle.point[data-square="{square}"]').click()


def shown_tree(driver: object) -> list[tuple[str, int, float, list[float | None], str, str]]:
    """The explorer's table of moves: move, games, share, the bar's three figures, score
    and average year as the page shows them."""
    rows = []
    for row in driver.find_elements(By.CSS_SELECTOR, "#tree tr.move"):
        cell = {name: row.find_element(By.CSS_SELECTOR, f"td.{name}").text
                for name in ("games", "share", "score", "year")}
        figures = [float(x) for span in row.find_elements(By.CSS_SELECTOR, "span.figures")
                   for x in span.get_attribute("textContent").split()] or [None] * 3
        rows.append((row.find_element(By.CSS_SELECTOR, "a.play").text, int(cell["games"]),
                     float(cell["share"].rstrip("%")), figures, cell["score"], cell["year"]))
    return rows


def expected_tree(db: Path, moves: str, games: GameFilter | None = None
                  ) -> list[tuple[str, int, float, list[float | None], str, str]]:
    """The same rows from the library, as ``xqdb tree --moves MOVES`` prints them."""
    out = []
    for r in Database(db).tree(moves, games=games).records():
        out.append((r["move"], r["games"], r["share"], [r["red_win"], r["draw"], r["black_win"]],
                    "" if r["red_score"] is None else str(r["red_score"]),
                    "" if r["avg_year"] is None else str(r["avg_year"])))
    return out


def no_page_errors(driver: object) -> None:
    assert driver.find_element(By.ID, "page-errors").get_attribute("textContent") == ""


@pytest.mark.slow
def test_playing_the_central_cannon_by_clicking_shows_the_replies_tree_counts(
        browser: object, url: str, db: Path) -> None:
    browser.get(url)
    start = shown_tree(browser)
    assert start == expected_tree(db, "")
    assert start[0][:2] == ("炮二平五", 13)
    click_point(browser, H2)  # Red's right cannon: its points to go to light up
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board circle.point.target")) == 12
    click_point(browser, E2)
    wait(browser).until(ec.url_contains("line=h2e2"))
    replies = shown_tree(browser)
    assert replies == expected_tree(db, "炮二平五")
    # The replies of the 13 games: 马8进7 in 8 (all won by Black), 马2进3 in 5 (the mirror
    # image's game counted as its mirror).
    assert [(r[0], r[1]) for r in replies] == [("马８进７", 8), ("马２进３", 5)]
    assert replies[0][3] == [0.0, 0.0, 100.0]
    assert browser.find_element(By.CSS_SELECTOR, "#line a.ply.now").text == "炮二平五"
    assert browser.find_element(By.CSS_SELECTOR, "#opening .ecco").text == "B00"
    no_page_errors(browser)
    # Clicking a move of the table plays it; back returns, forward goes on along the line.
    browser.find_element(By.LINK_TEXT, "马８进７").click()
    wait(browser).until(ec.url_contains("line=h2e2+h9g7"))
    assert shown_tree(browser) == expected_tree(db, "炮二平五 马8进7")
    browser.find_element(By.ID, "back").click()
    wait(browser).until(ec.url_contains("ply=1"))
    assert shown_tree(browser) == replies
    browser.find_element(By.ID, "forward").click()
    wait(browser).until(lambda d: "ply=" not in d.current_url)
    assert [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#line a.ply")] == [
        "炮二平五", "马８进７"]


@pytest.mark.slow
def test_a_game_opened_from_the_explorer_steps_to_its_last_move(
        browser: object, url: str, db: Path) -> None:
    browser.get(url + "?line=h2e2")
    link = browser.find_element(By.CSS_SELECTOR, "#games a.game")
    game_id = int(link.text.lstrip("#"))
    link.click()
    wait(browser).until(ec.url_contains(f"/game/{game_id}"))
    view = Database(db).show(game_id)
    plies = len(view.moves)
    # Opened at the ply that reached the position: after 炮二平五.
    assert browser.find_element(By.ID, "at").text.startswith(f"After ply 1 of {plies}.")
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    wait(browser).until(ec.text_to_be_present_in_element((By.ID, "at"),
                                                         f"After ply {plies} of {plies}."))
    # The board is the game's last position, piece by piece.
    pieces = sorted(el.text for el in browser.find_elements(By.CSS_SELECTOR, "#board g.piece"))
    from xqdb.render.board import piece_char

    assert view.position is not None
    assert pieces == sorted(piece_char(view.position.piece_at(sq)) for sq in range(90)
                            if view.position.piece_at(sq))
    assert browser.find_element(By.CSS_SELECTOR, "#moves a.ply.now").get_attribute(
        "data-ply") == str(plies)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    wait(browser).until(ec.text_to_be_present_in_element((By.ID, "at"),
                                                         f"After ply {plies - 1} of {plies}."))
    no_page_errors(browser)


@pytest.mark.slow  # the dossier page carries Plotly, some 4 MB to load
def test_a_player_page_links_into_the_explorer_filtered_by_them(
        browser: object, url: str, db: Path) -> None:
    browser.get(url + "?line=h2e2")
    link = browser.find_element(By.CSS_SELECTOR, "#games a.player")
    name = link.text
    link.click()
    wait(browser).until(ec.presence_of_element_located((By.TAG_NAME, "h1")))
    assert browser.find_element(By.TAG_NAME, "h1").text == f"Dossier of {name}"
    assert browser.find_element(By.ID, "repertoire-red")
    assert browser.find_element(By.ID, "page-errors").get_attribute("textContent") == ""
    browser.find_element(By.LINK_TEXT, "Explorer: their games as Red").click()
    wait(browser).until(ec.presence_of_element_located((By.ID, "tree")))
    games = GameFilter(player=name, side="red")
    assert shown_tree(browser) == expected_tree(db, "", games)
    assert browser.find_element(By.CSS_SELECTOR, "#filters input[name=player]"
                                ).get_attribute("value") == name
