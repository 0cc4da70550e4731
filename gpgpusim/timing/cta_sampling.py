"""CTA/wave sampling inside one kernel (``-gpgpusim_sampling cta`` or ``all``).

Method: wave-level sampling of a large grid, in the spirit of TBPoint-style intra-kernel
sampling: a grid of many waves (a wave = the CTAs the whole GPU holds at once, SMs x CTAs per
SM) is simulated in detail until its steady-state throughput is known: the core cycle at which
every wave of CTAs has ended is recorded, and after the first wave (the ramp-up) a
least-squares line through those marks gives the cycles per CTA; once the 95 % confidence
interval of that slope is within ``-gpgpusim_sampling_tol`` of it (at least four steady
waves), and at least as many CTAs are left as were issued (so the cut gains at least 2x; a
grid that has not converged by its middle is simulated whole), no further CTA is issued to
the timing model: the CTAs in flight finish in detail
(their drain stands for the kernel's real tail, the last partial wave), and the remaining CTAs
run on the functional engine only, so every instruction executes and memory stays exact.  (A
line through the marks, not the spread of the gaps between them: CTAs end staggered, so one
gap's length varies much more than the trend does.)

``-gpgpusim_sampling_cta_tail detail`` times the tail instead: at the cut the middle CTAs run
functionally and the last partial wave plus one full wave are issued to the timing model after
them, so the kernel's real last wave is simulated (``docs/PERFORMANCE.md`` compares the two).

What is projected: ``gpu_sim_cycle`` = the detailed cycles (ramp-up, steady waves, tail) +
the CTAs run functionally x the steady state's cycles per CTA; its bound is the confidence interval
of that rate over the remaining CTAs plus half a wave's time (the quantisation of the last
wave).  The timing model's scalar counters of the detailed part are scaled by remaining /
detailed CTAs; thread and warp instructions, CTAs and the opcode mix are exact (from the
functional engine).  Unsafe for kernels whose CTAs do different work by CTA index (e.g. a
triangular loop, or early CTAs that find the answer): their later waves are not like the
sampled ones.
"""

from __future__ import annotations

import math
from typing import Any

from .kernel_sampling import t975

#: marks per wave (one every wave / MARKS_PER_WAVE CTAs ended)
MARKS_PER_WAVE = 1
#: steady marks (after the first wave) needed before deciding
MIN_MARKS = 4
#: a grid needs at least this many waves to be sampled at all
MIN_WAVES = 6


class CtaSampling:
    """Wave bookkeeping of one kernel launch (see the module docstring)."""

    def __init__(self, wave: int, n_ctas: int, tol: float, tail: str = "drain") -> None:
        self.wave = max(1, wave)
        #: how the kernel's tail is timed: "drain" (the CTAs in flight at the cut drain in
        #: detail and stand for it) or "detail" (the middle CTAs are skipped and the last
        #: partial wave plus one full wave are issued to the timing model after them)
        self.tail = tail
        self.skip = 0                      # "detail": CTAs run functionally in the middle
        self.step = max(1, self.wave // MARKS_PER_WAVE)
        self.n_ctas = n_ctas
        self.tol = tol
        self.marks: list[int] = []         # core cycle at which each step's CTAs had all ended
        self.cut_at: int | None = None     # CTAs issued in detail (set when sampling stops issue)
        self.rate = 0.0                    # steady-state cycles per CTA
        self.ci_rel = math.inf

    @staticmethod
    def eligible(n_ctas: int, wave: int) -> bool:
        return n_ctas >= MIN_WAVES * max(1, wave)

    def cta_done(self, done: int, now: int, issued: int) -> bool:
        """A CTA ended (``done`` ended so far, at core cycle ``now``, ``issued`` issued): True
        when issue should stop now."""
        if self.cut_at is not None or done % self.step:
            return False
        self.marks.append(now)
        steady = self.marks[MARKS_PER_WAVE:]
        n = len(steady)
        if n < MIN_MARKS or self.n_ctas - issued < max(self.wave, issued):
            # (too late to gain: fewer CTAs left than issued means under 2x, and the last
            # partial wave's quantisation, up to a whole wave when waves run in step, is then
            # a large share of what would be projected -- a 7.3-wave grid cut after 5 waves
            # was 6.6 % short of full detail for a 1.02x gain)
            return False
        xm = (n - 1) / 2
        ym = sum(steady) / n
        sxx = sum((i - xm) ** 2 for i in range(n))
        slope = sum((i - xm) * (y - ym) for i, y in enumerate(steady)) / sxx
        if slope <= 0:
            return False
        res = sum((y - ym - slope * (i - xm)) ** 2 for i, y in enumerate(steady))
        se = math.sqrt(res / (n - 2) / sxx)
        ci = t975(n - 2) * se / slope
        if ci > self.tol:
            return False
        if self.tail == "detail":
            rest = self.n_ctas - issued
            self.skip = rest - (rest % self.wave) - self.wave
            if self.skip <= 0:
                return False
        self.cut_at = issued
        self.rate = slope / self.step
        self.ci_rel = ci
        return True

    def project(self, cycles: int) -> tuple[int, int, int]:
        """(projected cycles, bound in cycles, CTAs projected) once the detailed part took
        ``cycles``."""
        assert self.cut_at is not None
        rest = self.skip if self.tail == "detail" else self.n_ctas - self.cut_at
        extra = rest * self.rate
        bound = int(math.ceil(self.ci_rel * extra + 0.5 * self.rate * self.wave))
        return cycles + int(round(extra)), bound, rest

    def info(self, cycles: int, detailed_cycles: int, bound: int) -> dict[str, Any]:
        assert self.cut_at is not None
        rest = self.skip if self.tail == "detail" else self.n_ctas - self.cut_at
        return {"ctas_detailed": self.n_ctas - rest, "ctas_projected": rest, "tail": self.tail,
                "wave_ctas": self.wave, "waves_timed": len(self.marks) / MARKS_PER_WAVE,
                "cycles_per_wave": self.rate * self.wave, "wave_ci_rel": self.ci_rel,
                "cycles_detailed": detailed_cycles, "cycles_bound": bound,
                "cycles_bound_rel": bound / cycles if cycles else 0.0}
