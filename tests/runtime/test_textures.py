"""CUDA arrays, texture objects and surface objects through the runtime API
(gpgpusim.runtime.textures): argument checks, exact error codes, descriptor round trips and
array copies.  Structure layouts are CUDA 13's (see the module doc of runtime/textures.py)."""

from __future__ import annotations

import ctypes
import struct

import numpy as np

from gpgpusim.errors import Err
from gpgpusim.functional import texture as T

u64 = ctypes.c_uint64


def addr(obj) -> int:
    return ctypes.addressof(obj)


def chan(x=32, y=0, z=0, w=0, f=2):
    return ctypes.create_string_buffer(struct.pack("<5i", x, y, z, w, f), 20)


def extent(w, h, d):
    return ctypes.create_string_buffer(struct.pack("<3Q", w, h, d), 24)


def res_array(handle):
    b = bytearray(144)
    struct.pack_into("<iQ", b, 0, 0, 0)
    struct.pack_into("<Q", b, 8, handle)
    return ctypes.create_string_buffer(bytes(b), 144)


def res_linear(ptr, size, c=(32, 0, 0, 0, 2)):
    b = bytearray(144)
    struct.pack_into("<i", b, 0, 2)
    struct.pack_into("<Q5i", b, 8, ptr, *c)
    struct.pack_into("<Q", b, 40, size)
    return ctypes.create_string_buffer(bytes(b), 144)


def res_pitch2d(ptr, w, h, pitch, c=(32, 0, 0, 0, 2)):
    b = bytearray(144)
    struct.pack_into("<i", b, 0, 3)
    struct.pack_into("<Q5i", b, 8, ptr, *c)
    struct.pack_into("<3Q", b, 40, w, h, pitch)
    return ctypes.create_string_buffer(bytes(b), 144)


def tex_desc(modes=(1, 1, 1), filt=0, read=0, norm=0, border=(0.0, 0.0, 0.0, 0.0)):
    b = bytearray(72)
    struct.pack_into("<3i3i4fi", b, 0, *modes, filt, read, 0, *border, norm)
    return ctypes.create_string_buffer(bytes(b), 72)


def malloc_array(rt, w, h, flags=0, c=None):
    a = u64()
    assert rt.cudaMallocArray(addr(a), addr(c or chan()), w, h, flags) == 0
    return a.value


def test_malloc_array_arguments(rt):
    a = u64()
    c = chan()
    assert rt.cudaMallocArray(0, addr(c), 4, 4, 0) == Err.InvalidValue
    assert rt.cudaMallocArray(addr(a), 0, 4, 4, 0) == Err.InvalidValue
    assert rt.cudaMallocArray(addr(a), addr(c), 0, 4, 0) == Err.InvalidValue
    assert rt.cudaMallocArray(addr(a), addr(chan(24)), 4, 4, 0) == Err.InvalidValue   # not 8/16/32
    assert rt.cudaMallocArray(addr(a), addr(chan(32, 32, 32, 0)), 4, 4, 0) == Err.InvalidValue  # 3 channels
    assert rt.cudaMallocArray(addr(a), addr(c), 4, 4, 0x10) == Err.InvalidValue
    assert rt.cudaGetLastError() == Err.InvalidValue
    used = rt.memory_api.used_device_bytes()
    assert rt.cudaMallocArray(addr(a), addr(c), 16, 8, 0) == 0 and a.value
    assert rt.memory_api.used_device_bytes() == used + 16 * 8 * 4
    d, e, f = chan(0), extent(0, 0, 0), ctypes.c_uint32(99)
    assert rt.cudaArrayGetInfo(addr(d), addr(e), addr(f), a.value) == 0
    assert struct.unpack("<5i", d.raw) == (32, 0, 0, 0, 2)
    assert struct.unpack("<3Q", e.raw) == (16, 8, 0) and f.value == 0
    assert rt.cudaGetChannelDesc(addr(d), a.value) == 0
    assert rt.cudaFreeArray(a.value) == 0
    assert rt.memory_api.used_device_bytes() == used
    assert rt.cudaFreeArray(a.value) == Err.InvalidResourceHandle        # double free
    assert rt.cudaFreeArray(0) == 0


def test_malloc3d_array(rt):
    a = u64()
    c = chan(16, 16, 16, 16, 1)
    assert rt.gs_malloc3d_array(addr(a), addr(c), addr(extent(5, 4, 3)), 0) == 0
    e = extent(0, 0, 0)
    assert rt.cudaArrayGetInfo(0, addr(e), 0, a.value) == 0
    assert struct.unpack("<3Q", e.raw) == (5, 4, 3)
    assert rt.gs_malloc3d_array(addr(a), addr(c), addr(extent(5, 0, 3)), 0) == Err.InvalidValue
    assert rt.gs_malloc3d_array(addr(a), addr(c), addr(extent(5, 4, 3)), 1) == Err.NotSupported  # layered


def test_memcpy_2d_to_and_from_array(rt):
    arr = malloc_array(rt, 6, 5)
    src = np.arange(30, dtype=np.float32).reshape(5, 6)
    assert rt.cudaMemcpy2DToArray(arr, 0, 0, src.ctypes.data, 24, 24, 5, 1) == 0
    out = np.zeros((5, 6), np.float32)
    assert rt.cudaMemcpy2DFromArray(out.ctypes.data, 24, arr, 0, 0, 24, 5, 2) == 0
    assert (out == src).all()
    # a sub-rectangle: wOffset in bytes, hOffset in rows
    sub = np.full((2, 3), -1.0, np.float32)
    assert rt.cudaMemcpy2DToArray(arr, 8, 1, sub.ctypes.data, 12, 12, 2, 1) == 0
    assert rt.cudaMemcpy2DFromArray(out.ctypes.data, 24, arr, 0, 0, 24, 5, 2) == 0
    want = src.copy()
    want[1:3, 2:5] = -1
    assert (out == want).all()
    # 1-D style copies (row-major across rows)
    line = np.arange(7, dtype=np.float32) + 100
    assert rt.cudaMemcpyToArray(arr, 16, 3, line.ctypes.data, 28, 1) == 0
    back = np.zeros(7, np.float32)
    assert rt.cudaMemcpyFromArray(back.ctypes.data, arr, 16, 3, 28, 2) == 0
    assert (back == line).all()
    # errors
    assert rt.cudaMemcpy2DToArray(arr, 4, 0, src.ctypes.data, 24, 24, 5, 1) == Err.InvalidValue   # too wide
    assert rt.cudaMemcpy2DToArray(arr, 0, 1, src.ctypes.data, 24, 24, 5, 1) == Err.InvalidValue   # too tall
    assert rt.cudaMemcpy2DToArray(arr, 0, 0, src.ctypes.data, 20, 24, 5, 1) == Err.InvalidPitchValue
    assert rt.cudaMemcpy2DToArray(arr, 0, 0, src.ctypes.data, 24, 24, 5, 2) == Err.InvalidMemcpyDirection
    assert rt.cudaMemcpy2DFromArray(out.ctypes.data, 24, arr, 0, 0, 24, 5, 1) == Err.InvalidMemcpyDirection
    assert rt.cudaMemcpy2DToArray(0xDEAD00, 0, 0, src.ctypes.data, 24, 24, 5, 1) == Err.InvalidResourceHandle
    assert rt.cudaMemcpyToArray(arr, 0, 4, line.ctypes.data, 28, 1) == Err.InvalidValue           # past the end
    assert rt.cudaMemcpy2DToArray(arr, 0, 0, src.ctypes.data, 24, 24, 5, 7) == Err.InvalidMemcpyDirection


def test_texture_object_array_round_trip(rt):
    arr = malloc_array(rt, 4, 4)
    t = u64()
    rd, td = res_array(arr), tex_desc(modes=(0, 2, 3), filt=1, norm=1, border=(1.0, 2.0, 3.0, 4.0))
    assert rt.cudaCreateTextureObject(addr(t), addr(rd), addr(td), 0) == 0 and t.value
    obj = T.OBJECTS[t.value]
    assert obj.kind == "tex" and obj.address_mode == (0, 2, 3) and obj.linear_filter and obj.normalized_coords
    assert obj.border == (1.0, 2.0, 3.0, 4.0) and obj.width == 4 and obj.height == 4
    back = ctypes.create_string_buffer(144)
    assert rt.cudaGetTextureObjectResourceDesc(addr(back), t.value) == 0 and back.raw == rd.raw
    tback = ctypes.create_string_buffer(72)
    assert rt.cudaGetTextureObjectTextureDesc(addr(tback), t.value) == 0 and tback.raw == td.raw
    assert rt.cudaDestroyTextureObject(t.value) == 0
    assert t.value not in T.OBJECTS
    assert rt.cudaDestroyTextureObject(t.value) == Err.InvalidValue
    assert rt.cudaGetTextureObjectResourceDesc(addr(back), t.value) == Err.InvalidValue
    assert rt.cudaDestroyTextureObject(0) == 0


def test_texture_object_arguments(rt):
    arr = malloc_array(rt, 4, 4)
    t = u64()
    rd, td = res_array(arr), tex_desc()
    assert rt.cudaCreateTextureObject(0, addr(rd), addr(td), 0) == Err.InvalidValue
    assert rt.cudaCreateTextureObject(addr(t), 0, addr(td), 0) == Err.InvalidValue
    assert rt.cudaCreateTextureObject(addr(t), addr(rd), 0, 0) == Err.InvalidValue
    assert rt.cudaCreateTextureObject(addr(t), addr(res_array(0xDEAD00)), addr(td), 0) == Err.InvalidResourceHandle
    assert rt.cudaCreateTextureObject(addr(t), addr(rd), addr(tex_desc(modes=(4, 1, 1))), 0) == Err.InvalidValue
    assert rt.cudaCreateTextureObject(addr(t), addr(rd), addr(tex_desc(filt=2)), 0) == Err.InvalidValue
    bad = ctypes.create_string_buffer(rd.raw[:136] + struct.pack("<I", 1) + bytes(4), 144)   # flags != 0
    assert rt.cudaCreateTextureObject(addr(t), addr(bad), addr(td), 0) == Err.InvalidValue
    mip = ctypes.create_string_buffer(struct.pack("<i", 1) + bytes(140), 144)
    assert rt.cudaCreateTextureObject(addr(t), addr(mip), addr(td), 0) == Err.NotSupported
    # integer formats: normalised float only for 8/16 bits, linear filtering only when read as float
    ia = malloc_array(rt, 4, 4, c=chan(32, 0, 0, 0, 0))
    assert rt.cudaCreateTextureObject(addr(t), addr(res_array(ia)), addr(tex_desc(read=1)), 0) == Err.InvalidValue
    assert rt.cudaCreateTextureObject(addr(t), addr(res_array(ia)), addr(tex_desc(filt=1)), 0) == Err.InvalidValue
    ba = malloc_array(rt, 4, 4, c=chan(8, 0, 0, 0, 1))
    assert rt.cudaCreateTextureObject(addr(t), addr(res_array(ba)), addr(tex_desc(filt=1, read=1)), 0) == 0
    assert rt.cudaDestroyTextureObject(t.value) == 0


def test_texture_object_linear_and_pitch2d(rt):
    p = u64()
    assert rt.cudaMalloc(addr(p), 4096) == 0
    t = u64()
    assert rt.cudaCreateTextureObject(addr(t), addr(res_linear(p.value, 400)), addr(tex_desc()), 0) == 0
    obj = T.OBJECTS[t.value]
    assert obj.res_type == T.RES_LINEAR and obj.width == 100 and obj.base == p.value
    assert rt.cudaDestroyTextureObject(t.value) == 0
    assert rt.cudaCreateTextureObject(addr(t), addr(res_linear(0, 400)), addr(tex_desc()), 0) == Err.InvalidValue
    assert rt.cudaCreateTextureObject(addr(t), addr(res_linear(p.value + 4, 400)), addr(tex_desc()), 0) \
        == Err.InvalidValue                                               # misaligned base
    assert rt.cudaCreateTextureObject(addr(t), addr(res_linear(p.value, 8192)), addr(tex_desc()), 0) \
        == Err.InvalidValue                                               # past the allocation
    assert rt.cudaCreateTextureObject(addr(t), addr(res_pitch2d(p.value, 10, 8, 64)), addr(tex_desc()), 0) == 0
    obj = T.OBJECTS[t.value]
    assert (obj.width, obj.height, obj.pitch) == (10, 8, 64)
    assert rt.cudaDestroyTextureObject(t.value) == 0
    assert rt.cudaCreateTextureObject(addr(t), addr(res_pitch2d(p.value, 10, 8, 48)), addr(tex_desc()), 0) \
        == Err.InvalidValue                                               # pitch not a multiple of 32
    assert rt.cudaCreateTextureObject(addr(t), addr(res_pitch2d(p.value, 20, 8, 64)), addr(tex_desc()), 0) \
        == Err.InvalidValue                                               # width x 4 > pitch


def test_surface_objects(rt):
    arr = malloc_array(rt, 8, 4, flags=2)            # cudaArraySurfaceLoadStore
    plain = malloc_array(rt, 8, 4)
    s = u64()
    assert rt.cudaCreateSurfaceObject(addr(s), addr(res_array(arr))) == 0 and s.value
    assert T.OBJECTS[s.value].kind == "surf"
    back = ctypes.create_string_buffer(144)
    assert rt.cudaGetSurfaceObjectResourceDesc(addr(back), s.value) == 0
    assert struct.unpack_from("<Q", back.raw, 8)[0] == arr
    # a texture handle is not a surface handle and the other way round
    assert rt.cudaDestroyTextureObject(s.value) == Err.InvalidValue
    assert rt.cudaDestroySurfaceObject(s.value) == 0
    assert rt.cudaDestroySurfaceObject(s.value) == Err.InvalidValue
    assert rt.cudaCreateSurfaceObject(addr(s), addr(res_array(plain))) == Err.InvalidValue
    p = u64()
    assert rt.cudaMalloc(addr(p), 1024) == 0
    assert rt.cudaCreateSurfaceObject(addr(s), addr(res_linear(p.value, 1024))) == Err.InvalidValue
    assert rt.cudaCreateSurfaceObject(0, addr(res_array(arr))) == Err.InvalidValue


def test_free_array_with_live_texture_keeps_handles_distinct(rt):
    a1, a2 = malloc_array(rt, 2, 2), malloc_array(rt, 2, 2)
    assert a1 != a2
    t1, t2 = u64(), u64()
    assert rt.cudaCreateTextureObject(addr(t1), addr(res_array(a1)), addr(tex_desc()), 0) == 0
    assert rt.cudaCreateTextureObject(addr(t2), addr(res_array(a2)), addr(tex_desc()), 0) == 0
    assert t1.value != t2.value
    for h in (t1.value, t2.value):
        assert rt.cudaDestroyTextureObject(h) == 0
