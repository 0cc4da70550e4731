"""Unit tests of bench/sampling.py's comparison of a full and a sampled run (no simulation)."""
from __future__ import annotations

import importlib.util
import json
import sys

from app_helpers import REPO

_spec = importlib.util.spec_from_file_location("bench_sampling", REPO / "bench" / "sampling.py")
bs = sys.modules.get("bench_sampling") or importlib.util.module_from_spec(_spec)
if "bench_sampling" not in sys.modules:
    sys.modules["bench_sampling"] = bs
    _spec.loader.exec_module(bs)


def _write(d, kernels, totals, wall, out):
    d.mkdir(parents=True)
    (d / "stats.json").write_text(json.dumps({"kernels": kernels, "totals": totals}))
    (d / "run.json").write_text(json.dumps({"rc": 0, "wall_s": wall, "cpu_s": wall / 2}))
    (d / "stdout.txt").write_text("GPGPU-Sim: noise\n" + out)


def test_compare_full_and_sampled(tmp_path, monkeypatch):
    monkeypatch.setattr(bs, "BUILD", tmp_path)
    k = [{"kernel_launch_uid": u, "kernel_name": "k", "cycles": c} for u, c in ((1, 1000), (2, 1000), (3, 1100))]
    ctr = {"L1D_total_cache_accesses": 100, "L1D_total_cache_misses": 50, "L2_total_cache_accesses": 50,
           "L2_total_cache_misses": 10, "total_dram_reads": 10}
    tot = {"gpu_tot_sim_cycle": 3100, "gpu_tot_sim_insn": 3000, "gpgpu_n_tot_w_icount": 100, "counters": ctr}
    _write(tmp_path / "p" / "full", k, tot, 100.0, "checksum 7\n")
    det = {"status": "detailed", "group": 1}
    proj = {"status": "projected", "group": 1, "cycles_bound": 50, "cycles_bound_rel": 0.05}
    ks = [dict(k[0], sampling=det), dict(k[1], sampling=det), dict(k[2], cycles=1000, sampling=proj)]
    tot2 = dict(tot, gpu_tot_sim_cycle=3000, sampling={"cycles_bound_rel": 50 / 3000},
                counters=dict(ctr, total_dram_reads=12, L2_total_cache_misses=15))
    _write(tmp_path / "p" / "sampled", ks, tot2, 10.0, "checksum 7\n")
    s, rows = bs.compare("p")
    assert [r["status"] for r in rows] == ["detailed", "detailed", "projected"]
    assert rows[2]["err"] == (1000 - 1100) / 1100 and rows[2]["covered"] is False     # 100 > 50
    assert s["cycles_err"] == (3000 - 3100) / 3100 and s["projected"] == 1 and s["covered"] == 0
    assert s["insn_equal"] and s["output_equal"] and s["speedup"] == 10.0
    assert s["l1d_miss_diff"] == 0 and s["l2_miss_diff"] == 15 / 50 - 10 / 50 and s["dram_reads_err"] == 0.2
    text = bs.table([(s, rows)], kernels=True)
    assert "| p | 3 (1) | 3,100 | 3,000 | -3.226 % | +-1.67 % | 9.09 % | 0/1 | yes | yes |" in text
    assert "stated bound covers the real error on 0/1 projected launches" in text


def test_runs_of_another_gpu_kept_apart(tmp_path, monkeypatch):
    monkeypatch.setattr(bs, "BUILD", tmp_path)
    assert bs.run_dir("p", "sampled-x", "SM2_GTX480") == tmp_path / "p" / "SM2_GTX480" / "sampled-x"
    assert bs.run_dir("p", "full") == tmp_path / "p" / "full"
    assert bs.run_dir("p", "full", ptxplus=True) == tmp_path / "p" / "ptxplus" / "full"
    assert bs.run_dir("p", "sampled", "SM2_GTX480", True) == tmp_path / "p" / "SM2_GTX480" / "ptxplus" / "sampled"
    k = [{"kernel_launch_uid": 1, "kernel_name": "k", "cycles": 900}]
    tot = {"gpu_tot_sim_cycle": 900, "gpu_tot_sim_insn": 10, "gpgpu_n_tot_w_icount": 1, "counters": {}}
    _write(tmp_path / "p" / "SM2_GTX480" / "full", k, tot, 4.0, "")
    _write(tmp_path / "p" / "SM2_GTX480" / "sampled", [dict(k[0], sampling={"status": "detailed"})], tot, 2.0, "")
    assert bs.compare("p") is None                       # nothing at the default GPU's place
    assert bs.compare("p", gpu="SM2_GTX480", ptxplus=True) is None     # nor at its PTXPlus place
    s, rows = bs.compare("p", gpu="SM2_GTX480")
    assert s["cycles_err"] == 0 and s["speedup"] == 2.0 and rows[0]["status"] == "detailed"
