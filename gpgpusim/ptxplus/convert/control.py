"""SASS control flow, barriers and warp-level handlers: ``BRA``, ``CALL``, ``RET``, ``EXIT``,
the convergence-barrier no-ops, ``BAR``, ``MEMBAR``, ``SHFL``, ``VOTE``, ``REDUX``, ``MATCH``
(see :mod:`gpgpusim.ptxplus.convert` for the conventions)."""

from __future__ import annotations

import re

from cuobjdump_tools.sass import SassInstruction

from .base import (
    BUILTINS,
    CDP_CALLS,
    Converter,
    Opnd,
    UnsupportedSass,
    _Exp,
    _RET_TYPES,
    _h,
    _mods,
    _nops,
    parse_operand,
)


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
    another condition); None when unguarded.  The thread count keeps following the SASS guard
    (:attr:`_Exp.count_guard`: that guard, or every active lane when unguarded)."""
    if not e.guard:
        e.count_guard = "all"
        return None
    g, e.guard = e.guard, ""
    e.count_guard = g
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
    if ins.operands[0] in CDP_CALLS:
        _call_cdp(c, e, ins.operands[0])
        return
    if not ins.operands[0].startswith("R"):
        raise UnsupportedSass(ins.full_opcode, f"call of {ins.operands[0]}")
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
        _abi_call(c, e, name, args, _RET_TYPES.get(name))
        e.a(f"bra {here}_end;")
    e.a(f"{here}_end:")


def _call_cdp(c: Converter, e: _Exp, name: str) -> None:
    """``CALL.ABS.NOINC __cudaCDP2GetParameterBufferV2`` / ``__cudaCDP2LaunchDeviceV2``: a
    device-side launch (dynamic parallelism, C078-C091), the PTX ``call`` of that function with
    the ABI's argument registers (:data:`CDP_CALLS`: the kernel's address in R4:R5, the grid
    and block ``dim3`` in R6-R8 and R9-R11, the dynamic shared memory in R12; then the parameter
    buffer in R4:R5 and the stream in R6:R7); the result comes back in R4:R5 (the buffer) or R4
    (the error code).  The ``call`` line is the main line: it is what the timing model charges
    ``-cdp_latency`` to and where it releases the child grid."""
    args, ret, _decl = CDP_CALLS[name]
    _abi_call(c, e, name, args, ret)


def _abi_call(c: Converter, e: _Exp, name: str, args: list[tuple[int, str]], ret: str | None) -> None:
    """A block calling device-runtime function ``name`` with the ABI's argument registers
    ``args`` (``(first register, type)``: ``b32``/``b64`` in R<n> or the pair R<n>:R<n+1>, a
    ``dim3`` in R<n>..R<n+2>) and its result, if ``ret``, into R4 (``b32``) or R4:R5 (``b64``)."""
    e.a("{")
    params = []
    for j, (rn, typ) in enumerate(args):
        p = f"param{j}"
        params.append(p)
        if typ == "dim3":
            e.a(f".param .align 4 .b8 {p}[12];")
            for k in range(3):
                e.a(f"st.param.b32 [{p}+{4 * k}], {c.reg('r', rn + k)};")
            continue
        e.a(f".param .{typ} {p};")
        if typ == "b64":
            d = e.d()
            e.a(f"mov.b64 {d}, {{{c.reg('r', rn)}, {c.reg('r', rn + 1)}}};")
            e.a(f"st.param.b64 [{p}], {d};")
        else:
            e.a(f"st.param.{typ} [{p}], {c.reg('r', rn)};")
    if not ret:
        e.a(f"call.uni {name}, ({', '.join(params)});")
        e.a("}")
        return
    e.a(f".param .{ret} retval0;")
    e.a(f"call.uni (retval0), {name}, ({', '.join(params)});")
    if ret == "b64":
        d = e.d()
        e.a(f"ld.param.b64 {d}, [retval0];")
        e.a(f"mov.b64 {{{c.reg('r', 4)}, {c.reg('r', 5)}}}, {d};")
    else:
        e.a(f"ld.param.b32 {c.reg('r', 4)}, [retval0];")
    e.a("}")


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
