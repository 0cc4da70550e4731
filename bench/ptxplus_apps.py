"""Every ``apps/`` program in PTXPlus mode, built for one architecture: functional and
performance mode, each app's own check must pass and no kernel may fall back to PTX.

    python3 bench/ptxplus_apps.py                          # sm_86 builds on SM86_RTX3070
    python3 bench/ptxplus_apps.py --arch sm_75 --gpu SM7_QV100
    python3 bench/ptxplus_apps.py --apps reduction,cdp_tree --modes functional

The apps are built by ``apps/Makefile`` (its per-app flags) with ``ARCH=-arch=<arch>`` into
``bench/build/ptxplus-apps-<arch>/``.  ``tests/ptxplus/`` runs every app on SM7_QV100 and a
spread of them from sm_86 on each test run; this harness is the whole set for an architecture.
``spin_forever`` (never ends, by design) is left out.  Exit status 0 when every run verified.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ROOT / "apps"
SKIP = {"spin_forever"}


def app_names() -> list[str]:
    out = subprocess.run(["make", "-s", "-C", str(APPS), "list"], capture_output=True, text=True, check=True)
    return [a for a in out.stdout.split() if a not in SKIP]


def build(arch: str, apps: list[str], bin_dir: Path) -> list[str]:
    """Build ``apps`` for ``arch``; the names that failed to build."""
    targets = [f"{bin_dir}/{a}" for a in apps]
    subprocess.run(["make", "-s", "-k", "-j2", "-C", str(APPS), f"BIN={bin_dir}", f"ARCH=-arch={arch}", *targets],
                   capture_output=True, text=True)
    return [a for a in apps if not (bin_dir / a).exists()]


def run_one(exe: Path, gpu: str, mode: str, isa_line: str) -> tuple[bool, str, float]:
    """One run; (verified, reason when not, wall seconds)."""
    cmd = [sys.executable, "-m", "gpgpusim", "run", "--gpu", gpu, "--ptxplus"]
    if mode == "functional":
        cmd.append("--functional")
    t0 = time.time()
    p = subprocess.run([*cmd, "--", str(exe)], capture_output=True, text=True, cwd=exe.parent, timeout=1800)
    wall = time.time() - t0
    text = p.stdout + p.stderr
    if p.returncode != 0:
        tail = [ln for ln in text.splitlines() if ln.strip()][-1:] or [""]
        return False, f"exit {p.returncode}: {tail[0][:120]}", wall
    if "PTXPlus: kernel" in text or "not supported;" in text:
        return False, "a kernel ran as PTX", wall
    if isa_line not in text:
        return False, f"no '{isa_line}' line", wall
    return True, "", wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", default="sm_86", help="nvcc -arch (default sm_86)")
    ap.add_argument("--gpu", default="SM86_RTX3070", help="simulated GPU (default SM86_RTX3070)")
    ap.add_argument("--apps", help="comma-separated subset (default: every app)")
    ap.add_argument("--modes", default="functional,performance", help="functional,performance")
    args = ap.parse_args(argv)
    apps = args.apps.split(",") if args.apps else app_names()
    bin_dir = ROOT / "bench" / "build" / f"ptxplus-apps-{args.arch}"
    bin_dir.mkdir(parents=True, exist_ok=True)
    failed_build = build(args.arch, apps, bin_dir)
    isa_line = f"converted from its {args.arch} SASS"
    modes = args.modes.split(",")
    print(f"{'app':<20} " + " ".join(f"{m:>22}" for m in modes))
    bad = 0
    for a in apps:
        if a in failed_build:
            print(f"{a:<20} build failed")
            bad += 1
            continue
        cells = []
        for m in modes:
            ok, why, wall = run_one(bin_dir / a, args.gpu, m, isa_line)
            bad += not ok
            cells.append(f"{'ok' if ok else 'FAIL'} {wall:6.1f} s".rjust(22) + ("" if ok else f"  ({m}: {why})"))
        print(f"{a:<20} " + " ".join(cells), flush=True)
    print(f"{len(apps)} apps x {len(modes)} modes on {args.gpu} from {args.arch}: "
          f"{len(apps) * len(modes) - bad} verified, {bad} not")
    return 1 if bad else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
