"""Kernel launch checks and parameter marshalling.

GPGPU-Sim counterpart: ``cudaLaunchKernel`` -> ``gpgpu_cuda_ptx_sim_init_grid`` with the argument
hookup of ``cudaSetupArgument`` (checklist C034-C036): here the CUDA 13 ``void **args`` array is
read using the PTX ``.param`` list of the kernel (each parameter's size and byte offset as the
PTX front end laid them out, so structs passed by value, vectors and alignment padding land
where the kernel's ``ld.param`` expects them).

Launch checks return CUDA's codes:

* a zero grid/block dimension, block dims over 1024 x 1024 x 64, more threads per block than the
  device or the kernel (``.maxntid``, registers) allows, grid dims over 2^31-1 x 65535 x 65535
  -> ``cudaErrorInvalidConfiguration``;
* registers x threads over the per-block register file -> ``cudaErrorLaunchOutOfResources``;
* static + dynamic shared memory over the per-block limit (48 KiB of dynamic memory unless
  ``cudaFuncSetAttribute(MaxDynamicSharedMemorySize)`` raised it) -> ``cudaErrorInvalidValue``.
"""

from __future__ import annotations

import ctypes
from typing import Any

from gpgpusim.errors import CudaError, Err

MAX_BLOCK = (1024, 1024, 64)
MAX_GRID = (2**31 - 1, 65535, 65535)
DEFAULT_DYN_SMEM_LIMIT = 48 * 1024


def validate_launch(what: str, kernel: Any, device: Any, grid: tuple[int, int, int],
                    block: tuple[int, int, int], shmem: int) -> None:
    name = kernel.name
    if 0 in grid or 0 in block:
        raise CudaError(Err.InvalidConfiguration,
                        f"{what} {name}: grid {grid} / block {block} has a zero dimension")
    for i, axis in enumerate("xyz"):
        if block[i] > MAX_BLOCK[i]:
            raise CudaError(Err.InvalidConfiguration,
                            f"{what} {name}: blockDim.{axis}={block[i]} exceeds {MAX_BLOCK[i]}")
        if grid[i] > MAX_GRID[i]:
            raise CudaError(Err.InvalidConfiguration,
                            f"{what} {name}: gridDim.{axis}={grid[i]} exceeds {MAX_GRID[i]}")
    threads = block[0] * block[1] * block[2]
    res = kernel.resources()
    limit = min(device.max_threads_per_block, res.max_threads or device.max_threads_per_block)
    if threads > limit:
        raise CudaError(Err.InvalidConfiguration,
                        f"{what} {name}: {threads} threads per block exceed the limit of {limit}")
    if res.regs and res.regs * threads > device.regs_per_block:
        raise CudaError(Err.LaunchOutOfResources,
                        f"{what} {name}: {res.regs} registers x {threads} threads exceed the "
                        f"{device.regs_per_block} registers of a block")
    dyn_limit = kernel.attrs.get(8, max(0, DEFAULT_DYN_SMEM_LIMIT - res.static_smem_bytes))
    if shmem > dyn_limit or res.static_smem_bytes + shmem > device.max_smem_per_block_bytes:
        raise CudaError(Err.InvalidValue,
                        f"{what} {name}: {shmem} bytes of dynamic shared memory (+{res.static_smem_bytes} static) "
                        f"exceed the limit of {dyn_limit} (raise it with cudaFuncSetAttribute)")


def marshal_params(what: str, fn: Any, args: int) -> bytes:
    """The kernel's parameter buffer built from ``void **args`` (one pointer per parameter)."""
    params = list(fn.params)
    if not params:
        return b""
    if not args:
        raise CudaError(Err.InvalidValue, f"{what} {fn.name}: args is NULL but the kernel takes {len(params)} parameters")
    size = max(p.offset + p.size_bytes for p in params)
    buf = bytearray(size)
    ptrs = (ctypes.c_void_p * len(params)).from_address(args)
    for i, p in enumerate(params):
        src = ptrs[i]
        if not src:
            raise CudaError(Err.InvalidValue, f"{what} {fn.name}: args[{i}] ({p.name}) is NULL")
        n = p.size_bytes
        buf[p.offset:p.offset + n] = ctypes.string_at(src, n)
    return bytes(buf)
