"""Functional-engine speed benchmark (not a test): vectoradd, matmul, reduce reference programs.

Compiles ``../shared/reference/programs/{vectoradd,matmul,reduce}.cu`` to PTX with
``nvcc -ptx -O2`` (cached under ``~/.cache/gpgpusim/bench``), then runs each kernel
through ``parse_ptx`` + ``load_module`` + ``engine.launch`` with the programs' inputs, checks
the results against numpy, and prints wall time, thread instructions and thread-instr/s.
C++ GPGPU-Sim reference (functional mode, matmul): 7.6 s, 8.5 M thread-instr/s.

    python bench/functional_bench.py [--driver batched|warp] [--only matmul] [--sector-log]

``--sector-log``: the memory keeps kernel sampling's sector log, as under ``--sample kernel|all``,
so the engine also counts each launch's cold misses and global transactions
(``functional/sectors.py``, ``mem_insts.count_transactions``).
"""

from __future__ import annotations

import argparse
import os
import struct
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from gpgpusim.functional.engine import launch  # noqa: E402
from gpgpusim.functional.loader import load_module  # noqa: E402
from gpgpusim.functional.memory import GlobalMemory  # noqa: E402
from gpgpusim.functional.sectors import SectorLog  # noqa: E402
from gpgpusim.ptx import parse_ptx  # noqa: E402
from pathlib import Path

# ../shared beside the checkout (the reference data); GPGPUSIM_SHARED overrides.
SHARED_DIR = os.environ.get("GPGPUSIM_SHARED") or str(Path(__file__).resolve().parents[2] / "shared")

PROGS = os.environ.get("GPGPUSIM_REF_PROGRAMS", os.path.join(SHARED_DIR, "reference/programs"))
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "gpgpusim", "bench")


#: ``--sector-log``
SECTOR_LOG = False


def ptx_of(name: str) -> str:
    os.makedirs(CACHE, exist_ok=True)
    out = os.path.join(CACHE, name + ".ptx")
    if not os.path.exists(out):
        subprocess.run(["nvcc", "-ptx", "-O2", os.path.join(PROGS, name + ".cu"), "-o", out], check=True)
    with open(out) as f:
        return f.read()


def load(name: str):
    t0 = time.perf_counter()
    m = parse_ptx(ptx_of(name), name + ".ptx")
    g = GlobalMemory()
    if SECTOR_LOG:
        g.sectors = SectorLog(g)
    return m, g, load_module(m, g), time.perf_counter() - t0


def vectoradd(driver: str):
    m, g, lm, tp = load("vectoradd")
    n = 1 << 16
    rng = np.random.default_rng(1)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    da, db, dc = (g.allocate(4 * n) for _ in range(3))
    g.write(da, a)
    g.write(db, b)
    st = launch(lm, "_Z6vecAddPKfS0_Pfi", (256, 1, 1), (256, 1, 1), 0,
                struct.pack("<QQQi", da, db, dc, n), gmem=g, driver=driver)
    ok = np.array_equal(g.read(dc, 4 * n).view(np.float32), a + b)
    return [st], ok, tp


def matmul(driver: str):
    m, g, lm, tp = load("matmul")
    n = 256
    rng = np.random.default_rng(2)
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    da, db, dc = (g.allocate(4 * n * n) for _ in range(3))
    g.write(da, a)
    g.write(db, b)
    st = launch(lm, "_Z11matmulTiledPKfS0_Pfi", (16, 16, 1), (16, 16, 1), 0,
                struct.pack("<QQQi", da, db, dc, n), gmem=g, driver=driver)
    c = g.read(dc, 4 * n * n).view(np.float32).reshape(n, n)
    ok = np.allclose(c, a.astype(np.float64) @ b, rtol=1e-4)
    return [st], ok, tp


def reduce(driver: str):
    m, g, lm, tp = load("reduce")
    n = 1 << 18
    blocks = (n + 511) // 512
    x = (np.arange(n) % 7 - 3).astype(np.int32)
    din, dpart, dres = g.allocate(4 * n), g.allocate(4 * blocks), g.allocate(4)
    g.write(din, x)
    k = "_Z9reduceSumPKiPii"
    s1 = launch(lm, k, (blocks, 1, 1), (256, 1, 1), 0, struct.pack("<QQi", din, dpart, n), gmem=g, driver=driver)
    s2 = launch(lm, k, (1, 1, 1), (256, 1, 1), 0, struct.pack("<QQi", dpart, dres, blocks), gmem=g, driver=driver)
    ok = int(g.read(dres, 4).view(np.int32)[0]) == int(x.sum())
    return [s1, s2], ok, tp


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", default="batched")
    ap.add_argument("--only", default=None)
    ap.add_argument("--sector-log", action="store_true", help="keep kernel sampling's sector log")
    args = ap.parse_args()
    global SECTOR_LOG
    SECTOR_LOG = args.sector_log
    for name, fn in (("vectoradd", vectoradd), ("matmul", matmul), ("reduce", reduce)):
        if args.only and name != args.only:
            continue
        t0 = time.perf_counter()
        stats, ok, tp = fn(args.driver)
        wall = time.perf_counter() - t0
        ti = sum(s.thread_insn for s in stats)
        wi = sum(s.warp_insn for s in stats)
        ks = sum(s.wall_s for s in stats)
        tx = f" tx={sum(s.tx_reads for s in stats)}/{sum(s.tx_writes for s in stats)}" if SECTOR_LOG else ""
        print(f"{name:10s} {args.driver:7s} ok={ok} wall={wall:.3f}s (parse {tp:.3f}s, kernels {ks:.3f}s) "
              f"thread_insn={ti} warp_insn={wi} {ti / ks / 1e6:.1f} M thread-instr/s (kernel time){tx}")


if __name__ == "__main__":
    main()
