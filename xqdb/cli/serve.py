"""``xqdb serve``: the opening explorer in a browser, over a database (read-only)."""

from __future__ import annotations

import click

from .common import db_option


@click.command("serve")
@db_option()
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="The port on 127.0.0.1 (0: any free one).")
@click.option("--open", "open_", is_flag=True, help="Open the explorer in the web browser.")
def serve_command(db: str, port: int, open_: bool) -> None:
    """Explore the database in a web browser: the tree of moves, games and players.

    Serves on 127.0.0.1 only, and only reads the database: an import or an analysis can
    still write it (while one does, the pages say so and try again). Needs Flask
    (pip install 'xqdb[serve]'). The JSON API is described in docs/serve.md.

    \b
    xqdb serve --db games.duckdb --open
    xqdb serve --db games.duckdb --port 0
    """
    from ..serve import check_database, make_server

    busy = check_database(db)
    server = make_server(db, port)
    url = f"http://{server.host}:{server.port}/"
    click.echo(f"Serving {db} at {url} (Ctrl-C to stop)", err=True)
    if busy:
        click.echo(f"Note: {db}: {busy}; the pages say so until it is free", err=True)
    if open_:
        import webbrowser

        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


#: The commands this module adds to ``xqdb``.
COMMANDS = (serve_command,)
