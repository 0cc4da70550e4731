"""A cache line and its sectors' states (GPGPU-Sim ``line_cache_block`` / ``sector_cache_block``;
checklist C112, C113)."""

from __future__ import annotations

from typing import Final

from ..core.units import popcount
from ..mem_fetch import SECTOR_BYTES, SECTORS_PER_LINE, mypyc_attr

INVALID: Final = 0
RESERVED: Final = 1
VALID: Final = 2
MODIFIED: Final = 3
# tag-array line classes (victim bookkeeping): invalid, some sector reserved, clean, modified
_C_INV: Final = 0
_C_RESV: Final = 1
_C_CLEAN: Final = 2
_C_DIRTY: Final = 3

_ALL_SECTORS: Final = (1 << SECTORS_PER_LINE) - 1
#: bit 0 of every sector's 2-bit status field
_LOW_BITS: Final = sum(1 << (2 * i) for i in range(SECTORS_PER_LINE))


#: the byte mask of one whole sector (at sector 0)
_SECTOR_FULL = (1 << SECTOR_BYTES) - 1

# ``Line.flags``: the per-sector flags (bit ``i`` of each field: sector ``i``) and one bool
#: bits 0-3: the sector is readable
READABLE: Final = _ALL_SECTORS
#: bits 4-7: the sector becomes MODIFIED when filled
MOD_ON_FILL_SHIFT: Final = SECTORS_PER_LINE
#: bits 8-11: the sector becomes readable when filled
READ_ON_FILL_SHIFT: Final = 2 * SECTORS_PER_LINE
#: bit 12: a fill ORs its byte mask into ``dirty_byte_mask`` (``set_byte_mask_on_fill``)
BYTE_MASK_ON_FILL: Final = 1 << (3 * SECTORS_PER_LINE)


def sector_status(st: int, sidx: int) -> int:
    """The status of sector ``sidx`` in a line's packed status ``st``."""
    return (st >> (sidx << 1)) & 3


def with_sector(st: int, sidx: int, v: int) -> int:
    """Packed status ``st`` with sector ``sidx`` set to ``v``."""
    sh = sidx << 1
    return (st & ~(3 << sh)) | (v << sh)


def _holds(st: int, v: int) -> bool:
    """Some sector of packed status ``st`` is ``v`` (a field of ``st ^ v-in-every-field`` is 00)."""
    x = st ^ (v * _LOW_BITS)
    return ((x | (x >> 1)) & _LOW_BITS) != _LOW_BITS


def _modified_fields(st: int) -> int:
    """Bit 0 of each MODIFIED (0b11) sector's field of packed status ``st``."""
    return st & (st >> 1) & _LOW_BITS


@mypyc_attr(acyclic=True)
class Line:
    """One cache block; a line cache uses sector slot 0 only (``line_cache_block``), a sector
    cache all four (``sector_cache_block``).

    The sectors' statuses are one int, 2 bits per sector (sector ``i`` at bits ``2i``,
    :func:`sector_status`); GPGPU-Sim's per-sector flags (readable, modified on fill, readable
    on fill) and the line's ``set_byte_mask_on_fill`` are bit fields of the one int ``flags``
    (:data:`READABLE`, :data:`MOD_ON_FILL_SHIFT`, :data:`READ_ON_FILL_SHIFT`,
    :data:`BYTE_MASK_ON_FILL`).  Of GPGPU-Sim's times a line keeps only the one its cache's
    replacement policy orders victims by, ``stamp``: the last access under LRU, the allocation
    under FIFO (the per-sector times and the fill time are read by nothing).  ``idx`` is the
    line's index in its tag array, ``regtag`` the tag the array's index holds it under
    (``Cache._sync``).  Compiled, a line is one object of seven unboxed fields, 80 bytes: it
    references no object, so it is declared acyclic and has no collector header (nor is it
    traversed by the collector), which matters because a GPU's L1Ds and L2 hold up to ~130,000
    of them (``bench/feed_memory.py``, ``bench/line_memory.py``)."""

    __slots__ = ("tag", "status", "flags", "dirty_byte_mask", "stamp", "regtag", "idx")

    def __init__(self, idx: int = -1) -> None:
        self.tag = -1                       # the block address (GPGPU-Sim's tag and block_addr)
        self.status = INVALID               # packed: 2 bits per sector
        self.flags = READABLE               # every sector readable, nothing pending on fill
        self.dirty_byte_mask = 0
        self.stamp = 0                      # the replacement policy's time (LRU: last access, FIFO: allocation)
        #: the tag the cache's index holds this line under (``Cache._sync``), -1: none
        self.regtag = -1
        self.idx = idx                      # the line's index in its tag array

    def is_invalid(self) -> bool:
        return self.status == INVALID

    def is_reserved(self) -> bool:
        return _holds(self.status, RESERVED)

    def is_modified(self) -> bool:
        return _modified_fields(self.status) != 0

    def readable(self, sidx: int) -> bool:
        """Sector ``sidx`` is readable (``m_readable``)."""
        return (self.flags >> sidx) & 1 != 0

    def set_readable(self, sidx: int, on: bool) -> None:
        if on:
            self.flags |= 1 << sidx
        else:
            self.flags &= ~(1 << sidx)

    def set_modified_on_fill(self, sidx: int) -> None:
        """The fill of sector ``sidx`` will make it MODIFIED and OR the fill's byte mask into
        the dirty bytes (a write that allocated or hit a reserved sector)."""
        self.flags |= (1 << (MOD_ON_FILL_SHIFT + sidx)) | BYTE_MASK_ON_FILL

    def set_readable_on_fill(self, sidx: int) -> None:
        """The fill of sector ``sidx`` will make it readable."""
        self.flags |= 1 << (READ_ON_FILL_SHIFT + sidx)

    def allocate(self, tag: int, time: int, sidx: int) -> None:
        """``allocate`` / ``allocate_line``: the whole line is reset, one sector reserved."""
        self.status = RESERVED << (sidx << 1)
        self.flags = READABLE
        self.dirty_byte_mask = 0
        self.tag = tag
        self.stamp = time

    def allocate_sector(self, time: int, sidx: int, lru: bool) -> None:
        """``sector_cache_block::allocate_sector`` (an access: the LRU stamp moves to ``time``)."""
        f = self.flags
        mod = 1 << (MOD_ON_FILL_SHIFT + sidx)
        if sector_status(self.status, sidx) == MODIFIED:
            f |= mod
        else:
            f &= ~mod
        f &= ~(1 << (READ_ON_FILL_SHIFT + sidx))
        self.flags = f | (1 << sidx)
        self.status = with_sector(self.status, sidx, RESERVED)
        if lru:
            self.stamp = time

    def fill(self, sidx: int, byte_mask: int) -> None:
        f = self.flags
        self.status = with_sector(self.status, sidx,
                                  MODIFIED if f >> (MOD_ON_FILL_SHIFT + sidx) & 1 else VALID)
        rof = 1 << (READ_ON_FILL_SHIFT + sidx)
        if f & rof:
            self.flags = (f & ~rof) | (1 << sidx)
        if f & BYTE_MASK_ON_FILL:
            self.dirty_byte_mask |= byte_mask

    def modified_size(self, sectored: bool, line_bytes: int) -> int:
        if not sectored:
            return line_bytes if sector_status(self.status, 0) == MODIFIED else 0
        return popcount(_modified_fields(self.status)) * SECTOR_BYTES

    def dirty_sector_mask(self) -> int:
        m = _modified_fields(self.status)
        return sum(1 << i for i in range(SECTORS_PER_LINE) if m >> (2 * i) & 1)


def sector_parts(size: int, sector_mask: int) -> int:
    """How many sector requests a sectored L2 makes of one request (the rule of GPGPU-Sim's
    ``breakdown_request_to_sector_requests``, as ``memory.partition`` applies it)."""
    n = popcount(sector_mask)
    if size == 32 and n == 1:
        return 1
    if size == 128:
        return n or 4
    if size == 64 and sector_mask in (0xF, 0):
        return 2
    return max(1, n)
