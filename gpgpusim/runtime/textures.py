"""CUDA arrays, texture objects and surface objects (runtime API side).

GPGPU-Sim counterpart: ``cudaMallocArray``/``cudaMemcpy*Array``/``cudaBindTexture*`` of
``libcuda/cuda_runtime_api.cc`` and ``gpgpu_t::gpgpu_ptx_sim_bindTextureToArray``; GPGPU-Sim
knows only texture *references*.  Here: the object API of CUDA 11+ (the only one CUDA 12+ has).

``TextureApi`` is a service of :class:`gpgpusim.runtime.api.Runtime` (:mod:`.service`: every
pointer an int address, every method returns a ``cudaError_t``); it allocates and copies through
the memory service (``rt.memory_api``).

A CUDA array is an ordinary device allocation laid out row-major with ``pitch = width *
element size`` and ``height`` rows per slice (the hardware's block-linear layout is invisible to
programs); its handle (``cudaArray_t``) is an opaque value from :data:`ARRAY_HANDLE_BASE` up.
Texture and surface objects are entries of :data:`gpgpusim.functional.texture.OBJECTS`; their
handles are small integers from 1 up, as the driver returns.

Structure layouts (CUDA 13 ``driver_types.h``/``texture_types.h``, checked with offsetof):
``cudaChannelFormatDesc`` 20 bytes (x, y, z, w, f as int); ``cudaResourceDesc`` 144 bytes
(resType @0, union @8: array.array @8 | linear.devPtr @8, desc @16, sizeInBytes @40 |
pitch2D.devPtr @8, desc @16, width @40, height @48, pitchInBytes @56; flags @136);
``cudaTextureDesc`` 72 bytes (addressMode[3] @0, filterMode @12, readMode @16, sRGB @20,
borderColor[4] @24, normalizedCoords @40, maxAnisotropy @44, mipmapFilterMode @48,
mipmapLevelBias @52, min/maxMipmapLevelClamp @56/@60, disableTrilinearOptimization @64,
seamlessCubemap @68); ``cudaResourceViewDesc`` 112 bytes; ``cudaExtent`` 24 bytes.

Alignment: CUDA documents ``textureAlignment`` (512) for linear and pitch-2D resources, but the
simulated ``cudaMalloc`` guarantees 256, so a base must be 256-byte aligned here (a program that
passes a ``cudaMalloc`` pointer always works, as on hardware).
"""

from __future__ import annotations

import itertools
import struct
import threading
from dataclasses import dataclass

from gpgpusim.device.gpu import Memcpy2DOp, MemcpyKind
from gpgpusim.errors import CudaError, Err
from gpgpusim.functional import texture as T

from . import abi
from .service import Service, entry

ARRAY_HANDLE_BASE = 0x7A0000000000          # cudaArray_t values (opaque to programs)
RES_DESC_BYTES = 144
TEX_DESC_BYTES = 72
VIEW_DESC_BYTES = 112
CHANNEL_DESC_BYTES = 20
TEX_BASE_ALIGN = 256
PITCH_ALIGN = 32                            # texturePitchAlignment

ARRAY_LAYERED, ARRAY_SURFACE_LOAD_STORE, ARRAY_CUBEMAP, ARRAY_TEXTURE_GATHER = 1, 2, 4, 8
_ARRAY_FLAGS = ARRAY_SURFACE_LOAD_STORE | ARRAY_TEXTURE_GATHER

H2H, H2D, D2H, D2D, DEFAULT = (int(k) for k in (MemcpyKind.HostToHost, MemcpyKind.HostToDevice,
                                                MemcpyKind.DeviceToHost, MemcpyKind.DeviceToDevice,
                                                MemcpyKind.Default))


@dataclass(slots=True)
class CudaArray:
    handle: int
    fmt: T.ChannelFormat
    desc_raw: bytes
    width: int
    height: int             # 0 for a 1D array (as cudaArrayGetInfo reports)
    depth: int              # 0 for 1D/2D arrays
    flags: int
    base: int
    pitch: int

    @property
    def rows(self) -> int:
        return max(self.height, 1)

    @property
    def slices(self) -> int:
        return max(self.depth, 1)

    @property
    def dims(self) -> int:
        return 3 if self.depth else 2 if self.height else 1

    @property
    def nbytes(self) -> int:
        return self.pitch * self.rows * self.slices


def _channel(raw: bytes, what: str) -> T.ChannelFormat:
    x, y, z, w, f = struct.unpack("<5i", raw)
    if min(x, y, z, w) < 0:
        raise CudaError(Err.InvalidValue, f"{what}: negative channel size")
    fmt = T.ChannelFormat((x, y, z, w), f)
    fmt.validate(what)
    return fmt


def _need(ptr: int, what: str) -> None:
    if not ptr:
        raise CudaError(Err.InvalidValue, f"{what} is NULL")


class TextureApi(Service):
    """CUDA arrays, texture and surface objects (see the module docstring)."""

    _arrays_lock = threading.Lock()
    _array_ids = itertools.count(1)

    def _arrays(self) -> dict[int, CudaArray]:
        arrs = self.__dict__.get("_cuda_arrays")
        if arrs is None:
            arrs = self.__dict__.setdefault("_cuda_arrays", {})
        return arrs  # type: ignore[no-any-return]

    def _array(self, handle: int, what: str) -> CudaArray:
        arr = self._arrays().get(handle)
        if arr is None:
            raise CudaError(Err.InvalidResourceHandle if handle else Err.InvalidValue,
                            f"{what}: {handle:#x} is not a live CUDA array")
        return arr

    def _malloc_array(self, p_array: int, desc: int, width: int, height: int, depth: int, flags: int,
                      what: str) -> None:
        _need(p_array, f"{what}: array")
        _need(desc, f"{what}: desc")
        raw = abi.read(desc, CHANNEL_DESC_BYTES)
        fmt = _channel(raw, what)
        if flags & ~_ARRAY_FLAGS:
            if flags & (ARRAY_LAYERED | ARRAY_CUBEMAP):
                raise CudaError(Err.NotSupported, f"{what}: layered and cubemap arrays are not simulated")
            raise CudaError(Err.InvalidValue, f"{what}: invalid flags {flags:#x}")
        if not width or (depth and not height):
            raise CudaError(Err.InvalidValue, f"{what}: extent {width}x{height}x{depth} is not a 1D, 2D or 3D array")
        self.rt.streams.check_unsafe_call(what)
        pitch = width * fmt.elem_bytes
        size = pitch * max(height, 1) * max(depth, 1)
        base = self.rt.memory_api.device_alloc(size, what)
        with self._arrays_lock:
            handle = ARRAY_HANDLE_BASE + next(self._array_ids) * 0x100
        self._arrays()[handle] = CudaArray(handle, fmt, raw, width, height, depth, flags, base, pitch)
        abi.write_u64(p_array, handle)

    @entry
    def cudaMallocArray(self, p_array: int, desc: int, width: int, height: int, flags: int) -> None:
        self._malloc_array(p_array, desc, width, height, 0, flags, "cudaMallocArray")

    @entry
    def gs_malloc3d_array(self, p_array: int, desc: int, extent: int, flags: int) -> None:
        """``cudaMalloc3DArray`` (the C wrapper passes the ``cudaExtent`` by pointer)."""
        width, height, depth = struct.unpack("<3Q", abi.read(extent, 24))
        self._malloc_array(p_array, desc, width, height, depth, flags, "cudaMalloc3DArray")

    @entry
    def cudaFreeArray(self, array: int) -> None:
        if not array:
            return
        arr = self._array(array, "cudaFreeArray")
        self.rt.streams.check_unsafe_call("cudaFreeArray")
        self.rt.streams.synchronize_device()
        del self._arrays()[array]
        self.rt.gmem.free(arr.base)
        self.rt.memory_api.device_allocs.pop(arr.base, None)

    @entry
    def cudaGetChannelDesc(self, desc: int, array: int) -> None:
        _need(desc, "cudaGetChannelDesc: desc")
        abi.write(desc, self._array(array, "cudaGetChannelDesc").desc_raw)

    @entry
    def cudaArrayGetInfo(self, desc: int, extent: int, flags: int, array: int) -> None:
        arr = self._array(array, "cudaArrayGetInfo")
        if desc:
            abi.write(desc, arr.desc_raw)
        if extent:
            abi.write(extent, struct.pack("<3Q", arr.width, arr.height, arr.depth))
        if flags:
            abi.write_u32(flags, arr.flags)

    def _array_rect(self, arr: CudaArray, w_off: int, h_off: int, width: int, height: int, what: str) -> int:
        if w_off + width > arr.pitch or h_off + height > arr.rows * arr.slices:
            raise CudaError(Err.InvalidValue,
                            f"{what}: {width} bytes x {height} rows at ({w_off}, {h_off}) exceed the "
                            f"{arr.pitch}-byte x {arr.rows}-row array")
        return arr.base + h_off * arr.pitch + w_off

    def _linear_side(self, addr: int, pitch: int, width: int, height: int, device: bool, what: str) -> None:
        _need(addr, what)
        span = pitch * (height - 1) + width
        is_dev = self.rt.memory_api.device_range(addr, span, what)
        if device and not is_dev:
            raise CudaError(Err.InvalidValue, f"{what}: {addr:#x} is not device memory")

    def _copy_2d_array(self, to_array: bool, arr_h: int, w_off: int, h_off: int, lin: int, lpitch: int,
                       width: int, height: int, kind: int, stream: int, sync: bool, what: str) -> None:
        if kind not in (H2H, H2D, D2H, D2D, DEFAULT):
            raise CudaError(Err.InvalidMemcpyDirection, f"{what}: {kind} is not a cudaMemcpyKind")
        arr = self._array(arr_h, what)
        if width > lpitch:
            raise CudaError(Err.InvalidPitchValue, f"{what}: width {width} exceeds the pitch {lpitch}")
        if not width or not height:
            return
        if to_array and kind in (D2H, H2H) or not to_array and kind in (H2D, H2H):
            raise CudaError(Err.InvalidMemcpyDirection, f"{what}: kind {kind} does not fit a CUDA array "
                                                        f"{'destination' if to_array else 'source'}")
        a = self._array_rect(arr, w_off, h_off, width, height, what)
        self._linear_side(lin, lpitch, width, height, kind == D2D, f"{what} {'source' if to_array else 'destination'}")
        if to_array:
            op = Memcpy2DOp(a, arr.pitch, lin, lpitch, width, height, kind)
        else:
            op = Memcpy2DOp(lin, lpitch, a, arr.pitch, width, height, kind)
        self.rt.streams.enqueue(stream, op, sync=sync, what=what)

    @entry
    def cudaMemcpy2DToArray(self, dst: int, w_off: int, h_off: int, src: int, spitch: int, width: int,
                            height: int, kind: int) -> None:
        self._copy_2d_array(True, dst, w_off, h_off, src, spitch, width, height, kind, 0, True,
                            "cudaMemcpy2DToArray")

    @entry
    def cudaMemcpy2DToArrayAsync(self, dst: int, w_off: int, h_off: int, src: int, spitch: int, width: int,
                                 height: int, kind: int, stream: int) -> None:
        self._copy_2d_array(True, dst, w_off, h_off, src, spitch, width, height, kind, stream, False,
                            "cudaMemcpy2DToArrayAsync")

    @entry
    def cudaMemcpy2DFromArray(self, dst: int, dpitch: int, src: int, w_off: int, h_off: int, width: int,
                              height: int, kind: int) -> None:
        self._copy_2d_array(False, src, w_off, h_off, dst, dpitch, width, height, kind, 0, True,
                            "cudaMemcpy2DFromArray")

    @entry
    def cudaMemcpy2DFromArrayAsync(self, dst: int, dpitch: int, src: int, w_off: int, h_off: int, width: int,
                                   height: int, kind: int, stream: int) -> None:
        self._copy_2d_array(False, src, w_off, h_off, dst, dpitch, width, height, kind, stream, False,
                            "cudaMemcpy2DFromArrayAsync")

    def _copy_1d_array(self, to_array: bool, arr_h: int, w_off: int, h_off: int, lin: int, count: int,
                       kind: int, what: str) -> None:
        arr = self._array(arr_h, what)
        if kind not in (H2H, H2D, D2H, D2D, DEFAULT):
            raise CudaError(Err.InvalidMemcpyDirection, f"{what}: {kind} is not a cudaMemcpyKind")
        if not count:
            return
        if w_off >= arr.pitch and count or h_off >= arr.rows * arr.slices:
            raise CudaError(Err.InvalidValue, f"{what}: offset ({w_off}, {h_off}) is outside the array")
        start = h_off * arr.pitch + w_off
        if start + count > arr.nbytes:
            raise CudaError(Err.InvalidValue, f"{what}: {count} bytes from ({w_off}, {h_off}) run past the "
                                              f"end of the {arr.nbytes}-byte array")
        a = arr.base + start
        dst, src = (a, lin) if to_array else (lin, a)
        self.rt.memory_api.memcpy(dst, src, count, kind, 0, True, what)

    @entry
    def cudaMemcpyToArray(self, dst: int, w_off: int, h_off: int, src: int, count: int, kind: int) -> None:
        self._copy_1d_array(True, dst, w_off, h_off, src, count, kind, "cudaMemcpyToArray")

    @entry
    def cudaMemcpyFromArray(self, dst: int, src: int, w_off: int, h_off: int, count: int, kind: int) -> None:
        self._copy_1d_array(False, src, w_off, h_off, dst, count, kind, "cudaMemcpyFromArray")

    def array_pitched(self, handle: int, what: str) -> tuple[int, int, int, int]:
        """``(base, pitch, rows per slice, element bytes)`` of a CUDA array (cudaMemcpy3D)."""
        arr = self._array(handle, what)
        return arr.base, arr.pitch, arr.rows, arr.fmt.elem_bytes

    def _resource(self, p_res: int, what: str, surface: bool) -> tuple[T.TexObject, bytes]:
        _need(p_res, f"{what}: pResDesc")
        raw = abi.read(p_res, RES_DESC_BYTES)
        (res_type,) = struct.unpack_from("<i", raw, 0)
        (flags,) = struct.unpack_from("<I", raw, 136)
        if flags:
            raise CudaError(Err.InvalidValue, f"{what}: pResDesc->flags must be 0")
        kind = "surf" if surface else "tex"
        if surface and res_type != T.RES_ARRAY:
            raise CudaError(Err.InvalidValue, f"{what}: a surface object needs a CUDA array resource")
        if res_type == T.RES_ARRAY:
            (h,) = struct.unpack_from("<Q", raw, 8)
            arr = self._array(h, what)
            if surface and not arr.flags & ARRAY_SURFACE_LOAD_STORE:
                raise CudaError(Err.InvalidValue, f"{what}: the array was not allocated with "
                                                  f"cudaArraySurfaceLoadStore")
            obj = T.TexObject(kind, res_type, arr.base, arr.fmt, arr.width, arr.rows, arr.slices, arr.dims,
                              arr.pitch, owner=arr)
        elif res_type == T.RES_MIPMAP:
            raise CudaError(Err.NotSupported, f"{what}: mipmapped arrays are not simulated")
        elif res_type == T.RES_LINEAR:
            (ptr,) = struct.unpack_from("<Q", raw, 8)
            fmt = _channel(raw[16:36], what)
            (size,) = struct.unpack_from("<Q", raw, 40)
            self._check_base(ptr, size, what)
            width = size // fmt.elem_bytes
            if not width:
                raise CudaError(Err.InvalidValue, f"{what}: sizeInBytes {size} holds no element")
            obj = T.TexObject(kind, res_type, ptr, fmt, width, 1, 1, 1, width * fmt.elem_bytes)
        elif res_type == T.RES_PITCH2D:
            (ptr,) = struct.unpack_from("<Q", raw, 8)
            fmt = _channel(raw[16:36], what)
            width, height, pitch = struct.unpack_from("<3Q", raw, 40)
            if not width or not height:
                raise CudaError(Err.InvalidValue, f"{what}: pitch2D extent {width}x{height} is empty")
            if pitch % PITCH_ALIGN or width * fmt.elem_bytes > pitch:
                raise CudaError(Err.InvalidValue, f"{what}: pitchInBytes {pitch} is not a multiple of "
                                                  f"{PITCH_ALIGN} at least width x element size")
            self._check_base(ptr, pitch * (height - 1) + width * fmt.elem_bytes, what)
            obj = T.TexObject(kind, res_type, ptr, fmt, width, height, 1, 2, pitch)
        else:
            raise CudaError(Err.InvalidValue, f"{what}: {res_type} is not a cudaResourceType")
        return obj, raw

    def _check_base(self, ptr: int, nbytes: int, what: str) -> None:
        if not ptr:
            raise CudaError(Err.InvalidValue, f"{what}: devPtr is NULL")
        if ptr % TEX_BASE_ALIGN:
            raise CudaError(Err.InvalidValue, f"{what}: devPtr {ptr:#x} is not {TEX_BASE_ALIGN}-byte aligned")
        if not self.rt.memory_api.device_range(ptr, nbytes, what):
            raise CudaError(Err.InvalidValue, f"{what}: devPtr {ptr:#x} is not device memory")

    @entry
    def cudaCreateTextureObject(self, p_tex: int, p_res: int, p_tex_desc: int, p_view: int) -> None:
        what = "cudaCreateTextureObject"
        _need(p_tex, f"{what}: pTexObject")
        _need(p_tex_desc, f"{what}: pTexDesc")
        obj, raw = self._resource(p_res, what, False)
        td = abi.read(p_tex_desc, TEX_DESC_BYTES)
        modes = struct.unpack_from("<3i", td, 0)
        filt, read_mode, srgb = struct.unpack_from("<3i", td, 12)
        border = struct.unpack_from("<4f", td, 24)
        (norm,) = struct.unpack_from("<i", td, 40)
        if any(m not in (T.ADDR_WRAP, T.ADDR_CLAMP, T.ADDR_MIRROR, T.ADDR_BORDER) for m in modes):
            raise CudaError(Err.InvalidValue, f"{what}: address modes {modes} are not cudaTextureAddressMode")
        if filt not in (0, 1) or read_mode not in (0, 1):
            raise CudaError(Err.InvalidValue, f"{what}: filterMode {filt} / readMode {read_mode} is invalid")
        fmt = obj.fmt
        if read_mode == 1 and fmt.kind != T.KIND_FLOAT and fmt.chan_bytes == 4:
            raise CudaError(Err.InvalidValue, f"{what}: cudaReadModeNormalizedFloat needs an 8- or 16-bit "
                                              f"integer format")
        if filt == 1 and fmt.kind != T.KIND_FLOAT and read_mode == 0 and obj.res_type != T.RES_LINEAR:
            raise CudaError(Err.InvalidValue, f"{what}: cudaFilterModeLinear needs a float format or "
                                              f"cudaReadModeNormalizedFloat")
        if srgb:
            raise CudaError(Err.NotSupported, f"{what}: sRGB conversion is not simulated")
        if p_view:
            view = abi.read(p_view, VIEW_DESC_BYTES)
            if any(view):
                raise CudaError(Err.NotSupported, f"{what}: resource views are not simulated")
        obj.address_mode = (modes[0], modes[1], modes[2])
        obj.linear_filter = bool(filt) and obj.res_type != T.RES_LINEAR
        obj.normalized_coords = bool(norm) and obj.res_type != T.RES_LINEAR
        obj.read_normalized = bool(read_mode)
        obj.border = (border[0], border[1], border[2], border[3])
        obj.res_desc, obj.tex_desc = raw, td
        abi.write_u64(p_tex, T.register(obj))

    @entry
    def cudaDestroyTextureObject(self, tex: int) -> None:
        if tex:
            T.unregister(tex, "tex")

    @entry
    def cudaGetTextureObjectResourceDesc(self, p_res: int, tex: int) -> None:
        _need(p_res, "cudaGetTextureObjectResourceDesc: pResDesc")
        abi.write(p_res, self._object(tex, "tex", "cudaGetTextureObjectResourceDesc").res_desc)

    @entry
    def cudaGetTextureObjectTextureDesc(self, p_desc: int, tex: int) -> None:
        _need(p_desc, "cudaGetTextureObjectTextureDesc: pTexDesc")
        abi.write(p_desc, self._object(tex, "tex", "cudaGetTextureObjectTextureDesc").tex_desc)

    @entry
    def cudaCreateSurfaceObject(self, p_surf: int, p_res: int) -> None:
        what = "cudaCreateSurfaceObject"
        _need(p_surf, f"{what}: pSurfObject")
        obj, raw = self._resource(p_res, what, True)
        obj.res_desc = raw
        abi.write_u64(p_surf, T.register(obj))

    @entry
    def cudaDestroySurfaceObject(self, surf: int) -> None:
        if surf:
            T.unregister(surf, "surf")

    @entry
    def cudaGetSurfaceObjectResourceDesc(self, p_res: int, surf: int) -> None:
        _need(p_res, "cudaGetSurfaceObjectResourceDesc: pResDesc")
        abi.write(p_res, self._object(surf, "surf", "cudaGetSurfaceObjectResourceDesc").res_desc)

    @staticmethod
    def _object(handle: int, kind: str, what: str) -> T.TexObject:
        obj = T.OBJECTS.get(handle)
        if obj is None or obj.kind != kind:
            raise CudaError(Err.InvalidValue, f"{what}: {handle:#x} is not a live "
                                              f"{'texture' if kind == 'tex' else 'surface'} object")
        return obj
