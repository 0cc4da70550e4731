"""First touches of 32-byte sectors of device memory, as the functional run sees them.

Kernel sampling projects a launch's L2 misses and DRAM reads from its group's detailed launches,
per warp instruction.  That misses what only some launches do: read a sector of device memory
for the first time.  A Gaussian elimination step whose every eighth launch starts a new
32-byte sector of each row of its multiplier column, or a checksum kernel whose atomics reach a
new sector of its result array every fourth launch, misses in L2 and reads DRAM on exactly those
launches, and on no other.  Such *compulsory* misses are a property of the program's accesses,
not of timing, so the functional run that executes every projected launch can count them
exactly (``timing/kernel_sampling.py`` adds them to what the group's rate projects), and the
sectors it made readable can be placed in the timing model's L2 for the launches simulated
after it (:meth:`SectorLog.readable_since`).

:class:`SectorLog` keeps a state per 32-byte sector of every allocation, as an L2 as large as
the device memory would hold it under the lazy fetch-on-read write policy of the shipped
sector-cache configurations (``L`` in ``-gpgpu_cache:dl2``; ``timing/cache/write_alloc.py``):

* **absent** -- never touched: a read misses and reads DRAM (a *cold read*, then readable);
  a write misses without reading DRAM (a *cold write*; readable if it wrote every byte of the
  sector, else present but not readable);
* **written in part** -- present, not every byte written: a read misses and reads DRAM (a cold
  read); writes accumulate their bytes, and the sector becomes readable when all 32 are
  written (``data_cache::update_m_readable``);
* **readable** -- every access hits.

A host-to-device or device-to-host copy makes the sectors it covers readable
(``-gpgpu_perf_sim_memcpy``, the timing model's ``TimingGpu.memcpy``).  What is *not* modelled:
the L2's capacity (a sector evicted and read again is a capacity miss: that stays in the
group's per-instruction rate), texture and surface accesses, and the order of accesses
between the CTAs of one launch (the functional engine runs them chunk by chunk).

The engine tells the log of each global load, store and atomic of the lanes that ran it
(:meth:`SectorLog.read`, :meth:`SectorLog.write`); each call returns the cold accesses it made,
which the running ``Exec`` adds up per launch.  While a memory snapshot is open
(``MemorySnapshot``: kernel sampling's trial run, CTA sampling's screening run) the log journals
its changes, so that restoring memory restores the log too (:meth:`undo`), and a run whose
writes are put back later brings its sector states with them (:meth:`changes`, :meth:`apply`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .memory import WINDOW_SHIFT

if TYPE_CHECKING:
    from .memory import GlobalMemory

SECTOR_SHIFT = 5
SECTOR_BYTES = 1 << SECTOR_SHIFT
#: sector states
ABSENT, PARTIAL, READABLE = 0, 1, 2
_FULL = np.uint32(0xFFFFFFFF)


class SectorLog:
    """Per-sector states of the device's allocations (see the module docstring)."""

    __slots__ = ("gmem", "states", "masks", "journal")

    def __init__(self, gmem: GlobalMemory) -> None:
        self.gmem = gmem
        #: allocation base -> a state per sector (made at the allocation's first access)
        self.states: dict[int, np.ndarray] = {}
        #: allocation base -> the bytes written per sector, a bit each (made at the first write
        #: that leaves a sector written in part)
        self.masks: dict[int, np.ndarray] = {}
        #: while a snapshot is open: (allocation base, array, indices, their values before), in
        #: order
        self.journal: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] | None = None

    # ------------------------------------------------------------------ accesses
    def read(self, space: str, addrs: np.ndarray, size: int) -> int:
        """A load or atomic of ``size`` bytes at ``addrs`` (one per lane) ran: the number of
        sectors it found not readable (cold reads), which become readable."""
        cold = 0
        for base, offs in self._where(space, addrs, size):
            st = self._states(base)
            sec = offs >> SECTOR_SHIFT
            miss = sec[st[sec] != READABLE]
            if miss.size:
                miss = np.unique(miss)
                self._set(base, st, miss, READABLE)
                cold += int(miss.size)
        return cold

    def write(self, space: str, addrs: np.ndarray, size: int) -> int:
        """A store of ``size`` bytes at ``addrs`` ran: the number of sectors it found absent
        (cold writes).  A sector whose 32 bytes have all been written becomes readable."""
        cold = 0
        for base, offs in self._where(space, addrs, size):
            st = self._states(base)
            sec = offs >> SECTOR_SHIFT
            todo = st[sec] != READABLE
            if not todo.any():
                continue
            offs, sec = offs[todo], sec[todo]
            touched = np.unique(sec)
            cold += int(np.count_nonzero(st[touched] == ABSENT))
            # the bytes written, a bit each, per sector (lanes may write the same bytes)
            bits = np.zeros(touched.size, dtype=np.uint32)
            first = (np.uint32(1) << np.uint32(size)) - np.uint32(1) if size < 32 else _FULL
            lane_bits = first << (offs & (SECTOR_BYTES - 1)).astype(np.uint32)
            np.bitwise_or.at(bits, np.searchsorted(touched, sec), lane_bits)
            masks = self.masks.get(base)
            if masks is not None:
                bits |= masks[touched]
            full = bits == _FULL
            if not full.all():
                # only sectors left in part keep their bytes (a wholly written array needs none)
                if masks is None:
                    masks = self.masks[base] = np.zeros(st.size, dtype=np.uint32)
                self._set(base, masks, touched[~full], bits[~full])
            self._set(base, st, touched, np.where(full, READABLE, PARTIAL).astype(np.uint8))
        return cold

    def fill(self, addr: int, nbytes: int) -> None:
        """A copy placed ``nbytes`` at ``addr`` in L2: every sector it covers is readable."""
        if nbytes <= 0:
            return
        found = self.gmem.find(addr)
        if found is None:
            return
        base, size = found
        lo = (addr - base) >> SECTOR_SHIFT
        hi = (min(size, addr - base + nbytes) + SECTOR_BYTES - 1) >> SECTOR_SHIFT
        if hi > lo:
            self._set(base, self._states(base), np.arange(lo, hi), READABLE)

    def forget(self, base: int) -> None:
        """Allocation ``base`` was freed: a new one there starts absent."""
        self.states.pop(base, None)
        self.masks.pop(base, None)

    # ------------------------------------------------------------------ snapshots
    def begin(self) -> None:
        """A memory snapshot opened: journal every change from now on."""
        self.journal = []

    def end(self) -> None:
        """The snapshot closed (its changes kept)."""
        self.journal = None

    def undo(self) -> None:
        """Memory was restored: put every sector state back as the snapshot found it."""
        for _base, arr, idx, old in reversed(self.journal or ()):
            arr[idx] = old
        self.journal = None

    def changes(self) -> list[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
        """What the journal's changes left, as (base, array, indices, values) to :meth:`apply`
        again after an :meth:`undo` (the arrays are the log's own: an allocation freed since is
        simply no longer looked at)."""
        return [(base, arr, idx, arr[idx].copy()) for base, arr, idx, _old in self.journal or ()]

    def apply(self, changes: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]]) -> None:
        for base, arr, idx, new in changes:
            self._set(base, arr, idx, new)

    def readable_since(self) -> list[tuple[int, int]]:
        """The (address, bytes) ranges of the sectors that became readable since the open
        snapshot began (reads and whole-sector writes of the run under it), in address order:
        what an L2 as large as the memory would now hold of them."""
        found: dict[int, list[np.ndarray]] = {}
        for base, arr, idx, _old in self.journal or ():
            if self.states.get(base) is arr:
                found.setdefault(base, []).append(idx)
        out = []
        for base in sorted(found):
            st = self.states[base]
            idx = np.unique(np.concatenate(found[base]))
            idx = idx[st[idx] == READABLE]
            if not idx.size:
                continue
            # runs of consecutive sectors, one range each
            cut = np.flatnonzero(np.diff(idx) != 1) + 1
            for run in np.split(idx, cut):
                out.append((base + (int(run[0]) << SECTOR_SHIFT), int(run.size) << SECTOR_SHIFT))
        return out

    # ------------------------------------------------------------------ helpers
    def _where(self, space: str, addrs: np.ndarray, size: int) -> list[tuple[int, np.ndarray]]:
        """(allocation base, byte offsets) of the global lanes of an access that succeeded;
        lanes outside every allocation (the gap pages of a mapped page) are left out."""
        if space == "generic":
            a = np.asarray(addrs, dtype=np.uint64)
            a = a[(a >> WINDOW_SHIFT) == 0]
        elif space == "global":
            a = np.asarray(addrs, dtype=np.uint64)
        else:
            return []
        if not a.size:
            return []
        return [(base, offs) for base, _pos, offs in self.gmem.translate(a, size) if base >= 0]

    def _states(self, base: int) -> np.ndarray:
        st = self.states.get(base)
        if st is None:
            n = max(self.gmem.extent(base), 1)
            st = self.states[base] = np.zeros((n + SECTOR_BYTES - 1) >> SECTOR_SHIFT, dtype=np.uint8)
        return st

    def _set(self, base: int, arr: np.ndarray, idx: np.ndarray, values: np.ndarray | int) -> None:
        if self.journal is not None:
            self.journal.append((base, arr, idx, arr[idx].copy()))
        arr[idx] = values
