"""One memory request / reply travelling between a core, the interconnect and a memory partition.

GPGPU-Sim counterpart: ``mem_fetch`` (mem_fetch.h/.cc) together with the ``mem_access_t`` it wraps.
A fetch is created by a core (L1 miss, write-through write, write-back) or by a cache itself
(write-back of a dirty victim, write-allocate read), and carries its decoded DRAM address
(``chip``, ``sub_partition``, ``bank``, ``row``, ``col``), filled in by the address decoder when it
is created through :meth:`MemorySystem.decode` or by :class:`MemorySystem` on injection.

Sizes follow GPGPU-Sim: ``size`` is the data size (``get_data_size``), ``ctrl_size`` the header
(``READ_PACKET_SIZE`` / ``WRITE_PACKET_SIZE`` = 8 bytes); a packet carries data only for writes
going to memory, read replies going back, and atomics (``get_num_flits``, checklist C141).
"""

from __future__ import annotations

from itertools import count
from typing import Any

try:
    from mypy_extensions import mypyc_attr
except ImportError:         # (pure Python without mypy installed: the attribute only matters compiled)
    def mypyc_attr(*attrs: str, **kwattrs: object) -> Any:  # type: ignore[misc]
        return lambda cls: cls

#: ``mem_access_type`` order (``MA_TUP`` in abstract_hardware_model.h)
ACCESS_TYPES = ("GLOBAL_ACC_R", "LOCAL_ACC_R", "CONST_ACC_R", "TEXTURE_ACC_R", "GLOBAL_ACC_W", "LOCAL_ACC_W",
                "L1_WRBK_ACC", "L2_WRBK_ACC", "INST_ACC_R", "L1_WR_ALLOC_R", "L2_WR_ALLOC_R")
WRITEBACK_TYPES = frozenset(("L1_WRBK_ACC", "L2_WRBK_ACC"))
READ_PACKET_SIZE = 8
WRITE_PACKET_SIZE = 8
SECTOR_BYTES = 32
SECTORS_PER_LINE = 4
LINE_BYTES = 128

_uids = count(1)


def _sector_byte_mask(sector_mask: int) -> int:
    m = 0
    for i in range(SECTORS_PER_LINE):
        if sector_mask >> i & 1:
            m |= ((1 << SECTOR_BYTES) - 1) << (i * SECTOR_BYTES)
    return m


#: the byte mask of each 4-bit sector mask
_SECTOR_BYTE_MASKS = tuple(_sector_byte_mask(m) for m in range(1 << SECTORS_PER_LINE))


def sector_byte_mask(sector_mask: int) -> int:
    """The 128-bit byte mask covering every 32-byte sector set in ``sector_mask``."""
    return _SECTOR_BYTE_MASKS[sector_mask & 0xF]


@mypyc_attr(acyclic=True)
class MemFetch:
    """A request or reply.  ``token`` is opaque to the memory side (the core's bookkeeping).

    Addresses are byte addresses as GPGPU-Sim's ``mem_access_t`` holds them (sector-aligned for a
    sector access).  ``byte_mask`` is a 128-bit mask relative to the 128-byte line; 0 means "every
    byte of the sectors in ``sector_mask``" and is normalised on construction.

    Compiled, it is an acyclic class: no collector header (16 bytes less; a request is 208
    bytes), and the tens of thousands in flight are not walked by each collection.  That is
    sound because reference counting alone frees requests: the cycles a request closes while
    in flight (an L1D's MSHR holds it, it holds its instruction, which leads back to the core
    and its L1D) open when the caches and queues drop it, and the collector never finds one
    as garbage during a run (``tests/timing/test_gpu.py``); a machine discarded with requests
    in flight cuts their references first (``TimingGpu._rebuild``).
    """

    __slots__ = ("addr", "size", "sector_mask", "byte_mask", "is_write", "access_type", "core_id",
                 "cluster_id", "warp_id", "uid", "is_atomic", "token",
                 "chip", "sub_partition", "bank", "row", "col",
                 "original", "original_wr", "is_reply", "tracked", "timestamp", "return_timestamp",
                 "status", "status_cycle", "cache_extra")

    def __init__(self, addr: int, size: int, is_write: bool, access_type: str, *,
                 sector_mask: int | None = None, byte_mask: int = 0, core_id: int = -1,
                 cluster_id: int = -1, warp_id: int = -1, is_atomic: bool = False, token: object = None,
                 timestamp: int = 0, original: MemFetch | None = None,
                 original_wr: MemFetch | None = None) -> None:
        self.addr = addr
        self.size = size
        if sector_mask is None:
            sector_mask = 1 << ((addr % LINE_BYTES) // SECTOR_BYTES) if size <= SECTOR_BYTES else \
                sum(1 << ((addr % LINE_BYTES) // SECTOR_BYTES + i) for i in range(min(4, size // SECTOR_BYTES)))
        self.sector_mask = sector_mask
        self.byte_mask = byte_mask or sector_byte_mask(sector_mask)
        # the four bools assigned one after another: the compiled class lays its fields out in
        # the order of first assignment, and adjacent bools share one 8-byte word (the object
        # is then 208 bytes instead of 224)
        self.is_write = is_write
        self.is_atomic = is_atomic
        self.is_reply = False
        self.tracked = False          # in its sub-partition's request tracker (``SubPartition.n_tracked``)
        self.access_type = access_type
        self.core_id = core_id
        self.cluster_id = cluster_id
        self.warp_id = warp_id
        self.uid = next(_uids)
        self.token = token
        self.chip = -1
        self.sub_partition = -1
        self.bank = 0
        self.row = 0
        self.col = 0
        self.original = original          # the request a sector sub-request was split from
        self.original_wr = original_wr    # the write a write-allocate read was made for
        self.timestamp = timestamp        # creation cycle (core clock), mf latency base
        self.return_timestamp = 0         # cycle the reply entered the reply network
        self.status = "INITIALIZED"
        self.status_cycle = timestamp
        #: what each cache this request is outstanding in keeps of it (``cache.data._Extra``)
        self.cache_extra: Any = None

    @property
    def ctrl_size(self) -> int:
        """The header's size (``get_ctrl_size``): ``WRITE_PACKET_SIZE`` for a write,
        ``READ_PACKET_SIZE`` otherwise (8 bytes both, as in GPGPU-Sim), so not a field."""
        return WRITE_PACKET_SIZE if self.is_write else READ_PACKET_SIZE

    @property
    def packet_bytes(self) -> int:
        """``size()`` of GPGPU-Sim: data + control bytes."""
        return self.size + self.ctrl_size

    def num_flits(self, simt_to_mem: bool, flit_size: int) -> int:
        """``mem_fetch::get_num_flits``."""
        if self.is_atomic or (simt_to_mem and self.is_write) or not (simt_to_mem or self.is_write):
            sz = self.size + self.ctrl_size
        else:
            sz = self.ctrl_size
        return -(-sz // flit_size)

    def do_atomic(self) -> None:
        """``mem_fetch::do_atomic``: the request of an atomic leaves its memory partition, the
        point where GPGPU-Sim executes the atomic functionally (C162); the token (the core's
        instruction) runs what the instruction feed deferred until then, if anything."""
        do = getattr(self.token, "do_atomic", None)
        if do is not None:
            do()

    def set_status(self, status: str, cycle: int) -> None:
        self.status = status
        self.status_cycle = cycle

    def copy_tlx(self, other: MemFetch) -> None:
        self.chip, self.sub_partition = other.chip, other.sub_partition
        self.bank, self.row, self.col = other.bank, other.row, other.col

    def __repr__(self) -> str:
        return (f"MemFetch(uid={self.uid}, {self.access_type}, addr={self.addr:#x}, size={self.size}, "
                f"sectors={self.sector_mask:04b}, core={self.core_id}, warp={self.warp_id}, "
                f"chip={self.chip}, sp={self.sub_partition}, status={self.status}@{self.status_cycle})")


_next_uid = _uids.__next__
# Compiled by mypyc (gpgpusim/native/__init__.py) this module's class cannot be made by
# object.__new__: there a keyword call of MemFetch is the cheap one (compiled into a direct call).
_COMPILED = not __file__.endswith((".py", ".pyc"))


def access_fetch(addr: int, size: int, is_write: bool, access_type: str, sector_mask: int, byte_mask: int,
                 core_id: int, cluster_id: int, warp_id: int, is_atomic: bool, token: object,
                 timestamp: int) -> MemFetch:
    """``MemFetch(addr, size, is_write, access_type, sector_mask=..., byte_mask=..., core_id=...,
    cluster_id=..., warp_id=..., is_atomic=..., token=..., timestamp=...)``: the same fetch
    (every field, the next uid), built without the keyword and default handling -- the
    request a core makes of one ``mem_access_t`` of a warp instruction (GPGPU-Sim's
    ``mem_fetch`` constructor via ``mem_fetch_allocator::alloc``), about 2.5x cheaper."""
    if _COMPILED:
        return MemFetch(addr, size, is_write, access_type, sector_mask=sector_mask, byte_mask=byte_mask,
                        core_id=core_id, cluster_id=cluster_id, warp_id=warp_id, is_atomic=is_atomic,
                        token=token, timestamp=timestamp)
    mf = object.__new__(MemFetch)
    mf.addr = addr
    mf.size = size
    mf.sector_mask = sector_mask
    mf.byte_mask = byte_mask or _SECTOR_BYTE_MASKS[sector_mask & 0xF]
    mf.is_write = is_write
    mf.access_type = access_type
    mf.core_id = core_id
    mf.cluster_id = cluster_id
    mf.warp_id = warp_id
    mf.uid = _next_uid()
    mf.is_atomic = is_atomic
    mf.token = token
    mf.chip = -1
    mf.sub_partition = -1
    mf.bank = 0
    mf.row = 0
    mf.col = 0
    mf.original = None
    mf.original_wr = None
    mf.is_reply = False
    mf.tracked = False
    mf.timestamp = timestamp
    mf.return_timestamp = 0
    mf.status = "INITIALIZED"
    mf.status_cycle = timestamp
    mf.cache_extra = None
    return mf


def sector_fetch(mf: MemFetch, addr: int, sector: int, timestamp: int) -> MemFetch:
    """The request for sector ``sector`` (at ``addr``) of ``mf`` that a sectored L2's
    sub-partition splits it into (``breakdown_request_to_sector_requests``, C153): ``mf``'s
    kind, owner, header size and decoded DRAM address, its byte mask within the sector (the
    whole sector when none of its bytes is set), ``original`` = ``mf``, the next uid --
    the fetch ``MemFetch(...)`` with those keywords plus :meth:`MemFetch.copy_tlx` builds,
    without the keyword and default handling."""
    if _COMPILED:
        sbm = _SECTOR_BYTE_MASKS[1 << sector]
        n = MemFetch(addr, SECTOR_BYTES, mf.is_write, mf.access_type, sector_mask=1 << sector,
                     byte_mask=(mf.byte_mask & sbm) or sbm, core_id=mf.core_id, cluster_id=mf.cluster_id,
                     warp_id=mf.warp_id, is_atomic=mf.is_atomic, token=mf.token,
                     timestamp=timestamp, original=mf)
        n.copy_tlx(mf)
        return n
    n = object.__new__(MemFetch)
    n.addr = addr
    n.size = SECTOR_BYTES
    n.sector_mask = 1 << sector
    sbm = _SECTOR_BYTE_MASKS[1 << sector]
    n.byte_mask = (mf.byte_mask & sbm) or sbm
    n.is_write = mf.is_write
    n.access_type = mf.access_type
    n.core_id = mf.core_id
    n.cluster_id = mf.cluster_id
    n.warp_id = mf.warp_id
    n.uid = _next_uid()
    n.is_atomic = mf.is_atomic
    n.token = mf.token
    n.chip = mf.chip
    n.sub_partition = mf.sub_partition
    n.bank = mf.bank
    n.row = mf.row
    n.col = mf.col
    n.original = mf
    n.original_wr = None
    n.is_reply = False
    n.tracked = False
    n.timestamp = timestamp
    n.return_timestamp = 0
    n.status = "INITIALIZED"
    n.status_cycle = timestamp
    n.cache_extra = None
    return n
