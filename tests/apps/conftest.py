"""Session fixtures for the end-to-end app tests (tests/apps): build the apps once, find the
simulator's libcudart."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from app_helpers import BIN_DIR, app_names, find_nvcc, gpgpusim_cmd, make_apps, sim_env


@pytest.fixture(scope="session")
def app_bin() -> Path:
    """Builds all apps once (``make -C apps -j2``) and returns ``apps/bin``."""
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found (set NVCC or put it on PATH): the CUDA apps cannot be built")
    if shutil.which("make") is None:
        pytest.skip("make not found: the CUDA apps cannot be built")
    proc = make_apps("-j2", f"NVCC={nvcc}", timeout=900)
    if proc.returncode != 0:
        pytest.fail(f"building apps/ failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    missing = [n for n in app_names() if not (BIN_DIR / n).is_file()]
    assert not missing, f"make did not produce {missing}"
    return BIN_DIR


@pytest.fixture(scope="session")
def libdir() -> Path:
    """``gpgpusim libdir``: the folder holding the simulator's libcudart.so.13."""
    proc = subprocess.run(gpgpusim_cmd() + ["libdir"], capture_output=True, text=True,
                          env=sim_env(), timeout=120)
    assert proc.returncode == 0, f"`gpgpusim libdir` failed:\n{proc.stdout}\n{proc.stderr}"
    path = Path(proc.stdout.strip().splitlines()[-1])
    assert (path / "libcudart.so.13").exists(), (
        f"{path} has no libcudart.so.13: build the shim first (pip install -e .)")
    return path
