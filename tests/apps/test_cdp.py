"""CUDA dynamic parallelism (gpgpusim/functional/cdp.py, gpgpusim/runtime/cdp.py): the explicit
device-runtime API (``cudaGetParameterBuffer``/``cudaLaunchDevice``) from a program built here
with ``-rdc=true -lcudadevrt``, in both modes.  ``apps/cdp_tree`` (run by test_apps.py in every
route) covers ``<<<>>>`` launches, recursion, tail launches and the ordering guarantees; the
unsupported device-runtime calls are in tests/test_cli.py."""

from __future__ import annotations

import subprocess

import pytest
from app_helpers import find_nvcc, gpgpusim_cmd, sim_env

EXPLICIT_SOURCE = r"""
#include <cstdio>
struct Args { int *out; int v; };
__global__ void child(int *out, int v) { out[threadIdx.x] = v + threadIdx.x; }
__global__ void parent(int *out) {
  if (threadIdx.x == 0) {
    Args *p = (Args *)cudaGetParameterBuffer(8, sizeof(Args));
    p->out = out + 8 * blockIdx.x;
    p->v = 100 * (blockIdx.x + 1);
    out[32 + blockIdx.x] = cudaLaunchDevice((void *)child, p, dim3(1), dim3(8), 0, 0);
    // memory that no cudaGetParameterBuffer returned: refused, nothing launched
    out[34 + blockIdx.x] = cudaLaunchDevice((void *)child, (void *)out, dim3(1), dim3(8), 0, 0);
  }
}
int main() {
  int *d, h[36];
  cudaMalloc(&d, sizeof h);
  cudaMemset(d, 0, sizeof h);
  parent<<<2, 32>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 36; i++) printf("%d ", h[i]);
  printf("\nexplicit: %s\n", cudaGetErrorName(e));
  return 0;
}
"""


@pytest.mark.parametrize("opts", [["--functional"], []], ids=["functional", "performance"])
def test_explicit_device_launch_api(tmp_path, opts):
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found")
    (tmp_path / "explicit.cu").write_text(EXPLICIT_SOURCE)
    subprocess.run([nvcc, "-cudart", "shared", "-rdc=true", str(tmp_path / "explicit.cu"), "-o",
                    str(tmp_path / "explicit"), "-lcudadevrt"], check=True, capture_output=True, timeout=600)
    r = subprocess.run(gpgpusim_cmd() + ["run", *opts, "--", str(tmp_path / "explicit")], capture_output=True,
                       text=True, cwd=tmp_path, env=sim_env(), timeout=600)
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and "explicit: cudaSuccess" in lines, r.stdout[-3000:] + r.stderr[-3000:]
    values = [int(x) for x in lines[lines.index("explicit: cudaSuccess") - 1].split()]
    assert values == ([100 + t for t in range(8)] + [200 + t for t in range(8)] + [0] * 16
                      + [0, 0] + [1, 1])        # cudaSuccess, then cudaErrorInvalidValue twice
    if not opts:
        # the parent and its two children, each with its own statistics block; the children
        # start when their launch calls issue and end while the parent's threads still wait
        # out the -cdp_latency of their second (refused) launch call
        assert [ln for ln in lines if ln.startswith("kernel_name = ")] == [
            "kernel_name = _Z5childPii ", "kernel_name = _Z5childPii ", "kernel_name = _Z6parentPi "]


NOT_A_KERNEL_SOURCE = r"""
#include <cstdio>
__device__ __noinline__ void helper(int *out) { out[0] = 1; }
__global__ void parent(int *out) {
  if (threadIdx.x == 0) {
    void *p = cudaGetParameterBuffer(8, 8);
    *(int **)p = out;
    cudaLaunchDevice((void *)helper, p, dim3(1), dim3(1), 0, 0);
  }
}
int main() {
  int *d;
  cudaMalloc(&d, 4);
  parent<<<1, 32>>>(d);
  printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
"""


def test_launch_of_a_non_kernel_fails_cleanly(tmp_path):
    """cudaLaunchDevice of a __device__ function: the parent stops with one line naming the call
    and cudaErrorInvalidDeviceFunction, no traceback."""
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found")
    (tmp_path / "nk.cu").write_text(NOT_A_KERNEL_SOURCE)
    subprocess.run([nvcc, "-cudart", "shared", "-rdc=true", str(tmp_path / "nk.cu"), "-o", str(tmp_path / "nk"),
                    "-lcudadevrt"], check=True, capture_output=True, timeout=600)
    r = subprocess.run(gpgpusim_cmd() + ["run", "--functional", "--", str(tmp_path / "nk")], capture_output=True,
                       text=True, cwd=tmp_path, env=sim_env(), timeout=600)
    assert "sync: cudaErrorInvalidDeviceFunction" in r.stdout.splitlines(), r.stdout[-2000:] + r.stderr[-2000:]
    lines = [ln for ln in r.stderr.splitlines() if "is no kernel of" in ln]
    assert len(lines) == 1 and "__cudaCDP2LaunchDevice at " in lines[0], r.stderr[-2000:]
    assert "Traceback" not in r.stderr


OVERLAP_SOURCE = r"""
#include <cstdio>
__global__ void child(int *out) { out[threadIdx.x] = threadIdx.x + 1; }
__global__ void parent(int *out, unsigned *spin, int n) {
  if (threadIdx.x == 0) child<<<1, 32>>>(out);
  unsigned v = threadIdx.x;
  for (int i = 0; i < n; i++) v = v * 3u + 1u;     // long work after the launch
  spin[threadIdx.x] = v;
}
int main() {
  int *d, h[32];
  unsigned *s, hs[32];
  cudaMalloc(&d, sizeof h);
  cudaMalloc(&s, sizeof hs);
  cudaMemset(d, 0, sizeof h);
  parent<<<1, 32>>>(d, s, 2000);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(hs, s, sizeof hs, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < 32; i++) {
    unsigned v = i;
    for (int k = 0; k < 2000; k++) v = v * 3u + 1u;
    bad += h[i] != i + 1 || hs[i] != v;
  }
  printf("overlap: %s, %d bad\n", cudaGetErrorName(e), bad);
  return 0;
}
"""


@pytest.mark.parametrize("opts", [["--functional"], []], ids=["functional", "performance"])
def test_a_child_runs_beside_its_parent_in_performance_mode(tmp_path, opts):
    """Performance mode starts a child grid when its launch call issues (after its
    -cdp_latency), as GPGPU-Sim does: a short child launched first by a long parent finishes
    first and its cycles overlap the parent's; the host still sees both complete at the
    synchronisation.  Functional mode runs the child after its parent."""
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found")
    (tmp_path / "ov.cu").write_text(OVERLAP_SOURCE)
    subprocess.run([nvcc, "-cudart", "shared", "-rdc=true", str(tmp_path / "ov.cu"), "-o", str(tmp_path / "ov"),
                    "-lcudadevrt"], check=True, capture_output=True, timeout=600)
    r = subprocess.run(gpgpusim_cmd() + ["run", *opts, "--", str(tmp_path / "ov")], capture_output=True,
                       text=True, cwd=tmp_path, env=sim_env(), timeout=600)
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and "overlap: cudaSuccess, 0 bad" in lines, r.stdout[-3000:] + r.stderr[-3000:]
    if opts:
        return
    names = [ln.split(" = ")[1].strip() for ln in lines if ln.startswith("kernel_name = ")]
    assert names == ["_Z5childPi", "_Z6parentPiPji"]
    cycles = [int(ln.split(" = ")[1]) for ln in lines if ln.startswith("gpu_sim_cycle = ")]
    total = [int(ln.split(" = ")[1]) for ln in lines if ln.startswith("gpu_tot_sim_cycle = ")]
    # the child's whole run lies inside the parent's: the run's cycles are the parent's, counted
    # once (gpu_tot_sim_cycle is elapsed time)
    assert cycles[1] > cycles[0] + 20000 and cycles[0] < total[0] < total[1] == cycles[1], (cycles, total)
