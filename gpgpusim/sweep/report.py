"""``gpgpusim sweep report``: a summary of a sweep's tables and plots made from them.

Per run, a metric is aggregated over its kernel launches: ``ipc`` = all thread instructions /
all cycles (as GPGPU-Sim's ``gpu_tot_ipc``), ``cycles``, ``thread_insn``, ``run_wall_s`` or any
other numeric column of ``kernels.csv`` (summed).  Runs are grouped into rows by program and
into columns by the other keys that take more than one value in the sweep (config, mode,
variant, varied options).  Plots: the metric per program per column (grouped bars), the
speed-up over a baseline column (baseline cycles / cycles, performance runs), and a heat map of
the metric normalised to the baseline column.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from .spec import SweepError
from .table import read_csv


class Results:
    """A sweep's tables, read back from its output folder."""

    def __init__(self, out_dir: Path) -> None:
        self.dir = out_dir
        try:
            self.manifest = json.loads((out_dir / "sweep.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise SweepError(f"{out_dir}: no sweep results here (sweep.json missing: run `gpgpusim sweep run` first)") from None
        self.keys: list[str] = list(self.manifest.get("keys", []))
        try:
            self.kernels = read_csv(out_dir / "kernels.csv")
            self.runs = read_csv(out_dir / "runs.csv")
        except OSError as exc:
            raise SweepError(f"{out_dir}: cannot read the tables ({exc.strerror or exc})") from None
        for rows in (self.kernels, self.runs):
            for r in rows:          # keys stay text ("1" is an option value, not a number)
                for k in self.keys:
                    if r.get(k) is not None:
                        r[k] = _text(r[k])
        self.column_keys = [k for k in self.keys if k != "program"
                            and len({r.get(k) for r in self.runs}) > 1]

    def label(self, row: dict[str, Any]) -> str:
        """The column a run belongs to: its varying non-program keys."""
        if not self.column_keys:
            return str(row.get("config", ""))
        return " ".join(str(row.get(k)) if k in ("config", "mode", "variant") else f"{k}={row.get(k)}"
                        for k in self.column_keys)

    def per_run(self, metric: str) -> dict[str, float]:
        """run_id -> the metric over the run's kernels."""
        acc: dict[str, list[float]] = {}
        for r in self.kernels:
            rid = str(r["run_id"])
            a = acc.setdefault(rid, [0.0, 0.0, 0.0, 0.0])
            if metric == "ipc":
                if r.get("cycles") is None or r.get("thread_insn") is None:
                    continue
                a[0] += float(r["thread_insn"])
                a[1] += float(r["cycles"])
            elif metric == "run_wall_s":
                a[0] = float(r.get("run_wall_s") or 0.0)
                a[1] = 1.0
            else:
                v = r.get(metric)
                if isinstance(v, (int, float)):
                    a[0] += float(v)
                    a[1] = 1.0
        if metric == "ipc":
            return {k: a[0] / a[1] for k, a in acc.items() if a[1] > 0}
        return {k: a[0] for k, a in acc.items() if a[1] > 0}

    def grid(self, metric: str) -> tuple[list[str], list[str], dict[tuple[str, str], float]]:
        """(programs, column labels, (program, label) -> metric) over the finished runs."""
        vals = self.per_run(metric)
        programs: list[str] = []
        labels: list[str] = []
        cells: dict[tuple[str, str], float] = {}
        for r in self.runs:
            p, lab = str(r.get("program")), self.label(r)
            if p not in programs:
                programs.append(p)
            if lab not in labels:
                labels.append(lab)
            v = vals.get(str(r["run_id"]))
            if v is not None:
                cells[(p, lab)] = v
        return programs, labels, cells


def _text(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _fmt(v: float | None, ratio: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if ratio:
        return f"{v:.3f}"
    if abs(v) >= 1e6 or (abs(v) < 1e-2 and v != 0):
        return f"{v:.3g}"
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:.3f}"


def summary(res: Results, metric: str, baseline: str | None) -> str:
    runs = res.runs
    by_status: dict[str, int] = {}
    for r in runs:
        by_status[str(r.get("status"))] = by_status.get(str(r.get("status")), 0) + 1
    lines = [f"sweep {res.manifest.get('name')}: {len(runs)} runs: "
             + ", ".join(f"{n} {s}" for s, n in sorted(by_status.items(), key=lambda x: (x[0] != "ok", x[0])))
             + f"; {len(res.kernels)} kernel launches in {res.dir / 'kernels.csv'}"]
    bad = [r for r in runs if r.get("status") != "ok"]
    if bad:
        lines.append("not finished (re-run `gpgpusim sweep run` to retry them):")
        lines += [f"  {r['run_id']}: {r.get('status')}" + (f" ({r['reason']})" if r.get("reason") else "")
                  for r in bad]
    programs, labels, cells = res.grid(metric)
    if not cells:
        lines.append(f"no finished run has {metric!r}")
        return "\n".join(lines) + "\n"
    w0 = max(len("program"), *(len(p) for p in programs))
    ws = [max(10, len(lab)) for lab in labels]
    lines.append("")
    lines.append(f"{metric} per run:")
    lines.append("  ".join(["program".ljust(w0)] + [lab.rjust(w) for lab, w in zip(labels, ws, strict=False)]))
    for p in programs:
        lines.append("  ".join([p.ljust(w0)] + [_fmt(cells.get((p, lab))).rjust(w) for lab, w in zip(labels, ws, strict=False)]))
    sp = speedups(res, baseline)
    if sp is not None:
        base, table = sp
        lines.append("")
        lines.append(f"speed-up over {base} (its cycles / cycles):")
        for p in programs:
            lines.append("  ".join([p.ljust(w0)] + [_fmt(table.get((p, lab)), True).rjust(w) for lab, w in zip(labels, ws, strict=False)]))
        geo = {lab: _geomean([v for (pp, ll), v in table.items() if ll == lab]) for lab in labels}
        lines.append("  ".join(["geomean".ljust(w0)] + [_fmt(geo[lab], True).rjust(w) for lab, w in zip(labels, ws, strict=False)]))
    return "\n".join(lines) + "\n"


def _geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def speedups(res: Results, baseline: str | None) -> tuple[str, dict[tuple[str, str], float]] | None:
    """(baseline label, (program, label) -> baseline cycles / cycles), or None without cycles."""
    programs, labels, cycles = res.grid("cycles")
    if not cycles:
        return None
    base = baseline if baseline is not None else labels[0]
    if base not in labels:
        raise SweepError(f"no column {base!r} to compare with (columns: {', '.join(labels)})")
    out = {}
    for (p, lab), c in cycles.items():
        b = cycles.get((p, base))
        if b and c:
            out[(p, lab)] = b / c
    return base, out


def plots(res: Results, metric: str, baseline: str | None, out_dir: Path) -> list[Path]:
    """Write the plots into ``out_dir``; returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    programs, labels, cells = res.grid(metric)
    if not cells:
        return written

    def bars(table: dict[tuple[str, str], float], ylabel: str, title: str, path: Path, hline: float | None) -> None:
        fig, ax = plt.subplots(figsize=(min(14.0, max(6.0, 0.3 * len(programs) * len(labels) + 2)), 5.0))
        width = 0.8 / max(1, len(labels))
        for i, lab in enumerate(labels):
            xs = [j + (i - (len(labels) - 1) / 2) * width for j in range(len(programs))]
            ax.bar(xs, [table.get((p, lab), float("nan")) for p in programs], width, label=lab)
        if hline is not None:
            ax.axhline(hline, color="black", linewidth=0.8)
        ax.set_xticks(range(len(programs)))
        ax.set_xticklabels(programs, rotation=35, ha="right")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        if len(labels) > 1:
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    name = res.manifest.get("name")
    bars(cells, metric, f"{name}: {metric} per program", out_dir / f"{metric}.png", None)
    sp = speedups(res, baseline)
    ref: dict[tuple[str, str], float]
    if sp is not None:
        base, table = sp
        bars(table, f"speed-up over {base}", f"{name}: speed-up over {base}", out_dir / "speedup.png", 1.0)
        ref = table
        title = f"{name}: speed-up over {base}"
    else:
        base = labels[0]
        ref = {(p, lab): v / cells[(p, base)] for (p, lab), v in cells.items() if cells.get((p, base))}
        title = f"{name}: {metric} relative to {base}"
    fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(labels) + 3), max(3.0, 0.4 * len(programs) + 1.5)))
    data = [[ref.get((p, lab), float("nan")) for lab in labels] for p in programs]
    im = ax.imshow(data, cmap="RdYlGn", aspect="auto")
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=35, ha="right")
    ax.set_yticks(range(len(programs)))
    ax.set_yticklabels(programs)
    for i, row in enumerate(data):
        for j, v in enumerate(row):
            if not math.isnan(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7)
    fig.colorbar(im, ax=ax)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(out_dir / "heatmap.png", dpi=110)
    plt.close(fig)
    written.append(out_dir / "heatmap.png")
    return written


def default_metric(res: Results) -> str:
    return "ipc" if any(r.get("cycles") is not None for r in res.kernels) else "thread_insn"
