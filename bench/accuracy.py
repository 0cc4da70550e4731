#!/usr/bin/env python3
"""Accuracy and speed harness: our performance model against C++ GPGPU-Sim 4.2, per kernel.

Builds the reference programs (``../shared/reference/programs/*.cu``, ``nvcc -O2 -cudart shared``,
as the reference was built) into ``bench/build/bin/``, runs each in performance mode with the
*unmodified* reference config (``../shared/reference/gpgpusim-configs/<CONFIG>/gpgpusim.config``
and its ``.icnt``, copied into a fresh run directory ``bench/build/accuracy/<CONFIG>[-lat0]/<program>/``;
``--lat0`` appends ``-gpgpu_kernel_launch_latency 0`` as the reference's lat0 runs did), reads the
run's ``stats.json`` and prints, per kernel launch, ours next to the reference CSV's figures:
cycles, thread and warp instructions, IPC, L1D/L2 accesses and miss rates, DRAM reads/writes,
shared-memory bank conflicts and the two stall counters, each with its error: relative
``(ours - ref) / ref`` for counts, the absolute difference for miss rates. Then the summary
(mean absolute relative error of cycles, the worst kernel, kernels off by more than 25 %,
Pearson correlation of cycles, exact instruction counts, L1D/L2 miss-rate max abs diff) and the
speed table (wall time per run, simulated cycles/s and thread-instructions/s, and the C++ run's
``run_wall_s`` divided by ours).

A figure the run did not record (a functional run has no cycles; a model without a counter)
shows as ``n/a``; the harness never fails on a missing figure.

Usage::

    python bench/accuracy.py                                  # all programs, SM7_QV100, latency 5000
    python bench/accuracy.py --config SM86_RTX3070 --programs stream,strided
    python bench/accuracy.py --lat0 --json-out results.json
    python bench/accuracy.py --csv other.csv --programs-dir my/programs   # any CSV in the same columns
    python bench/accuracy.py --no-run                         # re-read the last runs' stats.json
    python bench/accuracy.py --functional                     # develop the harness without a timing model

The comparison and statistics (:func:`ours_rows`, :func:`compare`, :func:`summary`, :func:`speed`)
are plain functions of row dicts, unit-tested in ``tests/apps/test_accuracy_harness.py``.
"""
from __future__ import annotations

import argparse
import json
import re
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from refprogs import (  # noqa: E402 - the shared helpers live beside this script
    CONFIGS_DIR,
    PROGRAMS_DIR,
    REFERENCE_CSV,
    REPO,
    build,
    gpgpusim_cmd,
    load_reference,
    reference_programs,
    sim_env,
)

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
from gpgpusim.report.correlate import (  # noqa: E402
    error_stats,
    fmt_float,
    fmt_num,
    fmt_pct,
    ours_value,
    rel_error,
    short_name,
)

BUILD = REPO / "bench" / "build"
RESULTS = REPO / "bench" / "results"

#: (metric, reference CSV column, kind): "count" errors are relative, "rate" errors absolute
METRICS: list[tuple[str, str, str]] = [
    ("cycles", "gpu_sim_cycle", "count"),
    ("thread_insn", "gpu_sim_insn", "count"),
    ("warp_insn", "warp_insn_kernel", "count"),
    ("ipc", "gpu_ipc", "count"),
    ("l1d_accesses", "l1d_accesses_kernel", "count"),
    ("l1d_miss_rate", "l1d_miss_rate_kernel", "rate"),
    ("l2_accesses", "l2_accesses_kernel", "count"),
    ("l2_miss_rate", "l2_miss_rate_kernel", "rate"),
    ("dram_reads", "dram_reads_kernel", "count"),
    ("dram_writes", "dram_writes_kernel", "count"),
    ("shmem_bkconflict", "shmem_bkconflict_kernel", "count"),
    ("stall_dramfull", "stall_dramfull_kernel", "count"),
    ("stall_icnt2sh", "stall_icnt2sh_kernel", "count"),
]
KIND = {m: k for m, _, k in METRICS}
#: a miss rate from the exact counts when the CSV has them (the rate columns are rounded)
_RATE_FROM = {"l1d_miss_rate": ("l1d_misses_kernel", "l1d_accesses_kernel"),
              "l2_miss_rate": ("l2_misses_kernel", "l2_accesses_kernel")}


# --------------------------------------------------------------------------------------------
# comparison (pure functions of row dicts)
# --------------------------------------------------------------------------------------------

_WORD_PASS = re.compile(r"\bPASS\b")
_WORD_FAIL = re.compile(r"\bFAIL\b")


def _cell(row: Mapping[str, Any], col: str) -> float | None:
    v = row.get(col)
    if v is None or v == "":
        return None
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def ref_value(row: Mapping[str, Any], metric: str) -> float | None:
    """The reference figure ``metric`` of one CSV row (None when the cell is empty)."""
    if metric in _RATE_FROM:
        misses, accesses = (_cell(row, c) for c in _RATE_FROM[metric])
        if misses is not None and accesses:
            return misses / accesses
    col = dict((m, c) for m, c, _ in METRICS)[metric]
    v = _cell(row, col)
    if v is None and metric == "ipc":
        insn, cyc = _cell(row, "gpu_sim_insn"), _cell(row, "gpu_sim_cycle")
        v = insn / cyc if insn is not None and cyc else None
    return v


def ours_rows(program: str, doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per kernel launch of our stats JSON: program, kernel_seq (the launch uid),
    kernel_name and every metric (None where the run did not record it)."""
    rows = []
    for i, rec in enumerate(doc.get("kernels") or [], start=1):
        row: dict[str, Any] = {"program": program, "kernel_seq": int(rec.get("kernel_launch_uid") or i),
                               "kernel_name": rec.get("kernel_name", "?")}
        for metric, _, _ in METRICS:
            row[metric] = ours_value(rec, metric)
        rows.append(row)
    return rows


def error(metric: str, ours: float | None, ref: float | None) -> float | None:
    """Relative error for counts, absolute difference for rates; None when either is missing."""
    if ours is None or ref is None:
        return None
    return ours - ref if KIND[metric] == "rate" else rel_error(ours, ref)


def compare(ours: Sequence[Mapping[str, Any]], ref: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Pairs our rows with the reference rows by (program, kernel_seq): one table row per
    kernel launch found on either side, in the reference's program order (then ours), launch
    order within a program. Each row: program, kernel_seq, kernel_name, ref_kernel_name and
    ``metrics`` = {metric: {"ours", "ref", "err"}}."""
    ours_by = {(r["program"], int(r["kernel_seq"])): r for r in ours}
    ref_by = {(r["program"], int(r["kernel_seq"])): r for r in ref}
    programs: list[str] = []
    for row in list(ref) + list(ours):
        if row["program"] not in programs:
            programs.append(row["program"])
    table = []
    for prog in programs:
        seqs = sorted({s for p, s in list(ours_by) + list(ref_by) if p == prog})
        for seq in seqs:
            o, r = ours_by.get((prog, seq)), ref_by.get((prog, seq))
            metrics = {}
            for metric, _, _ in METRICS:
                ov = o.get(metric) if o else None
                rv = ref_value(r, metric) if r else None
                metrics[metric] = {"ours": ov, "ref": rv, "err": error(metric, ov, rv)}
            table.append({"program": prog, "kernel_seq": seq,
                          "kernel_name": o["kernel_name"] if o else None,
                          "ref_kernel_name": r.get("kernel_name") if r else None, "metrics": metrics})
    return table


def _label(row: Mapping[str, Any]) -> str:
    return f"{row['program']}#{row['kernel_seq']}"


def summary(table: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The headline figures of a :func:`compare` table (fractions, not percent; None = n/a):
    ``kernels``; for cycles over the kernels with both figures ``cycles_n``, ``cycles_mae``,
    ``cycles_aggregate_error``, ``cycles_nrmse``, ``cycles_pearson``, ``worst_kernel`` and
    ``worst_cycles_error``, ``cycles_over_25pct``; ``thread_insn_exact`` / ``warp_insn_exact``
    (kernels equal, of those compared, as [equal, compared]); ``l1d_miss_rate_max_abs_diff`` /
    ``l2_miss_rate_max_abs_diff`` (with ``..._kernel``); ``mae`` per count metric (a kernel whose
    reference is 0 counts when ours is 0 too, and is left out otherwise: its error is infinite)."""
    out: dict[str, Any] = {"kernels": len(table)}
    pairs = [(row, row["metrics"]["cycles"]) for row in table
             if row["metrics"]["cycles"]["ours"] is not None and row["metrics"]["cycles"]["ref"] is not None]
    st = error_stats([m["ours"] for _, m in pairs], [m["ref"] for _, m in pairs])
    out.update(cycles_n=st.n, cycles_mae=st.mae, cycles_aggregate_error=st.aggregate_error,
               cycles_nrmse=st.nrmse, cycles_pearson=st.pearson,
               worst_kernel=_label(pairs[st.worst][0]) if st.worst is not None else None,
               worst_cycles_error=st.worst_error,
               cycles_over_25pct=sum(1 for _, m in pairs if m["err"] is not None and abs(m["err"]) > 0.25))
    for metric in ("thread_insn", "warp_insn"):
        both = [row["metrics"][metric] for row in table
                if row["metrics"][metric]["ours"] is not None and row["metrics"][metric]["ref"] is not None]
        out[f"{metric}_exact"] = [sum(1 for m in both if m["ours"] == m["ref"]), len(both)]
    for metric in ("l1d_miss_rate", "l2_miss_rate"):
        diffs = [(abs(row["metrics"][metric]["err"]), row) for row in table if row["metrics"][metric]["err"] is not None]
        worst = max(diffs, key=lambda d: d[0]) if diffs else None
        out[f"{metric}_max_abs_diff"] = worst[0] if worst else None
        out[f"{metric}_max_abs_diff_kernel"] = _label(worst[1]) if worst else None
    mae: dict[str, float | None] = {}
    for metric, _, kind in METRICS:
        if kind != "count":
            continue
        errs = [abs(row["metrics"][metric]["err"]) for row in table
                if row["metrics"][metric]["err"] is not None and math.isfinite(row["metrics"][metric]["err"])]
        mae[metric] = sum(errs) / len(errs) if errs else None
    out["mae"] = mae
    return out


def speed(runs: Sequence[Mapping[str, Any]], ref: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per run (``program``, ``wall_s``, ``cycles``, ``thread_insn``: totals over its kernels,
    None when not recorded; optional ``result`` text, passed through): simulated cycles/s and thread-instructions/s, and the reference
    run's ``run_wall_s`` (the same on each of its rows) with ``speedup`` = ref wall / our wall."""
    ref_wall: dict[str, float] = {}
    ref_tot: dict[str, list[float]] = {}
    for r in ref:
        w = _cell(r, "run_wall_s")
        if w is not None:
            ref_wall.setdefault(r["program"], w)
        tot = ref_tot.setdefault(r["program"], [0.0, 0.0])
        tot[0] += _cell(r, "gpu_sim_cycle") or 0.0
        tot[1] += _cell(r, "gpu_sim_insn") or 0.0
    out = []
    for run in runs:
        prog, wall = run["program"], run.get("wall_s")
        cyc, insn = run.get("cycles"), run.get("thread_insn")
        rw = ref_wall.get(prog)
        rc, ri = ref_tot.get(prog, [0.0, 0.0])
        out.append({
            "program": prog, "result": run.get("result", ""), "wall_s": wall, "cycles": cyc,
            "thread_insn": insn, "cycles_per_s": cyc / wall if cyc is not None and wall else None,
            "insn_per_s": insn / wall if insn is not None and wall else None,
            "ref_wall_s": rw,
            "ref_cycles_per_s": rc / rw if rw and rc else None,
            "ref_insn_per_s": ri / rw if rw and ri else None,
            "speedup": rw / wall if rw is not None and wall else None,
        })
    return out


# --------------------------------------------------------------------------------------------
# rendering
# --------------------------------------------------------------------------------------------

def _err_text(metric: str, err: float | None) -> str:
    if err is None:
        return "n/a"
    if KIND[metric] == "rate":
        return f"{err:+.4f}"
    return "=" if err == 0 else fmt_pct(err)


def _val_text(metric: str, v: float | None) -> str:
    if v is None:
        return "n/a"
    if KIND[metric] == "rate":
        return f"{v:.4f}"
    if metric == "ipc":
        return f"{v:.2f}"
    return fmt_num(v)


GROUPS = [
    ("cycles, instructions, IPC", ["cycles", "thread_insn", "warp_insn", "ipc"]),
    ("caches and DRAM (miss-rate error = absolute difference)",
     ["l1d_accesses", "l1d_miss_rate", "l2_accesses", "l2_miss_rate", "dram_reads", "dram_writes"]),
    ("shared-memory bank conflicts and stalls", ["shmem_bkconflict", "stall_dramfull", "stall_icnt2sh"]),
]


def render(table: Sequence[Mapping[str, Any]], summ: Mapping[str, Any], speeds: Sequence[Mapping[str, Any]],
           title: str = "") -> str:
    out = [f"# {title}", ""] if title else []
    for heading, metrics in GROUPS:
        out += [f"## Kernels: {heading}", "",
                "| program | # | kernel | " + " | ".join(f"{m} | ref | err" for m in metrics) + " |",
                "|---|---:|---|" + "---:|---:|---:|" * len(metrics)]
        for row in table:
            name = row["kernel_name"] or row["ref_kernel_name"] or "?"
            short = short_name(name)
            if row["kernel_name"] and row["ref_kernel_name"] and row["kernel_name"] != row["ref_kernel_name"]:
                short += f" (ref {short_name(row['ref_kernel_name'])})"
            if row["kernel_name"] is None:
                short += " (not run)"
            cells = []
            for m in metrics:
                d = row["metrics"][m]
                cells += [_val_text(m, d["ours"]), _val_text(m, d["ref"]), _err_text(m, d["err"])]
            out.append(f"| {row['program']} | {row['kernel_seq']} | {short} | " + " | ".join(cells) + " |")
        out.append("")

    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{100.0 * v:.2f}%"

    t_eq, t_n = summ["thread_insn_exact"]
    w_eq, w_n = summ["warp_insn_exact"]
    out += ["## Summary", "",
            f"- kernels: {summ['kernels']} (cycles compared on {summ['cycles_n']})",
            f"- cycles: mean absolute error {pct(summ['cycles_mae'])}, worst kernel "
            f"{summ['worst_kernel'] or 'n/a'} ({fmt_pct(summ['worst_cycles_error'])}), "
            f"{summ['cycles_over_25pct']} kernel(s) off by more than 25 %",
            f"- cycles: Pearson correlation {fmt_float(summ['cycles_pearson'])}, aggregate error "
            f"{fmt_pct(summ['cycles_aggregate_error'])}, NRMSE {fmt_float(summ['cycles_nrmse'])}",
            f"- instructions equal to the reference: thread {t_eq}/{t_n}, warp {w_eq}/{w_n}",
            f"- L1D miss rate max abs diff {fmt_float(summ['l1d_miss_rate_max_abs_diff'])} "
            f"({summ['l1d_miss_rate_max_abs_diff_kernel'] or 'n/a'}), L2 miss rate max abs diff "
            f"{fmt_float(summ['l2_miss_rate_max_abs_diff'])} ({summ['l2_miss_rate_max_abs_diff_kernel'] or 'n/a'})",
            "- mean absolute error per count: " + ", ".join(f"{m} {pct(v)}" for m, v in summ["mae"].items()),
            "", "## Speed (wall time of the whole run, start-up included)", "",
            "| program | result | wall s | cycles | cycles/s | thread insn/s | C++ wall s | C++ cycles/s "
            "| C++ insn/s | speed-up (C++ wall / ours) |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in speeds:
        wall = "n/a" if s["wall_s"] is None else f"{s['wall_s']:.2f}"
        sp = "n/a" if s["speedup"] is None else f"{s['speedup']:.2f}x"
        out.append(f"| {s['program']} | {s['result']} | {wall} | {fmt_num(s['cycles'])} | "
                   f"{fmt_num(_round(s['cycles_per_s']))} | {fmt_num(_round(s['insn_per_s']))} | "
                   f"{fmt_float(s['ref_wall_s'], 2)} | {fmt_num(_round(s['ref_cycles_per_s']))} | "
                   f"{fmt_num(_round(s['ref_insn_per_s']))} | {sp} |")
    return "\n".join(out) + "\n"


def _round(v: float | None) -> float | None:
    return None if v is None else float(round(v))


def _json_safe(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: _json_safe(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_safe(x) for x in v]
    return v


# --------------------------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------------------------

@dataclass
class RunOutcome:
    program: str
    run_dir: Path
    returncode: int | None
    passed: bool
    wall_s: float | None
    doc: dict[str, Any] | None
    error: str = ""

    def totals(self) -> dict[str, Any]:
        ks = (self.doc or {}).get("kernels") or []
        cyc = [k["cycles"] for k in ks if isinstance(k.get("cycles"), (int, float))]
        insn = [k["thread_insn"] for k in ks if isinstance(k.get("thread_insn"), (int, float))]
        result = "PASS" if self.passed else f"FAIL ({self.error or 'rc=' + str(self.returncode)})"
        return {"program": self.program, "wall_s": self.wall_s, "result": result,
                "cycles": sum(cyc) if cyc else None, "thread_insn": sum(insn) if insn else None}


def prepare_run_dir(run_dir: Path, config_dir: Path, lat0: bool) -> Path:
    """A fresh directory holding copies of the config's ``gpgpusim.config`` and ``.icnt`` files
    (with ``-gpgpu_kernel_launch_latency 0`` appended for lat0); returns the config's path."""
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    for f in config_dir.iterdir():
        if f.is_file() and (f.name == "gpgpusim.config" or f.suffix == ".icnt"):
            shutil.copy2(f, run_dir / f.name)
    cfg = run_dir / "gpgpusim.config"
    if lat0:
        with open(cfg, "a") as fh:
            fh.write("\n-gpgpu_kernel_launch_latency 0\n")
    return cfg


def run_program(program: str, exe: Path, run_dir: Path, config: Path, timeout_s: float,
                functional: bool = False, sets: Sequence[str] = ()) -> RunOutcome:
    """``gpgpusim run --config <run_dir>/gpgpusim.config -o stats.json -- <exe>`` in ``run_dir``,
    output in ``stdout.txt`` / ``stderr.txt`` there; killed (its process group) after ``timeout_s``."""
    stats = run_dir / "stats.json"
    cmd = gpgpusim_cmd() + ["run", "--config", str(config), "-o", str(stats)]
    cmd += (["--functional"] if functional else []) + [f"--set={s}" for s in sets] + ["--", str(exe)]
    t0 = time.perf_counter()
    with open(run_dir / "stdout.txt", "w") as out, open(run_dir / "stderr.txt", "w") as err:
        proc = subprocess.Popen(cmd, cwd=run_dir, env=sim_env(), stdout=out, stderr=err, start_new_session=True)
        try:
            rc: int | None = proc.wait(timeout=timeout_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc, timed_out = None, True
    wall = time.perf_counter() - t0
    (run_dir / "run.json").write_text(json.dumps({"returncode": rc, "wall_s": wall, "timed_out": timed_out,
                                                  "command": cmd}) + "\n")
    return read_outcome(program, run_dir, rc, wall, timed_out, timeout_s)


def read_outcome(program: str, run_dir: Path, rc: int | None = None, wall: float | None = None,
                 timed_out: bool = False, timeout_s: float = 0.0, rerun: bool = False) -> RunOutcome:
    """What a finished run left in ``run_dir``; ``rerun`` (``--no-run``): an earlier run, whose exit
    status and wall time are read back from its ``run.json``."""
    if rerun:
        try:
            meta = json.loads((run_dir / "run.json").read_text())
        except (OSError, json.JSONDecodeError):
            meta = {}
        rc, wall, timed_out = meta.get("returncode"), meta.get("wall_s"), bool(meta.get("timed_out"))
    text = (run_dir / "stdout.txt").read_text(errors="replace") if (run_dir / "stdout.txt").exists() else ""
    stderr = (run_dir / "stderr.txt").read_text(errors="replace") if (run_dir / "stderr.txt").exists() else ""
    doc = None
    error = ""
    try:
        doc = json.loads((run_dir / "stats.json").read_text())
    except (OSError, json.JSONDecodeError) as exc:
        error = f"no stats.json ({exc.__class__.__name__})"
    lines = text.splitlines()
    # word match: the statistics print counters such as RESERVATION_FAIL
    passed = rc == 0 and any(_WORD_PASS.search(ln) for ln in lines) and not any(_WORD_FAIL.search(ln) for ln in lines)
    if timed_out:
        error = f"killed after {wall or timeout_s:.0f} s (timeout)"
    elif rc is None and not error:
        error = "no run recorded"
    elif rc not in (0, None):
        error = (stderr.strip().splitlines() or [f"rc={rc}"])[-1][:200]
    return RunOutcome(program, run_dir, rc, passed, wall, doc, error)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    configs = sorted(p.name for p in CONFIGS_DIR.iterdir() if p.is_dir()) if CONFIGS_DIR.is_dir() else []
    ap.add_argument("--config", default="SM7_QV100", help=f"reference config folder ({', '.join(configs)})")
    ap.add_argument("--lat0", action="store_true", help="append -gpgpu_kernel_launch_latency 0 (the lat0 runs)")
    ap.add_argument("--programs", default="", help="comma-separated programs (default: all with reference rows)")
    ap.add_argument("--csv", type=Path, default=REFERENCE_CSV, help="reference CSV (the gpgpusim-reference.csv columns)")
    ap.add_argument("--programs-dir", type=Path, default=PROGRAMS_DIR, help="where <program>.cu lives")
    ap.add_argument("--json-out", type=Path, help="write table, summary and speed as JSON")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per program run")
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    ap.add_argument("--build-dir", type=Path, default=BUILD, help="binaries and run directories")
    ap.add_argument("--functional", action="store_true", help="functional runs (no cycles: develops the harness)")
    ap.add_argument("--set", action="append", default=[], metavar="-opt=value",
                    help="extra option override, written --set=-opt=value (repeatable)")
    ap.add_argument("--no-run", action="store_true", help="re-read the stats.json of the previous runs")
    args = ap.parse_args(argv)

    config_dir = CONFIGS_DIR / args.config
    if not (config_dir / "gpgpusim.config").is_file():
        ap.error(f"no config {config_dir / 'gpgpusim.config'} (known: {', '.join(configs)})")
    latency = "0" if args.lat0 else "5000"
    reference = load_reference(args.config, latency, args.csv)
    available = reference_programs(args.programs_dir)
    programs = [p for p in args.programs.split(",") if p] or [p for p in reference if p in available]
    unknown = [p for p in programs if p not in available]
    if unknown:
        ap.error(f"no source for {unknown} in {args.programs_dir}; known: {available}")
    if not programs:
        ap.error(f"no programs: {args.csv} has no rows for {args.config}, latency {latency}")
    setting = f"{args.config}{'-lat0' if args.lat0 else ''}{'-functional' if args.functional else ''}"
    outcomes = []
    for prog in programs:
        run_dir = args.build_dir / "accuracy" / setting / prog
        if args.no_run:
            o = read_outcome(prog, run_dir, rerun=True)
        else:
            exe = build(prog, args.nvcc, args.build_dir / "bin", args.programs_dir)
            cfg = prepare_run_dir(run_dir, config_dir, args.lat0)
            o = run_program(prog, exe, run_dir, cfg, args.timeout, args.functional, args.set)
        outcomes.append(o)
        wall = "n/a" if o.wall_s is None else f"{o.wall_s:.2f} s"
        print(f"{prog}: {'PASS' if o.passed else 'FAIL'} in {wall}" + (f" - {o.error}" if o.error else ""),
              file=sys.stderr, flush=True)

    ours = [row for o in outcomes for row in ours_rows(o.program, o.doc or {})]
    ref_rows = [r for p in programs for r in reference.get(p, [])]
    table = compare(ours, ref_rows)
    summ = summary(table)
    speeds = speed([o.totals() for o in outcomes], ref_rows)
    title = (f"gpgpusim vs C++ GPGPU-Sim 4.2: {args.config}, launch latency {latency}"
             f"{' (functional runs)' if args.functional else ''}, reference {args.csv.name}")
    text = render(table, summ, speeds, title)
    print(text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    md = RESULTS / f"accuracy-{setting}-{time.strftime('%Y%m%d-%H%M%S')}.md"
    md.write_text(text)
    print(f"written to {md}", file=sys.stderr)
    if args.json_out:
        args.json_out.write_text(json.dumps(_json_safe({
            "config": args.config, "launch_latency": int(latency), "functional": args.functional,
            "csv": str(args.csv), "programs": programs, "table": table, "summary": summ, "speed": speeds,
        }), indent=1) + "\n")
    return 0 if all(o.passed for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
