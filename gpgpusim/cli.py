"""The ``gpgpusim`` command.

GPGPU-Sim counterpart: the ``setup_environment`` + ``LD_LIBRARY_PATH`` workflow (checklist C013,
C018, C003, C021, C022); here one command sets everything up:

* ``gpgpusim run [--gpu NAME | --config FILE] [--functional] [--set -opt=value ...] [-o stats.json]
  -- ./app args`` runs an unmodified ``nvcc -cudart shared`` binary on the simulated GPU: the
  complete config is loaded and the output paths are checked first, so a bad option, value or
  include, or an ``-o`` that cannot be written, stops the run (exit 2) before the application
  starts; then it execs the application (:func:`_exec_app`), whose exit status and signals are
  the run's; ``--sample kernel|cta|all`` sets ``-gpgpusim_sampling`` (sampled performance
  simulation, ``timing/kernel_sampling.py`` and ``timing/cta_sampling.py``);
* ``gpgpusim libdir`` prints the directory holding our ``libcudart.so.13``, for the GPGPU-Sim
  style ``LD_LIBRARY_PATH=$(gpgpusim libdir) ./app`` (a ``gpgpusim.config`` in the working
  directory is then used, as in GPGPU-Sim);
* ``gpgpusim demo`` compiles a bundled vector-add with nvcc in a temporary directory and runs it
  on the embedded default config;
* ``gpgpusim configs ...``, ``gpgpusim plot ...`` and ``gpgpusim correlate ...`` hand over to
  :mod:`gpgpusim.options`, :mod:`gpgpusim.report.plot` and :mod:`gpgpusim.report.correlate`.

The run is configured through the environment the library reads: ``GPGPUSIM_CONFIG`` /
``GPGPUSIM_GPU`` (config), ``GPGPUSIM_OPTIONS`` (the user's overrides),
``GPGPUSIM_SET_OPTIONS`` (``--set``), ``PTX_SIM_MODE_FUNC=1``
(functional), ``GPGPUSIM_STATS_JSON`` (JSON statistics), ``GPGPUSIM_PYTHONPATH`` (this package).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from gpgpusim import __version__
from gpgpusim.appenv import SONAME, check_binary, check_config, find_nvcc, libdir, run_env
from gpgpusim.errors import CudaError
from gpgpusim.options import main_configs
from gpgpusim.options.config import DEFAULT_GPU


DEMO_SOURCE = r"""
#include <cstdio>
#include <cstdlib>

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main()
{
    const int n = 4096;
    float *ha = (float *)malloc(n * sizeof(float)), *hb = (float *)malloc(n * sizeof(float));
    float *hc = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) { ha[i] = (float)i; hb[i] = 0.5f * i; }
    float *da, *db, *dc;
    cudaMalloc(&da, n * sizeof(float)); cudaMalloc(&db, n * sizeof(float)); cudaMalloc(&dc, n * sizeof(float));
    cudaMemcpy(da, ha, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb, n * sizeof(float), cudaMemcpyHostToDevice);
    vector_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
    cudaError_t err = cudaMemcpy(hc, dc, n * sizeof(float), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) if (hc[i] != 1.5f * i) bad++;
    printf("vector_add: %s (%s, %d mismatches)\n", bad || err ? "FAIL" : "PASS", cudaGetErrorString(err), bad);
    cudaFree(da); cudaFree(db); cudaFree(dc);
    return bad || err ? 1 : 0;
}
"""


RUN_EPILOG = """\
what is simulated:
  the GPU config is --gpu NAME or --config FILE ($GPGPUSIM_GPU / $GPGPUSIM_CONFIG), else
  ./gpgpusim.config of the working directory, else the default {default_gpu}; the run's first
  line names it and says why.  Performance simulation (-gpgpu_ptx_sim_mode 0) unless
  --functional.  `gpgpusim configs` lists the shipped GPUs.

environment variables (read by the simulated application):
  GPGPUSIM_GPU, GPGPUSIM_CONFIG  the config (what --gpu / --config set)
  GPGPUSIM_OPTIONS             extra "-opt value" overrides, applied before --set
  PTX_SIM_MODE_FUNC=1          functional simulation (what --functional sets)
  GPGPUSIM_STATS_JSON          the JSON statistics file (what -o sets)
  GPGPUSIM_DRIVER=warp         functional mode: step warps one by one
  GPGPUSIM_PROGRESS=0          no liveness line (-liveness_message_freq seconds apart)
  GPGPUSIM_NATIVE=0            performance model as pure Python (same statistics, slower)
  GPGPUSIM_SKIP_IDLE=0         cycle every component every cycle (same statistics, slower)
  GPGPUSIM_TRACEBACK=1         Python tracebacks behind CUDA errors
  PTX_SIM_DEBUG, PTX_SIM_DEBUG_THREAD_UID, PTX_SIM_USE_PTX_FILE, PTX_SIM_KERNELFILE  as in GPGPU-Sim

exit status:
  the application's own; 1 when a stop limit (-gpgpu_max_cycle, -gpgpu_max_insn,
  -gpgpu_max_cta, -gpgpu_max_completed_cta) ended the run; --error-exitcode (default 1) when
  memcheck reported errors; 128+N after signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP: the
  statistics so far are printed and written first); 2 when gpgpusim run refused to start
  (bad option or config, unusable -o path, unrunnable binary).
"""


def _exit_code(rc: int) -> int:
    return 128 - rc if rc < 0 else rc


def cmd_run(a: argparse.Namespace) -> int:
    argv = list(a.app)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise SystemExit("gpgpusim run: no application given (usage: gpgpusim run [options] -- ./app args)")
    sets = list(a.set)
    if getattr(a, "ptxplus", False):
        sets.append("-gpgpu_ptx_convert_to_ptxplus=1")
    if getattr(a, "memcheck", None):
        sets.append(f"-gpgpusim_memcheck={2 if a.memcheck == 'stop' else 1}")
    if a.error_exitcode is not None:
        sets.append(f"-gpgpusim_memcheck_error_exitcode={a.error_exitcode}")
    if getattr(a, "sample", None):
        sets.append(f"-gpgpusim_sampling={a.sample}")
    if a.output:
        problem = check_output_path(a.output)
        if problem is not None:
            print(f"gpgpusim run: -o {a.output}: {problem}", file=sys.stderr)
            return 2
    env = run_env(a.gpu, a.config, a.functional, sets, a.output)
    cfg = check_config(env)
    from gpgpusim.options.sampling import parse_mode, parse_tol_of
    try:
        parse_mode(cfg.get("gpgpusim_sampling"))
        parse_tol_of(cfg.get("gpgpusim_sampling_tol_of"))
    except ValueError as exc:
        print(f"gpgpusim run: {exc}", file=sys.stderr)
        return 2
    for option, path in _config_output_paths(cfg):
        problem = check_output_path(path)
        if problem is not None:
            print(f"gpgpusim run: -{option} {path}: {problem}", file=sys.stderr)
            return 2
    exe = shutil.which(argv[0]) or argv[0]
    problem = check_binary(exe)
    if problem is not None:
        print(f"gpgpusim run: {problem}", file=sys.stderr)
        return 2
    try:
        _exec_app(argv, env)
    except FileNotFoundError:
        raise SystemExit(f"gpgpusim run: {argv[0]}: no such file") from None
    except PermissionError:
        raise SystemExit(f"gpgpusim run: {argv[0]}: not executable") from None
    except OSError as exc:
        raise SystemExit(f"gpgpusim run: {argv[0]}: cannot execute: {exc.strerror}") from None
    return 0    # not reached: exec replaced this process


def _config_output_paths(cfg: Any) -> list[tuple[str, str]]:
    """``(option, path)`` of each file the config makes the run write: the event trace, the
    AerialVision log and the instruction debug trace, when on."""
    def opt(name: str) -> str:
        try:
            return str(cfg.get(name) or "")
        except (AttributeError, KeyError, TypeError, ValueError):
            return ""

    paths = []
    if opt("gpgpusim_trace_file") not in ("", "stderr", "stdout"):
        paths.append(("gpgpusim_trace_file", opt("gpgpusim_trace_file")))
    if opt("visualizer_enabled") in ("1", "True") and opt("visualizer_outputfile") not in ("", "NULL"):
        paths.append(("visualizer_outputfile", opt("visualizer_outputfile")))
    if opt("gpgpu_ptx_inst_debug_to_file") in ("1", "True") and opt("gpgpu_ptx_inst_debug_file"):
        paths.append(("gpgpu_ptx_inst_debug_file", opt("gpgpu_ptx_inst_debug_file")))
    return paths


def check_output_path(path: str) -> str | None:
    """Why the statistics cannot be written to ``path`` when the run ends, or None; checked
    before the run so that a long simulation does not end with nowhere to put its results."""
    target = Path(path)
    if target.is_dir():
        return "is a directory"
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        return f"directory {str(parent)!r} does not exist"
    if target.exists():
        return None if os.access(target, os.W_OK) else "not writable"
    return None if os.access(parent, os.W_OK | os.X_OK) else f"directory {str(parent)!r} is not writable"


def _exec_app(argv: list[str], env: dict[str, str]) -> None:
    """Replace this process by the application (``execvpe``), as ``env``, ``nice`` or
    ``numactl`` do: every signal meant for ``gpgpusim run`` (Ctrl-C from the terminal,
    ``kill``, ``timeout -s INT``, a job runner's SIGTERM or SIGHUP, to the process or its group)
    reaches the application itself, which stops keeping its statistics
    (:mod:`gpgpusim.device.interrupt`), and a SIGKILL ends the application, never leaving it
    running without us.  Python ignores SIGPIPE and SIGXFSZ, and an ignored signal stays
    ignored across exec: both get their default action back first, as ``subprocess`` gives a
    child, so that ``./app | head`` behaves as without the simulator."""
    sys.stdout.flush()
    sys.stderr.flush()
    restored = {}
    for name in ("SIGPIPE", "SIGXFSZ"):
        sig = getattr(signal, name, None)
        if sig is not None:
            restored[sig] = signal.signal(sig, signal.SIG_DFL)
    try:
        os.execvpe(argv[0], argv, env)
    finally:        # only reached when exec failed
        for sig, handler in restored.items():
            signal.signal(sig, handler)


def cmd_libdir(a: argparse.Namespace) -> int:
    print(libdir())
    return 0


def cmd_demo(a: argparse.Namespace) -> int:
    nvcc = find_nvcc()
    if nvcc is None:
        raise SystemExit("gpgpusim demo: nvcc not found (put it on PATH or set CUDA_INSTALL_PATH)")
    env = run_env(functional=a.functional)
    for k in ("GPGPUSIM_CONFIG", "GPGPUSIM_GPU"):
        env.pop(k, None)
    with tempfile.TemporaryDirectory(prefix="gpgpusim-demo-") as tmp:
        check_config(env, cwd=tmp)
        src = os.path.join(tmp, "vectoradd.cu")
        exe = os.path.join(tmp, "vectoradd")
        with open(src, "w", encoding="utf-8") as f:
            f.write(DEMO_SOURCE)
        print(f"gpgpusim demo: {nvcc} -cudart shared vectoradd.cu -o vectoradd", flush=True)
        comp = subprocess.run([nvcc, "-cudart", "shared", src, "-o", exe], check=False)
        if comp.returncode != 0:
            return comp.returncode
        proc = subprocess.run([exe], env=env, cwd=tmp, check=False)
        return _exit_code(proc.returncode)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gpgpusim", description="Run unmodified CUDA binaries on a simulated GPU")
    p.add_argument("--version", action="version",
                   version=f"gpgpusim {__version__} (GPGPU-Sim 4.2.0, {SONAME})")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run a CUDA application on the simulator",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       usage="gpgpusim run [options] -- ./app [args]",
                       description="Run an unmodified `nvcc -cudart shared` binary on the simulated GPU "
                                   "(performance simulation unless --functional).",
                       epilog=RUN_EPILOG.format(default_gpu=DEFAULT_GPU))
    g = r.add_mutually_exclusive_group()
    g.add_argument("--gpu", help=f"a shipped GPU config (see `gpgpusim configs`; default {DEFAULT_GPU}, "
                                 f"or ./gpgpusim.config when the working directory has one)")
    g.add_argument("--config", help="a gpgpusim.config file")
    r.add_argument("--functional", action="store_true",
                   help="functional simulation only (PTX_SIM_MODE_FUNC=1); default: performance simulation")
    r.add_argument("--ptxplus", action="store_true",
                   help="simulate the binary's SASS converted to PTXPlus instead of its PTX "
                        "(-gpgpu_ptx_convert_to_ptxplus 1; needs nvdisasm: pip install nvidia-cuda-nvdisasm)")
    r.add_argument("--set", action="append", default=[], metavar="-opt=value",
                   help="override a GPGPU-Sim option (repeatable; after the config and $GPGPUSIM_OPTIONS)")
    r.add_argument("-o", "--output", metavar="stats.json",
                   help="write the statistics as JSON (fields: docs/STATS_JSON.md); checked before the run")
    r.add_argument("--memcheck", nargs="?", const="continue", choices=("continue", "stop"),
                   help="report every device access outside an allocation, as compute-sanitizer "
                        "does, and continue (default) or stop (-gpgpusim_memcheck 1|2)")
    r.add_argument("--error-exitcode", type=int, metavar="N",
                   help="exit status when memcheck reported errors (default 1; 0 keeps the application's; "
                        "-gpgpusim_memcheck_error_exitcode)")
    r.add_argument("--sample", choices=("off", "kernel", "cta", "all"),
                   help="sampled performance simulation (-gpgpusim_sampling): kernel = repeating "
                        "launches are simulated in detail until their cycles per instruction are "
                        "known, the rest run functionally with projected, marked timing; cta = "
                        "the waves of a large grid likewise, and a grid of one wave or of 3-15 "
                        "waves inside its first wave when a screening run allows; all = both")
    r.add_argument("app", nargs=argparse.REMAINDER, help="-- ./app args")
    r.set_defaults(fn=cmd_run)
    sub.add_parser("libdir", help="print the directory of libcudart.so.13").set_defaults(fn=cmd_libdir)
    d = sub.add_parser("demo", help="compile and run a sample application")
    d.add_argument("--functional", action="store_true")
    d.set_defaults(fn=cmd_demo)
    # configs and plot parse their own arguments (main() hands them over before parsing);
    # they are declared here so that `gpgpusim --help` lists them
    for name, text, fn in (("configs", "list, describe and compare the shipped GPU configs", cmd_configs),
                           ("plot", "plot statistics from stats.json files", cmd_plot),
                           ("correlate", "compare simulated kernels with real-GPU measurements (CSV)",
                            cmd_correlate),
                           ("native", "build the compiled performance model, or say whether it is in use",
                            cmd_native),
                           ("sweep", "run programs x GPU configs x options in parallel; tables and plots",
                            cmd_sweep)):
        c = sub.add_parser(name, help=text, add_help=False)
        c.add_argument("rest", nargs=argparse.REMAINDER)
        c.set_defaults(fn=fn)
    return p


def cmd_configs(a: argparse.Namespace) -> int:
    return int(main_configs(list(a.rest)) or 0)


# The subcommands below import their modules when they run: `gpgpusim run` starts in a few
# milliseconds instead of loading the report, plotting, sweep and native-build code first.
def cmd_plot(a: argparse.Namespace) -> int:
    from gpgpusim.report.plot import main as plot_main

    return int(plot_main(list(a.rest)) or 0)


def cmd_correlate(a: argparse.Namespace) -> int:
    from gpgpusim.report.correlate import main as correlate_main

    return int(correlate_main(list(a.rest)) or 0)


def cmd_native(a: argparse.Namespace) -> int:
    from gpgpusim import native

    return native.main(list(a.rest))


def cmd_sweep(a: argparse.Namespace) -> int:
    from gpgpusim.sweep.cli import main as sweep_main

    return sweep_main(list(a.rest))


def _join_set_values(args: list[str]) -> list[str]:
    """``--set -opt=value`` -> ``--set=-opt=value`` (argparse would read ``-opt`` as a flag);
    stops at ``--`` so that the application's own arguments are left alone."""
    out: list[str] = []
    i = 0
    while i < len(args):
        if args[i] == "--":
            out.extend(args[i:])
            break
        if args[i] == "--set" and i + 1 < len(args):
            out.append("--set=" + args[i + 1])
            i += 2
            continue
        out.append(args[i])
        i += 1
    return out


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader of our output went away (`gpgpusim configs --diff A B | head -1`): stop
        # quietly, as a command killed by SIGPIPE does; stdout is pointed at /dev/null so that
        # the interpreter's final flush does not fail again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 128 + signal.SIGPIPE


def _main(argv: list[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    handover = {"configs": cmd_configs, "plot": cmd_plot, "correlate": cmd_correlate, "native": cmd_native,
                "sweep": cmd_sweep}
    if args and args[0] in handover:
        # handed over untouched: their options would otherwise be read as gpgpusim's own
        return handover[args[0]](argparse.Namespace(rest=args[1:]))
    ns = build_parser().parse_args(_join_set_values(args))

    try:
        return int(ns.fn(ns))
    except CudaError as exc:
        print(f"gpgpusim {ns.command}: {exc.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 128 + signal.SIGINT


if __name__ == "__main__":
    sys.exit(main())
