"""Layering: every module of xqdb imports only from its own layer or the layers below.

The layers are those of the design (rules < notation < formats < replay < openings and
engine < db < parallel and importer < cli); a package the design plans but the code does
not have yet is simply absent. A new top-level module must be given its layer in
``LAYERS``, so that nothing lands between the layers unexamined.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import xqdb

#: Lowest first. A module belongs to the layer of the longest name here that is its dotted
#: name or a package holding it.
LAYERS: list[set[str]] = [
    # Which build runs (compiled or pure) is decided before anything else loads.
    {"xqdb.errors", "xqdb.build"},
    {"xqdb.rules"},
    # The public Position is the rules' position with move texts.
    {"xqdb.notation", "xqdb.position"},
    {"xqdb.formats"},
    {"xqdb.replay"},
    # Talking to engines knows positions, not games or databases.
    {"xqdb.openings", "xqdb.engine"},
    # Judging moves, puzzles and calibration: from evaluations, before any database.
    {"xqdb.analysis"},
    {"xqdb.db"},
    # Jobs over files and databases (import, read, analyze), finding and showing games,
    # and drawing boards, tables and the HTML report.
    {"xqdb.pipeline", "xqdb.browse", "xqdb.render"},
    # The front door: one Database object for every job.
    {"xqdb.database"},
    # The web explorer: pages and JSON over the front door.
    {"xqdb.serve"},
    {"xqdb.cli", "xqdb.__main__"},
    # The package's __init__ exports Position and, loaded on first use, Database.
    {"xqdb"},
]
#: The only layers that may import these packages (the layers above db name a connection
#: by ``xqdb.db.schema.Connection``; their SQL lives in db/ and queries/).
ONLY = {"click": "xqdb.cli", "duckdb": "xqdb.db"}
def layer_of(module: str) -> int | None:
    """The index in ``LAYERS`` of a dotted module name, or ``None`` when it has none.

    >>> layer_of("xqdb.rules.zobrist"), layer_of("xqdb.cli.core"), layer_of("xqdb")
    (1, 11, 12)
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


@functools.lru_cache(maxsize=None)
def import_nodes(source: str) -> list[ast.Import | ast.ImportFrom]:
    """The import statements of a module's text, parsed once for the three walks that
    need them."""
    return [node for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.Import, ast.ImportFrom))]


def imports_of(path: Path, root: Path) -> set[str]:
    """The modules of the package under ``root`` that the file imports, as dotted names.

    ``from . import x`` names ``package.x``, which may be a module or a name the package
    exports; either way it belongs to that package's layer.
    """
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    top = root.name
    found: set[str] = set()
    for node in import_nodes(path.read_text(encoding="utf-8")):
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


def third_party_imports(path: Path) -> set[str]:
    """The top-level names of the packages outside xqdb that the file imports."""
    found: set[str] = set()
    for node in import_nodes(path.read_text(encoding="utf-8")):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each module of the package and the modules of the package it imports (``from . import
    x`` names the module ``x`` where there is one, else the package)."""
    modules = {module_name(path, root): path for path in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for target in imports_of(path, root):
            while target not in modules and "." in target:
                target = target.rpartition(".")[0]
            if target != name:
                targets.add(target)
        graph[name] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``, each once, as the modules around it.

    >>> circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    [['a', 'b', 'c']]
    """
    found: list[list[str]] = []
    seen: set[frozenset[str]] = set()
    importers: dict[str, set[str]] = {}
    for node, targets in graph.items():
        for target in targets:
            importers.setdefault(target, set()).add(node)
    for start in sorted(graph):
        # Only the modules that lead back to ``start`` through modules after it can be on
        # its circles: walking the others too takes every path of the whole graph.
        back, todo = {start}, [start]
        while todo:
            for importer in importers.get(todo.pop(), ()):
                if importer > start and importer not in back:
                    back.add(importer)
                    todo.append(importer)
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(graph.get(node, ())):
                if nxt == start:
                    if frozenset(path) not in seen:
                        seen.add(frozenset(path))
                        found.append(path)
                elif nxt not in path and nxt > start and nxt in back:
                    stack.append((nxt, path + [nxt]))
    return found


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
        for package in sorted(third_party_imports(path) & set(ONLY)):
            owner = ONLY[package]
            if name != owner and not name.startswith(owner + "."):
                bad.append(f"{name} imports {package}, which only {owner} may")
    for circle in circles(import_graph(root)):
        bad.append("import circle: " + " -> ".join(circle + circle[:1]))
    return bad, checked


def test_every_module_imports_only_downward() -> None:
    bad, checked = layer_violations(Path(xqdb.__file__).parent)
    assert not bad, "\n".join(bad)
    assert checked > 50  # the walk really saw the package's imports


def test_an_upward_import_is_found(tmp_path: Path) -> None:
    root = tmp_path / "xqdb"
    (root / "rules").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "position.py").write_text("from .rules.board import RED\n")
    (root / "rules" / "__init__.py").write_text("")
    (root / "rules" / "board.py").write_text("from ..notation import read_move\nimport xqdb.cli\n")
    (root / "rules" / "check.py").write_text("from xqdb import Position\nfrom . import board\n"
                                             "import click\n")
    (root / "rules" / "zobrist.py").write_text("def key():\n    from .check import x\n")
    (root / "rules" / "perft.py").write_text("from .zobrist import key\n")
    (root / "stray.py").write_text("")
    (root / "rules" / "board.py").write_text("from ..notation import read_move\nimport xqdb.cli\n"
                                             "from .perft import z\n")
    bad, checked = layer_violations(root)
    assert bad == [
        "xqdb.rules.board (layer 1) imports xqdb.cli (layer 11)",
        "xqdb.rules.board (layer 1) imports xqdb.notation (layer 2)",
        "xqdb.rules.check (layer 1) imports xqdb (layer 12)",
        "xqdb.rules.check imports click, which only xqdb.cli may",
        "xqdb.stray has no layer in LAYERS",
        # The import inside a function counts: the circle runs all the same when it is called.
        "import circle: xqdb.rules.board -> xqdb.rules.perft -> xqdb.rules.zobrist"
        " -> xqdb.rules.check -> xqdb.rules.board",
    ]
    assert checked == 8


#: Modules that hold no SQL and never talk to DuckDB themselves: the SQL they need lives in
#: xqdb.db (the goal is every module outside xqdb.db; these have got there).
WITHOUT_DUCKDB = ("xqdb.analysis", "xqdb.pipeline.analyze", "xqdb.engine")


def test_the_analysis_leaves_sql_to_the_database_layer() -> None:
    root = Path(xqdb.__file__).parent
    offenders = [module_name(path, root) for path in sorted(root.rglob("*.py"))
                 if any(module_name(path, root) == m or module_name(path, root).startswith(m + ".")
                        for m in WITHOUT_DUCKDB)
                 and "duckdb" in third_party_imports(path)]
    assert offenders == []
    seen = [module_name(path, root) for path in root.rglob("*.py")
            if module_name(path, root).startswith("xqdb.analysis.")]
    assert len(seen) >= 5


def test_finding_showing_and_drawing_hold_no_sql_engine() -> None:
    # SQL text and its execution live in xqdb/db and xqdb/queries: browse and render ask
    # db for rows (and name a connection by xqdb.db.schema.Connection).
    root = Path(xqdb.__file__).parent
    importing = sorted(module_name(path, root) for folder in ("browse", "render")
                       for path in (root / folder).rglob("*.py")
                       if "duckdb" in third_party_imports(path))
    assert importing == []
