"""Speed of the cycle-level model on a memory-bound kernel, in process.

The reference ``stridedLoad`` kernel (``../shared/reference/programs/strided.cu``: ``out[i] =
2 * in[i * stride] + 1``) on SM86_RTX3070 with fewer SMs and threads, after a performance-mode
copy of its input into the L2 (``memcpy_to_l2``), timed in CPU seconds (start-up, PTX parsing
and the CUDA shim left out).  Prints the cycles and a digest of every statistic, so two
checkouts can be compared for speed *and* exactness: run both alternately, e.g.

    PYTHONPATH=A python3 bench/mem_speed.py --stride 32
    PYTHONPATH=B python3 bench/mem_speed.py --stride 32
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
import time

import numpy as np
from inproc import PROGRAMS, compile_ptx, launch_op, simulate, timing_gpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stride", type=int, default=32, help="elements between the loads of adjacent threads")
    ap.add_argument("--threads", type=int, default=1 << 14, help="threads (multiple of 256)")
    ap.add_argument("--sms", type=int, default=8, help="SMs (-gpgpu_n_clusters)")
    ap.add_argument("--config", default="SM86_RTX3070")
    ap.add_argument("--cold", action="store_true",
                    help="no copy of the input into the L2 first: every load goes to DRAM (stream-like)")
    args = ap.parse_args(argv)
    text = compile_ptx((PROGRAMS / "strided.cu").read_text(), "strided")
    cfg, g, gpu, lm = timing_gpu(text, "strided.ptx", args.sms, args.config)
    n = args.threads
    src = (np.arange(n * args.stride, dtype=np.int64) * 7 % 8191).astype(np.float32)
    din = g.allocate(src.nbytes)
    g.write(din, src)
    dout = g.allocate(4 * n)
    op = launch_op(lm, cfg, "_Z11stridedLoadPKfPfii", (n // 256, 1, 1), (256, 1, 1),
                   struct.pack("<QQii", din, dout, args.stride, n), regs=10, smem=0)
    t0 = time.process_time()
    if not args.cold:
        gpu.mem.memcpy_to_l2(din, src.nbytes, 0)
    t1 = time.process_time()
    rec, cpu = simulate(gpu, op)
    out = g.read(dout, 4 * n).view(np.float32)
    if not np.array_equal(out, 2 * src[::args.stride][:n] + 1):
        print("result differs from numpy", file=sys.stderr)
        return 1
    cycles = int(rec.report_stats.cycles)
    gpu.mem.publish_stats()
    snap = gpu.stats.snapshot()
    assert "L1D_total_cache_reservation_fails" in snap and "dram_channels" in snap, sorted(snap)[:20]
    digest = hashlib.sha256(json.dumps(snap, sort_keys=True, default=str).encode()).hexdigest()[:16]
    print(f"strided stride={args.stride} threads={n} on {args.sms} SMs ({args.config}): {cycles} cycles, "
          f"memcpy {t1 - t0:.2f} s, kernel {cpu:.2f} s CPU, {cycles / cpu:,.0f} cycles/s, stats {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
