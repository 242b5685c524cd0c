"""``xqdb serve``: an opening explorer in the browser, over one database, read-only.

The explorer (``/``) shows the board of a position, to play moves on by clicking, with
every move played next as ``xqdb tree`` counts it, the opening of the line so far and the
games that reached the position; the game page (``/game/ID``) steps through a game with
its analysis; the player page (``/player/NAME``) is the dossier of ``xqdb report
--player``. The JSON behind them is served under ``/api/`` (see ``docs/serve.md``).
Everything, scripts and styles included, is served by the app: it works offline.

Flask is an optional extra (``pip install 'xqdb[serve]'``)::

    server = make_server("games.duckdb", port=0)   # 0: any free port
    print(server.port)
    server.serve_forever()
"""

from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING

from ..errors import CannotRunError, DatabaseError

if TYPE_CHECKING:
    from werkzeug.serving import BaseWSGIServer

#: The only address served: the explorer is for the user of this machine.
HOST = "127.0.0.1"


def check_database(path: str | os.PathLike[str]) -> str | None:
    """Raise :class:`~xqdb.errors.DatabaseError` unless ``path`` is a database xqdb can
    read; a database that another process is writing is served all the same (its pages
    say so until it is free), and the sentence saying who writes it is returned."""
    from ..database import Database

    try:
        Database(path).sql("SELECT 1")
    except DatabaseError as exc:
        text = exc.message or str(exc)
        if "being written" in text or "locked by" in text:
            return text
        raise
    return None


def make_server(path: str | os.PathLike[str], port: int = 8000) -> BaseWSGIServer:
    """A threaded server of the app over ``path`` on 127.0.0.1:``port`` (0 for any free
    port; ``port`` says which), not yet serving. It answers only requests addressed to
    127.0.0.1, localhost or [::1] (and this port): see :mod:`xqdb.serve.app`.

    Raises :class:`~xqdb.errors.CannotRunError` when Flask is missing or the port is
    taken, and :class:`~xqdb.errors.DatabaseError` for a file that is no xqdb database.
    """
    try:
        from werkzeug.serving import make_server as werkzeug_server

        from .app import create_app
    except ImportError as exc:
        raise CannotRunError(f"xqdb serve needs Flask ({exc})",
                             "pip install 'xqdb[serve]'") from None
    # Bound here, so that a port in use is an error of ours (Werkzeug would exit).
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind((HOST, port))
        listening.listen(128)
    except OSError as exc:
        listening.close()
        raise CannotRunError(f"cannot serve on {HOST}:{port}: {exc.strerror or exc}",
                             "give another --port, or --port 0 for any free one") from None
    served = listening.getsockname()[1]  # the port taken, for --port 0
    try:
        return werkzeug_server(HOST, served, create_app(path, served), threaded=True,
                               fd=listening.fileno())
    finally:
        listening.close()  # the server holds its own copy


__all__ = ["HOST", "check_database", "make_server"]
