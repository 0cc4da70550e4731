"""PTXPlus mode end to end: unmodified binaries run their converted SASS (checklist C007, C009,
C232-C238), and every way it cannot says so in one line (issue 27, items 1, 2 and 4)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cuobjdump_tools.sass import INSTALL_HINT, find_nvdisasm
from gpgpusim.ptx import parse_ptx
from tests.apps.app_helpers import REPO, find_nvcc, gpgpusim_cmd, sim_env

pytestmark = pytest.mark.skipif(find_nvdisasm() is None, reason=INSTALL_HINT)

SOURCE = Path(__file__).parent / "data" / "saxpy_sad.cu"
# name -> nvcc architecture flags
BUILDS = {
    "sm75": ["-arch=sm_75"],
    "sm86": ["-arch=sm_86"],
    "ptxonly": ["-gencode", "arch=compute_75,code=compute_75"],
}


@pytest.fixture(scope="module")
def exe(tmp_path_factory):
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found")
    d = tmp_path_factory.mktemp("ptxplus")
    built: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in built:
            out = d / name
            r = subprocess.run([nvcc, "-cudart", "shared", "-O2", *BUILDS[name], str(SOURCE), "-o", str(out)],
                               capture_output=True, text=True, timeout=300)
            assert r.returncode == 0, r.stderr
            built[name] = out
        return built[name]
    return get


def run(binary: Path, *args: str, gpu: str = "SM7_QV100", sets: tuple[str, ...] = (), ptxplus: bool = True,
        cwd: Path | None = None, env: dict[str, str] | None = None, functional: bool = True,
        json_out: Path | None = None) -> subprocess.CompletedProcess:
    cmd = gpgpusim_cmd() + ["run", "--gpu", gpu]
    if functional:
        cmd.append("--functional")
    if ptxplus:
        cmd.append("--ptxplus")
    for s in sets:
        cmd += ["--set", s]
    if json_out is not None:
        cmd += ["-o", str(json_out)]
    cmd += ["--", str(binary), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=cwd or binary.parent,
                          env=sim_env(env))


def lines(p: subprocess.CompletedProcess, needle: str) -> list[str]:
    return [ln for ln in (p.stdout + p.stderr).splitlines() if needle in ln]


def test_sm75_cubin_on_qv100_header_json_and_saved_text(exe, tmp_path):
    b = exe("sm75")
    js = tmp_path / "s.json"
    p = run(b, sets=("-gpgpu_ptx_save_converted_ptxplus=1",), cwd=tmp_path, json_out=js)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "saxpy ok" in p.stdout and "PASS" in p.stdout
    head = (p.stdout + p.stderr).splitlines()[0]
    assert head.endswith("; ISA: PTXPlus (SASS converted, -gpgpu_ptx_convert_to_ptxplus 1)"), head
    assert lines(p, "GPGPU-Sim PTXPlus:") == [
        "GPGPU-Sim PTXPlus: note: fat binary #1 has no cubin for compute capability <= 70, so its oldest, "
        "sm_75, is simulated",
        "GPGPU-Sim PTXPlus: fat binary #1: 1 of 2 kernel(s) converted from its sm_75 SASS",
    ]
    doc = json.loads(js.read_text())
    assert doc["isa"] == "ptxplus"
    assert doc["run"]["ptxplus"] == [{
        "fatbin": 1, "sass_arch": 75, "converted": ["_Z5saxpyifPKfPf"], "ptx_fallback": [],
        "not_supported": {"_Z3sadPKjS0_Pji": "PTXPlus: kernel _Z3sadPKjS0_Pji: SASS opcode NANOSLEEP.WARP is not "
                                             "supported (-gpgpusim_ptxplus_fallback 1 runs its PTX instead)"}}]
    assert lines(p, "gpgpu_simulation_isa") == [
        "gpgpu_simulation_isa = PTXPlus (SASS converted, -gpgpu_ptx_convert_to_ptxplus 1)"]   # one kernel ran
    text = (tmp_path / "_1.ptxplus").read_text()
    assert "\t// FFMA R" in text and ".target sm_75" in text
    mod = parse_ptx(text, "_1.ptxplus")     # the saved text parses with the lark front end
    assert "_Z5saxpyifPKfPf" in mod.kernels


def test_sm86_cubin_on_rtx3070(exe):
    p = run(exe("sm86"), gpu="SM86_RTX3070")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "PASS" in p.stdout
    assert lines(p, "GPGPU-Sim PTXPlus:") == [
        "GPGPU-Sim PTXPlus: fat binary #1: 1 of 2 kernel(s) converted from its sm_86 SASS"]


def test_ptx_mode_names_ptx(exe, tmp_path):
    js = tmp_path / "s.json"
    p = run(exe("sm75"), ptxplus=False, json_out=js)
    assert p.returncode == 0
    assert (p.stdout + p.stderr).splitlines()[0].endswith("; ISA: PTX")
    doc = json.loads(js.read_text())
    assert doc["isa"] == "ptx" and "ptxplus" not in doc["run"]
    assert not lines(p, "PTXPlus") and not lines(p, "gpgpu_simulation_isa")


def test_unsupported_opcode_fails_the_launch_naming_opcode_and_kernel(exe):
    p = run(exe("sm75"), "sad")
    assert p.returncode == 1
    assert "saxpy ok" in p.stdout and "sad: cudaErrorNotSupported" in p.stdout
    assert lines(p, "NANOSLEEP") == [
        "gpgpusim: cudaLaunchKernel: cudaErrorNotSupported: PTXPlus: kernel _Z3sadPKjS0_Pji: SASS opcode "
        "NANOSLEEP.WARP is not supported (-gpgpusim_ptxplus_fallback 1 runs its PTX instead)"]


def test_unsupported_opcode_fallback_runs_ptx_and_says_so(exe):
    p = run(exe("sm75"), "sad", sets=("-gpgpusim_ptxplus_fallback=1",))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "sad ok" in p.stdout and "PASS" in p.stdout
    assert lines(p, "NANOSLEEP") == [
        "GPGPU-Sim PTXPlus: kernel _Z3sadPKjS0_Pji: SASS opcode NANOSLEEP.WARP is not supported; its PTX is "
        "simulated (-gpgpusim_ptxplus_fallback 1)"]


def test_ptx_only_binary_says_so_and_runs_ptx(exe):
    p = run(exe("ptxonly"), "sad")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "PASS" in p.stdout
    assert lines(p, "GPGPU-Sim PTXPlus:") == [
        "GPGPU-Sim PTXPlus: fat binary #1 has no cubin (PTX only): its PTX is simulated"]


def test_missing_nvdisasm_is_one_line_and_a_cuda_error(exe):
    # selected by GPGPU-Sim's own option this time, not --ptxplus
    p = run(exe("sm75"), ptxplus=False, sets=("-gpgpu_ptx_convert_to_ptxplus=1",),
            env={"GPGPUSIM_NVDISASM": "/nonexistent/nvdisasm", "GPGPUSIM_TRACEBACK": "0"})
    assert p.returncode == 1
    assert "Traceback" not in p.stderr
    assert lines(p, INSTALL_HINT) == [   # registration says it once; the failed launch returns it
        f"gpgpusim: __cudaRegisterFatBinary: cudaErrorInvalidKernelImage: {INSTALL_HINT} (launches of this "
        f"fat binary's kernels and accesses to its variables return this error)",
        f"gpgpusim: cudaLaunchKernel: cudaErrorInvalidKernelImage: kernel _Z5saxpyifPKfPf: {INSTALL_HINT}"]


def test_performance_mode_runs_ptxplus(exe, tmp_path):
    """The timing model runs a converted kernel: the JSON names the ISA and the launch has cycles
    (per-opcode SASS timing: ``tests/ptxplus/test_counting.py``)."""
    js = tmp_path / "s.json"
    p = run(exe("sm75"), functional=False, json_out=js)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "PASS" in p.stdout
    doc = json.loads(js.read_text())
    assert doc["isa"] == "ptxplus" and doc["kernels"][0]["cycles"] > 0


def test_repo_apps_verify_in_ptxplus_mode():
    """A few of apps/ (built by tests/apps) verify on both GPUs when their binaries exist."""
    bins = REPO / "apps" / "bin"
    if not (bins / "reduction").exists():
        pytest.skip("apps/ not built (tests/apps builds them)")
    for app in ("vector_add", "reduction", "matmul_tiled"):
        p = run(bins / app)
        assert p.returncode == 0 and "PASS" in p.stdout, (app, p.stdout[-2000:], p.stderr[-2000:])
    p = run(bins / "variants" / "reduction_sm86", gpu="SM86_RTX3070")
    assert p.returncode == 0 and "PASS" in p.stdout
    assert lines(p, "GPGPU-Sim PTXPlus:") == [
        "GPGPU-Sim PTXPlus: fat binary #1: 2 of 2 kernel(s) converted from its sm_86 SASS"]
