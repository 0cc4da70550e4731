"""Control-flow graph, post-dominators and reconvergence points of a PTX function.

GPGPU-Sim counterpart: ``function_info::create_basic_blocks``, ``connect_basic_blocks``,
``find_postdominators``, ``find_ipostdominators`` and ``print_ipostdominators``
(``src/cuda-sim/ptx_ir.cc``), used by the SIMT stack of ``-gpgpu_simd_model 1``
(post-dominator reconvergence).  Checklist C215, C216, C218, C219.

Contract
--------
:func:`analyze` fills ``Function.basic_blocks`` (blocks are ``[start, end)`` pc ranges in
program order; a block starts at pc 0, at every label and after every ``bra``/``brx``/
``ret``/``exit``) and ``Function.reconvergence_pc``: for every ``bra``/``brx`` and every
guarded ``ret``/``exit``/``call`` the pc of the first instruction of its immediate
post-dominator block, or ``len(instructions)`` when that is the function's virtual exit.

:func:`dominators` / :func:`idominators` (GPGPU-Sim computes them for PTXPlus break
analysis, C217, which we do not need) are provided for tools and debugging.

Post-dominators are computed on the reverse CFG with the iterative data-flow algorithm
(Muchnick fig. 7.14/7.15, as GPGPU-Sim), using Python ints as bit sets.  Blocks that cannot
reach the exit (infinite loops) reconverge at the exit.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from gpgpusim.errors import PtxError
from gpgpusim.ptx.ir import BasicBlock, Function, Instruction, Label, Module

#: Instructions after which a new basic block starts.
_TERMINATORS = frozenset(["bra", "brx", "ret", "exit"])
#: GPGPU-Sim's PTX instruction size in bytes (PCs in its reports are ``index * 8``).
PTX_INST_SIZE = 8


def _targets(fn: Function, inst: Instruction, pc: int) -> list[int]:
    """Target pcs of a ``bra`` (one label) or ``brx.idx`` (a ``.branchtargets`` table)."""
    out: list[int] = []
    for op in inst.operands:
        if isinstance(op, Label):
            if op.name in fn.labels:
                out.append(fn.labels[op.name])
            elif op.name in fn.branch_targets:
                for name in fn.branch_targets[op.name]:
                    if name not in fn.labels:
                        raise PtxError(f"{fn.name}: pc {pc} ({inst}): branch target {name} "
                                       f"is not a label of the function")
                    out.append(fn.labels[name])
            else:
                raise PtxError(f"line {inst.line}: {inst}: branch target {op.name} is not a "
                               f"label of function {fn.name}")
    if not out and inst.opcode == "bra":
        raise PtxError(f"line {inst.line}: {inst}: bra without a label target in {fn.name}")
    return out


def build_blocks(fn: Function) -> list[BasicBlock]:
    """Split ``fn.instructions`` into basic blocks and connect them (C216)."""
    insts = fn.instructions
    n = len(insts)
    if n == 0:
        return []
    leaders = {0}
    for pc in fn.labels.values():
        if 0 <= pc < n:
            leaders.add(pc)
    for pc, inst in enumerate(insts):
        if inst.opcode in _TERMINATORS and pc + 1 < n:
            leaders.add(pc + 1)
    starts = sorted(leaders)
    block_of = {}
    blocks: list[BasicBlock] = []
    for i, s in enumerate(starts):
        e = starts[i + 1] if i + 1 < len(starts) else n
        blocks.append(BasicBlock(i, s, e))
        block_of[s] = i
    exit_id = len(blocks)  # virtual exit node
    for b in blocks:
        last = insts[b.end - 1]
        op = last.opcode
        succ: list[int] = []
        fall = b.id + 1 if b.end < n else exit_id
        if op == "bra" or op == "brx":
            for t in _targets(fn, last, b.end - 1):
                succ.append(block_of[t] if t < n else exit_id)
            if last.guard is not None:
                succ.append(fall)
        elif op == "ret" or op == "exit":
            succ.append(exit_id)
            if last.guard is not None:
                succ.append(fall)
        else:
            succ.append(fall)
        seen = set()
        b.succs = [s for s in succ if not (s in seen or seen.add(s))]  # type: ignore[func-returns-value]
    for b in blocks:
        for s in b.succs:
            if s != exit_id:
                blocks[s].preds.append(b.id)
    return blocks


def postdominators(blocks: list[BasicBlock]) -> list[int]:
    """Post-dominator sets as bit masks (bit ``i`` = block ``i``; bit ``len`` = exit).

    A block from which the exit is unreachable (an infinite loop) gets a virtual edge to the
    exit, so that it and the branches leading into it reconverge at the exit.
    """
    nb = len(blocks)
    exit_id = nb
    succs = [list(b.succs) for b in blocks]
    reach = _reaching_exit(blocks)
    for i in range(nb):
        if not reach[i] and exit_id not in succs[i]:
            succs[i].append(exit_id)
    full = (1 << (nb + 1)) - 1
    pdom = [full] * nb + [1 << exit_id]
    changed = True
    order = list(range(nb - 1, -1, -1))  # reverse program order converges fast
    while changed:
        changed = False
        for i in order:
            acc = full
            for s in succs[i]:
                acc &= pdom[s]
            new = acc | (1 << i)
            if new != pdom[i]:
                pdom[i] = new
                changed = True
    return pdom


def _reaching_exit(blocks: list[BasicBlock]) -> list[bool]:
    """For each block, whether some path leads from it to the exit."""
    nb = len(blocks)
    preds: list[list[int]] = [[] for _ in range(nb + 1)]
    for b in blocks:
        for s in b.succs:
            preds[s].append(b.id)
    seen = [False] * (nb + 1)
    seen[nb] = True
    stack = [nb]
    while stack:
        x = stack.pop()
        for p in preds[x]:
            if not seen[p]:
                seen[p] = True
                stack.append(p)
    return seen[:nb]


def dominators(blocks: list[BasicBlock]) -> list[int]:
    """Dominator sets as bit masks (GPGPU-Sim ``find_dominators``; entry = block 0).

    Blocks unreachable from the entry dominate only themselves.
    """
    nb = len(blocks)
    if nb == 0:
        return []
    full = (1 << nb) - 1
    dom = [1] + [full] * (nb - 1)
    changed = True
    while changed:
        changed = False
        for b in blocks[1:]:
            acc = full if b.preds else 0
            for p in b.preds:
                acc &= dom[p]
            new = acc | (1 << b.id)
            if new != dom[b.id]:
                dom[b.id] = new
                changed = True
    return dom


def idominators(dom: list[int]) -> list[int | None]:
    """Immediate dominator of each block (None for the entry and unreachable blocks)."""
    counts = [bin(m).count("1") for m in dom]
    out: list[int | None] = []
    for i, m in enumerate(dom):
        j = _nearest(m & ~(1 << i), counts)
        out.append(j if j >= 0 else None)
    return out


def _nearest(strict: int, counts: list[int]) -> int:
    """The member of bit set ``strict`` (a block's strict dominators or post-dominators) with
    the largest ``counts`` (its own set's size): they form a chain, so that is the nearest
    one; -1 for an empty set."""
    best, best_n = -1, -1
    while strict:
        low = strict & -strict
        j = low.bit_length() - 1
        strict ^= low
        if counts[j] > best_n:
            best, best_n = j, counts[j]
    return best


def ipostdominators(pdom: list[int]) -> list[int]:
    """Immediate post-dominator of each block (``len(pdom) - 1`` = the virtual exit)."""
    nb = len(pdom) - 1
    counts = [bin(m).count("1") for m in pdom]
    out = []
    for i in range(nb):
        j = _nearest(pdom[i] & ~(1 << i), counts)
        out.append(j if j >= 0 else nb)
    return out


def analyze(fn: Function) -> Function:
    """Fill ``fn.basic_blocks`` and ``fn.reconvergence_pc`` (see module contract)."""
    blocks = build_blocks(fn)
    fn.basic_blocks = blocks
    fn.reconvergence_pc = {}
    if not blocks:
        return fn
    n = len(fn.instructions)
    pdom = postdominators(blocks)
    ipdom = ipostdominators(pdom)
    exit_id = len(blocks)
    for b in blocks:
        pc = b.end - 1
        last = fn.instructions[pc]
        op = last.opcode
        if op in ("bra", "brx") or (op in ("ret", "exit") and last.guard is not None):
            ip = ipdom[b.id]
            fn.reconvergence_pc[pc] = n if ip == exit_id else blocks[ip].start
    # a guarded call inside a block also diverges and reconverges right after the call
    for pc, inst in enumerate(fn.instructions):
        if inst.opcode == "call" and inst.guard is not None:
            fn.reconvergence_pc[pc] = pc + 1
    if debug_level() >= 50:
        print_basic_blocks(fn)
        print_postdominators(fn, pdom)
    return fn


# ----------------------------------------------------------------------------- debug output
def debug_level() -> int:
    """``PTX_SIM_DEBUG`` as GPGPU-Sim reads it (0 when unset or malformed)."""
    try:
        return int(os.environ.get("PTX_SIM_DEBUG", "0"))
    except ValueError:
        return 0


def _out(write: Callable[[str], None] | None) -> Callable[[str], None]:
    return write or (lambda s: print(s, file=sys.stdout))


def print_basic_blocks(fn: Function, write: Callable[[str], None] | None = None) -> None:
    """GPGPU-Sim ``print_basic_blocks``: one line per block with its pcs and edges."""
    w = _out(write)
    w(f"Printing basic blocks for function '{fn.name}':")
    exit_id = len(fn.basic_blocks)
    for b in fn.basic_blocks:
        succ = ", ".join("exit" if s == exit_id else str(s) for s in b.succs)
        pred = ", ".join(str(p) for p in b.preds)
        w(f"bb_{b.id:02d}\t: pc [{b.start}, {b.end})  preds: [{pred}]  succs: [{succ}]")
        for pc in range(b.start, b.end):
            w(f"\t{pc * PTX_INST_SIZE:#06x}  {fn.instructions[pc]}")


def print_postdominators(fn: Function, pdom: list[int] | None = None,
                         write: Callable[[str], None] | None = None) -> None:
    """GPGPU-Sim ``print_postdominators`` / ``print_ipostdominators``."""
    w = _out(write)
    blocks = fn.basic_blocks
    if pdom is None:
        pdom = postdominators(blocks)
    ipdom = ipostdominators(pdom)
    exit_id = len(blocks)

    def name(i: int) -> str:
        return "exit" if i == exit_id else str(i)

    w(f"Printing postdominators for function '{fn.name}':")
    for b in blocks:
        members = [name(j) for j in range(exit_id + 1) if pdom[b.id] >> j & 1]
        w(f"ID: {b.id:d}  :{' '.join(members)}")
    w(f"Printing immediate postdominators for function '{fn.name}':")
    for b in blocks:
        w(f"ID: {b.id:d}  :{name(ipdom[b.id])}")


def pc_bases(module: Module) -> dict[str, int]:
    """Byte PC of each function's first instruction, GPGPU-Sim style: the instructions of a
    translation unit are numbered consecutively in source order, 8 bytes each (C215)."""
    out = {}
    pc = 0
    for name, fn in module.functions.items():
        out[name] = pc
        pc += len(fn.instructions) * PTX_INST_SIZE
    return out


def reconvergence_report(fn: Function, filename: str = "", pc_base: int = 0) -> list[str]:
    """The GPGPU-Sim "reconvergence points" block (C219) as lines, PCs in bytes.

    ``pc_base`` is the byte PC of the function's first instruction (GPGPU-Sim numbers
    instructions of a translation unit consecutively, 8 bytes each).
    """
    lines = [f"GPGPU-Sim PTX: reconvergence points for {fn.name}..."]
    n = len(fn.instructions)
    k = 0
    for pc, inst in enumerate(fn.instructions):
        if inst.opcode not in ("bra", "brx") or pc not in fn.reconvergence_pc:
            continue
        k += 1
        rpc = fn.reconvergence_pc[pc]
        lines.append(f"GPGPU-Sim PTX: {k:2d} (potential) branch divergence @  "
                     f"PC={pc_base + pc * PTX_INST_SIZE:#05x} ({filename}:{inst.line}) {inst}")
        if rpc < n:
            tgt = fn.instructions[rpc]
            where = f"({filename}:{tgt.line}) {tgt}"
        else:
            where = "(exit)"
        lines.append(f"GPGPU-Sim PTX:    immediate post dominator      @  "
                     f"PC={pc_base + rpc * PTX_INST_SIZE:#05x} {where}")
    lines.append(f"GPGPU-Sim PTX: ... end of reconvergence points for {fn.name}")
    return lines
