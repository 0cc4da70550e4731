"""Peak memory of whole programs: each program run as ``gpgpusim run`` in functional mode and in
performance mode (the whole application process: the CUDA program, our runtime and the
simulator), its peak RSS taken from the kernel (``os.wait4``'s ``ru_maxrss`` of that child and
its descendants), and the ratio performance / functional (issue 25's target: 1.5x).

    python3 bench/peak_memory.py                          # the 11 reference programs, SM7_QV100
    python3 bench/peak_memory.py --programs matmul,reduce --gpu SM86_RTX3070
    python3 bench/peak_memory.py --exe bench/build/sampling/bin/matmul --args 512

The reference programs are built as the reference built them (``bench/refprogs.py``; binaries in
``bench/build/bin``).  A run counts as verified when it exits 0 and prints the program's ``PASS`` and no ``FAIL``.  The
table is also written to ``bench/results/peak_memory-<time>.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from refprogs import REPO, build, gpgpusim_cmd, reference_programs, run_peak, sim_env, write_results

BIN = REPO / "bench" / "build" / "bin"


def run(exe: Path, args: list[str], gpu: str, functional: bool) -> dict:
    """One ``gpgpusim run`` of ``exe``: exit status, whether it verified, peak RSS (MB), CPU s."""
    cmd = [*gpgpusim_cmd(), "run", "--gpu", gpu, *(["--functional"] if functional else []), "--", str(exe), *args]
    return run_peak(cmd, dict(sim_env(), GPGPUSIM_PROGRESS="0"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", help="comma-separated reference programs (default: all 11)")
    ap.add_argument("--exe", help="a built program to run instead of the reference programs")
    ap.add_argument("--args", nargs=argparse.REMAINDER, default=[], help="its arguments (after --exe)")
    ap.add_argument("--gpu", default="SM7_QV100")
    ap.add_argument("--nvcc", default="nvcc")
    a = ap.parse_args(argv)
    if a.exe:
        todo = [(Path(a.exe).name, Path(a.exe).resolve(), a.args)]
    else:
        names = a.programs.split(",") if a.programs else reference_programs()
        todo = [(n, build(n, a.nvcc, BIN), []) for n in names]
    lines = [f"`python3 bench/peak_memory.py` on {a.gpu}: peak RSS of the application process (MB)", "",
             "| program | functional MB | performance MB | ratio | functional CPU s | performance CPU s | verified |",
             "|---|---:|---:|---:|---:|---:|---|"]
    print("\n".join(lines), flush=True)
    ok = True
    for name, exe, args in todo:
        f = run(exe, args, a.gpu, True)
        p = run(exe, args, a.gpu, False)
        good = f["ok"] and p["ok"]
        ok &= good
        row = (f"| {name} | {f['peak_mb']:.0f} | {p['peak_mb']:.0f} | {p['peak_mb'] / f['peak_mb']:.2f}x | "
               f"{f['cpu_s']:.1f} | {p['cpu_s']:.1f} | {'yes' if good else 'NO (exit %d / %d)' % (f['rc'], p['rc'])} |")
        lines.append(row)
        print(row, flush=True)
    write_results("peak_memory", lines)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
