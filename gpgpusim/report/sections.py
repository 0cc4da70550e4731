"""Multi-line rows of GPGPU-Sim 4.2's end-of-kernel block (breakdowns, tables, per-unit rows).

Each row is a :class:`Custom` with the counters it needs and a formatter; it prints nothing
unless those counters exist (so sections no model feeds stay out of the output).  Formats are
facts from the 4.2 logs in ``reference/gpgpusim-output``; GPGPU-Sim counterparts are named on
each formatter.  Counter shapes:

* cache breakdowns: ``{access_type: {status: n}}`` (``Total_core_cache_stats``, ``L2_cache_stats``);
  fail breakdowns: ``{access_type: {fail_reason: n}}``;
* per-unit arrays: lists (per core, per DRAM channel, per bank: a list of lists);
* latency tables and histograms: lists of bins;
* traffic breakdowns: ``{access_type: {packet_bytes: n}}``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
import math

import numpy as np
from dataclasses import dataclass
from typing import Any

#: ``mem_access_type`` order (``MA_TUP`` in abstract_hardware_model.h)
ACCESS_TYPES = ("GLOBAL_ACC_R", "LOCAL_ACC_R", "CONST_ACC_R", "TEXTURE_ACC_R", "GLOBAL_ACC_W", "LOCAL_ACC_W",
                "L1_WRBK_ACC", "L2_WRBK_ACC", "INST_ACC_R", "L1_WR_ALLOC_R", "L2_WR_ALLOC_R")
#: ``cache_request_status`` order as printed
STATUSES = ("HIT", "HIT_RESERVED", "MISS", "RESERVATION_FAIL", "SECTOR_MISS", "MSHR_HIT")
#: ``cache_reservation_fail_reason`` order (spelling as GPGPU-Sim prints it)
FAIL_REASONS = ("LINE_ALLOC_FAIL", "MISS_QUEUE_FULL", "MSHR_ENRTY_FAIL", "MSHR_MERGE_ENRTY_FAIL", "MSHR_RW_PENDING")


@dataclass(frozen=True, slots=True)
class Custom:
    """A row printed by ``fn(values) -> lines``; omitted when a needed counter is missing."""

    needs: tuple[str, ...]
    fn: Callable[[Any], list[str]]

    def render_all(self, v: Any) -> list[str]:
        try:
            for n in self.needs:
                v[n]
            return self.fn(v)
        except (KeyError, ZeroDivisionError, IndexError):
            return []

    def names(self) -> list[str]:
        return list(self.needs)


def cache_breakdown(title: str, prefix: str, counter: str) -> Custom:
    """``cache_stats::print_stats``: every (access type, status), then TOTAL_ACCESS per access
    type with accesses.  TOTAL_ACCESS = HIT + HIT_RESERVED + MISS + SECTOR_MISS: reservation
    fails are retried (not accesses) and MSHR_HIT is a subset of HIT_RESERVED."""
    def fn(v: Any) -> list[str]:
        d = v[f"t:{counter}"]
        out = title.split("\n")
        for at in ACCESS_TYPES:
            row = d.get(at, {})
            out.extend(f"\t{prefix}[{at}][{st}] = {row.get(st, 0)}" for st in STATUSES)
        for at in ACCESS_TYPES:
            row = d.get(at, {})
            tot = sum(row.get(st, 0) for st in ("HIT", "HIT_RESERVED", "MISS", "SECTOR_MISS"))
            if tot:
                out.append(f"\t{prefix}[{at}][TOTAL_ACCESS] = {tot}")
        return out
    return Custom((f"t:{counter}",), fn)


def fail_breakdown(title: str, prefix: str, counter: str) -> Custom:
    """``cache_stats::print_fail_stats``: only the non-zero (access type, reason) pairs."""
    def fn(v: Any) -> list[str]:
        d = v[f"t:{counter}"]
        out = title.split("\n")
        for at in ACCESS_TYPES:
            row = d.get(at, {})
            out.extend(f"\t{prefix}[{at}][{r}] = {row[r]}" for r in FAIL_REASONS if row.get(r, 0))
        return out
    return Custom((f"t:{counter}",), fn)


def warp_issue_distro(v: Any) -> list[str]:
    """``shader_core_stats::print``: the warp-id issue distribution of core 0 (4.2's spelling)."""
    distro = v["t:shader0_warp_issue_distro"]
    return [f"ctas_completed {v['t:ctas_completed']}, Shader 0 warp_id issue ditsribution:", "warp_id:",
            "".join(f"{i}, " for i in range(len(distro))), "distro:", "".join(f"{n}, " for n in distro)]


def warp_occupancy(v: Any) -> list[str]:
    """``Warp Occupancy Distribution``: stall, idle, scoreboard, then W1..W<warp size> by active lanes."""
    d = v["t:warp_occupancy"]  # [stall, idle, scoreboard, W1, ..., W32]
    parts = [f"Stall:{d[0]}", f"W0_Idle:{d[1]}", f"W0_Scoreboard:{d[2]}"] + [f"W{i}:{n}" for i, n in enumerate(d[3:], 1)]
    return ["Warp Occupancy Distribution:", "\t".join(parts)]


def issue_nums(name: str, counter: str) -> Custom:
    def fn(v: Any) -> list[str]:
        return [f"{name}: " + "".join(f"WS{i}:{n}\t" for i, n in enumerate(v[f"t:{counter}"]))]
    return Custom((f"t:{counter}",), fn)


def traffic(direction: str, counter: str) -> Custom:
    """``traffic_breakdown_<dir>[TYPE] = bytes {packet size:count,}`` per access type with
    traffic, in the name order of GPGPU-Sim's ``std::map<std::string, ...>``."""
    def fn(v: Any) -> list[str]:
        out = []
        d = v[f"t:{counter}"]
        for at in sorted(d):
            sizes = d[at]
            if not sizes:
                continue
            total = sum(int(sz) * n for sz, n in sizes.items())
            hist = "".join(f"{sz}:{n}," for sz, n in sorted(sizes.items(), key=lambda kv: int(kv[0])))
            out.append(f"traffic_breakdown_{direction}[{at}] = {total} {{{hist}}}")
        return out
    return Custom((f"t:{counter}",), fn)


def lat_table(name: str, counter: str) -> Custom:
    """``memlatstat_print`` histograms: ``name:`` then each bin as ``"%d \\t"``."""
    def fn(v: Any) -> list[str]:
        return [f"{name}:" + "".join(f"{n} \t" for n in v[f"t:{counter}"])]
    return Custom((f"t:{counter}",), fn)


def _cell(x: Any, width: int, spec: str) -> str:
    if x is None:  # no sample (GPGPU-Sim prints "none" for a bank without latency records)
        return "    none  "
    if isinstance(x, float) and x != x:
        return "-nan".rjust(width)
    return format(x, f"{width}{spec}")


def _cells(xs: Sequence[Any], width: int, spec: str) -> str:
    """:func:`_cell` of each of ``xs``, joined; a row of plain ints in one ``%`` format."""
    if spec == "d" and ints_only(xs):
        return (f"%{width}d" * len(xs)) % tuple(xs)
    return "".join(_cell(x, width, spec) for x in xs)


def ints_only(xs: Sequence[Any]) -> bool:
    """Whether ``xs`` holds plain ints only (no bool, no None, no float that could be NaN): a
    row that prints with ``%d`` or ``str.format`` exactly as cell by cell."""
    return _INTS.issuperset(map(type, xs))


_INTS = frozenset((int,))


def per_bank_table(title: str, counter: str, width: int = 10, spec: str = "d", lead: str = "", tail: str = " ") -> Custom:
    """``dram[i]:`` rows of per-bank values (``counter`` is a list per channel of lists per bank)."""
    def fn(v: Any) -> list[str]:
        rows = v[f"t:{counter}"]
        return [title] + [f"dram[{i}]:{lead}" + _cells(banks, width, spec) + tail for i, banks in enumerate(rows)]
    return Custom((f"t:{counter}",), fn)


def row_accesses_per_activate(v: Any) -> list[str]:
    """``average row accesses per activate``: per bank accesses / activates in single precision
    as GPGPU-Sim divides them (``-nan`` for 0/0)."""
    acc, act = v["t:dram_row_accesses_per_bank"], v["t:dram_activates_per_bank"]
    out = ["average row accesses per activate:"]
    for i, (ra, rb) in enumerate(zip(acc, act, strict=True)):
        out.append(f"dram[{i}]:" + "".join(" " + _cell(float(np.float32(a) / np.float32(b)) if b else math.nan, 9, "f")
                                           for a, b in zip(ra, rb, strict=True)) + " ")
    ta, tb = sum(map(sum, acc)), sum(map(sum, act))
    out.append(f"average row locality = {ta}/{tb} = " + (f"{ta / tb:f}" if tb else "-nan"))
    return out


def _flat(rows: Sequence[Sequence[int]]) -> list[int]:
    return [x for r in rows for x in r]


def dram_accesses(title: str, counter: str, total_line: str) -> Custom:
    """A per-bank access table, its total, and the bank/chip skew lines GPGPU-Sim adds."""
    def fn(v: Any) -> list[str]:
        rows = v[f"t:{counter}"]
        out = [title] + [f"dram[{i}]:" + _cells(banks, 10, "d") + " " for i, banks in enumerate(rows)]
        flat = _flat(rows)
        out.append(total_line.format(sum(flat)))
        min_bank = min(flat) if flat else 0
        chips = [sum(r) for r in rows]
        min_chip = min(chips) if chips else 0
        if min_bank == 0:
            out.append("min_bank_accesses = 0!")
        else:
            out.append(f"bank skew: {max(flat)}/{min_bank} = {max(flat) / min_bank:4.2f}")
        if min_chip == 0:
            out.append("min_chip_accesses = 0!")
        else:
            out.append(f"chip skew: {max(chips)}/{min_chip} = {max(chips) / min_chip:4.2f}")
        return out
    return Custom((f"t:{counter}",), fn)


def dram_partitions(v: Any) -> list[str]:
    """Per memory partition, as ``memory_partition_unit::print`` / ``dram_t::print`` write it.

    ``dram_channels`` is a list (one per channel) of dicts.  Always needed: ``n_cmd n_nop n_act
    n_pre n_req n_rd n_write`` and ``bwutil`` (data-bus busy cycles: BL / data-command ratio per
    column command), giving ``bw_util = bwutil / n_cmd``; optional ``n_ref_event n_rd_L2_A
    n_wr_bk``.  Each further group prints when its keys are present:

    * ``l2_banks`` (global L2 bank ids of the partition) and ``dram_latency_queue`` (list of
      dicts ``ready uid sid wid addr is_store size type status status_cycle``): the
      ``Memory Partition i:`` header, the (empty at kernel end) MSHR lists and the latency queue;
    * ``n_activity``: ``dram_eff = bwutil / n_activity``;
    * ``bk_access``, ``bk_idle``: the per-bank ``bkN: <a>a <i>i`` line;
    * ``row_buffer_locality[_read|_write]``, ``blp``, ``blp_col``, ``blp_ready``,
      ``w2r_ratio_blp_rw_average``, ``grp_level_para`` (floats the DRAM model computes),
      ``wasted_col``, ``wasted_row``, the nine ``*_limit`` bottleneck counters and ``rwq``,
      ``issued_total_row``, ``issued_two``, ``queue_avg``, ``util_bins``, ``eff_bins``,
      ``mrqq_max``, ``mrqq_avg``: the detail block.
    """
    cfg = v["cfg"]
    t = cfg["gpgpu_dram_timing_opt"]
    head = (f"{t['nbk']} bks, busW={int(cfg['gpgpu_dram_buswidth'])} BL={int(cfg['gpgpu_dram_burst_length'])} "
            f"CL={t['CL']}, tRRD={t['RRD']} tCCD={t['CCD']}, tRCD={t['RCD']} tRAS={t['RAS']} tRP={t['RP']} tRC={t['RC']}")
    channels = v["t:dram_channels"]
    key = (head, channels)
    if _last_dram[0] == key:
        # the channels did not change since the last block (launches that ran functionally
        # under kernel sampling, or that touched no DRAM): the same text, not formatted again
        return list(_last_dram[1])
    out = _dram_partitions(head, channels)
    # no copy: a kernel's counters are a snapshot of the model's (``StatsRegistry.snapshot``) that
    # nothing changes once it is reported, so the memo can hold the channels themselves
    _last_dram[:] = [key, out]
    return list(out)


#: the last (header, channels) :func:`dram_partitions` formatted, and its lines
_last_dram: list[Any] = [None, []]


def _dram_partitions(head: str, channels: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for i, ch in enumerate(channels):
        if "l2_banks" in ch:
            out.append(f"Memory Partition {i}: ")
            for b in ch["l2_banks"]:
                out += [f"Cache L2_bank_{b:03d}:", "MSHR contents", ""]
            q = ch.get("dram_latency_queue", [])
            out.append(f"In Dram Latency Queue (total = {len(q)}): ")
            out += [f"Ready @ {e['ready']} - " + _mf(e, i) for e in q]
        out.append(f"DRAM[{i}]: {head}")
        bw = ch["bwutil"] / ch["n_cmd"] if ch["n_cmd"] else math.nan
        out.append(f"n_cmd={ch['n_cmd']} n_nop={ch['n_nop']} n_act={ch['n_act']} n_pre={ch['n_pre']} "
                   f"n_ref_event={ch.get('n_ref_event', 0)} n_req={ch['n_req']} n_rd={ch['n_rd']} "
                   f"n_rd_L2_A={ch.get('n_rd_L2_A', 0)} n_write={ch['n_write']} n_wr_bk={ch.get('n_wr_bk', 0)} "
                   f"bw_util={_g4(bw)}")
        if "n_activity" in ch:
            eff = ch["bwutil"] / ch["n_activity"] if ch["n_activity"] else math.nan
            out.append(f"n_activity={ch['n_activity']} dram_eff={_g4(eff)}")
        if "bk_access" in ch:
            out.append("".join(f"bk{j}: {a}a {idle}i " for j, (a, idle)
                               in enumerate(zip(ch["bk_access"], ch["bk_idle"], strict=True))))
        if "row_buffer_locality" in ch:
            out += _dram_detail(ch)
    return out


def _f(x: float | None) -> str:
    """``%f``; an undefined ratio (None, or NaN read back from a log) prints as ``-nan``."""
    return "-nan" if x is None or x != x else f"{x:f}"


def _dram_detail(ch: dict[str, Any]) -> list[str]:
    total = ch["n_cmd"]
    util = ch["bwutil"]
    row, col, two = ch["issued_total_row"], ch["n_rd"] + ch["n_write"] + ch.get("n_rd_L2_A", 0) + ch.get("n_wr_bk", 0), ch["issued_two"]
    either = row + col - two

    def r(a: float, b: float) -> float:
        # dram_t::print divides in single precision
        return float(np.float32(a) / np.float32(b)) if b else math.nan
    out = ["", "-" * 72, "",
           f"Row_Buffer_Locality = {_f(ch['row_buffer_locality'])}",
           f"Row_Buffer_Locality_read = {_f(ch['row_buffer_locality_read'])}",
           f"Row_Buffer_Locality_write = {_f(ch['row_buffer_locality_write'])}",
           f"Bank_Level_Parallism = {_f(ch['blp'])}",
           f"Bank_Level_Parallism_Col = {_f(ch['blp_col'])}",
           f"Bank_Level_Parallism_Ready = {_f(ch['blp_ready'])}",
           f"write_to_read_ratio_blp_rw_average = {_f(ch['w2r_ratio_blp_rw_average'])}",
           f"GrpLevelPara = {_f(ch['grp_level_para'])} ", "",
           "BW Util details:",
           f"bwutil = {_f(r(util, total))} ", f"total_CMD = {total} ", f"util_bw = {util} ",
           f"Wasted_Col = {ch['wasted_col']} ", f"Wasted_Row = {ch['wasted_row']} ",
           f"Idle = {total - util - ch['wasted_col'] - ch['wasted_row']} ", "",
           "BW Util Bottlenecks: "]
    out += [f"{k} = {ch[k]} " for k in ("RCDc_limit", "RCDWRc_limit", "WTRc_limit", "RTWc_limit", "CCDLc_limit",
                                         "rwq", "CCDLc_limit_alone", "WTRc_limit_alone", "RTWc_limit_alone")]
    out += ["", "Commands details: ", f"total_CMD = {total} ", f"n_nop = {ch['n_nop']} ", f"Read = {ch['n_rd']} ",
            f"Write = {ch['n_write']} ", f"L2_Alloc = {ch.get('n_rd_L2_A', 0)} ", f"L2_WB = {ch.get('n_wr_bk', 0)} ",
            f"n_act = {ch['n_act']} ", f"n_pre = {ch['n_pre']} ", f"n_ref = {ch.get('n_ref_event', 0)} ",
            f"n_req = {ch['n_req']} ", f"total_req = {col} ", "",
            "Dual Bus Interface Util: ", f"issued_total_row = {row} ", f"issued_total_col = {col} ",
            f"Row_Bus_Util =  {_f(r(row, total))} ", f"CoL_Bus_Util = {_f(r(col, total))} ",
            f"Either_Row_CoL_Bus_Util = {_f(r(either, total))} ",
            f"Issued_on_Two_Bus_Simul_Util = {_f(r(two, total))} ", f"issued_two_Eff = {_f(r(two, either))} ",
            f"queue_avg = {_f(ch['queue_avg'])} ", "", "",
            "dram_util_bins: " + " ".join(str(x) for x in ch["util_bins"]),
            "dram_eff_bins: " + " ".join(str(x) for x in ch["eff_bins"]),
            f"mrqq: max={ch['mrqq_max']} avg=" + ("-nan" if ch["mrqq_avg"] is None else f"{ch['mrqq_avg']:g}")]
    return out


def _mf(e: dict[str, Any], part: int) -> str:
    """``mem_fetch::print`` of a request waiting in a partition queue."""
    kind = "store" if e["is_store"] else "load "
    return (f"  mf: uid={e['uid']:6d}, sid{e['sid']:02d}:w{e['wid']:02d}, part={part}, addr=0x{e['addr']:08x}, "
            f"{kind}, size={e['size']}, {e['type']}  status = {e['status']} ({e['status_cycle']}), ")


def _g4(x: float) -> str:
    return "-nan" if x != x else f"{x:.4g}"


def mem_lat_dist(name: str, counter: str) -> Custom:
    def fn(v: Any) -> list[str]:
        return [f"{name} " + "".join(f" {n}" for n in v[f"t:{counter}"])]
    return Custom((f"t:{counter}",), fn)


_ICNT_FIELDS = (("injected_packets_num", "{}"), ("cycles", "{}"), ("injected_packets_per_cycle", "{:12.4f} "),
                ("conflicts_per_cycle", "{:12.4f}"), ("conflicts_per_cycle_util", "{:12.4f}"),
                ("Bank_Level_Parallism", "{:12.4f}"), ("in_buffer_full_per_cycle", "{:12.4f}"),
                ("in_buffer_avg_util", "{:12.4f}"), ("out_buffer_full_per_cycle", "{:12.4f}"),
                ("out_buffer_avg_util", "{:12.4f}"))


def icnt_details(v: Any) -> list[str]:
    """The local crossbar's ``Interconnect-DETAILS`` block (``LocalInterconnect::DisplayStats``);
    ``icnt_details`` = {"Req": {...}, "Reply": {...}} with the field names above."""
    d = v["t:icnt_details"]
    out = ["----------------------------Interconnect-DETAILS--------------------------------"]
    for net in ("Req", "Reply"):
        stats = d[net]
        for key, fmt in _ICNT_FIELDS:
            name = f"{net}_{key}" if key == "Bank_Level_Parallism" else f"{net}_Network_{key}"
            val = fmt.format(stats[key])
            if net == "Reply" and key == "injected_packets_per_cycle":
                val = f"{stats[key]:13.4f}"  # 4.2 prints this one with one more space and no tail
            elif net == "Reply" and key in ("conflicts_per_cycle", "conflicts_per_cycle_util"):
                val = f"{stats[key]:13.4f}" if key == "conflicts_per_cycle" else f"{stats[key]:12.4f}"
            out.append(f"{name} = {val}")
        if net == "Req":
            out.append("")
    out.append("----------------------------END-of-Interconnect-DETAILS-------------------------")
    return out
