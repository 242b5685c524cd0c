"""``xqdb serve``'s JSON API and pages without a browser: the figures are those of
``xqdb tree``, ``search`` and ``show``; the database is only read, and stays writable by an
import while the app serves; a database being written is reported, not crashed on.

The API is asked through Flask's test client (the app itself, in this process) and, for
what a user running the command meets, through a real ``xqdb serve`` process over HTTP.
"""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from import_support import DATA, run_xqdb, xqdb_command
from serve_support import ROOT, build_serve_db, serving
from test_locked import wait_for
from xqdb import Database
from xqdb.db.holder import note_path
from xqdb.db.schema import connect
from xqdb.db.selection import GameFilter
from xqdb.position import position_after

pytest.importorskip("flask", reason="xqdb serve needs Flask (pip install 'xqdb[serve]')")
from xqdb.serve.app import create_app  # noqa: E402


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_serve_db(tmp_path_factory.mktemp("serve"))


@pytest.fixture(scope="module")
def client(db: Path):  # type: ignore[no-untyped-def]
    return create_app(db).test_client()


def get_json(client, url: str, status: int = 200) -> dict:  # type: ignore[no-untyped-def]
    response = client.get(url)
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    return response.get_json()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_tree_endpoint_gives_the_rows_of_xqdb_tree(client, db: Path) -> None:
    data = get_json(client, "/api/tree?moves=炮二平五")
    printed = run_xqdb("tree", "--db", str(db), "--moves", "炮二平五", "--format", "json")
    assert printed.returncode == 0, printed.stderr
    rows = json.loads(printed.stdout)
    assert [{k: m[k] for k in rows[0]} for m in data["moves"]] == rows
    assert [(m["move"], m["uci"], m["games"]) for m in data["moves"]] == [
        ("马８进７", "h9g7", 8), ("马２进３", "b9c7", 5)]
    assert data["total"] == 13
    assert data["fen"] == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    assert data["opening"]["ecco"] == "B00" and data["opening"]["names"] == ["中炮"]


def test_the_tree_endpoint_takes_a_fen_notations_and_the_filters(client, db: Path) -> None:
    fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    by_fen = get_json(client, "/api/tree?" + urllib.parse.urlencode({"fen": fen,
                                                                     "notation": "wxf"}))
    assert [m["move"] for m in by_fen["moves"]] == ["H8+7", "H2+3"]
    assert by_fen["opening"] is None  # no line, only a position
    for given, games in (
            ({"player": "Liu Dahua", "side": "black", "event": "National"},
             GameFilter(player="Liu Dahua", side="black", event="National")),
            ({"from": "1995", "to": "2006"}, GameFilter(from_="1995", to="2006"))):
        filtered = get_json(client, "/api/tree?" + urllib.parse.urlencode(
            {"moves": "h2e2", **given}))
        expected = Database(db).tree("h2e2", games=games).records()
        assert [(m["move"], m["games"]) for m in filtered["moves"]] == [
            (r["move"], r["games"]) for r in expected]
        assert filtered["filters"] == given
        assert 0 < filtered["total"] < 13, given
    # Mirror images apart: 炮八平五's game keeps its own reply.
    apart = get_json(client, "/api/tree?moves=h2e2&mirror=0")
    assert apart["total"] == 12


def test_bad_requests_are_answered_with_the_library_s_message(client) -> None:
    bad = get_json(client, "/api/tree?moves=炮二平五+zzz", 400)
    assert bad["error"].startswith("move 2: 'zzz' is not a move in any notation")
    assert bad["hint"].startswith("moves are separated by spaces or commas")
    assert get_json(client, "/api/tree?side=up&player=x", 400)["error"].startswith(
        "side 'up' is none of")
    assert get_json(client, "/api/tree?player=nobody", 404)["error"].startswith(
        "no player named 'nobody'")
    assert get_json(client, "/api/game/999", 404)["error"] == (
        "no game 999 in this database (games are 1 to 20)")
    page = client.get("/?line=h2e2+h2e2")
    assert page.status_code == 400 and "move 2: &#39;h2e2&#39;" in page.get_data(as_text=True)


def test_the_game_endpoint_is_the_game_of_xqdb_show(client, db: Path) -> None:
    view = Database(db).show(4)
    data = get_json(client, "/api/game/4?ply=2")
    assert data["ply"] == 2 and len(data["moves"]) == len(view.moves)
    assert [m["text"] for m in data["moves"]] == [m.text for m in view.moves]
    assert data["tags"] == view.tags
    assert data["ending"] == [line.strip() for line in view.ending()]
    moves = " ".join(m["uci"] for m in data["moves"][:2])
    assert data["fen"] == position_after(moves).fen()
    assert get_json(client, "/api/game/4?notation=iccs")["moves"][0]["text"] == "H2-E2"


def test_the_games_and_players_endpoints(client, db: Path) -> None:
    found = get_json(client, "/api/games?moves=炮二平五&limit=3")
    expected = Database(db).search("炮二平五", mirror=True, limit=3)
    assert found["total"] == expected.total == 13
    assert [g["game_id"] for g in found["games"]] == [r[0] for r in expected.games.rows]
    players = get_json(client, "/api/players?search=胡荣华")["players"]
    assert [p["name"] for p in players] == ["胡荣华"]


def test_the_explorer_page_plays_moves_by_their_links(client, db: Path) -> None:
    page = client.get("/?line=h2e2").get_data(as_text=True)
    assert 'class="point" data-square="0"' in page  # the board takes clicks
    assert page.count('<tr class="move"') == 2
    assert 'href="/?line=h2e2+h9g7"' in page  # the reply 马8进7 is a link that plays it
    # A filter is kept by every link of the page.
    page = client.get("/?line=h2e2&player=Liu+Dahua").get_data(as_text=True)
    assert "line=h2e2+h9g7&amp;player=Liu+Dahua" in page


@pytest.mark.slow
def test_an_analysed_game_has_its_evaluation_graph_and_judged_moves(tmp_path: Path) -> None:
    db = build_serve_db(tmp_path)
    done = run_xqdb("analyze", "--db", str(db), "--engine", "builtin", "--depth", "2",
                    "--game", "2", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    client = create_app(db).test_client()
    data = get_json(client, "/api/game/2")
    assert data["analysed"] and all(m["score"] is not None for m in data["moves"])
    view = Database(db).show(2)
    judged = [m.ply for m in view.moves if m.judgement]
    assert judged == [m["ply"] for m in data["moves"] if m["judgement"]]
    page = client.get("/game/2").get_data(as_text=True)
    assert 'id="eval-graph"' in page
    assert page.count('<circle class="judged ') == len(judged)
    unanalysed = client.get("/game/3").get_data(as_text=True)
    assert 'id="eval-graph"' not in unanalysed


@pytest.mark.slow
def test_the_server_never_writes_and_an_import_still_can(tmp_path: Path) -> None:
    db = build_serve_db(tmp_path)
    total = sum(r["games"] for r in Database(db).tree().records())
    before = digest(db)
    with serving(db, tmp_path / "serve.log") as url:
        for path in ("", "?line=h2e2", "game/2?ply=5", "api/tree?moves=h2e2", "players",
                     "player/胡荣华"):
            with urllib.request.urlopen(url + urllib.parse.quote(path, safe="/?=&")) as page:
                assert page.status == 200
        assert digest(db) == before
        # While it serves, an import writes the same file.
        more = run_xqdb("import", str(DATA / "pgn-gbk"), "--db", str(db), "-j", "1")
        assert more.returncode == 0, more.stderr
        after = sum(r["games"] for r in Database(db).tree().records())
        assert after > total
        with urllib.request.urlopen(url + "api/tree") as page:
            assert json.load(page)["total"] == after


@pytest.mark.slow
def test_a_database_being_written_is_reported_until_it_is_free(tmp_path: Path) -> None:
    db = build_serve_db(tmp_path)
    total = sum(r["games"] for r in Database(db).tree().records())
    with serving(db, tmp_path / "serve.log") as url:
        writer = subprocess.Popen(xqdb_command("import", "-", "--db", str(db), "-j", "1", "-q"),
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        try:
            assert writer.stdin is not None
            text = b"\n".join(path.read_bytes() for path in sorted((DATA / "pgn-gbk").iterdir()))
            writer.stdin.write(text[:len(text) // 2])
            writer.stdin.flush()
            wait_for(lambda: note_path(db).exists(), "the import to hold the database")
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(url + "api/tree")
            assert refused.value.code == 503
            assert refused.value.headers["Retry-After"] == "5"
            error = json.load(refused.value)["error"]
            assert error.startswith(f"{db}: being written by xqdb import (pid {writer.pid}")
            with pytest.raises(urllib.error.HTTPError) as page:
                urllib.request.urlopen(url)
            body = page.value.read().decode()
            assert "being written by xqdb import" in body
            assert '<meta http-equiv="refresh" content="5">' in body
            _, err = writer.communicate(text[len(text) // 2:], timeout=120)
            assert writer.returncode == 0, err
        finally:
            if writer.poll() is None:
                writer.kill()
                writer.communicate()
        after = sum(r["games"] for r in Database(db).tree().records())
        assert after > total
        with urllib.request.urlopen(url + "api/tree") as free:
            assert json.load(free)["total"] == after


def test_a_file_that_is_no_database_and_a_port_in_use(tmp_path: Path) -> None:
    notes = tmp_path / "notes.duckdb"
    notes.write_text("my notes\n")
    refused = run_xqdb("serve", "--db", str(notes), "--port", "0", timeout=60)
    assert refused.returncode == 4
    assert refused.stderr.strip() == f"Error: {notes}: not a DuckDB database"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = run_xqdb("serve", "--db", str(build_serve_db(tmp_path)), "--port", str(port),
                        timeout=60)
    assert busy.returncode == 3
    assert busy.stderr.strip().startswith(f"Error: cannot serve on 127.0.0.1:{port}: ")
    assert busy.stderr.strip().endswith("(give another --port, or --port 0 for any free one)")


def test_scripts_and_styles_are_served_by_the_app(client) -> None:
    page = client.get("/?line=h2e2").get_data(as_text=True)
    # Nothing is fetched from elsewhere (the SVG's namespace is a name, not a fetch).
    assert "https://" not in page
    assert page.replace('xmlns="http://www.w3.org/2000/svg"', "").count("http://") == 0
    game = client.get("/game/2").get_data(as_text=True)
    for name, on in (("xqdb.css", page), ("explorer.js", page), ("errors.js", page),
                     ("game.js", game)):
        assert f'"/static/{name}"' in on
        served = client.get(f"/static/{name}")
        assert served.status_code == 200
        assert served.data == (ROOT / "xqdb" / "serve" / "static" / name).read_bytes()


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:8000", "127.0.0.1.nip.io",
                                  "localhost.attacker.example", "192.168.1.5", "::1", ""])
def test_a_request_addressed_to_another_name_is_refused(client, db: Path, host: str) -> None:
    # A page of another site that points its name at 127.0.0.1 (DNS rebinding) may read
    # what it is answered: it is told no more than where to go.
    for url in ("/api/tree", "/api/games?moves=h2e2", "/", "/game/2", "/players",
                "/static/xqdb.css"):
        response = client.get(url, headers={"Host": host})
        assert response.status_code == 421, (url, response.status_code)
        text = response.get_data(as_text=True)
        assert "answers only requests addressed to 127.0.0.1, localhost, [::1]" in text
        assert str(db) not in text and "炮" not in text


def test_the_loopback_names_are_answered_with_or_without_the_port(client) -> None:
    for host in ("127.0.0.1", "127.0.0.1:8000", "localhost", "LOCALHOST:5000", "[::1]",
                 "[::1]:8000"):
        assert client.get("/api/tree", headers={"Host": host}).status_code == 200, host


def test_the_server_answers_its_own_port_only_and_no_other_name(db: Path,
                                                                tmp_path: Path) -> None:
    with serving(db, tmp_path / "serve.log") as url:
        port = urllib.parse.urlsplit(url).port

        def status(host: str) -> int:
            request = urllib.request.Request(url + "api/tree", headers={"Host": host})
            try:
                with urllib.request.urlopen(request) as answer:
                    return int(answer.status)
            except urllib.error.HTTPError as refused:
                return refused.code

        assert status(f"127.0.0.1:{port}") == status(f"localhost:{port}") == 200
        assert status("localhost") == status(f"[::1]:{port}") == 200
        assert status("attacker.example") == status(f"attacker.example:{port}") == 421
        assert status(f"localhost:{port + 1}") == 421


def test_counts_too_large_are_refused_in_our_words(client) -> None:
    # 2**63 gave a 500; 2**33 came back as DuckDB's "Conversion Error ... INT32".
    for url, name in (("/api/games?moves=h2e2&limit=", "limit"), ("/api/players?limit=", "limit"),
                      ("/api/tree?top_games=", "top_games")):
        for value in (2**63, 2**33, 2**31):
            refused = get_json(client, f"{url}{value}", 400)
            assert refused["error"] == (f"{name} {value} is more than 2147483647, the most a "
                                        "count can be")
        assert get_json(client, f"{url}-1", 400)["error"] == f"{name} -1 is below 0"
        get_json(client, f"{url}{2**31 - 1}")


def test_event_and_search_take_percent_and_underscore_as_themselves(client) -> None:
    every = get_json(client, "/api/games?moves=h2e2")["total"]
    assert every > 0 and get_json(client, "/api/games?moves=h2e2&event=")["total"] == every
    for text in ("_", "%25", "%25%25", "\\"):
        assert get_json(client, f"/api/games?moves=h2e2&event={text}")["total"] == 0, text
        assert get_json(client, f"/api/tree?event={text}")["total"] == 0, text
        assert get_json(client, f"/api/players?search={text}")["players"] == [], text
    assert get_json(client, "/api/players?search=liu")["players"]  # still blind to case


def test_a_failure_of_duckdb_is_answered_in_our_words(db: Path, monkeypatch) -> None:
    import duckdb

    def failing(*args: object, **kwargs: object) -> None:
        raise duckdb.ConversionException("Conversion Error: Could not convert string "
                                         "'99999999999' to INT32")

    monkeypatch.setattr(Database, "tree", failing)
    monkeypatch.setattr(Database, "sql", failing)
    client = create_app(db).test_client()
    answer = get_json(client, "/api/tree", 500)
    assert answer == {"error": "the database could not answer this request",
                      "hint": "the log of xqdb serve says why"}
    from xqdb.db.queries import SqlError

    def refusing(*args: object, **kwargs: object) -> None:
        raise SqlError("Binder Error: Referenced column \"x\" not found")

    monkeypatch.setattr(Database, "players", refusing)
    assert get_json(client, "/api/players", 500) == answer
    page = client.get("/players")
    assert page.status_code == 500 and "Binder" not in page.get_data(as_text=True)


HOSTILE_NUMBERS = [str(2**63), str(-2**63 - 1), str(2**31), "1e9", "0x10", "NaN", "--1",
                   "1_000", "١٢", " 7 ", "9" * 400]


@pytest.mark.parametrize("value", HOSTILE_NUMBERS)
def test_hostile_numbers_in_every_parameter_get_a_message_of_ours(client, value: str) -> None:
    quoted = urllib.parse.quote(value)
    for url in (f"/api/games?moves=h2e2&limit={quoted}", f"/api/players?limit={quoted}",
                f"/api/tree?top_games={quoted}", f"/api/game/2?ply={quoted}",
                f"/api/explore?line=h2e2&ply={quoted}", f"/?line=h2e2&ply={quoted}",
                f"/game/2?ply={quoted}"):
        response = client.get(url)
        text = response.get_data(as_text=True)
        assert response.status_code in (200, 400, 404), (url, response.status_code)
        for words in ("Conversion Error", "Binder Error", "INT32", "INT64", "Traceback"):
            assert words not in text, (url, text[:200])


@pytest.mark.slow
def test_imports_started_while_the_explorer_answers_wait_for_its_requests(tmp_path: Path) -> None:
    """Requests without a pause hold the file for a moment each: every import waits for
    one to end, none is refused, and none is told that the explorer writes."""
    import threading

    db = build_serve_db(tmp_path)
    answered = 0
    with serving(db, tmp_path / "serve.log") as url:
        done = threading.Event()

        def ask() -> None:
            nonlocal answered
            while not done.is_set():
                try:
                    with urllib.request.urlopen(url + "api/tree?moves=h2e2") as page:
                        page.read()
                        answered += 1
                except urllib.error.HTTPError:  # 503 while an import writes
                    pass

        askers = [threading.Thread(target=ask) for _ in range(2)]
        for thread in askers:
            thread.start()
        try:
            results = [run_xqdb("import", str(DATA / "pgn-gbk"), "--db", str(db), "-j", "1",
                                "--force") for _ in range(2)]
            for _ in range(100):  # opened to write as an import opens it, more often
                connect(db).close()
        finally:
            done.set()
            for thread in askers:
                thread.join(timeout=60)
    assert answered > 0
    for result in results:
        assert result.returncode == 0, result.stderr
        assert "for writing" not in result.stderr
