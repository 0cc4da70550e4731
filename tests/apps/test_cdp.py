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
        # the parent and its two children, each with its own statistics block
        assert [ln for ln in lines if ln.startswith("kernel_name = ")] == [
            "kernel_name = _Z6parentPi ", "kernel_name = _Z5childPii ", "kernel_name = _Z5childPii "]


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
