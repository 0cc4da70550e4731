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
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from refprogs import REPO, build, gpgpusim_cmd, sim_env

SRC = REPO / "bench" / "longrun"
BIN = REPO / "bench" / "build" / "longrun"
_PASS = re.compile(r"\bPASS\b")
_FAIL = re.compile(r"\bFAIL\b")

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
        env = dict(sim_env(), GPGPUSIM_PROGRESS="0")
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert p.stdout is not None
        # read line by line: a child's ru_maxrss includes this process's peak at the fork, so
        # the statistics text of 20,000 launches (~200 MB) must not be held here
        passed = failed = False
        for line in p.stdout:
            passed = passed or bool(_PASS.search(line))
            failed = failed or bool(_FAIL.search(line))
        _pid, status, ru = os.wait4(p.pid, 0)
    rc = os.waitstatus_to_exitcode(status)
    ok = rc == 0 and passed and not failed
    return {"rc": rc, "ok": ok, "peak_mb": ru.ru_maxrss / 1024, "cpu_s": ru.ru_utime + ru.ru_stime}


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
    out = REPO / "bench" / "results" / f"long_runs-{time.strftime('%Y%m%d-%H%M%S')}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
