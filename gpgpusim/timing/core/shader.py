"""The SIMT core (GPGPU-Sim ``shader_core_ctx``; checklist C070-C107, C131-C137).

One core cycle runs the stages back to front, as ``shader_core_ctx::cycle`` does:
``writeback(); execute(); read_operands(); issue(); (decode(); fetch()) x
-gpgpu_inst_fetch_throughput``.

* **Fetch/decode** (C070-C077; fetch and retirement in ``fetch.py``): one fetch per call for
  the whole core, round robin over the warps whose 2-entry I-buffer is empty (and, with a
  finite L1I, no instruction miss pending);
  with ``-gpgpu_perfect_inst_const_cache 1`` (every shipped 4.x config) every fetch hits, with
  0 each fetch accesses the core's L1I (``-gpgpu_cache:il1``, ``icache.py``): a miss waits for
  the fill from the memory system, and the L1I's cycle runs at the end of every fetch call;
  decode places the instruction at the fetch pc and the next one into the I-buffer.  The
  fetch loop also retires warps that are done (functional done, no instruction in the
  pipeline, no pending register write, stores acknowledged) and frees a CTA's slot when its
  last warp retires.
* **Issue** (C078-C091; the eligibility rule and dual issue in ``issue.py``, the routing in
  ``layout.py``): ``-gpgpu_num_sched_per_core`` scheduler units, warp ``w`` supervised by
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

The warp, CTA-slot and scheduler state is ``warp.py``; the state dump (C200) ``dump.py``.

Each warp reads its dynamic instructions through a ``feed.WarpStream`` (``timing/feed.py``): the
pc of the next one, and at issue (``_issue_warp``, where GPGPU-Sim calls ``func_exec_inst``) its
executed mask and lane addresses; the scoreboard, the I-buffer and the units decide *when* each
runs.  The core does not know which feed it reads (recorded trace or live execution).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bisect import insort


from ..kit import Component
from . import units as U
from .dump import dump_core
from .fetch import fetch
from .icache import InstCache
from .issue import dual_issue, issue_block
from .layout import make_scheds, make_units, pipeline_registers, unit_depths, wire_routes
from .ldst import LdstUnit
from .opcoll import OperandCollector
from .stats import IssueStats
from .units import PipelinedUnit, RegisterSet, WarpInst, popcount
from .warp import CtaSlot, SchedulerUnit, Warp, bits

if TYPE_CHECKING:
    from ..cluster import Cluster


def _unit_order(u: PipelinedUnit) -> int:
    return u.order


class ShaderCore(Component):
    """One SM, a component of the core clock (its cluster's).  ``cycle()`` advances it one core
    cycle; the GPU adds CTAs with :meth:`issue_cta` and its cluster delivers memory replies
    with :meth:`accept_response` / :meth:`accept_fetch_response`.

    Sleep follows the kit's protocol where it fits: a cycle that finds the core quiescent
    (:meth:`_quiescent`) leaves it ``asleep``, and a reply handed to it or a CTA issued to it
    wakes it through :meth:`wake`, which also hands it back to the GPU's list of cores to
    cycle (``TimingGpu.core_woken``): the core loop visits only that list, in core order,
    rather than asking every core each cycle whether it is :meth:`~..kit.Component.due`.
    Its idle accounting stays its own (``slept_at``, :meth:`settle_sleep`) rather than the
    kit's ``sleep_from`` / :meth:`~..kit.Component.idle_for`: the idle cycles count only while
    threads are resident (GPGPU-Sim keeps cycling such a core; a core without threads is not
    cycled at all), they are keyed to the core cycle ``now`` (which the kernel-launch fast
    forward advances without ticking the cores), and the reference loop
    (``GPGPUSIM_SKIP_IDLE=0``) cycles a sleeping core with threads directly, which
    :meth:`cycle` settles on entry."""

    def __init__(self, sid: int, cluster: Cluster, cfg: Any, stats: Any, l1d: Any = None) -> None:
        super().__init__(cluster.clock)
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
        self.scheds = make_scheds(self.n_sched, self.max_warps, str(g("gpgpu_scheduler")))
        self.ctas = [CtaSlot() for _ in range(self.max_cta)]
        self.active_slots: list[int] = []      # slots running a warp, ascending
        self.n_live_ctas = 0
        self.next_dyn = 0
        self.last_fetched: int = self.max_warps - 1
        self.fetch_buf: tuple[int, int] | None = None     # (warp slot, pc)
        self.fetch_dirty = True
        self.fetch_mask = 0                 # bit w: running warp w has an empty I-buffer
        self.retire_mask = 0                # warps past their last instruction, not retired (bits)
        self.id_oc, self.oc_ex, self.ex_wb = pipeline_registers(g)
        self.n_result_bus = len(self.ex_wb.slots)     # (-gpgpu_pipeline_widths EX_WB, at least 1)
        #: result-bus reservations: cycle -> buses reserved for a writeback in that cycle
        #: (GPGPU-Sim keeps one shifted bit vector per bus; any free bus will do, so a count
        #: per absolute cycle is the same test without shifting every cycle)
        self.rb_res: dict[int, int] = {}
        self.n_units = {U.SP: int(g("gpgpu_num_sp_units")), U.DP: int(g("gpgpu_num_dp_units")),
                        U.SFU: int(g("gpgpu_num_sfu_units")), U.INT: int(g("gpgpu_num_int_units")),
                        U.TENSOR: int(g("gpgpu_num_tensor_core_units"))}
        self.id_oc_list = [self.id_oc.get(k) for k in range(6)]   # indexed by unit kind
        wire_routes(self.scheds, self.n_units, self.id_oc, self.sub_core)
        self.units = make_units(self.n_units, unit_depths(cfg), self.ex_wb)
        self.busy_units: list[PipelinedUnit] = []    # units with work, in self.units order
        self.units_due = 0        # the first cycle in which one of them has work (unit.due)
        #: the last cycle with a result-bus slot of a unit taken (the core is not quiescent
        #: before: GPGPU-Sim's units still shift their bits)
        self.wb_until = -1
        # (OC_EX register, its units) in the units' order (SP, DP, SFU, INT, TENSOR)
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
        self.slept_at: int | None = None   # first cycle slept through (with threads resident)
        self.trace: list[tuple[int, int, int]] | None = None   # (cycle, warp slot, pc) per issue
        self.busy_cycle = False   # something issued, fetched, retired or flushed this cycle

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
            self.wake()
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
    def wake(self) -> None:
        """Cycled again from the next core cycle on: back into the GPU's list of awake cores."""
        self.asleep = False
        self.cluster.gpu.core_woken(self)

    def cycle(self, now: int) -> bool:
        """One core cycle; True when something issued, fetched, retired or flushed.  A cycle
        that leaves the core quiescent puts it to sleep."""
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
                if not fetch(self, now):
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
                        fetch(self, now)
                ic.cycle(now)
        if not self.busy_cycle and self._quiescent(now):
            self.asleep = True
            if self.n_live_ctas:       # GPGPU-Sim keeps cycling a core that has threads
                self.slept_at = now + 1
                self.istats.sleep_sb = sum(1 for sch in self.scheds if sch.n_sb)
        return self.busy_cycle

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
            dm = w.tbl.dst_mask[inst.pc]
            pend = w.pending & ~dm
            w.pending = pend
            sw = w.sb_wait
            # (sw & dm: one of the registers the warp's scoreboard block waits for)
            if sw < 0 or (sw & dm and not pend & sw):
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
        pend = w.pending & ~(1 << reg)
        w.pending = pend
        sw = w.sb_wait
        if sw < 0 or (sw >> reg & 1 and not pend & sw):
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
        """``scheduler_unit::cycle`` (C078-C091; single issue, else ``_sched_cycle_multi``):
        examine the candidates in policy order (:meth:`_sched_order`), issue from the first that
        can.  A warp whose ID_OC slot is taken waits in the slot's ``waiters`` mask, out of the
        candidates, until the collector frees it (a stall while any waits: ``n_route``).  The
        per-warp loop stays inlined over bit masks: it is the hottest loop of the model."""
        warps = self.warps
        cm = sch.cand
        pol = sch.policy
        lrr = sch.rotates
        i = 0
        hi, lo, order = self._sched_order(sch, cm)
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
                w.sb_wait = -1          # woken by any register release
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
                need = tbl.regs_mask[pc]
                if pend & need:
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
            if idx >= 0 and reg.woken[idx]:
                self._park_woken(sch, reg, idx, low)
            pol.issued(ws)
            single = self.istats.single
            single[sch.sid] = single[sch.sid] + 1
            per_slot = self.istats.slot_issues
            per_slot[ws] = per_slot[ws] + 1
            return
        sch.cand = cm
        # nothing issued (scheduler_unit::cycle's stall statistics; W0_Idle is the rest; the
        # warps waiting for an ID_OC slot are stalled ones that were not looked at again)
        if stalled or sch.n_route:
            self.istats.stall += 1
        elif sch.n_sb:
            self.istats.sb += 1

    def _sched_order(self, sch: SchedulerUnit, cm: int) -> tuple[int, int, Sequence[int]]:
        """The order in which :meth:`_sched_cycle` examines candidates ``cm``: ``(hi, lo, ())``
        for loose round robin (the policy's ``rotates_after_last``), taken lazily from the mask
        (the candidates above the last warp to issue, ascending, then the others), else
        ``(0, 0, order)``: the policy's order of the running warps restricted to the
        candidates."""
        pol = sch.policy
        if sch.rotates:
            # the order the policy gives the running warps (from the one after the last to
            # issue, when that one still runs), restricted to the candidates (the others would
            # be skipped)
            last = pol.last
            if last >= 0 and (sch.act_mask >> last) & 1:
                k = last + 1
                hi = cm >> k << k
                return hi, cm ^ hi, ()
            return cm, 0, ()
        if sch.orders_subset:
            # a ranking needs no filtering: ordering only the candidates gives the order of
            # all running warps restricted to them
            return 0, 0, pol.order(bits(cm), self.warps)
        return 0, 0, [ws for ws in pol.order(sch.active, self.warps) if (cm >> ws) & 1]

    def _park_woken(self, sch: SchedulerUnit, reg: RegisterSet, idx: int, low: int) -> None:
        """The issue (of the warp with bit ``low``) filled slot ``idx`` of ID_OC register
        ``reg`` again: the other warps woken when it was freed wait again now.

        Where the collector keeps the warps it woke (``OperandCollector.keep_woken``), the issue
        that fills a slot again parks the woken ones not examined since: nothing but its own
        issue changes such a warp's I-buffer, feed pc, barrier, fence or atomics state and its
        pending registers only shrink, so examined it would reach the room check again and
        wait again; parking it at once instead changes no issue (a warp that cannot issue does
        not change which one issues first, in any order), no statistic (``n_route`` counts it
        either way) and no later wake-up.  Only for policies whose ordering has no side effects
        (a scheduler left without candidates is not asked for an order) and ID_OC slots of one
        scheduler each.  (The slot's waiters mask is empty while it is free.)"""
        wk = reg.woken[idx] & ~low
        reg.woken[idx] = 0
        if wk:
            sch.cand &= ~wk
            reg.waiters[idx] = wk
            sch.n_route += popcount(wk)

    def _flush(self, w: Warp, want: int) -> None:
        """Control hazard: the I-buffer does not hold the warp's next instruction (a taken
        branch or a reconvergence): empty it and fetch again at ``want``."""
        self.busy_cycle = True
        self.fetch_dirty = True
        w.in_pipe -= len(w.ibuf)
        w.ibuf = []
        self.fetch_mask |= 1 << w.slot
        w.next_pc = want

    def _sched_cycle_multi(self, sch: SchedulerUnit, now: int) -> None:
        """The scheduler cycle with several instructions per warp (``issue.dual_issue``)."""
        dual_issue(self, sch, now)

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
            w.pending |= tbl.dst_mask[pc]
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
            self._functionally_done(w)

    def _functionally_done(self, w: Warp) -> None:
        """Warp ``w`` issues nothing more: its I-buffer is dropped, it is no longer fetched
        for, it retires once what it has in flight completes, and it leaves its CTA's barriers."""
        w.fdone = True
        w.in_pipe -= len(w.ibuf)
        w.ibuf = []
        self.fetch_mask &= ~(1 << w.slot)
        self.retire_mask |= 1 << w.slot
        self.fetch_dirty = True
        self._warp_exits_barrier(w)

    def abandon(self, kernel: Any) -> None:
        """CTA sampling's cut inside a wave: ``kernel``'s warps on this core issue nothing more
        (each is functionally done from now: its stream was cut, ``KernelTrace.cut``); what is
        in the pipeline and the memory system completes, then they retire as after their last
        instruction, and their CTAs end."""
        for slot in self.ctas:
            if slot.kernel is not kernel:
                continue
            for ws in slot.warps:
                w = self.warps[ws]
                if not w.active or w.fdone:
                    continue
                w.src.abandon()
                if self.fetch_buf is not None and self.fetch_buf[0] == ws:
                    self.fetch_buf = None
                self._functionally_done(w)
        self.fetch_dirty = True
        if self.asleep:
            self.wake()

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
        warps = self.warps
        for ws in slot.barrier_release(warps):
            self.scheds[warps[ws].sched].cand |= 1 << ws

    # -- fetch/decode (C070-C077) ---------------------------------------------------------
    def _decode(self) -> None:
        fb = self.fetch_buf
        if fb is None:
            return
        ws, pc = fb
        w = self.warps[ws]
        if w.fdone:                 # an I-miss that filled after the warp was cut (abandon)
            self.fetch_buf = None
            return
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

    # -- memory replies -------------------------------------------------------------------
    def accept_response(self, mf: Any, now: int) -> None:
        """A data reply (a read's data, a write's acknowledgement) for the LD/ST unit; it wakes
        the core."""
        if self.asleep:
            self.wake()
        self.ldst.accept_response(mf, now)

    def accept_fetch_response(self, mf: Any, now: int) -> None:
        """An instruction-fetch reply for the L1I (``accept_fetch_response``)."""
        if self.asleep:
            self.wake()
        assert self.icache is not None
        self.icache.fill(mf, now)

    def response_buffer_full(self) -> bool:
        return self.ldst.response_full()

    def store_ack(self, slot: int) -> None:
        self.fetch_dirty = True
        self.warps[slot].stores -= 1

    # -- diagnostics (read-only, off the cycle path) ----------------------------------------
    def issue_block(self, sch: SchedulerUnit, w: Warp) -> tuple[str, Any]:
        """What stops warp ``w`` of scheduler ``sch`` from issuing now (``issue.issue_block``)."""
        return issue_block(sch, w)

    def dump_state(self, out: list[str]) -> None:
        """Append the whole state of this core (``dump.dump_core``)."""
        out.append(dump_core(self))
