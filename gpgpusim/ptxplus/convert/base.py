"""The converter's vocabulary: constants of the constant banks, :class:`UnsupportedSass`, the
kernel context, SASS operands, the expansion of one instruction (:class:`_Exp`, its main
line), :class:`Converter` (one kernel) and the handler registry (:func:`_h`); the handlers
are in the modules beside it (see :mod:`gpgpusim.ptxplus.convert` for the conventions)."""

from __future__ import annotations

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

#: CUDA's device-runtime launch calls (dynamic parallelism, checklist C078-C091) a ``CALL.ABS``
#: names directly (``CALL.ABS.NOINC __cudaCDP2LaunchDeviceV2``): the ABI registers of their
#: arguments (``b64`` a pair, ``dim3`` three words), their result type (R4, or the pair R4:R5)
#: and their PTX declaration.  The engine runs them as in PTX mode (:mod:`gpgpusim.functional.cdp`).
CDP_CALLS: dict[str, tuple[list[tuple[int, str]], str, str]] = {
    "__cudaCDP2GetParameterBufferV2": (
        [(4, "b64"), (6, "dim3"), (9, "dim3"), (12, "b32")], "b64",
        ".extern .func (.param .b64 func_retval0) __cudaCDP2GetParameterBufferV2 (.param .b64 "
        "__cudaCDP2GetParameterBufferV2_param_0, .param .align 4 .b8 __cudaCDP2GetParameterBufferV2_param_1[12], "
        ".param .align 4 .b8 __cudaCDP2GetParameterBufferV2_param_2[12], .param .b32 "
        "__cudaCDP2GetParameterBufferV2_param_3);"),
    "__cudaCDP2LaunchDeviceV2": (
        [(4, "b64"), (6, "b64")], "b32",
        ".extern .func (.param .b32 func_retval0) __cudaCDP2LaunchDeviceV2 (.param .b64 "
        "__cudaCDP2LaunchDeviceV2_param_0, .param .b64 __cudaCDP2LaunchDeviceV2_param_1);"),
}

#: a relocated 32-bit half of a symbol's address: ``32@lo(sym)``, ``32@hi((sym + 0x200))``
_RELOC = re.compile(r"^32@(?P<half>lo|hi)\((?P<inner>\(?(?P<sym>[A-Za-z_$][\w$.]*)(?:\s*\+\s*(?P<add>0x[0-9a-f]+|\d+))?\)?)\)$")


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
    #: every function of the module, kernels included -> its handle: the value of a relocated
    #: address (``UMOV UR4, 32@lo(kernel)``, the function a device-side launch starts)
    symbols: dict[str, int] = field(default_factory=dict)


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
        #: the SASS guard when the main line's own guard is not it (a branch that folds its
        #: guard into a combined predicate): the PTX guard text ("%p0", "!%p0") or "all" for an
        #: unguarded instruction; the main mark then names it (``//@main @%p0``) and the thread
        #: count follows it (C009: a SASS instruction's thread count is the lanes of its guard)
        self.count_guard: str | None = None

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
    """The PTX opcode of one line of an expansion ("" for labels, braces and declarations;
    "param" for ``ld.param``/``st.param``, which pass a call's arguments)."""
    t = line.strip()
    if t.startswith("@"):
        t = t.split(None, 1)[1] if " " in t else ""
    if not t or t[0] in "{}.$" or t.endswith(":"):
        return ""
    op = t.split(None, 1)[0]
    if op.startswith(("ld.param", "st.param")):
        return "param"      # a call's argument passing: no SASS memory access
    return op.split(".", 1)[0]


class _Prologue(_Exp):
    """The lines at the kernel's entry that read the constant-bank values the kernel uses into
    registers of their own (``%k<n>`` words, ``%kd<n>`` pairs), once per thread."""

    def t(self) -> str:
        self.nt += 1
        return f"%k{self.nt - 1}"

    def d(self) -> str:
        self.nd += 1
        return f"%kd{self.nd - 1}"


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
        self.prologue = _Prologue(self, "")
        self.consts: dict[tuple[int, int, int], str] = {}   # (bank, offset, bits) -> its register
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

    def relocated(self, text: str) -> str:
        """Operand ``text`` with a relocated half of a function's address (``32@lo(f)``,
        ``32@hi((f + 0x200))``) replaced by its value (the handle of ``f`` plus the addend, as
        an immediate); other operands unchanged.  The address of the kernel itself plus an
        offset is the return address nvcc passes to a ``CALL.ABS`` (unused here: the call
        continues in place)."""
        m = _RELOC.match(text.strip())
        if m is None:
            return text
        handle = self.ctx.symbols.get(m["sym"])
        if handle is None:
            raise UnsupportedSass("operand", text.strip())
        v = (handle + (int(m["add"], 0) if m["add"] else 0)) & 0xFFFFFFFFFFFFFFFF
        return hex(v >> 32 if m["half"] == "hi" else v & 0xFFFFFFFF)

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
        """The register holding a constant-bank word (bits 32) or pair (bits 64).  Constant
        banks do not change during a launch, so each value is read once, at the kernel's
        entry (:class:`_Prologue`), whichever instruction ``e`` uses it."""
        key = (bank, off, bits)
        reg = self.consts.get(key)
        if reg is None:
            reg = self._const_load(self.prologue, bank, off, bits)
            self.consts[key] = reg
        return reg

    def _const_load(self, e: _Exp, bank: int, off: int, bits: int) -> str:
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
                handler(self, e, ins, [parse_operand(self.relocated(o)) for o in ins.operands[:n_parsed]])
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
            lines[main] += f" {MAIN_MARK}" + (f" @{e.count_guard}" if e.count_guard is not None else "")
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
        pro = self.prologue
        for name, typ, n in (("k", "b32", pro.nt), ("kd", "b64", pro.nd)):
            if n:
                out.append(f"\t.reg .{typ} %{name}<{n}>;")
        if self.need_pt:
            out.append("\tsetp.eq.u32 %pt, 0, 0;")
        out.extend("\t" + ln for ln in pro.lines())
        out.extend(body)
        out.append("}")
        return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- handlers
_SELF_PARSING = {"BREAK", "P2R", "R2P", "CALL", "RET", "LD", "ST", "LDC", "BMOV", "BSSY", "BSYNC", "WARPSYNC", "DEPBAR", "LDG", "LDS", "LDL", "STG", "STS", "STL", "RED", "ATOM", "ATOMS", "ATOMG",
                 "TEX", "TLD", "TLD4", "TXQ", "SULD", "SUST", "LDSM"}
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
