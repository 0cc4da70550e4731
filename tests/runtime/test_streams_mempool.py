"""Stream-ordered allocation and memory pools (StreamApi over stream_mempool)."""

from __future__ import annotations

import ctypes

from gpgpusim.errors import CudaError, Err
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.runtime.gpu import Gpu
from gpgpusim.runtime.stream_api import StreamApi
from gpgpusim.runtime.stream_mempool import ATTR_RELEASE_THRESHOLD, ATTR_USED_MEM_CURRENT, ATTR_USED_MEM_HIGH
from gpgpusim.runtime.streams import StreamManager


class Rt(StreamApi):
    def __init__(self) -> None:
        self.gmem = GlobalMemory()
        self.streams = StreamManager(Gpu(None, self.gmem))
        self._device_allocs: dict[int, int] = {}

    def _record(self, name: str, exc: CudaError) -> int:
        return int(exc.code)


def u64() -> ctypes.c_uint64:
    return ctypes.c_uint64(0)


def a(obj) -> int:
    return ctypes.addressof(obj)


def test_default_pool_usage_and_attributes():
    rt = Rt()
    try:
        pool, cur = u64(), u64()
        assert rt.cudaDeviceGetDefaultMemPool(a(pool), 0) == 0 and pool.value
        assert rt.cudaDeviceGetMemPool(a(cur), 0) == 0 and cur.value == pool.value
        assert rt.cudaDeviceGetDefaultMemPool(a(pool), 1) == Err.InvalidDevice
        thr = ctypes.c_uint64(1 << 40)
        assert rt.cudaMemPoolSetAttribute(pool.value, ATTR_RELEASE_THRESHOLD, a(thr)) == 0
        got = u64()
        assert rt.cudaMemPoolGetAttribute(pool.value, ATTR_RELEASE_THRESHOLD, a(got)) == 0
        assert got.value == 1 << 40
        p1, p2 = u64(), u64()
        assert rt.cudaMallocAsync(a(p1), 1000, 0) == 0 and rt.cudaMallocAsync(a(p2), 24, 0) == 0
        assert set(rt._device_allocs) == {p1.value, p2.value}
        assert rt.cudaMemPoolGetAttribute(pool.value, ATTR_USED_MEM_CURRENT, a(got)) == 0
        assert got.value == 1024
        assert rt.cudaFreeAsync(p1.value, 0) == 0
        assert rt.cudaMemPoolGetAttribute(pool.value, ATTR_USED_MEM_CURRENT, a(got)) == 0
        assert got.value == 24
        assert rt.cudaMemPoolGetAttribute(pool.value, ATTR_USED_MEM_HIGH, a(got)) == 0
        assert got.value == 1024
        zero, one = ctypes.c_uint64(0), ctypes.c_uint64(1)
        assert rt.cudaMemPoolSetAttribute(pool.value, ATTR_USED_MEM_HIGH, a(one)) == Err.InvalidValue
        assert rt.cudaMemPoolSetAttribute(pool.value, ATTR_USED_MEM_HIGH, a(zero)) == 0
        assert rt.cudaMemPoolGetAttribute(pool.value, ATTR_USED_MEM_HIGH, a(got)) == 0
        assert got.value == 24
        assert rt.cudaMemPoolGetAttribute(pool.value, 99, a(got)) == Err.InvalidValue
        assert rt.cudaMemPoolTrimTo(pool.value, 0) == 0
        assert rt.cudaMemPoolDestroy(pool.value) == Err.InvalidValue      # the default pool
        rt.streams.synchronize_device()
        assert rt.gmem.find(p1.value) is None and rt.gmem.find(p2.value) is not None
    finally:
        assert rt.streams.shutdown(10.0)


def test_created_pool_and_malloc_from_pool():
    rt = Rt()
    try:
        props = ctypes.create_string_buffer(88)
        pool, ptr, got = u64(), u64(), u64()
        assert rt.cudaMemPoolCreate(a(pool), a(props)) == 0
        assert rt.cudaMemPoolCreate(a(pool), 0) == Err.InvalidValue
        assert rt.cudaMallocFromPoolAsync(a(ptr), 512, pool.value, 0) == 0
        assert rt.cudaMemPoolGetAttribute(pool.value, ATTR_USED_MEM_CURRENT, a(got)) == 0
        assert got.value == 512
        assert rt.cudaDeviceSetMemPool(0, pool.value) == 0
        cur = u64()
        assert rt.cudaDeviceGetMemPool(a(cur), 0) == 0 and cur.value == pool.value
        assert rt.cudaMallocAsync(a(ptr), 256, 0) == 0
        assert rt.cudaMemPoolGetAttribute(pool.value, ATTR_USED_MEM_CURRENT, a(got)) == 0
        assert got.value == 768
        assert rt.cudaMemPoolDestroy(pool.value) == 0
        assert rt.cudaMallocFromPoolAsync(a(ptr), 8, pool.value, 0) == Err.InvalidValue
        assert rt.cudaDeviceGetMemPool(a(cur), 0) == 0 and cur.value != pool.value
    finally:
        assert rt.streams.shutdown(10.0)
