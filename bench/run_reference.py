#!/usr/bin/env python3
"""Speed and accuracy benchmark against the C++ GPGPU-Sim 4.2 reference runs.

Builds ``../shared/reference/programs/*.cu`` exactly as the reference was built
(``nvcc -O2 -cudart shared``, default arch) into ``bench/results/bin/``, runs each program under
``gpgpusim run --functional`` (``--mode timing`` or ``both`` for performance simulation), and
reports per program: PASS/FAIL, wall time, start-up time to the first kernel launch, simulated
thread instructions per second; per kernel: thread and warp instruction counts (and cycles in
timing mode) next to the C++ figures in ``gpgpusim-reference.csv`` (SM7_QV100, launch latency
5000). The markdown table goes to stdout and ``bench/results/reference-<mode>-<time>.md``.

Notes on the reference figures: the CSV comes from GPGPU-Sim *performance* runs, whose
``gpu_sim_insn`` leaves out predicated-off lanes ("thread insn" here, compared per kernel with
the CSV); its functional mode counts them too (vectorAdd +1/thread, reduce kernel 1 +5/thread,
matmul +2/thread, per ``gpgpusim-baseline.md``), which is our "func insn" (the JSON's
``functional_insn``, the "Done functional simulation" figure), compared with "C++ func insn". "after start-up" divides by the wall time after the
first kernel launch line. C++ functional-mode wall times
(from the baseline report) are in ``CPP_FUNCTIONAL_WALL_S``.

Usage: ``python bench/run_reference.py [--programs vectoradd,reduce] [--mode functional]``;
``--suite apps`` runs our own ``apps/`` the same way (speed only; no reference figures).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from refprogs import (  # noqa: E402 - the shared helpers live beside this script
    REFERENCE,
    REPO,
    SHARED_DIR,
    build,
    gpgpusim_cmd,
    load_reference,
)

__all__ = ["REFERENCE", "REPO", "SHARED_DIR", "build", "gpgpusim_cmd", "load_reference"]

RESULTS = REPO / "bench" / "results"

# C++ GPGPU-Sim 4.2, PTX_SIM_MODE_FUNC=1, SM7_QV100, whole-process wall time (baseline report).
CPP_FUNCTIONAL_WALL_S = {"matmul": 7.6, "vectoradd": 0.6, "reduce": 1.8}
# Same runs: total thread instructions printed ("Done functional simulation (N ...)").
CPP_FUNCTIONAL_INSN = {"matmul": 65_011_712, "vectoradd": 1_441_792, "reduce": 11_425_023}

_PUSH = re.compile(r"pushing kernel '([^']+)'")
_DONE = re.compile(r"Done functional simulation \((\d+) instructions simulated\)")
_SIM_INSN = re.compile(r"^gpu_sim_insn = (\d+)")
_SIM_CYCLE = re.compile(r"^gpu_sim_cycle = (\d+)")
_W_ICOUNT = re.compile(r"^gpgpu_n_tot_w_icount = (\d+)")


@dataclass
class KernelResult:
    name: str
    thread_insn: int | None = None
    warp_insn: int | None = None
    cycles: int | None = None
    functional_insn: int | None = None   # predicated-off lanes included (GPGPU-Sim functional mode)


@dataclass
class RunResult:
    program: str
    mode: str
    returncode: int | None
    passed: bool
    wall_s: float
    startup_s: float | None
    kernels: list[KernelResult] = field(default_factory=list)
    error: str = ""

    @property
    def thread_insn(self) -> int | None:
        """Total thread instructions, None when no kernel reported a count."""
        counts = [k.thread_insn for k in self.kernels if k.thread_insn is not None]
        return sum(counts) if counts else None

    @property
    def functional_insn(self) -> int | None:
        """Total of the 'Done functional simulation' count (C++ functional mode's rule)."""
        counts = [k.functional_insn for k in self.kernels if k.functional_insn is not None]
        return sum(counts) if counts else None


PROBE_DIR = REPO / "tests" / "apps" / "launch_probe"


def run_program(program: str, exe: Path, mode: str, timeout_s: float, json_flag: str,
                driver: str = "batched") -> RunResult:
    """Runs one program, timestamping each stdout line to find the first kernel launch.
    ``driver="warp"`` runs the functional engine's warp-step driver (set through
    GPGPUSIM_DRIVER and forced by the test launch probe until the runtime reads it)."""
    env = dict(os.environ)
    path = [str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["GPGPUSIM_PYTHONPATH"] = str(REPO)
    with tempfile.TemporaryDirectory(prefix=f"bench-{program}-") as tmp:
        if driver != "batched":
            path.insert(0, str(PROBE_DIR))
            env.update(GPGPUSIM_DRIVER=driver, GPGPUSIM_TEST_FORCE_DRIVER=driver,
                       GPGPUSIM_TEST_LAUNCH_LOG=str(Path(tmp) / "launches.jsonl"))
        env["PYTHONPATH"] = os.pathsep.join(path)
        json_path = Path(tmp) / "stats.json"
        cmd = gpgpusim_cmd() + ["run"] + (["--functional"] if mode == "functional" else [])
        if json_flag:
            cmd += [json_flag, str(json_path)]
        cmd += ["--", str(exe)]
        lines: list[tuple[float, str]] = []
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, errors="replace")
        err_chunks: list[str] = []
        err_reader = threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()), daemon=True)
        err_reader.start()
        timer = threading.Timer(timeout_s, proc.kill)
        timer.start()
        try:
            for line in proc.stdout:
                lines.append((time.perf_counter() - t0, line.rstrip("\n")))
            rc = proc.wait()
        finally:
            timer.cancel()
        wall = time.perf_counter() - t0
        err_reader.join(5)
        stderr = "".join(err_chunks)
        stats = json.loads(json_path.read_text()) if json_path.exists() else None

    startup = next((t for t, ln in lines if _PUSH.search(ln)), None)
    text = [ln for _, ln in lines]
    passed = rc == 0 and any("PASS" in ln for ln in text) and not any("FAIL" in ln for ln in text)
    res = RunResult(program, mode, rc, passed, wall, startup)
    for k in (stats or {}).get("kernels", []):
        res.kernels.append(KernelResult(k.get("kernel_name", "?"), k.get("thread_insn"), k.get("warp_insn"),
                                        k.get("cycles"), k.get("functional_insn")))
    if not res.kernels:  # no JSON, or one without kernels: what the text output says
        res.kernels = _kernels_from_text(text)
    if rc != 0:
        res.error = (stderr.strip().splitlines() or ["(no stderr)"])[-1]
        if rc < 0 or wall >= timeout_s:
            res.error = f"killed after {wall:.0f} s (timeout {timeout_s:.0f} s)"
    return res


def _kernels_from_text(text: list[str]) -> list[KernelResult]:
    """Per-kernel counts from GPGPU-Sim-style output when no JSON was written: functional
    mode's cumulative ``Done functional simulation (N ...)``, or performance mode's
    ``gpu_sim_insn``/``gpu_sim_cycle`` and cumulative ``gpgpu_n_tot_w_icount``."""
    kernels: list[KernelResult] = []
    prev_done = prev_w = 0
    for ln in text:
        if m := _PUSH.search(ln):
            kernels.append(KernelResult(m.group(1)))
        elif kernels and (m := _DONE.search(ln)):
            kernels[-1].thread_insn = int(m.group(1)) - prev_done
            prev_done = int(m.group(1))
        elif kernels and (m := _SIM_INSN.match(ln)):
            kernels[-1].thread_insn = int(m.group(1))
        elif kernels and (m := _SIM_CYCLE.match(ln)):
            kernels[-1].cycles = int(m.group(1))
        elif kernels and (m := _W_ICOUNT.match(ln)):
            kernels[-1].warp_insn = int(m.group(1)) - prev_w
            prev_w = int(m.group(1))
    return kernels


def _fmt(n: float | int | None, digits: int = 0) -> str:
    if n is None:
        return "-"
    return f"{n:,.{digits}f}" if digits else f"{int(n):,}"


def _diff(ours: int | None, ref: int | None) -> str:
    if ours is None or ref is None or ref == 0:
        return "-"
    if ours == ref:
        return "="
    return f"{100.0 * (ours - ref) / ref:+.2f}%"


def render(results: list[RunResult], reference: dict[str, list[dict[str, str]]]) -> str:
    out = ["## Programs", "",
           "| program | mode | result | wall s | start-up s | thread insn | func insn | C++ func insn | diff "
           "| thread insn/s "
           "| after start-up | C++ func wall s | C++ perf wall s |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        rate = r.thread_insn / r.wall_s if r.wall_s > 0 and r.thread_insn else None
        sim_s = r.wall_s - r.startup_s if r.startup_s is not None else None
        sim_rate = r.thread_insn / sim_s if sim_s and sim_s > 0 and r.thread_insn else None
        ref_rows = reference.get(r.program, [])
        perf_wall = float(ref_rows[0]["run_wall_s"]) if ref_rows else None
        cpp_insn = CPP_FUNCTIONAL_INSN.get(r.program) if r.mode == "functional" else None
        result = "PASS" if r.passed else f"FAIL ({r.error or 'rc=' + str(r.returncode)})"
        out.append(f"| {r.program} | {r.mode} | {result} | {r.wall_s:.2f} | {_fmt(r.startup_s, 2)} | "
                   f"{_fmt(r.thread_insn)} | {_fmt(r.functional_insn)} | {_fmt(cpp_insn)} | "
                   f"{_diff(r.functional_insn, cpp_insn)} | {_fmt(rate)} | "
                   f"{_fmt(sim_rate)} | "
                   f"{_fmt(CPP_FUNCTIONAL_WALL_S.get(r.program), 1)} | "
                   f"{_fmt(perf_wall, 1)} |")
    out += ["", "## Kernels (reference: C++ GPGPU-Sim 4.2, SM7_QV100, performance mode)", "",
            "| program | mode | # | kernel | thread insn | ref | diff | warp insn | ref | diff | cycles | ref | diff |",
            "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        ref_rows = reference.get(r.program, [])
        for i in range(max(len(r.kernels), len(ref_rows))):
            k = r.kernels[i] if i < len(r.kernels) else KernelResult("(missing)")
            ref = ref_rows[i] if i < len(ref_rows) else None
            rt = int(ref["gpu_sim_insn"]) if ref else None
            rw = int(ref["warp_insn_kernel"]) if ref else None
            rc = int(ref["gpu_sim_cycle"]) if ref else None
            name = k.name if ref is None or k.name == ref["kernel_name"] else f"{k.name} (ref {ref['kernel_name']})"
            out.append(f"| {r.program} | {r.mode} | {i + 1} | `{name}` | {_fmt(k.thread_insn)} | {_fmt(rt)} | "
                       f"{_diff(k.thread_insn, rt)} | {_fmt(k.warp_insn)} | {_fmt(rw)} | {_diff(k.warp_insn, rw)} | "
                       f"{_fmt(k.cycles)} | {_fmt(rc) if r.mode == 'timing' else '-'} | "
                       f"{_diff(k.cycles, rc) if r.mode == 'timing' else '-'} |")
    return "\n".join(out) + "\n"


def app_programs() -> list[str]:
    """The apps/ suite's binaries (``make -C apps list``)."""
    out = subprocess.run(["make", "-s", "-C", str(REPO / "apps"), "list"], capture_output=True, text=True,
                         check=True)
    return sorted(out.stdout.split())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", choices=("reference", "apps"), default="reference",
                    help="the C++ reference programs (default) or our own apps/ (no reference figures)")
    ap.add_argument("--programs", default="", help="comma-separated program names (default: all of the suite)")
    ap.add_argument("--mode", choices=("functional", "timing", "both"), default="functional")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per program run")
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    ap.add_argument("--json-flag", default="-o",
                    help="gpgpusim run option that writes the stats JSON ('' to parse text only)")
    ap.add_argument("--driver", choices=("batched", "warp"), default="batched",
                    help="functional engine driver (warp = the warp-step driver the timing model uses)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)

    if args.suite == "apps":
        subprocess.run(["make", "-s", "-C", str(REPO / "apps"), "-j2", f"NVCC={args.nvcc}"], check=True)
        all_programs = app_programs()
    else:
        all_programs = sorted(p.stem for p in (REFERENCE / "programs").glob("*.cu"))
    programs = [p for p in args.programs.split(",") if p] or all_programs
    unknown = sorted(set(programs) - set(all_programs))
    if unknown:
        ap.error(f"unknown program(s) {unknown}; known: {all_programs}")
    modes = ["functional", "timing"] if args.mode == "both" else [args.mode]
    reference = load_reference() if args.suite == "reference" else {}
    results = []
    for prog in programs:
        if args.suite == "apps":
            exe = REPO / "apps" / "bin" / prog
        else:
            exe = build(prog, args.nvcc, args.out / "bin")
        for mode in modes:
            r = run_program(prog, exe, mode, args.timeout, args.json_flag, args.driver)
            results.append(r)
            print(f"{prog} ({mode}): {'PASS' if r.passed else 'FAIL'} in {r.wall_s:.2f} s"
                  + (f" - {r.error}" if r.error else ""), file=sys.stderr, flush=True)
    table = render(results, reference)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{args.suite}-{args.mode}-{args.driver}-{time.strftime('%Y%m%d-%H%M%S')}.md"
    path.write_text(f"# gpgpusim: {args.suite} suite ({args.mode}, {args.driver} driver)\n\n{table}")
    print(table)
    print(f"written to {path}", file=sys.stderr)
    return 0 if all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
