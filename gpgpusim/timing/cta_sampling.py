"""CTA/wave sampling inside one kernel (``-gpgpusim_sampling cta`` or ``all``): wave sampling
(:class:`CtaSampling`, below) for grids of many waves, and sampling inside the first wave
(:class:`IntervalSampling`) for grids of one wave or of 3 to 15 waves that pass the screening
of ``cta_screen.py`` (``-gpgpusim_sampling_cta_interval auto``, the default; ``1``: up to 15
waves, unscreened).

Wave sampling: wave-level sampling of a large grid, in the spirit of TBPoint-style intra-kernel
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

The L2 changes regime where a grid's data outgrows it: while it fills, a miss takes a free line;
once full, each miss evicts one, and once its lines are dirty, each eviction writes back to DRAM.
A wave's time then jumps (``bigrid 25600`` on SM86_RTX3070: ~1,480 cycles a wave for its first
7 waves, ~2,360 after, once its writes fill the 4 MB L2), and the waves before the jump say
nothing of it.  So at each mark the L2's valid and dirty lines are read (:func:`l2_state`): a
wave in which either count rose past its highest so far by more than ``FILL_SHARE`` of the
wave's L2 line misses, and at that pace would reach ``FULL_SHARE`` of the L2's lines before the
grid ends, is still filling the L2, and the steady marks start one wave after the last such
wave.  A grid that fills the L2 is cut only once it has; one that will not is cut as before.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .cache.status import MISS
from .kernel_sampling import t975

if TYPE_CHECKING:
    from .cta_screen import Screen

#: marks per wave (one every wave / MARKS_PER_WAVE CTAs ended)
MARKS_PER_WAVE = 1
#: steady marks (after the first wave) needed before deciding
MIN_MARKS = 4
#: a grid needs at least this many waves to be sampled at all
MIN_WAVES = 6
#: a wave fills the L2 when its valid (or dirty) lines grew by more than this share of its L2
#: line misses (past the fill, nearly every miss evicts a line: growth ~0) ...
FILL_SHARE = 0.1
#: ... and would reach this share of the L2's lines at that pace by the grid's end (where sets
#: start to evict: the L2 hashes lines over its sets, and a set fills before the cache does)
FULL_SHARE = 0.75


def l2_state(l2s: list[Any]) -> tuple[int, int, int]:
    """(valid lines, dirty lines, line misses so far) summed over the L2 banks ``l2s``."""
    valid = dirty = misses = 0
    for c in l2s:
        v, d = c.occupancy()
        valid += v
        dirty += d
        for row in c.stats.counts.values():
            misses += row.get(MISS, 0)
    return valid, dirty, misses


class CtaSampling:
    """Wave bookkeeping of one kernel launch (see the module docstring)."""

    method = "waves"

    def __init__(self, wave: int, n_ctas: int, tol: float, tail: str = "drain",
                 l2: Callable[[], tuple[int, int, int]] | None = None, l2_lines: int = 0) -> None:
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
        #: the L2's (valid lines, dirty lines, line misses) now (None: not watched), and its lines
        self.l2 = l2
        self.l2_lines = l2_lines
        v, d, self._l2_misses = l2() if l2 is not None else (0, 0, 0)
        self._l2_high = [v, d]             # the most valid and dirty lines seen so far
        #: the first mark the line may use: after the ramp-up wave and any wave that filled the L2
        self.steady_from = MARKS_PER_WAVE

    @staticmethod
    def eligible(n_ctas: int, wave: int) -> bool:
        return n_ctas >= MIN_WAVES * max(1, wave)

    def cta_done(self, done: int, now: int, issued: int) -> bool:
        """A CTA ended (``done`` ended so far, at core cycle ``now``, ``issued`` issued): True
        when issue should stop now."""
        if self.cut_at is not None or done % self.step:
            return False
        self.marks.append(now)
        if self.l2 is not None and self._filling_l2(issued):
            self.steady_from = len(self.marks)
        steady = self.marks[self.steady_from:]
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

    def _filling_l2(self, issued: int) -> bool:
        """Did the wave that just ended fill the L2, and will the grid's rest fill it further
        (the module docstring)?"""
        assert self.l2 is not None
        v, d, m = self.l2()
        misses = m - self._l2_misses
        self._l2_misses = m
        waves_left = (self.n_ctas - issued) / self.wave
        filling = False
        for i, held in enumerate((v, d)):
            # growth past the highest count seen: a full L2's dirty lines go up and down by a
            # few as write-backs and new writes interleave, which is no fill
            grew = held - self._l2_high[i]
            if grew > 0:
                self._l2_high[i] = held
                if grew > FILL_SHARE * misses and held + grew * waves_left >= FULL_SHARE * self.l2_lines:
                    filling = True
        return filling

    def _rest(self) -> int:
        """The CTAs whose timing is projected: the skipped middle (tail in detail), else every
        CTA not issued when sampling stopped."""
        assert self.cut_at is not None
        return self.skip if self.tail == "detail" else self.n_ctas - self.cut_at

    def project(self, cycles: int, warp_insn: int = 0, detailed_insn: int = 0) -> tuple[int, int, int]:
        """(projected cycles, bound in cycles, CTAs projected) once the detailed part took
        ``cycles`` (the instruction counts are not needed here)."""
        rest = self._rest()
        extra = rest * self.rate
        bound = int(math.ceil(self.ci_rel * extra + 0.5 * self.rate * self.wave))
        return cycles + int(round(extra)), bound, rest

    def project_counters(self, detailed: dict[str, int], warp_insn: int) -> dict[str, int]:
        """The projected CTAs' scalar counters: the detailed part's ``detailed``, scaled by
        remaining / detailed CTAs."""
        rest = self._rest()
        scale = rest / (self.n_ctas - rest)
        return {k: int(round(v * scale)) for k, v in detailed.items()}

    def info(self, cycles: int, detailed_cycles: int, bound: int) -> dict[str, Any]:
        rest = self._rest()
        return {"method": "waves", "ctas_detailed": self.n_ctas - rest, "ctas_projected": rest, "tail": self.tail,
                "wave_ctas": self.wave, "waves_timed": len(self.marks) / MARKS_PER_WAVE,
                "steady_from_wave": self.steady_from / MARKS_PER_WAVE,
                "cycles_per_wave": self.rate * self.wave, "wave_ci_rel": self.ci_rel,
                "cycles_detailed": detailed_cycles, "cycles_bound": bound,
                "cycles_bound_rel": bound / cycles if cycles else 0.0}


#: interval sampling: core cycles between two looks at the issued instructions
INTERVAL_STEP = 256
#: interval sampling: batches the measured interval is cut into for the rate's confidence interval
INTERVAL_BATCHES = 8
#: interval sampling: looks between two snapshots of the kernel's scalar counters
INTERVAL_SNAPSHOT_EVERY = 8
#: interval sampling applies to grids of at least one wave and fewer than this many (larger
#: grids are sampled wave by wave, :class:`CtaSampling`, which then gains more)
INTERVAL_MAX_WAVES = 16
#: ... and, under ``-gpgpusim_sampling_cta_interval auto``, to grids of at least this many
#: waves: in a grid of fewer, a third or more of the time goes to what the first wave's
#: interval does not show -- a partial last wave, whose SMs hold fewer CTAs and may run each
#: faster (sharing an SM's issue) or not (each limited by its own latency), and later waves
#: that start staggered into caches the earlier ones warmed.  A tiled matmul's CTA-sampled
#: launches of 1.3 to 2.9 waves on four GPUs were 1.8-10 % off, three of five outside their
#: bound; of 3.3 to 7.3 waves, 0.3-0.7 % (``docs/PERFORMANCE.md``).  A grid of one wave has
#: neither (``gpu.TimingGpu._screen``)
INTERVAL_MIN_WAVES = 3
#: ... or a grid of one wave (every CTA resident from the start: no partial wave after it, no
#: later wave), when its CTAs share their SMs evenly at the cut: the mean rates of the SMs'
#: oldest, second oldest, ... CTA at least this fraction of the fastest
#: (:meth:`IntervalSampling.shares_evenly`)
EVEN_SHARE = 0.9
#: ... and is cut only once its CTAs have issued this share of their warp instructions (the
#: screening run's mean): a grid of one wave is projected wholly from its interval, and a
#: streaming grid's start-up (its memory queues and DRAM rows filling) can outlast the first
#: quarter of the time its rate takes to settle (``docs/PERFORMANCE.md``)
ONE_WAVE_MIN_SHARE = 0.05
#: a screened launch is cut only while at least this share of its grid's warp instructions (the
#: screening run's) is still to run, as wave sampling projects only when half the grid is left:
#: a later cut saves little, and what it projects is mostly the kernel's end -- the last CTAs'
#: tail and the round trip of their last accesses -- which the measured rate does not show (a
#: 4-CTA grid of ~10,800 cycles whose rate settled at 86 % of its work was projected 187 cycles
#: short against a bound of 118)
INTERVAL_MIN_REST = 0.5


def parse_interval(value: Any) -> str:
    """The ``-gpgpusim_sampling_cta_interval`` value: ``auto`` (the default: launches that pass
    the screening of ``cta_screen.py``), ``1``/``on`` (every eligible launch, unscreened) or
    ``0``/``off``."""
    v = str(value if value is not None else "auto").strip().lower()
    if v in ("auto", ""):
        return "auto"
    if v in ("1", "on"):
        return "on"
    if v in ("0", "off"):
        return "off"
    raise ValueError(f"-gpgpusim_sampling_cta_interval {value!r}: expected auto, 1 or 0")


class IntervalSampling:
    """CTA sampling inside the first wave, for grids of up to :data:`INTERVAL_MAX_WAVES` waves
    (under ``auto``: one wave, or at least :data:`INTERVAL_MIN_WAVES`), where the wave marks of
    :class:`CtaSampling` cannot gain: a 7-wave matmul whose waves run in step is over before
    four steady waves are seen, and a grid of one wave has no waves to mark.

    Measurement: the whole first wave is issued at once.  Every :data:`INTERVAL_STEP` core
    cycles the warp instructions issued by the kernel, in all and per SM, are noted.  Over the
    last three quarters of the elapsed time (the first quarter, the cold start, is left out) the
    kernel's rate is the mean of :data:`INTERVAL_BATCHES` batches' rates; once its 95 %
    confidence interval is within ``-gpgpusim_sampling_tol`` of it, the launch is cut: no CTA is
    issued any more, every warp in flight stops issuing (``ShaderCore.abandon``) and what it has
    in flight drains, and the CTAs' remaining instructions run on the functional engine only
    (``KernelTrace.cut``; a screened launch takes its screening run's result instead,
    ``TimingGpu._cut_trace``).  If a CTA ends first (CTAs shorter than the time to converge), this
    sampling stops and the launch goes on as without it (with enough waves, under
    :class:`CtaSampling`).

    Projection (:meth:`project`, once the functional engine has run the whole grid, so the
    warp instructions per CTA ``I`` are known): each SM is a processor shared by its CTAs.  It
    issues at most the rate ``R`` it had over the interval, split among its CTAs by the weights
    of their age ranks (the mean rate of the oldest, second oldest, ... CTA of the SMs at the
    cut: equal when the CTAs run in step, falling off under a greedy scheduler), none above the
    cap ``c`` (the fastest rate one of the SM's CTAs had: its instructions since it started,
    less the lag ``L``, per cycle), after a dead time ``L`` from its start (where the line
    through the kernel's instructions per CTA meets 0: the start-up latency).  The CTAs in
    flight at the cut go on from their progress, the others are issued to the slots as they
    free (one per SM per round, as GPGPU-Sim issues), and the kernel ends when the last CTA has
    issued its instructions, plus the drain measured after the cut.  So CTAs that share an SM
    evenly (a barrier per loop) run in step and a last partial wave costs a whole CTA time.
    A screened launch's CTAs in flight each take their own instruction count from the
    screening run (a grid of one wave ends with its longest CTA).  A grid of one wave is cut
    only after its CTAs issued :data:`ONE_WAVE_MIN_SHARE` of their instructions, and only when
    they share their SMs evenly (:meth:`shares_evenly`), else timed whole; a screened launch
    is cut only while :data:`INTERVAL_MIN_REST` of its grid's instructions are still to run.
    The bound is the rate's interval (at least the tolerance: the batches of a short interval
    are not independent) over the projected cycles, plus the lag, the drain and
    what the cap adds (``tail_gap``: an SM left with few CTAs might run them at its full rate,
    as a kernel limited by bandwidth would, which the interval cannot tell).  Scalar counters
    grow as they did over the interval (:meth:`project_counters`).  Unsafe, as wave sampling,
    for kernels whose CTAs do different work by CTA index, and for kernels whose rate changes
    after the part measured: later waves that find in L2 what earlier ones loaded, a late phase
    of different instructions (``docs/PERFORMANCE.md``: a loop of that kind is projected 38 %
    too long).  So under ``-gpgpusim_sampling_cta_interval auto`` (the default) a launch is
    screened first (``cta_screen.py``: CTAs of equal work, no more data shared with earlier
    CTAs after the first wave than within it) and the cut also waits until what a CTA has left
    runs the instructions the part measured ran, in like proportions (``screen``); ``1``
    samples every eligible launch unscreened."""

    method = "interval"

    def __init__(self, wave: int, n_ctas: int, tol: float, n_cores: int, screen: Screen | None = None) -> None:
        self.wave = max(1, wave)
        self.n_ctas = n_ctas
        self.tol = tol
        self.n_cores = n_cores
        #: the launch's screening (``cta_screen.py``; None: not screened, ``-gpgpusim_sampling_cta_interval 1``)
        self.screen = screen
        self.points: list[tuple[int, float]] = []     # (cycle since the kernel started, y)
        self.per_core: list[list[int]] = []           # warp instructions per SM at each point
        self.starts: dict[int, int] = {}              # CTA id -> its start cycle
        self.cut_at: int | None = None                # CTAs issued when the launch was cut
        self.cut_cycle = 0                            # cycle of the cut (since the kernel started)
        self.rate = 0.0                               # the kernel's warp instructions per cycle per CTA
        self.lag = 0.0                                # L
        self.ci_rel = math.inf
        self.core_rate: list[float] = []              # R per SM
        self.cta_cap: list[float] = []                # c per SM
        self.weights: list[float] = []                # mean rate of the CTAs by age rank
        #: the CTAs in flight at the cut: (SM, CTA id, warp instructions issued)
        self.resident: list[tuple[int, int, int]] = []
        self.drain = 0                                # cycles from the cut until the last CTA ended
        self.detailed_insn = 0                        # warp instructions the timing model issued
        self.cta_insn = 0.0                           # I
        self.tail_gap = 0.0                           # cycles the cap adds to the projection
        self.interval_start = 0                       # first cycle of the measured interval
        #: (cycle, warp instructions issued, scalar counters) handed in by the GPU
        self.snapshots: list[tuple[int, int, dict[str, int]]] = []
        #: warp instructions per CTA issued before a screened grid of one wave may be cut
        self.min_cut_insn = ONE_WAVE_MIN_SHARE * float(screen.insn.mean()) \
            if screen is not None and screen.insn.size and self.one_wave() else 0.0
        #: ... and after which it is not cut at all (:data:`INTERVAL_MIN_REST`), per CTA of the
        #: first wave; unscreened, the grid's instructions are not known: no limit
        self.max_cut_insn = (1 - INTERVAL_MIN_REST) * float(screen.insn.sum()) / min(self.wave, n_ctas) \
            if screen is not None and screen.insn.size else math.inf

    @staticmethod
    def eligible(n_ctas: int, wave: int) -> bool:
        """Grids of up to :data:`INTERVAL_MAX_WAVES` waves, one of fewer CTAs than SMs included."""
        return 1 <= n_ctas < INTERVAL_MAX_WAVES * max(1, wave)

    def cta_started(self, cta_id: int, t: int) -> None:
        self.starts[cta_id] = t

    def observe(self, t: int, per_core: list[int]) -> bool:
        """At cycle ``t`` since the kernel started, the kernel had issued ``per_core`` warp
        instructions on each SM and no CTA had ended: True when the launch is to be cut now
        (the caller then hands the CTAs' progress to :meth:`cut`)."""
        first_wave = min(self.wave, self.n_ctas)
        if self.cut_at is not None or len(self.starts) < first_wave:
            return False            # the first wave is not all issued yet
        y = sum(per_core) / first_wave
        if y > self.max_cut_insn:
            return False            # less than INTERVAL_MIN_REST of the grid left: timed to its end
        self.points.append((t, y))
        self.per_core.append(per_core)
        first = max(t // 4, max(self.starts.values()))
        k0 = next(i for i, p in enumerate(self.points) if p[0] >= first)
        pts = self.points[k0:]
        b = INTERVAL_BATCHES
        if len(pts) < 2 * b + 1:
            return False
        edges = [round(i * (len(pts) - 1) / b) for i in range(b + 1)]
        rates = []
        for i in range(b):
            (t0, y0), (t1, y1) = pts[edges[i]], pts[edges[i + 1]]
            rates.append((y1 - y0) / (t1 - t0))
        mean = sum(rates) / b
        if mean <= 0:
            return False
        sd = math.sqrt(sum((x - mean) ** 2 for x in rates) / (b - 1))
        ci = t975(b - 1) * sd / math.sqrt(b) / mean
        if ci > self.tol:
            return False
        if pts[-1][1] < self.min_cut_insn:
            return False        # a grid of one wave: not before its CTAs ran ONE_WAVE_MIN_SHARE of their work
        if self.screen is not None and not self.screen.rest_like(pts[0][1], pts[-1][1]):
            return False        # what the CTAs have left does not look like what was measured
        # the line of slope ``mean`` through the interval's centroid: where it meets y = 0
        tm = sum(p[0] for p in pts) / len(pts)
        ym = sum(p[1] for p in pts) / len(pts)
        starts = sorted(self.starts.values())[:first_wave]
        self.rate = mean
        self.lag = max(0.0, (tm - ym / mean) - sum(starts) / first_wave)
        self.ci_rel = ci
        self.cut_cycle = t
        self.interval_start = pts[0][0]
        span = t - pts[0][0]
        a, z = self.per_core[k0], per_core
        rates_sm = [(z[i] - a[i]) / span for i in range(self.n_cores)]
        busy = [r for r in rates_sm if r > 0]
        # (an SM that issued nothing over the whole interval is given the others' mean rate,
        # so that its CTAs are projected to end)
        self.core_rate = [r if r > 0 else sum(busy) / len(busy) for r in rates_sm]
        self.cut_at = len(self.starts)
        return True

    def one_wave(self) -> bool:
        """Whether the whole grid is resident at once (no CTA waits for a slot)."""
        return self.n_ctas <= self.wave

    def shares_evenly(self) -> bool:
        """Whether the CTAs in flight at the cut (:meth:`cut`) progressed alike: the mean
        rates of the oldest, second oldest, ... CTA of the SMs (the weights) within
        :data:`EVEN_SHARE` of each other.  A grid of one wave ends with its slowest CTAs; a
        greedy scheduler that starves the younger CTAs of an SM until the older end leaves an
        end the shared-SM model does not find (``docs/PERFORMANCE.md``)."""
        w = self.weights
        return not w or min(w) >= EVEN_SHARE * max(w)

    def cut(self, resident: list[tuple[int, int, int]]) -> None:
        """The CTAs in flight at the cut: (SM, CTA id, warp instructions issued).  Each one's
        rate is its instructions per cycle since its start (less the lag); an SM's fastest
        sets its cap ``c``, and the mean rate of the oldest, second oldest, ... CTA of the SMs
        sets the weights the model shares an SM's rate by (:meth:`_shares`)."""
        self.resident = resident
        by_sm: list[list[tuple[int, int, int]]] = [[] for _ in range(self.n_cores)]
        for sid, cid, done in resident:
            by_sm[sid].append((self.starts[cid], cid, done))
        cap = [0.0] * self.n_cores
        sums: list[float] = []
        counts: list[int] = []
        for sid, mine in enumerate(by_sm):
            for rank, (start, _cid, done) in enumerate(sorted(mine)):
                rate = done / max(1.0, self.cut_cycle - start - self.lag)
                cap[sid] = max(cap[sid], rate)
                if rank == len(sums):
                    sums.append(0.0)
                    counts.append(0)
                sums[rank] += rate
                counts[rank] += 1
        busy = [c for c in cap if c > 0]
        mean_cap = sum(busy) / len(busy) if busy else 0.0
        self.cta_cap = [c if c > 0 else mean_cap for c in cap]
        self.weights = [x / k for x, k in zip(sums, counts, strict=True)]

    def _shares(self, sid: int, k: int, capped: bool) -> list[float]:
        """The rates of SM ``sid``'s ``k`` ready CTAs, oldest first: its rate split by the
        weights of their age ranks, none above the cap when ``capped`` (what a capped CTA
        leaves goes to the others by their weights)."""
        w = [self.weights[i] if i < len(self.weights) else 0.0 for i in range(k)]
        if sum(w) <= 0:
            w = [1.0] * k
        cap = self.cta_cap[sid] if capped else math.inf
        room = self.core_rate[sid]
        out = [0.0] * k
        free = [i for i in range(k) if w[i] > 0]
        while free and room > 1e-12:
            tot = sum(w[i] for i in free)
            over = [i for i in free if room * w[i] / tot >= cap]
            if not over:
                for i in free:
                    out[i] = room * w[i] / tot
                break
            for i in over:
                out[i] = cap
                room -= cap
            free = [i for i in free if i not in over]
        return out

    def project(self, cycles: int, warp_insn: int, detailed_insn: int) -> tuple[int, int, int]:
        """(projected cycles, bound in cycles, CTAs never timed) for a launch whose detailed
        part took ``cycles`` (cut and drain) and issued ``detailed_insn`` of its ``warp_insn``
        warp instructions."""
        assert self.cut_at is not None
        self.drain = max(0, cycles - self.cut_cycle)
        self.detailed_insn = detailed_insn
        self.cta_insn = warp_insn / max(1, self.n_ctas)
        end = self._shared_processors(True) + self.drain
        projected = max(cycles, int(round(end)))
        # what the cap adds: an SM left with fewer CTAs than it held in the interval may run
        # them at its full rate (a kernel limited by bandwidth) rather than each at the rate a
        # CTA had then (one limited by latency); the interval cannot tell which
        self.tail_gap = max(0.0, end - (self._shared_processors(False) + self.drain))
        first = min(self.starts.values()) if self.starts else 0
        # the rate is stated as known to the tolerance at least: the batches of a short
        # interval are not independent (a streaming kernel's rate moves by +-1 % over periods
        # longer than the interval), so their confidence interval alone can understate it
        rel = max(self.ci_rel, self.tol)
        bound = int(math.ceil(rel * (projected - first) + self.lag + self.drain + self.tail_gap))
        return projected, bound, self.n_ctas - self.cut_at

    def _shared_processors(self, capped: bool) -> float:
        """The cycle the last CTA issues its last instruction, under the model of the class
        docstring (an event loop over all SMs); without ``capped`` an SM's CTAs share its
        whole rate however few they are.

        The CTAs are slots of an SM x slot array (a slot freed by a CTA that ended takes the
        next CTA issued to its SM), so each event is a few array operations over the slots;
        an SM's rates are shared out again only when its CTAs or their readiness changed.
        Every CTA's instructions left are updated at every event, as by the per-CTA loop the
        model states (the same float operations, so the same result)."""
        n = self.n_cores
        I, L = self.cta_insn, self.lag
        eps = 1e-9
        done_eps = eps * max(1.0, I)
        by_sm: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]      # (start cycle, CTA id, done) oldest first
        for sid, cid, done in sorted(self.resident, key=lambda r: (self.starts[r[1]], r[1])):
            by_sm[sid].append((self.starts[cid], cid, done))
        K = max(1, max(len(mine) for mine in by_sm))
        alive = np.zeros((n, K), dtype=bool)
        ready = np.zeros((n, K))            # cycle the CTA issues from (its start plus the lag)
        left = np.zeros((n, K))             # its instructions left
        age = np.zeros((n, K), dtype=np.int64)     # order of issue: an SM's ready CTAs share by it
        issued = 0
        # a screened launch's CTAs in flight each have their own instructions (a grid of one
        # wave ends with its longest); those still to come take the mean
        own = self.screen.insn if self.screen is not None and self.screen.insn.size == self.n_ctas else None
        for sid, mine in enumerate(by_sm):
            for j, (start, cid, done) in enumerate(mine):
                alive[sid, j] = True
                ready[sid, j] = start + L
                left[sid, j] = max(0.0, (float(own[cid]) if own is not None else I) - done)
                age[sid, j] = issued
                issued += 1
        rate = np.zeros((n, K))
        waiting = self.n_ctas - self.cut_at if self.cut_at is not None else 0
        now = float(self.cut_cycle)
        last = now
        shares: dict[tuple[int, int], list[float]] = {}
        seen_ready = np.full(n, -1)
        seen_alive = np.full(n, -1)
        dirty = np.ones(n, dtype=bool)
        while True:
            is_ready = alive & (ready <= now + eps)
            n_ready = is_ready.sum(axis=1)
            n_alive = alive.sum(axis=1)
            dirty |= (n_ready != seen_ready) | (n_alive != seen_alive)
            for sid in np.flatnonzero(dirty).tolist():
                # the SM's ready CTAs, oldest first, take its shares in turn; the others none
                row = rate[sid]
                row[:] = 0.0
                js = np.flatnonzero(is_ready[sid])
                k = js.size
                if k:
                    got = shares.get((sid, k))
                    if got is None:
                        got = shares[(sid, k)] = self._shares(sid, k, capped)
                    row[js[np.argsort(age[sid, js])]] = got
            seen_ready, seen_alive = n_ready, n_alive
            dirty[:] = False
            going = is_ready & (rate > 0)
            step = math.inf
            if going.any():
                step = float((left[going] / rate[going]).min())
            later = alive & ~is_ready
            if later.any():
                step = min(step, float((ready[later] - now).min()))
            if step == math.inf:
                return last
            now += step
            np.subtract(left, rate * step, out=left, where=alive)
            ended = alive & (left <= done_eps)
            if not ended.any():
                continue
            last = now
            alive &= ~ended
            per_sm = ended.sum(axis=1)
            dirty |= per_sm > 0
            # the next CTAs to the slots that freed, one per SM per round in SM order (as
            # GPGPU-Sim issues one CTA per cluster per cycle, round robin)
            order = sorted((r, sid) for sid in np.flatnonzero(per_sm).tolist() for r in range(int(per_sm[sid])))
            for _r, sid in order:
                if waiting <= 0:
                    break
                waiting -= 1
                j = int(np.flatnonzero(~alive[sid])[0])
                alive[sid, j] = True
                ready[sid, j] = now + L
                left[sid, j] = I
                age[sid, j] = issued
                issued += 1

    def want_counters(self) -> bool:
        """Whether the GPU should hand in its scalar counters at this look (:meth:`counters_at`):
        every :data:`INTERVAL_SNAPSHOT_EVERY` looks once the first wave is issued."""
        return len(self.points) % INTERVAL_SNAPSHOT_EVERY == 1

    def counters_at(self, t: int, issued: int, counters: dict[str, int]) -> None:
        """The kernel's scalar counters (cumulative) at cycle ``t``, when it had issued
        ``issued`` warp instructions; the GPU hands them in at the cut too."""
        self.snapshots.append((t, issued, counters))

    def project_counters(self, detailed: dict[str, int], warp_insn: int) -> dict[str, int]:
        """The projected part's scalar counters: per warp instruction, each counter's growth
        over the measured interval (from the first snapshot inside it to the cut: not the cold
        start), times the warp instructions not timed; without such a snapshot, the detailed
        part's ``detailed`` scaled by warp instructions."""
        rest = warp_insn - self.detailed_insn
        inside = [s for s in self.snapshots[:-1] if s[0] >= self.interval_start]
        if inside:
            _ta, ia, a = inside[0]
            _tz, iz, z = self.snapshots[-1]
            if iz > ia:
                return {k: int(round((z.get(k, 0) - a.get(k, 0)) * rest / (iz - ia))) for k in detailed}
        scale = rest / self.detailed_insn if self.detailed_insn else 0.0
        return {k: int(round(v * scale)) for k, v in detailed.items()}

    def info(self, cycles: int, detailed_cycles: int, bound: int) -> dict[str, Any]:
        assert self.cut_at is not None
        return {"method": "interval", "screened": self.screen is not None, "ctas_detailed": 0, "ctas_cut": self.cut_at,
                "ctas_projected": self.n_ctas - self.cut_at, "wave_ctas": self.wave,
                "cut_cycle": self.cut_cycle, "insn_per_cta": self.cta_insn,
                "rate_ci_rel": self.ci_rel, "lag_cycles": self.lag, "drain_cycles": self.drain,
                "tail_gap_cycles": self.tail_gap,
                "insn_detailed": self.detailed_insn, "cycles_detailed": detailed_cycles, "cycles_bound": bound,
                "cycles_bound_rel": bound / cycles if cycles else 0.0}
