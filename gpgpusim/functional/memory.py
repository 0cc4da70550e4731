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

Threads: host threads allocate and free (``cudaMalloc``/``cudaFree`` from several application
threads at once) while the simulation thread reads.  Writers (:meth:`allocate`,
:meth:`map_host`, :meth:`free`) serialise on one lock; readers take no lock (except to fill
the typed-view cache, once per allocation and dtype): every lookup reads one immutable snapshot
(:attr:`_idx`: sorted bases, their sizes and buffers) that writers replace as a whole, so a
lookup never sees a half-updated index and an allocation freed while a kernel runs is still
found consistently in the snapshot that kernel read.

Mapped pages (what the hardware does with an access a little outside an allocation):
``cudaMalloc`` memory lives in pages the driver maps at a granularity of :data:`PAGE_SIZE` =
2 MiB, the large-page size NVIDIA's driver uses for device allocations since Pascal (its
allocator sub-allocates small ``cudaMalloc`` blocks from 2 MiB chunks, which is why two small
allocations are 512 bytes apart on a real GPU, and why a read just outside a block returns data
instead of faulting).  So a device access (:meth:`translate`) that is in no allocation but in a
mapped page succeeds: its bytes live in a lazily created, zero-filled per-page buffer ("gap"
memory), so never-written bytes read 0 and writes land there; only an access to an unmapped
page raises :class:`MemoryFault`.  A page is mapped while a live heap allocation overlaps it;
the page just below :data:`GLOBAL_HEAP_START` is always mapped: it stands for the context's
own data that the driver places before the first user allocation (on a real GPU the first
``cudaMalloc`` block is never at the start of the driver's first chunk), so that reading the
row before the first allocation, as stencil codes do, works as on the hardware.  Host memory
registered with :meth:`map_host` gets no pages (accesses outside it fault).  The copy/memset
entry points (:meth:`read`, :meth:`write`, :meth:`view`) stay bounded by the allocation, as
CUDA's API checks are.  Memcheck (``translate(..., report=)``) is told about every lane not
wholly inside a live allocation; :meth:`describe` says where such an address lies.
"""

from __future__ import annotations

import bisect
import collections
import threading
from typing import TYPE_CHECKING, Callable

import numpy as np

from gpgpusim.errors import CudaError, Err

if TYPE_CHECKING:
    from .sectors import SectorLog

#: generic addresses: the global window lies below ``1 << WINDOW_SHIFT``, the shared and local
#: windows above it (``state.SHARED_WINDOW``, ``state.LOCAL_WINDOW``)
WINDOW_SHIFT = np.uint64(48)

#: First device address handed out by :meth:`GlobalMemory.allocate` (GPGPU-Sim GLOBAL_HEAP_START).
GLOBAL_HEAP_START = 0xC0000000
#: Backing buffers are padded to a multiple of this, so typed views of any width fit.
_PAD = 16
#: Granularity of the driver's device-memory mappings (2 MiB large pages, see the docstring).
PAGE_SHIFT = 21
PAGE_SIZE = 1 << PAGE_SHIFT
#: The always-mapped page below the heap (the context's own data precedes user allocations).
_DRIVER_PAGE = (GLOBAL_HEAP_START >> PAGE_SHIFT) - 1
_PINNED = 1 << 62
#: How many freed allocations memcheck remembers (to say "inside a freed allocation").
_FREED_KEEP = 4096


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

    __slots__ = ("_bufs", "_sizes", "_idx", "_free", "_top", "_host", "_typed", "_lock",
                 "used_bytes", "_pages", "_gap", "_freed", "cow", "sectors")

    def __init__(self) -> None:
        self._lock = threading.Lock()              # serialises writers; readers use _idx
        self._bufs: dict[int, np.ndarray] = {}     # base -> backing uint8 buffer (padded)
        self._sizes: dict[int, int] = {}           # base -> logical size in bytes
        # (sorted bases, bases as uint64 array, ends as uint64 array, sizes, buffers), index i of
        # each describing the same allocation: replaced as a whole on every allocate/free, so a
        # reader (the simulation thread, or another host thread) always sees one consistent
        # snapshot while a host thread allocates or frees
        self._idx: tuple[list[int], np.ndarray, np.ndarray, list[int], list[np.ndarray]] = (
            [], np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint64), [], [])
        self._free: list[tuple[int, int]] = []     # freed (start, size) ranges of the heap
        self._top = GLOBAL_HEAP_START
        self._host: set[int] = set()               # bases registered by map_host
        # base -> (the buffer the views were made of, {dtype.str: (typed view, shift)})
        self._typed: dict[int, tuple[np.ndarray, dict[str, tuple[np.ndarray, int]]]] = {}
        self.used_bytes = 0
        # page number -> number of live heap allocations overlapping it (mapped pages)
        self._pages: dict[int, int] = {_DRIVER_PAGE: _PINNED}
        # page number -> zero-filled PAGE_SIZE buffer holding the page's bytes outside every
        # allocation (created on first access)
        self._gap: dict[int, np.ndarray] = {}
        self._freed: collections.deque[tuple[int, int]] = collections.deque(maxlen=_FREED_KEEP)
        #: the open snapshot, or None: the engine tells it before it writes global memory (its
        #: stores, atomics and surface writes call ``cow.before_write``), and the allocations and
        #: frees of its thread are noted in it (``MemorySnapshot.restorable``)
        self.cow: MemorySnapshot | None = None
        #: the first touches of each 32-byte sector (``sectors.SectorLog``; kernel sampling's
        #: cold misses), told of every global access by the engine; None when not kept
        self.sectors: SectorLog | None = None

    # ------------------------------------------------------------------ snapshots
    def snapshot(self) -> MemorySnapshot:
        """The memory's contents now, for :meth:`MemorySnapshot.restore` (kernel sampling runs
        a launch functionally on trial): copied on write, an allocation or gap page at a time
        as the engine is about to write it first (``cow``), until :meth:`MemorySnapshot.close`."""
        return MemorySnapshot(self)

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
        buf = np.zeros(((max(size, 1) + _PAD - 1) // _PAD) * _PAD, dtype=np.uint8)
        with self._lock:
            addr = self._place(span, align)
            self._insert(addr, buf, size)
        return addr

    def _place(self, span: int, align: int) -> int:
        """First fit in the freed ranges, else bump ``_top`` (lock held)."""
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
        return addr

    def map_host(self, buf: np.ndarray) -> int:
        """Register host memory (a uint8 numpy array, kept alive here) at its own address."""
        if not isinstance(buf, np.ndarray) or buf.dtype != np.uint8 or buf.ndim != 1:
            raise CudaError(Err.InvalidValue, "map_host needs a 1-D uint8 numpy array")
        addr = int(buf.ctypes.data)
        with self._lock:
            hit = self.find(addr)
            if hit is not None or (buf.size and self.find(addr + buf.size - 1) is not None):
                raise CudaError(Err.InvalidValue, f"host range {addr:#x} is already registered")
            self._host.add(addr)
            self._insert(addr, buf, int(buf.size))
        return addr

    def free(self, addr: int) -> None:
        """Release an allocation (or unregister host memory) by its base address."""
        with self._lock:
            self._release(addr)

    def _release(self, addr: int) -> None:
        if addr not in self._bufs:
            raise CudaError(Err.InvalidValue,
                            f"free of {addr:#x}: not the start of a live device allocation")
        if self.cow is not None:
            self.cow.released(addr)
        if self.sectors is not None:
            self.sectors.forget(addr)
        size = self._sizes[addr]
        del self._sizes[addr]
        del self._bufs[addr]
        self._publish([b for b in self._idx[0] if b != addr])
        self._typed.pop(addr, None)
        if addr in self._host:
            self._host.discard(addr)
            return
        self.used_bytes -= size
        span = (max(1, size) + 255) & ~255
        self._freed.append((addr, size))
        for pg in range(addr >> PAGE_SHIFT, ((addr + span - 1) >> PAGE_SHIFT) + 1):
            n = self._pages.get(pg, 0) - 1
            if n > 0:
                self._pages[pg] = n
            else:              # the last allocation in the page is gone: the page is unmapped
                self._pages.pop(pg, None)
                self._gap.pop(pg, None)
                self._typed.pop(-1 - pg, None)
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
        """Record a new allocation and publish the new snapshot (lock held)."""
        if self.cow is not None:
            self.cow.allocated(addr)
        self._bufs[addr] = buf
        self._sizes[addr] = size
        self._typed.pop(addr, None)
        bases = list(self._idx[0])
        bisect.insort(bases, addr)
        self._publish(bases)
        if addr not in self._host:
            self.used_bytes += size
            span = (max(1, size) + 255) & ~255
            for pg in range(addr >> PAGE_SHIFT, ((addr + span - 1) >> PAGE_SHIFT) + 1):
                self._pages[pg] = self._pages.get(pg, 0) + 1

    def _publish(self, bases: list[int]) -> None:
        """Replace the lookup snapshot (lock held); one assignment, so readers see the old
        snapshot or the new one, never a mixture."""
        sizes = [self._sizes[b] for b in bases]
        self._idx = (bases, np.array(bases, dtype=np.uint64),
                     np.array([b + n for b, n in zip(bases, sizes, strict=True)], dtype=np.uint64),
                     sizes, [self._bufs[b] for b in bases])

    # ------------------------------------------------------------------ scalar access
    def _lookup(self, addr: int) -> tuple[int, int, np.ndarray] | None:
        """``(base, size, buffer)`` of the allocation containing ``addr``, from one snapshot."""
        bases, _, _, sizes, bufs = self._idx
        i = bisect.bisect_right(bases, addr) - 1
        if i < 0:
            return None
        base = bases[i]
        size = sizes[i]
        if addr < base + max(size, 1):
            return base, size, bufs[i]
        return None

    def find(self, addr: int) -> tuple[int, int] | None:
        """The ``(base, size)`` of the allocation containing ``addr``, or None."""
        hit = self._lookup(addr)
        return None if hit is None else (hit[0], hit[1])

    def extent(self, base: int) -> int:
        """Bytes an access may reach in allocation ``base``: its size and the padding after it
        (0 when there is no such allocation)."""
        buf = self._bufs.get(base)
        return 0 if buf is None else int(buf.size)

    def _locate(self, addr: int, nbytes: int, what: str) -> tuple[np.ndarray, int]:
        hit = self._lookup(addr)
        if hit is None:
            raise CudaError(Err.InvalidValue, f"{what}: address {addr:#x} is not device memory")
        base, size, buf = hit
        if nbytes < 0 or addr + nbytes > base + size:
            raise CudaError(Err.InvalidValue,
                            f"{what}: {nbytes} bytes at {addr:#x} run past the end of the "
                            f"allocation [{base:#x}, {base + size:#x})")
        return buf, addr - base

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
        entry = self._typed.get(base)
        if entry is not None:
            v = entry[1].get(dtype.str)
            if v is not None:
                return v
        if base < 0:
            return self._gap_view(base, dtype)
        with self._lock:
            # under the writers' lock: an entry made from a buffer that a host thread frees (and
            # perhaps reallocates at the same base) meanwhile must not be cached after
            # _release/_insert dropped the old one, or later kernels would use the dead buffer
            buf = self._bufs.get(base)
            if buf is None:
                raise CudaError(Err.IllegalAddress,
                                f"allocation {base:#x} was freed while a kernel was using it",
                                sticky=True)
            entry = self._typed.get(base)
            if entry is None or entry[0] is not buf:
                entry = (buf, {})
                self._typed[base] = entry
        shift = (-base) % dtype.itemsize
        part = buf[shift:]
        n = (part.size // dtype.itemsize) * dtype.itemsize
        v = entry[1][dtype.str] = (part[:n].view(dtype), shift)
        return v

    def _gap_view(self, key: int, dtype: np.dtype) -> tuple[np.ndarray, int]:
        """Typed view of the gap buffer of page ``-1 - key`` (created zero-filled on first use)."""
        pg = -1 - key
        with self._lock:
            if pg not in self._pages:
                raise CudaError(Err.IllegalAddress,
                                f"page {pg << PAGE_SHIFT:#x} was unmapped while a kernel was using it",
                                sticky=True)
            buf = self._gap.get(pg)
            if buf is None:
                buf = self._gap[pg] = np.zeros(PAGE_SIZE, dtype=np.uint8)
            entry = self._typed.get(key)
            if entry is None or entry[0] is not buf:
                entry = (buf, {})
                self._typed[key] = entry
            v = entry[1][dtype.str] = (buf.view(dtype), 0)
        return v

    def is_mapped(self, addr: int) -> bool:
        """Whether device address ``addr`` is in a mapped page or a live allocation."""
        return (addr >> PAGE_SHIFT) in self._pages or self._lookup(addr) is not None

    def describe(self, addr: int, size: int) -> str:
        """Where ``addr`` lies relative to the allocations, in compute-sanitizer's words:
        ``"is 512 bytes before the nearest allocation at 0x... of size N bytes"``."""
        bases, _, _, sizes, _ = self._idx
        i = bisect.bisect_right(bases, addr) - 1
        if i >= 0 and addr < bases[i] + max(sizes[i], 1):
            base, n = bases[i], sizes[i]
            return (f"is {addr - base} bytes inside the allocation at {base:#x} of size {n} bytes "
                    f"and the access runs {addr + size - base - n} bytes past its end")
        for fb, fn in reversed(self._freed):
            if fb <= addr < fb + max(fn, 1) and self._lookup(fb) is None:
                return f"is {addr - fb} bytes inside a freed allocation at {fb:#x} of size {fn} bytes"
        best: tuple[int, str, int, int] | None = None
        if i >= 0:
            base, n = bases[i], sizes[i]
            best = (addr - (base + n), "after", base, n)
        if i + 1 < len(bases):
            base, n = bases[i + 1], sizes[i + 1]
            d = base - addr
            if best is None or d < best[0]:
                best = (d, "before", base, n)
        if best is None:
            return "is not near any allocation (no device memory is allocated)"
        d, where, base, n = best
        return f"is {d} bytes {where} the nearest allocation at {base:#x} of size {n} bytes"

    def index(self, base: int, dtype: np.dtype, offs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The typed view of allocation ``base`` and the element indices of byte ``offs``."""
        view, shift = self._typed_view(base, dtype)
        sh = dtype.itemsize.bit_length() - 1
        if shift:
            offs = offs - shift
        return view, (offs >> sh if sh else offs)

    def translate(self, addrs: np.ndarray, size: int,
                  report: Callable[[np.ndarray, np.ndarray, int], None] | None = None,
                  ) -> list[tuple[int, np.ndarray | None, np.ndarray]]:
        """Split lanes by allocation: a list of ``(base, lane_indices or None, offsets)``.

        ``lane_indices`` is None when every lane hits that one allocation (the fast path).
        A lane in no allocation but in a mapped page is served from the page's gap buffer
        (``base`` is then the negative key ``-1 - page``, for :meth:`index`).  Raises
        :class:`MemoryFault` for the first lane in an unmapped page.  ``report(positions,
        addrs, size)`` (memcheck) is called first with the lanes not wholly inside a live
        allocation; it may raise to stop the access.
        """
        n = addrs.size
        if n == 0:
            return []
        a = addrs.astype(np.uint64, copy=False)
        lo = int(a.min())
        hi = int(a.max())
        bases, base_arr, end_arr, sizes, _ = self._idx
        i = bisect.bisect_right(bases, lo) - 1
        if i >= 0:
            base = bases[i]
            if hi + size <= base + sizes[i]:
                return [(base, None, (a - np.uint64(base)).view(np.int64))]
        idx = np.searchsorted(base_arr, a, side="right").astype(np.int64) - 1
        ok = idx >= 0
        safe = np.where(ok, idx, 0)
        if end_arr.size:
            end = end_arr[safe]
            inside = ok
            ok = ok & ((a + np.uint64(size)) <= end)    # wholly inside
        else:
            end = inside = ok = np.zeros(n, dtype=np.bool_)
        if not ok.all():
            if report is not None:
                report(np.flatnonzero(~ok), a, size)
            if end_arr.size:
                inside = inside & (a < end)             # starts inside an allocation
            return self._translate_slow(a, size, ok, inside, safe, bases)
        out: list[tuple[int, np.ndarray | None, np.ndarray]] = []
        for k in np.unique(safe):
            lanes = np.flatnonzero(safe == k)
            base = bases[int(k)]
            out.append((base, lanes, (a[lanes] - np.uint64(base)).astype(np.int64)))
        return out

    def _translate_slow(self, a: np.ndarray, size: int, ok: np.ndarray, inside: np.ndarray,
                        safe: np.ndarray, bases: list[int]) -> list[tuple[int, np.ndarray | None, np.ndarray]]:
        """:meth:`translate` when some lanes are not wholly inside an allocation: those that
        start inside one read its padding (heap buffers are padded to 16 bytes, so an aligned
        access that starts inside fits); the others go to their page's gap buffer, or fault
        if the page is unmapped."""
        bufs = self._idx[4]
        pages = self._pages
        out: list[tuple[int, np.ndarray | None, np.ndarray]] = []
        gap = ~inside
        bad_lanes: list[int] = []
        if gap.any():
            gl = np.flatnonzero(gap)
            pg = (a[gl] >> np.uint64(PAGE_SHIFT)).astype(np.int64)
            for p in np.unique(pg).tolist():
                lanes = gl[pg == p]
                if p not in pages:
                    bad_lanes.append(int(lanes[0]))
                    continue
                out.append((-1 - p, lanes, (a[lanes] - np.uint64(p << PAGE_SHIFT)).astype(np.int64)))
        part = inside & ~ok
        if part.any():
            for lane in np.flatnonzero(part).tolist():
                k = int(safe[lane])
                if int(a[lane]) - bases[k] + size > bufs[k].size:     # host memory: no padding
                    bad_lanes.append(lane)
        if bad_lanes:
            lane = min(bad_lanes)
            raise MemoryFault("illegal", lane, int(a[lane]), size)
        for k in np.unique(safe[inside]).tolist():
            lanes = np.flatnonzero(inside & (safe == k))
            base = bases[k]
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


class MemorySnapshot:
    """The contents of a :class:`GlobalMemory` at one moment (:meth:`GlobalMemory.snapshot`),
    for the thread that took it to put back (kernel sampling's trial functional run, on the
    simulation thread).

    Copy on write: while it is open, the engine calls :meth:`before_write` with the addresses
    of every global store, atomic and surface write before making it, and the first write into
    an allocation (or a gap page between allocations) copies that allocation (page) first.
    A trial run thus copies what it writes, not the whole device memory.  A copy taken before
    the first write holds the value from before every later write, deferred atomics included.

    Other threads may allocate and free meanwhile (a host thread's ``cudaMalloc``): their
    allocations are left as they are.  The snapshot's own thread allocating or freeing (a
    kernel's device-side ``malloc``) makes it unrestorable.  :meth:`close` (or
    :meth:`restore`) ends the copying and the watch on that thread's allocations."""

    def __init__(self, gmem: GlobalMemory) -> None:
        self.gmem = gmem
        self.thread = threading.get_ident()     # the thread that took it (and may restore it)
        self.made: set[int] = set()     # allocations the snapshot's thread made since, not freed
        self.freed = False              # it freed an allocation of the snapshot's
        self.bufs: dict[int, np.ndarray] = {}     # base -> the allocation's bytes before its first write
        self.gaps: dict[int, np.ndarray | None] = {}   # gap page -> its bytes then (None: none yet)
        with gmem._lock:
            self.live = dict(gmem._bufs)            # base -> the buffer then
            gmem.cow = self
        if gmem.sectors is not None:
            gmem.sectors.begin()

    def before_write(self, space: str, addrs: np.ndarray) -> None:
        """The engine is about to write ``space`` memory at ``addrs``: copy each allocation
        (gap page) of the snapshot's that they reach and that was not copied yet."""
        if space == "generic":
            a = np.asarray(addrs, dtype=np.uint64)
            a = a[(a >> WINDOW_SHIFT) == 0]          # the global window
        elif space == "global":
            a = np.asarray(addrs, dtype=np.uint64)
        else:
            return
        if not a.size:
            return
        bases, barr, ends, _sizes, bufs = self.gmem._idx
        i = np.searchsorted(barr, a, side="right") - 1
        inside = i >= 0
        inside[inside] = a[inside] < ends[i[inside]]
        hit = i[inside]
        if not hit.size:
            reached: list[int] = []
        else:
            # most writes stay in one allocation: its index without np.unique's sort (~60 us)
            lo, hi = int(hit.min()), int(hit.max())
            reached = [lo] if lo == hi else np.unique(hit).tolist()
        for k in reached:
            base = bases[k]
            if base not in self.bufs and self.live.get(base) is bufs[k]:
                self.bufs[base] = bufs[k].copy()
        if not inside.all():
            gap = self.gmem._gap
            for pg in np.unique(a[~inside] >> np.uint64(PAGE_SHIFT)).tolist():
                if pg not in self.gaps:
                    old = gap.get(pg)
                    self.gaps[pg] = None if old is None else old.copy()

    def allocated(self, addr: int) -> None:
        """``addr`` was allocated (lock held): noted when the snapshot's thread allocated it."""
        if threading.get_ident() == self.thread:
            self.made.add(addr)

    def released(self, addr: int) -> None:
        """``addr`` was freed (lock held): noted when the snapshot's thread freed it."""
        if threading.get_ident() != self.thread:
            return
        if addr in self.made:
            self.made.discard(addr)
        else:
            self.freed = True

    def close(self) -> None:
        """Stop copying on write and noting the snapshot's thread's allocations."""
        g = self.gmem
        with g._lock:
            if g.cow is self:
                g.cow = None
                if g.sectors is not None:
                    g.sectors.end()

    def restorable(self) -> bool:
        """False when the snapshot's thread allocated or freed since (e.g. device-side malloc),
        or an allocation of the snapshot's is gone."""
        bufs = self.gmem._bufs
        return not self.made and not self.freed and all(bufs.get(b) is buf for b, buf in self.live.items())

    def written(self, max_bytes: int) -> WrittenState | None:
        """What the snapshot's thread wrote since (call before :meth:`restore`): the bytes that
        now differ from the snapshot's, to put in place again later
        (:meth:`WrittenState.apply`); None when gap pages were written or the allocations
        written hold more than ``max_bytes`` (nothing is copied then)."""
        if self.gaps or sum(old.size for old in self.bufs.values()) > max_bytes:
            return None
        g = self.gmem
        sectors = g.sectors.changes() if g.sectors is not None else []
        with g._lock:
            kept = {}
            for base, old in self.bufs.items():
                now = g._bufs[base]
                bits = np.empty((now.size + 7) // 8, dtype=np.uint8)
                for i in range(0, now.size, _DIFF_BLOCK):     # (no full-size temporary)
                    bits[i // 8:(i + _DIFF_BLOCK) // 8] = np.packbits(now[i:i + _DIFF_BLOCK] != old[i:i + _DIFF_BLOCK])
                kept[base] = (now.copy(), bits)
            return WrittenState(kept, sectors)

    def restore(self) -> None:
        """Put back what was written (only when :meth:`restorable`) and :meth:`close`."""
        g = self.gmem
        with g._lock:
            for base, data in self.bufs.items():
                g._bufs[base][...] = data
            for pg, old in self.gaps.items():
                buf = g._gap.get(pg)
                if buf is not None:
                    buf[...] = 0 if old is None else old
        if g.sectors is not None and g.cow is self:
            g.sectors.undo()
        self.close()


#: bytes compared at a time by :meth:`MemorySnapshot.written` (a multiple of 8)
_DIFF_BLOCK = 1 << 24


class WrittenState:
    """Bytes a run wrote into allocations (:meth:`MemorySnapshot.written`): per allocation
    base, its contents after the run and a bit per byte for those the run changed; and the
    sector states the run left (``SectorLog.changes``), when the memory keeps them."""

    __slots__ = ("bufs", "sectors")

    def __init__(self, bufs: dict[int, tuple[np.ndarray, np.ndarray]],
                 sectors: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] | None = None) -> None:
        self.bufs = bufs
        self.sectors = sectors or []

    def apply(self, gmem: GlobalMemory) -> bool:
        """Write the changed bytes into ``gmem`` again; False (nothing written) when one of the
        allocations is gone or was replaced since."""
        with gmem._lock:
            live = gmem._bufs
            if any(base not in live or live[base].size != new.size for base, (new, _b) in self.bufs.items()):
                return False
            for base, (new, bits) in self.bufs.items():
                buf = live[base]
                for i in range(0, new.size, _DIFF_BLOCK):     # (no full-size mask, as written())
                    part = new[i:i + _DIFF_BLOCK]
                    changed = np.unpackbits(bits[i // 8:(i + _DIFF_BLOCK) // 8], count=part.size).view(np.bool_)
                    np.copyto(buf[i:i + _DIFF_BLOCK], part, where=changed)
        if gmem.sectors is not None:
            gmem.sectors.apply(self.sectors)
        return True
