"""The scheduler's eligibility checks exist twice: inlined in the hot ``ShaderCore._sched_cycle``
(and ``_sched_cycle_multi``), and as the read-only ``ShaderCore.issue_block`` that the trace's
``no issue: ...`` reasons come from (``gpgpusim.timing.trace``; C078-C091, C200).  These tests
drive kernels that stall on every kind of reason and, on every scheduler cycle, compare the
verdict of ``issue_block`` taken just before the scheduler ran with what the scheduler did:
the warp it issued was ``ready`` and no warp it passed over was; a warp it flushed had a
control hazard; a warp it parked on an ID_OC register's wait list found it ``full``; a warp it
marked scoreboard-blocked had a ``scoreboard`` collision.  Then every ``no issue`` trace line
must give, for each warp the scheduler examined, the reason it saw.  A change to one copy of
the checks without the other fails here.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from timing_helpers import ptx, run_timing  # noqa: E402

from gpgpusim.timing import trace as T  # noqa: E402
from gpgpusim.timing.core.shader import ShaderCore  # noqa: E402

#: 8 warps per CTA: a divergent SFU path (control hazards, scoreboard), shared memory and a
#: barrier, an atomic (outstanding atomics), a load followed by a fence (membar), a loop
MIX = """
.reg .u32 %r<12>; .reg .u64 %rd<8>; .reg .f32 %f<8>; .reg .pred %p<4>;
.shared .align 4 .b8 sm[1024];
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd2, %r1, 4;
add.u64 %rd3, %rd1, %rd2;
ld.global.f32 %f1, [%rd3];
setp.lt.u32 %p1, %r1, 64;
@%p1 bra A;
sin.approx.f32 %f2, %f1;
add.f32 %f1, %f2, %f1;
A:
shl.b32 %r2, %r1, 2;
mov.u32 %r3, sm;
add.u32 %r4, %r3, %r2;
st.shared.f32 [%r4], %f1;
bar.sync 0;
ld.shared.f32 %f3, [%r4];
add.u64 %rd4, %rd1, 4096;
atom.global.add.u32 %r5, [%rd4], 1;
ld.global.f32 %f4, [%rd3+1024];
membar.gl;
mov.u32 %r6, 0;
L:
add.u32 %r6, %r6, 1;
fma.rn.f32 %f3, %f3, %f3, %f1;
setp.lt.u32 %p2, %r6, 4;
@%p2 bra L;
add.f32 %f3, %f3, %f4;
st.global.f32 [%rd3], %f3;
ret;
"""

NO_ISSUE = re.compile(r"GPGPU-Sim Cycle (\d+): WARP_SCHEDULER - Core (\d+) - Scheduler (\d+) - no issue: (.*)$")


def _text(w: Any, reason: str, x: Any) -> str:
    """The trace's wording of a verdict after the scheduler ran (a flushed I-buffer is empty)."""
    return "ibuffer_empty" if reason == "control_hazard" else T.reason_text(w, reason, x)


class Watch:
    """Shadows one core's ``_sched_cycle`` (``_sched_cycle_multi``), ``_issue_warp`` and ``_flush`` (instance attributes,
    as the trace does) and its schedulers' policies (a recording subclass), and checks every
    scheduler cycle; ``expected`` keeps, per (cycle, core, scheduler) that issued nothing, the
    trace text of each examined warp's reason."""

    def __init__(self, core: ShaderCore, expected: dict[tuple[int, int, int], dict[int, str]],
                 kinds: Counter[str]) -> None:
        self.core = core
        self.expected = expected
        self.kinds = kinds
        self.issued: list[int] = []
        self.flushed: list[int] = []
        self.orders: dict[int, list[int]] = {}
        self.seen: dict[Any, tuple[int, dict[int, tuple[str, Any]]]] = {}
        self.calls = 0
        orders = self.orders
        for sch in core.scheds:
            base = type(sch.policy)

            def order(pol: Any, warps: list[int], age: Any, _base: Any = base, _sid: int = sch.sid) -> list[int]:
                out = _base.order(pol, warps, age)
                orders[_sid] = list(out)
                return out
            sch.policy.__class__ = type(f"Seen{base.__name__}", (base,), {"__slots__": (), "order": order})
        # a dual-issue core steps its schedulers with _sched_cycle_multi
        sched_name = "_sched_cycle_multi" if core.multi_issue else "_sched_cycle"
        sched_cycle, issue_warp, flush = getattr(core, sched_name), core._issue_warp, core._flush

        def traced_issue_warp(w: Any, *a: Any) -> None:
            self.issued.append(w.slot)
            issue_warp(w, *a)

        def traced_flush(w: Any, want: int) -> None:
            self.flushed.append(w.slot)
            flush(w, want)

        def traced_sched_cycle(sch: Any, now: int) -> None:
            self.check(sched_cycle, sch, now)

        def traced_issue(now: int) -> None:
            self.stage(issue, now)
        issue = core._issue
        core._issue = traced_issue                   # type: ignore[method-assign]
        core._issue_warp = traced_issue_warp         # type: ignore[method-assign]
        core._flush = traced_flush                   # type: ignore[method-assign]
        setattr(core, sched_name, traced_sched_cycle)

    def _parked(self, sch: Any) -> Counter[int]:
        return Counter(ws for reg in self.core.id_oc.values() for m in reg.waiters for ws in sch.warps
                       if (m >> ws) & 1)

    def check(self, sched_cycle: Any, sch: Any, now: int) -> None:
        core = self.core
        multi = core.max_issue > 1
        pre = {ws: core.issue_block(sch, core.warps[ws]) for ws in sch.active}
        cand = sch.candidates()
        parked = self._parked(sch)
        self.issued.clear()
        self.flushed.clear()
        self.orders.pop(sch.sid, None)
        sched_cycle(sch, now)
        self.calls += 1
        # the warps waiting for an ID_OC slot: each once, as many as the scheduler counts, and
        # each finds its slot taken (also those parked at once when an issue filled the slot
        # they had been woken for: OperandCollector.keep_woken)
        now_parked = self._parked(sch)
        assert all(n == 1 for n in now_parked.values())
        assert sum(now_parked.values()) == sch.n_route
        for ws in now_parked:
            assert core.issue_block(sch, core.warps[ws])[0] == "full", (now, ws)
        if self.issued:
            self.kinds["parked at the issue"] += len((now_parked.keys() - parked.keys()) & cand)
        # the warps the scheduler examined, in its order (lrr: the candidates, in an order the
        # single-issue path computes itself; the others: the policy's order)
        if multi:
            order = self.orders.get(sch.sid, [])
        elif sch.rotates:
            order = sorted(cand)
        else:
            order = [ws for ws in self.orders.get(sch.sid, []) if ws in cand]
        if self.issued:
            x = self.issued[0]
            assert pre[x][0] == "ready", (now, x, pre[x])
            self.kinds["ready"] += 1
            if sch.rotates and not multi:
                return                  # (which candidates came before it is the rotation's business)
            order = order[:order.index(x)]
        for ws in order:
            w = core.warps[ws]
            reason, _x = pre[ws]
            where = (now, core.sid, sch.sid, ws, pre[ws])
            assert reason != "ready", where
            assert (ws in self.flushed) == (reason == "control_hazard"), where
            if reason == "scoreboard":
                assert w.sb, where
            if not multi:
                assert bool(now_parked[ws]) == (reason == "full"), where
                assert (ws in sch.candidates()) == (reason == "no_unit" or (reason == "scoreboard" and sch.demotes)), where
            self.kinds[reason] += 1
        if not self.issued:
            self.seen[sch] = (now, {ws: pre[ws] for ws in order if pre[ws][0] != "done"})

    def stage(self, issue: Any, now: int) -> None:
        """The issue stage; then what each scheduler that issued nothing saw, as the trace (which
        reads the state after the whole stage) must word it.  The one change a later scheduler
        of the same cycle makes to a warp examined earlier: the last warp of a CTA arriving at
        ``bar.sync`` releases the others."""
        self.seen.clear()
        issue(now)
        core = self.core
        for sch, (cyc, verdicts) in self.seen.items():
            want = {}
            for ws, (reason, x) in verdicts.items():
                w = core.warps[ws]
                if reason == "barrier" and w.at_bar < 0:
                    self.kinds["barrier released"] += 1
                    continue
                want[ws] = _text(w, reason, x)
            self.expected[(cyc, core.sid, sch.sid)] = want


@pytest.mark.parametrize(("opts", "gpu", "full"), [
    ((), None, True),                                                   # SM7_QV100: lrr, 4 schedulers, sub-core
    (("-gpgpu_scheduler gto", "-gpgpu_sub_core_model 0"), None, False),  # shared ID_OC registers: never full
    (("-gpgpu_scheduler two_level_active:6:0:1",), None, True),
    (("-gpgpu_num_sched_per_core 2", "-gpgpu_perfect_inst_const_cache 0"), None, True),  # L1I misses
    ((), "SM6_TITANX", True),                                           # gto, dual issue
])
def test_trace_reasons_agree_with_the_scheduler(tmp_path, opts, gpu, full):
    out = tmp_path / "trace.txt"
    expected: dict[tuple[int, int, int], dict[int, str]] = {}
    kinds: Counter[str] = Counter()
    watches: list[Watch] = []
    orig_init = ShaderCore.__init__

    def init(core: ShaderCore, *a: Any, **k: Any) -> None:
        orig_init(core, *a, **k)
        watches.append(Watch(core, expected, kinds))
    ShaderCore.__init__ = init                                      # type: ignore[method-assign]
    try:
        r = run_timing(ptx(MIX), "k", (2, 1, 1), (256, 1, 1), [("o", np.arange(2048, dtype=np.float32))],
                       overrides=["-trace_enabled 1", "-trace_components WARP_SCHEDULER", f"-gpgpusim_trace_file {out}",
                                  *opts], gpu=gpu, smem=1024)
    finally:
        ShaderCore.__init__ = orig_init                             # type: ignore[method-assign]
    r.gpu.tracer.out.close()
    assert r.out["o"].view(np.uint32)[1024] == np.float32(1024).view(np.uint32) + 512    # the atomics ran
    assert sum(w.calls for w in watches) > 500
    # every kind of stall this kernel has was seen, and judged alike by both copies
    assert {"ready", "ibuffer_empty", "barrier", "atomics", "membar", "control_hazard", "scoreboard"} <= kinds.keys()
    assert ("full" in kinds) == full, kinds
    # the candidates woken for a freed ID_OC slot that an issue filled again are parked at once
    # only where the collector keeps the woken ones (the sub-core model with lrr here; on
    # SM7_QV100 this kernel has such issues), else examined again
    keep = any(w.core.opcoll.keep_woken for w in watches)
    if not keep:
        assert not kinds["parked at the issue"], kinds
    if not opts and gpu is None:
        assert keep and kinds["parked at the issue"] > 0, kinds
    checked = 0
    for line in out.read_text().splitlines():
        m = NO_ISSUE.match(line)
        if m is None:
            continue
        key = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
        said = dict((int(a), b) for a, b in re.findall(r"w(\d+) (\S+?)(?:, |$)", m.group(4)))
        want = expected.get(key)
        if want is None:
            continue            # the scheduler had no candidate (nothing for it to examine)
        for ws, text in want.items():
            assert said[ws] == text or (text, said[ws]) == ("ibuffer_empty", "imiss"), (line, ws, text)
        checked += 1
    assert checked > 100
