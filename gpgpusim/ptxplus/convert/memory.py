"""SASS memory handlers: addressing, loads, stores, atomics, textures, surfaces and the
tensor cores (``LDG``/``STG``/``LDS``/..., ``ATOM``, ``TEX``, ``TXQ``, ``SULD``, ``HMMA``, ``LDSM``,
``MOVM``; see :mod:`gpgpusim.ptxplus.convert` for the conventions)."""

from __future__ import annotations

import re

from cuobjdump_tools.sass import SassInstruction

from .base import (
    Converter,
    Opnd,
    UnsupportedSass,
    _Exp,
    _INT,
    _h,
    _mods,
    _nops,
    parse_operand,
)


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
    if not imm:
        # the 32-bit offset itself (a register address of the 32-bit shared / local windows)
        return f"[{acc}]"
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


#: ``TXQ ... TEX_HEADER_DIMENSION``: the PTX query of each component (x, y, z, w)
_TXQ_DIMENSION = ("width", "height", "depth", "num_mipmap_levels")


@_h("TXQ")
def _txq(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd] | None = None) -> None:
    """``TXQ Rd0, Rd1, Ra, TEX_HEADER_DIMENSION, 0x0, idx, mask``: the dimensions of the bindless
    texture or surface object in ``c[0x0][4 idx]`` (what ``txq``/``suq`` ``.width``/``.height``/
    ``.depth`` compile to): the components the mask enables (x width, y height, z depth, w the
    number of mipmap levels, 1 here) go in order to Rd1, Rd1+1, Rd0, Rd0+1, as ``TEX``'s do.  Ra
    holds the level queried; objects have level 0 only here (as ``TEX.LL`` samples it), so it is
    not read.  PTXPlus ``txq`` with a register handle queries a texture or a surface alike (SASS
    reads both headers the same way).  Other queries (``TEX_HEADER_TEXTURE_TYPE``,
    ``TEX_HEADER_SAMPLER``, ...) are refused."""
    _mods(ins, {"NODEP"})
    ops_s = [o.strip() for o in ins.operands]
    if len(ops_s) != 7 or not _INT.match(ops_s[6]):
        raise UnsupportedSass(ins.full_opcode, f"{len(ops_s)} operands")
    if ops_s[3] != "TEX_HEADER_DIMENSION":
        raise UnsupportedSass(ins.full_opcode, f"query {ops_s[3]}")
    handle = _handle(c, e, ins, ops_s[4:6])
    regs = [parse_operand(o) for o in ops_s[:3]]
    if any(r.kind not in ("r", "rz") or r.neg or r.inv or r.abs for r in regs):
        raise UnsupportedSass(ins.full_opcode, "operands")
    mask = int(ops_s[6], 16)
    if not 0 < mask <= 0xF:
        raise UnsupportedSass(ins.full_opcode, f"mask {ops_s[6]}")
    d0, d1 = regs[0], regs[1]
    dests = [(d1, 0), (d1, 1), (d0, 0), (d0, 1)]
    for comp, field in enumerate(_TXQ_DIMENSION):
        if not mask >> comp & 1:
            continue
        reg, k = dests[sum(mask >> j & 1 for j in range(comp))]
        dst = "%rz" if reg.kind == "rz" else c.reg("r", reg.num + k)
        if reg.kind == "rz":
            c.need_rz = True
        e.a(f"txq.{field}.b32 {dst}, [{handle}];")


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
