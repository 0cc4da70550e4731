"""End-to-end accuracy on the C++ GPGPU-Sim reference programs
(``../shared/reference/programs``): each is built as the reference was
(``nvcc -O2 -cudart shared``), run unmodified under ``gpgpusim run --functional``, must print
PASS, and every kernel's thread and warp instruction counts must equal GPGPU-Sim 4.2's
``gpu_sim_insn`` / ``gpgpu_n_tot_w_icount`` in ``gpgpusim-reference.csv`` (SM7_QV100).
Uses ``bench/run_reference.py`` for building, running and reading the CSV.
"""
from __future__ import annotations

import importlib.util
import sys

import pytest
from app_helpers import REPO, find_nvcc

_spec = importlib.util.spec_from_file_location("run_reference", REPO / "bench" / "run_reference.py")
rr = sys.modules.get("run_reference") or importlib.util.module_from_spec(_spec)
if "run_reference" not in sys.modules:
    sys.modules["run_reference"] = rr  # dataclasses resolve annotations through sys.modules
    _spec.loader.exec_module(rr)

PROGRAMS = sorted(p.stem for p in (rr.REFERENCE / "programs").glob("*.cu"))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not PROGRAMS, reason=f"no reference programs under {rr.REFERENCE}"),
]


@pytest.fixture(scope="module")
def reference():
    return rr.load_reference()


@pytest.mark.parametrize("program", PROGRAMS)
def test_reference_program_counts(program, reference, tmp_path_factory):
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found: the reference programs cannot be built")
    exe = rr.build(program, nvcc, rr.RESULTS / "bin")
    run = rr.run_program(program, exe, "functional", timeout_s=600, json_flag="-o")
    assert run.passed, f"{program}: exit {run.returncode}, {run.error}"
    got = [(k.name, k.thread_insn, k.warp_insn) for k in run.kernels]
    want = [(r["kernel_name"], int(r["gpu_sim_insn"]), int(r["warp_insn_kernel"])) for r in reference[program]]
    assert got == want
