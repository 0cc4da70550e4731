"""Ctrl-C / SIGTERM during a never-ending kernel keep the statistics (gpgpusim.device.interrupt):
``apps/spin_forever forever`` runs under ``gpgpusim run -o out.json``; once its kernel spins, a
signal stops it; the exit code, the interrupted line, the end-of-run output and the JSON are
checked."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gpgpusim.device import interrupt
from tests.apps.app_helpers import BIN_DIR, find_nvcc, make_apps

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def spin_app() -> Path:
    nvcc = find_nvcc()
    if nvcc is None or shutil.which("make") is None:
        pytest.skip("nvcc or make not found: apps/spin_forever cannot be built")
    proc = make_apps("-s", "bin/spin_forever", f"NVCC={nvcc}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return BIN_DIR / "spin_forever"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["GPGPUSIM_PYTHONPATH"] = str(REPO)
    for var in ("PTX_SIM_MODE_FUNC", "GPGPUSIM_DRIVER", "GPGPUSIM_CONFIG", "GPGPUSIM_OPTIONS",
                "GPGPUSIM_STATS_JSON"):
        env.pop(var, None)
    return env


def _default_signals() -> None:
    """In the child before it runs ``gpgpusim run``: SIGINT, SIGTERM and SIGHUP at their
    default, whatever the test runner inherited (under ``nohup`` SIGHUP is ignored, and an
    application keeps an ignored signal ignored, as ``gpgpusim.device.interrupt`` documents)."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def _start(app: Path, tmp_path: Path, *extra: str, mode: str = "--functional",
           ready: str = "spin_forever: kernel spinning") -> tuple[subprocess.Popen, list[str], threading.Event]:
    """``gpgpusim run`` in its own session (like a terminal's foreground job); returns the
    process, its stdout lines (filled by a reader thread) and an event set once a line
    containing ``ready`` was printed (by default: the kernel spins)."""
    cmd = [sys.executable, "-c", "import sys; from gpgpusim.cli import main; sys.exit(main())",
           "run", *([mode] if mode else []), "-o", str(tmp_path / "out.json"), *extra, "--", str(app), "forever"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path, env=_env(), start_new_session=True, preexec_fn=_default_signals)
    lines: list[str] = []
    spinning = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if ready in line:
                spinning.set()

    threading.Thread(target=read, daemon=True).start()
    return proc, lines, spinning


def _finish(proc: subprocess.Popen, spinning: threading.Event, sig: int, group: bool) -> tuple[int, float, str]:
    try:
        assert spinning.wait(120), "the kernel never started"
        time.sleep(0.5)                      # well inside the kernel's spin loop
        t0 = time.monotonic()
        if group:
            os.killpg(proc.pid, sig)         # what the terminal does on Ctrl-C
        else:
            proc.send_signal(sig)            # `kill PID` of gpgpusim run: forwarded to the app
        rc = proc.wait(30)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.stderr is not None
    return rc, took, proc.stderr.read()


def test_sigint_keeps_statistics_and_json(spin_app, tmp_path):
    proc, lines, spinning = _start(spin_app, tmp_path)
    rc, took, err = _finish(proc, spinning, signal.SIGINT, group=True)
    time.sleep(0.2)
    out = "".join(lines)
    assert rc == 130, out + err
    assert took < 5, took
    assert "GPGPU-Sim: ** interrupted by SIGINT at kernel _Z4spinPViiPi **" in out
    assert "GPGPU-Sim: interrupted kernel '_Z4spinPViiPi' had executed" in out
    assert out.rstrip().endswith("GPGPU-Sim: *** exit detected ***")
    assert "spin_forever: PASS" not in out and "FAIL" not in out
    doc = json.loads((tmp_path / "out.json").read_text())
    inter = doc["run"]["interrupted"]
    assert inter["signal"] == "SIGINT" and inter["kernel"] == "_Z4spinPViiPi"
    assert inter["thread_insn"] > 0 and inter["warp_insn"] > 0
    assert doc["mode"] == "functional"


def test_sigterm_to_gpgpusim_run_is_forwarded(spin_app, tmp_path):
    proc, lines, spinning = _start(spin_app, tmp_path)
    rc, _, err = _finish(proc, spinning, signal.SIGTERM, group=False)
    time.sleep(0.2)
    out = "".join(lines)
    assert rc == 143, out + err
    assert "GPGPU-Sim: ** interrupted by SIGTERM at kernel _Z4spinPViiPi **" in out
    assert json.loads((tmp_path / "out.json").read_text())["run"]["interrupted"]["signal"] == "SIGTERM"


def test_spin_forever_passes_when_released(spin_app, tmp_path):
    proc = subprocess.run([sys.executable, "-c", "import sys; from gpgpusim.cli import main; sys.exit(main())",
                           "run", "--functional", "--", str(spin_app)],
                          capture_output=True, text=True, cwd=tmp_path, env=_env(), timeout=300)
    assert proc.returncode == 0 and "spin_forever: PASS" in proc.stdout, proc.stdout + proc.stderr


def test_check_raises_once_requested(monkeypatch):
    interrupt.check()                                    # nothing requested: no-op
    monkeypatch.setattr(interrupt, "requested", int(signal.SIGTERM))
    with pytest.raises(interrupt.SimulationInterrupted, match="SIGTERM"):
        interrupt.check()
    assert not issubclass(interrupt.SimulationInterrupted, Exception)


def test_a_registered_method_does_not_keep_its_object_alive(monkeypatch):
    """``on_interrupt`` holds a bound method weakly (each GPU registers one: a test or a sweep
    that builds many must not keep every machine alive) and a plain function strongly."""
    import weakref

    class Owner:
        def cb(self, signum):
            return {"kernel": "k"}

    monkeypatch.setattr(interrupt, "_callbacks", [])
    owner = Owner()
    alive = weakref.ref(owner)
    interrupt.on_interrupt(owner.cb)
    assert interrupt._callbacks[0]()(2) == {"kernel": "k"}
    del owner
    assert alive() is None and interrupt._callbacks[0]() is None
    interrupt.on_interrupt(lambda signum: None)         # a dead entry is dropped on registering
    assert len(interrupt._callbacks) == 1 and interrupt._callbacks[0]()(2) is None


def test_install_refuses_off_the_main_thread():
    got: list[bool] = []
    t = threading.Thread(target=lambda: got.append(interrupt.install(object())))
    t.start()
    t.join()
    assert got == [False]


def test_sigint_to_gpgpusim_run_alone_stops_the_run(spin_app, tmp_path):
    # `timeout -s INT`, job runners: the signal reaches `gpgpusim run` only, not its group
    proc, lines, spinning = _start(spin_app, tmp_path)
    rc, took, err = _finish(proc, spinning, signal.SIGINT, group=False)
    time.sleep(0.2)
    out = "".join(lines)
    assert rc == 130 and took < 2, (rc, took, out[-2000:] + err)
    assert "GPGPU-Sim: ** interrupted by SIGINT at kernel _Z4spinPViiPi **" in out
    assert out.rstrip().endswith("GPGPU-Sim: *** exit detected ***")
    assert json.loads((tmp_path / "out.json").read_text())["run"]["interrupted"]["signal"] == "SIGINT"


def test_sighup_keeps_statistics(spin_app, tmp_path):
    proc, lines, spinning = _start(spin_app, tmp_path)
    rc, took, err = _finish(proc, spinning, signal.SIGHUP, group=True)
    time.sleep(0.2)
    out = "".join(lines)
    assert rc == 129 and took < 2, (rc, took, out[-2000:] + err)
    assert "GPGPU-Sim: ** interrupted by SIGHUP at kernel _Z4spinPViiPi **" in out
    assert json.loads((tmp_path / "out.json").read_text())["run"]["interrupted"]["signal"] == "SIGHUP"


def _running(exe: Path) -> list[int]:
    """Processes running the program ``exe``."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/exe") == str(exe):
                    pids.append(int(entry))
            except OSError:
                continue
    return pids


def test_sigkill_of_gpgpusim_run_leaves_no_application(spin_app, tmp_path):
    app = tmp_path / "spin_copy"          # a path of its own, to find its processes
    shutil.copy(spin_app, app)
    proc, _, spinning = _start(app, tmp_path)
    try:
        assert spinning.wait(120), "the kernel never started"
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(10) == -signal.SIGKILL
        time.sleep(0.5)
        assert _running(app) == []
    finally:
        for pid in _running(app):
            os.kill(pid, signal.SIGKILL)


def test_functional_liveness_line_from_the_first_second(spin_app, tmp_path):
    proc, lines, spinning = _start(spin_app, tmp_path)
    assert spinning.wait(120), "the kernel never started"
    time.sleep(2.5)
    _finish(proc, spinning, signal.SIGINT, group=True)
    live = [ln for ln in lines if ln.startswith("GPGPU-Sim PTX: functional simulation: kernel '_Z4spinPViiPi'")]
    assert len(live) >= 2, "".join(lines)[-2000:]
    counts = [int(ln.split("inst.: ")[1].split()[0]) for ln in live]
    assert counts == sorted(counts) and counts[0] > 0
    assert " sim_rate=" in live[0] and " (inst/sec) elapsed = 0:0:00:0" in live[0]


def test_performance_interrupt_keeps_the_running_kernels_statistics(spin_app, tmp_path):
    """Performance mode: the interrupted kernel's statistics block and JSON entry are kept
    (marked "stopped": "SIGINT"), and every line reports the same instruction count."""
    proc, lines, started = _start(spin_app, tmp_path, mode="", ready="GPGPU-Sim uArch: cycles simulated:")
    rc, took, err = _finish(proc, started, signal.SIGINT, group=False)
    time.sleep(0.2)
    out = "".join(lines)
    assert rc == 130 and took < 3, (rc, took, out[-3000:] + err)
    insn = [int(v) for v in re.findall(r"^gpu_sim_insn = (\d+)$", out, re.M)]
    assert len(insn) == 1 and insn[0] > 0, out[-3000:]
    n = insn[0]
    assert re.search(r"^gpu_tot_sim_insn = %d$" % n, out, re.M)
    assert re.search(r"^GPGPU-Sim: interrupted kernel '_Z4spinPViiPi' \(uid 1\) at gpu_sim_cycle = \d+ "
                     r"\(gpu_tot_sim_cycle = \d+\); 0 of 1 CTAs done; %d thread instructions$" % n, out, re.M)
    assert "GPGPU-Sim: ** interrupted by SIGINT at kernel _Z4spinPViiPi **" in out
    assert re.search(r"^GPGPU-Sim: interrupted kernel '_Z4spinPViiPi' had executed %d thread instructions "
                     r"\(\d+ warp instructions\) so far$" % n, out, re.M)
    doc = json.loads((tmp_path / "out.json").read_text())
    [k] = doc["kernels"]
    assert k["kernel_name"] == "_Z4spinPViiPi" and k["stopped"] == "SIGINT" and k["thread_insn"] == n
    assert k["cycles"] > 0 and k["counters"]["L1D_total_cache_accesses"] > 0
    assert doc["totals"]["gpu_tot_sim_insn"] == n and doc["totals"]["kernels"] == 1
    assert doc["run"]["interrupted"] == {"signal": "SIGINT", "kernel": "_Z4spinPViiPi", "thread_insn": n,
                                         "warp_insn": k["warp_insn"]}


BIG_KERNEL = r"""
#include <cstdio>
__global__ void work(float *a, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = a[i];
  for (int k = 0; k < iters; k++) x = x * 1.0001f + 0.5f;
  a[i] = x;
}
int main() {
  int n = 4096 * 256;
  float *d;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemset(d, 0, n * sizeof(float));
  work<<<n / 256, 256>>>(d, 200);
  cudaDeviceSynchronize();
  printf("big: done\n");
  return 0;
}
"""


def test_performance_liveness_line_from_the_first_second(tmp_path):
    """A kernel whose 1024-cycle stretches take seconds (4,096 CTAs filling 80 SMs) still shows
    GPGPU-Sim's liveness line within about a second of its launch."""
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found")
    (tmp_path / "big.cu").write_text(BIG_KERNEL)
    subprocess.run([nvcc, "-cudart", "shared", str(tmp_path / "big.cu"), "-o", str(tmp_path / "big")],
                   check=True, capture_output=True, timeout=600)
    proc, lines, pushed = _start(tmp_path / "big", tmp_path, mode="", ready="pushing kernel '_Z4workPfi'")
    try:
        assert pushed.wait(120), "".join(lines)[-2000:]
        t0 = time.monotonic()
        while not any(ln.startswith("GPGPU-Sim uArch: cycles simulated: ") for ln in lines):
            assert time.monotonic() - t0 < 2.5, "no liveness line 2.5 s after the launch"
            time.sleep(0.05)
    finally:
        _finish(proc, pushed, signal.SIGINT, group=False)


def test_performance_interrupt_of_a_long_stretch_keeps_statistics(tmp_path):
    """SIGINT while 80 SMs are busy (seconds per 1024 cycles) still ends the kernel with its
    statistics within a second or two."""
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found")
    (tmp_path / "big.cu").write_text(BIG_KERNEL)
    subprocess.run([nvcc, "-cudart", "shared", str(tmp_path / "big.cu"), "-o", str(tmp_path / "big")],
                   check=True, capture_output=True, timeout=600)
    proc, lines, started = _start(tmp_path / "big", tmp_path, mode="", ready="GPGPU-Sim uArch: cycles simulated:")
    rc, took, err = _finish(proc, started, signal.SIGINT, group=True)
    time.sleep(0.2)
    out = "".join(lines)
    assert rc == 130 and took < 3, (rc, took, out[-2000:] + err)
    [k] = json.loads((tmp_path / "out.json").read_text())["kernels"]
    assert k["stopped"] == "SIGINT" and k["kernel_name"] == "_Z4workPfi" and k["thread_insn"] > 0
    assert re.search(r"^gpu_sim_insn = %d$" % k["thread_insn"], out, re.M)
