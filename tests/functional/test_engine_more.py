"""Engine on nvcc output of idiomatic CUDA (data/more_kernels.cu): cooperative-groups tile
shuffles of doubles with dynamic shared memory, half precision, bit intrinsics, __ldg float4."""

import numpy as np
import pytest
from engine_helpers import DATA, run_both, run_once

from gpgpusim.ptx import load_ptx_cached


@pytest.fixture(scope="module")
def mod():
    return load_ptx_cached((DATA / "more_kernels.ptx").read_text(), "more_kernels.ptx")


def test_cooperative_groups_tile_reduce_double(mod):
    x = np.arange(1024, dtype=np.float64) * 0.25
    r = run_both(mod, "cgreduce", (4, 1, 1), (256, 1, 1), [("in", x), ("out", np.zeros(1))], dyn_smem=64)
    assert r.out["out"][0] == x.sum()


def test_half_precision_and_bit_intrinsics(mod):
    a = (np.arange(64) / 8).astype(np.float16)
    b = (np.arange(64) / 16).astype(np.float16)
    r = run_both(mod, "halfk", (1, 1, 1), (64, 1, 1), [("a", a), ("b", b), ("c", np.zeros(64, np.float16)),
                                                      ("f", np.zeros(64, np.float32))])
    ref_c = (a * a + b * b).astype(np.float16)
    assert r.out["c"].tolist() == ref_c.tolist()

    def brev(v):
        return int(f"{v:032b}"[::-1], 2)
    ref_f = [float(ref_c[i]) + bin(i).count("1") + (32 - (i + 1).bit_length()) + brev(i) % 7
             + (i & -i).bit_length() for i in range(64)]
    assert r.out["f"].tolist() == ref_f


def test_integer_bit_tricks(mod):
    xin = (np.arange(256, dtype=np.uint64) * 2654435761 % 2**32).astype(np.uint32)
    r = run_both(mod, "bits", (2, 1, 1), (128, 1, 1), [("in", xin), ("out", np.zeros(256, np.uint32))])

    def byte_perm(x, y, s):
        b = list(x.to_bytes(4, "little")) + list(y.to_bytes(4, "little"))
        return sum(b[(s >> (4 * k)) & 7] << (8 * k) for k in range(4))
    ref = []
    for i in range(256):
        x = int(xin[i])
        w = (x * 0x9E3779B97F4A7C15) % 2**64
        fs = (((x >> 3) << 32 | x) << (i & 31) >> 32) & 0xFFFFFFFF
        sx = x - 2**32 if x >= 2**31 else x
        v = fs ^ (w >> 32) ^ byte_perm(x, i, 0x3210 + (i & 0x111)) ^ ((x * 2654435761) >> 32) \
            ^ (x // (i + 1)) ^ ((abs(sx - i) + 3) & 0xFFFFFFFF)
        ref.append(v & 0xFFFFFFFF)
    assert r.out["out"].tolist() == ref


def test_ldg_float4_partial_block(mod):
    f4 = np.arange(400, dtype=np.float32).reshape(100, 4)
    r = run_both(mod, "ldgk", (1, 1, 1), (128, 1, 1), [("in", f4), ("out", np.zeros((100, 4), np.float32))],
                 [("i", 100)])
    np.testing.assert_array_equal(r.out["out"], np.stack([f4[:, 3], f4[:, 2], f4[:, 1], f4[:, 0] * 2], 1))


def test_recursion_with_per_frame_local_arrays(mod):
    def rsum(n, salt):
        a = [n * 10 + i + salt for i in range(8)]
        return a[salt & 7] if n == 0 else rsum(n - 1, salt + 1) + a[(salt * 3) & 7]
    r = run_both(mod, "recursive_local", (1, 1, 1), (64, 1, 1), [("o", np.zeros(64, np.int32))])
    assert r.out["o"].tolist() == [rsum(t % 6, t) for t in range(64)]


def test_cp_async_pipeline_copies():
    m = load_ptx_cached((DATA / "cp_async.ptx").read_text(), "cp_async.ptx")
    x = np.arange(512, dtype=np.float32)
    r = run_both(m, "k", (2, 1, 1), (256, 1, 1), [("in", x), ("out", np.zeros(512, np.float32))])
    assert r.out["out"].tolist() == (x.reshape(2, 256)[:, ::-1] * 2).ravel().tolist()
    f4 = np.arange(256, dtype=np.float32).reshape(64, 4)
    r = run_both(m, "k16", (1, 1, 1), (64, 1, 1), [("in", f4), ("out", np.zeros((64, 4), np.float32))])
    assert r.out["out"].tolist() == f4[::-1].tolist()


def test_cp_async_zero_fill():
    from engine_helpers import ptx
    mm = ptx("""
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .shared .align 16 .b8 sm[16];
    ld.param.u64 %rd1, [p0];
    mov.u32 %r1, sm;
    cp.async.ca.shared.global [%r1], [%rd1], 16, 6;
    cp.async.wait_all;
    ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [sm];
    st.global.v4.u32 [%rd1+16], {%r2, %r3, %r4, %r5};
    ret;""")
    src = np.zeros(32, np.uint8)
    src[:16] = np.arange(1, 17)
    r = run_both(mm, "k", (1, 1, 1), (1, 1, 1), [("p", src)])
    assert r.out["p"][16:].tolist() == [1, 2, 3, 4, 5, 6] + [0] * 10


def test_function_pointers_indirect_calls_divergent_targets(mod):
    ops = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b]
    r = run_both(mod, "fnptr", (1, 1, 1), (64, 1, 1), [("o", np.zeros(64, np.int32))], [("i", 1)])
    ref = [ops[(t + 1) % 3](t, 3) + (t + 2 if t & 1 else t * 2) for t in range(64)]
    assert r.out["o"].tolist() == ref


def test_cooperative_launch_grid_sync():
    from gpgpusim.errors import CudaError, Err
    m = load_ptx_cached((DATA / "grid_sync.ptx").read_text(), "grid_sync.ptx")
    n = 8 * 64
    bufs = [("data", np.zeros(n, np.int32)), ("out", np.zeros(n, np.int32))]
    for driver in ("batched", "warp"):               # spin counts differ by schedule: results only
        r = run_once(m, "k", (8, 1, 1), (64, 1, 1), bufs, driver=driver, cooperative=True,
                     options={"functional_chunk_threads": 128})   # co-residency beats chunking
        assert r.out["out"].tolist() == [(t + 1) % n for t in range(n)]
        assert r.gmem.used_bytes == 2 * 4 * n        # the workspace is freed
        with pytest.raises(CudaError) as e:          # without the workspace grid.sync() traps
            run_once(m, "k", (8, 1, 1), (64, 1, 1), bufs, driver=driver)
        assert e.value.code == Err.LaunchFailure
