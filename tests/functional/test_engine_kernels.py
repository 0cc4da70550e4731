"""Engine on nvcc-generated kernels (tests/functional/data/kernels.cu), both drivers.

Covers divergence inside loops, nested divergence, early exit, barriers + shared memory,
atomics with colliding lanes (global and shared, int/float/64-bit), warp shuffles/votes with
partial masks, non-inlined and recursive calls, device printf and illegal addresses.
"""

import numpy as np
import pytest
from engine_helpers import run_both, run_once

from gpgpusim.errors import CudaError, Err
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory


def test_divergent_loop_nested_branches(kernels_module):
    n = 96
    rng = np.random.default_rng(5)
    trip = rng.integers(0, 20, n).astype(np.int32)
    r = run_both(kernels_module, "divloop", (3, 1, 1), (32, 1, 1),
                 [("out", np.zeros(n, np.int32)), ("trip", trip)])
    ref = []
    for t in range(n):
        acc = 0
        for i in range(int(trip[t])):
            if (i + t) & 1:
                acc = acc + 3 if t & 2 else acc ^ i
            else:
                acc += i * t
        ref.append(acc)
    assert r.out["out"].tolist() == ref


def test_early_exit(kernels_module):
    n = 80  # 2 CTAs of 40 threads: a partial second warp in each CTA
    r = run_both(kernels_module, "early_exit", (2, 1, 1), (40, 1, 1), [("out", np.full(n, -1, np.int32))])
    assert r.out["out"].tolist() == [-1 if t % 3 == 0 else 2 * t for t in range(n)]


def test_barriers_shared_reduction(kernels_module):
    x = np.arange(4 * 128, dtype=np.int32) * 3 - 100
    r = run_both(kernels_module, "block_sum", (4, 1, 1), (128, 1, 1),
                 [("in", x), ("out", np.zeros(4, np.int32))])
    assert r.out["out"].tolist() == x.reshape(4, 128).sum(axis=1).tolist()


def test_atomics_colliding_lanes(kernels_module):
    n = 128
    keys = (np.arange(n) * 7 % 5).astype(np.int32)
    bufs = [("hist", np.zeros(5, np.int32)), ("keys", keys), ("olds", np.zeros(n, np.int32)),
            ("fsum", np.zeros(1, np.float32)), ("cnt", np.zeros(1, np.uint32)),
            ("mx", np.full(1, -5, np.int32)), ("u64", np.zeros(1, np.uint64)),
            ("shared_out", np.zeros(4, np.int32))]
    r = run_both(kernels_module, "atomics", (2, 1, 1), (64, 1, 1), bufs)
    assert r.out["hist"].tolist() == np.bincount(keys, minlength=5).tolist()
    seen = {}
    olds = []
    for k in keys.tolist():          # lane order: each lane sees the count of earlier lanes
        olds.append(seen.get(k, 0))
        seen[k] = seen.get(k, 0) + 1
    assert r.out["olds"].tolist() == olds
    assert r.out["fsum"][0] == np.float32(sum(1.0 + (t % 4) * 0.25 for t in range(n)))
    assert r.out["cnt"][0] == n
    assert r.out["mx"][0] == max((k * 7) % 13 for k in keys.tolist())
    assert int(r.out["u64"][0]) == n << 33
    assert r.out["shared_out"].tolist() == [int(keys[(keys & 3) == j].sum()) for j in range(4)]


def _warpops_ref(nthreads):
    out = np.zeros((nthreads, 10), dtype=np.int64)
    for tid in range(nthreads):
        lane = tid & 31
        base = tid - lane

        def v(la, base=base):
            return (base + la) * 10
        o = out[tid]
        o[0] = v(lane + 3) if lane + 3 < 32 else v(lane)
        seg0 = lane & ~15
        o[1] = v(lane - 5) if lane - 5 >= seg0 else v(lane)
        o[2] = v(lane ^ 7)
        o[3] = v((lane & ~7) | ((31 - lane) & 7))
        o[4] = 0xAAAAAAAA
        o[5] = 1 + 2
        if lane < 16:
            o[6] = v(lane + 1) if lane + 1 < 16 else v(lane)
            o[7] = 0xFFFF
        else:
            o[6] = -1
            o[7] = 0
        o[8] = 0xF << (4 * (lane // 4))
        o[9] = sum(range(32))
    return out.astype(np.uint32).view(np.int32)


def test_warp_shuffle_vote_match_redux(kernels_module):
    r = run_both(kernels_module, "warpops", (1, 1, 1), (64, 1, 1), [("out", np.zeros((64, 10), np.int32))])
    np.testing.assert_array_equal(r.out["out"], _warpops_ref(64))


def test_calls_recursive_and_float_args(kernels_module):
    r = run_both(kernels_module, "calls", (1, 1, 1), (40, 1, 1),
                 [("out", np.zeros(40, np.int32)), ("fo", np.zeros(40, np.float32))])
    fib = [0, 1]
    for _ in range(10):
        fib.append(fib[-1] + fib[-2])
    assert r.out["out"].tolist() == [fib[t % 10] for t in range(40)]
    assert r.out["fo"].tolist() == [2.0 * t + 1.0 for t in range(40)]


def test_device_printf_formats(kernels_module):
    r = run_both(kernels_module, "printer", (1, 1, 1), (8, 1, 1), [], [("i", 3)])
    lines = [f"t={t} x={t * 0.5:5.2f} s=hi c={chr(65 + t)} u=4000000000 lx=123456789abc %\n" for t in range(3)]
    assert r.printed == "".join(lines)


@pytest.mark.parametrize("driver", ["batched", "warp"])
def test_out_of_bounds_store_names_thread_and_address(kernels_module, driver):
    # p[tid * 1000] stays inside the allocation's mapped 2 MiB page: the hardware lets that
    # store through (test_memory_pages.py); memcheck in stop mode faults on it
    with pytest.raises(CudaError) as e:
        run_once(kernels_module, "oob", (1, 1, 1), (4, 1, 1), [("p", np.zeros(8, np.int32))], driver=driver,
                 options={"gpgpusim_memcheck": 2})
    err = e.value
    assert err.code == Err.IllegalAddress and err.sticky
    msg = str(err)
    assert "Invalid __global__ write of size 4 bytes in oob" in msg
    assert "thread (1,0,0) in block (0,0,0)" in msg
    assert "st.global.u32" in msg and "kernels.ptx:" in msg
    g = GlobalMemory()                 # same allocation sequence as run_once
    load_module(kernels_module, g)
    assert f"address {g.allocate(32) + 4000:#x} is out of bounds" in msg


def test_device_malloc_free(kernels_module):
    r = run_both(kernels_module, "heap", (1, 1, 1), (32, 1, 1), [("out", np.zeros(32, np.int32))])
    assert r.out["out"].tolist() == [3 * t + 1 for t in range(32)]
    assert r.gmem.used_bytes == sum(a.nbytes for a in [np.zeros(32, np.int32)]) + sum(
        s.size for s in load_module(kernels_module, GlobalMemory()).symbols.values())


def test_device_assert_fails_with_message(kernels_module):
    p = np.zeros(32, np.int32)
    p[7] = 1
    with pytest.raises(CudaError) as e:
        run_once(kernels_module, "asserter", (1, 1, 1), (32, 1, 1), [("p", p)])
    assert e.value.code == Err.Assert and e.value.sticky
    assert "kernels.cu:" in str(e.value) and "thread (7,0,0) in block (0,0,0)" in str(e.value)
    assert "Assertion `p[threadIdx.x] == 0` failed." in str(e.value)
    run_once(kernels_module, "asserter", (1, 1, 1), (32, 1, 1), [("p", np.zeros(32, np.int32))])
