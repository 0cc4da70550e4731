"""CUDA runtime entry points of streams, events, host functions and stream-ordered allocation
(memory pools), and the per-thread-default-stream variants of the stream calls.

:class:`StreamApi` is a service of :class:`gpgpusim.runtime.api.Runtime` (:mod:`.service`: every
pointer an int address, every method returns a ``cudaError_t``); it drives the runtime's stream
manager (``rt.streams``, :class:`~gpgpusim.runtime.streams.StreamManager`) and allocates
stream-ordered memory through the memory service's accounting (``rt.memory_api``).  GPGPU-Sim
counterpart: the stream/event part of ``libcuda/cuda_runtime_api.cc`` (C040, C041, C047, C049);
host functions and stream-ordered allocation have none (GPGPU-Sim aborts or lacks them).  Stream
capture and graphs are :mod:`.graph_api`.

``*_ptsz`` methods are the per-thread-default-stream entry points (``nvcc --default-stream
per-thread``): the NULL stream means ``cudaStreamPerThread``.  The ``*_ptds`` methods are the
synchronous calls of such binaries: the plain call, run inside
:meth:`StreamManager.per_thread_default`, so its implicit stream is the calling thread's
per-thread default stream (not the legacy stream, which would wait for every blocking stream).
"""

from __future__ import annotations

import ctypes
import struct
from typing import Any

from gpgpusim.device.gpu import (
    FreeOp,
    Memcpy2DOp,
    MemcpyKind,
)
from gpgpusim.errors import CudaError, Err
from gpgpusim.runtime import abi
from gpgpusim.runtime.service import Service, api, entry
from gpgpusim.runtime.service import check_ptr as _check_ptr
from gpgpusim.runtime.stream_mempool import INT_ATTRS, MemPool, MemPools
from gpgpusim.runtime.stream_state import (
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




class StreamApi(Service):
    """See the module docstring."""

    @api
    def cudaStreamCreate(self, p_stream: int) -> None:
        _check_ptr(p_stream, "cudaStreamCreate: pStream")
        abi.write_u64(p_stream, self.rt.streams.create_stream())

    @api
    def cudaStreamCreateWithFlags(self, p_stream: int, flags: int) -> None:
        _check_ptr(p_stream, "cudaStreamCreateWithFlags: pStream")
        abi.write_u64(p_stream, self.rt.streams.create_stream(flags))

    @api
    def cudaStreamCreateWithPriority(self, p_stream: int, flags: int, priority: int) -> None:
        _check_ptr(p_stream, "cudaStreamCreateWithPriority: pStream")
        abi.write_u64(p_stream, self.rt.streams.create_stream(flags, priority))

    @api
    def cudaStreamDestroy(self, stream: int) -> None:
        self.rt.streams.destroy_stream(stream)

    @api
    def cudaStreamSynchronize(self, stream: int) -> None:
        self.rt.streams.synchronize_stream(stream)

    @api
    def cudaStreamQuery(self, stream: int) -> int:
        return 0 if self.rt.streams.query_stream(stream) else int(Err.NotReady)

    @api
    def cudaStreamWaitEvent(self, stream: int, event: int, flags: int) -> None:
        self.rt.streams.stream_wait_event(stream, event, flags)

    @api
    def cudaEventCreate(self, event: int) -> None:
        _check_ptr(event, "cudaEventCreate: event")
        abi.write_u64(event, self.rt.streams.create_event())

    @api
    def cudaEventCreateWithFlags(self, event: int, flags: int) -> None:
        _check_ptr(event, "cudaEventCreateWithFlags: event")
        abi.write_u64(event, self.rt.streams.create_event(flags))

    @api
    def cudaEventRecord(self, event: int, stream: int) -> None:
        self.rt.streams.record_event(event, stream)

    @api
    def cudaEventRecordWithFlags(self, event: int, stream: int, flags: int) -> None:
        self.rt.streams.record_event(event, stream, flags)

    @api
    def cudaEventQuery(self, event: int) -> int:
        return 0 if self.rt.streams.query_event(event) else int(Err.NotReady)

    @api
    def cudaEventSynchronize(self, event: int) -> None:
        self.rt.streams.synchronize_event(event)

    @api
    def cudaEventElapsedTime(self, ms: int, start: int, end: int) -> None:
        _check_ptr(ms, "cudaEventElapsedTime: ms")
        abi.write_f32(ms, self.rt.streams.elapsed_ms(start, end))

    @api
    def cudaEventDestroy(self, event: int) -> None:
        self.rt.streams.destroy_event(event)

    @entry
    def cudaStreamGetFlags(self, stream: int, p_flags: int) -> None:
        _need(p_flags, "cudaStreamGetFlags: flags")
        abi.write_u32(p_flags, self.rt.streams.get_stream(stream).flags)

    @entry
    def cudaStreamGetPriority(self, stream: int, p_priority: int) -> None:
        _need(p_priority, "cudaStreamGetPriority: priority")
        abi.write_i32(p_priority, self.rt.streams.get_stream(stream).priority)

    @entry
    def cudaStreamGetId(self, stream: int, p_id: int) -> None:
        """``cudaStreamGetId``: 0 for the legacy stream, else a unique per-stream number."""
        _need(p_id, "cudaStreamGetId: streamId")
        abi.write_u64(p_id, self.rt.streams.get_stream(stream).uid)

    def _attr_stream(self, stream: int, attr: int, what: str) -> Any:
        if attr not in _STREAM_ATTRS:
            raise CudaError(Err.InvalidValue, f"{what}: attribute {attr} is not valid for streams")
        return self.rt.streams.get_stream(stream)

    @entry
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

    @entry
    def cudaStreamGetAttribute(self, stream: int, attr: int, p_value: int) -> None:
        what = "cudaStreamGetAttribute"
        _need(p_value, f"{what}: value")
        st = self._attr_stream(stream, attr, what)
        if attr == _ATTR_PRIORITY:
            raw = struct.pack("<i", st.priority).ljust(_ATTR_VALUE_BYTES, b"\0")
        else:
            raw = st.attrs.get(attr, _ATTR_DEFAULTS.get(attr, bytes(_ATTR_VALUE_BYTES)))
        abi.write(p_value, raw)

    @entry
    def cudaStreamCopyAttributes(self, dst: int, src: int) -> None:
        s_from, s_to = self.rt.streams.get_stream(src), self.rt.streams.get_stream(dst)
        s_to.attrs = dict(s_from.attrs)
        s_to.priority = s_from.priority

    @entry
    def cudaStreamGetDevice(self, stream: int, p_device: int) -> None:
        """Every stream belongs to the one simulated device, 0."""
        _need(p_device, "cudaStreamGetDevice: device")
        self.rt.streams.get_stream(stream)
        abi.write_i32(p_device, 0)

    @entry
    def cudaLaunchHostFunc(self, stream: int, fn: int, user_data: int) -> None:
        """``cudaLaunchHostFunc``: ``fn(userData)`` runs once the stream reaches it."""
        _need(fn, "cudaLaunchHostFunc: fn")
        cfn = _HOST_FN(fn)
        self.rt.streams.add_host_func(stream, lambda: cfn(user_data or None))

    @entry
    def cudaStreamAddCallback(self, stream: int, callback: int, user_data: int, flags: int) -> None:
        """``cudaStreamAddCallback``: ``callback(stream, status, userData)`` runs exactly once,
        ``status`` being ``cudaSuccess`` or the context's sticky error (unlike a host function,
        it also runs after a device error); flags must be 0; not allowed during capture."""
        _need(callback, "cudaStreamAddCallback: callback")
        if flags:
            raise CudaError(Err.InvalidValue, f"cudaStreamAddCallback: flags must be 0, not {flags}")
        cfn = _STREAM_CB(callback)
        self.rt.streams.add_host_func(stream, lambda status: cfn(stream or None, status, user_data or None),
                                   callback=True)

    def _pools(self) -> MemPools:
        """The pools live with the stream manager, so a device reset starts them afresh."""
        pools: MemPools = self.rt.streams.mem_pools
        return pools

    def _alloc_from(self, what: str, p_dev: int, size: int, pool: MemPool, stream: int) -> None:
        """Allocated at once through the device's allocation accounting (capacity check,
        ``cudaMemGetInfo``), then owned by ``pool``."""
        _need(p_dev, f"{what}: devPtr")
        self.rt.streams.get_stream(stream)             # validates the handle
        addr = self.rt.memory_api.device_alloc(int(size), what)  # type: ignore[attr-defined]
        self._pools().allocated(pool, addr, int(size))
        abi.write_u64(p_dev, addr)

    @entry
    def cudaMallocAsync(self, p_dev: int, size: int, stream: int) -> None:
        """``cudaMallocAsync``: allocated at once (a valid stream-ordered schedule), from the
        device's current memory pool."""
        self._alloc_from("cudaMallocAsync", p_dev, size, self._pools().current, stream)

    @entry
    def cudaMallocFromPoolAsync(self, p_dev: int, size: int, pool: int, stream: int) -> None:
        self._alloc_from("cudaMallocFromPoolAsync", p_dev, size, self._pools().get(pool), stream)

    @entry
    def cudaFreeAsync(self, dev_ptr: int, stream: int) -> None:
        """``cudaFreeAsync``: released when the stream reaches this point.  Only memory from
        ``cudaMalloc``/``cudaMallocAsync``/a pool can be freed so (not pinned, registered or
        managed memory, nor a ``__device__`` variable); it counts as free at once."""
        what = "cudaFreeAsync"
        if not dev_ptr:
            return
        memory = self.rt.memory_api
        allocs: dict[int, int] = memory.device_allocs
        if dev_ptr not in allocs or dev_ptr in memory.managed:
            found = self.rt.gmem.find(dev_ptr)
            why = ("it is not device memory" if found is None else
                   "it points inside an allocation" if found[0] != dev_ptr else
                   "it is managed, pinned or registered host memory, or a __device__ variable")
            raise CudaError(Err.InvalidValue, f"{what}: {dev_ptr:#x} was not returned by cudaMalloc, "
                            f"cudaMallocAsync or cudaMallocFromPoolAsync, or was already freed ({why})")
        self.rt.streams.enqueue(stream, FreeOp(dev_ptr), what=what)   # a bad handle raises here
        allocs.pop(dev_ptr, None)
        self._pools().freed(dev_ptr)

    @entry
    def cudaDeviceGetDefaultMemPool(self, p_pool: int, device: int) -> None:
        _need(p_pool, "cudaDeviceGetDefaultMemPool: memPool")
        _device_zero(device, "cudaDeviceGetDefaultMemPool")
        abi.write_u64(p_pool, self._pools().default.handle)

    @entry
    def cudaDeviceGetMemPool(self, p_pool: int, device: int) -> None:
        _need(p_pool, "cudaDeviceGetMemPool: memPool")
        _device_zero(device, "cudaDeviceGetMemPool")
        abi.write_u64(p_pool, self._pools().current.handle)

    @entry
    def cudaDeviceSetMemPool(self, device: int, pool: int) -> None:
        _device_zero(device, "cudaDeviceSetMemPool")
        pools = self._pools()
        pools.current = pools.get(pool)

    @entry
    def cudaMemPoolCreate(self, p_pool: int, p_props: int) -> None:
        """The pool properties (allocation type, location, handle types) are not modelled."""
        _need(p_pool, "cudaMemPoolCreate: memPool")
        _need(p_props, "cudaMemPoolCreate: poolProps")
        abi.write_u64(p_pool, self._pools().create().handle)

    @entry
    def cudaMemPoolDestroy(self, pool: int) -> None:
        self._pools().destroy(pool)

    @entry
    def cudaMemPoolTrimTo(self, pool: int, min_bytes_to_keep: int) -> None:
        """Freed memory already went back to the device: nothing to trim."""
        self._pools().get(pool)

    @entry
    def cudaMemPoolSetAttribute(self, pool: int, attr: int, p_value: int) -> None:
        _need(p_value, "cudaMemPoolSetAttribute: value")
        value = ctypes.c_int.from_address(p_value).value if attr in INT_ATTRS \
            else abi.read_u64(p_value)
        self._pools().get(pool).set(attr, value)

    @entry
    def cudaMemPoolGetAttribute(self, pool: int, attr: int, p_value: int) -> None:
        _need(p_value, "cudaMemPoolGetAttribute: value")
        value = self._pools().get(pool).get(attr)
        if attr in INT_ATTRS:
            abi.write_i32(p_value, value)
        else:
            abi.write_u64(p_value, value)

    @entry
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
        self.rt.streams.enqueue(stream, Memcpy2DOp(dst, dpitch, src, spitch, width, height, kind))

    def _check_2d(self, addr: int, pitch: int, width: int, height: int, must_be_device: bool,
                  what: str) -> None:
        span = pitch * (height - 1) + width
        found = self.rt.gmem.find(addr)
        if found is None:
            if must_be_device:
                raise CudaError(Err.InvalidValue, f"{what}: {addr:#x} is not device memory")
            return
        base, size = found
        if addr + span > base + size:
            raise CudaError(Err.InvalidValue,
                            f"{what}: {span} bytes at {addr:#x} run past the end of the allocation "
                            f"[{base:#x}, {base + size:#x})")

    @entry
    def cudaStreamGetFlags_ptsz(self, stream: int, p_flags: int) -> int:
        return self.cudaStreamGetFlags.__wrapped__(self, _ptsz(stream), p_flags)  # type: ignore[attr-defined]

    @entry
    def cudaStreamGetPriority_ptsz(self, stream: int, p_priority: int) -> int:
        return self.cudaStreamGetPriority.__wrapped__(self, _ptsz(stream), p_priority)  # type: ignore[attr-defined]

    @entry
    def cudaStreamGetId_ptsz(self, stream: int, p_id: int) -> int:
        return self.cudaStreamGetId.__wrapped__(self, _ptsz(stream), p_id)  # type: ignore[attr-defined]

    @entry
    def cudaLaunchHostFunc_ptsz(self, stream: int, fn: int, user_data: int) -> int:
        return self.cudaLaunchHostFunc.__wrapped__(self, _ptsz(stream), fn, user_data)  # type: ignore[attr-defined]

    @entry
    def cudaStreamAddCallback_ptsz(self, stream: int, cb: int, user_data: int, flags: int) -> int:
        return self.cudaStreamAddCallback.__wrapped__(self, _ptsz(stream), cb, user_data, flags)  # type: ignore[attr-defined]

    @entry
    def cudaMallocAsync_ptsz(self, p_dev: int, size: int, stream: int) -> int:
        return self.cudaMallocAsync.__wrapped__(self, p_dev, size, _ptsz(stream))  # type: ignore[attr-defined]

    @entry
    def cudaMallocFromPoolAsync_ptsz(self, p_dev: int, size: int, pool: int, stream: int) -> int:
        return self.cudaMallocFromPoolAsync.__wrapped__(self, p_dev, size, pool, _ptsz(stream))  # type: ignore[attr-defined]

    @entry
    def cudaFreeAsync_ptsz(self, dev_ptr: int, stream: int) -> int:
        return self.cudaFreeAsync.__wrapped__(self, dev_ptr, _ptsz(stream))  # type: ignore[attr-defined]

    @entry
    def cudaMemcpy2DAsync_ptsz(self, dst: int, dpitch: int, src: int, spitch: int, width: int,
                               height: int, kind: int, stream: int) -> int:
        return self.cudaMemcpy2DAsync.__wrapped__(  # type: ignore[attr-defined]
            self, dst, dpitch, src, spitch, width, height, kind, _ptsz(stream))

    @entry
    def cudaStreamGetDevice_ptsz(self, stream: int, p_device: int) -> int:
        return self.cudaStreamGetDevice.__wrapped__(self, _ptsz(stream), p_device)  # type: ignore[attr-defined]

    @entry
    def cudaStreamSetAttribute_ptsz(self, stream: int, attr: int, p_value: int) -> int:
        return self.cudaStreamSetAttribute.__wrapped__(self, _ptsz(stream), attr, p_value)  # type: ignore[attr-defined]

    @entry
    def cudaStreamGetAttribute_ptsz(self, stream: int, attr: int, p_value: int) -> int:
        return self.cudaStreamGetAttribute.__wrapped__(self, _ptsz(stream), attr, p_value)  # type: ignore[attr-defined]

    @entry
    def cudaStreamCopyAttributes_ptsz(self, dst: int, src: int) -> int:
        return self.cudaStreamCopyAttributes.__wrapped__(self, _ptsz(dst), _ptsz(src))  # type: ignore[attr-defined]

    def _ptds(self, name: str, *args: int) -> int:
        with self.rt.streams.per_thread_default():
            rc: int = getattr(self.rt, name)(*args)
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
