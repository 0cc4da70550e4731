"""The stream manager driving the real functional engine (PTX parser + engine + reporter)."""

from __future__ import annotations

import gc
import struct
import weakref

import numpy as np
import pytest

import gpgpusim.device.gpu as device_gpu
from gpgpusim.errors import Err
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.ptx import parse_ptx
from gpgpusim.device.gpu import Gpu, KernelLaunchOp, MemcpyKind, MemcpyOp, estimate_cycles
from gpgpusim.runtime.stream_state import STREAM_NON_BLOCKING
from gpgpusim.runtime.streams import StreamManager

from stream_helpers import _watchdog  # noqa: F401 - _watchdog: autouse fixture

# nvcc 13 -ptx of: __global__ void inc(int *p, int n) { int i = ...; if (i < n) p[i] += 1; }
PTX = """
.version 9.0
.target sm_75
.address_size 64

.visible .entry _Z3incPii(
	.param .u64 _Z3incPii_param_0,
	.param .u32 _Z3incPii_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [_Z3incPii_param_0];
	ld.param.u32 	%r2, [_Z3incPii_param_1];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;

	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.s32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.u32 	%r6, [%rd4];
	add.s32 	%r7, %r6, 1;
	st.global.u32 	[%rd4], %r7;

$L__BB0_2:
	ret;
}
"""


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def kernel_launch(self, info) -> None:
        self.calls.append(("launch", info))

    def functional_done(self, stats) -> None:
        self.calls.append(("done", stats))


def test_two_streams_real_kernels_events_and_stats():
    gmem = GlobalMemory()
    rep = Recorder()
    gpu = Gpu(None, gmem, rep)
    mgr = StreamManager(gpu)
    try:
        lm = load_module(parse_ptx(PTX, "inc.ptx"), gmem)
        n = 300
        bufs = [gmem.allocate(4 * n) for _ in range(2)]
        streams = [mgr.create_stream(STREAM_NON_BLOCKING) for _ in range(2)]
        e0, e1 = mgr.create_event(), mgr.create_event()
        host = np.arange(n, dtype=np.int32)
        outs = [np.zeros(n, np.int32) for _ in range(2)]
        mgr.record_event(e0, streams[0])
        for buf, s, out, reps in zip(bufs, streams, outs, (1, 3), strict=True):
            mgr.enqueue(s, MemcpyOp(buf, host, 4 * n, MemcpyKind.HostToDevice))
            for _ in range(reps):
                params = struct.pack("<QI", buf, n)
                mgr.enqueue(s, KernelLaunchOp(lm, "_Z3incPii", (3, 1, 1), (128, 1, 1), 0, params))
            mgr.enqueue(s, MemcpyOp(out, buf, 4 * n, MemcpyKind.DeviceToHost))
        mgr.record_event(e1, streams[0])
        mgr.synchronize_device()
        assert outs[0].tolist() == (host + 1).tolist()
        assert outs[1].tolist() == (host + 3).tolist()
        assert [(k.uid, k.stream_id) for k in gpu.kernels] == [(1, 1), (2, 2), (3, 2), (4, 2)]
        # the report's per-kernel stats carry the stream each kernel ran on (kernel_stream_id)
        done = [st for what, st in rep.calls if what == "done"]
        assert [st.stream_id for st in done] == [k.stream_id for k in gpu.kernels]
        assert all(st.thread_insn > 0 and st.warp_insn > 0 for st in done)
        # launches are reported when pushed (host thread), in uid order; each before its end
        order = [(what, st.uid) for what, st in rep.calls]
        assert [u for what, u in order if what == "launch"] == [1, 2, 3, 4]
        assert sorted(u for what, u in order if what == "done") == [1, 2, 3, 4]
        for uid in range(1, 5):
            assert order.index(("launch", uid)) < order.index(("done", uid))
        first = gpu.kernels[0]
        assert first.cycles == estimate_cycles(done[0].warp_insn, 80, 4)
        # the device clock also counts the other stream's kernels that ran between the two
        # events (its three launches, in order): how many did depends on the stream threads
        cycles = mgr.elapsed_ms(e0, e1) * (1132.0 * 1e3)
        others = [k.cycles for k in list(gpu.kernels)[1:]]
        assert any(cycles == pytest.approx(first.cycles + sum(others[:i])) for i in range(len(others) + 1)), cycles
        assert mgr.elapsed_ms(e0, e1) > 0
    finally:
        assert mgr.shutdown(10.0)


def test_finished_launches_are_freed_without_the_cycle_collector(monkeypatch):
    """A launch that ``Gpu.kernels`` forgot (its op, record and statistics) is freed by
    reference counting alone: CPython's cycle collector seldom makes a full collection in a
    simulation (``timing.gpu`` raises its young threshold, ``recorder.gc_settle`` moves the
    trace into the oldest generation), so a reference cycle per launch grew a 20,000-launch
    run by ~7 KB a launch."""
    monkeypatch.setattr(device_gpu, "KEEP_KERNEL_RECORDS", 2)
    gmem = GlobalMemory()
    was = gc.isenabled()
    gc.disable()
    mgr = StreamManager(Gpu(None, gmem))
    try:
        lm = load_module(parse_ptx(PTX, "inc.ptx"), gmem)
        buf = gmem.allocate(4 * 32)
        refs = []
        for _ in range(5):
            op = KernelLaunchOp(lm, "_Z3incPii", (1, 1, 1), (32, 1, 1), 0, struct.pack("<QI", buf, 32))
            mgr.enqueue(None, op)
            mgr.synchronize_device()
            refs.append((weakref.ref(op), weakref.ref(mgr.gpu.kernels[-1])))
        del op
        assert [r.uid for r in mgr.gpu.kernels] == [4, 5]
        assert [(o() is None, r() is None) for o, r in refs[:3]] == [(True, True)] * 3
        assert gmem.read(buf, 4 * 32).view(np.int32).tolist() == [5] * 32
    finally:
        assert mgr.shutdown(10.0)
        if was:
            gc.enable()


def test_out_of_bounds_kernel_is_sticky():
    gmem = GlobalMemory()
    mgr = StreamManager(Gpu(None, gmem))
    try:
        lm = load_module(parse_ptx(PTX, "inc.ptx"), gmem)
        s = mgr.create_stream()
        mgr.enqueue(s, KernelLaunchOp(lm, "_Z3incPii", (1, 1, 1), (32, 1, 1), 0,
                                      struct.pack("<QI", 0x10, 32)))   # unmapped address
        err = None
        try:
            mgr.synchronize_stream(s)
        except Exception as exc:  # noqa: BLE001
            err = exc
        assert getattr(err, "code", None) == Err.IllegalAddress
        assert getattr(err, "sticky", False)
        assert mgr.sticky_error is not None and mgr.sticky_error.message == err.message
    finally:
        mgr.shutdown(10.0)
