"""PTXPlus in performance mode (issue 27): the converted SASS runs through the timing model and
the apps still verify.  A representative handful (integer and FP arithmetic, shared memory and
barriers, atomics, textures, surfaces, tensor cores) runs on every test run; every app of
:data:`tests.ptxplus.test_ptxplus_apps.VERIFIED` on SM7_QV100 and the sm_86 builds on
SM86_RTX3070 run as ``slow`` tests (which ``.ci/run`` includes)."""

from __future__ import annotations

import json
import subprocess

import pytest

from cuobjdump_tools.sass import INSTALL_HINT, find_nvdisasm
from tests.apps.app_helpers import find_nvcc
from tests.ptxplus.test_ptxplus_apps import SM86, VERIFIED, _make, build_sm86
from tests.ptxplus.test_ptxplus_runs import lines, run

pytestmark = pytest.mark.skipif(find_nvdisasm() is None, reason=INSTALL_HINT)

#: apps whose every kernel ends in a device fault by design: no kernel completes, so none has stats
FAULTING = {"device_assert", "illegal_address"}
QUICK = ["vector_add", "matmul_tiled", "reduction", "atomic_ops", "texture_objects", "surface_rw", "wmma_gemm"]


def _check(p: subprocess.CompletedProcess, stats_path, app: str) -> None:
    assert p.returncode == 0, (p.stdout[-3000:], p.stderr[-3000:])
    assert not lines(p, "not supported;") and not lines(p, "PTXPlus: kernel"), p.stderr[-2000:]
    stats = json.loads(stats_path.read_text())
    assert stats["mode"] == "performance" and stats["isa"] == "ptxplus"
    assert (stats["kernels"] or app in FAULTING) and all(k["cycles"] > 0 and k["warp_insn"] > 0 for k in stats["kernels"])


def _qv100(app: str, tmp_path) -> None:
    exe = _make(f"bin/{app}")
    out = tmp_path / "stats.json"
    _check(run(exe, cwd=exe.parent, functional=False, json_out=out), out, app)


@pytest.mark.parametrize("app", QUICK)
def test_app_verifies_in_performance_mode(app, tmp_path):
    _qv100(app, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("app", [a for a in VERIFIED if a not in QUICK])
def test_every_app_verifies_in_performance_mode(app, tmp_path):
    _qv100(app, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("app", SM86)
def test_sm86_app_verifies_in_performance_mode_on_rtx3070(app, tmp_path):
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found")
    exe = tmp_path / app
    r = build_sm86(nvcc, app, exe)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "stats.json"
    _check(run(exe, gpu="SM86_RTX3070", functional=False, json_out=out), out, app)
