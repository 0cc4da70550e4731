"""A cache line and its sectors' states (GPGPU-Sim ``line_cache_block`` / ``sector_cache_block``;
checklist C112, C113)."""

from __future__ import annotations

from typing import Final

from ..core.units import popcount
from ..mem_fetch import SECTOR_BYTES, SECTORS_PER_LINE

INVALID: Final = 0
RESERVED: Final = 1
VALID: Final = 2
MODIFIED: Final = 3
# tag-array line classes (victim bookkeeping): invalid, some sector reserved, clean, modified
_C_INV: Final = 0
_C_RESV: Final = 1
_C_CLEAN: Final = 2
_C_DIRTY: Final = 3

_ALL_INVALID = (INVALID,) * SECTORS_PER_LINE
_ALL_SECTORS: Final = (1 << SECTORS_PER_LINE) - 1


#: the byte mask of one whole sector (at sector 0)
_SECTOR_FULL = (1 << SECTOR_BYTES) - 1


def _holds(st: list[int], v: int) -> bool:
    """``v in st`` for a line's sector statuses: a typed loop, because ``in`` on a list is a
    generic sequence test comparing objects when the model is compiled (9 % of the
    instructions of ``bench/mem_speed.py --stride 128``, most of it on the L2 fill path)."""
    for x in st:
        if x == v:
            return True
    return False


class Line:
    """One cache block; a line cache uses sector slot 0 only (``line_cache_block``), a sector
    cache all four (``sector_cache_block``).

    Only the status is a list (one entry per sector: the probe paths index it); the per-sector
    flags are bit masks (bit ``i``: sector ``i``).  GPGPU-Sim's per-sector allocation and
    access times and the fill time are not kept: nothing reads them (the victim choice uses the
    line's ``alloc_time`` / ``last_access``).  A line is about 200 bytes instead of ~800, which
    matters because a GPU's L1Ds and L2 hold up to ~130,000 of them."""

    __slots__ = ("tag", "block_addr", "status", "readable", "modified_on_fill", "readable_on_fill",
                 "byte_mask_on_fill", "dirty_byte_mask", "alloc_time", "last_access")

    def __init__(self) -> None:
        self.tag = -1
        self.block_addr = 0
        self.status = [INVALID] * SECTORS_PER_LINE
        self.readable = _ALL_SECTORS        # bit i: sector i is readable
        self.modified_on_fill = 0           # bit i: sector i becomes MODIFIED when filled
        self.readable_on_fill = 0           # bit i: sector i becomes readable when filled
        self.byte_mask_on_fill = False
        self.dirty_byte_mask = 0
        self.alloc_time = 0
        self.last_access = 0

    def is_invalid(self) -> bool:
        return self.status.count(INVALID) == SECTORS_PER_LINE

    def is_reserved(self) -> bool:
        return _holds(self.status, RESERVED)

    def is_modified(self) -> bool:
        return _holds(self.status, MODIFIED)

    def allocate(self, tag: int, block_addr: int, time: int, sidx: int) -> None:
        """``allocate`` / ``allocate_line``: the whole line is reset, one sector reserved."""
        st = self.status
        st[:] = _ALL_INVALID
        self.readable = _ALL_SECTORS
        self.modified_on_fill = 0
        self.readable_on_fill = 0
        self.byte_mask_on_fill = False
        self.dirty_byte_mask = 0
        self.tag = tag
        self.block_addr = block_addr
        st[sidx] = RESERVED
        self.alloc_time = time
        self.last_access = time

    def allocate_sector(self, time: int, sidx: int) -> None:
        """``sector_cache_block::allocate_sector``."""
        bit = 1 << sidx
        if self.status[sidx] == MODIFIED:
            self.modified_on_fill |= bit
        else:
            self.modified_on_fill &= ~bit
        self.readable_on_fill &= ~bit
        self.status[sidx] = RESERVED
        self.readable |= bit
        self.last_access = time

    def fill(self, sidx: int, byte_mask: int) -> None:
        bit = 1 << sidx
        self.status[sidx] = MODIFIED if self.modified_on_fill & bit else VALID
        if self.readable_on_fill & bit:
            self.readable |= bit
            self.readable_on_fill &= ~bit
        if self.byte_mask_on_fill:
            self.dirty_byte_mask |= byte_mask

    def modified_size(self, sectored: bool, line_bytes: int) -> int:
        if not sectored:
            return line_bytes if self.status[0] == MODIFIED else 0
        return self.status.count(MODIFIED) * SECTOR_BYTES

    def dirty_sector_mask(self) -> int:
        return sum(1 << i for i, s in enumerate(self.status) if s == MODIFIED)


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
