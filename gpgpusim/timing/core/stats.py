"""Issue, stall and occupancy accounting of the SIMT cores (GPGPU-Sim ``shader_core_stats``).

Checklist C184 (Warp Occupancy Distribution), C179 (per-kernel general statistics).  What
GPGPU-Sim 4.2 counts and when, and how each is counted here without per-cycle work:

* ``shader_cycle_distro`` (printed as ``Warp Occupancy Distribution:``): each cycle a core
  cycles (it has a live CTA), each scheduler adds to one bucket when it issued nothing
  (``scheduler_unit::cycle``): ``W0_Idle`` when no warp had a valid instruction (I-buffer
  empty, control hazard, waiting at a barrier/memory barrier/atomic, done), ``W0_Scoreboard``
  when some warp had one but every such warp collided on the scoreboard, ``Stall`` when some
  warp passed the scoreboard but its unit's ID_OC register was full.  Every issued
  instruction adds to ``W<n>`` with ``n`` its SIMT active-thread count (before predication,
  ``shader_core_ctx::issue_warp``).  Here: ``Stall`` and ``W0_Scoreboard`` are counted in the
  scheduler's existing no-issue branches; a warp that collided on the scoreboard keeps a flag
  (``Warp.sb``) until the last of its colliding registers is released (the only event that
  can unblock it: before, examined, it would collide again; C092),
  so a scheduler with no candidate warp still knows whether it is scoreboard-blocked, and a
  sleeping core adds its cycles in bulk; ``W0_Idle`` is the rest: schedulers x live cycles
  minus issue cycles, ``Stall`` and ``W0_Scoreboard``.
* ``single_issue_nums`` / ``dual_issue_nums``: per scheduler, cycles that issued one / more
  instructions (one warp).
* ``Shader 0 warp_id issue ditsribution``: per hardware warp slot of core 0, the issue count,
  with GPGPU-Sim's dual-issue quirk (``event_warp_issued`` adds the warp's running count, so
  the second instruction of a dual issue adds 2); the list is as long as the highest slot
  that issued.  ``ctas_completed``: CTAs completed, all cores.
* ``gpu_occupancy`` / ``gpu_tot_occupancy``: the sum, over cycles and cores with at least one
  active warp, of active warps over warp slots (``shader_core_ctx::get_current_occupancy``,
  sampled after the core stage of every cycle).  Integrated here at the events that change a
  core's active-warp count (CTA issue, warp exit).  GPGPU-Sim 4.2 in PTX mode never adds these
  samples and prints ``-nan%``; we print the value the formula defines (the later GPGPU-Sim
  releases and ``nvprof``'s achieved occupancy), a documented difference.

Also knowingly different: ``gpu_reg_bank_conflict_stalls`` (set by the GPU from the operand
collector) counts bank-queue cycles with more than one pending read; GPGPU-Sim 4.2 declares and
prints the counter but never adds to it (0 in every reference log).
"""

from __future__ import annotations

from typing import Any


class IssueStats:
    """One core's issue counters (plain ints and int lists, incremented in the issue stage)."""

    __slots__ = ("w_hist", "stall", "sb", "sleep_sb", "single", "dual", "slot_issues",
                 "live_cycles", "live_since", "occ_warps", "occ_slots", "occ_since", "occ_n",
                 "max_warps", "ctas_completed")

    def __init__(self, n_sched: int, max_warps: int, warp_size: int = 32) -> None:
        #: issued instructions by SIMT active-thread count (index = count; 0 never happens)
        self.w_hist = [0] * (warp_size + 1)
        self.stall = 0            # scheduler-cycles: ready warp, unit register full
        self.sb = 0               # scheduler-cycles: valid warps all scoreboard-blocked
        self.sleep_sb = 0         # schedulers scoreboard-blocked while the core sleeps
        self.single = [0] * n_sched
        self.dual = [0] * n_sched
        self.slot_issues = [0] * max_warps
        self.live_cycles = 0      # cycles with a live CTA (GPGPU-Sim cycles the core)
        self.live_since = -1      # first cycle of the current live stretch (-1: none)
        self.occ_warps = 0        # sum over sampled cycles of active warps
        self.occ_slots = 0        # sum over sampled cycles with active warps of warp slots
        self.occ_since = 0        # first cycle not yet integrated
        self.occ_n = 0            # active warps since occ_since
        self.max_warps = max_warps
        self.ctas_completed = 0

    def occupancy_change(self, cur: int, n_active: int) -> None:
        """The active-warp count becomes ``n_active`` from sample ``cur`` on."""
        span = cur - self.occ_since
        if span > 0 and self.occ_n:
            self.occ_warps += self.occ_n * span
            self.occ_slots += self.max_warps * span
        self.occ_since = cur
        self.occ_n = n_active

    def live_start(self, cur: int) -> None:
        """The core's first live CTA arrived; it is cycled from cycle ``cur`` on."""
        self.live_since = cur

    def live_end(self, cur: int) -> None:
        """The core's last live CTA finished; ``cur`` is the first cycle it no longer counts."""
        if self.live_since >= 0:
            self.live_cycles += cur - self.live_since
        self.live_since = -1

    def settled(self, cur: int) -> tuple[int, int, int]:
        """(live cycles, occupancy warp-cycles, occupancy slot-cycles) counted up to ``cur``
        (the first cycle not simulated yet), without closing the open stretches."""
        live = self.live_cycles + (cur - self.live_since if self.live_since >= 0 else 0)
        span = cur - self.occ_since
        warps, slots = self.occ_warps, self.occ_slots
        if span > 0 and self.occ_n:
            warps += self.occ_n * span
            slots += self.max_warps * span
        return live, warps, slots


def issue_totals(cores: list[Any], cur: int) -> dict[str, Any]:
    """The cumulative issue/occupancy counters of ``cores`` up to ``cur`` (the first core cycle
    not simulated yet), as the report names them; sleeping cores' cycles are included without
    settling them (so sampling changes nothing)."""
    n_sched = cores[0].n_sched
    hist = [0] * len(cores[0].istats.w_hist)
    single = [0] * n_sched
    dual = [0] * n_sched
    stall = sb = idle = 0
    occ_w = occ_s = ctas = 0
    for c in cores:
        s = c.istats
        live, w, sl = s.settled(cur)
        occ_w += w
        occ_s += sl
        ctas += s.ctas_completed
        for i, n in enumerate(s.w_hist):
            hist[i] += n
        issued = 0
        for i in range(n_sched):
            single[i] += s.single[i]
            dual[i] += s.dual[i]
            issued += s.single[i] + s.dual[i]
        c_sb = s.sb
        if c.slept_at is not None and cur > c.slept_at:
            c_sb += (cur - c.slept_at) * s.sleep_sb
        stall += s.stall
        sb += c_sb
        idle += n_sched * live - issued - s.stall - c_sb
    d0 = cores[0].istats.slot_issues
    last = max((i for i, n in enumerate(d0) if n), default=-1)
    # [Stall, W0_Idle, W0_Scoreboard, W1..W32] (an instruction with no active thread cannot
    # issue here; GPGPU-Sim would count it under Stall)
    return {"warp_occupancy": [stall + hist[0], idle, sb] + hist[1:], "single_issue_nums": single,
            "dual_issue_nums": dual, "active_warps_sum": occ_w, "max_warps_sum": occ_s,
            "ctas_completed": ctas, "shader0_warp_issue_distro": d0[:last + 1]}


def publish_issue_stats(st: Any, cores: list[Any], cur: int) -> None:
    """Set the cumulative issue/occupancy counters of every core in the registry ``st``."""
    if cores:
        for k, v in issue_totals(cores, cur).items():
            st.set(k, v)
