"""The runtime driving the real functional engine (no binary): registration from a PTX file,
symbols, struct-by-value parameters, results, and a real fault becoming a sticky error."""

from __future__ import annotations

import ctypes
import os
import struct

import numpy as np
import pytest

from gpgpusim.errors import Err

pytest.importorskip("gpgpusim.functional.engine")

HERE = os.path.dirname(os.path.abspath(__file__))
KERN, SMEM_KERN = "_Z4kernPfi1S", "_Z9smem_kernPi"


def addr(obj) -> int:
    return ctypes.addressof(obj)


@pytest.fixture
def real_rt(monkeypatch):
    from gpgpusim.options import load_config
    from gpgpusim.runtime.api import Runtime

    monkeypatch.setenv("PTX_SIM_USE_PTX_FILE", "1")
    monkeypatch.setenv("PTX_SIM_KERNELFILE", os.path.join(HERE, "sample_kernels.ptx"))
    r = Runtime(load_config(None, env=False), splash=False)
    stubs = (ctypes.c_char * 32)()
    shadows = (ctypes.c_char * 32)()
    names = {n: ctypes.create_string_buffer(n.encode()) for n in (KERN, SMEM_KERN, "dev_counter", "coeffs")}
    h = r.gs_register_fatbinary(0)
    for i, n in enumerate((KERN, SMEM_KERN)):
        r.__cudaRegisterFunction(h, addr(stubs) + 8 * i, addr(names[n]), addr(names[n]), -1, 0, 0, 0, 0, 0)
    r.__cudaRegisterVar(h, addr(shadows), addr(names["dev_counter"]), addr(names["dev_counter"]), 0, 4, 0, 0)
    r.__cudaRegisterVar(h, addr(shadows) + 16, addr(names["coeffs"]), addr(names["coeffs"]), 0, 16, 1, 0)
    r.__cudaRegisterFatBinaryEnd(h)
    r.keep = (stubs, shadows, names)
    r.stub = lambda i: addr(stubs) + 8 * i
    r.shadow = lambda i: addr(shadows) + 16 * i
    yield r
    r.streams.shutdown(2.0)


def _launch(rt, stub, grid, block, ptrs):
    g = (ctypes.c_uint32 * 3)(*grid)
    b = (ctypes.c_uint32 * 3)(*block)
    arr = (ctypes.c_void_p * len(ptrs))(*[addr(p) for p in ptrs])
    return rt.gs_launch_kernel(1, stub, addr(g), addr(b), addr(arr), 0, 0)


def test_kernel_with_struct_param_constants_and_device_variable(real_rt):
    rt = real_rt
    n = 40
    out = ctypes.c_uint64()
    assert rt.cudaMalloc(addr(out), 4 * n) == 0
    coeffs = (ctypes.c_float * 4)(1.0, 2.0, 3.0, 4.0)
    assert rt.cudaMemcpyToSymbol(rt.shadow(1), addr(coeffs), 16, 0, 1) == 0
    p_out, p_n = ctypes.c_uint64(out.value), ctypes.c_int32(n - 8)
    s = ctypes.create_string_buffer(struct.pack("<dixxxx", 0.5, 10), 16)
    assert _launch(rt, rt.stub(0), (1, 1, 1), (n, 1, 1), [p_out, p_n, s]) == 0
    host = np.full(n, -1.0, dtype=np.float32)
    assert rt.cudaMemcpy(host.ctypes.data, out.value, 4 * n, 2) == 0
    expect = np.array([[1, 2, 3, 4][i % 4] * 0.5 + 10 + 7 for i in range(n - 8)], dtype=np.float32)
    assert (host[:n - 8] == expect).all()
    assert (host[n - 8:] == 0).all()                       # cudaMalloc memory starts zeroed


def test_shared_memory_kernel(real_rt):
    rt = real_rt
    out = ctypes.c_uint64()
    assert rt.cudaMalloc(addr(out), 4 * 1024) == 0
    p = ctypes.c_uint64(out.value)
    assert _launch(rt, rt.stub(1), (1, 1, 1), (1024, 1, 1), [p]) == 0
    host = np.zeros(1024, dtype=np.int32)
    assert rt.cudaMemcpy(host.ctypes.data, out.value, 4096, 2) == 0
    assert (host == np.arange(1023, -1, -1)).all()


def test_real_fault_is_sticky(real_rt, capsys):
    rt = real_rt
    p_out, p_n = ctypes.c_uint64(0x10), ctypes.c_int32(32)     # not device memory
    s = ctypes.create_string_buffer(16)
    assert _launch(rt, rt.stub(0), (1, 1, 1), (32, 1, 1), [p_out, p_n, s]) == 0
    assert rt.cudaDeviceSynchronize() == Err.IllegalAddress
    assert "cudaErrorIllegalAddress" in capsys.readouterr().err
    x = ctypes.c_uint64()
    assert rt.cudaMalloc(addr(x), 8) == Err.IllegalAddress
    assert rt.cudaGetLastError() == Err.IllegalAddress
