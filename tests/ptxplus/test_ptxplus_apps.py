"""The apps/ programs that verify in PTXPlus mode (issue 27): each runs its converted SASS
(sm_75 cubin on SM7_QV100; sm_86 builds on SM86_RTX3070) under ``gpgpusim run --functional
--ptxplus`` and must pass its own check, with no kernel falling back to PTX.  ``cdp_tree``
(dynamic parallelism: device-side launches through ``CALL.ABS`` of CUDA's device runtime, the
child kernel's address relocated into a ``UMOV``) is built with ``-rdc=true -lcudadevrt`` for
sm_86 as the Makefile builds it.  The one program not listed: ``spin_forever`` (never ends, by
design)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from cuobjdump_tools.sass import INSTALL_HINT, find_nvdisasm
from tests.apps.app_helpers import APPS_DIR, find_nvcc, make_apps
from tests.ptxplus.test_ptxplus_runs import lines, run

pytestmark = [pytest.mark.slow, pytest.mark.skipif(find_nvdisasm() is None, reason=INSTALL_HINT)]

VERIFIED = ["api_errors", "atomic_ops", "bfs", "bit_intrinsics", "cdp_tree", "constant_mem", "coop_groups", "device_assert", "device_heap",
            "device_printf", "device_query", "device_var", "double_math",
            "dynamic_smem", "event_timing", "exit_pending", "float_math", "func_pointers", "graph_capture", "grid3d_pitch", "grid_sync", "half_precision", "histogram",
            "host_callback", "host_threads", "illegal_address", "int64", "kernel_loop", "local_array",
            "managed_mem", "many_launches", "matmul_tiled", "mma_ldmatrix", "multi_unit", "noinline_call", "not_supported",
            "per_thread_stream", "prefix_scan", "printf_many", "recursion", "reduction", "register_pressure", "runtime_misc",
            "stencil2d", "stencil_oob", "stream_overlap", "stream_wait_event", "struct_by_value",
            "surface_rw", "sync_variants", "template_kernel", "texture_objects", "vector_add", "warp_intrinsics",
            "wavefront", "wmma_gemm"]
# built for sm_86 here: a spread of what the converter handles (warp reductions, atomics,
# recursion, function pointers, FP16, 64-bit division, shared memory, uniform datapath, textures,
# surfaces, tensor cores: HMMA.16816 / IMMA.16816, LDSM, MOVM; device-side launches)
SM86 = ["atomic_ops", "cdp_tree", "coop_groups", "func_pointers", "half_precision", "histogram", "int64", "matmul_tiled",
        "mma_ldmatrix", "recursion", "reduction", "surface_rw", "texture_objects", "warp_intrinsics", "wmma_gemm"]
#: the nvcc flags an app needs beyond ``-O2`` (as apps/Makefile gives them)
EXTRA_FLAGS = {"cdp_tree": ["-rdc=true", "-lcudadevrt"]}


def build_sm86(nvcc: str, app: str, exe: Path) -> subprocess.CompletedProcess:
    """Build ``app`` for sm_86 only (its cubin is what PTXPlus then converts)."""
    return subprocess.run([nvcc, "-cudart", "shared", "-O2", "-arch=sm_86", *EXTRA_FLAGS.get(app, []),
                           str(APPS_DIR / f"{app}.cu"), "-o", str(exe)], capture_output=True, text=True,
                          timeout=600, cwd=APPS_DIR)


def _make(target: str) -> Path:
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found: the apps cannot be built")
    r = make_apps(f"NVCC={nvcc}", target)
    assert r.returncode == 0, r.stdout + r.stderr
    return APPS_DIR / target


@pytest.mark.parametrize("app", VERIFIED)
def test_app_verifies_on_qv100(app):
    exe = _make(f"bin/{app}")
    p = run(exe, cwd=exe.parent)
    assert p.returncode == 0, (p.stdout[-3000:], p.stderr[-3000:])
    assert not lines(p, "not supported;") and not lines(p, "PTXPlus: kernel"), p.stderr[-2000:]


@pytest.mark.parametrize("app", SM86)
def test_app_verifies_on_rtx3070_from_sm86(app, tmp_path_factory):
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found")
    d = tmp_path_factory.mktemp("sm86")
    exe = d / app
    r = build_sm86(nvcc, app, exe)
    assert r.returncode == 0, r.stderr
    p = run(exe, gpu="SM86_RTX3070")
    assert p.returncode == 0, (p.stdout[-3000:], p.stderr[-3000:])
    assert any("converted from its sm_86 SASS" in ln for ln in lines(p, "GPGPU-Sim PTXPlus:"))
    assert not lines(p, "PTXPlus: kernel")
