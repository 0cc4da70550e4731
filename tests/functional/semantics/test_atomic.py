"""atom/red semantics: per-op ``atomic_fn`` tables and ``apply_atomic`` against a sequential,
lane-ordered reference (colliding lanes, float ordering, CAS, misalignment)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpgpusim.errors import CudaError, Err, NotSupportedError
from gpgpusim.functional.semantics import apply_atomic, atomic_fn, dtype_of

M32 = 0xFFFFFFFF


def u32(*xs):
    return np.array(xs, dtype=np.uint32)


@pytest.mark.parametrize("op,t,old,b,c,new", [
    ("add", "u32", M32, 2, None, 1),
    ("add", "s32", -5, 3, None, -2),
    ("add", "u64", (1 << 64) - 1, 1, None, 0),
    ("min", "s32", -1, 1, None, -1),
    ("min", "u32", M32, 1, None, 1),
    ("max", "s64", -3, -4, None, -3),
    ("max", "u64", 5, 9, None, 9),
    ("and", "b32", 0xF0, 0x3C, None, 0x30),
    ("or", "b32", 0xF0, 0x0F, None, 0xFF),
    ("xor", "b64", 1 << 40, (1 << 40) | 1, None, 1),
    ("exch", "b32", 7, 9, None, 9),
    ("cas", "b32", 7, 7, 9, 9),
    ("cas", "b32", 7, 8, 9, 7),
    ("cas", "b64", 1 << 40, 1 << 40, 3, 3),
    ("inc", "u32", 4, 5, None, 5),
    ("inc", "u32", 5, 5, None, 0),
    ("inc", "u32", 9, 5, None, 0),
    ("dec", "u32", 0, 5, None, 5),
    ("dec", "u32", 9, 5, None, 5),
    ("dec", "u32", 3, 5, None, 2),
])
def test_atomic_fn_table(op, t, old, b, c, new):
    dt = dtype_of(t)
    bits = dt.itemsize * 8

    def arr(x):
        return np.array([x & ((1 << bits) - 1)], dtype=f"u{dt.itemsize}").view(dt)

    fn = atomic_fn(op, t)
    out = fn(arr(old), arr(b)) if c is None else fn(arr(old), arr(b), arr(c))
    assert out.tolist() == arr(new).tolist()


def test_atomic_float_adds():
    den = np.array([1], dtype=np.uint32).view(np.float32)
    out = atomic_fn("add", "f32")(np.array([1.0, 0.0], np.float32), np.array([2.0, den[0]], np.float32))
    assert out.tolist() == [3.0, 0.0]  # atom.add.f32 flushes subnormals
    out = atomic_fn("add", "f64")(np.array([1e-310]), np.array([1e-310]))
    assert out.tolist() == [2e-310]
    h = lambda x: int(np.float16(x).view(np.uint16))  # noqa: E731
    packed = u32(h(1.0) | (h(2.0) << 16))
    out = atomic_fn("add", "f16x2")(packed, u32(h(0.5) | (h(-4.0) << 16)))
    assert out.tolist() == [h(1.5) | (h(-2.0) << 16)]
    bf = lambda x: int(np.float32(x).view(np.uint32)) >> 16  # noqa: E731
    out = atomic_fn("add", "bf16x2")(u32(bf(1.0) | (bf(3.0) << 16)), u32(bf(1.0) | (bf(1.0) << 16)))
    assert out.tolist() == [bf(2.0) | (bf(4.0) << 16)]


def test_atomic_unsupported_combination():
    with pytest.raises(NotSupportedError, match="atom.inc.f32"):
        atomic_fn("inc", "f32")
    with pytest.raises(NotSupportedError):
        atomic_fn("cas", "f16x2")


# ----------------------------------------------------------------------------- apply_atomic
def sequential(mem: np.ndarray, offsets, b, op, t, c=None):
    """Reference: one lane at a time, in lane order."""
    dt = dtype_of(t)
    typed = mem.view(dt)
    fn = atomic_fn(op, t)
    old = []
    for i, off in enumerate(offsets):
        k = off // dt.itemsize
        o = typed[k:k + 1].copy()
        old.append(o[0])
        args = (o, b[i:i + 1]) if c is None else (o, b[i:i + 1], c[i:i + 1])
        typed[k] = fn(*args)[0]
    return np.array(old, dtype=dt)


def test_histogram_collisions_int_add():
    mem = np.zeros(64, dtype=np.uint8)
    offs = np.array([0, 4, 0, 8, 0, 4], dtype=np.int64)
    vals = u32(1, 2, 3, 4, 5, 6)
    old = apply_atomic(mem, offs, vals, "add", "u32")
    assert old.tolist() == [0, 0, 1, 0, 4, 2]
    assert mem.view(np.uint32)[:3].tolist() == [9, 8, 4]


def test_single_counter_many_lanes():
    mem = np.zeros(8, dtype=np.uint8)
    n = 65536
    old = apply_atomic(mem, np.zeros(n, np.int64), np.ones(n, np.uint32), "add", "u32")
    assert old.tolist() == list(range(n))
    assert int(mem.view(np.uint32)[0]) == n


def test_float_add_is_lane_ordered():
    rng = np.random.default_rng(1)
    vals = (rng.standard_normal(3000) * 10.0 ** rng.integers(-5, 6, 3000)).astype(np.float32)
    offs = (rng.integers(0, 3, 3000) * 4).astype(np.int64)
    mem = np.zeros(16, dtype=np.uint8)
    ref_mem = mem.copy()
    old = apply_atomic(mem, offs, vals, "add", "f32")
    ref_old = sequential(ref_mem, offs, vals, "add", "f32")
    assert old.view(np.uint32).tolist() == ref_old.view(np.uint32).tolist()
    assert mem.tolist() == ref_mem.tolist()


def test_cas_first_lane_wins_and_exch_chain():
    mem = np.zeros(8, dtype=np.uint8)
    old = apply_atomic(mem, np.zeros(4, np.int64), u32(0, 0, 10, 0), "cas", "b32", u32(10, 11, 12, 13))
    # lane 0 sees 0 and swaps in 10; lane 2 then sees 10 == cmp and swaps in 12
    assert old.tolist() == [0, 10, 10, 12]
    assert int(mem.view(np.uint32)[0]) == 12
    old = apply_atomic(mem, np.array([4, 4, 4], np.int64), u32(1, 2, 3), "exch", "b32")
    assert old.tolist() == [0, 1, 2] and int(mem.view(np.uint32)[1]) == 3


def test_misaligned_atomic_is_sticky_error():
    mem = np.zeros(16, dtype=np.uint8)
    with pytest.raises(CudaError) as ei:
        apply_atomic(mem, np.array([2], np.int64), u32(1), "add", "u32")
    assert ei.value.code == Err.MisalignedAddress and ei.value.sticky


def test_empty_and_broadcast_operand():
    mem = np.zeros(16, dtype=np.uint8)
    assert apply_atomic(mem, np.zeros(0, np.int64), u32(), "add", "u32").size == 0
    old = apply_atomic(mem, np.array([0, 0, 4], np.int64), np.uint32(5), "add", "u32")
    assert old.tolist() == [0, 5, 0]


_OPS = [("add", "u32"), ("add", "s64"), ("min", "s32"), ("max", "u32"), ("and", "b32"), ("or", "b64"),
        ("xor", "b32"), ("exch", "b32"), ("inc", "u32"), ("dec", "u32"), ("cas", "b32"), ("add", "f32"),
        ("add", "f64"), ("max", "s64"), ("add", "f16x2")]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(_OPS), st.data())
def test_apply_atomic_matches_sequential(optype, data):
    op, t = optype
    dt = dtype_of(t)
    size = dt.itemsize
    n = data.draw(st.integers(1, 80))
    slots = data.draw(st.integers(1, 6))
    offs = np.array(data.draw(st.lists(st.integers(0, slots - 1), min_size=n, max_size=n)), np.int64) * size
    raw = data.draw(st.lists(st.integers(0, (1 << (8 * size)) - 1), min_size=2 * n, max_size=2 * n))
    if dt.kind == "f":
        vals = np.array([float(x % 1000) / 7 - 50 for x in raw], dtype=dt)
    else:
        vals = np.array(raw, dtype=f"u{size}").view(dt)
    if op in ("inc", "dec", "cas"):
        vals = vals % dt.type(5) if dt.kind == "u" else vals
    b, c = vals[:n], vals[n:] if op == "cas" else None
    init = np.array(data.draw(st.lists(st.integers(0, 255), min_size=slots * size, max_size=slots * size)), np.uint8)
    if op in ("inc", "dec", "cas"):
        init[:] = 0
    mem, ref = init.copy(), init.copy()
    old = apply_atomic(mem, offs, b, op, t, c)
    ref_old = sequential(ref, offs, b, op, t, c)
    assert old.tobytes() == ref_old.tobytes()
    assert mem.tobytes() == ref.tobytes()


def test_out_of_bounds_atomic_is_sticky_illegal_address():
    mem = np.zeros(16, dtype=np.uint8)
    with pytest.raises(CudaError) as ei:
        apply_atomic(mem, np.array([0, 16], np.int64), u32(1, 1), "add", "u32")
    assert ei.value.code == Err.IllegalAddress and ei.value.sticky and "16" in ei.value.message
    assert mem.tolist() == [0] * 16  # nothing applied
