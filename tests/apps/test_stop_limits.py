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
from app_helpers import APPS_DIR, BIN_DIR, find_nvcc, gpgpusim_cmd, sim_env


@pytest.fixture(scope="module")
def many_launches() -> Path:
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found: apps/many_launches cannot be built")
    proc = subprocess.run(["make", "-s", "-C", str(APPS_DIR), "bin/many_launches", f"NVCC={nvcc}"],
                          capture_output=True, text=True, timeout=600)
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
