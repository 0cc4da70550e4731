"""Device, host and managed memory: allocation with the device's capacity accounted, copies
and memsets (1-D, 2-D, 3-D, to and from symbols, between "devices"), pointer attributes, host
registration and managed-memory hints.  GPGPU-Sim counterpart: ``cudaMalloc*`` / ``cudaMemcpy*`` /
``cudaMemset*`` of ``libcuda/cuda_runtime_api.cc`` (C033-C039)."""

from __future__ import annotations

import ctypes
import struct
from typing import Any

import numpy as np

from gpgpusim import hostio
from gpgpusim.device.gpu import Memcpy2DOp, MemcpyOp, MemsetOp
from gpgpusim.errors import CudaError, Err
from gpgpusim.functional.memory import GLOBAL_HEAP_START as DEVICE_WINDOW_START
from gpgpusim.functional.messages import memory_note

from . import abi
from .device_api import INVALID_DEVICE_ID
from .service import ApiError, Service, api, entry
from .service import check_ptr as _check_ptr
from .stream_api import _ptsz, check_memcpy2d

ALLOC_ALIGN = 256               # cudaMalloc alignment
PITCH_ALIGN = 512               # cudaMallocPitch row alignment (texturePitchAlignment-like)
# cudaMemcpyKind
H2H, H2D, D2H, D2D, DEFAULT = 0, 1, 2, 3, 4
# cudaMemoryType
MEM_UNREGISTERED, MEM_HOST, MEM_DEVICE, MEM_MANAGED = 0, 1, 2, 3
ERR_HOST_MEM_ALREADY_REGISTERED = 712
ERR_HOST_MEM_NOT_REGISTERED = 713


class MemoryApi(Service):
    """See the module docstring."""

    def __init__(self, rt: Any) -> None:
        super().__init__(rt)
        self.device_allocs: dict[int, int] = {}          # cudaMalloc'd base -> size
        self._host_allocs: dict[int, Any] = {}            # pinned base -> keep-alive buffer
        self.managed: dict[int, np.ndarray] = {}         # managed base -> backing array
        self._registered: dict[int, tuple[np.ndarray, int]] = {}   # cudaHostRegister'd base -> (view, flags)

    def free_all(self) -> None:
        """``cudaDeviceReset``: free every device, managed and registered allocation."""
        gmem = self.rt.gmem
        for allocs in (self.device_allocs, self.managed, self._registered):
            for base in list(allocs):
                gmem.free(base)
            allocs.clear()

    def used_device_bytes(self) -> int:
        return sum(self.device_allocs.values())

    @api
    def cudaMemGetInfo(self, free: int, total: int) -> None:
        _check_ptr(free, "cudaMemGetInfo: free")
        _check_ptr(total, "cudaMemGetInfo: total")
        tot = self.rt.device.total_mem_bytes
        abi.write_u64(free, max(0, tot - self.used_device_bytes()))
        abi.write_u64(total, tot)

    def device_alloc(self, size: int, what: str) -> int:
        if size > self.rt.device.total_mem_bytes - self.used_device_bytes():
            raise CudaError(Err.MemoryAllocation,
                            f"{what}: {size} bytes requested, {self.rt.device.total_mem_bytes - self.used_device_bytes()} "
                            f"free on the simulated device")
        addr = self.rt.gmem.allocate(size, ALLOC_ALIGN)
        self.device_allocs[addr] = size
        if note := memory_note("malloc", size, addr):   # PTX_SIM_DEBUG >= 3
            hostio.out(note)
        return addr

    @api
    def cudaMalloc(self, dev_ptr: int, size: int) -> None:
        _check_ptr(dev_ptr, "cudaMalloc: devPtr")
        self.rt.streams.check_unsafe_call("cudaMalloc")
        abi.write_u64(dev_ptr, self.device_alloc(size, "cudaMalloc") if size else 0)

    @api
    def cudaMallocPitch(self, dev_ptr: int, pitch: int, width: int, height: int) -> None:
        _check_ptr(dev_ptr, "cudaMallocPitch: devPtr")
        _check_ptr(pitch, "cudaMallocPitch: pitch")
        self.rt.streams.check_unsafe_call("cudaMallocPitch")
        p = -(-width // PITCH_ALIGN) * PITCH_ALIGN if width else 0
        addr = self.device_alloc(p * height, "cudaMallocPitch") if p * height else 0
        abi.write_u64(dev_ptr, addr)
        abi.write_u64(pitch, p)

    @api
    def cudaFree(self, dev_ptr: int) -> None:
        if not dev_ptr:
            return
        if dev_ptr in self._host_allocs:
            raise CudaError(Err.InvalidValue, f"cudaFree: {dev_ptr:#x} is pinned host memory (use cudaFreeHost)")
        if dev_ptr not in self.device_allocs and dev_ptr not in self.managed:
            raise CudaError(Err.InvalidValue,
                            f"cudaFree: {dev_ptr:#x} is not the start of a live device allocation "
                            f"(double free, or a pointer cudaMalloc did not return)")
        self.rt.streams.check_unsafe_call("cudaFree")
        self.rt.streams.synchronize_device()
        self.rt.gmem.free(dev_ptr)
        self.device_allocs.pop(dev_ptr, None)
        self.managed.pop(dev_ptr, None)

    def _host_alloc(self, ptr: int, size: int, what: str) -> None:
        _check_ptr(ptr, f"{what}: ptr")
        self.rt.streams.check_unsafe_call(what)
        if not size:
            abi.write_u64(ptr, 0)
            return
        buf = np.zeros(size + ALLOC_ALIGN, dtype=np.uint8)
        off = (-buf.ctypes.data) % ALLOC_ALIGN
        view = buf[off:off + size]
        base = self.rt.gmem.map_host(view)   # pinned memory is mapped: kernels may use it (UVA)
        self._host_allocs[base] = (buf, view)
        abi.write_u64(ptr, base)

    @api
    def cudaMallocHost(self, ptr: int, size: int) -> None:
        self._host_alloc(ptr, size, "cudaMallocHost")

    @api
    def cudaHostAlloc(self, ptr: int, size: int, flags: int) -> None:
        if flags & ~0x07:   # cudaHostAllocPortable | Mapped | WriteCombined
            raise CudaError(Err.InvalidValue, f"cudaHostAlloc: invalid flags {flags:#x}")
        self._host_alloc(ptr, size, "cudaHostAlloc")

    @api
    def cudaFreeHost(self, ptr: int) -> None:
        if not ptr:
            return
        if ptr not in self._host_allocs:
            raise CudaError(Err.InvalidValue, f"cudaFreeHost: {ptr:#x} was not returned by cudaMallocHost/cudaHostAlloc")
        self.rt.streams.check_unsafe_call("cudaFreeHost")
        self.rt.streams.synchronize_device()
        self.rt.gmem.free(ptr)
        del self._host_allocs[ptr]

    @api
    def cudaHostGetDevicePointer(self, p_device: int, p_host: int, flags: int) -> None:
        _check_ptr(p_device, "cudaHostGetDevicePointer: pDevice")
        if flags != 0:
            raise CudaError(Err.InvalidValue, "cudaHostGetDevicePointer: flags must be 0")
        found = self.rt.gmem.find(p_host) if p_host else None
        if found is None or (found[0] not in self._host_allocs and found[0] not in self._registered):
            raise CudaError(Err.InvalidValue, f"cudaHostGetDevicePointer: {p_host:#x} is not pinned or "
                                              f"registered host memory")
        abi.write_u64(p_device, p_host)

    @api
    def cudaMallocManaged(self, dev_ptr: int, size: int, flags: int) -> None:
        _check_ptr(dev_ptr, "cudaMallocManaged: devPtr")
        if flags not in (1, 2):
            raise CudaError(Err.InvalidValue,
                            f"cudaMallocManaged: flags {flags:#x} must be cudaMemAttachGlobal or cudaMemAttachHost")
        if not size:
            raise CudaError(Err.InvalidValue, "cudaMallocManaged: size is 0")
        self.rt.streams.check_unsafe_call("cudaMallocManaged")
        if size > self.rt.device.total_mem_bytes - self.used_device_bytes():
            raise CudaError(Err.MemoryAllocation, f"cudaMallocManaged: {size} bytes do not fit")
        buf = np.zeros(size + ALLOC_ALIGN, dtype=np.uint8)
        off = (-buf.ctypes.data) % ALLOC_ALIGN
        view = buf[off:off + size]
        base = self.rt.gmem.map_host(view)
        self.managed[base] = buf
        self.device_allocs[base] = size
        abi.write_u64(dev_ptr, base)

    def device_range(self, addr: int, nbytes: int, what: str) -> bool:
        """True if [addr, addr+nbytes) is device-accessible memory; raises if it starts inside
        an allocation but runs past its end."""
        found = self.rt.gmem.find(addr) if addr else None
        if found is None:
            # With unified addressing a pointer is classified by its value: one in the device's
            # address window that no allocation covers is a bad device pointer (freed, or past
            # the end), never host memory to be dereferenced.
            if DEVICE_WINDOW_START <= addr < DEVICE_WINDOW_START + self.rt.device.total_mem_bytes:
                raise CudaError(Err.InvalidValue,
                                f"{what}: {addr:#x} is in the device address range but not inside any live "
                                f"allocation (freed, or out of bounds)")
            return False
        base, size = found
        if addr + nbytes > base + size:
            raise CudaError(Err.InvalidValue,
                            f"{what}: {nbytes} bytes at {addr:#x} run past the end of the allocation "
                            f"[{base:#x}, {base + size:#x})")
        return True

    def _copy_kind(self, dst: int, src: int, count: int, kind: int, what: str) -> int:
        if kind not in (H2H, H2D, D2H, D2D, DEFAULT):
            raise CudaError(Err.InvalidMemcpyDirection, f"{what}: {kind} is not a cudaMemcpyKind")
        if not count:
            return kind
        if not dst or not src:
            raise CudaError(Err.InvalidValue, f"{what}: NULL {'destination' if not dst else 'source'} pointer")
        d_dev = self.device_range(dst, count, f"{what} destination")
        s_dev = self.device_range(src, count, f"{what} source")
        if kind in (H2D, D2D) and not d_dev:
            raise CudaError(Err.InvalidValue, f"{what}: destination {dst:#x} is not device memory")
        if kind in (D2H, D2D) and not s_dev:
            raise CudaError(Err.InvalidValue, f"{what}: source {src:#x} is not device memory")
        return kind

    def memcpy(self, dst: int, src: int, count: int, kind: int, stream: int, sync: bool, what: str) -> None:

        kind = self._copy_kind(dst, src, count, kind, what)
        if not count:
            return
        # The stream manager applies CUDA's blocking rules: an asynchronous copy stages a
        # pageable source and waits only for a pageable destination; a synchronous one waits
        # for its own copy unless it is device to device.
        self.rt.streams.enqueue(stream, MemcpyOp(dst, src, count, kind), sync=sync, what=what)

    @api
    def cudaMemcpy(self, dst: int, src: int, count: int, kind: int) -> None:
        self.memcpy(dst, src, count, kind, 0, True, "cudaMemcpy")

    @api
    def cudaMemcpyAsync(self, dst: int, src: int, count: int, kind: int, stream: int) -> None:
        self.memcpy(dst, src, count, kind, stream, False, "cudaMemcpyAsync")

    @api
    def cudaMemcpy2D(self, dst: int, dpitch: int, src: int, spitch: int, width: int, height: int,
                     kind: int) -> None:

        what = "cudaMemcpy2D"
        if not check_memcpy2d(what, dpitch, spitch, width, height, kind):
            return
        span_d, span_s = dpitch * (height - 1) + width, spitch * (height - 1) + width
        if not dst or not src:
            raise CudaError(Err.InvalidValue, f"{what}: NULL pointer")
        d_dev = self.device_range(dst, span_d, f"{what} destination")
        s_dev = self.device_range(src, span_s, f"{what} source")
        if (kind in (H2D, D2D) and not d_dev) or (kind in (D2H, D2D) and not s_dev):
            raise CudaError(Err.InvalidValue, f"{what}: pointers do not match kind {kind}")
        self.rt.streams.enqueue(0, Memcpy2DOp(dst, dpitch, src, spitch, width, height, kind), sync=True,
                             what=what)

    def _memset(self, ptr: int, value: int, count: int, stream: int, sync: bool, what: str) -> None:

        if not count:
            return
        if not self.device_range(ptr, count, what):
            raise CudaError(Err.InvalidValue, f"{what}: {ptr:#x} is not device memory")
        self.rt.streams.enqueue(stream, MemsetOp(ptr, value, count), sync=sync, what=what)

    @api
    def cudaMemset(self, ptr: int, value: int, count: int) -> None:
        self._memset(ptr, value, count, 0, True, "cudaMemset")

    @api
    def cudaMemsetAsync(self, ptr: int, value: int, count: int, stream: int) -> None:
        self._memset(ptr, value, count, stream, False, "cudaMemsetAsync")

    def _symbol_range(self, symbol: int, count: int, offset: int, what: str) -> int:
        var = self.rt.registry.variable(symbol, what)
        if offset + count > var.size:
            raise CudaError(Err.InvalidValue,
                            f"{what}: {count} bytes at offset {offset} exceed {var.name}'s {var.size} bytes")
        return var.device_address() + offset

    def _to_symbol(self, symbol: int, src: int, count: int, offset: int, kind: int, stream: int, sync: bool,
                   what: str) -> None:
        if kind not in (H2D, D2D, DEFAULT):
            raise CudaError(Err.InvalidMemcpyDirection, f"{what}: kind {kind} (must be HostToDevice, DeviceToDevice or Default)")
        dst = self._symbol_range(symbol, count, offset, what)
        self.memcpy(dst, src, count, kind, stream, sync, what)

    def _from_symbol(self, dst: int, symbol: int, count: int, offset: int, kind: int, stream: int, sync: bool,
                     what: str) -> None:
        if kind not in (D2H, D2D, DEFAULT):
            raise CudaError(Err.InvalidMemcpyDirection, f"{what}: kind {kind} (must be DeviceToHost, DeviceToDevice or Default)")
        src = self._symbol_range(symbol, count, offset, what)
        self.memcpy(dst, src, count, kind, stream, sync, what)

    @api
    def cudaMemcpyToSymbol(self, symbol: int, src: int, count: int, offset: int, kind: int) -> None:
        self._to_symbol(symbol, src, count, offset, kind, 0, True, "cudaMemcpyToSymbol")

    @api
    def cudaMemcpyFromSymbol(self, dst: int, symbol: int, count: int, offset: int, kind: int) -> None:
        self._from_symbol(dst, symbol, count, offset, kind, 0, True, "cudaMemcpyFromSymbol")

    @api
    def cudaMemcpyToSymbolAsync(self, symbol: int, src: int, count: int, offset: int, kind: int,
                                stream: int) -> None:
        self._to_symbol(symbol, src, count, offset, kind, stream, False, "cudaMemcpyToSymbolAsync")

    @api
    def cudaMemcpyFromSymbolAsync(self, dst: int, symbol: int, count: int, offset: int, kind: int,
                                  stream: int) -> None:
        self._from_symbol(dst, symbol, count, offset, kind, stream, False, "cudaMemcpyFromSymbolAsync")

    @api
    def cudaGetSymbolAddress(self, dev_ptr: int, symbol: int) -> None:
        _check_ptr(dev_ptr, "cudaGetSymbolAddress: devPtr")
        abi.write_u64(dev_ptr, self.rt.registry.variable(symbol, "cudaGetSymbolAddress").device_address())

    @api
    def cudaGetSymbolSize(self, size: int, symbol: int) -> None:
        _check_ptr(size, "cudaGetSymbolSize: size")
        abi.write_u64(size, self.rt.registry.variable(symbol, "cudaGetSymbolSize").size)

    @api
    def cudaPointerGetAttributes(self, attrs: int, ptr: int) -> None:
        """Classify ``ptr`` by the allocation containing it (interior pointers included; the
        aliases reported are ``ptr`` itself, every allocation being reachable at the same
        address from host and device under unified addressing):

        * ``cudaMalloc`` memory and module variables: ``cudaMemoryTypeDevice``, device 0,
          ``devicePointer`` = ptr, ``hostPointer`` NULL;
        * ``cudaMallocHost`` / ``cudaHostAlloc`` and ``cudaHostRegister`` memory:
          ``cudaMemoryTypeHost``, device 0, both aliases = ptr;
        * ``cudaMallocManaged``: ``cudaMemoryTypeManaged``, device 0, both aliases = ptr;
        * anything else (pageable host memory, a freed or never allocated device address,
          NULL): ``cudaMemoryTypeUnregistered``, device ``cudaInvalidDeviceId`` (-2), both
          aliases NULL, and the call succeeds (CUDA 11 and later)."""
        _check_ptr(attrs, "cudaPointerGetAttributes: attributes")
        a = abi.CudaPointerAttributes.from_address(attrs)
        ctypes.memset(attrs, 0, ctypes.sizeof(a))
        found = self.rt.gmem.find(ptr) if ptr else None
        if found is None:
            a.type, a.device = MEM_UNREGISTERED, INVALID_DEVICE_ID
            return
        base = found[0]
        if base in self.managed:
            a.type, a.devicePointer, a.hostPointer = MEM_MANAGED, ptr, ptr
        elif base in self._host_allocs or base in self._registered:
            a.type, a.devicePointer, a.hostPointer = MEM_HOST, ptr, ptr
        else:
            a.type, a.devicePointer = MEM_DEVICE, ptr
        a.device = 0

    @api
    def cudaHostRegister(self, ptr: int, size: int, flags: int) -> None:
        """Page-lock existing host memory: it becomes device-accessible at its own address."""
        if not ptr or not size:
            raise CudaError(Err.InvalidValue, "cudaHostRegister: NULL pointer or zero size")
        if flags & ~0x0F:
            raise CudaError(Err.InvalidValue, f"cudaHostRegister: invalid flags {flags:#x}")
        if flags & 0x04:
            raise CudaError(Err.NotSupported, "cudaHostRegister: cudaHostRegisterIoMemory is not simulated")
        if DEVICE_WINDOW_START <= ptr < DEVICE_WINDOW_START + self.rt.device.total_mem_bytes:
            raise CudaError(Err.InvalidValue, f"cudaHostRegister: {ptr:#x} is a device address")
        self.rt.streams.check_unsafe_call("cudaHostRegister")
        if ptr in self._registered or self.rt.gmem.find(ptr) is not None:
            raise ApiError(ERR_HOST_MEM_ALREADY_REGISTERED,
                           f"cudaHostRegister: {ptr:#x} is already registered or device memory")
        view = np.ctypeslib.as_array((ctypes.c_uint8 * size).from_address(ptr))
        base = self.rt.gmem.map_host(view)
        self._registered[base] = (view, flags)

    @api
    def cudaHostUnregister(self, ptr: int) -> None:
        if ptr not in self._registered:
            raise ApiError(ERR_HOST_MEM_NOT_REGISTERED, f"cudaHostUnregister: {ptr:#x} was not registered")
        self.rt.streams.check_unsafe_call("cudaHostUnregister")
        self.rt.streams.synchronize_device()
        self.rt.gmem.free(ptr)
        del self._registered[ptr]

    @api
    def cudaHostGetFlags(self, p_flags: int, p_host: int) -> None:
        _check_ptr(p_flags, "cudaHostGetFlags: pFlags")
        found = self.rt.gmem.find(p_host) if p_host else None
        base = found[0] if found else None
        if base in self._host_allocs:
            abi.write_u32(p_flags, 0x02)   # cudaHostAllocMapped: pinned memory is mapped (UVA)
        elif base in self._registered:
            abi.write_u32(p_flags, self._registered[base][1] | 0x02)
        else:
            raise CudaError(Err.InvalidValue, f"cudaHostGetFlags: {p_host:#x} is not pinned host memory")

    @api
    def cudaMemset2D(self, ptr: int, pitch: int, value: int, width: int, height: int) -> None:

        if width > pitch and height > 1:
            raise CudaError(Err.InvalidValue, f"cudaMemset2D: width {width} exceeds pitch {pitch}")
        if not width or not height:
            return
        if not self.device_range(ptr, pitch * (height - 1) + width, "cudaMemset2D"):
            raise CudaError(Err.InvalidValue, f"cudaMemset2D: {ptr:#x} is not device memory")
        self.rt.streams.enqueue(0, MemsetOp(ptr, value, width, 1, pitch, height), sync=True, what="cudaMemset2D")

    @api
    def cudaMemcpyPeer(self, dst: int, dst_device: int, src: int, src_device: int, count: int) -> None:
        self.rt.device_api._check_device(dst_device, "cudaMemcpyPeer (dstDevice)")
        self.rt.device_api._check_device(src_device, "cudaMemcpyPeer (srcDevice)")
        self.memcpy(dst, src, count, D2D, 0, True, "cudaMemcpyPeer")

    def _managed_range(self, ptr: int, count: int, what: str) -> None:
        found = self.rt.gmem.find(ptr) if ptr else None
        if found is None or (found[0] not in self.managed and found[0] not in self.device_allocs):
            raise CudaError(Err.InvalidValue, f"{what}: {ptr:#x} is not device or managed memory")
        if ptr + count > found[0] + found[1]:
            raise CudaError(Err.InvalidValue, f"{what}: {count} bytes at {ptr:#x} run past the allocation")

    @api
    def cudaStreamAttachMemAsync(self, stream: int, ptr: int, length: int, flags: int) -> None:
        """A placement hint: in the simulator every allocation is visible to every stream."""
        if flags not in (1, 2, 4):
            raise CudaError(Err.InvalidValue, f"cudaStreamAttachMemAsync: invalid flags {flags:#x}")
        self._managed_range(ptr, length, "cudaStreamAttachMemAsync")
        self.rt.streams.get_stream(stream)

    @api
    def gs_mem_prefetch(self, ptr: int, count: int, location: int, flags: int, stream: int) -> None:
        """``cudaMemPrefetchAsync``: validated; migration has no cost in the functional model."""
        loc_type, loc_id = struct.unpack("<ii", abi.read(location, 8))
        if flags:
            raise CudaError(Err.InvalidValue, "cudaMemPrefetchAsync: flags must be 0")
        if loc_type == 1:
            self.rt.device_api._check_device(loc_id, "cudaMemPrefetchAsync")
        elif loc_type not in (2, 3, 4):
            raise CudaError(Err.InvalidValue, f"cudaMemPrefetchAsync: location type {loc_type}")
        self._managed_range(ptr, count, "cudaMemPrefetchAsync")
        self.rt.streams.get_stream(stream)

    @api
    def gs_mem_advise(self, ptr: int, count: int, advice: int, location: int) -> None:
        """``cudaMemAdvise``: a hint, validated and recorded; results never depend on it."""
        loc_type, loc_id = struct.unpack("<ii", abi.read(location, 8))
        if advice not in range(1, 7):
            raise CudaError(Err.InvalidValue, f"cudaMemAdvise: {advice} is not a cudaMemoryAdvise")
        if advice in (3, 5) and loc_type == 1:
            self.rt.device_api._check_device(loc_id, "cudaMemAdvise")
        self._managed_range(ptr, count, "cudaMemAdvise")

    @api
    def gs_malloc3d(self, pitched: int, extent: int) -> None:
        """``cudaMalloc3D``: rows padded to the pitch alignment, ``height * depth`` rows."""
        _check_ptr(pitched, "cudaMalloc3D: pitchedDevPtr")
        self.rt.streams.check_unsafe_call("cudaMalloc3D")
        width, height, depth = struct.unpack("<3Q", abi.read(extent, 24))
        pitch = -(-width // PITCH_ALIGN) * PITCH_ALIGN if width else 0
        size = pitch * height * depth
        ptr = self.device_alloc(size, "cudaMalloc3D") if size else 0
        abi.write(pitched, struct.pack("<4Q", ptr, pitch, width, height))

    def _copy3d_ops(self, what: str, p: int) -> list[Any]:

        _check_ptr(p, f"{what}: p")
        raw = abi.read(p, 160)
        q = struct.unpack_from("<19Q", raw, 0)
        (kind,) = struct.unpack_from("<i", raw, 152)
        src_array, (sx, sy, sz), (sptr, spitch, _sxs, sysz) = q[0], q[1:4], q[4:8]
        dst_array, (dx, dy, dz), (dptr, dpitch, _dxs, dysz) = q[8], q[9:12], q[12:16]
        width, height, depth = q[16:19]
        if src_array or dst_array:
            raise CudaError(Err.NotSupported, f"{what}: CUDA arrays are not simulated (use pitched memory)")
        if kind not in (H2H, H2D, D2H, D2D, DEFAULT):
            raise CudaError(Err.InvalidMemcpyDirection, f"{what}: {kind} is not a cudaMemcpyKind")
        if not width or not height or not depth:
            return []
        if not sptr or not dptr:
            raise CudaError(Err.InvalidValue, f"{what}: NULL srcPtr.ptr or dstPtr.ptr")
        if width + sx > spitch or width + dx > dpitch:
            raise CudaError(Err.InvalidPitchValue,
                            f"{what}: width {width} (+x offset) exceeds a pitch ({spitch}, {dpitch})")
        s_rows, d_rows = sysz or (sy + height), dysz or (dy + height)
        if sy + height > s_rows or dy + height > d_rows:
            raise CudaError(Err.InvalidValue, f"{what}: the copy's rows exceed a pitched pointer's ysize")
        ops = []
        for z in range(depth):
            s0 = sptr + ((sz + z) * s_rows + sy) * spitch + sx
            d0 = dptr + ((dz + z) * d_rows + dy) * dpitch + dx
            self._copy_kind(d0, s0, 1, kind, what)
            self.device_range(s0, spitch * (height - 1) + width, f"{what} source")
            self.device_range(d0, dpitch * (height - 1) + width, f"{what} destination")
            ops.append(Memcpy2DOp(d0, dpitch, s0, spitch, width, height, kind))
        return ops

    @api
    def cudaMemcpy3D(self, p: int) -> None:
        ops = self._copy3d_ops("cudaMemcpy3D", p)
        self.rt.streams.check_unsafe_call("cudaMemcpy3D")     # before any slice is queued
        for i, op in enumerate(ops):   # waiting for the last slice covers the earlier ones
            self.rt.streams.enqueue(0, op, sync=i == len(ops) - 1, what="cudaMemcpy3D")

    @api
    def cudaMemcpy3DAsync(self, p: int, stream: int) -> None:
        for op in self._copy3d_ops("cudaMemcpy3DAsync", p):
            self.rt.streams.enqueue(stream, op)

    @api
    def gs_memset3d(self, pitched: int, value: int, extent: int, stream: int, is_async: int) -> None:

        what = "cudaMemset3DAsync" if is_async else "cudaMemset3D"
        ptr, pitch, _xsize, ysize = struct.unpack("<4Q", abi.read(pitched, 32))
        width, height, depth = struct.unpack("<3Q", abi.read(extent, 24))
        if not width or not height or not depth:
            return
        if width > pitch:
            raise CudaError(Err.InvalidValue, f"{what}: width {width} exceeds pitch {pitch}")
        rows = ysize or height
        last = ptr + ((depth - 1) * rows + height - 1) * pitch
        if not self.device_range(ptr, 1, what) or not self.device_range(last, width, what):
            raise CudaError(Err.InvalidValue, f"{what}: {ptr:#x} is not device memory (or too small)")
        if not is_async:
            self.rt.streams.check_unsafe_call(what)           # before any slice is queued
        for z in range(depth):      # one pitched memset per slice; a sync call waits on the last
            self.rt.streams.enqueue(stream, MemsetOp(ptr + z * rows * pitch, value, width, 1, pitch, height),
                                 sync=not is_async and z == depth - 1, what=what)

    @entry
    def cudaStreamAttachMemAsync_ptsz(self, stream: int, dev_ptr: int, length: int, flags: int) -> int:
        return self.cudaStreamAttachMemAsync.__wrapped__(  # type: ignore[attr-defined]
            self, _ptsz(stream), dev_ptr, length, flags)
