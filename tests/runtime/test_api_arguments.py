"""Each runtime entry point of issue 2's list with valid and with wrong arguments: exact
``cudaError_t`` values (those test_api.py does not already cover), and
``cudaPointerGetAttributes`` for every kind of memory.

Codes: 1 InvalidValue, 2 MemoryAllocation, 98 InvalidDeviceFunction, 101 InvalidDevice,
400 InvalidResourceHandle (the ``Err`` names are used below).
"""

from __future__ import annotations

import ctypes

import numpy as np

from gpgpusim.errors import Err
from gpgpusim.runtime import abi
from gpgpusim.runtime.device import DEFINED_DEVICE_ATTRIBUTES

u64 = ctypes.c_uint64
i32 = ctypes.c_int32
BOGUS = 0xDEAD0            # never a stream, event or kernel handle


def addr(obj) -> int:
    return ctypes.addressof(obj)


def malloc(rt, n: int) -> int:
    p = u64()
    assert rt.cudaMalloc(addr(p), n) == 0
    return p.value


def attrs_of(rt, ptr: int) -> tuple[int, int, int | None, int | None]:
    a = abi.CudaPointerAttributes()
    ctypes.memset(addr(a), 0x55, ctypes.sizeof(a))       # every field must be written
    assert rt.cudaPointerGetAttributes(addr(a), ptr) == 0
    return a.type, a.device, a.devicePointer, a.hostPointer


# ------------------------------------------------------------------------------ memory
def test_malloc_host_and_host_alloc(rt):
    p = u64()
    assert rt.cudaMallocHost(0, 64) == Err.InvalidValue
    assert rt.cudaGetLastError() == Err.InvalidValue
    assert rt.cudaMallocHost(addr(p), 64) == 0 and p.value % 256 == 0
    assert rt.cudaFreeHost(p.value) == 0
    assert rt.cudaHostAlloc(0, 64, 0) == Err.InvalidValue
    assert rt.cudaHostAlloc(addr(p), 64, 0x10) == Err.InvalidValue
    assert rt.cudaHostAlloc(addr(p), 64, 0x08) == Err.InvalidValue    # not a cudaHostAlloc flag
    assert rt.cudaHostAlloc(addr(p), 64, 0x02) == 0 and p.value != 0
    assert rt.cudaFreeHost(p.value + 8) == Err.InvalidValue          # not an allocation start
    assert rt.cudaFreeHost(p.value) == 0
    assert rt.cudaFreeHost(0) == 0


def test_mem_get_info_null_arguments(rt):
    free, total = u64(), u64()
    assert rt.cudaMemGetInfo(addr(free), 0) == Err.InvalidValue
    assert rt.cudaMemGetInfo(0, addr(total)) == Err.InvalidValue
    assert rt.cudaMemGetInfo(addr(free), addr(total)) == 0
    assert total.value == 32 << 30 and free.value == total.value


def test_malloc_pitch_arguments(rt):
    dp, pitch = u64(), u64()
    assert rt.cudaMallocPitch(addr(dp), 0, 10, 4) == Err.InvalidValue
    assert rt.cudaMallocPitch(0, addr(pitch), 10, 4) == Err.InvalidValue
    assert rt.cudaMallocPitch(addr(dp), addr(pitch), 1 << 20, 1 << 20) == Err.MemoryAllocation
    assert rt.cudaGetLastError() == Err.MemoryAllocation
    assert rt.cudaMallocPitch(addr(dp), addr(pitch), 513, 3) == 0
    assert pitch.value == 1024 and dp.value % 256 == 0
    free, total = u64(), u64()
    assert rt.cudaMemGetInfo(addr(free), addr(total)) == 0 and total.value - free.value == 1024 * 3
    assert rt.cudaFree(dp.value) == 0


def test_symbol_size_and_address_wrong_symbol(rt):
    size, a = u64(), u64()
    assert rt.cudaGetSymbolSize(addr(size), 0x42) == Err.InvalidSymbol
    assert rt.cudaGetSymbolAddress(0, rt.h.shadow(0)) == Err.InvalidValue
    assert rt.cudaGetSymbolSize(addr(size), rt.h.shadow(0)) == 0 and size.value == 4
    assert rt.cudaGetSymbolAddress(addr(a), rt.h.shadow(1)) == 0
    assert attrs_of(rt, a.value) == (2, 0, a.value, None)             # module variables are device memory


# ------------------------------------------------------------------------------ pointer attributes
def test_pointer_attributes_device_and_interior(rt):
    d = malloc(rt, 1024)
    assert attrs_of(rt, d) == (2, 0, d, None)
    assert attrs_of(rt, d + 1000) == (2, 0, d + 1000, None)


def test_pointer_attributes_pinned(rt):
    p = u64()
    assert rt.cudaMallocHost(addr(p), 4096) == 0
    assert attrs_of(rt, p.value) == (1, 0, p.value, p.value)
    assert attrs_of(rt, p.value + 100) == (1, 0, p.value + 100, p.value + 100)
    assert rt.cudaHostAlloc(addr(p), 64, 0) == 0
    assert attrs_of(rt, p.value) == (1, 0, p.value, p.value)


def test_pointer_attributes_registered(rt):
    host = np.zeros(4096, dtype=np.uint8)
    ptr = host.ctypes.data
    assert attrs_of(rt, ptr) == (0, -2, None, None)                   # pageable: unregistered
    assert rt.cudaHostRegister(ptr, 4096, 0) == 0
    assert attrs_of(rt, ptr) == (1, 0, ptr, ptr)
    assert attrs_of(rt, ptr + 4000) == (1, 0, ptr + 4000, ptr + 4000)
    assert attrs_of(rt, ptr + 4096) == (0, -2, None, None)            # one past the end
    dev = u64()
    assert rt.cudaHostGetDevicePointer(addr(dev), ptr + 8, 0) == 0 and dev.value == ptr + 8
    assert rt.cudaHostUnregister(ptr) == 0
    assert attrs_of(rt, ptr) == (0, -2, None, None)
    assert rt.cudaHostGetDevicePointer(addr(dev), ptr, 0) == Err.InvalidValue


def test_pointer_attributes_managed_freed_and_null(rt):
    m = u64()
    assert rt.cudaMallocManaged(addr(m), 256, 1) == 0
    assert attrs_of(rt, m.value) == (3, 0, m.value, m.value)
    assert attrs_of(rt, m.value + 255) == (3, 0, m.value + 255, m.value + 255)
    d = malloc(rt, 64)
    assert rt.cudaFree(d) == 0
    assert attrs_of(rt, d) == (0, -2, None, None)                     # freed device memory
    assert rt.cudaFree(m.value) == 0
    assert attrs_of(rt, m.value) == (0, -2, None, None)
    assert attrs_of(rt, 0) == (0, -2, None, None)
    assert rt.cudaPointerGetAttributes(0, m.value) == Err.InvalidValue


def test_device_advertises_registered_memory_support(rt):
    p = abi.CudaDeviceProp()
    assert rt.cudaGetDeviceProperties(addr(p), 0) == 0
    assert p.hostRegisterSupported == 1 and p.canUseHostPointerForRegisteredMem == 1
    v = i32()
    assert rt.cudaDeviceGetAttribute(addr(v), 91, 0) == 0 and v.value == 1
    assert rt.cudaDeviceGetAttribute(addr(v), 99, 0) == 0 and v.value == 1


# ------------------------------------------------------------------------------ device attributes
def test_device_attribute_numbers_follow_cuda13(rt):
    v = i32(-7)
    undefined = [44, 102, 103, 104, 105, 107, 110, 136, 137, 146, 0, 148, -1]
    for attr in undefined:
        assert rt.cudaDeviceGetAttribute(addr(v), attr, 0) == Err.InvalidValue, attr
        assert rt.cudaGetLastError() == Err.InvalidValue
    assert v.value == -7                                              # nothing written
    assert len(DEFINED_DEVICE_ATTRIBUTES) == 137
    for attr in sorted(DEFINED_DEVICE_ATTRIBUTES):
        assert rt.cudaDeviceGetAttribute(addr(v), attr, 0) == 0, attr
    assert rt.cudaDeviceGetAttribute(addr(v), 92, 0) == 0 and v.value == 0     # reserved: defined, 0


# ------------------------------------------------------------------------------ kernels
def test_func_calls_with_a_bad_function(rt):
    stub = rt.h.stub(0)
    assert rt.cudaFuncSetAttribute(BOGUS, 8, 1024) == Err.InvalidDeviceFunction
    assert rt.cudaFuncSetAttribute(0, 8, 1024) == Err.InvalidDeviceFunction
    assert rt.cudaFuncSetAttribute(stub, 8, 1024) == 0
    assert rt.cudaFuncSetAttribute(stub, 8, -1) == Err.InvalidValue
    assert rt.cudaFuncSetCacheConfig(BOGUS, 1) == Err.InvalidDeviceFunction
    assert rt.cudaFuncSetCacheConfig(0, 1) == Err.InvalidDeviceFunction
    assert rt.cudaFuncSetCacheConfig(stub, 3) == 0
    a = abi.CudaFuncAttributes()
    assert rt.cudaFuncGetAttributes(addr(a), stub) == 0 and a.maxDynamicSharedSizeBytes == 1024
    n = i32()
    assert rt.cudaOccupancyMaxActiveBlocksPerMultiprocessor(addr(n), BOGUS, 32, 0) == Err.InvalidDeviceFunction
    assert rt.cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(addr(n), BOGUS, 32, 0, 0) == \
        Err.InvalidDeviceFunction
    assert rt.cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(addr(n), stub, 32, 0, 1) == 0


def test_launch_per_thread_stream_and_bad_arguments(rt, engine):
    """``__cudaLaunchKernel_ptsz`` reaches the runtime as a launch on cudaStreamPerThread (2)."""
    from tests.runtime.test_api import kern_args, launch

    out = malloc(rt, 64)
    args, keep = kern_args(out, 1, 1.0, 1)
    stub = rt.h.stub(0)
    assert launch(rt, stub, (1, 1, 1), (32, 1, 1), addr(args), stream=2) == 0
    assert rt.cudaStreamSynchronize(2) == 0 and len(engine.calls) == 1
    assert launch(rt, BOGUS, (1, 1, 1), (32, 1, 1), addr(args), stream=2) == Err.InvalidDeviceFunction
    assert launch(rt, stub, (1, 0, 1), (32, 1, 1), addr(args), stream=2) == Err.InvalidConfiguration
    assert launch(rt, stub, (1, 1, 1), (32, 1, 1), 0, stream=2) == Err.InvalidValue
    nulls = (ctypes.c_void_p * 3)(addr(keep[0]), None, addr(keep[2]))   # args[1] NULL
    assert launch(rt, stub, (1, 1, 1), (32, 1, 1), addr(nulls), stream=2) == Err.InvalidValue
    assert launch(rt, stub, (1, 1, 1), (32, 1, 1), addr(args), stream=BOGUS) == Err.InvalidResourceHandle
    assert rt.cudaDeviceSynchronize() == 0 and len(engine.calls) == 1


# ------------------------------------------------------------------------------ errors
def test_error_name_and_string_of_unknown_codes(rt):
    for code in (12345, -1, 10):                                     # 10 is a gap in enum cudaError
        assert ctypes.string_at(rt.gs_error_name(code)).decode() == "unrecognized error code"
        assert ctypes.string_at(rt.gs_error_string(code)).decode() == "unrecognized error code"
    assert ctypes.string_at(rt.gs_error_name(400)).decode() == "cudaErrorInvalidResourceHandle"
    assert ctypes.string_at(rt.gs_error_string(400)).decode() == "invalid resource handle"
    assert rt.cudaGetLastError() == 0                                # not an error to ask


# ------------------------------------------------------------------------------ streams and events
def test_event_calls_with_bad_handles(rt):
    e, s = u64(), u64()
    assert rt.cudaEventCreate(0) == Err.InvalidValue
    assert rt.cudaEventCreateWithFlags(0, 0) == Err.InvalidValue
    assert rt.cudaEventCreate(addr(e)) == 0 and e.value != 0
    assert rt.cudaEventRecord(BOGUS, 0) == Err.InvalidResourceHandle
    assert rt.cudaEventRecord(e.value, BOGUS) == Err.InvalidResourceHandle
    assert rt.cudaEventSynchronize(BOGUS) == Err.InvalidResourceHandle
    assert rt.cudaEventQuery(BOGUS) == Err.InvalidResourceHandle
    ms = ctypes.c_float()
    assert rt.cudaEventElapsedTime(addr(ms), e.value, e.value) == Err.InvalidResourceHandle   # never recorded
    assert rt.cudaEventElapsedTime(addr(ms), e.value, BOGUS) == Err.InvalidResourceHandle
    assert rt.cudaStreamCreate(addr(s)) == 0
    assert rt.cudaEventRecord(e.value, s.value) == 0
    assert rt.cudaEventSynchronize(e.value) == 0
    assert rt.cudaEventElapsedTime(addr(ms), e.value, e.value) == 0 and ms.value == 0.0
    assert rt.cudaEventDestroy(BOGUS) == Err.InvalidResourceHandle
    assert rt.cudaEventDestroy(e.value) == 0
    assert rt.cudaEventSynchronize(e.value) == Err.InvalidResourceHandle        # destroyed
    assert rt.cudaStreamDestroy(s.value) == 0


def test_stream_calls_with_bad_handles(rt):
    s = u64()
    assert rt.cudaStreamSynchronize(BOGUS) == Err.InvalidResourceHandle
    assert rt.cudaGetLastError() == Err.InvalidResourceHandle
    assert rt.cudaStreamQuery(BOGUS) == Err.InvalidResourceHandle
    assert rt.cudaStreamDestroy(BOGUS) == Err.InvalidResourceHandle
    assert rt.cudaStreamCreateWithFlags(0, 0) == Err.InvalidValue
    assert rt.cudaStreamCreateWithFlags(addr(s), 1) == 0
    assert rt.cudaStreamSynchronize(s.value) == 0
    assert rt.cudaStreamSynchronize(0) == 0                           # legacy default stream
    assert rt.cudaStreamDestroy(s.value) == 0
    assert rt.cudaStreamSynchronize(s.value) == Err.InvalidResourceHandle


def test_device_flags_follow_cuda13(rt):
    f = ctypes.c_uint32()
    assert rt.cudaSetDeviceFlags(0x80 | 0x10 | 0x04) == 0             # SyncMemops | LmemResizeToMax | BlockingSync
    assert rt.cudaGetDeviceFlags(addr(f)) == 0 and f.value == 0x80 | 0x10 | 0x08 | 0x04
    for bad in (0x20, 0x40, 0x100, 0x03, 0x05):
        assert rt.cudaSetDeviceFlags(bad) == Err.InvalidValue, bad
    assert rt.cudaGetDeviceFlags(0) == Err.InvalidValue


def test_device_reset_and_synchronize(rt):
    d = malloc(rt, 64)
    assert rt.cudaDeviceSynchronize() == 0
    assert rt.cudaDeviceReset() == 0
    assert rt.cudaFree(d) == Err.InvalidValue                         # reset freed it
    assert rt.cudaDeviceSynchronize() == 0
