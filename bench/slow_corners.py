#!/usr/bin/env python3
"""Slow corners of the functional engine (issue 12.4): reproduce and time each one.

Corners (each prints thread-instructions/s and per-launch ms):

* ``big``: a large PTX module (``bench/slow_corners/gen_bigmodule.py``: ~19,000 PTX lines, 48
  ``__noinline__`` device functions of long straight-line double code called from a kernel
  that also has a long inlined straight-line block), 64 threads (1 CTA), through the engine:
  150 launches with ``steps=0`` (each executes only the prologue/epilogue: per-launch cost of
  a huge kernel) and a few launches with ``steps>0`` (straight-line code with calls, few
  threads: thread-instructions/s), next to the baselines ``plainLoop`` (the same 64 threads in
  a simple ALU loop, no calls) and ``callLoop`` (the loop calling a small device function).
* ``tiny``: 2,000 launches of a tiny kernel (vector increment, 1 CTA of 64 threads) through the
  engine alone, and end to end (``gpgpusim run --functional`` of a program that launches it
  2,000 times and times the loop itself with ``std::chrono``); the end-to-end figure includes
  the runtime's launch path and stream manager.
* ``bigapp``: the ``big`` module end to end (``gpgpusim run --functional``, 150 launches,
  steps=0): per launch through the runtime.
* ``startup``: ``gpgpusim run --functional`` of a trivial program (one tiny launch): wall time
  of the whole run and the time to the first kernel launch line.

CUDA sources are generated/kept under ``bench/slow_corners/`` and built with ``nvcc`` into
``bench/build/slow_corners/`` (git-ignored).

    python bench/slow_corners.py [--only big,tiny,bigapp,startup] [--launches 150] [--profile]
"""

from __future__ import annotations

import argparse
import os
import re
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from refprogs import gpgpusim_cmd, sim_env  # noqa: E402

from gpgpusim.functional.engine import launch  # noqa: E402
from gpgpusim.functional.loader import load_module  # noqa: E402
from gpgpusim.functional.memory import GlobalMemory  # noqa: E402
from gpgpusim.ptx import parse_ptx  # noqa: E402

SRC = HERE / "slow_corners"
BUILD = HERE / "build" / "slow_corners"


def nvcc(args: list[str]) -> None:
    subprocess.run(["nvcc", *args], check=True)


def built(name: str, kind: str) -> Path:
    """``bigmodule``/``tiny``/``trivial`` as ``.ptx`` (``kind='ptx'``) or an executable."""
    BUILD.mkdir(parents=True, exist_ok=True)
    if name == "bigmodule":
        src = BUILD / "bigmodule.cu"
        gen = SRC / "gen_bigmodule.py"
        if not src.exists() or src.stat().st_mtime < gen.stat().st_mtime:
            subprocess.run([sys.executable, str(gen), str(src)], check=True)
    else:
        src = SRC / f"{name}.cu"
    out = BUILD / (name + (".ptx" if kind == "ptx" else ""))
    if not out.exists() or out.stat().st_mtime < src.stat().st_mtime:
        if kind == "ptx":
            nvcc(["-ptx", "-O2", str(src), "-o", str(out)])
        else:
            nvcc(["-O2", "-cudart", "shared", str(src), "-o", str(out)])
    return out


def load(name: str):
    text = built(name, "ptx").read_text()
    t0 = time.perf_counter()
    m = parse_ptx(text, name + ".ptx")
    g = GlobalMemory()
    lm = load_module(m, g)
    return text, lm, g, time.perf_counter() - t0


def report(label: str, stats: list, wall: float) -> None:
    ti = sum(s.thread_insn for s in stats)
    wi = sum(s.warp_insn for s in stats)
    n = len(stats)
    print(f"  {label:44s} {n:5d} launches  {wall:8.3f} s  {1e3 * wall / n:8.3f} ms/launch  "
          f"{ti / n:10.0f} thread-insn/launch  {ti / wall / 1e6:7.3f} M thread-insn/s  "
          f"{1e6 * wall / max(wi, 1):6.2f} us/warp-insn", flush=True)


def corner_big(launches: int) -> None:
    text, lm, g, tp = load("bigmodule")
    print(f"big module: {text.count(chr(10))} PTX lines, parse+load {tp:.3f} s")
    n = 64
    y0 = (0.01 * (np.arange(4 * n) % 17) + 0.5).astype(np.float64)
    dy = g.allocate(y0.nbytes)
    g.write(dy, y0)
    du = g.allocate(8 * n)
    g.write(du, np.arange(2 * n, dtype=np.uint32))

    def run(kernel: str, count: int, *args) -> list:
        fmt = "@Q" + "".join("i" if isinstance(a, int) else "d" for a in args)
        params = struct.pack(fmt, dy if kernel == "odeStep" else du, *args)
        out = []
        for _ in range(count):
            out.append(launch(lm, kernel, (1, 1, 1), (n, 1, 1), 0, params, gmem=g))
        return out

    t0 = time.perf_counter()
    first = run("odeStep", 1, 0, 1e-3)
    print(f"  first launch of odeStep (decode included)   {time.perf_counter() - t0:.3f} s")
    for kernel, count, args, label in (
            ("odeStep", launches, (0, 1e-3), "odeStep steps=0 (short launches)"),
            ("odeStep", 3, (1, 1e-3), "odeStep steps=1 (calls, straight-line)"),
            ("plainLoop", 1, (0,), "plainLoop iters=0 (tiny kernel, warm)"),
            ("plainLoop", 3, (2000,), "plainLoop iters=2000 (baseline int loop)"),
            ("callLoop", 3, (2000,), "callLoop iters=2000 (int loop with a call)")):
        if kernel != "odeStep":
            run(kernel, 1, *args)   # decode outside the timing
        t0 = time.perf_counter()
        st = run(kernel, count, *args)
        report(label, st, time.perf_counter() - t0)
    del first


def corner_tiny(launches: int) -> None:
    text, lm, g, _ = load("tiny")
    n = 64
    dx = g.allocate(4 * n)
    g.write(dx, np.zeros(n, dtype=np.int32))
    params = struct.pack("<Qi", dx, n)
    launch(lm, "_Z3incPii", (1, 1, 1), (n, 1, 1), 0, params, gmem=g)
    t0 = time.perf_counter()
    st = [launch(lm, "_Z3incPii", (1, 1, 1), (n, 1, 1), 0, params, gmem=g) for _ in range(launches)]
    wall = time.perf_counter() - t0
    ok = int(g.read(dx, 4 * n).view(np.int32)[5]) == launches + 1
    report(f"tiny kernel, engine alone (ok={ok})", st, wall)


_PUSH = re.compile(r"pushing kernel '([^']+)'")


def run_app(exe: Path, args: list[str]) -> tuple[float, float | None, list[str], int]:
    """``gpgpusim run --functional exe args``: (wall, time of the first launch line, stdout lines, rc)."""
    cmd = gpgpusim_cmd() + ["run", "--functional", "--", str(exe), *args]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=str(BUILD), env=sim_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace")
    lines: list[tuple[float, str]] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append((time.perf_counter() - t0, line.rstrip("\n")))
    rc = proc.wait()
    wall = time.perf_counter() - t0
    first = next((t for t, ln in lines if _PUSH.search(ln)), None)
    return wall, first, [ln for _, ln in lines], rc


def corner_tiny_app(launches: int) -> None:
    exe = built("tiny", "exe")
    wall, first, lines, rc = run_app(exe, [str(launches)])
    msg = next((ln for ln in lines if ln.startswith("tiny:")), "(no result line)")
    print(f"  tiny kernel end to end (rc={rc}): wall {wall:.2f} s, first launch at "
          f"{first if first is None else round(first, 2)} s; {msg}", flush=True)


def corner_big_app(launches: int) -> None:
    exe = built("bigmodule", "exe")
    wall, first, lines, rc = run_app(exe, [str(launches), "0"])
    msg = next((ln for ln in lines if ln.startswith("bigmodule:")), "(no result line)")
    print(f"  big module end to end (rc={rc}): wall {wall:.2f} s, first launch at "
          f"{first if first is None else round(first, 2)} s; {msg}", flush=True)


def corner_startup(repeat: int = 3) -> None:
    exe = built("trivial", "exe")
    walls, firsts = [], []
    for _ in range(repeat):
        wall, first, lines, rc = run_app(exe, [])
        if rc != 0 or not any("PASS" in ln for ln in lines):
            print("\n".join(lines[-20:]))
            raise SystemExit("trivial app failed")
        walls.append(wall)
        firsts.append(first if first is not None else float("nan"))
    print(f"  start-up, trivial app end to end: wall best {min(walls):.3f} s (runs "
          f"{', '.join(f'{w:.3f}' for w in walls)}); first launch line at best {min(firsts):.3f} s",
          flush=True)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import gpgpusim.runtime.api"], check=True, env=sim_env())
    print(f"  python -c 'import gpgpusim.runtime.api': {time.perf_counter() - t0:.3f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="big,tiny,bigapp,startup")
    ap.add_argument("--launches", type=int, default=150, help="launches of the big module's kernel")
    ap.add_argument("--tiny-launches", type=int, default=2000)
    ap.add_argument("--profile", action="store_true", help="cProfile the engine-level corners")
    a = ap.parse_args()
    only = set(a.only.split(","))
    prof = None
    if a.profile:
        import cProfile
        prof = cProfile.Profile()
        prof.enable()
    if "big" in only:
        corner_big(a.launches)
    if "tiny" in only:
        print("many small launches:")
        corner_tiny(a.tiny_launches)
        if prof is None:
            corner_tiny_app(a.tiny_launches)
    if prof is not None:
        import pstats
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
        return
    if "bigapp" in only:
        corner_big_app(a.launches)
    if "startup" in only:
        print("start-up:")
        corner_startup()


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
