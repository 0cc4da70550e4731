"""Real nvcc 13 binaries on the shim: several fat binaries in one program, start-up failure,
the run's argv, the ABI-only C wrappers with wrong arguments, and a non-13 SONAME.

Each program is compiled here with ``nvcc -cudart shared`` (one object file per translation
unit, so each registers its own fat binary) and run under ``LD_LIBRARY_PATH`` with a library
built for this session.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "shim"))
import build_shim  # noqa: E402

NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc not available")

# --- a program whose second translation unit carries SASS only (no PTX to simulate)
MAIN_CU = r"""
#include <cstdio>
__global__ void good(int *p) { p[0] = 42; }
int lib_launch(int *p);
int lib_symbol(void);
int main(int argc, char **argv) {
  int *d, h = 0;
  int r1 = cudaMalloc(&d, 4);
  good<<<1, 1>>>(d);
  int r2 = cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost);
  printf("malloc=%d memcpy=%d h=%d\n", r1, r2, h);
  if (argc > 1) {
    int rl = lib_launch(d);
    printf("lib_launch=%d last=%d\n", rl, (int)cudaGetLastError());
    int rs = lib_symbol();
    int ls = (int)cudaGetLastError();
    printf("lib_symbol=%d last2=%d\n", rs, ls);
    good<<<1, 1>>>(d);
    int after = (int)cudaGetLastError();
    printf("after=%d sync=%d\n", after, (int)cudaDeviceSynchronize());
  }
  return h == 42 ? 0 : 1;
}
"""
SASS_ONLY_CU = r"""
__device__ int lib_var = 5;
__global__ void sass_only(int *p) { p[0] = lib_var; }
int lib_launch(int *p) { sass_only<<<1, 1>>>(p); return (int)cudaPeekAtLastError(); }
int lib_symbol(void) { int v = 0; return (int)cudaMemcpyFromSymbol(&v, lib_var, sizeof v); }
"""

# --- two translation units defining kernels and variables with the same (internal) names
UNIT_A_CU = r"""
#include <cstdio>
namespace { __global__ void k(int *p) { p[0] = 1; } }
static __device__ int sv = 100;
__global__ void read_a(int *p) { p[1] = sv; }
void run_b(int *d);
int main() {
  int *d, h[2];
  cudaMalloc(&d, sizeof h);
  k<<<1, 1>>>(d); read_a<<<1, 1>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("a=%d,%d\n", h[0], h[1]);
  run_b(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("b=%d,%d\n", h[0], h[1]);
  k<<<1, 1>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("a_again=%d\n", h[0]);
  return 0;
}
"""
UNIT_B_CU = r"""
namespace { __global__ void k(int *p) { p[0] = 2; } }
static __device__ int sv = 200;
__global__ void read_b(int *p) { p[1] = sv; }
void run_b(int *d) { k<<<1, 1>>>(d); read_b<<<1, 1>>>(d); }
"""

# --- error strings whatever happened, and the C-only wrappers with wrong arguments
ERRORS_CU = r"""
#include <cstdio>
#include <dlfcn.h>
// CUDA 12's name of cudaGetDeviceProperties: NVIDIA's libcudart.so.13 no longer has it (so it
// cannot be linked against), ours still exports it for older binaries
typedef cudaError_t (*props_fn)(cudaDeviceProp *, int);
__global__ void fill(int *p) { p[threadIdx.x] = threadIdx.x + 1; }
int main(int argc, char **argv) {
  int *d = 0;
  cudaError_t rc = cudaMalloc(&d, 64);
  printf("malloc=%d string=[%s] name=[%s]\n", (int)rc, cudaGetErrorString(rc), cudaGetErrorName(rc));
  printf("oom=[%s] unknown=[%s]\n", cudaGetErrorString(cudaErrorMemoryAllocation),
         cudaGetErrorName((cudaError_t)12345));
  if (rc != cudaSuccess) return 0;
  cudaDeviceProp p;
  props_fn cudaGetDeviceProperties_v2 = (props_fn)dlsym(RTLD_DEFAULT, "cudaGetDeviceProperties_v2");
  if (!cudaGetDeviceProperties_v2) { printf("no cudaGetDeviceProperties_v2\n"); return 1; }
  int v2_null = (int)cudaGetDeviceProperties_v2(NULL, 0);
  int v2_dev1 = (int)cudaGetDeviceProperties_v2(&p, 1);
  int v2 = (int)cudaGetDeviceProperties_v2(&p, 0);
  printf("v2_null=%d v2_dev1=%d v2=%d sms=%d\n", v2_null, v2_dev1, v2, p.multiProcessorCount);
  cudaGetLastError();
  cudaKernel_t k;
  printf("get_kernel=%d\n", (int)__cudaGetKernel(&k, (const void *)fill));
  void *args[] = {&d};
  printf("ptsz_ok=%d\n", (int)__cudaLaunchKernel_ptsz(k, dim3(1), dim3(16), args, 0, 0));
  printf("ptsz_sync=%d\n", (int)cudaStreamSynchronize(cudaStreamPerThread));
  printf("ptsz_bad_kernel=%d\n", (int)__cudaLaunchKernel_ptsz((cudaKernel_t)0xdead0, dim3(1), dim3(16), args, 0, 0));
  printf("ptsz_zero_grid=%d\n", (int)__cudaLaunchKernel_ptsz(k, dim3(0), dim3(16), args, 0, 0));
  printf("ptsz_null_args=%d\n", (int)__cudaLaunchKernel_ptsz(k, dim3(1), dim3(16), NULL, 0, 0));
  printf("ptsz_bad_stream=%d\n", (int)__cudaLaunchKernel_ptsz(k, dim3(1), dim3(16), args, 0,
                                                              (cudaStream_t)0xdead0));
  int h[16];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("h15=%d\n", h[15]);
  return 0;
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory) -> str:
    return build_shim.build(str(tmp_path_factory.mktemp("hostlib")))


def _build(tmp, name: str, units: list[tuple[str, list[str]]]) -> str:
    """Compile each (source, extra nvcc flags) to its own object and link them."""
    objs = []
    for i, (src, flags) in enumerate(units):
        cu = tmp / f"{name}_{i}.cu"
        cu.write_text(src)
        obj = tmp / f"{name}_{i}.o"
        subprocess.run([NVCC, "-cudart", "shared", *flags, "-c", str(cu), "-o", str(obj)],
                       check=True, capture_output=True)
        objs.append(str(obj))
    exe = str(tmp / name)
    subprocess.run([NVCC, "-cudart", "shared", *objs, "-o", exe], check=True, capture_output=True)
    return exe


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> dict[str, str]:
    if NVCC is None:
        pytest.skip("nvcc not available")
    tmp = tmp_path_factory.mktemp("hostprogs")
    return {
        "mixed": _build(tmp, "mixed", [(MAIN_CU, []), (SASS_ONLY_CU, ["-gencode", "arch=compute_75,code=sm_75"])]),
        "units": _build(tmp, "units", [(UNIT_A_CU, []), (UNIT_B_CU, [])]),
        "errors": _build(tmp, "errors", [(ERRORS_CU, [])]),
    }


def _env(lib: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GPGPUSIM_", "PTX_SIM_", "CUDA_LAUNCH_BLOCKING"))}
    env.update(LD_LIBRARY_PATH=os.path.dirname(lib), GPGPUSIM_PYTHONPATH=ROOT, PTX_SIM_MODE_FUNC="1")
    env.update(extra)
    return env


def _run(argv: list[str], lib: str, cwd, **extra: str) -> subprocess.CompletedProcess:
    r = subprocess.run(argv, env=_env(lib, **extra), cwd=cwd, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in r.stderr, r.stderr
    return r


def _kv(stdout: str) -> dict[str, str]:
    return dict(tok.split("=", 1) for line in stdout.splitlines() for tok in line.split() if "=" in tok)


def test_sass_only_unit_fails_only_its_own_kernels(lib, programs, tmp_path):
    r = _run([programs["mixed"]], lib, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "malloc=0 memcpy=0 h=42" in r.stdout
    reg = [ln for ln in r.stderr.splitlines() if "__cudaRegisterFatBinary" in ln]
    assert len(reg) == 1 and "cudaErrorNoKernelImageForDevice" in reg[0] and "holds no PTX" in reg[0]
    # using the SASS-only unit: 209 for its kernel and its variable, nothing else disturbed
    r = _run([programs["mixed"], "use-lib"], lib, tmp_path)
    assert r.returncode == 0, r.stderr
    kv = _kv(r.stdout)
    assert (kv["malloc"], kv["memcpy"], kv["h"]) == ("0", "0", "42")
    assert (kv["lib_launch"], kv["last"]) == ("209", "209")
    assert (kv["lib_symbol"], kv["last2"]) == ("209", "209")
    assert (kv["after"], kv["sync"]) == ("0", "0")
    assert "kernel _Z9sass_onlyPi: fat binary #2 holds no PTX" in r.stderr
    assert "symbol lib_var: fat binary #2 holds no PTX" in r.stderr


def test_same_internal_names_in_two_units(lib, programs, tmp_path):
    r = _run([programs["units"]], lib, tmp_path)
    assert r.returncode == 0, r.stderr
    kv = _kv(r.stdout)
    assert kv["a"] == "1,100"          # unit A's k and static sv
    assert kv["b"] == "2,200"          # unit B's k and static sv: same mangled names, own module
    assert kv["a_again"] == "1"
    assert "gpgpusim:" not in r.stderr


def test_error_strings_after_a_start_up_failure(lib, programs, tmp_path):
    (tmp_path / "gpgpusim.config").write_text("-gpgpu_n_clusters lots\n")
    r = _run([programs["errors"]], lib, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "malloc=3 string=[initialization error] name=[cudaErrorInitializationError]" in r.stdout
    assert "oom=[out of memory] unknown=[unrecognized error code]" in r.stdout
    assert "cannot start the simulator" in r.stderr and "bad value 'lots' for -gpgpu_n_clusters" in r.stderr


def test_c_wrappers_with_wrong_arguments(lib, programs, tmp_path):
    r = _run([programs["errors"]], lib, tmp_path)
    assert r.returncode == 0, r.stderr
    kv = _kv(r.stdout)
    assert (kv["v2_null"], kv["v2_dev1"], kv["v2"], kv["sms"]) == ("1", "101", "0", "80")
    assert kv["get_kernel"] == "0"
    assert (kv["ptsz_ok"], kv["ptsz_sync"]) == ("0", "0")
    assert kv["ptsz_bad_kernel"] == "98"
    assert kv["ptsz_zero_grid"] == "9"
    assert kv["ptsz_null_args"] == "1"
    assert kv["ptsz_bad_stream"] == "400"
    assert kv["h15"] == "16"


def test_stats_json_records_the_applications_argv(lib, programs, tmp_path):
    out = tmp_path / "stats.json"
    r = _run([programs["errors"], "first arg", "", "-x"], lib, tmp_path, GPGPUSIM_STATS_JSON=str(out))
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["run"]["argv"] == [programs["errors"], "first arg", "", "-x"]


LOADER_C = r"""
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);   /* as the dynamic linker loads it for an app */
  if (!h) { printf("dlopen: %s\\n", dlerror()); return 1; }
  int (*count)(int *) = (int (*)(int *))dlsym(h, "cudaGetDeviceCount");
  int n = -1;
  int rc = count(&n);
  printf("rc=%d count=%d\\n", rc, n);
  return 0;
}
"""


def test_foreign_soname_warns_at_load(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    lib12 = build_shim.build(str(tmp_path), soname="libcudart.so.12")
    (tmp_path / "loader.c").write_text(LOADER_C)
    subprocess.run([cc, str(tmp_path / "loader.c"), "-o", str(tmp_path / "loader"), "-ldl"], check=True)
    r = _run([str(tmp_path / "loader"), lib12], lib12, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "rc=0 count=1" in r.stdout
    warn = [ln for ln in r.stderr.splitlines() if "implements the CUDA 13 ABI" in ln]
    assert len(warn) == 1 and warn[0].startswith("gpgpusim: warning: this libcudart.so.12 ")
    r13 = _run([str(tmp_path / "loader"), build_shim.build(str(tmp_path / "13"))], lib12, tmp_path)
    assert "rc=0 count=1" in r13.stdout and "implements the CUDA 13 ABI" not in r13.stderr
