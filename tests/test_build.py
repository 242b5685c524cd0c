"""The two builds, built for real: a wheel compiled with mypyc where a C compiler works, the
pure-Python package where none does, an editable install that is always pure, and compiled
modules that are never run once their sources have changed.

Each test copies the project's build files and package to a temporary folder, builds there
with pip (in its isolated build environment) or ``setup.py``, and installs into a virtual
environment that sees this Python's packages (``--system-site-packages``), so that only xqdb
is installed. Every command runs without ``PYTHONPATH``: the venv's own xqdb is the one run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from xqdb.build import COMPILED_MODULES

ROOT = Path(__file__).resolve().parents[1]
PROJECT_FILES = ("pyproject.toml", "setup.py", "build_backend.py", "MANIFEST.in", "README.md")
#: The published perft(3) of the start position.
PERFT_3 = "perft(3) = 79666"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "XQDB_PURE", "CC")}
    env.update(extra)
    return env


def run(*args: str | Path, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=_env(**env),
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{args}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def copy_project(dest: Path) -> Path:
    """The files a build reads, without any build output or extension module of this tree."""
    for name in PROJECT_FILES:
        shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(ROOT / "xqdb", dest / "xqdb", ignore=shutil.ignore_patterns(
        "__pycache__", "*.so", "*.pyd", "_compiled_sources.txt"))
    return dest


def venv(path: Path) -> Path:
    """A virtual environment over this Python's packages; its ``bin`` folder."""
    run(sys.executable, "-m", "venv", "--system-site-packages", path, cwd=path.parent)
    return path / "bin"


def build_wheel(source: Path, out: Path, **env: str) -> tuple[Path, str]:
    done = run(sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w", out, source,
               cwd=out, **env)
    [wheel] = out.glob("xqdb-*.whl")
    return wheel, done.stdout + done.stderr


def loaded_from(bin_dir: Path, cwd: Path) -> dict[str, str]:
    """Where the venv's Python loads each compiled module of xqdb from."""
    code = ("import importlib, xqdb\n"
            f"for name in {COMPILED_MODULES!r}:\n"
            "    print(name, importlib.import_module(name).__file__)\n")
    out = run(bin_dir / "python", "-c", code, cwd=cwd).stdout
    return dict(line.split(" ", 1) for line in out.splitlines())


@pytest.fixture
def has_compiler() -> None:
    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        pytest.skip("needs a C compiler (cc or gcc) to build the compiled modules")


def build_requirements(source: Path, **env: str) -> list[str]:
    """What the build backend asks pip to install before it builds a wheel."""
    code = "import build_backend; print(build_backend.get_requires_for_build_wheel())"
    done = run(sys.executable, "-c", code, cwd=source, **env)
    return eval(done.stdout.strip().splitlines()[-1])


def test_mypy_is_asked_for_only_where_a_compiler_works(tmp_path: Path,
                                                        has_compiler: None) -> None:
    source = copy_project(tmp_path)
    assert not [r for r in build_requirements(source, CC="/bin/false") if "mypy" in r]
    assert not [r for r in build_requirements(source, XQDB_PURE="1") if "mypy" in r]
    assert [r for r in build_requirements(source) if r.startswith("mypy")]


@pytest.mark.slow
def test_a_wheel_built_with_a_compiler_runs_compiled_until_a_source_changes(
        tmp_path: Path, has_compiler: None) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "wheels").mkdir()
    wheel, _ = build_wheel(copy_project(tmp_path / "src"), tmp_path / "wheels")
    names = zipfile.ZipFile(wheel).namelist()
    extensions = [n for n in names if n.endswith(".so")]
    # One per compiled module, and the shared library that holds their code, all in xqdb/.
    assert len(extensions) == len(COMPILED_MODULES) + 1, extensions
    assert all(n.startswith("xqdb/") for n in extensions), extensions
    assert "xqdb/_compiled_sources.txt" in names and "xqdb/rules/board.py" in names

    bin_dir = venv(tmp_path / "venv")
    run(bin_dir / "python", "-m", "pip", "install", "--no-deps", wheel, cwd=tmp_path)
    version = run(bin_dir / "xqdb", "--version", cwd=tmp_path).stdout
    assert f"(compiled with mypyc: {len(COMPILED_MODULES)} modules)" in version
    assert PERFT_3 in run(bin_dir / "xqdb", "perft", cwd=tmp_path).stdout
    installed = Path(loaded_from(bin_dir, tmp_path)["xqdb.rules.board"]).parent.parent
    assert installed.is_relative_to(tmp_path / "venv")
    assert all(f.endswith(".so") for f in loaded_from(bin_dir, tmp_path).values())

    # An edited source: every compiled module is loaded from its source instead.
    board = installed / "rules" / "board.py"
    board.write_text(board.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    version = run(bin_dir / "xqdb", "--version", cwd=tmp_path).stdout
    assert "(pure Python: compiled modules are stale, xqdb/rules/board.py changed" in version
    assert all(f.endswith(".py") for f in loaded_from(bin_dir, tmp_path).values())
    assert PERFT_3 in run(bin_dir / "xqdb", "perft", cwd=tmp_path).stdout


@pytest.mark.slow
def test_with_no_usable_compiler_the_wheel_is_pure_python_and_works(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "wheels").mkdir()
    wheel, log = build_wheel(copy_project(tmp_path / "src"), tmp_path / "wheels", CC="/bin/false")
    assert "building the pure-Python package: no working C compiler" in log
    assert wheel.name.endswith("-py3-none-any.whl")
    assert not [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".so")]

    bin_dir = venv(tmp_path / "venv")
    run(bin_dir / "python", "-m", "pip", "install", "--no-deps", wheel, cwd=tmp_path)
    assert "(pure Python)" in run(bin_dir / "xqdb", "--version", cwd=tmp_path).stdout
    assert PERFT_3 in run(bin_dir / "xqdb", "perft", cwd=tmp_path).stdout


@pytest.mark.slow
def test_an_editable_install_is_pure_and_never_runs_stale_extension_modules(
        tmp_path: Path, has_compiler: None) -> None:
    (tmp_path / "src").mkdir()
    source = copy_project(tmp_path / "src")
    bin_dir = venv(tmp_path / "venv")
    # No compiler is needed for it, nor used.
    run(bin_dir / "python", "-m", "pip", "install", "--no-deps", "-e", source, cwd=tmp_path,
        CC="/bin/false")
    assert "(pure Python)" in run(bin_dir / "xqdb", "--version", cwd=tmp_path).stdout
    assert not list(source.rglob("*.so"))
    files = loaded_from(bin_dir, tmp_path)
    assert Path(files["xqdb.replay"]) == source / "xqdb" / "replay.py"

    # Extension modules built in the tree run while they match its sources...
    run(sys.executable, "setup.py", "-q", "build_ext", "--inplace", cwd=source)
    version = run(bin_dir / "xqdb", "--version", cwd=tmp_path).stdout
    assert f"(compiled with mypyc: {len(COMPILED_MODULES)} modules)" in version
    assert all(f.endswith(".so") for f in loaded_from(bin_dir, tmp_path).values())
    # ...and not once a source is edited: then the edit runs, as pure Python.
    replay = source / "xqdb" / "replay.py"
    replay.write_text(replay.read_text(encoding="utf-8").replace(
        '"""', '"""Edited. ', 1), encoding="utf-8")
    version = run(bin_dir / "xqdb", "--version", cwd=tmp_path).stdout
    assert "(pure Python: compiled modules are stale, xqdb/replay.py changed" in version
    files = loaded_from(bin_dir, tmp_path)
    assert all(f.endswith(".py") for f in files.values())
    doc = run(bin_dir / "python", "-c", "import xqdb.replay; print(xqdb.replay.__doc__)",
              cwd=tmp_path).stdout
    assert doc.startswith("Edited. ")
