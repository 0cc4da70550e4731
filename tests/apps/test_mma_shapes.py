"""``mma.sync`` shapes and types, ``ldmatrix`` and ``stmatrix`` (gpgpusim/functional/wmma.py)
against numpy, from CUDA programs with inline PTX built here by nvcc (-arch=sm_90: the
``m16n8k*`` ``.f64`` forms and ``stmatrix`` need it; the simulator runs any PTX on any config).

Every form runs in one warp: the kernel fills the fragment registers from the matrices in
global memory by the PTX ISA's fragment layouts ("Matrix fragments for mma.m*n*k*", written out
again in CUDA below, independently of the simulator's tables), executes the instruction and
stores D back by the same layout.  The inputs come from this test (random, all-distinct
entries where the type has enough values, so a transposed or swapped fragment changes the
result) and D is compared bit for bit with numpy's ``A @ B + C``: exact for the integer types
and for float sums that the output type represents exactly; ``.f16`` outputs are the exact
sum rounded once to f16, as the simulator computes them."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from app_helpers import find_nvcc, gpgpusim_cmd, sim_env

#: (instruction, a/b layout, dtype, atype, btype, ctype, .satfinite)
FORMS = [
    ("m16n8k8", "row.col", "f32", "f16", "f16", "f32", False),
    ("m16n8k8", "row.col", "f16", "f16", "f16", "f16", False),
    ("m16n8k16", "row.col", "f32", "f16", "f16", "f32", False),
    ("m16n8k16", "row.col", "f16", "f16", "f16", "f16", False),
    ("m16n8k16", "row.col", "f32", "bf16", "bf16", "f32", False),
    ("m16n8k8", "row.col", "f32", "bf16", "bf16", "f32", False),
    ("m16n8k4", "row.col", "f32", "tf32", "tf32", "f32", False),
    ("m16n8k8", "row.col", "f32", "tf32", "tf32", "f32", False),
    ("m8n8k4", "row.col", "f64", "f64", "f64", "f64", False),
    ("m16n8k4", "row.col", "f64", "f64", "f64", "f64", False),
    ("m16n8k8", "row.col", "f64", "f64", "f64", "f64", False),
    ("m16n8k16", "row.col", "f64", "f64", "f64", "f64", False),
    ("m8n8k16", "row.col", "s32", "s8", "s8", "s32", False),
    ("m8n8k16", "row.col", "s32", "u8", "s8", "s32", False),
    ("m16n8k16", "row.col", "s32", "u8", "u8", "s32", False),
    ("m16n8k32", "row.col", "s32", "s8", "u8", "s32", False),
    ("m16n8k32", "row.col", "s32", "s8", "s8", "s32", True),
    ("m16n8k32", "row.col", "s32", "u8", "u8", "s32", False),
    ("m8n8k32", "row.col", "s32", "s4", "s4", "s32", False),
    ("m16n8k32", "row.col", "s32", "u4", "s4", "s32", False),
    ("m16n8k64", "row.col", "s32", "s4", "u4", "s32", True),
    ("m8n8k4", "row.col", "f32", "f16", "f16", "f32", False),
    ("m8n8k4", "col.row", "f16", "f16", "f16", "f16", False),
    ("m8n8k4", "row.row", "f32", "f16", "f16", "f16", False),
    ("m8n8k4", "col.col", "f32", "f16", "f16", "f32", False),
]

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "s8": 8, "u8": 8, "s4": 4, "u4": 4, "s32": 32}


def _dims(f):
    m, n, k = (int(x) for x in re.findall(r"\d+", f[0]))
    groups = 4 if f[0] == "m8n8k4" and f[3] == "f16" else 1
    return m, n, k, groups


def _regs(rows, cols, groups, t):
    """Registers of a fragment: 32-bit ones holding 32 / bits elements, or 64-bit ones."""
    per = 1 if t == "f64" else 32 // BITS[t]
    return rows * cols * groups // 32 // per


def _asm(i, f):
    """``case i:`` of the kernel's switch: the instruction on the register arrays."""
    m, n, k, g = _dims(f)
    counts = [_regs(m, n, g, f[2]), _regs(m, k, g, f[3]), _regs(k, n, g, f[4]), _regs(m, n, g, f[5])]
    wide = f[3] == "f64"
    names = ["rd", "ra", "rb", "rc"]
    ops, outs, ins, x = [], [], [], 0
    for j, (nm, c) in enumerate(zip(names, counts, strict=True)):
        ops.append("{" + ",".join(f"%{x + q}" for q in range(c)) + "}")
        x += c
        arr = ("w" + nm[1]) if wide else nm
        lst = outs if j == 0 else ins
        lst += [f'"{"=" if j == 0 else ""}{"l" if wide else "r"}"({arr}[{q}])' for q in range(c)]
    ins_ = f"mma.sync.aligned.{f[0]}.{f[1]}{'.satfinite' if f[6] else ''}.{f[2]}.{f[3]}.{f[4]}.{f[5]}"
    return (f'    case {i}: asm volatile("{ins_} {", ".join(ops)};" : {", ".join(outs)} : {", ".join(ins)}); '
            f"break;\n")


def _form_table():
    """Per form: M, N, K, groups, A/B/C/D bits, the a/b layouts (0 row, 1 col), register counts."""
    rows = []
    for f in FORMS:
        m, n, k, g = _dims(f)
        al, bl = (0 if x == "row" else 1 for x in f[1].split("."))
        rows.append(f"{{{m},{n},{k},{g},{BITS[f[3]]},{BITS[f[4]]},{BITS[f[5]]},{BITS[f[2]]},{al},{bl},"
                    f"{_regs(m, k, g, f[3])},{_regs(k, n, g, f[4])},{_regs(m, n, g, f[5])},{_regs(m, n, g, f[2])}}}")
    return ",\n  ".join(rows)


MMA_TEMPLATE = r"""
#include <cstdio>
#include <cstdlib>
typedef unsigned long long u64;
struct Form { int M, N, K, G, abits, bbits, cbits, dbits, alay, blay, na, nb, nc, nd; };
__constant__ Form forms[] = {
  @TABLE@
};
static const Form hforms[] = {
  @TABLE@
};

// Element (lane, i) of fragment `frag` (0 A, 1 B, 2 C/D) as the PTX ISA lays it out; returns
// its index group * rows * cols + row * cols + col.
__device__ int where_(const Form &f, int frag, int bits, int lane, int i) {
  int rows = frag == 0 ? f.M : frag == 1 ? f.K : f.M, cols = frag == 0 ? f.K : f.N;
  int row, col, grp = 0;
  if (f.G == 4) {                         // m8n8k4 .f16: one MMA per quad-pair
    grp = (lane >> 2) & 3;
    int hi = lane >= 16 ? 4 : 0;
    if (frag == 0) {
      if (f.alay == 0) { row = lane % 4 + hi; col = i; } else { row = i % 4 + hi; col = lane % 4; }
    } else if (frag == 1) {
      if (f.blay == 0) { row = lane % 4; col = i + hi; } else { row = i; col = lane % 4 + hi; }
    } else if (bits == 16) {
      row = lane % 4 + hi; col = i;
    } else {
      row = (lane & 1) + (i & 2) + hi; col = (i & 4) + (lane & 2) + (i & 1);
    }
  } else {
    int g = lane >> 2, t = lane % 4;
    int e = bits == 64 ? 1 : 32 / bits;   // elements per register
    int r = i / e, j = i % e;
    if (frag == 0) {                      // A: rows g / g+8 alternate by register, K halves by pairs
      row = g + 8 * (r % 2); col = t * e + j + 4 * e * (r / 2);
    } else if (frag == 1) {               // B: K blocks of 4e rows by register, column g
      row = t * e + j + 4 * e * r; col = g;
    } else {                              // C/D: two per row, rows g / g+8
      row = g + 8 * (i / 2); col = 2 * t + i % 2;
    }
  }
  return grp * rows * cols + row * cols + col;
}

__device__ u64 pack(const Form &f, int frag, int bits, const u64 *m, int lane, int r) {
  int e = bits == 64 ? 1 : 32 / bits;
  u64 mask = bits == 64 ? ~0ull : (1ull << bits) - 1, v = 0;
  for (int j = 0; j < e; j++) v |= (m[where_(f, frag, bits, lane, r * e + j)] & mask) << (bits * j);
  return v;
}

__global__ void mma(int which, const u64 *A, const u64 *B, const u64 *C, u64 *D) {
  const Form &f = forms[which];
  int lane = threadIdx.x;
  unsigned ra[8], rb[8], rc[8], rd[8];
  u64 wa[8], wb[8], wc[8], wd[8];
  for (int r = 0; r < f.na; r++) wa[r] = pack(f, 0, f.abits, A, lane, r), ra[r] = (unsigned)wa[r];
  for (int r = 0; r < f.nb; r++) wb[r] = pack(f, 1, f.bbits, B, lane, r), rb[r] = (unsigned)wb[r];
  for (int r = 0; r < f.nc; r++) wc[r] = pack(f, 2, f.cbits, C, lane, r), rc[r] = (unsigned)wc[r];
  switch (which) {
@CASES@  }
  int e = f.dbits == 64 ? 1 : 32 / f.dbits;
  u64 mask = f.dbits == 64 ? ~0ull : (1ull << f.dbits) - 1;
  for (int r = 0; r < f.nd; r++)
    for (int j = 0; j < e; j++) {
      u64 v = f.dbits == 64 ? wd[r] : (u64)rd[r];
      D[where_(f, 2, f.dbits, lane, r * e + j)] = (v >> (f.dbits * j)) & mask;
    }
}

int main() {
  int nf = sizeof hforms / sizeof hforms[0];
  FILE *in = fopen("mma_in.bin", "rb"), *out = fopen("mma_out.bin", "wb");
  if (!in || !out) { printf("mma_shapes: no mma_in.bin\n"); return 2; }
  u64 *dA, *dB, *dC, *dD;
  cudaMalloc(&dA, 4096 * 8); cudaMalloc(&dB, 4096 * 8); cudaMalloc(&dC, 4096 * 8); cudaMalloc(&dD, 4096 * 8);
  static u64 h[4096];
  int bad = 0;
  for (int i = 0; i < nf; i++) {
    const Form &f = hforms[i];
    int na = f.M * f.K * f.G, nb = f.K * f.N * f.G, nc = f.M * f.N * f.G;
    if (fread(h, 8, na, in) != (size_t)na) return 2;
    cudaMemcpy(dA, h, na * 8, cudaMemcpyHostToDevice);
    if (fread(h, 8, nb, in) != (size_t)nb) return 2;
    cudaMemcpy(dB, h, nb * 8, cudaMemcpyHostToDevice);
    if (fread(h, 8, nc, in) != (size_t)nc) return 2;
    cudaMemcpy(dC, h, nc * 8, cudaMemcpyHostToDevice);
    mma<<<1, 32>>>(i, dA, dB, dC, dD);
    cudaError_t e = cudaMemcpy(h, dD, nc * 8, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) { printf("form %d: %s\n", i, cudaGetErrorName(e)); bad++; }
    fwrite(h, 8, nc, out);
  }
  fclose(out);
  printf("mma_shapes: %d forms run, %d errors\n", nf, bad);
  return bad != 0;
}
"""


def mma_source() -> str:
    table = _form_table()
    cases = "".join(_asm(i, f) for i, f in enumerate(FORMS))
    return MMA_TEMPLATE.replace("@TABLE@", table).replace("@CASES@", cases)


# ----------------------------------------------------------------------------- values
def _values(t, shape, rng, small=False, near=None):
    """Random matrix of element type ``t`` (as float64 or int64) and its raw bits (uint64):
    floats are distinct multiples of 1/8 (1/64 and at most 4 when ``small``: for f16 results)
    that the type represents exactly."""
    size = int(np.prod(shape))
    if t in ("f16", "bf16", "tf32", "f32", "f64"):
        span = 255 if t == "bf16" or small else 1024
        vals = rng.permutation(np.arange(-span, span + 1))[:size].astype(np.float64) / (64 if small else 8)
        assert vals.size == size                  # all distinct
        vals = vals.reshape(shape)
        return vals, _raw(t, vals)
    lo, hi = {"s8": (-128, 127), "u8": (0, 255), "s4": (-8, 7), "u4": (0, 15),
              "s32": (-1000, 1000)}[t]
    vals = rng.integers(lo, hi + 1, size=shape).astype(np.int64)
    if near is not None:
        # C = INT32_MAX - median(A B) + noise: about half of A B + C overflow s32
        vals = np.minimum(vals + (1 << 31) - 1 - int(np.median(near)), (1 << 31) - 1)
    return vals, _raw(t, vals)


def _raw(t, vals):
    if t == "f16":
        return vals.astype(np.float16).view(np.uint16).astype(np.uint64)
    if t == "bf16":
        return (vals.astype(np.float32).view(np.uint32) >> 16).astype(np.uint64)
    if t in ("f32", "tf32"):
        return vals.astype(np.float32).view(np.uint32).astype(np.uint64)
    if t == "f64":
        return vals.astype(np.float64).view(np.uint64)
    return (vals & ((1 << BITS[t]) - 1)).astype(np.uint64)


def _expected(f, a, b, c):
    acc = np.matmul(a, b) + c
    if f[2] == "s32":
        if f[6]:
            acc = np.clip(acc, -(1 << 31), (1 << 31) - 1)
        return (acc & 0xFFFFFFFF).astype(np.uint64)
    return _raw(f[2], acc)


def _nvcc() -> str:
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found")
    return nvcc


def _build(tmp_path: Path, name: str, source: str, arch: str) -> Path:
    (tmp_path / f"{name}.cu").write_text(source)
    exe = tmp_path / name
    subprocess.run([_nvcc(), "-cudart", "shared", f"-arch={arch}", str(tmp_path / f"{name}.cu"), "-o", str(exe)],
                   check=True, capture_output=True, timeout=600)
    return exe


def _run(exe: Path, cwd: Path, *opts: str) -> subprocess.CompletedProcess:
    return subprocess.run(gpgpusim_cmd() + ["run", *opts, "--", str(exe)], capture_output=True, text=True,
                          cwd=cwd, env=sim_env(), timeout=900)


@pytest.fixture(scope="module")
def mma_exe(tmp_path_factory):
    d = tmp_path_factory.mktemp("mma")
    return _build(d, "mma_shapes", mma_source(), "sm_90")


@pytest.mark.parametrize("opts", [["--functional"], []], ids=["functional", "performance"])
def test_mma_sync_shapes(mma_exe, tmp_path, opts):
    rng = np.random.default_rng(28)
    expect = []
    with open(tmp_path / "mma_in.bin", "wb") as fh:
        for f in FORMS:
            m, n, k, g = _dims(f)
            small = f[2] == "f16"
            a, ra = _values(f[3], (g, m, k), rng, small)
            b, rb = _values(f[4], (g, k, n), rng, small)
            c, rc = _values(f[5], (g, m, n), rng, small, near=a @ b if f[6] else None)
            for raw in (ra, rb, rc):
                fh.write(raw.astype("<u8").tobytes())
            expect.append(_expected(f, a, b, c).ravel())
    r = _run(mma_exe, tmp_path, *opts)
    assert r.returncode == 0 and f"mma_shapes: {len(FORMS)} forms run, 0 errors" in r.stdout, (
        r.stdout[-3000:] + r.stderr[-3000:])
    got = np.fromfile(tmp_path / "mma_out.bin", dtype="<u8")
    pos = 0
    for f, e in zip(FORMS, expect, strict=True):
        np.testing.assert_array_equal(got[pos:pos + e.size], e, err_msg=str(f))
        pos += e.size
    assert pos == got.size
    if f"{opts}" == "[]":
        # every mma.sync issued to the tensor-core unit: one kernel statistics block per form
        assert sum(ln.startswith("gpu_sim_cycle = ") for ln in r.stdout.splitlines()) == len(FORMS)


def test_saturation_is_exercised():
    """The .satfinite forms' inputs overflow s32, so the clamp decides the result."""
    rng = np.random.default_rng(28)
    for f in FORMS:
        m, n, k, g = _dims(f)
        small = f[2] == "f16"
        a, _ = _values(f[3], (g, m, k), rng, small)
        b, _ = _values(f[4], (g, k, n), rng, small)
        c, _ = _values(f[5], (g, m, n), rng, small, near=a @ b if f[6] else None)
        if f[6]:
            acc = np.matmul(a, b) + c
            assert (acc > (1 << 31) - 1).any() and (acc <= (1 << 31) - 1).any()


def test_mma_sync_unsupported_form(tmp_path):
    """A form outside the table (here .b1 with .xor.popc) stops the kernel with one line naming
    the instruction and cudaErrorNotSupported."""
    src = r"""
#include <cstdio>
__global__ void k(unsigned *d) {
  unsigned a = threadIdx.x, b = 3, c0 = 0, c1 = 0;
  asm volatile("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%0,%1}, {%2}, {%3}, {%0,%1};"
               : "+r"(c0), "+r"(c1) : "r"(a), "r"(b));
  d[threadIdx.x] = c0 + c1;
}
int main() {
  unsigned *d;
  cudaMalloc(&d, 128);
  k<<<1, 32>>>(d);
  printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
"""
    exe = _build(tmp_path, "b1", src, "sm_80")
    r = _run(exe, tmp_path, "--functional")
    assert "sync: cudaErrorNotSupported" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]
    lines = [ln for ln in r.stderr.splitlines() if "not supported: mma.sync.aligned.m8n8k128" in ln]
    assert len(lines) == 1, r.stderr[-3000:]
    assert "Traceback" not in r.stderr


LDMATRIX_SOURCE = r"""
#include <cstdio>
// Four 8x8 matrices of distinct 16-bit values in shared memory, rows 48 bytes apart (padded),
// matrices 400 bytes apart; lane l gives the address of row l % 8 of matrix l / 8.
__device__ void save(unsigned *out, int v, const unsigned *r, int n) {
  for (int q = 0; q < n; q++) out[(v * 4 + q) * 32 + threadIdx.x] = r[q];
}

__global__ void ld(unsigned *out) {
  __shared__ unsigned short s[800];
  for (int i = threadIdx.x; i < 800; i += 32) s[i] = (unsigned short)(i * 37 + 5);
  __syncwarp();
  int l = threadIdx.x;
  unsigned addr = (unsigned)__cvta_generic_to_shared(&s[(l / 8) * 200 + (l % 8) * 24]);
  unsigned r[4];
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
  save(out, 0, r, 1);
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
  save(out, 1, r, 2);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  save(out, 2, r, 4);
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
  save(out, 3, r, 1);
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 {%0,%1}, [%2];"
               : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
  save(out, 4, r, 2);
  // generic address of the same rows
  const unsigned short *p = &s[(l / 8) * 200 + (l % 8) * 24];
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "l"(p));
  save(out, 5, r, 4);
#if __CUDA_ARCH__ >= 900
  // stmatrix: store registers (lane * 16 + q * 4 + half) back, .x4 plain then .x2 .trans
  __syncwarp();
  for (int i = threadIdx.x; i < 800; i += 32) s[i] = 0;
  __syncwarp();
  unsigned w[4];
  for (int q = 0; q < 4; q++) w[q] = (l * 16 + q * 4) | ((l * 16 + q * 4 + 1) << 16);
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};"
               :: "r"(addr), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]) : "memory");
  __syncwarp();
  for (int i = threadIdx.x; i < 800; i += 32) out[6 * 128 + i] = s[i];
  __syncwarp();
  for (int i = threadIdx.x; i < 800; i += 32) s[i] = 0;
  __syncwarp();
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};"
               :: "r"(addr), "r"(w[0]), "r"(w[1]) : "memory");
  __syncwarp();
  for (int i = threadIdx.x; i < 800; i += 32) out[6 * 128 + 800 + i] = s[i];
#endif
}

int main() {
  unsigned *d, h[6 * 128 + 1600];
  cudaMalloc(&d, sizeof h);
  cudaMemset(d, 0, sizeof h);
  ld<<<1, 32>>>(d);
  cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  FILE *f = fopen("ldmatrix_out.bin", "wb");
  fwrite(h, 4, sizeof h / 4, f);
  fclose(f);
  printf("ldmatrix: %s\n", cudaGetErrorName(e));
  return e != cudaSuccess;
}
"""


def _ldmatrix_expected():
    """The registers the PTX ISA's ldmatrix layout gives for each of the six variants, and the
    shared memory after the two stmatrix."""
    s = (np.arange(800) * 37 + 5) & 0xFFFF
    lane = np.arange(32)
    mats = np.array([[s[q * 200 + r * 24: q * 200 + r * 24 + 8] for r in range(8)] for q in range(4)])
    regs = np.zeros((6, 4, 32), dtype=np.uint32)
    for v, (num, trans) in enumerate([(1, False), (2, False), (4, False), (1, True), (2, True), (4, True)]):
        for q in range(num):
            mat = mats[q].T if trans else mats[q]     # lane l: row l >> 2, columns 2 (l % 4) + 0/1
            lo, hi = mat[lane >> 2, 2 * (lane & 3)], mat[lane >> 2, 2 * (lane & 3) + 1]
            regs[v, q] = lo | (hi << 16)
    stores = np.zeros((2, 800), dtype=np.uint32)
    for v, (num, trans) in enumerate([(4, False), (2, True)]):
        for q in range(num):
            mat = np.zeros((8, 8), dtype=np.uint32)
            for h in (0, 1):
                mat[lane >> 2, 2 * (lane & 3) + h] = lane * 16 + q * 4 + h
            if trans:
                mat = mat.T
            for r in range(8):
                stores[v, q * 200 + r * 24: q * 200 + r * 24 + 8] = mat[r]
    return regs, stores


@pytest.mark.parametrize("opts", [["--functional"], []], ids=["functional", "performance"])
def test_ldmatrix_stmatrix(tmp_path, opts):
    exe = _build(tmp_path, "ldm", LDMATRIX_SOURCE, "sm_90")
    r = _run(exe, tmp_path, *opts)
    assert r.returncode == 0 and "ldmatrix: cudaSuccess" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
    got = np.fromfile(tmp_path / "ldmatrix_out.bin", dtype="<u4")
    regs, stores = _ldmatrix_expected()
    nregs = [1, 2, 4, 1, 2, 4]
    for v in range(6):
        np.testing.assert_array_equal(got[v * 128: v * 128 + nregs[v] * 32].reshape(-1, 32), regs[v, :nregs[v]],
                                      err_msg=f"variant {v}")
    np.testing.assert_array_equal(got[6 * 128:].reshape(2, 800), stores)
