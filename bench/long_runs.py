"""Memory over long runs: the peak RSS of programs whose work grows while their data does not
(more launches, more staged copies, more stream iterations), each run as ``gpgpusim run`` at a
base size and at ten times it; the whole application process (``os.wait4``'s ``ru_maxrss``).
Issue 25's aim: memory set by the machine and the data, not by the length of the run.

    python3 bench/long_runs.py                          # every program, base and 10x
    python3 bench/long_runs.py --programs launches,streams

Programs (``bench/longrun/*.cu``, built with ``nvcc -O2 -cudart shared`` into
``bench/build/longrun``; each prints PASS or FAIL):

* ``launches N``: a 64-thread kernel launched N times without synchronising (the host runs
  ahead): kernel records, the reporter's records (``-o``), the stream queue;
* ``staged N MIB``: N asynchronous copies of MIB MiB from pageable memory (staged when
  enqueued), each followed by a kernel: the staged bytes the stream queue holds;
* ``streams N``: N iterations of two streams with events, a captured graph launch, a host
  function and ``cudaMallocAsync``/``cudaFreeAsync``;
* ``gather MIB N``: N launches gathering from a read-only MIB MiB input, under kernel sampling
  and functional: what kernel sampling's trial runs copy (their snapshot is copied on write).

The table is also written to ``bench/results/long_runs-<time>.md``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from refprogs import REPO, build, gpgpusim_cmd, run_peak, sim_env, write_results

SRC = REPO / "bench" / "longrun"
BIN = REPO / "bench" / "build" / "longrun"

#: program -> [(label, gpgpusim run options, base arguments, 10x arguments)]
RUNS: dict[str, list[tuple[str, list[str], list[str], list[str] | None]]] = {
    "launches": [("functional", ["--functional"], ["2000"], ["20000"]),
                 ("sample kernel", ["--sample", "kernel"], ["2000"], ["20000"]),
                 ("sample kernel -o", ["--sample", "kernel", "-o", "{json}"], ["2000"], ["20000"])],
    "staged": [("performance", [], ["12", "16"], ["120", "16"])],
    "streams": [("functional", ["--functional"], ["300"], ["3000"]),
                ("sample kernel", ["--sample", "kernel"], ["300"], ["3000"])],
    "gather": [("functional", ["--functional"], ["64", "200"], None),
               ("sample kernel", ["--sample", "kernel"], ["64", "200"], None)],
}


def run(exe: Path, opts: list[str], args: list[str], gpu: str) -> dict:
    """One ``gpgpusim run``: exit status, whether it printed PASS, peak RSS (MB), CPU s."""
    with tempfile.TemporaryDirectory() as tmp:
        opts = [o.replace("{json}", os.path.join(tmp, "stats.json")) for o in opts]
        cmd = [*gpgpusim_cmd(), "run", "--gpu", gpu, *opts, "--", str(exe), *args]
        return run_peak(cmd, dict(sim_env(), GPGPUSIM_PROGRESS="0"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", help=f"comma-separated, of {', '.join(RUNS)} (default: all)")
    ap.add_argument("--gpu", default="SM7_QV100")
    ap.add_argument("--nvcc", default="nvcc")
    a = ap.parse_args(argv)
    names = a.programs.split(",") if a.programs else list(RUNS)
    lines = [f"`python3 bench/long_runs.py` on {a.gpu}: peak RSS of the application process (MB), "
             "CPU s (user + sys)", "",
             "| program | run | base | peak MB | CPU s | 10x | peak MB | CPU s | 10x / base | verified |",
             "|---|---|---|---:|---:|---|---:|---:|---:|---|"]
    print("\n".join(lines), flush=True)
    ok = True
    for name in names:
        exe = build(name, a.nvcc, BIN, SRC)
        for label, opts, base, big in RUNS[name]:
            r1 = run(exe, opts, base, a.gpu)
            r2 = run(exe, opts, big, a.gpu) if big is not None else None
            good = r1["ok"] and (r2 is None or r2["ok"])
            ok &= good
            tail = ("| | | | |" if r2 is None else
                    f"| {' '.join(big)} | {r2['peak_mb']:.0f} | {r2['cpu_s']:.1f} | "
                    f"{r2['peak_mb'] / r1['peak_mb']:.2f}x |")
            row = (f"| {name} | {label} | {' '.join(base)} | {r1['peak_mb']:.0f} | {r1['cpu_s']:.1f} "
                   f"{tail} {'yes' if good else 'NO'} |")
            lines.append(row)
            print(row, flush=True)
    write_results("long_runs", lines)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
