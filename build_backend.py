"""xqdb's build backend: setuptools', with the hot core compiled by mypyc where it can be.

A regular install (``pip install .``, a wheel, an install from the sdist) compiles the modules
named by ``xqdb.build.COMPILED_MODULES`` when a working C compiler with Python's headers is
found and ``XQDB_PURE`` is not set in the environment; only then does it ask for mypy. Without
a compiler, or when compiling fails, it installs the pure-Python package, with a warning.

An editable install (``pip install -e .``) is always pure Python, so that an edit to a source
is never shadowed by an extension module built from an older one. For a compiled source tree,
``python setup.py build_ext --inplace`` builds the extension modules beside the sources; if
the sources change afterwards, ``xqdb.build`` loads them all as pure Python again.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import sysconfig
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401  (the hooks used as they are)
    build_editable, build_sdist, build_wheel, get_requires_for_build_editable,
    get_requires_for_build_sdist, prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

#: The mypy (which holds mypyc) that compiles; the compiled modules need nothing of it at run time.
MYPY = "mypy>=2.4"
#: The setup.py commands that build the package's modules; any other (``egg_info``,
#: ``sdist``, ``editable_wheel``, ``develop``) gets the pure-Python package.
BUILDING = {"build", "build_ext", "bdist_wheel", "install"}
ROOT = Path(__file__).resolve().parent
#: The shared library that holds the compiled code (the modules are thin shims over it):
#: ``xqdb/_compiled__mypyc.*.so``.
SHARED_LIBRARY = "xqdb._compiled"


def warn(text: str) -> None:
    print(f"warning: xqdb: {text}", file=sys.stderr, flush=True)


def xqdb_build(root: Path = ROOT) -> ModuleType:
    """``xqdb/build.py`` loaded on its own, for its list of compiled modules and its record of
    their sources: building must not import the xqdb package."""
    spec = importlib.util.spec_from_file_location("_xqdb_build", root / "xqdb" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def why_not_compiled() -> str | None:
    """Why this build cannot be compiled (``None`` when it can): ``XQDB_PURE`` is set, or no
    C compiler builds an extension module against this Python's headers."""
    if os.environ.get("XQDB_PURE"):
        return "XQDB_PURE is set"
    import setuptools  # noqa: F401  (its distutils, not the standard library's)
    from distutils.ccompiler import new_compiler
    from distutils.errors import CCompilerError, DistutilsError
    from distutils.sysconfig import customize_compiler

    compiler = new_compiler()
    customize_compiler(compiler)  # honours CC, CFLAGS and the rest, as build_ext does
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.c"
        probe.write_text("#include <Python.h>\nint xqdb_probe(void) { return 0; }\n")
        try:
            objects = compiler.compile([str(probe)], output_dir=tmp,
                                       include_dirs=[sysconfig.get_paths()["include"]])
            compiler.link_shared_object(objects, str(Path(tmp) / "probe.so"))
        except (CCompilerError, DistutilsError, OSError) as exc:
            return f"no working C compiler ({exc})"
    return None


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    requires = list(_setuptools.get_requires_for_build_wheel(config_settings))
    reason = why_not_compiled()
    if reason is None:
        requires.append(MYPY)
    return requires


def setup_options(commands: list[str]) -> dict[str, Any]:
    """The ``setup()`` arguments that compile the hot core, for a command line that builds
    and a machine that can; ``{}`` (the pure-Python package) otherwise."""
    if not BUILDING.intersection(commands):
        return {}
    reason = why_not_compiled()
    if reason is not None:
        warn(f"building the pure-Python package: {reason}")
        return {}
    try:
        from mypyc.build import mypycify
    except ImportError:
        warn("building the pure-Python package: mypy (with mypyc) is not installed")
        return {}
    build = xqdb_build()
    paths = {module: build.source_path(module, ROOT / "xqdb") for module in build.COMPILED_MODULES}
    digests = {module: build.digest(path) for module, path in paths.items()}
    sources = [path.relative_to(ROOT).as_posix() for path in paths.values()]
    try:
        # Only the compiled modules' own errors count: what they import is checked by the
        # project's mypy run, and may lack its third-party packages here. Their shared
        # library goes inside the package (by default it is a top-level module named by a
        # hash), where an editable install's finder finds it.
        extensions = mypycify(["--follow-imports=silent", "--ignore-missing-imports",
                               "--no-warn-unused-ignores", *sources], opt_level="3",
                              group_name=SHARED_LIBRARY)
    except (Exception, SystemExit) as exc:  # mypyc exits on a type error
        warn(f"building the pure-Python package: mypyc failed ({exc!r})")
        return {}
    return {"ext_modules": extensions,
            "cmdclass": {"build_ext": _recording_build_ext(build, digests)}}


def _recording_build_ext(build: ModuleType, digests: dict[str, str]) -> type:
    """setuptools' ``build_ext`` that records the digests of the compiled sources beside the
    extension modules, and falls back to pure Python when compiling fails."""
    from distutils.errors import CCompilerError, DistutilsError
    from setuptools.command.build_ext import build_ext

    class RecordingBuildExt(build_ext):
        def run(self) -> None:
            record = Path(self.get_ext_fullpath("xqdb.position")).parent / build.SOURCES_FILE
            try:
                super().run()
            except (CCompilerError, DistutilsError, OSError) as exc:
                warn(f"building the pure-Python package: compiling failed ({exc})")
                for output in self.get_outputs():
                    Path(output).unlink(missing_ok=True)
                record.unlink(missing_ok=True)
                return
            record.parent.mkdir(parents=True, exist_ok=True)
            record.write_text(build.sources_text(digests), encoding="utf-8")

    return RecordingBuildExt
