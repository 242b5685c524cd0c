"""Layering: every module of xqdb imports only from its own layer or the layers below.

The layers are those of the design (rules < notation < formats < replay < openings and
engine < db < parallel and importer < cli); a package the design plans but the code does
not have yet is simply absent. A new top-level module must be given its layer in
``LAYERS``, so that nothing lands between the layers unexamined.
"""

from __future__ import annotations

import ast
from pathlib import Path

import xqdb

#: Lowest first. A module belongs to the layer of the longest name here that is its dotted
#: name or a package holding it (``xqdb`` alone is the package's ``__init__``).
LAYERS: list[set[str]] = [
    {"xqdb.errors"},
    {"xqdb.rules"},
    # The public Position is the rules' position with move texts, and the package's
    # __init__ exports it.
    {"xqdb.notation", "xqdb.position", "xqdb"},
    {"xqdb.formats"},
    {"xqdb.replay"},
    # Reading without a database: records read and replayed, summed up.
    # Player names are canonicalised from the names alone, before any database.
    {"xqdb.openings", "xqdb.engine", "xqdb.reading", "xqdb.players"},
    {"xqdb.db"},
    # The opening tree and the HTML report read a database the import wrote.
    # Engine analysis of a database runs its engines in worker processes; searching,
    # exporting and showing read a database too.
    {"xqdb.parallel", "xqdb.importer", "xqdb.tree", "xqdb.report", "xqdb.analyser",
     "xqdb.show", "xqdb.search", "xqdb.export"},
    {"xqdb.cli", "xqdb.cli_reports", "xqdb.cli_analysis", "xqdb.cli_show", "xqdb.cli_browse",
     "xqdb.__main__"},
]


def layer_of(module: str) -> int | None:
    """The index in ``LAYERS`` of a dotted module name, or ``None`` when it has none.

    >>> layer_of("xqdb.rules.zobrist"), layer_of("xqdb.cli"), layer_of("xqdb")
    (1, 8, 2)
    >>> layer_of("xqdb.somewhere") is None
    True
    """
    best: tuple[int, int] | None = None
    for index, names in enumerate(LAYERS):
        for name in names:
            # The bare package name stands for its __init__ only, not for every module.
            inside = "." in name and module.startswith(name + ".")
            if (module == name or inside) and (best is None or len(name) > best[0]):
                best = (len(name), index)
    return None if best is None else best[1]


def module_name(path: Path, root: Path) -> str:
    """``xqdb/rules/board.py`` -> ``xqdb.rules.board``; a package's ``__init__`` is the package."""
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, root: Path) -> set[str]:
    """The modules of the package under ``root`` that the file imports, as dotted names.

    ``from . import x`` names ``package.x``, which may be a module or a name the package
    exports; either way it belongs to that package's layer.
    """
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    top = root.name
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if node.module is None:
                found.update(f"{target}.{alias.name}" for alias in node.names)
            else:
                found.add(target)
    return {m for m in found if m == top or m.startswith(top + ".")}


def layer_violations(root: Path) -> tuple[list[str], int]:
    """Every import that points upward or into a module without a layer, and how many
    imports inside the package were checked."""
    bad: list[str] = []
    checked = 0
    for path in sorted(root.rglob("*.py")):
        name = module_name(path, root)
        own = layer_of(name)
        if own is None:
            bad.append(f"{name} has no layer in LAYERS")
            continue
        for target in sorted(imports_of(path, root)):
            checked += 1
            theirs = layer_of(target)
            if theirs is None or theirs > own:
                bad.append(f"{name} (layer {own}) imports {target} (layer {theirs})")
    return bad, checked


def test_every_module_imports_only_downward() -> None:
    bad, checked = layer_violations(Path(xqdb.__file__).parent)
    assert not bad, "\n".join(bad)
    assert checked > 50  # the walk really saw the package's imports


def test_an_upward_import_is_found(tmp_path: Path) -> None:
    root = tmp_path / "xqdb"
    (root / "rules").mkdir(parents=True)
    (root / "__init__.py").write_text("from .position import Position\n")
    (root / "position.py").write_text("from .rules.board import RED\n")
    (root / "rules" / "__init__.py").write_text("")
    (root / "rules" / "board.py").write_text("from ..notation import read_move\nimport xqdb.cli\n")
    (root / "rules" / "check.py").write_text("from xqdb import Position\nfrom . import board\n")
    (root / "stray.py").write_text("")
    bad, checked = layer_violations(root)
    assert bad == [
        "xqdb.rules.board (layer 1) imports xqdb.cli (layer 8)",
        "xqdb.rules.board (layer 1) imports xqdb.notation (layer 2)",
        "xqdb.rules.check (layer 1) imports xqdb (layer 2)",
        "xqdb.stray has no layer in LAYERS",
    ]
    assert checked == 6
