"""What a DRAM channel (``dram.py``) reports: the counters of ``dram_t::print``
(:func:`channel_stats`) and its state dump (:func:`dump_dram`).  Read-only, off the cycle
path."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .dram_parts import BANK_ACTIVE

if TYPE_CHECKING:
    from .dram import Dram


def f32_div(a: float, b: float) -> float | None:
    """``(float)a / b`` as ``dram_t::print`` computes it; None for 0/0 (printed ``-nan``, and
    kept out of the JSON statistics, which have no NaN)."""
    return float(np.float32(a) / np.float32(b)) if b else None


def channel_stats(d: Dram) -> dict[str, Any]:
    """The counters ``report.sections.dram_partitions`` prints for this channel
    (``dram_t::print``).  Ratios are divided in single precision as GPGPU-Sim does;
    ``write_to_read_ratio_blp_rw_average`` in double; None where GPGPU-Sim divides 0 by 0.  ``dram_util_bins``/``dram_eff_bins``
    are never filled by GPGPU-Sim 4.2 (only initialised and printed), so they are zeros
    there and here."""
    if d.n_samples:
        d._flush_samples()
    s = d.sched
    acc = (s.access_num, s.hits_num, s.read_num, s.hits_read_num, s.write_num, s.hits_write_num)
    rw_total = d.banks_access_rw_total
    return {"n_cmd": d.n_cmd, "n_nop": d.n_nop, "n_act": d.n_act, "n_pre": d.n_pre,
            "n_ref_event": 0,
            "n_req": d.n_req, "n_rd": d.n_rd, "n_rd_L2_A": d.n_rd_L2_A, "n_write": d.n_wr,
            "n_wr_bk": d.n_wr_WB, "bwutil": d.bwutil, "n_activity": d.n_activity,
            "bk_access": [b.n_access for b in d.banks], "bk_idle": [d.bank_idle_cycles(j) for j in range(d.p.nbk)],
            "row_buffer_locality": f32_div(acc[1], acc[0]),
            "row_buffer_locality_read": f32_div(acc[3], acc[2]),
            "row_buffer_locality_write": f32_div(acc[5], acc[4]),
            "blp": f32_div(d.banks_1time, d.banks_access_total),
            "blp_col": f32_div(d.banks_time_rw, rw_total),
            "blp_ready": f32_div(d.banks_time_ready, d.banks_access_ready_total),
            "w2r_ratio_blp_rw_average": d.w2r_ratio_sum / rw_total if rw_total else None,
            "grp_level_para": f32_div(d.bkgrp_parallsim_rw, rw_total),
            "util_bw": d.util_bw, "wasted_col": d.wasted_bw_col, "wasted_row": d.wasted_bw_row,
            "idle_bw": d.idle_bw,
            "RCDc_limit": d.RCDc_limit, "RCDWRc_limit": d.RCDWRc_limit, "WTRc_limit": d.WTRc_limit,
            "RTWc_limit": d.RTWc_limit, "CCDLc_limit": d.CCDLc_limit, "rwq": d.rwq_limit,
            "CCDLc_limit_alone": d.CCDLc_limit_alone, "WTRc_limit_alone": d.WTRc_limit_alone,
            "RTWc_limit_alone": d.RTWc_limit_alone,
            "issued_total_row": d.issued_total_row, "issued_total_col": d.issued_total_col,
            "issued_two": d.issued_two, "issued_total": d.issued_total,
            "queue_avg": f32_div(d.ave_mrqs, d.n_cmd),
            "util_bins": [0] * 10, "eff_bins": [0] * 10,
            "mrqq_max": d.max_mrqs, "mrqq_avg": f32_div(d.ave_mrqs, d.n_cmd)}


def dump_dram(d: Dram) -> str:
    """The channel's scheduler queue, banks and pipelines, as text (C200)."""
    s = d.sched
    pend = s.queued(d)
    mode = " write_mode" if s.write_mode else ""
    busy = [j for j, b in enumerate(d.banks) if b.mrq is not None]
    out = [f"DRAM[{d.id}]: pending={pend}{mode} banks_busy={busy} rwq={d.rwq.n_items} "
           f"returnq={len(d.returnq)}"]
    for j, b in enumerate(d.banks):
        if b.mrq is not None or b.state == BANK_ACTIVE:
            req = b.mrq
            out.append(f"  bank {j}: {'ACTIVE row ' + str(b.curr_row) if b.state == BANK_ACTIVE else 'IDLE'}"
                       + ("" if req is None else f", serving {'WR' if req.is_write else 'RD'} row {req.row} "
                          f"{req.fetch!r}"))
    return "\n".join(out)
