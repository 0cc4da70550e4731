"""Stream manager semantics with a fake kernel launcher (no functional engine needed)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from gpgpusim.errors import CudaError, Err
from gpgpusim.device.gpu import (
    FreeOp,
    Gpu,
    KernelLaunchOp,
    Memcpy2DOp,
    MemcpyKind,
    MemcpyOp,
    MemsetOp,
    estimate_cycles,
)
from gpgpusim.runtime.stream_state import (
    EVENT_DISABLE_TIMING,
    PRIORITY_GREATEST,
    STREAM_NON_BLOCKING,
    STREAM_PER_THREAD,
)
from gpgpusim.runtime.streams import StreamManager

from stream_helpers import TIMEOUT_S, FakeStats, _watchdog  # noqa: F401 - _watchdog: autouse fixture


class FakeLauncher:
    """Stands in for ``engine.launch``: logs the order of kernels, can fault on demand."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.fail: dict[str, CudaError] = {}

    def __call__(self, module, kernel, grid, block, smem, params, *, gmem, **kw):
        self.log.append(kernel)
        if kernel in self.fail:
            raise self.fail[kernel]
        return FakeStats(warp_insn=grid[0] * 1000)


class FakeMem:
    """Minimal GlobalMemory: one 4 KiB allocation at 0x1000."""

    def __init__(self) -> None:
        self.buf = np.zeros(4096, np.uint8)
        self.freed: list[int] = []

    def find(self, addr):
        return (0x1000, 4096) if 0x1000 <= addr < 0x2000 else None

    def _check(self, addr, n):
        if self.find(addr) is None or addr + n > 0x2000:
            raise CudaError(Err.InvalidValue, f"bad device range {addr:#x}+{n}")

    def view(self, addr, n):
        self._check(addr, n)
        return self.buf[addr - 0x1000: addr - 0x1000 + n]

    def write(self, addr, data):
        arr = np.asarray(data).view(np.uint8).reshape(-1)
        self.view(addr, arr.size)[:] = arr

    def free(self, addr):
        self.freed.append(addr)


@pytest.fixture
def env():
    launcher = FakeLauncher()
    gpu = Gpu(None, FakeMem(), launch_fn=launcher)
    mgr = StreamManager(gpu)
    yield mgr, gpu, launcher
    assert mgr.shutdown(TIMEOUT_S), "simulation thread did not drain"


def kernel(name: str, blocks: int = 1) -> KernelLaunchOp:
    return KernelLaunchOp(None, name, (blocks, 1, 1), (32, 1, 1))


def gate(mgr: StreamManager, stream: int, log: list[str] | None = None, tag: str = "gate"):
    """Block ``stream`` behind a host function until the returned event is set."""
    ev = threading.Event()

    def fn() -> None:
        assert ev.wait(TIMEOUT_S), "gate never opened"
        if log is not None:
            log.append(tag)
    mgr.add_host_func(stream, fn)
    return ev


def test_single_stream_runs_in_order_with_copies(env):
    mgr, gpu, launcher = env
    s = mgr.create_stream()
    src = np.arange(8, dtype=np.int32)
    out = np.zeros(8, np.int32)
    mgr.enqueue(s, MemcpyOp(0x1000, src, 32, MemcpyKind.HostToDevice))
    mgr.enqueue(s, kernel("a"))
    mgr.enqueue(s, MemsetOp(0x1010, 0x7F, 4))
    mgr.enqueue(s, MemcpyOp(out, 0x1000, 32, MemcpyKind.Default))
    mgr.synchronize_stream(s)
    assert launcher.log == ["a"]
    assert out.tolist() == [0, 1, 2, 3, 0x7F7F7F7F, 5, 6, 7]
    assert [k.stream_id for k in gpu.kernels] == [mgr.get_stream(s).uid] == [1]


def test_memcpy2d_and_device_to_device(env):
    mgr, gpu, _ = env
    host = np.arange(12, dtype=np.uint8)           # 3 rows, pitch 4, width 3
    mgr.enqueue(0, Memcpy2DOp(0x1000, 8, host, 4, 3, 3, MemcpyKind.HostToDevice))
    mgr.enqueue(0, MemcpyOp(0x1100, 0x1000, 24, MemcpyKind.DeviceToDevice))
    mgr.synchronize_device()
    assert gpu.gmem.buf[0x100:0x118].tolist() == [0, 1, 2, 0, 0, 0, 0, 0,
                                                  4, 5, 6, 0, 0, 0, 0, 0,
                                                  8, 9, 10, 0, 0, 0, 0, 0]


def test_query_not_ready_until_gate_opens(env):
    mgr, _, launcher = env
    s = mgr.create_stream()
    ev = mgr.create_event()
    g = gate(mgr, s)
    mgr.enqueue(s, kernel("k"))
    mgr.record_event(ev, s)
    assert mgr.query_stream(s) is False
    assert mgr.query_event(ev) is False
    assert launcher.log == []
    g.set()
    mgr.synchronize_event(ev)
    assert mgr.query_event(ev) is True
    assert mgr.query_stream(s) is True
    assert launcher.log == ["k"]


def test_legacy_stream_waits_for_blocking_streams(env):
    mgr, _, launcher = env
    s = mgr.create_stream()
    g = gate(mgr, s)
    mgr.enqueue(s, kernel("s_before"))
    mgr.enqueue(0, kernel("legacy"))          # must wait for s's earlier work
    mgr.enqueue(s, kernel("s_after"))         # must wait for the legacy kernel
    time.sleep(0.05)
    assert launcher.log == []
    g.set()
    mgr.synchronize_device()
    assert launcher.log == ["s_before", "legacy", "s_after"]


def test_non_blocking_stream_is_not_ordered_by_legacy(env):
    mgr, _, launcher = env
    nb = mgr.create_stream(STREAM_NON_BLOCKING)
    g = gate(mgr, 0)                          # legacy stream blocked
    mgr.enqueue(nb, kernel("nb"))
    mgr.synchronize_stream(nb)                # completes although legacy is blocked
    assert launcher.log == ["nb"]
    assert mgr.query_stream(0) is False
    g.set()
    mgr.synchronize_stream(0)


def test_legacy_sync_waits_for_blocking_streams(env):
    mgr, _, launcher = env
    s = mgr.create_stream()
    g = gate(mgr, s)
    mgr.enqueue(s, kernel("k"))
    assert mgr.query_stream(0) is False        # legacy barrier covers blocking streams
    g.set()
    mgr.synchronize_stream(0)
    assert launcher.log == ["k"]


def test_stream_wait_event_orders_across_streams(env):
    mgr, _, launcher = env
    a = mgr.create_stream(STREAM_NON_BLOCKING)
    b = mgr.create_stream(STREAM_NON_BLOCKING)
    ev = mgr.create_event()
    g = gate(mgr, a)
    mgr.enqueue(a, kernel("producer"))
    mgr.record_event(ev, a)
    mgr.stream_wait_event(b, ev)
    mgr.enqueue(b, kernel("consumer"))
    mgr.enqueue(b, kernel("consumer2"))
    time.sleep(0.05)
    assert launcher.log == []
    g.set()
    mgr.synchronize_stream(b)
    assert launcher.log == ["producer", "consumer", "consumer2"]


def test_wait_on_unrecorded_event_is_noop(env):
    mgr, _, launcher = env
    s = mgr.create_stream()
    ev = mgr.create_event()
    mgr.stream_wait_event(s, ev)
    mgr.enqueue(s, kernel("k"))
    mgr.synchronize_stream(s)
    assert launcher.log == ["k"]


def test_event_elapsed_is_simulated_time(env):
    mgr, gpu, _ = env
    s = mgr.create_stream()
    e0, e1 = mgr.create_event(), mgr.create_event()
    mgr.record_event(e0, s)
    mgr.enqueue(s, kernel("k", blocks=64))     # 64,000 warp insns
    mgr.record_event(e1, s)
    mgr.synchronize_event(e1)
    cycles = estimate_cycles(64_000, 80, 4)
    assert cycles == 1 + 200
    assert mgr.event_time_cycles(e1) - mgr.event_time_cycles(e0) == cycles
    assert mgr.elapsed_ms(e0, e1) == pytest.approx(cycles / (1132.0 * 1e3))
    assert mgr.elapsed_ms(e0, e1) > 0


def test_elapsed_errors(env):
    mgr, _, _ = env
    s = mgr.create_stream()
    e0, e1 = mgr.create_event(), mgr.create_event()
    nt = mgr.create_event(EVENT_DISABLE_TIMING)
    with pytest.raises(CudaError) as ei:
        mgr.elapsed_ms(e0, e1)
    assert ei.value.code == Err.InvalidResourceHandle
    g = gate(mgr, s)
    mgr.record_event(e0, s)
    mgr.record_event(e1, s)
    mgr.record_event(nt, s)
    with pytest.raises(CudaError) as ei:
        mgr.elapsed_ms(e0, e1)
    assert ei.value.code == Err.NotReady
    g.set()
    mgr.synchronize_stream(s)
    assert mgr.elapsed_ms(e0, e1) == 0.0
    with pytest.raises(CudaError) as ei:
        mgr.elapsed_ms(e0, nt)
    assert ei.value.code == Err.InvalidResourceHandle


def test_bad_handles(env):
    mgr, _, _ = env
    ev = mgr.create_event()
    for call in (lambda: mgr.synchronize_stream(0x1234),
                 lambda: mgr.query_stream(ev),            # an event is not a stream
                 lambda: mgr.enqueue(0x1234, kernel("x")),
                 lambda: mgr.query_event(0x1234),
                 lambda: mgr.destroy_stream(0)):
        with pytest.raises(CudaError) as ei:
            call()
        assert ei.value.code == Err.InvalidResourceHandle
    mgr.destroy_event(ev)
    with pytest.raises(CudaError) as ei:
        mgr.record_event(ev, 0)
    assert ei.value.code == Err.InvalidResourceHandle
    with pytest.raises(CudaError) as ei:
        mgr.create_stream(flags=8)
    assert ei.value.code == Err.InvalidValue


def test_destroy_stream_with_pending_work_still_runs_it(env):
    mgr, _, launcher = env
    s = mgr.create_stream()
    g = gate(mgr, s)
    mgr.enqueue(s, kernel("pending"))
    mgr.destroy_stream(s)
    with pytest.raises(CudaError):
        mgr.query_stream(s)
    g.set()
    mgr.synchronize_device()
    assert launcher.log == ["pending"]


def test_sticky_error_poisons_all_streams(env):
    mgr, _, launcher = env
    a = mgr.create_stream()
    b = mgr.create_stream(STREAM_NON_BLOCKING)
    launcher.fail["bad"] = CudaError(Err.IllegalAddress, "illegal address in 'bad'", sticky=True)
    g = gate(mgr, b)
    mgr.enqueue(b, kernel("never"))
    mgr.enqueue(a, kernel("bad"))
    with pytest.raises(CudaError) as ei:
        mgr.synchronize_stream(a)
    assert ei.value.code == Err.IllegalAddress
    g.set()
    mgr.enqueue(a, kernel("later"))   # asynchronous calls never report the fault (determinism)
    for call in (lambda: mgr.synchronize_stream(b), mgr.synchronize_device,
                 lambda: mgr.query_stream(b), lambda: mgr.synchronize_stream(a)):
        with pytest.raises(CudaError) as ei:
            call()
        assert ei.value.code == Err.IllegalAddress
    mgr.shutdown(TIMEOUT_S)
    assert launcher.log == ["bad"]                 # "never" and "later" were dropped, not run


def test_non_sticky_async_error_reported_once(env):
    mgr, _, _ = env
    s = mgr.create_stream()
    mgr.enqueue(s, MemcpyOp(np.zeros(4, np.uint8), 0x9000, 4, MemcpyKind.DeviceToHost))
    with pytest.raises(CudaError) as ei:
        mgr.synchronize_stream(s)
    assert ei.value.code == Err.InvalidValue
    mgr.synchronize_stream(s)                      # reported once, then cleared


def test_host_func_may_not_call_the_api(env):
    mgr, _, _ = env
    seen: list[int] = []

    def fn() -> None:
        try:
            mgr.synchronize_device()
        except CudaError as exc:
            seen.append(exc.code)
    mgr.add_host_func(0, fn)
    mgr.synchronize_device()
    assert seen == [Err.NotPermitted]


def test_blocked_host_func_stalls_only_its_stream(env):
    mgr, _, launcher = env
    a = mgr.create_stream(STREAM_NON_BLOCKING)
    b = mgr.create_stream(STREAM_NON_BLOCKING)
    g = gate(mgr, a)
    mgr.enqueue(b, kernel("b"))
    mgr.synchronize_stream(b)
    assert launcher.log == ["b"]
    g.set()


def test_priority_picks_urgent_stream_first(env):
    mgr, _, launcher = env
    lo = mgr.create_stream(STREAM_NON_BLOCKING, priority=0)
    hi = mgr.create_stream(STREAM_NON_BLOCKING, priority=-100)   # clamped
    assert mgr.get_stream(hi).priority == PRIORITY_GREATEST
    g = gate(mgr, 0)
    ev = mgr.create_event()
    mgr.record_event(ev, 0)
    for s, name in ((lo, "lo"), (hi, "hi")):
        mgr.stream_wait_event(s, ev)
        mgr.enqueue(s, kernel(name))
    g.set()
    mgr.synchronize_device()
    assert launcher.log == ["hi", "lo"]


def test_per_thread_default_stream_is_per_thread(env):
    mgr, _, launcher = env
    handles = {}

    def worker(i: int) -> None:
        st = mgr.get_stream(STREAM_PER_THREAD)
        handles[i] = st.handle
        for j in range(3):
            mgr.enqueue(STREAM_PER_THREAD, kernel(f"t{i}k{j}"))
        mgr.synchronize_stream(0, per_thread=True)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT_S)
        assert not t.is_alive()
    assert len(set(handles.values())) == 4
    assert len(launcher.log) == 12
    for i in range(4):
        mine = [k for k in launcher.log if k.startswith(f"t{i}")]
        assert mine == [f"t{i}k0", f"t{i}k1", f"t{i}k2"]


def test_many_host_threads_own_streams_no_deadlock(env):
    mgr, gpu, _ = env
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            s = mgr.create_stream()
            out = np.zeros(4, np.uint8)
            for _ in range(20):
                mgr.enqueue(s, MemsetOp(0x1000 + 16 * i, i, 4))
                mgr.enqueue(s, kernel(f"w{i}"))
                mgr.enqueue(s, MemcpyOp(out, 0x1000 + 16 * i, 4, MemcpyKind.DeviceToHost))
                mgr.synchronize_stream(s)
                assert out.tolist() == [i] * 4
            mgr.destroy_stream(s)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT_S)
        assert not t.is_alive(), "deadlock"
    assert errors == []
    assert len(gpu.kernels) == 120


def test_shutdown_drains_outstanding_work():
    launcher = FakeLauncher()
    gpu = Gpu(None, FakeMem(), launch_fn=launcher)
    mgr = StreamManager(gpu)
    s = mgr.create_stream()
    g = gate(mgr, s)
    for i in range(5):
        mgr.enqueue(s, kernel(f"k{i}"))
    threading.Timer(0.05, g.set).start()
    assert mgr.shutdown(TIMEOUT_S) is True
    assert launcher.log == [f"k{i}" for i in range(5)]
    with pytest.raises(CudaError) as ei:
        mgr.enqueue(s, kernel("late"))
    assert ei.value.code == Err.CudartUnloading


def test_shutdown_times_out_instead_of_hanging():
    gpu = Gpu(None, FakeMem(), launch_fn=FakeLauncher())
    mgr = StreamManager(gpu)
    g = gate(mgr, 0)
    assert mgr.shutdown(0.1) is False
    g.set()
    assert mgr.shutdown(TIMEOUT_S) is True


def test_free_async_happens_in_stream_order(env):
    mgr, gpu, _ = env
    s = mgr.create_stream()
    g = gate(mgr, s)
    mgr.enqueue(s, FreeOp(0x1000))
    assert gpu.gmem.freed == []
    g.set()
    mgr.synchronize_stream(s)
    assert gpu.gmem.freed == [0x1000]


def test_concurrent_kernel_slots_respected(env):
    mgr, gpu, launcher = env
    gpu.max_concurrent_kernel = 1
    streams = [mgr.create_stream(STREAM_NON_BLOCKING) for _ in range(3)]
    starts: list[int] = []
    real_start = gpu.start_kernel

    def spy(op, sid=None):
        assert gpu.can_start_kernel()
        starts.append(op.stream_id)
        return real_start(op, sid)
    gpu.start_kernel = spy  # type: ignore[method-assign]
    for s in streams:
        mgr.enqueue(s, kernel("k"))
    mgr.synchronize_device()
    assert sorted(starts) == [1, 2, 3]                # the streams' ids (cudaStreamGetId)
    assert [k.uid for k in gpu.kernels] == [1, 2, 3]
    assert all(k.end_cycles > k.start_cycles for k in gpu.kernels)


def test_pcie_model_advances_clock_for_host_copies(monkeypatch):
    monkeypatch.setenv("GPGPUSIM_PCIE", "10:2")          # 10 GB/s, 2 us
    gpu = Gpu(None, FakeMem(), launch_fn=FakeLauncher())
    assert (gpu.pcie_bandwidth_gbps, gpu.pcie_latency_us) == (10.0, 2.0)
    mgr = StreamManager(gpu)
    e0, e1 = mgr.create_event(), mgr.create_event()
    mgr.record_event(e0, 0)
    mgr.enqueue(0, MemcpyOp(0x1000, np.zeros(1000, np.uint8), 1000, MemcpyKind.HostToDevice))
    mgr.enqueue(0, MemcpyOp(0x1400, 0x1000, 1000, MemcpyKind.DeviceToDevice))   # on-device: free
    mgr.record_event(e1, 0)
    mgr.synchronize_device()
    # 2 us + 1000 B / 10 GB/s = 2.1 us = 2377.2 -> 2378 cycles at 1132 MHz
    assert mgr.event_time_cycles(e1) - mgr.event_time_cycles(e0) == 2378
    assert mgr.shutdown(TIMEOUT_S)
    monkeypatch.setenv("GPGPUSIM_PCIE", "fast")
    with pytest.raises(CudaError) as ei:
        Gpu(None, FakeMem())
    assert ei.value.code == Err.InvalidValue and "GPGPUSIM_PCIE" in ei.value.message


def test_pcie_model_off_by_default(env):
    mgr, gpu, _ = env
    assert gpu.pcie_bandwidth_gbps is None
    mgr.enqueue(0, MemcpyOp(0x1000, np.zeros(1000, np.uint8), 1000, MemcpyKind.HostToDevice))
    mgr.synchronize_device()
    assert gpu.now_cycles == 0


def test_sticky_error_drops_kernels_already_in_slots(env):
    mgr, gpu, launcher = env
    g_stream = mgr.create_stream(STREAM_NON_BLOCKING)
    a = mgr.create_stream(STREAM_NON_BLOCKING)
    b = mgr.create_stream(STREAM_NON_BLOCKING)
    launcher.fail["bad"] = CudaError(Err.IllegalAddress, "fault", sticky=True)
    go = gate(mgr, g_stream)
    ev = mgr.create_event()
    mgr.record_event(ev, g_stream)
    for s, name in ((a, "bad"), (b, "other")):
        mgr.stream_wait_event(s, ev)
        mgr.enqueue(s, kernel(name))
    go.set()                      # both kernels become ready together and both take a slot
    with pytest.raises(CudaError):
        mgr.synchronize_device()
    assert [k.name for k in gpu.kernels] == ["bad", "other"]
    assert launcher.log == ["bad"]                 # "other" was in a slot but never simulated


def test_completed_ops_release_their_predecessors(env):
    import gc
    import weakref
    mgr, _, _ = env
    s = mgr.create_stream()
    g = gate(mgr, s)                              # keep everything pending so deps are recorded
    first = MemsetOp(0x1000, 0, 4)               # (kernel ops stay referenced by gpu.kernels)
    ref = weakref.ref(first)
    mgr.enqueue(s, first)
    del first
    for i in range(5):
        mgr.enqueue(0, kernel(f"legacy{i}"))      # each depends on s's tail, s's next on it
        mgr.enqueue(s, kernel(f"s{i}"))
    g.set()
    mgr.synchronize_device()
    gc.collect()
    assert ref() is None


def test_config_sets_clock_sms_issue_rate_and_launch_latency():
    from gpgpusim.options import load_config
    cfg = load_config(None, ["-gpgpu_clock_domains", "1000.0:1000.0:1000.0:850.0",
                             "-gpgpu_n_clusters", "10", "-gpgpu_num_sched_per_core", "2",
                             "-gpgpu_kernel_launch_latency", "500",
                             "-gpgpu_max_concurrent_kernel", "8"], env=False)
    gpu = Gpu(cfg, FakeMem(), launch_fn=FakeLauncher())
    assert (gpu.core_mhz, gpu.n_sm, gpu.issue_per_sm) == (1000.0, 10, 2)
    assert (gpu.launch_latency_cycles, gpu.max_concurrent_kernel) == (500, 8)
    mgr = StreamManager(gpu)
    mgr.enqueue(0, kernel("k", blocks=3))        # 3000 warp insns / (10 SMs x 2) = 150 cycles
    mgr.synchronize_device()
    assert gpu.now_cycles == 500 + 150 == estimate_cycles(3000, 10, 2, 500)
    assert gpu.now_ms == pytest.approx(650 / 1e6)
    assert mgr.shutdown(TIMEOUT_S)


def test_dump_state_names_blocked_streams(env):
    mgr, _, _ = env
    s = mgr.create_stream()
    g = gate(mgr, s)
    mgr.enqueue(s, kernel("k"))
    mgr.enqueue(0, kernel("legacy"))
    time.sleep(0.05)
    lines = mgr.dump_state()
    assert lines[0] == "GPU at cycle 0; host functions running: 1; sticky error: none"
    assert lines[1] == "stream legacy: 1 op(s); head kernel 'legacy' grid=(1, 1, 1) block=(32, 1, 1) waiting on 1 op(s)"
    assert lines[2] == f"stream {s:#x}: 2 op(s); head host_func running"
    g.set()
    mgr.synchronize_device()
    assert mgr.dump_state()[1:] == []


class OverlapGpu(Gpu):
    """A stand-in timing model: kernels run side by side, each taking ``duration[name]`` cycles
    from its start; ``advance()`` jumps to the earliest end (the interface the timing model
    implements)."""

    duration = {"long": 1000, "short": 100, "after": 50}

    def advance(self):
        end = min(r.start_cycles + self.duration[r.name] for r in self._running)
        done = [r for r in self._running if r.start_cycles + self.duration[r.name] == end]
        self._running = [r for r in self._running if r not in done]
        self.now_cycles = end
        for r in done:
            r.end_cycles = end
        return done


def test_timing_model_interface_runs_kernels_side_by_side():
    gpu = OverlapGpu(None, FakeMem(), launch_fn=FakeLauncher())
    mgr = StreamManager(gpu)
    s1 = mgr.create_stream(STREAM_NON_BLOCKING)
    s2 = mgr.create_stream(STREAM_NON_BLOCKING)
    e_start, e1, e2 = (mgr.create_event() for _ in range(3))
    go = gate(mgr, 0)
    mgr.record_event(e_start, 0)
    for s, name, ev in ((s1, "long", e1), (s2, "short", e2)):
        mgr.stream_wait_event(s, e_start)
        mgr.enqueue(s, kernel(name))
        mgr.record_event(ev, s)
    mgr.enqueue(s2, kernel("after"))             # starts when "short" ends, overlaps "long"
    go.set()
    mgr.synchronize_device()
    assert mgr.event_time_cycles(e2) == 100      # s2 did not wait for s1's long kernel
    assert mgr.event_time_cycles(e1) == 1000
    assert [(k.name, k.start_cycles, k.end_cycles) for k in gpu.kernels] == [
        ("long", 0, 1000), ("short", 0, 100), ("after", 100, 150)]
    assert mgr.elapsed_ms(e_start, e1) == pytest.approx(1000 / 1132e3)
    assert mgr.shutdown(TIMEOUT_S)


def test_pageable_copies_follow_cuda_staging_rules():
    from gpgpusim.functional.memory import GlobalMemory
    gmem = GlobalMemory()
    gpu = Gpu(None, gmem, launch_fn=FakeLauncher())
    mgr = StreamManager(gpu)
    s = mgr.create_stream()
    dev = gmem.allocate(16)
    pageable = np.full(16, 7, np.uint8)
    pinned_buf = np.full(16, 5, np.uint8)
    pinned = gmem.map_host(pinned_buf)          # what cudaMallocHost does
    g = gate(mgr, s)
    # H2D from pageable memory: staged at the call, the buffer may be reused at once
    mgr.enqueue(s, MemcpyOp(dev, pageable.ctypes.data, 16, MemcpyKind.HostToDevice))
    pageable[:] = 9
    g.set()
    mgr.synchronize_stream(s)
    assert gmem.read(dev, 16).tolist() == [7] * 16
    # H2D from pinned memory: truly asynchronous, read when the stream gets there
    g = gate(mgr, s)
    mgr.enqueue(s, MemcpyOp(dev, pinned, 16, MemcpyKind.HostToDevice))
    pinned_buf[:] = 6
    g.set()
    mgr.synchronize_stream(s)
    assert gmem.read(dev, 16).tolist() == [6] * 16
    # D2H into pageable memory: the call returns only once the copy is done
    g = gate(mgr, s)
    out = np.zeros(16, np.uint8)
    t = threading.Thread(target=mgr.enqueue,
                         args=(s, MemcpyOp(out.ctypes.data, dev, 16, MemcpyKind.DeviceToHost)))
    t.start()
    t.join(0.1)
    assert t.is_alive() and out.tolist() == [0] * 16
    g.set()
    t.join(TIMEOUT_S)
    assert not t.is_alive() and out.tolist() == [6] * 16
    # D2H into pinned memory does not wait
    g = gate(mgr, s)
    mgr.enqueue(s, MemcpyOp(pinned, dev, 16, MemcpyKind.Default))
    assert mgr.query_stream(s) is False
    g.set()
    assert mgr.shutdown(TIMEOUT_S)


def test_a_full_queue_blocks_the_enqueueing_thread_until_work_completes(monkeypatch):
    """``QUEUE_DEPTH`` operations waiting in the streams block the next enqueue (CUDA's full
    launch queue), whichever stream it goes to; so do ``QUEUE_STAGED_BYTES`` of staged
    pageable data.  Completing work lets the host go on; the results are the same."""
    from gpgpusim.functional.memory import GlobalMemory
    import gpgpusim.runtime.streams as streams_mod
    monkeypatch.setattr(streams_mod, "QUEUE_DEPTH", 4)
    monkeypatch.setattr(streams_mod, "QUEUE_STAGED_BYTES", 64)
    gmem = GlobalMemory()
    mgr = StreamManager(Gpu(None, gmem, launch_fn=FakeLauncher()))
    s, other = mgr.create_stream(), mgr.create_stream(STREAM_NON_BLOCKING)
    dev = gmem.allocate(128)
    g = gate(mgr, s)                                    # 1 queued (the gate's host function)
    for i in range(3):                                  # 4 queued
        mgr.enqueue(s, MemsetOp(dev + i, i + 1, 1))
    t = threading.Thread(target=mgr.enqueue, args=(other, MemsetOp(dev + 3, 4, 1)))
    t.start()
    t.join(0.2)
    assert t.is_alive() and mgr._queued == 4            # blocked, though its stream is idle
    g.set()
    t.join(TIMEOUT_S)
    assert not t.is_alive()
    mgr.synchronize_device()
    assert gmem.read(dev, 4).tolist() == [1, 2, 3, 4] and mgr._queued == 0
    # staged bytes: a 48-byte pageable copy waits, the next one (96 > 64 bytes) blocks
    g = gate(mgr, s)
    host = np.arange(96, dtype=np.uint8)
    mgr.enqueue(s, MemcpyOp(dev, host.ctypes.data, 48, MemcpyKind.HostToDevice))
    mgr.enqueue(s, MemcpyOp(dev + 48, host[48:].ctypes.data, 48, MemcpyKind.HostToDevice))
    assert mgr._staged == 96
    t = threading.Thread(target=mgr.enqueue, args=(s, MemsetOp(dev + 100, 7, 1)))
    t.start()
    t.join(0.2)
    assert t.is_alive()
    g.set()
    t.join(TIMEOUT_S)
    mgr.synchronize_device()
    assert not t.is_alive() and mgr._staged == 0 and mgr._queued == 0
    assert gmem.read(dev, 96).tolist() == host.tolist() and gmem.read(dev + 100, 1).tolist() == [7]
    assert mgr.shutdown(TIMEOUT_S)


def test_overlapping_device_to_device_copy(env):
    mgr, gpu, _ = env
    gpu.gmem.buf[:16] = np.arange(16, dtype=np.uint8)
    mgr.enqueue(0, MemcpyOp(0x1004, 0x1000, 8, MemcpyKind.DeviceToDevice))   # memmove semantics
    mgr.synchronize_device()
    assert gpu.gmem.buf[:16].tolist() == [0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15]
