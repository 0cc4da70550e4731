"""Where host threads block and what they may call: per-thread synchronous calls (``_ptds``),
CUDA's API synchronization behavior for synchronous copies and memsets, stream callbacks after
a device error, capture interaction modes, internal-error reports, and exit with work pending.

Uses the real Runtime with a fake kernel engine (``rt``/``engine`` fixtures of conftest.py) and
streams blocked behind a host function ("gates"), so "not finished yet" is observable.
"""

from __future__ import annotations

import ctypes
import struct
import threading
import time

import numpy as np
import pytest

from gpgpusim.errors import CudaError, Err
from gpgpusim.device.gpu import Gpu, KernelLaunchOp, MemsetOp
from gpgpusim.runtime.stream_state import (
    CAPTURE_MODE_GLOBAL,
    CAPTURE_MODE_RELAXED,
    CAPTURE_MODE_THREAD_LOCAL,
    CAPTURE_STATUS_ACTIVE,
    CAPTURE_STATUS_INVALIDATED,
    STREAM_NON_BLOCKING,
    STREAM_PER_THREAD,
)
from gpgpusim.runtime.streams import StreamManager

from stream_helpers import TIMEOUT_S, _watchdog  # noqa: F401 - _watchdog: autouse fixture

D2H, H2D, D2D = 2, 1, 3


def addr(obj) -> int:
    return ctypes.addressof(obj)


def malloc(rt, n: int) -> int:
    p = ctypes.c_uint64()
    assert rt.cudaMalloc(addr(p), n) == 0
    return p.value


def gate(mgr: StreamManager, stream: int, per_thread: bool = False) -> threading.Event:
    """Block ``stream`` behind a host function until the returned event is set."""
    ev = threading.Event()
    mgr.add_host_func(stream, lambda: ev.wait(TIMEOUT_S), per_thread)
    return ev


def in_thread(fn, *args) -> tuple[threading.Thread, list]:
    """Run ``fn(*args)`` on a new thread; the list receives its result (or exception)."""
    out: list = []

    def run() -> None:
        try:
            out.append(fn(*args))
        except BaseException as exc:  # noqa: BLE001
            out.append(exc)
    t = threading.Thread(target=run)
    t.start()
    return t, out


def returns_within(fn, *args, seconds: float = 5.0):
    """``fn(*args)`` on a thread; its result if it returns within ``seconds``, else fail."""
    t, out = in_thread(fn, *args)
    t.join(seconds)
    assert not t.is_alive(), f"{getattr(fn, '__name__', fn)} blocked"
    return out[0]


# ----------------------------------------------------------------------------- _ptds entry points
def test_ptds_copy_uses_the_calling_threads_stream(rt):
    """A --default-stream per-thread binary's cudaMemcpy (cudaMemcpy_ptds) waits only for the
    calling thread's per-thread stream: another thread's blocked per-thread stream does not
    hold it up, while the plain (legacy-stream) cudaMemcpy waits for every blocking stream."""
    n = 64
    dev = malloc(rt, n)
    assert rt.cudaMemset(dev, 5, n) == 0
    opened = threading.Event()
    b_gate: list[threading.Event] = []

    def thread_b() -> None:       # thread B blocks its own per-thread default stream
        b_gate.append(gate(rt.streams, 0, per_thread=True))
        opened.set()
    tb, _ = in_thread(thread_b)
    assert opened.wait(TIMEOUT_S)
    tb.join(TIMEOUT_S)
    out = np.zeros(n, np.uint8)

    def copy_and_where() -> tuple[int, str]:
        rc = rt.cudaMemcpy_ptds(out.ctypes.data, dev, n, D2H)
        return rc, rt.streams.get_stream(STREAM_PER_THREAD).last_op.kind
    legacy_before = rt.streams.legacy.last_op
    assert returns_within(copy_and_where) == (0, "memcpy")     # on the caller's own stream
    assert out.tolist() == [5] * n
    assert rt.streams.legacy.last_op is legacy_before          # nothing on the legacy stream
    assert returns_within(rt.cudaMemset_ptds, dev, 9, n) == 0
    assert returns_within(rt.cudaMemcpy2D_ptds, out.ctypes.data, 8, dev, 8, 8, 8, D2H) == 0
    assert out.tolist() == [9] * n
    # the legacy-stream cudaMemcpy must wait for B's blocking per-thread stream
    t, res = in_thread(rt.cudaMemcpy, out.ctypes.data, dev, n, D2H)
    t.join(0.3)
    assert t.is_alive()
    b_gate[0].set()
    t.join(TIMEOUT_S)
    assert res == [0]


def test_ptds_symbol_copies(rt):
    val, back = ctypes.c_int32(1234), ctypes.c_int32(0)
    sym = rt.h.shadow(0)                     # __device__ int dev_counter
    assert rt.cudaMemcpyToSymbol_ptds(sym, addr(val), 4, 0, H2D) == 0
    assert rt.cudaMemcpyFromSymbol_ptds(addr(back), sym, 4, 0, D2H) == 0
    assert back.value == 1234
    assert rt.streams.get_stream(STREAM_PER_THREAD).last_op.kind == "memcpy"
    assert rt.cudaMemcpyFromSymbol_ptds(addr(back), sym, 8, 0, D2H) == Err.InvalidValue


# ----------------------------------------------------------------------------- API synchronization behavior
def test_sync_memset_and_d2d_copy_do_not_wait(rt):
    """cudaMemset of device memory and a device-to-device cudaMemcpy return once enqueued
    (CUDA: asynchronous w.r.t. the host / no host-side synchronisation); copies to the host
    and memsets of pinned memory wait for their own operation."""
    n = 256
    a, b = malloc(rt, n), malloc(rt, n)
    pinned = ctypes.c_uint64()
    assert rt.cudaMallocHost(addr(pinned), n) == 0
    g = gate(rt.streams, 0)                           # the legacy stream is blocked
    assert returns_within(rt.cudaMemset, a, 7, n) == 0
    assert returns_within(rt.cudaMemcpy, b, a, n, D2D) == 0
    assert returns_within(rt.cudaMemset2D, a, 16, 1, 8, 4) == 0
    assert rt.streams.query_stream(0) is False         # all of it still queued
    out = np.zeros(n, np.uint8)
    t_copy, res_copy = in_thread(rt.cudaMemcpy, out.ctypes.data, b, n, D2H)
    t_pin, res_pin = in_thread(rt.cudaMemset, pinned.value, 3, n)
    t_copy.join(0.3)
    t_pin.join(0.01)
    assert t_copy.is_alive() and t_pin.is_alive()     # they wait for their own operation
    g.set()
    t_copy.join(TIMEOUT_S)
    t_pin.join(TIMEOUT_S)
    assert res_copy == [0] and res_pin == [0]
    assert out.tolist() == [7] * n                    # the queued memset and copy ran first
    assert ctypes.string_at(pinned.value, n) == b"\x03" * n


def test_sync_copy_waits_for_its_own_op_not_later_work(rt):
    """A synchronous copy on the legacy stream returns when *its* copy is done, even if
    another thread meanwhile queued work (on a blocking stream) that is still blocked."""
    n = 64
    dev = malloc(rt, n)
    s1, s2 = ctypes.c_uint64(), ctypes.c_uint64()
    assert rt.cudaStreamCreate(addr(s1)) == 0 and rt.cudaStreamCreate(addr(s2)) == 0
    g1 = gate(rt.streams, s1.value)
    src = np.full(n, 4, np.uint8)
    t, res = in_thread(rt.cudaMemcpy, dev, src.ctypes.data, n, H2D)   # waits for s1's gate
    for _ in range(200):
        if rt.streams.legacy.last_op is not None:
            break
        time.sleep(0.005)
    g2 = gate(rt.streams, s2.value)             # queued after the copy, stays blocked
    g1.set()
    t.join(TIMEOUT_S)
    assert not t.is_alive() and res == [0]
    assert rt.streams.query_stream(s2.value) is False
    g2.set()
    assert rt.cudaDeviceSynchronize() == 0


def test_sync_copy_reports_its_own_failure_first():
    """A synchronous copy that fails returns its own error; an earlier asynchronous failure
    stays pending for the next synchronising call (each reported once)."""
    from gpgpusim.functional.memory import GlobalMemory
    from gpgpusim.device.gpu import MemcpyOp

    mgr = StreamManager(Gpu(None, GlobalMemory()))
    bad = mgr.enqueue(0, MemsetOp(0x10, 0, 4))          # fails on the simulation thread
    for _ in range(400):
        if bad.done:
            break
        time.sleep(0.005)
    assert bad.done and bad.error is not None
    out = np.zeros(4, np.uint8)
    with pytest.raises(CudaError) as ei:
        mgr.enqueue(0, MemcpyOp(out, 0x20, 4, D2H), sync=True, what="cudaMemcpy")
    assert ei.value.message == "view: address 0x20 is not device memory"
    with pytest.raises(CudaError) as ei:
        mgr.synchronize_device()
    assert ei.value.message == "view: address 0x10 is not device memory"
    mgr.synchronize_device()
    assert mgr.shutdown(TIMEOUT_S)


# ----------------------------------------------------------------------------- callbacks and errors
def test_callback_runs_after_sticky_error_with_its_status(rt, engine):
    """cudaStreamAddCallback: exactly once, with the error status; cudaLaunchHostFunc: skipped."""
    calls: list[tuple] = []
    cb_t = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
    host_t = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    cb = cb_t(lambda s, status, ud: calls.append(("cb", status, ud)))
    hf = host_t(lambda ud: calls.append(("host", ud)))
    cb_addr = ctypes.cast(cb, ctypes.c_void_p).value
    hf_addr = ctypes.cast(hf, ctypes.c_void_p).value
    s = ctypes.c_uint64()
    assert rt.cudaStreamCreate(addr(s)) == 0
    assert rt.cudaStreamAddCallback(s.value, cb_addr, 1, 0) == 0      # before the fault
    engine.fault = CudaError(Err.IllegalAddress, "illegal address in kern", sticky=True)
    rt.streams.enqueue(s.value, KernelLaunchOp(None, "kern", (1, 1, 1), (32, 1, 1)))
    assert rt.cudaStreamAddCallback(s.value, cb_addr, 2, 0) == 0
    assert rt.cudaLaunchHostFunc(s.value, hf_addr, 3) == 0
    assert rt.cudaStreamAddCallback(s.value, cb_addr, 4, 0) == 0
    assert rt.cudaStreamSynchronize(s.value) == Err.IllegalAddress
    assert rt.streams.shutdown(TIMEOUT_S)
    assert calls == [("cb", 0, 1), ("cb", 700, 2), ("cb", 700, 4)]


def test_host_func_exception_is_reported_without_traceback(monkeypatch, capsys):
    monkeypatch.delenv("GPGPUSIM_TRACEBACK", raising=False)
    mgr = StreamManager(Gpu(None, None))

    def boom() -> None:
        raise RuntimeError("callback bridge broke")
    mgr.add_host_func(0, boom)
    with pytest.raises(CudaError) as ei:
        mgr.synchronize_device()
    assert ei.value.code == Err.Unknown
    assert ei.value.message == ("stream host function: internal simulator error: RuntimeError: "
                                "callback bridge broke")
    err = capsys.readouterr().err
    assert err == f"gpgpusim: {ei.value.message}\n"
    assert mgr.shutdown(TIMEOUT_S)


# ----------------------------------------------------------------------------- GPGPUSIM_TRACEBACK
@pytest.mark.parametrize("traceback_on", [False, True])
def test_internal_errors_traceback_only_when_asked(monkeypatch, capsys, traceback_on):
    """Simulator bugs caught on the simulation thread (an operation, a kernel in the engine)
    print one line; the Python traceback only with GPGPUSIM_TRACEBACK=1."""
    if traceback_on:
        monkeypatch.setenv("GPGPUSIM_TRACEBACK", "1")
    else:
        monkeypatch.delenv("GPGPUSIM_TRACEBACK", raising=False)

    def engine_bug(*args, **kw):
        raise ZeroDivisionError("engine bug")
    gpu = Gpu(None, None, launch_fn=engine_bug)
    gpu.memset = lambda op: [][1]                          # type: ignore[method-assign]
    mgr = StreamManager(gpu)
    mgr.enqueue(0, MemsetOp(0x1000, 0, 4))
    with pytest.raises(CudaError) as ei:
        mgr.synchronize_device()
    assert ei.value.code == Err.Unknown
    assert ei.value.message == "memset: internal simulator error: IndexError: list index out of range"
    mgr.enqueue(0, KernelLaunchOp(None, "k", (1, 1, 1), (32, 1, 1)))
    with pytest.raises(CudaError) as ei:
        mgr.synchronize_device()
    assert ei.value.code == Err.LaunchFailure and ei.value.sticky
    assert ei.value.message == "kernel 'k': internal simulator error: ZeroDivisionError: engine bug"
    assert mgr.shutdown(TIMEOUT_S)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("gpgpusim:")]
    assert lines == ["gpgpusim: memset: internal simulator error: IndexError: list index out of range",
                     "gpgpusim: kernel 'k': internal simulator error: ZeroDivisionError: engine bug"]
    if traceback_on:
        assert err.count("Traceback (most recent call last)") == 2
        assert 'in engine_bug\n    raise ZeroDivisionError("engine bug")' in err
    else:
        assert "Traceback" not in err and len(err.splitlines()) == 2


# ----------------------------------------------------------------------------- capture modes
class CaptureEnv:
    def __init__(self, rt) -> None:
        self.rt = rt
        self.mgr = rt.streams
        s = ctypes.c_uint64()
        assert rt.cudaStreamCreateWithFlags(addr(s), STREAM_NON_BLOCKING) == 0
        self.s = s.value

    def begin(self, mode: int = CAPTURE_MODE_GLOBAL) -> None:
        assert self.rt.cudaStreamBeginCapture(self.s, mode) == 0

    def status(self) -> int:
        return self.mgr.is_capturing(self.s)

    def end(self) -> int:
        g = ctypes.c_uint64()
        return self.rt.cudaStreamEndCapture(self.s, addr(g))

    def malloc(self) -> int:
        p = ctypes.c_uint64()
        rc = self.rt.cudaMalloc(addr(p), 64)
        if rc == 0:
            assert self.rt.cudaFree(p.value) == 0
        return rc


def exchange(rt, mode: int) -> int:
    m = ctypes.c_int(mode)
    assert rt.cudaThreadExchangeStreamCaptureMode(addr(m)) == 0
    return m.value


def test_malloc_during_global_capture_fails_and_invalidates(rt):
    env = CaptureEnv(rt)
    env.begin(CAPTURE_MODE_GLOBAL)
    assert env.malloc() == Err.StreamCaptureUnsupported
    assert env.status() == CAPTURE_STATUS_INVALIDATED
    assert env.end() == Err.StreamCaptureInvalidated
    assert env.malloc() == 0                                   # no capture: allowed again


def test_relaxed_thread_mode_allows_unsafe_calls(rt):
    env = CaptureEnv(rt)
    env.begin(CAPTURE_MODE_GLOBAL)
    assert exchange(rt, CAPTURE_MODE_RELAXED) == CAPTURE_MODE_GLOBAL
    assert env.malloc() == 0
    assert exchange(rt, CAPTURE_MODE_GLOBAL) == CAPTURE_MODE_RELAXED
    assert env.status() == CAPTURE_STATUS_ACTIVE
    assert env.end() == 0
    bad = ctypes.c_int(7)
    assert rt.cudaThreadExchangeStreamCaptureMode(addr(bad)) == Err.InvalidValue


def test_other_threads_by_their_mode(rt):
    """Another thread's global capture prohibits this thread in global mode only; a
    thread-local or relaxed capture never prohibits other threads."""
    env = CaptureEnv(rt)
    for cap_mode, other_mode, expect in (
            (CAPTURE_MODE_GLOBAL, CAPTURE_MODE_GLOBAL, Err.StreamCaptureUnsupported),
            (CAPTURE_MODE_GLOBAL, CAPTURE_MODE_THREAD_LOCAL, 0),
            (CAPTURE_MODE_GLOBAL, CAPTURE_MODE_RELAXED, 0),
            (CAPTURE_MODE_THREAD_LOCAL, CAPTURE_MODE_GLOBAL, 0),
            (CAPTURE_MODE_RELAXED, CAPTURE_MODE_GLOBAL, 0)):
        env.begin(cap_mode)

        def other(mode: int = other_mode) -> int:
            exchange(rt, mode)
            return env.malloc()
        assert returns_within(other) == expect, (cap_mode, other_mode)
        if expect:
            assert env.status() == CAPTURE_STATUS_INVALIDATED
            assert env.end() == Err.StreamCaptureInvalidated
        else:
            assert env.status() == CAPTURE_STATUS_ACTIVE
            assert env.end() == 0


def test_own_capture_by_its_mode(rt):
    """This thread's own capture prohibits it unless the capture was begun relaxed (or the
    thread is in relaxed mode)."""
    env = CaptureEnv(rt)
    for cap_mode, expect in ((CAPTURE_MODE_THREAD_LOCAL, Err.StreamCaptureUnsupported),
                             (CAPTURE_MODE_RELAXED, 0)):
        env.begin(cap_mode)
        assert env.malloc() == expect
        assert env.end() == (Err.StreamCaptureInvalidated if expect else 0)


def test_device_sync_and_sync_copies_during_capture(rt):
    """cudaDeviceSynchronize, synchronous cudaMemcpy/cudaMemset are potentially unsafe even
    while only a non-blocking stream captures; cudaStreamQuery on the capturing stream
    invalidates the capture; asynchronous work elsewhere is fine."""
    env = CaptureEnv(rt)
    dev = malloc(rt, 64)
    out = np.zeros(64, np.uint8)
    for call in (rt.cudaDeviceSynchronize,
                 lambda: rt.cudaMemcpy(out.ctypes.data, dev, 64, D2H),
                 lambda: rt.cudaMemset(dev, 0, 64),
                 lambda: rt.cudaStreamQuery(env.s)):
        env.begin()
        assert rt.cudaMemsetAsync(dev, 1, 64, env.s) == 0          # captured: fine
        assert call() == Err.StreamCaptureUnsupported
        assert env.status() == CAPTURE_STATUS_INVALIDATED
        assert env.end() == Err.StreamCaptureInvalidated
    assert rt.cudaDeviceSynchronize() == 0


def test_add_callback_is_not_allowed_in_capture(rt):
    env = CaptureEnv(rt)
    cb_t = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
    host_t = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    cb, hf = cb_t(lambda s, st, ud: None), host_t(lambda ud: None)
    env.begin()
    assert rt.cudaLaunchHostFunc(env.s, ctypes.cast(hf, ctypes.c_void_p).value, 0) == 0
    assert env.status() == CAPTURE_STATUS_ACTIVE
    assert rt.cudaStreamAddCallback(env.s, ctypes.cast(cb, ctypes.c_void_p).value, 0, 0) \
        == Err.StreamCaptureUnsupported
    assert env.status() == CAPTURE_STATUS_INVALIDATED
    assert env.end() == Err.StreamCaptureInvalidated


# ----------------------------------------------------------------------------- exit
def test_exit_drains_and_joins_the_simulation_thread(rt, engine):
    """Runtime.exit with work outstanding on two streams and a host function: everything
    runs, then the simulation thread is stopped and joined."""
    mgr = rt.streams
    a, b = ctypes.c_uint64(), ctypes.c_uint64()
    assert rt.cudaStreamCreate(addr(a)) == 0
    assert rt.cudaStreamCreateWithFlags(addr(b), STREAM_NON_BLOCKING) == 0
    g = gate(mgr, a.value)
    ran: list[str] = []
    for i in range(3):
        mgr.enqueue(a.value, KernelLaunchOp(None, f"a{i}", (1, 1, 1), (32, 1, 1)))
        mgr.enqueue(b.value, KernelLaunchOp(None, f"b{i}", (1, 1, 1), (32, 1, 1)))
    mgr.add_host_func(a.value, lambda: ran.append("host"))
    sim = mgr._thread
    assert sim is not None and sim.is_alive()
    t, res = in_thread(rt.exit)
    t.join(0.2)
    assert t.is_alive()                                # still draining the gated stream
    g.set()
    t.join(TIMEOUT_S)
    assert res == [None] and not sim.is_alive()
    assert ran == ["host"]
    assert sorted(c[0] for c in engine.calls) == ["a0", "a1", "a2", "b0", "b1", "b2"]
    assert rt.cudaLaunchHostFunc(0, 1, 0) == Err.CudartUnloading     # the runtime is closed


def test_destroying_the_capturing_stream_ends_its_capture(rt):
    """A capture whose origin stream is destroyed can never be ended: it is dropped, so it
    does not prohibit unsafe calls for the rest of the run; a destroyed forked stream only
    invalidates the capture it joined."""
    env = CaptureEnv(rt)
    env.begin()
    assert rt.cudaStreamDestroy(env.s) == 0
    assert env.malloc() == 0
    env = CaptureEnv(rt)
    fork, ev = ctypes.c_uint64(), ctypes.c_uint64()
    assert rt.cudaStreamCreateWithFlags(addr(fork), STREAM_NON_BLOCKING) == 0
    assert rt.cudaEventCreate(addr(ev)) == 0
    env.begin()
    assert rt.cudaEventRecord(ev.value, env.s) == 0
    assert rt.cudaStreamWaitEvent(fork.value, ev.value, 0) == 0      # fork joins the capture
    assert rt.streams.is_capturing(fork.value) == CAPTURE_STATUS_ACTIVE
    assert rt.cudaStreamDestroy(fork.value) == 0
    assert env.status() == CAPTURE_STATUS_INVALIDATED
    assert env.end() == Err.StreamCaptureInvalidated
    assert env.malloc() == 0


def test_refused_3d_calls_queue_no_slice(rt):
    """A synchronous cudaMemcpy3D / cudaMemset3D refused during capture does nothing at all:
    the check comes before the first of its per-slice operations is queued."""
    from tests.runtime.test_api import _parms

    env = CaptureEnv(rt)
    w, h, d = 8, 2, 3
    pp = ctypes.create_string_buffer(32)
    ext = ctypes.create_string_buffer(struct.pack("<3Q", w, h, d), 24)
    assert rt.gs_malloc3d(addr(pp), addr(ext)) == 0
    ptr, pitch, _x, ysize = struct.unpack("<4Q", pp.raw)
    assert rt.gs_memset3d(addr(pp), 0x22, addr(ext), 0, 0) == 0
    host = np.arange(w * h * d, dtype=np.uint8)
    parms = _parms(host.ctypes.data, w, h, ptr, pitch, ysize, (w, h, d), H2D)
    for call in (lambda: rt.cudaMemcpy3D(addr(parms)),
                 lambda: rt.gs_memset3d(addr(pp), 0x33, addr(ext), 0, 0)):
        env.begin()
        assert call() == Err.StreamCaptureUnsupported
        assert env.end() == Err.StreamCaptureInvalidated
    assert rt.cudaDeviceSynchronize() == 0
    back = np.zeros(pitch * ysize * d, dtype=np.uint8)
    assert rt.cudaMemcpy(back.ctypes.data, ptr, back.size, D2H) == 0
    assert (back.reshape(d, ysize, pitch)[:, :h, :w] == 0x22).all()
