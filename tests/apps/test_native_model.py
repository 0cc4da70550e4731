"""The compiled performance model (``gpgpusim/native/__init__.py``, mypyc) against the same
source run as pure Python: whole apps in performance mode, every per-kernel statistic equal
(wall-clock fields aside), and the run's ``stats.json`` says which model ran.

Needs a fresh build (``gpgpusim native build``; ``pip install`` makes one).  Without it the
test is skipped, unless ``GPGPUSIM_REQUIRE_NATIVE=1`` (set by ``.ci/run``) makes that a failure.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from app_helpers import REPO, gpgpusim_cmd, sim_env

#: apps that cover the model's parts: shared memory and barriers (matmul_tiled, reduction,
#: prefix_scan), atomics (histogram), divergence and local memory (bfs, local_array).  Not
#: stream_overlap: where kernels of several streams overlap depends on when the host thread
#: launches them relative to the simulation's progress, i.e. on the simulator's speed.
APPS = ["matmul_tiled", "reduction", "prefix_scan", "histogram", "bfs", "local_array"]


def _fresh_build() -> str:
    """"" when a fresh build exists, else why not."""
    from gpgpusim import native

    files, why = native._load_manifest()
    return "" if files is not None else why


@pytest.fixture(scope="module")
def native_built() -> None:
    why = _fresh_build()
    if why:
        if os.environ.get("GPGPUSIM_REQUIRE_NATIVE") == "1":
            pytest.fail(f"GPGPUSIM_REQUIRE_NATIVE=1 but the compiled performance model is {why}")
        pytest.skip(f"compiled performance model {why}")


def _run(app: str, app_bin: Path, tmp: Path, native: str) -> dict:
    out = tmp / f"{app}-{native}"
    out.mkdir()
    env = sim_env({"GPGPUSIM_NATIVE": native})
    proc = subprocess.run(gpgpusim_cmd() + ["run", "-o", str(out / "stats.json"), "--", str(app_bin / app)],
                          cwd=out, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0 and f"{app}: PASS" in proc.stdout.splitlines(), \
        f"{app} (GPGPUSIM_NATIVE={native}) exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert "not used" not in proc.stderr, proc.stderr[-2000:]
    doc = json.loads((out / "stats.json").read_text())
    doc["stdout"] = [_HOST_ADDR.sub("0x?", ln) for ln in proc.stdout.splitlines() if not _WALL_LINE.search(ln)]
    return doc


#: host addresses (the kernel stubs' under ASLR) differ from run to run
_HOST_ADDR = re.compile(r"0x0x[0-9a-f]+")
#: printed lines that carry wall-clock time (the rest of the report must be the same text)
_WALL_LINE = re.compile(r"simulation_time|simulation_rate|silicon_slowdown|gpu_total_sim_rate|elapsed|wall|seconds")


def _simulated(kernel: dict) -> dict:
    return {k: v for k, v in kernel.items()
            if k not in _WALL_KEYS and not k.startswith("simulation_")}


#: per-kernel and total fields measured in wall-clock time (host_fun: the stub's address, ASLR)
_WALL_KEYS = ("elapsed_s", "wall_s", "host_fun", "silicon_slowdown", "gpu_total_sim_rate")


@pytest.mark.slow
@pytest.mark.parametrize("app", APPS)
def test_compiled_model_gives_the_pure_models_statistics(app, app_bin, native_built, tmp_path):
    compiled = _run(app, app_bin, tmp_path, "1")
    pure = _run(app, app_bin, tmp_path, "0")
    assert compiled["simulator"]["performance_model"] == "compiled (mypyc)"
    assert pure["simulator"]["performance_model"] == "python"
    assert compiled["kernels"] and all("cycles" in k for k in compiled["kernels"])
    # compared as JSON text: 0 and 0.0, or 1 and true, must not pass for each other
    assert _text([_simulated(k) for k in compiled["kernels"]]) == _text([_simulated(k) for k in pure["kernels"]])
    assert _text(_simulated(compiled["totals"])) == _text(_simulated(pure["totals"]))
    assert _text(compiled["samples"]) == _text(pure["samples"])
    # the report's text, line for line; sorted because the simulation thread's lines and the
    # host thread's (PTX analysis of a later kernel) interleave as fast as each runs
    assert sorted(compiled["stdout"]) == sorted(pure["stdout"])


def _text(obj: object) -> str:
    return json.dumps(obj, sort_keys=True)


def test_stale_build_is_not_used(native_built, tmp_path):
    """A build whose source changed since is ignored (the model runs as pure Python) and the
    process says so once: an edited model is never shadowed by an old compiled one."""
    native_dir = tmp_path / "_native"
    man = json.loads((REPO / "gpgpusim" / "_native" / "manifest.json").read_text())
    rel = "timing/core/shader.py"
    man["modules"][rel][1] = "0" * 64               # as if shader.py had changed
    native_dir.mkdir()
    (native_dir / "manifest.json").write_text(json.dumps(man))
    code = ("import sys; from gpgpusim import native as n; "
            f"n.NATIVE_DIR = {str(native_dir)!r}; "
            "print(n.activate(), n.model_kind()); n.announce(); n.announce()")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("GPGPUSIM_NATIVE", None)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "python"]
    assert proc.stderr.strip() == ("gpgpusim: compiled performance model not used: stale: gpgpusim/"
                                   f"{rel} changed since the build (gpgpusim native build); running it as pure Python")


def test_fresh_build_serves_the_compiled_modules(native_built):
    code = ("from gpgpusim import native as n; import gpgpusim.timing.core.shader as s, "
            "gpgpusim.timing.memory.dram as d; print(n.model_kind(), s.__file__.endswith('.so'), "
            "d.__file__.endswith('.so'))")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("GPGPUSIM_NATIVE", None)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "compiled (mypyc) True True"
    assert proc.stderr == ""


def test_tracing_runs_the_pure_model(app_bin, native_built, tmp_path):
    """A run that asks for an event trace gets it: the process switches to the pure-Python
    model (compiled instances cannot be wrapped) before the GPU is built, and says so."""
    env = sim_env()
    env.pop("GPGPUSIM_NATIVE", None)
    cmd = gpgpusim_cmd() + ["run", "--set", "-trace_enabled=1", "--set", "-trace_components=WARP_SCHEDULER",
                            "-o", str(tmp_path / "stats.json"), "--", str(app_bin / "vector_add")]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "vector_add: PASS" in proc.stdout.splitlines(), proc.stderr[-3000:]
    assert ("gpgpusim: tracing and pipeline dumps run the performance model as pure Python "
            "(slower than the compiled one)") in proc.stderr.splitlines()
    assert any(" WARP_SCHEDULER - Core 0 - Scheduler " in ln for ln in proc.stderr.splitlines())
    assert json.loads((tmp_path / "stats.json").read_text())["simulator"]["performance_model"] == "python"


def test_install_build_is_profile_guided(native_built):
    """``pip install`` makes the profile-guided build (an instrumented build runs
    ``native_train``, the optimised one is compiled with its profile): a training run that
    failed would leave a slower build behind with only a warning in the install log, so the
    manifest records how the build was made and CI's build must say profile-guided."""
    from gpgpusim import native

    if os.environ.get("GPGPUSIM_REQUIRE_NATIVE") != "1" and native.profile() != "profile-guided":
        pytest.skip(f"this checkout's build: profile {native.profile()}")
    assert native.profile() == "profile-guided"
    assert "profile: profile-guided" in native.status()

