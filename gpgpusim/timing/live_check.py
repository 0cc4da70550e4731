"""Which kernels need the live feed: a static scan of the program (``needs_live_feed``).

Limits of the trace feed
------------------------
The recorded stream is exact only for kernels whose values and control flow do not depend on
timing: the functional driver picks one interleaving of the warps (lowest pc first), and the
timing model then replays that interleaving's results under a different one.  Kernels that read
``%clock``/``%clock64``/``%globaltimer`` (the functional clock counts warp instructions),
``%smid``/``%nsmid``/``%warpid`` (the functional mapping of CTAs to SMs is not the timing
model's), use the result of an ``atom`` (the order in which warps' atomics are applied decides
the values they get: ticket counters, queues, locks), spin on ``ld.volatile`` / ``.relaxed`` /
``.acquire`` loads (flags written by other warps), or synchronise the grid (cooperative
``grid.sync()``, which is built from such atomics and loads on the ``%envreg1:%envreg2``
workspace) may behave differently on real timing; for those the live feed (stepping the warp at
issue, :mod:`gpgpusim.timing.live`) is required, and ``auto`` picks it.  :func:`needs_live_feed`
detects them statically.  (Plain ``red`` reductions and ``bar.sync`` are fine: their outcome
does not depend on the interleaving, for integer reductions at least.)  Plain loads of
locations that other threads of the same kernel store without synchronisation (a benign race
such as ``apps/bfs.cu``'s ``if (level[u] < 0) level[u] = cur + 1;``, whose instruction counts
depend on which thread gets there first) are caught when the kernel both loads and stores
global memory at addresses computed from values it loaded (``_data_dependent_race``, register
data flow within each function, in program order).  Not detected: such races through addresses that do not
depend on loaded data, or through values passed across calls; force ``-gpgpusim_timing_feed
live`` for those.
"""

from __future__ import annotations

from typing import Any

from gpgpusim.functional import decode as dec
from gpgpusim.ptx import ir


_TIMING_SPECIALS = ("%clock", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi",
                    "%smid", "%nsmid", "%warpid")
_ORDERED_LOADS = ("volatile", "acquire", "relaxed")


def _regs_read(inst: ir.Instruction, skip_dst: bool) -> list[str]:
    out: list[str] = []
    for op in (inst.operands[1:] if skip_dst else inst.operands):
        _see_reg_names(op, out)
    if inst.guard is not None:
        out.append(inst.guard[0].name)
    return out


def _see_reg_names(op: Any, out: list[str]) -> None:
    """Append the names of the registers operand ``op`` reads to ``out`` (a module function,
    not a recursive closure: that would be a reference cycle per call, left to the collector)."""
    if isinstance(op, ir.Reg):
        out.append(op.name)
    elif isinstance(op, ir.Vec):
        for e in op.elems:
            if e is not None:
                _see_reg_names(e, out)
    elif isinstance(op, ir.Addr) and isinstance(op.base, ir.Reg):
        out.append(op.base.name)
    elif isinstance(op, ir.ParamList):
        for e in op.items:
            _see_reg_names(e, out)


_NOT_GLOBAL = ("param", "shared", "local", "const")
_NO_DST = ("st", "red", "bra", "bar", "barrier", "membar", "fence", "exit", "ret", "trap", "call",
           "prefetch", "prefetchu")


def _global_access(inst: ir.Instruction) -> bool:
    """A global (or generic, which may be global) ld/ldu/st."""
    return inst.opcode in ("ld", "ldu", "st") and not any(m in inst.mods for m in _NOT_GLOBAL)


def _data_dependent_race(prog: dec.Program) -> str | None:
    """A store to global memory at an address computed from a value the kernel loaded from
    global memory, in a kernel that also loads at such addresses (a gather and a scatter, as
    ``bfs``'s ``if (level[u] < 0) level[u] = ...`` with ``u = cols[e]``): threads of different
    CTAs may then read what others wrote, so the order of plain loads and stores between CTAs
    -- timing -- can change values and control flow.  Register data flow only (control
    dependences through guards, values passed to or returned from calls are not followed),
    following the program order (:func:`_tainted_before`: a register written again with a
    value that does not depend on a load is clean again, as SASS reuses registers, and so does
    PTXPlus's one address temporary); conservative: such a kernel may be race-free and only runs
    slower on the live feed."""
    before = _tainted_before(prog)
    gather = scatter = None
    for pc, d in enumerate(prog.insts):
        inst = d.inst
        if inst is None or not _global_access(inst):
            continue
        addr = inst.operands[0] if inst.opcode == "st" else (inst.operands[1] if len(inst.operands) > 1 else None)
        if isinstance(addr, ir.Addr) and isinstance(addr.base, ir.Reg) \
                and (d.func.fn.name, addr.base.name) in before[pc]:
            if inst.opcode == "st":
                scatter = scatter or d
            else:
                gather = gather or d
    if gather is not None and scatter is not None:
        return (f"stores at a data-dependent address ({prog.filename}:{scatter.line} `{scatter.text}`) "
                f"and loads at one ({prog.filename}:{gather.line} `{gather.text}`): CTAs may race "
                f"through plain memory")
    return None


def _successors(prog: dec.Program) -> list[list[int]] | None:
    """Each pc's successors in the control-flow graph; None when a branch target is unknown
    (an indirect branch): the caller then treats every order as possible."""
    n = len(prog.insts)
    out: list[list[int]] = []
    for pc, d in enumerate(prog.insts):
        nxt = [pc + 1] if pc + 1 < n else []
        if d.kind == "bra":
            if d.target < 0:
                return None
            out.append([d.target] + (nxt if d.guard >= 0 else []))
        elif d.kind in ("exit", "ret", "trap", "kend", "fend"):
            out.append(nxt if d.guard >= 0 else [])
        else:
            out.append(nxt)
    return out


def _tainted_before(prog: dec.Program) -> list[frozenset[tuple[str, str]]]:
    """Per pc, the registers (``(function, name)``) that may hold a value computed from a
    global load when the instruction there runs: a forward may-analysis to its least fixpoint
    (loop-carried values included).  An unguarded write of a clean value cleans its register; a
    guarded one leaves it as it was (the lanes that skip it keep the old value).  Without a
    known control-flow graph every register ever tainted counts at every pc."""
    n = len(prog.insts)
    succ = _successors(prog)
    state: list[frozenset[tuple[str, str]]] = [frozenset()] * n
    if succ is None:
        every: set[tuple[str, str]] = set()
        changed = True
        while changed:
            changed = False
            for d in prog.insts:
                out = _transfer(d, frozenset(every), kill=False)
                if not out <= every:
                    every |= out
                    changed = True
        return [frozenset(every)] * n
    work = list(range(n - 1, -1, -1))
    queued = [True] * n
    while work:
        pc = work.pop()
        queued[pc] = False
        out = _transfer(prog.insts[pc], state[pc], kill=True)
        for s in succ[pc]:
            if not out <= state[s]:
                state[s] = state[s] | out
                if not queued[s]:
                    queued[s] = True
                    work.append(s)
    return state


def _transfer(d: Any, before: frozenset[tuple[str, str]], kill: bool) -> frozenset[tuple[str, str]]:
    """The tainted registers after instruction ``d`` (see :func:`_tainted_before`)."""
    inst = d.inst
    if inst is None or inst.opcode in _NO_DST or not inst.operands:
        return before
    fn = d.func.fn.name
    dst = inst.operands[0]
    if isinstance(dst, ir.Reg):
        dsts = [(fn, dst.name)]
    elif isinstance(dst, ir.Vec):
        dsts = [(fn, e.name) for e in dst.elems if isinstance(e, ir.Reg)]
    else:
        return before
    if inst.opcode in ("ld", "ldu") and _global_access(inst):
        taint = True
    else:
        srcs = _regs_read(inst, True)
        if inst.guard is not None:
            srcs = srcs[:-1]             # (the guard is a control dependence)
        taint = any((fn, r) in before for r in srcs)
    if taint:
        return before | frozenset(dsts)
    if kill and inst.guard is None and any(r in before for r in dsts):
        return before - frozenset(dsts)
    return before


def needs_live_feed(prog: dec.Program) -> str | None:
    """Why the trace feed would not be exact for ``prog`` (None when it is): the kernel reads
    a timing-dependent special register, uses the result of an ``atom``, makes volatile /
    relaxed / acquire loads, or synchronises the grid (reads ``%envreg``, the cooperative
    launch workspace)."""
    # registers read anywhere in each function (to decide whether an atom's result is used)
    reads: dict[str, set[str]] = {}
    for d in prog.insts:
        inst = d.inst
        if inst is None:
            continue
        fn = d.func.fn.name
        st = reads.setdefault(fn, set())
        has_dst = inst.opcode not in ("st", "red", "bra", "bar", "barrier", "membar", "fence",
                                      "exit", "ret", "trap", "call", "prefetch", "prefetchu")
        st.update(_regs_read(inst, has_dst))
    for d in prog.insts:
        inst = d.inst
        if inst is None:
            continue
        where = f"{prog.filename}:{d.line} `{d.text}`"
        for op in inst.operands:
            if isinstance(op, ir.Special):
                if op.name in _TIMING_SPECIALS:
                    return f"reads {op.name} at {where}"
                if op.name.startswith("%envreg"):
                    return f"grid synchronisation (reads {op.name}) at {where}"
        opc = inst.opcode
        if opc == "atom" and inst.operands:
            dst = inst.operands[0]
            if isinstance(dst, ir.Reg) and dst.name in reads.get(d.func.fn.name, ()):
                return f"uses the result of an atomic at {where}"
        if opc in ("ld", "ldu") and any(m in inst.mods for m in _ORDERED_LOADS):
            m = next(m for m in inst.mods if m in _ORDERED_LOADS)
            return f"ld.{m} (a load ordered with other threads' writes) at {where}"
    return _data_dependent_race(prog)
