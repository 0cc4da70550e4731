"""Helpers for the end-to-end app tests (tests/apps): app list, nvcc, CLI, environment.

The apps in ``apps/`` are built with ``make -C apps`` (nvcc ``-cudart shared``, default arch)
the first time a test session needs them, one make at a time across parallel test workers
(:func:`make_apps`); without nvcc every app test is skipped with that reason.
Each app is then run as an unmodified binary on the simulator, see ``test_apps.py``.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path


REPO = Path(__file__).resolve().parents[2]
APPS_DIR = REPO / "apps"
BIN_DIR = APPS_DIR / "bin"
MULTI_UNIT_SOURCES = {"multi_unit_main", "multi_unit_lib"}


def app_names() -> list[str]:
    """Every app the Makefile builds: one per ``apps/*.cu``, the two multi_unit units as one."""
    names = {p.stem for p in APPS_DIR.glob("*.cu")} - MULTI_UNIT_SOURCES
    if any((APPS_DIR / f"{s}.cu").exists() for s in MULTI_UNIT_SOURCES):
        names.add("multi_unit")
    return sorted(names)


def variant_names() -> list[str]:
    """The build variants the Makefile makes under ``apps/bin/variants`` (``make list-variants``);
    empty when make is unavailable."""
    if shutil.which("make") is None:
        return []
    proc = subprocess.run(["make", "-s", "-C", str(APPS_DIR), "list-variants"], capture_output=True, text=True)
    return sorted(proc.stdout.split()) if proc.returncode == 0 else []


def find_nvcc() -> str | None:
    """``$NVCC``, else ``nvcc`` on PATH, else the toolkit's usual places."""
    env = os.environ.get("NVCC")
    if env:
        return env if shutil.which(env) else None
    for cand in ("nvcc", "/usr/local/bin/nvcc", "/usr/local/cuda/bin/nvcc"):
        found = shutil.which(cand)
        if found:
            return found
    return None


def make_apps(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """``make -C apps <args>`` (output captured), one at a time across processes: test workers
    running in parallel (``pytest -n``) would otherwise build the same binary at once, one
    writing it while another runs it.  An up-to-date target costs make's check only."""
    BIN_DIR.mkdir(parents=True, exist_ok=True)
    with open(BIN_DIR / ".make.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return subprocess.run(["make", "-C", str(APPS_DIR), *args], capture_output=True, text=True,
                              timeout=timeout)


def gpgpusim_cmd() -> list[str]:
    """How to invoke the ``gpgpusim`` CLI: the installed script, else ``gpgpusim.cli.main``
    from this source tree."""
    exe = shutil.which("gpgpusim")
    if exe:
        return [exe]
    return [sys.executable, "-c", "import sys; from gpgpusim.cli import main; sys.exit(main())"]


def sim_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for simulated runs: the source tree importable from the test process and
    from the interpreter embedded in the app (GPGPUSIM_PYTHONPATH), tracebacks on."""
    env = dict(os.environ)
    path = [str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(path)
    env["GPGPUSIM_PYTHONPATH"] = str(REPO)
    env["GPGPUSIM_TRACEBACK"] = "1"
    for var in ("PTX_SIM_MODE_FUNC", "GPGPUSIM_DRIVER", "GPGPUSIM_CONFIG", "GPGPUSIM_OPTIONS"):
        env.pop(var, None)
    if extra:
        env.update(extra)
    return env
