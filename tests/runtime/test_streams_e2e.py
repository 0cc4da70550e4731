"""Stream-manager behaviour seen by real nvcc binaries on the shim: exit with work outstanding,
per-thread synchronous copies (``_ptds``), and internal-error reports with and without
``GPGPUSIM_TRACEBACK``.

The shim is built once per session into a temporary directory (as tests/shim does), so these
tests exercise the current C wrappers and ``cudart_api.h``; the programs are compiled with
``nvcc -cudart shared`` at test time (skipped without nvcc).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc not available")
TIMEOUT_S = 300
EXIT_LINE = "GPGPU-Sim: *** exit detected ***"


@pytest.fixture(scope="module")
def shim_dir(tmp_path_factory) -> Path:
    sys.path.insert(0, str(ROOT / "shim"))
    try:
        import build_shim
    finally:
        sys.path.pop(0)
    return Path(build_shim.build(str(tmp_path_factory.mktemp("shim")))).parent


def compile_cu(src: Path, out: Path, *flags: str) -> Path:
    proc = subprocess.run([NVCC, "-cudart", "shared", "-O2", f"-I{ROOT / 'apps'}", *flags, str(src),
                           "-o", str(out)], capture_output=True, text=True, timeout=TIMEOUT_S)
    assert proc.returncode == 0, proc.stderr
    return out


def run(exe: Path, shim_dir: Path, cwd: Path, **extra: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    for var in ("GPGPUSIM_TRACEBACK", "GPGPUSIM_CONFIG", "GPGPUSIM_OPTIONS", "GPGPUSIM_DRIVER",
                "CUDA_LAUNCH_BLOCKING", "GPGPUSIM_STATS_JSON"):
        env.pop(var, None)
    env.update(LD_LIBRARY_PATH=str(shim_dir), GPGPUSIM_PYTHONPATH=str(ROOT), PTX_SIM_MODE_FUNC="1")
    env.update(extra)
    return subprocess.run([str(exe)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT_S)


def test_exit_with_work_outstanding(shim_dir, tmp_path):
    """apps/exit_pending returns from main with six kernels, two copies and two host functions
    queued on two streams: all run, the final statistics cover all six kernels, and the exit
    line is the simulator's last output."""
    exe = compile_cu(ROOT / "apps" / "exit_pending.cu", tmp_path / "exit_pending")
    stats = tmp_path / "stats.json"
    r = run(exe, shim_dir, tmp_path, GPGPUSIM_STATS_JSON=str(stats))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    main_done = lines.index("exit_pending: main returns with work outstanding")
    verdict = lines.index("exit_pending: PASS")          # printed by the last host function
    assert main_done < verdict
    assert lines[-1] == EXIT_LINE and r.stdout.count("exit detected") == 1
    done = [ln for ln in lines if ln.startswith("GPGPU-Sim: Done functional simulation")]
    assert len(done) == 6
    assert main_done < lines.index(done[-1]) < len(lines) - 1
    data = json.loads(stats.read_text())
    assert data["totals"]["kernels"] == 6
    assert sorted(k["kernel_stream_id"] for k in data["kernels"]) == [1, 1, 1, 2, 2, 2]
    assert done[-1] == (f"GPGPU-Sim: Done functional simulation "
                        f"({data['totals']['functional_insn']} instructions simulated).")
    assert "Traceback" not in r.stderr and "FAIL" not in r.stdout


PTDS_SRC = r"""
// Built with --default-stream per-thread: thread B blocks its per-thread default stream behind
// a host function until thread A's synchronous copies (the _ptds entry points) have returned.
// They run on A's own per-thread stream, so they must not wait for B's.
#include <atomic>
#include <chrono>
#include <thread>
#include "check.h"

static std::atomic<int> released{0}, timed_out{0};
static void CUDART_CB wait_for_a(void *) {
  int i = 0;
  for (; i < 5000 && !released.load(); i++) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (i == 5000) timed_out = 1;
}
__global__ void fill(unsigned *d, unsigned v) { d[threadIdx.x] = v + threadIdx.x; }
__device__ unsigned sym[32];

int main() {
  unsigned *d;
  CHECK(cudaMalloc(&d, 64 * sizeof(unsigned)));
  std::atomic<int> b_ready{0};
  std::thread b([&] {
    fill<<<1, 32>>>(d + 32, 100);
    CHECK(cudaLaunchHostFunc(0, wait_for_a, nullptr));
    b_ready = 1;
    CHECK(cudaStreamSynchronize(0));
  });
  while (!b_ready.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  fill<<<1, 32>>>(d, 7);
  CHECK_LAUNCH();
  unsigned h[32], s[32];
  CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));          // cudaMemcpy_ptds
  CHECK(cudaMemset(d, 0, sizeof(h)));                                   // cudaMemset_ptds
  CHECK(cudaMemcpyToSymbol(sym, h, sizeof(h)));                         // ..ToSymbol_ptds
  CHECK(cudaMemcpyFromSymbol(s, sym, sizeof(s)));                       // ..FromSymbol_ptds
  unsigned z[32];
  CHECK(cudaMemcpy2D(z, 4, d, 4, 4, 32, cudaMemcpyDeviceToHost));       // cudaMemcpy2D_ptds
  int waited = timed_out.load();
  released = 1;
  b.join();
  int bad = 0;
  for (int i = 0; i < 32; i++) bad += (h[i] != 7u + i) + (s[i] != 7u + i) + (z[i] != 0);
  if (waited) { printf("synchronous copies waited for another thread's stream\n"); bad++; }
  return report("ptds", bad);
}
"""


def test_ptds_copies_do_not_wait_for_other_threads(shim_dir, tmp_path):
    src = tmp_path / "ptds.cu"
    src.write_text(PTDS_SRC)
    exe = compile_cu(src, tmp_path / "ptds", "--default-stream", "per-thread", "-Xcompiler", "-pthread")
    imports = subprocess.run(["nm", "-D", str(exe)], capture_output=True, text=True).stdout \
        if shutil.which("nm") else "cudaMemcpy_ptds cudaMemset_ptds"
    assert "cudaMemcpy_ptds" in imports and "cudaMemset_ptds" in imports
    r = run(exe, shim_dir, tmp_path)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr
    assert "ptds: PASS" in r.stdout.splitlines()


FAULT_SRC = r"""
#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
int main() {
  int *d;
  cudaMalloc(&d, 128);
  k<<<1, 32>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  printf("sync -> %s\n", cudaGetErrorName(e));
  return 0;
}
"""

SITECUSTOMIZE = '''
import gpgpusim.functional.engine as _engine

def _broken_launch(*args, **kwargs):
    raise RuntimeError("injected engine failure")

_engine.launch = _broken_launch
'''


@pytest.mark.parametrize("traceback_on", [False, True])
def test_internal_engine_error_traceback_only_when_asked(shim_dir, tmp_path, traceback_on):
    """An exception inside the engine (injected through a sitecustomize on PYTHONPATH) reaches
    the app as cudaErrorLaunchFailure with one stderr line; the Python traceback appears only
    with GPGPUSIM_TRACEBACK=1."""
    src = tmp_path / "fault.cu"
    src.write_text(FAULT_SRC)
    exe = compile_cu(src, tmp_path / "fault")
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    extra = {"PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    if traceback_on:
        extra["GPGPUSIM_TRACEBACK"] = "1"
    r = run(exe, shim_dir, tmp_path, **extra)
    assert r.returncode == 0, r.stderr
    assert "sync -> cudaErrorLaunchFailure" in r.stdout.splitlines()
    line = "gpgpusim: kernel '_Z1kPi': internal simulator error: RuntimeError: injected engine failure"
    assert line in r.stderr.splitlines()
    if traceback_on:
        assert "Traceback (most recent call last)" in r.stderr
        assert "in _broken_launch" in r.stderr
    else:
        assert "Traceback" not in r.stderr
        assert "_broken_launch" not in r.stderr
