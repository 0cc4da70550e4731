"""Golden printer test: counters read back from C++ GPGPU-Sim 4.2 logs, fed to our Reporter,
must reproduce each log's end-of-kernel block line for line (format, order, spelling).

The counters are read back out of each log (``report_golden.py``); the whole block, from
``kernel_name`` to ``gpgpu_silicon_slowdown``, must come out identical.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from gpgpusim.options import load_config
from gpgpusim.report import Reporter
from gpgpusim.report.data import KernelStats

from report_golden import counters_from_block, kernel_block, kernel_figures
import os

# ../shared beside the checkout (the reference data); GPGPUSIM_SHARED overrides.
SHARED_DIR = os.environ.get("GPGPUSIM_SHARED") or str(Path(__file__).resolve().parents[3] / "shared")

REF = Path(SHARED_DIR, "reference/gpgpusim-output")
pytestmark = pytest.mark.skipif(not REF.is_dir(), reason="reference data not available")

# (log, config, last kernel to compare); earlier kernels are fed first so the cumulative
# (gpu_tot_*, cache totals) and per-kernel (snapshot-and-subtract) views are both exercised
CASES = [("vectoradd_qv100.log", "SM7_QV100", 1), ("stream_qv100.log", "SM7_QV100", 2),
         ("reduce_qv100.log", "SM7_QV100", 2), ("bank_conflict_qv100_lat0.log", "SM7_QV100", 3),
         ("dp_local_qv100_lat0.log", "SM7_QV100", 2), ("matmul_qv100_lat0.log", "SM7_QV100", 1),
         ("atomics_rtx3070.log", "SM86_RTX3070", 2), ("fma_loop_rtx3070.log", "SM86_RTX3070", 2),
         ("strided_rtx3070.log", "SM86_RTX3070", 2)]


def _expected(block: list[str]) -> list[str]:
    return block


@pytest.mark.parametrize("log,gpu,uid", CASES)
def test_end_of_kernel_block_matches_log(log, gpu, uid):
    text = (REF / log).read_text()
    overrides = ["-gpgpu_kernel_launch_latency 0"] if "lat0" in log else []
    cfg = load_config(gpu=gpu, overrides=overrides, env=False)
    clock = [0.0]
    lines: list[str] = []
    rep = Reporter(cfg, lines.append, clock=lambda: clock[0])
    prev_cta = prev_w = 0
    counters = None
    for k in range(1, uid + 1):
        block = kernel_block(text, k)
        fig = kernel_figures(block)
        bl_per_cmd = int(cfg["gpgpu_dram_burst_length"]) // int(cfg["dram_data_command_freq_ratio"])
        counters = counters_from_block(block, cfg.core_clock_mhz * 1e6, counters, bl_per_cmd)
        lines.clear()
        clock[0] = float(fig["secs"])
        rep.kernel_end(KernelStats(fig["name"], k, stream_id=fig["stream"], thread_insn=fig["insn"],
                                   warp_insn=fig["w_icount"] - prev_w, ctas=fig["tot_cta"] - prev_cta,
                                   cycles=fig["cycles"], counters=counters))
        prev_cta, prev_w = fig["tot_cta"], fig["w_icount"]
    expected = _expected(block)
    # per-bank row-locality ratios are read back as reduced fractions, so the summed
    # "average row locality = a/b" line is not recoverable from a log; it is tested on its own
    expected = [x for x in expected if not x.startswith("average row locality")]
    lines = [x for x in lines if not x.startswith("average row locality")]
    diff = list(difflib.unified_diff(expected, lines, lineterm="", n=0))
    assert not diff, "\n".join(diff[:40])
