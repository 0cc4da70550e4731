"""A stop limit ends the application as GPGPU-Sim's ``exit(1)`` does (C011, C062):
``apps/many_launches`` (2,000 launches of a one-CTA kernel, about 5,436 cycles each on
SM7_QV100, most of them the 5,000-cycle launch latency) under ``-gpgpu_max_cycle 20000`` stops
inside its fourth kernel: the statistics of that kernel are printed with the cycles up to the
limit, then GPGPU-Sim's two closing lines and the end-of-run report; the exit status is 1, the
application's own checks never run, and the JSON records the limit."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from app_helpers import BIN_DIR, find_nvcc, gpgpusim_cmd, make_apps, sim_env


@pytest.fixture(scope="module")
def many_launches() -> Path:
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found: apps/many_launches cannot be built")
    proc = make_apps("-s", "bin/many_launches", f"NVCC={nvcc}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return BIN_DIR / "many_launches"


def test_max_cycle_ends_the_program_with_status_1(many_launches, tmp_path):
    proc = subprocess.run(gpgpusim_cmd() + ["run", "--gpu", "SM7_QV100", "--set=-gpgpu_max_cycle=20000",
                                            "-o", str(tmp_path / "out.json"), "--", str(many_launches)],
                          capture_output=True, text=True, cwd=tmp_path, env=sim_env(), timeout=600)
    out = proc.stdout
    assert proc.returncode == 1, out[-3000:] + proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and "many_launches: " not in out
    tot = [int(v) for v in re.findall(r"^gpu_tot_sim_cycle = (\d+)$", out, re.M)]
    assert len(tot) == 4 and tot[-1] == 20000 and tot[:3] == sorted(tot[:3]) and tot[2] < 20000
    lines = out.splitlines()
    i = lines.index("GPGPU-Sim: *** simulation thread exiting ***")
    assert lines[i + 1] == "GPGPU-Sim: ** break due to reaching the maximum cycles (or instructions) **"
    assert "GPGPU-Sim: *** exit detected ***" in lines[i + 2:]
    run = json.loads((tmp_path / "out.json").read_text())["run"]
    assert run["limit"] == {"option": "-gpgpu_max_cycle", "gpu_tot_sim_cycle": 20000,
                            "gpu_tot_sim_insn": 3 * 704, "gpu_tot_issued_cta": 3}


def _functional(app: Path, tmp_path: Path, *opts: str) -> tuple[subprocess.CompletedProcess, dict]:
    proc = subprocess.run(gpgpusim_cmd() + ["run", "--functional", *(f"--set={o}" for o in opts),
                                            "-o", str(tmp_path / "out.json"), "--", str(app)],
                          capture_output=True, text=True, cwd=tmp_path, env=sim_env(), timeout=600)
    return proc, json.loads((tmp_path / "out.json").read_text())


def test_functional_max_insn_stops_inside_a_kernel(many_launches, tmp_path):
    # 704 thread instructions per kernel: the third kernel reaches 2000 at its step that brings
    # the run to 2048 (each step runs the CTA's 2 warps); it stops there, partly executed
    proc, doc = _functional(many_launches, tmp_path, "-gpgpu_max_insn=2000")
    out = proc.stdout
    assert proc.returncode == 1, out[-3000:] + proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and "many_launches: " not in out
    done = re.findall(r"^GPGPU-Sim: Done functional simulation \((\d+) instructions simulated\)\.$", out, re.M)
    assert done == ["704", "1408", "2048"]
    lines = out.splitlines()
    i = lines.index("GPGPU-Sim: *** simulation thread exiting ***")
    assert lines[i + 1] == "GPGPU-Sim: ** break due to reaching the maximum cycles (or instructions) **"
    assert doc["run"]["limit"] == {"option": "-gpgpu_max_insn", "gpu_tot_sim_insn": 2048, "gpu_tot_issued_cta": 3}
    assert [k["thread_insn"] for k in doc["kernels"]] == [704, 704, 640]


def test_functional_max_cta_stops_before_the_next_kernel(many_launches, tmp_path):
    proc, doc = _functional(many_launches, tmp_path, "-gpgpu_max_cta=3")
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert doc["run"]["limit"] == {"option": "-gpgpu_max_cta", "gpu_tot_sim_insn": 3 * 704, "gpu_tot_issued_cta": 3}
    assert [(k["thread_insn"], k["ctas"]) for k in doc["kernels"]] == [(704, 1)] * 3 + [(0, 0)]


def test_functional_step_limit_is_an_option(tmp_path):
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found: apps/spin_forever cannot be built")
    make_apps("-s", "bin/spin_forever", f"NVCC={nvcc}").check_returncode()
    proc = subprocess.run(gpgpusim_cmd() + ["run", "--functional", "--set=-functional_step_limit=1000", "--",
                                            str(BIN_DIR / "spin_forever"), "forever"],
                          capture_output=True, text=True, cwd=tmp_path, env=sim_env(), timeout=600)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert ("cudaErrorLaunchTimeout: _Z4spinPViiPi: functional watchdog: more than 1000 issue steps (infinite "
            "loop? raise -functional_step_limit); 1 warps still running, at line 74 (pc 21)") in proc.stderr


def test_functional_max_cta_stops_inside_a_kernel(tmp_path):
    # apps/vector_add: one kernel of 40 CTAs x 128 threads; the first 10 CTAs run whole
    # (21 thread instructions per thread, 22 per warp), the other 30 never start
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found: apps/vector_add cannot be built")
    make_apps("-s", "bin/vector_add", f"NVCC={nvcc}").check_returncode()
    proc, doc = _functional(BIN_DIR / "vector_add", tmp_path, "-gpgpu_max_cta=10")
    assert proc.returncode == 1 and "vector_add: " not in proc.stdout, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert doc["run"]["limit"] == {"option": "-gpgpu_max_cta", "gpu_tot_sim_insn": 10 * 128 * 21,
                                   "gpu_tot_issued_cta": 10}
    [k] = doc["kernels"]
    assert (k["ctas"], k["thread_insn"], k["warp_insn"], k["stopped"]) == (10, 26880, 10 * 4 * 22, "-gpgpu_max_cta")
