"""The stop limits of the performance model (C011, C062): ``-gpgpu_max_cycle``,
``-gpgpu_max_insn``, ``-gpgpu_max_cta``, ``-gpgpu_max_completed_cta``.

The kernel is ``test_core.CHAIN`` (one warp per CTA: ``ld.param``, ``mov``, five dependent
``add.f32`` 9 cycles apart, a store; issued at cycles 2, 3, 8, 17, 26, 35, 44, 53, 54 on a
one-SM QV100).  Each instruction is written back (``warp_inst_complete``, where GPGPU-Sim counts
``gpu_sim_insn``) in the cycle its dependent issues: ``mov`` at 8, the first ``add`` at 17;
``ld.param`` at 5.  A limit is tested after every core cycle, so the run stops with
``gpu_sim_cycle`` one past the cycle that reached it.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from timing_helpers import SMALL, ptx  # noqa: E402
from tests.timing.core.test_core import CHAIN  # noqa: E402

from gpgpusim.errors import Err  # noqa: E402
from gpgpusim.functional.loader import load_module  # noqa: E402
from gpgpusim.functional.memory import GlobalMemory  # noqa: E402
from gpgpusim.options import load_config  # noqa: E402
from gpgpusim.device.gpu import KernelLaunchOp  # noqa: E402
from gpgpusim.timing.gpu import TimingGpu  # noqa: E402

BREAK = "GPGPU-Sim: ** break due to reaching the maximum cycles (or instructions) **"


class Machine:
    """A one-SM QV100 with ``overrides`` running CHAIN launches one after the other."""

    def __init__(self, overrides: list[str], skip_idle: bool = True) -> None:
        self.cfg = load_config(None, overrides=list(SMALL) + overrides, env=False)
        self.g = GlobalMemory()
        self.gpu = TimingGpu(self.cfg, self.g, None)
        self.gpu.skip_idle = skip_idle
        for c in self.gpu.cores:
            c.trace = []
        self.lm = load_module(ptx(CHAIN), self.g)
        self.out = self.g.allocate(4)

    def launch(self, ctas: int) -> Any:
        op = KernelLaunchOp(self.lm, "k", (ctas, 1, 1), (32, 1, 1), 0, struct.pack("<Q", self.out),
                            {"options": self.cfg}, regs_per_thread=16)
        rec = self.gpu.start_kernel(op, 0)
        done: list[Any] = []
        for _ in range(100):         # watchdog: advance() returns once a kernel ended
            done = self.gpu.advance()
            if done:
                break
        assert done == [rec]
        return rec

    def issue_cycles(self) -> list[int]:
        return [c for c, _w, _pc in self.gpu.cores[0].trace or []]


def _stopped(rec: Any, option: str) -> None:
    assert rec.error is not None and rec.error.code == Err.LaunchFailure and rec.error.sticky
    assert option in str(rec.error)


def test_no_limit_runs_to_the_end():
    m = Machine([])
    rec = m.launch(1)
    assert rec.error is None and m.gpu.limit_stop is None
    assert rec.report_stats.cycles == 245 and rec.report_stats.thread_insn == 9 * 32
    assert m.issue_cycles() == [2, 3, 8, 17, 26, 35, 44, 53, 54]


@pytest.mark.parametrize("skip_idle", [True, False])
def test_max_cycle_stops_at_exactly_that_cycle(capsys, skip_idle):
    m = Machine(["-gpgpu_max_cycle 30"], skip_idle)
    rec = m.launch(1)
    _stopped(rec, "-gpgpu_max_cycle")
    assert m.gpu.limit_stop == "cycle"
    assert m.gpu.gpu_tot_sim_cycle == 30 and rec.report_stats.cycles == 30
    # the cycles before the stop are those of the unlimited run
    assert m.issue_cycles() == [2, 3, 8, 17, 26]
    # gpu_sim_insn of the stopped kernel: what completed (ld.param, mov, adds at 17 and 26)
    assert rec.report_stats.thread_insn == 4 * 32 and rec.report_stats.warp_insn == 4
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == ["GPGPU-Sim: *** simulation thread exiting ***", BREAK]


@pytest.mark.parametrize("limit, cycles, done, issued", [
    (32, 6, 32, [2, 3]),             # ld.param written back at cycle 5
    (33, 9, 64, [2, 3, 8]),          # mov written back at 8 (the first add issues then)
    (64, 9, 64, [2, 3, 8]),
    (65, 18, 96, [2, 3, 8, 17]),     # the first add written back at 17
])
def test_max_insn_counts_completed_thread_instructions(limit, cycles, done, issued):
    m = Machine([f"-gpgpu_max_insn {limit}"])
    rec = m.launch(1)
    _stopped(rec, "-gpgpu_max_insn")
    assert m.gpu.limit_stop == "insn"
    assert rec.report_stats.cycles == cycles and rec.report_stats.thread_insn == done
    assert m.gpu.insn_done() == done
    assert m.issue_cycles() == issued


def test_max_cta_issues_exactly_that_many_then_drains():
    m = Machine(["-gpgpu_max_cta 2"])
    rec = m.launch(4)
    _stopped(rec, "-gpgpu_max_cta")
    assert m.gpu.tot_issued_cta == 2
    # exactly the run of a 2-CTA grid: same issue cycles, stopped when it would have finished
    two = Machine([])
    full = two.launch(2)
    assert rec.report_stats.cycles == full.report_stats.cycles == 246
    assert m.issue_cycles() == two.issue_cycles()
    assert rec.report_stats.thread_insn == 2 * 9 * 32 and rec.report_stats.ctas == 2


def test_max_cta_is_cumulative_over_kernels():
    """Kernel 1 issues the last allowed CTAs and finishes normally; kernel 2 is stopped when it
    starts, before any CTA is issued (GPGPU-Sim: ``active()`` false at its first check)."""
    m = Machine(["-gpgpu_max_cta 2"])
    first = m.launch(2)
    assert first.error is None and first.report_stats.cycles == 246
    second = m.launch(2)
    _stopped(second, "-gpgpu_max_cta")
    assert second.report_stats.cycles == 0 and second.report_stats.ctas == 0
    assert m.gpu.tot_issued_cta == 2


def test_kernel_ending_on_the_limit_cycle_finishes_normally():
    m = Machine(["-gpgpu_max_cycle 245"])
    first = m.launch(1)
    assert first.error is None and first.report_stats.cycles == 245
    second = m.launch(1)             # the stop happens when the next kernel starts
    _stopped(second, "-gpgpu_max_cycle")
    assert second.report_stats.cycles == 0 and m.gpu.gpu_tot_sim_cycle == 245


def test_max_cycle_during_the_launch_latency_fast_forward():
    """The idle fast-forward over a kernel's launch latency stops at the limit too."""
    for skip in (True, False):
        m = Machine(["-gpgpu_max_cycle 300", "-gpgpu_kernel_launch_latency 5000"], skip)
        rec = m.launch(1)
        _stopped(rec, "-gpgpu_max_cycle")
        assert m.gpu.gpu_tot_sim_cycle == 300 and m.gpu.tot_issued_cta == 0


def test_max_completed_cta_counts_since_the_gpu_went_idle():
    m = Machine(["-gpgpu_max_completed_cta 1"])
    first = m.launch(1)          # its only CTA completes: the kernel finishes normally
    assert first.error is None
    rec = m.launch(3)            # the count restarted (update_stats): stops at the first CTA done
    _stopped(rec, "-gpgpu_max_completed_cta")
    assert m.gpu.completed_cta == 0 and rec.report_stats.ctas == 3


def _functional_run(limit: str):
    from gpgpusim.device.gpu import Gpu
    cfg = load_config(None, overrides=list(SMALL) + [limit], env=False)
    g = GlobalMemory()
    gpu = Gpu(cfg, g, None)
    lm = load_module(ptx(CHAIN), g)
    out = g.allocate(4)
    op = KernelLaunchOp(lm, "k", (2, 1, 1), (32, 1, 1), 0, struct.pack("<Q", out), {"options": cfg})
    rec = gpu.start_kernel(op, 0)
    assert gpu.advance() == [rec]
    return rec


def test_functional_mode_honours_max_insn_but_has_no_cycles():
    # no cycles are simulated in functional mode: -gpgpu_max_cycle does not apply
    rec = _functional_run("-gpgpu_max_cycle 1")
    assert rec.error is None and rec.stats.thread_insn == 2 * 9 * 32
    # both CTAs run in one chunk (64 lanes a step): the second step reaches 100
    rec = _functional_run("-gpgpu_max_insn 100")
    assert rec.error is not None and "stopped by -gpgpu_max_insn" in rec.error.message
    st = rec.report_stats
    assert (st.thread_insn, st.warp_insn, st.ctas, st.stopped) == (128, 4, 2, "-gpgpu_max_insn")
