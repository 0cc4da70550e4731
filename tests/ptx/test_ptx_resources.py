"""PTX-derived kernel resources (fallback for cubin .nv.info)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpgpusim.ptx import parse_ptx
from gpgpusim.ptx.resources import KernelResources, analyze, max_live_regs

DATA = Path(__file__).parent / "data"
HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"


def load(name):
    return parse_ptx((DATA / name).read_text(), name)


@pytest.mark.parametrize(("fixture", "kernel", "smem", "local", "barriers", "params"), [
    ("matmul.ptx", "_Z11matmulTiledPKfS0_Pfi", 2048, 0, 1, 28),
    ("atomics.ptx", "_Z10histSharedPKjPji", 1024, 0, 1, 20),
    ("bank_conflict.ptx", "_Z10smemStridePjii", 32768, 0, 1, 16),
    ("dp_local.ptx", "_Z10localArrayPKjPj", 0, 128, 0, 16),
    ("vectoradd.ptx", "_Z6vecAddPKfS0_Pfi", 0, 0, 0, 28),
    ("snip1.ptx", "_Z8bigparam3BigcsPi", 0, 0, 0, 56),
    ("snip1.ptx", "_Z4miscPiPfP6__halfi", 0, 80, 1, 28),  # extern (dynamic) shared not counted
])
def test_resources_match_ptxas_figures(fixture, kernel, smem, local, barriers, params):
    """smem/local/barriers/params equal what ptxas reports (cubin .nv.info) for these kernels."""
    m = load(fixture)
    r = analyze(m.functions[kernel], m)
    assert (r.static_smem_bytes, r.local_bytes, r.barriers, r.param_bytes) == (smem, local, barriers, params)
    assert r.max_threads == 1024
    assert 4 <= r.regs <= 255


def test_launch_bounds_and_maxnreg():
    m = load("snip2.ptx")
    assert analyze(m.functions["_Z8indirectPii"], m).max_threads == 256
    assert analyze(m.functions["_Z9pipelinedPK6float4PS_i"], m).max_threads == 128
    m = parse_ptx(HEADER + """.entry k() .reqntid 8, 4 .maxnreg 3 {
        .reg .b64 %rd<4>;
        mov.u64 %rd1, 1; mov.u64 %rd2, 2; mov.u64 %rd3, 3;
        add.s64 %rd0, %rd1, %rd2; add.s64 %rd0, %rd0, %rd3; st.global.u64 [%rd0], %rd0;
        ret; }""")
    r = analyze(m.functions["k"], m)
    assert r.max_threads == 32 and r.regs == 3


def test_max_live_regs_counts_64bit_twice_and_ignores_predicates():
    m = parse_ptx(HEADER + """.entry k() {
        .reg .b64 %rd<4>; .reg .b32 %r<3>; .reg .pred %p<2>;
        mov.u64 %rd1, 1;            // live: rd1                 -> 2
        mov.u64 %rd2, 2;            // rd1 rd2                   -> 4
        mov.u32 %r1, 3;             // rd1 rd2 r1                -> 5
        setp.eq.u32 %p1, %r1, 0;    // + p1 (free)               -> 5
        @%p1 add.s64 %rd3, %rd1, %rd2;
        st.global.u32 [%rd3], %r1;
        ret; }""")
    fn = m.functions["k"]
    assert max_live_regs(fn) == 7  # at the add: rd1, rd2 read, rd3 written, r1 live


def test_module_shared_used_by_callee_is_counted():
    m = parse_ptx(HEADER + """
    .shared .align 8 .b8 buf[100];
    .shared .align 4 .b8 unused[64];
    .func f() { .reg .b64 %rd1; mov.u64 %rd1, buf; ret; }
    .entry k() { .shared .align 4 .b8 own[12]; call f, (); ret; }
    """)
    r = analyze(m.functions["k"], m)
    assert r.static_smem_bytes == 12 + 4 + 100  # own, align to 8, buf; `unused` not referenced


def test_dataclass_fields_are_the_contract():
    r = KernelResources(regs=1, static_smem_bytes=2, local_bytes=3, max_threads=4, barriers=5, param_bytes=6)
    assert [f for f in r.__dataclass_fields__] == [
        "regs", "static_smem_bytes", "local_bytes", "max_threads", "barriers", "param_bytes"]
