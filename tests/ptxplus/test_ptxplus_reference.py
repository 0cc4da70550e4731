"""The C++ GPGPU-Sim reference programs (``../shared/reference/programs``) verify in PTXPlus
mode: built as the reference was (default arch: sm_75) on SM7_QV100, and with ``-arch=sm_86``
on SM86_RTX3070 (issue 27).  Instruction counts are not compared: PTXPlus counts its own
lines (README, "PTXPlus mode")."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from cuobjdump_tools.sass import INSTALL_HINT, find_nvdisasm
from tests.apps.app_helpers import REPO, find_nvcc
from tests.ptxplus.test_ptxplus_runs import lines, run

PROGRAMS_DIR = Path(os.environ.get("GPGPUSIM_REFERENCE", str(REPO.parent / "shared" / "reference"))) / "programs"
PROGRAMS = sorted(p.stem for p in PROGRAMS_DIR.glob("*.cu"))

pytestmark = [pytest.mark.slow, pytest.mark.skipif(find_nvdisasm() is None, reason=INSTALL_HINT),
              pytest.mark.skipif(not PROGRAMS, reason=f"no reference programs under {PROGRAMS_DIR}")]


@pytest.mark.parametrize("gpu,arch", [("SM7_QV100", []), ("SM86_RTX3070", ["-arch=sm_86"])])
@pytest.mark.parametrize("program", PROGRAMS)
def test_reference_program_verifies(program, gpu, arch, tmp_path):
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found")
    exe = tmp_path / program
    r = subprocess.run([nvcc, "-O2", "-cudart", "shared", *arch, "-o", str(exe), str(PROGRAMS_DIR / f"{program}.cu")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    p = run(exe, gpu=gpu)
    assert p.returncode == 0 and "PASS" in p.stdout, (p.stdout[-3000:], p.stderr[-3000:])
    assert not lines(p, "PTXPlus: kernel")
