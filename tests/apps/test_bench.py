"""Unit tests of bench/run_reference.py's parsing and reference loading (no simulation)."""
from __future__ import annotations

import importlib.util
import sys

import pytest
from app_helpers import REPO

_spec = importlib.util.spec_from_file_location("run_reference", REPO / "bench" / "run_reference.py")
rr = sys.modules.get("run_reference") or importlib.util.module_from_spec(_spec)
if "run_reference" not in sys.modules:
    sys.modules["run_reference"] = rr  # dataclasses resolve annotations through sys.modules
    _spec.loader.exec_module(rr)


def test_kernels_from_functional_text():
    text = [
        "GPGPU-Sim PTX: pushing kernel '_Z3fooPi' to stream 0, gridDim= (2,1,1) blockDim = (32,1,1) ",
        "GPGPU-Sim: Done functional simulation (640 instructions simulated).",
        "GPGPU-Sim PTX: pushing kernel '_Z3barPi' to stream 0, gridDim= (1,1,1) blockDim = (32,1,1) ",
        "GPGPU-Sim: Done functional simulation (1000 instructions simulated).",
    ]
    ks = rr._kernels_from_text(text)
    assert [(k.name, k.thread_insn, k.warp_insn) for k in ks] == [("_Z3fooPi", 640, None), ("_Z3barPi", 360, None)]


def test_kernels_from_performance_text():
    text = [
        "GPGPU-Sim PTX: pushing kernel 'k1' to stream 0, gridDim= (1,1,1) blockDim = (32,1,1) ",
        "gpu_sim_cycle = 6109", "gpu_sim_insn = 1376256", "gpgpu_n_tot_w_icount = 45056",
        "GPGPU-Sim PTX: pushing kernel 'k2' to stream 0, gridDim= (1,1,1) blockDim = (32,1,1) ",
        "gpu_sim_cycle = 10", "gpu_sim_insn = 64", "gpgpu_n_tot_w_icount = 45058",
    ]
    ks = rr._kernels_from_text(text)
    assert [(k.thread_insn, k.warp_insn, k.cycles) for k in ks] == [(1376256, 45056, 6109), (64, 2, 10)]


@pytest.mark.skipif(not (rr.REFERENCE / "gpgpusim-reference.csv").exists(), reason="reference CSV not present")
def test_reference_rows_in_launch_order():
    ref = rr.load_reference()
    assert [r["kernel_name"] for r in ref["reduce"]] == ["_Z9reduceSumPKiPii", "_Z9reduceSumPKiPii"]
    assert [int(r["gpu_sim_insn"]) for r in ref["reduce"]] == [10747392, 20991]
    assert int(ref["vectoradd"][0]["warp_insn_kernel"]) == 45056


def test_render_marks_equal_and_different_counts():
    r = rr.RunResult("vectoradd", "functional", 0, True, 2.0, 0.5,
                     [rr.KernelResult("_Z6vecAddPKfS0_Pfi", 1376256, 45000)])
    ref = {"vectoradd": [{"kernel_name": "_Z6vecAddPKfS0_Pfi", "gpu_sim_insn": "1376256",
                          "warp_insn_kernel": "45056", "gpu_sim_cycle": "6109", "run_wall_s": "5.03"}]}
    table = rr.render([r], ref)
    row = next(ln for ln in table.splitlines() if ln.startswith("| vectoradd | functional | 1 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[4:10] == ["1,376,256", "1,376,256", "=", "45,000", "45,056", "-0.12%"]
