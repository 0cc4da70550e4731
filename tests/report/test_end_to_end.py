"""End to end: an unmodified CUDA binary run functionally through ``gpgpusim run -o`` prints
GPGPU-Sim's functional-mode lines with our instruction counts, and the JSON, the PTX line-stats
file and ``gpgpusim plot`` agree with them (checklist C195-C199)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)
LIB = ROOT / "gpgpusim" / "_lib" / "libcudart.so.13"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(NVCC is None, reason="nvcc not available"),
              pytest.mark.skipif(not LIB.exists(), reason="shim libcudart.so.13 not built")]

SRC = r"""
#include <cstdio>
#include <cuda_runtime.h>
__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i];
}
__global__ void addone(int *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 1;
}
int main() {
  const int n = 1000;
  float h[n]; int k[n];
  for (int i = 0; i < n; ++i) { h[i] = i; k[i] = i; }
  float *d; int *e;
  cudaMalloc(&d, n * sizeof(float)); cudaMalloc(&e, n * sizeof(int));
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemcpy(e, k, sizeof k, cudaMemcpyHostToDevice);
  scale<<<4, 256>>>(d, 2.0f, n);
  addone<<<8, 128>>>(e, n);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(k, e, sizeof k, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += (h[i] != 2.0f * i) + (k[i] != i + 1);
  printf("report_e2e: %s\n", bad ? "FAIL" : "PASS");
  return bad != 0;
}
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("e2e")
    (d / "app.cu").write_text(SRC)
    subprocess.run([NVCC, "-cudart", "shared", "app.cu", "-o", "app"], cwd=d, check=True,
                   capture_output=True, timeout=300)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("GPGPUSIM_OPTIONS", None)
    p = subprocess.run([sys.executable, "-m", "gpgpusim.cli", "run", "--functional", "-o", "stats.json",
                        "--set", "-ptx_line_stats_filename=lines.txt", "--", "./app"],
                       cwd=d, env=env, capture_output=True, text=True, timeout=600)
    return d, p


def test_functional_lines_json_and_line_stats_agree(run):
    d, p = run
    assert p.returncode == 0, p.stderr[-2000:]
    out = p.stdout.splitlines()
    assert "report_e2e: PASS" in out
    assert "GPGPU-Sim PTX: simulation mode 1 (can change with PTX_SIM_MODE_FUNC environment variable:" in out
    done = [int(m.group(1)) for ln in out
            if (m := re.fullmatch(r"GPGPU-Sim: Done functional simulation \((\d+) instructions simulated\)\.", ln))]
    doc = json.loads((d / "stats.json").read_text())
    kernels = doc["kernels"]
    assert [k["kernel_name"] for k in kernels] == ["_Z5scalePffi", "_Z6addonePii"]
    assert [k["grid"] for k in kernels] == [[4, 1, 1], [8, 1, 1]]
    # cumulative counts, as GPGPU-Sim's functional-mode g_ptx_sim_num_insn (predicated-off lanes too)
    assert done == [kernels[0]["functional_insn"], kernels[0]["functional_insn"] + kernels[1]["functional_insn"]]
    assert all(k["functional_insn"] >= k["thread_insn"] for k in kernels)
    thread_total = kernels[0]["thread_insn"] + kernels[1]["thread_insn"]
    assert doc["totals"]["gpu_tot_sim_insn"] == thread_total
    assert sum(doc["totals"]["opcode_counts"].values()) == thread_total
    assert doc["mode"] == "functional" and doc["config"]["gpgpu_ptx_sim_mode"] == "1"
    assert out[-1] == "GPGPU-Sim: *** exit detected ***"


def test_line_stats_sum_to_the_functional_count(run):
    """GPGPU-Sim counts line executions next to g_ptx_sim_num_insn (predicated-off lanes too)."""
    d, _ = run
    doc = json.loads((d / "stats.json").read_text())
    total = sum(int(ln.split(" : ")[1].split()[0]) for ln in (d / "lines.txt").read_text().splitlines()[1:])
    assert total == sum(k["functional_insn"] for k in doc["kernels"])


def test_plot_from_the_run(run):
    from gpgpusim.report.plot import main as plot_main

    d, _ = run
    assert plot_main([str(d / "stats.json"), "-d", str(d / "png")]) == 0
    pngs = sorted(p.name for p in (d / "png").iterdir())
    assert pngs == ["stats_insn_mix.png", "stats_insn_mix_per_kernel.png", "stats_kernel_insn.png"]
    assert all((d / "png" / n).stat().st_size > 1000 for n in pngs)
