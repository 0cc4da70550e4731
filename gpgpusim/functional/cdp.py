"""CUDA dynamic parallelism, device side: the device-runtime calls a kernel makes to launch a
child grid (functional).

``kernel<<<g, b, smem, s>>>(args)`` in device code compiles (nvcc ``-rdc=true``, linking the
static ``libcudadevrt``) to two ``.extern .func`` calls into CUDA's device runtime, which the
binary carries as SASS only, so they are implemented here:

* ``__cudaCDP2GetParameterBufferV2(func, gridDim, blockDim, sharedMem)`` returns a parameter
  buffer allocated from device memory (the size of ``func``'s parameters, 64-byte aligned) and
  remembers the launch configuration with it; the kernel then stores the arguments into it.
  A ``func`` that is no kernel of the module's PTX stops the parent with
  ``cudaErrorInvalidDeviceFunction`` naming the call.
* ``__cudaCDP2LaunchDeviceV2(buffer, stream)`` queues the child grid on the launching kernel's
  :class:`~gpgpusim.functional.engine.KernelStats` (``device_launches``) and returns
  ``cudaSuccess``; a buffer that came from no ``GetParameterBuffer`` returns
  ``cudaErrorInvalidValue``.
* The explicit forms ``cudaGetParameterBuffer(alignment, size)`` and ``cudaLaunchDevice(func,
  buffer, gridDim, blockDim, sharedMem, stream)`` (also as ``__cudaCDP2GetParameterBuffer`` /
  ``__cudaCDP2LaunchDevice``) do the same with the configuration given at launch.

The queued children run after the parent grid's CTAs have all finished, on the parent's stream
and before anything queued after the parent there, in launch order (lane order within a warp
instruction, otherwise the order the simulator executes the launching instructions), each
child's own children right after it: the runtime turns them into kernel launches
(:mod:`gpgpusim.runtime.cdp`).  That is what CUDA 12+ guarantees (a parent grid is complete
only once its children are; device-side ``cudaDeviceSynchronize`` no longer exists), with one
schedule among those CUDA allows: every device stream, ``cudaStreamTailLaunch`` and
``cudaStreamFireAndForget`` included, runs its grids after the parent.  Other device-runtime
calls (``__cudaCDP2StreamCreateWithFlags``, ``__cudaCDP2GetLastError``, ...) fail with
``cudaErrorNotSupported`` naming the call.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from gpgpusim.errors import CudaError, Err, PtxError

from .loader import function_handle

#: cudaSuccess, cudaErrorInvalidValue
_SUCCESS, _INVALID_VALUE = 0, 1

#: the calls this module implements (their PTX names)
CALLS = ("__cudaCDP2GetParameterBufferV2", "__cudaCDP2LaunchDeviceV2", "__cudaCDP2GetParameterBuffer",
         "__cudaCDP2LaunchDevice", "cudaGetParameterBuffer", "cudaLaunchDevice")


def latency_kind(name: str) -> int:
    """GPGPU-Sim's ``m_is_cdp`` of a call of ``name``: which ``-cdp_latency`` entries its issue
    costs (C-numbering of that option: 1 stream creation, 2 parameter buffer, 4 launch; 0 for
    any other call).  GPGPU-Sim names the CUDA 5-11 entry points ``cudaGetParameterBufferV2``
    and ``cudaLaunchDeviceV2``; CUDA 12+ calls them ``__cudaCDP2...V2``, and the explicit forms
    without ``V2`` do the same work, so every form of a call is charged alike."""
    if name not in CALLS and not name.endswith("StreamCreateWithFlags"):
        return 0
    if "GetParameterBuffer" in name:
        return 2
    if "LaunchDevice" in name:
        return 4
    return 1


#: the device runtime's special stream handles (``cuda_device_runtime_api.h``)
STREAM_TAIL_LAUNCH, STREAM_FIRE_AND_FORGET = 0x3, 0x4


@dataclass(slots=True)
class DeviceLaunch:
    """A child grid queued by ``cudaLaunchDevice``: kernel name, configuration, the device
    address of its parameter buffer and the stream handle it was launched into; where it was
    launched from (the parent's CTA, its warp in that CTA, and which of that warp's executions
    of a launch call it was: the performance model releases the child when the matching warp
    instruction issues); ``released`` once the performance model has done so."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    smem: int
    buffer: int
    stream: int
    cta: int = 0
    warp: int = 0
    issue: int = 0
    released: bool = False


#: parameter buffers handed out and not yet launched: address -> (kernel, grid, block, smem)
#: (``kernel`` None for ``cudaGetParameterBuffer``, which does not know it)
_Conf = tuple[str | None, tuple[int, int, int], tuple[int, int, int], int]
_pending: dict[int, _Conf] = {}
_lock = threading.Lock()


_kernel_maps: dict[int, tuple[Any, dict[int, str]]] = {}


def _kernels(lm: Any) -> dict[int, str]:
    """Function handle -> name of every kernel (``.entry``) of the module."""
    hit = _kernel_maps.get(id(lm.module))
    if hit is None or hit[0] is not lm.module:
        mod = lm.module
        hit = _kernel_maps[id(mod)] = (mod, {function_handle(mod, name): name
                                             for name, fn in mod.functions.items() if fn.is_entry})
    return hit[1]


def _dim(v: Any) -> tuple[int, int, int]:
    return int(v[0]), int(v[1]), int(v[2])


def _param_bytes(lm: Any, kernel: str) -> int:
    from .engine import get_program  # engine -> handlers -> call_insts -> cdp: a cycle at import
    return int(get_program(lm, kernel).kernel.param_bytes)


def _no_kernel(ex: Any, name: str, handle: int, where: str) -> Exception:
    return CudaError(Err.InvalidDeviceFunction, f"{name} at {where}: {handle:#x} is no kernel of "
                     f"{ex.lm.module.filename} (device-side launches reach the kernels of the launching "
                     f"module's PTX only)", sticky=True)


def make_call(lm: Any, name: str, args: list[Any], arg: Callable[[Any, str, int], Any],
              ret: Callable[[str], Callable[[Any, np.ndarray, Any], None]], where: str) -> Callable[[Any, Any], None]:
    """The ``run`` of a call of device-runtime function ``name`` (one of :data:`CALLS`).

    ``arg(a, typ, offset)`` makes a reader ``(ex, sel, lanes) -> values`` of argument ``a``
    (``offset`` bytes into it: the fields of a ``dim3``); ``ret(typ)`` makes the writer of the
    return value."""
    v2 = name.endswith("V2")
    get = "GetParameterBuffer" in name
    want = (4 if v2 else 2) if get else (2 if v2 else 6)
    if len(args) != want:
        raise PtxError(f"{where}: {name} takes {want} arguments, not {len(args)}")

    def dim3(a: Any) -> Callable[[Any, Any, np.ndarray], np.ndarray]:
        rs = [arg(a, "u32", 4 * i) for i in range(3)]
        return lambda ex, sel, lanes: np.stack([r(ex, sel, lanes) for r in rs], axis=1)

    if get:
        wret = ret("u64")
        if v2:
            func_r, grid_r, block_r, smem_r = arg(args[0], "u64", 0), dim3(args[1]), dim3(args[2]), \
                arg(args[3], "u32", 0)
        else:
            size_r = arg(args[1], "u64", 0)

        def get_buffer(ex: Any, sel: Any) -> None:
            lanes = ex.all_lanes if sel is None else sel
            out = np.zeros(lanes.size, dtype=np.uint64)
            if v2:
                funcs, grids, blocks, smems = (func_r(ex, sel, lanes), grid_r(ex, sel, lanes),
                                               block_r(ex, sel, lanes), smem_r(ex, sel, lanes))
                kernels = _kernels(ex.lm)
            for i in range(lanes.size):
                if v2:
                    kernel = kernels.get(int(funcs[i]))
                    if kernel is None:
                        raise _no_kernel(ex, name, int(funcs[i]), where)
                    size = _param_bytes(ex.lm, kernel)
                    conf: _Conf = (kernel, _dim(grids[i]), _dim(blocks[i]), int(smems[i]))
                else:
                    size, conf = int(size_r(ex, sel, lanes)[i]), (None, (1, 1, 1), (1, 1, 1), 0)
                addr = ex.gmem.allocate(max(size, 1), align=64)
                with _lock:
                    _pending[addr] = conf
                out[i] = addr
            wret(ex, lanes, out)
        return get_buffer

    wret = ret("s32")
    if v2:
        buf_r, stream_r = arg(args[0], "u64", 0), arg(args[1], "u64", 0)
    else:
        func_r, buf_r, grid_r, block_r = arg(args[0], "u64", 0), arg(args[1], "u64", 0), dim3(args[2]), \
            dim3(args[3])
        smem_r, stream_r = arg(args[4], "u32", 0), arg(args[5], "u64", 0)

    def launch(ex: Any, sel: Any) -> None:
        lanes = ex.all_lanes if sel is None else sel
        bufs, streams = buf_r(ex, sel, lanes), stream_r(ex, sel, lanes)
        if not v2:
            funcs, grids, blocks, smems = (func_r(ex, sel, lanes), grid_r(ex, sel, lanes),
                                           block_r(ex, sel, lanes), smem_r(ex, sel, lanes))
            kernels = _kernels(ex.lm)
        res = np.zeros(lanes.size, dtype=np.int32)
        issues = ex.cdp_issues           # (cta, warp in CTA) -> its launch calls so far
        seen: dict[tuple[int, int], int] = {}
        for i in range(lanes.size):
            lane = int(lanes[i])
            origin = (int(ex.cta_ids[ex.lane_cta[lane]]), int(ex.lane_t[lane]) >> 5)
            n = seen.get(origin)
            if n is None:
                n = seen[origin] = issues.get(origin, 0)
            addr = int(bufs[i])
            with _lock:
                conf = _pending.pop(addr, None)
            if conf is None:
                res[i] = _INVALID_VALUE
                continue
            if v2:
                kernel, grid, block, smem = conf
            else:
                kernel = kernels.get(int(funcs[i]))
                grid, block = _dim(grids[i]), _dim(blocks[i])
                smem = int(smems[i])
            if kernel is None:
                ex.gmem.free(addr)
                raise _no_kernel(ex, name, int(funcs[i]), where)
            ex.hooks.device_launches.append(DeviceLaunch(kernel, grid, block, smem, addr, int(streams[i]),
                                                   origin[0], origin[1], n))
        for origin, n in seen.items():
            issues[origin] = n + 1
        wret(ex, lanes, res)
    return launch
