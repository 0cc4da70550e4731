"""Pre-decoding: turn each PTX instruction into a handler with resolved operand accessors.

GPGPU-Sim counterpart: ``ptx_instruction::pre_decode`` and the ``*_impl`` dispatch of
``instructions.cc`` (checklist C214-C219).  Decoding happens once per kernel (cached on the
:class:`~gpgpusim.functional.loader.LoadedModule`); the hot path only calls closures.

Program layout
--------------
All functions reachable from the kernel are concatenated into one *global* pc space: the
kernel first, then every ``.func`` it (transitively) calls.  Each function is followed by one
pseudo instruction at ``base + len(instructions)`` (its exit point, the pc that
``reconvergence_pc`` calls "function exit"): for the kernel it retires the arriving lanes (like
``exit``), for a ``.func`` it returns to the caller (copies return parameters, pops the frame).

Registers
---------
Every register of every function gets one slot; ``Exec.R[slot]`` is a numpy array with one
element per executed thread holding the raw bits as the unsigned type of the declared width
(``pred`` registers are ``bool``).  Readers reinterpret (``view``) the bits as the instruction's
operand type; narrower/wider operand types truncate or extend as PTX's "operand size exceeding
instruction-type size" rule says (sign-extension for ``.s`` types).

Local frames
------------
Per-thread local memory holds one frame per active function: the kernel's frame at local
address 0, a callee's frame right after its caller's (``fp``).  A ``.func`` frame is
``[saved caller fp (8) | return-destination addresses (8 each) | params | return params |
.local variables | call-site .param variables | saved registers (recursive functions only)]``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from gpgpusim.errors import PtxError
from gpgpusim.functional import semantics
from gpgpusim.ptx import ir

_RAW: dict[int, np.dtype] = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
_SINT: dict[int, np.dtype] = {1: np.dtype(np.int8), 2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}

_FALLBACK_DT: dict[str, type] = {
    "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "b8": np.uint8, "b16": np.uint16, "b32": np.uint32, "b64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64, "pred": np.bool_,
    "f16x2": np.uint32, "bf16": np.uint16, "bf16x2": np.uint32, "tf32": np.uint32,
}


def dtype_of(ptx_type: str) -> np.dtype:
    """numpy dtype of a PTX type (the semantics module's rule, with a local fallback)."""
    try:
        return np.dtype(semantics.dtype_of(ptx_type))
    except AttributeError:
        return np.dtype(_FALLBACK_DT[ptx_type])  # type: ignore[no-any-return]


def raw_dtype(ptx_type: str) -> np.dtype:
    """Storage dtype of a register of ``ptx_type``: unsigned of the same width, bool for pred."""
    if ptx_type == "pred":
        return np.dtype(np.bool_)
    return _RAW[ir.TYPE_SIZES[ptx_type]]


def is_signed(ptx_type: str) -> bool:
    return ptx_type.startswith("s")


# ----------------------------------------------------------------------------- data classes
@dataclass(slots=True)
class FuncInfo:
    """Per-function layout: pc base, frame layout, register slots."""

    fn: ir.Function
    base: int
    end: int                                   # pc of the exit pseudo instruction
    slots: dict[str, int] = field(default_factory=dict)
    local_off: dict[str, int] = field(default_factory=dict)   # .local vars and call-site params
    param_off: dict[str, int] = field(default_factory=dict)   # own params (for .func)
    ret_off: dict[str, int] = field(default_factory=dict)     # own return params
    frame_bytes: int = 0
    save_off: int = 0                          # saved registers area (recursive functions)
    recursive: bool = False
    fend: Callable[..., Any] | None = None      # exit pseudo-instruction handler (set by call decode)


@dataclass(slots=True)
class DInst:
    """One pre-decoded instruction (global pc ``pc``)."""

    pc: int
    inst: ir.Instruction | None
    func: FuncInfo
    kind: str                                  # 'alu' 'bra' 'exit' 'ret' 'call' 'bar' 'fend' 'kend' 'nop' 'warp' 'unsup'
    run: Callable[..., Any] = field(default=lambda ex, sel: None)   # run(ex, sel) for data instructions
    guard: int = -1                            # pred slot, -1 = unguarded
    guard_neg: bool = False
    target: int = -1                           # branch target / callee base
    rpc: int = -1                              # reconvergence pc (global)
    line: int = 0
    text: str = ""
    extra: Any = None
    mem: bool = False
    #: an instruction the counts, the line statistics and the timing model see: every PTX
    #: instruction; of PTXPlus text only each SASS instruction's main line (``ir.Instruction.sass``)
    counted: bool = True
    #: the lanes the thread count takes: -2 those of ``guard`` (every instruction of PTX), -1
    #: every active lane, else this predicate slot (negated with ``count_guard_neg``): a PTXPlus
    #: branch whose guard combines its SASS guard with another predicate counts the SASS guard
    count_guard: int = -2
    count_guard_neg: bool = False


@dataclass(slots=True)
class Program:
    """A kernel and its callees, pre-decoded."""

    kernel: ir.Function
    insts: list[DInst]
    funcs: dict[str, FuncInfo]
    slot_dtypes: list[np.dtype]
    slot_names: list[str]
    smem_off: dict[str, int]
    static_smem: int
    kernel_params: dict[str, tuple[int, int]]   # name -> (offset, size)
    cc_slot: int
    opcode_of: list[str]
    filename: str
    decode_error: dict[int, str] = field(default_factory=dict)
    reads_clock: bool = False                  # some instruction reads %clock / %clock64
    thread_bytes: int = 0                      # registers + every function's frame, per thread

    @property
    def kernel_frame(self) -> int:
        return self.funcs[self.kernel.name].frame_bytes


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _callees(fn: ir.Function) -> list[str]:
    out = []
    for inst in fn.instructions:
        if inst.opcode == "call":
            target = call_target(inst)
            if isinstance(target, ir.Label):
                out.append(target.name)
    return out


def address_taken(module: ir.Module) -> list[str]:
    """Functions (with a body) whose address appears as a value: in an instruction operand or
    a variable initialiser."""
    names: list[str] = []

    def see(name: str) -> None:
        f = module.functions.get(name)
        if f is not None and f.instructions and not f.is_entry and name not in names:
            names.append(name)
    for fn in module.functions.values():
        for inst in fn.instructions:
            for op in inst.operands:
                if isinstance(op, ir.Sym):
                    see(op.name)
                elif isinstance(op, ir.Addr) and isinstance(op.base, ir.Sym):
                    see(op.base.name)
    for var in module.variables.values():
        for v in var.init or ():
            if isinstance(v, ir.Sym):
                see(v.name)
            elif isinstance(v, ir.Addr) and isinstance(v.base, ir.Sym):
                see(v.base.name)
            elif hasattr(v, "mask") and hasattr(v, "name"):
                see(v.name)
    return names


def call_target(inst: ir.Instruction) -> ir.Operand | None:
    """The callee operand of ``call``: the first operand that is not a parameter list (a Label
    for a direct call, a register for an indirect one)."""
    for op in inst.operands:
        if not isinstance(op, ir.ParamList):
            return op
    return None


_BUILTIN_FUNCS = ("vprintf", "malloc", "free", "__assertfail")


def build_program(module: ir.Module, kernel: ir.Function, make_handler: Callable[..., DInst]) -> Program:
    """Lay out the kernel and its callees; ``make_handler(prog, fi, pc, inst)`` decodes one inst."""
    order = [kernel.name]
    graph: dict[str, list[str]] = {}
    # functions whose address is taken may be called indirectly: lay them out too, and save
    # their registers across calls (an indirect edge can close a recursion cycle)
    taken = address_taken(module)
    i = 0
    while i < len(order) or any(t not in order for t in taken):
        if i == len(order):
            order.append(next(t for t in taken if t not in order))
        name = order[i]
        fn = module.functions[name]
        callees = []
        for c in _callees(fn):
            if c not in module.functions:
                raise PtxError(f"{module.filename}: {name} calls undefined function {c!r}")
            # bodiless (.extern) callees are the device runtime's: vprintf/malloc/free/assert are
            # built in; any other one decodes to an instruction that raises NotSupported when run
            if module.functions[c].instructions:
                callees.append(c)
        graph[name] = callees
        for c in callees:
            if c not in order:
                order.append(c)
        i += 1
    recursive = _recursive_set(graph)

    funcs: dict[str, FuncInfo] = {}
    slot_dtypes: list[np.dtype] = []
    slot_names: list[str] = []
    pc = 0
    for name in order:
        fn = module.functions[name]
        fi = FuncInfo(fn=fn, base=pc, end=pc + len(fn.instructions))
        pc = fi.end + 1
        for reg, typ in fn.regs.items():
            fi.slots[reg] = len(slot_dtypes)
            slot_dtypes.append(raw_dtype(typ) if typ in ir.TYPE_SIZES else np.dtype(np.uint32))
            slot_names.append(f"{name}:{reg}")
        fi.recursive = name in recursive or name in taken
        fi.param_off, fi.ret_off, fi.local_off, off = frame_layout(fn)
        if fi.recursive:
            off = _align(off, 8)
            fi.save_off = off
            off += 8 * len(fn.regs)
        fi.frame_bytes = _align(max(off, 0), 16)
        funcs[name] = fi
    cc_slot = len(slot_dtypes)
    slot_dtypes.append(np.dtype(np.uint32))
    slot_names.append("%cc")

    smem_off, static_smem = shared_layout(module, order)

    kparams = {p.name: (p.offset, p.size_bytes) for p in kernel.params}
    prog = Program(kernel=kernel, insts=[], funcs=funcs, slot_dtypes=slot_dtypes,
                   slot_names=slot_names, smem_off=smem_off, static_smem=static_smem,
                   kernel_params=kparams, cc_slot=cc_slot, opcode_of=[], filename=kernel.filename or module.filename)
    for name in order:
        fi = funcs[name]
        for k, inst in enumerate(fi.fn.instructions):
            d = make_handler(prog, fi, fi.base + k, inst)
            if inst.sass is not None:
                d.counted = inst.sass[2]
                if inst.count_guard is not None:
                    reg, neg = inst.count_guard
                    if reg and reg not in fi.slots:
                        raise PtxError(f"{fi.fn.filename or module.filename}:{inst.line}: the count guard {reg} "
                                       f"is not declared in {name}")
                    d.count_guard = fi.slots[reg] if reg else -1
                    d.count_guard_neg = neg
            prog.insts.append(d)
            prog.opcode_of.append(inst.opcode)
        end = DInst(pc=fi.end, inst=None, func=fi, kind="kend" if fi.fn.is_entry else "fend",
                    line=0, text="<end of " + name + ">", counted=False)
        prog.insts.append(end)
        prog.opcode_of.append("exit" if fi.fn.is_entry else "ret")
    for fi in funcs.values():
        if not fi.fn.is_entry:
            prog.insts[fi.end].run = fi.fend or (lambda ex, sel: None)
    prog.thread_bytes = sum(dt.itemsize for dt in slot_dtypes) + sum(fi.frame_bytes for fi in funcs.values())
    prog.reads_clock = any(isinstance(op, ir.Special) and op.name in ("%clock", "%clock64")
                           for d in prog.insts if d.inst is not None for op in d.inst.operands)
    return prog


def frame_layout(fn: ir.Function) -> tuple[dict[str, int], dict[str, int], dict[str, int], int]:
    """Offsets in ``fn``'s local frame: ``(params, return params, .local/.param variables,
    end)`` (see "Local frames" above; a kernel's frame has no header and no parameters)."""
    param_off: dict[str, int] = {}
    ret_off: dict[str, int] = {}
    local_off: dict[str, int] = {}
    off = 0
    if not fn.is_entry:
        off = 8 + 8 * len(fn.ret_params)
        for p in fn.params:
            off = _align(off, max(p.alignment, 1))
            param_off[p.name] = off
            off += p.size_bytes
        for p in fn.ret_params:
            off = _align(off, max(p.alignment, 1))
            ret_off[p.name] = off
            off += p.size_bytes
    for v in fn.variables:
        if v.space in ("local", "param"):
            off = _align(off, max(v.alignment, 1))
            local_off[v.name] = off
            off += v.size_bytes
    return param_off, ret_off, local_off, off


def shared_layout(module: ir.Module, functions: list[str]) -> tuple[dict[str, int], int]:
    """Shared-memory offsets of a kernel whose program holds ``functions`` (kernel first):
    module-scope then function-scope static variables in that order, each aligned; every
    ``.extern`` (dynamic) array starts at the 16-byte aligned end.  Returns the offsets and
    the static size."""
    smem_off: dict[str, int] = {}
    off = 0
    shared_vars = [v for v in module.variables.values() if v.space == "shared"]
    for name in functions:
        shared_vars += [v for v in module.functions[name].variables if v.space == "shared"]
    externs = []
    for v in shared_vars:
        if v.extern or v.count == 0:
            externs.append(v)
            continue
        off = _align(off, max(v.alignment, 1))
        smem_off[v.name] = off
        off += v.size_bytes
    dyn_base = _align(off, 16) if externs else off
    for v in externs:
        smem_off[v.name] = dyn_base
    return smem_off, off


def _recursive_set(graph: dict[str, list[str]]) -> set[str]:
    """Functions on a cycle of the call graph (their registers are saved across calls)."""
    out = set()
    for start in graph:
        stack = list(graph.get(start, ()))
        seen = set()
        while stack:
            n = stack.pop()
            if n == start:
                out.add(start)
                break
            if n in seen:
                continue
            seen.add(n)
            stack.extend(graph.get(n, ()))
    return out


def debug_level() -> int:
    try:
        return int(os.environ.get("PTX_SIM_DEBUG", "0") or 0)
    except ValueError:
        return 0
