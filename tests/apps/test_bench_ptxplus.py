"""Unit tests of bench/ptxplus.py's run verdicts, kernel pairing and report (no simulation)."""
from __future__ import annotations

import importlib.util
import json
import sys

import pytest
from app_helpers import REPO

_spec = importlib.util.spec_from_file_location("bench_ptxplus", REPO / "bench" / "ptxplus.py")
bp = sys.modules.get("bench_ptxplus") or importlib.util.module_from_spec(_spec)
if "bench_ptxplus" not in sys.modules:
    sys.modules["bench_ptxplus"] = bp
    _spec.loader.exec_module(bp)

OK = {"rc": 0, "timed_out": False, "wall_s": 2.0, "cpu_s": 1.5}


def _k(uid, cycles, warp, thread=1000, l1=10, l2=5, name="_Z3addPi"):
    return {"kernel_name": name, "kernel_launch_uid": uid, "cycles": cycles, "warp_insn": warp,
            "thread_insn": thread, "counters": {"L1D_total_cache_accesses": l1, "L2_total_cache_accesses": l2}}


def _doc(isa, *kernels):
    return {"mode": "performance", "isa": isa, "kernels": list(kernels)}


def test_outcome_passes_on_exit_0_pass_line_and_isa():
    o = bp.outcome("ptxplus", OK, "result: PASS\n", "", _doc("ptxplus", _k(1, 100, 10)))
    assert o["passed"] and o["error"] == "" and o["cpu_s"] == 1.5 and len(o["kernels"]) == 1


@pytest.mark.parametrize("mode,meta,stdout,stderr,doc,error", [
    ("ptx", None, "", "", None, "not run"),
    ("ptx", dict(OK, rc=None, timed_out=True, wall_s=61.2), "", "", None, "killed after 61 s (timeout)"),
    ("ptxplus", dict(OK, rc=1), "", "noise\nGPGPU-Sim PTXPlus: opcode FOO not supported; kernel k\nmore error\n",
     None, "GPGPU-Sim PTXPlus: opcode FOO not supported; kernel k"),
    ("ptx", dict(OK, rc=3), "", "", None, "exit status 3"),
    ("ptx", OK, "mismatch at 3: FAIL\n", "", _doc("ptx"), "mismatch at 3: FAIL"),
    ("ptx", OK, "done\n", "", _doc("ptx"), "no PASS line"),
    ("ptx", OK, "RESERVATION_FAIL_x PASS\n", "", None, "no stats.json"),   # word match only
    ("ptxplus", OK, "PASS\n", "", _doc("ptx"), "stats.json isa is 'ptx': ran as PTX"),
    ("ptxplus", OK, "PASS\n", "GPGPU-Sim PTXPlus: kernel k runs as PTX\n", _doc("ptxplus"),
     "GPGPU-Sim PTXPlus: kernel k runs as PTX"),
])
def test_outcome_failures_name_the_first_error(mode, meta, stdout, stderr, doc, error):
    o = bp.outcome(mode, meta, stdout, stderr, doc)
    assert not o["passed"] and o["error"] == error


def test_kernel_rows_pair_by_launch_and_ratio():
    rows = bp.kernel_rows("p", [_k(1, 100, 10), _k(2, 200, 20, l2=0)], [_k(1, 50, 15), _k(3, 10, 1)])
    assert [r["seq"] for r in rows] == [1, 2, 3]
    m = rows[0]["metrics"]
    assert m["cycles"] == {"ptx": 100.0, "ptxplus": 50.0, "ratio": 0.5}
    assert m["warp_insn"]["ratio"] == 1.5 and m["ipc"]["ptx"] == 10.0 and m["ipc"]["ratio"] == 2.0
    assert rows[1]["metrics"]["cycles"] == {"ptx": 200.0, "ptxplus": None, "ratio": None}
    assert rows[2]["metrics"]["l2_accesses"] == {"ptx": None, "ptxplus": 5.0, "ratio": None}


def _res(cpu_a, cpu_b, pass_b=True):
    a = bp.outcome("ptx", dict(OK, cpu_s=cpu_a), "PASS\n", "", _doc("ptx", _k(1, 100, 10)))
    b = bp.outcome("ptxplus", dict(OK, cpu_s=cpu_b), "PASS\n" if pass_b else "FAIL | x\n",
                   "GPGPU-Sim: NOTE: kernel _Z3addPi runs on the live instruction feed (each ...): why\n",
                   _doc("ptxplus", _k(1, 120, 12)))
    assert b["live"] == ["_Z3addPi"]
    return {"ptx": a, "ptxplus": b}


def test_speed_over_programs_passing_both_ways():
    s = bp.speed({"a": _res(10.0, 20.0), "b": _res(10.0, 5.0), "c": _res(1.0, 100.0, pass_b=False)})
    assert s["programs"] == 2 and s["cpu_ptx"] == 20.0 and s["cpu_ptxplus"] == 25.0
    assert s["total_ratio"] == 1.25 and s["geomean_ratio"] == pytest.approx(1.0)


def test_render_tables(monkeypatch):
    monkeypatch.setattr(bp, "short_name", lambda n: n.upper())
    text = bp.render("SM7_QV100", {"a": _res(10.0, 20.0), "c": _res(1.0, 3.0, pass_b=False)}, "python3 x")
    lines = text.splitlines()
    assert lines[0] == "# PTX vs PTXPlus, performance mode, SM7_QV100" and "`python3 x`" in lines
    assert "| a | 1 | _Z3ADDPI | trace/live | 10 | 12 | 1.20x | 100 | 120 | 1.20x | 10.00 | 8.33 | 0.83x |" in text
    assert "| a | PASS | PASS | 10.0 | 20.0 | 2.00x |" in lines
    assert "| c | PASS | FAIL: FAIL / x | 1.0 | 3.0 | 3.00x |" in lines       # no stray table cell
    assert lines[-1].startswith("PTXPlus/PTX CPU time over the 1 program(s) passing both ways: total 2.00x")


def test_load_reads_a_run_directory(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps(OK))
    (tmp_path / "stdout.txt").write_text("PASS\n")
    (tmp_path / "stats.json").write_text(json.dumps(_doc("ptx", _k(1, 100, 10))))
    assert bp.load(tmp_path, "ptx")["passed"]
    (tmp_path / "stats.json").write_text("{trunc")
    assert bp.load(tmp_path, "ptx")["error"] == "no stats.json"
