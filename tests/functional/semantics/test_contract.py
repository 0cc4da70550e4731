"""The engine-facing contract: every OpSpec's fn accepts numpy scalars (the engine passes
immediates as 0-d values) mixed with lane arrays, gives the same answer as all-array inputs,
returns the declared dtypes, stays silent under warnings-as-errors, is shape-agnostic, and keeps
no array it returns (the engine adopts new results as registers without copying them)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sem_helpers import check_fresh, inst

from gpgpusim.functional.semantics import ALU_OPCODES, OpSpec, dtype_of, lookup

CASES = [
    ("add.s32", 2), ("add.cc.u32", 2), ("addc.cc.u32", 2), ("sub.sat.s32", 2), ("mul.wide.u32", 2),
    ("mul.hi.s64", 2), ("mad.lo.u32", 3), ("mad.wide.s32", 3), ("mul24.hi.s32", 2), ("sad.u32", 3),
    ("div.u32", 2), ("rem.s64", 2), ("min.u32", 2), ("popc.b64", 1), ("clz.b32", 1), ("bfind.s32", 1),
    ("brev.b32", 1), ("bfe.s32", 3), ("bfi.b32", 4), ("dp4a.s32.u32", 3), ("and.b32", 2), ("not.b64", 1),
    ("lop3.b32", 4), ("shl.b32", 2), ("shr.s64", 2), ("shf.r.clamp.b32", 3), ("prmt.b32", 3),
    ("add.rn.f32", 2), ("add.rz.f32", 2), ("mul.ftz.f32", 2), ("fma.rn.f32", 3), ("fma.rm.f64", 3),
    ("div.rn.f64", 2), ("div.rp.f32", 2), ("sqrt.rz.f32", 1), ("rcp.rn.f64", 1), ("ex2.approx.ftz.f32", 1),
    ("min.NaN.f32", 2), ("abs.f64", 1), ("add.f16x2", 2), ("fma.rn.bf16x2", 3), ("copysign.f32", 2),
    ("setp.lt.s32", 2), ("setp.geu.f32", 2), ("set.lt.u32.f32", 2), ("selp.f32", 3), ("slct.s32.s32", 3),
    ("cvt.rn.f32.s64", 1), ("cvt.rzi.s32.f64", 1), ("cvt.rn.f16.f32", 1), ("cvt.sat.u8.s32", 1),
    ("cvt.rn.bf16.f32", 1), ("mov.b32", 1), ("testp.finite.f64", 1),
    ("add.u16x2", 2), ("vabsdiff4.u32.u32.u32.add", 3), ("set.eq.u32.f16x2", 2), ("setp.lt.f16x2", 2),
    ("cvt.rn.satfinite.e4m3x2.f32", 2), ("cvt.rn.f16x2.e5m2x2", 1), ("cvt.rn.f16x2.f32", 2),
    ("shf.l.wrap.b32", 3), ("mad.hi.sat.s32", 3), ("madc.hi.cc.u32", 3), ("subc.u64", 2),
    ("max.f16", 2), ("min.bf16x2", 2), ("cvt.rni.f32.f32", 1), ("cvt.rzi.u64.f64", 1), ("rsqrt.approx.f64", 1),
    ("div.s32", 2), ("bfe.u64", 3), ("dp2a.hi.u32.s32", 3), ("slct.f32.f32", 3), ("cvt.sat.f32.f32", 1),
    ("cvt.rna.tf32.f32", 1), ("cvt.rz.f16.s64", 1), ("fma.rn.f16", 3), ("fma.rn.sat.f16x2", 3),
]


def _values(t: str, n: int, rng: np.random.Generator) -> np.ndarray:
    dt = dtype_of(t)
    if t == "pred":
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind == "f":
        v = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
        v[:3] = [0.0, np.inf, np.nan][: min(3, n)]
        return v.astype(dt)
    raw = rng.integers(0, 2 ** 63, n, dtype=np.uint64)
    return raw.astype(f"u{dt.itemsize}").view(dt)


@pytest.mark.parametrize("name,nsrc", CASES)
def test_scalar_immediates_mix_with_arrays(name, nsrc):
    spec = lookup(inst(name, nsrc, imm={3: 0x96} if name.startswith("lop3") else None,
                       pair=name.startswith("setp")))
    assert isinstance(spec, OpSpec)
    rng = np.random.default_rng(len(name))
    n = 9
    srcs = [_values(t, n, rng) for t in spec.src_types]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        full = spec.fn(*srcs)
        for k in range(len(srcs)):
            mixed = list(srcs)
            mixed = [s if i != k else s[4][()] for i, s in enumerate(srcs)]  # one 0-d scalar operand
            part = spec.fn(*mixed)
            want = spec.fn(*[s if i != k else np.full(n, s[4], s.dtype) for i, s in enumerate(srcs)])
            outs = part if isinstance(part, tuple) else (part,)
            wants = want if isinstance(want, tuple) else (want,)
            for o, w in zip(outs, wants, strict=True):
                assert np.broadcast_to(o, (n,)).tobytes() == np.asarray(w).tobytes(), (name, k)
    check_fresh(spec.fn, srcs, name)
    results = full if isinstance(full, tuple) else (full,)
    assert len(results) == len(spec.dst_types)
    for r, t in zip(results, spec.dst_types, strict=True):
        assert np.asarray(r).dtype == dtype_of(t), (name, t, np.asarray(r).dtype)
        assert np.shape(r) == (n,)


def test_batched_shape():
    spec = lookup(inst("fma.rn.f32", 3))
    a = np.linspace(-1, 1, 65536, dtype=np.float32).reshape(64, 1024)
    out = spec.fn(a, a, a)
    assert out.shape == (64, 1024) and out.dtype == np.float32


def test_alu_opcode_set():
    assert {"add", "mad", "fma", "setp", "selp", "cvt", "mov", "lop3", "prmt", "shf"} <= ALU_OPCODES
    assert not {"ld", "st", "atom", "bra", "shfl", "vote"} & ALU_OPCODES


def test_quiet_false_leaves_errstate_to_the_caller():
    loud = lookup(inst("add.rz.f32", 2), quiet=False)
    calm = lookup(inst("add.rz.f32", 2))
    big = np.array([3e38], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert calm.fn(big, big).tolist() == [float(np.finfo(np.float32).max)]
        with pytest.raises(RuntimeWarning):
            loud.fn(big, big)
        with np.errstate(all="ignore"):
            assert loud.fn(big, big).tobytes() == calm.fn(big, big).tobytes()
