"""The SIMT core's warp state: a hardware warp slot (:class:`Warp`), a CTA slot with its barrier
(:class:`CtaSlot`), a warp scheduler unit (:class:`SchedulerUnit`).  The core
(``shader.py``) owns lists of these and changes them; the bit-mask helpers here are shared by
the core and its diagnostics."""

from __future__ import annotations

from typing import Any

from ..feed import WarpStream
from .schedulers import make_policy
from .table import CoreTable
from .units import RegisterSet


#: what a warp slot and a CTA slot hold before their first warp or CTA: one shared empty
#: list, never written (``Warp.start`` and ``ShaderCore``'s CTA issue put the slot's own in
#: place), so that the slots a kernel never fills cost no container each (a GPU of 80 SMs has
#: 5,120 warp slots and 2,560 CTA slots)
_UNUSED_BANKS: list[tuple[int, ...]] = []
_UNUSED_SLOTS: list[int] = []


def bits(m: int) -> list[int]:
    """The set bits of ``m``, ascending."""
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def reg_names(w: Warp, regs: Any) -> str:
    """PTX names (``%f2``) of functional register slots ``regs`` of warp ``w``'s kernel (dumps
    and traces; the scoreboard holds slot numbers)."""
    prog = getattr(w.kernel, "prog", None)
    names = prog.slot_names if prog is not None else []
    return ",".join(names[r].rsplit(":", 1)[-1] if 0 <= r < len(names) else f"r{r}" for r in sorted(regs))


class Warp:
    """A hardware warp slot (GPGPU-Sim ``shd_warp_t``) running one warp of a CTA (its
    instructions come from ``src``, a ``feed.WarpStream``)."""

    __slots__ = ("slot", "active", "src", "fdone", "ibuf", "next_pc",
                 "in_pipe", "at_bar", "membar", "stores", "n_atomic", "cta", "dyn", "done_exit",
                 "pending", "kernel", "tbl", "sched", "sb_wait", "sb", "src_banks", "dst_banks",
                 "cdp_wait", "cdp_armed")

    src: WarpStream           # the warp's instruction feed (set by start)
    tbl: CoreTable            # its kernel's static table (``kernel.table``, set by start)
    ibuf: list[int]           # the I-buffer: pcs of the decoded instructions

    def __init__(self, slot: int, sched: int) -> None:
        self.slot = slot
        self.sched = sched
        self.active = False
        self.done_exit = True
        #: the scoreboard: bit r set while functional register slot r has a write pending (a bit
        #: mask, not a set: a set a warp's loads have grown holds a 512-byte table for good)
        self.pending = 0
        #: the registers (a mask) of the instruction the scoreboard last blocked: the release
        #: of the last of them still pending unblocks it (while another is pending it would
        #: collide again); -1: any release may matter
        self.sb_wait = -1
        self.sb = False           # collides on the scoreboard (statistics: core/stats.py)
        #: per pc: the register-file banks of the instruction's operands / destinations
        #: (``OperandCollector.warp_banks``; they depend on the warp slot and scheduler only)
        self.src_banks: list[tuple[int, ...]] = _UNUSED_BANKS
        self.dst_banks: list[tuple[int, ...]] = _UNUSED_BANKS
        #: a device-runtime call at the head of the I-buffer (C-numbered ``-cdp_latency``):
        #: examinations by the scheduler left before it may issue, and whether its latency was
        #: charged (GPGPU-Sim ``m_cdp_latency`` / ``m_cdp_dummy``)
        self.cdp_wait = 0
        self.cdp_armed = False

    def start(self, src: WarpStream, cta: int, dyn: int, kernel: Any) -> None:
        """Run the warp whose instructions ``src`` feeds (a ``feed.WarpStream``)."""
        self.active = True
        self.done_exit = False
        self.src = src
        self.fdone = src.pc < 0       # functionally done: no instruction left to issue
        self.ibuf = []
        self.next_pc = 0 if self.fdone else src.pc
        self.in_pipe = 0
        self.at_bar = -1
        self.membar = False
        self.stores = 0
        self.n_atomic = 0
        self.cta = cta
        self.dyn = dyn
        self.pending = 0
        self.sb_wait = -1
        self.sb = False
        self.cdp_wait = 0
        self.cdp_armed = False
        self.kernel = kernel
        self.tbl = kernel.table


class CtaSlot:
    """A CTA slot of the core: the CTA running there, its warp slots, the warps at its barrier."""

    __slots__ = ("kernel", "cta_id", "live", "warps", "bar_waiting")

    def __init__(self) -> None:
        self.kernel: Any = None
        self.cta_id = -1
        self.live = 0
        self.warps: list[int] = _UNUSED_SLOTS          # own lists from the CTA's issue
        self.bar_waiting: list[int] = _UNUSED_SLOTS

    def barrier_release(self, warps: list[Warp]) -> list[int]:
        """The CTA's barrier (C085-C087, ``barrier_set_t``): when every warp of the CTA still
        running has arrived, release them and return their slots, else return [].  A warp that
        arrived with its last instruction (bar then nothing) is done already and does not count."""
        if not self.bar_waiting:
            return []
        running = 0
        for ws in self.warps:
            w = warps[ws]
            if w.active and not w.fdone:
                running += 1
        if len(self.bar_waiting) < running:
            return []
        out = self.bar_waiting
        for ws in out:
            warps[ws].at_bar = -1
        self.bar_waiting = []
        return out


class SchedulerUnit:
    """A warp scheduler.  ``warps`` are its supervised slots; ``active`` the ones running a
    warp, in slot order (the policies order these: inactive slots never issue, so leaving them
    out keeps every policy's relative order)."""

    __slots__ = ("sid", "warps", "policy", "demotes", "active", "act_mask", "cand", "rotates", "orders_subset",
                 "route", "n_sb", "n_route", "warp_bits")

    def __init__(self, sid: int, policy: str) -> None:
        self.sid = sid
        self.warps: list[int] = []
        self.active: list[int] = []
        self.act_mask = 0   # the same as a bit mask (bit w: slot w runs a warp)
        #: warps that may be able to issue (bit w: slot w): a warp leaves when it waits for an
        #: event (I-buffer fill, register release, barrier, atomics) and comes back when that
        #: event happens
        self.cand = 0
        self.n_sb = 0       # its warps with the scoreboard flag (Warp.sb): see core/stats.py
        #: its warps waiting for a slot in an ID_OC register (stalled): those in the registers'
        #: ``waiters`` masks, each once
        self.n_route = 0
        self.warp_bits = 0  # its supervised slots as a bit mask
        self.policy = make_policy(policy)
        # what the policy declares about its order (schedulers/base.py), read once
        self.rotates = self.policy.rotates_after_last
        self.orders_subset = self.policy.orders_any_subset
        self.demotes = self.policy.demotes
        #: per op class: (unit it issues to, that unit's ID_OC register, this scheduler's slot
        #: in it with the sub-core model or -1) -- filled in by the core
        self.route: list[tuple[int, RegisterSet, int]] = []

    def candidates(self) -> set[int]:
        """The candidate warp slots (``cand``) as a set (diagnostics and tests)."""
        return set(bits(self.cand))
