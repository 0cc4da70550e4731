"""Device global memory: allocations as separate numpy byte buffers.

GPGPU-Sim counterpart: ``memory_space_impl`` / ``g_global_mem`` (``src/cuda-sim/memory.h``),
checklist C226, C227.  GPGPU-Sim keeps one sparse paged space; we keep one ``np.uint8`` buffer
per allocation, keyed by its device base address, because every CUDA access is inside one
allocation (an access that is not is an illegal address, exactly what compute-sanitizer reports).

Contract (docs/CONTRACTS.md):

* ``allocate(size, align=256)`` hands out addresses from ``0xC0000000`` up (GPGPU-Sim's
  ``GLOBAL_HEAP_START``), first-fit reuse of freed ranges, then bump.  Every allocation is at
  least 256-byte aligned, as ``cudaMalloc`` guarantees.
* ``map_host(buf)`` registers host memory (managed / mapped memory) at its *own* host address,
  so the device pointer equals the host pointer, as with unified addressing.
* Vectorised access for the engine: :meth:`load` / :meth:`store` / :meth:`translate` take an
  array of per-lane addresses.  The fast path (all lanes inside one allocation, the common case)
  costs two reductions and one gather; the general path uses ``np.searchsorted`` on the sorted
  base addresses.  Faults raise :class:`MemoryFault` carrying the first bad lane, so that the
  engine can build a message naming kernel, block, thread and instruction.
"""

from __future__ import annotations

import bisect

import numpy as np

from gpgpusim.errors import CudaError, Err

#: First device address handed out by :meth:`GlobalMemory.allocate` (GPGPU-Sim GLOBAL_HEAP_START).
GLOBAL_HEAP_START = 0xC0000000
#: Backing buffers are padded to a multiple of this, so typed views of any width fit.
_PAD = 16


class MemoryFault(Exception):
    """A vectorised access touched an unmapped or out-of-bounds address, or was misaligned.

    ``kind`` is ``"illegal"`` or ``"misaligned"``; ``lane`` is the index (into the address
    array given to the access) of the first faulting lane; ``address`` its address.
    The engine converts this into ``CudaError(IllegalAddress|MisalignedAddress, sticky=True)``.
    """

    def __init__(self, kind: str, lane: int, address: int, size: int) -> None:
        super().__init__(f"{kind} address {address:#x} ({size} bytes)")
        self.kind = kind
        self.lane = lane
        self.address = address
        self.size = size


class GlobalMemory:
    """The device's global address space (global, constant and heap all share it, C227)."""

    __slots__ = ("_bufs", "_sizes", "_idx", "_free", "_top", "_host", "_typed", "used_bytes")

    def __init__(self) -> None:
        self._bufs: dict[int, np.ndarray] = {}     # base -> backing uint8 buffer (padded)
        self._sizes: dict[int, int] = {}           # base -> logical size in bytes
        # (sorted bases, bases as uint64 array, ends as uint64 array): replaced as a whole on every
        # allocate/free, so the simulation thread always reads a consistent snapshot while the
        # host thread allocates (cudaMalloc during an asynchronous kernel)
        self._idx: tuple[list[int], np.ndarray, np.ndarray] = (
            [], np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint64))
        self._free: list[tuple[int, int]] = []     # freed (start, size) ranges of the heap
        self._top = GLOBAL_HEAP_START
        self._host: set[int] = set()               # bases registered by map_host
        self._typed: dict[tuple[int, str], tuple[np.ndarray, int]] = {}
        self.used_bytes = 0

    # ------------------------------------------------------------------ allocation
    def allocate(self, size: int, align: int = 256) -> int:
        """Allocate ``size`` bytes (zero-filled) and return the device address."""
        if size < 0:
            raise CudaError(Err.InvalidValue, f"cannot allocate a negative size ({size} bytes)")
        if align <= 0 or align & (align - 1):
            raise CudaError(Err.InvalidValue, f"allocation alignment {align} is not a power of two")
        align = max(align, 256)
        span = max(1, size)
        span = (span + 255) & ~255
        addr = None
        for i, (start, fsize) in enumerate(self._free):
            a = (start + align - 1) & ~(align - 1)
            if a + span <= start + fsize:
                addr = a
                del self._free[i]
                if a > start:
                    self._free.append((start, a - start))
                if a + span < start + fsize:
                    self._free.append((a + span, start + fsize - a - span))
                self._free.sort()
                break
        if addr is None:
            addr = (self._top + align - 1) & ~(align - 1)
            self._top = addr + span
        buf = np.zeros(((max(size, 1) + _PAD - 1) // _PAD) * _PAD, dtype=np.uint8)
        self._insert(addr, buf, size)
        return addr

    def map_host(self, buf: np.ndarray) -> int:
        """Register host memory (a uint8 numpy array, kept alive here) at its own address."""
        if not isinstance(buf, np.ndarray) or buf.dtype != np.uint8 or buf.ndim != 1:
            raise CudaError(Err.InvalidValue, "map_host needs a 1-D uint8 numpy array")
        addr = int(buf.ctypes.data)
        hit = self.find(addr)
        if hit is not None or (buf.size and self.find(addr + buf.size - 1) is not None):
            raise CudaError(Err.InvalidValue, f"host range {addr:#x} is already registered")
        self._insert(addr, buf, int(buf.size))
        self._host.add(addr)
        return addr

    def free(self, addr: int) -> None:
        """Release an allocation (or unregister host memory) by its base address."""
        if addr not in self._bufs:
            raise CudaError(Err.InvalidValue,
                            f"free of {addr:#x}: not the start of a live device allocation")
        size = self._sizes[addr]
        self._publish([b for b in self._idx[0] if b != addr])
        del self._sizes[addr]
        del self._bufs[addr]
        self._typed = {k: v for k, v in self._typed.items() if k[0] != addr}
        if addr in self._host:
            self._host.discard(addr)
            return
        self.used_bytes -= size
        span = (max(1, size) + 255) & ~255
        self._free.append((addr, span))
        self._free.sort()
        # merge adjacent free ranges; give the tail back to the bump pointer
        merged: list[tuple[int, int]] = []
        for s, n in self._free:
            if merged and merged[-1][0] + merged[-1][1] == s:
                merged[-1] = (merged[-1][0], merged[-1][1] + n)
            else:
                merged.append((s, n))
        if merged and merged[-1][0] + merged[-1][1] == self._top:
            self._top = merged[-1][0]
            merged.pop()
        self._free = merged

    def _insert(self, addr: int, buf: np.ndarray, size: int) -> None:
        self._bufs[addr] = buf
        self._sizes[addr] = size
        bases = list(self._idx[0])
        bisect.insort(bases, addr)
        self._publish(bases)
        if buf is not None and addr not in self._host:
            self.used_bytes += size

    def _publish(self, bases: list[int]) -> None:
        self._idx = (bases, np.array(bases, dtype=np.uint64),
                     np.array([b + self._sizes[b] for b in bases], dtype=np.uint64))

    # ------------------------------------------------------------------ scalar access
    def find(self, addr: int) -> tuple[int, int] | None:
        """The ``(base, size)`` of the allocation containing ``addr``, or None."""
        bases = self._idx[0]
        i = bisect.bisect_right(bases, addr) - 1
        if i < 0:
            return None
        base = bases[i]
        size = self._sizes[base]
        if addr < base + max(size, 1):
            return base, size
        return None

    def _locate(self, addr: int, nbytes: int, what: str) -> tuple[np.ndarray, int]:
        hit = self.find(addr)
        if hit is None:
            raise CudaError(Err.InvalidValue, f"{what}: address {addr:#x} is not device memory")
        base, size = hit
        if nbytes < 0 or addr + nbytes > base + size:
            raise CudaError(Err.InvalidValue,
                            f"{what}: {nbytes} bytes at {addr:#x} run past the end of the "
                            f"allocation [{base:#x}, {base + size:#x})")
        return self._bufs[base], addr - base

    def read(self, addr: int, nbytes: int) -> np.ndarray:
        """A copy of ``nbytes`` bytes at ``addr``."""
        buf, off = self._locate(addr, nbytes, "read")
        return buf[off:off + nbytes].copy()

    def write(self, addr: int, data: bytes | bytearray | memoryview | np.ndarray) -> None:
        """Write raw bytes (or any numpy array's bytes) at ``addr``."""
        if isinstance(data, np.ndarray):
            src = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        else:
            src = np.frombuffer(bytes(data), dtype=np.uint8)
        buf, off = self._locate(addr, src.size, "write")
        buf[off:off + src.size] = src

    def view(self, addr: int, nbytes: int) -> np.ndarray:
        """A writable uint8 view of ``nbytes`` bytes at ``addr``."""
        buf, off = self._locate(addr, nbytes, "view")
        return buf[off:off + nbytes]

    def host_ptr(self, addr: int) -> int:
        """Host address of the byte backing device address ``addr`` (for ctypes.memmove)."""
        buf, off = self._locate(addr, 0, "host_ptr")
        return int(buf.ctypes.data) + off

    def is_host_mapped(self, addr: int) -> bool:
        hit = self.find(addr)
        return hit is not None and hit[0] in self._host

    # ------------------------------------------------------------------ vectorised access
    def _typed_view(self, base: int, dtype: np.dtype) -> tuple[np.ndarray, int]:
        """``(view, shift)``: the allocation as ``dtype`` elements starting ``shift`` bytes in,
        where ``base + shift`` is aligned (host-mapped buffers need not be), so that element
        ``(offset - shift) // itemsize`` holds the naturally aligned value at ``base + offset``."""
        key = (base, dtype.str)
        v = self._typed.get(key)
        if v is None:
            shift = (-base) % dtype.itemsize
            buf = self._bufs[base][shift:]
            n = (buf.size // dtype.itemsize) * dtype.itemsize
            v = self._typed[key] = (buf[:n].view(dtype), shift)
        return v

    def index(self, base: int, dtype: np.dtype, offs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The typed view of allocation ``base`` and the element indices of byte ``offs``."""
        view, shift = self._typed_view(base, dtype)
        sh = dtype.itemsize.bit_length() - 1
        if shift:
            offs = offs - shift
        return view, (offs >> sh if sh else offs)

    def translate(self, addrs: np.ndarray, size: int) -> list[tuple[int, np.ndarray | None, np.ndarray]]:
        """Split lanes by allocation: a list of ``(base, lane_indices or None, offsets)``.

        ``lane_indices`` is None when every lane hits that one allocation (the fast path).
        Raises :class:`MemoryFault` for the first lane outside every allocation.
        """
        n = addrs.size
        if n == 0:
            return []
        a = addrs.astype(np.uint64, copy=False)
        lo = int(a.min())
        hi = int(a.max())
        bases, base_arr, end_arr = self._idx
        i = bisect.bisect_right(bases, lo) - 1
        if i >= 0:
            base = bases[i]
            if hi + size <= base + self._sizes[base]:
                return [(base, None, (a - np.uint64(base)).view(np.int64))]
        idx = np.searchsorted(base_arr, a, side="right").astype(np.int64) - 1
        ok = idx >= 0
        safe = np.where(ok, idx, 0)
        if end_arr.size:
            ok &= (a + np.uint64(size)) <= end_arr[safe]
        else:
            ok[:] = False
        if not ok.all():
            lane = int(np.flatnonzero(~ok)[0])
            raise MemoryFault("illegal", lane, int(a[lane]), size)
        out: list[tuple[int, np.ndarray | None, np.ndarray]] = []
        for k in np.unique(safe):
            lanes = np.flatnonzero(safe == k)
            base = bases[int(k)]
            out.append((base, lanes, (a[lanes] - np.uint64(base)).astype(np.int64)))
        return out

    @staticmethod
    def check_aligned(addrs: np.ndarray, size: int) -> None:
        """Raise :class:`MemoryFault` ("misaligned") unless every address is size-aligned."""
        if size > 1 and addrs.size and int(np.bitwise_or.reduce(addrs)) & (size - 1):
            bad = (addrs.astype(np.uint64, copy=False) & np.uint64(size - 1)) != 0
            lane = int(np.flatnonzero(bad)[0])
            raise MemoryFault("misaligned", lane, int(addrs[lane]), size)

    def load(self, addrs: np.ndarray, dtype: np.dtype | type) -> np.ndarray:
        """Gather one naturally aligned ``dtype`` value per lane."""
        dt = np.dtype(dtype)
        self.check_aligned(addrs, dt.itemsize)
        parts = self.translate(addrs, dt.itemsize)
        if len(parts) == 1 and parts[0][1] is None:
            view, idx = self.index(parts[0][0], dt, parts[0][2])
            return view[idx]
        out = np.empty(addrs.size, dtype=dt)
        for base, lanes, offs in parts:
            view, idx = self.index(base, dt, offs)
            out[lanes] = view[idx]
        return out

    def store(self, addrs: np.ndarray, values: np.ndarray) -> None:
        """Scatter one value per lane; colliding lanes: the highest lane wins (numpy order)."""
        dt = values.dtype
        self.check_aligned(addrs, dt.itemsize)
        parts = self.translate(addrs, dt.itemsize)
        if len(parts) == 1 and parts[0][1] is None:
            view, idx = self.index(parts[0][0], dt, parts[0][2])
            view[idx] = values
            return
        for base, lanes, offs in parts:
            view, idx = self.index(base, dt, offs)
            view[idx] = values[lanes]

    def typed(self, base: int, dtype: np.dtype | type) -> tuple[np.ndarray, int]:
        """The allocation at ``base`` as ``dtype`` elements: ``(view, shift)`` (see ``index``)."""
        return self._typed_view(base, np.dtype(dtype))
