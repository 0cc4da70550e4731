"""SASS moves, special registers, constant loads and integer handlers (``MOV``, ``S2R``,
``LDC``, ``IMAD``, ``IADD3``, ``LEA``, ``SHF``, ``LOP3``, ``ISETP``, ``PLOP3``, ...; see
:mod:`gpgpusim.ptxplus.convert` for the conventions)."""

from __future__ import annotations

import re

from cuobjdump_tools.sass import SassInstruction

from .base import (
    BUILTINS,
    Converter,
    Opnd,
    SPECIAL_REGS,
    UnsupportedSass,
    _Exp,
    _h,
    _mods,
    _nops,
    parse_operand,
)


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
    if n.kind == "imm":
        k = n.num & 31 if "W" in mods else min(n.num & 0xFFFFFFFF, 32 if typ.endswith("32") else 64)
        # a word of the shifted pair that one 32-bit shift gives (k < 32): the low word of a
        # left shift, the high word of a right shift, and the other two when the word shifted
        # in from the other half is zero (RZ)
        one = None
        if k < 32 and "L" in mods and "HI" not in mods:
            one = f"shl.b32 {{}}, {c.src_reg(e, lo)}, {k};"
        elif k < 32 and "R" in mods and "HI" in mods:
            one = f"shr.{'s' if typ[0] == 'S' else 'u'}32 {{}}, {c.src_reg(e, hi)}, {k};"
        elif k < 32 and "R" in mods and hi.kind == "rz":
            one = f"shr.u32 {{}}, {c.src_reg(e, lo)}, {k};"
        elif k < 32 and "L" in mods and lo.kind == "rz":
            one = f"shl.b32 {{}}, {c.src_reg(e, hi)}, {k};"
        if one is not None:
            e.a(one.format(c.dst(ops[0])))
            return
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
