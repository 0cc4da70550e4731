"""Reporter text against the C++ GPGPU-Sim 4.2 logs, functional-mode lines, JSON (C193-C199)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpgpusim.options import load_config
from gpgpusim.report import Reporter
from gpgpusim.report.data import KernelInfo, KernelStats
import os

# ../shared beside the checkout (the reference data); GPGPUSIM_SHARED overrides.
SHARED_DIR = os.environ.get("GPGPUSIM_SHARED") or str(Path(__file__).resolve().parents[3] / "shared")

REF = Path(SHARED_DIR, "reference/gpgpusim-output")
needs_ref = pytest.mark.skipif(not REF.is_dir(), reason="reference data not available")


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def make(functional: bool = False, overrides=()):
    ov = list(overrides) + (["-gpgpu_ptx_sim_mode 1"] if functional else [])
    cfg = load_config(overrides=ov, env=False)
    lines: list[str] = []
    clock = Clock()
    return Reporter(cfg, lines.append, clock=clock), lines, clock


# counters as the C++ run of vectoradd (SM7_QV100) ended them (values from vectoradd_qv100.log)
VECADD_COUNTERS = {
    "max_total_param_size": 0, "gpu_stall_dramfull": 0, "gpu_stall_icnt2sh": 0,
    "L1I_total_cache_accesses": 0, "L1I_total_cache_misses": 0, "L1I_total_cache_pending_hits": 0,
    "L1I_total_cache_reservation_fails": 0,
    "L1D_total_cache_accesses": 24576, "L1D_total_cache_misses": 24576, "L1D_total_cache_pending_hits": 0,
    "L1D_total_cache_reservation_fails": 23086,
    "L1C_total_cache_accesses": 0, "L1C_total_cache_misses": 0, "L1C_total_cache_pending_hits": 0,
    "L1C_total_cache_reservation_fails": 0,
    "L1T_total_cache_accesses": 0, "L1T_total_cache_misses": 0, "L1T_total_cache_pending_hits": 0,
    "L1T_total_cache_reservation_fails": 0,
    "gpgpu_n_shmem_bkconflict": 0, "gpgpu_n_l1cache_bkconflict": 9312,
    "maxmflatency": 466, "mf_latency_sum": 284 * 24576 + 100, "mf_latency_count": 24576,
    "total_dram_reads": 0, "total_dram_writes": 0,
    "L2_total_cache_accesses": 24576, "L2_total_cache_misses": 8192, "L2_total_cache_pending_hits": 0,
    "L2_total_cache_reservation_fails": 0,
    "icnt_total_pkts_mem_to_simt": 24576, "icnt_total_pkts_simt_to_mem": 24576,
}


def vecadd_stats() -> KernelStats:
    return KernelStats("_Z6vecAddPKfS0_Pfi", 1, (256, 1, 1), (256, 1, 1), 0, thread_insn=1376256,
                       warp_insn=45056, ctas=256, cycles=6109, counters=dict(VECADD_COUNTERS))


@needs_ref
def test_end_of_kernel_lines_match_cpp_log_in_order():
    rep, lines, clock = make()
    clock.t = 4.0  # the C++ run took 4 s
    rep.kernel_end(vecadd_stats())
    log = (REF / "vectoradd_qv100.log").read_text().split("\n")
    # every line we print appears in the C++ log, in the same relative order
    pos = log.index("Destroy streams for kernel 1: size 0")
    for ln in lines:
        if ln == "":
            continue
        nxt = log.index(ln, pos)
        assert nxt >= pos, ln
        pos = nxt
    assert "gpu_ipc =     225.2834" in lines
    assert "gpu_total_sim_rate=344064" in lines
    assert lines[-4:] == ["gpgpu_simulation_time = 0 days, 0 hrs, 0 min, 4 sec (4 sec)",
                          "gpgpu_simulation_rate = 344064 (inst/sec)",
                          "gpgpu_simulation_rate = 1527 (cycle/sec)",
                          "gpgpu_silicon_slowdown = 741322x"]


def test_sections_without_counters_are_left_out():
    rep, lines, clock = make()
    clock.t = 2.0
    rep.kernel_end(KernelStats("k", 1, thread_insn=100, warp_insn=4, ctas=1, cycles=50))
    text = "\n".join(lines)
    assert "Core cache stats" not in text and "L2 cache stats" not in text
    assert "partiton_level_parallism" not in text and "gpu_stall_dramfull" not in text
    assert "gpgpu_n_tot_w_icount = 4" in lines
    assert "gpu_ipc =       2.0000" in lines


def test_counter_added_later_appears_in_place():
    rep, lines, clock = make()
    rep.kernel_end(KernelStats("k", 1, thread_insn=10, warp_insn=1, ctas=1, cycles=10,
                               counters={"gpu_stall_dramfull": 7, "total_dram_reads": 3}))
    i = lines.index("gpu_stall_dramfull = 7")
    assert lines[i - 1] == "gpu_tot_issued_cta = 1"
    assert "total dram reads = 3" in lines


def test_cumulative_and_per_kernel_views():
    rep, lines, clock = make()
    clock.t = 1.0
    rep.kernel_end(KernelStats("a", 1, thread_insn=1000, warp_insn=40, ctas=4, cycles=100,
                               counters={"L2_total_cache_accesses": 10, "L2_total_cache_misses": 5}))
    lines.clear()
    clock.t = 2.0
    rep.kernel_end(KernelStats("b", 2, thread_insn=3000, warp_insn=100, ctas=8, cycles=300,
                               counters={"L2_total_cache_accesses": 30, "L2_total_cache_misses": 6}))
    for want in ("kernel_name = b ", "kernel_launch_uid = 2 ", "gpu_sim_cycle = 300", "gpu_sim_insn = 3000",
                 "gpu_ipc =      10.0000", "gpu_tot_sim_cycle = 400", "gpu_tot_sim_insn = 4000",
                 "gpu_tot_ipc =      10.0000", "gpu_tot_issued_cta = 12", "gpgpu_n_tot_w_icount = 140",
                 "L2_total_cache_accesses = 30", "L2_total_cache_miss_rate = 0.2000"):
        assert want in lines


def test_functional_mode_lines():
    rep, lines, clock = make(functional=True)
    rep.splash()
    assert "GPGPU-Sim PTX: simulation mode 1 (can change with PTX_SIM_MODE_FUNC environment variable:" in lines
    lines.clear()
    rep.kernel_launch(KernelInfo("_Z3addlPlS_S_", 1, (2, 1, 1), (2, 1, 1), 0, functional=True, host_fun=0x5641))
    clock.t = 0.5
    rep.functional_done(KernelStats("_Z3addlPlS_S_", 1, thread_insn=852, warp_insn=40, ctas=2, elapsed_s=0.5))
    rep.kernel_launch(KernelInfo("_Z4add1lPlS_S_", 2, (2, 1, 1), (2, 1, 1), 0, functional=True))
    clock.t = 2.5
    rep.functional_done(KernelStats("_Z4add1lPlS_S_", 2, thread_insn=852, warp_insn=40, ctas=2, elapsed_s=2.0))
    rep.exit()
    rep.exit()
    assert lines == [
        "GPGPU-Sim PTX: cudaLaunch for 0x0x5641 (mode=functional simulation) on stream 0",
        "GPGPU-Sim PTX: pushing kernel '_Z3addlPlS_S_' to stream 0, gridDim= (2,1,1) blockDim = (2,1,1) ",
        "GPGPU-Sim: Performing Functional Simulation, executing kernel _Z3addlPlS_S_...",
        "Destroy streams for kernel 1: size 0",
        "GPGPU-Sim: Done functional simulation (852 instructions simulated).",
        "", "",
        "gpgpu_simulation_time = 0 days, 0 hrs, 0 min, 1 sec (1 sec)",
        "gpgpu_simulation_rate = 1704 (inst/sec)",  # 852 / 0.5 s: real elapsed time, not whole seconds
        "GPGPU-Sim PTX: pushing kernel '_Z4add1lPlS_S_' to stream 0, gridDim= (2,1,1) blockDim = (2,1,1) ",
        "GPGPU-Sim: Performing Functional Simulation, executing kernel _Z4add1lPlS_S_...",
        "Destroy streams for kernel 2: size 0",
        "GPGPU-Sim: Done functional simulation (1704 instructions simulated).",
        "", "",
        "gpgpu_simulation_time = 0 days, 0 hrs, 0 min, 2 sec (2 sec)",
        "gpgpu_simulation_rate = 681 (inst/sec)",
        "GPGPU-Sim: *** exit detected ***",
    ]


def test_simulation_time_split():
    from gpgpusim.report.reporter import split_time

    assert split_time(90061) == (1, 1, 1, 1)
    assert split_time(59) == (0, 0, 0, 59)


@needs_ref
def test_splash_and_dump_match_log_head():
    rep, lines, _ = make()
    rep.splash()
    rep.option_dump()
    log = (REF / "vectoradd_qv100.log").read_text().split("\n")
    assert lines[:2] == log[:2] == ["", ""]
    assert lines[2].startswith("        *** GPGPU-Sim Simulator Version 4.2.0  [build ")
    assert lines[3:7] == log[3:7]
    start = log.index("GPGPU-Sim: Configuration options:")
    assert lines[7:] == log[start:start + 2 + 224]


def test_json_holds_the_same_numbers(tmp_path):
    rep, lines, clock = make(functional=True)
    clock.t = 1.0
    rep.functional_done(KernelStats("k1", 1, (4, 1, 1), (32, 1, 1), thread_insn=500, warp_insn=20, ctas=4,
                                    opcode_counts={"add": 300, "ld": 200}))
    rep.functional_done(KernelStats("k2", 2, thread_insn=250, warp_insn=10, ctas=1, opcode_counts={"add": 250}))
    out = tmp_path / "stats.json"
    rep.write_json(out, {"argv": ["./app"]})
    doc = json.loads(out.read_text())
    assert doc["mode"] == "functional"
    assert [k["thread_insn"] for k in doc["kernels"]] == [500, 250]
    assert [k["gpu_tot_sim_insn"] for k in doc["kernels"]] == [500, 750]
    assert "GPGPU-Sim: Done functional simulation (750 instructions simulated)." in lines
    assert doc["totals"]["gpu_tot_sim_insn"] == 750
    assert doc["totals"]["opcode_counts"] == {"add": 550, "ld": 200}
    assert doc["config"]["gpgpu_n_clusters"] == "80"
    assert doc["config"]["gpgpu_ptx_sim_mode"] == "1"
    assert doc["run"] == {"argv": ["./app"]}
    assert doc["kernels"][0]["grid"] == [4, 1, 1]


def _numbers(obj) -> set[int]:
    if isinstance(obj, bool):
        return set()
    if isinstance(obj, int):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(_numbers(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(_numbers(v) for v in obj)) if obj else set()
    return set()


def test_every_number_printed_in_functional_mode_is_in_the_json():
    """Per kernel: each number of its functional-mode lines is in its JSON record, same value."""
    import re

    rep, lines, clock = make(functional=True)
    printed = []
    runs = [("scale", (40, 2, 1), (256, 1, 1), 6000, 6144, 1.25), ("addone", (8, 1, 1), (128, 1, 1), 1000, 1024, 3.5)]
    for uid, (name, grid, block, thread, func, t) in enumerate(runs, 1):
        start = len(lines)
        rep.kernel_launch(KernelInfo(name, uid, grid, block, 3, functional=True, host_fun=0x55d0 + uid))
        clock.t = t
        rep.functional_done(KernelStats(name, uid, grid, block, 3, thread_insn=thread, functional_insn=func,
                                        warp_insn=thread // 32, ctas=grid[0] * grid[1]))
        printed.append(lines[start:])
    doc = json.loads(json.dumps(rep.to_json()))
    for rec, text in zip(doc["kernels"], printed, strict=True):
        body = "\n".join(text).replace(": size 0", "")  # "Destroy streams ... size 0" is fixed text
        hexes = re.findall(r"0x0x([0-9a-f]+)", body)
        assert hexes == [rec["host_fun"][2:]]
        body = re.sub(r"0x0x[0-9a-f]+", "", body)
        nums = {int(n) for n in re.findall(r"(?<![\w.])\d+(?![\w.])", body)}
        assert nums and nums <= _numbers(rec), nums - _numbers(rec)
    k1, k2 = doc["kernels"]
    assert (k1["functional_tot_insn"], k2["functional_tot_insn"]) == (6144, 7168)
    assert (k1["simulation_rate_inst_per_s"], k2["simulation_rate_inst_per_s"]) == (4915, 2048)  # 6144/1.25, 7168/3.5
    assert k2["simulation_time"] == {"days": 0, "hrs": 0, "min": 0, "sec": 3, "total_sec": 3}
    assert "gpgpu_simulation_rate = 2048 (inst/sec)" in lines
    # the totals hold the last printed figures, computed from the same count and elapsed time
    t = doc["totals"]
    assert (t["simulation_rate_inst_per_s"], t["simulation_elapsed_s"], t["simulation_insn"]) == (2048, 3.5, 7168)
    assert t["functional_insn"] == 7168 and t["gpu_tot_sim_insn"] == 7000


def test_line_stats_file_sums_to_instruction_count(tmp_path):
    from gpgpusim.report.linestats import read_line_stats

    rep, _, _ = make(functional=True)
    counts = {("k.ptx", 10): 64, ("k.ptx", 11): 64, ("k.ptx", 14): 32}
    rep.functional_done(KernelStats("k", 1, thread_insn=160, line_counts=counts))
    p = rep.write_line_stats(tmp_path / "gpgpu_inst_stats.txt")
    text = p.read_text().splitlines()
    assert text[0] == "kernel line : count"
    assert text[1] == "k.ptx 10 : 64 "
    got = read_line_stats(p)
    assert sum(v["count"] for v in got.values()) == 160


def test_line_stats_default_name_from_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rep, _, _ = make(functional=True)
    rep.functional_done(KernelStats("k", 1, thread_insn=3, line_counts={("a.ptx", 1): 3}))
    assert rep.write_line_stats() == Path("gpgpu_inst_stats.txt")
    assert (tmp_path / "gpgpu_inst_stats.txt").read_text() == "kernel line : count\na.ptx 1 : 3 \n"
    rep2, _, _ = make(functional=True, overrides=["-enable_ptx_file_line_stats 0"])
    assert rep2.write_line_stats() is None


def test_module_write_json_takes_runtime_like_object(tmp_path):
    from gpgpusim.report import write_json

    rep, _, _ = make(functional=True)
    rep.functional_done(KernelStats("k", 1, thread_insn=5))

    class Run:
        reporter = rep

        def json_meta(self):
            return {"app": "x"}

    write_json(tmp_path / "a.json", Run())
    write_json(tmp_path / "b.json", rep)
    a = json.loads((tmp_path / "a.json").read_text())
    assert a["run"] == {"app": "x"} and a["totals"]["gpu_tot_sim_insn"] == 5
    assert "run" not in json.loads((tmp_path / "b.json").read_text())
    with pytest.raises(TypeError, match="needs a Reporter"):
        write_json(tmp_path / "c.json", object())


def test_exit_writes_line_stats_when_collected(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rep, lines, _ = make(functional=True)
    rep.exit()
    assert not (tmp_path / "gpgpu_inst_stats.txt").exists()
    rep2, lines2, _ = make(functional=True)
    rep2.functional_done(KernelStats("k", 1, thread_insn=2, line_counts={("a.ptx", 3): 2}))
    rep2.exit()
    assert (tmp_path / "gpgpu_inst_stats.txt").read_text() == "kernel line : count\na.ptx 3 : 2 \n"
    assert lines2[-1] == "GPGPU-Sim: *** exit detected ***"


RRD_DESC = "minimal delay between activation of rows in different banks"


@needs_ref
@pytest.mark.parametrize("log,gpu", [("vectoradd_qv100.log", "SM7_QV100"), ("sfu_rtx3070.log", "SM86_RTX3070")])
def test_perf_init_lines_equal_the_log_start_up(log, gpu):
    """From 'DRAM Timing Options:' to 'performance model initialization complete.', line for line
    (the same lines print in functional mode: the C++ builds its GPU model in both modes)."""
    lines: list[str] = []
    Reporter(load_config(gpu=gpu, env=False), lines.append).perf_init()
    ref = (REF / log).read_text().split("\n")
    ref = ref[ref.index("DRAM Timing Options:"):
              ref.index("GPGPU-Sim uArch: performance model initialization complete.") + 1]
    # the C++ logs have a child process's output spliced into the RRD line: put it back together
    k = next(i for i, ln in enumerate(ref) if ln.startswith("RRD"))
    head = ref[k][:ref[k].index(" # ") + 3]
    assert ref[k + 1].startswith("Extracting") and RRD_DESC.endswith(ref[k + 2])
    ref[k:k + 3] = [head + RRD_DESC]
    assert lines == ref
    assert len(lines) == 15 + 1 + 6 + 4


def test_instruction_classification_is_not_silently_ignored():
    rep, lines, _ = make(overrides=["-gpgpu_ptx_instruction_classification 1"])
    rep.perf_init()
    assert lines[-1] == ("GPGPU-Sim: NOTE: -gpgpu_ptx_instruction_classification is not supported: no "
                         "classification histograms are printed (per-kernel opcode counts are in the -o JSON)")
    rep2, lines2, _ = make()
    rep2.perf_init()
    assert lines2[-1] == "GPGPU-Sim uArch: performance model initialization complete."


@needs_ref
def test_uarch_messages_match_log():
    rep, lines, _ = make()
    rep.shader_bind(0, 1, "_Z6vecAddPKfS0_Pfi")
    rep.cta_limit(8, "threads")
    rep.l1_reconfigure(128)
    rep.sync_wait()
    log = set((REF / "vectoradd_qv100.log").read_text().split("\n"))
    assert all(ln in log for ln in lines)


def test_progress_line():
    import time

    rep, lines, _ = make()
    when = time.mktime((2025, 11, 3, 9, 5, 1, 0, 0, -1))
    rep.progress(500, 137152, 1.0, now=when)
    rep.progress(1000, 274304, 3725.0, now=when + 86400 * 10)
    # ctime pads the day of month with a blank ("Nov  3"), not a zero
    assert lines == ["GPGPU-Sim uArch: cycles simulated: 500  inst.: 137152 (ipc=274.3) "
                     "sim_rate=137152 (inst/sec) elapsed = 0:0:00:01 / Mon Nov  3 09:05:01 2025",
                     "GPGPU-Sim uArch: cycles simulated: 1000  inst.: 274304 (ipc=274.3) "
                     "sim_rate=73 (inst/sec) elapsed = 0:1:02:05 / Thu Nov 13 09:05:01 2025"]


def test_line_stats_full_columns_like_gpgpusim(tmp_path):
    from gpgpusim.report.linestats import METRICS, write_line_stats

    key = ("k.ptx", 7)
    extra = {m: {key: i} for i, m in enumerate(METRICS[1:], 1)}
    write_line_stats(tmp_path / "s.txt", {key: 100}, extra)
    assert (tmp_path / "s.txt").read_text() == (
        "kernel line : count latency dram_traffic smem_bk_conflicts smem_warp gmem_access_generated gmem_warp "
        "exposed_latency warp_divergence\nk.ptx 7 : 100 1 2 3 4 5 6 7 8 \n")
    with pytest.raises(ValueError, match="unknown PTX line metric"):
        write_line_stats(tmp_path / "t.txt", {}, {"bogus": {}})


def test_json_carries_timing_counters_per_kernel_and_total(tmp_path):
    rep, _, clock = make()
    rep.kernel_end(KernelStats("a", 1, thread_insn=10, warp_insn=1, ctas=1, cycles=5,
                               counters={"total_dram_reads": 4, "L1D_core_access": [1, 2]}))
    rep.kernel_end(KernelStats("b", 2, thread_insn=10, warp_insn=1, ctas=1, cycles=5,
                               counters={"total_dram_reads": 10, "L1D_core_access": [3, 2]}))
    rep.write_json(tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["mode"] == "performance"
    assert [k["counters"] for k in doc["kernels"]] == [{"total_dram_reads": 4, "L1D_core_access": [1, 2]},
                                                       {"total_dram_reads": 6, "L1D_core_access": [2, 0]}]
    assert doc["totals"]["counters"] == {"total_dram_reads": 10, "L1D_core_access": [3, 2]}
    assert doc["totals"]["gpu_tot_sim_cycle"] == 10
    assert [k["gpu_tot_sim_cycle"] for k in doc["kernels"]] == [5, 10]


def test_sampled_kernels_are_marked_in_text_and_json():
    rep, lines, clock = make()
    clock.t = 1.0
    rep.kernel_end(KernelStats("k", 1, thread_insn=640, warp_insn=20, ctas=1, cycles=1000,
                               sampling={"mode": "kernel", "status": "detailed", "group": 1, "group_detailed": 1,
                                         "converged": False}))
    i = lines.index("gpu_sim_cycle = 1000")
    assert lines[i + 1] == "gpgpusim_sampling = detailed (kernel sampling: group 1, detailed launch 1 of the group)"
    lines.clear()
    rep.kernel_end(KernelStats("k", 2, thread_insn=640, warp_insn=20, ctas=1, cycles=1010,
                               sampling={"mode": "kernel", "status": "projected", "group": 1, "group_detailed": 4,
                                         "group_cpi": 50.5, "group_cpi_ci_rel": 0.01, "cycles_bound": 20,
                                         "cycles_bound_rel": 20 / 1010, "projected_counters": "scalar"}))
    i = lines.index("gpu_sim_cycle = 1010")
    assert lines[i + 1].startswith("gpgpusim_sampling = projected (kernel sampling: group 1, 4 launches")
    assert lines[i + 2] == "gpu_sim_cycle_projected = 1010 [projected +-1.98 %, +-20 cycles, 95 % interval]"
    assert "gpu_tot_sim_cycle = 2010" in lines
    lines.clear()
    rep.exit()
    assert lines[0] == ("GPGPU-Sim: sampling (kernel): 1 launches in detail, 1 projected, 0 CTA-sampled; "
                        "gpu_tot_sim_cycle = 2010 of which 1010 projected [+-1.00 %, +-20 cycles, 95 % bounds summed]")
    doc = rep.to_json()
    assert doc["kernels"][1]["sampling"]["status"] == "projected"
    assert doc["totals"]["sampling"] == {"mode": "kernel", "launches_detailed": 1, "launches_projected": 1,
                                         "launches_cta_sampled": 0, "cycles_projected": 1010, "cycles_bound": 20,
                                         "cycles_bound_rel": 20 / 2010}


def test_a_projected_launch_names_the_parts_of_a_widened_bound():
    from gpgpusim.report.reporter import sampling_lines

    info = {"mode": "kernel", "status": "projected", "group": 3, "group_detailed": 4, "cycles_bound": 140,
            "cycles_bound_rel": 140 / 6188, "cycles_bound_parts": {"interval": 29, "scaling": 111, "trend": 0}}
    lines = sampling_lines(KernelStats("k", 9, thread_insn=10, warp_insn=1, ctas=1, cycles=6188, sampling=info))
    assert lines[1] == ("gpu_sim_cycle_projected = 6188 [projected +-2.26 %, +-140 cycles, 95 % interval +-29, "
                        "instruction scaling +-111, trend +-0]")


def test_a_launch_projected_from_a_line_names_its_groups_and_bound():
    from gpgpusim.report.reporter import sampling_lines

    info = {"mode": "kernel", "status": "projected", "group": 8, "group_detailed": 4, "line_groups": [2, 3, 6, 8],
            "line_detailed": 16, "line_ci_rel": 0.01, "cycles_bound": 185, "cycles_bound_rel": 185 / 6292,
            "cycles_bound_parts": {"interval": 148, "model": 12, "beyond": 25}}
    lines = sampling_lines(KernelStats("k", 9, thread_insn=10, warp_insn=1, ctas=1, cycles=6292, sampling=info))
    assert lines == [
        "gpgpusim_sampling = projected (kernel sampling: from a line through groups 2, 3, 6, 8, 16 launches "
        "simulated in detail, against thread instructions; this launch ran functionally)",
        "gpu_sim_cycle_projected = 6292 [projected +-2.94 %, +-185 cycles, the line's 95 % interval +-148, "
        "its model error +-12, beyond its groups +-25]",
        "gpgpusim_sampling_counters = projected (instructions exact; scalar counters scaled from group 8 per "
        "warp instruction; per-unit lists and histograms not included)"]


def test_a_line_against_transactions_says_so():
    """A launch projected from a line fitted against global transactions (``line_measure``
    ``tx``, ``kernel_sampling.MEASURES``) names that measure; without the field, or with
    ``thread``, thread instructions."""
    from gpgpusim.report.reporter import sampling_lines

    info = {"mode": "kernel", "status": "projected", "group": 4, "group_detailed": 2, "line_groups": [2, 3, 4],
            "line_measure": "tx", "line_detailed": 7, "line_ci_rel": 0.01,
            "cycles_bound": 185, "cycles_bound_rel": 185 / 6292,
            "cycles_bound_parts": {"interval": 148, "model": 12, "beyond": 25}}
    stats = KernelStats("k", 40, thread_insn=10, warp_insn=1, ctas=1, cycles=6292, sampling=info)
    assert sampling_lines(stats)[0] == (
        "gpgpusim_sampling = projected (kernel sampling: from a line through groups 2, 3, 4, 7 launches simulated "
        "in detail, against global transactions; this launch ran functionally)")
    info["line_measure"] = "thread"
    assert "against thread instructions;" in sampling_lines(stats)[0]


def test_a_projected_launch_with_cold_reads_names_that_part_of_its_bound():
    """``cycles_bound_parts.cold`` (kernel_sampling.KernelSampler.cold_gap) is named when not 0,
    for a group and for a line; a part of 0 prints as before."""
    from gpgpusim.report.reporter import sampling_lines

    def line1(info: dict) -> str:
        return sampling_lines(KernelStats("k", 9, thread_insn=10, warp_insn=1, ctas=1, cycles=6188, sampling=info))[1]
    group = {"mode": "kernel", "status": "projected", "group": 3, "group_detailed": 4, "cycles_bound": 435,
             "cycles_bound_rel": 435 / 6188,
             "cycles_bound_parts": {"interval": 29, "scaling": 111, "trend": 0, "cold": 294}}
    assert line1(group) == ("gpu_sim_cycle_projected = 6188 [projected +-7.03 %, +-435 cycles, 95 % interval +-29, "
                            "instruction scaling +-111, trend +-0, cold reads +-294]")
    group["cycles_bound_parts"]["cold"] = 0
    assert line1(group).endswith("instruction scaling +-111, trend +-0]")
    line = dict(group, line_groups=[2, 3], line_detailed=8,
                cycles_bound_parts={"interval": 148, "model": 12, "beyond": 25, "cold": 294})
    assert line1(line).endswith("its model error +-12, beyond its groups +-25, cold reads +-294]")


def test_unsampled_kernels_have_no_sampling_fields():
    rep, lines, clock = make()
    rep.kernel_end(KernelStats("k", 1, thread_insn=10, warp_insn=1, ctas=1, cycles=10))
    rep.exit()
    assert not any(ln.startswith(("gpgpusim_sampling", "GPGPU-Sim: sampling")) for ln in lines)
    doc = rep.to_json()
    assert "sampling" not in doc["kernels"][0] and "sampling" not in doc["totals"]


def test_finished_kernel_records_are_packed_and_the_file_is_unchanged(tmp_path):
    """A finished kernel's record is kept packed (``_Packed``, in a temporary file: thousands of
    launches stay small); ``write_json`` streams the records back one at a time, and the file
    is byte for byte the plain dump of ``to_json``, whose records are dicts again."""
    from gpgpusim.report.reporter import _Packed

    rep, _lines, clock = make()
    for uid in (1, 2, 3):
        clock.t = float(uid)
        counters = dict(VECADD_COUNTERS, mf_latency_sum=uid * 1000, dram_channels=[{"n_cmd": uid, "bins": [1, 2]}])
        rep.kernel_end(KernelStats("_Z6vecAddPKfS0_Pfi", uid, (256, 1, 1), (256, 1, 1), 0, thread_insn=1376256,
                                   warp_insn=45056, ctas=256, cycles=6109 + uid, counters=counters))
    assert [type(k) for k in rep.kernels] == [_Packed, _Packed, dict]
    # the packed records are in the reporter's spool file, one after the other
    first, second = rep.kernels[0], rep.kernels[1]
    assert (first.at, second.at) == (0, first.n) and first.spool is second.spool is rep._spool
    out = tmp_path / "s.json"
    rep.write_json(out, {"argv": ["./app"]})
    assert out.read_text() == json.dumps(rep.to_json({"argv": ["./app"]}), indent=1) + "\n"
    doc = json.loads(out.read_text())
    assert [k["grid"] for k in doc["kernels"]] == [[256, 1, 1]] * 3
    assert [k["counters"]["mf_latency_sum"] for k in doc["kernels"]] == [1000, 1000, 1000]
    assert [k["counters"]["dram_channels"][0]["n_cmd"] for k in doc["kernels"]] == [1, 1, 1]


def test_a_packed_record_reads_back_as_it_was_packed():
    """``_Packed`` keeps a record as it was (tuples, int keys, NaN); a record holding a subclass
    of a built-in type, which marshal refuses, is kept as its JSON form."""
    import enum
    from collections import OrderedDict

    from gpgpusim.report.reporter import _Packed, _Spool

    class Kind(enum.IntEnum):
        A = 3

    spool = _Spool()
    rec = {"grid": (4, 1, 1), "by_unit": {0: 5, 1: 6}, "ipc": float("nan"), "big": 1 << 70, "name": "k"}
    back = _Packed(rec, spool).value()
    assert back["grid"] == (4, 1, 1) and back["by_unit"] == {0: 5, 1: 6} and back["big"] == 1 << 70
    assert back["ipc"] != back["ipc"] and back["name"] == "k"
    odd = {"kind": Kind.A, "order": OrderedDict(b=1, a=2), "grid": (2, 1, 1)}
    back = _Packed(odd, spool).value()
    assert back == {"kind": 3, "order": {"b": 1, "a": 2}, "grid": [2, 1, 1]}
    assert type(back["kind"]) is int and list(back["order"]) == ["b", "a"]


def test_a_json_file_without_kernels_is_the_plain_dump(tmp_path):
    rep, _lines, _clock = make()
    out = tmp_path / "s.json"
    rep.write_json(out)
    assert out.read_text() == json.dumps(rep.to_json(), indent=1) + "\n"
    assert json.loads(out.read_text())["kernels"] == []


def test_sample_log_keeps_samples_compactly_and_in_order():
    """The periodic samples come back as the dicts appended, in order: runs of int samples
    with the same keys share one array of rows; a bool, a float or a new key set starts a part
    of its own."""
    from gpgpusim.report.reporter import SampleLog
    recs = [{"cycle": 500 * i, "insn": 32 * i, "active_warps": i % 3, "big": 1 << 40} for i in range(1, 6)]
    recs.append({"cycle": 3000, "rate": 0.5})
    recs.append({"cycle": 3500, "flag": True})
    recs += [{"cycle": 4000 + i, "insn": -i, "active_warps": 0, "big": 1 << 62} for i in range(3)]
    recs.append({"cycle": 5000, "huge": 1 << 70})
    log = SampleLog()
    for r in recs:
        log.append(r)
    assert len(log) == len(recs)
    back = list(log)
    assert back == recs
    assert [type(v) for v in back[6].values()] == [int, bool]
    assert [list(r) for r in back] == [list(r) for r in recs]          # key order kept
    kinds = [(keys is None, len(data)) for keys, data in log._parts]
    assert kinds == [(False, 20), (True, 2), (True, 2), (False, 12), (True, 2)]
