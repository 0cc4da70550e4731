"""The static per-PC table of a kernel: what the timing core needs to know about each pc.

Built once per kernel (:func:`build_table`); the cycle loop indexes these arrays by pc and
never looks at PTX text or IR objects.

GPGPU-Sim counterparts: ``ptx_instruction::pre_decode`` / ``set_opcode_and_latency`` /
``set_bar_type`` (``cuda-sim/cuda-sim.cc``) and the dispatch of ``scheduler_unit::cycle``
(``gpgpu-sim/shader.cc``).  The facts reproduced:

* op class (``op``): ``ld``/``ldu``/``atom`` (and ``tex``) -> LOAD_OP, ``st`` -> STORE_OP,
  ``bra`` -> BRANCH_OP, ``bar``/``barrier`` -> BARRIER_OP, ``membar``/``fence`` ->
  MEMORY_BARRIER_OP, ``call`` -> CALL_OPS (ALU_OP for printf and the other built-ins),
  ``ret`` -> RET_OPS, ``mma``/``wmma.mma`` -> TENSOR_CORE_OP (``wmma.load``/``wmma.store`` ->
  TENSOR_CORE_LOAD_OP / TENSOR_CORE_STORE_OP); arithmetic by type (the instruction's first
  type): ``.f32`` -> SP_OP, ``.f64`` -> DP_OP, anything else (integer, f16, bf16) -> INTP_OP;
  ``div``/``rem`` and ``sqrt sin cos ex2 lg2 rsqrt rcp`` -> SFU_OP; everything else
  (mov, setp, logic, cvt, shfl, exit, ...) ALU_OP.
* latency / initiation interval: ``add sub addc subc`` -> index 0 (ADD) of the
  ``-ptx_opcode_latency_{fp,dp,int}`` lists by type, ``min max`` -> 1 (MAX), ``mul`` -> 2
  (MUL), ``mad madc fma`` -> 3 (MAD), ``mul24``/``mad24`` -> int MUL/MAD + 1 (INTP_OP),
  ``div rem`` -> 4 (DIV) of fp/dp/int by type (SFU_OP whatever the type), the SFU
  transcendentals -> ``-ptx_opcode_latency_sfu``, ``mma`` -> ``-ptx_opcode_latency_tesnor``
  (sic), ``shfl`` -> int index 5 (SHFL) but op class ALU_OP; all others latency 1, initiation 1
  (memory instructions' timing comes from the memory pipeline).  Initiation intervals come from
  ``-ptx_opcode_initiation_*`` the same way (``-ptx_opcode_initiation_tensor``).
* unit (4.x ``scheduler_unit::cycle``): LOAD/STORE/MEMORY_BARRIER/TENSOR_CORE_LOAD/STORE ->
  MEM (the LDST unit; ``ld.param`` included: ``gpgpu_n_param_mem_insn``); DP_OP -> DP, or SFU
  when ``-gpgpu_num_dp_units 0``; SFU_OP -> SFU; TENSOR_CORE_OP -> TENSOR; every other class
  (ALU, SP, INTP, BRANCH, BARRIER, CALL, RET): with ``-gpgpu_num_int_units > 0`` SP_OP -> SP and
  the rest -> INT, otherwise all -> SP.

Extensions (no GPGPU-Sim 4.2 counterpart): ``red`` is classed like ``atom`` (LOAD_OP, atomic);
``cp.async`` is a LOAD_OP reading global (its shared write is part of the same instruction);
``tanh``/``ex2.approx.f16`` etc. take the SFU like the other transcendentals; ``bar.warp.sync``
is an ALU_OP (no CTA barrier).  The exit pseudo instructions at the end of each function
(``prog.insts[pc].inst is None``) are never issued as instructions: ALU_OP, ``counted`` False.

Cache operator (``cache_op[pc]``, ``ptx_instruction::pre_decode``; checklist C105, C111): the
instruction's explicit ``.ca .nc .cg .cs .lu .cv .wb .wt`` (``.nc`` is GPGPU-Sim's CACHE_L1),
otherwise ``ld``/``ldu``/``wmma.load`` -> ``ca``, ``st``/``wmma.store`` -> ``wb``,
``atom`` -> ``cg``; ``red`` is given ``cg`` too (an extension: GPGPU-Sim leaves it undefined
and times it as an atomic).  Only ``cg`` and ``nc`` change the timing (``core/ldst.py``).

Registers (for the scoreboard): ``dst_regs[pc]`` / ``src_regs[pc]`` are tuples of decode's
register slots (``Exec.R`` indices): vector operands expand to each register, predicates are
registers, the guard predicate and address base registers are sources, ``setp``'s ``p|q``
writes both, a ``.cc`` modifier writes the carry slot (``prog.cc_slot``) and ``addc``/``subc``/
``madc`` read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

import re

from gpgpusim.functional import decode as dec
from gpgpusim.functional.cdp import latency_kind
from gpgpusim.options import load_config
from gpgpusim.ptx import ir
from gpgpusim.timing.sass_ops import sass_timing, trace_latencies

__all__ = ["Unit", "OpClass", "PcTable", "build_table"]


class Unit(IntEnum):
    """Execution unit an instruction dispatches to (GPGPU-Sim 4.x pipelines)."""

    SP = 0
    DP = 1
    SFU = 2
    INT = 3
    TENSOR = 4
    MEM = 5


class OpClass(IntEnum):
    """GPGPU-Sim's op classes (``uop_type_t`` names; the numeric values are ours)."""

    NO_OP = -1
    ALU_OP = 1
    SFU_OP = 2
    TENSOR_CORE_OP = 3
    DP_OP = 4
    SP_OP = 5
    INTP_OP = 6
    ALU_SFU_OP = 7
    LOAD_OP = 8
    TENSOR_CORE_LOAD_OP = 9
    TENSOR_CORE_STORE_OP = 10
    STORE_OP = 11
    BRANCH_OP = 12
    BARRIER_OP = 13
    MEMORY_BARRIER_OP = 14
    CALL_OPS = 15
    RET_OPS = 16
    EXIT_OPS = 17


_MEM_CLASSES = (OpClass.LOAD_OP, OpClass.STORE_OP, OpClass.MEMORY_BARRIER_OP,
                OpClass.TENSOR_CORE_LOAD_OP, OpClass.TENSOR_CORE_STORE_OP)
_SFU_OPS = ("sqrt", "sin", "cos", "ex2", "lg2", "rsqrt", "rcp", "tanh")
_IDX = {"add": 0, "sub": 0, "addc": 0, "subc": 0, "min": 1, "max": 1, "mul": 2,
        "mad": 3, "madc": 3, "fma": 3}
_SPACES = ("global", "shared", "local", "const", "param", "tex")
_CACHE_OPS = ("ca", "nc", "cg", "cs", "lu", "cv", "wb", "wt")
_NO_DST = {"st", "red", "bra", "brx", "bar", "barrier", "membar", "fence", "exit", "ret", "trap",
           "call", "prefetch", "prefetchu", "nanosleep", "cp", "pmevent", "brkpt",
           "griddepcontrol", "discard", "applypriority"}


@dataclass(slots=True)
class PcTable:
    """Per-pc static facts of one kernel (every array has ``len(prog.insts)`` entries)."""

    n: int
    op_class: np.ndarray            # int8 OpClass values
    unit: np.ndarray                # int8 Unit values
    latency: np.ndarray             # int32
    initiation: np.ndarray          # int32
    dst_regs: list[tuple[int, ...]]
    src_regs: list[tuple[int, ...]]
    mem_space: list[str]            # '' | 'global' | 'shared' | 'local' | 'const' | 'param' | 'tex' | 'generic'
    is_load: np.ndarray             # ld, ldu, tex, cp.async
    is_store: np.ndarray            # st
    is_atomic: np.ndarray           # atom, red
    is_param_load: np.ndarray       # ld.param (an LDST instruction in GPGPU-Sim)
    param_offset: np.ndarray        # int64: a kernel's ld.param at a constant offset: that offset, else -1
    width_bytes: np.ndarray         # int32: bytes per lane (type size x vector length); 0 if no memory
    vec_len: np.ndarray             # int32: vector length of a memory instruction (.v2/.v4/.v8), else 1
    cache_op: list[str]             # explicit .ca/.nc/.cg/.cs/.lu/.cv/.wb/.wt, else GPGPU-Sim's default
    is_barrier: np.ndarray          # bar.sync / bar.red / bar.arrive / barrier.* (CTA barriers)
    bar_kind: list[str]             # 'sync' | 'red' | 'arrive' | ''
    bar_id: np.ndarray              # int32: constant barrier id, -1 if in a register (0 if absent)
    bar_count: np.ndarray           # int32: constant expected thread count, -1 if none/register
    is_membar: np.ndarray
    is_exit: np.ndarray             # exit, or ret in the kernel (retires the lanes)
    is_branch: np.ndarray           # bra
    is_call: np.ndarray             # call of a .func (not printf/malloc/free built-ins)
    is_ret: np.ndarray              # ret from a .func
    cdp: np.ndarray                 # int8: device-runtime call: ``functional.cdp.latency_kind`` (else 0)
    counted: np.ndarray             # an issued instruction (False: exit pseudo instruction, PTXPlus helper line)
    opcode: list[str] = field(default_factory=list)
    #: a PTXPlus kernel: registers are SASS registers, and only ``%r<n>`` (SASS ``R<n>``) is in
    #: the banked register file the operand collector reads
    sass: bool = False


def _values(cfg: Any, name: str, n: int) -> list[int]:
    """Integer list of option ``name`` (IntList, int or text), padded to ``n`` with 1."""
    v = cfg.get(name)
    if hasattr(v, "values"):
        vals = [int(x) for x in v.values]
    elif isinstance(v, (int, np.integer)):
        vals = [int(v)]
    elif v is None:
        vals = []
    else:
        vals = [int(x) for x in str(v).split(",") if x.strip()]
    return (vals + [1] * n)[:n]


def _first_type(inst: ir.Instruction) -> str:
    ts = inst.types
    return ts[0] if ts else ""


def _op_latency(inst: ir.Instruction, lat: dict[str, list[int]], ini: dict[str, list[int]]
                ) -> tuple[OpClass, int, int]:
    op = inst.opcode
    mods = inst.mods
    if op in ("ld", "ldu", "atom", "red", "tex", "tld4"):
        return OpClass.LOAD_OP, 1, 1
    if op == "cp" and "async" in mods and not any(m in mods for m in ("commit_group", "wait_group", "wait_all")):
        return OpClass.LOAD_OP, 1, 1
    if op == "st":
        return OpClass.STORE_OP, 1, 1
    if op == "wmma":
        if "load" in mods:
            return OpClass.TENSOR_CORE_LOAD_OP, 1, 1
        if "store" in mods:
            return OpClass.TENSOR_CORE_STORE_OP, 1, 1
        return OpClass.TENSOR_CORE_OP, lat["tensor"][0], ini["tensor"][0]
    if op == "mma":
        return OpClass.TENSOR_CORE_OP, lat["tensor"][0], ini["tensor"][0]
    if op in ("bra", "brx"):
        return OpClass.BRANCH_OP, 1, 1
    if op in ("bar", "barrier") and "warp" not in mods:
        return OpClass.BARRIER_OP, 1, 1
    if op in ("membar", "fence"):
        return OpClass.MEMORY_BARRIER_OP, 1, 1
    if op == "ret":
        return OpClass.RET_OPS, 1, 1
    t = _first_type(inst)
    if op in _IDX:
        i = _IDX[op]
        if t == "f32":
            return OpClass.SP_OP, lat["fp"][i], ini["fp"][i]
        if t == "f64":
            return OpClass.DP_OP, lat["dp"][i], ini["dp"][i]
        return OpClass.INTP_OP, lat["int"][i], ini["int"][i]
    if op in ("mul24", "mad24"):
        i = 2 if op == "mul24" else 3
        return OpClass.INTP_OP, lat["int"][i] + 1, ini["int"][i] + 1
    if op in ("div", "rem"):
        k = "fp" if t == "f32" else "dp" if t == "f64" else "int"
        return OpClass.SFU_OP, lat[k][4], ini[k][4]
    if op in _SFU_OPS:
        return OpClass.SFU_OP, lat["sfu"][0], ini["sfu"][0]
    if op == "shfl":
        return OpClass.ALU_OP, lat["int"][5], ini["int"][5]
    return OpClass.ALU_OP, 1, 1


def _unit(c: OpClass, n_int: int, n_dp: int) -> Unit:
    if c in _MEM_CLASSES:
        return Unit.MEM
    if c == OpClass.DP_OP:
        return Unit.DP if n_dp > 0 else Unit.SFU
    if c in (OpClass.SFU_OP, OpClass.ALU_SFU_OP):
        return Unit.SFU
    if c == OpClass.TENSOR_CORE_OP:
        return Unit.TENSOR
    if n_int > 0:
        return Unit.SP if c == OpClass.SP_OP else Unit.INT
    return Unit.SP


def _space(inst: ir.Instruction) -> str:
    if inst.opcode in ("tex", "tld4"):
        return "tex"
    if inst.opcode == "cp":
        return "global"
    for m in inst.mods:
        if m in _SPACES:
            return m
        if m.startswith("shared::"):
            return "shared"
        if m.startswith("param::"):
            return "param"
    return "generic"


def _regs(fi: dec.FuncInfo, ops) -> list[int]:
    out: list[int] = []
    for op in ops:
        _see_reg_slots(fi, op, out)
    return out


def _see_reg_slots(fi: dec.FuncInfo, op: Any, out: list[int]) -> None:
    """Append the register slots operand ``op`` names to ``out`` (a module function, not a
    recursive closure: that would be a reference cycle per call, left to the collector)."""
    if isinstance(op, ir.Reg):
        s = fi.slots.get(op.name)
        if s is not None:
            out.append(s)
    elif isinstance(op, ir.Vec):
        for e in op.elems:
            if e is not None:
                _see_reg_slots(fi, e, out)
    elif isinstance(op, ir.PredPair):
        _see_reg_slots(fi, op.p, out)
        if op.q is not None:
            _see_reg_slots(fi, op.q, out)
    elif isinstance(op, ir.Addr):
        if isinstance(op.base, ir.Reg):
            _see_reg_slots(fi, op.base, out)


def _param_offset(prog: dec.Program, d: dec.DInst, inst: ir.Instruction) -> int:
    """The byte offset a kernel's ``ld.param [name+off]`` reads in the parameter buffer (the
    address GPGPU-Sim's constant cache sees: kernel parameters live at 0.. of param memory);
    -1 for a ``.func`` parameter or an address in a register."""
    if len(inst.operands) < 2 or not d.func.fn.is_entry:
        return -1
    a = inst.operands[1]
    if not isinstance(a, ir.Addr) or not isinstance(a.base, ir.Sym):
        return -1
    ent = prog.kernel_params.get(a.base.name)
    if ent is None:
        return -1
    return ent[0] + int(a.offset or 0)


def _dedup(xs: list[int]) -> tuple[int, ...]:
    return tuple(dict.fromkeys(xs))


def build_table(prog: dec.Program, config: Any = None) -> PcTable:
    """The :class:`PcTable` of ``prog`` under ``config`` (a ``gpgpusim.options`` Config; None =
    the default SM7_QV100 configuration)."""
    if config is None:
        config = load_config(None, env=False)
    lat = {"int": _values(config, "ptx_opcode_latency_int", 6),
           "fp": _values(config, "ptx_opcode_latency_fp", 5),
           "dp": _values(config, "ptx_opcode_latency_dp", 5),
           "sfu": _values(config, "ptx_opcode_latency_sfu", 1),
           "tensor": _values(config, "ptx_opcode_latency_tesnor", 1)}
    ini = {"int": _values(config, "ptx_opcode_initiation_int", 6),
           "fp": _values(config, "ptx_opcode_initiation_fp", 5),
           "dp": _values(config, "ptx_opcode_initiation_dp", 5),
           "sfu": _values(config, "ptx_opcode_initiation_sfu", 1),
           "tensor": _values(config, "ptx_opcode_initiation_tensor", 1)}
    n_int = _values(config, "gpgpu_num_int_units", 1)[0]
    n_dp = _values(config, "gpgpu_num_dp_units", 1)[0]
    t = _empty_table(prog)
    pairs = trace_latencies(config)
    for pc, d in enumerate(prog.insts):
        inst = d.inst
        if inst is None or not d.counted:
            t.unit[pc] = _unit(OpClass.ALU_OP, n_int, n_dp)
            if inst is not None:        # a PTXPlus helper line: runs with its main line
                t.sass = True
                _set_registers(t, pc, prog, d, inst)
            continue
        t.counted[pc] = True
        op = inst.opcode
        c, la, ii = _op_latency(inst, lat, ini)
        if inst.sass is not None:       # a SASS instruction's main line: timed as the SASS opcode
            t.sass = True
            st = sass_timing(inst.sass[1], pairs)
            if st is not None and c not in _KEEP_PTX_CLASS:
                c, la, ii = OpClass[st[0]], st[1], st[2]
        if op == "call" and d.kind == "call":
            if d.extra is not None:         # a .func (printf/malloc/free run in place: ALU_OP)
                c = OpClass.CALL_OPS
                t.is_call[pc] = True
            else:
                target = dec.call_target(inst)
                t.cdp[pc] = latency_kind(getattr(target, "name", ""))
        elif op == "call":                  # indirect call
            c = OpClass.CALL_OPS
            t.is_call[pc] = True
        t.op_class[pc] = int(c)
        t.latency[pc] = la
        t.initiation[pc] = ii
        t.unit[pc] = _unit(c, n_int, n_dp)
        _set_registers(t, pc, prog, d, inst)
        if d.mem or op in ("tex", "tld4"):
            _set_memory(t, pc, prog, d, inst)
        if op in ("ldmatrix", "stmatrix"):
            _set_matrix_memory(t, pc, op == "stmatrix")
        _set_control(t, pc, d, inst)
    if t.sass:
        _sass_registers(t, prog)
    return t


_KEEP_PTX_CLASS = (*_MEM_CLASSES, OpClass.LOAD_OP, OpClass.BARRIER_OP)
_SASS_REG = re.compile(r"%u?[rp]\d+")


def _sass_registers(t: PcTable, prog: dec.Program) -> None:
    """Each SASS instruction's main line reads and writes the SASS registers (``%r``, ``%ur``,
    ``%p``, ``%up``) that any line of its expansion reads or writes: the instruction's real
    operands, register pairs and guard included, work registers left out; helper lines none."""
    real = [bool(_SASS_REG.fullmatch(nm.rsplit(":", 1)[-1])) for nm in prog.slot_names]
    groups: dict[int, list[int]] = {}
    for pc, d in enumerate(prog.insts):
        if d.inst is not None and d.inst.sass is not None and d.inst.sass[0] >= 0:
            groups.setdefault(d.inst.sass[0], []).append(pc)
    main: dict[int, int] = {}
    for k, pcs in groups.items():
        for pc in pcs:
            if prog.insts[pc].counted:
                main[k] = pc
    for k, pcs in groups.items():
        m = main.get(k, -1)
        dsts: list[int] = []
        srcs: list[int] = []
        for pc in pcs:
            dsts.extend(r for r in t.dst_regs[pc] if real[r])
            srcs.extend(r for r in t.src_regs[pc] if real[r])
            if pc != m:
                t.dst_regs[pc] = ()
                t.src_regs[pc] = ()
        if m >= 0:
            t.dst_regs[m] = _dedup(dsts)
            t.src_regs[m] = _dedup(srcs)


def _set_matrix_memory(t: PcTable, pc: int, store: bool) -> None:
    """``ldmatrix``/``stmatrix`` as the shared-memory loads and stores they are: LOAD_OP /
    STORE_OP on the LD/ST unit, 16-bit accesses (one per matrix row element a lane moves, bank
    conflicts counted as for ``ld.shared``/``st.shared``); ``stmatrix``'s address register is a
    source, not a destination."""
    t.op_class[pc] = int(OpClass.STORE_OP if store else OpClass.LOAD_OP)
    t.unit[pc] = int(Unit.MEM)
    t.latency[pc] = 1
    t.initiation[pc] = 1
    t.is_load[pc] = not store
    t.is_store[pc] = store
    t.width_bytes[pc] = 2
    t.cache_op[pc] = "wb" if store else "ca"
    if store:
        t.src_regs[pc] = tuple(sorted(set(t.src_regs[pc]) | set(t.dst_regs[pc])))
        t.dst_regs[pc] = ()


def _empty_table(prog: dec.Program) -> PcTable:
    """A table for ``prog`` with every pc a plain ALU instruction."""
    n = len(prog.insts)
    return PcTable(
        n=n,
        op_class=np.full(n, int(OpClass.ALU_OP), dtype=np.int8),
        unit=np.zeros(n, dtype=np.int8),
        latency=np.ones(n, dtype=np.int32),
        initiation=np.ones(n, dtype=np.int32),
        dst_regs=[()] * n, src_regs=[()] * n, mem_space=[""] * n,
        is_load=np.zeros(n, dtype=bool), is_store=np.zeros(n, dtype=bool),
        is_atomic=np.zeros(n, dtype=bool), is_param_load=np.zeros(n, dtype=bool),
        width_bytes=np.zeros(n, dtype=np.int32), vec_len=np.ones(n, dtype=np.int32), cache_op=[""] * n,
        param_offset=np.full(n, -1, dtype=np.int64),
        is_barrier=np.zeros(n, dtype=bool), bar_kind=[""] * n,
        bar_id=np.zeros(n, dtype=np.int32), bar_count=np.full(n, -1, dtype=np.int32),
        is_membar=np.zeros(n, dtype=bool), is_exit=np.zeros(n, dtype=bool),
        is_branch=np.zeros(n, dtype=bool), is_call=np.zeros(n, dtype=bool),
        is_ret=np.zeros(n, dtype=bool), cdp=np.zeros(n, dtype=np.int8), counted=np.zeros(n, dtype=bool),
        opcode=list(prog.opcode_of))


def _set_registers(t: PcTable, pc: int, prog: dec.Program, d: Any, inst: Any) -> None:
    """The scoreboard's view of the instruction at ``pc``: the registers it writes and reads
    (guard predicate and carry flag included)."""
    op = inst.opcode
    mods = inst.mods
    fi = d.func
    ops = inst.operands
    srcs: list[int] = []
    dsts: list[int] = []
    if op == "bar" or op == "barrier":
        if "red" in mods and ops:
            dsts = _regs(fi, ops[:1])
            srcs = _regs(fi, ops[1:])
        else:
            srcs = _regs(fi, ops)
    elif op == "call":
        tgt = dec.call_target(inst)
        srcs = _regs(fi, [tgt] if tgt is not None else [])
    elif op in _NO_DST or not ops or (op == "wmma" and "store" in mods):   # [addr], fragment
        srcs = _regs(fi, ops)
    else:
        dsts = _regs(fi, ops[:1])
        srcs = _regs(fi, ops[1:])
    if inst.guard is not None:
        s = fi.slots.get(inst.guard[0].name)
        if s is not None:
            srcs.append(s)
    if "cc" in mods:
        dsts.append(prog.cc_slot)
    if op in ("addc", "subc", "madc"):
        srcs.append(prog.cc_slot)
    t.dst_regs[pc] = _dedup(dsts)
    t.src_regs[pc] = _dedup(srcs)


def _set_memory(t: PcTable, pc: int, prog: dec.Program, d: Any, inst: Any) -> None:
    """What the LD/ST unit needs of a memory instruction: space, width, vector length, kind
    (load, store, atomic, parameter load) and cache operator (explicit or the default)."""
    op = inst.opcode
    mods = inst.mods
    ops = inst.operands
    sp = _space(inst)
    t.mem_space[pc] = sp
    vec = 1
    for m in mods:
        if m in ("v2", "v4", "v8"):
            vec = int(m[1])
    tys = inst.types
    if op == "cp":
        w = int(ops[2].value) if len(ops) > 2 and isinstance(ops[2], ir.Imm) else 0
    else:
        w = ir.TYPE_SIZES.get(tys[-1], 0) * vec if tys else 0
    t.width_bytes[pc] = w
    if op != "cp":
        t.vec_len[pc] = vec
    if op in ("atom", "red"):
        t.is_atomic[pc] = True
    elif op == "st":
        t.is_store[pc] = True
    else:
        t.is_load[pc] = True
        if op == "ld" and sp == "param":
            t.is_param_load[pc] = True
            t.param_offset[pc] = _param_offset(prog, d, inst)
    explicit = next((m for m in mods if m in _CACHE_OPS), "")
    if explicit:
        t.cache_op[pc] = explicit
    elif op in ("ld", "ldu") or (op == "wmma" and "load" in mods):
        t.cache_op[pc] = "ca"
    elif op == "st" or (op == "wmma" and "store" in mods):
        t.cache_op[pc] = "wb"
    elif op in ("atom", "red"):
        t.cache_op[pc] = "cg"


def _set_control(t: PcTable, pc: int, d: Any, inst: Any) -> None:
    """Barriers (kind, id, thread count), fences, exits, branches and returns."""
    op = inst.opcode
    ops = inst.operands
    if d.kind == "bar":
        t.is_barrier[pc] = True
        t.bar_kind[pc] = d.extra[0]
        bops = list(ops[1:-1]) if d.extra[0] == "red" else list(ops)
        if bops:
            b = bops[0]
            t.bar_id[pc] = int(b.value) if isinstance(b, ir.Imm) else -1
        if len(bops) > 1:
            b = bops[1]
            t.bar_count[pc] = int(b.value) if isinstance(b, ir.Imm) else -1
    if op in ("membar", "fence"):
        t.is_membar[pc] = True
    if d.kind == "exit":
        t.is_exit[pc] = True
    if op in ("bra", "brx"):
        t.is_branch[pc] = True
    if d.kind == "ret":
        t.is_ret[pc] = True
