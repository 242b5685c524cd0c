"""Which build of xqdb runs: compiled with mypyc, or pure Python.

The hot core (the rules, the notations, :mod:`xqdb.position`, :mod:`xqdb.replay` and the
built-in engine's search, :mod:`xqdb.engine.builtin`) is compiled with mypyc where a C
compiler is present when the package is installed (``setup.py``). The compiled modules call each other natively, so they are used all together
or not at all: when the sources beside them are not the ones they were built from (a tree
edited after ``python setup.py build_ext --inplace``, or extension files left over by an old
build), every one of them is loaded from its ``.py`` instead, and :data:`BUILD` says so.
``XQDB_PURE=1`` in the environment loads the pure-Python modules too.

The check runs once, when :mod:`xqdb` is imported, before any compiled module is: it stats
the extension files and hashes the sources of the compiled modules (about 200 kB).

>>> BUILD.startswith(("compiled with mypyc: ", "pure Python"))
True
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: The modules that ``setup.py`` compiles, in dotted form. Packages' ``__init__`` modules stay
#: pure Python: ``xqdb.rules`` keeps the module ``__getattr__`` that a compiled module cannot have.
COMPILED_MODULES: tuple[str, ...] = (
    "xqdb.rules.board", "xqdb.rules.zobrist", "xqdb.rules.outcome", "xqdb.rules.position",
    "xqdb.rules.perft", "xqdb.rules.adjudication",
    "xqdb.notation.tables", "xqdb.notation.tokens", "xqdb.notation.coordinates",
    "xqdb.notation.describe", "xqdb.notation.chinese", "xqdb.notation.wxf",
    "xqdb.notation.san", "xqdb.notation.registry",
    "xqdb.position", "xqdb.replay", "xqdb.engine.builtin",
    "xqdb.openings.line", "xqdb.openings.rules", "xqdb.openings.names", "xqdb.openings.ecco",
)

#: Written beside the compiled modules when they are built: ``sha256  module`` per line, the
#: digest of the source each was compiled from.
SOURCES_FILE = "_compiled_sources.txt"

_PACKAGE = Path(__file__).resolve().parent


def source_path(module: str, package: Path = _PACKAGE) -> Path:
    """The ``.py`` file of one of :data:`COMPILED_MODULES` under the package directory.

    >>> source_path("xqdb.rules.board", Path("/x/xqdb")).as_posix()
    '/x/xqdb/rules/board.py'
    """
    return package.joinpath(*module.split(".")[1:]).with_suffix(".py")


def digest(path: Path) -> str:
    """The sha256 of a file's bytes, as hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sources_text(digests: dict[str, str]) -> str:
    """The text of :data:`SOURCES_FILE` for ``{module: digest}``.

    >>> parse_sources(sources_text({"xqdb.replay": "ab12"}))
    {'xqdb.replay': 'ab12'}
    """
    return "".join(f"{digests[m]}  {m}\n" for m in sorted(digests))


def parse_sources(text: str) -> dict[str, str]:
    """``{module: digest}`` from the text of :data:`SOURCES_FILE`."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        hexdigest, _, module = line.strip().partition("  ")
        if module:
            found[module] = hexdigest
    return found


def built_modules(package: Path = _PACKAGE) -> list[str]:
    """Those of :data:`COMPILED_MODULES` that have an extension module beside their source."""
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    found = []
    for module in COMPILED_MODULES:
        stem = source_path(module, package).with_suffix("")
        if any(stem.with_name(stem.name + suffix).exists() for suffix in suffixes):
            found.append(module)
    return found


def why_stale(built: Sequence[str], package: Path = _PACKAGE) -> str | None:
    """Why the extension modules ``built`` must not run (``None`` when they may): the record
    of their sources is missing, names other modules, or a source has changed since."""
    try:
        recorded = parse_sources((package / SOURCES_FILE).read_text(encoding="utf-8"))
    except OSError:
        return f"no {SOURCES_FILE} records what they were built from"
    if set(built) != set(recorded):
        return "they are not the set that was built"
    for module in built:
        path = source_path(module, package)
        # An install without the sources has nothing to compare, and nothing to fall back to.
        if path.exists() and digest(path) != recorded[module]:
            return f"{path.relative_to(package.parent)} changed since they were built"
    return None


class SourceFinder:
    """A meta-path finder that loads the named modules from their ``.py`` files, ahead of
    the extension modules beside them."""

    def __init__(self, modules: Sequence[str], package: Path = _PACKAGE) -> None:
        self.paths = {module: source_path(module, package) for module in modules}

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        source = self.paths.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


def _choose() -> str:
    built = built_modules()
    if not built:
        return "pure Python"
    if os.environ.get("XQDB_PURE"):
        reason: str | None = "XQDB_PURE is set"
    else:
        reason = why_stale(built)
        if reason is not None:
            reason = f"compiled modules are stale, {reason}; rebuild or delete them"
    if reason is None:
        return f"compiled with mypyc: {len(built)} modules"
    sys.meta_path.insert(0, SourceFinder(COMPILED_MODULES))
    return f"pure Python: {reason}"


#: Which build runs, in words: ``compiled with mypyc: 21 modules``, ``pure Python``, or
#: ``pure Python: `` and why the compiled modules beside the sources are not used. (The build
#: backend loads this file under another name, for its helpers only: it chooses nothing.)
BUILD: str = _choose() if __name__ == "xqdb.build" else "pure Python"
#: Whether the compiled modules run.
COMPILED: bool = BUILD.startswith("compiled")

__all__ = ["BUILD", "COMPILED", "COMPILED_MODULES", "SOURCES_FILE"]
