"""Every ALU instruction form that nvcc 13 emits for a wide set of CUDA intrinsics (fixtures in
``data/``: default arch, ``-use_fast_math``, bf16 on sm_90) resolves to an OpSpec whose ``fn``
runs on lane arrays, stays silent and returns the declared dtypes."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from gpgpusim.functional.semantics import dtype_of, lookup
from sem_helpers import check_fresh
from gpgpusim.ptx import parse_ptx

DATA = Path(__file__).parent / "data"
FIXTURES = ["intrinsics_sm75.ptx", "intrinsics_fastmath.ptx", "intrinsics_sm90.ptx", "bf16_sm90.ptx", "fp8_sm90.ptx"]


def _alu_instructions(name: str):
    module = parse_ptx((DATA / name).read_text(), name)
    out = {}
    for fn in module.functions.values():
        for inst in fn.instructions:
            key = ".".join((inst.opcode, *inst.mods))
            out.setdefault(key, inst)
    return out


@pytest.mark.parametrize("fixture", FIXTURES)
def test_every_emitted_alu_form_resolves_and_runs(fixture):
    rng = np.random.default_rng(7)
    n_alu = 0
    for key, inst in _alu_instructions(fixture).items():
        spec = lookup(inst)
        if spec is None:
            continue
        n_alu += 1
        srcs = []
        for t in spec.src_types:
            dt = dtype_of(t)
            if dt.kind == "b":
                srcs.append(rng.integers(0, 2, 40).astype(bool))
            elif dt.kind == "f":
                srcs.append((rng.standard_normal(40) * 100).astype(dt))
            else:
                srcs.append(rng.integers(0, 2 ** 63, 40, dtype=np.uint64).astype(f"u{dt.itemsize}").view(dt))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            res = spec.fn(*srcs)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_fresh(spec.fn, srcs, key)
        res = res if isinstance(res, tuple) else (res,)
        assert len(res) == len(spec.dst_types), key
        for r, t in zip(res, spec.dst_types, strict=True):
            assert np.asarray(r).dtype == dtype_of(t), (key, t)
            assert np.shape(r) == (40,), key
    assert n_alu >= 4


def test_fixture_covers_the_common_forms():
    keys = set()
    for f in FIXTURES:
        keys |= set(_alu_instructions(f))
    for form in ("fma.rn.f32", "fma.rz.f32", "fma.rn.f64", "mad.lo.s32", "mul.wide.s32", "cvt.rzi.s32.f32",
                 "cvt.rn.f32.s64", "setp.lt.s32", "selp.b32", "prmt.b32", "lop3.b32", "shf.l.wrap.b32",
                 "add.cc.u32", "addc.cc.u32", "ex2.approx.ftz.f32", "fma.rn.f16x2", "fma.rn.bf16",
                 "vabsdiff4.u32.u32.u32", "add.u16x2", "set.eq.u32.f16x2", "dp4a.s32.s32", "mul.hi.u64"):
        assert form in keys, form
