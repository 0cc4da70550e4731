"""Pipeline registers, the scoreboard and the pipelined execution units of a SIMT core.

GPGPU-Sim counterparts (``shader.h/.cc``): ``register_set`` (the ID_OC_* / OC_EX_* / EX_WB
pipeline register sets, ``-gpgpu_pipeline_widths``), ``Scoreboard`` (C092), and
``pipelined_simd_unit`` with its ``sp_unit``/``dp_unit``/``sfu``/``int_unit``/
``tensor_core`` subclasses (C096-C102): an instruction waits in the unit's dispatch register
for its initiation interval, then enters the pipeline at stage ``latency - initiation`` and
moves one stage per cycle to stage 0, from where it goes to the EX_WB register; a unit takes
a new instruction only when its dispatch register is empty and no instruction of the same
latency would reach writeback in the same cycle (the ``occupied`` bit set).
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from .warp import SchedulerUnit, Warp

# execution units (issue/dispatch targets); Final so that the compiled model inlines them
SP: Final = 0
DP: Final = 1
SFU: Final = 2
INT: Final = 3
TENSOR: Final = 4
MEM: Final = 5
UNIT_NAMES = ("SP", "DP", "SFU", "INT", "TENSOR", "MEM")

#: set bits of each byte value (``popcount``)
_POP8: Final = [bin(i).count("1") for i in range(256)]


def popcount(m: int) -> int:
    """``m.bit_count()`` for a mask ``m >= 0`` (active masks, warp-slot masks).  mypyc has no
    primitive for ``int.bit_count``, whose boxed method call costs several times this when the
    model is compiled (pure Python it is the slower of the two): a full 32-lane mask (the
    common case) is answered at once, other masks under 2**32 by the usual shift-and-add
    reduction (all intermediate values stay machine-word ints), wider ones by bytes."""
    if m == 0xFFFFFFFF:
        return 32
    if m < 0x100000000:
        m = m - ((m >> 1) & 0x55555555)
        m = (m & 0x33333333) + ((m >> 2) & 0x33333333)
        m = (m + (m >> 4)) & 0x0F0F0F0F
        return ((m * 0x01010101) & 0xFFFFFFFF) >> 24
    n = 0
    while m:
        n += _POP8[m & 255]
        m >>= 8
    return n


class WarpInst:
    """One dynamic warp instruction in flight (GPGPU-Sim ``warp_inst_t``).  The memory fields
    (``mem`` to ``is_atomic``, ``accessq``, ``cycles``) are set for LD/ST-unit instructions
    only."""

    __slots__ = ("src_banks", "wb_left", "warp", "slot", "pc", "unit", "lat", "ii", "dst", "sched",
                 "uid", "cycles", "executed", "mem", "accessq", "space", "is_load",
                 "is_store", "is_atomic")

    src_banks: tuple[int, ...]    # register-file banks of the operands the collector reads
    wb_left: tuple[int, ...]      # ... of the destinations still to be written back
    warp: Warp                    # the core's Warp
    slot: int                     # hardware warp slot
    pc: int
    unit: int
    lat: int
    ii: int
    dst: tuple[int, ...]          # scoreboard registers (functional register slots)
    sched: int
    uid: int
    executed: int                 # active and guard true
    mem: Any                      # the feed's MemAccess list (memory instructions)
    space: str
    is_load: bool
    is_store: bool
    is_atomic: bool
    accessq: list[tuple[Any, str, bool]]   # the LD/ST unit's access queue: (access, space, store)
    cycles: int                   # the LD/ST unit's shared-memory cycles left

    def do_atomic(self) -> None:
        """The first request of this atomic left its memory partition (``MemFetch.do_atomic``):
        run the functional execution the feed deferred to this point (the live feed's
        ``MemAccess.on_exit``; the trace feed defers nothing)."""
        for acc in self.mem or ():
            cb = acc.on_exit
            if cb is not None:
                acc.on_exit = None
                cb()


class RegisterSet:
    """A pipeline register set of ``width`` slots (``register_set``).

    With the sub-core model (``-gpgpu_sub_core_model 1``) slot ``i`` belongs to scheduler ``i``;
    otherwise any free slot is used.  ``get_ready`` returns the oldest instruction (smallest
    uid), as GPGPU-Sim's ``get_ready`` does.
    """

    __slots__ = ("slots", "name", "count", "waiters", "wait_scheds", "woken", "ready_for", "pos0")

    def __init__(self, width: int, name: str) -> None:
        self.slots: list[WarpInst | None] = [None] * max(1, width)
        self.name = name
        self.count = 0
        #: per slot (sub-core model; else all in 0): the warps that found no room here (ID_OC
        #: registers), a bit mask of warp slots; they become candidates again when the slot is
        #: freed, each of its scheduler's (``wait_scheds``: the schedulers that may wait there)
        self.waiters: list[int] = [0] * len(self.slots)
        self.wait_scheds: list[list[SchedulerUnit]] = [[] for _ in self.slots]
        #: per slot (sub-core model, see ``OperandCollector.keep_woken``): the waiters woken
        #: when the slot was last freed, while it stays free (a bit mask, as ``waiters``)
        self.woken: list[int] = [0] * len(self.slots)
        #: per slot (sub-core model; else all in 0): collector units with every operand read
        #: that wait to dispatch into this slot (OC_EX registers; kept by the collector)
        self.ready_for: list[int] = [0] * len(self.slots)
        #: ID_OC registers: the bit of slot 0 in the operand collector's ``waiting`` mask
        self.pos0 = -1

    def move_in(self, inst: WarpInst, sub_core: bool = False, reg_id: int = 0) -> int:
        """Put ``inst`` in slot ``reg_id`` (partitioned) or the first free slot; its index."""
        slots = self.slots
        if sub_core:
            i = reg_id % len(slots)
            assert slots[i] is None, f"{self.name}: slot {i} busy"
            slots[i] = inst
        else:
            i = slots.index(None)
            slots[i] = inst
        self.count += 1
        return i

    def get_ready(self, sub_core: bool = False, reg_id: int = 0) -> int:
        """Index of the oldest occupied slot (or of slot ``reg_id`` when partitioned); -1."""
        slots = self.slots
        if sub_core:
            i = reg_id % len(slots)
            return i if slots[i] is not None else -1
        best = -1
        uid = 1 << 62
        for i, s in enumerate(slots):
            if s is not None and s.uid < uid:
                best, uid = i, s.uid
        return best

    def take(self, i: int) -> WarpInst:
        inst = self.slots[i]
        assert inst is not None
        self.slots[i] = None
        self.count -= 1
        return inst

    def dump(self) -> str:
        return f"{self.name}[" + ", ".join("-" if s is None else f"w{s.slot}@{s.pc}" for s in self.slots) + "]"


class ResultRegister(RegisterSet):
    """The EX_WB register: a :class:`RegisterSet` filled only by :meth:`move_in` and emptied
    only by :meth:`take`, which keeps its occupied slots as a bit mask (``occ``) so that
    :meth:`get_ready` looks at those slots only (with one instruction: no scan at all)."""

    __slots__ = ("occ",)

    def __init__(self, width: int, name: str) -> None:
        super().__init__(width, name)
        self.occ = 0

    def move_in(self, inst: WarpInst, sub_core: bool = False, reg_id: int = 0) -> int:
        i = super().move_in(inst, sub_core, reg_id)
        self.occ |= 1 << i
        return i

    def get_ready(self, sub_core: bool = False, reg_id: int = 0) -> int:
        if sub_core:
            return super().get_ready(sub_core, reg_id)
        m = self.occ
        if not m:
            return -1
        low = m & -m
        best = low.bit_length() - 1
        m ^= low
        if m:
            slots = self.slots
            uid = slots[best].uid  # type: ignore[union-attr]
            while m:
                low = m & -m
                m ^= low
                i = low.bit_length() - 1
                u = slots[i].uid  # type: ignore[union-attr]
                if u < uid:
                    best, uid = i, u
        return best

    def take(self, i: int) -> WarpInst:
        self.occ &= ~(1 << i)
        return super().take(i)


class PipelinedUnit:
    """A pipelined SIMD execution unit (``pipelined_simd_unit``).

    GPGPU-Sim shifts a ``depth``-slot array every cycle; here each instruction in the pipeline
    is stored under the cycle it leaves stage 0 (an instruction placed at stage ``s`` in cycle
    ``t`` moves to the EX_WB register in cycle ``t + s + 1``), which costs nothing per cycle.
    Two instructions never leave in the same cycle (that is the same stage at the same time).
    When EX_WB is full the whole pipeline holds for a cycle (``offset`` counts those cycles:
    GPGPU-Sim asserts in that case, we stall).

    The unit only has work in a cycle when its dispatch register's instruction has served its
    initiation interval or the pipeline's head is due to leave (``due``: the first cycle it
    may; the core calls :meth:`cycle` only then, the other cycles would change nothing).  The
    result-bus bits GPGPU-Sim shifts every cycle (``occupied``) are kept as of cycle
    ``occ_t``: in cycle ``now`` bit ``i`` of ``occupied >> (now - occ_t)`` says that an
    instruction reaches writeback in ``i`` cycles.
    """

    __slots__ = ("kind", "index", "depth", "inflight", "heap", "offset", "dispatch", "occupied",
                 "n_active", "result", "name", "order", "occ_t", "disp_at", "due")

    def __init__(self, kind: int, index: int, depth: int, result: RegisterSet) -> None:
        self.kind = kind
        self.index = index            # issue register id (its scheduler, with the sub-core model)
        self.depth = max(1, depth)
        self.inflight: dict[int, WarpInst] = {}     # exit cycle - offset -> instruction
        self.heap: list[int] = []
        self.offset = 0
        self.dispatch: WarpInst | None = None
        self.occupied = 0             # bit i: an instruction reaches writeback in i cycles ...
        self.occ_t = 0                # ... counted from cycle occ_t
        self.disp_at = 0              # the dispatch register's instruction may enter from then
        self.due = 0                  # the first cycle in which cycle() has something to do
        self.n_active = 0
        self.result = result
        self.name = f"{UNIT_NAMES[kind]}[{index}]"
        self.order = 0                # position among the core's units (cycling order)

    def can_issue(self, inst: WarpInst, now: int) -> bool:
        return self.dispatch is None and not (self.occupied >> (inst.lat + now - self.occ_t)) & 1

    def issue(self, inst: WarpInst, now: int) -> None:
        """``inst`` enters the dispatch register in cycle ``now``: it serves its initiation
        interval there (it may enter the pipeline from cycle ``now + ii``) and reserves the
        writeback slot ``lat`` cycles from now."""
        self.dispatch = inst
        self.occupied = (self.occupied >> (now - self.occ_t)) | (1 << inst.lat)
        self.occ_t = now
        t = self.disp_at = now + inst.ii
        if t < self.due or not self.n_active:
            self.due = t

    def busy(self) -> bool:
        return self.dispatch is not None or self.n_active > 0

    def cycle(self, now: int) -> None:
        """The unit's cycle (the core calls it from cycle ``due`` on while the unit is busy)."""
        n = self.n_active
        if n:
            heap = self.heap
            v = heap[0]
            if v + self.offset <= now:
                res = self.result
                if res.count < len(res.slots):
                    heappop(heap)
                    res.move_in(self.inflight.pop(v))
                    n -= 1
                    self.n_active = n
                else:
                    self.offset += 1        # EX_WB full: everything holds a cycle
        d = self.dispatch
        if d is not None and self.disp_at <= now:
            start = d.lat - d.ii
            if start < 0:
                start = 0
            if start >= self.depth:
                start = self.depth - 1
            v = now + start + 1 - self.offset
            if v not in self.inflight:
                self.inflight[v] = d
                heappush(self.heap, v)
                self.dispatch = d = None
                n += 1
                self.n_active = n
        # the next cycle with work: the head's exit, or the dispatch register's retry
        due = self.heap[0] + self.offset if n else now + 1
        if d is not None:
            t = self.disp_at
            if t <= now:
                t = now + 1
            if t < due:
                due = t
        self.due = due

    def occupied_at(self, now: int) -> int:
        """The result-bus bits after cycle ``now`` (bit ``i``: writeback in ``i`` cycles)."""
        return self.occupied >> (now - self.occ_t) if now >= self.occ_t else self.occupied << (self.occ_t - now)

    def dump(self, now: int) -> str:
        """The unit after cycle ``now``."""
        occ = [f"exit@{v + self.offset}:w{i.slot}@{i.pc}" for v, i in sorted(self.inflight.items())]
        d = self.dispatch
        bits = self.occupied_at(now)
        occupied = [i for i in range(bits.bit_length()) if bits >> i & 1]
        left = max(0, self.disp_at - now)
        return (f"{self.name} dispatch={'-' if d is None else f'w{d.slot}@{d.pc} ({left} cycles left)'} "
                f"pipeline={occ}" + (f" writeback slots taken in {occupied} cycles" if occupied else ""))
