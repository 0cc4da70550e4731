"""Instruction counts against GPGPU-Sim 4.2 (``../shared/reference/gpgpusim-reference.csv``).

``gpu_sim_insn`` counts lanes that are active and whose guard is true; ``gpgpu_n_tot_w_icount``
counts issued warp instructions (see :mod:`gpgpusim.functional.engine`).  ``active_insn`` is the
C++ functional mode's count (predicated-off lanes too), from ``gpgpusim-baseline.md``: vectoradd
1,441,792, reduce 11,402,752 + 22,271 = 11,425,023, matmul 65,011,712.
"""

import struct

import numpy as np
import pytest
from engine_helpers import DATA

from gpgpusim.functional.engine import launch
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.ptx import load_ptx_cached


def _load(name):
    m = load_ptx_cached((DATA / f"{name}.ptx").read_text(), f"{name}.ptx")
    g = GlobalMemory()
    return g, load_module(m, g)


@pytest.mark.parametrize("driver", ["batched", "warp"])
def test_vectoradd_counts(driver):
    g, lm = _load("vectoradd")
    n = 1 << 16 if driver == "batched" else 1 << 12
    a = np.arange(n, dtype=np.float32)
    da, db, dc = (g.allocate(4 * n) for _ in range(3))
    g.write(da, a)
    g.write(db, a * 2)
    st = launch(lm, "_Z6vecAddPKfS0_Pfi", (n // 256, 1, 1), (256, 1, 1), 0,
                struct.pack("<QQQi", da, db, dc, n), gmem=g, driver=driver)
    assert g.read(dc, 4 * n).view(np.float32).tolist() == (a * 3).tolist()
    if driver == "batched":
        assert (st.thread_insn, st.warp_insn, st.active_insn) == (1_376_256, 45_056, 1_441_792)
    else:   # same per-thread rule on a smaller grid: 21 thread / 22 warp instructions each
        assert (st.thread_insn, st.warp_insn) == (21 * n, 22 * n // 32)
    assert st.opcode_counts["ld"] == 6 * n and "bra" not in st.opcode_counts


def test_reduce_counts_two_kernels():
    g, lm = _load("reduce")
    n = 1 << 18
    blocks = n // 512
    x = (np.arange(n) % 11 - 5).astype(np.int32)
    din, dpart, dres = g.allocate(4 * n), g.allocate(4 * blocks), g.allocate(4)
    g.write(din, x)
    k = "_Z9reduceSumPKiPii"
    s1 = launch(lm, k, (blocks, 1, 1), (256, 1, 1), 0, struct.pack("<QQi", din, dpart, n), gmem=g)
    s2 = launch(lm, k, (1, 1, 1), (256, 1, 1), 0, struct.pack("<QQi", dpart, dres, blocks), gmem=g)
    assert (s1.thread_insn, s1.warp_insn, s1.active_insn) == (10_747_392, 371_200, 11_402_752)
    assert (s2.thread_insn, s2.warp_insn) == (20_991, 725)
    assert s1.active_insn + s2.active_insn == 11_425_023
    assert int(g.read(dres, 4).view(np.int32)[0]) == int(x.sum())


@pytest.mark.slow
def test_matmul_counts_and_result():
    g, lm = _load("matmul")
    n = 256
    rng = np.random.default_rng(0)
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    da, db, dc = (g.allocate(4 * n * n) for _ in range(3))
    g.write(da, a)
    g.write(db, b)
    st = launch(lm, "_Z11matmulTiledPKfS0_Pfi", (16, 16, 1), (16, 16, 1), 0,
                struct.pack("<QQQi", da, db, dc, n), gmem=g)
    assert (st.thread_insn, st.warp_insn, st.active_insn) == (64_880_640, 2_031_616, 65_011_712)
    c = g.read(dc, 4 * n * n).view(np.float32).reshape(n, n)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4)
