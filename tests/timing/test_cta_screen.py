"""gpgpusim.timing.cta_screen: the screening of a launch for CTA sampling inside the first wave
(-gpgpusim_sampling_cta_interval auto) and its use by TimingGpu."""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from gpgpusim.functional import engine
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.ptx import parse_ptx
from gpgpusim.timing.cta_sampling import parse_interval
from gpgpusim.timing.cta_screen import MAX_SHARED_GAIN, Screen, screen_launch

from .test_cta_sampling import _run
from .timing_helpers import ptx, run_timing

# CTA c (one warp) copies line (c % p2) of x to line c of y: the CTAs from p2 on read what
# the CTAs before them read
REREAD = ptx("""
.reg .u32 %r<10>;
.reg .u64 %rd<8>;
ld.param.u64 %rd1, [p0];
ld.param.u64 %rd4, [p1];
ld.param.u64 %rd7, [p2];
cvt.u32.u64 %r1, %rd7;
mov.u32 %r2, %tid.x;
mov.u32 %r5, %ctaid.x;
rem.u32 %r6, %r5, %r1;
mad.lo.u32 %r7, %r6, 32, %r2;
mul.wide.u32 %rd2, %r7, 4;
add.u64 %rd3, %rd1, %rd2;
ld.global.u32 %r8, [%rd3];
mad.lo.u32 %r9, %r5, 32, %r2;
mul.wide.u32 %rd5, %r9, 4;
add.u64 %rd6, %rd4, %rd5;
st.global.u32 [%rd6], %r8;
ret;
""", params=".param .u64 p0, .param .u64 p1, .param .u64 p2")

# CTA c loops c + 1 times: a triangular grid
TRIANGLE = ptx("""
.reg .u32 %r<6>;
.reg .pred %p;
mov.u32 %r5, %ctaid.x;
mov.u32 %r4, 0;
L:
add.u32 %r4, %r4, 1;
setp.le.u32 %p, %r4, %r5;
@%p bra L;
ret;
""", params="")

MALLOC = parse_ptx(""".version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) malloc
(
.param .b64 malloc_param_0
)
;
.visible .entry k()
{
.reg .b64 %rd<3>;
{
.param .b64 param0;
st.param.b64 [param0+0], 16;
.param .b64 retval0;
call.uni (retval0), malloc, (param0);
ld.param.b64 %rd2, [retval0+0];
}
ret;
}
""", "m.ptx")


def _screen(src: Any, grid: int, params: bytes, g: GlobalMemory) -> Screen | str:
    lm = load_module(src, g)
    lc = engine.prepare_launch(lm, "k", (grid, 1, 1), (32, 1, 1), 0, params, gmem=g)
    return screen_launch(lc, g)


def test_parse_interval():
    assert parse_interval(None) == parse_interval("auto") == "auto"
    assert parse_interval("1") == parse_interval("on") == "on"
    assert parse_interval(0) == parse_interval("off") == "off"


def test_later_ctas_rereading_the_first_waves_data_are_screened_out_and_memory_is_restored():
    """40 CTAs, the first 10 read lines of x no other CTA read, the later 30 reread them (a share of
    1/2: their loaded line, not the line they store); the screening run leaves y untouched."""
    g = GlobalMemory()
    x = g.allocate(40 * 128)
    g.write(x, np.arange(40 * 32, dtype=np.uint32))
    y = g.allocate(40 * 128)
    found = _screen(REREAD, 40, struct.pack("<QQQ", x, y, 10), g)
    assert isinstance(found, Screen)
    assert (g.read(y, 40 * 128).view(np.uint32) == 0).all()
    assert found.insn.tolist() == [found.insn[0]] * 40
    assert found.shared.tolist() == [0.0] * 10 + [0.5] * 30
    why = found.verdict(10)
    assert why is not None and why.startswith("later CTAs touch data earlier ones touched (50 % of their lines, "
                                              "against 0 % in the first wave)")
    # where the first wave is the whole grid, nothing comes later
    assert found.verdict(40) is None
    # CTAs reading each their own line share nothing: a pass
    same = _screen(REREAD, 40, struct.pack("<QQQ", x, y, 40), g)
    assert isinstance(same, Screen) and not same.shared.any() and same.verdict(10) is None


def test_ctas_of_different_work_are_screened_out():
    found = _screen(TRIANGLE, 64, b"", GlobalMemory())
    assert isinstance(found, Screen)
    assert found.insn.tolist() == [3 + 3 * (c + 1) for c in range(64)]     # 2 movs, the trips, ret
    assert found.verdict(16) == "its CTAs do different work (warp instructions per CTA vary by 55 %, more than 10 %)"


def test_a_kernel_calling_malloc_is_not_run_on_trial():
    assert _screen(MALLOC, 4, b"", GlobalMemory()) == \
        "it calls malloc (line 16), which a trial run could not undo"


def test_the_cut_waits_for_the_rest_to_run_the_instructions_measured():
    """CTA 0's warp issues pc 0 60 times, then pc 1 40 times (its CTA 200 warp instructions,
    two warps): measured over its first half the rest is not like it; over 0.2..0.9 the rest
    (all pc 1) is not either; past pc 1's start with the window inside its run, it is."""
    s = Screen(insn=np.full(4, 200), shared=np.zeros(4), pcs=np.array([0] * 60 + [1] * 40))
    assert not s.rest_like(20, 100)
    assert not s.rest_like(40, 180)
    assert s.rest_like(130, 160)
    assert s.rest_like(0, 200)              # nothing left
    assert MAX_SHARED_GAIN == 0.10


def test_the_default_screens_and_samples_a_grid_that_passes():
    """ADD_LOOP's CTAs do equal work on their own elements: under the default (auto) a launch
    of 3.1 waves is screened, passes and is cut as without screening; output exact."""
    auto, mem = _run(200, "cta", reps=100)
    forced, mem_forced = _run(200, "cta", "-gpgpusim_sampling_cta_interval 1", reps=100)
    assert (mem == np.arange(200 * 64) + 100).all() and (mem == mem_forced).all()
    a, f = auto.report_stats, forced.report_stats
    assert a.sampling["cta"]["method"] == f.sampling["cta"]["method"] == "interval"
    assert a.sampling["cta"]["screened"] is True and f.sampling["cta"]["screened"] is False
    assert (a.cycles, a.warp_insn) == (f.cycles, f.warp_insn) == (40602, 164800)


def test_a_grid_of_fewer_than_three_waves_is_timed_whole_with_a_note(capsys, monkeypatch):
    """1.6 waves (100 CTAs, 64 a wave): under the default the launch is not screened (no
    screening run) nor sampled, and says why; ``-gpgpusim_sampling_cta_interval 1`` samples it."""
    import gpgpusim.timing.gpu as tgpu
    calls: list[int] = []

    def counting(*a: Any) -> Any:
        calls.append(1)
        return screen_launch(*a)
    monkeypatch.setattr(tgpu, "screen_launch", counting)
    auto, mem = _run(100, "cta", reps=100)
    assert calls == [] and auto.report_stats.sampling["status"] == "detailed"
    assert "GPGPU-Sim: NOTE: kernel k is not sampled inside its first wave: 1.6 waves of 64 CTAs, more than one " \
           "and fewer than 3 (-gpgpusim_sampling_cta_interval 1 samples it anyway)" in capsys.readouterr().err
    off, mem_off = _run(100, "cta", "-gpgpusim_sampling_cta_interval 0", reps=100)
    assert auto.report_stats.cycles == off.report_stats.cycles and (mem == mem_off).all()
    forced, _ = _run(100, "cta", "-gpgpusim_sampling_cta_interval 1", reps=100)
    assert forced.report_stats.sampling["cta"]["method"] == "interval"


def test_a_long_first_warp_keeps_an_even_sample_of_its_pcs(monkeypatch):
    from gpgpusim.timing import cta_screen

    class _Ex:
        W = 2
    monkeypatch.setattr(cta_screen, "MAX_PCS", 8)
    r = cta_screen.FootprintRecorder(_Ex(), keep_pcs=True)   # type: ignore[arg-type]
    for p in range(21):
        r.issue1(0, p, 1, 1, False)
        r.issue1(1, 100 + p, 1, 1, False)       # (another warp: not noted)
    assert list(r.pcs or []) == [0, 4, 8, 12, 16, 20] and r.winsn.tolist() == [21, 21]


def _reread(n_ctas: int, *more: str) -> tuple[Any, np.ndarray]:
    """REREAD over ``n_ctas`` one-warp CTAs on 2 SMs (64 CTAs a wave), its later CTAs rereading
    the first wave's lines: the record and y."""
    r = run_timing(REREAD, "k", (n_ctas, 1, 1), (32, 1, 1),
                   buffers=[("x", np.arange(64 * 32, dtype=np.uint32)), ("y", np.zeros(n_ctas * 32, dtype=np.uint32))],
                   overrides=["-gpgpu_n_clusters 2", "-gpgpu_kernel_launch_latency 50", "-gpgpusim_sampling cta", *more],
                   trace=False, extra_params=lambda addrs: [64])
    return r.rec, r.out["y"]


def test_a_screened_out_launch_is_timed_whole_with_a_note(capsys):
    auto, y = _reread(256)
    assert "GPGPU-Sim: NOTE: kernel k is not sampled inside its first wave: later CTAs touch data earlier " \
           "ones touched (50 % of their lines, against 0 % in the first wave)" in capsys.readouterr().err
    off, y_off = _reread(256, "-gpgpusim_sampling_cta_interval 0")
    assert (y == np.tile(np.arange(64 * 32, dtype=np.uint32), 4)).all() and (y == y_off).all()
    assert auto.report_stats.sampling["status"] == off.report_stats.sampling["status"] == "detailed"
    assert auto.report_stats.cycles == off.report_stats.cycles


def test_a_launch_cut_inside_its_first_wave_takes_the_screening_runs_result(monkeypatch):
    """The screened launch is cut as the unscreened one, but its rest is not run again: the
    open chunks are dropped and the screening run's counts and writes are taken; memory and
    every functional count are those of the unscreened run, which runs the rest."""
    from gpgpusim.timing import kernel_trace

    calls = {"drop": 0, "finish_unrecorded": 0}
    for name in calls:
        orig = getattr(kernel_trace._WindowChunk, name)

        def spy(self: Any, _orig: Any = orig, _name: str = name) -> None:
            calls[_name] += 1
            _orig(self)
        monkeypatch.setattr(kernel_trace._WindowChunk, name, spy)
    auto, mem = _run(200, "cta", reps=100)
    assert calls == {"drop": 1, "finish_unrecorded": 0}
    forced, mem_forced = _run(200, "cta", "-gpgpusim_sampling_cta_interval 1", reps=100)
    assert calls == {"drop": 1, "finish_unrecorded": 1}
    assert (mem == np.arange(200 * 64) + 100).all() and (mem == mem_forced).all()
    a, f = auto.stats, forced.stats
    assert (a.thread_insn, a.warp_insn, a.active_insn, a.ctas) == (f.thread_insn, f.warp_insn, f.active_insn, f.ctas) \
        == (5260800, 164800, 5273600, 200)
    assert a.opcode_counts == f.opcode_counts and a.line_stats == f.line_stats
    assert auto.report_stats.cycles == forced.report_stats.cycles == 40602


def test_the_screening_runs_writes_are_put_back_byte_by_byte(monkeypatch):
    """``MemorySnapshot.written``: the bytes the run changed (compared 16 bytes at a time
    here), applied later over what the allocation holds then (a byte the run did not change
    keeps its later value); nothing kept when the allocations written exceed the limit."""
    from gpgpusim.functional import memory

    monkeypatch.setattr(memory, "_DIFF_BLOCK", 16)
    g = GlobalMemory()
    a = g.allocate(64)
    g.write(a, np.arange(64, dtype=np.uint8))
    size = g._bufs[a].size
    snap = g.snapshot()
    snap.before_write("global", np.array([a], dtype=np.uint64))
    g.write(a, np.array([200, 1, 202], dtype=np.uint8))      # bytes 0 and 2 change, byte 1 does not
    g.write(a + 40, np.array([99], dtype=np.uint8))          # (in the third block)
    assert snap.written(size - 1) is None
    done = snap.written(size)
    snap.restore()
    assert done is not None and g.read(a, 3).tolist() == [0, 1, 2] and g.read(a + 40, 1).tolist() == [40]
    g.write(a + 1, np.array([77, 78], dtype=np.uint8))     # written after the run: bytes 1 and 2
    assert done.apply(g)
    assert g.read(a, 4).tolist() == [200, 77, 202, 3] and g.read(a + 39, 3).tolist() == [39, 99, 41]


def test_a_printing_kernel_keeps_no_screening_result():
    src = parse_ptx(""".version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf
(
.param .b64 vprintf_param_0,
.param .b64 vprintf_param_1
)
;
.global .align 1 .b8 $str[3] = {104, 105, 0};
.visible .entry k()
{
.reg .b32 %r<2>;
.reg .b64 %rd<3>;
mov.u64 %rd1, $str;
cvta.global.u64 %rd2, %rd1;
{
.param .b64 param0;
st.param.b64 [param0+0], %rd2;
.param .b64 param1;
st.param.b64 [param1+0], 0;
.param .b32 retval0;
call.uni (retval0), vprintf, (param0, param1);
ld.param.b32 %r1, [retval0+0];
}
ret;
}
""", "p.ptx")
    g = GlobalMemory()
    found = _screen(src, 4, b"", g)
    assert isinstance(found, Screen) and found.final is None and found.trial is None
    assert found.insn.tolist() == [found.insn[0]] * 4


def test_a_grid_of_one_wave_whose_ctas_share_their_sms_evenly_is_sampled_inside_it():
    """8 CTAs of ADD_LOOP on 2 SMs, 3,000 trips: every CTA resident from the start, 4 to an SM
    progressing alike; under the default the launch is screened and cut once its rate is known,
    within its bound of the full run, memory exact."""
    full, mem_full = _run(8, "off", reps=3000)
    auto, mem = _run(8, "cta", reps=3000)
    assert (mem == np.arange(8 * 64) + 3000).all() and (mem == mem_full).all()
    f, a = full.report_stats, auto.report_stats
    c = a.sampling["cta"]
    assert (c["method"], c["screened"], c["wave_ctas"], c["ctas_cut"], c["ctas_projected"]) == ("interval", True, 8, 8, 0)
    assert (f.cycles, a.cycles, a.sampling["cycles_bound"]) == (57665, 57606, 1652)
    assert abs(a.cycles - f.cycles) <= a.sampling["cycles_bound"] and a.warp_insn == f.warp_insn


def test_a_grid_of_one_wave_whose_ctas_share_their_sms_unevenly_is_timed_whole_with_a_note(capsys):
    """64 CTAs of ADD_LOOP on 2 SMs: 32 to an SM, the greedy scheduler runs the older ones first
    (the youngest at half the oldest's pace at the cut), so the launch ends with CTAs the
    interval saw starved: it is timed whole, and says why."""
    auto, mem = _run(64, "cta", reps=500)
    off, mem_off = _run(64, "off", reps=500)
    assert auto.report_stats.sampling["status"] == "detailed" and (mem == mem_off).all()
    assert auto.report_stats.cycles == off.report_stats.cycles == 60261
    assert "GPGPU-Sim: NOTE: kernel k is not sampled inside its first wave: its CTAs do not share their SMs " \
           "evenly" in capsys.readouterr().err


def test_the_cut_waits_while_the_rest_comes_back_to_data_touched_before():
    """CTA 0's warp: 100 instructions of one pc, a global access each; the first 60 touch a new
    line each, the last 40 the lines of the first 40 again.  Measured over 0.2..0.5 the rest
    rereads far more than the part measured did; measured over 0.7..0.9, as much."""
    reuse = np.array([[i + 1, 1, 0] for i in range(60)] + [[i + 1, 1, 1] for i in range(60, 100)])
    s = Screen(insn=np.full(4, 200), shared=np.zeros(4), pcs=np.zeros(100, dtype=np.int64),
               reuse=reuse, first_warp_insn=100)
    assert not s.rest_like(40, 100)
    assert s.rest_like(140, 180)
    assert s.rest_like(0, 200)              # nothing left


def test_the_first_warp_notes_which_of_its_accesses_come_back_to_lines_it_touched():
    from gpgpusim.timing import cta_screen

    class _Ex:
        W = 1
    r = cta_screen.FootprintRecorder(_Ex(), keep_pcs=True)   # type: ignore[arg-type]
    for base in (0, 128, 0, 64):
        r.issue1(0, 0, 1, 1, True)
        r._note_reuse(np.array([base, base + 4, base + 256], dtype=np.uint64))
    # lines (0, 2), (1, 3), (0, 2) again, (0, 2) again: 64 + 4 is in line 0
    assert list(r.reuse or []) == [1, 2, 0, 2, 2, 0, 3, 2, 2, 4, 2, 2]


def test_a_screened_grid_of_one_wave_is_cut_only_after_a_twentieth_of_its_work():
    """Four CTAs on two SMs, the whole grid, each issuing a warp instruction a cycle: unscreened
    the rate is known at cycle 352; screened (20,000 instructions a CTA), the cut waits until
    the CTAs have issued 5 % of them (1,000: the first look at or past cycle 1,000)."""
    from gpgpusim.timing.cta_sampling import ONE_WAVE_MIN_SHARE, IntervalSampling

    def cut_cycle(screen: Screen | None) -> int:
        cs = IntervalSampling(wave=4, n_ctas=4, tol=0.02, n_cores=2, screen=screen)
        for cid in range(4):
            cs.cta_started(cid, 0)
        t = 0
        while not cs.observe(t, [2 * t, 2 * t]):
            t += 16
        return cs.cut_cycle

    assert ONE_WAVE_MIN_SHARE == 0.05
    assert cut_cycle(None) == 352
    screen = Screen(insn=np.full(4, 20000), shared=np.zeros(4), pcs=np.zeros(100, dtype=np.int64))
    assert cut_cycle(screen) == 1008


def test_a_screened_grid_is_not_cut_once_half_its_work_has_run():
    """The same four CTAs whose rate settles only late (it grows over their first 1,200
    cycles, then holds: known at cycle 3,856, at 3,256 instructions a CTA): screened at 4,000
    instructions a CTA, they have run half their work at cycle 2,600, before the rate is
    known, so the launch is never cut and runs to its end; at 40,000 a CTA it is cut as soon as
    the rate is known.  Unscreened, the grid's work is not known: cut."""
    from gpgpusim.timing.cta_sampling import INTERVAL_MIN_REST, IntervalSampling

    def cut_cycle(screen: Screen | None) -> int | None:
        cs = IntervalSampling(wave=4, n_ctas=4, tol=0.02, n_cores=2, screen=screen)
        for cid in range(4):
            cs.cta_started(cid, 0)
        for t in range(0, 20000, 16):
            y = t * t // 2400 if t < 1200 else 600 + (t - 1200)     # per CTA
            if cs.observe(t, [2 * y, 2 * y]):
                return cs.cut_cycle
        return None

    assert INTERVAL_MIN_REST == 0.5
    assert cut_cycle(None) == 3856
    assert cut_cycle(Screen(insn=np.full(4, 4000), shared=np.zeros(4), pcs=np.zeros(100, dtype=np.int64))) is None
    assert cut_cycle(Screen(insn=np.full(4, 40000), shared=np.zeros(4), pcs=np.zeros(100, dtype=np.int64))) == 3856


def test_the_reuse_record_stops_at_its_line_limit(monkeypatch):
    from gpgpusim.timing import cta_screen

    class _Ex:
        W = 1
    monkeypatch.setattr(cta_screen, "MAX_LINES", 4)
    r = cta_screen.FootprintRecorder(_Ex(), keep_pcs=True)   # type: ignore[arg-type]
    for base in (0, 256, 512, 0):
        r.issue1(0, 0, 1, 1, True)
        r._note_reuse(np.array([base, base + 128], dtype=np.uint64))
    # four lines after the second access: the third and fourth are not noted
    assert list(r.reuse or []) == [1, 2, 0, 2, 2, 0]
