"""The parameters an interconnect (``-inter_config_file``) file may set, by value type.

GPGPU-Sim reads that file with BookSim 2's configuration parser as extended by intersim2
(``BookSimConfig`` and ``IntersimConfig`` constructors).  The parser keeps one table per value
type and stops on a name absent from the table for the value's type ("Unknown integer field:
..."), so a misspelt name or a value of the wrong kind is an error there; :func:`check_param`
reproduces that check with a clearer message.  Several names accept both a number and a
``{...}`` list (BookSim's per-class vector values), hence their presence in two tables.
"""

from __future__ import annotations

import difflib
from typing import Any

INT_PARAMS = frozenset("""
subnets k n c use_noc_latency x y xr yr link_failures fail_seed in_ports out_ports output_delay
credit_delay output_buffer_size noq speculative spec_check_elig spec_check_cred spec_mask_by_reqs
num_vcs vc_buf_size buf_size private_bufs private_buf_size private_buf_start_vc private_buf_end_vc
max_held_slots feedback_aging_scale feedback_offset wait_for_tail_credit vc_busy_when_full
vc_prioritize_empty vc_priority_donation vc_shuffle_requests hold_switch_for_packet input_speedup
output_speedup routing_delay vc_alloc_delay sw_alloc_delay st_prepare_delay st_final_delay vct
alloc_iters classes class_priority perm_seed injection_rate_uses_flits packet_size packet_size_rate
batch_size batch_count max_outstanding_requests use_read_write read_request_begin_vc
read_request_end_vc write_request_begin_vc write_request_end_vc read_reply_begin_vc read_reply_end_vc
write_reply_begin_vc write_reply_end_vc read_request_subnet read_reply_subnet write_request_subnet
write_reply_subnet read_request_size write_request_size read_reply_size write_reply_size
warmup_periods sample_period max_samples measure_stats pair_stats sim_count include_queuing seed
print_activity print_csv_results deadlock_warn_timeout viewer_trace sim_power channel_width
channel_sweep
perfect_icnt fixed_lat_per_hop use_map flit_size input_buffer_size ejection_buffer_size
boundary_buffer_size output_extra_latency network_count enable_link_stats MATLAB_OUTPUT
DISPLAY_LAT_DIST DISPLAY_HOP_DIST DISPLAY_PAIR_LATENCY
""".split())

FLOAT_PARAMS = frozenset("""
internal_speedup injection_rate burst_alpha burst_beta burst_r1 write_fraction latency_thres
warmup_thres acc_warmup_thres stopping_thres acc_stopping_thres
""".split())

STR_PARAMS = frozenset("""
channel_file topology routing_function router spec_sw_allocator buffer_policy private_buf_size
private_buf_start_vc private_buf_end_vc vc_allocator sw_allocator arb_type traffic class_priority
injection_rate packet_size packet_size_rate injection_process priority use_read_write write_fraction
read_request_size write_request_size read_reply_size write_reply_size sim_type measure_stats
latency_thres warmup_thres acc_warmup_thres stopping_thres acc_stopping_thres watch_file watch_flits
watch_packets watch_transactions watch_out stats_out sent_packets_out power_output_file tech_file
network_file memory_node_map
""".split())

ALL_PARAMS = INT_PARAMS | FLOAT_PARAMS | STR_PARAMS


def check_param(name: str, value: Any) -> str | None:
    """None when BookSim accepts ``name = value``; otherwise the reason, in one line."""
    if name not in ALL_PARAMS:
        close = difflib.get_close_matches(name, sorted(ALL_PARAMS), n=1, cutoff=0.6)
        return f"unknown interconnect parameter {name!r}" + (f"; did you mean {close[0]!r}?" if close else "")
    if isinstance(value, int):
        table, kind = INT_PARAMS, "an integer"
    elif isinstance(value, float):
        table, kind = FLOAT_PARAMS, "a decimal number"
    else:
        table, kind = STR_PARAMS, "a name or {list}"
    if name not in table:
        want = " or ".join(w for t, w in ((INT_PARAMS, "an integer"), (FLOAT_PARAMS, "a decimal number (e.g. 2.0)"),
                                          (STR_PARAMS, "a name or {list}")) if name in t)
        return f"interconnect parameter {name!r} takes {want}, got {kind} ({value!r})"
    return None
