"""Validation harness of sampled performance simulation (``-gpgpusim_sampling``).

Runs each program of the set in full detail and sampled (``gpgpusim run --sample all``:
kernel sampling and CTA/wave sampling),
each as an ordinary ``gpgpusim run`` of the unmodified binary, and compares the two runs'
``-o`` JSON kernel by kernel:

* per kernel launch: cycles (sampled vs full, relative error), whether the launch was projected,
  the stated 95 % bound and whether it covers the real error;
* per program: whole-program cycles error, thread instructions (must be equal), IPC error,
  L1D and L2 miss-rate differences (absolute), DRAM reads error, the program's own output
  (checksum lines, must be equal), launches projected, the wall time of both runs and the
  speed-up.

    python3 bench/sampling.py                       # build, run every program both ways, print
    python3 bench/sampling.py --programs stencil    # some of them
    python3 bench/sampling.py --programs stencil_long   # 1,000 launches (not in the default set)
    python3 bench/sampling.py --no-run              # re-print from the last runs' JSON
    python3 bench/sampling.py --kernels             # also the per-kernel table
    python3 bench/sampling.py --mode full           # only the full runs (or --mode sampled)
    python3 bench/sampling.py --mode sampled --tag tail --sampled-set=-gpgpusim_sampling_cta_tail=detail
    python3 bench/sampling.py --gpu SM2_GTX480 --programs floyd,gauss   # another shipped GPU
    python3 bench/sampling.py --ptxplus --programs gauss,window          # the binaries' SASS (PTXPlus)

Programs: ``bench/sampling/*.cu`` (built with ``nvcc -cudart shared -O2`` into
``bench/build/sampling/bin/``) and two of ``apps/``, and when named, :data:`LONG`'s; runs in ``bench/build/sampling/<program>/
{full,sampled}/`` (``stats.json``, ``stdout.txt``, ``stderr.txt``, ``run.json`` with the wall
time), or ``bench/build/sampling/<program>/<GPU>/...`` under ``--gpu GPU`` (both runs on that
shipped GPU; without it, ``gpgpusim run``'s default), in a ``ptxplus/`` level below under
``--ptxplus`` (both runs simulate the binary's SASS: ``gpgpusim run --ptxplus``).  The table is
also written to ``bench/results/sampling-<time>.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "bench" / "build" / "sampling"
BIN = BUILD / "bin"

#: name -> (binary, arguments)
PROGRAMS: dict[str, tuple[Path, list[str]]] = {
    "many_launches": (ROOT / "apps" / "bin" / "many_launches", []),
    "kernel_loop": (ROOT / "apps" / "bin" / "kernel_loop", []),
    "stencil": (BIN / "stencil", ["256", "256", "200"]),
    "solver": (BIN / "solver", ["32768", "150"]),
    "bigrid": (BIN / "bigrid", ["102400"]),
    "matmul": (BIN / "matmul", ["1024"]),
    "bfs": (BIN / "bfs", ["100000"]),
    "gauss": (BIN / "gauss", ["128"]),
    "floyd": (BIN / "floyd", ["128"]),
    "window": (BIN / "window", ["8192", "100"]),
    "mvt": (BIN / "mvt", ["2048"]),
}

#: programs run only when named in --programs: the same kernels at more launches, to show how
#: the speed-up grows with them, and where it does not (a full run of ``stencil_long`` takes ~20
#: min of CPU here, ``gauss_long`` ~4.5)
LONG: dict[str, tuple[Path, list[str]]] = {
    "stencil_long": (BIN / "stencil", ["256", "256", "1000"]),
    "gauss_long": (BIN / "gauss", ["256"]),
}
ALL = {**PROGRAMS, **LONG}


def build() -> None:
    subprocess.run(["make", "-s", "-C", str(ROOT / "bench" / "sampling"), f"BIN={BIN}"], check=True)
    if not (ROOT / "apps" / "bin" / "many_launches").exists():
        subprocess.run(["make", "-s", "-C", str(ROOT / "apps"), "bin/many_launches", "bin/kernel_loop"],
                       check=True)


def run_dir(name: str, mode: str, gpu: str = "", ptxplus: bool = False) -> Path:
    """Where a program's run of ``mode`` (``full``, ``sampled`` or ``sampled-TAG``) lives: per
    GPU under ``--gpu``, else at the program's top (the default GPU); one level down, in
    ``ptxplus/``, under ``--ptxplus``."""
    d = BUILD / name / gpu if gpu else BUILD / name
    return (d / "ptxplus" if ptxplus else d) / mode


def run_one(name: str, mode: str, extra: list[str], sample: str = "all", tag: str = "", gpu: str = "",
            ptxplus: bool = False) -> None:
    exe, args = ALL[name]
    d = run_dir(name, mode + tag if mode == "sampled" else mode, gpu, ptxplus)
    d.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "gpgpusim", "run", *(["--gpu", gpu] if gpu else []),
           *(["--ptxplus"] if ptxplus else []), *extra,
           "-o", str(d / "stats.json")]
    if mode == "sampled":
        cmd += ["--sample", sample]
    cmd += ["--", str(exe), *args]
    env = dict(os.environ, GPGPUSIM_PROGRESS="0", PYTHONPATH=str(ROOT))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(d / "stdout.txt", "w") as out, open(d / "stderr.txt", "w") as err:
        rc = subprocess.run(cmd, cwd=d, env=env, stdout=out, stderr=err).returncode
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    (d / "run.json").write_text(json.dumps({"cmd": cmd, "rc": rc, "wall_s": wall, "cpu_s": cpu}, indent=1) + "\n")
    print(f"{name} {mode}: exit {rc}, {wall:.1f} s wall, {cpu:.1f} s CPU", file=sys.stderr)


def _load(name: str, mode: str, gpu: str = "", ptxplus: bool = False) -> tuple[dict, dict, list[str]] | None:
    d = run_dir(name, mode, gpu, ptxplus)
    try:
        stats = json.loads((d / "stats.json").read_text())
        run = json.loads((d / "run.json").read_text())
        out = [ln for ln in (d / "stdout.txt").read_text().splitlines()
               if ln.startswith(("checksum", "iteration", "many_launches:", "kernel_loop:",
                                 "stencil:", "solver:", "bigrid:", "matmul:", "bfs:", "gauss:", "floyd:", "window:", "mvt:", "sum",
                                 "level"))]
    except (OSError, ValueError):
        return None
    return stats, run, out


def _rate(c: dict, miss: str, acc: str) -> float:
    a = c.get(acc, 0)
    return c.get(miss, 0) / a if a else 0.0


def _rel(a: float, b: float) -> float:
    return (a - b) / b if b else (0.0 if a == b else float("inf"))


def compare(name: str, tag: str = "", gpu: str = "", ptxplus: bool = False) -> tuple[dict, list[dict]] | None:
    full, samp = _load(name, "full", gpu, ptxplus), _load(name, "sampled" + tag, gpu, ptxplus)
    if full is None or samp is None:
        return None
    fs, fr, fo = full
    ss, sr, so = samp
    rows = []
    fk = {k["kernel_launch_uid"]: k for k in fs["kernels"]}
    for k in ss["kernels"]:
        f = fk.get(k["kernel_launch_uid"])
        if f is None:
            continue
        s = k.get("sampling", {})
        err = _rel(k["cycles"], f["cycles"])
        bound = s.get("cycles_bound_rel")
        rows.append({"uid": k["kernel_launch_uid"], "kernel": k["kernel_name"], "status": s.get("status", "-"),
                     "ctas": s.get("cta", {}).get("ctas_projected", 0),
                     "full": f["cycles"], "sampled": k["cycles"], "err": err, "bound": bound,
                     "covered": None if bound is None else abs(k["cycles"] - f["cycles"]) <= s.get("cycles_bound", 0)})
    ft, st = fs["totals"], ss["totals"]
    fc, sc = ft.get("counters", {}), st.get("counters", {})
    ipc_f = ft["gpu_tot_sim_insn"] / ft["gpu_tot_sim_cycle"]
    ipc_s = st["gpu_tot_sim_insn"] / st["gpu_tot_sim_cycle"]
    proj = [r for r in rows if r["status"] in ("projected", "cta_projected")]
    summary = {
        "program": name, "launches": len(rows), "projected": len(proj),
        "cycles_full": ft["gpu_tot_sim_cycle"], "cycles_sampled": st["gpu_tot_sim_cycle"],
        "cycles_err": _rel(st["gpu_tot_sim_cycle"], ft["gpu_tot_sim_cycle"]),
        "bound_rel": st.get("sampling", {}).get("cycles_bound_rel", 0.0),
        "insn_equal": ft["gpu_tot_sim_insn"] == st["gpu_tot_sim_insn"] and ft["gpgpu_n_tot_w_icount"] == st["gpgpu_n_tot_w_icount"],
        "ipc_err": _rel(ipc_s, ipc_f),
        "l1d_miss_diff": _rate(sc, "L1D_total_cache_misses", "L1D_total_cache_accesses")
        - _rate(fc, "L1D_total_cache_misses", "L1D_total_cache_accesses"),
        "l2_miss_diff": _rate(sc, "L2_total_cache_misses", "L2_total_cache_accesses")
        - _rate(fc, "L2_total_cache_misses", "L2_total_cache_accesses"),
        "dram_reads_err": _rel(sc.get("total_dram_reads", 0), fc.get("total_dram_reads", 0)),
        "occupancy_diff": _rate(sc, "active_warps_sum", "max_warps_sum") - _rate(fc, "active_warps_sum", "max_warps_sum"),
        "output_equal": fo == so and fr["rc"] == sr["rc"],
        "max_kernel_err": max((abs(r["err"]) for r in rows), default=0.0),
        "covered": sum(1 for r in proj if r["covered"]), "wall_full": fr["wall_s"], "wall_sampled": sr["wall_s"],
        "speedup": fr["wall_s"] / sr["wall_s"] if sr["wall_s"] else 0.0,
        "cpu_full": fr.get("cpu_s"), "cpu_sampled": sr.get("cpu_s"),
    }
    return summary, rows


def _cpu_speedup(s: dict) -> str:
    f, p = s.get("cpu_full"), s.get("cpu_sampled")
    return f"{f / p:.1f}x" if f and p else "n/a"


def table(results: list[tuple[dict, list[dict]]], kernels: bool) -> str:
    out = ["| program | launches (projected) | cycles full | cycles sampled | cycles err | stated bound "
           "| worst kernel | bound covers | insn equal | output equal | IPC err | L1D miss diff "
           "| L2 miss diff | DRAM reads err | occupancy diff | wall full | wall sampled | speed-up (wall) "
           "| speed-up (CPU) |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s, _ in results:
        out.append(f"| {s['program']} | {s['launches']} ({s['projected']}) | {s['cycles_full']:,} | "
                   f"{s['cycles_sampled']:,} | {100 * s['cycles_err']:+.3f} % | +-{100 * s['bound_rel']:.2f} % | "
                   f"{100 * s['max_kernel_err']:.2f} % | {s['covered']}/{s['projected']} | "
                   f"{'yes' if s['insn_equal'] else 'NO'} | {'yes' if s['output_equal'] else 'NO'} | "
                   f"{100 * s['ipc_err']:+.3f} % | {s['l1d_miss_diff']:+.4f} | {s['l2_miss_diff']:+.4f} | "
                   f"{100 * s['dram_reads_err']:+.2f} % | {s.get('occupancy_diff', 0.0):+.4f} | "
                   f"{s['wall_full']:.1f} s | {s['wall_sampled']:.1f} s | "
                   f"{s['speedup']:.1f}x | {_cpu_speedup(s)} |")
    n_proj = sum(s["projected"] for s, _ in results)
    n_cov = sum(s["covered"] for s, _ in results)
    n_k = sum(s["launches"] for s, _ in results)
    n_5 = sum(1 for _, rows in results for r in rows if abs(r["err"]) <= 0.05)
    out.append("")
    out.append(f"kernels within 5 %: {n_5}/{n_k}; stated bound covers the real error on {n_cov}/{n_proj} "
               f"projected launches")
    if kernels:
        for s, rows in results:
            out += ["", f"### {s['program']}", "", "| uid | kernel | timed | cycles full | cycles sampled | err | bound |",
                    "|---:|---|---|---:|---:|---:|---:|"]
            for r in rows:
                b = "" if r["bound"] is None else f"+-{100 * r['bound']:.2f} %"
                out.append(f"| {r['uid']} | {r['kernel'][:40]} | {r['status']} | {r['full']:,} | {r['sampled']:,} | "
                           f"{100 * r['err']:+.3f} % | {b} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--programs", default=",".join(PROGRAMS), help="comma-separated subset")
    p.add_argument("--no-run", action="store_true", help="re-print from the last runs")
    p.add_argument("--mode", choices=("both", "full", "sampled"), default="both")
    p.add_argument("--kernels", action="store_true", help="per-kernel tables too")
    p.add_argument("--sample", choices=("kernel", "cta", "all"), default="all",
                   help="the sampled runs' -gpgpusim_sampling (default all)")
    p.add_argument("--set", action="append", default=[], metavar="-opt=value",
                   help="option override for both runs (repeatable)")
    p.add_argument("--sampled-set", action="append", default=[], metavar="-opt=value",
                   help="option override for the sampled runs only (repeatable)")
    p.add_argument("--tag", default="", help="keep the sampled runs in sampled-TAG/ (compare settings)")
    p.add_argument("--gpu", default="", help="run both ways on this shipped GPU (`gpgpusim configs`), "
                   "kept in <program>/<GPU>/")
    p.add_argument("--ptxplus", action="store_true", help="both runs simulate the binaries' SASS "
                   "(gpgpusim run --ptxplus), kept in ptxplus/ below the program's (or GPU's) place")
    a = p.parse_args(argv)
    names = [n for n in a.programs.split(",") if n]
    unknown = [n for n in names if n not in ALL]
    if unknown:
        p.error(f"unknown programs: {', '.join(unknown)} (known: {', '.join(ALL)})")
    if not a.no_run:
        build()
        extra = [x for s in a.set for x in ("--set", s)]
        tag = f"-{a.tag}" if a.tag else ""
        for n in names:
            for mode in ("full", "sampled"):
                if a.mode in ("both", mode):
                    more = [x for s in a.sampled_set for x in ("--set", s)] if mode == "sampled" else []
                    run_one(n, mode, extra + more, a.sample, tag, a.gpu, a.ptxplus)
    tag = f"-{a.tag}" if a.tag else ""
    results = [r for r in (compare(n, tag, a.gpu, a.ptxplus) for n in names) if r is not None]
    head = "".join(f"{k}: {v}\n" for k, v in (("GPU", a.gpu), ("ISA", "PTXPlus" if a.ptxplus else "")) if v)
    text = (head + "\n" if head else "") + table(results, a.kernels)
    print(text)
    res = ROOT / "bench" / "results"
    res.mkdir(parents=True, exist_ok=True)
    (res / f"sampling-{time.strftime('%Y%m%d-%H%M%S')}.md").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
