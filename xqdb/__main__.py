"""``python -m xqdb`` runs the command line (as the ``xqdb`` command does)."""

from .cli import cli

cli()
