"""Text for a terminal: what a record says, never what it would make the terminal do.

A record's tags are text anyone could have written, and a terminal takes some characters
as orders: an ESC starts a sequence that can set the window's title, clear the screen or
write the clipboard (OSC 52), as 0x9b and 0x9d (8-bit CSI and OSC) do on terminals that
take them; a carriage return lets a line be written over; a right-to-left override makes
what follows read backwards. So every text ``xqdb`` writes to a terminal goes through
:func:`visible`, which writes these characters as escapes a person can read (``\\x1b``,
``\\u202e``), and keeps the rest as it is: Chinese, spaces, newlines and tabs.

It happens at one place, the streams: the command line puts :class:`TerminalText` over
standard output and standard error when they are terminals (:func:`guard_terminal`), so
no command has to remember it. Files get the exact text, and a pipe, read by a program
rather than a terminal, is left unguarded.
No code passes the guard, not even a colour a record could copy: what draws in colour
(the board of ``xqdb show``, a progress bar) makes any record's text in it visible
itself and writes to the terminal under the guard (:func:`unguarded`).

>>> visible("胡荣华\\x1b]0;owned\\x07 \\u202e吕钦\\x9b2J")
'胡荣华\\\\x1b]0;owned\\\\x07 \\\\u202e吕钦\\\\x9b2J'
"""

from __future__ import annotations

import io
import re
import sys
from typing import TextIO

#: The colour codes (ANSI SGR) xqdb writes itself: red, bold, reverse video, and back to
#: plain.
RED, BOLD, REVERSE, RESET = "\x1b[31m", "\x1b[1m", "\x1b[7m", "\x1b[0m"

#: What a terminal may take as an order: the C0 controls but tab and newline (a table
#: cell escapes those too), DEL, the C1 controls, and the marks, embeddings, overrides
#: and isolates of bidirectional text.
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[{_CONTROLS}]")
_UNSAFE_IN_CELLS = re.compile(f"[{_CONTROLS}\t\n]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, lines: bool = True) -> str:
    """``text`` with every character a terminal could take as an order written as an
    escape (``\\x1b``, ``\\x9b``, ``\\u202e``); tabs and newlines stay unless ``lines`` is
    false (a table's cell, which they would break).

    >>> visible("a\\tb\\r\\nc"), visible("a\\tb\\nc", lines=False)
    ('a\\tb\\\\x0d\\nc', 'a\\\\x09b\\\\x0ac')
    """
    if text.isprintable():  # the usual text, at once
        return text
    return (_UNSAFE if lines else _UNSAFE_IN_CELLS).sub(_escape, text)


class TerminalText(io.TextIOBase):
    """A text stream over a terminal's ``stream`` that writes every text through
    :func:`visible`."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.stream.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self.stream.errors

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # as a text stream refuses bytes (Click asks so)
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.stream.write(visible(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    def writable(self) -> bool:
        return True


def guard_terminal() -> None:
    """Put :class:`TerminalText` over standard output and standard error where they are
    terminals (once: a second call changes nothing)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, TerminalText) and _is_tty(stream):
            setattr(sys, name, TerminalText(stream))


def unguarded(stream: TextIO) -> TextIO:
    """The terminal under ``stream``: for what draws with codes of its own, having made
    any record's text in it :func:`visible` (the board of ``xqdb show`` in colour), or
    holding none (a progress bar, whose carriage returns and cursor codes are its
    drawing, and whose label is xqdb's)."""
    return stream.stream if isinstance(stream, TerminalText) else stream


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed stream, or one without the method
        return False


__all__ = ["BOLD", "RED", "RESET", "REVERSE", "TerminalText", "guard_terminal", "unguarded",
           "visible"]
