"""``gpgpusim plot``, the periodic sampler and the AerialVision log writer (C196, C197)."""

from __future__ import annotations

import gzip
import json

import pytest

from gpgpusim.options import load_config
from gpgpusim.report import Reporter
from gpgpusim.report.data import KernelStats
from gpgpusim.report.plot import main as plot_main
from gpgpusim.report.sampler import AerialVisionWriter, Sampler


def _functional_json(tmp_path):
    cfg = load_config(overrides=["-gpgpu_ptx_sim_mode 1"], env=False)
    rep = Reporter(cfg, lambda s: None)
    rep.functional_done(KernelStats("vecAdd", 1, thread_insn=1000, warp_insn=32, ctas=2,
                                    opcode_counts={"add": 600, "ld": 300, "st": 100}))
    rep.functional_done(KernelStats("reduce", 2, thread_insn=400, warp_insn=16, ctas=1, opcode_counts={"add": 400}))
    p = tmp_path / "stats.json"
    rep.write_json(p)
    return p


def test_plot_writes_pngs_from_functional_json(tmp_path, capsys):
    p = _functional_json(tmp_path)
    assert plot_main([str(p), "-d", str(tmp_path / "png")]) == 0
    files = sorted(f.name for f in (tmp_path / "png").iterdir())
    assert files == ["stats_insn_mix.png", "stats_insn_mix_per_kernel.png", "stats_kernel_insn.png"]
    for f in (tmp_path / "png").iterdir():
        assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f.stat().st_size > 1000


def test_plot_series_from_samples(tmp_path):
    doc = {"kernels": [{"kernel_launch_uid": 1, "kernel_name": "k", "thread_insn": 10, "cycles": 5, "gpu_ipc": 2.0,
                        "counters": {"L1D_total_cache_accesses": 10, "L1D_total_cache_misses": 4,
                                     "L2_total_cache_accesses": 4, "L2_total_cache_misses": 1,
                                     "total_dram_reads": 3, "total_dram_writes": 1}}],
           "totals": {}, "samples": [
               {"cycle": 500, "globalinsncount": 500, "cycles": 500, "active_warps": [1, 2],
                "L2_total_cache_accesses": 10, "L2_total_cache_misses": 5},
               {"cycle": 1000, "globalinsncount": 1000, "cycles": 500, "active_warps": [3, 4],
                "L2_total_cache_accesses": 10, "L2_total_cache_misses": 1}]}
    p = tmp_path / "s.json"
    p.write_text(json.dumps(doc))
    assert plot_main([str(p)]) == 0
    names = {f.name for f in tmp_path.glob("*.png")}
    assert {"s_kernel_insn.png", "s_kernel_ipc.png", "s_series_ipc.png", "s_series_active_warps.png",
            "s_series_L2_hit_rate.png", "s_kernel_miss_rate.png", "s_kernel_dram.png"} <= names


def test_every_chart_names_its_axes_and_small_kernels_stay_visible(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gpgpusim.report.plot import plot_stats

    plt.close("all")
    monkeypatch.setattr(plt, "close", lambda fig=None: None)  # keep the figures to inspect them
    doc = {"kernels": [
        {"kernel_launch_uid": 1, "kernel_name": "big", "thread_insn": 5_000_000, "cycles": 10, "gpu_ipc": 1.0,
         "opcode_counts": {"fma": 4_000_000, "ld": 1_000_000}},
        {"kernel_launch_uid": 2, "kernel_name": "small", "thread_insn": 2_000, "cycles": 10, "gpu_ipc": 2.0,
         "opcode_counts": {"add": 1500, "bra": 500}}],
        "totals": {"opcode_counts": {"fma": 4_000_000, "ld": 1_000_000, "add": 1500, "bra": 500}},
        "samples": [{"cycle": 100, "tot_cycle": 100, "globalinsncount": 300, "shaderinsncount": [1, 2]},
                    {"cycle": 200, "tot_cycle": 200, "globalinsncount": 500, "shaderinsncount": [3, 4]}]}
    written = plot_stats(doc, tmp_path, "t")
    figs = [plt.figure(n) for n in plt.get_fignums()]
    assert len(figs) == len(written) == 7
    for fig in figs:
        ax = fig.axes[0]
        assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title(), ax.get_title()
    by_title = {f.axes[0].get_title(): f.axes[0] for f in figs}
    assert by_title["Instructions per kernel"].get_yscale() == "log"        # 5e6 vs 2e3
    assert by_title["Instructions per kernel"].get_xlabel() == "kernel (launch uid: name)"
    mix = by_title["Instruction mix per kernel"]
    heights = [p.get_height() for p in mix.patches]
    # each kernel's stack sums to 100%: the small kernel is as tall as the big one
    assert sum(heights[1::2]) == pytest.approx(100.0) and sum(heights[0::2]) == pytest.approx(100.0)
    ipc = by_title["ipc over time"]
    assert ipc.get_ylabel() == "IPC (instructions / cycle)" and ipc.get_xlabel() == "cycle (whole run)"
    assert list(ipc.lines[0].get_ydata()) == [3.0, 5.0]   # 300 / 100 cycles, then 500 / 100
    monkeypatch.undo()
    plt.close("all")


def test_plot_bad_input(tmp_path, capsys):
    assert plot_main([str(tmp_path / "missing.json")]) == 2
    (tmp_path / "x.json").write_text("[1]")
    assert plot_main([str(tmp_path / "x.json")]) == 2
    assert "not a gpgpusim stats file" in capsys.readouterr().err


def test_sampler_period_and_deltas():
    got = []
    s = Sampler(500, [lambda c, d: got.append((c, d))])
    counters = {"insn": 0, "core": [0, 0]}
    for cycle in range(1, 1201):
        counters["insn"] += 2
        counters["core"][cycle % 2] += 1
        s.tick(cycle, lambda: {"insn": counters["insn"], "core": list(counters["core"])})
    assert [c for c, _ in got] == [500, 1000]
    assert got[0][1] == {"insn": 1000, "core": [250, 250], "tot_cycle": 500}
    assert got[1][1] == {"insn": 1000, "core": [250, 250], "tot_cycle": 1000}


def test_sampler_from_config_feeds_reporter_and_aerialvision(tmp_path):
    """AerialVision gets the running totals (visualizer_printstat writes gpu_sim_insn and the
    cumulative per-shader counts; AerialVision differences them itself); the JSON series gets the
    change per interval."""
    out = tmp_path / "av.log.gz"
    cfg = load_config(overrides=["-visualizer_enabled 1", f"-visualizer_outputfile {out}", "-gpgpu_runtime_stat 100"],
                      env=False)
    rep = Reporter(cfg, lambda s: None)
    s = Sampler.from_config(cfg, rep)
    s.kernel_start(0)
    s.sample(100, {"globalinsncount": 40, "globaltotinsncount": 40, "shaderinsncount": [10, 30]})
    s.sample(200, {"globalinsncount": 100, "globaltotinsncount": 100, "shaderinsncount": [40, 60]})
    s.kernel_start(250)      # second kernel: gpu_sim_cycle and gpu_sim_insn restart
    s.sample(100, {"globalinsncount": 25, "globaltotinsncount": 125, "shaderinsncount": [50, 75]})
    assert rep.samples == [
        {"cycle": 100, "tot_cycle": 100, "globalinsncount": 40, "globaltotinsncount": 40, "shaderinsncount": [10, 30]},
        {"cycle": 200, "tot_cycle": 200, "globalinsncount": 60, "globaltotinsncount": 60, "shaderinsncount": [30, 30]},
        {"cycle": 100, "tot_cycle": 350, "globalinsncount": 25, "globaltotinsncount": 25, "shaderinsncount": [10, 15]}]
    text = gzip.open(out, "rt").read()
    assert text == ("shaderinsncount:  10 30 \nglobalcyclecount: 100\nglobalinsncount: 40\nglobaltotinsncount: 40\n"
                    "shaderinsncount:  40 60 \nglobalcyclecount: 200\nglobalinsncount: 100\nglobaltotinsncount: 100\n"
                    "shaderinsncount:  50 75 \nglobalcyclecount: 100\nglobalinsncount: 25\nglobaltotinsncount: 125\n")


def test_sampler_gauges_are_not_differenced():
    got = []
    s = Sampler(10, [lambda c, d: got.append(d)], gauges={"active_warps"})
    s.sample(10, {"insn": 100, "active_warps": [4, 8], "maxmflatency": 300})
    s.sample(20, {"insn": 150, "active_warps": [2, 8], "maxmflatency": 310})
    assert got[1] == {"insn": 50, "active_warps": [2, 8], "maxmflatency": 310, "tot_cycle": 20}


def test_aerialvision_block_forms():
    w = AerialVisionWriter("unused.gz")
    assert w.block(7, {"shaderwarpdiv": [1, 2], "dramncmd": {0: 5, 1: 6}, "averagemflatency": 300,
                       "globalinsncount": 9}) == (
        "shaderwarpdiv: 1 2 \ndramncmd: 0 5\ndramncmd: 1 6\naveragemflatency: 300\nglobalcyclecount: 7\n"
        "globalinsncount: 9\n")


def test_visualizer_default_name_is_ctime_with_dashes(monkeypatch):
    import time

    from gpgpusim.report.sampler import visualizer_path

    monkeypatch.setattr(time, "asctime", lambda *a: "Mon Nov  3 09:05:01 2025")
    assert visualizer_path(load_config(env=False)) == "gpgpusim_visualizer__Mon-Nov--3-09-05-01-2025.log.gz"


def test_aerialvision_zlevel_validation_and_members(tmp_path):
    import pytest

    with pytest.raises(ValueError, match="visualizer_zlevel"):
        AerialVisionWriter(tmp_path / "x", 12)
    w = AerialVisionWriter(tmp_path / "av.gz", 0)
    w.write(10, {"globalinsncount": 1})
    w.write(20, {"globalinsncount": 2})
    assert gzip.open(tmp_path / "av.gz", "rt").read() == (
        "globalcyclecount: 10\nglobalinsncount: 1\nglobalcyclecount: 20\nglobalinsncount: 2\n")
    w2 = AerialVisionWriter(tmp_path / "av.gz", 6)  # a new run starts the file afresh
    w2.write(5, {})
    assert gzip.open(tmp_path / "av.gz", "rt").read() == "globalcyclecount: 5\n"


def test_plot_names_kernels_marks_their_starts_and_invents_no_zeros(tmp_path, monkeypatch):
    import math

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gpgpusim.report.plot import plot_stats

    plt.close("all")
    monkeypatch.setattr(plt, "close", lambda fig=None: None)  # keep the figures to inspect them
    no_access = {"L1D_total_cache_accesses": 0, "L1D_total_cache_misses": 0,
                 "L2_total_cache_accesses": 0, "L2_total_cache_misses": 0}
    doc = {"kernels": [
        {"kernel_launch_uid": 1, "kernel_name": "_Z9vectorAddPKfS0_Pfi", "thread_insn": 1000, "cycles": 300,
         "gpu_tot_sim_cycle": 300, "gpu_ipc": 3.3,
         "counters": {"L1D_total_cache_accesses": 10, "L1D_total_cache_misses": 5,
                      "L2_total_cache_accesses": 5, "L2_total_cache_misses": 5}},
        {"kernel_launch_uid": 2, "kernel_name": "_Z10reduceTreePKiPii", "thread_insn": 500, "cycles": 200,
         "gpu_tot_sim_cycle": 500, "gpu_ipc": 2.5, "counters": no_access}],
        "totals": {},
        "samples": [{"cycle": 100, "tot_cycle": 100, "L2_total_cache_accesses": 4, "L2_total_cache_misses": 1},
                    {"cycle": 100, "tot_cycle": 400, "L2_total_cache_accesses": 0, "L2_total_cache_misses": 0}]}
    plot_stats(doc, tmp_path, "t")
    by_title = {f.axes[0].get_title(): f.axes[0] for f in (plt.figure(n) for n in plt.get_fignums())}
    ticks = [t.get_text() for t in by_title["Instructions per kernel"].get_xticklabels()]
    assert ticks == ["1:vectorAdd", "2:reduceTree"]
    # the kernel without accesses has no miss-rate bar (NaN), not a 0 % one
    bars = [p.get_height() for p in by_title["Cache miss rate per kernel"].patches]
    assert bars[0] == 0.5 and math.isnan(bars[1]) and bars[2] == 1.0 and math.isnan(bars[3])
    hit = by_title["L2_hit_rate over time"]
    ys = list(hit.lines[0].get_ydata())
    assert ys[0] == 0.75 and math.isnan(ys[1])           # an interval without accesses is a gap
    starts = [ln.get_xdata()[0] for ln in hit.lines[1:]]
    assert starts == [0.0, 300.0]                         # kernel 1 from cycle 0, kernel 2 from 300
    assert [t.get_text() for t in hit.texts] == [" 1:vectorAdd", " 2:reduceTree"]
    monkeypatch.undo()
    plt.close("all")


def test_plot_marks_sampled_launches(tmp_path):
    det = {"mode": "kernel", "status": "detailed", "group": 1}
    proj = {"mode": "kernel", "status": "projected", "group": 1, "cycles_bound": 30, "cycles_bound_rel": 0.03}
    doc = {"kernels": [{"kernel_launch_uid": u, "kernel_name": "k", "thread_insn": 10, "cycles": 1000 + u,
                        "gpu_ipc": 0.01, "sampling": det if u < 3 else proj} for u in range(1, 7)]}
    doc["kernels"].append({"kernel_launch_uid": 7, "kernel_name": "big", "thread_insn": 99, "cycles": 5000,
                           "gpu_ipc": 0.02, "sampling": {"mode": "all", "status": "cta_projected", "group": None,
                                                         "cycles_bound": 90, "cycles_bound_rel": 0.018}})
    p = tmp_path / "s.json"
    p.write_text(json.dumps(doc))
    assert plot_main([str(p), "-d", str(tmp_path / "png")]) == 0
    assert (tmp_path / "png" / "s_kernel_sampling.png").stat().st_size > 1000
    doc2 = {"kernels": [dict(k, sampling=None) for k in doc["kernels"]]}
    for k in doc2["kernels"]:
        del k["sampling"]
    p.write_text(json.dumps(doc2))
    assert plot_main([str(p), "-d", str(tmp_path / "png2")]) == 0
    assert not (tmp_path / "png2" / "s_kernel_sampling.png").exists()
