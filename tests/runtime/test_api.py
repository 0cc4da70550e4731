"""CUDA runtime API semantics at the Python level: valid and wrong arguments, exact cudaError_t.

sample_kernels.ptx is ``nvcc -ptx`` (CUDA 13) of::

    struct S { double d; int i; };
    __device__ int dev_counter = 7;
    __constant__ float coeffs[4];
    __global__ void kern(float *out, int n, S s) {...}
    __global__ void smem_kern(int *out) { __shared__ int buf[1024]; ... }
"""

from __future__ import annotations

import ctypes
import struct

import numpy as np

from gpgpusim.errors import CudaError, Err
from gpgpusim.runtime import abi
from gpgpusim.runtime.device_api import ERR_UNSUPPORTED_LIMIT

KERN = "_Z4kernPfi1S"


def addr(obj) -> int:
    return ctypes.addressof(obj)


u64 = ctypes.c_uint64
i32 = ctypes.c_int32


def malloc(rt, n: int) -> int:
    p = u64()
    assert rt.cudaMalloc(addr(p), n) == 0
    return p.value


def dim3(x, y=1, z=1):
    return (ctypes.c_uint32 * 3)(x, y, z)


def launch(rt, stub, grid, block, args, shmem=0, stream=0, via_handle=1):
    g, b = dim3(*grid), dim3(*block)   # kept alive for the call
    return rt.gs_launch_kernel(via_handle, stub, addr(g), addr(b), args, shmem, stream)


def kern_args(out_ptr: int, n: int, d: float, i: int):
    """void *args[3] for kern(float*, int, S) plus the storage they point to."""
    p_out = u64(out_ptr)
    p_n = i32(n)
    s = ctypes.create_string_buffer(struct.pack("<dixxxx", d, i), 16)
    arr = (ctypes.c_void_p * 3)(addr(p_out), addr(p_n), addr(s))
    return arr, (p_out, p_n, s)


# ------------------------------------------------------------------------------ errors
def test_error_strings_and_names(rt):
    s = ctypes.string_at(rt.gs_error_string(0)).decode()
    assert s == "no error"
    assert ctypes.string_at(rt.gs_error_string(1)).decode() == "invalid argument"
    assert ctypes.string_at(rt.gs_error_name(801)).decode() == "cudaErrorNotSupported"
    assert ctypes.string_at(rt.gs_error_name(700)).decode() == "cudaErrorIllegalAddress"
    assert ctypes.string_at(rt.gs_error_string(12345)).decode() == "unrecognized error code"
    # the same code returns the same persistent C string
    assert rt.gs_error_string(2) == rt.gs_error_string(2)


def test_last_error_reset_and_peek(rt, capsys):
    assert rt.cudaGetLastError() == 0
    assert rt.cudaSetDevice(3) == Err.InvalidDevice
    assert "cudaErrorInvalidDevice" in capsys.readouterr().err
    assert rt.cudaPeekAtLastError() == Err.InvalidDevice
    assert rt.cudaPeekAtLastError() == Err.InvalidDevice
    assert rt.cudaGetLastError() == Err.InvalidDevice
    assert rt.cudaGetLastError() == 0
    assert rt.cudaPeekAtLastError() == 0


def test_not_supported_entry_point(rt, capsys):
    name = ctypes.create_string_buffer(b"cudaGraphCreate")
    assert rt.gs_not_supported(addr(name)) == 801
    assert rt.cudaGetLastError() == 801
    err = capsys.readouterr().err
    assert "cudaGraphCreate() is not supported by gpgpusim" in err


# ------------------------------------------------------------------------------ device
def test_device_queries(rt):
    n, d = i32(), i32()
    assert rt.cudaGetDeviceCount(addr(n)) == 0 and n.value == 1
    assert rt.cudaGetDeviceCount(0) == Err.InvalidValue
    assert rt.cudaGetDevice(addr(d)) == 0 and d.value == 0
    assert rt.cudaGetDevice(0) == Err.InvalidValue
    assert rt.cudaSetDevice(0) == 0
    assert rt.cudaSetDevice(1) == Err.InvalidDevice
    assert rt.cudaSetDevice(-1) == Err.InvalidDevice
    v = i32()
    assert rt.cudaDriverGetVersion(addr(v)) == 0 and v.value == 13000
    assert rt.cudaRuntimeGetVersion(addr(v)) == 0 and v.value == 13000
    assert rt.cudaDriverGetVersion(0) == Err.InvalidValue
    assert rt.cudaRuntimeGetVersion(0) == Err.InvalidValue


def test_device_properties_from_config(rt):
    p = abi.CudaDeviceProp()
    assert ctypes.sizeof(p) == 1008   # CUDA 13 sizeof(cudaDeviceProp)
    assert rt.cudaGetDeviceProperties(addr(p), 0) == 0
    assert p.name.decode() == "GPGPU-Sim SM7_QV100"
    assert p.multiProcessorCount == 80
    assert p.warpSize == 32
    assert p.maxThreadsPerMultiProcessor == 2048
    assert p.regsPerMultiprocessor == 65536
    assert p.sharedMemPerMultiprocessor == 98304
    assert p.sharedMemPerBlockOptin == 98304      # a V100 block may opt in to 96 KiB
    assert p.sharedMemPerBlock == 49152
    assert p.l2CacheSize == 32 * 128 * 24 * 32 * 2
    assert p.memoryBusWidth == 4096
    assert (p.major, p.minor) == (7, 0)
    assert p.maxBlocksPerMultiProcessor == 32
    assert list(p.maxThreadsDim) == [1024, 1024, 64]
    assert rt.cudaGetDeviceProperties(0, 0) == Err.InvalidValue
    assert rt.cudaGetDeviceProperties(addr(p), 1) == Err.InvalidDevice


def test_device_attributes(rt):
    v = i32()
    expect = {16: 80, 10: 32, 13: 1132000, 36: 850000, 75: 7, 76: 0, 39: 2048, 82: 65536, 37: 4096,
              1: 1024, 97: 98304, 106: 32}
    for attr, value in expect.items():
        assert rt.cudaDeviceGetAttribute(addr(v), attr, 0) == 0
        assert v.value == value, attr
    assert rt.cudaDeviceGetAttribute(addr(v), 16, 1) == Err.InvalidDevice
    assert rt.cudaDeviceGetAttribute(0, 16, 0) == Err.InvalidValue
    assert rt.cudaDeviceGetAttribute(addr(v), 9999, 0) == Err.InvalidValue


def test_limits_and_flags(rt):
    v = u64()
    assert rt.cudaDeviceGetLimit(addr(v), 2) == 0 and v.value == 8 << 20
    assert rt.cudaDeviceSetLimit(2, 1 << 24) == 0
    assert rt.cudaDeviceGetLimit(addr(v), 2) == 0 and v.value == 1 << 24
    assert rt.cudaDeviceSetLimit(77, 1) == ERR_UNSUPPORTED_LIMIT
    assert rt.cudaDeviceGetLimit(addr(v), 77) == ERR_UNSUPPORTED_LIMIT
    assert rt.cudaDeviceGetLimit(0, 2) == Err.InvalidValue
    f = ctypes.c_uint32()
    assert rt.cudaSetDeviceFlags(4) == 0
    assert rt.cudaGetDeviceFlags(addr(f)) == 0 and f.value == 4 | 8
    assert rt.cudaSetDeviceFlags(3) == Err.InvalidValue
    assert rt.cudaSetDeviceFlags(0x100) == Err.InvalidValue


def test_mem_get_info_tracks_allocations(rt):
    free, total = u64(), u64()
    assert rt.cudaMemGetInfo(addr(free), addr(total)) == 0
    f0 = free.value
    assert total.value == 32 << 30        # the Quadro GV100 that SM7_QV100 models
    p = malloc(rt, 1 << 20)
    assert rt.cudaMemGetInfo(addr(free), addr(total)) == 0
    assert free.value == f0 - (1 << 20)
    assert rt.cudaFree(p) == 0
    assert rt.cudaMemGetInfo(addr(free), addr(total)) == 0 and free.value == f0
    assert rt.cudaMemGetInfo(0, addr(total)) == Err.InvalidValue


# ------------------------------------------------------------------------------ memory
def test_malloc_free(rt):
    a, b = malloc(rt, 100), malloc(rt, 1)
    assert a % 256 == 0 and b % 256 == 0 and a != b
    assert rt.cudaMalloc(0, 16) == Err.InvalidValue
    z = u64(123)
    assert rt.cudaMalloc(addr(z), 0) == 0 and z.value == 0
    assert rt.cudaMalloc(addr(z), 1 << 40) == Err.MemoryAllocation
    assert rt.cudaFree(a) == 0
    assert rt.cudaFree(a) == Err.InvalidValue          # double free
    assert rt.cudaFree(b + 4) == Err.InvalidValue      # not an allocation start
    assert rt.cudaFree(0x1234) == Err.InvalidValue     # foreign pointer
    assert rt.cudaFree(0) == 0


def test_memcpy_all_kinds(rt):
    n = 64
    src = np.arange(n, dtype=np.uint8)
    dst = np.zeros(n, dtype=np.uint8)
    d1, d2 = malloc(rt, n), malloc(rt, n)
    assert rt.cudaMemcpy(d1, src.ctypes.data, n, 1) == 0
    assert rt.cudaMemcpy(d2, d1, n, 3) == 0
    assert rt.cudaMemcpy(dst.ctypes.data, d2, n, 2) == 0
    assert (dst == src).all()
    dst[:] = 0
    assert rt.cudaMemcpy(dst.ctypes.data, src.ctypes.data, n, 0) == 0
    assert (dst == src).all()
    # cudaMemcpyDefault infers the direction from the pointers
    dst[:] = 0
    assert rt.cudaMemcpy(d1, (src[::-1].copy()).ctypes.data, n, 4) == 0
    assert rt.cudaMemcpy(dst.ctypes.data, d1, n, 4) == 0
    assert (dst == src[::-1]).all()


def test_memcpy_errors(rt):
    n = 64
    host = np.zeros(n, dtype=np.uint8)
    d = malloc(rt, n)
    assert rt.cudaMemcpy(d, host.ctypes.data, n, 7) == Err.InvalidMemcpyDirection
    assert rt.cudaMemcpy(host.ctypes.data, host.ctypes.data, n, 1) == Err.InvalidValue  # dst not device
    assert rt.cudaMemcpy(host.ctypes.data, host.ctypes.data, n, 2) == Err.InvalidValue  # src not device
    assert rt.cudaMemcpy(d, host.ctypes.data, n + 1, 1) == Err.InvalidValue            # past the end
    assert rt.cudaMemcpy(0, host.ctypes.data, n, 1) == Err.InvalidValue
    assert rt.cudaMemcpy(d, host.ctypes.data, 0, 1) == 0


def test_device_window_pointers_are_never_host_memory(rt):
    host = np.zeros(16, dtype=np.uint8)
    d = malloc(rt, 16)
    assert rt.cudaFree(d) == 0
    assert rt.cudaMemcpy(d, host.ctypes.data, 16, 4) == Err.InvalidValue        # use after free
    assert rt.cudaMemcpy(host.ctypes.data, d, 16, 4) == Err.InvalidValue
    assert rt.cudaMemcpy(d, host.ctypes.data, 16, 0) == Err.InvalidValue        # even "host to host"
    assert rt.cudaMemset(d, 0, 16) == Err.InvalidValue


def test_memset_and_2d(rt):
    w, h, pitch = 10, 3, u64()
    dp = u64()
    assert rt.cudaMallocPitch(addr(dp), addr(pitch), w, h) == 0
    assert pitch.value == 512 and dp.value % 256 == 0
    assert rt.cudaMemset(dp.value, 0xAB, pitch.value * h) == 0
    out = np.zeros(pitch.value * h, dtype=np.uint8)
    assert rt.cudaMemcpy(out.ctypes.data, dp.value, out.size, 2) == 0
    assert (out == 0xAB).all()
    host = np.arange(w * h, dtype=np.uint8)
    assert rt.cudaMemcpy2D(dp.value, pitch.value, host.ctypes.data, w, w, h, 1) == 0
    back = np.zeros(w * h, dtype=np.uint8)
    assert rt.cudaMemcpy2D(back.ctypes.data, w, dp.value, pitch.value, w, h, 2) == 0
    assert (back == host).all()
    assert rt.cudaMemcpy2D(dp.value, 4, host.ctypes.data, w, w, h, 1) == Err.InvalidPitchValue
    assert rt.cudaMemcpy2D(dp.value, pitch.value, host.ctypes.data, w, w, h, 9) == Err.InvalidMemcpyDirection
    assert rt.cudaMemset(0x999, 0, 4) == Err.InvalidValue
    assert rt.cudaMallocPitch(0, addr(pitch), w, h) == Err.InvalidValue


def test_pinned_and_managed(rt):
    p = u64()
    assert rt.cudaMallocHost(addr(p), 4096) == 0 and p.value % 256 == 0
    ctypes.memset(p.value, 7, 4096)   # host can write it directly
    d = malloc(rt, 4096)
    assert rt.cudaMemcpy(d, p.value, 4096, 1) == 0
    out = np.zeros(4096, np.uint8)
    assert rt.cudaMemcpy(out.ctypes.data, d, 4096, 2) == 0 and (out == 7).all()
    attrs = abi.CudaPointerAttributes()
    assert rt.cudaPointerGetAttributes(addr(attrs), p.value) == 0 and attrs.type == 1
    dev = u64()
    assert rt.cudaHostGetDevicePointer(addr(dev), p.value, 0) == 0 and dev.value == p.value
    assert rt.cudaFree(p.value) == Err.InvalidValue
    assert rt.cudaFreeHost(p.value) == 0
    assert rt.cudaFreeHost(p.value) == Err.InvalidValue
    assert rt.cudaHostAlloc(addr(p), 64, 0x100) == Err.InvalidValue
    # managed: the host reads and writes the same address the device uses
    m = u64()
    assert rt.cudaMallocManaged(addr(m), 256, 1) == 0
    ctypes.memset(m.value, 3, 256)
    assert rt.cudaMemset(m.value, 9, 128) == 0
    assert ctypes.string_at(m.value, 256) == b"\x09" * 128 + b"\x03" * 128
    assert rt.cudaPointerGetAttributes(addr(attrs), m.value) == 0 and attrs.type == 3
    assert rt.cudaPointerGetAttributes(addr(attrs), d) == 0 and attrs.type == 2 and attrs.devicePointer == d
    assert rt.cudaPointerGetAttributes(addr(attrs), addr(out.ctypes.data_as(ctypes.c_void_p))) == 0
    assert attrs.type == 0
    assert rt.cudaPointerGetAttributes(0, d) == Err.InvalidValue
    assert rt.cudaMallocManaged(addr(m), 256, 0) == Err.InvalidValue
    assert rt.cudaMallocManaged(addr(m), 0, 1) == Err.InvalidValue
    assert rt.cudaFree(m.value) == 0


# ------------------------------------------------------------------------------ symbols
def test_symbols(rt):
    dev_counter, coeffs = rt.h.shadow(0), rt.h.shadow(1)
    size, a = u64(), u64()
    assert rt.cudaGetSymbolSize(addr(size), coeffs) == 0 and size.value == 16
    assert rt.cudaGetSymbolAddress(addr(a), dev_counter) == 0 and a.value != 0
    v = i32()
    assert rt.cudaMemcpyFromSymbol(addr(v), dev_counter, 4, 0, 2) == 0 and v.value == 7   # PTX initialiser
    vals = (ctypes.c_float * 4)(1.0, 2.0, 3.0, 4.0)
    assert rt.cudaMemcpyToSymbol(coeffs, addr(vals), 16, 0, 1) == 0
    back = (ctypes.c_float * 2)()
    assert rt.cudaMemcpyFromSymbol(addr(back), coeffs, 8, 8, 2) == 0 and list(back) == [3.0, 4.0]
    assert rt.cudaMemcpyToSymbol(coeffs, addr(vals), 16, 4, 1) == Err.InvalidValue        # past the end
    assert rt.cudaMemcpyToSymbol(coeffs, addr(vals), 4, 0, 2) == Err.InvalidMemcpyDirection
    assert rt.cudaMemcpyFromSymbol(addr(back), coeffs, 4, 0, 1) == Err.InvalidMemcpyDirection
    assert rt.cudaMemcpyToSymbol(addr(vals), addr(vals), 4, 0, 1) == Err.InvalidSymbol
    assert rt.cudaGetSymbolAddress(addr(a), 0x42) == Err.InvalidSymbol
    assert rt.cudaGetSymbolSize(0, coeffs) == Err.InvalidValue


# ------------------------------------------------------------------------------ kernels
def test_launch_marshals_struct_by_value(rt, engine):
    out = malloc(rt, 64)
    args, keep = kern_args(out, 5, 2.5, -3)
    assert launch(rt, rt.h.stub(0), (2, 1, 1), (32, 1, 1), addr(args)) == 0
    assert rt.cudaDeviceSynchronize() == 0
    name, grid, block, shmem, params, kw = engine.calls[-1]
    assert (name, grid, block, shmem) == (KERN, (2, 1, 1), (32, 1, 1), 0)
    assert len(params) == 32
    assert struct.unpack_from("<Q", params, 0)[0] == out
    assert struct.unpack_from("<i", params, 8)[0] == 5
    assert struct.unpack_from("<di", params, 16) == (2.5, -3)
    assert "printf" in kw


def test_call_configuration_push_pop(rt):
    g, b = dim3(3, 2, 1), dim3(64, 2, 1)
    assert rt.gs_push_call_configuration(addr(g), addr(b), 128, 0x5F000010) == 0
    g2, b2, sm, st = dim3(0, 0, 0), dim3(0, 0, 0), u64(), u64()
    assert rt.__cudaPopCallConfiguration(addr(g2), addr(b2), addr(sm), addr(st)) == 0
    assert tuple(g2) == (3, 2, 1) and tuple(b2) == (64, 2, 1) and sm.value == 128 and st.value == 0x5F000010
    assert rt.__cudaPopCallConfiguration(addr(g2), addr(b2), addr(sm), addr(st)) == Err.InvalidConfiguration


def test_get_kernel(rt):
    k = u64()
    assert rt.__cudaGetKernel(addr(k), rt.h.stub(0)) == 0 and k.value == rt.h.stub(0)
    assert rt.__cudaGetKernel(addr(k), 0x77) == Err.InvalidDeviceFunction
    assert rt.__cudaGetKernel(0, rt.h.stub(0)) == Err.InvalidValue


def test_launch_validation(rt, engine):
    out = malloc(rt, 64)
    args, keep = kern_args(out, 1, 1.0, 1)
    stub = rt.h.stub(0)
    assert launch(rt, stub, (1, 1, 1), (0, 1, 1), addr(args)) == Err.InvalidConfiguration
    assert launch(rt, stub, (1, 1, 1), (1025, 1, 1), addr(args)) == Err.InvalidConfiguration
    assert launch(rt, stub, (1, 1, 1), (1, 1, 65), addr(args)) == Err.InvalidConfiguration
    assert launch(rt, stub, (1, 1, 1), (32, 32, 2), addr(args)) == Err.InvalidConfiguration
    assert launch(rt, stub, (1, 65536, 1), (32, 1, 1), addr(args)) == Err.InvalidConfiguration
    assert launch(rt, stub, (1, 1, 1), (32, 1, 1), addr(args), shmem=49153) == Err.InvalidValue
    assert launch(rt, 0x1234, (1, 1, 1), (32, 1, 1), addr(args)) == Err.InvalidDeviceFunction
    assert launch(rt, stub, (1, 1, 1), (32, 1, 1), 0) == Err.InvalidValue
    assert engine.calls == []
    # opting in raises the dynamic shared memory limit
    assert rt.cudaFuncSetAttribute(stub, 8, 60000) == 0
    assert launch(rt, stub, (1, 1, 1), (32, 1, 1), addr(args), shmem=60000) == 0
    assert rt.cudaFuncSetAttribute(stub, 8, 98305) == Err.InvalidValue
    assert rt.cudaDeviceSynchronize() == 0
    assert len(engine.calls) == 1


def test_registers_out_of_resources(rt):
    k = rt.registry.kernel(rt.h.stub(0))
    k.resources().regs = 128            # 128 regs x 1024 threads > 65536
    out = malloc(rt, 64)
    args, keep = kern_args(out, 1, 1.0, 1)
    assert launch(rt, rt.h.stub(0), (1, 1, 1), (1024, 1, 1), addr(args)) == Err.LaunchOutOfResources
    a = abi.CudaFuncAttributes()
    assert rt.cudaFuncGetAttributes(addr(a), rt.h.stub(0)) == 0
    assert a.numRegs == 128 and a.maxThreadsPerBlock == 512
    assert launch(rt, rt.h.stub(0), (1, 1, 1), (512, 1, 1), addr(args)) == 0


def test_func_attributes_and_occupancy(rt):
    a = abi.CudaFuncAttributes()
    smem_stub = rt.h.stub(1)
    assert rt.cudaFuncGetAttributes(addr(a), smem_stub) == 0
    assert a.sharedSizeBytes == 4096 and a.maxThreadsPerBlock == 1024
    assert a.maxDynamicSharedSizeBytes == 48 * 1024 - 4096
    assert rt.cudaFuncGetAttributes(addr(a), 0x55) == Err.InvalidDeviceFunction
    assert rt.cudaFuncGetAttributes(0, smem_stub) == Err.InvalidValue
    assert rt.cudaFuncSetCacheConfig(smem_stub, 1) == 0
    assert rt.cudaFuncSetCacheConfig(smem_stub, 9) == Err.InvalidValue
    assert rt.cudaFuncSetAttribute(smem_stub, 9, 50) == 0
    assert rt.cudaFuncSetAttribute(smem_stub, 9, 101) == Err.InvalidValue
    assert rt.cudaFuncSetAttribute(smem_stub, 99, 1) == Err.InvalidValue
    assert rt.cudaFuncSetAttribute(smem_stub, 10, 1) == Err.NotSupported
    n = i32()
    regs = (a.numRegs + 3) & ~3
    # 256 threads: slots 32, threads 2048/256=8, regs 65536/(256*regs), smem 98304/4096=24
    assert rt.cudaOccupancyMaxActiveBlocksPerMultiprocessor(addr(n), smem_stub, 256, 0) == 0
    assert n.value == min(32, 8, 65536 // (256 * regs) if regs else 99, 24)
    assert rt.cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(addr(n), smem_stub, 32, 8192, 0) == 0
    assert n.value == min(32, 64, 65536 // (32 * regs) if regs else 99, 98304 // (4096 + 8192))
    assert rt.cudaOccupancyMaxActiveBlocksPerMultiprocessor(addr(n), smem_stub, 0, 0) == Err.InvalidValue
    assert rt.cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(addr(n), smem_stub, 32, 0, 4) == Err.InvalidValue
    assert rt.cudaOccupancyMaxActiveBlocksPerMultiprocessor(0, smem_stub, 32, 0) == Err.InvalidValue
    assert rt.cudaOccupancyMaxActiveBlocksPerMultiprocessor(addr(n), smem_stub, 2048, 0) == 0 and n.value == 0


def test_sticky_kernel_fault(rt, engine):
    engine.fault = CudaError(Err.IllegalAddress, "illegal address 0x10 in kern", sticky=True)
    out = malloc(rt, 64)
    args, keep = kern_args(out, 1, 1.0, 1)
    assert launch(rt, rt.h.stub(0), (1, 1, 1), (32, 1, 1), addr(args)) == 0   # asynchronous
    # wait until the simulation thread has run (and faulted) the kernel
    import time

    for _ in range(500):
        if rt.streams.sticky_error is not None:
            break
        time.sleep(0.01)
    assert rt.streams.sticky_error is not None
    # not yet reported by a synchronising call: invisible, whatever the thread's speed
    assert rt.cudaGetLastError() == 0
    assert rt.cudaDeviceSynchronize() == Err.IllegalAddress
    p = u64()
    assert rt.cudaMalloc(addr(p), 16) == Err.IllegalAddress
    assert rt.cudaGetLastError() == Err.IllegalAddress
    assert rt.cudaGetLastError() == Err.IllegalAddress      # sticky: not cleared
    assert rt.cudaPeekAtLastError() == Err.IllegalAddress


# ------------------------------------------------------------------------------ streams/events
def test_streams_and_events(rt):
    s, e1, e2 = u64(), u64(), u64()
    assert rt.cudaStreamCreate(addr(s)) == 0 and s.value != 0
    assert rt.cudaStreamCreate(0) == Err.InvalidValue
    assert rt.cudaEventCreate(addr(e1)) == 0 and rt.cudaEventCreate(addr(e2)) == 0
    host = np.arange(256, dtype=np.uint8)
    d = malloc(rt, 256)
    assert rt.cudaEventRecord(e1.value, s.value) == 0
    assert rt.cudaMemcpyAsync(d, host.ctypes.data, 256, 1, s.value) == 0
    assert rt.cudaEventRecord(e2.value, s.value) == 0
    assert rt.cudaStreamSynchronize(s.value) == 0
    assert rt.cudaStreamQuery(s.value) == 0
    assert rt.cudaEventSynchronize(e2.value) == 0
    assert rt.cudaEventQuery(e2.value) == 0
    ms = ctypes.c_float(-1)
    assert rt.cudaEventElapsedTime(addr(ms), e1.value, e2.value) == 0 and ms.value >= 0.0
    assert rt.cudaEventElapsedTime(0, e1.value, e2.value) == Err.InvalidValue
    assert rt.cudaMemcpyAsync(d, host.ctypes.data, 256, 1, 0xDEAD0) == Err.InvalidResourceHandle
    assert rt.cudaEventDestroy(e1.value) == 0
    assert rt.cudaEventDestroy(e1.value) == Err.InvalidResourceHandle
    assert rt.cudaStreamDestroy(s.value) == 0
    assert rt.cudaStreamDestroy(s.value) == Err.InvalidResourceHandle


def test_query_not_ready_is_a_status_not_an_error(rt):
    """cudaStreamQuery/cudaEventQuery return cudaErrorNotReady (600) while work is pending, and
    leave the last error alone (600 is a status: cudaGetLastError still returns success)."""
    import threading

    s, ev = u64(), u64()
    assert rt.cudaStreamCreate(addr(s)) == 0 and rt.cudaEventCreate(addr(ev)) == 0
    gate = threading.Event()
    rt.streams.add_host_func(s.value, lambda: gate.wait(30))
    assert rt.cudaEventRecord(ev.value, s.value) == 0
    assert rt.cudaStreamQuery(s.value) == Err.NotReady == 600
    assert rt.cudaEventQuery(ev.value) == Err.NotReady
    assert rt.cudaPeekAtLastError() == 0 and rt.cudaGetLastError() == 0
    gate.set()
    assert rt.cudaEventSynchronize(ev.value) == 0
    assert rt.cudaEventQuery(ev.value) == 0 and rt.cudaStreamQuery(s.value) == 0
    assert rt.cudaGetLastError() == 0
    assert rt.cudaStreamQuery(0xDEAD0) == Err.InvalidResourceHandle
    assert rt.cudaEventQuery(0xDEAD0) == Err.InvalidResourceHandle


def test_device_reset_frees_and_reloads(rt):
    free0, total = u64(), u64()
    rt.cudaMemGetInfo(addr(free0), addr(total))
    malloc(rt, 1 << 20)
    vals = i32(99)
    assert rt.cudaMemcpyToSymbol(rt.h.shadow(0), addr(vals), 4, 0, 1) == 0
    assert rt.cudaDeviceReset() == 0
    free1 = u64()
    rt.cudaMemGetInfo(addr(free1), addr(total))
    assert free1.value == free0.value
    v = i32()
    assert rt.cudaMemcpyFromSymbol(addr(v), rt.h.shadow(0), 4, 0, 2) == 0 and v.value == 7


def test_internal_exception_becomes_error(rt, capsys, monkeypatch):
    def boom(*a):
        raise RuntimeError("boom")

    monkeypatch.setattr(rt.device, "fill", boom)
    p = abi.CudaDeviceProp()
    assert rt.cudaGetDeviceProperties(addr(p), 0) == Err.Unknown
    assert "internal simulator error: RuntimeError: boom" in capsys.readouterr().err
    assert rt.cudaGetLastError() == Err.Unknown


def test_last_error_is_per_thread(rt):
    import threading

    assert rt.cudaSetDevice(9) == Err.InvalidDevice
    seen = []
    t = threading.Thread(target=lambda: seen.append(rt.cudaGetLastError()))
    t.start()
    t.join()
    assert seen == [0]
    assert rt.cudaGetLastError() == Err.InvalidDevice


def test_public_cuda_launch_kernel(rt, engine):
    out = malloc(rt, 64)
    args, keep = kern_args(out, 2, 0.5, 4)
    assert launch(rt, rt.h.stub(0), (1, 2, 3), (4, 5, 6), addr(args), shmem=16, via_handle=0) == 0
    assert rt.cudaDeviceSynchronize() == 0
    assert engine.calls[-1][:4] == (KERN, (1, 2, 3), (4, 5, 6), 16)
    assert launch(rt, 0xABC, (1, 1, 1), (1, 1, 1), addr(args), via_handle=0) == Err.InvalidDeviceFunction


# ------------------------------------------------------------------------------ more entry points
def test_cache_and_shared_mem_config(rt):
    v = i32(-1)
    assert rt.cudaDeviceGetCacheConfig(addr(v)) == 0 and v.value == 0
    assert rt.cudaDeviceSetCacheConfig(2) == 0
    assert rt.cudaDeviceGetCacheConfig(addr(v)) == 0 and v.value == 2
    assert rt.cudaDeviceSetCacheConfig(4) == Err.InvalidValue
    assert rt.cudaDeviceGetCacheConfig(0) == Err.InvalidValue
    assert rt.cudaDeviceSetSharedMemConfig(2) == 0
    assert rt.cudaDeviceGetSharedMemConfig(addr(v)) == 0 and v.value == 2
    assert rt.cudaDeviceSetSharedMemConfig(3) == Err.InvalidValue
    assert rt.cudaFuncSetSharedMemConfig(rt.h.stub(0), 1) == 0
    assert rt.cudaFuncSetSharedMemConfig(0x9, 1) == Err.InvalidDeviceFunction
    assert rt.cudaProfilerStart() == 0 and rt.cudaProfilerStop() == 0


def test_device_misc(rt):
    v = i32(-1)
    assert rt.cudaDeviceCanAccessPeer(addr(v), 0, 0) == 0 and v.value == 0
    assert rt.cudaDeviceCanAccessPeer(addr(v), 0, 1) == Err.InvalidDevice
    buf = ctypes.create_string_buffer(32)
    assert rt.cudaDeviceGetPCIBusId(addr(buf), 32, 0) == 0 and buf.value == b"0000:00:00.0"
    assert rt.cudaDeviceGetPCIBusId(addr(buf), 32, 2) == Err.InvalidDevice
    assert rt.cudaDeviceGetByPCIBusId(addr(v), addr(buf)) == 0 and v.value == 0
    other = ctypes.create_string_buffer(b"0000:65:00.0")
    assert rt.cudaDeviceGetByPCIBusId(addr(v), addr(other)) == Err.InvalidDevice
    devs = (ctypes.c_int * 2)(0, 0)
    assert rt.cudaSetValidDevices(addr(devs), 2) == 0
    devs[1] = 3
    assert rt.cudaSetValidDevices(addr(devs), 2) == Err.InvalidDevice
    assert rt.cudaInitDevice(0, 0, 0) == 0
    assert rt.cudaInitDevice(1, 0, 0) == Err.InvalidDevice


def test_host_register(rt):
    host = np.arange(256, dtype=np.uint8)
    ptr = host.ctypes.data
    assert rt.cudaHostRegister(ptr, 256, 0) == 0
    assert rt.cudaHostRegister(ptr, 256, 0) == 712            # cudaErrorHostMemoryAlreadyRegistered
    f = ctypes.c_uint32()
    assert rt.cudaHostGetFlags(addr(f), ptr) == 0 and f.value == 2
    assert rt.cudaMemset(ptr + 16, 0, 16) == 0                # device-accessible at its own address
    assert (host[16:32] == 0).all() and host[32] == 32
    assert rt.cudaHostUnregister(ptr) == 0
    assert rt.cudaHostUnregister(ptr) == 713                  # cudaErrorHostMemoryNotRegistered
    assert rt.cudaHostGetFlags(addr(f), ptr) == Err.InvalidValue
    assert rt.cudaHostRegister(0, 16, 0) == Err.InvalidValue
    assert rt.cudaHostRegister(ptr, 16, 4) == Err.NotSupported


def test_memset2d_and_peer_copy(rt):
    pitch, dp = u64(), u64()
    assert rt.cudaMallocPitch(addr(dp), addr(pitch), 8, 4) == 0
    assert rt.cudaMemset(dp.value, 0, pitch.value * 4) == 0
    assert rt.cudaMemset2D(dp.value, pitch.value, 0x5A, 8, 4) == 0
    out = np.zeros(pitch.value * 4, dtype=np.uint8)
    assert rt.cudaMemcpy(out.ctypes.data, dp.value, out.size, 2) == 0
    rows = out.reshape(4, -1)
    assert (rows[:, :8] == 0x5A).all() and (rows[:, 8:] == 0).all()
    assert rt.cudaMemset2D(dp.value, 4, 1, 8, 4) == Err.InvalidValue
    other = malloc(rt, 64)
    assert rt.cudaMemcpyPeer(other, 0, dp.value, 0, 8) == 0
    assert rt.cudaMemcpyPeer(other, 1, dp.value, 0, 8) == Err.InvalidDevice


def test_func_get_name(rt):
    p = u64()
    assert rt.cudaFuncGetName(addr(p), rt.h.stub(0)) == 0
    assert ctypes.string_at(p.value).decode() == KERN
    assert rt.cudaFuncGetName(addr(p), 0x33) == Err.InvalidDeviceFunction


def test_managed_hints(rt):
    m = u64()
    assert rt.cudaMallocManaged(addr(m), 4096, 1) == 0
    loc_dev = (ctypes.c_int * 2)(1, 0)     # cudaMemLocationTypeDevice, id 0
    loc_bad = (ctypes.c_int * 2)(1, 4)
    assert rt.gs_mem_prefetch(m.value, 4096, addr(loc_dev), 0, 0) == 0
    assert rt.gs_mem_prefetch(m.value, 4096, addr(loc_bad), 0, 0) == Err.InvalidDevice
    assert rt.gs_mem_prefetch(m.value, 8192, addr(loc_dev), 0, 0) == Err.InvalidValue
    assert rt.gs_mem_prefetch(0x1234, 16, addr(loc_dev), 0, 0) == Err.InvalidValue
    assert rt.gs_mem_advise(m.value, 4096, 1, addr(loc_dev)) == 0
    assert rt.gs_mem_advise(m.value, 4096, 9, addr(loc_dev)) == Err.InvalidValue
    assert rt.cudaStreamAttachMemAsync(0, m.value, 0, 1) == 0
    assert rt.cudaStreamAttachMemAsync(0, m.value, 0, 3) == Err.InvalidValue


def test_cooperative_launch_residency(rt, engine):
    out = malloc(rt, 64)
    args, keep = kern_args(out, 1, 1.0, 1)
    per_sm = rt.module_api.occupancy(rt.registry.kernel(rt.h.stub(0)), 256, 0)
    fits = per_sm * rt.device.sm_count
    assert launch(rt, rt.h.stub(0), (fits, 1, 1), (256, 1, 1), addr(args), via_handle=4) == 0
    assert launch(rt, rt.h.stub(0), (fits + 1, 1, 1), (256, 1, 1), addr(args), via_handle=4) == 720
    assert rt.cudaDeviceSynchronize() == 0
    assert len(engine.calls) == 1


def test_async_copy_from_pageable_memory_is_staged(rt, engine):
    n = 4096
    host = np.full(n, 1, dtype=np.uint8)
    d = malloc(rt, n)
    s = u64()
    assert rt.cudaStreamCreate(addr(s)) == 0
    # hold the stream behind a kernel so the copy cannot have run when the call returns
    out = malloc(rt, 64)
    args, keep = kern_args(out, 1, 1.0, 1)
    assert launch(rt, rt.h.stub(0), (1, 1, 1), (32, 1, 1), addr(args), stream=s.value) == 0
    assert rt.cudaMemcpyAsync(d, host.ctypes.data, n, 1, s.value) == 0
    host[:] = 2                                  # legal for pageable memory: the data was staged
    back = np.zeros(n, dtype=np.uint8)
    assert rt.cudaMemcpyAsync(back.ctypes.data, d, n, 2, s.value) == 0
    assert (back == 1).all()                     # D2H into pageable memory completes before returning


def _launch_config(grid, block, shmem=0, stream=0, attrs=()):
    """A cudaLaunchConfig_t (56 bytes) plus its cudaLaunchAttribute array (72 bytes each)."""
    arr = ctypes.create_string_buffer(72 * max(1, len(attrs)))
    for i, (aid, value) in enumerate(attrs):
        struct.pack_into("<i", arr, 72 * i, aid)
        arr[72 * i + 8:72 * i + 8 + len(value)] = value
    cfg = ctypes.create_string_buffer(56)
    struct.pack_into("<3I3IQQQI", cfg, 0, *grid, *block, shmem, stream,
                     ctypes.addressof(arr) if attrs else 0, len(attrs))
    return cfg, arr


def test_launch_kernel_ex(rt, engine):
    out = malloc(rt, 64)
    args, keep = kern_args(out, 3, 1.5, 2)
    cfg, arr = _launch_config((2, 1, 1), (64, 1, 1), 32, 0, [(8, struct.pack("<i", 1)), (2, struct.pack("<i", 1))])
    assert rt.cudaLaunchKernelExC(addr(cfg), rt.h.stub(0), addr(args)) == 0
    assert rt.cudaDeviceSynchronize() == 0
    assert engine.calls[-1][:4] == (KERN, (2, 1, 1), (64, 1, 1), 32)
    cluster, a2 = _launch_config((2, 1, 1), (64, 1, 1), attrs=[(4, struct.pack("<3I", 2, 1, 1))])
    assert rt.cudaLaunchKernelExC(addr(cluster), rt.h.stub(0), addr(args)) == Err.NotSupported
    one, a3 = _launch_config((2, 1, 1), (64, 1, 1), attrs=[(4, struct.pack("<3I", 1, 1, 1))])
    assert rt.cudaLaunchKernelExC(addr(one), rt.h.stub(0), addr(args)) == 0
    bad, a4 = _launch_config((0, 1, 1), (64, 1, 1))
    assert rt.cudaLaunchKernelExC(addr(bad), rt.h.stub(0), addr(args)) == Err.InvalidConfiguration
    assert rt.cudaLaunchKernelExC(0, rt.h.stub(0), addr(args)) == Err.InvalidValue
    assert rt.cudaDeviceSynchronize() == 0
    assert len(engine.calls) == 2


def test_available_dynamic_smem(rt):
    v = u64()
    stub = rt.h.stub(1)                              # 4 KiB static shared memory
    assert rt.cudaOccupancyAvailableDynamicSMemPerBlock(addr(v), stub, 4, 128) == 0
    assert v.value == min(98304 // 4 - 4096, 48 * 1024 - 4096)
    assert rt.cudaOccupancyAvailableDynamicSMemPerBlock(addr(v), stub, 1, 128) == 0
    assert v.value == 48 * 1024 - 4096              # capped by the per-block dynamic limit
    assert rt.cudaOccupancyAvailableDynamicSMemPerBlock(addr(v), stub, 64, 128) == 0 and v.value == 0
    assert rt.cudaOccupancyAvailableDynamicSMemPerBlock(addr(v), stub, 0, 128) == Err.InvalidValue


def test_cuda_launch_blocking(rt, engine, monkeypatch):
    monkeypatch.setenv("CUDA_LAUNCH_BLOCKING", "1")
    out = malloc(rt, 64)
    args, keep = kern_args(out, 1, 1.0, 1)
    assert launch(rt, rt.h.stub(0), (1, 1, 1), (32, 1, 1), addr(args)) == 0
    assert len(engine.calls) == 1                      # ran before the launch returned
    engine.fault = CudaError(Err.IllegalAddress, "fault", sticky=True)
    assert launch(rt, rt.h.stub(0), (1, 1, 1), (32, 1, 1), addr(args)) == Err.IllegalAddress
    assert rt.cudaGetLastError() == Err.IllegalAddress


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(off=st.integers(0, 1100), n=st.integers(0, 1100), kind=st.sampled_from([1, 4]))
def test_memcpy_bounds_property(rt, off, n, kind):
    """A host->device copy succeeds exactly when it stays inside the 1 KiB allocation, and the
    bytes land where they should."""
    if not hasattr(rt, "_prop_buf"):
        rt._prop_buf = malloc(rt, 1024)
        assert rt.cudaMemset(rt._prop_buf, 0, 1024) == 0
    base = rt._prop_buf
    src = (np.arange(n) % 251).astype(np.uint8)
    rc = rt.cudaMemcpy(base + off, src.ctypes.data, n, kind)
    if n == 0:
        assert rc == 0
        return
    if off + n <= 1024:
        assert rc == 0
        back = np.zeros(n, dtype=np.uint8)
        assert rt.cudaMemcpy(back.ctypes.data, base + off, n, 2) == 0
        assert (back == src).all()
    else:
        assert rc == Err.InvalidValue
        assert rt.cudaGetLastError() == Err.InvalidValue


def _parms(src_ptr, spitch, sysize, dst_ptr, dpitch, dysize, extent, kind, src_pos=(0, 0, 0), dst_pos=(0, 0, 0)):
    """struct cudaMemcpy3DParms (160 bytes)."""
    return ctypes.create_string_buffer(struct.pack(
        "<Q3Q4QQ3Q4Q3Qi4x", 0, *src_pos, src_ptr, spitch, 0, sysize, 0, *dst_pos, dst_ptr, dpitch, 0, dysize,
        *extent, kind), 160)


def test_3d_linear_memory(rt):
    w, h, d = 10, 3, 2
    pp = ctypes.create_string_buffer(32)
    ext = ctypes.create_string_buffer(struct.pack("<3Q", w, h, d), 24)
    assert rt.gs_malloc3d(addr(pp), addr(ext)) == 0
    ptr, pitch, xsize, ysize = struct.unpack("<4Q", pp.raw)
    assert (pitch, xsize, ysize) == (512, w, h) and ptr % 256 == 0
    assert rt.gs_memset3d(addr(pp), 0x11, addr(ext), 0, 0) == 0
    host = np.arange(w * h * d, dtype=np.uint8)
    p = _parms(host.ctypes.data, w, h, ptr, pitch, ysize, (w, h, d), 1)
    assert rt.cudaMemcpy3D(addr(p)) == 0
    back = np.zeros(w * h * d, dtype=np.uint8)
    p2 = _parms(ptr, pitch, ysize, back.ctypes.data, w, h, (w, h, d), 2)
    assert rt.cudaMemcpy3D(addr(p2)) == 0
    assert (back == host).all()
    # a sub-box with offsets: rows 1..2 of slice 1, bytes 2..5
    box = np.zeros(4 * 2, dtype=np.uint8)
    p3 = _parms(ptr, pitch, ysize, box.ctypes.data, 4, 2, (4, 2, 1), 2, src_pos=(2, 1, 1))
    assert rt.cudaMemcpy3D(addr(p3)) == 0
    full = host.reshape(d, h, w)
    assert (box.reshape(2, 4) == full[1, 1:3, 2:6]).all()
    bad = _parms(host.ctypes.data, 4, h, ptr, pitch, ysize, (w, h, d), 1)       # width > spitch
    assert rt.cudaMemcpy3D(addr(bad)) == Err.InvalidPitchValue
    arr = _parms(host.ctypes.data, w, h, ptr, pitch, ysize, (w, h, d), 1)
    ctypes.memmove(addr(arr), struct.pack("<Q", 0x1234), 8)                     # srcArray set
    assert rt.cudaMemcpy3D(addr(arr)) == Err.NotSupported
    assert rt.cudaMemcpy3D(0) == Err.InvalidValue
    wide = ctypes.create_string_buffer(struct.pack("<3Q", 600, h, d), 24)
    assert rt.gs_memset3d(addr(pp), 0, addr(wide), 0, 0) == Err.InvalidValue
