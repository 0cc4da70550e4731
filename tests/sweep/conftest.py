"""Fixtures for the sweep tests: the few apps they run, built once per session with nvcc."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "apps"))
from app_helpers import BIN_DIR, find_nvcc, make_apps  # noqa: E402

#: the apps the sweep tests run (small, fast in both modes)
SWEEP_APPS = ("vector_add", "reduction", "spin_forever")


@pytest.fixture(scope="session")
def sweep_bin() -> Path:
    """``apps/bin`` with :data:`SWEEP_APPS` built (``make -C apps bin/<app>``)."""
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found (set NVCC or put it on PATH): the CUDA apps cannot be built")
    proc = make_apps(f"NVCC={nvcc}", *(f"bin/{a}" for a in SWEEP_APPS))
    if proc.returncode != 0:
        pytest.fail(f"building {SWEEP_APPS} failed:\n{proc.stdout}\n{proc.stderr}")
    return BIN_DIR
