"""Helpers for engine tests: run a kernel on both drivers and insist they agree.

``run_both`` runs three ways: the batched driver as launched (which issues warp by warp with
scalar bookkeeping when at most ``engine._SMALL_W`` warps are resident, as most small test
kernels are), the batched driver with that shortcut disabled (so the vectorised multi-warp
path runs too), and the warp-step driver.

(A uniquely named module: ``from conftest import ...`` would pick up whichever tests/*/conftest.py
was imported first in a whole-suite run.)"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from gpgpusim.functional import engine
from gpgpusim.functional.engine import launch
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.ptx import parse_ptx

DATA = Path(__file__).parent / "data"


class Run:
    """One launch's results: output buffers by name, stats, printf text."""

    def __init__(self, outputs, stats, printed, gmem, addrs):
        self.out = outputs
        self.stats = stats
        self.printed = printed
        self.gmem = gmem
        self.addrs = addrs


def run_once(module, kernel, grid, block, buffers, scalars=(), driver="batched", dyn_smem=0,
             options=None, line_stats=None, **launch_kw):
    """``buffers``: list of (name, ndarray) copied to the device and read back after the launch;
    ``scalars``: list of (struct format, value) appended after the pointers.  ``driver``:
    "batched", "warp", or "vector" (the batched driver forced onto its vectorised path)."""
    g = GlobalMemory()
    lm = load_module(module, g)
    addrs = {}
    fmt = "<"
    vals = []
    for name, arr in buffers:
        a = g.allocate(max(arr.nbytes, 1))
        g.write(a, arr)
        addrs[name] = a
        fmt += "Q"
        vals.append(a)
    for f, v in scalars:
        fmt += f
        vals.append(v)
    params = struct.pack(fmt, *vals)
    printed: list[str] = []
    small_w = engine._SMALL_W
    if driver == "vector":
        engine._SMALL_W = 0
    try:
        st = launch(lm, kernel, grid, block, dyn_smem, params, gmem=g,
                    driver="batched" if driver == "vector" else driver,
                    printf=printed.append, options=options, line_stats=line_stats, **launch_kw)
    finally:
        engine._SMALL_W = small_w
    outs = {name: g.read(addrs[name], arr.nbytes).view(arr.dtype).reshape(arr.shape) for name, arr in buffers}
    return Run(outs, st, "".join(printed), g, addrs)


def run_both(module, kernel, grid, block, buffers, scalars=(), **kw):
    """Run on the batched driver (as launched, and forced onto its vectorised path) and on the
    warp driver; assert identical memory, counts and output.  Returns the batched run."""
    a = run_once(module, kernel, grid, block, buffers, scalars, driver="batched", **kw)
    for drv in ("vector", "warp"):
        b = run_once(module, kernel, grid, block, buffers, scalars, driver=drv, **kw)
        for name in a.out:
            np.testing.assert_array_equal(a.out[name], b.out[name],
                                          err_msg=f"batched and {drv} runs disagree on {name}")
        assert (a.stats.thread_insn, a.stats.warp_insn) == (b.stats.thread_insn, b.stats.warp_insn), drv
        assert a.printed == b.printed, drv
    return a


def ptx(body: str, params: str = ".param .u64 p0", name: str = "k", extra: str = "") -> object:
    """A one-kernel module from a PTX body (registers declared by the caller)."""
    text = (f".version 8.0\n.target sm_80\n.address_size 64\n{extra}\n"
            f".visible .entry {name}({params})\n{{\n{body}\n}}\n")
    return parse_ptx(text, "t.ptx")
