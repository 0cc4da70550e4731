"""Speed of the cycle-level model alone, in process: the reference tiled matmul kernel
(``../shared/reference/programs/matmul.cu`` with ``N`` set on the command line) on SM7_QV100,
optionally with fewer SMs, timed in CPU seconds (start-up, PTX parsing and the CUDA shim left
out).  Useful to compare two checkouts on a busy machine: run both alternately.

    python bench/timing_speed.py                     # N=128 on 16 SMs (64 CTAs, 4 per SM)
    python bench/timing_speed.py --n 256 --sms 80    # the reference run's kernel
    PYTHONPATH=/other/checkout python bench/timing_speed.py   # the same on another checkout

Prints cycles, CPU seconds, simulated SM-cycles per second and warp instructions per second.
The result matrix is checked against numpy.
"""

from __future__ import annotations

import argparse
import re
import struct
import sys

import numpy as np
from inproc import PROGRAMS, compile_ptx, launch_op, simulate, timing_gpu, upload

PROGRAM = PROGRAMS / "matmul.cu"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=128, help="matrix size (multiple of 16)")
    ap.add_argument("--sms", type=int, default=16, help="SMs (-gpgpu_n_clusters; QV100 has 80)")
    ap.add_argument("--config", default="SM7_QV100")
    ap.add_argument("--set", action="append", default=[], metavar="'-OPTION VALUE'",
                    help="a GPGPU-Sim option, e.g. --set '-gpgpusim_feed_window 0' (repeatable)")
    args = ap.parse_args(argv)
    n = args.n
    text = compile_ptx(re.sub(r"#define N \d+", f"#define N {n}", PROGRAM.read_text()), "mm")
    cfg, g, gpu, lm = timing_gpu(text, "mm.ptx", args.sms, args.config, args.set)
    rng = np.random.default_rng(1)
    a = rng.integers(-4, 4, (n, n)).astype(np.float32)
    b = rng.integers(-4, 4, (n, n)).astype(np.float32)
    addrs = upload(g, a, b, np.zeros((n, n), np.float32))
    op = launch_op(lm, cfg, "_Z11matmulTiledPKfS0_Pfi", (n // 16, n // 16, 1), (16, 16, 1),
                   struct.pack("<QQQi", *addrs, n), regs=38, smem=2048)
    rec, cpu = simulate(gpu, op)
    c = g.read(addrs[2], a.nbytes).view(np.float32).reshape(n, n)
    if not np.array_equal(c, a @ b):
        print("result differs from numpy", file=sys.stderr)
        return 1
    cycles = int(rec.report_stats.cycles)
    winsn = sum(core.n_warp_insn for core in gpu.cores)
    print(f"matmul N={n} on {args.sms} SMs ({args.config}): {cycles} cycles, {cpu:.2f} s CPU, "
          f"{cycles * args.sms / cpu:,.0f} SM-cycles/s, {winsn / cpu:,.0f} warp insn/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
