"""Training run of the profile-guided native build (:func:`gpgpusim.native.build`).

``python -m gpgpusim.pgo.train`` simulates the kernels of ``train.ptx`` in
performance mode on small SM7_QV100 and SM86_RTX3070 GPUs: shared-memory tiles and barriers,
streaming and strided global traffic, atomics, divergence.  Run under an instrumented build
(``GPGPUSIM_NATIVE_DIR`` names it), it leaves the branch and call counts that the optimised
build is then compiled with.  The results are checked, so a training run that simulates
wrongly fails the build instead of training it on a broken path.  Takes about 20-40 s
instrumented.
"""

from __future__ import annotations

import os
import struct
import sys
import time
from typing import Any, Sequence

import numpy as np

from gpgpusim import native
from gpgpusim.device.gpu import KernelLaunchOp
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.options import load_config
from gpgpusim.ptx import parse_ptx
from gpgpusim.timing.gpu import TimingGpu

PTX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "train.ptx")


def timing_gpu(ptx_text: str, name: str, sms: int, config: str,
               options: Sequence[str] = ()) -> tuple[Any, Any, Any, Any]:
    """``(cfg, gmem, gpu, loaded module)``: a performance-mode GPU of ``config`` with ``sms``
    SMs, no launch latency and the ``-option value`` strings ``options``, with PTX ``ptx_text``
    loaded (``bench/inproc.py`` sets up its speed benchmarks with it too)."""

    cfg = load_config(None, overrides=[f"-gpgpu_n_clusters {sms}", "-gpgpu_kernel_launch_latency 0",
                                       *options], env=False, gpu=config)
    g = GlobalMemory()
    return cfg, g, TimingGpu(cfg, g, None), load_module(parse_ptx(ptx_text, name), g)


def launch_op(lm: Any, cfg: Any, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int],
              params: bytes, regs: int, smem: int) -> Any:
    """The launch of ``kernel`` of loaded module ``lm`` (``regs`` and ``smem`` feed occupancy)."""
    return KernelLaunchOp(lm, kernel, grid, block, 0, params, {"options": cfg}, regs_per_thread=regs,
                          static_smem_bytes=smem)


def run_to_end(gpu: Any, op: Any) -> Any:
    """Simulate launch ``op`` on ``gpu`` to its end; its kernel record."""
    rec = gpu.start_kernel(op, 0)
    while not gpu.advance():
        pass
    return rec


def _run(gpu: Any, lm: Any, cfg: Any, kernel: str, grid: int | tuple[int, int, int],
         block: int | tuple[int, int, int], params: bytes, smem: int = 0) -> None:
    g3 = grid if isinstance(grid, tuple) else (grid, 1, 1)
    b3 = block if isinstance(block, tuple) else (block, 1, 1)
    run_to_end(gpu, launch_op(lm, cfg, kernel, g3, b3, params, 32, smem))


def _put(g: object, arr: np.ndarray) -> int:
    p = g.allocate(arr.nbytes)  # type: ignore[attr-defined]
    g.write(p, arr)  # type: ignore[attr-defined]
    return int(p)


def train(config: str, sms: int, n: int, threads: int) -> None:
    """The four kernels on ``config`` with ``sms`` SMs: an ``n``-by-``n`` tiled matmul and
    ``threads``-thread gathers (unit and 33-word stride), bins and branchy kernels."""
    with open(PTX) as f:
        text = f.read()
    cfg, g, gpu, lm = timing_gpu(text, "train.ptx", sms, config)
    rng = np.random.default_rng(7)
    a = rng.integers(-4, 4, (n, n)).astype(np.float32)
    b = rng.integers(-4, 4, (n, n)).astype(np.float32)
    pa, pb, pc = _put(g, a), _put(g, b), _put(g, np.zeros((n, n), np.float32))
    _run(gpu, lm, cfg, "_Z7tile_mmPKfS0_Pfi", (n // 16, n // 16, 1), (16, 16, 1),
         struct.pack("<QQQi", pa, pb, pc, n), smem=2048)
    if not np.array_equal(g.read(pc, a.nbytes).view(np.float32).reshape(n, n), a @ b):  # type: ignore[attr-defined]
        raise RuntimeError(f"training run on {config}: tile_mm result differs from numpy")
    x = np.arange(threads, dtype=np.float32)
    px, py = _put(g, x), _put(g, np.zeros(threads, np.float32))
    for stride in (1, 33):
        _run(gpu, lm, cfg, "_Z6gatherPKfPfii", threads // 256, 256, struct.pack("<QQii", px, py, threads, stride))
        want = 2.0 * x[(np.arange(threads, dtype=np.int64) * stride) % threads] + 1.0
        if not np.array_equal(g.read(py, x.nbytes).view(np.float32), want):  # type: ignore[attr-defined]
            raise RuntimeError(f"training run on {config}: gather (stride {stride}) result differs")
    keys = rng.integers(0, 1 << 20, threads).astype(np.int32)
    pk, ph = _put(g, keys), _put(g, np.zeros(32, np.int32))
    _run(gpu, lm, cfg, "_Z4binsPKiPii", threads // 256, 256, struct.pack("<QQi", pk, ph, threads))
    if not np.array_equal(g.read(ph, 128).view(np.int32), np.bincount(keys & 31, minlength=32)):  # type: ignore[attr-defined]
        raise RuntimeError(f"training run on {config}: bins result differs")
    _run(gpu, lm, cfg, "_Z7branchyPfi", threads // 256, 256, struct.pack("<Qi", py, threads))


def main() -> int:
    want = os.environ.get("GPGPUSIM_NATIVE_DIR")
    if want and not native.activate():
        # training the pure-Python model would leave no profile: the build must not go on
        print(f"gpgpusim: the build in {want} is not in use: {native.status()}", file=sys.stderr)
        return 1
    t = time.time()
    train("SM7_QV100", 8, 64, 16384)
    train("SM86_RTX3070", 4, 32, 4096)
    print(f"training run done in {time.time() - t:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
