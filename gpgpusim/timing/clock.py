"""The four clock domains (GPGPU-Sim ``gpgpu_sim::next_clock_domain``; checklist C058-C061).

Core, interconnect, L2 and DRAM run at their ``-gpgpu_clock_domains`` MHz.  Each :meth:`step`
fires every domain whose next edge is the earliest (ties fire together) and returns the mask of
fired domains (``CORE | L2 | ICNT | DRAM``), with GPGPU-Sim's comparisons and its floating-point
accumulation of edge times, so a domain's phase relative to the others (DRAM's, notably) is the
same as in the C++ simulator.  :meth:`skip` advances many core edges at once, bit-identically.
"""

from __future__ import annotations

from typing import Any, Final

CORE: Final = 1
L2: Final = 2
ICNT: Final = 4
DRAM: Final = 8


class ClockDomains:
    __slots__ = ("t_core", "t_icnt", "t_l2", "t_dram", "p_core", "p_icnt", "p_l2", "p_dram")

    def __init__(self, core_mhz: float, icnt_mhz: float, l2_mhz: float, dram_mhz: float) -> None:
        self.p_core = 1.0 / (core_mhz * 1e6)
        self.p_icnt = 1.0 / (icnt_mhz * 1e6)
        self.p_l2 = 1.0 / (l2_mhz * 1e6)
        self.p_dram = 1.0 / (dram_mhz * 1e6)
        self.reset()

    @classmethod
    def from_config(cls, cfg: Any) -> ClockDomains:
        cd = cfg.get("gpgpu_clock_domains")
        return cls(cd.core_mhz, cd.icnt_mhz, cd.l2_mhz, cd.dram_mhz)

    def reset(self) -> None:
        """All domains at time 0 (GPGPU-Sim's ``reinit_clock_domains``)."""
        self.t_core = self.t_icnt = self.t_l2 = self.t_dram = 0.0

    def step(self) -> int:
        """Advance to the next edge(s); the mask of the domains that tick."""
        smallest = self.t_core              # min(core, icnt, dram), without a builtin call
        if self.t_icnt < smallest:
            smallest = self.t_icnt
        if self.t_dram < smallest:
            smallest = self.t_dram
        mask = 0
        if self.t_l2 <= smallest:
            smallest = self.t_l2
            mask |= L2
            self.t_l2 += self.p_l2
        if self.t_icnt <= smallest:
            mask |= ICNT
            self.t_icnt += self.p_icnt
        if self.t_dram <= smallest:
            mask |= DRAM
            self.t_dram += self.p_dram
        if self.t_core <= smallest:
            mask |= CORE
            self.t_core += self.p_core
        return mask

    def skip(self, core_ticks: int) -> tuple[int, int, int, int]:
        """As ``core_ticks`` core edges' worth of :meth:`step` calls; returns the edges each of
        core, icnt, L2 and DRAM had."""
        times, counts = advance_clocks((self.t_core, self.t_icnt, self.t_l2, self.t_dram),
                                       (self.p_core, self.p_icnt, self.p_l2, self.p_dram), core_ticks)
        self.t_core, self.t_icnt, self.t_l2, self.t_dram = times
        return counts


def advance_clocks(times: tuple[float, float, float, float], periods: tuple[float, float, float, float],
                   core_ticks: int) -> tuple[tuple[float, float, float, float], tuple[int, int, int, int]]:
    """Advance the four clock domains (core, icnt, L2, DRAM) by ``core_ticks`` core edges as
    ``next_clock_domain`` steps would, without stepping: returns the new next-edge times and how
    many edges each domain had.

    Each step fires every domain whose next edge equals the earliest one, so the steps up to
    the ``core_ticks``-th core edge (at time T) contain exactly the edges at times <= T of every
    domain.  Edge times are the running sums ``t, t+p, (t+p)+p, ...`` in the same floating-point
    order as the stepping loop's ``t += p`` (``np.add.accumulate`` adds sequentially), so the
    result is bit-identical, DRAM clock phase included (``tests/timing/test_clocks.py``).
    """
    import numpy as np
    tc, ti, tl, td = times
    pc, pi, pl, pd = periods
    core = np.add.accumulate(np.concatenate(([tc], np.full(core_ticks, pc))))
    last = core[core_ticks - 1]
    out_t = [float(core[core_ticks])]
    counts = [core_ticks]
    for t, p in ((ti, pi), (tl, pl), (td, pd)):
        m = max(0, int((last - t) / p)) + 3
        seq = np.add.accumulate(np.concatenate(([t], np.full(m, p))))
        while seq[-1] <= last:           # (never for sane periods; keeps it exact regardless)
            seq = np.add.accumulate(np.concatenate((seq, np.full(m, p))))
        n = int(np.searchsorted(seq, last, side="right"))
        counts.append(n)
        out_t.append(float(seq[n]))
    return (out_t[0], out_t[1], out_t[2], out_t[3]), (counts[0], counts[1], counts[2], counts[3])
