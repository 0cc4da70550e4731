"""Kernel sampling (``-gpgpusim_sampling kernel``): simulate repeating launches in detail until
their cycles per instruction are known, then project the rest.

Method: launches are grouped as in Sieve-style kernel sampling (kernel name, grid and block, then
strata of similar instruction count and instruction mix taken from the functional trace); each
group is simulated in detail until the 95 % confidence interval of its mean cycles per warp
instruction is within ``-gpgpusim_sampling_tol`` (a sequential stopping rule as in statistical
sampling, SMARTS-style), and every later launch of the group is executed on the functional
engine only -- so every instruction still runs and memory stays exact -- with its timing
projected from the group.

The tolerance is a fraction of the cycles a launch of the group's mean count is projected to
take (``-gpgpusim_sampling_tol_of cycles``, the default): the launch latency in them is a
constant of the configuration, not estimated, so the interval that matters for the reported
``gpu_sim_cycle`` is the CPI's times the instructions over the whole.  With ``work`` it is a
fraction of the mean CPI alone (the cycles past the latency).  The two differ for kernels whose
work is short beside the latency (5,000 cycles on the shipped Pascal, Volta, Turing and Ampere
configurations): a Gaussian elimination step of ~1,500 cycles whose every eighth launch runs
100-300 cycles slower needs 10-18 detailed launches before its CPI is known within 2 %, and 4
before its cycles are.  The stated bound is the same either way: it is in cycles and comes from
the spread, whatever stopped the sampling.

What is projected, per launch, from the group's detailed launches and the launch's **own**
instruction counts:

* ``gpu_sim_cycle`` = launch latency (``-gpgpu_kernel_launch_latency``) + mean CPI x the launch's
  warp instructions.  Its error bound (95 %) is the sum of

  - the *prediction* interval for one new launch (Student's t over the detailed launches' CPIs,
    ``t * s * sqrt(1 + 1/n)``);
  - the mean relative bound of those detailed launches that CTA sampling projected in part
    (their cycles carry that error into the group's);
  - the scaling gap (:meth:`Group.scaling_gap`): the projection scales with the launch's own
    warp instructions, but a kernel bound by latency takes about as long with fewer (a
    Gaussian elimination step whose rows shrink launch by launch), and one bound by its loads
    takes longer with more loads in as many warp instructions (an unrolled loop); the gap,
    the work at the group's detailed launches' mean times the launch's largest relative
    distance from them in warp instructions, thread instructions or global transactions, is
    not known from launches of near-equal counts, so it is stated;
  - the trend (:meth:`Group.trend`): when the detailed launches' cycles move steadily with
    their place in the group's sequence (a slope whose t statistic passes the 95 % level), the
    least that slope can be at that level times the launch's distance from them (caches and
    DRAM rows that drift as a loop walks its data);
  - the scatter (:meth:`KernelSampler.scatter`), for a launch of other counts than the
    group's detailed launches once lines through its kernel's groups are fitted: the
    prediction interval of one launch on those lines at its work, as far as the kernel's
    launches lie from any smooth function of their work;
  - the cold gap (:meth:`KernelSampler.cold_gap`): when the launch reads more sectors of
    device memory for the first time than the detailed launches did on average (cold reads,
    :data:`COLD`), one DRAM round trip from the configuration
    (:func:`dram_round_trip`): its warps wait for those reads, which are issued together, and
    the projection, scaled from launches that did not wait, does not include it;

  and at least one cycle: a group whose detailed launches all took the same cycles has no
  spread, but its later launches may still differ by a cycle (and the projection is rounded);
* the timing model's scalar counters (cache accesses and misses, DRAM reads and writes, stalls,
  memory-instruction counts, latency sums, ...): the group's count per warp instruction times the
  launch's warp instructions, or, once the kernel has a :class:`Line` whose reach and mix the
  launch is within, each counter's line against the line's measure of work
  (:meth:`KernelSampler.counter_line`).  The memory system's counts (:data:`TRAFFIC_COUNTERS`:
  L1D and L2 accesses and misses, interconnect packets, DRAM reads, ...) follow the launch's
  global-memory transactions instead, which its functional run counts (the 32-byte sectors
  each warp's loads, and its stores and atomics, touched: ``mem_insts.count_transactions``):
  per read and per write transaction of the detailed launches (:func:`traffic_fit`), so a
  launch whose warps exit early or whose guarded stores thin out is not charged its group's
  traffic; so do the counts of fetches whose latency is summed, and each sum keeps the mean
  latency projected (:data:`LATENCY_SUMS`).  Compulsory misses are not averaged: the
  functional run counts the sectors of device memory each launch was first to read or write
  (``functional/sectors.py``), the group's rate of L2 misses and DRAM reads leaves its detailed
  launches' out, and each projected launch adds its own (:data:`COLD`): a checksum kernel whose
  atomics reach a new sector of its result array every fourth launch reads DRAM on exactly
  those launches.  High-water marks (``report.stats.high_water``) and the per-unit lists,
  histograms and breakdowns are not projected (they cover the detailed launches only);
* exact, not projected: thread and warp instructions, CTAs (and ``ctas_completed``), the opcode
  mix (from the functional run), and the memory-instruction counts by space
  (``gpgpu_n_load_insn``, ``..._store_insn``, ``..._shmem_insn``, ``..._param_mem_insn``, ...:
  the lanes that executed each LD/ST-unit instruction, from the functional run's counts per
  pc; ``projection.memory_insn_counts``; a generic-address instruction's by the space of each
  warp's first access, which the functional run counts too: ``mem_insts.count_generic``).

A launch whose counts have drifted out of every group of its kernel, once three of them have
converged, is projected from a line through them instead of starting a group of its own
(:class:`Line`, ``-gpgpusim_sampling_line``); so is a launch its group matches whose global
transactions lie more than ``-gpgpusim_sampling_similar`` from the group's detailed launches'
(:meth:`KernelSampler.source`), when a line takes it.  A group started once another of its kernel has
two or more detailed launches pools its spread with theirs (:class:`Spread`,
:meth:`KernelSampler.pooled_spread`, ``-gpgpusim_sampling_pool``): it is projected after two
detailed launches, not ``-gpgpusim_sampling_min``, when its mean is known within the tolerance
with their spread.

A group's first detailed launch is kept out of the estimate once the group has three (it sees the
caches and DRAM rows the previous kernels left: a warm-up), or two in a group that pools its
spread -- unless the kernel's earlier groups showed no such effect
(:meth:`KernelSampler.warm_up_effect`): then a pooled group's first launch is one of its samples,
and it is projected after one detailed launch when the pooled spread leaves its mean known
within the tolerance.  The projected launches do not run
on the timing model: the next detailed launch starts from the state the last detailed one left
(caches, DRAM rows, clocks), but for one thing, L2 warming of the compulsory kind: the sectors
a projected launch was first to read, or wrote whole, are placed in L2
(``projection.project_launch``, ``MemorySystem.fill_l2``), as the launch would have left them
there, so a detailed launch after it does not miss on them again.  What the L2 would have
evicted for them, and the order of its lines, are not modelled.  That is what makes sampling
unsafe for kernels whose behaviour depends on what earlier launches left in the caches in a way
that differs launch to launch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..options.sampling import parse_mode, parse_tol_of
from ..report.stats import high_water

#: two-sided 95 % Student's t quantiles by degrees of freedom (1.96 beyond the table)
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042)

#: counters that are exact for a projected launch (from its functional run)
EXACT_COUNTERS = ("gpgpu_n_tot_thrd_icount", "gpgpu_n_tot_w_icount")

#: counters a launch's compulsory misses add to: per counter, how many of its (cold reads,
#: cold writes) -- sectors of global memory it was first to read or to write
#: (``functional/sectors.py``) -- it counts (each cold read misses in L2 and reads DRAM; each
#: cold write misses in L2 and, under lazy fetch-on-read, reads nothing; a sector read from
#: DRAM is one fill of the L2)
COLD: dict[str, tuple[int, int]] = {"total_dram_reads": (1, 0), "L2_total_cache_misses": (1, 1),
                                    "L2_fill_port_busy": (1, 0), "mrq_latency_count": (1, 0)}

#: the memory system's counts of accesses, requests, packets and bytes (names that start so):
#: they follow a launch's global-memory transactions, not its instructions (a warp that exits
#: at once issues instructions and no access), so a projected launch scales them by its own
#: transactions (:func:`traffic_fit`).  So do the counts of fetches whose latency is summed
#: (:data:`LATENCY_SUMS`).  Not the memory system's times (port cycles, busy cycles) nor its
#: stalls and contention events (reservation fails, pending hits): those follow the cycles and
#: the overlap of the accesses, and stay per warp instruction
TRAFFIC_COUNTERS = ("L1D_total_cache_accesses", "L1D_total_cache_misses", "L1D_data_port_busy",
                    "L1D_fill_port_busy", "L2_total_cache_accesses", "L2_total_cache_misses",
                    "L2_data_port_busy", "L2_fill_port_busy",
                    "icnt_total_pkts_", "icnt_l2_req_sum", "icnt_mem_reply_sum", "l2_bytes",
                    "total_dram_reads", "total_dram_writes", "gpgpu_n_mem_read_global",
                    "gpgpu_n_mem_write_global", "mf_latency_count", "mrq_latency_count")

#: latency sums and the counts of fetches they sum over (memory fetches back at the cores,
#: DRAM requests granted): a projected launch keeps the mean latency its group (or line)
#: projects, at its own count, which follows its transactions as the traffic does (so the
#: averages GPGPU-Sim prints from them stay the projection's)
LATENCY_SUMS = {"mf_latency_sum": "mf_latency_count", "mrq_latency_sum": "mrq_latency_count"}

#: memory traffic the global transactions do not count (local memory, textures): a group with
#: any scales its memory-system counters by warp instructions, as every other counter
OTHER_TRAFFIC = ("gpgpu_n_mem_read_local", "gpgpu_n_mem_write_local", "gpgpu_n_mem_texture",
                 "L1T_total_cache_accesses")

#: the least spread of the write share of transactions over the detailed launches (1 - the
#: squared cosine between their read and write vectors) for :func:`traffic_fit` to split a
#: counter by direction
SPLIT_MIN = 1e-3


def t975(dof: int) -> float:
    return _T975[dof - 1] if 1 <= dof <= len(_T975) else 1.96


def scalar_counters(values: dict[str, Any]) -> dict[str, int]:
    """The top-level integer counters of a counter tree, high-water marks left out
    (``report.stats.high_water``)."""
    return {k: v for k, v in values.items()
            if type(v) is int and not high_water(k)}


def opcode_mix(opcode_counts: dict[str, int]) -> dict[str, float]:
    total = sum(opcode_counts.values())
    return {k: v / total for k, v in opcode_counts.items()} if total else {}


def mix_distance(a: dict[str, float], b: dict[str, float]) -> float:
    """Total-variation distance of two instruction mixes (0 = same mix, 1 = disjoint)."""
    return 0.5 * sum(abs(a.get(k, 0.0) - b.get(k, 0.0)) for k in set(a) | set(b))


@dataclass
class Sample:
    """One launch simulated in detail."""

    uid: int
    warp_insn: int
    cycles: int
    counters: dict[str, int]
    #: the launch's own stated relative bound: 0 when every CTA was timed, else its CTA
    #: sampling's (its ``cycles`` are then partly projected)
    bound_rel: float = 0.0
    #: its place among the group's launches (0 = the group's first, detailed or projected)
    seq: int = 0
    #: its thread instructions (a regressor of :class:`Line`); 0 when not known
    thread_insn: int = 0
    #: its cold reads and writes (:data:`COLD`)
    cold: tuple[int, int] = (0, 0)
    #: its global-memory transactions, (reads, writes and atomics) (``KernelStats.tx_reads``,
    #: ``tx_writes``); (0, 0) when not counted
    tx: tuple[int, int] = (0, 0)


#: what a :class:`Line` may fit cycles against (:func:`measure`): thread instructions, or
#: global-memory transactions (reads and writes)
MEASURES = ("thread", "tx")


def measure(name: str, thread_insn: int, tx: tuple[int, int] | None) -> int:
    """A launch's work in measure ``name`` (:data:`MEASURES`): its thread instructions, or its
    global-memory transactions (0 when not counted)."""
    if name == "thread":
        return thread_insn
    return sum(tx) if tx is not None else 0


def _x(s: Sample, name: str) -> int:
    return measure(name, s.thread_insn, s.tx)


def traffic_fit(samples: list[Sample]) -> dict[str, tuple[float, float]] | None:
    """Per memory-system count (:data:`TRAFFIC_COUNTERS`; :data:`COLD`'s without the
    launches' own cold misses), its counts per read and per write transaction over
    ``samples``: ``c = a * reads + b * writes``, least squares without intercept, when the
    launches' write shares differ enough to tell the two apart (:data:`SPLIT_MIN`) and both
    come out non-negative, else one rate for every transaction (the counter's total over the
    transactions').  A kernel whose guarded stores thin out launch by launch (a shortest-path
    step) keeps its loads: its write traffic falls and its read traffic does not.  None when
    a launch's transactions were not counted, there were none, or the launches had memory
    traffic the transactions do not count (:data:`OTHER_TRAFFIC`)."""
    if not samples or any(s.tx == (0, 0) for s in samples):
        return None
    if any(s.counters.get(name, 0) for s in samples for name in OTHER_TRAFFIC):
        return None
    rs = [s.tx[0] for s in samples]
    ws = [s.tx[1] for s in samples]
    total = sum(rs) + sum(ws)
    srr = sum(r * r for r in rs)
    sww = sum(w * w for w in ws)
    srw = sum(r * w for r, w in zip(rs, ws, strict=True))
    det = srr * sww - srw * srw
    split = srr > 0 and sww > 0 and det > SPLIT_MIN * srr * sww
    names = sorted({k for s in samples for k in s.counters if k.startswith(TRAFFIC_COUNTERS)})
    out: dict[str, tuple[float, float]] = {}
    for name in names:
        ys = [_warm(s, name) for s in samples]
        rate = sum(ys) / total
        a = b = rate
        if split:
            sry = sum(r * y for r, y in zip(rs, ys, strict=True))
            swy = sum(w * y for w, y in zip(ws, ys, strict=True))
            fa, fb = (sww * sry - srw * swy) / det, (srr * swy - srw * sry) / det
            if fa >= 0 and fb >= 0:
                a, b = fa, fb
        out[name] = (a, b)
    return out


def _launch_counters(counters: dict[str, float], fit: dict[str, tuple[float, float]] | None,
                     tx: tuple[int, int] | None, cold: tuple[int, int], warp_insn: int,
                     thread_insn: int) -> dict[str, int]:
    """A projected launch's own part of its ``counters`` (those projected from its group or
    line): the memory system's counts ``fit``'s at its transactions ``tx`` (when both are
    known: a launch without a global access has none of that traffic), :data:`COLD`'s plus its
    own cold misses ``cold``, the :data:`LATENCY_SUMS` scaled as their counts (a count projected
    as none leaves its sum as projected), and its instruction counts, exact; each rounded once,
    at the end."""
    projected = {count: counters.get(count, 0.0) for count in LATENCY_SUMS.values()}
    if fit is not None and tx is not None:
        r, w = tx
        for name, (a, b) in fit.items():
            counters[name] = max(0.0, a * r + b * w)
    for name, (per_read, per_write) in COLD.items():
        if name in counters:
            counters[name] = round(counters[name]) + per_read * cold[0] + per_write * cold[1]
    for total, count in LATENCY_SUMS.items():
        if total in counters and projected[count] > 0:
            counters[total] *= counters.get(count, 0.0) / projected[count]
    out = {name: int(round(v)) for name, v in counters.items()}
    out["gpgpu_n_tot_thrd_icount"] = thread_insn
    out["gpgpu_n_tot_w_icount"] = warp_insn
    return out


@dataclass(frozen=True)
class Spread:
    """The spread of detailed launches' cycles per warp instruction, relative to their group's
    mean CPI: the sum of squared relative deviations of the used launches from their mean
    (``ss``) and its degrees of freedom, and the same of every detailed launch, warm-up
    included, from theirs (``ss_every``, ``dof_every``).  Sums of groups pool: the variance
    of the CPI relative to its mean is taken to be the same in every group of a kernel (the
    pooled variance of stratified sampling).  ``trend_rel``: the least slope of cycles over
    the group's places (:meth:`Group.trend`) relative to its mean work; of a pool, the
    largest of its groups'."""

    ss: float
    dof: int
    ss_every: float
    dof_every: int
    trend_rel: float = 0.0

    def __add__(self, other: Spread) -> Spread:
        return Spread(self.ss + other.ss, self.dof + other.dof,
                      self.ss_every + other.ss_every, self.dof_every + other.dof_every,
                      max(self.trend_rel, other.trend_rel))

    def admits(self, own: Spread) -> bool:
        """Whether a group's ``own`` spread of every detailed launch is consistent, at 95 %,
        with this pooled one: its variance at most F times the pool's, F taken as the square
        of Student's t at the pool's degrees of freedom (the F quantile for one degree of
        freedom in the numerator, the largest: the test rejects only a clearly larger
        spread).  A group that fails varies more than its kernel's earlier groups, and does
        not take their spread."""
        if own.dof_every < 1 or self.dof_every < 1:
            return True
        f = t975(self.dof_every) ** 2
        return own.ss_every / own.dof_every <= f * self.ss_every / self.dof_every


@dataclass
class Group:
    """Launches of one kernel and launch shape with similar instruction count and mix."""

    gid: int
    name: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    warp_insn: int                       # the first launch's: the stratum's centre
    mix: dict[str, float]
    samples: list[Sample] = field(default_factory=list)
    projected: int = 0
    #: launches that joined the group so far, detailed and projected (the next one's ``seq``)
    launches: int = 0
    #: detailed launches left out of :attr:`samples` because they ran on an SM new to the
    #: kernel (:meth:`KernelSampler.record_detailed`)
    fresh: int = 0
    #: the last projected launch's bound in parts, cycles: ``interval`` (the prediction interval
    #: and the CTA-sampled launches' bound), ``scaling`` (:meth:`scaling_gap`), ``trend``
    bound_parts: dict[str, int] = field(default_factory=dict, compare=False)
    #: (detailed launches then, warp instructions of the used ones, counter sums over them):
    #: what :meth:`KernelSampler.project` scales, summed once per change of ``samples``
    _sums: tuple[int, int, dict[str, int]] | None = field(default=None, init=False, repr=False, compare=False)
    #: (detailed launches then, latency, :meth:`estimate`'s result): a converged group is asked
    #: for its estimate several times by every launch projected from it
    _est: tuple[int, int, tuple[float, float, float]] | None = field(default=None, init=False, repr=False,
                                                                     compare=False)
    #: the pooled spread of its kernel's groups that had two or more detailed launches when it
    #: started (:meth:`KernelSampler.pooled_spread`), added to its own
    #: (``-gpgpusim_sampling_pool``); None: it estimates its spread alone
    prior: Spread | None = None
    #: whether its first detailed launch is left out of the estimate as a warm-up (:meth:`used`);
    #: False for a pooled group of a kernel whose earlier groups showed no warm-up effect
    #: (:meth:`KernelSampler.warm_up_effect`), unless that launch read sectors for the first time
    warm_up: bool = True
    #: (detailed launches then, :func:`traffic_fit` of :meth:`used`)
    _traffic: tuple[int, dict[str, tuple[float, float]] | None] | None = field(default=None, init=False,
                                                                               repr=False, compare=False)

    def traffic(self) -> dict[str, tuple[float, float]] | None:
        """:func:`traffic_fit` over :meth:`used`, once per change of ``samples``."""
        if self._traffic is None or self._traffic[0] != len(self.samples):
            self._traffic = (len(self.samples), traffic_fit(self.used()))
        return self._traffic[1]

    def sums(self) -> tuple[int, dict[str, int]]:
        """(warp instructions, per-counter totals; high-water marks left out) of :meth:`used`.
        The counters of :data:`COLD` are totalled without the detailed launches' own cold
        misses (at least 0 a launch): what remains scales with the instructions."""
        if self._sums is None or self._sums[0] != len(self.samples):
            used = self.used()
            names: set[str] = set()
            for s in used:
                names.update(k for k in s.counters if not high_water(k))
            totals = {name: sum(_warm(s, name) for s in used) for name in sorted(names)}
            self._sums = (len(self.samples), sum(s.warp_insn for s in used), totals)
        return self._sums[1], self._sums[2]

    def scaled_counters(self, warp_insn: int, thread_insn: int, cold: tuple[int, int] = (0, 0),
                        tx: tuple[int, int] | None = None) -> dict[str, int]:
        """The counters of a launch of ``warp_insn`` warp and ``thread_insn`` thread instructions,
        ``cold`` (cold reads, cold writes) and ``tx`` (global transactions, reads and writes)
        projected from this group: its counts per warp instruction (:meth:`sums`) times the
        launch's, the memory system's per transaction times the launch's (:meth:`traffic`),
        plus, for :data:`COLD`'s counters, the launch's own cold misses; the instruction
        counts exact."""
        w, totals = self.sums()
        counters = {name: total * warp_insn / w if w else 0.0 for name, total in totals.items()}
        return _launch_counters(counters, self.traffic(), tx, cold, warp_insn, thread_insn)

    def used(self) -> list[Sample]:
        """The detailed launches the estimate uses: the first is a warm-up once there are 3, or
        2 in a group that pools its spread (:attr:`prior`); none is when :attr:`warm_up` is
        False."""
        if not self.warm_up:
            return list(self.samples)
        warm_up = 2 if self.prior is not None else 3
        return self.samples[1:] if len(self.samples) >= warm_up else list(self.samples)

    def spread(self, latency: int) -> Spread:
        """Its own spread (:class:`Spread`): relative to the mean CPI of :meth:`used`."""
        c = self.cpis(latency)
        every = self.cpis(latency, every=True)
        mean = sum(c) / len(c) if c else 0.0
        if mean <= 0:
            return Spread(0.0, 0, 0.0, 0)
        me = sum(every) / len(every)
        slope = self._least_slope(latency)
        work = self.mean_work(latency)
        trend_rel = slope[0] / work if slope is not None and work > 0 else 0.0
        return Spread(sum((x / mean - 1) ** 2 for x in c), len(c) - 1,
                      sum(((x - me) / mean) ** 2 for x in every), len(every) - 1, trend_rel)

    def cpis(self, latency: int, every: bool = False) -> list[float]:
        """Cycles per warp instruction, less ``latency``, of :meth:`used` (or of every detailed
        launch, the warm-up included)."""
        return [max(0, s.cycles - latency) / s.warp_insn for s in (self.samples if every else self.used())
                if s.warp_insn]

    def mean_work(self, latency: int) -> float:
        """The mean cycles less ``latency`` of :meth:`used` (0 with none)."""
        used = self.used()
        return sum(max(0, s.cycles - latency) for s in used) / len(used) if used else 0.0

    def estimate(self, latency: int) -> tuple[float, float, float]:
        """(mean CPI, relative half-width of its 95 % confidence interval, relative half-width
        of the 95 % prediction interval of one new launch); inf while fewer than 2 launches.

        The mean and its confidence interval (the stopping rule) leave the warm-up launch out
        (:meth:`used`); the prediction interval (the stated bound) takes its spread over every
        detailed launch, warm-up included, so that a group whose launches differ now and then
        (a cold miss every few launches) does not state a zero bound from a few identical ones."""
        if self._est is None or self._est[:2] != (len(self.samples), latency):
            self._est = (len(self.samples), latency, self._estimate(latency))
        return self._est[2]

    def _estimate(self, latency: int) -> tuple[float, float, float]:
        c = self.cpis(latency)
        if not c:
            return 0.0, math.inf, math.inf
        mean = sum(c) / len(c)
        sp = self.spread(latency)
        if self.prior is not None:
            sp = sp + self.prior
        if sp.dof < 1 or sp.dof_every < 1 or mean <= 0:
            return mean, math.inf, math.inf
        n = len(self.samples)
        ci = t975(sp.dof) * math.sqrt(sp.ss / sp.dof) / math.sqrt(len(c))
        pi = t975(sp.dof_every) * math.sqrt(sp.ss_every / sp.dof_every) * math.sqrt(1 + 1 / n)
        return mean, ci, pi

    def centre(self, name: str = "thread") -> float:
        """The mean work of :meth:`used` in measure ``name`` (:func:`measure`; the group's place
        on a :class:`Line`)."""
        used = self.used()
        return sum(_x(s, name) for s in used) / len(used) if used else 0.0

    def scaling_gap(self, cpi: float, warp_insn: int, thread_insn: int = 0,
                    tx: tuple[int, int] | None = None) -> float:
        """Cycles between projecting a launch of ``warp_insn`` warp instructions in proportion
        to them and projecting it at the detailed launches' mean count (a kernel whose time does
        not scale with its instructions): ``cpi`` x the distance; 0 when they all had as many.

        The distance is the largest relative one of three measures of the launch's work from
        the detailed launches' means, times the work at their mean (``cpi`` x their mean warp
        instructions): warp instructions, and when known for the launch and for them all,
        thread instructions (the lanes that work: fewer while the warps stay) and global-memory
        transactions ``tx`` (reads and writes: a loop unrolled by four issues as many warp
        instructions for 11 trips as for 12, but not as many loads)."""
        used = self.used()
        wbar = sum(s.warp_insn for s in used) / len(used) if used else 0.0
        return cpi * wbar * self.distance(warp_insn, thread_insn, tx)

    def distance(self, warp_insn: int, thread_insn: int = 0, tx: tuple[int, int] | None = None) -> float:
        """The largest relative distance of a launch's warp instructions, thread instructions
        and global transactions (the last two when counted for it and for every used detailed
        launch) from the used detailed launches' means (0 with none)."""
        used = self.used()
        if not used:
            return 0.0
        wbar = sum(s.warp_insn for s in used) / len(used)
        if wbar <= 0:
            return 0.0
        dist = abs(warp_insn / wbar - 1)
        if thread_insn > 0 and all(s.thread_insn > 0 for s in used):
            tbar = sum(s.thread_insn for s in used) / len(used)
            dist = max(dist, abs(thread_insn / tbar - 1))
        xbar = self.mean_tx()
        if tx is not None and sum(tx) > 0 and xbar > 0:
            dist = max(dist, abs(sum(tx) / xbar - 1))
        return dist

    def mean_tx(self) -> float:
        """The mean global transactions (reads and writes) of :meth:`used`; 0 when there are
        none or some were not counted."""
        used = self.used()
        if not used or any(not sum(s.tx) for s in used):
            return 0.0
        return sum(sum(s.tx) for s in used) / len(used)

    def trend(self, latency: int, seq: int) -> float:
        """Cycles the detailed launches' trend moves a launch at place ``seq`` of the group away
        from their mean, or 0.  The least-squares slope of their cycles (less ``latency``) over
        their places must be significant at 95 % (Student's t, n - 2 degrees of freedom); then
        the least the slope can be at that level (``|b| - t * se``) times the distance.  Every
        detailed launch counts, the warm-up too: at least four are needed (two degrees of
        freedom), and a cold first launch followed by level ones is a step, which no line fits
        well enough to pass.  Three points on a line by chance would pass one degree of freedom
        and, extended over hundreds of launches, state a bound of tens of per cent for a
        kernel without any trend.

        A group that pools its spread (:attr:`prior`) and has too few detailed launches for a
        slope of its own takes the earlier groups' (:attr:`Spread.trend_rel`, relative to the
        mean work of its used launches) from the mean place of its detailed launches."""
        own = self._least_slope(latency)
        if own is not None:
            least, mx = own
            return least * abs(seq - mx)
        if self.prior is None or not self.prior.trend_rel or not self.samples:
            return 0.0
        mx = sum(s.seq for s in self.samples) / len(self.samples)
        return self.prior.trend_rel * self.mean_work(latency) * abs(seq - mx)

    def _least_slope(self, latency: int) -> tuple[float, float] | None:
        """(the least slope of :meth:`trend`, at least 0; the detailed launches' mean place),
        or None with fewer than four of them or no spread in their places."""
        pts = [(s.seq, max(0, s.cycles - latency)) for s in self.samples]
        n = len(pts)
        fit = _fit(pts) if n >= 4 else None
        if fit is None:
            return None
        mx, my, b, sxx = fit
        resid = sum((y - my - b * (x - mx)) ** 2 for x, y in pts)
        least = abs(b) - t975(n - 2) * math.sqrt(resid / (n - 2) / sxx)
        return max(0.0, least), mx


@dataclass
class Line:
    """A launch projected from a line through the converged groups of its kernel and shape
    (:meth:`KernelSampler.line`): cycles less the launch latency fitted by least squares
    against a measure of the work over the groups' detailed launches -- thread instructions,
    or global-memory transactions (:data:`MEASURES`), counted by each launch's functional run.

    A kernel whose work shrinks or grows launch by launch (an elimination step over fewer rows
    each time) forms a new group every ``-gpgpusim_sampling_similar`` of drift, and each needs
    ``-gpgpusim_sampling_min`` detailed launches (or ``-gpgpusim_sampling_pool``, once it pools
    its spread with the earlier groups').  Once three groups have converged, the line
    through them shows whether cycles follow the measure linearly: a bend, or launches that
    scatter, widen its residuals and so its confidence interval.  A launch is projected from
    the line when (1) its measure lies within the groups' span, or beyond it by at most that
    span; (2) its instruction mix is as near to the nearest group's as the groups' mixes are to
    each other, plus ``similar / 2``; (3) the 95 % confidence interval of the line's value at
    the launch is within ``-gpgpusim_sampling_tol`` of it (of the cycles projected, or with
    ``-gpgpusim_sampling_tol_of work`` of the work alone), the stopping rule of a group.
    Thread instructions follow both a launch's warps and their active lanes: a kernel whose
    warps stay while fewer of their threads work (a multiplier step) moves along them too.
    Transactions follow a loop bound by its loads whose compiler unrolled it: 11 trips issue
    as many instructions as 12 but fewer loads, so against thread instructions a widening
    window's groups scatter by ~100 cycles about their line and against its loads by ~25
    (``bench/sampling/window.cu``).  Both lines are fitted when transactions were counted
    for every detailed launch; a launch takes, of those that pass (1) to (3), the one that
    states the smaller bound, its counters from the same line.

    The stated bound is the sum of the 95 % prediction interval of one launch at that place
    (the residuals of every detailed launch, the groups' warm-ups included, as a group's
    interval takes them); the model error (the largest error of a line through all groups but
    one at that one's mean: a bend between them); beyond the groups, the slope there unmeasured,
    the larger gap between the line's continuation and not scaling at all or scaling in
    proportion from the line's value at the edge (a kernel flat over the groups that starts to
    scale past them, a multiplier step whose time stays while it has work for every warp); and
    the mean bound the CTA-sampled detailed launches carry.

    The counters follow the same measure (:meth:`_LineFit.counters`): each is a least-squares
    line through the same detailed launches, evaluated at the launch (the memory system's per
    transaction over them, :func:`traffic_fit`, at the launch's); so are those of a launch
    projected from a group once a line exists and conditions (1) and (2) hold, from the line
    of the smaller residuals (:meth:`KernelSampler.counter_line`).  A kernel whose warps stay
    while fewer of their lanes work makes fewer memory accesses per warp instruction: scaled per
    warp instruction from the nearest group, the line-projected launches of a Gaussian
    elimination counted twice the L1D and L2 accesses of the full simulation, its
    group-projected ones 18 % more (a group's detailed launches are its first, at the end of
    the group with the most work)."""

    groups: list[Group]
    nearest: Group
    #: the line's value at the launch (cycles less the launch latency)
    work: float
    #: half-width of the 95 % confidence interval of ``work``, relative to the cycles projected
    #: (with ``tol_of`` ``work``: to ``work``): the stopping rule
    ci_rel: float
    #: half-width of the 95 % prediction interval of one launch, cycles
    pi: float
    #: the line's model error, cycles: the largest error with which the line through all groups
    #: but one predicts that one's mean (:func:`_leave_one_out`)
    model: float
    #: beyond the groups, cycles: the larger gap between the line's continuation from the
    #: nearer edge and, there, not scaling at all or scaling in proportion to the measure
    beyond: float
    #: mean relative bound of the CTA-sampled detailed launches
    inherited: float
    #: the fit it came from (its counters' lines, :meth:`_LineFit.counters`)
    fit: _LineFit
    #: the cold gap of the launch against the nearest group, cycles (:meth:`KernelSampler.cold_gap`)
    cold: float = 0.0

    def stated(self) -> float:
        """The bound the line states at the launch before its cold gap, cycles."""
        return self.pi + self.model + self.beyond + self.inherited * self.work


@dataclass(frozen=True)
class _LineFit:
    """What :meth:`KernelSampler.line` needs of the line through some converged groups: the
    groups' span in its measure, the fit over their used launches (``n`` of them) and
    its residuals over those and over every detailed launch (``m``), the leave-one-out model
    error, the mean bound the CTA-sampled launches pass on and, per counter, its line over the
    same launches."""

    groups: list[Group]
    #: what the line fits cycles against (:data:`MEASURES`)
    measure: str
    #: the groups' mean work in :attr:`measure` (:meth:`Group.centre`), in ``groups``' order
    centres: list[float]
    lo: float
    hi: float
    span: float
    n: int
    m: int
    mx: float
    my: float
    sxx: float
    b: float
    s_used: float
    s_every: float
    loo: float
    inherited: float
    #: per counter (high-water marks left out; :data:`COLD`'s without the launches' own cold
    #: misses): its mean over the used launches and its least-squares slope against
    #: :attr:`measure`
    counter_lines: dict[str, tuple[float, float]]
    #: the memory system's counters per transaction over the same launches (:func:`traffic_fit`)
    traffic: dict[str, tuple[float, float]] | None = None

    @classmethod
    def through(cls, groups: list[Group], latency: int, name: str = "thread") -> _LineFit | None:
        """The line through ``groups`` against measure ``name``, or None (fewer than four
        used launches, or no spread in ``name`` between the groups)."""
        centres = [g.centre(name) for g in groups]
        lo, hi = min(centres), max(centres)
        used = [(_x(s, name), max(0, s.cycles - latency)) for g in groups for s in g.used()]
        every = [(_x(s, name), max(0, s.cycles - latency)) for g in groups for s in g.samples]
        fit = _fit(used)
        if hi <= lo or fit is None or len(used) < 4:
            return None
        mx, my, b, sxx = fit
        n, m = len(used), len(every)
        s_used = math.sqrt(sum((y - my - b * (x - mx)) ** 2 for x, y in used) / (n - 2))
        s_every = math.sqrt(sum((y - my - b * (x - mx)) ** 2 for x, y in every) / (m - 2))
        samples = [s for g in groups for s in g.used()]
        names = sorted({k for s in samples for k in s.counters if not high_water(k)})
        lines = {}
        for counter in names:
            ys = [_warm(s, counter) for s in samples]
            cy = sum(ys) / n
            lines[counter] = (cy, sum((_x(s, name) - mx) * (y - cy) for s, y in zip(samples, ys, strict=True)) / sxx)
        return cls(groups, name, centres, lo, hi, hi - lo, n, m, mx, my, sxx, b,
                   s_used, s_every, _leave_one_out(groups, latency, name),
                   sum(s.bound_rel for s in samples) / len(samples), lines, traffic_fit(samples))

    def nearest(self, x: float) -> Group:
        """The group whose mean work in :attr:`measure` is nearest ``x``."""
        return self.groups[min(range(len(self.groups)), key=lambda i: abs(self.centres[i] - x))]

    def at(self, thread_insn: int, tx: tuple[int, int] | None) -> int:
        """A launch's work in :attr:`measure` (:func:`measure`)."""
        return measure(self.measure, thread_insn, tx)

    def counters(self, warp_insn: int, thread_insn: int, cold: tuple[int, int] = (0, 0),
                 tx: tuple[int, int] | None = None) -> dict[str, int]:
        """The counters of a launch of ``warp_insn`` warp and ``thread_insn`` thread
        instructions, ``cold`` (cold reads, cold writes) and ``tx`` (global transactions)
        projected from this fit: each counter's line at the launch's :attr:`measure` (rounded,
        at least 0), the memory system's per transaction at ``tx`` (:attr:`traffic`), plus, for
        :data:`COLD`'s counters, the launch's own cold misses; the instruction counts exact."""
        dx = self.at(thread_insn, tx) - self.mx
        counters = {name: max(0.0, cy + slope * dx) for name, (cy, slope) in self.counter_lines.items()}
        return _launch_counters(counters, self.traffic, tx, cold, warp_insn, thread_insn)


def _fit(pts: list[tuple[int, int]]) -> tuple[float, float, float, float] | None:
    """(mean x, mean y, least-squares slope, sum of squared x deviations) of ``pts``, or None
    when x does not vary."""
    n = len(pts)
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx <= 0:
        return None
    return mx, my, sum((x - mx) * (y - my) for x, y in pts) / sxx, sxx


def _leave_one_out(groups: list[Group], latency: int, name: str = "thread") -> float:
    """The largest |error| of a line through every group but one (cycles less ``latency``
    against measure ``name``, over :meth:`Group.used`) at that group's mean: what a bend
    between the groups costs a line that assumes none."""
    worst = 0.0
    for g in groups:
        gx = g.centre(name)
        gy = g.mean_work(latency)
        fit = _fit([(_x(s, name), max(0, s.cycles - latency)) for h in groups if h is not g for s in h.used()])
        if fit is not None:
            mx, my, b, _ = fit
            worst = max(worst, abs(gy - my - b * (gx - mx)))
    return worst


def dram_round_trip(config: Any) -> float:
    """Core cycles of one L2 miss served by DRAM, from the configuration: the L2's
    ``-gpgpu_l2_rop_latency`` (L2 cycles) and ``-dram_latency`` (DRAM cycles), each in core
    cycles (``-gpgpu_clock_domains``); 0 when the configuration does not say.  293 on
    SM7_QV100 (160 + 100 x 1132 / 850)."""
    try:
        cd = config.get("gpgpu_clock_domains")
        rop = float(config.get("gpgpu_l2_rop_latency") or 0)
        dram = float(config.get("dram_latency") or 0)
        return rop * cd.core_mhz / cd.l2_mhz + dram * cd.core_mhz / cd.dram_mhz
    except (AttributeError, KeyError, TypeError, ValueError, ZeroDivisionError):
        return 0.0


def _warm(s: Sample, name: str) -> int:
    """Counter ``name`` of detailed launch ``s``, less its cold misses for :data:`COLD`'s."""
    v = s.counters.get(name, 0)
    w = COLD.get(name)
    return v if w is None else max(0, v - w[0] * s.cold[0] - w[1] * s.cold[1])


def _stated_bound(cycles: float) -> int:
    """A projected launch's bound in whole cycles: ``cycles`` rounded up, and at least one (the
    projection is rounded to whole cycles, and detailed launches that all took the same cycles
    do not make the next one certain to)."""
    return max(1, math.ceil(cycles))


class KernelSampler:
    """The groups of a run and the decisions: which launch is simulated in detail, which is
    projected, and the projection (see the module docstring)."""

    def __init__(self, tol: float = 0.02, min_detailed: int = 4, similar: float = 0.1,
                 latency: int = 0, lines: bool = True, tol_of: str = "cycles", cold_cycles: float = 0.0,
                 pool: int = 2) -> None:
        self.tol = tol
        #: what ``tol`` is a fraction of (``-gpgpusim_sampling_tol_of``)
        self.tol_of = parse_tol_of(tol_of)
        self.min_detailed = max(2, min_detailed)
        #: detailed launches of a group that pools its spread (``-gpgpusim_sampling_pool``;
        #: 0 = groups do not pool)
        self.pool = min(max(2, pool), self.min_detailed) if pool else 0
        self.similar = similar
        self.latency = latency
        #: the cold gap's cycles (:meth:`cold_gap`, :func:`dram_round_trip`)
        self.cold_cycles = cold_cycles
        #: project launches from a :class:`Line` through converged groups (``-gpgpusim_sampling_line``)
        self.lines = lines
        #: launches projected from a line
        self.line_projected = 0
        #: per key: (its converged groups and their detailed launches, their line)
        self._fits: dict[tuple[Any, ...], tuple[tuple[tuple[int, int], ...], list[_LineFit]]] = {}
        self.groups: list[Group] = []
        self._by_key: dict[tuple[Any, ...], list[Group]] = {}

    @classmethod
    def from_config(cls, config: Any) -> KernelSampler | None:
        """The sampler ``-gpgpusim_sampling`` asks for, or None (``off``)."""
        def opt(name: str, default: Any) -> Any:
            try:
                v = config.get(name)
            except (KeyError, AttributeError):
                return default
            return default if v is None else v
        if parse_mode(opt("gpgpusim_sampling", "off")) not in ("kernel", "all"):
            return None
        return cls(tol=float(opt("gpgpusim_sampling_tol", 0.02)),
                   min_detailed=int(opt("gpgpusim_sampling_min", 4)),
                   similar=float(opt("gpgpusim_sampling_similar", 0.1)),
                   latency=int(opt("gpgpu_kernel_launch_latency", 0) or 0),
                   lines=bool(int(opt("gpgpusim_sampling_line", 1))),
                   tol_of=str(opt("gpgpusim_sampling_tol_of", "cycles")),
                   cold_cycles=dram_round_trip(config),
                   pool=int(opt("gpgpusim_sampling_pool", 2)))

    # ------------------------------------------------------------------ grouping
    @staticmethod
    def key(name: str, grid: tuple[int, ...], block: tuple[int, ...]) -> tuple[Any, ...]:
        return (name, tuple(grid), tuple(block))

    def converged(self, g: Group) -> bool:
        """Whether ``g``'s mean is known within the tolerance (:meth:`ci`) after at least
        ``-gpgpusim_sampling_min`` detailed launches, or ``-gpgpusim_sampling_pool`` in a group
        that pools its spread; one fewer when its first is not a warm-up (:attr:`Group.warm_up`)."""
        need = self.min_detailed if g.prior is None else self.pool
        if len(g.samples) < need - (0 if g.warm_up else 1):
            return False
        return self.ci(g) <= self.tol

    def pooled_spread(self, key: tuple[Any, ...]) -> Spread | None:
        """The pooled spread (:class:`Spread`) of the groups of ``key`` so far that have a
        degree of freedom of their own (two or more detailed launches), for a new group of it
        to start from (``-gpgpusim_sampling_pool``); None when pooling is off or there is none.

        A kernel whose work drifts launch by launch starts a group every
        ``-gpgpusim_sampling_similar`` of drift, often before the last one had its
        ``-gpgpusim_sampling_min`` launches.  Its launches vary about their mean alike in
        each group (the same code on the same grid), so a later group need not measure that
        variation afresh: it takes the earlier groups' (their degrees of freedom with it, so
        Student's t stays as wide as they leave it), adds its own, and stops once its mean is
        known within the tolerance -- after ``pool`` detailed launches at the least, the first
        a warm-up (:meth:`Group.used`).  A group whose launches vary more than the earlier ones
        widens the pooled spread with its own, and so takes more; one whose spread the pool
        does not admit at 95 % (:meth:`Spread.admits`) drops it and is estimated on its own."""
        if not self.pool:
            return None
        spreads = [sp for sp in (g.spread(self.latency) for g in self._by_key.get(key, ())) if sp.dof_every >= 1]
        return sum(spreads[1:], spreads[0]) if spreads else None

    def warm_up_effect(self, key: tuple[Any, ...]) -> bool:
        """Whether a new group of ``key`` that pools its spread leaves its first detailed launch
        out as a warm-up (:attr:`Group.warm_up`): yes, unless the kernel's earlier groups that
        left theirs out saw each within the 95 % prediction interval of the group's other
        launches (its CPI's relative distance from their mean against Student's t times their
        relative spread, pooled with the group's prior, times ``sqrt(1 + 1/n)``), and at least
        one was tested.

        A first launch differs when what earlier launches left in the caches matters; the
        first launch of a widening window's group does not.  A kernel whose warm-ups were like
        its other launches spends one detailed launch per group, not two -- once the pooled
        spread has shown some variation (:attr:`Spread.ss_every` above 0: a group of one launch
        adds nothing to it, and a kernel whose first launches all took the same cycles would
        otherwise state no bound for later ones that do not).  A warm-up with more cold reads than the group's other launches
        (:data:`COLD`: sectors read for the first time) is not tested: its compulsory misses,
        not the state earlier launches left, set it apart, and a projected launch states them
        in its cold gap.  For the same reason a group whose own first sample read new sectors
        leaves it out whatever this says (:meth:`record_detailed`): a Gaussian elimination's
        update step reads a new sector of the multiplier column every eighth step and then runs
        ~110 cycles (~9 % of its work) longer, in full detail too, and two of ``gauss 128``'s
        update groups started on such steps."""
        pool = self.pooled_spread(key)
        if pool is None or pool.ss_every <= 0:
            return True
        tested = 0
        for g in self._by_key.get(key, ()):
            used = g.used()
            if not used or len(used) == len(g.samples):
                continue                    # no warm-up left out
            w = g.samples[0]
            if not w.warp_insn or w.cold[0] > sum(s.cold[0] for s in used) / len(used):
                continue
            cpis = g.cpis(self.latency)
            mean = sum(cpis) / len(cpis) if cpis else 0.0
            sp = g.spread(self.latency)
            if g.prior is not None:
                sp = sp + g.prior
            if mean <= 0 or sp.dof < 1:
                continue
            d = max(0, w.cycles - self.latency) / w.warp_insn / mean - 1
            if abs(d) > t975(sp.dof) * math.sqrt(sp.ss / sp.dof) * math.sqrt(1 + 1 / len(cpis)):
                return True
            tested += 1
        return tested == 0

    def ci(self, g: Group) -> float:
        """The relative half-width the stopping rule compares with ``tol``: of the group's mean
        CPI, or with ``tol_of`` = ``cycles`` of the cycles it projects for a launch of its mean
        count, the launch latency (known, not estimated) in the base."""
        cpi, ci, _ = self.estimate(g)
        if self.tol_of == "work" or not math.isfinite(ci):
            return ci
        used = g.used()
        work = cpi * sum(s.warp_insn for s in used) / len(used)
        return ci * work / self._tol_base(work) if work > 0 else ci

    def _tol_base(self, work: float) -> float:
        """What ``tol`` is a fraction of for a launch of ``work`` cycles past the latency
        (``tol_of``): the cycles projected, the latency included, or ``work`` alone."""
        return work + self.latency if self.tol_of == "cycles" else work

    def estimate(self, g: Group) -> tuple[float, float, float]:
        return g.estimate(self.latency)

    def candidate(self, key: tuple[Any, ...]) -> bool:
        """Whether a launch of ``key`` may be projected: some group of it has converged."""
        return any(self.converged(g) for g in self._by_key.get(key, ()))

    def match(self, key: tuple[Any, ...], warp_insn: int, opcode_counts: dict[str, int]) -> Group | None:
        """The group of ``key`` whose instruction count is within ``similar`` (relative) and
        whose mix is within ``similar / 2`` (total variation) of the launch's, or None."""
        mix = opcode_mix(opcode_counts)
        for g in self._by_key.get(key, ()):
            if abs(warp_insn - g.warp_insn) <= self.similar * max(1, g.warp_insn) \
                    and mix_distance(mix, g.mix) <= self.similar / 2:
                return g
        return None

    def source(self, key: tuple[Any, ...], warp_insn: int, thread_insn: int, opcode_counts: dict[str, int],
               tx: tuple[int, int] | None = None) -> tuple[Group | None, Line | None]:
        """What a launch of ``key`` is projected from: (its converged group, None), (None, the
        kernel's :class:`Line`), or (None, None) when neither takes it (it is simulated in
        detail).  The line is asked when no converged group matches the launch, and also when
        one does but the launch's global transactions ``tx`` lie more than ``similar`` from
        the mean of the group's used detailed launches' (:meth:`off_centre`): then the line is
        taken if one passes, else the group.

        A group matches on warp instructions and mix, and scales its CPI with the launch's warp
        instructions; a loop unrolled by four issues as many for 11 trips as for 12, but not
        as many loads, and a launch bound by its loads takes the time of its loads.  The group
        states that gap in its bound (:meth:`Group.scaling_gap`); a line against transactions
        measures it."""
        mix = dict(opcode_counts)
        group = self.match(key, warp_insn, mix)
        if group is not None and not self.converged(group):
            group = None
        if group is not None and not self.off_centre(group, tx):
            return group, None
        line = self.line(key, thread_insn, mix, tx)
        return (None, line) if line is not None else (group, None)

    def scatter(self, key: tuple[Any, ...], thread_insn: int, tx: tuple[int, int] | None) -> float:
        """Cycles a launch of ``key`` may lie from any smooth function of its work, once its
        kernel's lines through its groups are fitted: the smallest 95 % prediction interval of
        one launch at its work on those lines (their residuals over every detailed launch); 0
        with no line fitted.  Stated for a launch projected from a group with other counts
        than the group's detailed launches (:meth:`Group.distance`).

        The group's scaling gap assumes such a launch's time lies between not scaling and
        scaling in proportion to its work.  A kernel whose groups scatter about every line
        through them has shown that its time follows its work only that loosely: a loop
        unrolled by four with a remainder loop can run 6 % faster with one trip more (the SASS
        of ``bench/sampling/window.cu``: 20 % less time past the launch latency with 12.5 %
        more loads, and 18 % more with 8 % more).  A kernel whose lines fit its groups well
        states little."""
        best = math.inf
        for fit in self._line_fits(key):
            x = fit.at(thread_insn, tx)
            if x <= 0 or fit.m < 3:
                continue
            lev = 1 / fit.n + (x - fit.mx) ** 2 / fit.sxx
            best = min(best, t975(fit.m - 2) * fit.s_every * math.sqrt(1 + lev))
        return best if math.isfinite(best) else 0.0

    def off_centre(self, g: Group, tx: tuple[int, int] | None) -> bool:
        """Whether transactions ``tx`` lie more than ``similar`` (relative, the sampler's) from
        the mean over ``g``'s used detailed launches (False when either was not counted)."""
        x = sum(tx) if tx is not None else 0
        xbar = g.mean_tx()
        return bool(x and xbar) and abs(x - xbar) > self.similar * xbar

    def record_detailed(self, key: tuple[Any, ...], uid: int, warp_insn: int, opcode_counts: dict[str, int],
                        cycles: int, counters: dict[str, int], bound_rel: float = 0.0,
                        thread_insn: int = 0, cold: tuple[int, int] = (0, 0),
                        tx: tuple[int, int] = (0, 0), fresh: bool = False) -> Group:
        """A launch of ``key`` was simulated in detail: add it to its group (a new one when none
        matches); ``bound_rel``: its own relative bound when CTA sampling projected part of it;
        ``cold``: its cold reads and writes (:data:`COLD`); ``tx``: its global transactions.

        ``fresh``: it ran on an SM that had not run its kernel before, on a GPU whose SMs keep
        a kernel's code, parameters or data between launches (``TimingGpu.fresh_sms``).  It
        joins its group but is none of its samples, not even its warm-up, as its cold caches
        say nothing of the launches to come: a one-CTA kernel issued round robin over 15 SMs
        without perfect instruction caches takes ~660 cycles on each SM's first launch and
        ~400 after, so a group of its first launches projected the rest 65 % too long, and
        with the first launch (~1,040 cycles) as the group's warm-up its stated bound was
        many times the projection.  The group waits for launches on SMs that ran the kernel
        (and projects none on a GPU with more SMs than the kernel has launches); a kernel
        whose first launch covers every SM it will use takes one detailed launch more."""
        g = self.match(key, warp_insn, opcode_counts)
        if g is None:
            prior = self.pooled_spread(key)
            g = Group(len(self.groups) + 1, key[0], key[1], key[2], warp_insn, opcode_mix(opcode_counts),
                      prior=prior, warm_up=prior is None or self.warm_up_effect(key))
            self.groups.append(g)
            self._by_key.setdefault(key, []).append(g)
        if fresh:
            g.fresh += 1
            g.launches += 1
            return g
        if not g.samples and cold[0] > 0:
            g.warm_up = True    # a first launch that read new sectors: its compulsory misses set it apart
        g.samples.append(Sample(uid, warp_insn, cycles, counters, bound_rel, seq=g.launches,
                                thread_insn=thread_insn, cold=cold, tx=tx))
        g.launches += 1
        if g.prior is not None and not g.prior.admits(g.spread(self.latency)):
            g.prior = None      # it varies more than its kernel's earlier groups: on its own
        return g

    def line(self, key: tuple[Any, ...], thread_insn: int, opcode_counts: dict[str, int],
             tx: tuple[int, int] | None = None) -> Line | None:
        """The :class:`Line` a launch of ``key`` with ``thread_insn`` thread instructions, ``tx``
        global transactions and this instruction mix is projected from, or None (fewer than
        three converged groups with counts, a launch outside their reach, or a line not known
        well enough there).  Of the lines in the two measures (:data:`MEASURES`) that pass, the
        one that states the smaller bound there."""
        best = None
        for fit in self._line_fits(key):
            ln = self._line_at(fit, thread_insn, opcode_counts, tx)
            if ln is not None and (best is None or ln.stated() < best.stated()):
                best = ln
        return best

    def _line_at(self, fit: _LineFit, thread_insn: int, opcode_counts: dict[str, int],
                 tx: tuple[int, int] | None) -> Line | None:
        """The launch on line ``fit`` when conditions (1) to (3) of :class:`Line` hold, else None."""
        nearest = self._reach(fit, thread_insn, opcode_counts, tx)
        if nearest is None:
            return None
        x = fit.at(thread_insn, tx)
        work = fit.my + fit.b * (x - fit.mx)
        if work <= 0:
            return None
        lev = 1 / fit.n + (x - fit.mx) ** 2 / fit.sxx
        ci_rel = t975(fit.n - 2) * fit.s_used * math.sqrt(lev) / self._tol_base(work)
        if ci_rel > self.tol:
            return None
        pi = t975(fit.m - 2) * fit.s_every * math.sqrt(1 + lev)
        edge = fit.lo if x < fit.lo else fit.hi if x > fit.hi else x
        at_edge = fit.my + fit.b * (edge - fit.mx)
        d = abs(x - edge)
        # beyond the groups the slope is not measured: it may be anything from not scaling at
        # all to scaling in proportion, from the line's value at the edge
        beyond = max(abs(fit.b), abs(at_edge / edge - fit.b)) * d if d else 0.0
        return Line(fit.groups, nearest, work, ci_rel, pi, fit.loo, beyond, fit.inherited, fit)

    def _reach(self, fit: _LineFit, thread_insn: int, opcode_counts: dict[str, int],
               tx: tuple[int, int] | None) -> Group | None:
        """The group of ``fit`` nearest a launch for which conditions (1) and (2) of
        :class:`Line` hold (within the groups' reach in the fit's measure, a mix as near as
        theirs), else None."""
        x = fit.at(thread_insn, tx)
        if x <= 0 or not fit.lo - fit.span <= x <= fit.hi + fit.span:
            return None
        nearest = fit.nearest(x)
        spread = max(mix_distance(g.mix, nearest.mix) for g in fit.groups)
        if mix_distance(opcode_mix(opcode_counts), nearest.mix) > spread + self.similar / 2:
            return None
        return nearest

    def counter_line(self, key: tuple[Any, ...], thread_insn: int, opcode_counts: dict[str, int],
                     tx: tuple[int, int] | None = None) -> _LineFit | None:
        """The fit through the converged groups of ``key`` whose counters a launch with
        ``thread_insn`` thread instructions, ``tx`` global transactions and this instruction mix
        takes (of the lines for which conditions (1) and (2) of :class:`Line` hold -- within the
        groups' reach, a mix as near as theirs -- the one of the smaller residuals: a loop whose
        trips load the same but unroll into uneven instruction counts follows its
        transactions), or None.  A launch projected from a group takes only its counters from
        it (:meth:`project`): a group's detailed launches are its first, and a kernel that
        drifts one way is scaled from one end of the group."""
        for fit in sorted(self._line_fits(key), key=lambda f: f.s_used):
            if self._reach(fit, thread_insn, opcode_counts, tx) is not None:
                return fit
        return None

    def _line_fits(self, key: tuple[Any, ...]) -> list[_LineFit]:
        """The least-squares lines through the converged groups of ``key`` (none with fewer than
        three, or no spread between them, or with ``-gpgpusim_sampling_line 0``), against each
        of :data:`MEASURES` counted for every detailed launch of them; fitted once per change
        of their samples."""
        if not self.lines:
            return []
        converged = [g for g in self._by_key.get(key, ()) if self.converged(g)]
        sig = tuple((g.gid, len(g.samples)) for g in converged)
        cached = self._fits.get(key)
        if cached is not None and cached[0] == sig:
            return cached[1]
        fits = []
        for name in MEASURES:
            groups = [g for g in converged if all(_x(s, name) > 0 for s in g.samples)]
            fit = _LineFit.through(groups, self.latency, name) if len(groups) >= 3 else None
            if fit is not None:
                fits.append(fit)
        self._fits[key] = (sig, fits)
        return fits

    def project_line(self, ln: Line, warp_insn: int, thread_insn: int, cold: tuple[int, int] = (0, 0),
                     tx: tuple[int, int] | None = None) -> tuple[int, int, dict[str, int]]:
        """(cycles, 95 % error bound in cycles -- at least one, as for a group --, per-kernel
        counters) of a launch projected from ``ln`` (:meth:`line`)."""
        cycles = self.latency + int(round(ln.work))
        ln.cold = self.cold_gap(ln.nearest, cold)
        bound = _stated_bound(ln.stated() + ln.cold)
        self.line_projected += 1
        return cycles, bound, ln.fit.counters(warp_insn, thread_insn, cold, tx)

    def line_info(self, ln: Line, cycles: int, bound: int) -> dict[str, Any]:
        """The report's ``sampling`` entry of a launch projected from a line."""
        return {"mode": "kernel", "status": "projected", "group": ln.nearest.gid,
                "group_detailed": len(ln.nearest.samples), "line_groups": [g.gid for g in ln.groups],
                "line_measure": ln.fit.measure,
                "line_detailed": sum(len(g.samples) for g in ln.groups), "line_ci_rel": ln.ci_rel,
                "cycles_bound": bound, "cycles_bound_rel": bound / cycles if cycles else 0.0,
                "cycles_bound_parts": {"interval": int(math.ceil(ln.pi + ln.inherited * ln.work)),
                                       "model": int(math.ceil(ln.model)), "beyond": int(math.ceil(ln.beyond)),
                                       "cold": int(math.ceil(ln.cold))},
                "projected_counters": "scalar"}

    # ------------------------------------------------------------------ projection
    def project(self, g: Group, warp_insn: int, thread_insn: int, cold: tuple[int, int] = (0, 0),
                counters_from: _LineFit | None = None,
                tx: tuple[int, int] | None = None) -> tuple[int, int, dict[str, int]]:
        """(cycles, 95 % error bound in cycles, per-kernel counters) of a launch of group ``g``
        with ``warp_insn`` warp and ``thread_insn`` thread instructions, ``cold`` (cold reads,
        cold writes) and ``tx`` (global transactions); the counters from ``counters_from``
        (:meth:`counter_line`) when given, else scaled from ``g``.  A launch of other counts
        than ``g``'s detailed launches (:meth:`Group.distance`) adds its kernel's
        :meth:`scatter` to its bound."""
        cpi, _, pi_rel = self.estimate(g)
        work = cpi * warp_insn
        cycles = self.latency + int(round(work))
        # samples whose cycles were partly projected (CTA sampling) pass on their mean bound
        used = g.used()
        inherited = sum(s.bound_rel for s in used) / len(used) if used else 0.0
        if math.isfinite(pi_rel):
            interval = (pi_rel + inherited) * work
            scaling = g.scaling_gap(cpi, warp_insn, thread_insn, tx)
            trend = g.trend(self.latency, g.launches)
            gap = self.cold_gap(g, cold)
            scatter = self.scatter(self.key(g.name, g.grid, g.block), thread_insn, tx) \
                if g.distance(warp_insn, thread_insn, tx) > 0 else 0.0
            bound = _stated_bound(interval + scaling + trend + gap + scatter)
            g.bound_parts = {"interval": int(math.ceil(interval)), "scaling": int(math.ceil(scaling)),
                             "trend": int(math.ceil(trend)), "cold": int(math.ceil(gap))}
            if scatter:
                g.bound_parts["scatter"] = int(math.ceil(scatter))
        else:
            bound = cycles
            g.bound_parts = {}
        g.launches += 1
        g.projected += 1
        if counters_from is not None:
            return cycles, bound, counters_from.counters(warp_insn, thread_insn, cold, tx)
        return cycles, bound, g.scaled_counters(warp_insn, thread_insn, cold, tx)

    def cold_gap(self, g: Group, cold: tuple[int, int]) -> float:
        """The cold gap of a launch with ``cold`` (cold reads, cold writes) projected from
        ``g``: :attr:`cold_cycles` when it has more cold reads than ``g``'s detailed launches
        (:meth:`Group.used`) had on average, else 0.  Only reads: a cold write under lazy
        fetch-on-read reads nothing."""
        used = g.used()
        if not used or cold[0] <= sum(s.cold[0] for s in used) / len(used):
            return 0.0
        return self.cold_cycles

    def detailed_info(self, g: Group) -> dict[str, Any]:
        """The report's ``sampling`` entry of a launch simulated in detail."""
        info = {"mode": "kernel", "status": "detailed", "group": g.gid,
                "group_detailed": len(g.samples) + g.fresh, "converged": self.converged(g)}
        if g.fresh:
            info["group_fresh_sm"] = g.fresh
        return info

    def projected_info(self, g: Group, cycles: int, bound: int) -> dict[str, Any]:
        cpi, ci_rel, _ = self.estimate(g)
        info = {"mode": "kernel", "status": "projected", "group": g.gid,
                "group_detailed": len(g.samples) + g.fresh, "group_cpi": cpi, "group_cpi_ci_rel": ci_rel,
                "cycles_bound": bound, "cycles_bound_rel": bound / cycles if cycles else 0.0,
                "projected_counters": "scalar"}
        if g.prior is not None:
            info["group_pooled"] = True
        if not g.warm_up:
            info["group_warm_up"] = False
        if g.fresh:
            info["group_fresh_sm"] = g.fresh
        if any(g.bound_parts.get(k) for k in ("scaling", "trend", "cold", "scatter")):
            info["cycles_bound_parts"] = dict(g.bound_parts)
        return info
