"""Shared helpers for the fatbin tests: CUDA sources, ptxas -v parsing, a synthetic fatbin builder."""

from __future__ import annotations

import os
import re
import shutil
import struct

NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)


# Several kernels with distinct resource use: plain, static shared + barriers + launch
# bounds, a dynamically indexed local array (stack frame), module-scope variables.
RESOURCES_CU = r"""
#include <cstdio>
__device__ int g_counter;
__constant__ float c_scale[4] = {1.f, 2.f, 3.f, 4.f};

__global__ void vecAdd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void __launch_bounds__(128) tileSum(const float *in, float *out) {
    __shared__ float tile[128];
    __shared__ double extra[8];
    int t = threadIdx.x;
    tile[t] = in[blockIdx.x * 128 + t];
    if (t < 8) extra[t] = t;
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) {
        if (t < s) tile[t] += tile[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = tile[0] * c_scale[blockIdx.x & 3] + (float)extra[blockIdx.x & 7];
}

__global__ void localArr(const int *idx, int *out, int n) {
    int buf[256];
    for (int k = 0; k < 256; ++k) buf[k] = idx[k] * k;
    int i = threadIdx.x;
    out[i] = buf[idx[i] & 255] + buf[(idx[i] >> 8) & 255] + n;
    atomicAdd(&g_counter, 1);
}

int main() {
    printf("kernels: %p %p %p\n", (void *)vecAdd, (void *)tileSum, (void *)localArr);
    return 0;
}
"""


def parse_ptxas_v(log: str) -> dict[tuple[str, str], dict[str, int]]:
    """{(kernel, 'sm_75'): {regs, barriers, smem, cmem0, stack}} from ``-Xptxas -v`` output."""
    out: dict[tuple[str, str], dict[str, int]] = {}
    cur: tuple[str, str] | None = None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '(\S+)' for '(sm_\d+)'", line)
        if m:
            cur = (m.group(1), m.group(2))
            out[cur] = {"regs": 0, "barriers": 0, "smem": 0, "cmem0": 0, "stack": 0}
            continue
        if cur is None:
            continue
        m = re.search(r"(\d+) bytes stack frame", line)
        if m:
            out[cur]["stack"] = int(m.group(1))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            out[cur]["regs"] = int(m.group(1))
            b = re.search(r"used (\d+) barriers", line)
            out[cur]["barriers"] = int(b.group(1)) if b else 0
            s = re.search(r"(\d+) bytes smem", line)
            out[cur]["smem"] = int(s.group(1)) if s else 0
            c = re.search(r"(\d+) bytes cmem\[0\]", line)
            out[cur]["cmem0"] = int(c.group(1)) if c else 0
    return out


def make_entry(kind: int, arch: int, payload: bytes, *, flags: int = 0x11, stored: bytes | None = None,
               usize: int = 0, name: bytes = b"", options: bytes = b"", version: tuple[int, int] = (9, 0)) -> bytes:
    """One fatbin entry laid out as nvcc 13 does (see cuobjdump_tools.fatbin's docstring).

    ``stored`` replaces the payload bytes (compressed form); ``usize`` is then the
    uncompressed size.  Name and options go after the 64-byte header, padded to 8; PTX
    entries always get an options descriptor, other kinds only when ``options`` is given.
    """
    body = stored if stored is not None else payload
    csize = len(body) if stored is not None else 0
    extra = b""
    name_off = 0
    if name:
        name_off = 0x40
        extra += name + b"\0" * (8 - len(name) % 8)
    opt_desc = 0
    if kind == 1 or options:
        opt_desc = 0x40 + len(extra)
        opt_off = opt_desc + 8
        extra += struct.pack("<II", opt_off, len(options))
        if options:
            extra += options + b"\0" * (8 - len(options) % 8)
    hsize = 0x40 + len(extra)
    psize = (len(body) + 7) // 8 * 8
    head = struct.pack("<HHIQIIHHIIIQQQ", kind, 0x101, hsize, psize, csize, opt_desc, version[1], version[0],
                       arch, name_off, len(name), flags, 0, usize)
    return head + extra + body + b"\0" * (psize - len(body))


def make_container(*entries: bytes) -> bytes:
    body = b"".join(entries)
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


def lz4_literal_block(data: bytes) -> bytes:
    """A valid LZ4 block holding ``data`` as literals only (the format's trivial encoding)."""
    n = len(data)
    if n < 15:
        return bytes([n << 4]) + data
    rest = n - 15
    ext = b"\xff" * (rest // 255) + bytes([rest % 255])
    return b"\xf0" + ext + data


# A shared library with device code, and a stand-in for the CUDA runtime that records the
# wrapper pointers the library's static constructors pass to __cudaRegisterFatBinary.
SHARED_CU = r"""
__device__ int g_val = 7;
__global__ void scale(float *x, float s) { x[threadIdx.x] *= s + g_val; }
extern "C" void launch(float *x) { scale<<<1, 32>>>(x, 2.f); }
"""

REGISTER_STUB_C = r"""
void *g_wrappers[16];
int g_n;
void **__cudaRegisterFatBinary(void *w) { if (g_n < 16) g_wrappers[g_n++] = w; return (void **)w; }
void __cudaRegisterFatBinaryEnd(void **h) { (void)h; }
void __cudaUnregisterFatBinary(void **h) { (void)h; }
void __cudaRegisterFunction(void) {}
void __cudaRegisterVar(void) {}
int __cudaGetKernel(void) { return 0; }
int __cudaInitModule(void) { return 0; }
int __cudaLaunchKernel(void) { return 0; }
int __cudaPopCallConfiguration(void) { return 0; }
int __cudaPushCallConfiguration(void) { return 0; }
"""

# Run in a child interpreter: load the stub globally, then the library (its constructors
# register the fat binary), then parse every recorded wrapper from live process memory.
LOAD_AND_PARSE_PY = r"""
import ctypes, json, sys
stub = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
ctypes.CDLL(sys.argv[2])
from cuobjdump_tools import parse_wrapper, select_ptx
n = ctypes.c_int.in_dll(stub, "g_n").value
ptrs = (ctypes.c_void_p * 16).in_dll(stub, "g_wrappers")
out = []
for i in range(n):
    fb = parse_wrapper(lambda a, k: ctypes.string_at(a, k), ptrs[i])
    out.append({"version": fb.wrapper_version, "entries": [[e.kind, e.arch] for e in fb.entries],
                "ptx": select_ptx(fb, 0).text})
print(json.dumps(out))
"""
