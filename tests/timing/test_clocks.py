"""The launch-latency fast-forward advances the clock domains exactly like stepping."""

from __future__ import annotations

import random

from gpgpusim.timing.clock import ClockDomains, advance_clocks


def _step(times, periods, core_ticks):
    tc, ti, tl, td = times
    pc, pi, pl, pd = periods
    ticks = ni = nl = nd = 0
    while ticks < core_ticks:           # gpgpu_sim::next_clock_domain
        smallest = min(tc, ti, td)
        if tl <= smallest:
            smallest = tl
            tl += pl
            nl += 1
        if ti <= smallest:
            ti += pi
            ni += 1
        if td <= smallest:
            td += pd
            nd += 1
        if tc <= smallest:
            tc += pc
            ticks += 1
    return (tc, ti, tl, td), (ticks, ni, nl, nd)


def test_matches_stepping_bit_for_bit():
    rng = random.Random(3)
    cases = [((1132.0, 1132.0, 1132.0, 850.0), 5000), ((1132.0, 1132.0, 1132.0, 3500.5), 777),
             ((700.0, 700.0, 700.0, 924.0), 1), ((1417.0, 1417.0, 1417.0, 2500.0), 12345)]
    for _ in range(20):
        mhz = tuple(rng.choice((325.0, 575.0, 700.0, 850.0, 924.0, 1132.0, 1365.0, 3500.5)) for _ in range(4))
        cases.append((mhz, rng.randrange(1, 4000)))
    for mhz, n in cases:
        periods = tuple(1.0 / (m * 1e6) for m in mhz)
        times = (0.0, 0.0, 0.0, 0.0)
        # also from a mid-run phase
        times, _ = _step(times, periods, rng.randrange(0, 300))
        assert advance_clocks(times, periods, n) == _step(times, periods, n), (mhz, n)


def test_step_is_the_reference_loop():
    clk = ClockDomains(1132.0, 1132.0, 1132.0, 850.0)
    periods = (clk.p_core, clk.p_icnt, clk.p_l2, clk.p_dram)
    counts = [0, 0, 0, 0]
    while counts[0] < 1000:
        m = clk.step()
        for i, bit in enumerate((1, 4, 2, 8)):     # CORE, ICNT, L2, DRAM
            counts[i] += bool(m & bit)
    want_t, want_n = _step((0.0, 0.0, 0.0, 0.0), periods, 1000)
    assert (clk.t_core, clk.t_icnt, clk.t_l2, clk.t_dram) == want_t
    assert tuple(counts) == want_n
