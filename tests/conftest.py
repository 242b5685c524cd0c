"""Fixtures every test module may use."""

from __future__ import annotations

from pathlib import Path

import pytest

from datafiles import SHARED_DATA


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The corpus folder ``../shared/data``; the test is skipped, naming it, when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"needs the corpus folder {SHARED_DATA} (../shared/data beside the "
                    "repository), which is absent")
    return SHARED_DATA
