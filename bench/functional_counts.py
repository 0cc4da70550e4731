"""Compare per-kernel instruction counts with GPGPU-Sim 4.2 (reference CSV), end to end.

Builds each reference program (``nvcc -cudart shared -O2``), runs it with
``gpgpusim run --functional`` and ``GPGPUSIM_FUNCTIONAL_COUNTS_FILE`` set (the engine appends
one line per launch), then compares ``gpu_sim_insn`` / ``gpgpu_n_tot_w_icount`` per kernel with
``gpgpusim-reference.csv``.  Prints one line per kernel and the whole-app wall time.

    python bench/functional_counts.py [program ...]
"""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# ../shared beside the checkout (the reference data); GPGPUSIM_SHARED overrides.
SHARED_DIR = os.environ.get("GPGPUSIM_SHARED") or str(Path(__file__).resolve().parents[2] / "shared")

REF = os.environ.get("GPGPUSIM_REFERENCE", os.path.join(SHARED_DIR, "reference"))
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BUILD = os.path.join(os.path.expanduser("~"), ".cache", "gpgpusim", "bench")


def reference() -> dict[str, list[tuple[str, int, int]]]:
    out: dict[str, list[tuple[str, int, int]]] = {}
    with open(os.path.join(REF, "gpgpusim-reference.csv")) as f:
        for row in csv.DictReader(f):
            if row["launch_latency"] != "5000" or row["config"] != "SM7_QV100":
                continue
            out.setdefault(row["program"], []).append(
                (row["kernel_name"], int(row["gpu_sim_insn"]), int(row["warp_insn_kernel"])))
    return out


def main() -> int:
    ref = reference()
    progs = sys.argv[1:] or sorted(ref)
    os.makedirs(BUILD, exist_ok=True)
    bad = 0
    env = dict(os.environ, PYTHONPATH=ROOT)
    for p in progs:
        exe = os.path.join(BUILD, p)
        if not os.path.exists(exe):
            subprocess.run(["nvcc", "-cudart", "shared", "-O2", os.path.join(REF, "programs", p + ".cu"),
                            "-o", exe], check=True)
        with tempfile.NamedTemporaryFile("r", suffix=".txt") as tf:
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "gpgpusim.cli", "run", "--functional", "--", exe],
                               env=dict(env, GPGPUSIM_FUNCTIONAL_COUNTS_FILE=tf.name),
                               capture_output=True, text=True)
            wall = time.perf_counter() - t0
            lines = tf.read().splitlines()
        got = [(m.group(1), int(m.group(2)), int(m.group(3))) for m in
               (re.match(r"(\S+) .*thread_insn=(\d+) warp_insn=(\d+)", ln) for ln in lines) if m]
        ok = got == ref[p]
        bad += not ok
        status = "PASS" if "PASS" in r.stdout else "app-FAIL"
        print(f"{p:14s} counts {'match' if ok else 'DIFFER'}  app {status}  wall {wall:.2f}s")
        if not ok:
            for g, e in zip(got, ref[p], strict=False):
                print(f"    got {g}\n    ref {e}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
