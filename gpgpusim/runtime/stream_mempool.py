"""Memory pools behind stream-ordered allocation (``cudaMallocAsync`` / ``cudaFreeAsync``).

No GPGPU-Sim counterpart.  The simulator has one device memory (``GlobalMemory``); a pool here
is bookkeeping only: which allocations came from it, its attributes, and the
used/reserved-memory figures ``cudaMemPoolGetAttribute`` reports.  Freed memory goes straight
back to the device (reserved == used), which is one of the behaviours CUDA allows.
"""

from __future__ import annotations

import itertools
import threading

from gpgpusim.errors import CudaError, Err

# cudaMemPoolAttr
ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1
ATTR_REUSE_ALLOW_OPPORTUNISTIC = 2
ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 3
ATTR_RELEASE_THRESHOLD = 4
ATTR_RESERVED_MEM_CURRENT = 5
ATTR_RESERVED_MEM_HIGH = 6
ATTR_USED_MEM_CURRENT = 7
ATTR_USED_MEM_HIGH = 8
#: attributes whose value is an ``int`` (the others are ``cuuint64_t``)
INT_ATTRS = (ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, ATTR_REUSE_ALLOW_OPPORTUNISTIC,
             ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES)


class MemPool:
    """``cudaMemPool_t``: attributes and usage counters."""

    __slots__ = ("handle", "attrs", "used", "used_high", "reserved_high", "allocs")

    def __init__(self, handle: int) -> None:
        self.handle = handle
        self.attrs = {ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: 1, ATTR_REUSE_ALLOW_OPPORTUNISTIC: 1,
                      ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: 1, ATTR_RELEASE_THRESHOLD: 0}
        self.used = 0
        self.used_high = 0
        self.reserved_high = 0
        self.allocs: dict[int, int] = {}   # base address -> size

    def get(self, attr: int) -> int:
        if attr in self.attrs:
            return self.attrs[attr]
        value = {ATTR_RESERVED_MEM_CURRENT: self.used, ATTR_RESERVED_MEM_HIGH: self.reserved_high,
                 ATTR_USED_MEM_CURRENT: self.used, ATTR_USED_MEM_HIGH: self.used_high}.get(attr)
        if value is None:
            raise CudaError(Err.InvalidValue, f"cudaMemPoolGetAttribute: unknown attribute {attr}")
        return value

    def set(self, attr: int, value: int) -> None:
        if attr in self.attrs:
            self.attrs[attr] = value
        elif attr in (ATTR_RESERVED_MEM_HIGH, ATTR_USED_MEM_HIGH):
            if value != 0:
                raise CudaError(Err.InvalidValue, f"cudaMemPoolSetAttribute: attribute {attr} "
                                "can only be reset to 0")
            if attr == ATTR_USED_MEM_HIGH:
                self.used_high = self.used
            else:
                self.reserved_high = self.used
        else:
            raise CudaError(Err.InvalidValue,
                            f"cudaMemPoolSetAttribute: attribute {attr} cannot be set")


class MemPools:
    """The device's pools: the default one, the current one, and user-created ones."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._handles = itertools.count(0x7A000010, 0x10)
        self.default = MemPool(next(self._handles))
        self.current = self.default
        self.pools: dict[int, MemPool] = {self.default.handle: self.default}
        self._owner: dict[int, MemPool] = {}   # allocation base -> its pool

    def get(self, handle: int) -> MemPool:
        pool = self.pools.get(handle)
        if pool is None:
            raise CudaError(Err.InvalidValue, f"memory pool handle {handle:#x} is not a live pool")
        return pool

    def create(self) -> MemPool:
        with self._lock:
            pool = MemPool(next(self._handles))
            self.pools[pool.handle] = pool
            return pool

    def destroy(self, handle: int) -> None:
        with self._lock:
            pool = self.get(handle)
            if pool is self.default:
                raise CudaError(Err.InvalidValue, "cudaMemPoolDestroy: the default pool cannot be destroyed")
            del self.pools[handle]
            if self.current is pool:
                self.current = self.default

    def allocated(self, pool: MemPool, addr: int, size: int) -> None:
        with self._lock:
            pool.allocs[addr] = size
            pool.used += size
            pool.used_high = max(pool.used_high, pool.used)
            pool.reserved_high = max(pool.reserved_high, pool.used)
            self._owner[addr] = pool

    def freed(self, addr: int) -> None:
        with self._lock:
            pool = self._owner.pop(addr, None)
            if pool is not None:
                pool.used -= pool.allocs.pop(addr)
