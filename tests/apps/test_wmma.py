"""Tensor-core instructions (gpgpusim/functional/wmma.py): apps/wmma_gemm (``wmma`` with f16
and 8-bit integer fragments, the default architecture) in both modes and both feeds, the sm_80
``wmma`` types (.bf16, .tf32, .f64) and ``mma.sync`` (inline PTX, the fragments the PTX ISA
specifies) from programs built here with -arch=sm_80; every result is checked exactly by the
program itself.  ``test_mma_shapes.py`` covers the other ``mma.sync`` shapes and types,
``ldmatrix`` and ``stmatrix`` against numpy."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from app_helpers import BIN_DIR, find_nvcc, gpgpusim_cmd, make_apps, sim_env

SM80_SOURCE = r"""
#include <mma.h>
#include <cuda_bf16.h>
#include <cstdio>
using namespace nvcuda;

__global__ void bf16_tf32_f64(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c,
                              const float *ta, const float *tb, float *tc,
                              const double *da, const double *db, double *dc) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 1.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ga;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> gb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> gc;
  wmma::fill_fragment(gc, 0.0f);
  wmma::load_matrix_sync(ga, ta, 8);
  wmma::load_matrix_sync(gb, tb, 16);
  for (int i = 0; i < ga.num_elements; i++) ga.x[i] = wmma::__float_to_tf32(ga.x[i]);
  wmma::mma_sync(gc, ga, gb, gc);
  wmma::store_matrix_sync(tc, gc, 16, wmma::mem_col_major);
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> ha;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> hb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> hc;
  wmma::fill_fragment(hc, 0.25);
  wmma::load_matrix_sync(ha, da, 4);
  wmma::load_matrix_sync(hb, db, 8);
  wmma::mma_sync(hc, ha, hb, hc);
  wmma::store_matrix_sync(dc, hc, 8, wmma::mem_row_major);
}

int main() {
  __nv_bfloat16 a[256], bt[256];
  float fa[256], fb[256], ta[128], tb[128], c[256], tc[256];
  double da[32], db[32], dc[64];
  for (int i = 0; i < 256; i++) { fa[i] = (float)(i % 5 - 2); fb[i] = (float)(i % 3) * 0.5f; a[i] = __float2bfloat16(fa[i]); }
  for (int k = 0; k < 16; k++) for (int j = 0; j < 16; j++) bt[j * 16 + k] = __float2bfloat16(fb[k * 16 + j]);
  // tf32 keeps 10 mantissa bits: ta[3] = 3 + 2^-12 is multiplied as 3
  for (int i = 0; i < 128; i++) { ta[i] = (float)(i % 7) + (i == 3 ? 1.0f / 4096 : 0.0f); tb[i] = (float)(i % 4 - 1); }
  for (int i = 0; i < 32; i++) { da[i] = 0.5 * (i % 9); db[i] = (double)(i % 5) - 1.5; }
  void *d[9];
  size_t sz[9] = {sizeof a, sizeof bt, sizeof c, sizeof ta, sizeof tb, sizeof tc, sizeof da, sizeof db, sizeof dc};
  const void *src[9] = {a, bt, nullptr, ta, tb, nullptr, da, db, nullptr};
  for (int i = 0; i < 9; i++) {
    cudaMalloc(&d[i], sz[i]);
    if (src[i]) cudaMemcpy(d[i], src[i], sz[i], cudaMemcpyHostToDevice);
  }
  bf16_tf32_f64<<<1, 32>>>((__nv_bfloat16 *)d[0], (__nv_bfloat16 *)d[1], (float *)d[2], (float *)d[3],
                           (float *)d[4], (float *)d[5], (double *)d[6], (double *)d[7], (double *)d[8]);
  cudaError_t e = cudaMemcpy(c, d[2], sizeof c, cudaMemcpyDeviceToHost);
  cudaMemcpy(tc, d[5], sizeof tc, cudaMemcpyDeviceToHost);
  cudaMemcpy(dc, d[8], sizeof dc, cudaMemcpyDeviceToHost);
  int bad = e != cudaSuccess;
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) {
      float r = 1.0f, t = 0.0f;
      for (int k = 0; k < 16; k++) r += fa[i * 16 + k] * fb[k * 16 + j];
      for (int k = 0; k < 8; k++) t += (i * 8 + k == 3 ? 3.0f : ta[i * 8 + k]) * tb[k * 16 + j];
      bad += c[i * 16 + j] != r;
      bad += tc[j * 16 + i] != t;
    }
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) {
      double r = 0.25;
      for (int k = 0; k < 4; k++) r += da[i * 4 + k] * db[k * 8 + j];
      bad += dc[i * 8 + j] != r;
    }
  printf("wmma_sm80: %s (%s, %d mismatches)\n", bad ? "FAIL" : "PASS", cudaGetErrorName(e), bad);
  return bad ? 1 : 0;
}
"""


MMA_SYNC_SOURCE = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstring>
// One warp: D = A B + C for m16n8k16 (f16 and bf16 inputs, f32 accumulators) and m16n8k8 (f16
// inputs and accumulators), fragments filled and read back by the PTX ISA's layouts
// (g = lane >> 2, t = lane % 4).
__device__ unsigned pack(unsigned short lo, unsigned short hi) { return lo | ((unsigned)hi << 16); }

__global__ void k16(const unsigned short *a, const unsigned short *b, const float *c, float *d, int bf) {
  int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  unsigned ra[4], rb[2];
  float rc[4], rd[4];
  for (int r = 0; r < 4; r++) {          // a0..a7: rows g / g+8, columns 2t(+1) / +8
    int row = g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);
    ra[r] = pack(a[row * 16 + col], a[row * 16 + col + 1]);
  }
  for (int r = 0; r < 2; r++) {          // b0..b3: rows 2t(+1) / +8, column g
    int row = 2 * t + 8 * r;
    rb[r] = pack(b[row * 8 + g], b[(row + 1) * 8 + g]);
  }
  for (int i = 0; i < 4; i++) rc[i] = c[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
  if (bf)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};" : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};" : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
  for (int i = 0; i < 4; i++) d[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = rd[i];
}

__global__ void k8(const unsigned short *a, const unsigned short *b, const unsigned short *c, unsigned short *d) {
  int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  unsigned ra[2], rb, rc[2], rd[2];
  for (int r = 0; r < 2; r++) ra[r] = pack(a[(g + 8 * r) * 8 + 2 * t], a[(g + 8 * r) * 8 + 2 * t + 1]);
  rb = pack(b[(2 * t) * 8 + g], b[(2 * t + 1) * 8 + g]);
  for (int r = 0; r < 2; r++) rc[r] = pack(c[(g + 8 * r) * 8 + 2 * t], c[(g + 8 * r) * 8 + 2 * t + 1]);
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};"
               : "=r"(rd[0]), "=r"(rd[1]) : "r"(ra[0]), "r"(ra[1]), "r"(rb), "r"(rc[0]), "r"(rc[1]));
  for (int r = 0; r < 2; r++) {
    d[(g + 8 * r) * 8 + 2 * t] = rd[r] & 0xffff;
    d[(g + 8 * r) * 8 + 2 * t + 1] = rd[r] >> 16;
  }
}

static unsigned short h16(float f) { __half h = __float2half(f); unsigned short u; memcpy(&u, &h, 2); return u; }
static unsigned short b16(float f) { __nv_bfloat16 h = __float2bfloat16(f); unsigned short u; memcpy(&u, &h, 2); return u; }
static float f16(unsigned short u) { __half h; memcpy(&h, &u, 2); return __half2float(h); }

int main() {
  float fa[256], fb[128], fc[128], out[128];
  unsigned short ha[256], hb[128], ba[256], bb[128];
  for (int i = 0; i < 256; i++) { fa[i] = (float)(i % 7 - 3); ha[i] = h16(fa[i]); ba[i] = b16(fa[i]); }
  for (int i = 0; i < 128; i++) { fb[i] = (float)(i % 5 - 2) * 0.5f; fc[i] = (float)(i % 3); hb[i] = h16(fb[i]); bb[i] = b16(fb[i]); }
  unsigned short *da, *db, *dh;
  float *dc, *dd;
  cudaMalloc(&da, 512); cudaMalloc(&db, 256); cudaMalloc(&dc, 512); cudaMalloc(&dd, 512); cudaMalloc(&dh, 256);
  cudaMemcpy(dc, fc, 512, cudaMemcpyHostToDevice);
  int bad = 0;
  for (int bf = 0; bf < 2; bf++) {
    cudaMemcpy(da, bf ? ba : ha, 512, cudaMemcpyHostToDevice);
    cudaMemcpy(db, bf ? bb : hb, 256, cudaMemcpyHostToDevice);
    k16<<<1, 32>>>(da, db, dc, dd, bf);
    cudaMemcpy(out, dd, 512, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 16; i++)
      for (int j = 0; j < 8; j++) {
        float r = fc[i * 8 + j];
        for (int k = 0; k < 16; k++) r += fa[i * 16 + k] * fb[k * 8 + j];
        bad += out[i * 8 + j] != r;
      }
  }
  // m16n8k8, f16 accumulators: A 16x8 (the first 128 values), B 8x8, C 16x8
  unsigned short hc[128], hd[128];
  for (int i = 0; i < 128; i++) hc[i] = h16(fc[i]);
  cudaMemcpy(da, ha, 256, cudaMemcpyHostToDevice);
  cudaMemcpy(db, hb, 128, cudaMemcpyHostToDevice);
  cudaMemcpy(dh, hc, 256, cudaMemcpyHostToDevice);
  k8<<<1, 32>>>(da, db, dh, dh);
  cudaError_t e = cudaMemcpy(hd, dh, 256, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 8; j++) {
      float r = fc[i * 8 + j];
      for (int k = 0; k < 8; k++) r += fa[i * 8 + k] * fb[k * 8 + j];
      bad += f16(hd[i * 8 + j]) != r;
    }
  printf("mma_sync: %s (%s, %d mismatches)\n", bad ? "FAIL" : "PASS", cudaGetErrorName(e), bad);
  return bad ? 1 : 0;
}
"""


def _nvcc() -> str:
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found")
    return nvcc


def _run(exe: Path, tmp_path: Path, *opts: str) -> subprocess.CompletedProcess:
    return subprocess.run(gpgpusim_cmd() + ["run", *opts, "--", str(exe)], capture_output=True, text=True,
                          cwd=tmp_path, env=sim_env(), timeout=600)


@pytest.mark.parametrize("opts", [["--functional"], [], ["--set=-gpgpusim_timing_feed=live"]],
                         ids=["functional", "performance", "live-feed"])
def test_wmma_gemm_app(tmp_path, opts):
    nvcc = _nvcc()
    make_apps("-s", "bin/wmma_gemm", f"NVCC={nvcc}").check_returncode()
    r = _run(BIN_DIR / "wmma_gemm", tmp_path, *opts)
    assert r.returncode == 0 and "wmma_gemm: PASS" in r.stdout.splitlines(), r.stdout[-3000:] + r.stderr[-3000:]
    if opts != ["--functional"]:
        # the tensor-core timing of both feeds is the same
        assert [ln for ln in r.stdout.splitlines() if ln.startswith("gpu_sim_cycle = ")] == [
            "gpu_sim_cycle = 6166", "gpu_sim_cycle = 5551", "gpu_sim_cycle = 9864"]


def _check_sm80_program(tmp_path: Path, name: str, source: str, expect: str) -> None:
    """Build ``source`` with -arch=sm_80 and run it in both modes; it prints ``expect``."""
    nvcc = _nvcc()
    (tmp_path / f"{name}.cu").write_text(source)
    subprocess.run([nvcc, "-cudart", "shared", "-arch=sm_80", str(tmp_path / f"{name}.cu"), "-o", str(tmp_path / name)],
                   check=True, capture_output=True, timeout=600)
    for opts in (["--functional"], []):
        r = _run(tmp_path / name, tmp_path, *opts)
        assert r.returncode == 0 and expect in r.stdout, (opts, r.stdout[-3000:] + r.stderr[-3000:])


def test_wmma_sm80_types(tmp_path):
    _check_sm80_program(tmp_path, "w", SM80_SOURCE, "wmma_sm80: PASS (cudaSuccess, 0 mismatches)")


def test_mma_sync_fragments(tmp_path):
    _check_sm80_program(tmp_path, "m", MMA_SYNC_SOURCE, "mma_sync: PASS (cudaSuccess, 0 mismatches)")
