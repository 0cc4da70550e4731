"""Cost of the live instruction feed (``gpgpusim.timing.live``) against the trace feed.

A 16-CTA x 128-thread kernel (a 64-iteration loop of a global load and ALU work; 25,216 warp
instructions) runs on a one-SM SM7_QV100 (``tests/timing/timing_helpers.SMALL``):

* ``step``: the live feed's ``LiveWarp.issue`` alone, round robin over the warps with no
  timing model (the functional cost of executing one warp instruction at issue), next to the
  engine's own warp-step driver (``driver="warp"``) and the batched driver on the same kernel;
* ``timing``: the whole performance simulation with ``-gpgpusim_timing_feed trace`` and
  ``live`` (identical cycles; the difference is the live feed's cost).

CPU time (``time.process_time``, best of ``--repeat``), so other jobs on the machine disturb it
less than wall time.  Usage: ``python bench/live_feed_bench.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import struct
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "timing"))

from timing_helpers import ptx, run_timing  # noqa: E402

from gpgpusim.functional import engine  # noqa: E402
from gpgpusim.functional.loader import load_module  # noqa: E402
from gpgpusim.functional.memory import GlobalMemory  # noqa: E402
from gpgpusim.timing.live import LiveKernel  # noqa: E402

BODY = """
.reg .u32 %r<10>; .reg .u64 %rd<6>; .reg .pred %p<2>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
mov.u32 %r9, %ctaid.x;
mad.lo.u32 %r1, %r9, 128, %r1;
mul.wide.u32 %rd2, %r1, 4;
add.u64 %rd3, %rd1, %rd2;
mov.u32 %r2, 0;
mov.u32 %r3, 0;
LOOP:
ld.global.u32 %r4, [%rd3];
add.u32 %r3, %r3, %r4;
xor.b32 %r3, %r3, %r2;
add.u32 %r2, %r2, 1;
setp.lt.u32 %p1, %r2, 64;
@%p1 bra LOOP;
st.global.u32 [%rd3], %r3;
ret;
"""
GRID, BLOCK = (16, 1, 1), (128, 1, 1)


def _launch():
    g = GlobalMemory()
    lm = load_module(ptx(BODY), g)
    buf = g.allocate(16 * 128 * 4)
    g.write(buf, np.arange(16 * 128, dtype=np.uint32))
    return g, lm, struct.pack("<Q", buf)


def live_steps() -> tuple[int, float]:
    g, lm, params = _launch()
    lk = LiveKernel(engine.prepare_launch(lm, "k", GRID, BLOCK, 0, params, gmem=g))
    warps = []
    for _cid, ws in lk.streams():
        for w in ws:
            w.attach(0, len(warps))
            warps.append(w)
        if len(warps) == GRID[0] * BLOCK[0] // 32:
            break
    n = 0
    t = time.process_time()
    while warps:
        nxt = []
        for w in warps:
            w.issue(n)
            n += 1
            if w.pc >= 0:
                nxt.append(w)
        warps = nxt
    return n, time.process_time() - t


def driver(name: str) -> tuple[int, float]:
    g, lm, params = _launch()
    t = time.process_time()
    st = engine.launch(lm, "k", GRID, BLOCK, 0, params, gmem=g, driver=name)
    return st.warp_insn, time.process_time() - t


def timing(feed: str) -> tuple[int, float, int]:
    t = time.process_time()
    r = run_timing(ptx(BODY), "k", GRID, BLOCK, [("a", np.arange(16 * 128, dtype=np.uint32))],
                   overrides=[f"-gpgpusim_timing_feed {feed}"], trace=False)
    return r.rec.stats.warp_insn, time.process_time() - t, r.cycles


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for name, fn in (("live feed steps (LiveWarp.issue)", live_steps),
                     ("warp-step driver (engine, driver=warp)", lambda: driver("warp")),
                     ("batched driver (engine)", lambda: driver("batched"))):
        best = min((fn() for _ in range(args.repeat)), key=lambda x: x[1])
        print(f"{name:42s} {best[0]:7d} warp insts {best[1]:7.3f} s {best[1] / best[0] * 1e6:7.2f} us/inst")
    res = {}
    for feed in ("trace", "live"):
        n, dt, cyc = min((timing(feed) for _ in range(args.repeat)), key=lambda x: x[1])
        res[feed] = dt
        print(f"performance simulation, {feed:5s} feed        {n:7d} warp insts {dt:7.3f} s "
              f"{dt / n * 1e6:7.2f} us/inst ({cyc} cycles)")
    print(f"live - trace: {(res['live'] - res['trace']) / n * 1e6:.2f} us per warp instruction")


if __name__ == "__main__":
    main()
