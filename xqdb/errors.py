"""Every way a move, a position, a record or a command can fail, in one place.

Every error xqdb raises for a user to mend derives from :class:`XqdbError`, which carries
a one-line :attr:`~XqdbError.message` and a :attr:`~XqdbError.hint` saying what to do.
Four families under it say what kind of mistake it is, and the command line gives each
family one exit code (the table is in the README):

=========================  ====  ==========================================================
:class:`BadArgumentError`  2     a value given that cannot be used: a FEN, a move, a
                                 pattern, a condition, a parameter, a format name;
                                 :class:`NotFoundError` for a game, ply, player or report
                                 the database does not have
:class:`CannotRunError`    3     the work cannot start or finish as asked: nothing to read,
                                 an output that cannot be written, an engine that will not
                                 start, a database with no analysis to report
:class:`DatabaseError`     4     the database cannot be used: missing, not DuckDB, locked,
                                 of another schema version, writing failed
:class:`ClusterError`      5     the cluster cannot run the work
=========================  ====  ==========================================================

The exceptions follow python-chess: a move text that is not a move at all
(:class:`InvalidMoveError`), a move the rules forbid (:class:`IllegalMoveError`) and a text
that fits several legal moves (:class:`AmbiguousMoveError`) are told apart, all under
``ValueError``. Each exception names its :class:`ErrorKind`, the value stored with an
invalid game (``games.error_kind``) and by which ``xqdb read`` and ``xqdb info`` group
failures, so a message never has to be classified again by pattern.

This module imports nothing from xqdb: every layer may raise and catch these.

>>> try:
...     raise IllegalMoveError("h2h8: the cannon on h2 cannot move to h8")
... except MoveError as exc:
...     print(exc.kind, exc.kind.label)
illegal_move illegal move
"""

from __future__ import annotations

from enum import StrEnum
from collections.abc import Iterable
from typing import ClassVar


class ErrorKind(StrEnum):
    """What went wrong with a record, as stored in ``games.error_kind``.

    A ``str`` enum: the stored value is the member's value, and compares equal to it.

    >>> ErrorKind("bad_fen") is ErrorKind.BAD_FEN, ErrorKind.BAD_FEN == "bad_fen"
    (True, True)
    """

    BAD_MOVE_TEXT = "bad_move_text"
    """A move text that is not a move in its notation (bad syntax)."""
    ILLEGAL_MOVE = "illegal_move"
    """A well-formed move text, or a move, that the rules do not allow in the position."""
    AMBIGUOUS_MOVE = "ambiguous_move"
    """A move text that several pieces could legally follow."""
    BAD_FEN = "bad_fen"
    """A start position that is not a FEN, or that no game can reach."""
    UNKNOWN_NOTATION = "unknown_notation"
    """Move texts in a notation that cannot be read."""
    NOT_A_GAME = "not_a_game"
    """A record that holds no game: no moves and no position, an empty board."""
    UNREADABLE_RECORD = "unreadable_record"
    """A record its reader could not make sense of (broken structure, truncated data)."""
    UNKNOWN_FORMAT = "unknown_format"
    """A source whose bytes no reader recognises."""
    UNKNOWN_ENCODING = "unknown_encoding"
    """A text encoding that does not exist."""
    UNREADABLE_SOURCE = "unreadable_source"
    """A file or archive member that could not be opened or read to the end."""
    RECORD_TOO_LARGE = "record_too_large"
    """A record above the size limit: stored as invalid with its first bytes."""
    REPLAY_FAILED = "replay_failed"
    """The replay itself failed (a defect of xqdb, not of the record)."""

    @property
    def label(self) -> str:
        """The kind in words, for reports.

        >>> ErrorKind.UNKNOWN_FORMAT.label
        'unknown format'
        """
        return self.value.replace("_", " ")


class XqdbError(Exception):
    """An error a user can mend: :attr:`message` says what is wrong in one line, :attr:`hint`
    what to do about it (or is empty).

    >>> error = NotFoundError("no game 42 in games.duckdb", "xqdb info lists the games")
    >>> str(error), error.hint, isinstance(error, BadArgumentError)
    ('no game 42 in games.duckdb', 'xqdb info lists the games', True)
    """

    def __init__(self, message: str = "", hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __reduce__(self) -> tuple[object, ...]:
        # Raised on a worker, it travels back pickled: keep the hint.
        return (type(self), (self.message, self.hint))


class BadArgumentError(XqdbError):
    """A value the user gave that cannot be used (exit code 2)."""


class NotFoundError(BadArgumentError):
    """A game, ply, player, engine's analysis or report that is not there (exit code 2)."""


class CannotRunError(XqdbError):
    """The work cannot start or finish as asked (exit code 3)."""


class DatabaseError(XqdbError):
    """The database cannot be used: missing, not DuckDB, locked by another process, of
    another schema version, or writing failed (exit code 4)."""


class ClusterError(XqdbError):
    """The cluster cannot run the work (exit code 5)."""


class MoveError(BadArgumentError, ValueError):
    """A move, or a move text, that cannot be played in the position at hand."""

    kind: ClassVar[ErrorKind] = ErrorKind.BAD_MOVE_TEXT


class InvalidMoveError(MoveError):
    """A move text that is not a move in its notation (``'??' is not a move like C2.5``)."""

    kind = ErrorKind.BAD_MOVE_TEXT


class IllegalMoveError(MoveError):
    """A move that the rules do not allow, or a text naming one or no piece that can move."""

    kind = ErrorKind.ILLEGAL_MOVE


class AmbiguousMoveError(MoveError):
    """A move text that several pieces could legally follow."""

    kind = ErrorKind.AMBIGUOUS_MOVE


class UnknownNotationError(MoveError):
    """A notation name that xqdb cannot read (or write) moves in."""

    kind = ErrorKind.UNKNOWN_NOTATION


#: The name the notation modules have always raised and callers catch: every move error.
NotationError = MoveError


class FenError(BadArgumentError, ValueError):
    """A FEN that cannot be read, or that describes a position no game can reach."""

    kind: ClassVar[ErrorKind] = ErrorKind.BAD_FEN


__all__ = [
    "XqdbError", "BadArgumentError", "NotFoundError", "CannotRunError", "DatabaseError",
    "ClusterError", "ErrorKind", "MoveError", "InvalidMoveError", "IllegalMoveError", "AmbiguousMoveError",
    "UnknownNotationError", "NotationError", "FenError",
]


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice closest to a mistyped ``word``, or ``None`` when none is close: for the
    "did you mean" of a message.

    >>> closest("evnts", ["events", "players", "tree"]), closest("xyz", ["events"])
    ('events', None)
    """
    from difflib import get_close_matches

    close = get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return close[0] if close else None
