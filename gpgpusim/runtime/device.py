"""The simulated device as CUDA reports it: properties, attributes and the per-block limits that
the launch check, ``cudaFuncGetAttributes`` and the occupancy queries apply.

GPGPU-Sim counterpart: ``cudaGetDeviceProperties`` / ``cudaDeviceGetAttribute`` in
``libcuda/cuda_runtime_api.cc`` (which fills ``cudaDeviceProp`` from ``shader_core_config``).
:class:`DeviceInfo` is the one place these figures come from (checklist C016, C026, C132):

* per SM, from the config, as the performance model simulates them: SMs =
  ``gpgpu_n_clusters * gpgpu_n_cores_per_cluster``; warp size and threads per SM from
  ``gpgpu_shader_core_pipeline`` (``threads:warp``); CTA slots ``gpgpu_shader_cta``; registers
  ``gpgpu_shader_registers``; shared memory ``gpgpu_shmem_size``;
* per block, from the config where it sets the option, else from the compute capability's
  documented limits (:mod:`gpgpusim.device.limits`), never more than one SM holds: registers
  ``gpgpu_registers_per_block``; shared memory ``gpgpu_shmem_per_block`` (GPGPU-Sim's
  ``sharedMemPerBlock``: a value below the architecture's lowers both what a block gets and what
  it may opt in to, a value above it raises only the opt-in limit, as CUDA grants more than
  48 KiB only to a kernel that opts in); threads per block, block and grid dimensions,
  registers per thread and the register allocation rule always from the compute capability
  (GPGPU-Sim has no options for them);
* L2 = ``gpgpu_n_mem * gpgpu_n_sub_partition_per_mchannel`` slices of ``gpgpu_cache:dl2``
  (sets x line x assoc), 0 when ``gpgpu_cache:dl2_texture_only`` makes it a texture cache (as
  on GT200, which has no L2 for global memory); memory bus width = ``gpgpu_n_mem *
  gpgpu_n_mem_per_ctrlr * gpgpu_dram_buswidth * 8`` bits;
* clocks from ``gpgpu_clock_domains`` (attributes report kHz): the core clock as simulated, the
  memory clock as CUDA counts it, DRAM clock x ``dram_data_command_freq_ratio`` / 2 (so that
  2 x memory clock x bus width is the bandwidth);
* compute capability ``gpgpu_compute_capability_major/minor``;
* device memory: the modelled board's (:data:`gpgpusim.device.limits.MODELLED_GPUS`), else
  :data:`DEVICE_MEMORY_BYTES`; ``GPGPUSIM_DEVICE_MEMORY`` overrides either.

``docs/DEVICES.md`` tabulates the result for every shipped config (a test keeps it in step).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from gpgpusim.device.limits import (
    GRID_3X,
    ArchLimits,
    arch_limits,
    block_registers,
    max_threads_for_registers,
    modelled_gpu,
)

from .abi import CudaDeviceProp

DEVICE_MEMORY_BYTES = 16 << 30

#: every ``cudaDeviceAttr`` value CUDA 13's ``driver_types.h`` defines (1..147 less the numbers
#: it skips); ``cudaDeviceGetAttribute`` rejects the others with ``cudaErrorInvalidValue``
DEFINED_DEVICE_ATTRIBUTES = frozenset(range(1, 148)) - {44, 102, 103, 104, 105, 107, 110, 136, 137, 146}


def _raw(cfg: Any, name: str) -> Any:
    if cfg is None:
        return None
    try:
        return cfg.get(name)
    except Exception:  # noqa: BLE001 - an option this config does not declare
        return None


def _num(cfg: Any, name: str, default: float) -> float:
    v = _raw(cfg, name)
    if v is None:
        return default
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float)):
        return v
    m = re.match(r"\s*(-?[\d.]+)", str(v))
    return float(m.group(1)) if m else default


def _fields(cfg: Any, name: str, sep: str) -> list[str]:
    v = _raw(cfg, name)
    if v is None:
        return []
    if isinstance(v, (list, tuple)):
        return [str(x) for x in v]
    try:
        raw = cfg.raw(name)
    except Exception:  # noqa: BLE001
        raw = None
    text = raw if isinstance(raw, str) and raw else (v.format() if hasattr(v, "format") and not isinstance(v, str) else str(v))
    return [t for t in re.split(sep, text) if t]


def _set(cfg: Any, name: str) -> bool:
    """Whether the config gives option ``name`` a value (a file, $GPGPUSIM_OPTIONS or an
    override), rather than leaving GPGPU-Sim's default."""
    origin = getattr(cfg, "origin", None)
    return origin is not None and origin.get(name, "default") != "default"


@dataclass
class DeviceInfo:
    """The figures CUDA reports for device 0 and the limits a launch is checked against
    (units in the names); ``sources`` says where each per-block limit came from (an option
    name, or ``cc X.Y`` for the compute capability's documented limit)."""

    name: str = "GPGPU-Sim simulated GPU"
    board: str | None = None
    sm_count: int = 80
    warp_size: int = 32
    threads_per_sm: int = 2048
    ctas_per_sm: int = 32
    regs_per_sm: int = 65536
    regs_per_block: int = 65536
    max_regs_per_thread: int = 255
    smem_per_sm_bytes: int = 98304
    smem_per_block_bytes: int = 65536          # the most a block may opt in to
    smem_per_block_default_bytes: int = 49152  # without opting in (sharedMemPerBlock)
    l2_bytes: int = 6 << 20
    bus_width_bits: int = 4096
    core_khz: int = 1132000
    dram_khz: int = 850000                     # the memory clock as CUDA reports it
    major: int = 7
    minor: int = 0
    total_mem_bytes: int = DEVICE_MEMORY_BYTES
    max_threads_per_block: int = 1024
    max_block_dims: tuple[int, int, int] = (1024, 1024, 64)
    max_grid_dims: tuple[int, int, int] = GRID_3X
    const_mem_bytes: int = 65536
    arch: ArchLimits = field(default_factory=lambda: arch_limits(7, 0))
    sources: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_config(cls, cfg: Any, gpu_name: str | None = None) -> DeviceInfo:
        d = cls()
        if gpu_name:
            d.name = f"GPGPU-Sim {gpu_name}"
        d.sm_count = int(_num(cfg, "gpgpu_n_clusters", 80)) * int(_num(cfg, "gpgpu_n_cores_per_cluster", 1))
        pipe = _fields(cfg, "gpgpu_shader_core_pipeline", r"[:,\s]+")
        if len(pipe) >= 2:
            d.threads_per_sm, d.warp_size = int(float(pipe[0])), int(float(pipe[1]))
        d.ctas_per_sm = int(_num(cfg, "gpgpu_shader_cta", d.ctas_per_sm))
        d.regs_per_sm = int(_num(cfg, "gpgpu_shader_registers", d.regs_per_sm))
        d.smem_per_sm_bytes = int(_num(cfg, "gpgpu_shmem_size", d.smem_per_sm_bytes))
        n_mem = int(_num(cfg, "gpgpu_n_mem", 32))
        subp = int(_num(cfg, "gpgpu_n_sub_partition_per_mchannel", 2))
        dl2 = _fields(cfg, "gpgpu_cache:dl2", r"[:,\s]+")
        if len(dl2) >= 4 and dl2[1].isdigit() and dl2[2].isdigit() and dl2[3].isdigit():
            d.l2_bytes = int(dl2[1]) * int(dl2[2]) * int(dl2[3]) * n_mem * subp
        if (dl2 and dl2[0].lower() == "none") or int(_num(cfg, "gpgpu_cache:dl2_texture_only", 0)):
            d.l2_bytes = 0
        d.bus_width_bits = n_mem * int(_num(cfg, "gpgpu_n_mem_per_ctrlr", 1)) * int(
            _num(cfg, "gpgpu_dram_buswidth", 16)) * 8
        clocks = _fields(cfg, "gpgpu_clock_domains", r"[:\s]+")
        if len(clocks) >= 4:
            d.core_khz = int(round(float(clocks[0]) * 1000))
            ratio = _num(cfg, "dram_data_command_freq_ratio", 2)
            d.dram_khz = int(round(float(clocks[3]) * 1000 * ratio / 2))
        d.major = int(_num(cfg, "gpgpu_compute_capability_major", d.major))
        d.minor = int(_num(cfg, "gpgpu_compute_capability_minor", d.minor))
        d._apply_limits(cfg)
        found = modelled_gpu(cfg, gpu_name, (d.major, d.minor), d.sm_count)
        if found is not None:
            d.board = found[1].board
            d.total_mem_bytes = found[1].memory_bytes
        env = os.environ.get("GPGPUSIM_DEVICE_MEMORY")
        if env:
            d.total_mem_bytes = int(env, 0)
        return d

    def _apply_limits(self, cfg: Any) -> None:
        """The per-block limits: the config's where it sets them, else the compute capability's,
        never more than one SM holds."""
        arch = self.arch = arch_limits(self.major, self.minor)
        cc = f"cc {self.major}.{self.minor}"
        src = self.sources
        self.max_threads_per_block = min(arch.max_threads_per_block, self.threads_per_sm)
        src["max_threads_per_block"] = cc if self.max_threads_per_block == arch.max_threads_per_block \
            else "gpgpu_shader_core_pipeline"
        self.max_block_dims = arch.max_block_dims
        self.max_grid_dims = arch.max_grid_dims
        self.max_regs_per_thread = arch.max_regs_per_thread
        src["max_block_dims"] = src["max_grid_dims"] = src["max_regs_per_thread"] = cc
        if _set(cfg, "gpgpu_registers_per_block"):
            self.regs_per_block = int(_num(cfg, "gpgpu_registers_per_block", arch.regs_per_block))
            src["regs_per_block"] = "gpgpu_registers_per_block"
        else:
            self.regs_per_block, src["regs_per_block"] = arch.regs_per_block, cc
        if self.regs_per_block > self.regs_per_sm:
            self.regs_per_block, src["regs_per_block"] = self.regs_per_sm, "gpgpu_shader_registers"
        # Shared memory: -gpgpu_shmem_per_block is GPGPU-Sim's sharedMemPerBlock.  Below the
        # architecture's figure it lowers what a block may use, opted in or not; above it (QV100
        # sets 64 KiB) it is GPGPU-Sim's way of giving a block more than 48 KiB, which CUDA
        # grants only after opting in, so it raises the opt-in limit instead.
        default, optin = arch.smem_per_block_bytes, arch.smem_per_block_optin_bytes
        src["smem_per_block_default_bytes"] = src["smem_per_block_bytes"] = cc
        if _set(cfg, "gpgpu_shmem_per_block"):
            given = int(_num(cfg, "gpgpu_shmem_per_block", default))
            if given < default:
                default = optin = given
                src["smem_per_block_default_bytes"] = src["smem_per_block_bytes"] = "gpgpu_shmem_per_block"
            elif given > optin:
                optin = given
                src["smem_per_block_bytes"] = "gpgpu_shmem_per_block"
        if optin > self.smem_per_sm_bytes:
            optin, src["smem_per_block_bytes"] = self.smem_per_sm_bytes, "gpgpu_shmem_size"
        if default > optin:
            default, src["smem_per_block_default_bytes"] = optin, src["smem_per_block_bytes"]
        self.smem_per_block_bytes, self.smem_per_block_default_bytes = optin, default

    # ------------------------------------------------------------------ per-kernel limits
    def kernel_regs(self, regs: int) -> int:
        """Registers per thread a kernel gets on this GPU: the compiler keeps a kernel within the
        architecture's per-thread limit (spilling the rest), so a count from a newer
        architecture's cubin is capped there."""
        return min(regs, self.max_regs_per_thread)

    def block_registers(self, regs: int, threads: int) -> int:
        """Registers one block of ``threads`` threads allocates (the architecture's rule)."""
        return block_registers(self.arch, self.kernel_regs(regs), threads, self.warp_size)

    def max_threads_for(self, regs: int, kernel_max_threads: int | None = None) -> int:
        """``cudaFuncAttributes.maxThreadsPerBlock``: the most threads a block of this kernel may
        have (the device's limit, the kernel's ``.maxntid``, and whole warps whose registers fit
        a block's register file)."""
        limit = min(kernel_max_threads or self.max_threads_per_block, self.max_threads_per_block)
        return max_threads_for_registers(self.arch, self.kernel_regs(regs), self.regs_per_block, limit,
                                         self.warp_size)

    # ------------------------------------------------------------------ cudaGetDeviceProperties
    def fill(self, p: CudaDeviceProp) -> None:
        ctypes_zero(p)
        p.name = self.name.encode()[:255]
        p.uuid = b"GPGPU-Sim-python"[:16]
        p.totalGlobalMem = self.total_mem_bytes
        p.sharedMemPerBlock = self.smem_per_block_default_bytes
        p.regsPerBlock = self.regs_per_block
        p.warpSize = self.warp_size
        p.memPitch = 2**31 - 1
        p.maxThreadsPerBlock = self.max_threads_per_block
        p.maxThreadsDim[:] = list(self.max_block_dims)
        p.maxGridSize[:] = list(self.max_grid_dims)
        p.totalConstMem = self.const_mem_bytes
        p.major, p.minor = self.major, self.minor
        p.textureAlignment = 512
        p.texturePitchAlignment = 32
        p.multiProcessorCount = self.sm_count
        p.canMapHostMemory = 1
        p.surfaceAlignment = 512
        p.concurrentKernels = 1
        p.asyncEngineCount = 1
        p.unifiedAddressing = 1
        p.memoryBusWidth = self.bus_width_bits
        p.l2CacheSize = self.l2_bytes
        p.maxThreadsPerMultiProcessor = self.threads_per_sm
        p.globalL1CacheSupported = 1
        p.localL1CacheSupported = 1
        p.sharedMemPerMultiprocessor = self.smem_per_sm_bytes
        p.regsPerMultiprocessor = self.regs_per_sm
        p.managedMemory = 1
        p.sharedMemPerBlockOptin = self.smem_per_block_bytes
        p.maxBlocksPerMultiProcessor = self.ctas_per_sm
        p.directManagedMemAccessFromHost = 1
        p.deviceNumaId = -1
        p.hostNumaId = -1
        p.cooperativeLaunch = 1   # the engine keeps a cooperative grid resident (grid.sync works)
        # cudaHostRegister works, and the device reaches registered memory at its host address
        p.hostRegisterSupported = 1
        p.canUseHostPointerForRegisteredMem = 1

    # ------------------------------------------------------------------ cudaDeviceGetAttribute
    def attributes(self) -> dict[int, int]:
        """``cudaDeviceAttr`` number -> value for the attributes the simulator knows; a
        defined attribute missing here (textures, surfaces, reserved numbers) reads 0."""
        return {
            1: self.max_threads_per_block, 2: self.max_block_dims[0], 3: self.max_block_dims[1],
            4: self.max_block_dims[2], 5: self.max_grid_dims[0], 6: self.max_grid_dims[1],
            7: self.max_grid_dims[2], 8: self.smem_per_block_default_bytes, 9: self.const_mem_bytes,
            10: self.warp_size, 11: 2**31 - 1, 12: self.regs_per_block, 13: self.core_khz,
            14: 512, 15: 1, 16: self.sm_count, 17: 0, 18: 0, 19: 1, 20: 0,
            30: 512, 31: 1, 32: 0, 33: 0, 34: 0, 35: 0,
            36: self.dram_khz, 37: self.bus_width_bits, 38: self.l2_bytes,
            39: self.threads_per_sm, 40: 1, 41: 1, 50: 0, 51: 32,
            75: self.major, 76: self.minor, 78: 0, 79: 1, 80: 1,
            81: self.smem_per_sm_bytes, 82: self.regs_per_sm, 83: 1, 84: 0, 85: 0, 86: 0,
            87: 2, 88: 0, 89: 0, 90: 0, 91: 1, 95: 1, 97: self.smem_per_block_bytes,
            98: 0, 99: 1, 100: 0, 101: 1, 106: self.ctas_per_sm, 108: 0, 109: 0, 111: 0,
            112: 0, 113: 0, 114: 0, 115: 0, 116: 0, 117: 0, 118: 0, 119: 0, 120: 0, 121: 0,
            125: 0, 126: 1, 130: 0, 131: -1, 133: 0, 134: -1,
        }

    @property
    def max_smem_per_block_bytes(self) -> int:
        """Largest static + dynamic shared memory one CTA may use after opting in."""
        return self.smem_per_block_bytes


def ctypes_zero(obj: Any) -> None:
    import ctypes

    ctypes.memset(ctypes.addressof(obj), 0, ctypes.sizeof(obj))
