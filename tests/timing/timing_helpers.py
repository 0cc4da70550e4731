"""Run PTX kernels on the cycle-level GPU (``TimingGpu``) without the CUDA shim.

``run_timing(module, kernel, grid, block, buffers, overrides=...)`` builds a GPU from the
embedded SM7_QV100 config plus ``overrides`` (GPGPU-Sim ``-opt value`` strings), loads the
module, copies ``buffers`` to the device, launches once and simulates to the end.  It returns
the GPU (stats, cores with their issue traces), the kernel record and the buffers read back.
"""

from __future__ import annotations

import struct
from typing import Any, Callable

import numpy as np

from gpgpusim.functional import engine
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.options import load_config
from gpgpusim.ptx import parse_ptx
from gpgpusim.device.gpu import KernelLaunchOp
from gpgpusim.timing.gpu import TimingGpu

#: a small machine: one SM, no launch latency (cycles then count from the first CTA)
SMALL = ["-gpgpu_n_clusters 1", "-gpgpu_kernel_launch_latency 0"]


def chunk_sizes(monkeypatch: Any) -> list[int]:
    """A list that records how many CTAs each chunk the functional engine makes from now on
    holds (``engine.chunk_exec``, wrapped through ``monkeypatch``), in order."""
    sizes: list[int] = []
    real = engine.chunk_exec
    monkeypatch.setattr(engine, "chunk_exec", lambda lc, ids, ws: (sizes.append(len(ids)), real(lc, ids, ws))[1])
    return sizes


class TimingRun:
    def __init__(self, gpu: TimingGpu, rec: Any, out: dict[str, np.ndarray]) -> None:
        self.gpu = gpu
        self.rec = rec
        self.out = out

    @property
    def cycles(self) -> int:
        return int(self.rec.report_stats.cycles)

    @property
    def counters(self) -> dict[str, Any]:
        return self.rec.report_stats.counters

    def issues(self, core: int = 0) -> list[tuple[int, int, int]]:
        """(cycle, warp slot, pc) of every issued instruction on ``core``."""
        return list(self.gpu.cores[core].trace or [])


def ptx(body: str, params: str = ".param .u64 p0", name: str = "k") -> Any:
    text = (".version 8.0\n.target sm_80\n.address_size 64\n"
            f".visible .entry {name}({params})\n{{\n{body}\n}}\n")
    return parse_ptx(text, "t.ptx")


def run_timing(module: Any, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int],
               buffers: list[tuple[str, np.ndarray]] = (), overrides: list[str] = (),
               trace: bool = True, env_skip: bool = True, regs: int = 16, smem: int = 0,
               gpu: str | None = None, reporter: Any = None,
               extra_params: Callable[[dict[str, int]], list[int]] | None = None,
               before_launch: Callable[[TimingGpu, dict[str, int]], None] | None = None,
               check: bool = True) -> TimingRun:
    """``extra_params(buffer addresses)`` gives more ``.u64`` parameters, after the buffers';
    ``before_launch(gpu, buffer addresses)`` runs just before the launch (e.g. to place the
    buffers in the L2 as a ``cudaMemcpy`` with ``-gpgpu_perf_sim_memcpy`` does).  Without
    ``check`` a launch that fails is returned too (its record holds the error)."""
    cfg = load_config(None, overrides=list(SMALL) + list(overrides), env=False, gpu=gpu)
    g = GlobalMemory()
    gpu = TimingGpu(cfg, g, reporter)
    gpu.skip_idle = env_skip
    lm = load_module(module, g)
    addrs = {}
    vals = []
    for name, arr in buffers:
        a = g.allocate(max(arr.nbytes, 1))
        g.write(a, arr)
        addrs[name] = a
        vals.append(a)
    if extra_params is not None:
        vals += extra_params(addrs)
    params = struct.pack("<" + "Q" * len(vals), *vals)
    if trace:
        for c in gpu.cores:
            c.trace = []
    if before_launch is not None:
        before_launch(gpu, addrs)
    op = KernelLaunchOp(lm, kernel, grid, block, 0, params, {"options": cfg}, regs_per_thread=regs,
                        static_smem_bytes=smem)
    rec = gpu.start_kernel(op, 0)
    done: list[Any] = []
    while not done:
        done = gpu.advance()
    assert rec.error is None or not check, rec.error
    out = {name: g.read(addrs[name], arr.nbytes).view(arr.dtype).reshape(arr.shape) for name, arr in buffers}
    return TimingRun(gpu, rec, out)
