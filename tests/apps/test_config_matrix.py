"""Every ``apps/`` program on every shipped GPU config (issue "Every shipped GPU config runs what
the GPU it models runs"): a config that cannot run a program its GPU runs fails here, in CI.

One test per config runs, GPGPU-Sim's way (``LD_LIBRARY_PATH`` + ``GPGPUSIM_GPU``, no ``gpgpusim
run`` process in between, which keeps the ~350 runs cheap), two at a time per core:

* every app in functional mode: it must pass, except where the modelled GPU itself refuses
  (:data:`REFUSED`: the exact one-line reason on stderr and the app's failure exit); the apps that
  size their work from the device (``device_query``, ``register_pressure``, ``runtime_misc``)
  must report the figures and take the path the modelled GPU gives them;
* a representative subset in performance mode (:data:`TIMED`: streaming loads, shared memory
  with barriers and warp shuffles, the register-bound Rodinia-style blocks), each kernel timed
  (``gpu_sim_cycle``) and the result checked by the app.

SM7_QV100, the default config, is the column ``test_apps.py`` runs (its ``cli``, ``ld`` and
``timing`` routes): here it runs only the apps that size their work from the device
(:data:`SIZED`), for their figures.
"""
from __future__ import annotations

import os
import re
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from app_helpers import app_names, sim_env
from gpgpusim.options import load_config
from gpgpusim.options.config import DEFAULT_GPU, shipped_gpus
from gpgpusim.runtime.device import DeviceInfo

APPS = app_names()
GPUS = shipped_gpus()
#: the apps whose output depends on the device's figures
SIZED = ("device_query", "register_pressure", "runtime_misc")
TIMED = ("vector_add", "reduction", "register_pressure")
#: kernels each timed app launches (a refused launch is never timed)
TIMED_KERNELS = {"vector_add": 1, "reduction": 3, "register_pressure": 3}
TIMEOUT_S = 600

#: (config, app) -> the simulator's stderr line for the launch the modelled GPU refuses
REFUSED = {
    ("QuadroFX5800", "grid3d_pitch"): "gpgpusim: cudaLaunchKernel: cudaErrorInvalidConfiguration: "
                                      "__cudaLaunchKernel _Z3idsPi: gridDim.z=2 exceeds 1",
}

#: register_pressure's line per kernel: (registers, maxThreadsPerBlock, blocks/SM at 512 threads)
_P = ("pressure6", "pressure12", "pressure18")
PRESSURE = {
    "QuadroFX5800": [(22, 512, 1), (38, 384, 0), (60, 256, 0)],
    "SM2_GTX480": [(22, 512, 2), (38, 512, 1), (60, 512, 1)],
    "TeslaC2050": [(22, 512, 2), (38, 512, 1), (60, 512, 1)],
    "SM6_TITANX": [(22, 512, 4), (38, 512, 3), (60, 512, 2)],
    "SM7_QV100": [(22, 512, 4), (38, 512, 3), (60, 512, 2)],
    "SM75_RTX2060": [(22, 512, 2), (38, 512, 2), (60, 512, 2)],
    "SM86_RTX3070": [(22, 512, 3), (38, 512, 3), (60, 512, 2)],
}


@dataclass
class Run:
    app: str
    mode: str
    returncode: int
    stdout: str
    stderr: str
    wall_s: float

    def describe(self) -> str:
        tail = "\n".join((self.stdout + "\n" + self.stderr).splitlines()[-25:])
        return f"{self.app} ({self.mode}): exit {self.returncode}\n{tail}"

    @property
    def passed(self) -> bool:
        return self.returncode == 0 and f"{self.app}: PASS" in self.stdout.splitlines()


def _run(gpu: str, app: str, mode: str, app_bin: Path, libdir: Path, tmp: Path) -> Run:
    cwd = tmp / f"{mode}-{app}"
    cwd.mkdir()
    extra = {"LD_LIBRARY_PATH": str(libdir), "GPGPUSIM_GPU": gpu}
    if mode == "functional":
        extra["PTX_SIM_MODE_FUNC"] = "1"
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([str(app_bin / app)], cwd=cwd, env=sim_env(extra), capture_output=True,
                              text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return Run(app, mode, -1, "", f"did not finish in {TIMEOUT_S} s", TIMEOUT_S)
    return Run(app, mode, proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - t0)


def _expected_lines(gpu: str, dev: DeviceInfo) -> dict[str, list[str]]:
    """App -> lines its stdout must contain on this config (figures of the modelled GPU)."""
    pressure = []
    for name, (regs, max_threads, per_sm) in zip(_P, PRESSURE[gpu], strict=True):
        head = f"{name}: regs={regs} maxThreadsPerBlock={max_threads} blocks/SM={per_sm} "
        pressure.append(head + ("launched 512" if max_threads >= 512 else
                                f"refused 512 (cudaErrorLaunchOutOfResources), launched {max_threads}"))
    lines = {
        "device_query": [f"device 0 of 1: GPGPU-Sim {gpu}, cc {dev.major}.{dev.minor}",
                         f"totalGlobalMem={dev.total_mem_bytes} l2CacheSize={dev.l2_bytes} "
                         f"memoryBusWidth={dev.bus_width_bits}",
                         f"regsPerBlock={dev.regs_per_block} maxThreadsDim="
                         + "x".join(map(str, dev.max_block_dims)) + " maxGridSize="
                         + "x".join(map(str, dev.max_grid_dims))
                         + f" sharedMemPerBlockOptin={dev.smem_per_block_bytes}"],
        "register_pressure": pressure,
    }
    if dev.smem_per_block_bytes < 64 * 1024:
        lines["runtime_misc"] = [f"bigSmem: 64 KB refused (cudaErrorInvalidValue, cudaErrorInvalidValue; "
                                 f"the device allows {dev.smem_per_block_bytes} bytes)"]
    return lines


def _refusal_lines(gpu: str, dev: DeviceInfo) -> list[str]:
    """register_pressure's launches the modelled GPU refuses, as the simulator reports them."""
    out = []
    for (regs, max_threads, _), k in zip(PRESSURE[gpu], (6, 12, 18), strict=True):
        if max_threads < 512:
            need = dev.block_registers(regs, 512)
            out.append(f"gpgpusim: cudaLaunchKernel: cudaErrorLaunchOutOfResources: __cudaLaunchKernel "
                       f"_Z8pressureILi{k}EEvPKjPjij: {regs} registers x 512 threads need {need} registers, "
                       f"more than the {dev.regs_per_block} of a block")
    return out


@pytest.mark.parametrize("gpu", GPUS)
def test_every_app_runs_on_every_config(gpu, app_bin, libdir, tmp_path):
    dev = DeviceInfo.from_config(load_config(None, gpu=gpu, env=False), gpu)
    if gpu == DEFAULT_GPU:
        jobs = [(app, "functional") for app in SIZED]
    else:
        jobs = [(app, "functional") for app in APPS] + [(app, "performance") for app in TIMED]
    workers = max(2, min(4, 2 * (os.cpu_count() or 1)))
    t0 = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        runs = list(pool.map(lambda job: _run(gpu, job[0], job[1], app_bin, libdir, tmp_path), jobs))
    wall = time.perf_counter() - t0
    problems = []
    expected = _expected_lines(gpu, dev)
    for run in runs:
        refused = REFUSED.get((gpu, run.app))
        if refused is not None:
            if run.returncode != 1 or refused not in run.stderr.splitlines():
                problems.append(f"expected the refusal {refused!r}:\n{run.describe()}")
            continue
        if not run.passed:
            problems.append(run.describe())
            continue
        missing = [ln for ln in expected.get(run.app, []) if ln not in run.stdout.splitlines()]
        if missing:
            problems.append(f"{run.app} ({run.mode}) lacks {missing}:\n{run.describe()}")
        if run.app == "register_pressure":
            reasons = [ln for ln in run.stderr.splitlines() if "cudaErrorLaunchOutOfResources" in ln]
            if reasons != _refusal_lines(gpu, dev):
                problems.append(f"register_pressure ({run.mode}) reported {reasons}")
        if run.mode == "performance":
            launches = len(re.findall(r"^gpu_sim_cycle = [1-9]\d*$", run.stdout, re.M))
            want = TIMED_KERNELS[run.app]
            if launches != want:
                problems.append(f"{run.app} (performance): {launches} timed kernels, expected {want}")
    passed = sum(1 for r in runs if r.passed or (gpu, r.app) in REFUSED)
    print(f"\n{gpu}: {passed}/{len(runs)} runs as the modelled GPU runs them "
          f"({sum(m == 'functional' for _, m in jobs)} apps functional, "
          f"{sum(m == 'performance' for _, m in jobs)} timed), {wall:.1f} s wall, "
          f"{sum(r.wall_s for r in runs):.1f} s of runs")
    assert not problems, f"{gpu}: {len(problems)} of {len(runs)} runs differ from the modelled GPU:\n\n" + \
        "\n\n".join(problems)
