"""SASS (sm_75 / sm_86, as nvdisasm prints it) to PTXPlus text (checklist C007, C009, C232-C238).

GPGPU-Sim's PTXPlus is PTX whose registers, predicates and addressing follow the native ISA so
that the functional engine runs what the hardware runs.  Upstream only converted sm_1x; this
converter takes the Turing/Ampere SASS of :mod:`cuobjdump_tools.sass` and writes text that the
lark PTX front end parses unchanged and the functional engine runs like any PTX.

Conventions of the text (what a reader of a ``-gpgpu_ptx_save_converted_ptxplus`` file sees):

* **Registers** (C233): SASS ``R<n>`` is ``%r<n>`` (``.b32``), uniform ``UR<n>`` is ``%ur<n>``,
  predicates ``P<n>``/``UP<n>`` are ``%p<n>``/``%up<n>``.  ``RZ``/``URZ`` read as ``0``; a write to
  them goes to the sink ``%rz``; ``PT`` reads as true (folded where it combines with another
  predicate, else the register ``%pt``, set once at entry), a write to ``PT`` goes to ``%pz``.
  Uniform registers hold the same value in every lane, so per-lane registers are exact.
* **64-bit values** live in register pairs (``R4`` low, ``R5`` high) as on the hardware:
  ``mov.b64 %d0, {%r4, %r5}`` gathers a pair, ``mov.b64 {%r4, %r5}, %d0`` scatters one.  Work
  registers ``%t<n>`` (``.b32``), ``%d<n>`` (``.b64``) and ``%q<n>`` (``.pred``) hold values
  inside one SASS instruction's expansion only.
* **Constant banks** (C234): ``c[0x0][x]`` reads the launch's values: ``0x0-0x8`` ``%ntid``,
  ``0xc-0x14`` ``%nctaid``, ``0x28`` the local-memory stack top (the frame size, or 1 KiB,
  CUDA's default stack limit, for a kernel that calls subroutines: ``R1`` then addresses the
  ``.local`` array ``__sass_frame``), ``0x20`` (64-bit) the generic address of
  local address 0 (the engine's local window, so ``R1 + c[0x0][0x20]`` is a generic pointer
  into the stack that ``LD``/``ST`` resolve), ``0x118`` the global-memory descriptor
  (0: ``desc[UR][...]`` operands are not modelled), and from the kernel's parameter offset
  (``EIATTR_PARAM_CBANK``, 0x160) its parameters through ``ld.param`` of the PTX entry's own
  parameter names; ``0x8c``/``0x90`` hold the grid-sync workspace of a cooperative launch
  (``%envreg1``/``%envreg2``).  ``c[0x3][x]`` (``__constant__`` variables) reads the module's
  ``.const`` variable at that offset of the cubin's ``.nv.constant3``; ``c[0x2][x]`` (literals ptxas placed in ``.nv.constant2``) reads the cubin's bytes, and
  ``c[0x4][x]`` (addresses of ``__device__`` variables, relocated ``R_CUDA_64`` entries of
  ``.nv.constant4``) the variable's address (``mov.u64 %d, symbol``).
* **Memory** (C235): ``[R<n>]`` of ``LDG``/``STG``/``RED``/``ATOM`` (``.E``) and ``[R<n>.64]``
  are 64-bit addresses held in a pair, ``[UR<n>]`` in a uniform pair, and ``[R<n>.64+UR<m>]``
  the sum of the two pairs; ``LDS``/``STS``/``ATOMS`` take 32-bit offsets in the CTA's
  shared memory, which the text declares as ``__sass_shared`` at offset 0 (static bytes from
  ``.nv.shared.<kernel>``, dynamic shared memory after it); ``.X4``/``.X8``/``.X16`` scale.
* **Guards** (C236): ``@P0 OP`` puts ``@%p0`` on every line of the expansion that writes a SASS
  register, predicate or memory or changes control flow; work-register lines run unguarded,
  before them, so a guard predicate the instruction overwrites is read first.
* **Control flow and reconvergence** (C237, C238): ``BRA``/``EXIT`` become ``bra``/``exit``
  with labels ``$L<offset>``.  Reconvergence is GPGPU-Sim's PTXPlus choice: the SIMT stack
  reconverges at each branch's immediate post-dominator, computed by
  :mod:`gpgpusim.ptx.cfg` on the converted text exactly as for PTX.  The convergence barriers
  (``BSSY``/``BSYNC``, ``BMOV``, ``WARPSYNC``) are dropped: in the structured code nvcc emits a
  ``BSSY``'s target is the post-dominator of the branches it guards, so both give the same
  reconvergence points, and post-dominators need no barrier registers in the engine.
  ``CALL.REL`` (a subroutine in the kernel's own code) is a branch to its label and
  ``RET.REL Rn`` a branch back to the call site whose offset Rn holds (nvcc loads the return
  offset into Rn before the call), so calls, recursion included, reconverge like any branch;
  ``CALL.ABS`` of CUDA's device runtime (``vprintf``, ``malloc``, ``free``, ``__assertfail``)
  becomes a PTX ``call`` of that function with the ABI's argument registers.

Dynamic instruction counts are of the PTXPlus lines: a SASS instruction that reads a constant
bank or a register pair expands to several lines.

The semantics are inferred (NVIDIA documents SASS opcodes by name only) from how nvcc 13 uses
each form, and ``tests/ptxplus/test_semantics.py`` pins them at their edges.  An opcode,
modifier or operand form this converter does not handle raises :class:`UnsupportedSass`
naming it: nothing unhandled runs.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, field
from typing import Callable

from cuobjdump_tools.sass import SassFunction, SassInstruction
from gpgpusim.functional.state import LOCAL_WINDOW

PARAM_CBANK_DEFAULT = 0x160  # sm_70 - sm_89
NTID_OFFSETS = {0x0: "%ntid.x", 0x4: "%ntid.y", 0x8: "%ntid.z",
                0xC: "%nctaid.x", 0x10: "%nctaid.y", 0x14: "%nctaid.z"}
STACK_TOP_OFFSET = 0x28
DEFAULT_STACK_BYTES = 1024   # cudaLimitStackSize's default
LOCAL_WINDOW_OFFSET = 0x20   # 64-bit: generic address of local address 0 (R1 + it = generic stack)
MEMDESC_OFFSET = 0x118
#: the cooperative launch's grid-barrier workspace pointer: high word at 0x8c, low word at 0x90
#: (the engine's %envreg1 / %envreg2, which the PTX of grid.sync() reads)
ENVREG_OFFSETS = {0x8C: "%envreg1", 0x90: "%envreg2"}

SPECIAL_REGS = {
    "SR_TID.X": "%tid.x", "SR_TID.Y": "%tid.y", "SR_TID.Z": "%tid.z",
    "SR_CTAID.X": "%ctaid.x", "SR_CTAID.Y": "%ctaid.y", "SR_CTAID.Z": "%ctaid.z",
    "SR_LANEID": "%laneid", "SR_CLOCKLO": "%clock", "SR_SMID": "%smid",
    "SR_EQMASK": "%lanemask_eq", "SR_LTMASK": "%lanemask_lt", "SR_LEMASK": "%lanemask_le",
    "SR_GTMASK": "%lanemask_gt", "SR_GEMASK": "%lanemask_ge",
}


#: CUDA's device-runtime functions a ``CALL.ABS`` may reach (through a function address in
#: ``c[0x4][]``): the token their address reads as, the ABI registers of their arguments (a pair
#: for 64-bit ones), and their PTX declaration.  Results come back in R4 (R4:R5 for pointers).
BUILTINS: dict[str, tuple[int, list[tuple[int, str]], str]] = {
    "vprintf": (0x7FF00001, [(4, "b64"), (6, "b64")],
                ".extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, "
                ".param .b64 vprintf_param_1);"),
    "malloc": (0x7FF00002, [(4, "b64")],
               ".extern .func (.param .b64 func_retval0) malloc (.param .b64 malloc_param_0);"),
    "free": (0x7FF00003, [(4, "b64")], ".extern .func free (.param .b64 free_param_0);"),
    "__assertfail": (0x7FF00004, [(4, "b64"), (6, "b64"), (8, "b32"), (10, "b64"), (12, "b64")],
                     ".extern .func __assertfail (.param .b64 __assertfail_param_0, .param .b64 "
                     "__assertfail_param_1, .param .b32 __assertfail_param_2, .param .b64 "
                     "__assertfail_param_3, .param .b64 __assertfail_param_4);"),
}
_RET_TYPES = {"vprintf": "b32", "malloc": "b64"}


class UnsupportedSass(Exception):
    """A SASS instruction the converter does not handle; ``opcode`` names it."""

    def __init__(self, opcode: str, detail: str = "") -> None:
        super().__init__(opcode if not detail else f"{opcode} ({detail})")
        self.opcode = opcode
        self.detail = detail


@dataclass(frozen=True)
class ParamSlot:
    name: str     # the PTX entry's parameter name
    offset: int   # byte offset in the parameter buffer
    size: int


@dataclass
class KernelContext:
    """What the conversion of one kernel needs besides its SASS."""

    name: str
    params: list[ParamSlot] = field(default_factory=list)
    param_decls: list[str] = field(default_factory=list)   # ".param .u64 name" as in the PTX
    param_base: int = PARAM_CBANK_DEFAULT
    static_smem: int = 0
    dynamic_smem: bool = True
    frame_bytes: int = 0
    const3: list[tuple[int, int, str]] = field(default_factory=list)  # (offset, size, symbol)
    const2: bytes = b""   # the cubin's .nv.constant2 (compiler-generated literals)
    const4: dict[int, tuple[str, int]] = field(default_factory=dict)  # offset -> (symbol, addend)
    #: device function -> the value a pointer to it holds in the engine (loader.function_handle)
    func_handles: dict[str, int] = field(default_factory=dict)


# ----------------------------------------------------------------------------- operands
_REG = re.compile(r"^(?P<pre>[-~!]?)(?P<abs>\|?)(?P<name>RZ|URZ|PT|UPT|R\d+|UR\d+|P\d|UP\d)(?P=abs)"
                  r"(?P<suf>(\.[A-Z0-9_]+)*)$")
_CONST = re.compile(r"^(?P<pre>[-~]?)(?P<abs>\|?)c\[(?P<bank>0x[0-9a-f]+)\]\[(?P<off>0x[0-9a-f]+)\](?P=abs)$")
_INT = re.compile(r"^-?0x[0-9a-f]+$|^-?\d+$")
_FLOAT = re.compile(r"^[-+]?(\d+(\.\d*)?([eE][-+]?\d+)?|INF|QNAN|NAN)$")


@dataclass(frozen=True)
class Opnd:
    kind: str        # "r" (R), "ur", "p", "up", "rz", "pt", "c", "imm", "fimm"
    num: int = 0
    neg: bool = False   # '-' (arithmetic negation)
    inv: bool = False   # '~' (bitwise) or '!' (predicate)
    abs: bool = False
    suffix: tuple[str, ...] = ()
    bank: int = 0
    text: str = ""


def parse_operand(text: str) -> Opnd:
    t = text.strip().replace(".reuse", "")
    m = _REG.match(t)
    if m:
        name, pre = m["name"], m["pre"]
        suf = tuple(s for s in m["suf"].split(".") if s)
        common = dict(neg=pre == "-", inv=pre in ("~", "!"), abs=bool(m["abs"]), suffix=suf, text=t)
        if name in ("RZ", "URZ"):
            return Opnd("rz", **common)  # type: ignore[arg-type]
        if name in ("PT", "UPT"):
            return Opnd("pt", **common)  # type: ignore[arg-type]
        for prefix, kind in (("UR", "ur"), ("UP", "up"), ("R", "r"), ("P", "p")):
            if name.startswith(prefix) and name[len(prefix):].isdigit():
                return Opnd(kind, int(name[len(prefix):]), **common)  # type: ignore[arg-type]
    m = _CONST.match(t)
    if m:
        return Opnd("c", int(m["off"], 16), neg=m["pre"] == "-", inv=m["pre"] == "~", abs=bool(m["abs"]),
                    bank=int(m["bank"], 16), text=t)
    if _INT.match(t):
        return Opnd("imm", int(t, 0) if "x" in t else int(t), text=t)
    if _FLOAT.match(t):
        return Opnd("fimm", text=t)
    raise UnsupportedSass("operand", t)


def f32_bits(text: str) -> int:
    t = text.lstrip("+")
    if t in ("INF", "-INF"):
        v = float("-inf") if t.startswith("-") else float("inf")
    elif t.lstrip("-") in ("QNAN", "NAN"):
        return 0x7FFFFFFF if not t.startswith("-") else 0xFFFFFFFF
    else:
        v = float(t)
    return int(struct.unpack("<I", struct.pack("<f", v))[0])


def f64_bits(text: str) -> int:
    t = text.lstrip("+")
    if t.lstrip("-") in ("QNAN", "NAN"):
        return 0x7FFFFFFFFFFFFFFF
    v = float(t.replace("INF", "inf"))
    return int(struct.unpack("<Q", struct.pack("<d", v))[0])


# ----------------------------------------------------------------------------- emitter
class _Exp:
    """The PTXPlus lines of one SASS instruction: unguarded work lines, then guarded lines."""

    def __init__(self, conv: Converter, guard: str) -> None:
        self.conv = conv
        self.guard = guard
        self.work: list[str] = []
        self.arch: list[str] = []
        self.nt = self.nd = self.nq = self.nh = 0
        #: the first line is the main line (an expansion that branches away from several of
        #: its lines: every execution of the SASS instruction runs its first line)
        self.lead = False

    def t(self) -> str:
        self.nt += 1
        return f"%t{self.nt - 1}"

    def d(self) -> str:
        self.nd += 1
        return f"%d{self.nd - 1}"

    def q(self) -> str:
        self.nq += 1
        return f"%q{self.nq - 1}"

    def h(self) -> str:
        self.nh += 1
        return f"%h{self.nh - 1}"

    def w(self, line: str) -> None:
        self.work.append(line)

    def a(self, line: str) -> None:
        self.arch.append(line)

    def lines(self) -> list[str]:
        g = f"@{self.guard} " if self.guard else ""
        return self.work + [g + ln for ln in self.arch]

    def main_index(self) -> int:
        """The index in :meth:`lines` of the main line (see "Counting and timing" in the module
        docstring): the first line when :attr:`lead` is set, else the first guarded line that
        accesses memory or changes control flow, else the last guarded line, else the last
        work line; -1 for an empty expansion."""
        if self.lead:
            return 0 if self.work or self.arch else -1
        for k, ln in enumerate(self.arch):
            if _opcode_of(ln) in MAIN_OPCODES:
                return len(self.work) + k
        if self.arch:
            return len(self.work) + len(self.arch) - 1
        return len(self.work) - 1


#: PTX opcodes that carry a SASS instruction's memory access or control flow: the main line
MAIN_OPCODES = frozenset(("ld", "ldu", "st", "atom", "red", "tex", "tld4", "suld", "sust", "bra", "exit",
                          "call", "ret", "trap", "bar", "barrier", "membar", "fence", "mma", "ldmatrix",
                          "shfl", "vote", "match", "redux", "activemask"))
#: the trailing comment that marks a SASS instruction's main line in the text
MAIN_MARK = "//@main"
#: the line a SASS instruction that has no PTXPlus lines (a convergence barrier, ``NOP``, an
#: instruction guarded by ``!PT``) becomes, so that it is issued and counted as the hardware does
PLACEHOLDER = "pmevent 0;"


def _opcode_of(line: str) -> str:
    """The PTX opcode of one line of an expansion ("" for labels, braces and declarations)."""
    t = line.strip()
    if t.startswith("@"):
        t = t.split(None, 1)[1] if " " in t else ""
    if not t or t[0] in "{}.$" or t.endswith(":"):
        return ""
    return t.split(None, 1)[0].split(".", 1)[0]


class Converter:
    """Converts one kernel's SASS into a PTXPlus ``.entry``."""

    def __init__(self, fn: SassFunction, ctx: KernelContext) -> None:
        self.fn = fn
        self.ctx = ctx
        self.used: dict[str, set[int]] = {"r": set(), "ur": set(), "p": set(), "up": set()}
        self.max_t = self.max_d = self.max_q = self.max_h = 0
        self.need_pt = self.need_rz = self.need_pz = self.need_bres = False
        self.targets: set[int] = set()
        self.ret_sites: list[int] = []   # offsets after each CALL.REL: where a RET can go
        calls = any(i.opcode == "CALL" for i in fn.instructions)
        # the per-thread stack: the kernel's frame, or CUDA's default stack limit (1 KiB) when it
        # calls subroutines (recursion grows the stack below the frame)
        self.stack_bytes = max(ctx.frame_bytes, DEFAULT_STACK_BYTES) if calls else ctx.frame_bytes

    def pointer_targets(self) -> list[tuple[int, int]]:
        """``(function handle, offset)`` of the device functions placed in this kernel's code
        (labels ``$kernel$function``) that a function pointer can name."""
        out = []
        for name, handle in sorted(self.ctx.func_handles.items()):
            off = self.fn.labels.get(f"${self.fn.name}${name}")
            if off is not None:
                out.append((handle, off))
        return out

    def call_target(self, ins: SassInstruction) -> int | None:
        """The offset a ``CALL.REL`` jumps to (an offset or a label of the function), or None."""
        if len(ins.operands) != 1:
            return None
        op = ins.operands[0].strip("`() ")
        if op.startswith("0x"):
            return int(op, 16)
        return self.fn.labels.get(op)

    # ------------------------------------------------------------- register names
    def reg(self, kind: str, n: int) -> str:
        self.used[kind].add(n)
        return f"%{kind}{n}"

    def dst(self, o: Opnd) -> str:
        """A 32-bit destination register name."""
        if o.kind == "rz":
            self.need_rz = True
            return "%rz"
        if o.kind in ("r", "ur") and not (o.neg or o.inv or o.abs):
            return self.reg(o.kind, o.num)
        raise UnsupportedSass("destination", o.text)

    def dst_pair(self, o: Opnd) -> str:
        if o.kind == "rz":
            self.need_rz = True
            return "{%rz, %rz}"
        if o.kind in ("r", "ur"):
            return f"{{{self.reg(o.kind, o.num)}, {self.reg(o.kind, o.num + 1)}}}"
        raise UnsupportedSass("destination", o.text)

    def pdst(self, o: Opnd) -> str:
        if o.kind == "pt" and not o.inv:
            self.need_pz = True
            return "%pz"
        if o.kind in ("p", "up") and not o.inv:
            return self.reg(o.kind, o.num)
        raise UnsupportedSass("predicate destination", o.text)

    def guard(self, pred: str) -> str | None:
        """The PTX guard for SASS ``pred`` ("" = none); None when the guard is never true."""
        if not pred:
            return ""
        o = parse_operand(pred)
        if o.kind == "pt":
            return None if o.inv else ""
        if o.kind in ("p", "up"):
            return ("!" if o.inv else "") + self.reg(o.kind, o.num)
        raise UnsupportedSass("guard", pred)

    # ------------------------------------------------------------- source values
    def const_load(self, e: _Exp, bank: int, off: int, bits: int) -> str:
        """A constant-bank word (bits 32) or pair (bits 64) into a work register."""
        dest = e.t() if bits == 32 else e.d()
        b = f"b{bits}"
        if bank == 0:
            if off in NTID_OFFSETS and bits == 32:
                e.w(f"mov.u32 {dest}, {NTID_OFFSETS[off]};")
                return dest
            if off == STACK_TOP_OFFSET and bits == 32:
                e.w(f"mov.u32 {dest}, {self.stack_bytes};")
                return dest
            if off in (LOCAL_WINDOW_OFFSET, LOCAL_WINDOW_OFFSET + 4) and (bits == 32 or off == LOCAL_WINDOW_OFFSET):
                v = LOCAL_WINDOW >> (32 if off == LOCAL_WINDOW_OFFSET + 4 else 0)
                e.w(f"mov.{b} {dest}, {v & ((1 << bits) - 1)};")
                return dest
            if off in ENVREG_OFFSETS and bits == 32:
                e.w(f"mov.u32 {dest}, {ENVREG_OFFSETS[off]};")
                return dest
            if off == MEMDESC_OFFSET:
                e.w(f"mov.{b} {dest}, 0;")
                return dest
            rel = off - self.ctx.param_base
            for p in self.ctx.params:
                if p.offset <= rel and rel + bits // 8 <= p.offset + p.size:
                    k = rel - p.offset
                    e.w(f"ld.param.{b} {dest}, [{p.name}{'+' + str(k) if k else ''}];")
                    return dest
            if bits == 64:  # a pair of words from two parameters (ULDC.64 of two ints)
                lo = self.const_load(e, bank, off, 32)
                hi = self.const_load(e, bank, off + 4, 32)
                e.w(f"mov.b64 {dest}, {{{lo}, {hi}}};")
                return dest
            raise UnsupportedSass("constant", f"c[0x0][{off:#x}]")
        if bank == 2 and off + bits // 8 <= len(self.ctx.const2):
            v = int.from_bytes(self.ctx.const2[off:off + bits // 8], "little")
            e.w(f"mov.{b} {dest}, {v};")
            return dest
        if bank == 4:
            base = off - (off % 8)
            if base in self.ctx.const4 and (bits == 32 or off == base):
                sym, addend = self.ctx.const4[base]
                d = dest if bits == 64 else e.d()
                e.w(f"mov.u64 {d}, {BUILTINS[sym][0] if sym in BUILTINS else sym};")
                if addend:
                    e.w(f"add.u64 {d}, {d}, {addend};")
                if bits == 32:
                    other = e.t()
                    pair = f"{{{dest}, {other}}}" if off == base else f"{{{other}, {dest}}}"
                    e.w(f"mov.b64 {pair}, {d};")
                return dest
        if bank == 3:
            for base, size, sym in self.ctx.const3:
                if base <= off and off + bits // 8 <= base + size:
                    k = off - base
                    e.w(f"ld.const.{b} {dest}, [{sym}{'+' + str(k) if k else ''}];")
                    return dest
        raise UnsupportedSass("constant", f"c[{bank:#x}][{off:#x}]")

    def src(self, e: _Exp, o: Opnd, typ: str = "int") -> str:
        """A 32-bit source as a PTX operand (register or immediate); applies '-', '~', '|x|'."""
        if o.kind == "rz":
            v = "0"
        elif o.kind in ("r", "ur"):
            if any(s not in ("reuse",) for s in o.suffix):
                raise UnsupportedSass("operand", o.text)
            v = self.reg(o.kind, o.num)
        elif o.kind == "c":
            v = self.const_load(e, o.bank, o.num, 32)
        elif o.kind == "imm":
            if typ == "f32":
                v = f"0f{f32_bits(str(o.num)):08X}"
            else:
                return str(o.num & 0xFFFFFFFF)
        elif o.kind == "fimm":
            if typ != "f32":
                raise UnsupportedSass("operand", o.text)
            return f"0f{f32_bits(o.text):08X}"
        else:
            raise UnsupportedSass("operand", o.text)
        if typ == "f32":
            if o.abs:
                t = e.t()
                e.w(f"abs.f32 {t}, {v};")
                v = t
            if o.neg:
                t = e.t()
                e.w(f"neg.f32 {t}, {v};")
                v = t
            return v
        if o.abs:
            t = e.t()
            e.w(f"abs.s32 {t}, {v};")
            v = t
        if o.neg:
            t = e.t()
            e.w(f"neg.s32 {t}, {v};")
            v = t
        if o.inv:
            t = e.t()
            e.w(f"not.b32 {t}, {v};")
            v = t
        return v

    def src_reg(self, e: _Exp, o: Opnd, typ: str = "int") -> str:
        """Like :meth:`src` but always a register (immediates are moved into a work register)."""
        v = self.src(e, o, typ)
        if v.startswith("%"):
            return v
        t = e.t()
        e.w(f"mov.b32 {t}, {v};")
        return t

    def src64(self, e: _Exp, o: Opnd) -> str:
        """A 64-bit source (register pair, constant pair, RZ, immediate) as a PTX operand."""
        if o.neg or o.inv or o.abs:
            raise UnsupportedSass("64-bit operand", o.text)
        if o.kind == "rz":
            return "0"
        if o.kind == "imm":
            return str(o.num & 0xFFFFFFFFFFFFFFFF)
        if o.kind == "c":
            return self.const_load(e, o.bank, o.num, 64)
        if o.kind in ("r", "ur"):
            d = e.d()
            e.w(f"mov.b64 {d}, {{{self.reg(o.kind, o.num)}, {self.reg(o.kind, o.num + 1)}}};")
            return d
        raise UnsupportedSass("64-bit operand", o.text)

    def psrc(self, e: _Exp, o: Opnd) -> str:
        """A predicate source as a register name (``!`` folded into a work predicate)."""
        if o.kind == "pt":
            self.need_pt = True
            if not o.inv:
                return "%pt"
            q = e.q()
            e.w(f"not.pred {q}, %pt;")
            return q
        if o.kind in ("p", "up"):
            r = self.reg(o.kind, o.num)
            if not o.inv:
                return r
            q = e.q()
            e.w(f"not.pred {q}, {r};")
            return q
        raise UnsupportedSass("predicate operand", o.text)

    def pconst(self, o: Opnd) -> bool | None:
        """True/False for PT/!PT, None for a predicate register."""
        if o.kind == "pt":
            return not o.inv
        return None

    # ------------------------------------------------------------- the kernel
    def convert(self) -> str:
        body: list[str] = []
        insts = self.fn.instructions
        for ins in insts:
            if ins.opcode in ("BRA", "BSSY", "CALL", "BRX", "JMP"):
                for op in ins.operands:
                    if op.startswith("0x") and ins.opcode != "BSSY":
                        self.targets.add(int(op, 16))
        for ins in insts:
            if ins.opcode == "BRA" and ins.operands and ins.operands[-1].strip().startswith("0x"):
                self.targets.add(int(ins.operands[-1], 16))
            if ins.opcode == "CALL" and "REL" in ins.modifiers:
                self.ret_sites.append(ins.offset + 16)
                self.targets.add(ins.offset + 16)
                t = self.call_target(ins)
                if t is not None:
                    self.targets.add(t)
                elif ins.operands and re.fullmatch(r"R\d+", ins.operands[0]):
                    self.targets.update(off for _, off in self.pointer_targets())
        for ins in insts:
            if ins.offset in self.targets:
                body.append(f"$L{ins.offset:04x}:")
            body.append(f"\t// {ins}")
            guard = self.guard(ins.pred)
            if guard is None:       # @!PT: issued, no lane runs it
                self.need_pt = True
                body.append(f"\t@!%pt {PLACEHOLDER} {MAIN_MARK}")
                continue
            e = _Exp(self, guard)
            handler = _HANDLERS.get(ins.opcode)
            if handler is None:
                raise UnsupportedSass(ins.full_opcode)
            try:
                n_parsed = (1 if ins.opcode in ("S2R", "S2UR", "CS2R") else
                            0 if ins.opcode in _SELF_PARSING else len(ins.operands))
                handler(self, e, ins, [parse_operand(o) for o in ins.operands[:n_parsed]])
            except UnsupportedSass as exc:
                if exc.opcode == ins.full_opcode:
                    raise
                raise UnsupportedSass(ins.full_opcode, f"{exc.opcode} {exc.detail}".strip()) from None
            self.max_t = max(self.max_t, e.nt)
            self.max_d = max(self.max_d, e.nd)
            self.max_q = max(self.max_q, e.nq)
            self.max_h = max(self.max_h, e.nh)
            lines = e.lines()
            main = e.main_index()
            if main < 0:
                g = f"@{guard} " if guard else ""
                lines, main = [g + PLACEHOLDER], 0
            lines[main] += f" {MAIN_MARK}"
            body.extend("\t" + ln for ln in lines)
        return self.render(body)

    def render(self, body: list[str]) -> str:
        ctx = self.ctx
        out = [f".visible .entry {ctx.name}("]
        out.append(",\n".join(f"\t{d}" for d in ctx.param_decls))
        out.append(")\n{")
        for kind, typ in (("r", "b32"), ("ur", "b32"), ("p", "pred"), ("up", "pred")):
            if self.used[kind]:
                out.append(f"\t.reg .{typ} %{kind}<{max(self.used[kind]) + 2}>;")
        for name, typ, n in (("t", "b32", self.max_t), ("d", "b64", self.max_d), ("q", "pred", self.max_q),
                             ("h", "b16", self.max_h)):
            if n:
                out.append(f"\t.reg .{typ} %{name}<{n}>;")
        if self.need_rz:
            out.append("\t.reg .b32 %rz;")
        if self.need_pz:
            out.append("\t.reg .pred %pz;")
        if self.need_pt:
            out.append("\t.reg .pred %pt;")
        if self.need_bres:
            out.append("\t.reg .b32 %bres;")
            out.append("\t.reg .pred %bpred;")
        if ctx.static_smem:
            out.append(f"\t.shared .align 16 .b8 __sass_shared[{ctx.static_smem}];")
        if self.stack_bytes:
            out.append(f"\t.local .align 16 .b8 __sass_frame[{self.stack_bytes}];")
        if self.need_pt:
            out.append("\tsetp.eq.u32 %pt, 0, 0;")
        out.extend(body)
        out.append("}")
        return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- handlers
_SELF_PARSING = {"BREAK", "P2R", "R2P", "CALL", "RET", "LD", "ST", "LDC", "BMOV", "BSSY", "BSYNC", "WARPSYNC", "DEPBAR", "LDG", "LDS", "LDL", "STG", "STS", "STL", "RED", "ATOM", "ATOMS", "ATOMG",
                 "TEX", "TLD", "TLD4", "SULD", "SUST", "LDSM"}
Handler = Callable[[Converter, _Exp, SassInstruction, list[Opnd]], None]
_HANDLERS: dict[str, Handler] = {}


def _h(*names: str) -> Callable[[Handler], Handler]:
    def deco(f: Handler) -> Handler:
        for n in names:
            _HANDLERS[n] = f
        return f
    return deco


def _mods(ins: SassInstruction, allowed: set[str]) -> None:
    bad = [m for m in ins.modifiers if m not in allowed]
    if bad:
        raise UnsupportedSass(ins.full_opcode)


def _nops(ins: SassInstruction, n: int) -> None:
    if len(ins.operands) != n:
        raise UnsupportedSass(ins.full_opcode, f"{len(ins.operands)} operands")


@_h("NOP", "BSSY", "BSYNC", "BREAK", "WARPSYNC", "YIELD", "BMOV", "DEPBAR")
def _nop(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """No-ops here: convergence barriers are replaced by post-dominator reconvergence (C238);
    ``DEPBAR.LE SBn, k`` (wait until at most k loads of scoreboard n are outstanding) has
    nothing to wait for in the functional engine, and the timing model's scoreboard already
    holds each register until its load completes."""
    if ins.opcode == "DEPBAR":
        _mods(ins, {"LE"})
        if len(ins.operands) != 2 or not re.fullmatch(r"SB\d", ins.operands[0].strip()):
            raise UnsupportedSass(ins.full_opcode)
        return
    if ins.opcode == "BMOV":
        # BMOV.32[.CLEAR] Rd, Bn saves a barrier register (0 here: barriers are not kept);
        # BMOV.32 Bn, Rx restores one (nothing to do)
        _mods(ins, {"32", "CLEAR"})
        if len(ins.operands) != 2:
            raise UnsupportedSass(ins.full_opcode)
        d, src = ins.operands
        if re.fullmatch(r"B\d+", src) and d != "RZ":
            e.a(f"mov.b32 {c.dst(parse_operand(d))}, 0;")
        elif not (re.fullmatch(r"B\d+", src) or re.fullmatch(r"B\d+", d)):
            raise UnsupportedSass(ins.full_opcode)


@_h("EXIT")
def _exit(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, set())
    e.a("exit;")


def _take_guard(e: _Exp) -> str | None:
    """Move the instruction's guard into a work predicate (for a branch that combines it with
    another condition); None when unguarded."""
    if not e.guard:
        return None
    g, e.guard = e.guard, ""
    if not g.startswith("!"):
        return g
    q = e.q()
    e.w(f"not.pred {q}, {g[1:]};")
    return q


@_h("BRA")
def _bra(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``BRA[.U] target``; ``BRA.DIV URm, target`` branches when some lane of the mask URm is
    not active (the warp has diverged; nvcc's fallback for warp-synchronous code), ``BRA.CONV``
    when all of them are (``~URZ``: the whole warp)."""
    if "DIV" in ins.modifiers or "CONV" in ins.modifiers:
        div = "DIV" in ins.modifiers
        _mods(ins, {"DIV"} if div else {"CONV"})
        if len(ops) == 1:   # sm_75's form without a mask: the whole warp
            ops = [Opnd("rz", inv=True, text="~URZ"), *ops]
        if len(ops) != 2 or ops[1].kind != "imm" or ops[0].kind not in ("ur", "r", "rz"):
            raise UnsupportedSass(ins.full_opcode)
        mask = c.src(e, ops[0])
        t, q = e.t(), e.q()
        e.w(f"activemask.b32 {t};")
        e.w(f"and.b32 {t}, {t}, {mask};")
        gp = _take_guard(e)
        if gp is not None:
            e.w(f"setp.{'ne' if div else 'eq'}.and.u32 {q}, {t}, {mask}, {gp};")
        else:
            e.w(f"setp.{'ne' if div else 'eq'}.u32 {q}, {t}, {mask};")
        e.a(f"@{q} bra $L{ops[1].num:04x};")
        return
    _mods(ins, {"U"})
    if len(ops) == 2 and ops[0].kind in ("p", "up", "pt") and ops[1].kind == "imm":
        # @Pg BRA Pc, target: taken when both the guard and Pc hold (a loop's `a && b`)
        if ops[1].num >= len(c.fn.instructions) * 16:
            raise UnsupportedSass(ins.full_opcode, f"target {ops[1].num:#x} outside the function")
        k = c.pconst(ops[0])
        if k is False:
            return
        if k is None:
            q = e.q()
            pc = c.psrc(e, ops[0])
            gp = _take_guard(e)
            if gp is not None:
                e.w(f"and.pred {q}, {pc}, {gp};")
            else:
                e.w(f"mov.pred {q}, {pc};")
            e.a(f"@{q} bra $L{ops[1].num:04x};")
            return
        ops = ops[1:]
    if len(ops) != 1 or ops[0].kind != "imm":
        raise UnsupportedSass(ins.full_opcode, "indirect branch")
    target = ops[0].num
    if target >= len(c.fn.instructions) * 16:
        raise UnsupportedSass(ins.full_opcode, f"target {target:#x} outside the function")
    e.a(f"bra{'.uni' if 'U' in ins.modifiers else ''} $L{target:04x};")


@_h("CALL")
def _call(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``CALL.REL.NOINC target``: a subroutine of the same code section (a ``__noinline__`` or
    recursive function, or one of nvcc's internal slow paths).  The caller has put the return
    offset in a register (``MOV R20, 0x100``); the call is a branch, and ``RET.REL.NODEC Rn``
    branches back to the return site whose offset Rn holds (C237)."""
    if "ABS" in ins.modifiers:
        _call_abs(c, e, ins)
        return
    _mods(ins, {"REL", "NOINC"})
    if "REL" not in ins.modifiers:
        raise UnsupportedSass(ins.full_opcode)
    if ins.operands and re.fullmatch(r"R\d+", ins.operands[0]):
        # CALL.REL.NOINC Rn: through a function pointer (the pair Rn+1:Rn, as the loader set the
        # pointer tables): branch to the device function it names, trap on any other value
        targets = c.pointer_targets()
        if not targets or e.guard:
            raise UnsupportedSass(ins.full_opcode, "function pointer without known targets")
        n = int(ins.operands[0][1:])
        e.lead = True
        d = e.d()
        e.w(f"mov.b64 {d}, {{{c.reg('r', n)}, {c.reg('r', n + 1)}}};")
        for handle, off in targets:
            q = e.q()
            e.a(f"setp.eq.u64 {q}, {d}, {handle};")
            e.a(f"@{q} bra $L{off:04x};")
        e.a("trap;")
        return
    t = c.call_target(ins)
    if t is None or t >= len(c.fn.instructions) * 16:
        raise UnsupportedSass(ins.full_opcode, f"target {' '.join(ins.operands)}")
    e.a(f"bra $L{t:04x};")


def _call_abs(c: Converter, e: _Exp, ins: SassInstruction) -> None:
    """``CALL.ABS.NOINC Rn``: a call of CUDA's device runtime (``vprintf``, ``malloc``, ``free``,
    ``__assertfail``) through the address an ``LDC.64 Rn, c[0x4][..]`` loaded; the arguments
    are in R4, R5, ... (:data:`BUILTINS`), the result comes back in R4.  Dispatched on the token
    the address reads as; execution continues after the call (where nvcc's LEPC arithmetic
    would return)."""
    _mods(ins, {"ABS", "NOINC"})
    if len(ins.operands) != 1 or e.guard:
        raise UnsupportedSass(ins.full_opcode, "predicated or unexpected operands")
    r = parse_operand(ins.operands[0])
    if r.kind != "r":
        raise UnsupportedSass(ins.full_opcode, ins.operands[0])
    names = sorted({sym for sym, _ in c.ctx.const4.values() if sym in BUILTINS})
    if not names:
        raise UnsupportedSass(ins.full_opcode, "no device-runtime function in c[0x4]")
    reg = c.reg("r", r.num)
    e.lead = True
    here = f"$C{ins.offset:04x}"
    for k, name in enumerate(names):
        q = e.q()
        e.a(f"setp.eq.u32 {q}, {reg}, {BUILTINS[name][0]};")
        e.a(f"@{q} bra {here}_{k};")
    e.a(f"bra {here}_end;")
    for k, name in enumerate(names):
        _, args, _decl = BUILTINS[name]
        e.a(f"{here}_{k}:")
        e.a("{")
        params = []
        for j, (rn, typ) in enumerate(args):
            p = f"param{j}"
            params.append(p)
            v = (f"{{{c.reg('r', rn)}, {c.reg('r', rn + 1)}}}" if typ == "b64" else c.reg("r", rn))
            e.a(f".param .{typ} {p};")
            if typ == "b64":
                d = e.d()
                e.a(f"mov.b64 {d}, {v};")
                v = d
            e.a(f"st.param.{typ} [{p}], {v};")
        ret = _RET_TYPES.get(name)
        if ret:
            e.a(f".param .{ret} retval0;")
            e.a(f"call.uni (retval0), {name}, ({', '.join(params)});")
            if ret == "b64":
                d = e.d()
                e.a(f"ld.param.b64 {d}, [retval0];")
                e.a(f"mov.b64 {{{c.reg('r', 4)}, {c.reg('r', 5)}}}, {d};")
            else:
                e.a(f"ld.param.b32 {c.reg('r', 4)}, [retval0];")
        else:
            e.a(f"call.uni {name}, ({', '.join(params)});")
        e.a("}")
        e.a(f"bra {here}_end;")
    e.a(f"{here}_end:")


@_h("LEPC")
def _lepc(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``LEPC Rd``: the pc, for return-address arithmetic of ``CALL.ABS`` (which continues in
    place here): 0."""
    _mods(ins, set())
    _nops(ins, 1)
    e.a(f"mov.b64 {c.dst_pair(ops[0])}, 0;")


@_h("RET")
def _ret(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, {"REL", "NODEC"})
    if "REL" not in ins.modifiers or not ins.operands:
        raise UnsupportedSass(ins.full_opcode)
    r = parse_operand(ins.operands[0])
    if r.kind != "r" or not c.ret_sites:
        raise UnsupportedSass(ins.full_opcode, "no call site")
    reg = c.reg("r", r.num)
    if e.guard:
        raise UnsupportedSass(ins.full_opcode, "predicated return")
    e.lead = True
    for site in c.ret_sites[:-1]:
        q = e.q()
        e.a(f"setp.eq.u32 {q}, {reg}, {site};")
        e.a(f"@{q} bra $L{site:04x};")
    e.a(f"bra $L{c.ret_sites[-1]:04x};")


@_h("MOV", "UMOV")
def _mov(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, set())
    if len(ops) == 3 and ops[2].kind == "imm" and ops[2].num == 0xF:
        ops = ops[:2]   # the lane mask 0xf: all bytes
    _nops(ins, 2) if len(ops) != 2 else None
    v = c.src(e, ops[1])
    e.a(f"mov.b32 {c.dst(ops[0])}, {v};")


@_h("S2R", "S2UR", "CS2R")
def _s2r(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    if len(ins.operands) != 2:
        raise UnsupportedSass(ins.full_opcode)
    sr = ins.operands[1]
    if ins.opcode == "CS2R":
        _mods(ins, {"32"})
        if sr == "SR_CLOCKLO" and "32" not in ins.modifiers:
            d = e.d()
            e.w(f"mov.u64 {d}, %clock64;")
            e.a(f"mov.b64 {c.dst_pair(ops[0])}, {d};")
            return
        if sr != "SRZ":
            raise UnsupportedSass(ins.full_opcode, sr)
        if "32" in ins.modifiers:
            e.a(f"mov.b32 {c.dst(ops[0])}, 0;")
        else:
            e.a(f"mov.b64 {c.dst_pair(ops[0])}, 0;")
        return
    _mods(ins, set())
    if sr not in SPECIAL_REGS:
        raise UnsupportedSass(ins.full_opcode, sr)
    e.a(f"mov.u32 {c.dst(ops[0])}, {SPECIAL_REGS[sr]};")


@_h("ULDC")
def _uldc(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, {"64"})
    _nops(ins, 2)
    if ops[1].kind != "c":
        raise UnsupportedSass(ins.full_opcode, ins.operands[1])
    if "64" in ins.modifiers:
        v = c.src64(e, ops[1])
        e.a(f"mov.b64 {c.dst_pair(ops[0])}, {v};")
    else:
        v = c.src(e, ops[1])
        e.a(f"mov.b32 {c.dst(ops[0])}, {v};")


_LDC = re.compile(r"^c\[(?P<bank>0x[0-9a-f]+)\]\[(?:(?P<reg>U?R\d+|RZ)(?:(?P<sign>[+-])(?P<off>0x[0-9a-f]+))?"
                  r"|(?P<imm>0x[0-9a-f]+))\]$")


@_h("LDC")
def _ldc(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``LDC[.U8|.S8|.U16|.S16|.64] Rd, c[bank][Rx+imm]``: a constant-bank load, the address
    indexed by a register: kernel parameters (bank 0) through ``ld.param`` at the parameter
    buffer's offset, ``__constant__`` variables (bank 3) through ``ld.const``."""
    _mods(ins, {"U8", "S8", "U16", "S16", "64"})
    if len(ins.operands) != 2:
        raise UnsupportedSass(ins.full_opcode)
    m = _LDC.match(ins.operands[1].replace(" ", ""))
    if m is None:
        raise UnsupportedSass(ins.full_opcode, ins.operands[1])
    bank = int(m["bank"], 16)
    off = int(m["off"] or m["imm"] or "0", 16) * (-1 if m["sign"] == "-" else 1)
    size = next((s for s in ("U8", "S8", "U16", "S16", "64") if s in ins.modifiers), "32")
    typ = {"32": "b32", "64": "b64"}.get(size, size.lower())
    nbytes = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "32": 4, "64": 8}[size]
    dst = parse_operand(ins.operands[0])
    reg = parse_operand(m["reg"]) if m["reg"] else None
    if reg is None or reg.kind == "rz":
        if size in ("32", "64"):
            v = c.const_load(e, bank, off, 8 * nbytes)
            e.a(f"mov.{typ} {c.dst_pair(dst) if size == '64' else c.dst(dst)}, {v};")
            return
    if bank == 0:
        if not c.ctx.params:
            raise UnsupportedSass(ins.full_opcode, "no parameters")
        first = min(c.ctx.params, key=lambda p: p.offset)
        t = e.t()
        e.w(f"mov.u32 {t}, {first.name};")   # the parameter buffer's start, in .param space
        rel = off - c.ctx.param_base - first.offset
        if reg is not None and reg.kind != "rz":
            e.w(f"add.u32 {t}, {t}, {c.src(e, reg)};")
        if rel:
            e.w(f"add.u32 {t}, {t}, {rel & 0xFFFFFFFF};")
        space, addr = "param", f"[{t}]"
    elif bank == 3:
        hit = [s for s in c.ctx.const3 if s[0] <= off < s[0] + s[1]]
        if not hit:
            raise UnsupportedSass(ins.full_opcode, f"c[0x3][{off:#x}]")
        base, _size, sym = hit[0]
        d = e.d()
        e.w(f"mov.u64 {d}, {sym};")
        if reg is not None and reg.kind != "rz":
            d2 = e.d()
            e.w(f"cvt.u64.u32 {d2}, {c.src(e, reg)};")
            e.w(f"add.u64 {d}, {d}, {d2};")
        space, addr = "const", f"[{d}{'+' + str(off - base) if off > base else ''}]"
    elif bank == 4 and size == "64" and reg is not None and c.ctx.const4:
        # a table of addresses indexed at run time: pick the entry whose offset matches
        idx = e.t()
        e.w(f"add.u32 {idx}, {c.src(e, reg)}, {off & 0xFFFFFFFF};")
        d = e.d()
        e.w(f"mov.b64 {d}, 0;")
        for o, (sym, addend) in sorted(c.ctx.const4.items()):
            q = e.q()
            e.w(f"setp.eq.u32 {q}, {idx}, {o};")
            e.w(f"@{q} mov.u64 {d}, {BUILTINS[sym][0] if sym in BUILTINS else sym};")
            if addend and sym not in BUILTINS:
                e.w(f"@{q} add.u64 {d}, {d}, {addend};")
        e.a(f"mov.b64 {c.dst_pair(dst)}, {d};")
        return
    else:
        raise UnsupportedSass(ins.full_opcode, ins.operands[1])
    if size == "64":
        d = e.d()
        e.w(f"ld.{space}.b64 {d}, {addr};")
        e.a(f"mov.b64 {c.dst_pair(dst)}, {d};")
    else:
        wide = {"u8": "u8", "s8": "s8", "u16": "u16", "s16": "s16"}.get(typ, "b32")
        e.a(f"ld.{space}.{wide} {c.dst(dst)}, {addr};")


@_h("IMAD", "UIMAD")
def _imad(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``IMAD Rd, a, b, c``: lo(a*b + c).  ``.WIDE Rd, [Pc,] a, b, Rc``: the pair {Rd+1:Rd} =
    a*b (64-bit) + the pair {Rc+1:Rc}; ``.HI Rd, [Pc,] a, b, Rc``: the high word of that sum;
    Pc = the sum's carry out of bit 63; ``.X`` adds a carry-in predicate (last operand)."""
    mods = set(ins.modifiers)
    _mods(ins, {"MOV", "IADD", "SHL", "U32", "WIDE", "HI", "X"})
    signed = "U32" not in mods
    st = "s32" if signed else "u32"
    pout = None
    if len(ops) > 1 and ops[1].kind in ("p", "up", "pt"):
        pout, ops = ops[1], [ops[0], *ops[2:]]
        if pout.kind == "pt" and not pout.inv:
            pout = None
    if "WIDE" in mods or "HI" in mods:
        if len(ops) != (5 if "X" in mods else 4) or (pout is not None and signed) \
                or ("HI" in mods and "X" in mods):
            raise UnsupportedSass(ins.full_opcode)
        a, b = c.src(e, ops[1]), c.src(e, ops[2])
        cc = c.src64(e, ops[3])
        d = e.d()
        if pout is None:
            e.w(f"mad.wide.{st} {d}, {a}, {b}, {cc};")
        else:
            e.w(f"mul.wide.{st} {d}, {a}, {b};")
            e.w(f"add.u64 {d}, {d}, {cc};")
            q = e.q()
            e.w(f"setp.lt.u64 {q}, {d}, {cc};")    # the 64-bit sum wrapped: carry out
        if "X" in mods:
            before = None
            if pout is not None:
                before = e.d()
                e.w(f"mov.b64 {before}, {d};")
            _add_carry64(c, e, d, ops[4])
            if before is not None:
                q2 = e.q()
                e.w(f"setp.lt.u64 {q2}, {d}, {before};")
                e.w(f"or.pred {q}, {q}, {q2};")
        if "WIDE" in mods:
            e.a(f"mov.b64 {c.dst_pair(ops[0])}, {d};")
        else:
            e.w(f"shr.u64 {d}, {d}, 32;")
            e.a(f"cvt.u32.u64 {c.dst(ops[0])}, {d};")
        if pout is not None:
            e.a(f"mov.pred {c.pdst(pout)}, {q};")
        return
    if pout is not None:
        raise UnsupportedSass(ins.full_opcode, "carry-out")
    if len(ops) != (5 if "X" in mods else 4):
        raise UnsupportedSass(ins.full_opcode)
    a, b, cc = c.src(e, ops[1]), c.src(e, ops[2]), c.src(e, ops[3])
    if "X" in mods:
        t = e.t()
        e.w(f"mad.lo.u32 {t}, {a}, {b}, {cc};")
        cin = c.pconst(ops[4])
        if cin is None:
            t2 = e.t()
            e.w(f"selp.u32 {t2}, 1, 0, {c.psrc(e, ops[4])};")
            e.a(f"add.u32 {c.dst(ops[0])}, {t}, {t2};")
        else:
            e.a(f"add.u32 {c.dst(ops[0])}, {t}, {int(cin)};")
        return
    e.a(f"mad.lo.u32 {c.dst(ops[0])}, {a}, {b}, {cc};")


def _add_carry64(c: Converter, e: _Exp, d: str, p: Opnd) -> None:
    cin = c.pconst(p)
    if cin is False:
        return
    if cin is True:
        e.w(f"add.u64 {d}, {d}, 1;")
        return
    d2 = e.d()
    e.w(f"selp.u64 {d2}, 1, 0, {c.psrc(e, p)};")
    e.w(f"add.u64 {d}, {d}, {d2};")


def _wide_u64(c: Converter, e: _Exp, o: Opnd) -> str:
    """A 32-bit source as a 64-bit work value for carry arithmetic: '-x' is ~x + 1 (so its
    carry is the hardware's), '~x' is ~x."""
    if o.abs:
        raise UnsupportedSass("operand", o.text)
    base = Opnd(o.kind, o.num, suffix=o.suffix, bank=o.bank, text=o.text)
    v = c.src(e, base)
    d = e.d()
    if o.neg or o.inv:
        t = e.t()
        e.w(f"not.b32 {t}, {v};")
        v = t
    e.w(f"cvt.u64.u32 {d}, {v};")
    if o.neg:
        e.w(f"add.u64 {d}, {d}, 1;")
    return d


@_h("IADD3", "UIADD3")
def _iadd3(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``IADD3 Rd, [Pc0, [Pc1,]] a, b, c`` and ``.X`` (+ carry-in predicates): the 34-bit sum
    a + b + c (+ carries), with ``-x`` as ~x + 1; Rd its low word; Pc0 = sum >= 2^32 and
    Pc1 = sum >= 2^33 (so that a following ``.X`` adding both carries adds sum >> 32)."""
    _mods(ins, {"X"})
    x = "X" in ins.modifiers
    preds_out: list[Opnd] = []
    i = 1
    while i < len(ops) and ops[i].kind in ("p", "up", "pt") and len(preds_out) < 2:
        preds_out.append(ops[i])
        i += 1
    vals = ops[i:i + 3]
    cins = ops[i + 3:]
    if len(vals) != 3 or len(cins) != (2 if x else 0):
        raise UnsupportedSass(ins.full_opcode, f"{len(ops)} operands")
    live_out = [p for p in preds_out if not (p.kind == "pt" and not p.inv)]
    if not live_out and not x:
        # plain 32-bit sum; negation wraps the same way
        terms = [v for v in vals if v.kind != "rz"]
        dst = c.dst(ops[0])
        if not terms:
            e.a(f"mov.b32 {dst}, 0;")
            return
        vs = [c.src(e, term) for term in terms]
        acc = vs[0]
        for k, name in enumerate(vs[1:]):
            if k == len(vs) - 2:
                e.a(f"add.u32 {dst}, {acc}, {name};")
                return
            t = e.t()
            e.w(f"add.u32 {t}, {acc}, {name};")
            acc = t
        e.a(f"mov.b32 {dst}, {acc};")
        return
    d = e.d()
    e.w(f"mov.b64 {d}, 0;")
    for v in vals:
        if v.kind == "rz" and not (v.neg or v.inv):
            continue
        w = _wide_u64(c, e, v)
        e.w(f"add.u64 {d}, {d}, {w};")
    for p in cins:
        _add_carry64(c, e, d, p)
    e.a(f"cvt.u32.u64 {c.dst(ops[0])}, {d};")
    for k, p in enumerate(preds_out):
        if p.kind == "pt" and not p.inv:
            continue
        e.a(f"setp.ge.u64 {c.pdst(p)}, {d}, {1 << (32 + k)};")


@_h("LEA", "ULEA")
def _lea(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``LEA Rd, [Pc,] a, b, sh``: (a << sh) + b, carry to Pc.  ``LEA.HI Rd, a, b, hi, sh[, Pin]``
    (``.X`` with carry-in): b + (({hi:a} << sh) >> 32) [+ Pin]; ``.SX32``: hi is a's sign."""
    _mods(ins, {"HI", "X", "SX32"})
    mods = set(ins.modifiers)
    pout = ops[1] if len(ops) > 1 and ops[1].kind in ("p", "up", "pt") else None
    rest = ops[2:] if pout is not None else ops[1:]
    if "HI" not in mods:
        if len(rest) != 3 or ("X" in mods):
            raise UnsupportedSass(ins.full_opcode)
        a, b, sh = rest
        if sh.kind != "imm":
            raise UnsupportedSass(ins.full_opcode, "register shift")
        if pout is None or (pout.kind == "pt" and not pout.inv):
            t = e.t()
            e.w(f"shl.b32 {t}, {c.src(e, a)}, {sh.num};")
            e.a(f"add.u32 {c.dst(ops[0])}, {t}, {c.src(e, b)};")
            return
        da = _wide_u64(c, e, Opnd(a.kind, a.num, bank=a.bank, text=a.text, inv=a.inv))
        e.w(f"and.b64 {da}, {da}, 0xFFFFFFFF;")
        e.w(f"shl.b64 {da}, {da}, {sh.num};")
        e.w(f"and.b64 {da}, {da}, 0xFFFFFFFF;")
        db = _wide_u64(c, e, b)
        e.w(f"add.u64 {da}, {da}, {db};")
        e.a(f"cvt.u32.u64 {c.dst(ops[0])}, {da};")
        e.a(f"setp.ge.u64 {c.pdst(pout)}, {da}, 4294967296;")
        return
    if pout is not None:
        raise UnsupportedSass(ins.full_opcode, "carry-out")
    if "SX32" in mods:
        if len(rest) != (4 if "X" in mods else 3):
            raise UnsupportedSass(ins.full_opcode)
        a, b, sh = rest[:3]
        rest = [a, b, None, sh, *rest[3:]]  # type: ignore[list-item]
        hi = None
    else:
        if len(rest) != (5 if "X" in mods else 4):
            raise UnsupportedSass(ins.full_opcode)
        a, b, hi, sh = rest[:4]
    if sh.kind != "imm":
        raise UnsupportedSass(ins.full_opcode, "register shift")
    va = c.src_reg(e, a)
    d = e.d()
    if hi is None:
        e.w(f"cvt.s64.s32 {d}, {va};")
    else:
        e.w(f"mov.b64 {d}, {{{va}, {c.src_reg(e, hi)}}};")
    e.w(f"shl.b64 {d}, {d}, {sh.num};")
    e.w(f"shr.u64 {d}, {d}, 32;")
    t = e.t()
    e.w(f"cvt.u32.u64 {t}, {d};")
    if "X" in mods:
        cin = c.pconst(rest[4])
        if cin is None:
            t2 = e.t()
            e.w(f"selp.u32 {t2}, 1, 0, {c.psrc(e, rest[4])};")
            e.w(f"add.u32 {t}, {t}, {t2};")
        elif cin:
            e.w(f"add.u32 {t}, {t}, 1;")
    e.a(f"add.u32 {c.dst(ops[0])}, {t}, {c.src(e, b)};")


@_h("SHF", "USHF")
def _shf(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``SHF.{L,R}[.W].{U32,S32,U64,S64}[.HI] Rd, lo, n, hi``: shift the 64-bit {hi:lo} (signed
    for .S32/.S64 right shifts) by n and keep the low word (the high one with ``.HI``).  The
    count is n & 31 with ``.W`` (wrap), else min(n, 32) for 32-bit types and min(n, 64) for
    64-bit types (clamp)."""
    mods = list(ins.modifiers)
    _mods(ins, {"L", "R", "W", "U32", "S32", "U64", "S64", "HI"})
    types = [m for m in mods if m in ("U32", "S32", "U64", "S64")]
    if len(types) != 1 or (("L" in mods) == ("R" in mods)):
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 4)
    typ = types[0]
    lo, n, hi = ops[1], ops[2], ops[3]
    d = e.d()
    e.w(f"mov.b64 {d}, {{{c.src_reg(e, lo)}, {c.src_reg(e, hi)}}};")
    if n.kind == "imm":
        k = n.num & 31 if "W" in mods else min(n.num & 0xFFFFFFFF, 32 if typ.endswith("32") else 64)
        amount = str(k)
    else:
        amount = e.t()
        if "W" in mods:
            e.w(f"and.b32 {amount}, {c.src(e, n)}, 31;")
        else:
            e.w(f"min.u32 {amount}, {c.src(e, n)}, {32 if typ.endswith('32') else 64};")
    if "L" in mods:
        e.w(f"shl.b64 {d}, {d}, {amount};")
    else:
        e.w(f"shr.{'s' if typ[0] == 'S' else 'u'}64 {d}, {d}, {amount};")
    t_lo, t_hi = e.t(), e.t()
    e.w(f"mov.b64 {{{t_lo}, {t_hi}}}, {d};")
    e.a(f"mov.b32 {c.dst(ops[0])}, {t_hi if 'HI' in mods else t_lo};")


@_h("LOP3", "ULOP3")
def _lop3(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``LOP3.LUT [Pp,] Rd, a, b, c, lut, !PT``: the truth table ``lut`` over a (0xF0), b (0xCC),
    c (0xAA) bit by bit; Pp = (Rd != 0)."""
    _mods(ins, {"LUT"})
    if "LUT" not in ins.modifiers:
        raise UnsupportedSass(ins.full_opcode)
    pdst = ops[0] if ops and ops[0].kind in ("p", "up", "pt") else None
    rest = ops[1:] if pdst is not None else ops
    if len(rest) != 6 or rest[4].kind != "imm" or not (rest[5].kind == "pt" and rest[5].inv):
        raise UnsupportedSass(ins.full_opcode, "operands")
    a, b, cc = (c.src(e, o) for o in rest[1:4])
    lut = rest[4].num & 0xFF
    if pdst is None or (pdst.kind == "pt" and not pdst.inv):
        e.a(f"lop3.b32 {c.dst(rest[0])}, {a}, {b}, {cc}, {lut};")
        return
    t = e.t()
    e.w(f"lop3.b32 {t}, {a}, {b}, {cc}, {lut};")
    e.a(f"mov.b32 {c.dst(rest[0])}, {t};")
    e.a(f"setp.ne.u32 {c.pdst(pdst)}, {t}, 0;")


_CMP = {"EQ": "eq", "NE": "ne", "LT": "lt", "LE": "le", "GT": "gt", "GE": "ge"}
_BOP = {"AND": "and", "OR": "or", "XOR": "xor"}


@_h("ISETP", "UISETP")
def _isetp(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``ISETP.cmp[.U32].bop[.EX] Pp, Pq, a, b, Pc[, Plo]``: Pp = (a cmp b) bop Pc,
    Pq = !(a cmp b) bop Pc.  ``.EX`` compares the high words of a 64-bit comparison whose low
    words gave Plo: strict on the high words, or equal high words and Plo (EQ: both; NE: either)."""
    mods = list(ins.modifiers)
    cmps = [m for m in mods if m in _CMP]
    bops = [m for m in mods if m in _BOP]
    _mods(ins, set(_CMP) | set(_BOP) | {"U32", "EX"})
    if len(cmps) != 1 or len(bops) != 1:
        raise UnsupportedSass(ins.full_opcode)
    ex = "EX" in mods
    if len(ops) != (6 if ex else 5):
        raise UnsupportedSass(ins.full_opcode, f"{len(ops)} operands")
    cmp, bop = _CMP[cmps[0]], _BOP[bops[0]]
    typ = "u32" if "U32" in mods else "s32"
    a, b = c.src(e, ops[2]), c.src(e, ops[3])
    if a[0] != "%":
        a = c.src_reg(e, ops[2])
    pc = ops[4]
    if ex:
        plo = c.psrc(e, ops[5])
        r = e.q()
        if cmp in ("eq", "ne"):
            e.w(f"setp.{cmp}.{'and' if cmp == 'eq' else 'or'}.{typ} {r}, {a}, {b}, {plo};")
        else:
            strict = {"ge": "gt", "gt": "gt", "le": "lt", "lt": "lt"}[cmp]
            eq = e.q()
            e.w(f"setp.eq.and.{typ} {eq}, {a}, {b}, {plo};")
            e.w(f"setp.{strict}.or.{typ} {r}, {a}, {b}, {eq};")
        _combine(c, e, r, bop, pc, ops[0], ops[1])
        return
    _setp_out(c, e, f"{cmp}", typ, a, b, bop, pc, ops[0], ops[1])


def _setp_out(c: Converter, e: _Exp, cmp: str, typ: str, a: str, b: str, bop: str, pc: Opnd,
              pp: Opnd, pq: Opnd) -> None:
    """``setp`` into Pp (and Pq = !cmp bop Pc) with PT/!PT folded where that is exact."""
    k = c.pconst(pc)
    want_q = not (pq.kind == "pt" and not pq.inv)
    if not want_q and ((k is True and bop == "and") or (k is False and bop in ("or", "xor"))):
        e.a(f"setp.{cmp}.{typ} {c.pdst(pp)}, {a}, {b};")
        return
    pcs = c.psrc(e, pc)
    dest = c.pdst(pp) + (f"|{c.pdst(pq)}" if want_q else "")
    e.a(f"setp.{cmp}.{bop}.{typ} {dest}, {a}, {b}, {pcs};")


def _combine(c: Converter, e: _Exp, r: str, bop: str, pc: Opnd, pp: Opnd, pq: Opnd) -> None:
    """Pp = r bop Pc, Pq = !r bop Pc for a comparison result already in work predicate r."""
    pcs = c.psrc(e, pc)
    if not (pp.kind == "pt" and not pp.inv):
        e.a(f"{bop}.pred {c.pdst(pp)}, {r}, {pcs};")
    if not (pq.kind == "pt" and not pq.inv):
        nr = e.q()
        e.w(f"not.pred {nr}, {r};")
        e.a(f"{bop}.pred {c.pdst(pq)}, {nr}, {pcs};")


@_h("PLOP3", "UPLOP3")
def _plop3(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``PLOP3.LUT Pd, Pq, Pa, Pb, Pc, lut, lut2``: Pd = the truth table ``lut`` of (Pa, Pb, Pc)
    with a = 0xF0, b = 0xCC, c = 0xAA as in LOP3; Pq the same with ``lut2``."""
    _mods(ins, {"LUT"})
    _nops(ins, 7)
    if ops[5].kind != "imm" or ops[6].kind != "imm":
        raise UnsupportedSass(ins.full_opcode)
    words = []
    for o in ops[2:5]:
        k = c.pconst(o)
        if k is not None:
            words.append("0xFFFFFFFF" if k else "0")
            continue
        t = e.t()
        e.w(f"selp.b32 {t}, -1, 0, {c.psrc(e, o)};")
        words.append(t)
    for dst, lut in ((ops[0], ops[5].num), (ops[1], ops[6].num)):
        if dst.kind == "pt" and not dst.inv:
            continue
        t = e.t()
        e.w(f"lop3.b32 {t}, {words[0]}, {words[1]}, {words[2]}, {lut & 0xFF};")
        e.a(f"setp.ne.u32 {c.pdst(dst)}, {t}, 0;")


@_h("P2R")
def _p2r(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``P2R Rd, PR, Ra, mask``: the predicates P0-P6 as bits 0-6, under ``mask``, over Ra's
    other bits (spilling predicates, e.g. around a call)."""
    _mods(ins, set())
    if len(ins.operands) != 4 or ins.operands[1] != "PR":
        raise UnsupportedSass(ins.full_opcode)
    d, ra, mask = (parse_operand(ins.operands[k]) for k in (0, 2, 3))
    if mask.kind != "imm":
        raise UnsupportedSass(ins.full_opcode, "register mask")
    acc = e.t()
    e.w(f"and.b32 {acc}, {c.src(e, ra)}, {~mask.num & 0xFFFFFFFF};")
    for i in range(7):
        if mask.num >> i & 1:
            t = e.t()
            e.w(f"selp.b32 {t}, {1 << i}, 0, {c.reg('p', i)};")
            e.w(f"or.b32 {acc}, {acc}, {t};")
    e.a(f"mov.b32 {c.dst(d)}, {acc};")


@_h("R2P")
def _r2p(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``R2P PR, Ra, mask``: P_i = bit i of Ra for the bits of ``mask`` (restoring predicates)."""
    _mods(ins, set())
    if len(ins.operands) != 3 or ins.operands[0] != "PR":
        raise UnsupportedSass(ins.full_opcode)
    ra, mask = parse_operand(ins.operands[1]), parse_operand(ins.operands[2])
    if mask.kind != "imm":
        raise UnsupportedSass(ins.full_opcode, "register mask")
    v = c.src_reg(e, ra)
    for i in range(7):
        if mask.num >> i & 1:
            t = e.t()
            e.w(f"and.b32 {t}, {v}, {1 << i};")
            e.a(f"setp.ne.u32 {c.reg('p', i)}, {t}, 0;")


@_h("IABS", "UIABS")
def _iabs(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, set())
    _nops(ins, 2)
    e.a(f"abs.s32 {c.dst(ops[0])}, {c.src(e, ops[1])};")


@_h("VABSDIFF", "VABSDIFF4")
def _vabsdiff(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``VABSDIFF[.U32] Rd, a, b, c``: |a - b| + c, signed unless .U32 (``__sad``: PTX ``sad``);
    ``VABSDIFF4.U8 Rd, a, b, RZ``: the four bytes' absolute differences (``__vabsdiffu4``)."""
    _nops(ins, 4)
    a, b = c.src_reg(e, ops[1]), c.src_reg(e, ops[2])
    if ins.opcode == "VABSDIFF4":
        if ins.modifiers != ("U8",) or ops[3].kind != "rz":
            raise UnsupportedSass(ins.full_opcode)
        e.a(f"vabsdiff4.u32.u32.u32 {c.dst(ops[0])}, {a}, {b}, 0;")
        return
    _mods(ins, {"U32", "S32"})
    typ = "u32" if "U32" in ins.modifiers else "s32"
    e.a(f"sad.{typ} {c.dst(ops[0])}, {a}, {b}, {c.src(e, ops[3])};")


@_h("IDP")
def _idp(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``IDP.4A.{S8,U8}.{S8,U8} Rd, a, b, c``: the four byte products of a and b summed into c
    (``__dp4a``: PTX ``dp4a``)."""
    mods = list(ins.modifiers)
    if len(mods) != 3 or mods[0] != "4A" or not set(mods[1:]) <= {"S8", "U8"}:
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 4)
    ta, tb = ("s32" if m == "S8" else "u32" for m in mods[1:])
    a, b, cc = c.src_reg(e, ops[1]), c.src_reg(e, ops[2]), c.src(e, ops[3])
    e.a(f"dp4a.{ta}.{tb} {c.dst(ops[0])}, {a}, {b}, {cc};")


@_h("SEL", "USEL")
def _sel(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, set())
    _nops(ins, 4)
    a, b = c.src(e, ops[1]), c.src(e, ops[2])
    k = c.pconst(ops[3])
    if k is not None:
        e.a(f"mov.b32 {c.dst(ops[0])}, {a if k else b};")
        return
    e.a(f"selp.b32 {c.dst(ops[0])}, {a}, {b}, {c.psrc(e, ops[3])};")


@_h("IMNMX", "UIMNMX")
def _imnmx(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``IMNMX[.U32] Rd, a, b, Pmin``: min(a, b) when Pmin, else max."""
    _mods(ins, {"U32"})
    _nops(ins, 4)
    typ = "u32" if "U32" in ins.modifiers else "s32"
    a, b = c.src(e, ops[1]), c.src(e, ops[2])
    k = c.pconst(ops[3])
    if k is not None:
        e.a(f"{'min' if k else 'max'}.{typ} {c.dst(ops[0])}, {a}, {b};")
        return
    t1, t2 = e.t(), e.t()
    e.w(f"min.{typ} {t1}, {a}, {b};")
    e.w(f"max.{typ} {t2}, {a}, {b};")
    e.a(f"selp.b32 {c.dst(ops[0])}, {t1}, {t2}, {c.psrc(e, ops[3])};")


@_h("POPC", "UPOPC")
def _popc(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, set())
    _nops(ins, 2)
    e.a(f"popc.b32 {c.dst(ops[0])}, {c.src(e, ops[1])};")


@_h("BREV", "UBREV")
def _brev(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, set())
    _nops(ins, 2)
    e.a(f"brev.b32 {c.dst(ops[0])}, {c.src(e, ops[1])};")


@_h("FLO", "UFLO")
def _flo(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``FLO.{U32,S32}[.SH]``: the bit position of the most significant 1 (non-sign bit for S32),
    0xffffffff when none; ``.SH`` gives 31 minus it (PTX ``bfind[.shiftamt]``)."""
    _mods(ins, {"U32", "S32", "SH"})
    _nops(ins, 2)
    typ = "s32" if "S32" in ins.modifiers else "u32"
    sh = ".shiftamt" if "SH" in ins.modifiers else ""
    e.a(f"bfind{sh}.{typ} {c.dst(ops[0])}, {c.src(e, ops[1])};")


@_h("PRMT", "UPRMT")
def _prmt(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``PRMT Rd, a, sel, b``: bytes of {b:a} picked by sel (PTX ``prmt.b32 d, a, b, sel``)."""
    _mods(ins, set())
    _nops(ins, 4)
    a, s, b = c.src(e, ops[1]), c.src(e, ops[2]), c.src(e, ops[3])
    e.a(f"prmt.b32 {c.dst(ops[0])}, {a}, {b}, {s};")


# --- floating point (FP32)
_FRND = {"RN": "rn", "RZ": "rz", "RM": "rm", "RP": "rp"}


def _fmods(ins: SassInstruction, extra: set[str] = frozenset()) -> tuple[str, str]:  # type: ignore[assignment]
    _mods(ins, {"FTZ", "SAT", *_FRND, *extra})
    rnd = next((_FRND[m] for m in ins.modifiers if m in _FRND), "rn")
    tail = (".ftz" if "FTZ" in ins.modifiers else "") + (".sat" if "SAT" in ins.modifiers else "")
    return rnd, tail


@_h("FADD", "FMUL")
def _fbin(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    rnd, tail = _fmods(ins)
    _nops(ins, 3)
    a, b = c.src(e, ops[1], "f32"), c.src(e, ops[2], "f32")
    op = "add" if ins.opcode == "FADD" else "mul"
    e.a(f"{op}.{rnd}{tail}.f32 {c.dst(ops[0])}, {a}, {b};")


@_h("FFMA")
def _ffma(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    rnd, tail = _fmods(ins)
    _nops(ins, 4)
    a, b, cc = (c.src(e, o, "f32") for o in ops[1:4])
    e.a(f"fma.{rnd}{tail}.f32 {c.dst(ops[0])}, {a}, {b}, {cc};")


@_h("FMNMX")
def _fmnmx(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, {"FTZ"})
    _nops(ins, 4)
    ftz = ".ftz" if "FTZ" in ins.modifiers else ""
    a, b = c.src(e, ops[1], "f32"), c.src(e, ops[2], "f32")
    k = c.pconst(ops[3])
    if k is not None:
        e.a(f"{'min' if k else 'max'}{ftz}.f32 {c.dst(ops[0])}, {a}, {b};")
        return
    t1, t2 = e.t(), e.t()
    e.w(f"min{ftz}.f32 {t1}, {a}, {b};")
    e.w(f"max{ftz}.f32 {t2}, {a}, {b};")
    e.a(f"selp.b32 {c.dst(ops[0])}, {t1}, {t2}, {c.psrc(e, ops[3])};")


_FCMP = {"EQ": "eq", "NE": "ne", "LT": "lt", "LE": "le", "GT": "gt", "GE": "ge",
         "EQU": "equ", "NEU": "neu", "LTU": "ltu", "LEU": "leu", "GTU": "gtu", "GEU": "geu",
         "NUM": "num", "NAN": "nan"}


@_h("FSETP")
def _fsetp(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    mods = list(ins.modifiers)
    _mods(ins, set(_FCMP) | set(_BOP) | {"FTZ"})
    cmps = [m for m in mods if m in _FCMP]
    bops = [m for m in mods if m in _BOP]
    if len(cmps) != 1 or len(bops) != 1:
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 5)
    a, b = c.src_reg(e, ops[2], "f32"), c.src(e, ops[3], "f32")
    ftz = ".ftz" if "FTZ" in mods else ""
    _setp_out(c, e, _FCMP[cmps[0]] + ftz, "f32", a, b, _BOP[bops[0]], ops[4], ops[0], ops[1])


@_h("FSEL")
def _fsel(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, set())
    _nops(ins, 4)
    a, b = c.src(e, ops[1], "f32"), c.src(e, ops[2], "f32")
    # .f32, not .b32: a float literal operand keeps its bits (a .b32 selp would read 0f3F800000 as 1)
    e.a(f"selp.f32 {c.dst(ops[0])}, {a}, {b}, {c.psrc(e, ops[3])};")


_MUFU = {"RCP": "rcp.approx.ftz.f32", "RSQ": "rsqrt.approx.ftz.f32", "EX2": "ex2.approx.ftz.f32",
         "LG2": "lg2.approx.ftz.f32", "SIN": "sin.approx.ftz.f32", "COS": "cos.approx.ftz.f32",
         "SQRT": "sqrt.approx.ftz.f32"}


@_h("MUFU")
def _mufu(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``MUFU.{RCP,RSQ,EX2,LG2,SQRT,SIN,COS}``: the approximate unit.  SIN and COS take their
    argument in revolutions (nvcc multiplies by 1/(2 pi) first), so it is scaled back to radians."""
    if ins.modifiers in (("RSQ64H",), ("RCP64H",)):
        # the high word of the f64 approximation for the double {Ra:0}: the seed of nvcc's
        # Newton iterations for double sqrt/rsqrt/division
        _nops(ins, 2)
        d = e.d()
        e.w(f"mov.b64 {d}, {{{_zero(c, e)}, {c.src_reg(e, ops[1])}}};")
        op = "rsqrt.approx.f64" if ins.modifiers[0] == "RSQ64H" else "rcp.approx.ftz.f64"
        e.w(f"{op} {d}, {d};")
        lo, hi = e.t(), e.t()
        e.w(f"mov.b64 {{{lo}, {hi}}}, {d};")
        e.a(f"mov.b32 {c.dst(ops[0])}, {hi};")
        return
    if len(ins.modifiers) != 1 or ins.modifiers[0] not in _MUFU:
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 2)
    v = c.src(e, ops[1], "f32")
    if ins.modifiers[0] in ("SIN", "COS"):
        t = e.t()
        e.w(f"mul.rn.f32 {t}, {v}, 0f{f32_bits(repr(2 * math.pi)):08X};")
        v = t
    e.a(f"{_MUFU[ins.modifiers[0]]} {c.dst(ops[0])}, {v};")


# --- conversions
_INT_TYPES = {"S8": "s8", "U8": "u8", "S16": "s16", "U16": "u16", "S32": "s32", "U32": "u32",
              "S64": "s64", "U64": "u64"}
_F2I_RND = {"TRUNC": "rzi", "FLOOR": "rmi", "CEIL": "rpi"}


def _fsrc(c: Converter, e: _Exp, o: Opnd, typ: str) -> str:
    """A float source of ``typ`` (f32 in a register, f64 in a pair) with '-' and '|x|' applied."""
    if typ == "f32":
        return c.src(e, o, "f32")
    if o.inv:
        raise UnsupportedSass("operand", o.text)
    if o.kind == "fimm":
        return f"0d{f64_bits(o.text):016X}"
    if o.kind == "imm":
        return f"0d{f64_bits(str(o.num)):016X}"
    plain = Opnd(o.kind, o.num, suffix=o.suffix, bank=o.bank, text=o.text)
    v = c.src64(e, plain)
    if v == "0":
        return "0d0000000000000000"
    if o.abs:
        d = e.d()
        e.w(f"abs.f64 {d}, {v};")
        v = d
    if o.neg:
        d = e.d()
        e.w(f"neg.f64 {d}, {v};")
        v = d
    return v


def _fdst(c: Converter, o: Opnd, typ: str) -> str:
    return c.dst(o) if typ == "f32" else c.dst_pair(o)


def _write(c: Converter, e: _Exp, o: Opnd, typ: str, line: Callable[[str], str]) -> None:
    """Emit ``line(dest)`` into the destination: a 32-bit register, or a pair through a work register."""
    if typ.endswith("64"):
        d = e.d()
        e.w(line(d))
        e.a(f"mov.b64 {c.dst_pair(o)}, {d};")
    elif typ in ("f32", "s32", "u32", "b32"):
        e.a(line(c.dst(o)))
    else:
        raise UnsupportedSass("destination type", typ)


@_h("I2F", "I2FP")
def _i2f(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``I2F[.F64][.src][.RN|RZ|RM|RP] Rd, Ra``: integer (default S32) to float (default F32)."""
    _mods(ins, set(_INT_TYPES) | set(_FRND) | {"F64", "F32"})
    _nops(ins, 2)
    srcs = [_INT_TYPES[m] for m in ins.modifiers if m in _INT_TYPES]
    src = srcs[0] if srcs else "s32"
    dst = "f64" if "F64" in ins.modifiers else "f32"
    rnd = next((_FRND[m] for m in ins.modifiers if m in _FRND), "rn")
    if src.endswith("64"):
        v = c.src64(e, ops[1])
    elif src in ("s32", "u32"):
        v = c.src(e, ops[1])
    else:
        t = e.t()
        e.w(f"cvt.{'s' if src[0] == 's' else 'u'}32.{src} {t}, {c.src(e, ops[1])};")
        v = t
        src = "s32" if src[0] == "s" else "u32"
    _write(c, e, ops[0], dst, lambda d: f"cvt.{rnd}.{dst}.{src} {d}, {v};")


@_h("F2I")
def _f2i(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``F2I[.FTZ][.dst][.F64][.TRUNC|FLOOR|CEIL][.NTZ] Rd, Ra``: float to integer (default S32,
    round to nearest even), saturating, NaN to 0 (PTX ``cvt.rni/rzi``)."""
    _mods(ins, set(_INT_TYPES) | set(_F2I_RND) | {"FTZ", "NTZ", "F64", "F32"})
    _nops(ins, 2)
    dsts = [_INT_TYPES[m] for m in ins.modifiers if m in _INT_TYPES]
    dst = dsts[0] if dsts else "s32"
    if dst not in ("s32", "u32", "s64", "u64"):
        raise UnsupportedSass(ins.full_opcode)
    src = "f64" if "F64" in ins.modifiers else "f32"
    rnd = next((_F2I_RND[m] for m in ins.modifiers if m in _F2I_RND), "rni")
    ftz = ".ftz" if "FTZ" in ins.modifiers and src == "f32" else ""
    v = _fsrc(c, e, ops[1], src)
    _write(c, e, ops[0], dst, lambda d: f"cvt.{rnd}{ftz}.{dst}.{src} {d}, {v};")


def _f2f_half(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``F2F.F16.F32 Rd, Ra``: the half in Rd's low 16 bits (zeros above); ``F2F.F32.F16``."""
    if ins.modifiers[:2] == ("F16", "F32") and set(ins.modifiers[2:]) <= {"FTZ", *_FRND}:
        rnd = next((_FRND[m] for m in ins.modifiers if m in _FRND), "rn")
        hh = e.h()
        e.w(f"cvt.{rnd}{'.ftz' if 'FTZ' in ins.modifiers else ''}.f16.f32 {hh}, {c.src(e, ops[1], 'f32')};")
        e.a(f"cvt.u32.u16 {c.dst(ops[0])}, {hh};")   # the half in the low 16 bits, zeros above
        return
    if ins.modifiers[:2] == ("F32", "F16") and len(ins.modifiers) == 2:
        hh = e.h()
        e.w(f"cvt.u16.u32 {hh}, {c.src(e, ops[1])};")
        e.a(f"cvt.f32.f16 {c.dst(ops[0])}, {hh};")
        return
    raise UnsupportedSass(ins.full_opcode)


@_h("F2F")
def _f2f(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``F2F.F32.F64`` / ``F2F.F64.F32`` / ``F2F.F16.F32`` / ``F2F.F32.F16`` (destination first)."""
    _mods(ins, {"F32", "F64", "F16", "FTZ", *_FRND})
    _nops(ins, 2)
    if ins.modifiers[:2] in (("F16", "F32"), ("F32", "F16")):
        _f2f_half(c, e, ins, ops)
        return
    types = [m.lower() for m in ins.modifiers if m in ("F32", "F64")]
    if len(types) != 2 or types[0] == types[1]:
        raise UnsupportedSass(ins.full_opcode)
    dst, src = types
    rnd = next((_FRND[m] for m in ins.modifiers if m in _FRND), "rn")
    ftz = ".ftz" if "FTZ" in ins.modifiers else ""
    v = _fsrc(c, e, ops[1], src)
    r = f".{rnd}" if dst == "f32" else ""
    _write(c, e, ops[0], dst, lambda d: f"cvt{r}{ftz}.{dst}.{src} {d}, {v};")


@_h("FRND")
def _frnd(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``FRND[.F64][.FLOOR|CEIL|TRUNC][.FTZ] Rd, Ra``: round to an integral float (default nearest even)."""
    modes = {"FLOOR": "rmi", "CEIL": "rpi", "TRUNC": "rzi"}
    _mods(ins, set(modes) | {"FTZ", "F64", "F32"})
    _nops(ins, 2)
    rnd = next((modes[m] for m in ins.modifiers if m in modes), "rni")
    typ = "f64" if "F64" in ins.modifiers else "f32"
    ftz = ".ftz" if "FTZ" in ins.modifiers and typ == "f32" else ""
    v = _fsrc(c, e, ops[1], typ)
    _write(c, e, ops[0], typ, lambda d: f"cvt.{rnd}{ftz}.{typ}.{typ} {d}, {v};")


@_h("DADD", "DMUL")
def _dbin(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, set(_FRND))
    _nops(ins, 3)
    rnd = next((_FRND[m] for m in ins.modifiers if m in _FRND), "rn")
    a, b = _fsrc(c, e, ops[1], "f64"), _fsrc(c, e, ops[2], "f64")
    op = "add" if ins.opcode == "DADD" else "mul"
    _write(c, e, ops[0], "f64", lambda d: f"{op}.{rnd}.f64 {d}, {a}, {b};")


@_h("DFMA")
def _dfma(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, set(_FRND))
    _nops(ins, 4)
    rnd = next((_FRND[m] for m in ins.modifiers if m in _FRND), "rn")
    a, b, cc = (_fsrc(c, e, o, "f64") for o in ops[1:4])
    _write(c, e, ops[0], "f64", lambda d: f"fma.{rnd}.f64 {d}, {a}, {b}, {cc};")


@_h("DSETP")
def _dsetp(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    mods = list(ins.modifiers)
    _mods(ins, set(_FCMP) | set(_BOP))
    cmps = [m for m in mods if m in _FCMP]
    bops = [m for m in mods if m in _BOP]
    if len(cmps) != 1 or len(bops) != 1:
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 5)
    a, b = _fsrc(c, e, ops[2], "f64"), _fsrc(c, e, ops[3], "f64")
    if a[0] != "%":
        d = e.d()
        e.w(f"mov.b64 {d}, {a};")
        a = d
    _setp_out(c, e, _FCMP[cmps[0]], "f64", a, b, _BOP[bops[0]], ops[4], ops[0], ops[1])


def _zero(c: Converter, e: _Exp) -> str:
    t = e.t()
    e.w(f"mov.b32 {t}, 0;")
    return t


# --- FP16 pairs (f16x2 in a 32-bit register, element 0 in the low half)
_SWZ = {"H0_H0": "0x1010", "H1_H1": "0x3232", "H1_H0": None, "F32": None}


def _hsrc(c: Converter, e: _Exp, o: Opnd) -> str:
    """An f16x2 operand with its swizzle (``.H0_H0`` / ``.H1_H1`` broadcast a half) and sign
    (``-x`` flips both halves' signs, ``|x|`` clears them) applied; ``RZ`` is +0 in both."""
    sw = [s for s in o.suffix if s in _SWZ]
    if len(sw) != len(o.suffix) or len(sw) > 1 or o.inv:
        raise UnsupportedSass("operand", o.text)
    if o.kind == "rz":
        v = "0"
    elif o.kind in ("r", "ur", "c"):
        v = c.src(e, Opnd(o.kind, o.num, bank=o.bank, text=o.text))
    else:
        raise UnsupportedSass("operand", o.text)
    if sw and _SWZ[sw[0]] and v != "0":
        t = e.t()
        e.w(f"prmt.b32 {t}, {v}, 0, {_SWZ[sw[0]]};")
        v = t
    if o.abs:
        t = e.t()
        e.w(f"and.b32 {t}, {v}, 0x7FFF7FFF;")
        v = t
    if o.neg:
        t = e.t()
        e.w(f"xor.b32 {t}, {v}, 0x80008000;")
        v = t
    return v


def _half_imm_pair(c: Converter, e: _Exp, hi: Opnd, lo: Opnd) -> str:
    """Two float immediates (as nvdisasm prints an f16x2 literal) packed into a work register."""
    import numpy as np

    bits = []
    for o in (lo, hi):
        if o.kind not in ("imm", "fimm"):
            raise UnsupportedSass("operand", o.text)
        f = float(o.text.lstrip("+").replace("INF", "inf")) if o.kind == "fimm" else float(o.num)
        bits.append(int(np.array(f, dtype=np.float16).view(np.uint16)))
    t = e.t()
    e.w(f"mov.b32 {t}, {bits[0] | bits[1] << 16};")
    return t


@_h("HADD2", "HMUL2", "HFMA2")
def _h2(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``HADD2``/``HMUL2``/``HFMA2`` on f16x2 pairs (round to nearest even); ``.F32`` (HADD2):
    the low halves widened to f32 and added (nvcc's half-to-float conversion adds -0)."""
    _mods(ins, {"F32", "FTZ", "SAT"})
    n = 4 if ins.opcode == "HFMA2" else 3
    if len(ops) == n + 1 and ops[-1].kind in ("imm", "fimm") and ops[-2].kind in ("imm", "fimm"):
        srcs = [_hsrc(c, e, o) for o in ops[1:n - 1]] + [_half_imm_pair(c, e, ops[-2], ops[-1])]
    elif len(ops) == n:
        srcs = [_hsrc(c, e, o) for o in ops[1:]]
    else:
        raise UnsupportedSass(ins.full_opcode, f"{len(ops)} operands")
    sat = ".sat" if "SAT" in ins.modifiers else ""
    if "F32" in ins.modifiers:
        if ins.opcode != "HADD2" or sat:
            raise UnsupportedSass(ins.full_opcode)
        fs = []
        for s in srcs:
            hh, f = e.h(), e.t()
            e.w(f"cvt.u16.u32 {hh}, {s};")
            e.w(f"cvt.f32.f16 {f}, {hh};")
            fs.append(f)
        e.a(f"add.rn{'.ftz' if 'FTZ' in ins.modifiers else ''}.f32 {c.dst(ops[0])}, {fs[0]}, {fs[1]};")
        return
    op = {"HADD2": "add", "HMUL2": "mul", "HFMA2": "fma"}[ins.opcode]
    e.a(f"{op}.rn{sat}.f16x2 {c.dst(ops[0])}, {', '.join(srcs)};")


@_h("F2FP")
def _f2fp(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``F2FP.PACK_AB Rd, a, b`` (sm_80+): a and b (f32) rounded to halves, a in the high half
    and b in the low one (PTX ``cvt.rn.f16x2.f32 d, a, b``)."""
    if ins.modifiers not in (("PACK_AB",), ("F16", "F32", "PACK_AB")):
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 3)
    a, b = c.src(e, ops[1], "f32"), c.src(e, ops[2], "f32")
    e.a(f"cvt.rn.f16x2.f32 {c.dst(ops[0])}, {a}, {b};")


@_h("HMNMX2")
def _hmnmx2(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``HMNMX2 Rd, a, b, Pmin`` (sm_80+): per half, min when Pmin else max."""
    _mods(ins, set())
    _nops(ins, 4)
    a, b = _hsrc(c, e, ops[1]), _hsrc(c, e, ops[2])
    k = c.pconst(ops[3])
    if k is None:
        raise UnsupportedSass(ins.full_opcode, "predicate-selected")
    e.a(f"{'min' if k else 'max'}.f16x2 {c.dst(ops[0])}, {a}, {b};")


@_h("HSETP2")
def _hsetp2(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``HSETP2.cmp.bop Pd, Pq, a, b, Pc``: Pd compares the low halves, Pq the high halves
    (each combined with Pc), as PTX ``setp.f16x2 p|q``."""
    mods = list(ins.modifiers)
    _mods(ins, set(_FCMP) | set(_BOP) | {"FTZ", "H_AND"})
    cmps = [m for m in mods if m in _FCMP]
    bops = [m for m in mods if m in _BOP]
    if len(cmps) != 1 or len(bops) != 1 or "H_AND" in mods:
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 5)
    a, b = _hsrc(c, e, ops[2]), _hsrc(c, e, ops[3])
    pcs = c.psrc(e, ops[4])
    q1, q2 = e.q(), e.q()
    e.w(f"setp.{_FCMP[cmps[0]]}.{_BOP[bops[0]]}.f16x2 {q1}|{q2}, {a}, {b}, {pcs};")
    for dst, q in ((ops[0], q1), (ops[1], q2)):
        if not (dst.kind == "pt" and not dst.inv):
            e.a(f"mov.pred {c.pdst(dst)}, {q};")


# --- warp-level
@_h("SHFL")
def _shfl(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``SHFL.{IDX,UP,DOWN,BFLY} Pp, Rd, a, lane, clamp``: PTX ``shfl.sync`` over the warp."""
    modes = {"IDX": "idx", "UP": "up", "DOWN": "down", "BFLY": "bfly"}
    if len(ins.modifiers) != 1 or ins.modifiers[0] not in modes:
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 5)
    a, lane, cl = c.src_reg(e, ops[2]), c.src(e, ops[3]), c.src(e, ops[4])
    p = "" if (ops[0].kind == "pt" and not ops[0].inv) else f"|{c.pdst(ops[0])}"
    e.a(f"shfl.sync.{modes[ins.modifiers[0]]}.b32 {c.dst(ops[1])}{p}, {a}, {lane}, {cl}, 0xffffffff;")


@_h("VOTE", "VOTEU")
def _vote(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``VOTE.{ANY,ALL,EQ} Rd, Pp, Pin``: Rd = the ballot of Pin over the active lanes, Pp the vote."""
    modes = {"ANY": "any", "ALL": "all", "EQ": "uni"}
    if len(ins.modifiers) != 1 or ins.modifiers[0] not in modes:
        raise UnsupportedSass(ins.full_opcode)
    if len(ops) == 2 and ops[0].kind in ("p", "up", "pt"):   # VOTE.ALL Pd, Pin: no ballot register
        ops = [Opnd("rz", text="RZ"), *ops]
    if len(ops) != 3:
        raise UnsupportedSass(ins.full_opcode, f"{len(ops)} operands")
    pin = c.psrc(e, ops[2])
    if ops[0].kind != "rz":
        e.a(f"vote.sync.ballot.b32 {c.dst(ops[0])}, {pin}, 0xffffffff;")
    if not (ops[1].kind == "pt" and not ops[1].inv):
        e.a(f"vote.sync.{modes[ins.modifiers[0]]}.pred {c.pdst(ops[1])}, {pin}, 0xffffffff;")


@_h("REDUX")
def _redux(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``REDUX[.SUM|.MIN|.MAX|.OR|.XOR][.S32] URd, Ra`` (sm_80+; no operation = AND): the
    reduction of Ra over the active lanes into a uniform register (PTX ``redux.sync``)."""
    kinds = {"SUM": "add", "MIN": "min", "MAX": "max", "AND": "and", "OR": "or", "XOR": "xor"}
    _mods(ins, set(kinds) | {"S32"})
    k = [m for m in ins.modifiers if m in kinds] or ["AND"]   # plain REDUX is the AND reduction
    if len(k) != 1:
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 2)
    op = kinds[k[0]]
    typ = "b32" if op in ("and", "or", "xor") else ("s32" if "S32" in ins.modifiers else "u32")
    e.a(f"redux.sync.{op}.{typ} {c.dst(ops[0])}, {c.src_reg(e, ops[1])}, 0xffffffff;")


@_h("MATCH")
def _match(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``MATCH.ANY[.U64] Rd, Ra``: the mask of active lanes holding the same value (``match.any.sync``)."""
    _mods(ins, {"ANY", "U64", "U32"})
    if "ANY" not in ins.modifiers:
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 2)
    if "U64" in ins.modifiers:
        e.a(f"match.any.sync.b64 {c.dst(ops[0])}, {c.src64(e, ops[1])}, 0xffffffff;")
    else:
        e.a(f"match.any.sync.b32 {c.dst(ops[0])}, {c.src_reg(e, ops[1])}, 0xffffffff;")


@_h("BAR")
def _bar(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``BAR.SYNC id``; ``BAR.RED.{POPC,AND,OR} id, Pin``: the barrier with a reduction of Pin
    over the CTA, whose result ``B2R.RESULT Rd[, Pd]`` then reads (kept in ``%bres``/``%bpred``)."""
    if "RED" in ins.modifiers:
        _mods(ins, {"RED", "POPC", "AND", "OR", "DEFER_BLOCKING"})
        kind = [m for m in ins.modifiers if m in ("POPC", "AND", "OR")]
        if len(kind) != 1 or len(ops) != 2 or ops[0].kind != "imm":
            raise UnsupportedSass(ins.full_opcode)
        pin = c.psrc(e, ops[1])
        c.need_bres = True
        if kind[0] == "POPC":
            e.a(f"bar.red.popc.u32 %bres, {ops[0].num}, {pin};")
        else:
            e.a(f"bar.red.{kind[0].lower()}.pred %bpred, {ops[0].num}, {pin};")
            e.a("selp.u32 %bres, 1, 0, %bpred;")
        return
    _mods(ins, {"SYNC", "DEFER_BLOCKING"})
    if "SYNC" not in ins.modifiers or len(ops) != 1 or ops[0].kind != "imm":
        raise UnsupportedSass(ins.full_opcode)
    e.a(f"bar.sync {ops[0].num};")


@_h("MEMBAR", "ERRBAR", "CCTL")
def _membar(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``MEMBAR.{SC,ALL}.{CTA,GPU,SYS}``: a memory fence (PTX ``membar``; the functional engine
    completes every access in order, so it orders nothing further); ``ERRBAR`` and
    ``CCTL.IVALL`` (cache invalidation after a system fence): nothing to do."""
    if ins.opcode != "MEMBAR":
        _mods(ins, {"IVALL"})
        if ins.operands:
            raise UnsupportedSass(ins.full_opcode)
        return
    _mods(ins, {"SC", "ALL", "CTA", "GPU", "SYS", "VC"})
    scope = next((m for m in ins.modifiers if m in ("CTA", "GPU", "SYS")), None)
    if scope is None or ins.operands:
        raise UnsupportedSass(ins.full_opcode)
    e.a(f"membar.{ {'CTA': 'cta', 'GPU': 'gl', 'SYS': 'sys'}[scope] };")


@_h("BPT")
def _bpt(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``BPT.TRAP n``: the kernel traps (``__trap()``, or grid.sync() without a cooperative launch)."""
    if ins.modifiers != ("TRAP",):
        raise UnsupportedSass(ins.full_opcode)
    e.a("trap;")


@_h("B2R")
def _b2r(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``B2R.RESULT Rd[, Pd]``: the last ``BAR.RED``'s result (count, or the predicate)."""
    _mods(ins, {"RESULT"})
    if "RESULT" not in ins.modifiers or len(ops) not in (1, 2) or not c.need_bres:
        raise UnsupportedSass(ins.full_opcode)
    if ops[0].kind != "rz":
        e.a(f"mov.b32 {c.dst(ops[0])}, %bres;")
    if len(ops) == 2:
        e.a(f"setp.ne.u32 {c.pdst(ops[1])}, %bres, 0;")


@_h("FCHK")
def _fchk(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``FCHK Pd, a, b``: whether a / b needs the IEEE slow path (denormal, huge or special
    operands).  Pd = true always: the slow path (a CALL.REL subroutine) is correct for every
    operand, so results stay exact; only the instruction count differs from the hardware."""
    _mods(ins, set())
    _nops(ins, 3)
    e.a(f"setp.eq.u32 {c.pdst(ops[0])}, 0, 0;")


# --- memory
_MEM_IGNORED = {"E", "SYS", "STRONG", "GPU", "CTA", "CONSTANT", "EF", "EL", "LU", "EU", "NA", "U",
                "WEAK", "PRIVATE", "ZD", "LTC64B", "LTC128B"}
_SIZES = {"U8": "u8", "S8": "s8", "U16": "u16", "S16": "s16", "64": "b64", "128": "b128"}


def _addr(c: Converter, e: _Exp, text: str, space: str, wide_default: bool) -> str:
    """``[Ra(.64)(.X4)+URb+imm]`` as a PTX address ``[%reg+imm]`` (a work register)."""
    t = text.strip()
    if t.startswith("desc["):
        t = t[t.index("]") + 1:]
    if not (t.startswith("[") and t.endswith("]")):
        raise UnsupportedSass("address", text)
    parts = [p.strip() for p in t[1:-1].replace("-", "+-").split("+") if p.strip()]
    base: Opnd | None = None
    imm = 0
    uniform: list[Opnd] = []
    for p in parts:
        if _INT.match(p):
            imm += int(p, 0) if "x" in p else int(p)
            continue
        o = parse_operand(p)
        if o.kind == "rz" and base is not None:
            continue   # URZ / RZ added to a base: nothing
        if o.kind == "r" or (o.kind == "rz" and base is None):
            if base is not None:
                raise UnsupportedSass("address", text)
            base = o
        elif o.kind == "ur":
            uniform.append(o)
        else:
            raise UnsupportedSass("address", text)
    global_like = space in ("global", "generic")
    if global_like and base is None and len(uniform) == 1 and not uniform[0].suffix:
        u = uniform[0]   # [URn]: a 64-bit address in a uniform pair
        d = e.d()
        e.w(f"mov.b64 {d}, {{{c.reg('ur', u.num)}, {c.reg('ur', u.num + 1)}}};")
        return f"[{d}{'+' + str(imm) if imm > 0 else str(imm) if imm else ''}]"
    if global_like:
        if base is None or base.kind == "rz":
            raise UnsupportedSass("address", text)
        scale = [s for s in base.suffix if s.startswith("X")]
        if scale or len(uniform) > 1 or any(u.suffix for u in uniform) \
                or not (wide_default or "64" in base.suffix):
            raise UnsupportedSass("address", text)
        d = e.d()
        e.w(f"mov.b64 {d}, {{{c.reg('r', base.num)}, {c.reg('r', base.num + 1)}}};")
        for u in uniform:   # [Rn.64+URm]: a 64-bit offset plus the 64-bit base in the uniform pair
            du = e.d()
            e.w(f"mov.b64 {du}, {{{c.reg('ur', u.num)}, {c.reg('ur', u.num + 1)}}};")
            e.w(f"add.u64 {d}, {d}, {du};")
        return f"[{d}{'+' + str(imm) if imm > 0 else str(imm) if imm else ''}]"
    # 32-bit shared / local offsets
    terms: list[str] = []
    if base is not None and base.kind == "r":
        scale = [s for s in base.suffix if s.startswith("X")]
        other = [s for s in base.suffix if not s.startswith("X")]
        if other or len(scale) > 1:
            raise UnsupportedSass("address", text)
        r = c.reg("r", base.num)
        if scale:
            k = int(scale[0][1:])
            if k not in (4, 8, 16):
                raise UnsupportedSass("address", text)
            tt = e.t()
            e.w(f"mul.lo.u32 {tt}, {r}, {k};")
            r = tt
        terms.append(r)
    for u in uniform:
        if u.suffix:
            raise UnsupportedSass("address", text)
        terms.append(c.reg("ur", u.num))
    if not terms:
        return f"[{imm}]" if imm >= 0 else _neg_addr(text)
    acc = terms[0]
    for tm in terms[1:]:
        tt = e.t()
        e.w(f"add.u32 {tt}, {acc}, {tm};")
        acc = tt
    d = e.d()
    # sign-extended: the hardware adds the immediate in 32 bits, so a base below 0 (R - 0x80)
    # plus an immediate (+0x80) is an address inside the window
    e.w(f"cvt.s64.s32 {d}, {acc};")
    return f"[{d}{'+' + str(imm) if imm > 0 else str(imm) if imm else ''}]"


def _neg_addr(text: str) -> str:
    raise UnsupportedSass("address", text)


def _vec_dst(c: Converter, o: Opnd, n: int) -> str:
    if o.kind != "r":
        raise UnsupportedSass("destination", o.text)
    return "{" + ", ".join(c.reg("r", o.num + i) for i in range(n)) + "}"


def _ldst_type(ins: SassInstruction, allowed_extra: set[str] = frozenset()) -> tuple[str, int]:  # type: ignore[assignment]
    _mods(ins, _MEM_IGNORED | set(_SIZES) | allowed_extra)
    sizes = [m for m in ins.modifiers if m in _SIZES]
    if len(sizes) > 1:
        raise UnsupportedSass(ins.full_opcode)
    s = _SIZES[sizes[0]] if sizes else "b32"
    words = {"b64": 2, "b128": 4}.get(s, 1)
    return s, words


def _sp(space: str) -> str:
    """The state-space modifier of a PTX ld/st (none for generic addressing)."""
    return "" if space == "generic" else "." + space


_SPACE = {"LDG": "global", "STG": "global", "LDS": "shared", "STS": "shared", "LDL": "local", "STL": "local",
          "LD": "generic", "ST": "generic"}


@_h("LDG", "LDS", "LDL", "LD")
def _ld(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd] | None = None) -> None:
    s, words = _ldst_type(ins)
    if len(ins.operands) != 2:
        raise UnsupportedSass(ins.full_opcode)
    space = _SPACE[ins.opcode]
    dst = parse_operand(ins.operands[0])
    addr = _addr(c, e, ins.operands[1], space, "E" in ins.modifiers)
    if words == 1:
        e.a(f"ld{_sp(space)}.{s} {c.dst(dst)}, {addr};")
    elif dst.kind == "rz":
        return
    else:
        e.a(f"ld{_sp(space)}.v{words}.b32 {_vec_dst(c, dst, words)}, {addr};")


@_h("STG", "STS", "STL", "ST")
def _st(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd] | None = None) -> None:
    s, words = _ldst_type(ins)
    if len(ins.operands) != 2:
        raise UnsupportedSass(ins.full_opcode)
    space = _SPACE[ins.opcode]
    addr = _addr(c, e, ins.operands[0], space, "E" in ins.modifiers)
    val = parse_operand(ins.operands[1])
    if words == 1:
        v = c.src_reg(e, val)
        st = {"u8": "b8", "s8": "b8", "u16": "b16", "s16": "b16"}.get(s, "b32")
        e.a(f"st{_sp(space)}.{st} {addr}, {v};")
        return
    if val.kind == "rz":
        vs = []
        for _ in range(words):
            t = e.t()
            e.w(f"mov.b32 {t}, 0;")
            vs.append(t)
        e.a(f"st{_sp(space)}.v{words}.b32 {addr}, {{{', '.join(vs)}}};")
        return
    e.a(f"st{_sp(space)}.v{words}.b32 {addr}, {_vec_dst(c, val, words)};")


_ATOM_OPS = {"ADD": "add", "MIN": "min", "MAX": "max", "INC": "inc", "DEC": "dec", "AND": "and",
             "OR": "or", "XOR": "xor", "EXCH": "exch", "CAS": "cas"}
_ATOM_TYPES = {"U32": "u32", "S32": "s32", "64": "u64", "U64": "u64", "S64": "s64", "F32": "f32",
               "F64": "f64"}


@_h("RED", "ATOM", "ATOMS", "ATOMG")
def _atom(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd] | None = None) -> None:
    """``RED.E.op[.type] [addr], Rv`` / ``ATOM(S|G).op[.type] Rd, [addr], Rv``: PTX red/atom
    (``.gpu`` scope as the hardware's ``.STRONG.GPU``).  ``ATOMS`` is shared memory."""
    mods = list(ins.modifiers)
    if ins.opcode == "ATOMS" and mods[:2] == ["POPC", "INC"]:
        # ATOMS.POPC.INC.32 RZ, [addr]: every active lane adds 1 (the hardware adds the popcount once)
        if len(ins.operands) != 2 or ins.operands[0] != "RZ" or mods[2:] not in ([], ["32"]):
            raise UnsupportedSass(ins.full_opcode)
        addr = _addr(c, e, ins.operands[1], "shared", False)
        e.a(f"red.shared.add.u32 {addr}, 1;")
        return
    _mods(ins, _MEM_IGNORED | set(_ATOM_OPS) | set(_ATOM_TYPES) | {"FTZ", "RN"})
    aops = [m for m in mods if m in _ATOM_OPS]
    types = [m for m in mods if m in _ATOM_TYPES]
    if len(aops) != 1 or len(types) > 1:
        raise UnsupportedSass(ins.full_opcode)
    aop = _ATOM_OPS[aops[0]]
    typ = _ATOM_TYPES[types[0]] if types else ("u32" if aop != "min" and aop != "max" else "s32")
    if aop in ("and", "or", "xor", "exch", "cas"):
        typ = {"u32": "b32", "s32": "b32", "u64": "b64", "s64": "b64"}.get(typ, typ)
    if typ == "f32" and aop != "add":
        raise UnsupportedSass(ins.full_opcode)
    space = "shared" if ins.opcode == "ATOMS" else "global"
    wide = typ.endswith("64")
    if ins.opcode == "RED":
        if len(ins.operands) != 2:
            raise UnsupportedSass(ins.full_opcode)
        addr = _addr(c, e, ins.operands[0], space, True)
        val = parse_operand(ins.operands[1])
        v = c.src64(e, val) if wide else c.src_reg(e, val, "f32" if typ == "f32" else "int")
        e.a(f"red.{space}.{aop}.{typ} {addr}, {v};")
        return
    operands = list(ins.operands)
    if len(operands) >= 4 and operands[0] == "PT":   # ATOMG's unused predicate destination
        operands = operands[1:]
    if aop == "cas":
        if len(operands) != 4:
            raise UnsupportedSass(ins.full_opcode)
        dst = parse_operand(operands[0])
        addr = _addr(c, e, operands[1], space, ins.opcode != "ATOMS")
        if wide:
            cmp_v, new_v = c.src64(e, parse_operand(operands[2])), c.src64(e, parse_operand(operands[3]))
            d = e.d()
            e.a(f"atom.{space}.cas.b64 {d}, {addr}, {cmp_v}, {new_v};")
            e.a(f"mov.b64 {c.dst_pair(dst)}, {d};")
        else:
            cmp_v, new_v = c.src_reg(e, parse_operand(operands[2])), c.src_reg(e, parse_operand(operands[3]))
            e.a(f"atom.{space}.cas.b32 {c.dst(dst)}, {addr}, {cmp_v}, {new_v};")
        return
    if len(operands) != 3:
        raise UnsupportedSass(ins.full_opcode)
    dst = parse_operand(operands[0])
    addr = _addr(c, e, operands[1], space, ins.opcode != "ATOMS")
    val = parse_operand(operands[2])
    v = c.src64(e, val) if wide else c.src_reg(e, val, "f32" if typ == "f32" else "int")
    if wide:
        d = e.d()
        e.a(f"atom.{space}.{aop}.{typ} {d}, {addr}, {v};")
        e.a(f"mov.b64 {c.dst_pair(dst)}, {d};")
    else:
        e.a(f"atom.{space}.{aop}.{typ} {c.dst(dst)}, {addr}, {v};")


# --- textures and surfaces (bindless objects: the handle is a kernel parameter in c[0x0][])
_TEX_GEOM = {"1D": 1, "2D": 2, "3D": 3}


def _handle(c: Converter, e: _Exp, ins: SassInstruction, ops: list[str]) -> str:
    """The 64-bit texture/surface object of the trailing ``0x0, idx`` operands: the handle is the
    word ``idx`` of constant bank 0 (``idx * 4`` is the parameter's offset, e.g. 0x58 = 0x160)."""
    if len(ops) != 2 or ops[0] != "0x0" or not _INT.match(ops[1]):
        raise UnsupportedSass(ins.full_opcode, f"texture/surface handle operands {', '.join(ops)}")
    return c.const_load(e, 0, 4 * int(ops[1], 16), 64)


@_h("TEX", "TLD", "TLD4")
def _texture(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd] | None = None) -> None:
    """``TEX`` (float coordinates), ``TLD`` (integer texel coordinates) and ``TLD4.{R,G,B,A}``
    (2-D gather of one component) on a bindless object: ``Rd0, Rd1, Ra[, Rb], 0x0, idx, geom[,
    mask]``, the object in ``c[0x0][4 idx]``.  The parameters (coordinates, then the level for
    ``.LL``) fill Ra, Rb: Ra alone for one, Ra and Rb = Ra+1 for two, else Ra, Ra+1 and Rb, Rb+1.  The
    components the mask enables (all four by default) go in order to Rd1, Rd1+1, Rd0, Rd0+1.
    PTXPlus ``tex``/``tld4`` with a ``.b32`` destination type: each component's raw bits as the
    object's format gives them (float bits for float and normalised reads, integers otherwise).
    ``.LL`` (explicit level) and ``.LZ`` sample level 0: textures have no mipmaps here."""
    tld4 = ins.opcode == "TLD4"
    comps = {"R": "r", "G": "g", "B": "b", "A": "a"}
    _mods(ins, {"SCR", "LL", "LZ", "NODEP"} | (set(comps) if tld4 else set()))
    ops_s = [o.strip() for o in ins.operands]
    gi = next((i for i, o in enumerate(ops_s) if o in _TEX_GEOM or re.fullmatch(r"[A-Z_0-9]+D|CUBE|ARRAY.*", o)), -1)
    if gi < 0 or ops_s[gi] not in _TEX_GEOM:
        raise UnsupportedSass(ins.full_opcode, f"geometry {ops_s[gi] if gi >= 0 else '(none)'}")
    ndim = _TEX_GEOM[ops_s[gi]]
    mask = 0xF
    if len(ops_s) == gi + 2 and _INT.match(ops_s[gi + 1]):
        mask = int(ops_s[gi + 1], 16)
    elif len(ops_s) != gi + 1:
        raise UnsupportedSass(ins.full_opcode, "operands after the geometry")
    handle = _handle(c, e, ins, ops_s[gi - 2:gi])
    regs = [parse_operand(o) for o in ops_s[:gi - 2]]
    if len(regs) not in (3, 4) or any(r.kind not in ("r", "rz") or r.neg or r.inv or r.abs for r in regs):
        raise UnsupportedSass(ins.full_opcode, "operands")
    d0, d1, srcs = regs[0], regs[1], regs[2:]
    nparam = ndim + (1 if "LL" in ins.modifiers else 0)
    # the registers holding the parameters, in order
    if nparam == 1:
        where = [(0, 0)]
    elif nparam == 2:
        # nvcc 13 always places the second one in Ra+1 and names it as Rb too (TLD4 ... R2, R3);
        # another Rb would leave it open which register is read
        if len(srcs) != 2 or srcs[0].kind != "r" or srcs[1].kind != "r" or srcs[1].num != srcs[0].num + 1:
            raise UnsupportedSass(ins.full_opcode, "texture coordinates not in Ra, Ra+1")
        where = [(0, 0), (1, 0)]
    else:
        where = [(0, 0), (0, 1), (1, 0), (1, 1)][:nparam]
    if max(s for s, _ in where) >= len(srcs):
        raise UnsupportedSass(ins.full_opcode, "operands")
    coords = []
    for s_i, k in where[:ndim]:
        o = srcs[s_i]
        coords.append("0" if o.kind == "rz" else c.reg("r", o.num + k))
    if tld4 and ndim != 2:
        raise UnsupportedSass(ins.full_opcode, "gather is 2-D")
    # destination registers of the enabled components
    slots = [(d1, 0), (d1, 1), (d0, 0), (d0, 1)]
    dests: list[str] = []
    k = 0
    for comp in range(4):
        if mask >> comp & 1:
            if k >= 4:
                break
            o, off = slots[k]
            k += 1
            dests.append(c.dst(o) if o.kind == "rz" else c.reg("r", o.num + off))
        else:
            c.need_rz = True
            dests.append("%rz")
    if mask >> 4 or mask == 0:
        raise UnsupportedSass(ins.full_opcode, f"component mask {mask:#x}")
    # work registers: every source is read before a destination (which may alias one) is written
    cw = []
    for x in coords:
        t = e.t()
        e.w(f"mov.b32 {t}, {x};")
        cw.append(t)
    ctyp = "s32" if ins.opcode == "TLD" else "f32"
    vec = "{" + ", ".join(cw) + "}"
    if tld4:
        which = next((comps[m] for m in ins.modifiers if m in comps), "r")
        e.a(f"tld4.{which}.2d.v4.b32.f32 {{{', '.join(dests)}}}, [{handle}, {vec}];")
    else:
        e.a(f"tex.{ndim}d.v4.b32.{ctyp} {{{', '.join(dests)}}}, [{handle}, {vec}];")


_SURF_SIZES = {"U8": ("b8", 1), "S8": ("b8", 1), "U16": ("b16", 1), "S16": ("b16", 1), "64": ("b32", 2),
               "128": ("b32", 4)}
_SURF_IGNORED = {"D", "BA", "STRONG", "CTA", "SM", "GPU", "SYS", "WEAK"}


def _surf(c: Converter, e: _Exp, ins: SassInstruction) -> tuple[str, str, str, str, int, str]:
    """The common part of ``SULD``/``SUST``: ``(mode, geometry, handle, coordinate vector,
    words, element type)``."""
    geoms = [m for m in ins.modifiers if m in _TEX_GEOM]
    modes = {"TRAP": "trap", "IGN": "zero"}
    _mods(ins, _SURF_IGNORED | set(_TEX_GEOM) | set(_SURF_SIZES) | set(modes))
    if len(geoms) != 1 or "D" not in ins.modifiers or "BA" not in ins.modifiers:
        raise UnsupportedSass(ins.full_opcode)
    sizes = [m for m in ins.modifiers if m in _SURF_SIZES]
    if len(sizes) > 1 or len(ins.operands) != 4:
        raise UnsupportedSass(ins.full_opcode)
    typ, words = _SURF_SIZES[sizes[0]] if sizes else ("b32", 1)
    mode = next((modes[m] for m in ins.modifiers if m in modes), "clamp")
    ndim = _TEX_GEOM[geoms[0]]
    handle = _handle(c, e, ins, list(ins.operands[2:]))
    a = ins.operands[0] if ins.opcode == "SUST" else ins.operands[1]
    m = re.fullmatch(r"\[(R\d+)\]", a.strip())
    if not m:
        raise UnsupportedSass(ins.full_opcode, f"address {a}")
    base = parse_operand(m[1]).num
    cw = []
    for k in range(ndim):
        t = e.t()
        e.w(f"mov.b32 {t}, {c.reg('r', base + k)};")
        cw.append(t)
    return mode, f"{ndim}d", handle, "{" + ", ".join(cw) + "}", words, typ


@_h("SULD")
def _suld(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd] | None = None) -> None:
    """``SULD.D.BA.{1D,2D,3D}[.U8|.S8|.U16|.S16|.64|.128][.TRAP|.IGN] Rd, [Ra], 0x0, idx``: a raw
    surface load (PTX ``suld.b``), x in bytes in Ra, y and z in Ra+1, Ra+2, the object in
    ``c[0x0][4 idx]``; out of range: ``.TRAP`` traps, ``.IGN`` reads 0, neither clamps.  8- and
    16-bit loads zero- (``.U``) or sign-extend (``.S``) into Rd."""
    mode, geom, handle, vec, words, typ = _surf(c, e, ins)
    dst = parse_operand(ins.operands[0])
    if dst.kind == "rz":
        c.need_rz = True
        dv = "{" + ", ".join(["%rz"] * words) + "}" if words > 1 else "%rz"
    else:
        dv = _vec_dst(c, dst, words) if words > 1 else c.dst(dst)
    v = f".v{words}" if words > 1 else ""
    e.a(f"suld.b.{geom}{v}.{typ}.{mode} {dv}, [{handle}, {vec}];")
    signed = [m for m in ins.modifiers if m in ("S8", "S16")]
    if signed and dst.kind != "rz":
        e.a(f"bfe.s32 {dv}, {dv}, 0, {signed[0][1:]};")


@_h("SUST")
def _sust(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd] | None = None) -> None:
    """``SUST.D.BA.{1D,2D,3D}[.U8|.U16|.64|.128][.TRAP|.IGN] [Ra], Rb, 0x0, idx``: a raw surface
    store (PTX ``sust.b``) of Rb (Rb..Rb+n-1 for the wide forms), addressed as ``SULD``."""
    mode, geom, handle, vec, words, typ = _surf(c, e, ins)
    val = parse_operand(ins.operands[1])
    if val.kind == "rz":
        vs = []
        for _ in range(words):
            t = e.t()
            e.w(f"mov.b32 {t}, 0;")
            vs.append(t)
        sv = "{" + ", ".join(vs) + "}" if words > 1 else vs[0]
    elif val.kind == "r" and not (val.neg or val.inv or val.abs):
        sv = _vec_dst(c, val, words) if words > 1 else c.reg("r", val.num)
    else:
        raise UnsupportedSass(ins.full_opcode, f"operand {val.text}")
    v = f".v{words}" if words > 1 else ""
    e.a(f"sust.b.{geom}{v}.{typ}.{mode} [{handle}, {vec}], {sv};")


# --- tensor cores
def _regs(c: Converter, o: Opnd, n: int, what: str, ins: SassInstruction) -> list[str]:
    if o.kind == "rz":
        c.need_rz = True
        return ["%rz"] * n
    if o.kind != "r" or o.neg or o.inv or o.abs:
        raise UnsupportedSass(ins.full_opcode, f"{what} {o.text}")
    return [c.reg("r", o.num + i) for i in range(n)]


#: HMMA/IMMA shape -> the PTX mma.sync shape and the registers of A, B, C/D per accumulator type
_MMA_FORMS = {
    ("HMMA", "1688"): ("m16n8k8", 2, 1), ("HMMA", "16816"): ("m16n8k16", 4, 2),
    ("IMMA", "8816"): ("m8n8k16", 1, 1), ("IMMA", "16816"): ("m16n8k16", 2, 1),
    ("IMMA", "16832"): ("m16n8k32", 4, 2),
}


@_h("HMMA", "IMMA")
def _mma(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``HMMA.{1688,16816}.{F32,F16}[.BF16|.TF32] Rd, Ra, Rb, Rc`` and ``IMMA.{8816,16816,16832}
    .{S8,U8}.{S8,U8}[.SAT] Rd, Ra, Rb, Rc``: one warp-wide tensor-core MMA, the PTX ``mma.sync
    .aligned`` of the same shape (row-major A, column-major B) on consecutive registers from Ra,
    Rb, Rc, Rd, whose fragment layout is the hardware's (PTX ISA, "Matrix fragments for mma")."""
    mods = list(ins.modifiers)
    if len(mods) < 2 or (ins.opcode, mods[0]) not in _MMA_FORMS:
        raise UnsupportedSass(ins.full_opcode)
    shape, na, nb = _MMA_FORMS[(ins.opcode, mods[0])]
    rest = mods[1:]
    sat = ""
    if ins.opcode == "HMMA":
        acc = {"F32": "f32", "F16": "f16"}.get(rest[0])
        ab = {(): "f16", ("BF16",): "bf16", ("TF32",): "tf32"}.get(tuple(rest[1:]))
        if acc is None or ab is None or (ab != "f16" and acc != "f32"):
            raise UnsupportedSass(ins.full_opcode)
        if ab == "tf32":   # tf32 holds one element per register: twice the registers of f16
            shape = {"m16n8k8": "m16n8k4", "m16n8k16": "m16n8k8"}[shape]
        nc = 4 if acc == "f32" else 2
        types = f"{acc}.{ab}.{ab}.{acc}"
    else:
        ints = {"S8": "s8", "U8": "u8"}
        if len(rest) not in (2, 3) or rest[0] not in ints or rest[1] not in ints \
                or (len(rest) == 3 and rest[2] != "SAT"):
            raise UnsupportedSass(ins.full_opcode)
        sat = ".satfinite" if len(rest) == 3 else ""
        nc = 2 if shape == "m8n8k16" else 4
        types = f"s32.{ints[rest[0]]}.{ints[rest[1]]}.s32"
    _nops(ins, 4)
    d = _regs(c, ops[0], nc, "destination", ins)
    a = _regs(c, ops[1], na, "A", ins)
    b = _regs(c, ops[2], nb, "B", ins)
    cc = _regs(c, ops[3], nc, "C", ins)

    def v(rs: list[str]) -> str:
        return "{" + ", ".join(rs) + "}"
    e.a(f"mma.sync.aligned.{shape}.row.col{sat}.{types} {v(d)}, {v(a)}, {v(b)}, {v(cc)};")


@_h("LDSM")
def _ldsm(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd] | None = None) -> None:
    """``LDSM.16.{M88,MT88}[.2|.4] Rd, [addr]``: the warp loads 1, 2 or 4 8x8 matrices of 16-bit
    elements from shared memory into Rd.. (``.MT88`` transposed): PTX ``ldmatrix.sync.aligned
    .m8n8.x{1,2,4}[.trans].shared.b16``."""
    mods = list(ins.modifiers)
    if len(mods) not in (2, 3) or mods[0] != "16" or mods[1] not in ("M88", "MT88") \
            or (len(mods) == 3 and mods[2] not in ("2", "4")):
        raise UnsupportedSass(ins.full_opcode)
    n = int(mods[2]) if len(mods) == 3 else 1
    if len(ins.operands) != 2:
        raise UnsupportedSass(ins.full_opcode)
    addr = _addr(c, e, ins.operands[1], "shared", False)
    d = _regs(c, parse_operand(ins.operands[0]), n, "destination", ins)
    trans = ".trans" if mods[1] == "MT88" else ""
    e.a(f"ldmatrix.sync.aligned.m8n8.x{n}{trans}.shared.b16 {{{', '.join(d)}}}, {addr};")


@_h("MOVM")
def _movm(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``MOVM.16.MT88 Rd, Ra``: transpose of the 8x8 matrix of 16-bit elements the warp holds in
    Ra (lane l: row l >> 2, columns 2 (l % 4) and +1), PTX ``movmatrix.sync.aligned.m8n8.trans
    .b16``.  Lane l's element j is the source's (row 2 (l % 4) + j, column l >> 2), the half
    (l >> 2) & 1 of lane 8 (l % 4) + 4 j + (l >> 3): two ``shfl.sync.idx`` and a ``prmt``."""
    if list(ins.modifiers) != ["16", "MT88"]:
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 2)
    src = c.src_reg(e, ops[1])
    lane, i0, i1, t, sel, v0, v1 = (e.t() for _ in range(7))
    e.w(f"mov.u32 {lane}, %laneid;")
    e.w(f"and.b32 {t}, {lane}, 3;")
    e.w(f"shl.b32 {i0}, {t}, 3;")
    e.w(f"shr.u32 {t}, {lane}, 3;")
    e.w(f"add.u32 {i0}, {i0}, {t};")
    e.w(f"add.u32 {i1}, {i0}, 4;")
    e.w(f"shfl.sync.idx.b32 {v0}, {src}, {i0}, 31, 0xffffffff;")
    e.w(f"shfl.sync.idx.b32 {v1}, {src}, {i1}, 31, 0xffffffff;")
    e.w(f"bfe.u32 {t}, {lane}, 2, 1;")
    e.w(f"mad.lo.u32 {sel}, {t}, 0x2222, 0x5410;")
    e.a(f"prmt.b32 {c.dst(ops[0])}, {v0}, {v1}, {sel};")


def supported_opcodes() -> list[str]:
    """The SASS opcodes with a handler (each also checks its modifiers and operand forms)."""
    return sorted(_HANDLERS)


def convert_kernel(fn: SassFunction, ctx: KernelContext) -> str:
    """The PTXPlus ``.entry`` text of kernel ``fn``.  Raises :class:`UnsupportedSass`."""
    return Converter(fn, ctx).convert()
