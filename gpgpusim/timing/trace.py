"""Per-component event trace and pipeline dumps of the performance model (checklist C200,
C202, C203, C206, C207; GPGPU-Sim ``trace.h`` / ``trace_streams.tup`` / ``shader_trace.h``,
``shader_core_ctx::display_pipeline`` and ``gpgpu_sim::dump_pipeline``).

Finding where our model and the reference part ways needs two things: the events of one
kernel / SM / warp in the order they happen, stage by stage, and a snapshot of every queue at a
chosen cycle.  Both are off by default and then cost nothing: :func:`install` runs once when the
GPU is built and, unless an option asks for a trace or a dump, returns without touching
anything.  When asked, it wraps methods *of the traced instances only* (the chosen SM's core,
its LD/ST unit and caches, the chosen partition's L2 and DRAM, the interconnect): an instance
attribute shadows the class method, and the slotted components (operand collector, execution
units, bounded FIFOs) get their class swapped for a traced subclass with the same layout.  The
hot loops are untouched and contain no ``if trace`` test; the wrappers call the original method
and only *read* state around it, so cycles and statistics are identical with tracing on (a
test).

Options (GPGPU-Sim's, same meaning)::

    -trace_enabled 1                       # master switch
    -trace_components WARP_SCHEDULER,SCOREBOARD,...   # comma separated; ALL = every one
    -trace_sampling_core N                 # core events only from SM N (-1: all; default 0)
    -trace_sampling_memory_partition M     # memory events only from partition M (-1: all)

GPGPU-Sim's components are WARP_SCHEDULER, SCOREBOARD, MEMORY_PARTITION_UNIT,
MEMORY_SUBPARTITION_UNIT, INTERCONNECT and LIVENESS.  Ours add FETCH, OPERAND_COLLECTOR,
EXECUTION_UNIT, LDST_UNIT and DRAM, so every pipeline stage has its stream.  With
``-trace_enabled 1`` an unknown name is a configuration error (GPGPU-Sim ignores it silently).  As in GPGPU-Sim,
MEMORY_SUBPARTITION_UNIT events are matched against ``-trace_sampling_memory_partition`` by
*sub-partition* id (``MEM_SUBPART_DTRACE`` compares ``m_id``), MEMORY_PARTITION_UNIT and DRAM
events by partition (channel) id.  INTERCONNECT events (unfiltered in GPGPU-Sim) are kept when
the packet's core passes the core filter and its partition the partition filter.

Our own narrowing options (``gpgpusim_`` prefix, not in GPGPU-Sim)::

    -gpgpusim_trace_kernel K[,K...]   # launch numbers (kernel_launch_uid, 1 = first launch) or
                                      # names (mangled, or the bare function name); default all
    -gpgpusim_trace_warp W            # hardware warp slot W of the traced SMs; default -1 (all)
    -gpgpusim_trace_cycles A:B        # core cycles A..B inclusive ("A:" or "A" = from A on)
    -gpgpusim_trace_file F            # stderr (default), stdout, or a file path
    -gpgpusim_dump_pipeline SPEC[,SPEC...]   # SPEC = CYCLE[+EVERY][:SM]

Events that belong to a warp (every core event, memory requests made by a warp) pass the kernel
and warp filters by that warp; memory events of no warp (L2 write-backs, DRAM commands of
write-backs) pass the kernel filter while a chosen kernel runs and never pass a warp filter.

Line format (GPGPU-Sim's ``SIM_PRINT_STR`` prefix: the cycle is ``gpu_tot_sim_cycle +
gpu_sim_cycle``, core clock, also for memory-side events)::

    GPGPU-Sim Cycle <cycle>: <COMPONENT> - <where> - <message>

``<where>`` is ``Core <sid>`` (``Core <sid> - Scheduler <n>`` for WARP_SCHEDULER), ``Sub
Partition <id>``, ``Partition <id>``, ``DRAM <channel>``, or ``Cluster <c>`` / ``Sub Partition
<id>`` for INTERCONNECT.  Messages (``w<slot>@<pc>`` = warp slot and program pc; memory
requests print as ``mf <uid> <type> 0x<addr>`` plus ``w<warp>``/``core<sid>``):

* WARP_SCHEDULER: ``Warp (warp_id W, dynamic_warp_id D) issued: pc=P [0xBYTEPC] <PTX text> |
  unit=U active=N`` (one per instruction issued); ``... control hazard instruction flush:
  next pc=P``; ``no issue: w0 scoreboard(%f2), w4 ibuffer_empty, ...`` when a scheduler with
  running warps issues nothing -- once, then again only when the reasons change (reasons:
  ``ibuffer_empty``, ``imiss``, ``barrier<n>``, ``atomics(<n>)``, ``membar``,
  ``control_hazard``, ``scoreboard(<regs>)``, ``<ID_OC register>_full``, ``no_unit``,
  ``ready``: could issue but was not examined).
* SCOREBOARD: ``Reserved Register - warp:W, reg: %f2``; ``Release register - warp:W, reg: %f2``
  (GPGPU-Sim's texts, with our register names).
* FETCH: ``w W ibuffer filled: pc=P[,P+1]``; ``w W exits``.
* OPERAND_COLLECTOR: ``cu<k> allocated to w@P (<n> operands to read)``; ``cu<k> dispatched w@P
  to OC_EX_<unit>``.
* EXECUTION_UNIT: ``w@P enters <unit>[i] (latency L, initiation I)``; ``w@P leaves <unit>[i] to
  EX_WB``; ``w@P enters LD/ST (<space>, <n> accesses)``; ``w@P writeback`` (registers written,
  instruction complete) or ``w@P leaves LD/ST`` (a load: its registers wait for the data).
* LDST_UNIT: ``<cache> access <mf> -> HIT|HIT_RESERVED|MISS|RESERVATION_FAIL``; ``<cache> fill
  <mf>``; ``sent to icnt <mf>``; ``reply <mf>``.
* INTERCONNECT: ``push request <mf> cluster C -> sub partition S``; ``pop request <mf> at sub
  partition S``; ``push reply <mf> sub partition S -> cluster C``; ``pop reply <mf> at cluster C``.
* MEMORY_SUBPARTITION_UNIT: ``arrived <mf>``; ``Probing L2 cache Address=0x.., status=S <mf>``;
  ``L2 fill <mf>``; ``<mf> -> icnt->L2 queue`` / ``-> L2->DRAM queue`` / ``-> L2->icnt queue``.
* MEMORY_PARTITION_UNIT: ``Issue mem_fetch request <mf> from sub partition S to dram (ready at
  T)``; ``mem_fetch request <mf> return from dram to sub partition S``; ``write-back done <mf>``.
* DRAM: ``request in <mf> bank B row R``; ``ACT|PRE bank B row R``; ``RD|WR bank B row R col C
  <mf>``; ``reply out <mf>``.
* LIVENESS: ``CTA <id> of kernel <uid> '<name>' issued (warps a..b)``; ``CTA <id> of kernel ...
  finished``; ``GPU detected kernel <uid> '<name>' finished on shader <sid>.``

Pipeline dump (``-gpgpusim_dump_pipeline``): after the core cycle ``CYCLE`` (the number trace
lines print), ``TimingGpu.dump_pipeline`` writes the state of SM ``SM`` (every SM without it, or
with -1) and of the whole memory system to the trace destination; ``+EVERY`` repeats it every
EVERY cycles.  A requested cycle that is never simulated (the GPU idle between kernels) dumps at
the next simulated one.  Idle-cycle skipping stops short of each dump point, as it does for the
statistics samples (the dump rides on the sampling hook of the cycle loop, so it too costs
nothing when off).

The model's modules (``core``, ``memory``) are imported inside the functions that use them:
:func:`gpgpusim.timing.make_device` imports this module to decide whether the model runs
compiled or as pure Python, before any of them is loaded.
"""

from __future__ import annotations

import atexit
import re
import sys
from typing import Any, Callable, TextIO

from gpgpusim.native import is_compiled
from gpgpusim.options.config import ConfigError
from gpgpusim.options.tracing import parse_components, parse_dump, parse_kernels, parse_window


def bare_name(mangled: str) -> str:
    """The function name of an Itanium-mangled name (``_Z6vecAddPKfS0_Pfi`` -> ``vecAdd``)."""
    m = re.match(r"_Z(?:L)?(\d+)", mangled)
    if m is None:
        return mangled
    n = int(m.group(1))
    return mangled[m.end():m.end() + n]


# ------------------------------------------------------------------ helpers
def _mf(mf: Any) -> str:
    """A request in one token run: uid, type, address, who made it."""
    s = f"mf {mf.uid} {mf.access_type} {mf.addr:#x}"
    if mf.core_id >= 0:
        s += f" core{mf.core_id} w{mf.warp_id}"
    return s


class Tracer:
    """The trace sink and its filters, shared by every wrapper of one GPU."""

    def __init__(self, gpu: Any, cfg: Any) -> None:
        self.gpu = gpu
        self.comps = parse_components(cfg.get("trace_components")) if bool(cfg.get("trace_enabled")) else frozenset()
        self.core = int(cfg.get("trace_sampling_core"))
        self.part = int(cfg.get("trace_sampling_memory_partition"))
        self.lo, self.hi = parse_window(cfg.get("gpgpusim_trace_cycles"))
        self.kernels = parse_kernels(cfg.get("gpgpusim_trace_kernel"))
        w = cfg.get("gpgpusim_trace_warp")
        self.warp = int(w) if w is not None else -1
        self.dumps = parse_dump(cfg.get("gpgpusim_dump_pipeline"))
        dest = str(cfg.get("gpgpusim_trace_file") or "stderr")
        self.out: TextIO
        if dest == "stderr":
            self.out = sys.stderr
        elif dest == "stdout":
            self.out = sys.stdout
        else:
            self.out = open(dest, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the GPU
            atexit.register(self.out.close)
        self.n_lines = 0

    @property
    def enabled(self) -> bool:
        return bool(self.comps)

    def cycle(self) -> int:
        g = self.gpu
        return int(g.gpu_tot_sim_cycle + g.gpu_sim_cycle)

    def flush(self) -> None:
        try:
            self.out.flush()
        except (OSError, ValueError):
            pass

    # -- filters ---------------------------------------------------------------------------
    def kernel_ok(self, run: Any) -> bool:
        """Does ``run`` (a ``KernelRun``) pass the kernel filter?"""
        if self.kernels is None:
            return True
        ok = getattr(run, "_trace_ok", None)
        if ok is None:
            uids, names = self.kernels
            rec = run.rec
            ok = run._trace_ok = rec.uid in uids or rec.name in names or bare_name(rec.name) in names
        return bool(ok)

    def any_kernel_ok(self) -> bool:
        return self.kernels is None or any(self.kernel_ok(r) for r in self.gpu.runs)

    def core_ok(self, sid: int) -> bool:
        return self.core < 0 or sid == self.core

    def write(self, cycle: int, comp: str, where: str, msg: str) -> None:
        self.out.write(f"GPGPU-Sim Cycle {cycle}: {comp} - {where} - {msg}\n")
        self.n_lines += 1

    def core_event(self, comp: str, core: Any, msg: str, w: Any = None, now: int | None = None,
                   where: str = "") -> None:
        """An event of core ``core`` concerning warp ``w`` (a ``Warp``, or None)."""
        cycle = self.cycle() if now is None else now
        if cycle < self.lo or cycle > self.hi:
            return
        if w is not None:
            if self.warp >= 0 and w.slot != self.warp:
                return
            if self.kernels is not None and not self.kernel_ok(w.kernel):
                return
        else:
            if self.warp >= 0:
                return
            if self.kernels is not None and not (core.kernel is not None and self.kernel_ok(core.kernel)):
                return
        self.write(cycle, comp, f"Core {core.sid}{where}", msg)

    def mem_event(self, comp: str, where: str, msg: str, mf: Any = None) -> None:
        """A memory-side event concerning request ``mf`` (or None)."""
        cycle = self.cycle()
        if cycle < self.lo or cycle > self.hi:
            return
        inst = getattr(mf, "token", None) if mf is not None else None
        warp = getattr(inst, "warp", None)
        if self.warp >= 0:
            if mf is None or mf.warp_id != self.warp or not self.core_ok(mf.core_id):
                return
        if self.kernels is not None:
            run = getattr(warp, "kernel", None)
            if run is not None:
                if not self.kernel_ok(run):
                    return
            elif not self.any_kernel_ok():
                return
        self.write(cycle, comp, where, msg)


# ------------------------------------------------------------------ installation
def wanted(cfg: Any) -> bool:
    """Do the options ask for a trace or a pipeline dump?"""
    if bool(cfg.get("trace_enabled")) and parse_components(cfg.get("trace_components")):
        return True
    return bool(parse_dump(cfg.get("gpgpusim_dump_pipeline")))


def install(gpu: Any) -> None:
    """Install the trace and dump hooks the options ask for on ``gpu``'s (freshly built)
    components; nothing at all when they ask for none."""
    cfg = gpu.config
    if not wanted(cfg):
        return
    if is_compiled(type(gpu.cores[0]).__module__):
        raise ConfigError("tracing and pipeline dumps need the pure-Python performance model, and this GPU "
                          "was built from the compiled one (set GPGPUSIM_NATIVE=0)")
    tr = getattr(gpu, "tracer", None)
    if tr is None:
        tr = gpu.tracer = Tracer(gpu, cfg)
        _wrap_gpu(gpu, tr)
    if tr.enabled:
        for core in gpu.cores:
            if tr.core_ok(core.sid):
                _trace_core(core, tr)
        _trace_memory(gpu, tr)
    if tr.dumps:
        gpu.sampling = DumpingSampler(gpu.sampling, gpu, tr)


def _after(obj: Any, name: str, then: Callable[..., None], *, result: bool = False) -> Callable[..., Any]:
    """Shadow method ``name`` of ``obj`` with an instance attribute (returned) that calls the
    original, then ``then`` with the same arguments (preceded by the call's return value with
    ``result=True``), and returns what the original returned: the shape of most hooks, which
    read their event from the state the call left.  Hooks that need the state from before the
    call, or emit before it, are written out."""
    call = getattr(obj, name)
    if result:
        def traced(*a: Any, **k: Any) -> Any:
            r = call(*a, **k)
            then(r, *a, **k)
            return r
    else:
        def traced(*a: Any, **k: Any) -> Any:
            r = call(*a, **k)
            then(*a, **k)
            return r
    setattr(obj, name, traced)
    return traced


def _traced_class(base: type, methods: dict[str, Any]) -> type:
    """A subclass of slotted ``base`` with the same layout (so an instance's class can be
    swapped for it) overriding ``methods``."""
    return type(f"Traced{base.__name__}", (base,), {"__slots__": (), **methods})


def _wrap_gpu(gpu: Any, tr: Tracer) -> None:
    """Flush the trace after every batch of simulated cycles (and L1Ds made later are traced)."""
    advance = gpu.advance

    def traced_advance() -> Any:
        try:
            return advance()
        finally:
            tr.flush()
    gpu.advance = traced_advance

    def on_make_l1d(c: Any, sid: int) -> None:
        if c is not None and tr.enabled and "LDST_UNIT" in tr.comps and tr.core_ok(sid):
            _trace_cache(c, tr, sid)
    _after(gpu, "make_l1d", on_make_l1d, result=True)


# ------------------------------------------------------------------ the core
def _reg_names(w: Any, regs: Any) -> str:
    from .core.warp import reg_names
    return reg_names(w, regs)


def _reg_name(w: Any, r: int) -> str:
    return _reg_names(w, (r,))


def _inst_text(run: Any, pc: int) -> tuple[str, int]:
    """PTX text and byte pc of program pc ``pc`` of ``run``."""
    prog = run.prog
    text = ""
    if prog is not None and 0 <= pc < len(prog.insts):
        d = prog.insts[pc]
        text = str(d.inst) if d.inst is not None else (d.text or d.kind)
    addrs = getattr(run, "inst_addr", None)
    if not addrs:
        addrs = getattr(run, "_trace_addrs", None)
        if addrs is None:
            from .core.icache import instruction_addresses
            try:
                mod = getattr(run.rec.op.module, "module", None)
                addrs = instruction_addresses(mod, prog, 0)[0] if prog is not None else []
            except Exception:  # noqa: BLE001 - only the printed byte pc is lost
                addrs = []
            run._trace_addrs = addrs
    return text, (addrs[pc] if 0 <= pc < len(addrs) else pc)


#: the trace's wording of the verdicts of ``ShaderCore.issue_block`` that carry a detail
_REASON_TEXT: dict[str, Callable[[Any, Any], str]] = {
    "barrier": lambda w, x: f"barrier{x}",
    "atomics": lambda w, x: f"atomics({x})",
    "cdp_latency": lambda w, x: f"cdp_latency({x})",
    "scoreboard": lambda w, x: f"scoreboard({_reg_names(w, x)})",
    "full": lambda w, x: f"{x.name}_full",
}


def reason_text(w: Any, reason: str, x: Any) -> str:
    """A ``no issue`` line's words for verdict ``(reason, x)`` of warp ``w``."""
    fmt = _REASON_TEXT.get(reason)
    return reason if fmt is None else fmt(w, x)


def _why(core: Any, sch: Any) -> str:
    """Why each running warp of scheduler ``sch`` did not issue (read-only): the verdicts of
    ``ShaderCore.issue_block``, the scheduler's own checks (an empty I-buffer refined to
    ``imiss`` when the warp waits for an L1I fill)."""
    out = []
    ic = core.icache
    for ws in sch.active:
        w = core.warps[ws]
        reason, x = core.issue_block(sch, w)
        if reason == "done":
            continue
        if reason == "ibuffer_empty" and ic is not None and ws in ic.imiss:
            reason = "imiss"
        out.append(f"w{ws} {reason_text(w, reason, x)}")
    return ", ".join(out)


def _trace_core(core: Any, tr: Tracer) -> None:
    """Wrap the methods of ``core`` whose events the chosen components report."""
    comps = tr.comps
    sched_on = "WARP_SCHEDULER" in comps
    sb_on = "SCOREBOARD" in comps
    ex_on = "EXECUTION_UNIT" in comps
    if sched_on or sb_on:
        _trace_issue(core, tr, sched_on, sb_on)
    if sb_on or ex_on:
        _trace_completion(core, tr, sb_on, ex_on)
    if "FETCH" in comps:
        _trace_fetch(core, tr)
    if "LIVENESS" in comps:
        _trace_liveness(core, tr)
    if "OPERAND_COLLECTOR" in comps:
        _swap_class(core.opcoll, _traced_opcoll_class(core, tr))
    if ex_on:
        _trace_units(core, tr)
    if "LDST_UNIT" in comps:
        _trace_ldst(core, tr)


def _trace_issue(core: Any, tr: Tracer, sched_on: bool, sb_on: bool) -> None:
    """WARP_SCHEDULER (issues, why a scheduler issued nothing, flushes) and the scoreboard's
    reservations."""
    from .core import units as U        # (the model's modules: imported once tracing is chosen)

    issued: set[int] = set()
    last_why: dict[int, str] = {}

    def on_issue_warp(w: Any, sched: int, pc: int, unit: int, reg: Any, idx: int, now: int) -> None:
        issued.add(sched)
        if sched_on:
            text, bpc = _inst_text(w.kernel, pc)
            inst = next((s for s in reg.slots if s is not None and s.uid == core.uid), None)
            n = inst.executed.bit_count() if inst is not None else -1
            tr.core_event("WARP_SCHEDULER", core,
                          f"Warp (warp_id {w.slot}, dynamic_warp_id {w.dyn}) issued: pc={pc} [{bpc:#06x}] "
                          f"{text} | unit={U.UNIT_NAMES[unit]} active={n}", w, now, f" - Scheduler {sched}")
        if sb_on:
            for r in w.kernel.table.dst_regs[pc]:
                tr.core_event("SCOREBOARD", core, f"Reserved Register - warp:{w.slot}, reg: {_reg_name(w, r)}",
                              w, now)
    _after(core, "_issue_warp", on_issue_warp)

    if sched_on:
        def on_issue(now: int) -> None:
            # ``issued``: the schedulers that issued in this issue stage
            for sch in core.scheds:
                sid = sch.sid
                if sid in issued:
                    last_why.pop(sid, None)
                    continue
                if not sch.active:
                    continue
                why = _why(core, sch)
                if why and why != last_why.get(sid):
                    last_why[sid] = why
                    if tr.warp < 0:
                        tr.core_event("WARP_SCHEDULER", core, f"no issue: {why}", None, now, f" - Scheduler {sid}")
                    elif tr.warp in sch.active:     # (the line names the chosen warp's reason too)
                        tr.core_event("WARP_SCHEDULER", core, f"no issue: {why}", core.warps[tr.warp], now,
                                      f" - Scheduler {sid}")
            issued.clear()
        _after(core, "_issue", on_issue)

        def on_flush(w: Any, want: int) -> None:
            tr.core_event("WARP_SCHEDULER", core, f"Warp (warp_id {w.slot}, dynamic_warp_id {w.dyn}) control "
                          f"hazard instruction flush: next pc={want}", w, None, f" - Scheduler {w.sched}")
        _after(core, "_flush", on_flush)


def _trace_completion(core: Any, tr: Tracer, sb_on: bool, ex_on: bool) -> None:
    """Writebacks (EXECUTION_UNIT) and register releases (SCOREBOARD)."""
    from .core import units as U

    def on_complete(inst: Any, release: bool) -> None:
        w = inst.warp
        if ex_on:
            what = "writeback" if release or inst.unit != U.MEM or not (inst.is_load or inst.is_atomic) \
                else "leaves LD/ST"
            tr.core_event("EXECUTION_UNIT", core, f"w{inst.slot}@{inst.pc} {what}", w)
        if sb_on and release:
            for r in inst.dst:
                tr.core_event("SCOREBOARD", core, f"Release register - warp:{inst.slot}, reg: {_reg_name(w, r)}", w)
    _after(core, "complete", on_complete)

    if sb_on:
        def on_release_reg(slot: int, reg: int) -> None:
            w = core.warps[slot]
            tr.core_event("SCOREBOARD", core, f"Release register - warp:{slot}, reg: {_reg_name(w, reg)}", w)
        _after(core, "release_reg", on_release_reg)


def _trace_fetch(core: Any, tr: Tracer) -> None:
    """FETCH: I-buffer fills and warp exits."""
    decode = core._decode

    def traced_decode() -> None:
        fb = core.fetch_buf
        decode()
        if fb is not None and core.fetch_buf is None:
            w = core.warps[fb[0]]
            tr.core_event("FETCH", core, f"w{w.slot} ibuffer filled: pc={','.join(map(str, w.ibuf))}", w)
    core._decode = traced_decode
    _after(core, "_deactivate", lambda w: tr.core_event("FETCH", core, f"w{w.slot} exits", w))


def _trace_liveness(core: Any, tr: Tracer) -> None:
    """LIVENESS: CTAs issued and finished, kernels finished."""
    def on_issue_cta(kernel: Any, cta_id: int, warps: list[Any]) -> None:
        s = next((i for i, c in enumerate(core.ctas) if c.kernel is kernel and c.cta_id == cta_id), -1)
        ws = core.ctas[s].warps if s >= 0 else []
        if tr.kernel_ok(kernel) and tr.warp < 0:
            rng = f"warps {ws[0]}..{ws[-1]}" if ws else "no warps"
            tr.core_event("LIVENESS", core, f"CTA {cta_id} of kernel {kernel.rec.uid} '{kernel.rec.name}' "
                          f"issued ({rng})")
    _after(core, "issue_cta", on_issue_cta)
    cta_done = core._cta_done

    def traced_cta_done(s: int, in_cycle: bool = True) -> None:
        slot = core.ctas[s]
        kernel, cta_id = slot.kernel, slot.cta_id
        cta_done(s, in_cycle)
        if kernel is None or not tr.kernel_ok(kernel) or tr.warp >= 0:
            return
        rec = kernel.rec
        tr.core_event("LIVENESS", core, f"CTA {cta_id} of kernel {rec.uid} '{rec.name}' finished")
        if kernel.finished:
            tr.core_event("LIVENESS", core, f"GPU detected kernel {rec.uid} '{rec.name}' finished on "
                          f"shader {core.sid}.")
    core._cta_done = traced_cta_done


def _trace_units(core: Any, tr: Tracer) -> None:
    """EXECUTION_UNIT: the pipelined units' events and instructions entering the LD/ST unit."""
    ucls: dict[type, type] = {}
    for u in core.units:
        base = type(u)
        if base not in ucls:
            ucls[base] = _traced_unit_class(base, core, tr)
        _swap_class(u, ucls[base])

    def on_ldst_issue(inst: Any, now: int) -> None:
        tr.core_event("EXECUTION_UNIT", core, f"w{inst.slot}@{inst.pc} enters LD/ST ({inst.space}, "
                      f"{len(inst.accessq)} accesses)", inst.warp, now)
    _after(core.ldst, "issue", on_ldst_issue)


def _trace_ldst(core: Any, tr: Tracer) -> None:
    """LDST_UNIT: the core's caches, replies and requests sent to the interconnect."""
    ldst = core.ldst
    for c in (ldst.l1d, ldst.l1c, ldst.l1t, core.icache.cache if core.icache is not None else None):
        if c is not None:
            _trace_cache(c, tr, core.sid)
    _after(ldst, "accept_response",
           lambda mf, now: tr.core_event("LDST_UNIT", core, f"reply {_mf(mf)}", _warp_of(core, mf), now))
    cl = core.cluster
    if not getattr(cl, "_trace_inject", False):
        cl._trace_inject = True
        inject = cl.inject

        def traced_inject(mf: Any, now: int) -> None:
            if tr.core_ok(mf.core_id):
                c = cl.gpu.cores[mf.core_id]
                tr.core_event("LDST_UNIT", c, f"sent to icnt {_mf(mf)}", _warp_of(c, mf), now)
            inject(mf, now)
        cl.inject = traced_inject


def _warp_of(core: Any, mf: Any) -> Any:
    w = getattr(getattr(mf, "token", None), "warp", None)
    if w is None and 0 <= mf.warp_id < len(core.warps):
        w = core.warps[mf.warp_id]
        if not w.active:
            w = None
    return w


def _trace_cache(c: Any, tr: Tracer, sid: int) -> None:
    """LDST_UNIT events of an L1 cache of core ``sid``: each access with its outcome, each fill
    (the core is looked up when an event happens: a cache may be made while the GPU builds)."""
    if getattr(c, "_traced", False):
        return
    c._traced = True
    name = c.name

    def event(mf: Any, what: str) -> None:
        core = tr.gpu.cores[sid]
        tr.core_event("LDST_UNIT", core, f"{name} {what}", _warp_of(core, mf))
    _after(c, "access", lambda status, mf, now, *a: event(mf, f"access {_mf(mf)} -> {status}"), result=True)
    _after(c, "fill", lambda mf, now: event(mf, f"fill {_mf(mf)}"))


def _swap_class(obj: Any, cls: type) -> None:
    obj.__class__ = cls


def _traced_opcoll_class(core: Any, tr: Tracer) -> type:
    base = type(core.opcoll)

    def _allocate_cus(self: Any) -> None:
        before = [cu.inst for cu in self.cus]
        base._allocate_cus(self)
        for cu, b in zip(self.cus, before, strict=True):
            inst = cu.inst
            if inst is not None and inst is not b:
                tr.core_event("OPERAND_COLLECTOR", core, f"cu{cu.index} allocated to w{inst.slot}@{inst.pc} "
                              f"({len(inst.src_banks)} operands to read)", inst.warp)

    def _dispatch_ready(self: Any) -> None:
        before = [(cu, cu.inst, cu.out) for cu in self.ready]
        base._dispatch_ready(self)
        for cu, inst, out in before:
            if cu.inst is None and inst is not None:
                tr.core_event("OPERAND_COLLECTOR", core, f"cu{cu.index} dispatched w{inst.slot}@{inst.pc} to "
                              f"{out.name if out is not None else '?'}", inst.warp)
    return _traced_class(base, {"_allocate_cus": _allocate_cus, "_dispatch_ready": _dispatch_ready})


def _traced_unit_class(base: Any, core: Any, tr: Tracer) -> type:
    def issue(self: Any, inst: Any, now: int) -> None:
        base.issue(self, inst, now)
        tr.core_event("EXECUTION_UNIT", core, f"w{inst.slot}@{inst.pc} enters {self.name} (latency {inst.lat}, "
                      f"initiation {inst.ii})", inst.warp)

    def cycle(self: Any, now: int) -> None:
        # the pipeline's head (the next instruction to leave for EX_WB) before the cycle
        head = self.heap[0] if self.n_active else None
        inst = self.inflight[head] if head is not None else None
        base.cycle(self, now)
        if inst is not None and head not in self.inflight:
            tr.core_event("EXECUTION_UNIT", core, f"w{inst.slot}@{inst.pc} leaves {self.name} to EX_WB",
                          inst.warp, now)
    return _traced_class(base, {"issue": issue, "cycle": cycle})


# ------------------------------------------------------------------ the memory side
def _trace_fifo(fifo: Any, tr: Tracer, sub: Any, label: str) -> None:
    base = type(fifo)

    def push(self: Any, mf: Any) -> None:
        base.push(self, mf)
        tr.mem_event("MEMORY_SUBPARTITION_UNIT", f"Sub Partition {sub.id}", f"{_mf(mf)} -> {label}", mf)
    _swap_class(fifo, _traced_class(base, {"push": push}))


def _part_ok(tr: Tracer, pid: int) -> bool:
    return tr.part < 0 or tr.part == pid


def _trace_memory(gpu: Any, tr: Tracer) -> None:
    mem = gpu.mem
    comps = tr.comps
    n_sub = mem.n_sub
    if "INTERCONNECT" in comps:
        icnt = mem.icnt
        n_sh = icnt.n_shader

        def icnt_ok(mf: Any) -> bool:
            return (tr.core < 0 or mf.core_id == tr.core) and _part_ok(tr, mf.sub_partition // n_sub)

        def on_push(src: int, dst: int, data: Any) -> None:
            if icnt_ok(data):
                if src < n_sh:
                    msg = f"push request {_mf(data)} cluster {src} -> sub partition {dst - n_sh}"
                    where = f"Cluster {src}"
                else:
                    msg = f"push reply {_mf(data)} sub partition {src - n_sh} -> cluster {dst}"
                    where = f"Sub Partition {src - n_sh}"
                tr.mem_event("INTERCONNECT", where, msg, data)

        def on_pop(mf: Any, node: int) -> None:
            if mf is not None and icnt_ok(mf):
                if node < n_sh:
                    tr.mem_event("INTERCONNECT", f"Cluster {node}", f"pop reply {_mf(mf)} at cluster {node}", mf)
                else:
                    tr.mem_event("INTERCONNECT", f"Sub Partition {node - n_sh}",
                                 f"pop request {_mf(mf)} at sub partition {node - n_sh}", mf)
        _after(icnt, "push", on_push)
        _after(icnt, "pop", on_pop, result=True)
    if "MEMORY_SUBPARTITION_UNIT" in comps:
        for sub in mem.subs:
            if _part_ok(tr, sub.id):
                _trace_sub(sub, tr)
    for part in mem.partitions:
        if not _part_ok(tr, part.id):
            continue
        if "MEMORY_PARTITION_UNIT" in comps:
            _trace_partition(part, tr)
        if "DRAM" in comps:
            _trace_dram(part.dram, tr)


def _trace_sub(sub: Any, tr: Tracer) -> None:
    where = f"Sub Partition {sub.id}"

    def event(mf: Any, msg: str) -> None:
        tr.mem_event("MEMORY_SUBPARTITION_UNIT", where, msg, mf)
    _after(sub, "push", lambda mf, now: event(mf, f"arrived {_mf(mf)}"))
    for fifo, label in ((sub.icnt_l2, "icnt->L2 queue"), (sub.l2_dram, "L2->DRAM queue"),
                        (sub.l2_icnt, "L2->icnt queue")):
        _trace_fifo(fifo, tr, sub, label)
    l2 = sub.l2
    if l2 is None:
        return
    _after(l2, "access", lambda status, mf, now, *a: event(
        mf, f"Probing L2 cache Address={mf.addr:#x}, status={status} {_mf(mf)}"), result=True)
    _after(l2, "fill", lambda mf, now: event(mf, f"L2 fill {_mf(mf)}"))


def _trace_partition(part: Any, tr: Tracer) -> None:
    where = f"Partition {part.id}"
    dram_cycle = part.cycle
    base = part.base_sp

    def traced_dram_cycle(now: int) -> bool:
        lq = part.latency_entries()
        n0 = len(lq)
        last = lq[-1][1] if lq else None
        tops = [s.dram_l2.head() for s in part.subs]
        lens = [len(s.dram_l2) for s in part.subs]
        moved = dram_cycle(now)
        lq = part.latency_entries()
        if lq and lq[-1][1] is not last and len(lq) >= n0:
            ready, mf = lq[-1]
            tr.mem_event("MEMORY_PARTITION_UNIT", where, f"Issue mem_fetch request {_mf(mf)} from sub partition "
                         f"{mf.sub_partition} to dram (ready at {ready})", mf)
        for i, s in enumerate(part.subs):
            q = s.dram_l2
            if len(q) > lens[i] or (len(q) == lens[i] and len(q) and q.head() is not tops[i]):
                mf = q.entries()[-1]
                tr.mem_event("MEMORY_PARTITION_UNIT", where, f"mem_fetch request {_mf(mf)} return from dram to "
                             f"sub partition {base + i}", mf)
        return moved
    part.cycle = traced_dram_cycle
    part.dram.on_write_done = _after(part, "_write_done", lambda mf: tr.mem_event(
        "MEMORY_PARTITION_UNIT", where, f"write-back done {_mf(mf)}", mf))


def _trace_dram(dram: Any, tr: Tracer) -> None:
    from .memory.dram_parts import BANK_IDLE
    where = f"DRAM {dram.id}"
    issue_row = dram._issue_row
    issue_col = dram._issue_col

    def on_return_pop(mf: Any) -> None:
        if mf is not None:
            tr.mem_event("DRAM", where, f"reply out {_mf(mf)}", mf)
    _after(dram, "push", lambda mf, now: tr.mem_event(
        "DRAM", where, f"request in {_mf(mf)} bank {mf.bank % dram.p.nbk} row {mf.row}", mf))
    _after(dram, "return_pop", on_return_pop, result=True)

    def traced_issue_row(j: int) -> bool:
        bk = dram.banks[j]
        idle = bk.state == BANK_IDLE
        open_row = bk.curr_row
        req = bk.mrq
        ok = issue_row(j)
        if ok:
            mf = req.fetch if req is not None else None
            if idle:
                tr.mem_event("DRAM", where, f"ACT bank {j} row {bk.curr_row}", mf)
            else:
                tr.mem_event("DRAM", where, f"PRE bank {j} row {open_row}", mf)
        return bool(ok)

    def traced_issue_col(j: int) -> bool:
        req = dram.banks[j].mrq
        ok = issue_col(j)
        if ok and req is not None:
            tr.mem_event("DRAM", where, f"{'WR' if req.is_write else 'RD'} bank {j} row {req.row} col {req.col} "
                         f"{_mf(req.fetch)}", req.fetch)
        return bool(ok)
    dram._issue_row = traced_issue_row
    dram._issue_col = traced_issue_col


# ------------------------------------------------------------------ pipeline dumps
class DumpingSampler:
    """Stands in for the GPU's ``GpuSampler``: its ``next`` is also the next dump point, so the
    cycle loop's existing sample test (and idle skipping, which stops short of ``next``) serves
    the dumps; everything else is the real sampler's."""

    def __init__(self, real: Any, gpu: Any, tr: Tracer) -> None:
        self.real = real
        self.gpu = gpu
        self.tr = tr
        #: pending dump points: [cycle, every, sm]
        self.points = [list(p) for p in tr.dumps]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    @property
    def next(self) -> int:
        if not self.points:
            return int(self.real.next)
        due = min(p[0] for p in self.points)
        # fire right after the core cycle ``due`` (gpu_sim_cycle has then been incremented)
        return min(int(self.real.next), max(1, due + 1 - self.gpu.gpu_tot_sim_cycle))

    def take(self) -> None:
        g = self.gpu
        cur = g.gpu_tot_sim_cycle + g.gpu_sim_cycle - 1     # the core cycle just simulated
        sms: list[int] = []
        keep = []
        for p in self.points:
            if p[0] <= cur:
                if p[2] not in sms:
                    sms.append(p[2])
                if p[1]:
                    p[0] += p[1] * ((cur - p[0]) // p[1] + 1)
                    keep.append(p)
            else:
                keep.append(p)
        self.points = keep
        if sms:
            out = self.tr.out
            for sm in (-1,) if -1 in sms else sms:
                out.write(g.dump_pipeline(sm, cycle=cur))
                out.write("\n")
            self.tr.flush()
        if g.gpu_sim_cycle >= self.real.next:
            self.real.take()

