"""CTA sampling inside the first wave (``-gpgpusim_sampling_cta_interval``) on synthetic
kernels: each grid runs in full detail and sampled, in process (the default config with 2 or 4
SMs, launch latency 50); prints cycles, how the sampled run timed the grid (``interval``, or
``whole`` when the screening kept it in detail), error, the stated bound and whether it covers.

    python3 bench/interval_sampling.py             # every case, screened (auto; ~1 min compiled)
    python3 bench/interval_sampling.py --interval 1   # unscreened
    python3 bench/interval_sampling.py --case add:448x300 --case bar:200x100

``add``: each thread adds 1 to its element ``trips`` times (4 instructions a trip, no memory
in the loop: the CTAs are limited by latency and share the SM by the schedulers' order), 64
threads a CTA, 2 SMs of 32 CTAs.  ``bar``: each thread loads an element of a 1 MB array per
trip, with a barrier per trip; CTA ``c`` at trip ``i`` reads where CTA ``c + 64`` reads at trip
``i - 1``, so a later wave finds its data in L2, which the first wave cannot show (the case
the method gets wrong unscreened, and the screening keeps in detail); 128 threads a CTA, 4 SMs of 16 CTAs;
in one wave of 64 CTAs its reads wrap around the array after 64 trips and find it in L2.
``phase``: twice ``trips`` adds, then ``trips`` L2 loads of the thread's element.  ``stream``:
each trip reads a new slice of an array and writes one of another (nothing reread), 2 SMs.
"""

from __future__ import annotations

import argparse
import struct

import numpy as np
from inproc import launch_op, simulate, timing_gpu, upload


def _ptx(body: str, params: str) -> str:
    return (".version 8.0\n.target sm_80\n.address_size 64\n"
            f".visible .entry k({params})\n{{\n{body}\n}}\n")


#: ``add`` and ``phase``: the thread's element ``%rd3`` of ``p0`` loaded into ``%r3``, the trip
#: count ``p1`` in ``%r1``, the trip counter ``%r4`` zeroed
_ELEMENT = """
.reg .u32 %r<10>;
.reg .u64 %rd<4>;
.reg .pred %p;
ld.param.u64 %rd1, [p0];
ld.param.u32 %r1, [p1];
mov.u32 %r2, %tid.x;
mov.u32 %r5, %ctaid.x;
mov.u32 %r6, %ntid.x;
mad.lo.u32 %r2, %r5, %r6, %r2;
mul.wide.u32 %rd2, %r2, 4;
add.u64 %rd3, %rd1, %rd2;
ld.global.u32 %r3, [%rd3];
mov.u32 %r4, 0;
"""

ADD = _ptx(_ELEMENT + """
L:
add.u32 %r3, %r3, 1;
add.u32 %r4, %r4, 1;
setp.lt.u32 %p, %r4, %r1;
@%p bra L;
st.global.u32 [%rd3], %r3;
ret;
""", ".param .u64 p0, .param .u32 p1")

BAR = _ptx("""
.reg .u32 %r<12>;
.reg .u64 %rd<6>;
.reg .pred %p;
ld.param.u64 %rd1, [p0];
ld.param.u32 %r1, [p1];
ld.param.u64 %rd4, [p2];
mov.u32 %r2, %tid.x;
mov.u32 %r5, %ctaid.x;
mov.u32 %r6, %ntid.x;
mov.u32 %r4, 0;
mov.u32 %r3, 0;
L:
mad.lo.u32 %r7, %r4, 4096, %r2;
mad.lo.u32 %r7, %r5, 64, %r7;
and.b32 %r7, %r7, 262143;
mul.wide.u32 %rd2, %r7, 4;
add.u64 %rd3, %rd4, %rd2;
ld.global.u32 %r8, [%rd3];
bar.sync 0;
add.u32 %r3, %r3, %r8;
add.u32 %r4, %r4, 1;
setp.lt.u32 %p, %r4, %r1;
@%p bra L;
mad.lo.u32 %r2, %r5, %r6, %r2;
mul.wide.u32 %rd2, %r2, 4;
add.u64 %rd3, %rd1, %rd2;
st.global.u32 [%rd3], %r3;
ret;
""", ".param .u64 p0, .param .u32 p1, .param .u64 p2")

PHASE = _ptx(_ELEMENT + """
shl.b32 %r7, %r1, 1;
A:
add.u32 %r3, %r3, 1;
add.u32 %r4, %r4, 1;
setp.lt.u32 %p, %r4, %r7;
@%p bra A;
mov.u32 %r4, 0;
B:
ld.global.cg.u32 %r8, [%rd3];
add.u32 %r3, %r3, %r8;
add.u32 %r4, %r4, 1;
setp.lt.u32 %p, %r4, %r1;
@%p bra B;
st.global.u32 [%rd3], %r3;
ret;
""", ".param .u64 p0, .param .u32 p1")

#: ``stream``: each trip every thread reads its element of that trip's slice of ``p2`` and
#: writes it, plus one, to ``p0``'s (the slices of the whole grid, one after the other):
#: nothing is read twice, and what is written outgrows the L2 after enough trips
STREAM = _ptx("""
.reg .u32 %r<12>;
.reg .u64 %rd<8>;
.reg .pred %p;
ld.param.u64 %rd1, [p0];
ld.param.u32 %r1, [p1];
ld.param.u64 %rd4, [p2];
mov.u32 %r2, %tid.x;
mov.u32 %r5, %ctaid.x;
mov.u32 %r6, %ntid.x;
mov.u32 %r9, %nctaid.x;
mad.lo.u32 %r2, %r5, %r6, %r2;
mul.lo.u32 %r9, %r9, %r6;
mov.u32 %r4, 0;
L:
mad.lo.u32 %r7, %r4, %r9, %r2;
mul.wide.u32 %rd2, %r7, 4;
add.u64 %rd3, %rd4, %rd2;
ld.global.u32 %r8, [%rd3];
add.u32 %r8, %r8, 1;
add.u64 %rd5, %rd1, %rd2;
st.global.u32 [%rd5], %r8;
add.u32 %r4, %r4, 1;
setp.lt.u32 %p, %r4, %r1;
@%p bra L;
ret;
""", ".param .u64 p0, .param .u32 p1, .param .u64 p2")

CASES = ["add:448x300", "add:400x300", "add:700x200", "add:200x100", "add:100x500", "add:100x100",
         "bar:200x100", "phase:200x150",
         # grids of one wave (every CTA resident from the start)
         "add:2x5000", "add:16x3000", "add:64x500", "bar:64x100", "phase:2x1000", "stream:16x200", "stream:16x800"]


def run(kind: str, n_ctas: int, trips: int, interval: str) -> tuple[object, np.ndarray, float]:
    """One launch; (its record, the output array, CPU seconds)."""
    sms, threads = (4, 128) if kind == "bar" else (2, 64)
    cfg, g, gpu, lm = timing_gpu({"add": ADD, "bar": BAR, "phase": PHASE, "stream": STREAM}[kind], f"{kind}.ptx",
                                 sms, "SM7_QV100",
                                 ["-gpgpu_kernel_launch_latency 50", "-gpgpusim_sampling cta",
                                  f"-gpgpusim_sampling_cta_interval {interval}"])
    if kind == "stream":
        y, x = upload(g, np.zeros(n_ctas * threads * trips, dtype=np.uint32),
                      np.arange(n_ctas * threads * trips, dtype=np.uint32))
        params = struct.pack("<QIIQ", y, trips, 0, x)
    elif kind != "bar":
        (y,) = upload(g, np.arange(n_ctas * threads, dtype=np.uint32))
        params = struct.pack("<QI", y, trips)
    else:
        y, x = upload(g, np.zeros(n_ctas * threads, dtype=np.uint32), np.arange(262144, dtype=np.uint32))
        params = struct.pack("<QIIQ", y, trips, 0, x)
    rec, cpu = simulate(gpu, launch_op(lm, cfg, "k", (n_ctas, 1, 1), (threads, 1, 1), params, regs=16, smem=0))
    if rec.error is not None:
        raise SystemExit(f"{kind} {n_ctas}x{trips}: {rec.error}")
    n_out = n_ctas * threads * (trips if kind == "stream" else 1)
    return rec, g.read(y, n_out * 4).view(np.uint32), cpu


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--case", action="append", help="kind:CTASxTRIPS (default: all of " + ", ".join(CASES) + ")")
    p.add_argument("--interval", choices=("auto", "1"), default="auto",
                   help="the sampled runs' -gpgpusim_sampling_cta_interval (auto: screened, the default)")
    a = p.parse_args()
    print("| case | waves | cycles full | sampled | how | error | bound | covers | output equal | CPU full / sampled |")
    print("|---|---:|---:|---:|---|---:|---:|---|---|---:|")
    for case in a.case or CASES:
        kind, dims = case.split(":")
        n_ctas, trips = (int(v) for v in dims.split("x"))
        full, out_full, cpu_full = run(kind, n_ctas, trips, "0")
        samp, out, cpu = run(kind, n_ctas, trips, a.interval)
        f, s = full.report_stats, samp.report_stats
        wave = 64
        bound = (s.sampling or {}).get("cycles_bound", 0)
        err = (s.cycles - f.cycles) / f.cycles
        how = (s.sampling or {}).get("cta", {}).get("method", "whole")
        print(f"| {case} | {n_ctas / wave:.2f} | {f.cycles:,} | {s.cycles:,} | {how} | {100 * err:+.2f} % | "
              f"+-{100 * bound / s.cycles:.1f} % | {'yes' if abs(s.cycles - f.cycles) <= bound else 'no'} | "
              f"{'yes' if (out == out_full).all() and s.warp_insn == f.warp_insn else 'NO'} | "
              f"{cpu_full:.1f} / {cpu:.1f} s |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
