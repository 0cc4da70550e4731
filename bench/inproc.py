"""The in-process set-up the benchmarks share (``timing_speed.py``, ``mem_speed.py``,
``feed_memory.py``, ``interval_sampling.py``): CUDA source compiled to PTX, loaded into a fresh
performance-mode GPU with ``N`` SMs and no launch latency (unless an option sets one), and one
kernel launch simulated to its end in CPU seconds (start-up, PTX parsing and the CUDA shim left
out)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE.parent.parent / "shared" / "reference" / "programs"

try:
    import gpgpusim  # noqa: F401
except ImportError:         # run from a checkout without installing it
    sys.path.insert(0, str(HERE.parent))


def compile_ptx(source: str, stem: str) -> str:
    """``nvcc -ptx -arch=compute_75`` of CUDA ``source`` (in a scratch directory)."""
    with tempfile.TemporaryDirectory() as tmp:
        cu = Path(tmp) / f"{stem}.cu"
        cu.write_text(source)
        out = Path(tmp) / f"{stem}.ptx"
        nvcc = shutil.which("nvcc") or "nvcc"
        subprocess.run([nvcc, "-ptx", "-arch=compute_75", "-o", str(out), str(cu)], check=True)
        return out.read_text()


def timing_gpu(ptx_text: str, name: str, sms: int, config: str,
               options: Sequence[str] = ()) -> tuple[Any, Any, Any, Any]:
    """``(cfg, gmem, gpu, loaded module)``: config ``config`` with ``sms`` SMs, launch latency 0
    and the ``-option value`` strings ``options``."""
    from gpgpusim.pgo.train import timing_gpu as make
    return make(ptx_text, name, sms, config, options)


def launch_op(lm: Any, cfg: Any, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int],
              params: bytes, regs: int, smem: int) -> Any:
    from gpgpusim.pgo.train import launch_op as make
    return make(lm, cfg, kernel, grid, block, params, regs, smem)


def upload(gmem: Any, *arrays: Any) -> list[int]:
    """Allocate each numpy array in device memory ``gmem`` and copy it there; their addresses."""
    addrs = []
    for arr in arrays:
        p = gmem.allocate(arr.nbytes)
        gmem.write(p, arr)
        addrs.append(p)
    return addrs


def simulate(gpu: Any, op: Any) -> tuple[Any, float]:
    """Run launch ``op`` to its end: ``(kernel record, CPU seconds)``."""
    from gpgpusim.pgo.train import run_to_end
    t0 = time.process_time()
    rec = run_to_end(gpu, op)
    return rec, time.process_time() - t0
