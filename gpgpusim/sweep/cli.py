"""``gpgpusim sweep run|list|report|correlate``.

Exit status of ``run``: 0 when every run finished, 1 when some did not (each is listed with
its reason; running the sweep again retries them), 130 after Ctrl-C (finished runs are kept),
2 for a bad sweep file or request (one line naming file, line and key).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .compare import correlate
from .engine import run_sweep
from .report import Results, default_metric, plots, summary
from .spec import SweepError, load


def _results_dir(target: str) -> Path:
    p = Path(target)
    if p.is_file() or p.suffix == ".toml":
        return load(p).output
    return p


def cmd_run(a: argparse.Namespace) -> int:
    sweep = load(a.sweep, a.output)
    if a.mode:
        sweep.modes = (a.mode,)
    if sum(bool(x) for x in (a.serial, a.cluster, a.slurm, a.pbs)) > 1:
        raise SweepError("give one of --serial, --cluster, --slurm, --pbs")
    batch = ("slurm", a.slurm) if a.slurm else ("pbs", a.pbs) if a.pbs else None
    out = run_sweep(sweep, subset=a.subset, jobs=a.jobs, serial=a.serial, cluster=a.cluster, batch=batch,
                    force=a.force, progress=not a.quiet)
    finished = sum(1 for r in out.results.values() if r.get("status") == "ok")
    not_ok = out.not_ok
    pending = out.total - len(out.results)
    print(f"gpgpusim sweep: {finished} of {out.total} runs finished ({out.skipped} done before)"
          + (f", {len(not_ok)} not" if not_ok else "") + (f", {pending} not run" if pending else "")
          + f" in {out.wall_s:.1f} s; tables: {', '.join(str(p) for p in out.tables)}", file=sys.stderr)
    for r in not_ok:
        print(f"  {r['run_id']}: {r['status']} ({r.get('reason')}) after {r.get('attempts')} attempt(s)",
              file=sys.stderr)
    if out.interrupted:
        print("gpgpusim sweep: interrupted; finished runs are kept, run the sweep again to do the rest",
              file=sys.stderr)
        return 130
    return 1 if not_ok or pending else 0


def cmd_list(a: argparse.Namespace) -> int:
    sweep = load(a.sweep)
    if a.mode:
        sweep.modes = (a.mode,)
    specs = sweep.runs(a.subset)
    for s in specs:
        opts = " ".join(s.sets)
        print(f"{s.run_id}\t{s.program.binary} {' '.join(s.program.args)}\t{s.config.gpu or s.config.file}"
              f"\t{s.mode}\t{opts}")
    print(f"{len(specs)} runs; results in {sweep.output}", file=sys.stderr)
    return 0


def cmd_report(a: argparse.Namespace) -> int:
    res = Results(_results_dir(a.target))
    metric = a.metric or default_metric(res)
    sys.stdout.write(summary(res, metric, a.baseline))
    if not a.no_plots:
        out = Path(a.plots) if a.plots else res.dir / "plots"
        paths = plots(res, metric, a.baseline, out)
        if paths:
            print(f"plots: {', '.join(str(p) for p in paths)}")
    return 0 if all(r.get("status") == "ok" for r in res.runs) else 1


def cmd_correlate(a: argparse.Namespace) -> int:
    rest = (["--plot", a.plot] if a.plot else []) + (["--json-out", a.json_out] if a.json_out else [])
    return correlate(_results_dir(a.target), a.select, a.ref, a.hw, rest)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gpgpusim sweep",
                                description="Run programs x configs x option variations and tabulate the results")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run the sweep's missing runs (in parallel) and write its tables")
    r.add_argument("sweep", help="the sweep file (TOML)")
    eng = r.add_mutually_exclusive_group()
    eng.add_argument("-j", "--jobs", type=int, help="local worker processes (default: one per core)")
    eng.add_argument("--serial", action="store_true", help="one run after the other in this process")
    eng.add_argument("--cluster", metavar="ADDRESS", help="an existing Dask scheduler, e.g. tcp://host:8786")
    eng.add_argument("--slurm", type=int, metavar="JOBS", help="submit JOBS Slurm jobs as workers (dask-jobqueue)")
    eng.add_argument("--pbs", type=int, metavar="JOBS", help="submit JOBS PBS jobs as workers (dask-jobqueue)")
    r.add_argument("--subset", help="only the runs of this [subsets.NAME]")
    r.add_argument("--output", help="results folder (default: the sweep file's `output`)")
    r.add_argument("--mode", choices=("performance", "functional"), help="instead of the sweep file's mode")
    r.add_argument("--force", action="store_true", help="run again runs that finished before")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    r.set_defaults(fn=cmd_run)
    ls = sub.add_parser("list", help="print the runs the sweep file expands to")
    ls.add_argument("sweep")
    ls.add_argument("--subset")
    ls.add_argument("--mode", choices=("performance", "functional"))
    ls.set_defaults(fn=cmd_list)
    rep = sub.add_parser("report", help="summary table and plots of a sweep's results")
    rep.add_argument("target", help="the sweep file or its results folder")
    rep.add_argument("--metric", help="ipc (default with cycles), cycles, thread_insn, run_wall_s or a kernels.csv column")
    rep.add_argument("--baseline", help="the column speed-ups are relative to (default: the first)")
    rep.add_argument("--plots", metavar="DIR", help="where to write the plots (default: RESULTS/plots)")
    rep.add_argument("--no-plots", action="store_true")
    rep.set_defaults(fn=cmd_report)
    c = sub.add_parser("correlate", help="gpgpusim correlate on a sweep: runs selected by key against a "
                                         "hardware CSV or against other runs of the sweep")
    c.add_argument("target", help="the sweep file or its results folder")
    c.add_argument("--select", action="append", default=[], metavar="KEY=VALUE",
                   help="the runs to check (repeatable, e.g. --select config=QV100)")
    src = c.add_mutually_exclusive_group(required=True)
    src.add_argument("--hw", metavar="CSV", help="real-GPU measurements (as for gpgpusim correlate)")
    src.add_argument("--ref", action="append", metavar="KEY=VALUE",
                     help="the reference runs: the selected runs with these keys changed (e.g. config=RTX3070)")
    c.add_argument("--plot", metavar="out.png", help="as for gpgpusim correlate: a log-log scatter of the cycles")
    c.add_argument("--json-out", metavar="FILE", help="as for gpgpusim correlate: the figures as JSON")
    c.set_defaults(fn=cmd_correlate)
    return p


def main(argv: list[str] | None = None) -> int:
    ns = build_parser().parse_args(argv)
    try:
        return int(ns.fn(ns))
    except SweepError as exc:
        print(f"gpgpusim sweep: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"gpgpusim sweep: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gpgpusim sweep: interrupted", file=sys.stderr)
        return 130
