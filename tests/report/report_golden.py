"""Build Reporter counters from a C++ GPGPU-Sim 4.2 log (test helper).

The counters are *read back* from the log's own end-of-kernel block, so a test can feed them
to our printer and compare the text line by line with the log.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any


def _ints(s: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", s)]


def kernel_block(log: str, uid: int = 1) -> list[str]:
    lines = log.split("\n")
    start = lines.index(f"Destroy streams for kernel {uid}: size 0")
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("gpgpu_silicon_slowdown"))
    return lines[start:end + 1]


_DETAIL = {"Row_Buffer_Locality": "row_buffer_locality", "Row_Buffer_Locality_read": "row_buffer_locality_read",
           "Row_Buffer_Locality_write": "row_buffer_locality_write", "Bank_Level_Parallism": "blp",
           "Bank_Level_Parallism_Col": "blp_col", "Bank_Level_Parallism_Ready": "blp_ready",
           "write_to_read_ratio_blp_rw_average": "w2r_ratio_blp_rw_average", "GrpLevelPara": "grp_level_para",
           "Wasted_Col": "wasted_col", "Wasted_Row": "wasted_row", "RCDc_limit": "RCDc_limit",
           "RCDWRc_limit": "RCDWRc_limit", "WTRc_limit": "WTRc_limit", "RTWc_limit": "RTWc_limit",
           "CCDLc_limit": "CCDLc_limit", "rwq": "rwq", "CCDLc_limit_alone": "CCDLc_limit_alone",
           "WTRc_limit_alone": "WTRc_limit_alone", "RTWc_limit_alone": "RTWc_limit_alone",
           "issued_total_row": "issued_total_row", "queue_avg": "queue_avg"}


def counters_from_block(block: list[str], core_hz: float, prev: dict[str, Any] | None = None,
                        bl_per_cmd: int = 1) -> dict[str, Any]:
    c: dict[str, Any] = {}
    kv = {}
    for ln in block:
        m = re.match(r"^\t?([A-Za-z0-9_\[\]]+)\s*=\s*(-?[\d.]+|-nan)\s*$", ln)
        if m:
            kv[m.group(1)] = m.group(2)
    for name in ("max_total_param_size", "gpu_stall_dramfull", "gpu_stall_icnt2sh", "gpgpu_n_tot_thrd_icount",
                 "gpgpu_n_tot_w_icount", "gpgpu_n_stall_shd_mem", "gpgpu_n_mem_read_local", "gpgpu_n_mem_write_local",
                 "gpgpu_n_mem_read_global", "gpgpu_n_mem_write_global", "gpgpu_n_mem_texture", "gpgpu_n_mem_const",
                 "gpgpu_n_load_insn", "gpgpu_n_store_insn", "gpgpu_n_shmem_insn", "gpgpu_n_sstarr_insn",
                 "gpgpu_n_tex_insn", "gpgpu_n_const_mem_insn", "gpgpu_n_param_mem_insn", "gpgpu_n_shmem_bkconflict",
                 "gpgpu_n_l1cache_bkconflict", "gpgpu_n_intrawarp_mshr_merge", "gpgpu_n_cmem_portconflict",
                 "gpu_reg_bank_conflict_stalls", "maxmflatency", "max_icnt2mem_latency", "maxmrqlatency",
                 "max_icnt2sh_latency", "icnt_total_pkts_mem_to_simt", "icnt_total_pkts_simt_to_mem"):
        c[name] = int(kv[name])
    for k, v in kv.items():
        if k.startswith("gpgpu_stall_shd_mem["):
            c[k] = int(v)
    for cache in ("L1I", "L1D", "L1C", "L1T", "L2"):
        for f in ("accesses", "misses", "pending_hits", "reservation_fails"):
            c[f"{cache}_total_cache_{f}"] = int(kv[f"{cache}_total_cache_{f}"])
    for cache, port in (("L1D", "L1D"), ("L2", "L2")):
        d = round(float(kv[f"{port}_cache_data_port_util"]) * 1000)
        f = round(float(kv[f"{port}_cache_fill_port_util"]) * 1000)
        c.update({f"{cache}_data_port_busy": d, f"{cache}_fill_port_busy": f, f"{cache}_port_cycles": 1000})
    for prefix, key in (("L1D_cache_core", "L1D_core"), ("L2_cache_bank", "L2_bank")):
        rows = [_ints(ln.split(":", 1)[1]) for ln in block if ln.lstrip("\t").startswith(prefix + "[")]
        # Access, Miss, Miss_rate (x.yyy -> 2 ints), Pending_hits, Reservation_fails
        c[f"{key}_access"] = [r[0] for r in rows]
        c[f"{key}_miss"] = [r[1] for r in rows]
        c[f"{key}_pending"] = [r[4] for r in rows]
        c[f"{key}_resfail"] = [r[5] for r in rows]
    for name, key in (("Total_core_cache_stats_breakdown", "core_cache_breakdown"),
                      ("L2_cache_stats_breakdown", "l2_cache_breakdown"),
                      ("Total_core_cache_fail_stats_breakdown", "core_cache_fail_breakdown"),
                      ("L2_cache_stats_fail_breakdown", "l2_cache_fail_breakdown")):
        d: dict[str, dict[str, int]] = {}
        for ln in block:
            m = re.match(rf"^\t{name}\[(\w+)\]\[(\w+)\] = (\d+)$", ln)
            if m and m.group(2) != "TOTAL_ACCESS":
                d.setdefault(m.group(1), {})[m.group(2)] = int(m.group(3))
        c[key] = d
    i = block.index("warp_id:")
    c["ctas_completed"] = _ints(block[i - 1])[0]
    c["shader0_warp_issue_distro"] = _ints(block[i + 3])
    occ = block[block.index("Warp Occupancy Distribution:") + 1]
    c["warp_occupancy"] = [int(x.split(":")[1]) for x in occ.split("\t") if x]
    for name in ("single_issue_nums", "dual_issue_nums"):
        ln = next(x for x in block if x.startswith(name))
        c[name] = [int(x.split(":")[1]) for x in ln.split(": ", 1)[1].split("\t") if x]
    for d_ in ("coretomem", "memtocore"):
        t: dict[str, dict[str, int]] = {}
        for ln in block:
            m = re.match(rf"^traffic_breakdown_{d_}\[(\w+)\] = \d+ \{{(.*)\}}$", ln)
            if m:
                t[m.group(1)] = {p.split(":")[0]: int(p.split(":")[1]) for p in m.group(2).split(",") if p}
        c[f"traffic_{d_}"] = t
    for name, key in (("averagemflatency", "mf_latency"), ("avg_icnt2mem_latency", "icnt2mem_latency"),
                      ("avg_mrq_latency", "mrq_latency"), ("avg_icnt2sh_latency", "icnt2sh_latency")):
        if name in kv:
            c[f"{key}_sum"], c[f"{key}_count"] = int(kv[name]) * 7 + 3, 7
    for name in ("mrq_lat_table", "dq_lat_table", "mf_lat_table", "icnt2mem_lat_table", "icnt2sh_lat_table",
                 "mf_lat_pw_table"):
        c[name] = _ints(next(x for x in block if x.startswith(name + ":")).split(":", 1)[1])
    for title, key in (("maximum concurrent accesses to same row:", "dram_max_conc_access_per_bank"),
                       ("maximum service time to same row:", "dram_max_service_time_per_bank"),
                       ("number of total memory accesses made:", "dram_accesses_per_bank"),
                       ("number of total read accesses:", "dram_reads_per_bank"),
                       ("number of total write accesses:", "dram_writes_per_bank"),
                       ("average mf latency per bank:", "dram_avg_mf_latency_per_bank"),
                       ("maximum mf latency per bank:", "dram_max_mf_latency_per_bank")):
        i = block.index(title) + 1
        rows = []
        while block[i].startswith("dram["):
            rows.append([None if x == "none" else int(x) for x in block[i].split(":", 1)[1].split()])
            i += 1
        c[key] = rows
    i = block.index("average row accesses per activate:") + 1
    acc, act = [], []
    while block[i].startswith("dram["):  # a printed ratio back to a small fraction
        cells = block[i].split(":", 1)[1].split()
        fr = [None if x == "-nan" else Fraction(x).limit_denominator(4096) for x in cells]
        act.append([0 if f is None else f.denominator for f in fr])
        acc.append([0 if f is None else f.numerator for f in fr])
        i += 1
    c["dram_row_accesses_per_bank"], c["dram_activates_per_bank"] = acc, act
    c["active_warps_sum"] = c["max_warps_sum"] = 0  # 4.2 printed -nan: no occupancy samples
    chans: list[dict[str, Any]] = []
    ch: dict[str, Any] = {}
    for ln in block:
        if ln.startswith("Memory Partition "):
            ch = {"l2_banks": [], "dram_latency_queue": []}
            chans.append(ch)
        elif ln.startswith("Cache L2_bank_"):
            ch["l2_banks"].append(int(ln[len("Cache L2_bank_"):-1]))
        elif ln.startswith("Ready @ "):
            m = re.match(r"Ready @ (\d+) -   mf: uid=\s*(\d+), sid(\d+):w(\d+), part=\d+, addr=0x([0-9a-f]+), "
                         r"(store|load ), size=(\d+), (\w+)  status = (\w+) \((\d+)\), $", ln)
            ch["dram_latency_queue"].append({
                "ready": int(m.group(1)), "uid": int(m.group(2)), "sid": int(m.group(3)), "wid": int(m.group(4)),
                "addr": int(m.group(5), 16), "is_store": m.group(6) == "store", "size": int(m.group(7)),
                "type": m.group(8), "status": m.group(9), "status_cycle": int(m.group(10))})
        elif ln.startswith("n_cmd="):
            ch.update({k: int(v) for k, v in re.findall(r"(\w+)=(\d+)(?= |$)", ln)})
            # busy data-bus cycles: burst length / data-command ratio per column command
            ch["bwutil"] = (ch["n_rd"] + ch["n_write"] + ch["n_wr_bk"] + ch["n_rd_L2_A"]) * bl_per_cmd
        elif ln.startswith("n_activity="):
            ch["n_activity"] = int(re.match(r"n_activity=(\d+)", ln).group(1))
        elif ln.startswith("bk0: "):
            pairs = re.findall(r"bk\d+: (\d+)a (\d+)i", ln)
            ch["bk_access"] = [int(a) for a, _ in pairs]
            ch["bk_idle"] = [int(b) for _, b in pairs]
        else:
            m = re.match(r"^(\w+) =\s+(-?nan|-?[\d.]+) ?$", ln)
            if m and ch and m.group(1) == "util_bw":
                ch["bwutil"] = int(m.group(2))  # the exact busy count, when the block prints it
            elif m and ch and m.group(1) in _DETAIL:
                val = m.group(2)
                ch[_DETAIL[m.group(1)]] = float("nan") if "nan" in val else (float(val) if "." in val else int(val))
            elif ln.startswith(("dram_util_bins:", "dram_eff_bins:")) and ch:
                ch["util_bins" if ln.startswith("dram_util") else "eff_bins"] = _ints(ln.split(":", 1)[1])
            elif ln.startswith("mrqq: ") and ch:
                m = re.match(r"mrqq: max=(\d+) avg=(\S+)", ln)
                ch["mrqq_max"], ch["mrqq_avg"] = int(m.group(1)), float(m.group(2))
    for ch in chans:
        ch.setdefault("issued_two", 0)
    for k, ln in enumerate(block):  # Issued_on_Two_Bus_Simul_Util = two / total_CMD, per channel in order
        if ln.startswith("Issued_on_Two_Bus_Simul_Util = "):
            idx = sum(1 for x in block[:k] if x.startswith("Issued_on_Two_Bus_Simul_Util = "))
            chan = chans[idx]
            chan["issued_two"] = round(float(ln.split("= ")[1]) * chan["n_cmd"])
    c["dram_channels"] = chans
    c["LD_mem_lat_dist"] = _ints(next(x for x in block if x.startswith("LD_mem_lat_dist")).split(" ", 1)[1])
    c["ST_mem_lat_dist"] = _ints(next(x for x in block if x.startswith("ST_mem_lat_dist")).split(" ", 1)[1])
    det: dict[str, dict[str, float]] = {"Req": {}, "Reply": {}}
    for ln in block:
        m = re.match(r"^(Req|Reply)_(?:Network_)?(\w+) =\s+([\d.]+)", ln)
        if m:
            v = m.group(3)
            det[m.group(1)][m.group(2)] = int(v) if v.isdigit() else float(v)
    c["icnt_details"] = det
    # partition-level parallelism and L2 bandwidth: per-kernel sums solved back from this
    # kernel's printed figures, added to the previous kernel's cumulative sums
    prev = prev or {}
    cycles = int(kv["gpu_sim_cycle"])
    req = round(float(kv["partiton_level_parallism"]) * cycles)
    util = float(kv["partiton_level_parallism_util"])
    busy = round(req / util) if util else 0
    bw = float(re.search(r"^L2_BW\s+=\s+([\d.]+)", "\n".join(block), re.M).group(1))
    c["icnt_l2_req_sum"] = prev.get("icnt_l2_req_sum", 0) + req
    c["icnt_l2_busy_cycles"] = prev.get("icnt_l2_busy_cycles", 0) + busy
    c["l2_bytes"] = prev.get("l2_bytes", 0) + round(bw * 1e9 * cycles / core_hz / 32) * 32
    return c


def kernel_figures(block: list[str]) -> dict[str, Any]:
    """gpu_sim_cycle, gpu_sim_insn, gpu_tot_issued_cta, warp insn and elapsed seconds of one block."""
    get = {m.group(1): m.group(2) for m in (re.match(r"^(\w+) = (\S+)", ln) for ln in block) if m}
    secs = int(re.search(r"\((\d+) sec\)", next(x for x in block if x.startswith("gpgpu_simulation_time"))).group(1))
    name = next(x for x in block if x.startswith("kernel_name = ")).split(" = ", 1)[1].strip()
    return {"name": name, "cycles": int(get["gpu_sim_cycle"]), "insn": int(get["gpu_sim_insn"]),
            "tot_cta": int(get["gpu_tot_issued_cta"]), "w_icount": int(get["gpgpu_n_tot_w_icount"]), "secs": secs,
            "stream": int(get["kernel_stream_id"])}
