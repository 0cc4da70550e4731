"""Per-kernel resource use derived from PTX (fallback when no cubin ``.nv.info`` exists).

GPGPU-Sim counterpart: the ``ptxinfo`` figures it obtains by running ``ptxas -v``
(``gpgpu_ptx_info_load_from_filename``, checklist C213) and stores in
``function_info::m_kernel_info`` (registers, shared, local/"lmem", constant).  We have no
ptxas in-process, so the register count is an *estimate*: the peak number of simultaneously
live 32-bit register slots (64-bit registers count twice, predicates not at all) from a
liveness analysis over the CFG, plus two for ptxas' usual overhead.  The cubin-derived
numbers (``cuobjdump_tools.elfinfo.kernel_resources``) are exact and preferred.

:class:`KernelResources` is the one dataclass both sources produce.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpgpusim.ptx import cfg, ir
from gpgpusim.ptx.ir import Addr, BasicBlock, Function, Imm, Label, Module, ParamList, PredPair, Reg, Sym, Vec

#: Default CTA size limit when the kernel has no ``.maxntid``/``.reqntid``.
MAX_THREADS_PER_BLOCK = 1024
#: Registers ptxas adds on top of the live values (stack pointer, scratch) in our estimate.
REG_OVERHEAD = 2
MAX_REGS = 255


@dataclass(frozen=True)
class KernelResources:
    """Resources one kernel needs per thread / per CTA.

    ``regs`` per thread, ``static_smem_bytes`` per CTA (function and module-scope
    ``.shared`` variables the kernel or its callees use; dynamic shared memory excluded),
    ``local_bytes`` per thread (``.local`` frames), ``max_threads`` per CTA
    (``.maxntid``/``.reqntid`` product, else 1024), ``barriers`` named barriers used
    (highest id + 1; 16 when an id is a register), ``param_bytes`` of the kernel's
    parameter buffer.
    """

    regs: int = 0
    static_smem_bytes: int = 0
    local_bytes: int = 0
    max_threads: int = MAX_THREADS_PER_BLOCK
    barriers: int = 0
    param_bytes: int = 0


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a if a > 1 else x


def _callees(fn: Function, module: Module) -> list[Function]:
    """Functions reachable from ``fn`` through ``call`` (fn included), each once."""
    seen = {fn.name}
    order = [fn]
    i = 0
    while i < len(order):
        f = order[i]
        i += 1
        for inst in f.instructions:
            if inst.opcode != "call":
                continue
            for op in inst.operands:
                if isinstance(op, Label) and op.name not in seen:
                    g = module.functions.get(op.name)
                    if g is not None:
                        seen.add(op.name)
                        order.append(g)
    return order


def _symbols(fn: Function) -> set[str]:
    out: set[str] = set()

    def visit(o: object) -> None:
        t = type(o)
        if t is Sym:
            out.add(o.name)  # type: ignore[attr-defined]
        elif t is Addr:
            visit(o.base)  # type: ignore[attr-defined]
        elif t is Vec:
            for e in o.elems:  # type: ignore[attr-defined]
                visit(e)
        elif t is ParamList:
            for e in o.items:  # type: ignore[attr-defined]
                visit(e)

    for inst in fn.instructions:
        for op in inst.operands:
            visit(op)
    return out


def _reg_slots(rtype: str) -> int:
    if rtype == "pred":
        return 0
    base = rtype.split(".")[-1]
    vec = int(rtype[1]) if rtype.startswith("v") else 1
    return max(1, ir.TYPE_SIZES.get(base, 4) // 4) * vec


def _regs_of(op: object, out: list[str]) -> None:
    t = type(op)
    if t is Reg:
        out.append(op.name)  # type: ignore[attr-defined]
    elif t is Addr:
        if type(op.base) is Reg:  # type: ignore[attr-defined]
            out.append(op.base.name)  # type: ignore[attr-defined]
    elif t is Vec:
        for e in op.elems:  # type: ignore[attr-defined]
            if e is not None:
                _regs_of(e, out)
    elif t is PredPair:
        out.append(op.p.name)  # type: ignore[attr-defined]
        if op.q is not None:  # type: ignore[attr-defined]
            out.append(op.q.name)  # type: ignore[attr-defined]
    elif t is ParamList:
        for e in op.items:  # type: ignore[attr-defined]
            _regs_of(e, out)


#: Opcodes whose first operand is only read (no destination register).
_NO_DEST = frozenset(["st", "bra", "brx", "ret", "exit", "bar", "barrier", "red", "call",
                      "membar", "fence", "trap", "prefetch", "prefetchu", "cp", "stmatrix",
                      "nanosleep", "pmevent"])


def max_live_regs(fn: Function) -> int:
    """Peak number of live 32-bit register slots over the function (liveness on the CFG)."""
    if not fn.instructions:
        return 0
    slots = {name: _reg_slots(t) for name, t in fn.regs.items()}
    index = {name: i for i, name in enumerate(fn.regs)}
    uses: list[int] = []
    defs: list[int] = []
    for inst in fn.instructions:
        u: list[str] = []
        d: list[str] = []
        ops = inst.operands
        if ops and inst.opcode not in _NO_DEST and not (inst.opcode == "wmma" and inst.has("store")):
            _regs_of(ops[0], d)
            for o in ops[1:]:
                _regs_of(o, u)
        else:
            for o in ops:
                _regs_of(o, u)
        if inst.guard is not None:
            u.append(inst.guard[0].name)
        uses.append(sum(1 << index[nm] for nm in set(u) if nm in index))
        defs.append(sum(1 << index[nm] for nm in set(d) if nm in index))
    blocks = fn.basic_blocks
    if not blocks:
        cfg.analyze(fn)
        blocks = fn.basic_blocks
    nb = len(blocks)
    live_in = [0] * nb

    def live_out(b: BasicBlock) -> int:
        """Registers live at the end of block ``b``: live into a successor (not the exit)."""
        live = 0
        for s in b.succs:
            if s < nb:
                live |= live_in[s]
        return live
    changed = True
    while changed:
        changed = False
        for b in reversed(blocks):
            live = live_out(b)
            for pc in range(b.end - 1, b.start - 1, -1):
                live = (live & ~defs[pc]) | uses[pc]
            if live != live_in[b.id]:
                live_in[b.id] = live
                changed = True
    weights = [slots[name] for name in fn.regs]
    best = 0
    for b in blocks:
        live = live_out(b)
        for pc in range(b.end - 1, b.start - 1, -1):
            live = (live & ~defs[pc]) | uses[pc]
            m = live | defs[pc]
            total = 0
            while m:
                low = m & -m
                total += weights[low.bit_length() - 1]
                m ^= low
            best = max(best, total)
    return best


def analyze(fn: Function, module: Module) -> KernelResources:
    """PTX-derived :class:`KernelResources` of ``fn`` (see module docstring)."""
    funcs = _callees(fn, module)
    smem = 0
    local_own = 0
    for v in fn.variables:
        if v.space == "shared" and not v.extern:
            smem = _align(smem, v.alignment) + v.size_bytes
        elif v.space == "local":
            local_own = _align(local_own, v.alignment) + v.size_bytes
    used: set[str] = set()
    for f in funcs:
        used |= _symbols(f)
        if f is not fn:
            for v in f.variables:
                if v.space == "shared" and not v.extern:
                    smem = _align(smem, v.alignment) + v.size_bytes
    for name in sorted(used):
        mv = module.variables.get(name)
        if mv is not None and mv.space == "shared" and not mv.extern:
            smem = _align(smem, mv.alignment) + mv.size_bytes
    callee_local = 0
    for f in funcs[1:]:
        callee_local = max(callee_local, sum(v.size_bytes for v in f.variables if v.space == "local"))
    d = fn.directives
    dims = d.get("reqntid") or d.get("maxntid")
    max_threads = MAX_THREADS_PER_BLOCK
    if dims:
        max_threads = 1
        for x in dims:
            max_threads *= x
    barriers = 0
    for f in funcs:
        for inst in f.instructions:
            if inst.opcode in ("bar", "barrier") and not inst.has("warp"):
                op = inst.operands[0] if inst.operands else Imm(0)
                barriers = max(barriers, int(op.value) + 1 if isinstance(op, Imm) else 16)
    regs = max(max_live_regs(f) for f in funcs)
    maxnreg = d.get("maxnreg")
    regs = min(MAX_REGS, regs + REG_OVERHEAD)
    if maxnreg:
        regs = min(regs, maxnreg[0])
    return KernelResources(
        regs=regs,
        static_smem_bytes=smem,
        local_bytes=local_own + callee_local,
        max_threads=max_threads,
        barriers=int(barriers),
        param_bytes=fn.param_bytes,
    )
