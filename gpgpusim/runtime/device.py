"""The simulated device as CUDA reports it: properties and attributes from the active config.

GPGPU-Sim counterpart: ``cudaGetDeviceProperties`` / ``cudaDeviceGetAttribute`` in
``libcuda/cuda_runtime_api.cc`` (which fills ``cudaDeviceProp`` from ``shader_core_config``).
Every value that GPGPU-Sim models is derived from the config (checklist C016, C026):

* SMs = ``gpgpu_n_clusters * gpgpu_n_cores_per_cluster``; warp size and threads per SM from
  ``gpgpu_shader_core_pipeline`` (``threads:warp``); CTAs per SM ``gpgpu_shader_cta``;
* registers per SM ``gpgpu_shader_registers``, per block ``gpgpu_registers_per_block``;
* shared memory per SM ``gpgpu_shmem_size``, per block ``gpgpu_shmem_per_block`` (also the
  opt-in limit, the most the model can give one CTA);
* L2 = ``gpgpu_n_mem * gpgpu_n_sub_partition_per_mchannel`` slices of ``gpgpu_cache:dl2``
  (sets x line x assoc); memory bus width = ``gpgpu_n_mem * gpgpu_n_mem_per_ctrlr *
  gpgpu_dram_buswidth * 8`` bits;
* clocks from ``gpgpu_clock_domains`` (core and DRAM MHz; attributes report kHz);
* compute capability ``gpgpu_compute_capability_major/minor``.

Values GPGPU-Sim does not model take fixed CUDA-architectural values (1024 threads per block,
grid limits 2^31-1 x 65535 x 65535, 64 KiB constant memory) and the device memory size is
:data:`DEVICE_MEMORY_BYTES` (16 GiB, a V100's) unless ``GPGPUSIM_DEVICE_MEMORY`` sets it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

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


@dataclass
class DeviceInfo:
    """The figures CUDA reports for device 0 (units in the names)."""

    name: str = "GPGPU-Sim simulated GPU"
    sm_count: int = 80
    warp_size: int = 32
    threads_per_sm: int = 2048
    ctas_per_sm: int = 32
    regs_per_sm: int = 65536
    regs_per_block: int = 65536
    smem_per_sm_bytes: int = 98304
    smem_per_block_bytes: int = 65536
    l2_bytes: int = 6 << 20
    bus_width_bits: int = 4096
    core_khz: int = 1132000
    dram_khz: int = 850000
    major: int = 7
    minor: int = 0
    total_mem_bytes: int = DEVICE_MEMORY_BYTES
    max_threads_per_block: int = 1024
    const_mem_bytes: int = 65536

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
        d.regs_per_block = int(_num(cfg, "gpgpu_registers_per_block", d.regs_per_block))
        d.smem_per_sm_bytes = int(_num(cfg, "gpgpu_shmem_size", d.smem_per_sm_bytes))
        d.smem_per_block_bytes = int(_num(cfg, "gpgpu_shmem_per_block", d.smem_per_block_bytes))
        n_mem = int(_num(cfg, "gpgpu_n_mem", 32))
        subp = int(_num(cfg, "gpgpu_n_sub_partition_per_mchannel", 2))
        dl2 = _fields(cfg, "gpgpu_cache:dl2", r"[:,\s]+")
        if len(dl2) >= 4 and dl2[1].isdigit() and dl2[2].isdigit() and dl2[3].isdigit():
            d.l2_bytes = int(dl2[1]) * int(dl2[2]) * int(dl2[3]) * n_mem * subp
        d.bus_width_bits = n_mem * int(_num(cfg, "gpgpu_n_mem_per_ctrlr", 1)) * int(
            _num(cfg, "gpgpu_dram_buswidth", 16)) * 8
        clocks = _fields(cfg, "gpgpu_clock_domains", r"[:\s]+")
        if len(clocks) >= 4:
            d.core_khz = int(round(float(clocks[0]) * 1000))
            d.dram_khz = int(round(float(clocks[3]) * 1000))
        d.major = int(_num(cfg, "gpgpu_compute_capability_major", d.major))
        d.minor = int(_num(cfg, "gpgpu_compute_capability_minor", d.minor))
        env = os.environ.get("GPGPUSIM_DEVICE_MEMORY")
        if env:
            d.total_mem_bytes = int(env, 0)
        return d

    # ------------------------------------------------------------------ cudaGetDeviceProperties
    def fill(self, p: CudaDeviceProp) -> None:
        ctypes_zero(p)
        p.name = self.name.encode()[:255]
        p.uuid = b"GPGPU-Sim-python"[:16]
        p.totalGlobalMem = self.total_mem_bytes
        p.sharedMemPerBlock = min(self.smem_per_block_bytes, 48 * 1024)
        p.regsPerBlock = self.regs_per_block
        p.warpSize = self.warp_size
        p.memPitch = 2**31 - 1
        p.maxThreadsPerBlock = self.max_threads_per_block
        p.maxThreadsDim[:] = [1024, 1024, 64]
        p.maxGridSize[:] = [2**31 - 1, 65535, 65535]
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
            1: self.max_threads_per_block, 2: 1024, 3: 1024, 4: 64,
            5: 2**31 - 1, 6: 65535, 7: 65535,
            8: min(self.smem_per_block_bytes, 48 * 1024), 9: self.const_mem_bytes,
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
