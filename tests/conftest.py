"""Fixtures every test module may use."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

from datafiles import SHARED_DATA


def _cache_bytecode() -> None:
    """Let this process and the xqdb processes the tests start keep compiled modules.

    An environment with ``PYTHONDONTWRITEBYTECODE`` set compiles every module of xqdb
    again in each of the hundreds of processes the tests start (about a fifth of an
    ``xqdb info``'s CPU time). Users' Pythons cache bytecode, so the tests do as well,
    in a folder of the system's temporary folder rather than beside the sources.
    """
    if not (sys.dont_write_bytecode or os.environ.get("PYTHONDONTWRITEBYTECODE")):
        return
    prefix = os.environ.get("PYTHONPYCACHEPREFIX") or str(
        Path(tempfile.gettempdir()) / "xqdb-tests-pycache")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    sys.dont_write_bytecode = False
    sys.pycache_prefix = prefix


_cache_bytecode()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The corpus folder ``../shared/data``; the test is skipped, naming it, when it is absent.

    CI (``CI=true``, as ``.ci/run`` is run) has the corpus, so there its absence fails the
    test instead of hiding it behind a skip.
    """
    if not SHARED_DATA.is_dir():
        reason = (f"needs the corpus folder {SHARED_DATA} (../shared/data beside the "
                  "repository), which is absent")
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason)
        pytest.skip(reason)
    return SHARED_DATA


@pytest.fixture(scope="session")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seven hand-written games of :mod:`small_db`, imported once per test process.
    A module that needs other games defines a ``db`` fixture of its own, which takes
    precedence over this one."""
    from small_db import build_small_db

    return build_small_db(tmp_path_factory.mktemp("small"))


def imported_once(tmp_path_factory: pytest.TempPathFactory, name: str,
                  inputs: list[str], jobs: int = 2) -> Path:
    """``inputs`` imported for real (``jobs`` workers) into ``NAME.duckdb``, once per run:
    under pytest-xdist the first test process to need it imports it into the run's
    common folder, and each process gets a copy of its own (DuckDB lets one process
    write a file at a time).
    """
    from xqdb.pipeline.importer import import_paths

    path = tmp_path_factory.mktemp(name) / f"{name}.duckdb"
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        import_paths(inputs, path, jobs=jobs)
        return path
    import fcntl
    import shutil

    # The run's folder, above each process's own (``.../pytest-N/popen-gw0``).
    common = tmp_path_factory.getbasetemp().parent / f"{name}.duckdb"
    done = common.with_suffix(".done")
    with open(common.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            common.unlink(missing_ok=True)  # what a process that failed left
            import_paths(inputs, common, jobs=jobs)
            done.touch()
        shutil.copy(common, path)
    return path


@pytest.fixture(scope="session")
def ccpd_db(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """``ccpd-dev.zip`` imported for real, once per run: the report tests read it (those
    that change a database change a copy)."""
    return imported_once(tmp_path_factory, "ccpd", [str(shared_data / "ccpd-dev.zip")])


@pytest.fixture(scope="session")
def small_collection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The games of :data:`browse_support.SMALL_INPUTS`, imported once per run by one
    worker: the search and export tests read it (never write it)."""
    from browse_support import SMALL_INPUTS

    return imported_once(tmp_path_factory, "small-collection", SMALL_INPUTS, jobs=1)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """Keep each phase's report on the test (``item.report_call``), for a fixture to see
    whether the test failed (the browser tests save a screenshot then)."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report
