"""Shared helpers of the benchmark scripts (``run_reference.py``, ``accuracy.py``): where the C++
GPGPU-Sim reference data lives, how the reference programs are built, how ``gpgpusim`` is
invoked, and how the reference CSV is read.

The reference data (``../shared/reference`` beside the checkout) holds the 11 programs, the
unmodified GPGPU-Sim 4.2 configs they ran under and ``gpgpusim-reference.csv`` (one row per
kernel launch, columns described in its README). ``GPGPUSIM_SHARED`` / ``GPGPUSIM_REFERENCE``
override the locations.
"""
from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# ../shared beside the checkout (the reference data); GPGPUSIM_SHARED overrides.
SHARED_DIR = os.environ.get("GPGPUSIM_SHARED") or str(REPO.parent / "shared")
REFERENCE = Path(os.environ.get("GPGPUSIM_REFERENCE", os.path.join(SHARED_DIR, "reference")))
REFERENCE_CSV = REFERENCE / "gpgpusim-reference.csv"
PROGRAMS_DIR = REFERENCE / "programs"
CONFIGS_DIR = REFERENCE / "gpgpusim-configs"


def gpgpusim_cmd() -> list[str]:
    """The ``gpgpusim`` command: the installed script, else this checkout's CLI."""
    exe = shutil.which("gpgpusim")
    if exe:
        return [exe]
    return [sys.executable, "-c", "import sys; from gpgpusim.cli import main; sys.exit(main())"]


def sim_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a ``gpgpusim`` child process: this checkout first on PYTHONPATH (so the
    CLI fallback of :func:`gpgpusim_cmd` and the simulator inside the application find it)."""
    env = dict(os.environ if base is None else base)
    path = [str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(path)
    env["GPGPUSIM_PYTHONPATH"] = str(REPO)
    return env


def reference_programs(programs_dir: Path = PROGRAMS_DIR) -> list[str]:
    """The reference programs' names (``<name>.cu`` in ``programs_dir``), sorted."""
    return sorted(p.stem for p in programs_dir.glob("*.cu"))


_PASS = re.compile(r"\bPASS\b")
_FAIL = re.compile(r"\bFAIL\b")       # (not RESERVATION_FAIL of the cache statistics)


def run_peak(cmd: list[str], env: dict[str, str]) -> dict:
    """Run ``cmd`` (a ``gpgpusim run``): its exit status ``rc``, ``ok`` (exit 0, printed PASS and
    no FAIL), its peak RSS in MB (``os.wait4``'s ``ru_maxrss`` of the child and its
    descendants) and its CPU seconds.  The output is read line by line: a child's ``ru_maxrss``
    includes this process's peak at the fork, so a long statistics text must not be held here."""
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert p.stdout is not None
    passed = failed = False
    for line in p.stdout:
        passed = passed or bool(_PASS.search(line))
        failed = failed or bool(_FAIL.search(line))
    _pid, status, ru = os.wait4(p.pid, 0)
    rc = os.waitstatus_to_exitcode(status)
    return {"rc": rc, "ok": rc == 0 and passed and not failed, "peak_mb": ru.ru_maxrss / 1024,
            "cpu_s": ru.ru_utime + ru.ru_stime}


def write_results(stem: str, lines: list[str]) -> Path:
    """Write a benchmark's table to ``bench/results/<stem>-<time>.md``; returns the path."""
    out = REPO / "bench" / "results" / f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    return out


def build(program: str, nvcc: str, bin_dir: Path, programs_dir: Path = PROGRAMS_DIR,
          flags: Sequence[str] = ()) -> Path:
    """``nvcc -O2 -cudart shared [flags] -o <bin>/<program> <program>.cu`` unless up to date (the
    reference's build line: default arch, shared CUDA runtime; its sm_86 build adds
    ``-arch=sm_86``: keep such builds in their own ``bin_dir``)."""
    src = programs_dir / f"{program}.cu"
    exe = bin_dir / program
    if exe.exists() and exe.stat().st_mtime >= src.stat().st_mtime:
        return exe
    bin_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run([nvcc, "-O2", "-cudart", "shared", *flags, "-o", str(exe), str(src)], check=True)
    return exe


def read_csv_rows(path: Path | str) -> list[dict[str, str]]:
    """Every row of a CSV file as a dict of strings."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def load_reference(config: str = "SM7_QV100", latency: str = "5000",
                   path: Path | str | None = None) -> dict[str, list[dict[str, str]]]:
    """CSV rows per program for one config/latency, in kernel launch order. Rows whose
    ``config`` / ``launch_latency`` cell is missing or empty match any setting (so a CSV made
    for one setting needs neither column)."""
    rows: dict[str, list[dict[str, str]]] = {}
    for row in read_csv_rows(path or REFERENCE_CSV):
        if row.get("config") not in (None, "", config) or row.get("launch_latency") not in (None, "", latency):
            continue
        rows.setdefault(row["program"], []).append(row)
    for lst in rows.values():
        lst.sort(key=lambda r: int(r.get("kernel_seq") or 0))
    return rows
