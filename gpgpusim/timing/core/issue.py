"""The issue-eligibility rule and dual issue (``scheduler_unit::cycle``; checklist C078-C091).

:func:`issue_block` is the rule "may this warp issue now, and if not, why": dual issue
(:func:`dual_issue`) and the trace's ``no issue`` reasons use it; the single-issue
``ShaderCore._sched_cycle`` keeps the same tests inlined (``tests/timing/core/
test_issue_reasons.py`` keeps the two in step)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .units import RegisterSet
from .warp import SchedulerUnit, Warp, bits

if TYPE_CHECKING:
    from .shader import ShaderCore


def room(reg: RegisterSet, idx: int) -> bool:
    """Room in an ID_OC register: slot ``idx`` (sub-core model) or any slot (idx -1)."""
    return reg.slots[idx] is None if idx >= 0 else reg.count < len(reg.slots)


def issue_block(sch: SchedulerUnit, w: Warp) -> tuple[str, Any]:
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
    * ``("scoreboard", regs)``: registers of the instruction with a pending write (a list);
    * ``("no_unit", None)``: its op class has no unit on this core;
    * ``("full", register set)``: no room in its unit's ID_OC register (sub-core: the
      scheduler's slot);
    * ``("ready", None)``: it issues if the scheduler examines it.

    Dual issue (:func:`dual_issue`) and the trace's ``no issue`` reasons
    (``trace.py``) use this rule.  The single-issue ``ShaderCore._sched_cycle``, the hottest loop
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
    coll = w.pending & tbl.regs_mask[pc]
    if coll:
        return "scoreboard", bits(coll)
    unit, reg, idx = sch.route[tbl.unit[pc]]
    if unit < 0:
        return "no_unit", None
    if not room(reg, idx):
        return "full", reg
    return "ready", None


def dual_issue(core: ShaderCore, sch: SchedulerUnit, now: int) -> None:
    """``scheduler_unit::cycle`` with several instructions per warp per cycle (dual issue;
    ``ShaderCore._sched_cycle_multi``): each warp in the policy's order issues while
    :func:`issue_block` finds it ready, up to ``-gpgpu_max_insn_issue_per_warp`` instructions
    (with ``-gpgpu_dual_issue_diff_exec_units``, to different units)."""
    warps = core.warps
    sid = sch.sid
    ist = core.istats
    stalled = False
    for ws in sch.policy.order(sch.active, warps):
        w = warps[ws]
        checked = issued = 0
        prev_unit = -1
        while (not w.fdone and w.ibuf and checked < core.max_issue and checked <= issued
               and issued < core.max_issue and not core._waiting(w)):
            why, _detail = issue_block(sch, w)
            if why == "cdp_latency":
                w.cdp_wait -= 1
                core.busy_cycle = True
                break
            if why == "control_hazard":
                core._flush(w, w.src.pc)
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
            if core.diff_units and prev_unit == unit:
                stalled = True
                break
            if w.tbl.cdp[pc] and core._cdp_hold(w, pc):
                stalled = True
                break
            core._issue_warp(w, sid, pc, unit, reg, idx, now)
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
