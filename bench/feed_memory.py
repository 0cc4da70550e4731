"""Peak memory of the trace feed: a tiled matmul C[256x256] = R x A[256xK] B[Kx256] (the
reference program's kernel with the inner dimension as a parameter and its tile loop run R
times: the same grid of 16x16 CTAs, each thread's loop R x K/16 tiles long) in functional mode
and in performance mode (SM7_QV100, 80 SMs, no launch latency), each in a fresh process; peak
RSS (``ru_maxrss``), CPU seconds, cycles.  A longer kernel either way: K (more data) or R (the
same data again).

    python bench/feed_memory.py                    # K = 256 and 2560, window default and 0
    python bench/feed_memory.py --k 256 --k 5120 --window 256 --window 64
    python bench/feed_memory.py --k 256 --reps 1 --reps 10 --window 64

Performance mode's trace is held a window of ``-gpgpusim_feed_window`` instructions per warp
ahead of the timing model (0: each chunk of CTAs recorded whole before it is timed, the size of
that record growing with K).  The result matrix is checked against numpy in every run.
"""

from __future__ import annotations

import argparse
import json
import resource
import struct
import subprocess
import sys
import time

import numpy as np
from inproc import compile_ptx, launch_op, simulate, timing_gpu, upload

SOURCE = r"""
#define TILE 16
__global__ void matmulK(const float *A, const float *B, float *C, int n, int k, int reps) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int r = 0; r < reps; ++r)
    for (int t = 0; t < k / TILE; ++t) {
        As[threadIdx.y][threadIdx.x] = A[row * k + t * TILE + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
        __syncthreads();
        for (int i = 0; i < TILE; ++i)
            acc += As[threadIdx.y][i] * Bs[i][threadIdx.x];
        __syncthreads();
    }
    C[row * n + col] = acc;
}
"""
KERNEL = "_Z7matmulKPKfS0_Pfiii"
N = 256


def one(mode: str, k: int, window: int, reps: int = 1) -> dict:
    """Run the kernel once in this process; its figures."""
    text = compile_ptx(SOURCE, "mmk")
    if mode == "functional":        # no performance model built
        from gpgpusim.functional.loader import load_module
        from gpgpusim.functional.memory import GlobalMemory
        from gpgpusim.options import load_config
        from gpgpusim.ptx import parse_ptx
        cfg, g = load_config(None, env=False, gpu="SM7_QV100"), GlobalMemory()
        lm = load_module(parse_ptx(text, "mmk.ptx"), g)
    else:
        cfg, g, gpu, lm = timing_gpu(text, "mmk.ptx", 80, "SM7_QV100", [f"-gpgpusim_feed_window {window}"])
    rng = np.random.default_rng(1)
    a = rng.integers(-4, 4, (N, k)).astype(np.float32)
    b = rng.integers(-4, 4, (k, N)).astype(np.float32)
    addrs = upload(g, a, b, np.zeros((N, N), np.float32))
    params = struct.pack("<QQQiii", *addrs, N, k, reps)
    grid, block = (N // 16, N // 16, 1), (16, 16, 1)
    out: dict = {"mode": mode, "k": k, "reps": reps, "window": window if mode == "performance" else None}
    if mode == "functional":
        from gpgpusim.functional import engine
        t0 = time.process_time()
        engine.launch(lm, KERNEL, grid, block, 0, params, gmem=g, options=cfg)
        out["cpu_s"] = time.process_time() - t0
    else:
        op = launch_op(lm, cfg, KERNEL, grid, block, params, regs=38, smem=2048)
        rec, out["cpu_s"] = simulate(gpu, op)
        out["cycles"] = int(rec.report_stats.cycles)
    c = g.read(addrs[2], N * N * 4).view(np.float32).reshape(N, N)
    out["correct"] = bool(np.array_equal(c, reps * (a @ b)))
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", type=int, action="append", help="inner dimension (multiple of 16; repeatable)")
    ap.add_argument("--window", type=int, action="append",
                    help="-gpgpusim_feed_window values to run (repeatable; default 256 and 0)")
    ap.add_argument("--reps", type=int, action="append", help="times the tile loop runs (repeatable; default 1)")
    ap.add_argument("--one", nargs=4, metavar=("MODE", "K", "WINDOW", "REPS"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]), int(args.one[2]), int(args.one[3]))))
        return 0
    ks = args.k or [256, 2560]
    windows = args.window or [256, 0]
    print(f"{'mode':<12} {'K':>5} {'reps':>4} {'window':>6} {'peak MB':>8} {'CPU s':>7} {'cycles':>8}  result")
    ok = True
    for k, reps in [(k, r) for k in ks for r in args.reps or [1]]:
        for mode, window in [("functional", 0)] + [("performance", w) for w in windows]:
            run = subprocess.run([sys.executable, __file__, "--one", mode, str(k), str(window), str(reps)],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                print(run.stderr, file=sys.stderr)
                return 1
            r = json.loads(run.stdout.strip().splitlines()[-1])
            ok &= r["correct"]
            print(f"{mode:<12} {k:>5} {reps:>4} {'' if r['window'] is None else r['window']:>6} {r['peak_mb']:>8.0f} "
                  f"{r['cpu_s']:>7.2f} {r.get('cycles', ''):>8}  {'ok' if r['correct'] else 'WRONG'}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
