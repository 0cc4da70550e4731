"""``gpgpusim sweep correlate``: :mod:`gpgpusim.report.correlate` on a sweep's runs.

The runs chosen by ``--select KEY=VALUE`` are compared either with a hardware CSV (``--hw``,
as ``gpgpusim correlate`` reads it) or with other runs of the same sweep (``--ref KEY=VALUE``:
for each selected run, the run whose keys are the same except those given).  For the latter a
reference CSV is written to ``<results>/correlate-<ref>.csv`` (one row per kernel launch of the
reference runs: kernel, launch, the selected run's stats file, cycles, instructions, IPC and the
cache counters), and ``gpgpusim correlate`` compares with it.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from gpgpusim.report.correlate import main as correlate_main

from .report import Results
from .spec import SweepError

_REF_COLUMNS = ("cycles", "thread_insn", "warp_insn", "L1D_total_cache_accesses", "L1D_total_cache_misses",
                "L2_total_cache_accesses", "L2_total_cache_misses", "total_dram_reads", "total_dram_writes")


def _pairs(items: list[str], keys: list[str], flag: str) -> dict[str, str]:
    out = {}
    for it in items:
        k, sep, v = it.partition("=")
        if not sep or k not in keys:
            raise SweepError(f"{flag} {it!r}: expected KEY=VALUE with KEY one of {', '.join(keys)}")
        out[k] = v
    return out


def correlate(out_dir: Path, select: list[str], ref: list[str] | None, hw: str | None, rest: list[str]) -> int:
    res = Results(out_dir)
    sel = _pairs(select, res.keys, "--select")
    ok = [r for r in res.runs if r.get("status") == "ok"]
    chosen = [r for r in ok if all(r.get(k) == v for k, v in sel.items())]
    if not chosen:
        raise SweepError(f"no finished run has {', '.join(f'{k}={v}' for k, v in sel.items()) or 'any keys'}")
    stats = {str(r["run_id"]): str((out_dir / "runs" / str(r["run_id"]) / "stats.json").resolve()) for r in chosen}
    args = list(rest)
    if hw is not None:
        return correlate_main([*stats.values(), "--hw", hw, *args])
    change = _pairs(ref or [], res.keys, "--ref")
    by_keys = {tuple(r.get(k) for k in res.keys): r for r in ok}
    pairs = {}
    for r in chosen:
        want = tuple(change.get(k, r.get(k)) for k in res.keys)
        other = by_keys.get(want)
        if other is not None and other is not r:
            pairs[str(other["run_id"])] = str(r["run_id"])
    if not pairs:
        raise SweepError("no selected run has a finished reference run with "
                         + ", ".join(f"{k}={v}" for k, v in change.items()))
    rows = [k for k in res.kernels if str(k["run_id"]) in pairs]
    if not any(k.get("cycles") is not None for k in rows):
        raise SweepError("the reference runs have no cycles (functional mode): correlate needs performance runs")
    name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", "_".join(f"{k}={v}" for k, v in change.items()))
    path = out_dir / f"correlate-{name}.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "launch", "run", *_REF_COLUMNS, "ipc"])
        for k in rows:
            vals = [k.get(c) for c in _REF_COLUMNS]
            w.writerow([k["kernel_name"], k["kernel_launch_uid"], stats[pairs[str(k["run_id"])]],
                        *("" if v is None else v for v in vals), "" if k.get("gpu_ipc") is None else k["gpu_ipc"]])
    print(f"reference: {len(rows)} kernel launches of {len(pairs)} runs ({path})")
    return correlate_main([*(stats[s] for s in pairs.values()), "--hw", str(path), *args])
