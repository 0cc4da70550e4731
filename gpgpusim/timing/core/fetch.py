"""Instruction fetch and warp retirement (``shader_core_ctx::fetch``; checklist C070-C077):
one fetch per call for the whole core, round robin over the warps whose I-buffer is empty,
retiring on the way the warps that are done.  The fetch state (``fetch_buf``,
``fetch_mask``, ``retire_mask``, ``fetch_dirty``, ``last_fetched``) lives on the core, which
every pipeline stage updates; decode (``ShaderCore._decode``) fills the I-buffer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .warp import Warp

if TYPE_CHECKING:
    from .shader import ShaderCore


def fetch(core: ShaderCore, now: int) -> bool:
    """One fetch (``shader_core_ctx::fetch``); False when no warp could be fetched for
    (the fetch buffer was free and the scan found nothing).  The scan is skipped while
    nothing happened since the last empty one that could make a warp fetchable or
    retirable (``fetch_dirty``).  With a finite L1I the chosen warp's access may miss
    (its I-miss is then pending and the scan skips it) or fail (retried later)."""
    if core.fetch_buf is not None:
        return True
    if not core.fetch_dirty:
        return False
    m = core.fetch_mask
    rm = core.retire_mask
    if not rm:
        if not m:
            core.fetch_dirty = False
            return False
        if core.icache is None:
            # round robin from the warp after the last one fetched: with every fetch a hit,
            # the first warp with an empty I-buffer (those warps are running, not done)
            lf = core.last_fetched + 1
            above = m >> lf << lf
            if above:
                m = above
            ws = (m & -m).bit_length() - 1
            core.last_fetched = ws
            core.fetch_buf = (ws, core.warps[ws].next_pc)
            return True
    warps = core.warps
    # round robin from the warp after the last one fetched over the candidates (only warps
    # to fetch for, ``fetch_mask``, or to retire, ``retire_mask``, disjoint: the scan of
    # every warp would skip the others), as bit masks: those above the last one fetched in
    # ascending order, then the others
    cm: int = rm | m
    lf = core.last_fetched + 1
    hi: int = cm >> lf << lf
    lo: int = cm ^ hi
    retired = False
    while True:
        if not hi:
            if not lo:
                break
            hi = lo
            lo = 0
        low: int = hi & -hi
        hi ^= low
        ws = low.bit_length() - 1
        w: Warp = warps[ws]
        if w.fdone:
            if not w.done_exit and w.stores == 0 and w.in_pipe == 0 and not w.pending:
                retired = True
                core.retire_mask &= ~low
                w.done_exit = True
                w.active = False
                slot = core.ctas[w.cta]
                slot.live -= 1
                if slot.live == 0:
                    core._cta_done(w.cta)
            continue
        if not w.ibuf:
            ic = core.icache
            if ic is not None:
                if ws in ic.imiss:
                    continue
                core.last_fetched = ws
                if ic.access(ws, w.kernel.inst_addr[w.next_pc], now) != "HIT":
                    core.busy_cycle = True      # a miss was sent, or the access retries
                    if retired:
                        drop_retired(core)
                    return True
            core.last_fetched = ws
            core.fetch_buf = (ws, w.next_pc)
            if retired:
                drop_retired(core)
            return True
    if retired:
        core.busy_cycle = True
        drop_retired(core)
    else:
        core.fetch_dirty = False
    return False


def drop_retired(core: ShaderCore) -> None:
    for ws in [ws for ws in core.active_slots if not core.warps[ws].active]:
        core._deactivate(core.warps[ws])
    core.istats.occupancy_change(core._gnow(), len(core.active_slots))
