"""The gpgpusim command: environment set-up, exit codes, libdir route, demo, dispatch."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from gpgpusim import appenv, cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "shim"))
import build_shim  # noqa: E402

NVCC = cli.find_nvcc()
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not available")


@pytest.fixture(scope="module")
def libdir(tmp_path_factory):
    """A freshly built shim, used in place of gpgpusim/_lib."""
    d = tmp_path_factory.mktemp("cli_lib")
    build_shim.build(str(d))
    return d


@pytest.fixture
def with_lib(monkeypatch, libdir):
    monkeypatch.setattr(appenv, "libdir", lambda: libdir)
    return libdir


def test_join_set_values():
    assert cli._join_set_values(["run", "--set", "-a=1", "--set", "-b 2", "--", "./x", "--set", "y"]) == [
        "run", "--set=-a=1", "--set=-b 2", "--", "./x", "--set", "y"]


def test_run_env(with_lib, tmp_path):
    base = {"LD_LIBRARY_PATH": "/old", "GPGPUSIM_CONFIG": "/stale"}
    env = cli.run_env(gpu="SM75_RTX2060", functional=True, sets=["-gpgpu_n_clusters=4"],
                      stats_json="s.json", base=base)
    assert env["LD_LIBRARY_PATH"] == f"{with_lib}{os.pathsep}/old"
    assert env["GPGPUSIM_GPU"] == "SM75_RTX2060" and "GPGPUSIM_CONFIG" not in env
    assert env["PTX_SIM_MODE_FUNC"] == "1"
    assert env["GPGPUSIM_SET_OPTIONS"] == "-gpgpu_n_clusters=4" and "GPGPUSIM_OPTIONS" not in env
    assert env["GPGPUSIM_STATS_JSON"] == os.path.abspath("s.json")
    assert env["GPGPUSIM_PYTHONPATH"].split(os.pathsep)[0] == ROOT
    cfg = tmp_path / "my.config"
    cfg.write_text("-gpgpu_n_clusters 2\n")
    env = cli.run_env(config=str(cfg), base={})
    assert env["GPGPUSIM_CONFIG"] == str(cfg) and "PTX_SIM_MODE_FUNC" not in env


def test_run_errors(with_lib, capsys):
    with pytest.raises(SystemExit, match="no application"):
        cli.main(["run", "--functional"])
    with pytest.raises(SystemExit, match="does not exist"):
        cli.main(["run", "--config", "/no/such/file", "--", "true"])
    assert cli.main(["run", "--set", "-no_such_option=1", "--", "true"]) == 2
    assert "unknown option -no_such_option" in capsys.readouterr().err
    assert cli.main(["run", "--gpu", "NoSuchGPU", "--", "true"]) == 2
    with pytest.raises(SystemExit, match="no such file"):
        cli.main(["run", "--", "/no/such/app"])


def _marker_app(tmp_path):
    """A script that records that it ran (the app must not start when the config is bad)."""
    marker = tmp_path / "ran"
    script = tmp_path / "app.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\nexit 3\n")
    script.chmod(0o755)
    return str(script), marker


def test_run_validates_the_complete_config_first(with_lib, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("GPGPUSIM_OPTIONS", raising=False)
    monkeypatch.delenv("GPGPUSIM_CONFIG", raising=False)
    monkeypatch.delenv("GPGPUSIM_GPU", raising=False)
    app, marker = _marker_app(tmp_path)
    include = tmp_path / "include.config"
    include.write_text("-config /no/such/extra.config\n")
    typo = tmp_path / "typo.config"
    typo.write_text("-gpgpu_n_clusters 4\n-gpgpu_n_clustrs 5\n")
    cases = [
        (["--config", str(include)], "-config file '/no/such/extra.config' not found"),
        (["--config", str(typo)], "unknown option -gpgpu_n_clustrs; did you mean -gpgpu_n_clusters?"),
        (["--gpu", "SM75_RTX2060", "--set", "-gpgpu_n_clusters=abc"],
         "bad value 'abc' for -gpgpu_n_clusters: 'abc' is not an integer"),
        (["--set", "-trace_enabled=1", "--set", "-trace_components=WARP_SCHEDULER,SCOREBORD"],
         "-trace_components: unknown trace component 'SCOREBORD'; valid: ALL, WARP_SCHEDULER,"),
    ]
    for opts, message in cases:
        assert cli.main(["run", *opts, "--", app]) == 2, opts
        err = capsys.readouterr().err
        assert err.startswith("gpgpusim run: ") and message in err, (opts, err)
        assert err.count("\n") == 1, err          # one line, no traceback
        assert not marker.exists()
    # GPGPUSIM_OPTIONS from the environment, and ./gpgpusim.config of the working directory
    monkeypatch.setenv("GPGPUSIM_OPTIONS", "-gpgpu_no_such_option 1")
    assert cli.main(["run", "--", app]) == 2
    assert "$GPGPUSIM_OPTIONS: unknown option -gpgpu_no_such_option" in capsys.readouterr().err
    monkeypatch.delenv("GPGPUSIM_OPTIONS")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gpgpusim.config").write_text("-gpgpu_shader_cta many\n")
    assert cli.main(["run", "--", app]) == 2
    assert "gpgpusim.config: bad value 'many' for -gpgpu_shader_cta" in capsys.readouterr().err
    assert not marker.exists()
    # a good config (--gpu plus --set) runs the application (gpgpusim run execs it, so in a
    # process of its own), and the cwd is unchanged
    (tmp_path / "gpgpusim.config").unlink()
    r = _run_cli(with_lib, ["run", "--gpu", "SM75_RTX2060", "--set", "-gpgpu_n_clusters=4", "--", app], tmp_path)
    assert r.returncode == 3 and marker.exists(), r.stderr


def _run_cli(lib, args, cwd, env=None):
    """``gpgpusim ARGS`` in a process of its own (``run`` replaces the process by the app)."""
    base = {**os.environ, "PYTHONPATH": ROOT, "GPGPUSIM_LIBDIR": str(lib)}
    for var in ("GPGPUSIM_OPTIONS", "GPGPUSIM_CONFIG", "GPGPUSIM_GPU", "PTX_SIM_MODE_FUNC", "GPGPUSIM_STATS_JSON"):
        base.pop(var, None)
    return subprocess.run([sys.executable, "-c", "import sys; from gpgpusim import cli; sys.exit(cli.main())", *args],
                          env={**base, **(env or {})}, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_set_errors_name_set_as_their_source(with_lib, monkeypatch, capsys):
    monkeypatch.delenv("GPGPUSIM_OPTIONS", raising=False)
    assert cli.main(["run", "--set", "-gpgpu_max_insn=abc", "--", "true"]) == 2
    assert capsys.readouterr().err == ("gpgpusim run: --set: bad value 'abc' for -gpgpu_max_insn: "
                                       "'abc' is not an integer\n")
    monkeypatch.setenv("GPGPUSIM_OPTIONS", "-gpgpu_max_cta 5")
    env = cli.run_env(sets=["-gpgpu_max_cta=7"])
    assert env["GPGPUSIM_OPTIONS"] == "-gpgpu_max_cta 5" and env["GPGPUSIM_SET_OPTIONS"] == "-gpgpu_max_cta=7"
    cfg = cli.check_config(env)
    assert cfg["gpgpu_max_cta"] == 7 and cfg.origin["gpgpu_max_cta"] == "--set"


def test_output_paths_are_checked_before_the_run(with_lib, tmp_path, capsys):
    app, marker = _marker_app(tmp_path)
    assert cli.main(["run", "-o", "/nonexistent/dir/s.json", "--", app]) == 2
    assert capsys.readouterr().err == ("gpgpusim run: -o /nonexistent/dir/s.json: directory "
                                       "'/nonexistent/dir' does not exist\n")
    assert cli.main(["run", "-o", str(tmp_path), "--", app]) == 2
    assert capsys.readouterr().err == f"gpgpusim run: -o {tmp_path}: is a directory\n"
    assert cli.main(["run", "--set", "-gpgpusim_trace_file=/nonexistent/t.txt", "--", app]) == 2
    assert capsys.readouterr().err == ("gpgpusim run: -gpgpusim_trace_file /nonexistent/t.txt: directory "
                                       "'/nonexistent' does not exist\n")
    assert cli.main(["run", "--set", "-visualizer_enabled=1", "--set", "-visualizer_outputfile=/nonexistent/v.log.gz",
                     "--", app]) == 2
    assert capsys.readouterr().err == ("gpgpusim run: -visualizer_outputfile /nonexistent/v.log.gz: directory "
                                       "'/nonexistent' does not exist\n")
    assert not marker.exists()
    assert cli.check_output_path(str(tmp_path / "s.json")) is None


def test_version_and_run_help(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == "gpgpusim 0.1.0 (GPGPU-Sim 4.2.0, libcudart.so.13)\n"
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    out = capsys.readouterr().out
    assert "default\n                        SM7_QV100" in out or "default SM7_QV100" in out
    for text in ("environment variables", "GPGPUSIM_OPTIONS", "PTX_SIM_MODE_FUNC=1", "GPGPUSIM_PROGRESS=0",
                 "exit status:", "130 SIGINT, 143 SIGTERM, 129 SIGHUP", "--error-exitcode N"):
        assert text in out, text


def test_closed_pipe_is_no_traceback():
    # the reader stops after one line: gpgpusim ends quietly with 141 (128 + SIGPIPE)
    cmd = [sys.executable, "-c", "import sys; from gpgpusim import cli; sys.exit(cli.main())",
           "configs", "--diff", "SM7_QV100", "QuadroFX5800"]
    for _ in range(3):
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env={**os.environ, "PYTHONPATH": ROOT})
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
        rc = proc.wait(60)
        assert first.startswith(b"-gpgpu_occupancy_sm_number ")
        assert err == b"" and rc in (0, 141), (rc, err)


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in ("run", "libdir", "demo", "configs", "plot"):
        assert f"    {name} " in out, name
    ns = cli.build_parser().parse_args(["plot"])
    assert ns.fn is cli.cmd_plot and ns.rest == []


def test_missing_library_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(appenv, "libdir", lambda: tmp_path)
    with pytest.raises(SystemExit, match="is missing"):
        cli.run_env()


def test_exit_code_passes_through(with_lib, tmp_path):
    script = tmp_path / "app.sh"
    script.write_text("#!/bin/sh\nexit 3\n")
    script.chmod(0o755)
    assert _run_cli(with_lib, ["run", "--", str(script)], tmp_path).returncode == 3
    assert cli._exit_code(-11) == 139


def test_run_execs_the_application(with_lib, tmp_path):
    """gpgpusim run becomes the application (same pid), so no signal meant for it misses the
    application and a SIGKILL cannot leave the application behind; SIGPIPE is back to its
    default action in the application (Python ignores it)."""
    script = tmp_path / "app.sh"
    script.write_text("#!/bin/sh\necho $$\ngrep SigIgn /proc/$$/status\n")
    script.chmod(0o755)
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from gpgpusim import cli; sys.exit(cli.main())",
                             "run", "--", str(script)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": ROOT, "GPGPUSIM_LIBDIR": str(with_lib)})
    out, _ = proc.communicate(timeout=120)
    pid, ignored = out.split("\n")[:2]
    assert proc.returncode == 0 and int(pid) == proc.pid, out
    assert not int(ignored.split()[1], 16) & (1 << (13 - 1)), ignored     # SIGPIPE not ignored


def test_libdir_prints(capsys):
    assert cli.main(["libdir"]) == 0
    assert capsys.readouterr().out.strip().endswith(os.path.join("gpgpusim", "_lib"))


def test_configs_dispatch(capsys):
    assert cli.main(["configs"]) == 0
    assert "SM7_QV100" in capsys.readouterr().out


@pytest.fixture(scope="module")
def demo_app(tmp_path_factory):
    if NVCC is None:
        pytest.skip("nvcc not available")
    d = tmp_path_factory.mktemp("demo")
    (d / "va.cu").write_text(cli.DEMO_SOURCE)
    subprocess.run([NVCC, "-cudart", "shared", str(d / "va.cu"), "-o", str(d / "va")], check=True)
    return d / "va"


@needs_nvcc
def test_run_app_functional_with_json(with_lib, demo_app, tmp_path):
    out = tmp_path / "stats.json"
    r = subprocess.run([sys.executable, "-c", "import sys; from gpgpusim import cli; sys.exit(cli.main())",
                        "run", "--functional", "--set", "-gpgpu_n_clusters=4", "-o", str(out), "--", str(demo_app)],
                       env={**os.environ, "PYTHONPATH": ROOT, "GPGPUSIM_LIBDIR": str(with_lib)}, cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "vector_add: PASS" in r.stdout
    assert "GPGPU-Sim Simulator Version" in r.stdout
    assert "simulation mode 1" in r.stdout
    doc = json.loads(out.read_text())
    assert doc["run"]["functional"] is True and doc["run"]["kernels"] == 1


@needs_nvcc
def test_ld_library_path_route_reads_cwd_config(libdir, demo_app, tmp_path):
    from gpgpusim.options.config import gpu_config_path

    src = gpu_config_path("SM75_RTX2060").parent
    for name in os.listdir(src):
        shutil.copy(src / name, tmp_path / name)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPGPUSIM_") and k != "PTX_SIM_MODE_FUNC"}
    env.update(LD_LIBRARY_PATH=str(libdir), GPGPUSIM_PYTHONPATH=ROOT, PTX_SIM_MODE_FUNC="1")
    r = subprocess.run([str(demo_app)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "vector_add: PASS" in r.stdout
    assert r.stdout.splitlines()[0] == (
        f"GPGPU-Sim: simulating {(tmp_path / 'gpgpusim.config').resolve()} (found as ./gpgpusim.config in the "
        f"working directory, as GPGPU-Sim reads it); functional simulation (-gpgpu_ptx_sim_mode 1); ISA: PTX")
    assert "-gpgpu_n_clusters                      30" in r.stdout or "-gpgpu_n_clusters 30" in " ".join(
        r.stdout.split())
    # without a gpgpusim.config the route says it runs the default GPU
    (tmp_path / "gpgpusim.config").unlink()
    r = subprocess.run([str(demo_app)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.splitlines()[0] == (
        "GPGPU-Sim: simulating SM7_QV100 (the default GPU: no --gpu, --config or ./gpgpusim.config); functional "
        "simulation (-gpgpu_ptx_sim_mode 1); ISA: PTX"), r.stdout[:500]


@needs_nvcc
def test_demo(with_lib, capfd):
    assert cli.main(["demo", "--functional"]) == 0
    out = capfd.readouterr().out
    assert "vector_add: PASS" in out


@needs_nvcc
def test_static_cudart_binary_is_refused(with_lib, tmp_path, capsys):
    (tmp_path / "va.cu").write_text(cli.DEMO_SOURCE)
    exe = tmp_path / "va_static"
    subprocess.run([NVCC, str(tmp_path / "va.cu"), "-o", str(exe)], check=True)   # nvcc default: static
    assert cli.main(["run", "--", str(exe)]) == 2
    assert "rebuild it with `nvcc -cudart shared" in capsys.readouterr().err
    assert cli.check_binary("/bin/sh") is None


def test_check_binary_skips_scripts(with_lib, tmp_path):
    script = tmp_path / "s.sh"
    script.write_text("#!/bin/sh\n")
    assert cli.check_binary(str(script)) is None


@needs_nvcc
def test_the_run_says_what_it_simulates(with_lib, demo_app, tmp_path):
    r = _run_cli(with_lib, ["run", "--functional", "-o", str(tmp_path / "a.json"), "--", str(demo_app)], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == ("GPGPU-Sim: simulating SM7_QV100 (the default GPU: no --gpu, --config or "
                                        "./gpgpusim.config); functional simulation (-gpgpu_ptx_sim_mode 1); ISA: PTX")
    # SM7_QV100's -gpgpu_ptx_force_max_capability 70 is older than any PTX nvcc 13 emits: a note
    assert r.stderr.splitlines() == [
        "GPGPU-Sim PTX: note: fat binary #1 has no PTX for compute capability <= 70 (-gpgpu_ptx_force_max_capability "
        "70, the config's own value), so its oldest PTX, compute_75, is simulated (CUDA 13's nvcc emits compute_75 at "
        "the oldest); --set -gpgpu_ptx_force_max_capability=75 selects it without this note"]
    doc = json.loads((tmp_path / "a.json").read_text())
    assert doc["gpu"] == doc["run"]["gpu"] == "SM7_QV100"
    # a limit the user set is a warning with its remedy; 75 is silent
    r = _run_cli(with_lib, ["run", "--functional", "--set", "-gpgpu_ptx_force_max_capability=60", "--",
                            str(demo_app)], tmp_path)
    assert r.stderr.splitlines() == [
        "GPGPU-Sim PTX: WARNING: fat binary #1 has no PTX for compute capability <= 60 (-gpgpu_ptx_force_max_capability "
        "60, set by --set), so its oldest PTX, compute_75, is simulated; raise -gpgpu_ptx_force_max_capability to 75 "
        "or rebuild the application with PTX for it (nvcc -gencode arch=compute_60,code=compute_60, where the "
        "toolkit supports it)"]
    r = _run_cli(with_lib, ["run", "--functional", "--gpu", "SM86_RTX3070", "--", str(demo_app)], tmp_path)
    assert r.stderr == "" and r.stdout.splitlines()[0] == (
        "GPGPU-Sim: simulating SM86_RTX3070 (given by --gpu ($GPGPUSIM_GPU)); functional simulation "
        "(-gpgpu_ptx_sim_mode 1); ISA: PTX")
    # ./gpgpusim.config replaces the default, and says so; the JSON names the file
    from gpgpusim.options.config import gpu_config_path

    src = gpu_config_path("SM75_RTX2060").parent
    for name in os.listdir(src):
        shutil.copy(src / name, tmp_path / name)
    r = _run_cli(with_lib, ["run", "-o", str(tmp_path / "b.json"), "--", str(demo_app)], tmp_path,
                 env={"GPGPUSIM_NATIVE": "0"})
    assert r.returncode == 0, r.stderr
    path = str((tmp_path / "gpgpusim.config").resolve())
    assert r.stdout.splitlines()[0] == (
        f"GPGPU-Sim: simulating {path} (found as ./gpgpusim.config in the working directory, as GPGPU-Sim reads "
        f"it); performance simulation (-gpgpu_ptx_sim_mode 0); ISA: PTX")
    doc = json.loads((tmp_path / "b.json").read_text())
    assert doc["gpu"] == doc["run"]["gpu"] == path
    assert doc["gpu_selected_by"] == "found as ./gpgpusim.config in the working directory, as GPGPU-Sim reads it"


@needs_nvcc
def test_every_stats_json_field_is_documented(with_lib, demo_app, tmp_path):
    """docs/STATS_JSON.md names every field a performance and a functional run write."""
    import re

    doc_text = open(os.path.join(ROOT, "docs", "STATS_JSON.md")).read()
    documented = set(re.findall(r"`([A-Za-z_][\w\[\]]*)`", doc_text))
    for mode in ([], ["--functional"]):
        out = tmp_path / f"s{len(mode)}.json"
        r = _run_cli(with_lib, ["run", *mode, "-o", str(out), "--", str(demo_app)], tmp_path,
                     env={"GPGPUSIM_NATIVE": "0"})
        assert r.returncode == 0, r.stderr
        d = json.loads(out.read_text())
        fields = set(d) | set(d["simulator"]) | set(d["totals"]) | set(d["run"])
        for k in d["kernels"]:
            fields |= set(k) | set(k.get("counters", {})) | set(k["simulation_time"])
        for s in d["samples"]:
            fields |= set(s)
        fields |= set(d["totals"].get("counters", {}))
        assert fields - documented == set(), mode


def test_unmodelled_options_say_so():
    from gpgpusim.options import load_config
    from gpgpusim.runtime import unmodelled_notes

    assert unmodelled_notes(load_config(None, env=False)) == []
    cfg = load_config(None, overrides=["-power_simulation_enabled 1", "-checkpoint_option 1"], env=False)
    assert unmodelled_notes(cfg) == [
        "GPGPU-Sim: NOTE: -power_simulation_enabled is set but not modelled (the AccelWattch power model: no "
        "power figures are produced)",
        "GPGPU-Sim: NOTE: -checkpoint_option is set but not modelled (checkpointing: no checkpoint is written)"]


CDP_SOURCE = r"""
#include <cstdio>
__global__ void child(int *a) { a[threadIdx.x] += 1; }
__global__ void parent(int *a, int stream) {
  if (threadIdx.x == 0) {
    if (stream) {
      cudaStream_t s;
      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      child<<<1, 32, 0, s>>>(a);
    } else {
      child<<<1, 32>>>(a);
    }
  }
}
int main(int argc, char **argv) {
  int *d, h[32];
  cudaMalloc(&d, 32 * sizeof(int));
  cudaMemset(d, 0, 32 * sizeof(int));
  parent<<<1, 32>>>(d, argc > 1);
  printf("cdp: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("a[31] = %d\n", h[31]);
  return 0;
}
"""


@needs_nvcc
def test_device_runtime_registration_is_one_line(with_lib, tmp_path):
    """A binary linking libcudadevrt: one line about it, not one per device-runtime symbol; the
    device-side launch runs; a device-runtime call that is not simulated (stream creation)
    fails the kernel with one line naming it and cudaErrorNotSupported, no traceback."""
    (tmp_path / "cdp.cu").write_text(CDP_SOURCE)
    subprocess.run([NVCC, "-cudart", "shared", "-rdc=true", str(tmp_path / "cdp.cu"), "-o", str(tmp_path / "cdp"),
                    "-lcudadevrt"], check=True, capture_output=True)
    note = ("gpgpusim: fat binary #1 links CUDA's device runtime (libcudadevrt, dynamic parallelism), which it "
            "carries without PTX: device-side kernel launches run as child grids; other device-runtime "
            "calls return cudaErrorNotSupported")
    r = _run_cli(with_lib, ["run", "--functional", "--set", "-gpgpu_ptx_force_max_capability=75", "--",
                            str(tmp_path / "cdp")], tmp_path)
    out = r.stdout.splitlines()
    assert r.returncode == 0 and "cdp: cudaSuccess" in out and "a[31] = 1" in out, r.stdout[-2000:]
    assert r.stderr.splitlines() == [note]
    r = _run_cli(with_lib, ["run", "--functional", "--set", "-gpgpu_ptx_force_max_capability=75", "--",
                            str(tmp_path / "cdp"), "stream"], tmp_path)
    assert r.returncode == 0 and "cdp: cudaErrorNotSupported" in r.stdout.splitlines()
    err = r.stderr.splitlines()
    assert err[0] == note and len(err) == 2, r.stderr
    assert re.fullmatch(r"gpgpusim: cudaDeviceSynchronize: cudaErrorNotSupported: not supported: call of "
                        r"__cudaCDP2StreamCreateWithFlags at fatbin1\.sm_75\.ptx:\d+", err[1]), err[1]


def test_run_starts_the_app_without_loading_the_performance_model(with_lib, tmp_path):
    """`gpgpusim run` checks the config and the sampling options, then becomes the app: the
    performance model (and numpy under it) load in the app, not first in the command as well
    (~0.2 s of every run)."""
    app, _ = _marker_app(tmp_path)
    code = ("import sys\nfrom gpgpusim import cli\ncli._exec_app = lambda argv, env: None\n"
            f"rc = cli.main(['run', '--sample', 'all', '--', {app!r}])\n"
            "print(rc, sorted(m for m in ('gpgpusim.timing', 'numpy') if m in sys.modules))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert r.stdout.split("\n")[0] == "0 []", r.stdout + r.stderr


def test_run_sample_option(with_lib, tmp_path, monkeypatch, capsys):
    """--sample kernel sets -gpgpusim_sampling; an unknown mode or tolerance base stops the run."""
    app, marker = _marker_app(tmp_path)
    seen = {}
    monkeypatch.setattr(cli, "_exec_app", lambda argv, env: seen.update(env))
    assert cli.main(["run", "--sample", "kernel", "--", app]) in (0, None)
    assert seen["GPGPUSIM_SET_OPTIONS"] == "-gpgpusim_sampling=kernel"
    assert cli.main(["run", "--set", "-gpgpusim_sampling=sometimes", "--", app]) == 2
    assert capsys.readouterr().err == ("gpgpusim run: -gpgpusim_sampling 'sometimes': expected off, kernel, "
                                       "cta or all\n")
    assert cli.main(["run", "--sample", "all", "--set", "-gpgpusim_sampling_tol_of=time", "--", app]) == 2
    assert capsys.readouterr().err == "gpgpusim run: -gpgpusim_sampling_tol_of 'time': expected cycles or work\n"
    assert not marker.exists()
