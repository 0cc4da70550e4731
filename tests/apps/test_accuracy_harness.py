"""Unit tests of bench/accuracy.py's comparison, summary and speed tables on synthetic rows
(no nvcc, no simulation)."""
from __future__ import annotations

import importlib.util
import sys

import pytest
from app_helpers import REPO

_spec = importlib.util.spec_from_file_location("bench_accuracy", REPO / "bench" / "accuracy.py")
acc = sys.modules.get("bench_accuracy") or importlib.util.module_from_spec(_spec)
if "bench_accuracy" not in sys.modules:
    sys.modules["bench_accuracy"] = acc  # dataclasses resolve annotations through sys.modules
    _spec.loader.exec_module(acc)

DOC = {"kernels": [
    {"kernel_name": "_Z1kPi", "kernel_launch_uid": 1, "cycles": 1100, "thread_insn": 1000, "warp_insn": 40,
     "counters": {"L1D_total_cache_accesses": 100, "L1D_total_cache_misses": 50, "L2_total_cache_accesses": 50,
                  "L2_total_cache_misses": 10, "total_dram_reads": 8, "gpgpu_n_shmem_bkconflict": 0}},
    {"kernel_name": "_Z1kPi", "kernel_launch_uid": 2, "cycles": 1700, "thread_insn": 2000, "warp_insn": 80},
]}


def _ref(program, seq, cycles, insn, warp, **cols):
    row = {"program": program, "kernel_seq": str(seq), "kernel_name": "_Z1kPi", "gpu_sim_cycle": str(cycles),
           "gpu_sim_insn": str(insn), "warp_insn_kernel": str(warp), "run_wall_s": "10.0"}
    row.update({k: str(v) for k, v in cols.items()})
    return row


REF = [
    _ref("p", 1, 1000, 1000, 40, gpu_ipc="1.0000", l1d_accesses_kernel=100, l1d_misses_kernel=40,
         l1d_miss_rate_kernel="0.4000", l2_accesses_kernel=50, l2_misses_kernel=10, l2_miss_rate_kernel="0.2000",
         dram_reads_kernel=10, dram_writes_kernel=0, shmem_bkconflict_kernel=0),
    _ref("p", 2, 2000, 2000, 81),
    _ref("q", 1, 500, 64, 2),
]


@pytest.fixture()
def table():
    return acc.compare(acc.ours_rows("p", DOC), REF)


def test_ours_rows_take_figures_from_json():
    rows = acc.ours_rows("p", DOC)
    assert [(r["kernel_seq"], r["cycles"], r["l1d_miss_rate"], r["dram_reads"]) for r in rows] == [
        (1, 1100.0, 0.5, 8.0), (2, 1700.0, None, None)]
    assert rows[0]["ipc"] == pytest.approx(1000 / 1100)


def test_compare_pairs_by_program_and_launch(table):
    assert [(r["program"], r["kernel_seq"], r["kernel_name"]) for r in table] == [
        ("p", 1, "_Z1kPi"), ("p", 2, "_Z1kPi"), ("q", 1, None)]
    m1 = table[0]["metrics"]
    assert m1["cycles"] == {"ours": 1100.0, "ref": 1000.0, "err": pytest.approx(0.10)}
    assert m1["thread_insn"]["err"] == 0.0
    assert m1["ipc"]["err"] == pytest.approx(1000 / 1100 - 1.0)
    # miss rates: from the exact counts, error = absolute difference
    assert m1["l1d_miss_rate"] == {"ours": 0.5, "ref": 0.4, "err": pytest.approx(0.1)}
    assert m1["l2_miss_rate"]["err"] == pytest.approx(0.0)
    assert m1["dram_reads"]["err"] == pytest.approx(-0.2)
    assert m1["dram_writes"] == {"ours": None, "ref": 0.0, "err": None}
    assert table[1]["metrics"]["warp_insn"]["err"] == pytest.approx(-1 / 81)
    assert table[1]["metrics"]["l1d_accesses"] == {"ours": None, "ref": None, "err": None}
    assert table[2]["metrics"]["cycles"] == {"ours": None, "ref": 500.0, "err": None}


def test_summary_exact(table):
    s = acc.summary(table)
    assert s["kernels"] == 3 and s["cycles_n"] == 2
    assert s["cycles_mae"] == pytest.approx((0.10 + 0.15) / 2)
    assert s["worst_kernel"] == "p#2" and s["worst_cycles_error"] == pytest.approx(-0.15)
    assert s["cycles_over_25pct"] == 0
    assert s["cycles_pearson"] == pytest.approx(1.0)
    assert s["cycles_aggregate_error"] == pytest.approx(-200 / 3000)
    assert s["thread_insn_exact"] == [2, 2] and s["warp_insn_exact"] == [1, 2]
    assert s["l1d_miss_rate_max_abs_diff"] == pytest.approx(0.1) and s["l1d_miss_rate_max_abs_diff_kernel"] == "p#1"
    assert s["l2_miss_rate_max_abs_diff"] == pytest.approx(0.0)
    assert s["mae"]["warp_insn"] == pytest.approx(0.5 / 81)
    assert s["mae"]["stall_dramfull"] is None and s["mae"]["shmem_bkconflict"] == 0.0


def test_summary_of_functional_rows_is_na():
    doc = {"kernels": [{"kernel_name": "_Z1kPi", "kernel_launch_uid": 1, "thread_insn": 1000, "warp_insn": 40}]}
    s = acc.summary(acc.compare(acc.ours_rows("p", doc), REF[:1]))
    assert s["cycles_n"] == 0 and s["cycles_mae"] is None and s["worst_kernel"] is None
    assert s["cycles_pearson"] is None and s["l1d_miss_rate_max_abs_diff"] is None


def test_speed_against_reference_wall():
    (s,) = acc.speed([{"program": "p", "wall_s": 2.0, "cycles": 2800, "thread_insn": 3000}], REF)
    assert s["cycles_per_s"] == pytest.approx(1400.0) and s["insn_per_s"] == pytest.approx(1500.0)
    assert s["ref_wall_s"] == 10.0 and s["speedup"] == pytest.approx(5.0)
    assert s["ref_cycles_per_s"] == pytest.approx(300.0) and s["ref_insn_per_s"] == pytest.approx(300.0)
    (f,) = acc.speed([{"program": "q", "wall_s": 1.0, "cycles": None, "thread_insn": 64}], REF)
    assert f["cycles_per_s"] is None and f["speedup"] == pytest.approx(10.0)


def test_render_marks_missing_figures(table):
    speeds = acc.speed([{"program": "p", "wall_s": 2.0, "cycles": 2800, "thread_insn": 3000, "result": "PASS"}], REF)
    text = acc.render(table, acc.summary(table), speeds, "synthetic")
    row = next(ln for ln in text.splitlines() if ln.startswith("| p | 1 | k |"))
    assert "| 1,100 | 1,000 | +10.00% | 1,000 | 1,000 | = |" in row
    assert "| q | 1 | k (not run) | n/a | 500 | n/a |" in text
    assert "| 0.5000 | 0.4000 | +0.1000 |" in text
    assert "mean absolute error 12.50%, worst kernel p#2 (-15.00%)" in text
    assert "| p | PASS | 2.00 | 2,800 | 1,400 | 1,500 | 10.00 | 300 | 300 | 5.00x |" in text


def test_run_dir_copies_config_and_appends_lat0(tmp_path):
    cfg_dir = tmp_path / "SM_X"
    cfg_dir.mkdir()
    (cfg_dir / "gpgpusim.config").write_text("-gpgpu_kernel_launch_latency 5000\n")
    (cfg_dir / "net.icnt").write_text("topology = fly;\n")
    (cfg_dir / "README").write_text("not copied\n")
    cfg = acc.prepare_run_dir(tmp_path / "run", cfg_dir, lat0=True)
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["gpgpusim.config", "net.icnt"]
    assert cfg.read_text().splitlines()[-1] == "-gpgpu_kernel_launch_latency 0"
    cfg = acc.prepare_run_dir(tmp_path / "run", cfg_dir, lat0=False)
    assert cfg.read_text() == "-gpgpu_kernel_launch_latency 5000\n"


def test_read_outcome_without_a_run(tmp_path):
    o = acc.read_outcome("p", tmp_path, rerun=True)
    assert not o.passed and o.doc is None and o.wall_s is None
    assert o.totals()["cycles"] is None
