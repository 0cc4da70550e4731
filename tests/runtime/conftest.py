"""Fixtures: a Runtime with a module registered from a PTX file (PTX_SIM_USE_PTX_FILE, C021)."""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass, field

import pytest

from gpgpusim.errors import CudaError, Err

HERE = os.path.dirname(os.path.abspath(__file__))
PTX = os.path.join(HERE, "sample_kernels.ptx")   # nvcc -ptx of a small .cu (see test_api.py)
KERN = "_Z4kernPfi1S"          # kern(float *out, int n, S s), S = {double d; int i;}
SMEM_KERN = "_Z9smem_kernPi"   # smem_kern(int *out) with 4 KiB static shared memory


@dataclass
class Stats:
    warp_insn: int = 0
    thread_insn: int = 0


@dataclass
class FakeEngine:
    """Stands in for gpgpusim.functional.engine.launch; records every call; ``fault`` makes
    the next launch raise (a kernel fault)."""

    calls: list = field(default_factory=list)
    fault: CudaError | None = None

    def __call__(self, lm, kernel, grid, block, dyn_smem, params, *, gmem, **kw):
        self.calls.append((kernel, grid, block, dyn_smem, params, sorted(kw)))
        if self.fault is not None:
            raise self.fault
        return Stats(warp_insn=10)


class Handles:
    """Host-side addresses standing for the app's host stubs and shadow variables."""

    def __init__(self) -> None:
        self.stubs = (ctypes.c_char * 64)()
        self.shadows = (ctypes.c_char * 64)()
        self.names = {n: ctypes.create_string_buffer(n.encode()) for n in
                      (KERN, SMEM_KERN, "dev_counter", "coeffs")}

    def stub(self, i: int) -> int:
        return ctypes.addressof(self.stubs) + 8 * i

    def shadow(self, i: int) -> int:
        return ctypes.addressof(self.shadows) + 16 * i

    def name(self, n: str) -> int:
        return ctypes.addressof(self.names[n])


@pytest.fixture
def engine() -> FakeEngine:
    return FakeEngine()


@pytest.fixture
def rt(monkeypatch, engine):
    from gpgpusim.options import load_config
    from gpgpusim.runtime.api import Runtime

    monkeypatch.setenv("PTX_SIM_USE_PTX_FILE", "1")
    monkeypatch.setenv("PTX_SIM_KERNELFILE", PTX)
    monkeypatch.delenv("CUDA_LAUNCH_BLOCKING", raising=False)
    r = Runtime(load_config(None, env=False), launch_fn=engine, splash=False)
    h = Handles()
    handle = r.gs_register_fatbinary(0)
    assert handle != 0
    r.__cudaRegisterFunction(handle, h.stub(0), h.name(KERN), h.name(KERN), -1, 0, 0, 0, 0, 0)
    r.__cudaRegisterFunction(handle, h.stub(1), h.name(SMEM_KERN), h.name(SMEM_KERN), -1, 0, 0, 0, 0, 0)
    r.__cudaRegisterVar(handle, h.shadow(0), h.name("dev_counter"), h.name("dev_counter"), 0, 4, 0, 0)
    r.__cudaRegisterVar(handle, h.shadow(1), h.name("coeffs"), h.name("coeffs"), 0, 16, 1, 0)
    r.__cudaRegisterFatBinaryEnd(handle)
    assert all(m.error is None for m in r.registry.modules.values())
    r.h = h
    r.handle = handle
    yield r
    r.streams.shutdown(2.0)


def addr(obj) -> int:
    return ctypes.addressof(obj)


assert Err.Success == 0
