"""CUDA runtime entry points that are pure stream / event / capture / graph semantics.

``StreamApi`` is a mixin for :class:`gpgpusim.runtime.api.Runtime`: each method has the C
signature of the CUDA function of the same name with every pointer as an int address (the shim
contract of ``shim/cudart_api.h``), validates its arguments, and returns a ``cudaError_t``.
GPGPU-Sim counterpart: the stream/event part of ``libcuda/cuda_runtime_api.cc`` (C040, C041,
C047, C049); graphs, capture, host functions and stream-ordered allocation have none
(GPGPU-Sim aborts or lacks them).

What the mixin needs from the class that inherits it:

- ``self.streams``: the :class:`~gpgpusim.runtime.streams.StreamManager`;
- ``self.gmem``: the device memory;
- for stream-ordered allocation, the device-allocation accounting of the host part:
  ``_device_alloc(size, what) -> address`` (capacity check, records the allocation in
  ``_device_allocs``), ``_device_allocs: dict[base, size]`` and ``_managed`` (managed bases,
  which ``_device_allocs`` also lists but ``cudaFreeAsync`` must refuse);
- for the ``_ptds`` entry points, the host part's synchronous calls (``cudaMemcpy``,
  ``cudaMemset``, ``cudaMemcpy2D``, ``cudaMemset2D``, ``cudaMemcpyToSymbol``,
  ``cudaMemcpyFromSymbol``, ``cudaMemcpy3D``), run with the per-thread default stream;
- optional error plumbing, used when present: ``_blocked_by() -> CudaError | None`` (sticky or
  init error returned before doing anything), ``_record(name, exc) -> int`` (last error + one
  stderr line), ``fail(name, exc) -> int`` (unexpected exception);
- for kernel graph nodes: ``_make_kernel_op(what, func, grid, block, shmem, args)``; the default
  here uses the host part's ``registry`` / ``device`` / ``launch.validate_launch`` /
  ``launch.marshal_params``.

``*_ptsz`` methods are the per-thread-default-stream entry points (``nvcc
--default-stream per-thread``): the NULL stream means ``cudaStreamPerThread``.  The ``*_ptds``
methods are the synchronous calls of such binaries: the plain call, run inside
:meth:`StreamManager.per_thread_default`, so its implicit stream is the calling thread's
per-thread default stream (not the legacy stream, which would wait for every blocking stream).
"""

from __future__ import annotations

import ctypes
import functools
import struct
from collections.abc import Callable
from typing import Any

from gpgpusim.errors import CudaError, Err
from gpgpusim.runtime import abi
from gpgpusim.runtime import graphs as g
from gpgpusim.device.gpu import (
    EventRecordOp,
    FreeOp,
    HostFuncOp,
    KernelLaunchOp,
    Memcpy2DOp,
    MemcpyKind,
    MemcpyOp,
    MemsetOp,
    WaitEventOp,
)
from gpgpusim.runtime.stream_mempool import INT_ATTRS, MemPool, MemPools
from gpgpusim.runtime.streams import (
    PRIORITY_GREATEST,
    PRIORITY_LEAST,
    STREAM_LEGACY_NULL,
    STREAM_PER_THREAD,
)

_HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)                                  # cudaHostFn_t
_STREAM_CB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)  # cudaStreamCallback_t

#: cudaGraphInstantiateFlags this simulator accepts (AutoFreeOnLaunch, Upload, UseNodePriority)
_INSTANTIATE_FLAGS = 1 | 2 | 8
#: size of cudaGraphEdgeData (from_port, to_port, type, reserved[5])
_EDGE_DATA_BYTES = 8
#: cudaLaunchAttributeValue is a 64-byte union; the attribute ids valid for streams:
#: AccessPolicyWindow 1, SynchronizationPolicy 3, Priority 8, MemSyncDomainMap 9, MemSyncDomain 10
_ATTR_VALUE_BYTES = 64
_ATTR_PRIORITY = 8
_STREAM_ATTRS = (1, 3, _ATTR_PRIORITY, 9, 10)
#: defaults read back before any set: cudaSyncPolicyAuto (1)
_ATTR_DEFAULTS = {3: struct.pack("<i", 1).ljust(_ATTR_VALUE_BYTES, b"\0")}


def _entry(fn: Callable[..., Any]) -> Callable[..., int]:
    """Wrap an entry point: CudaError -> its code (recorded as last error when not NotReady)."""
    name = fn.__name__.removesuffix("_ptsz")

    @functools.wraps(fn)
    def wrapper(self: Any, *args: Any) -> int:
        blocked_by = getattr(self, "_blocked_by", None)
        early = blocked_by() if blocked_by is not None else None
        if early is not None:
            return int(early.code)
        try:
            rc = fn(self, *args)
        except CudaError as exc:
            record = getattr(self, "_record", None)
            return record(name, exc) if record is not None else int(exc.code)
        except Exception as exc:  # noqa: BLE001 - an internal fault must not reach the app
            fail = getattr(self, "fail", None)
            if fail is not None:
                return int(fail(name, exc))
            return int(Err.Unknown)
        return 0 if rc is None else int(rc)

    return wrapper


class _GraphExecUpdateFailure(CudaError):
    """``cudaErrorGraphExecUpdateFailure`` (910), a code :class:`Err` does not list."""

    def __init__(self, message: str) -> None:
        Exception.__init__(self, message)
        self.code = 910  # type: ignore[assignment]
        self.message = message
        self.sticky = False


def _need(ptr: int, what: str) -> None:
    if not ptr:
        raise CudaError(Err.InvalidValue, f"{what} is NULL")


def _device_zero(device: int, what: str) -> None:
    if device != 0:
        raise CudaError(Err.InvalidDevice, f"{what}: device {device} does not exist (only device 0)")


def _ptsz(stream: int) -> int:
    return STREAM_PER_THREAD if stream == STREAM_LEGACY_NULL else stream


def _read_ptr_array(addr: int, n: int, what: str) -> list[int]:
    if n == 0:
        return []
    _need(addr, what)
    return list((ctypes.c_uint64 * n).from_address(addr))


def check_memcpy2d(what: str, dpitch: int, spitch: int, width: int, height: int, kind: int) -> bool:
    """The argument checks of ``cudaMemcpy2D``/``cudaMemcpy2DAsync``; False when there is nothing
    to copy (zero width or height)."""
    if kind not in tuple(MemcpyKind):
        raise CudaError(Err.InvalidMemcpyDirection, f"{what}: {kind} is not a cudaMemcpyKind")
    if width > dpitch or width > spitch:
        raise CudaError(Err.InvalidPitchValue,
                        f"{what}: width {width} exceeds dpitch {dpitch} or spitch {spitch}")
    return bool(width and height)


class StreamApi:
    """Mixin: stream, event, host-function, capture and graph entry points (see module doc)."""

    streams: Any
    gmem: Any

    # ================================================================== streams
    @_entry
    def cudaStreamGetFlags(self, stream: int, p_flags: int) -> None:
        _need(p_flags, "cudaStreamGetFlags: flags")
        abi.write_u32(p_flags, self.streams.get_stream(stream).flags)

    @_entry
    def cudaStreamGetPriority(self, stream: int, p_priority: int) -> None:
        _need(p_priority, "cudaStreamGetPriority: priority")
        abi.write_i32(p_priority, self.streams.get_stream(stream).priority)

    @_entry
    def cudaStreamGetId(self, stream: int, p_id: int) -> None:
        """``cudaStreamGetId``: 0 for the legacy stream, else a unique per-stream number."""
        _need(p_id, "cudaStreamGetId: streamId")
        abi.write_u64(p_id, self.streams.get_stream(stream).uid)

    # ---- stream attributes (cudaLaunchAttributeValue: a 64-byte union)
    def _attr_stream(self, stream: int, attr: int, what: str) -> Any:
        if attr not in _STREAM_ATTRS:
            raise CudaError(Err.InvalidValue, f"{what}: attribute {attr} is not valid for streams")
        return self.streams.get_stream(stream)

    @_entry
    def cudaStreamSetAttribute(self, stream: int, attr: int, p_value: int) -> None:
        """Priority (8) changes the stream's priority (clamped to the device range); the access
        policy window, synchronization policy and memory sync domains are stored only."""
        what = "cudaStreamSetAttribute"
        _need(p_value, f"{what}: value")
        st = self._attr_stream(stream, attr, what)
        raw = abi.read(p_value, _ATTR_VALUE_BYTES)
        if attr == _ATTR_PRIORITY:
            prio = struct.unpack_from("<i", raw)[0]
            st.priority = min(PRIORITY_LEAST, max(PRIORITY_GREATEST, prio))
        else:
            st.attrs[attr] = raw

    @_entry
    def cudaStreamGetAttribute(self, stream: int, attr: int, p_value: int) -> None:
        what = "cudaStreamGetAttribute"
        _need(p_value, f"{what}: value")
        st = self._attr_stream(stream, attr, what)
        if attr == _ATTR_PRIORITY:
            raw = struct.pack("<i", st.priority).ljust(_ATTR_VALUE_BYTES, b"\0")
        else:
            raw = st.attrs.get(attr, _ATTR_DEFAULTS.get(attr, bytes(_ATTR_VALUE_BYTES)))
        abi.write(p_value, raw)

    @_entry
    def cudaStreamCopyAttributes(self, dst: int, src: int) -> None:
        s_from, s_to = self.streams.get_stream(src), self.streams.get_stream(dst)
        s_to.attrs = dict(s_from.attrs)
        s_to.priority = s_from.priority

    @_entry
    def cudaStreamGetDevice(self, stream: int, p_device: int) -> None:
        """Every stream belongs to the one simulated device, 0."""
        _need(p_device, "cudaStreamGetDevice: device")
        self.streams.get_stream(stream)
        abi.write_i32(p_device, 0)

    @_entry
    def cudaStreamAttachMemAsync(self, stream: int, dev_ptr: int, length: int, flags: int) -> None:
        """Managed memory is always reachable from the host and every stream here, so the
        attachment only needs checking: flags Global (1), Host (2) or Single (4)."""
        what = "cudaStreamAttachMemAsync"
        if flags not in (1, 2, 4):
            raise CudaError(Err.InvalidValue, f"{what}: flags {flags:#x} is not one of "
                            "cudaMemAttachGlobal/Host/Single")
        self.streams.get_stream(stream)
        found = self.gmem.find(dev_ptr) if dev_ptr else None
        if found is None or (length and (found[0] != dev_ptr or length != found[1])):
            raise CudaError(Err.InvalidValue, f"{what}: {dev_ptr:#x} (+{length}) is not a whole "
                            "managed allocation")

    @_entry
    def cudaLaunchHostFunc(self, stream: int, fn: int, user_data: int) -> None:
        """``cudaLaunchHostFunc``: ``fn(userData)`` runs once the stream reaches it."""
        _need(fn, "cudaLaunchHostFunc: fn")
        cfn = _HOST_FN(fn)
        self.streams.add_host_func(stream, lambda: cfn(user_data or None))

    @_entry
    def cudaStreamAddCallback(self, stream: int, callback: int, user_data: int, flags: int) -> None:
        """``cudaStreamAddCallback``: ``callback(stream, status, userData)`` runs exactly once,
        ``status`` being ``cudaSuccess`` or the context's sticky error (unlike a host function,
        it also runs after a device error); flags must be 0; not allowed during capture."""
        _need(callback, "cudaStreamAddCallback: callback")
        if flags:
            raise CudaError(Err.InvalidValue, f"cudaStreamAddCallback: flags must be 0, not {flags}")
        cfn = _STREAM_CB(callback)
        self.streams.add_host_func(stream, lambda status: cfn(stream or None, status, user_data or None),
                                   callback=True)

    # ================================================================== stream-ordered memory
    def _pools(self) -> MemPools:
        """The pools live with the stream manager, so a device reset starts them afresh."""
        pools: MemPools = self.streams.mem_pools
        return pools

    def _alloc_from(self, what: str, p_dev: int, size: int, pool: MemPool, stream: int) -> None:
        """Allocated at once through the device's allocation accounting (capacity check,
        ``cudaMemGetInfo``), then owned by ``pool``."""
        _need(p_dev, f"{what}: devPtr")
        self.streams.get_stream(stream)             # validates the handle
        addr = self._device_alloc(int(size), what)  # type: ignore[attr-defined]
        self._pools().allocated(pool, addr, int(size))
        abi.write_u64(p_dev, addr)

    @_entry
    def cudaMallocAsync(self, p_dev: int, size: int, stream: int) -> None:
        """``cudaMallocAsync``: allocated at once (a valid stream-ordered schedule), from the
        device's current memory pool."""
        self._alloc_from("cudaMallocAsync", p_dev, size, self._pools().current, stream)

    @_entry
    def cudaMallocFromPoolAsync(self, p_dev: int, size: int, pool: int, stream: int) -> None:
        self._alloc_from("cudaMallocFromPoolAsync", p_dev, size, self._pools().get(pool), stream)

    @_entry
    def cudaFreeAsync(self, dev_ptr: int, stream: int) -> None:
        """``cudaFreeAsync``: released when the stream reaches this point.  Only memory from
        ``cudaMalloc``/``cudaMallocAsync``/a pool can be freed so (not pinned, registered or
        managed memory, nor a ``__device__`` variable); it counts as free at once."""
        what = "cudaFreeAsync"
        if not dev_ptr:
            return
        allocs: dict[int, int] = self._device_allocs  # type: ignore[attr-defined]
        if dev_ptr not in allocs or dev_ptr in getattr(self, "_managed", {}):
            found = self.gmem.find(dev_ptr)
            why = ("it is not device memory" if found is None else
                   "it points inside an allocation" if found[0] != dev_ptr else
                   "it is managed, pinned or registered host memory, or a __device__ variable")
            raise CudaError(Err.InvalidValue, f"{what}: {dev_ptr:#x} was not returned by cudaMalloc, "
                            f"cudaMallocAsync or cudaMallocFromPoolAsync, or was already freed ({why})")
        self.streams.enqueue(stream, FreeOp(dev_ptr), what=what)   # a bad handle raises here
        allocs.pop(dev_ptr, None)
        self._pools().freed(dev_ptr)

    @_entry
    def cudaDeviceGetDefaultMemPool(self, p_pool: int, device: int) -> None:
        _need(p_pool, "cudaDeviceGetDefaultMemPool: memPool")
        _device_zero(device, "cudaDeviceGetDefaultMemPool")
        abi.write_u64(p_pool, self._pools().default.handle)

    @_entry
    def cudaDeviceGetMemPool(self, p_pool: int, device: int) -> None:
        _need(p_pool, "cudaDeviceGetMemPool: memPool")
        _device_zero(device, "cudaDeviceGetMemPool")
        abi.write_u64(p_pool, self._pools().current.handle)

    @_entry
    def cudaDeviceSetMemPool(self, device: int, pool: int) -> None:
        _device_zero(device, "cudaDeviceSetMemPool")
        pools = self._pools()
        pools.current = pools.get(pool)

    @_entry
    def cudaMemPoolCreate(self, p_pool: int, p_props: int) -> None:
        """The pool properties (allocation type, location, handle types) are not modelled."""
        _need(p_pool, "cudaMemPoolCreate: memPool")
        _need(p_props, "cudaMemPoolCreate: poolProps")
        abi.write_u64(p_pool, self._pools().create().handle)

    @_entry
    def cudaMemPoolDestroy(self, pool: int) -> None:
        self._pools().destroy(pool)

    @_entry
    def cudaMemPoolTrimTo(self, pool: int, min_bytes_to_keep: int) -> None:
        """Freed memory already went back to the device: nothing to trim."""
        self._pools().get(pool)

    @_entry
    def cudaMemPoolSetAttribute(self, pool: int, attr: int, p_value: int) -> None:
        _need(p_value, "cudaMemPoolSetAttribute: value")
        value = ctypes.c_int.from_address(p_value).value if attr in INT_ATTRS \
            else abi.read_u64(p_value)
        self._pools().get(pool).set(attr, value)

    @_entry
    def cudaMemPoolGetAttribute(self, pool: int, attr: int, p_value: int) -> None:
        _need(p_value, "cudaMemPoolGetAttribute: value")
        value = self._pools().get(pool).get(attr)
        if attr in INT_ATTRS:
            abi.write_i32(p_value, value)
        else:
            abi.write_u64(p_value, value)

    @_entry
    def cudaMemcpy2DAsync(self, dst: int, dpitch: int, src: int, spitch: int, width: int,
                          height: int, kind: int, stream: int) -> None:
        what = "cudaMemcpy2DAsync"
        if not check_memcpy2d(what, dpitch, spitch, width, height, kind):
            return
        _need(dst, f"{what}: dst")
        _need(src, f"{what}: src")
        self._check_2d(dst, dpitch, width, height, kind in (MemcpyKind.HostToDevice,
                                                            MemcpyKind.DeviceToDevice), what)
        self._check_2d(src, spitch, width, height, kind in (MemcpyKind.DeviceToHost,
                                                            MemcpyKind.DeviceToDevice), what)
        self.streams.enqueue(stream, Memcpy2DOp(dst, dpitch, src, spitch, width, height, kind))

    def _check_2d(self, addr: int, pitch: int, width: int, height: int, must_be_device: bool,
                  what: str) -> None:
        span = pitch * (height - 1) + width
        found = self.gmem.find(addr)
        if found is None:
            if must_be_device:
                raise CudaError(Err.InvalidValue, f"{what}: {addr:#x} is not device memory")
            return
        base, size = found
        if addr + span > base + size:
            raise CudaError(Err.InvalidValue,
                            f"{what}: {span} bytes at {addr:#x} run past the end of the allocation "
                            f"[{base:#x}, {base + size:#x})")

    # ================================================================== capture
    @_entry
    def cudaStreamBeginCapture(self, stream: int, mode: int) -> None:
        self.streams.begin_capture(stream, mode)

    @_entry
    def cudaStreamEndCapture(self, stream: int, p_graph: int) -> None:
        _need(p_graph, "cudaStreamEndCapture: pGraph")
        try:
            abi.write_u64(p_graph, self.streams.end_capture(stream))
        except CudaError:
            abi.write_u64(p_graph, 0)
            raise

    @_entry
    def cudaStreamBeginCaptureToGraph(self, stream: int, graph: int, p_deps: int, p_edge_data: int,
                                      n_deps: int, mode: int) -> None:
        reg = self.streams.graphs
        deps = [reg.get_node(h) for h in _read_ptr_array(p_deps, n_deps,
                                                         "cudaStreamBeginCaptureToGraph: dependencies")]
        self.streams.begin_capture(stream, mode, graph=graph, deps=deps)

    @_entry
    def cudaStreamUpdateCaptureDependencies(self, stream: int, p_deps: int, p_edge_data: int,
                                            n_deps: int, flags: int) -> None:
        """flags: 0 = cudaStreamAddCaptureDependencies, 1 = cudaStreamSetCaptureDependencies."""
        what = "cudaStreamUpdateCaptureDependencies"
        if flags not in (0, 1):
            raise CudaError(Err.InvalidValue, f"{what}: unknown flags {flags:#x}")
        reg = self.streams.graphs
        nodes = [reg.get_node(h) for h in _read_ptr_array(p_deps, n_deps, f"{what}: dependencies")]
        self.streams.update_capture_dependencies(stream, nodes, replace=flags == 1)

    @_entry
    def cudaStreamIsCapturing(self, stream: int, p_status: int) -> None:
        _need(p_status, "cudaStreamIsCapturing: pCaptureStatus")
        abi.write_i32(p_status, self.streams.is_capturing(stream))

    @_entry
    def cudaStreamGetCaptureInfo(self, stream: int, p_status: int, p_id: int, p_graph: int,
                                 p_deps: int, p_edge_data: int, p_num_deps: int) -> None:
        """``cudaStreamGetCaptureInfo`` (CUDA 13 signature, with edge data)."""
        _need(p_status, "cudaStreamGetCaptureInfo: captureStatus_out")
        status, cid, graph, deps = self.streams.capture_info(stream)
        abi.write_i32(p_status, status)
        if p_id:
            abi.write_u64(p_id, cid)
        if p_graph:
            abi.write_u64(p_graph, graph or 0)
        arr = (ctypes.c_uint64 * max(len(deps), 1))(*[n.handle for n in deps])
        edges = (ctypes.c_uint8 * (_EDGE_DATA_BYTES * max(len(deps), 1)))()
        keep = self.__dict__.setdefault("_capture_info_buffers", {})
        keep[stream] = (arr, edges)            # valid until the next call for this stream
        if p_deps:
            abi.write_u64(p_deps, ctypes.addressof(arr) if deps else 0)
        if p_edge_data:
            abi.write_u64(p_edge_data, ctypes.addressof(edges) if deps else 0)
        if p_num_deps:
            abi.write_u64(p_num_deps, len(deps))

    @_entry
    def cudaThreadExchangeStreamCaptureMode(self, p_mode: int) -> None:
        """Swap the calling thread's capture interaction mode, which decides which "potentially
        unsafe" calls fail during capture (:meth:`StreamManager.check_unsafe_call`)."""
        _need(p_mode, "cudaThreadExchangeStreamCaptureMode: mode")
        old = self.streams.exchange_capture_mode(ctypes.c_int.from_address(p_mode).value)
        abi.write_i32(p_mode, old)

    # ================================================================== graphs
    @_entry
    def cudaGraphCreate(self, p_graph: int, flags: int) -> None:
        _need(p_graph, "cudaGraphCreate: pGraph")
        if flags:
            raise CudaError(Err.InvalidValue, f"cudaGraphCreate: flags must be 0, not {flags}")
        abi.write_u64(p_graph, self.streams.graphs.new_graph().handle)

    def _add_node(self, p_node: int, graph: int, p_deps: int, n_deps: int, kind: int,
                  op: Any, what: str) -> None:
        _need(p_node, f"{what}: pGraphNode")
        reg = self.streams.graphs
        gr = reg.get_graph(graph)
        deps = [reg.get_node(h) for h in _read_ptr_array(p_deps, n_deps, f"{what}: pDependencies")]
        abi.write_u64(p_node, gr.add_node(kind, op, deps).handle)

    def _engine_kwargs(self, cooperative: bool = False) -> dict[str, Any]:
        """Keyword arguments for ``engine.launch`` of every kernel this context runs: device
        printf to the app's stdout, the functional driver (``GPGPUSIM_DRIVER``), the config
        (engine options such as ``-gpgpu_ptx_inst_debug_to_file``), per-line statistics when
        ``-enable_ptx_file_line_stats`` is on, and grid-wide residency for cooperative launches."""
        from gpgpusim import hostio

        kwargs: dict[str, Any] = {"printf": hostio.out}
        driver = getattr(self, "driver", None)
        if driver is not None:
            kwargs["driver"] = driver
        config = getattr(self, "config", None)
        if config is not None:
            kwargs["options"] = config
        if getattr(self, "_line_stats", False):
            kwargs["line_stats"] = {}
        if cooperative:
            kwargs["cooperative"] = True
        return kwargs

    def _make_kernel_op(self, what: str, func: int, grid: tuple[int, int, int],
                        block: tuple[int, int, int], shmem: int, args: int) -> KernelLaunchOp:
        """A kernel launch op from a host function pointer and ``void **args``, built like the
        host part's ``Runtime.launch`` (registry, validation, marshalling, engine options); the
        Runtime may override this."""
        from gpgpusim.runtime.launch import marshal_params, validate_launch

        k = self.registry.kernel(func, what)  # type: ignore[attr-defined]
        validate_launch(what, k, self.device, grid, block, shmem)  # type: ignore[attr-defined]
        params = marshal_params(what, k.function(), args)
        kwargs = self._engine_kwargs()
        res = k.resources() if hasattr(k, "resources") else None
        return KernelLaunchOp(k.module.loaded, k.name, grid, block, shmem, params,
                              launch_kwargs=kwargs, host_fun=getattr(k, "host_fun", None),
                              regs_per_thread=(self.device.kernel_regs(res.regs)  # type: ignore[attr-defined]
                                               if res is not None else None),
                              static_smem_bytes=getattr(res, "static_smem_bytes", None))

    # ---- node parameter structs -> operation templates
    def _kernel_node_op(self, what: str, p_params: int) -> KernelLaunchOp:
        """``struct cudaKernelNodeParams {func; dim3 grid; dim3 block; unsigned smem;
        void **kernelParams; void **extra}`` (offsets 0, 8, 20, 32, 40, 48)."""
        _need(p_params, f"{what}: pNodeParams")
        func = abi.read_u64(p_params)
        grid, block = abi.read_dim3(p_params + 8), abi.read_dim3(p_params + 20)
        shmem = ctypes.c_uint32.from_address(p_params + 32).value
        args, extra = abi.read_u64(p_params + 40), abi.read_u64(p_params + 48)
        if extra:
            raise CudaError(Err.NotSupported, f"{what}: the 'extra' argument format is not supported")
        return self._make_kernel_op(what, func, grid, block, shmem, args)

    def _memset_node_op(self, what: str, p_params: int) -> MemsetOp:
        """``struct cudaMemsetParams {dst; pitch; unsigned value; unsigned elementSize; width;
        height}`` (offsets 0, 8, 16, 20, 24, 32); width counts elements."""
        _need(p_params, f"{what}: pMemsetParams")
        dst, pitch = abi.read_u64(p_params), abi.read_u64(p_params + 8)
        value = ctypes.c_uint32.from_address(p_params + 16).value
        esize = ctypes.c_uint32.from_address(p_params + 20).value
        width, height = abi.read_u64(p_params + 24), abi.read_u64(p_params + 32)
        if esize not in (1, 2, 4):
            raise CudaError(Err.InvalidValue, f"{what}: elementSize {esize} is not 1, 2 or 4")
        nbytes = width * esize
        if height > 1 and pitch < nbytes:
            raise CudaError(Err.InvalidValue, f"{what}: pitch {pitch} is less than the row width {nbytes}")
        found = self.gmem.find(dst) if dst else None
        if found is None or dst + (pitch * (height - 1) if height > 1 else 0) + nbytes > sum(found):
            raise CudaError(Err.InvalidValue, f"{what}: {dst:#x} is not (enough) device memory")
        return MemsetOp(dst, value, nbytes, esize, pitch, max(height, 1))

    @staticmethod
    def _host_node_op(what: str, p_params: int) -> HostFuncOp:
        """``struct cudaHostNodeParams {fn; userData}``."""
        _need(p_params, f"{what}: pNodeParams")
        fn, user_data = abi.read_u64(p_params), abi.read_u64(p_params + 8)
        _need(fn, f"{what}: fn")
        cfn = _HOST_FN(fn)
        op = HostFuncOp(lambda: cfn(user_data or None))
        op.c_params = (fn, user_data)   # type: ignore[attr-defined]  # for *GetParams
        return op

    @staticmethod
    def _memcpy1d_op(what: str, dst: int, src: int, count: int, kind: int) -> MemcpyOp:
        if kind not in tuple(MemcpyKind):
            raise CudaError(Err.InvalidMemcpyDirection, f"{what}: {kind} is not a cudaMemcpyKind")
        if count:
            _need(dst, f"{what}: dst")
            _need(src, f"{what}: src")
        return MemcpyOp(dst, src, count, kind)

    def _memcpy3d_op(self, what: str, p_params: int) -> Memcpy2DOp:
        """``struct cudaMemcpy3DParms`` (srcArray 0, srcPos 8, srcPtr 32, dstArray 64, dstPos 72,
        dstPtr 96, extent 128, kind 152): pitched pointers with depth 1 only."""
        _need(p_params, f"{what}: pCopyParams")
        q = [abi.read_u64(p_params + 8 * i) for i in range(19)]
        kind = ctypes.c_int.from_address(p_params + 152).value
        src_array, (sx, sy, sz), (sptr, spitch, _sxs, _sys) = q[0], q[1:4], q[4:8]
        dst_array, (dx, dy, dz), (dptr, dpitch, _dxs, _dys) = q[8], q[9:12], q[12:16]
        width, height, depth = q[16:19]
        if src_array or dst_array:
            raise CudaError(Err.NotSupported, f"{what}: CUDA arrays are not supported")
        if depth != 1 or sz or dz:
            raise CudaError(Err.NotSupported, f"{what}: only depth-1 copies are supported "
                            f"(extent depth {depth})")
        if kind not in tuple(MemcpyKind):
            raise CudaError(Err.InvalidMemcpyDirection, f"{what}: {kind} is not a cudaMemcpyKind")
        _need(sptr, f"{what}: srcPtr.ptr")
        _need(dptr, f"{what}: dstPtr.ptr")
        spitch = spitch or width
        dpitch = dpitch or width
        if width > spitch or width > dpitch:
            raise CudaError(Err.InvalidPitchValue,
                            f"{what}: width {width} exceeds a pitch ({spitch}, {dpitch})")
        return Memcpy2DOp(dptr + dy * dpitch + dx, dpitch, sptr + sy * spitch + sx, spitch,
                          width, height, kind)

    # ---- node creation
    @_entry
    def cudaGraphAddKernelNode(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                               p_params: int) -> None:
        what = "cudaGraphAddKernelNode"
        op = self._kernel_node_op(what, p_params)
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_KERNEL, op, what)

    @_entry
    def cudaGraphAddMemcpyNode1D(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                                 dst: int, src: int, count: int, kind: int) -> None:
        what = "cudaGraphAddMemcpyNode1D"
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_MEMCPY,
                       self._memcpy1d_op(what, dst, src, count, kind), what)

    @_entry
    def cudaGraphAddMemcpyNode(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                               p_params: int) -> None:
        what = "cudaGraphAddMemcpyNode"
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_MEMCPY,
                       self._memcpy3d_op(what, p_params), what)

    @_entry
    def cudaGraphAddMemsetNode(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                               p_params: int) -> None:
        what = "cudaGraphAddMemsetNode"
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_MEMSET,
                       self._memset_node_op(what, p_params), what)

    @_entry
    def cudaGraphAddHostNode(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                             p_params: int) -> None:
        what = "cudaGraphAddHostNode"
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_HOST,
                       self._host_node_op(what, p_params), what)

    @_entry
    def cudaGraphAddChildGraphNode(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                                   child: int) -> None:
        """The child graph is copied: later changes to it do not affect this node."""
        what = "cudaGraphAddChildGraphNode"
        reg = self.streams.graphs
        copy = reg.new_graph(register=False)
        reg.get_graph(child).clone_into(copy)
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_GRAPH, g.ChildGraphOp(copy), what)

    @_entry
    def cudaGraphAddEventRecordNode(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                                    event: int) -> None:
        what = "cudaGraphAddEventRecordNode"
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_EVENT_RECORD,
                       EventRecordOp(self.streams.get_event(event)), what)

    @_entry
    def cudaGraphAddEventWaitNode(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                                  event: int) -> None:
        what = "cudaGraphAddEventWaitNode"
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_WAIT_EVENT,
                       WaitEventOp(self.streams.get_event(event)), what)

    @_entry
    def cudaGraphAddEmptyNode(self, p_node: int, graph: int, p_deps: int, n_deps: int) -> None:
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_EMPTY, None, "cudaGraphAddEmptyNode")

    @_entry
    def cudaGraphGetNodes(self, graph: int, p_nodes: int, p_num: int) -> None:
        """Without ``nodes``: the count; with it: up to ``*numNodes`` handles."""
        _need(p_num, "cudaGraphGetNodes: numNodes")
        self._write_nodes(self.streams.graphs.get_graph(graph).nodes, p_nodes, p_num)

    @_entry
    def cudaGraphGetRootNodes(self, graph: int, p_nodes: int, p_num: int) -> None:
        _need(p_num, "cudaGraphGetRootNodes: pNumRootNodes")
        self._write_nodes(self.streams.graphs.get_graph(graph).root_nodes(), p_nodes, p_num)

    @staticmethod
    def _write_nodes(nodes: list[g.GraphNode], p_nodes: int, p_num: int) -> None:
        if not p_nodes:
            abi.write_u64(p_num, len(nodes))
            return
        cap = abi.read_u64(p_num)
        for i, n in enumerate(nodes[:cap]):
            abi.write_u64(p_nodes + 8 * i, n.handle)
        for i in range(len(nodes), cap):
            abi.write_u64(p_nodes + 8 * i, 0)
        abi.write_u64(p_num, min(cap, len(nodes)))

    @_entry
    def cudaGraphNodeGetType(self, node: int, p_type: int) -> None:
        _need(p_type, "cudaGraphNodeGetType: pType")
        abi.write_i32(p_type, self.streams.graphs.get_node(node).kind)

    @_entry
    def cudaGraphInstantiate(self, p_exec: int, graph: int, flags: int) -> None:
        _need(p_exec, "cudaGraphInstantiate: pGraphExec")
        if flags & ~_INSTANTIATE_FLAGS:
            raise CudaError(Err.InvalidValue, f"cudaGraphInstantiate: unsupported flags {flags:#x}")
        handle = self.streams.graphs.instantiate(graph)
        self.streams.graphs.get_exec(handle).flags = flags
        abi.write_u64(p_exec, handle)

    @_entry
    def cudaGraphInstantiateWithFlags(self, p_exec: int, graph: int, flags: int) -> None:
        return self.cudaGraphInstantiate.__wrapped__(self, p_exec, graph, flags)  # type: ignore[attr-defined]

    @_entry
    def cudaGraphLaunch(self, graph_exec: int, stream: int) -> None:
        self.streams.launch_graph(graph_exec, stream)

    @_entry
    def cudaGraphExecDestroy(self, graph_exec: int) -> None:
        self.streams.graphs.destroy_exec(graph_exec)

    @_entry
    def cudaGraphDestroy(self, graph: int) -> None:
        self.streams.graphs.destroy_graph(graph)

    # ---- edges, clones, node removal
    def _edge_lists(self, graph: int, p_from: int, p_to: int, n: int, what: str
                    ) -> tuple[g.Graph, list[tuple[g.GraphNode, g.GraphNode]]]:
        reg = self.streams.graphs
        gr = reg.get_graph(graph)
        src = [reg.get_node(h) for h in _read_ptr_array(p_from, n, f"{what}: from")]
        dst = [reg.get_node(h) for h in _read_ptr_array(p_to, n, f"{what}: to")]
        return gr, list(zip(src, dst, strict=True))

    @_entry
    def cudaGraphAddDependencies(self, graph: int, p_from: int, p_to: int, p_edge_data: int,
                                 n: int) -> None:
        gr, edges = self._edge_lists(graph, p_from, p_to, n, "cudaGraphAddDependencies")
        for a, b in edges:
            gr.add_edge(a, b)

    @_entry
    def cudaGraphRemoveDependencies(self, graph: int, p_from: int, p_to: int, p_edge_data: int,
                                    n: int) -> None:
        gr, edges = self._edge_lists(graph, p_from, p_to, n, "cudaGraphRemoveDependencies")
        for a, b in edges:
            if a.graph is not gr or a not in b.deps:
                raise CudaError(Err.InvalidValue, f"cudaGraphRemoveDependencies: no edge "
                                f"{a.handle:#x} -> {b.handle:#x}")
        for a, b in edges:
            b.deps.remove(a)

    @_entry
    def cudaGraphGetEdges(self, graph: int, p_from: int, p_to: int, p_edge_data: int,
                          p_num: int) -> None:
        """Without ``from``/``to``: the count; with them: up to ``*numEdges`` edges."""
        _need(p_num, "cudaGraphGetEdges: numEdges")
        edges = self.streams.graphs.get_graph(graph).edges()
        if not p_from and not p_to:
            abi.write_u64(p_num, len(edges))
            return
        _need(p_from, "cudaGraphGetEdges: from")
        _need(p_to, "cudaGraphGetEdges: to")
        cap = abi.read_u64(p_num)
        for i in range(cap):
            a, b = edges[i] if i < len(edges) else (None, None)
            abi.write_u64(p_from + 8 * i, a.handle if a else 0)
            abi.write_u64(p_to + 8 * i, b.handle if b else 0)
            if p_edge_data:
                abi.write_u64(p_edge_data + _EDGE_DATA_BYTES * i, 0)
        abi.write_u64(p_num, min(cap, len(edges)))

    @_entry
    def cudaGraphClone(self, p_clone: int, graph: int) -> None:
        _need(p_clone, "cudaGraphClone: pGraphClone")
        abi.write_u64(p_clone, self.streams.graphs.clone_graph(graph).handle)

    @_entry
    def cudaGraphNodeFindInClone(self, p_node: int, original: int, clone: int) -> None:
        _need(p_node, "cudaGraphNodeFindInClone: pNode")
        gr = self.streams.graphs.get_graph(clone)
        node = gr.clone_of.get(original)
        if node is None:
            raise CudaError(Err.InvalidValue, f"cudaGraphNodeFindInClone: node {original:#x} has "
                            f"no copy in graph {clone:#x}")
        abi.write_u64(p_node, node.handle)

    @_entry
    def cudaGraphDestroyNode(self, node: int) -> None:
        n = self.streams.graphs.get_node(node)
        n.graph.remove_node(n)

    # ---- parameter updates
    def _node_of_kind(self, node: int, kind: int, what: str) -> g.GraphNode:
        n = self.streams.graphs.get_node(node)
        if n.kind != kind:
            raise CudaError(Err.InvalidValue, f"{what}: node {node:#x} is of type {n.kind}, not {kind}")
        return n

    @_entry
    def cudaGraphKernelNodeSetParams(self, node: int, p_params: int) -> None:
        what = "cudaGraphKernelNodeSetParams"
        n = self._node_of_kind(node, g.NODE_KERNEL, what)
        n.op = self._kernel_node_op(what, p_params)

    @_entry
    def cudaGraphExecKernelNodeSetParams(self, graph_exec: int, node: int, p_params: int) -> None:
        what = "cudaGraphExecKernelNodeSetParams"
        n = self._node_of_kind(node, g.NODE_KERNEL, what)
        self.streams.graphs.get_exec(graph_exec).set_op(n, self._kernel_node_op(what, p_params))

    @_entry
    def cudaGraphExecMemsetNodeSetParams(self, graph_exec: int, node: int, p_params: int) -> None:
        what = "cudaGraphExecMemsetNodeSetParams"
        n = self._node_of_kind(node, g.NODE_MEMSET, what)
        self.streams.graphs.get_exec(graph_exec).set_op(n, self._memset_node_op(what, p_params))

    @_entry
    def cudaGraphExecHostNodeSetParams(self, graph_exec: int, node: int, p_params: int) -> None:
        what = "cudaGraphExecHostNodeSetParams"
        n = self._node_of_kind(node, g.NODE_HOST, what)
        self.streams.graphs.get_exec(graph_exec).set_op(n, self._host_node_op(what, p_params))

    @_entry
    def cudaGraphExecMemcpyNodeSetParams1D(self, graph_exec: int, node: int, dst: int, src: int,
                                           count: int, kind: int) -> None:
        what = "cudaGraphExecMemcpyNodeSetParams1D"
        n = self._node_of_kind(node, g.NODE_MEMCPY, what)
        self.streams.graphs.get_exec(graph_exec).set_op(
            n, self._memcpy1d_op(what, dst, src, count, kind))

    @_entry
    def cudaGraphUpload(self, graph_exec: int, stream: int) -> None:
        """Nothing to upload in a simulator: validates the handles only."""
        self.streams.graphs.get_exec(graph_exec)
        self.streams.get_stream(stream)

    # ---- more node/graph queries and updates
    @_entry
    def cudaGraphHostNodeSetParams(self, node: int, p_params: int) -> None:
        what = "cudaGraphHostNodeSetParams"
        self._node_of_kind(node, g.NODE_HOST, what).op = self._host_node_op(what, p_params)

    @_entry
    def cudaGraphHostNodeGetParams(self, node: int, p_params: int) -> None:
        what = "cudaGraphHostNodeGetParams"
        _need(p_params, f"{what}: pNodeParams")
        fn, user_data = getattr(self._node_of_kind(node, g.NODE_HOST, what).op, "c_params", (0, 0))
        abi.write_u64(p_params, fn)
        abi.write_u64(p_params + 8, user_data)

    @_entry
    def cudaGraphMemsetNodeSetParams(self, node: int, p_params: int) -> None:
        what = "cudaGraphMemsetNodeSetParams"
        self._node_of_kind(node, g.NODE_MEMSET, what).op = self._memset_node_op(what, p_params)

    @_entry
    def cudaGraphMemcpyNodeSetParams1D(self, node: int, dst: int, src: int, count: int,
                                       kind: int) -> None:
        what = "cudaGraphMemcpyNodeSetParams1D"
        self._node_of_kind(node, g.NODE_MEMCPY, what).op = self._memcpy1d_op(what, dst, src, count, kind)

    def _write_node_list(self, nodes: list[g.GraphNode], p_nodes: int, p_edge_data: int,
                         p_num: int, what: str) -> None:
        _need(p_num, f"{what}: count")
        if p_edge_data and p_nodes:
            cap = abi.read_u64(p_num)
            for i in range(min(cap, len(nodes))):
                abi.write_u64(p_edge_data + _EDGE_DATA_BYTES * i, 0)
        self._write_nodes(nodes, p_nodes, p_num)

    @_entry
    def cudaGraphNodeGetDependencies(self, node: int, p_deps: int, p_edge_data: int,
                                     p_num: int) -> None:
        n = self.streams.graphs.get_node(node)
        self._write_node_list(list(n.deps), p_deps, p_edge_data, p_num,
                              "cudaGraphNodeGetDependencies")

    @_entry
    def cudaGraphNodeGetDependentNodes(self, node: int, p_nodes: int, p_edge_data: int,
                                       p_num: int) -> None:
        n = self.streams.graphs.get_node(node)
        users = [m for m in n.graph.nodes if n in m.deps]
        self._write_node_list(users, p_nodes, p_edge_data, p_num,
                              "cudaGraphNodeGetDependentNodes")

    @_entry
    def cudaGraphInstantiateWithParams(self, p_exec: int, graph: int, p_params: int) -> None:
        """``cudaGraphInstantiateParams {flags; uploadStream; errNode_out; result_out}``."""
        what = "cudaGraphInstantiateWithParams"
        _need(p_exec, f"{what}: pGraphExec")
        _need(p_params, f"{what}: instantiateParams")
        flags = abi.read_u64(p_params)
        if flags & ~_INSTANTIATE_FLAGS:
            abi.write_i32(p_params + 24, 1)            # cudaGraphInstantiateError
            raise CudaError(Err.InvalidValue, f"{what}: unsupported flags {flags:#x}")
        upload = abi.read_u64(p_params + 8)
        if flags & 2:                                  # cudaGraphInstantiateFlagUpload
            self.streams.get_stream(upload)
        handle = self.streams.graphs.instantiate(graph)
        self.streams.graphs.get_exec(handle).flags = flags
        abi.write_u64(p_exec, handle)
        abi.write_u64(p_params + 16, 0)
        abi.write_i32(p_params + 24, 0)                # cudaGraphInstantiateSuccess

    @_entry
    def cudaGraphExecUpdate(self, graph_exec: int, graph: int, p_result: int) -> None:
        """``cudaGraphExecUpdateResultInfo {result; errorNode; errorFromNode}`` (0, 8, 16)."""
        what = "cudaGraphExecUpdate"
        reg = self.streams.graphs
        result, node = g.exec_update(reg.get_exec(graph_exec), reg.get_graph(graph))
        if p_result:
            abi.write_i32(p_result, result)
            abi.write_u64(p_result + 8, node.handle if node is not None else 0)
            abi.write_u64(p_result + 16, 0)
        if result:
            why = "the topology changed" if result == 2 else "a node's type changed"
            raise _GraphExecUpdateFailure(f"{what}: {why}")

    @_entry
    def cudaGraphExecGetFlags(self, graph_exec: int, p_flags: int) -> None:
        _need(p_flags, "cudaGraphExecGetFlags: flags")
        abi.write_u64(p_flags, self.streams.graphs.get_exec(graph_exec).flags)

    @_entry
    def cudaGraphDebugDotPrint(self, graph: int, p_path: int, flags: int) -> None:
        """A Graphviz file of the nodes (type and operation) and dependency edges."""
        _need(p_path, "cudaGraphDebugDotPrint: path")
        gr = self.streams.graphs.get_graph(graph)
        lines = [f'digraph "graph_{gr.handle:#x}" {{']
        for n in gr.nodes:
            label = f"{g.NODE_NAMES.get(n.kind, n.kind)}\\n{n.op.describe()}".replace('"', "'")
            lines.append(f'  n{n.handle:x} [label="{label}"];')
        lines += [f"  n{a.handle:x} -> n{b.handle:x};" for a, b in gr.edges()]
        lines.append("}")
        path = abi.read_cstr(p_path)
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
        except OSError as exc:
            raise CudaError(Err.InvalidValue, f"cudaGraphDebugDotPrint: cannot write {path!r}: "
                            f"{exc.strerror}") from None

    # ================================================================== per-thread default stream
    @_entry
    def cudaStreamGetFlags_ptsz(self, stream: int, p_flags: int) -> int:
        return self.cudaStreamGetFlags.__wrapped__(self, _ptsz(stream), p_flags)  # type: ignore[attr-defined]

    @_entry
    def cudaStreamGetPriority_ptsz(self, stream: int, p_priority: int) -> int:
        return self.cudaStreamGetPriority.__wrapped__(self, _ptsz(stream), p_priority)  # type: ignore[attr-defined]

    @_entry
    def cudaStreamGetId_ptsz(self, stream: int, p_id: int) -> int:
        return self.cudaStreamGetId.__wrapped__(self, _ptsz(stream), p_id)  # type: ignore[attr-defined]

    @_entry
    def cudaLaunchHostFunc_ptsz(self, stream: int, fn: int, user_data: int) -> int:
        return self.cudaLaunchHostFunc.__wrapped__(self, _ptsz(stream), fn, user_data)  # type: ignore[attr-defined]

    @_entry
    def cudaStreamAddCallback_ptsz(self, stream: int, cb: int, user_data: int, flags: int) -> int:
        return self.cudaStreamAddCallback.__wrapped__(self, _ptsz(stream), cb, user_data, flags)  # type: ignore[attr-defined]

    @_entry
    def cudaMallocAsync_ptsz(self, p_dev: int, size: int, stream: int) -> int:
        return self.cudaMallocAsync.__wrapped__(self, p_dev, size, _ptsz(stream))  # type: ignore[attr-defined]

    @_entry
    def cudaMallocFromPoolAsync_ptsz(self, p_dev: int, size: int, pool: int, stream: int) -> int:
        return self.cudaMallocFromPoolAsync.__wrapped__(self, p_dev, size, pool, _ptsz(stream))  # type: ignore[attr-defined]

    @_entry
    def cudaFreeAsync_ptsz(self, dev_ptr: int, stream: int) -> int:
        return self.cudaFreeAsync.__wrapped__(self, dev_ptr, _ptsz(stream))  # type: ignore[attr-defined]

    @_entry
    def cudaMemcpy2DAsync_ptsz(self, dst: int, dpitch: int, src: int, spitch: int, width: int,
                               height: int, kind: int, stream: int) -> int:
        return self.cudaMemcpy2DAsync.__wrapped__(  # type: ignore[attr-defined]
            self, dst, dpitch, src, spitch, width, height, kind, _ptsz(stream))

    @_entry
    def cudaStreamBeginCapture_ptsz(self, stream: int, mode: int) -> int:
        return self.cudaStreamBeginCapture.__wrapped__(self, _ptsz(stream), mode)  # type: ignore[attr-defined]

    @_entry
    def cudaStreamEndCapture_ptsz(self, stream: int, p_graph: int) -> int:
        return self.cudaStreamEndCapture.__wrapped__(self, _ptsz(stream), p_graph)  # type: ignore[attr-defined]

    @_entry
    def cudaStreamIsCapturing_ptsz(self, stream: int, p_status: int) -> int:
        return self.cudaStreamIsCapturing.__wrapped__(self, _ptsz(stream), p_status)  # type: ignore[attr-defined]

    @_entry
    def cudaStreamGetCaptureInfo_ptsz(self, stream: int, p_status: int, p_id: int, p_graph: int,
                                      p_deps: int, p_edge_data: int, p_num_deps: int) -> int:
        return self.cudaStreamGetCaptureInfo.__wrapped__(  # type: ignore[attr-defined]
            self, _ptsz(stream), p_status, p_id, p_graph, p_deps, p_edge_data, p_num_deps)

    @_entry
    def cudaStreamGetDevice_ptsz(self, stream: int, p_device: int) -> int:
        return self.cudaStreamGetDevice.__wrapped__(self, _ptsz(stream), p_device)  # type: ignore[attr-defined]

    @_entry
    def cudaStreamAttachMemAsync_ptsz(self, stream: int, dev_ptr: int, length: int, flags: int) -> int:
        return self.cudaStreamAttachMemAsync.__wrapped__(  # type: ignore[attr-defined]
            self, _ptsz(stream), dev_ptr, length, flags)

    @_entry
    def cudaStreamBeginCaptureToGraph_ptsz(self, stream: int, graph: int, p_deps: int,
                                           p_edge_data: int, n_deps: int, mode: int) -> int:
        return self.cudaStreamBeginCaptureToGraph.__wrapped__(  # type: ignore[attr-defined]
            self, _ptsz(stream), graph, p_deps, p_edge_data, n_deps, mode)

    @_entry
    def cudaStreamUpdateCaptureDependencies_ptsz(self, stream: int, p_deps: int, p_edge_data: int,
                                                 n_deps: int, flags: int) -> int:
        return self.cudaStreamUpdateCaptureDependencies.__wrapped__(  # type: ignore[attr-defined]
            self, _ptsz(stream), p_deps, p_edge_data, n_deps, flags)

    @_entry
    def cudaGraphInstantiateWithParams_ptsz(self, p_exec: int, graph: int, p_params: int) -> int:
        if p_params and abi.read_u64(p_params + 8) == STREAM_LEGACY_NULL:
            abi.write_u64(p_params + 8, STREAM_PER_THREAD)
        return self.cudaGraphInstantiateWithParams.__wrapped__(self, p_exec, graph, p_params)  # type: ignore[attr-defined]

    @_entry
    def cudaStreamSetAttribute_ptsz(self, stream: int, attr: int, p_value: int) -> int:
        return self.cudaStreamSetAttribute.__wrapped__(self, _ptsz(stream), attr, p_value)  # type: ignore[attr-defined]

    @_entry
    def cudaStreamGetAttribute_ptsz(self, stream: int, attr: int, p_value: int) -> int:
        return self.cudaStreamGetAttribute.__wrapped__(self, _ptsz(stream), attr, p_value)  # type: ignore[attr-defined]

    @_entry
    def cudaStreamCopyAttributes_ptsz(self, dst: int, src: int) -> int:
        return self.cudaStreamCopyAttributes.__wrapped__(self, _ptsz(dst), _ptsz(src))  # type: ignore[attr-defined]

    @_entry
    def cudaGraphUpload_ptsz(self, graph_exec: int, stream: int) -> int:
        return self.cudaGraphUpload.__wrapped__(self, graph_exec, _ptsz(stream))  # type: ignore[attr-defined]

    @_entry
    def cudaGraphLaunch_ptsz(self, graph_exec: int, stream: int) -> int:
        return self.cudaGraphLaunch.__wrapped__(self, graph_exec, _ptsz(stream))  # type: ignore[attr-defined]

    # ================================================================== per-thread synchronous calls
    # (cudaMemset3D_ptds is a C wrapper passing cudaStreamPerThread to gs_memset3d)
    def _ptds(self, name: str, *args: int) -> int:
        with self.streams.per_thread_default():
            rc: int = getattr(self, name)(*args)
        return rc

    def cudaMemcpy_ptds(self, dst: int, src: int, count: int, kind: int) -> int:
        return self._ptds("cudaMemcpy", dst, src, count, kind)

    def cudaMemset_ptds(self, ptr: int, value: int, count: int) -> int:
        return self._ptds("cudaMemset", ptr, value, count)

    def cudaMemcpy2D_ptds(self, dst: int, dpitch: int, src: int, spitch: int, width: int,
                          height: int, kind: int) -> int:
        return self._ptds("cudaMemcpy2D", dst, dpitch, src, spitch, width, height, kind)

    def cudaMemset2D_ptds(self, ptr: int, pitch: int, value: int, width: int, height: int) -> int:
        return self._ptds("cudaMemset2D", ptr, pitch, value, width, height)

    def cudaMemcpyToSymbol_ptds(self, symbol: int, src: int, count: int, offset: int,
                                kind: int) -> int:
        return self._ptds("cudaMemcpyToSymbol", symbol, src, count, offset, kind)

    def cudaMemcpyFromSymbol_ptds(self, dst: int, symbol: int, count: int, offset: int,
                                  kind: int) -> int:
        return self._ptds("cudaMemcpyFromSymbol", dst, symbol, count, offset, kind)

    def cudaMemcpy3D_ptds(self, p: int) -> int:
        return self._ptds("cudaMemcpy3D", p)
