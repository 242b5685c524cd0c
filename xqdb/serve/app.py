"""The web app of ``xqdb serve``: the explorer, game and player pages and their JSON API.

A Flask app over one database file, read-only. Every request opens the file read-only
for as long as it needs it and closes it, so that an import or an analysis can still
write the database between requests; while one does,
DuckDB lets no other process read it, and the pages and the API answer ``503`` with the
message of ``xqdb info`` on a locked file (who writes it, until when), which the pages
show and retry.

The app answers only requests addressed to this machine by a loopback name
(:data:`LOOPBACK_NAMES`, with or without the port served): a web page elsewhere can
point a name of its own at 127.0.0.1 (DNS rebinding) and have the browser ask the
explorer for the database as if it were that site; its requests carry that name in their
``Host`` header, and are answered ``421`` with nothing of the database.

>>> app = create_app("/no/such.duckdb")
>>> response = app.test_client().get("/api/tree")
>>> response.status_code, response.get_json()["error"]
(503, '/no/such.duckdb: no such database (xqdb import FILES --db /no/such.duckdb creates one)')
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from flask import Flask, Response, g, jsonify, render_template, request, url_for

from ..database import Database
from ..db import checked_count
from ..db.queries import DuckDBError, SqlError
from ..db.schema import connect
from ..errors import BadArgumentError, DatabaseError, NotFoundError, XqdbError
from ..notation import WRITTEN_NOTATIONS
from ..position import Position
from ..browse.show import MARKS
from ..render.board import svg_board
from ..render.report import CJK_FONTS
from ..rules.board import Move
from . import views

#: Seconds after which a page refused by a locked database tries again.
RETRY_SECONDS = 5
#: What a request is answered (status 500) when DuckDB fails on what the app asked of it.
FAILED = XqdbError("the database could not answer this request",
                   "the log of xqdb serve says why")
#: The names a request may address the explorer by (its ``Host`` header, lower case).
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def create_app(path: str | os.PathLike[str], port: int | None = None) -> Flask:
    """The app over the database file ``path`` (read, never written), answering requests
    addressed to a loopback name, with ``port`` or none (``port`` ``None``: any port)."""
    app = Flask(__name__)
    app.config["XQDB_DB"] = os.fspath(path)
    app.jinja_env.globals.update(fonts=CJK_FONTS, marks=MARKS)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.ensure_ascii = False  # type: ignore[attr-defined]

    @app.before_request
    def addressed_here() -> tuple[Any, int] | None:
        if loopback_host(request.host, port):
            return None
        # Nothing of the database, nor its path: the asking page may read this answer.
        message = ("xqdb serve answers only requests addressed to "
                   + ", ".join(LOOPBACK_NAMES) + (f" (port {port})" if port else ""))
        hint = f"open http://{LOOPBACK_NAMES[0]}:{port}/" if port else ""
        if request.path.startswith("/api/"):
            return jsonify(error=message, hint=hint), 421
        return Response(f"{message}; {hint}\n" if hint else message + "\n",
                        mimetype="text/plain"), 421

    def database() -> Database:
        # One read-only connection for all a request asks (the explorer asks the tree and
        # the search), closed when the request ends: between requests the file is free.
        if "database" not in g:
            g.connection = connect(app.config["XQDB_DB"], read_only=True, create=False)
            g.database = Database(g.connection)
        database: Database = g.database
        return database

    @app.teardown_request
    def close(_: BaseException | None) -> None:
        connection = g.pop("connection", None)
        g.pop("database", None)
        if connection is not None:
            connection.close()

    def args() -> dict[str, str]:
        return {k: v for k, v in request.args.items()}

    @app.errorhandler(DuckDBError)
    def failed(exc: DuckDBError) -> tuple[Any, int, dict[str, str]]:
        return refused(SqlError(str(exc).strip().splitlines()[0]))

    @app.errorhandler(XqdbError)
    def refused(exc: XqdbError) -> tuple[Any, int, dict[str, str]]:
        if isinstance(exc, SqlError):
            # No request brings SQL of its own: DuckDB failing on what the app asked is
            # the app's fault, and its words would show the asker the queries' insides.
            app.logger.error("%s: %s", request.full_path, exc.message)
            exc = FAILED
        status = _status(exc)
        headers = {"Retry-After": str(RETRY_SECONDS)} if status == 503 else {}
        if request.path.startswith("/api/"):
            return jsonify(error=exc.message or str(exc), hint=exc.hint), status, headers
        return (render_template("error.html", message=exc.message or str(exc),
                                hint=exc.hint, retry=RETRY_SECONDS if status == 503 else None,
                                db=app.config["XQDB_DB"]), status, headers)

    # --- pages -------------------------------------------------------------------------

    @app.get("/")
    def explorer() -> str:
        state = views.Explorer.from_request(args())
        data = views.explore(database(), state)
        pos = state.position()
        last = state.played[-1] if state.played else None

        def href(params: Mapping[str, str]) -> str:
            return url_for("explorer") + "?" + urlencode(params)

        for move in data["moves"]:
            move["href"] = href(state.playing(Move.from_uci(move["uci"])))
        for step in data["line"]:
            step["href"] = href(state.params(ply=step["ply"]))
        steps = {"start": 0, "back": state.ply - 1, "forward": state.ply + 1,
                 "end": len(state.line)}
        nav = {name: href(state.params(ply=ply)) if 0 <= ply <= len(state.line)
               and ply != state.ply else None for name, ply in steps.items()}
        targets = {str(k): v for k, v in views.legal_targets(pos).items()}
        moves_by_squares = {f"{m.from_square}-{m.to_square}": href(state.playing(m))
                            for m in pos.legal_moves()}
        return render_template(
            "explorer.html", data=data, state=state, nav=nav, db=app.config["XQDB_DB"],
            board=svg_board(pos, last, points=True), targets=targets,
            moves_by_squares=moves_by_squares, notations=WRITTEN_NOTATIONS,
            hidden={k: v for k, v in state.params(ply=state.ply).items()
                    if k in ("line", "ply", "fen", "mirror")},
            api=url_for("api_tree") + "?" + urlencode(
                {"fen": data["fen"], **data["filters"],
                 **({"notation": state.notation} if state.notation != "chinese" else {})}))

    @app.get("/game/<int:game_id>")
    def game_page(game_id: int) -> str:
        values = args()
        notation = views.notation_from(values)
        ply = _ply(values.get("ply"))
        data = views.game(database(), game_id, ply, notation)
        extra = {"notation": notation} if notation != "chinese" else {}

        def href(ply: int) -> str:
            return url_for("game_page", game_id=game_id) + "?" + urlencode({"ply": ply, **extra})

        board = None
        if data["fen"] is not None:
            last = Move.from_uci(data["last"]) if data["last"] else None
            board = svg_board(Position(data["fen"]), last)
        line = " ".join(m["uci"] for m in data["moves"][:data["ply"]])
        explore_params = {"line": line, **extra}
        if data["start_fen"] != Position().fen():
            explore_params["fen"] = data["start_fen"]
        n = len(data["moves"])
        return render_template(
            "game.html", data=data, board=board, db=app.config["XQDB_DB"],
            steps={"start": href(0), "back": href(max(data["ply"] - 1, 0)),
                   "forward": href(min(data["ply"] + 1, n)), "end": href(n)},
            hrefs={m["ply"]: href(m["ply"]) for m in data["moves"]},
            rows=views.numbered(data["moves"]),
            graph=views.eval_graph(data["moves"], data["ply"], html.escape(
                url_for("game_page", game_id=game_id) + "?"
                + urlencode({**extra}) + ("&" if extra else "") + "ply={ply}"))
            if data["analysed"] else None,
            explore=url_for("explorer") + "?" + urlencode(explore_params),
            notations=WRITTEN_NOTATIONS)

    @app.get("/player/<path:name>")
    def player_page(name: str) -> Response:
        def explore(side: str) -> str:
            return url_for("explorer") + "?" + urlencode(
                {"player": name, **({"side": side} if side != "either" else {})})

        links = [("Explorer: all their games", explore("either")),
                 ("Explorer: their games as Red", explore("red")),
                 ("Explorer: their games as Black", explore("black")),
                 ("Back to the explorer", url_for("explorer"))]
        page = database().report(player=name, links=links)
        return Response(page, mimetype="text/html")

    @app.get("/players")
    def players_page() -> str:
        search = request.args.get("search") or None
        result = database().players(search, limit=200)
        return render_template("players.html", rows=result.records(), search=search or "",
                               db=app.config["XQDB_DB"])

    # --- the JSON API ------------------------------------------------------------------

    @app.get("/api/tree")
    def api_tree() -> Response:
        values = args()
        start, line, pos = _position(values)
        games = views.filters_from(values)
        mirror = _mirror(values)
        top = _count(values.get("top_games"), "top_games", 3)
        moves = views.tree_moves(database(), pos, games, views.notation_from(values),
                                 mirror, top)
        return jsonify(fen=pos.fen(), filters=views.filter_params(games),
                       opening=views.opening_of(start, line),
                       total=sum(m["games"] for m in moves), moves=moves)

    @app.get("/api/explore")
    def api_explore() -> Response:
        return jsonify(views.explore(database(), views.Explorer.from_request(args())))

    @app.get("/api/game/<int:game_id>")
    def api_game(game_id: int) -> Response:
        values = args()
        return jsonify(views.game(database(), game_id, _ply(values.get("ply")),
                                  views.notation_from(values)))

    @app.get("/api/games")
    def api_games() -> Response:
        values = args()
        limit = _count(values.get("limit"), "limit", 100)
        found = database().search(values.get("moves") or "", values.get("fen") or None,
                                  mirror=_mirror(values),
                                  notation=views.notation_from(values), limit=limit,
                                  games=views.filters_from(values))
        return jsonify(total=found.total, games=found.games.records())

    @app.get("/api/players")
    def api_players() -> Response:
        values = args()
        result = database().players(values.get("search") or None,
                                    _count(values.get("limit"), "limit", 100))
        return jsonify(players=result.records())

    @app.get("/api/board.svg")
    def api_board() -> Response:
        values = args()
        start, line, pos = _position(values)
        return Response(svg_board(pos, line[-1] if line else None), mimetype="image/svg+xml")

    return app


def loopback_host(host: str, port: int | None = None) -> bool:
    """Whether a request's ``Host`` (``name`` or ``name:port``) is a loopback name of
    :data:`LOOPBACK_NAMES`, with ``port`` or no port (any port when ``port`` is ``None``).

    >>> loopback_host("127.0.0.1:8000", 8000), loopback_host("[::1]"), loopback_host("LocalHost")
    (True, True, True)
    >>> loopback_host("attacker.example"), loopback_host("localhost:8001", 8000)
    (False, False)
    """
    name, given = host.lower(), ""
    if ":" in name and not name.endswith("]"):  # "[::1]" is a name; "[::1]:80" has a port
        name, _, given = name.rpartition(":")
    if name not in LOOPBACK_NAMES:
        return False
    return given == "" or (given.isdigit() and (port is None or int(given) == port))


def _status(exc: XqdbError) -> int:
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, BadArgumentError):
        return 400
    if isinstance(exc, DatabaseError):
        return 503
    return 500


def _ply(text: str | None) -> int | None:
    return None if text is None or text == "" else views.whole_number(text, "ply", 0)


def _count(text: str | None, name: str, default: int) -> int:
    return checked_count(views.whole_number(text, name, default), name)


def _position(values: Mapping[str, str]) -> tuple[Position, list[Move], Position]:
    """The start, the moves and the position after them, from ``moves`` and ``fen``."""
    start, line = views.line_of(values.get("moves") or "", values.get("fen") or None)
    pos = start.copy()
    for move in line:
        pos.push(move)
    return start, line, pos


def _mirror(values: Mapping[str, str]) -> bool:
    """Whether ``mirror`` asks for mirror images merged (the default)."""
    return values.get("mirror", "1") not in ("0", "false", "no")
