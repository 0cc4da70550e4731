#!/usr/bin/env python3
"""PTX vs PTXPlus: each reference program in both ISAs, performance mode, per kernel.

Builds the reference programs (``../shared/reference/programs/*.cu``, ``nvcc -O2 -cudart shared``
as the reference was built, plus ``-arch=sm_86`` for an SM86 GPU) into ``bench/build/ptxplus/
bin[-sm86]/`` and runs each twice with ``gpgpusim run --gpu <GPU> -o stats.json``: once as PTX and
once with ``--ptxplus`` (the binary's SASS converted to PTXPlus).  Each run must exit 0 and print
the program's own ``PASS`` line (and no ``FAIL``); a PTXPlus run must also say ``"isa": "ptxplus"``
in its JSON.  A run that does not is reported as failing with its first error line.

Printed per kernel launch: warp instructions, cycles, IPC, L1D and L2 accesses, PTX next to
PTXPlus with the ratio PTXPlus/PTX; per program: the results and the CPU seconds of both runs
(``resource.getrusage(RUSAGE_CHILDREN)`` deltas, start-up included) with their ratio, and the
overall ratio (total CPU and geometric mean of the programs' ratios, programs passing both ways).

Usage::

    python3 bench/ptxplus.py                                  # all 11 programs, SM7_QV100
    python3 bench/ptxplus.py --programs vectoradd,reduce --gpu SM86_RTX3070
    python3 bench/ptxplus.py --no-run                         # re-print from the last runs

    python3 bench/ptxplus.py --set=-gpgpusim_timing_feed=trace --tag=-trace   # extra options, own runs

Runs live in ``bench/build/ptxplus/<GPU><tag>/<program>/{ptx,ptxplus}/`` (``stats.json``,
``stdout.txt``, ``stderr.txt``, ``run.json`` with exit status, wall and CPU seconds); the table is
also written to ``bench/results/ptxplus-<GPU><tag>-<time>.md``.  The table logic (:func:`outcome`,
:func:`kernel_rows`, :func:`render`) is unit-tested in ``tests/apps/test_bench_ptxplus.py``.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from refprogs import PROGRAMS_DIR, REPO, build, gpgpusim_cmd, reference_programs, sim_env  # noqa: E402

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
from gpgpusim.report.correlate import fmt_num, ours_value, short_name  # noqa: E402

BUILD = REPO / "bench" / "build" / "ptxplus"
RESULTS = REPO / "bench" / "results"
MODES = ("ptx", "ptxplus")
#: (metric of gpgpusim.report.correlate, column heading)
METRICS = [("warp_insn", "warp insn"), ("cycles", "cycles"), ("ipc", "IPC"),
           ("l1d_accesses", "L1D acc"), ("l2_accesses", "L2 acc")]

_PASS = re.compile(r"\bPASS\b")
_FAIL = re.compile(r"\bFAIL\b")
_ERROR = re.compile(r"error|\bFAIL\b|Traceback|Exception|not supported|abort|Segmentation|killed|"
                    r"PTXPlus: kernel", re.IGNORECASE)
_LIVE = re.compile(r"NOTE: kernel (\S+) runs on the live instruction feed")


# --------------------------------------------------------------------------------------------
# reading a run (pure functions)
# --------------------------------------------------------------------------------------------

def first_error(stdout: str, stderr: str) -> str:
    """The first line of stderr, then of stdout, that looks like an error ("" if none)."""
    for text in (stderr, stdout):
        for ln in text.splitlines():
            if _ERROR.search(ln):
                return ln.strip()[:200]
    return ""


def outcome(mode: str, meta: Mapping[str, Any] | None, stdout: str, stderr: str,
            doc: Mapping[str, Any] | None) -> dict[str, Any]:
    """How one run went: ``passed``, ``error`` (why not, one line), ``cpu_s``, ``wall_s`` and
    ``kernels`` (the stats JSON's kernel records), ``live`` (the kernels that the run's
    note says ran on the live instruction feed, not the recorded trace), from its ``run.json`` (``meta``), output and
    ``stats.json`` (``doc``; None when absent or unreadable)."""
    meta = meta or {}
    rc = meta.get("rc")
    lines = stdout.splitlines()
    error = ""
    if not meta:
        error = "not run"
    elif meta.get("timed_out"):
        error = f"killed after {meta.get('wall_s', 0):.0f} s (timeout)"
    elif rc != 0:
        error = first_error(stdout, stderr) or f"exit status {rc}"
    elif any(_FAIL.search(ln) for ln in lines) or not any(_PASS.search(ln) for ln in lines):
        error = first_error(stdout, stderr) or "no PASS line"
    elif doc is None:
        error = "no stats.json"
    elif doc.get("mode") != "performance":
        error = f"stats.json mode is {doc.get('mode')!r}"
    elif mode == "ptxplus" and doc.get("isa") != "ptxplus":
        error = f"stats.json isa is {doc.get('isa')!r}: " + (first_error("", stderr) or "ran as PTX")
    elif mode == "ptxplus" and "PTXPlus: kernel" in stderr:
        error = first_error("", stderr)
    return {"passed": not error, "error": error, "cpu_s": meta.get("cpu_s"), "wall_s": meta.get("wall_s"),
            "kernels": list((doc or {}).get("kernels") or []), "live": sorted(set(_LIVE.findall(stderr)))}


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


def kernel_rows(program: str, ptx: Sequence[Mapping[str, Any]],
                ptxplus: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per kernel launch found in either run, paired by ``kernel_launch_uid``: program,
    seq, kernel (mangled name) and per metric ``{"ptx", "ptxplus", "ratio"}`` (None = n/a)."""
    def by_uid(ks: Sequence[Mapping[str, Any]]) -> dict[int, Mapping[str, Any]]:
        return {int(k.get("kernel_launch_uid") or i): k for i, k in enumerate(ks, start=1)}
    a, b = by_uid(ptx), by_uid(ptxplus)
    rows = []
    for seq in sorted(set(a) | set(b)):
        ka, kb = a.get(seq), b.get(seq)
        name = (ka or kb or {}).get("kernel_name", "?")
        row: dict[str, Any] = {"program": program, "seq": seq, "kernel": name, "metrics": {}}
        for metric, _ in METRICS:
            va = ours_value(ka, metric) if ka else None
            vb = ours_value(kb, metric) if kb else None
            row["metrics"][metric] = {"ptx": va, "ptxplus": vb, "ratio": _ratio(vb, va)}
        rows.append(row)
    return rows


def speed(results: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """Over the programs that pass in both modes: ``programs`` (their number), ``cpu_ptx`` and
    ``cpu_ptxplus`` (total CPU seconds), ``total_ratio`` and ``geomean_ratio`` (PTXPlus/PTX)."""
    ratios, tot_a, tot_b = [], 0.0, 0.0
    for res in results.values():
        a, b = res["ptx"], res["ptxplus"]
        if a["passed"] and b["passed"] and a["cpu_s"] and b["cpu_s"]:
            ratios.append(b["cpu_s"] / a["cpu_s"])
            tot_a += a["cpu_s"]
            tot_b += b["cpu_s"]
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else None
    return {"programs": len(ratios), "cpu_ptx": tot_a, "cpu_ptxplus": tot_b,
            "total_ratio": _ratio(tot_b, tot_a), "geomean_ratio": geo}


# --------------------------------------------------------------------------------------------
# rendering
# --------------------------------------------------------------------------------------------

def _val(metric: str, v: float | None) -> str:
    if v is None:
        return "n/a"
    return f"{v:.2f}" if metric == "ipc" else fmt_num(v)


def _x(r: float | None) -> str:
    return "n/a" if r is None else f"{r:.2f}x"


def _result(res: Mapping[str, Any]) -> str:
    return "PASS" if res["passed"] else f"FAIL: {res['error']}".replace("|", "/")


def _feed(kernel: str, res: Mapping[str, Mapping[str, Any]]) -> str:
    return "/".join("live" if kernel in res[m].get("live", ()) else "trace" for m in MODES)


def render(gpu: str, results: Mapping[str, Mapping[str, Mapping[str, Any]]], cmd: str = "") -> str:
    """The Markdown report: per-kernel table, per-program table, speed summary."""
    out = [f"# PTX vs PTXPlus, performance mode, {gpu}", ""]
    if cmd:
        out += [f"`{cmd}`", ""]
    out += ["Per kernel launch: PTX / PTXPlus / ratio PTXPlus/PTX; feed: the instruction feed of the "
            "timing model in PTX/PTXPlus (trace: recorded ahead, live: executed at issue, slower).", "",
            "| program | # | kernel | feed | " + " | ".join(f"{h} PTX | PTXPlus | x" for _, h in METRICS) + " |",
            "|---|---:|---|---|" + "---:|---:|---:|" * len(METRICS)]
    for prog, res in results.items():
        for row in kernel_rows(prog, res["ptx"]["kernels"], res["ptxplus"]["kernels"]):
            cells = [_feed(row["kernel"], res)]
            for metric, _ in METRICS:
                m = row["metrics"][metric]
                cells += [_val(metric, m["ptx"]), _val(metric, m["ptxplus"]), _x(m["ratio"])]
            out.append(f"| {prog} | {row['seq']} | {short_name(row['kernel'])} | " + " | ".join(cells) + " |")
    out += ["", "Per program: the program's own verification and the CPU seconds of the whole run "
            "(start-up included).", "",
            "| program | PTX | PTXPlus | CPU s PTX | CPU s PTXPlus | PTXPlus/PTX |",
            "|---|---|---|---:|---:|---:|"]
    for prog, res in results.items():
        a, b = res["ptx"], res["ptxplus"]
        ca, cb = a["cpu_s"], b["cpu_s"]
        out.append(f"| {prog} | {_result(a)} | {_result(b)} | {'n/a' if ca is None else f'{ca:.1f}'} | "
                   f"{'n/a' if cb is None else f'{cb:.1f}'} | {_x(_ratio(cb, ca))} |")
    s = speed(results)
    out += ["", f"PTXPlus/PTX CPU time over the {s['programs']} program(s) passing both ways: "
            f"total {_x(s['total_ratio'])} ({s['cpu_ptxplus']:.1f} s / {s['cpu_ptx']:.1f} s), "
            f"geometric mean {_x(s['geomean_ratio'])}."]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------------------------

def run_dir(setting: str, program: str, mode: str) -> Path:
    return BUILD / setting / program / mode


def run_one(exe: Path, d: Path, gpu: str, mode: str, timeout_s: float, sets: Sequence[str] = ()) -> None:
    """``gpgpusim run --gpu <gpu> [--ptxplus] [--set ...] -o stats.json -- <exe>`` in a fresh ``d``."""
    d.mkdir(parents=True, exist_ok=True)
    for f in ("stats.json", "run.json", "stdout.txt", "stderr.txt"):
        (d / f).unlink(missing_ok=True)
    cmd = gpgpusim_cmd() + ["run", "--gpu", gpu] + (["--ptxplus"] if mode == "ptxplus" else [])
    cmd += [f"--set={s}" for s in sets]
    cmd += ["-o", str(d / "stats.json"), "--", str(exe)]
    env = sim_env()
    env["GPGPUSIM_PROGRESS"] = "0"
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    timed_out = False
    with open(d / "stdout.txt", "w") as out, open(d / "stderr.txt", "w") as err:
        proc = subprocess.Popen(cmd, cwd=d, env=env, stdout=out, stderr=err, start_new_session=True)
        try:
            rc: int | None = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc, timed_out = None, True
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    (d / "run.json").write_text(json.dumps({"cmd": cmd, "rc": rc, "timed_out": timed_out, "wall_s": wall,
                                            "cpu_s": cpu}, indent=1) + "\n")


def load(d: Path, mode: str) -> dict[str, Any]:
    """:func:`outcome` of the run left in ``d``."""
    def text(name: str) -> str:
        p = d / name
        return p.read_text(errors="replace") if p.exists() else ""
    try:
        meta = json.loads(text("run.json") or "null")
    except json.JSONDecodeError:
        meta = None
    try:
        doc = json.loads(text("stats.json") or "null")
    except json.JSONDecodeError:
        doc = None
    return outcome(mode, meta, text("stdout.txt"), text("stderr.txt"), doc)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--programs", default="", help="comma-separated programs (default: all)")
    ap.add_argument("--gpu", default="SM7_QV100", help="shipped GPU (gpgpusim run --gpu)")
    ap.add_argument("--modes", default="ptx,ptxplus", help="which runs to (re)do: ptx, ptxplus or both")
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds per run")
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    ap.add_argument("--set", action="append", default=[], metavar="-opt=value",
                    help="extra option for both runs, written --set=-opt=value (repeatable; use with --tag)")
    ap.add_argument("--tag", default="", help="suffix of the runs' directory (bench/build/ptxplus/<GPU><tag>/)")
    ap.add_argument("--no-run", action="store_true", help="re-print from the last runs")
    args = ap.parse_args(argv)

    available = reference_programs(PROGRAMS_DIR)
    programs = [p for p in args.programs.split(",") if p] or available
    unknown = [p for p in programs if p not in available]
    if unknown:
        ap.error(f"no source for {unknown} in {PROGRAMS_DIR}; known: {available}")
    modes = [m for m in args.modes.split(",") if m]
    if not set(modes) <= set(MODES):
        ap.error(f"--modes takes {', '.join(MODES)}")
    sm86 = args.gpu.startswith("SM86")
    setting = args.gpu + args.tag
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for prog in programs:
        if not args.no_run:
            exe = build(prog, args.nvcc, BUILD / ("bin-sm86" if sm86 else "bin"), PROGRAMS_DIR,
                        flags=["-arch=sm_86"] if sm86 else [])
            for mode in modes:
                run_one(exe, run_dir(setting, prog, mode), args.gpu, mode, args.timeout, args.set)
        results[prog] = {mode: load(run_dir(setting, prog, mode), mode) for mode in MODES}
        for mode in MODES:
            r = results[prog][mode]
            cpu = "n/a" if r["cpu_s"] is None else f"{r['cpu_s']:.1f} s CPU"
            print(f"{prog} {mode}: {_result(r)} ({cpu})", file=sys.stderr, flush=True)
    cmd = "python3 bench/ptxplus.py" + (f" --gpu {args.gpu}" if args.gpu != "SM7_QV100" else "")
    cmd += f" --programs {args.programs}" if args.programs else ""
    cmd += "".join(f" --set={s}" for s in args.set) + (f" --tag={args.tag}" if args.tag else "")
    text = render(args.gpu + "".join(f", {s}" for s in args.set), results, cmd)
    print(text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    md = RESULTS / f"ptxplus-{setting}-{time.strftime('%Y%m%d-%H%M%S')}.md"
    md.write_text(text)
    print(f"written to {md}", file=sys.stderr)
    return 0 if all(r["passed"] for res in results.values() for r in res.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
