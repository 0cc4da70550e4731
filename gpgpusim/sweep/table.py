"""A sweep's results as two tidy tables, written as CSV (always) and Parquet (with pyarrow).

``kernels``: one row per kernel launch per finished run: the run's keys (program, config,
mode, variant, each varied option), ``run_id``, the launch (``kernel_launch_uid``,
``kernel_name``, grid, block), its statistics as ``gpgpusim run -o`` writes them
(``thread_insn``, ``warp_insn``, ``cycles``, ``gpu_ipc``, every scalar counter: cache, DRAM,
interconnect, stall breakdowns; ``opcode_<op>`` instruction mix), the kernel's simulation
wall time ``elapsed_s`` and the run's ``run_wall_s``.

``runs``: one row per run of the sweep, finished or not: keys, ``status`` (ok, failed,
timeout, crashed, lost, error, pending), ``reason``, ``attempts``, ``exit_code``, ``wall_s``,
``host`` and the run's totals.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from .execute import read_result

_LEAD = ("run_id", "kernel_launch_uid", "kernel_name", "kernel_stream_id", "grid", "block", "ctas",
         "thread_insn", "warp_insn", "functional_insn", "cycles", "gpu_ipc", "elapsed_s")
_RUN_COLS = ("run_id", "status", "reason", "attempts", "exit_code", "wall_s", "host", "kernels",
             "gpu_tot_sim_insn", "gpu_tot_sim_cycle", "simulation_elapsed_s")


def _scalar(v: Any) -> bool:
    return isinstance(v, (int, float, str)) and not isinstance(v, bool)


def kernel_rows(stats: dict[str, Any], keys: dict[str, str], run_id: str, wall_s: float) -> list[dict[str, Any]]:
    """The ``kernels`` rows of one run's statistics JSON."""
    rows = []
    for k in stats.get("kernels", []):
        row: dict[str, Any] = dict(keys)
        row["run_id"] = run_id
        for name, v in k.items():
            if name in ("counters", "opcode_counts", "simulation_time", "host_fun"):
                continue
            if name in ("grid", "block") and isinstance(v, list):
                row[name] = "x".join(str(x) for x in v)
            elif _scalar(v):
                row[name] = v
        for name, v in (k.get("counters") or {}).items():
            if _scalar(v) and name not in row:
                row[name] = v
        for op, n in sorted((k.get("opcode_counts") or {}).items()):
            row[f"opcode_{op}"] = n
        row["run_wall_s"] = wall_s
        rows.append(row)
    return rows


def _columns(rows: list[dict[str, Any]], lead: list[str]) -> list[str]:
    cols = [c for c in lead if any(c in r for r in rows)]
    seen = set(cols)
    for r in rows:
        for c in r:
            if c not in seen:
                seen.add(c)
                cols.append(c)
    return cols


def collect(runs: list[tuple[dict[str, str], str, Path]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(kernels rows, runs rows) from the run directories ``(keys, run_id, run_dir)``."""
    krows: list[dict[str, Any]] = []
    rrows: list[dict[str, Any]] = []
    for keys, run_id, run_dir in runs:
        res = read_result(run_dir)
        rrow: dict[str, Any] = dict(keys)
        rrow["run_id"] = run_id
        if res is None:
            rrow["status"] = "pending"
            rrows.append(rrow)
            continue
        for c in _RUN_COLS[1:7]:
            rrow[c] = res.get(c)
        if res.get("status") == "ok":
            try:
                stats = json.loads((run_dir / "stats.json").read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                rrow["status"], rrow["reason"] = "error", f"stats.json unreadable: {exc}"
                rrows.append(rrow)
                continue
            tot = stats.get("totals", {})
            rrow["kernels"] = tot.get("kernels")
            for c in _RUN_COLS[8:]:
                if c in tot:
                    rrow[c] = tot[c]
            krows.extend(kernel_rows(stats, keys, run_id, float(res.get("wall_s") or 0.0)))
        rrows.append(rrow)
    return krows, rrows


def write_tables(out_dir: Path, keys: list[str], krows: list[dict[str, Any]],
                 rrows: list[dict[str, Any]]) -> list[Path]:
    """Write ``kernels.csv`` and ``runs.csv`` (and ``.parquet`` twins when pyarrow is
    installed) into ``out_dir``; returns the files written."""
    written = []
    for name, rows, lead in (("kernels", krows, list(keys) + list(_LEAD)),
                             ("runs", rrows, list(keys) + list(_RUN_COLS))):
        cols = _columns(rows, lead) if rows else lead
        path = out_dir / f"{name}.csv"
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)
        tmp.replace(path)
        written.append(path)
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            continue
        data = {c: [r.get(c) for r in rows] for c in cols}
        for c, vals in data.items():     # one type per column: mixed int/float -> float
            kinds = {type(v) for v in vals if v is not None}
            if kinds == {int, float}:
                data[c] = [None if v is None else float(v) for v in vals]
            elif len(kinds) > 1:
                data[c] = [None if v is None else str(v) for v in vals]
        ppath = out_dir / f"{name}.parquet"
        pq.write_table(pa.table(data), str(ppath.with_name(ppath.name + ".tmp")))
        ppath.with_name(ppath.name + ".tmp").replace(ppath)
        written.append(ppath)
    return written


def read_csv(path: Path) -> list[dict[str, Any]]:
    """Rows of a table written by :func:`write_tables`, numbers converted back."""
    out = []
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            conv: dict[str, Any] = {}
            for k, v in row.items():
                if v == "":
                    conv[k] = None
                    continue
                try:
                    conv[k] = int(v)
                except ValueError:
                    try:
                        conv[k] = float(v)
                    except ValueError:
                        conv[k] = v
            out.append(conv)
    return out
