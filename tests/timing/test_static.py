"""The static per-PC table (gpgpusim.timing.static)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "functional"))

from engine_helpers import ptx  # noqa: E402

from gpgpusim.functional import engine  # noqa: E402
from gpgpusim.functional.loader import load_module  # noqa: E402
from gpgpusim.functional.memory import GlobalMemory  # noqa: E402
from gpgpusim.options import load_config  # noqa: E402
from gpgpusim.timing.static import OpClass, Unit, build_table  # noqa: E402

BODY = """
.reg .u32 %r<8>; .reg .u64 %rd<4>; .reg .pred %p<3>; .reg .f32 %f<8>; .reg .f64 %fd<3>;
.shared .align 4 .b8 sm[128];
ld.param.u64 %rd1, [p0];
ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];
fma.rn.f32 %f5, %f1, %f2, %f3;
add.f32 %f6, %f5, %f4;
sin.approx.f32 %f7, %f6;
mad.lo.s32 %r1, %r2, %r3, %r4;
setp.lt.f32 %p1|%p2, %f7, %f1;
@%p1 bra L1;
add.f64 %fd1, %fd2, %fd2;
div.rn.f32 %f1, %f2, %f3;
L1:
bar.sync 1;
st.shared.cg.u32 [%r1+4], %r2;
atom.global.add.u32 %r5, [%rd1], %r6;
shfl.sync.idx.b32 %r7, %r1, 0, 31, -1;
add.cc.u32 %r1, %r1, 1;
addc.u32 %r2, %r2, 0;
membar.gl;
ret;
"""


def _prog():
    g = GlobalMemory()
    lm = load_module(ptx(BODY), g)
    return engine.get_program(lm, "k")


def test_qv100_table():
    prog = _prog()
    cfg = load_config(None, env=False)          # SM7_QV100: fp 4,13,4,5,39 / int 4,13,4,5,145,21
    t = build_table(prog, cfg)
    assert t.n == len(prog.insts)
    ops = prog.opcode_of
    pc = {name: ops.index(name) for name in ("ld", "fma", "sin", "mad", "setp", "bra", "div", "bar",
                                             "st", "atom", "shfl", "addc", "membar", "ret")}
    add_f32 = pc["fma"] + 1
    add_f64 = pc["bra"] + 1
    sl = {n: i for i, n in enumerate(prog.slot_names)}
    f = lambda r: sl["k:" + r]  # noqa: E731
    # fma.rn.f32: SP_OP, MAD latency of the fp list, on the SP unit
    assert (OpClass(t.op_class[pc["fma"]]), t.latency[pc["fma"]], t.initiation[pc["fma"]],
            Unit(t.unit[pc["fma"]])) == (OpClass.SP_OP, 5, 2, Unit.SP)
    assert (t.latency[add_f32], Unit(t.unit[add_f32])) == (4, Unit.SP)
    # sin.approx: SFU, -ptx_opcode_latency_sfu 100 / initiation 8
    assert (OpClass(t.op_class[pc["sin"]]), t.latency[pc["sin"]], t.initiation[pc["sin"]],
            Unit(t.unit[pc["sin"]])) == (OpClass.SFU_OP, 100, 8, Unit.SFU)
    # integer mad: INTP_OP on the INT unit (QV100 has int units), latency int[3] = 5
    assert (OpClass(t.op_class[pc["mad"]]), t.latency[pc["mad"]], Unit(t.unit[pc["mad"]])) == \
        (OpClass.INTP_OP, 5, Unit.INT)
    assert (OpClass(t.op_class[add_f64]), t.latency[add_f64], t.initiation[add_f64], Unit(t.unit[add_f64])) == \
        (OpClass.DP_OP, 8, 4, Unit.DP)
    # div.rn.f32: SFU_OP with the fp DIV latency
    assert (OpClass(t.op_class[pc["div"]]), t.latency[pc["div"]], Unit(t.unit[pc["div"]])) == \
        (OpClass.SFU_OP, 39, Unit.SFU)
    # shfl: ALU_OP with the SHFL latency (int[5] = 21, initiation 4)
    assert (OpClass(t.op_class[pc["shfl"]]), t.latency[pc["shfl"]], t.initiation[pc["shfl"]],
            Unit(t.unit[pc["shfl"]])) == (OpClass.ALU_OP, 21, 4, Unit.INT)
    # setp and bra: ALU/BRANCH on the INT unit
    assert Unit(t.unit[pc["setp"]]) == Unit.INT
    assert OpClass(t.op_class[pc["bra"]]) == OpClass.BRANCH_OP and t.is_branch[pc["bra"]]
    # ld.global.v4.f32
    ld = pc["ld"] + 1
    assert (OpClass(t.op_class[ld]), Unit(t.unit[ld]), t.mem_space[ld], t.width_bytes[ld],
            bool(t.is_load[ld]), bool(t.is_store[ld]), t.cache_op[ld]) == \
        (OpClass.LOAD_OP, Unit.MEM, "global", 16, True, False, "ca")
    assert t.dst_regs[ld] == (f("%f1"), f("%f2"), f("%f3"), f("%f4"))
    assert t.src_regs[ld] == (f("%rd1"),)
    # ld.param: an LDST instruction
    p0 = pc["ld"]
    assert t.is_param_load[p0] and Unit(t.unit[p0]) == Unit.MEM and t.mem_space[p0] == "param"
    assert t.dst_regs[p0] == (f("%rd1"),) and t.src_regs[p0] == ()
    # a dependent register pair: fma writes %f5, add.f32 reads it
    assert t.dst_regs[pc["fma"]] == (f("%f5"),)
    assert t.src_regs[pc["fma"]] == (f("%f1"), f("%f2"), f("%f3"))
    assert f("%f5") in t.src_regs[add_f32]
    # setp p|q writes both predicates; the guarded bra reads its guard
    assert t.dst_regs[pc["setp"]] == (f("%p1"), f("%p2"))
    assert t.src_regs[pc["bra"]] == (f("%p1"),)
    # bar.sync 1
    b = pc["bar"]
    assert (bool(t.is_barrier[b]), t.bar_kind[b], t.bar_id[b], OpClass(t.op_class[b]), Unit(t.unit[b])) == \
        (True, "sync", 1, OpClass.BARRIER_OP, Unit.INT)
    # st.shared.cg: store, address and value registers are sources
    s = pc["st"]
    assert (t.mem_space[s], bool(t.is_store[s]), t.width_bytes[s], t.cache_op[s], t.dst_regs[s]) == \
        ("shared", True, 4, "cg", ())
    assert set(t.src_regs[s]) == {f("%r1"), f("%r2")}
    # atom: LOAD_OP, atomic, default cache op .cg, destination register
    a = pc["atom"]
    assert (OpClass(t.op_class[a]), bool(t.is_atomic[a]), bool(t.is_load[a]), t.cache_op[a],
            t.dst_regs[a]) == (OpClass.LOAD_OP, True, False, "cg", (f("%r5"),))
    # carry: add.cc writes it, addc reads it
    assert prog.cc_slot in t.dst_regs[pc["addc"] - 1]
    assert prog.cc_slot in t.src_regs[pc["addc"]]
    m = pc["membar"]
    assert t.is_membar[m] and OpClass(t.op_class[m]) == OpClass.MEMORY_BARRIER_OP and Unit(t.unit[m]) == Unit.MEM
    r = pc["ret"]
    assert t.is_exit[r] and OpClass(t.op_class[r]) == OpClass.RET_OPS
    assert t.counted.tolist() == [d.inst is not None for d in prog.insts]


def test_units_without_int_or_dp_units():
    prog = _prog()
    cfg = load_config(None, env=False, overrides=["-gpgpu_num_int_units 0", "-gpgpu_num_dp_units 0",
                                                  "-ptx_opcode_latency_fp 1,2,3,7,9"])
    t = build_table(prog, cfg)
    ops = prog.opcode_of
    assert Unit(t.unit[ops.index("mad")]) == Unit.SP          # no INT units: everything on SP
    assert Unit(t.unit[ops.index("setp")]) == Unit.SP
    assert t.latency[ops.index("fma")] == 7
    add_f64 = ops.index("bra") + 1
    assert Unit(t.unit[add_f64]) == Unit.SFU                   # no DP units: DP on the SFU
    assert build_table(prog).latency[ops.index("fma")] == 5    # default config = QV100


CACHE_OPS = """
.reg .u64 %rd<4>; .reg .f32 %f<8>;
ld.param.u64 %rd1, [p0];
ld.global.nc.f32 %f1, [%rd1];
ld.global.cg.f32 %f2, [%rd1+4];
ld.global.cs.f32 %f3, [%rd1+8];
ld.global.lu.f32 %f4, [%rd1+12];
ld.global.cv.f32 %f5, [%rd1+16];
ld.global.f32 %f6, [%rd1+20];
st.global.wt.f32 [%rd1], %f1;
st.global.cg.f32 [%rd1+4], %f1;
st.global.f32 [%rd1+8], %f1;
red.global.add.f32 [%rd1], %f1;
ret;
"""


def test_cache_operator_per_pc():
    """``pre_decode``'s cache operator: explicit modifiers (``.nc`` = CACHE_L1), else ld -> ca,
    st -> wb, atom/red -> cg; non-memory instructions have none."""
    lm = load_module(ptx(CACHE_OPS), GlobalMemory())
    prog = engine.get_program(lm, "k")
    t = build_table(prog, load_config(None, env=False))
    ops = [(prog.opcode_of[pc], t.cache_op[pc]) for pc in range(t.n) if t.counted[pc]]
    assert ops == [("ld", "ca"), ("ld", "nc"), ("ld", "cg"), ("ld", "cs"), ("ld", "lu"), ("ld", "cv"),
                   ("ld", "ca"), ("st", "wt"), ("st", "cg"), ("st", "wb"), ("red", "cg"), ("ret", "")]
    # the kernel's ld.param reads offset 0 of the parameter buffer (its L1C address)
    assert [int(x) for x in t.param_offset[:3]] == [0, -1, -1]


def test_ldmatrix_stmatrix_are_shared_memory_loads_and_stores():
    """static.build_table: ldmatrix a LOAD_OP, stmatrix a STORE_OP, both on the LD/ST
    unit with 16-bit accesses in shared memory; stmatrix's address register is a source."""
    g = GlobalMemory()
    lm = load_module(ptx("""
.reg .b32 %r<8>;
mov.u32 %r1, 0;
ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r2, %r3}, [%r1];
stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r1], {%r2, %r3};
ret;
"""), g)
    prog = engine.get_program(lm, "k")
    t = build_table(prog, load_config(None, env=False))
    ld, st = prog.opcode_of.index("ldmatrix"), prog.opcode_of.index("stmatrix")
    sl = {n: i for i, n in enumerate(prog.slot_names)}
    r1, r2, r3 = (sl["k:%r" + str(i)] for i in (1, 2, 3))
    assert (OpClass(t.op_class[ld]), OpClass(t.op_class[st])) == (OpClass.LOAD_OP, OpClass.STORE_OP)
    assert Unit(t.unit[ld]) == Unit(t.unit[st]) == Unit.MEM
    assert (t.mem_space[ld], t.mem_space[st]) == ("shared", "shared")
    assert (bool(t.is_load[ld]), bool(t.is_store[ld]), bool(t.is_load[st]), bool(t.is_store[st])) == (
        True, False, False, True)
    assert t.width_bytes[ld] == t.width_bytes[st] == 2
    assert sorted(t.dst_regs[ld]) == sorted([r2, r3]) and list(t.src_regs[ld]) == [r1]
    assert list(t.dst_regs[st]) == [] and sorted(t.src_regs[st]) == sorted([r1, r2, r3])
