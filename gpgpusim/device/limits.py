"""What a GPU of a given compute capability lets one thread block use, and which real GPU each
shipped config models.

:func:`arch_limits` gives the documented per-block limits of a compute capability (the
"Technical Specifications per Compute Capability" table of the CUDA C++ Programming Guide;
register allocation units from the CUDA Occupancy Calculator / ``cuda_occupancy.h``):

* threads per block (512 on cc 1.x, else 1024), block dimensions and grid dimensions;
* registers one block may hold and the registers one thread may use (the compiler spills
  beyond that: 124 on cc 1.x, 63 on cc 2.x and 3.0, 255 from cc 3.5 on), which caps the
  binary's per-kernel register count before it feeds the launch check and occupancy
  (checklist C133);
* how the register file is allocated: per warp in units of ``reg_alloc_unit`` registers
  (cc 2.x: 64, cc 3.0 on: 256), or on cc 1.x per block in units of 512 (256 on cc 1.0/1.1)
  with warps counted in pairs — :func:`block_registers`;
* shared memory per block without opting in (16 KiB on cc 1.x, else 48 KiB) and the most a
  block may opt in to with ``cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize)``.

:class:`gpgpusim.runtime.device.DeviceInfo` combines these with the config: a figure the config
sets wins, a figure it leaves at GPGPU-Sim's default comes from here.  The per-SM figures
(threads, registers, shared memory, CTA slots) always come from the config, because they are
what the performance model simulates (checklist C132).

:data:`MODELLED_GPUS` names the board each shipped config models and the facts no GPGPU-Sim
option carries (the device memory size); :func:`modelled_gpu` finds it for a config.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

KIB = 1024
GRID_1X = (65535, 65535, 1)
GRID_2X = (65535, 65535, 65535)
GRID_3X = (2**31 - 1, 65535, 65535)


@dataclass(frozen=True)
class ArchLimits:
    """The per-block limits of one compute capability (units in the names)."""

    cc: tuple[int, int]
    max_threads_per_block: int
    max_block_dims: tuple[int, int, int]
    max_grid_dims: tuple[int, int, int]
    regs_per_block: int
    max_regs_per_thread: int
    reg_alloc_unit: int
    #: True: each warp's registers are rounded up to the unit; False (cc 1.x): the block's
    #: registers are, with the block's warps counted in pairs
    reg_alloc_per_warp: bool
    smem_per_block_bytes: int
    smem_per_block_optin_bytes: int


def _arch(cc: tuple[int, int], regs_per_block: int, smem_optin_kib: int, *,
          max_regs_per_thread: int = 255) -> ArchLimits:
    """A cc 2.0-or-later entry (1024 threads, 48 KiB without opting in)."""
    major = cc[0]
    return ArchLimits(cc, 1024, (1024, 1024, 64), GRID_2X if major == 2 else GRID_3X, regs_per_block,
                      max_regs_per_thread, 64 if major == 2 else 256, True, 48 * KIB, smem_optin_kib * KIB)


#: compute capability -> limits (the Programming Guide's table; an unlisted capability takes the
#: nearest lower listed one)
ARCH_LIMITS: dict[tuple[int, int], ArchLimits] = {
    (1, 0): ArchLimits((1, 0), 512, (512, 512, 64), GRID_1X, 8192, 124, 256, False, 16 * KIB, 16 * KIB),
    (1, 2): ArchLimits((1, 2), 512, (512, 512, 64), GRID_1X, 16384, 124, 512, False, 16 * KIB, 16 * KIB),
    (2, 0): _arch((2, 0), 32768, 48, max_regs_per_thread=63),
    (3, 0): _arch((3, 0), 65536, 48, max_regs_per_thread=63),
    (3, 5): _arch((3, 5), 65536, 48),
    (5, 0): _arch((5, 0), 65536, 48),
    (5, 3): _arch((5, 3), 32768, 48),
    (6, 0): _arch((6, 0), 65536, 48),
    (6, 2): _arch((6, 2), 32768, 48),
    (7, 0): _arch((7, 0), 65536, 96),
    (7, 5): _arch((7, 5), 65536, 64),
    (8, 0): _arch((8, 0), 65536, 163),
    (8, 6): _arch((8, 6), 65536, 99),
    (8, 7): _arch((8, 7), 65536, 163),
    (8, 9): _arch((8, 9), 65536, 99),
    (9, 0): _arch((9, 0), 65536, 227),
}


def arch_limits(major: int, minor: int) -> ArchLimits:
    """The limits of compute capability ``major.minor`` (the nearest lower listed capability's
    for one the table does not list, e.g. 6.1 -> 6.0; below 1.0 -> 1.0)."""
    best = ARCH_LIMITS[(1, 0)]
    for cc, lim in ARCH_LIMITS.items():
        if cc <= (major, minor) and cc >= best.cc:
            best = lim
    return best


def block_registers(arch: ArchLimits, regs_per_thread: int, threads: int, warp_size: int = 32) -> int:
    """Registers the GPU allocates for one block of ``threads`` threads using
    ``regs_per_thread`` each (what the launch check compares with the per-block limit)."""
    if regs_per_thread <= 0 or threads <= 0:
        return 0
    warps = -(-threads // warp_size)
    unit = arch.reg_alloc_unit
    if arch.reg_alloc_per_warp:
        per_warp = -(-regs_per_thread * warp_size // unit) * unit
        return warps * per_warp
    pairs = -(-warps // 2)
    return -(-pairs * 2 * warp_size * regs_per_thread // unit) * unit


def max_threads_for_registers(arch: ArchLimits, regs_per_thread: int, regs_per_block: int,
                              limit: int, warp_size: int = 32) -> int:
    """The most threads (whole warps, at most ``limit``) whose registers fit ``regs_per_block``."""
    if regs_per_thread <= 0:
        return limit
    warps = limit // warp_size
    while warps > 0 and block_registers(arch, regs_per_thread, warps * warp_size, warp_size) > regs_per_block:
        warps -= 1
    return min(limit, warps * warp_size)


@dataclass(frozen=True)
class ModelledGpu:
    """The board a shipped config models: its marketing name, compute capability, SM count and
    device memory (nominal size; GPGPU-Sim has no option for it)."""

    board: str
    cc: tuple[int, int]
    sm_count: int
    memory_bytes: int


MODELLED_GPUS: dict[str, ModelledGpu] = {
    "QuadroFX5800": ModelledGpu("Quadro FX 5800", (1, 3), 30, 4 << 30),
    "SM2_GTX480": ModelledGpu("GeForce GTX 480", (2, 0), 15, 1536 << 20),
    "SM6_TITANX": ModelledGpu("TITAN X (Pascal)", (6, 1), 28, 12 << 30),
    "SM75_RTX2060": ModelledGpu("GeForce RTX 2060", (7, 5), 30, 6 << 30),
    "SM7_QV100": ModelledGpu("Quadro GV100", (7, 0), 80, 32 << 30),
    "SM86_RTX3070": ModelledGpu("GeForce RTX 3070", (8, 6), 46, 8 << 30),
    "TeslaC2050": ModelledGpu("Tesla C2050", (2, 0), 14, 3 << 30),
}


def modelled_gpu(cfg: Any, gpu_name: str | None, cc: tuple[int, int], sm_count: int
                 ) -> tuple[str, ModelledGpu] | None:
    """(config name, board) of the GPU a config models: the shipped config chosen by name
    (``--gpu``), else the one whose folder the config file is in (GPGPU-Sim's ``tested-cfgs``
    use the same folder names), else the only shipped GPU with the config's compute capability
    and SM count; None for a config that models none of them."""
    if gpu_name in MODELLED_GPUS:
        return gpu_name, MODELLED_GPUS[gpu_name]
    sources = getattr(cfg, "sources", None) or []
    if sources:
        folder = Path(sources[0]).resolve().parent.name
        if folder in MODELLED_GPUS:
            return folder, MODELLED_GPUS[folder]
    same = [(n, g) for n, g in MODELLED_GPUS.items() if g.cc == cc and g.sm_count == sm_count]
    return same[0] if len(same) == 1 else None
