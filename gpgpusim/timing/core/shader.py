"""The SIMT core (GPGPU-Sim ``shader_core_ctx``; checklist C070-C107, C131-C137).

One core cycle runs the stages back to front, as ``shader_core_ctx::cycle`` does:
``writeback(); execute(); read_operands(); issue(); (decode(); fetch()) x
-gpgpu_inst_fetch_throughput``.

* **Fetch/decode** (C070-C077): one fetch per call for the whole core, round robin over the
  warps whose 2-entry I-buffer is empty (and, with a finite L1I, no instruction miss pending);
  with ``-gpgpu_perfect_inst_const_cache 1`` (every shipped 4.x config) every fetch hits, with
  0 each fetch accesses the core's L1I (``-gpgpu_cache:il1``, ``icache.py``): a miss waits for
  the fill from the memory system, and the L1I's cycle runs at the end of every fetch call;
  decode places the instruction at the fetch pc and the next one into the I-buffer.  The
  fetch loop also retires warps that are done (functional done, no instruction in the
  pipeline, no pending register write, stores acknowledged) and frees a CTA's slot when its
  last warp retires.
* **Issue** (C078-C091): ``-gpgpu_num_sched_per_core`` scheduler units, warp ``w`` supervised by
  scheduler ``w mod n``; each examines its warps in the policy's order (``schedulers/``) and
  issues up to ``-gpgpu_max_insn_issue_per_warp`` instructions of one warp per cycle.  A warp
  whose I-buffer head is not the next instruction of its trace (a taken branch or a
  reconvergence) has a control hazard: its I-buffer is flushed and fetch restarts at the right
  pc.  Waiting warps (barrier, memory barrier, outstanding atomics) and scoreboard collisions
  (any source or destination register with a pending write) do not issue; the instruction goes
  to the ID_OC register of its unit when that has room (sub-core: the scheduler's own slot).
  Units: memory ops -> LDST; SFU ops -> SFU; DP -> DP (SFU without DP units); tensor ->
  TENSOR; other ALU ops -> INT when INT units exist and the op is not an SP op, else SP
  (``scheduler_unit::cycle``).
* **Operand collector** (``opcoll.py``), **execution units** (``units.py``) with the
  result-bus reservation of ``shader_core_ctx::execute`` (``-gpgpu_pipeline_widths`` EX_WB
  buses), **writeback** through the EX_WB register (register-bank write ports of the operand
  collector) releasing the scoreboard.
* **LDST unit** (``ldst.py``).

Each warp reads its dynamic instructions through a ``feed.WarpStream`` (``timing/feed.py``): the
pc of the next one, and at issue (``_issue_warp``, where GPGPU-Sim calls ``func_exec_inst``) its
executed mask and lane addresses; the scoreboard, the I-buffer and the units decide *when* each
runs.  The core does not know which feed it reads (recorded trace or live execution).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bisect import insort


from . import units as U
from .icache import InstCache
from ..feed import WarpStream
from .ldst import LdstUnit
from .opcoll import OperandCollector
from .schedulers import make_policy
from .stats import IssueStats
from .table import CoreTable
from .units import PipelinedUnit, RegisterSet, ResultRegister, WarpInst, popcount

if TYPE_CHECKING:
    from ..cluster import Cluster


def _unit_order(u: PipelinedUnit) -> int:
    return u.order


def _bits(m: int) -> list[int]:
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
        self.pending: set[int] = set()
        #: the registers of the instruction the scoreboard last blocked: the release of the
        #: last of them still pending unblocks it (while another is pending it would collide
        #: again); None: any release may matter
        self.sb_wait: frozenset[int] | None = None
        self.sb = False           # collides on the scoreboard (statistics: core/stats.py)
        #: per pc: the register-file banks of the instruction's operands / destinations
        #: (``OperandCollector.warp_banks``; they depend on the warp slot and scheduler only)
        self.src_banks: list[tuple[int, ...]] = []
        self.dst_banks: list[tuple[int, ...]] = []
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
        self.pending = set()
        self.sb_wait = None
        self.sb = False
        self.cdp_wait = 0
        self.cdp_armed = False
        self.kernel = kernel
        self.tbl = kernel.table


class CtaSlot:
    __slots__ = ("kernel", "cta_id", "live", "warps", "bar_waiting")

    def __init__(self) -> None:
        self.kernel: Any = None
        self.cta_id = -1
        self.live = 0
        self.warps: list[int] = []
        self.bar_waiting: list[int] = []


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
        return set(_bits(self.cand))


class ShaderCore:
    """One SM.  ``cycle()`` advances it one core cycle; the GPU adds CTAs with
    :meth:`issue_cta` and delivers memory replies with :meth:`accept_response`."""

    def __init__(self, sid: int, cluster: Cluster, cfg: Any, stats: Any, l1d: Any = None) -> None:
        g = cfg.get
        self.sid = sid
        self.cluster = cluster
        self.cfg = cfg
        self.stats = stats
        self.max_warps: int = cfg.max_threads_per_core // cfg.warp_size
        self.max_cta = int(g("gpgpu_shader_cta"))
        self.n_sched = max(1, int(g("gpgpu_num_sched_per_core")))
        self.sub_core = bool(g("gpgpu_sub_core_model"))
        self.max_issue = max(1, int(g("gpgpu_max_insn_issue_per_warp")))
        self.diff_units = bool(g("gpgpu_dual_issue_diff_exec_units"))
        self.fetch_tp = max(1, int(g("gpgpu_inst_fetch_throughput")))
        cdp = g("cdp_latency")
        #: ``-cdp_latency``: stream creation, parameter buffer per warp / per lane, launch per
        #: warp / per lane (cycles the scheduler examines the warp before the call issues)
        self.cdp_latency: tuple[int, ...] = tuple(int(v) for v in cdp.values) + (0,) * 5 if cdp is not None \
            else (0,) * 5
        self.warps = [Warp(i, i % self.n_sched) for i in range(self.max_warps)]
        pol = str(g("gpgpu_scheduler"))
        self.scheds = [SchedulerUnit(i, pol) for i in range(self.n_sched)]
        for w in range(self.max_warps):
            self.scheds[w % self.n_sched].warps.append(w)
            self.scheds[w % self.n_sched].warp_bits |= 1 << w
        self.ctas = [CtaSlot() for _ in range(self.max_cta)]
        self.active_slots: list[int] = []      # slots running a warp, ascending
        self.n_live_ctas = 0
        self.next_dyn = 0
        self.last_fetched: int = self.max_warps - 1
        self.fetch_buf: tuple[int, int] | None = None     # (warp slot, pc)
        self.fetch_dirty = True
        self.fetch_mask = 0                 # bit w: running warp w has an empty I-buffer
        self.retire_mask = 0                # warps past their last instruction, not retired (bits)
        widths = list(g("gpgpu_pipeline_widths").values) + [1] * 13
        # ID_OC_SP, ID_OC_DP, ID_OC_INT, ID_OC_SFU, ID_OC_MEM, OC_EX_SP, OC_EX_DP, OC_EX_INT,
        # OC_EX_SFU, OC_EX_MEM, EX_WB, ID_OC_TENSOR_CORE, OC_EX_TENSOR_CORE
        idx_id = {U.SP: 0, U.DP: 1, U.INT: 2, U.SFU: 3, U.MEM: 4, U.TENSOR: 11}
        idx_ex = {U.SP: 5, U.DP: 6, U.INT: 7, U.SFU: 8, U.MEM: 9, U.TENSOR: 12}
        self.id_oc = {k: RegisterSet(widths[i], f"ID_OC_{U.UNIT_NAMES[k]}") for k, i in idx_id.items()}
        self.oc_ex = {k: RegisterSet(widths[i], f"OC_EX_{U.UNIT_NAMES[k]}") for k, i in idx_ex.items()}
        self.ex_wb = ResultRegister(widths[10], "EX_WB")
        self.n_result_bus = max(1, widths[10])
        #: result-bus reservations: cycle -> buses reserved for a writeback in that cycle
        #: (GPGPU-Sim keeps one shifted bit vector per bus; any free bus will do, so a count
        #: per absolute cycle is the same test without shifting every cycle)
        self.rb_res: dict[int, int] = {}
        self.n_units = {U.SP: int(g("gpgpu_num_sp_units")), U.DP: int(g("gpgpu_num_dp_units")),
                        U.SFU: int(g("gpgpu_num_sfu_units")), U.INT: int(g("gpgpu_num_int_units")),
                        U.TENSOR: int(g("gpgpu_num_tensor_core_units"))}
        self.id_oc_list = [self.id_oc.get(k) for k in range(6)]   # indexed by unit kind
        for sch in self.scheds:
            sch.route = [self._route_entry(k, sch.sid) for k in range(6)]
            for unit, reg, idx in sch.route:
                ws = reg.wait_scheds[max(idx, 0)]
                if unit >= 0 and sch not in ws:
                    ws.append(sch)
        depth = self._unit_depths()
        self.units: list[PipelinedUnit] = []
        for kind in (U.SP, U.DP, U.SFU, U.INT, U.TENSOR):
            for i in range(self.n_units[kind]):
                self.units.append(PipelinedUnit(kind, i, depth[kind], self.ex_wb))
        # (OC_EX register, its units) in the units' order (SP, DP, SFU, INT, TENSOR)
        for i, u in enumerate(self.units):
            u.order = i
        self.busy_units: list[PipelinedUnit] = []    # units with work, in self.units order
        self.units_due = 0        # the first cycle in which one of them has work (unit.due)
        #: the last cycle with a result-bus slot of a unit taken (the core is not quiescent
        #: before: GPGPU-Sim's units still shift their bits)
        self.wb_until = -1
        self.ex_groups = [(self.oc_ex[k], [u for u in self.units if u.kind == k])
                          for k in (U.SP, U.DP, U.SFU, U.INT, U.TENSOR)]
        #: the same with, per unit, the OC_EX slot it takes from (sub-core model: slot
        #: ``index mod width``; else -1: the oldest instruction)
        self.ex_slots = [(reg, [(u.index % len(reg.slots) if self.sub_core else -1, u) for u in us])
                         for reg, us in self.ex_groups]
        self.ldst = LdstUnit(self, cfg, stats, l1d)
        #: the L1 instruction cache; None: perfect (every fetch hits, no cache model)
        self.icache = None if bool(g("gpgpu_perfect_inst_const_cache")) else InstCache(self, cfg)
        in_regs = [self.id_oc[k] for k in (U.SP, U.DP, U.INT, U.SFU, U.MEM, U.TENSOR)]
        self.opcoll = OperandCollector(int(g("gpgpu_operand_collector_num_units_gen")),
                                       int(g("gpgpu_num_reg_banks")), self.n_sched, self.sub_core,
                                       bool(g("gpgpu_reg_bank_use_warp_id")), in_regs, self.oc_ex,
                                       int(g("gpgpu_operand_collector_num_out_ports_gen")))
        self.rf_tp = max(1, int(g("gpgpu_reg_file_port_throughput")))
        self.opcoll.keep_woken = (self.sub_core and self.max_issue == 1
                                  and all(len(r.slots) >= self.n_sched for r in in_regs)
                                  and all(sch.policy.pure for sch in self.scheds))
        self.multi_issue = self.max_issue > 1     # dual issue: _sched_cycle_multi (not a method
        #                                           swap on the instance: the compiled class has none)
        self.istats = IssueStats(self.n_sched, self.max_warps, cfg.warp_size)
        self.uid = 0
        # per-core counters (folded into the GPU's stats by the GPU)
        self.n_warp_insn = 0
        self.n_thread_insn = 0
        self.n_inflight = 0       # instructions issued and not yet completed
        #: count completed instructions per kernel (only a stop limit needs them)
        self.count_done = any(int(g(o) or 0) for o in ("gpgpu_max_cycle", "gpgpu_max_insn", "gpgpu_max_cta",
                                                       "gpgpu_max_completed_cta"))
        self.kernel: Any = None   # the kernel whose CTAs this core runs (set_kernel)
        self.l1_dirty = False     # the L1D holds lines since the last invalidation
        self.last_issue = 0       # cycle of the last issued instruction (deadlock detection)
        self.asleep = False       # quiescent until a memory reply or a CTA arrives
        self.slept_at: int | None = None   # first cycle slept through (with threads resident)
        self.trace: list[tuple[int, int, int]] | None = None   # (cycle, warp slot, pc) per issue
        self.busy_cycle = False   # something issued, fetched, retired or flushed this cycle

    def _route_entry(self, cls: int, sid: int) -> tuple[int, RegisterSet, int]:
        """Where an instruction of op class ``cls`` issued by scheduler ``sid`` goes: the
        routing of ``scheduler_unit::cycle`` depends only on the class and the config (each
        class has a single target unit), so it is resolved once; only the room in the
        target's ID_OC register is checked at issue (:meth:`_room`).  Unit -1: the class can
        never issue (an SP/INT op on a core without SP units)."""
        n_units = self.n_units
        unit = cls
        if unit in (U.SP, U.INT):
            if n_units[U.INT] > 0 and cls == U.INT:
                unit = U.INT
            elif n_units[U.SP] > 0:
                unit = U.SP
            else:
                return -1, self.id_oc[U.SP], -1
        elif unit != U.MEM:
            if unit == U.DP and n_units[U.DP] == 0:
                unit = U.SFU
            if n_units.get(unit, 0) == 0 and unit != U.SFU:
                unit = U.SP
        reg = self.id_oc[unit]
        return unit, reg, (sid % len(reg.slots)) if self.sub_core else -1

    def _unit_depths(self) -> dict[int, int]:
        g = self.cfg.get

        def mx(name: str, default: int) -> int:
            try:
                return max(g(name).values)
            except (AttributeError, ValueError, KeyError):
                return default
        return {U.SP: max(mx("ptx_opcode_latency_fp", 4), mx("ptx_opcode_latency_int", 4)),
                U.INT: mx("ptx_opcode_latency_int", 4), U.DP: mx("ptx_opcode_latency_dp", 8),
                U.SFU: max(mx("ptx_opcode_latency_sfu", 8), mx("ptx_opcode_latency_dp", 8)),
                U.TENSOR: mx("ptx_opcode_latency_tesnor", 64)}

    # ------------------------------------------------------------------ CTAs (C131-C137)
    def can_issue_cta(self, kernel: Any) -> bool:
        if self.n_live_ctas >= kernel.max_cta_per_core:
            return False
        return any(c.kernel is None for c in self.ctas)

    def issue_cta(self, kernel: Any, cta_id: int, warps: list[Any]) -> None:
        """Start CTA ``cta_id`` of ``kernel`` (its warps' ``feed.WarpStream``) in a free CTA slot
        (``shader_core_ctx::issue_block2core``: warp slots ``slot * padded warps ...``)."""
        s = next(i for i, c in enumerate(self.ctas) if c.kernel is None)   # can_issue_cta checked
        slot = self.ctas[s]
        wpc = kernel.warps_per_cta
        base = s * wpc
        slot.kernel = kernel
        slot.cta_id = cta_id
        slot.warps = list(range(base, base + wpc))
        slot.live = 0
        slot.bar_waiting = []
        cur = self._gnow()
        if not self.n_live_ctas:
            self.istats.live_start(cur)
        for i, src in enumerate(warps):
            w = self.warps[base + i]
            src.attach(self.sid, base + i)
            w.start(src, s, self.next_dyn, kernel)
            w.src_banks, w.dst_banks = self.opcoll.warp_banks(kernel.table, w.slot, w.sched)
            self.next_dyn += 1
            if w.fdone:
                w.active = False
                w.done_exit = True
                continue
            slot.live += 1
            self._activate(w)
        self.n_live_ctas += 1
        self.istats.occupancy_change(cur, len(self.active_slots))
        if self.asleep:
            self.asleep = False
            self.cluster.gpu.core_woken(self)
        self.fetch_dirty = True
        if slot.live == 0:
            self._cta_done(s, in_cycle=False)

    def _gnow(self) -> int:
        """The GPU's core cycle count now (during this core's cycle: the cycle being run)."""
        g = self.cluster.gpu
        return g.gpu_tot_sim_cycle + g.gpu_sim_cycle

    def _activate(self, w: Warp) -> None:
        insort(self.active_slots, w.slot)
        sch = self.scheds[w.sched]
        insort(sch.active, w.slot)
        sch.act_mask |= 1 << w.slot
        sch.cand |= 1 << w.slot
        self.fetch_mask |= 1 << w.slot

    def _deactivate(self, w: Warp) -> None:
        self.active_slots.remove(w.slot)
        sch = self.scheds[w.sched]
        sch.active.remove(w.slot)
        sch.act_mask &= ~(1 << w.slot)
        sch.cand &= ~(1 << w.slot)
        self.fetch_mask &= ~(1 << w.slot)
        self.retire_mask &= ~(1 << w.slot)

    def _wake_warp(self, w: Warp) -> None:
        self.scheds[w.sched].cand |= 1 << w.slot

    def atomic_done(self, w: Warp, n: int = 1) -> None:
        """``n`` of the warp's outstanding atomic accesses completed."""
        w.n_atomic -= n
        if w.n_atomic <= 0:
            w.n_atomic = 0
            self.scheds[w.sched].cand |= 1 << w.slot

    def _cta_done(self, s: int, in_cycle: bool = True) -> None:
        slot = self.ctas[s]
        kernel = slot.kernel
        slot.kernel = None
        self.n_live_ctas -= 1
        self.istats.ctas_completed += 1
        if not self.n_live_ctas:
            self.istats.live_end(self._gnow() + in_cycle)
        self.cluster.gpu.cta_finished(self, kernel, slot.cta_id)

    def busy(self) -> bool:
        return (self.n_live_ctas > 0 or self.n_inflight > 0 or self.ldst.busy()
                or (self.icache is not None and self.icache.busy()))

    # ------------------------------------------------------------------ the cycle
    def cycle(self, now: int) -> None:
        if self.slept_at is not None:
            self.settle_sleep(now)
        self.asleep = False
        self.busy_cycle = False
        if self.ex_wb.count:
            self._writeback(now)
        self._execute(now)
        oc = self.opcoll
        if oc.n_busy or oc.n_in:
            for i in range(self.rf_tp):
                oc.step(i == 0)
        oc.write_banks = 0                  # the banks written back this cycle are free again
        self._issue(now)
        ic = self.icache
        if ic is None:
            for _ in range(self.fetch_tp):
                if self.fetch_buf is not None:
                    self._decode()
                elif not self.fetch_dirty:
                    break
                if not self._fetch(now):
                    break   # nothing to fetch: later calls this cycle would find nothing either
        else:
            for _ in range(self.fetch_tp):
                self._decode()
                if self.fetch_buf is None:
                    ws = ic.ready_warp()          # an I-miss filled: that warp's fetch is done
                    if ws >= 0:
                        self.fetch_buf = (ws, self.warps[ws].next_pc)
                        self.busy_cycle = True
                    else:
                        self._fetch(now)
                ic.cycle(now)
        if not self.busy_cycle and self._quiescent(now):
            self.asleep = True
            if self.n_live_ctas:       # GPGPU-Sim keeps cycling a core that has threads
                self.slept_at = now + 1
                self.istats.sleep_sb = sum(1 for sch in self.scheds if sch.n_sb)

    def _quiescent(self, now: int) -> bool:
        """Nothing in the pipeline and nothing that can issue or fetch: the next cycles are
        identical to this one until a memory reply (or a new CTA) arrives, so the GPU stops
        cycling this core until then (exact: such cycles change no state)."""
        if self.fetch_buf is not None or self.opcoll.n_busy or self.ex_wb.count:
            return False
        if self.icache is not None and self.icache.has_work():
            return False
        for r in self.id_oc.values():
            if r.count:
                return False
        for r in self.oc_ex.values():
            if r.count:
                return False
        if self.busy_units or self.wb_until >= now:
            return False
        return self.ldst.idle()

    def settle_sleep(self, now: int) -> None:
        """Account the cycles this core slept through (from ``slept_at`` up to ``now``) as the
        idle cycles they were: only the L1D's per-cycle port counters change."""
        if self.slept_at is None:
            return
        missed = now - self.slept_at
        l1d = self.ldst.l1d
        if missed > 0 and l1d is not None:
            l1d.idle_cycles(missed)
        if missed > 0:
            self.istats.sb += missed * self.istats.sleep_sb
        self.slept_at = now if self.asleep else None

    # -- writeback ------------------------------------------------------------------------
    def _writeback(self, now: int) -> None:
        wb = self.ex_wb
        while True:
            i = wb.get_ready()
            if i < 0:
                return
            inst = wb.slots[i]
            assert inst is not None
            if not self.opcoll.writeback_banks(inst):
                return
            wb.take(i)
            self.complete(inst, release=True)

    def complete(self, inst: WarpInst, release: bool) -> None:
        """The instruction left the pipeline (``warp_inst_complete`` + scoreboard release, C092):
        a warp blocked on the scoreboard becomes a candidate again once no register it waits
        for (``Warp.sb_wait``) is pending."""
        self.fetch_dirty = True
        w = self.warps[inst.slot]
        if release and inst.dst:
            pend = w.pending
            sw = w.sb_wait
            hit = False         # one of the registers the warp's scoreboard block waits for
            for r in inst.dst:  # (a loop, not set methods: those are boxed calls when compiled)
                pend.discard(r)
                if sw is not None and r in sw:
                    hit = True
            if sw is None or (hit and pend.isdisjoint(sw)):
                sch = self.scheds[w.sched]
                sch.cand |= 1 << w.slot
                if w.sb:
                    w.sb = False
                    sch.n_sb -= 1
        w.in_pipe -= 1
        self.n_inflight -= 1
        if self.count_done:   # gpu_sim_insn counts at completion (the stop limits, C011)
            k = w.kernel
            k.thread_done += popcount(inst.executed)
            k.warp_done += 1

    def release_reg(self, slot: int, reg: int) -> None:
        self.fetch_dirty = True
        w = self.warps[slot]
        pend = w.pending
        pend.discard(reg)
        sw = w.sb_wait
        if sw is None or (reg in sw and pend.isdisjoint(sw)):
            sch = self.scheds[w.sched]
            sch.cand |= 1 << slot
            if w.sb:
                w.sb = False
                sch.n_sb -= 1

    # -- execute --------------------------------------------------------------------------
    def _execute(self, now: int) -> None:
        rb = self.rb_res
        n_bus = self.n_result_bus
        bu = self.busy_units
        if bu and self.units_due <= now:
            # only units with work this cycle (PipelinedUnit.due); GPGPU-Sim cycles idle units
            # too, where only the result-bus bits move (kept by time: PipelinedUnit.occupied)
            due = 1 << 62
            idle = False
            for u in bu:
                if u.due <= now:
                    u.cycle(now)
                    if u.dispatch is None and not u.n_active:
                        idle = True
                        continue
                if u.due < due:
                    due = u.due
            self.units_due = due
            if idle:
                self.busy_units = bu = [u for u in bu if u.dispatch is not None or u.n_active]
        self.ldst.cycle(now)
        for reg, kind_units in self.ex_slots:
            if not reg.count:
                continue
            slots = reg.slots
            for i, u in kind_units:
                if i >= 0:
                    inst = slots[i]
                    if inst is None:
                        continue
                else:
                    i = reg.get_ready(False)
                    if i < 0:
                        continue
                    inst = slots[i]
                    assert inst is not None
                lat = inst.lat
                if u.dispatch is not None or (u.occupied >> (lat + now - u.occ_t)) & 1:
                    continue
                t = now + lat
                nb = rb.get(t, 0)
                if nb >= n_bus:
                    continue   # no result bus free for that latency: stall
                rb[t] = nb + 1
                if len(rb) > 64:
                    for k in [k for k in rb if k < now]:
                        del rb[k]
                reg.take(i)
                self.opcoll.ex_freed(reg, i)
                if u not in bu:
                    insort(bu, u, key=_unit_order)
                u.issue(inst, now)
                if u.due < self.units_due:
                    self.units_due = u.due
                if t > self.wb_until:
                    self.wb_until = t
        reg = self.oc_ex[U.MEM]
        if reg.count and self.ldst.dispatch is None:
            i = reg.get_ready(False)
            inst = reg.take(i)
            self.opcoll.ex_freed(reg, i)
            self.ldst.issue(inst, now)

    # -- issue ----------------------------------------------------------------------------
    def _issue(self, now: int) -> None:
        for sch in self.scheds:
            if sch.cand:
                if self.multi_issue:
                    self._sched_cycle_multi(sch, now)
                else:
                    self._sched_cycle(sch, now)
            elif sch.n_route:
                self.istats.stall += 1
            elif sch.n_sb:
                self.istats.sb += 1

    def _sched_cycle(self, sch: SchedulerUnit, now: int) -> None:
        """``scheduler_unit::cycle`` (C078-C091; one instruction per warp and cycle,
        ``_sched_cycle_multi`` takes this name's place otherwise): examine the candidate warps
        in policy order and issue from the first that can.  Called only for a scheduler with
        candidates (``_issue``).

        A warp whose unit's ID_OC slot is taken waits in that slot's ``waiters`` mask, out of
        the candidates, until the collector frees the slot (a stall for the statistics while
        any waits: ``n_route``).  Where the collector keeps the warps it woke
        (``OperandCollector.keep_woken``), the issue that fills the slot again parks the woken
        ones not examined since: nothing but its own issue changes such a warp's I-buffer, feed
        pc, barrier, fence or atomics state and its pending registers only shrink, so examined
        it would reach the room check again and wait again; parking it at once instead changes
        no issue (a warp that cannot issue does not change which one issues first, in any
        order), no statistic (``n_route`` counts it either way) and no later wake-up.  Only for
        policies whose ordering has no side effects (a scheduler left without candidates is
        not asked for an order) and ID_OC slots of one scheduler each."""
        warps = self.warps
        cm = sch.cand
        pol = sch.policy
        lrr = sch.rotates
        hi = lo = n = i = 0
        order: Sequence[int] = ()
        if lrr:
            # loose round robin over the candidates: the order the policy gives the running
            # warps (from the one after the last to issue, when that one still runs),
            # restricted to the candidates (the others would be skipped); taken lazily from the
            # candidate mask, the bits above the last one's then the others
            last = pol.last
            if last >= 0 and (sch.act_mask >> last) & 1:
                k = last + 1
                hi = cm >> k << k
                lo = cm ^ hi
            else:
                hi = cm
        else:
            if sch.orders_subset:
                # a ranking needs no filtering: ordering only the candidates gives the order of
                # all running warps restricted to them
                order = pol.order(_bits(cm), warps)
            else:
                order = [ws for ws in pol.order(sch.active, warps) if (cm >> ws) & 1]
            n = len(order)
        route = sch.route
        stalled = False
        while True:
            if lrr:
                if not hi:
                    if not lo:
                        break
                    hi = lo
                    lo = 0
                low = hi & -hi
                hi ^= low
                ws = low.bit_length() - 1
            else:
                if i == n:
                    break
                ws = order[i]
                i += 1
                low = 1 << ws
            # (low: the warp's candidate bit, set in cm)
            w = warps[ws]
            ib = w.ibuf
            if not ib or w.fdone or w.at_bar >= 0 or w.n_atomic:
                cm ^= low
                continue
            if w.membar and self._waiting(w):
                w.sb_wait = None        # woken by any register release
                cm ^= low
                continue
            if w.cdp_wait:
                # a device-runtime call serving its -cdp_latency: each examination takes one
                w.cdp_wait -= 1
                self.busy_cycle = True
                continue
            pc = ib[0]
            want = w.src.pc
            if pc != want:
                self._flush(w, want)
                cm ^= low
                continue
            tbl = w.tbl
            pend = w.pending
            if pend:
                need = tbl.regs_all[pc]
                if not pend.isdisjoint(need):
                    if sch.demotes:      # its demotion must see every scoreboard stall
                        pol.demote(ws)
                    else:
                        w.sb_wait = need    # woken when none of these is pending any more
                        cm ^= low
                    if not w.sb:
                        w.sb = True
                        sch.n_sb += 1
                    continue
            unit, reg, idx = route[tbl.unit[pc]]
            if unit < 0:
                stalled = True
                continue
            if (reg.slots[idx] is not None) if idx >= 0 else reg.count >= len(reg.slots):
                # its ID_OC slot is taken: stall until the collector frees one
                stalled = True
                cm ^= low
                k = idx if idx >= 0 else 0
                wm = reg.waiters[k]
                if not wm & low:        # (it may be there already: woken by a register release)
                    reg.waiters[k] = wm | low
                    sch.n_route += 1
                continue
            if tbl.cdp[pc] and self._cdp_hold(w, pc):
                stalled = True
                continue
            sch.cand = cm               # (before the issue: a barrier release adds candidates)
            self._issue_warp(w, sch.sid, pc, unit, reg, idx, now)
            if idx >= 0:
                wk = reg.woken[idx]
                if wk:
                    # the slot is full again: the other warps woken when it was freed wait
                    # again now (see above; the slot's waiters mask is empty while it is free)
                    reg.woken[idx] = 0
                    wk &= ~low
                    if wk:
                        sch.cand &= ~wk
                        reg.waiters[idx] = wk
                        sch.n_route += popcount(wk)
            pol.issued(ws)
            ist = self.istats
            single = ist.single
            single[sch.sid] = single[sch.sid] + 1
            per_slot = ist.slot_issues
            per_slot[ws] = per_slot[ws] + 1
            return
        sch.cand = cm
        # nothing issued (scheduler_unit::cycle's stall statistics; W0_Idle is the rest; the
        # warps waiting for an ID_OC slot are stalled ones that were not looked at again)
        if stalled or sch.n_route:
            self.istats.stall += 1
        elif sch.n_sb:
            self.istats.sb += 1

    def _flush(self, w: Warp, want: int) -> None:
        """Control hazard: the I-buffer does not hold the warp's next instruction (a taken
        branch or a reconvergence): empty it and fetch again at ``want``."""
        self.busy_cycle = True
        self.fetch_dirty = True
        w.in_pipe -= len(w.ibuf)
        w.ibuf = []
        self.fetch_mask |= 1 << w.slot
        w.next_pc = want

    @staticmethod
    def _room(reg: RegisterSet, idx: int) -> bool:
        """Room in an ID_OC register: slot ``idx`` (sub-core model) or any slot (idx -1)."""
        return reg.slots[idx] is None if idx >= 0 else reg.count < len(reg.slots)

    def _sched_cycle_multi(self, sch: SchedulerUnit, now: int) -> None:
        """The same with several instructions per warp per cycle (dual issue): each warp in the
        policy's order issues while :meth:`issue_block` finds it ready, up to
        ``-gpgpu_max_insn_issue_per_warp`` instructions (with
        ``-gpgpu_dual_issue_diff_exec_units``, to different units)."""
        warps = self.warps
        sid = sch.sid
        ist = self.istats
        stalled = False
        for ws in sch.policy.order(sch.active, warps):
            w = warps[ws]
            checked = issued = 0
            prev_unit = -1
            while (not w.fdone and w.ibuf and checked < self.max_issue and checked <= issued
                   and issued < self.max_issue and not self._waiting(w)):
                why, _detail = self.issue_block(sch, w)
                if why == "cdp_latency":
                    w.cdp_wait -= 1
                    self.busy_cycle = True
                    break
                if why == "control_hazard":
                    self._flush(w, w.src.pc)
                    break
                if why == "scoreboard":
                    if sch.demotes:
                        sch.policy.demote(ws)
                    if not w.sb:
                        w.sb = True
                        sch.n_sb += 1
                    break
                if why != "ready":          # no unit for its op class, or no room in ID_OC
                    stalled = True
                    break
                pc = w.ibuf[0]
                unit, reg, idx = sch.route[w.tbl.unit[pc]]
                if self.diff_units and prev_unit == unit:
                    stalled = True
                    break
                if w.tbl.cdp[pc] and self._cdp_hold(w, pc):
                    stalled = True
                    break
                self._issue_warp(w, sid, pc, unit, reg, idx, now)
                prev_unit = unit
                issued += 1
                checked += 1
                ist.slot_issues[ws] += issued     # event_warp_issued's running count
            if issued:
                sch.policy.issued(ws)
                if issued == 1:
                    ist.single[sid] += 1
                else:
                    ist.dual[sid] += 1
                return
        if stalled:
            ist.stall += 1
        elif sch.n_sb:
            ist.sb += 1

    def _cdp_hold(self, w: Warp, pc: int) -> bool:
        """Device-runtime call ``pc`` (``CoreTable.cdp``) is ready to issue for warp ``w``:
        the first time, charge its ``-cdp_latency`` and hold it (True); once that has been
        served, let it issue (False).  GPGPU-Sim ``scheduler_unit::cycle``: a parameter buffer
        or launch costs ``latency[k-1] + latency[k] x active lanes`` scheduler examinations,
        stream creation ``latency[0]``; arming takes the examination itself."""
        if w.cdp_armed:
            w.cdp_armed = False
            return False
        k = w.tbl.cdp[pc]
        lat = self.cdp_latency
        w.cdp_wait = lat[0] if k == 1 else lat[k - 1] + lat[k] * popcount(w.src.active())
        w.cdp_armed = True
        self.busy_cycle = True
        return True

    def _waiting(self, w: Warp) -> bool:
        if w.at_bar >= 0 or w.n_atomic > 0:
            return True
        if w.membar:
            if w.pending:
                return True
            w.membar = False
            self.ldst.invalidate_l1()
        return False

    def _issue_warp(self, w: Warp, sched: int, pc: int, unit: int, reg: RegisterSet, idx: int,
                    now: int) -> None:
        tbl = w.tbl
        src = w.src
        # the feed: what the instruction did (live: executes it now)
        ex, act, mem = src.issue(now)
        inst = WarpInst()
        inst.warp = w
        inst.slot = w.slot
        inst.pc = pc
        inst.unit = unit
        inst.lat = tbl.latency[pc]
        inst.ii = tbl.initiation[pc]
        inst.dst = tbl.dst_regs[pc]
        inst.src_banks = w.src_banks[pc]
        inst.wb_left = w.dst_banks[pc]
        inst.sched = sched
        self.uid += 1
        inst.uid = self.uid
        inst.executed = ex
        if unit == U.MEM:                 # (only the LD/ST unit reads the memory fields)
            inst.mem = mem
            inst.space = tbl.mem_space[pc]
            inst.is_load = tbl.is_load[pc]
            inst.is_store = tbl.is_store[pc]
            inst.is_atomic = atomic = tbl.is_atomic[pc]
            inst.accessq = []
            inst.cycles = 0
            if atomic and ex:
                w.n_atomic += 1
        slots = reg.slots
        if idx < 0:
            idx = slots.index(None)
        slots[idx] = inst
        reg.count += 1
        oc = self.opcoll                  # the instruction waits in ID_OC for a collector unit
        oc.n_in += 1
        oc.waiting |= 1 << (reg.pos0 + idx)
        if oc.n_free[sched if oc.sub_core else 0]:
            oc.alloc_blocked = False      # (an instruction whose CUs are all taken changes nothing)
        ib = w.ibuf
        del ib[0]
        if not ib:
            self.fetch_mask |= 1 << w.slot
            self.fetch_dirty = True
        w.next_pc = pc + 1
        if inst.dst:
            w.pending.update(inst.dst)
        self.n_inflight += 1
        self.busy_cycle = True
        self.last_issue = now
        if self.trace is not None:
            self.trace.append((now, w.slot, pc))
        self.n_warp_insn += 1
        self.n_thread_insn += popcount(ex)
        hist = self.istats.w_hist
        n_act = popcount(act)
        hist[n_act] = hist[n_act] + 1       # (``+=`` on a list item is a generic add when compiled)
        if tbl.is_barrier[pc]:
            self._barrier_arrive(w, tbl.barrier_id[pc])
        elif tbl.is_membar[pc]:
            w.membar = True
        elif tbl.cdp[pc] == 4 and ex:
            # a device-side launch: its child grids may start now (KernelRun.device_launch)
            cs = self.ctas[w.cta]
            w.kernel.device_launch(cs.cta_id, w.slot - cs.warps[0])
        if src.pc < 0:              # the warp's last instruction: it is functionally done
            w.fdone = True
            w.in_pipe -= len(w.ibuf)
            w.ibuf = []
            self.fetch_mask &= ~(1 << w.slot)
            self.retire_mask |= 1 << w.slot
            self.fetch_dirty = True
            self._warp_exits_barrier(w)

    # -- barriers (C085-C087) -------------------------------------------------------------
    def _barrier_arrive(self, w: Warp, bar_id: int) -> None:
        slot = self.ctas[w.cta]
        w.at_bar = bar_id
        slot.bar_waiting.append(w.slot)
        self._check_barrier(slot)

    def _warp_exits_barrier(self, w: Warp) -> None:
        """A warp that finished its instructions no longer counts for its CTA's barriers
        (``barrier_set_t::warp_exit``)."""
        self._check_barrier(self.ctas[w.cta])

    def _check_barrier(self, slot: CtaSlot) -> None:
        if not slot.bar_waiting:
            return
        warps = self.warps
        running = sum(1 for ws in slot.warps if warps[ws].active and not warps[ws].fdone)
        # a warp that arrived with its last instruction (bar then nothing) is done already
        if len(slot.bar_waiting) >= running:
            for ws in slot.bar_waiting:
                w = self.warps[ws]
                w.at_bar = -1
                self.scheds[w.sched].cand |= 1 << ws
            slot.bar_waiting = []

    # -- fetch/decode (C070-C077) ---------------------------------------------------------
    def _decode(self) -> None:
        fb = self.fetch_buf
        if fb is None:
            return
        ws, pc = fb
        w = self.warps[ws]
        n_static = w.tbl.n
        ib = [pc]
        if pc + 1 < n_static:
            ib.append(pc + 1)
        w.ibuf = ib
        w.in_pipe += len(ib)
        self.fetch_mask &= ~(1 << ws)
        self.fetch_buf = None
        self.busy_cycle = True
        self.scheds[w.sched].cand |= 1 << ws

    def _fetch(self, now: int) -> bool:
        """One fetch (``shader_core_ctx::fetch``); False when no warp could be fetched for
        (the fetch buffer was free and the scan found nothing).  The scan is skipped while
        nothing happened since the last empty one that could make a warp fetchable or
        retirable (``fetch_dirty``).  With a finite L1I the chosen warp's access may miss
        (its I-miss is then pending and the scan skips it) or fail (retried later)."""
        if self.fetch_buf is not None:
            return True
        if not self.fetch_dirty:
            return False
        m = self.fetch_mask
        rm = self.retire_mask
        if not rm:
            if not m:
                self.fetch_dirty = False
                return False
            if self.icache is None:
                # round robin from the warp after the last one fetched: with every fetch a hit,
                # the first warp with an empty I-buffer (those warps are running, not done)
                lf = self.last_fetched + 1
                above = m >> lf << lf
                if above:
                    m = above
                ws = (m & -m).bit_length() - 1
                self.last_fetched = ws
                self.fetch_buf = (ws, self.warps[ws].next_pc)
                return True
        warps = self.warps
        # round robin from the warp after the last one fetched over the candidates (only warps
        # to fetch for, ``fetch_mask``, or to retire, ``retire_mask``, disjoint: the scan of
        # every warp would skip the others), as bit masks: those above the last one fetched in
        # ascending order, then the others
        cm: int = rm | m
        lf = self.last_fetched + 1
        hi: int = cm >> lf << lf
        lo: int = cm ^ hi
        retired = False
        while True:
            if not hi:
                if not lo:
                    break
                hi = lo
                lo = 0
            low: int = hi & -hi
            hi ^= low
            ws = low.bit_length() - 1
            w: Warp = warps[ws]
            if w.fdone:
                if not w.done_exit and w.stores == 0 and w.in_pipe == 0 and not w.pending:
                    retired = True
                    self.retire_mask &= ~low
                    w.done_exit = True
                    w.active = False
                    slot = self.ctas[w.cta]
                    slot.live -= 1
                    if slot.live == 0:
                        self._cta_done(w.cta)
                continue
            if not w.ibuf:
                ic = self.icache
                if ic is not None:
                    if ws in ic.imiss:
                        continue
                    self.last_fetched = ws
                    if ic.access(ws, w.kernel.inst_addr[w.next_pc], now) != "HIT":
                        self.busy_cycle = True      # a miss was sent, or the access retries
                        if retired:
                            self._drop_retired()
                        return True
                self.last_fetched = ws
                self.fetch_buf = (ws, w.next_pc)
                if retired:
                    self._drop_retired()
                return True
        if retired:
            self.busy_cycle = True
            self._drop_retired()
        else:
            self.fetch_dirty = False
        return False

    def _drop_retired(self) -> None:
        for ws in [ws for ws in self.active_slots if not self.warps[ws].active]:
            self._deactivate(self.warps[ws])
        self.istats.occupancy_change(self._gnow(), len(self.active_slots))

    # -- memory replies -------------------------------------------------------------------
    def accept_response(self, mf: Any, now: int) -> None:
        if self.asleep:
            self.asleep = False
            self.cluster.gpu.core_woken(self)
        self.ldst.accept_response(mf, now)

    def accept_fetch_response(self, mf: Any, now: int) -> None:
        """An instruction-fetch reply for the L1I (``accept_fetch_response``)."""
        if self.asleep:
            self.asleep = False
            self.cluster.gpu.core_woken(self)
        assert self.icache is not None
        self.icache.fill(mf, now)

    def response_buffer_full(self) -> bool:
        return self.ldst.response_full()

    def store_ack(self, slot: int) -> None:
        self.fetch_dirty = True
        self.warps[slot].stores -= 1

    # -- diagnostics (read-only, off the cycle path) ----------------------------------------
    def issue_block(self, sch: SchedulerUnit, w: Warp) -> tuple[str, Any]:
        """What stops warp ``w`` of scheduler ``sch`` from issuing its next instruction now:
        the first of ``scheduler_unit::cycle``'s checks (C078-C091) that fails, tested in the
        order :meth:`_sched_cycle` tests them, but with none of its side effects (no flush, no
        wake-up condition, no statistics).  Returns ``(reason, detail)``:

        * ``("done", None)``: functionally done (past its last instruction);
        * ``("ibuffer_empty", None)``: nothing decoded yet;
        * ``("barrier", bar_id)``, ``("atomics", n outstanding)``, ``("membar", None)`` (a
          fence waiting for the warp's pending writes);
        * ``("cdp_latency", n)``: a device-runtime call with ``n`` examinations of its
          ``-cdp_latency`` left (each examination takes one);
        * ``("control_hazard", next pc)``: the I-buffer holds the wrong path (the scheduler
          flushes it);
        * ``("scoreboard", regs)``: registers of the instruction with a pending write;
        * ``("no_unit", None)``: its op class has no unit on this core;
        * ``("full", register set)``: no room in its unit's ID_OC register (sub-core: the
          scheduler's slot);
        * ``("ready", None)``: it issues if the scheduler examines it.

        Dual issue (:meth:`_sched_cycle_multi`) and the trace's ``no issue`` reasons
        (``trace.py``) use this rule.  The single-issue :meth:`_sched_cycle`, the hottest loop
        of the model, keeps the same tests inlined over bit masks; ``tests/timing/core/
        test_issue_reasons.py`` checks, on every scheduler cycle of a few kernels, that this
        verdict agrees with what it did (so neither can change alone)."""
        if w.fdone:
            return "done", None
        ib = w.ibuf
        if not ib:
            return "ibuffer_empty", None
        if w.at_bar >= 0:
            return "barrier", w.at_bar
        if w.n_atomic:
            return "atomics", w.n_atomic
        if w.membar and w.pending:
            return "membar", None
        if w.cdp_wait:
            return "cdp_latency", w.cdp_wait
        pc = ib[0]
        if pc != w.src.pc:
            return "control_hazard", w.src.pc
        tbl = w.tbl
        coll = w.pending & tbl.regs_all[pc]
        if coll:
            return "scoreboard", coll
        unit, reg, idx = sch.route[tbl.unit[pc]]
        if unit < 0:
            return "no_unit", None
        if not self._room(reg, idx):
            return "full", reg
        return "ready", None

    def dump_state(self) -> str:
        """The whole state of this core (C200; GPGPU-Sim ``shader_core_ctx::display_pipeline``):
        warps and their I-buffers, the fetch buffer, the scoreboard, every pipeline register,
        the operand collector, the execution units, the result-bus reservations, the LD/ST unit
        with its L1 caches' MSHRs, the L1I.  Reads state only (a sleeping core is shown as it
        sleeps: its state does not change while it sleeps)."""
        g = self.cluster.gpu
        running = [w for w in self.warps if w.active]
        k = self.kernel
        lines = ["=================================================",
                 f"shader {self.sid} after core cycle {g.gpu_tot_sim_cycle + g.gpu_sim_cycle - 1} "
                 f"({sum(1 for w in running if not w.fdone)} warps running)",
                 "=================================================",
                 f"core {self.sid}: live CTAs {self.n_live_ctas}, in flight {self.n_inflight}, "
                 f"kernel {f'{k.rec.uid} {k.rec.name!r}' if k is not None else '-'}"
                 + (", asleep (quiescent until a reply arrives)" if self.asleep else ""),
                 "-------------------------- Warps"]
        for c, slot in enumerate(self.ctas):
            if slot.kernel is not None:
                lines.append(f"  cta slot {c}: CTA {slot.cta_id} of kernel {slot.kernel.rec.uid}, live warps "
                             f"{slot.live}, at barrier {slot.bar_waiting}")
        for w in running:
            lines.append(f"  w{w.slot:02d} cta{w.cta} dyn {w.dyn} sched {w.sched} feed pc {w.src.pc} next_pc "
                         f"{w.next_pc} ibuf {w.ibuf} in_pipe {w.in_pipe} bar {w.at_bar} membar {w.membar} "
                         f"stores {w.stores} atomics {w.n_atomic} pending {sorted(w.pending)}"
                         + (" functionally done" if w.fdone else ""))
        fb = self.fetch_buf
        lines.append("  IF/ID       = " + ("bubble" if fb is None else f"w{fb[0]:2d} : pc = {fb[1]}"))
        for sch in self.scheds:
            lines.append(f"  scheduler {sch.sid}: warps {sch.active} candidates {sorted(sch.candidates())} last issued "
                         f"{sch.policy.last} scoreboard-blocked {sch.n_sb} waiting for ID_OC {sch.n_route}")
        lines.append("-------------------------- Scoreboard")
        for w in running:
            if w.pending:
                lines.append(f"  w{w.slot:02d}: {reg_names(w, w.pending)}")
        lines.append("-------------------------- Pipe Regs")
        for r in list(self.id_oc.values()) + list(self.oc_ex.values()) + [self.ex_wb]:
            lines.append("  " + r.dump())
        lines.append("-------------------------- OP COL")
        lines.append("  " + self.opcoll.dump().replace("\n", "\n  "))
        lines.append("-------------------------- Fu")
        after = g.gpu_tot_sim_cycle + g.gpu_sim_cycle - 1
        for u in self.units:
            if u.busy() or u.occupied_at(after):
                lines.append("  " + u.dump(after))
        n_idle = sum(1 for u in self.units if not (u.busy() or u.occupied_at(after)))
        if n_idle:
            lines.append(f"  ({n_idle} other units empty)")
        lines.append("-------------------------- other:")
        cur = g.gpu_tot_sim_cycle + g.gpu_sim_cycle
        lines.append(f"  EX/WB result buses reserved (cycle: buses) "
                     f"{ {t: n for t, n in sorted(self.rb_res.items()) if t >= cur} }")
        lines.append(f"  last issue at cycle {self.last_issue}")
        lines.append("-------------------------- LD/ST")
        lines.append("  " + self.ldst.dump().replace("\n", "\n  "))
        if self.icache is not None:
            lines.append("  " + self.icache.dump())
        return "\n".join(lines)
