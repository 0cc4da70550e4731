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
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PROGRAM = HERE.parent.parent / "shared" / "reference" / "programs" / "strided.cu"


def build_ptx(out_dir: Path) -> str:
    cu = out_dir / "strided.cu"
    shutil.copy(PROGRAM, cu)
    nvcc = shutil.which("nvcc") or "nvcc"
    subprocess.run([nvcc, "-ptx", "-arch=compute_75", "-o", str(out_dir / "strided.ptx"), str(cu)], check=True)
    return (out_dir / "strided.ptx").read_text()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stride", type=int, default=32, help="elements between the loads of adjacent threads")
    ap.add_argument("--threads", type=int, default=1 << 14, help="threads (multiple of 256)")
    ap.add_argument("--sms", type=int, default=8, help="SMs (-gpgpu_n_clusters)")
    ap.add_argument("--config", default="SM86_RTX3070")
    args = ap.parse_args(argv)
    try:
        import gpgpusim  # noqa: F401
    except ImportError:         # run from a checkout without installing it
        sys.path.insert(0, str(HERE.parent))

    from gpgpusim.functional.loader import load_module
    from gpgpusim.functional.memory import GlobalMemory
    from gpgpusim.options import load_config
    from gpgpusim.ptx import parse_ptx
    from gpgpusim.runtime.gpu import KernelLaunchOp
    from gpgpusim.timing.gpu import TimingGpu

    with tempfile.TemporaryDirectory() as tmp:
        text = build_ptx(Path(tmp))
    mod = parse_ptx(text, "strided.ptx")
    cfg = load_config(None, overrides=[f"-gpgpu_n_clusters {args.sms}", "-gpgpu_kernel_launch_latency 0"],
                      env=False, gpu=args.config)
    g = GlobalMemory()
    gpu = TimingGpu(cfg, g, None)
    lm = load_module(mod, g)
    n = args.threads
    src = (np.arange(n * args.stride, dtype=np.int64) * 7 % 8191).astype(np.float32)
    din = g.allocate(src.nbytes)
    g.write(din, src)
    dout = g.allocate(4 * n)
    op = KernelLaunchOp(lm, "_Z11stridedLoadPKfPfii", (n // 256, 1, 1), (256, 1, 1), 0,
                        struct.pack("<QQii", din, dout, args.stride, n), {"options": cfg}, regs_per_thread=10,
                        static_smem_bytes=0)
    t0 = time.process_time()
    gpu.mem.memcpy_to_l2(din, src.nbytes, 0)
    t1 = time.process_time()
    rec = gpu.start_kernel(op, 0)
    done: list = []
    while not done:
        done = gpu.advance()
    cpu = time.process_time() - t1
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
