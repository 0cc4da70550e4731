"""Device memory in mapped 2 MiB pages (accesses outside an allocation but inside a mapped page
succeed, as on the hardware) and memcheck (every such access reported)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from engine_helpers import run_once

from gpgpusim.errors import CudaError, Err
from gpgpusim.functional import memcheck
from gpgpusim.functional.memory import GLOBAL_HEAP_START, PAGE_SIZE, GlobalMemory, MemoryFault

U64 = np.uint64


@pytest.fixture(autouse=True)
def _fresh_memcheck():
    memcheck.reset()
    yield
    memcheck.reset()


def test_gap_reads_zero_and_keeps_writes():
    g = GlobalMemory()
    a = g.allocate(64)
    b = g.allocate(100)
    addrs = np.array([a + 64, a + 128, b + 128, a - 512], dtype=U64)
    assert g.load(addrs, np.uint32).tolist() == [0, 0, 0, 0]
    g.store(addrs, np.array([1, 2, 3, 4], dtype=np.uint32))
    assert g.load(addrs, np.uint32).tolist() == [1, 2, 3, 4]
    # mixed with in-allocation lanes; allocation contents untouched by the gap writes
    g.store(np.array([a, a + 60], dtype=U64), np.array([7, 8], dtype=np.uint32))
    got = g.load(np.array([a, a + 64, a + 60, b], dtype=U64), np.uint32)
    assert got.tolist() == [7, 1, 8, 0]
    assert g.read(a, 64).view(np.uint32)[[0, 15]].tolist() == [7, 8]


def test_access_running_past_the_end_reads_padding():
    g = GlobalMemory()
    a = g.allocate(6)
    g.write(a, bytes([1, 2, 3, 4, 5, 6]))
    assert g.load(np.array([a + 4, a + 1000], dtype=U64), np.uint32).tolist() == [0x0605, 0]


def test_unmapped_pages_fault_as_before():
    g = GlobalMemory()
    a = g.allocate(64)
    far = a + 3 * PAGE_SIZE
    with pytest.raises(MemoryFault) as e:
        g.load(np.array([a, a + 64, far], dtype=U64), np.uint32)
    assert (e.value.kind, e.value.lane, e.value.address) == ("illegal", 2, far)
    with pytest.raises(MemoryFault):
        g.load(np.array([GLOBAL_HEAP_START - PAGE_SIZE - 4], dtype=U64), np.uint32)
    with pytest.raises(MemoryFault):
        g.store(np.array([0x10], dtype=U64), np.array([1], dtype=np.uint8))


def test_page_mapping_follows_live_allocations():
    g = GlobalMemory()
    a = g.allocate(3 * PAGE_SIZE - 4096)        # spans pages 0..2 of the heap
    b = g.allocate(64)                          # in page 2, with a's tail
    assert g.is_mapped(a + 3 * PAGE_SIZE - 8)
    assert not g.is_mapped(a + 3 * PAGE_SIZE)
    g.load(np.array([b + 1024], dtype=U64), np.uint32)
    g.free(b)
    assert g.is_mapped(b)                       # a still overlaps b's page
    g.free(a)
    for x in (a, a + PAGE_SIZE + 5, b):
        assert not g.is_mapped(x)
        with pytest.raises(MemoryFault):
            g.load(np.array([x & ~3], dtype=U64), np.uint32)
    assert g.is_mapped(GLOBAL_HEAP_START - 512)  # the driver's page below the heap stays
    c = g.allocate(16)                          # remapped: gap bytes start zero again
    assert g.load(np.array([c + 512], dtype=U64), np.uint32).tolist() == [0]


def test_copies_stay_bounded_by_the_allocation():
    g = GlobalMemory()
    a = g.allocate(64)
    with pytest.raises(CudaError) as e:
        g.read(a + 32, 64)
    assert e.value.code == Err.InvalidValue
    with pytest.raises(CudaError):
        g.write(a - 512, b"x")


def test_describe_positions():
    g = GlobalMemory()
    a = g.allocate(64)
    b = g.allocate(100)
    assert g.describe(a - 512, 4) == f"is 512 bytes before the nearest allocation at {a:#x} of size 64 bytes"
    assert g.describe(a + 64, 4) == f"is 0 bytes after the nearest allocation at {a:#x} of size 64 bytes"
    assert g.describe(b + 98, 4).endswith("runs 2 bytes past its end")
    g.free(b)
    assert g.describe(b + 8, 4) == f"is 8 bytes inside a freed allocation at {b:#x} of size 100 bytes"


def test_translate_reports_only_lanes_outside():
    g = GlobalMemory()
    a = g.allocate(64)
    seen = []
    g.translate(np.array([a, a + 4], dtype=U64), 4, lambda pos, ad, n: seen.append(pos))
    assert seen == []                           # fast path: the hook is not called
    g.translate(np.array([a, a + 64, a + 8, a - 4], dtype=U64), 4,
                lambda pos, ad, n: seen.append((pos.tolist(), ad[pos].tolist(), n)))
    assert seen == [([1, 3], [a + 64, a - 4], 4)]


def test_concurrent_alloc_free_with_gap_access():
    g = GlobalMemory()
    keep = g.allocate(256)
    # the addresses read below lie in a freed 256-byte hole of a mapped page, which the other
    # thread's 4 KiB allocations never fit in, so they stay a gap.  (Right after ``keep`` with
    # nothing beyond, a churn allocation would cover them and could be freed in the middle of
    # the access: the IllegalAddress a kernel racing a cudaFree rightly gets, a flaky failure.)
    hole = g.allocate(256)
    g.allocate(256)
    g.free(hole)
    stop = threading.Event()
    errors: list[BaseException] = []

    def churn():
        try:
            while not stop.is_set():
                p = g.allocate(4096)
                g.free(p)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    t = threading.Thread(target=churn)
    t.start()
    try:
        addrs = np.array([keep + 256 + 4 * i for i in range(32)], dtype=U64)
        for i in range(300):
            g.store(addrs, np.full(32, i, dtype=np.uint32))
            assert (g.load(addrs, np.uint32) == i).all()
    finally:
        stop.set()
        t.join()
    assert not errors


# ---------------------------------------------------------------- engine: hardware-like and memcheck
@pytest.mark.parametrize("driver", ["batched", "warp"])
def test_store_inside_mapped_page_succeeds(kernels_module, driver):
    r = run_once(kernels_module, "oob", (1, 1, 1), (4, 1, 1), [("p", np.zeros(8, np.int32))], driver=driver)
    assert r.out["p"].tolist() == [1, 0, 0, 0, 0, 0, 0, 0]
    base = r.addrs["p"]
    assert r.gmem.load(np.array([base + 4000 * t for t in range(4)], dtype=U64), np.int32).tolist() == [1] * 4


def test_memcheck_continue_reports_each_thread_once(kernels_module, capsys):
    for _ in range(2):     # the second launch's errors are duplicates: not reported again
        r = run_once(kernels_module, "oob", (1, 1, 1), (4, 1, 1), [("p", np.zeros(8, np.int32))],
                     options={"gpgpusim_memcheck": 1})
    assert r.out["p"][0] == 1
    err = capsys.readouterr().err
    assert err.count("========= Invalid __global__ write of size 4 bytes") == 3
    for t in (1, 2, 3):
        assert f"=========     by thread ({t},0,0) in block (0,0,0)" in err
    base = r.addrs["p"]
    assert (f"=========     Address {base + 4000:#x} is 3968 bytes after the nearest allocation "
            f"at {base:#x} of size 32 bytes") in err
    assert "=========     at oob+pc " in err and "kernels.ptx:" in err and "st.global.u32" in err
    assert memcheck.errors() == 3
    assert memcheck.summary() == "========= ERROR SUMMARY: 3 errors"
    assert capsys.readouterr().err.endswith("========= ERROR SUMMARY: 3 errors\n")


def test_memcheck_stop_faults_sticky(kernels_module, capsys):
    with pytest.raises(CudaError) as e:
        run_once(kernels_module, "oob", (1, 1, 1), (4, 1, 1), [("p", np.zeros(8, np.int32))],
                 options={"gpgpusim_memcheck": 2})
    assert e.value.code == Err.IllegalAddress and e.value.sticky
    assert "Invalid __global__ write" in capsys.readouterr().err


def test_memcheck_print_limit(kernels_module, capsys):
    run_once(kernels_module, "oob", (1, 1, 1), (4, 1, 1), [("p", np.zeros(8, np.int32))],
             options={"gpgpusim_memcheck": 1, "gpgpusim_memcheck_print_limit": 1})
    assert capsys.readouterr().err.count("Invalid __global__") == 1
    memcheck.summary()
    err = capsys.readouterr().err
    assert "2 more errors were not printed" in err and "ERROR SUMMARY: 3 errors" in err


def test_memcheck_off_has_no_hook(kernels_module):
    from gpgpusim.functional.engine import get_program
    from gpgpusim.functional.loader import load_module
    from gpgpusim.functional.state import Exec

    g = GlobalMemory()
    lm = load_module(kernels_module, g)
    prog = get_program(lm, "oob")
    ex = Exec(prog, lm, g, (1, 1, 1), (32, 1, 1), 0, b"\0" * 8, [0])
    assert ex.mc_hook is None and ex.memcheck == 0
    ex2 = Exec(prog, lm, g, (1, 1, 1), (32, 1, 1), 0, b"\0" * 8, [0], options={"gpgpusim_memcheck": 1})
    assert ex2.mc_hook is not None
