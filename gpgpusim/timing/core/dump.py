"""The state dump of one SIMT core (C200; GPGPU-Sim ``shader_core_ctx::display_pipeline``),
read-only, off the cycle path (``ShaderCore.dump_state``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .warp import bits, reg_names

if TYPE_CHECKING:
    from .shader import ShaderCore


def dump_core(core: ShaderCore) -> str:
    """The whole state of this core (C200; GPGPU-Sim ``shader_core_ctx::display_pipeline``):
    warps and their I-buffers, the fetch buffer, the scoreboard, every pipeline register,
    the operand collector, the execution units, the result-bus reservations, the LD/ST unit
    with its L1 caches' MSHRs, the L1I.  Reads state only (a sleeping core is shown as it
    sleeps: its state does not change while it sleeps)."""
    g = core.cluster.gpu
    running = [w for w in core.warps if w.active]
    k = core.kernel
    lines = ["=================================================",
             f"shader {core.sid} after core cycle {g.gpu_tot_sim_cycle + g.gpu_sim_cycle - 1} "
             f"({sum(1 for w in running if not w.fdone)} warps running)",
             "=================================================",
             f"core {core.sid}: live CTAs {core.n_live_ctas}, in flight {core.n_inflight}, "
             f"kernel {f'{k.rec.uid} {k.rec.name!r}' if k is not None else '-'}"
             + (", asleep (quiescent until a reply arrives)" if core.asleep else ""),
             "-------------------------- Warps"]
    for c, slot in enumerate(core.ctas):
        if slot.kernel is not None:
            lines.append(f"  cta slot {c}: CTA {slot.cta_id} of kernel {slot.kernel.rec.uid}, live warps "
                         f"{slot.live}, at barrier {slot.bar_waiting}")
    for w in running:
        lines.append(f"  w{w.slot:02d} cta{w.cta} dyn {w.dyn} sched {w.sched} feed pc {w.src.pc} next_pc "
                     f"{w.next_pc} ibuf {w.ibuf} in_pipe {w.in_pipe} bar {w.at_bar} membar {w.membar} "
                     f"stores {w.stores} atomics {w.n_atomic} pending {bits(w.pending)}"
                     + (" functionally done" if w.fdone else ""))
    fb = core.fetch_buf
    lines.append("  IF/ID       = " + ("bubble" if fb is None else f"w{fb[0]:2d} : pc = {fb[1]}"))
    for sch in core.scheds:
        lines.append(f"  scheduler {sch.sid}: warps {sch.active} candidates {sorted(sch.candidates())} last issued "
                     f"{sch.policy.last} scoreboard-blocked {sch.n_sb} waiting for ID_OC {sch.n_route}")
    lines.append("-------------------------- Scoreboard")
    for w in running:
        if w.pending:
            lines.append(f"  w{w.slot:02d}: {reg_names(w, bits(w.pending))}")
    lines.append("-------------------------- Pipe Regs")
    for r in list(core.id_oc.values()) + list(core.oc_ex.values()) + [core.ex_wb]:
        lines.append("  " + r.dump())
    lines.append("-------------------------- OP COL")
    lines.append("  " + core.opcoll.dump().replace("\n", "\n  "))
    lines.append("-------------------------- Fu")
    after = g.gpu_tot_sim_cycle + g.gpu_sim_cycle - 1
    for u in core.units:
        if u.busy() or u.occupied_at(after):
            lines.append("  " + u.dump(after))
    n_idle = sum(1 for u in core.units if not (u.busy() or u.occupied_at(after)))
    if n_idle:
        lines.append(f"  ({n_idle} other units empty)")
    lines.append("-------------------------- other:")
    cur = g.gpu_tot_sim_cycle + g.gpu_sim_cycle
    lines.append(f"  EX/WB result buses reserved (cycle: buses) "
                 f"{ {t: n for t, n in sorted(core.rb_res.items()) if t >= cur} }")
    lines.append(f"  last issue at cycle {core.last_issue}")
    lines.append("-------------------------- LD/ST")
    lines.append("  " + core.ldst.dump().replace("\n", "\n  "))
    if core.icache is not None:
        lines.append("  " + core.icache.dump())
    return "\n".join(lines)
