"""Kernel launch checks and parameter marshalling.

GPGPU-Sim counterpart: ``cudaLaunchKernel`` -> ``gpgpu_cuda_ptx_sim_init_grid`` with the argument
hookup of ``cudaSetupArgument`` (checklist C034-C036): here the CUDA 13 ``void **args`` array is
read using the PTX ``.param`` list of the kernel (each parameter's size and byte offset as the
PTX front end laid them out, so structs passed by value, vectors and alignment padding land
where the kernel's ``ld.param`` expects them).

Launch checks (the figures are :class:`gpgpusim.runtime.device.DeviceInfo`'s, the modelled
GPU's) return CUDA's codes, each with a one-line reason:

* a zero grid/block dimension, block or grid dimensions over the GPU's (e.g. 512 x 512 x 64 and
  65535 x 65535 x 1 on cc 1.x), more threads per block than the GPU allows
  -> ``cudaErrorInvalidConfiguration``;
* more threads than the kernel's ``.maxntid`` (``__launch_bounds__``), or a block whose
  registers, allocated as the GPU allocates them (:func:`gpgpusim.device.limits.block_registers`),
  exceed the registers of a block -> ``cudaErrorLaunchOutOfResources``;
* dynamic shared memory over what the kernel may use (the GPU's per-block shared memory less
  the static part, unless ``cudaFuncSetAttribute(MaxDynamicSharedMemorySize)`` raised it), or
  static + dynamic over the most a block may opt in to -> ``cudaErrorInvalidValue``.

GPGPU-Sim itself never refuses a launch on ``-gpgpu_registers_per_block`` or the thread and
dimension limits; these checks follow the real GPU instead (README, "Launch limits").
"""

from __future__ import annotations

import ctypes
from typing import Any

from gpgpusim.errors import CudaError, Err


def dynamic_smem_limit(kernel: Any, device: Any) -> int:
    """Dynamic shared memory a launch of ``kernel`` may ask for: its
    ``cudaFuncAttributeMaxDynamicSharedMemorySize`` (attribute 8) when set, else the GPU's
    per-block shared memory less the kernel's static shared memory."""
    static = kernel.resources().static_smem_bytes
    return int(kernel.attrs.get(8, max(0, device.smem_per_block_default_bytes - static)))


def validate_launch(what: str, kernel: Any, device: Any, grid: tuple[int, int, int],
                    block: tuple[int, int, int], shmem: int) -> None:
    name = kernel.name
    if 0 in grid or 0 in block:
        raise CudaError(Err.InvalidConfiguration,
                        f"{what} {name}: grid {grid} / block {block} has a zero dimension")
    for i, axis in enumerate("xyz"):
        if block[i] > device.max_block_dims[i]:
            raise CudaError(Err.InvalidConfiguration,
                            f"{what} {name}: blockDim.{axis}={block[i]} exceeds {device.max_block_dims[i]}")
        if grid[i] > device.max_grid_dims[i]:
            raise CudaError(Err.InvalidConfiguration,
                            f"{what} {name}: gridDim.{axis}={grid[i]} exceeds {device.max_grid_dims[i]}")
    threads = block[0] * block[1] * block[2]
    if threads > device.max_threads_per_block:
        raise CudaError(Err.InvalidConfiguration,
                        f"{what} {name}: {threads} threads per block exceed the limit of "
                        f"{device.max_threads_per_block}")
    res = kernel.resources()
    if res.max_threads and threads > res.max_threads:
        raise CudaError(Err.LaunchOutOfResources,
                        f"{what} {name}: {threads} threads per block exceed the kernel's "
                        f".maxntid of {res.max_threads}")
    regs = device.kernel_regs(res.regs)
    need = device.block_registers(res.regs, threads)
    if need > device.regs_per_block:
        raise CudaError(Err.LaunchOutOfResources,
                        f"{what} {name}: {regs} registers x {threads} threads need {need} registers, "
                        f"more than the {device.regs_per_block} of a block")
    dyn_limit = dynamic_smem_limit(kernel, device)
    top = max(0, device.smem_per_block_bytes - res.static_smem_bytes)
    if shmem > min(dyn_limit, top):
        hint = f" (cudaFuncSetAttribute can raise it to {top})" if dyn_limit < top else ""
        raise CudaError(Err.InvalidValue,
                        f"{what} {name}: {shmem} bytes of dynamic shared memory (+{res.static_smem_bytes} static) "
                        f"exceed the limit of {min(dyn_limit, top)}{hint}")


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
