"""Stream-ordered allocation and memory pools (StreamApi over stream_mempool), on the real
Runtime so that cudaMallocAsync shares the device's allocation accounting with cudaMalloc."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from gpgpusim.errors import Err
from gpgpusim.runtime.stream_mempool import ATTR_RELEASE_THRESHOLD, ATTR_USED_MEM_CURRENT, ATTR_USED_MEM_HIGH


@pytest.fixture
def rt(monkeypatch):
    from gpgpusim.options import load_config
    from gpgpusim.runtime.api import Runtime

    monkeypatch.delenv("GPGPUSIM_DEVICE_MEMORY", raising=False)
    r = Runtime(load_config(None, env=False), splash=False)
    yield r
    assert r.streams.shutdown(10.0)


def u64() -> ctypes.c_uint64:
    return ctypes.c_uint64(0)


def a(obj) -> int:
    return ctypes.addressof(obj)


def mem_info(rt) -> tuple[int, int]:
    free, total = u64(), u64()
    assert rt.cudaMemGetInfo(a(free), a(total)) == 0
    return free.value, total.value


def test_default_pool_usage_and_attributes(rt):
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
    assert rt.memory_api.device_allocs == {p1.value: 1000, p2.value: 24}
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


def test_created_pool_and_malloc_from_pool(rt):
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


def test_malloc_async_counts_against_device_memory(rt, capsys):
    """cudaMallocAsync goes through the same capacity check and accounting as cudaMalloc."""
    total = 32 << 30                                             # SM7_QV100's Quadro GV100
    assert mem_info(rt) == (total, total)
    p, q = u64(), u64()
    assert rt.cudaMallocAsync(a(p), 40 << 30, 0) == Err.MemoryAllocation      # 40 GiB > 32 GiB
    assert "cudaMallocAsync: 42949672960 bytes requested, 34359738368 free" in capsys.readouterr().err
    assert rt.cudaMallocAsync(a(p), 20 << 30, 0) == 0
    assert mem_info(rt) == (total - (20 << 30), total)
    assert rt.cudaMalloc(a(q), 16 << 30) == Err.MemoryAllocation
    assert "17179869184 bytes requested, 12884901888 free" in capsys.readouterr().err
    assert rt.cudaFreeAsync(p.value, 0) == 0                     # free at once for accounting
    assert mem_info(rt) == (total, total)
    assert rt.cudaMalloc(a(q), 16 << 30) == 0
    assert rt.cudaFree(q.value) == 0
    assert mem_info(rt) == (total, total)


def test_free_async_only_frees_stream_ordered_or_malloc_memory(rt, capsys):
    """cudaFreeAsync refuses pinned, registered and managed memory, interior and unknown
    pointers, and double frees, without touching them; cudaMalloc memory is accepted."""
    pinned, managed, dev, mal = u64(), u64(), u64(), u64()
    assert rt.cudaMallocHost(a(pinned), 256) == 0
    assert rt.cudaMallocManaged(a(managed), 256, 1) == 0
    host = np.zeros(4096, np.uint8)
    assert rt.cudaHostRegister(host.ctypes.data, host.nbytes, 0) == 0
    assert rt.cudaMallocAsync(a(dev), 256, 0) == 0
    assert rt.cudaMalloc(a(mal), 256) == 0
    capsys.readouterr()
    for ptr, why in ((pinned.value, "managed, pinned or registered"),
                     (managed.value, "managed, pinned or registered"),
                     (host.ctypes.data, "managed, pinned or registered"),
                     (dev.value + 16, "inside an allocation"),
                     (0x1234, "not device memory")):
        assert rt.cudaFreeAsync(ptr, 0) == Err.InvalidValue
        assert why in capsys.readouterr().err
    rt.streams.synchronize_device()
    for ptr in (pinned.value, managed.value, host.ctypes.data, dev.value):
        assert rt.gmem.find(ptr) is not None                        # nothing was unmapped
    assert rt.cudaFreeAsync(dev.value, 0) == 0
    assert rt.cudaFreeAsync(dev.value, 0) == Err.InvalidValue        # double free
    assert rt.cudaFree(dev.value) == Err.InvalidValue
    assert rt.cudaFreeAsync(mal.value, 0) == 0                       # cudaMalloc memory is fine
    assert rt.cudaFreeAsync(mal.value, 0x5EE) == Err.InvalidValue    # already gone
    rt.streams.synchronize_device()
    assert rt.gmem.find(dev.value) is None and rt.gmem.find(mal.value) is None
    assert rt.cudaFreeHost(pinned.value) == 0
    assert rt.cudaFree(managed.value) == 0
    assert rt.cudaHostUnregister(host.ctypes.data) == 0


def test_free_async_bad_stream_changes_nothing(rt):
    p = u64()
    assert rt.cudaMallocAsync(a(p), 64, 0) == 0
    assert rt.cudaFreeAsync(p.value, 0xBAD0) == Err.InvalidResourceHandle
    assert p.value in rt.memory_api.device_allocs
    assert rt.cudaFreeAsync(p.value, 0) == 0
