"""Fixtures for engine tests (helpers live in engine_helpers.py)."""

import pytest
from engine_helpers import DATA

from gpgpusim.ptx import load_ptx_cached


@pytest.fixture(scope="session")
def kernels_module():
    return load_ptx_cached((DATA / "kernels.ptx").read_text(), "kernels.ptx")
