"""``gpgpusim correlate``: our simulated figures against measurements from a real GPU.

GPGPU-Sim leaves this to external scripts; the figures are those of Accel-Sim's correlation
script (``util/plotting/plot-correlation.py``): per-kernel error, mean absolute error, aggregate
error, NRMSE and Pearson correlation, plus a log-log scatter plot with the y = x line.

Inputs: one or more ``gpgpusim run -o stats.json`` documents (:mod:`gpgpusim.report.reporter`)
and a CSV of hardware measurements, one row per kernel launch:

``kernel`` (required)
    the kernel's name: mangled (``_Z6vecAddPKfS0_Pfi``), demangled (``vecAdd(float const*, ...)``,
    whitespace ignored, a leading ``void`` allowed) or a prefix of the demangled name (``vecAdd``).
    The best kind of match wins: exact, then same function name, then prefix.
``launch`` (optional)
    the launch's ``kernel_launch_uid`` in its run (1 = first launch). Without it, the n-th row
    naming a kernel matches the n-th launch of that kernel (runs in the order given).
``run`` (optional)
    which stats file the row belongs to (its path, file name or file name without ``.json``),
    for several runs of the same program.
``cycles`` or ``time_us``
    the measurement: core cycles, or microseconds converted to cycles at the core clock of the
    run's config (``-gpgpu_clock_domains`` in the JSON), else at ``--core-mhz``.
any other column
    compared with our figure of the same name: a metric name below (``l2_accesses``, ...) or a
    counter as GPGPU-Sim names it (``L2_total_cache_accesses``). Empty cells are skipped.

Statistics per metric over the matched kernels (hw = hardware, sim = ours): error per kernel
``(sim - hw) / hw``; MAE = mean |error| (kernels with hw = 0 left out); aggregate error =
``(sum sim - sum hw) / sum hw``; Accel-Sim's ``Agg_Err`` = ``sum |sim - hw| / sum hw``;
NRMSE = ``sqrt(mean((sim - hw)^2)) / mean(hw)``; Pearson r (None for fewer than two kernels or
constant values).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# --------------------------------------------------------------------------------------------
# our figures per kernel record
# --------------------------------------------------------------------------------------------


def _num(v: Any) -> float | None:
    """A counter's value as one number: numbers as they are, lists and dicts summed."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, (list, tuple)):
        parts = [_num(x) for x in v]
        nums = [p for p in parts if p is not None]
        return float(sum(nums)) if nums else None
    if isinstance(v, dict):
        return _num(list(v.values()))
    return None


def _counter(rec: Mapping[str, Any], *names: str) -> float | None:
    counters = rec.get("counters") or {}
    for n in names:
        if n in counters:
            v = _num(counters[n])
            if v is not None:
                return v
    return None


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b


def _field(rec: Mapping[str, Any], name: str) -> float | None:
    v = rec.get(name)
    return None if isinstance(v, bool) or not isinstance(v, (int, float)) else float(v)


#: our figure per metric name, from one kernel record of the stats JSON (None: not recorded)
METRICS: dict[str, Callable[[Mapping[str, Any]], float | None]] = {
    "cycles": lambda r: _field(r, "cycles"),
    "thread_insn": lambda r: _field(r, "thread_insn"),
    "warp_insn": lambda r: _field(r, "warp_insn"),
    "ipc": lambda r: _ratio(_field(r, "thread_insn"), _field(r, "cycles")),
    "l1d_accesses": lambda r: _counter(r, "L1D_total_cache_accesses"),
    "l1d_misses": lambda r: _counter(r, "L1D_total_cache_misses"),
    "l1d_miss_rate": lambda r: _ratio(_counter(r, "L1D_total_cache_misses"),
                                      _counter(r, "L1D_total_cache_accesses")),
    "l2_accesses": lambda r: _counter(r, "L2_total_cache_accesses"),
    "l2_misses": lambda r: _counter(r, "L2_total_cache_misses"),
    "l2_miss_rate": lambda r: _ratio(_counter(r, "L2_total_cache_misses"),
                                     _counter(r, "L2_total_cache_accesses")),
    "dram_reads": lambda r: _counter(r, "total_dram_reads", "dram_reads_per_bank"),
    "dram_writes": lambda r: _counter(r, "total_dram_writes", "dram_writes_per_bank"),
    "shmem_bkconflict": lambda r: _counter(r, "gpgpu_n_shmem_bkconflict"),
    "stall_dramfull": lambda r: _counter(r, "gpu_stall_dramfull"),
    "stall_icnt2sh": lambda r: _counter(r, "gpu_stall_icnt2sh"),
}


def ours_value(rec: Mapping[str, Any], metric: str) -> float | None:
    """Our figure ``metric`` for one kernel record: a name of :data:`METRICS`, a counter as
    GPGPU-Sim names it, or a numeric field of the record; None when the run did not record it."""
    if metric in METRICS:
        return METRICS[metric](rec)
    v = _counter(rec, metric)
    return v if v is not None else _field(rec, metric)


# --------------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------------


def rel_error(ours: float | None, ref: float | None) -> float | None:
    """``(ours - ref) / ref``; 0 when both are 0, +-inf when only ``ref`` is 0, None when
    either is missing."""
    if ours is None or ref is None:
        return None
    if ref == 0:
        return 0.0 if ours == 0 else math.copysign(math.inf, ours)
    return (ours - ref) / ref


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson correlation coefficient; None for fewer than two points or a constant series."""
    n = len(xs)
    if n != len(ys) or n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


@dataclass
class ErrorStats:
    """Accel-Sim's correlation figures for one metric (fractions, not percent)."""
    n: int
    mae: float | None              # mean |(sim - hw) / hw| over kernels with hw != 0
    aggregate_error: float | None  # (sum sim - sum hw) / sum hw
    aggregate_abs_error: float | None  # sum |sim - hw| / sum hw (Accel-Sim's Agg_Err)
    nrmse: float | None            # sqrt(mean((sim - hw)^2)) / mean(hw)
    pearson: float | None
    worst: int | None = None       # index of the kernel with the largest |error|
    worst_error: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: _finite(v) for k, v in self.__dict__.items()}


def _finite(v: Any) -> Any:
    return None if isinstance(v, float) and not math.isfinite(v) else v


def error_stats(ours: Sequence[float], ref: Sequence[float]) -> ErrorStats:
    """The correlation figures of paired values (``ours[i]`` simulated, ``ref[i]`` measured)."""
    n = len(ours)
    if n != len(ref):
        raise ValueError("ours and ref differ in length")
    if n == 0:
        return ErrorStats(0, None, None, None, None, None)
    errs = [rel_error(o, r) for o, r in zip(ours, ref, strict=True)]
    finite = [abs(e) for e, r in zip(errs, ref, strict=True) if e is not None and r != 0]
    mae = sum(finite) / len(finite) if finite else None
    worst = max(range(n), key=lambda i: abs(errs[i] or 0.0))
    tot_ref = sum(ref)
    agg = (sum(ours) - tot_ref) / tot_ref if tot_ref else None
    agg_abs = sum(abs(o - r) for o, r in zip(ours, ref, strict=True)) / tot_ref if tot_ref else None
    rmse = math.sqrt(sum((o - r) ** 2 for o, r in zip(ours, ref, strict=True)) / n)
    nrmse = rmse / (tot_ref / n) if tot_ref else None
    return ErrorStats(n, mae, agg, agg_abs, nrmse, pearson(list(ref), list(ours)), worst, errs[worst])


# --------------------------------------------------------------------------------------------
# kernel names
# --------------------------------------------------------------------------------------------

_DEMANGLED: dict[str, str] = {}


def _fallback_demangle(name: str) -> str:
    """The function name of ``_Z<len><name>...`` / ``_ZN<len><ns>...E...`` (c++filt missing)."""
    m = re.match(r"_Z(N?)((?:\d+[A-Za-z_]\w*)+)", name)
    if not m:
        return name
    parts, rest = [], m.group(2)
    while rest and rest[0].isdigit():
        d = re.match(r"\d+", rest)
        assert d is not None
        k = int(d.group(0))
        rest = rest[d.end():]
        parts.append(rest[:k])
        rest = rest[k:]
        if not m.group(1):
            break
    return "::".join(parts)


def demangle(names: Sequence[str]) -> dict[str, str]:
    """Demangled names (``c++filt`` when installed, else just the function name), cached."""
    todo = sorted({n for n in names if n not in _DEMANGLED})
    if todo:
        out: list[str] = []
        exe = shutil.which("c++filt")
        if exe:
            try:
                proc = subprocess.run([exe], input="\n".join(todo) + "\n", capture_output=True,
                                      text=True, timeout=30, check=False)
                out = proc.stdout.splitlines()
            except (OSError, subprocess.SubprocessError):
                out = []
        if len(out) != len(todo):
            out = [_fallback_demangle(n) for n in todo]
        _DEMANGLED.update(zip(todo, out, strict=True))
    return {n: _DEMANGLED[n] for n in names}


def _squash(s: str) -> str:
    s = s.strip()
    if s.startswith("void "):
        s = s[5:]
    return "".join(s.split())


def _base(s: str) -> str:
    return _squash(s).split("(", 1)[0]


def short_name(mangled: str) -> str:
    """The function name of a mangled kernel name (``_Z6vecAddPKfS0_Pfi`` -> ``vecAdd``)."""
    return _base(demangle([mangled])[mangled])


def match_rank(want: str, mangled: str, demangled: str) -> int:
    """How well the CSV's ``want`` names a kernel: 3 exact (mangled or demangled), 2 same
    function name, 1 prefix of the demangled name, 0 no match."""
    if want in (mangled, demangled) or _squash(want) == _squash(demangled):
        return 3
    if _base(want) == _base(demangled):
        return 2
    if _squash(demangled).startswith(_squash(want)) and _squash(want):
        return 1
    return 0


# --------------------------------------------------------------------------------------------
# runs, CSV rows, matching
# --------------------------------------------------------------------------------------------


class InputError(Exception):
    """A stats file or the CSV cannot be used (the CLI exits 2)."""


@dataclass
class Run:
    path: Path
    doc: dict[str, Any]

    @property
    def kernels(self) -> list[dict[str, Any]]:
        return list(self.doc.get("kernels") or [])

    @property
    def core_mhz(self) -> float | None:
        """The core clock of the run's config (first field of ``gpgpu_clock_domains``)."""
        cfg = self.doc.get("config") or {}
        clocks = str(cfg.get("gpgpu_clock_domains") or cfg.get("-gpgpu_clock_domains") or "")
        try:
            mhz = float(clocks.split(":")[0])
        except ValueError:
            return None
        return mhz if mhz > 0 else None

    def names(self) -> set[str]:
        return {str(self.path), self.path.name, self.path.stem}


def load_runs(paths: Sequence[str | Path]) -> list[Run]:
    runs = []
    for p in paths:
        path = Path(p)
        try:
            doc = json.loads(path.read_text())
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror or exc}") from None
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: not a JSON document ({exc})") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("kernels"), list):
            raise InputError(f"{path}: not a gpgpusim stats JSON (no 'kernels' list)")
        runs.append(Run(path, doc))
    return runs


#: CSV columns that say which kernel a row is, not what was measured
KEY_COLUMNS = ("kernel", "launch", "run")


def read_hw_csv(path: str | Path) -> tuple[list[dict[str, str]], list[str]]:
    """The CSV's rows (cells stripped) and its column names; checks the required columns.

    A demangled kernel name holds commas (``reduceTree(int const*, int*, int)``); unquoted, it
    spreads over several cells.  Such a row is read back whole when joining the cells from the
    ``kernel`` column on, up to the one that closes its parentheses, gives the header's number
    of cells; any other row with too many or too few cells is an error naming it."""
    try:
        with open(path, newline="") as f:
            table = [[c.strip() for c in r] for r in csv.reader(f)]
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    except (csv.Error, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a readable CSV file ({exc})") from None
    columns = table[0] if table else []
    if "kernel" not in columns:
        raise InputError(f"{path}: no 'kernel' column (columns: {', '.join(columns)})")
    at = columns.index("kernel")
    rows = []
    for i, cells in enumerate(table[1:], 1):
        if not any(cells):
            continue
        if len(cells) > len(columns):
            cells = _join_name_cells(cells, at, len(columns))
        if len(cells) > len(columns):
            raise InputError(f"{path}: data row {i} has {len(cells)} cells, the header {len(columns)}; "
                             f"quote a kernel name that contains commas (\"f(int, float)\")")
        cells = cells + [""] * (len(columns) - len(cells))
        rows.append(dict(zip(columns, cells, strict=True)))
    if "cycles" not in columns and "time_us" not in columns:
        raise InputError(f"{path}: needs a 'cycles' or a 'time_us' column")
    return rows, columns


def _join_name_cells(cells: list[str], at: int, width: int) -> list[str]:
    """``cells`` with the kernel name that an unquoted comma split rejoined (see
    :func:`read_hw_csv`), or unchanged when that does not make ``width`` cells."""
    depth = 0
    for j in range(at, len(cells)):
        depth += cells[j].count("(") - cells[j].count(")")
        if depth <= 0:
            joined = cells[:at] + [", ".join(cells[at:j + 1])] + cells[j + 1:]
            return joined if len(joined) == width else cells
    return cells


@dataclass
class Match:
    """One CSV row and the kernel launch it measured."""
    row: int                  # 1-based data row of the CSV
    run: Run
    record: dict[str, Any]
    hw: dict[str, float]      # metric -> measured value

    @property
    def label(self) -> str:
        return f"{short_name(str(self.record.get('kernel_name', '?')))}#{self.record.get('kernel_launch_uid', '?')}"


@dataclass
class Matching:
    matches: list[Match] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)       # why each row was left out
    ignored_columns: list[str] = field(default_factory=list)


def _float(cell: str) -> float | None:
    if cell == "":
        return None
    try:
        return float(cell)
    except ValueError:
        return None


def _is_metric_column(col: str, runs: Sequence[Run]) -> bool:
    if col in METRICS or col in ("cycles", "time_us"):
        return True
    return any(ours_value(rec, col) is not None or col in (rec.get("counters") or {})
               for run in runs for rec in run.kernels)


def match_kernels(runs: Sequence[Run], rows: Sequence[Mapping[str, str]], columns: Sequence[str],
                  core_mhz: float | None = None) -> Matching:
    """Pairs each CSV row with one kernel launch of ``runs`` (see the module docstring)."""
    result = Matching()
    metric_cols = [c for c in columns if c not in KEY_COLUMNS and c != "time_us" and c
                   and _is_metric_column(c, runs)]
    result.ignored_columns = [c for c in columns if c and c not in KEY_COLUMNS and c != "time_us"
                              and c not in metric_cols]
    candidates = [(run, rec) for run in runs for rec in run.kernels]
    names = demangle([str(rec.get("kernel_name", "")) for _, rec in candidates])
    used: set[int] = set()
    for i, row in enumerate(rows, start=1):
        want = row.get("kernel", "")
        if not want:
            result.unmatched.append(f"row {i}: empty kernel name")
            continue
        run_name = row.get("run", "")
        launch = row.get("launch", "")
        try:
            launch_uid = int(launch) if launch else None
        except ValueError:
            result.unmatched.append(f"row {i}: launch {launch!r} is not an integer")
            continue
        ranked = []
        for j, (run, rec) in enumerate(candidates):
            if j in used or (run_name and run_name not in run.names()):
                continue
            if launch_uid is not None and rec.get("kernel_launch_uid") != launch_uid:
                continue
            mangled = str(rec.get("kernel_name", ""))
            rank = match_rank(want, mangled, names[mangled])
            if rank:
                ranked.append((rank, j))
        if not ranked:
            where = f" in run {run_name!r}" if run_name else ""
            which = f" with launch {launch_uid}" if launch_uid is not None else ""
            result.unmatched.append(f"row {i}: no (further) kernel {want!r}{which}{where}")
            continue
        best = max(r for r, _ in ranked)
        j = min(j for r, j in ranked if r == best)
        run, rec = candidates[j]
        hw: dict[str, float] = {}
        for col in metric_cols:
            v = _float(row.get(col, ""))
            if v is not None:
                hw[col] = v
        if "cycles" not in hw and (t := _float(row.get("time_us", ""))) is not None:
            mhz = run.core_mhz or core_mhz
            if mhz is None:
                result.unmatched.append(f"row {i}: time_us given but no core clock (use --core-mhz)")
                continue
            hw["cycles"] = t * mhz
        if "cycles" not in hw:
            result.unmatched.append(f"row {i}: no cycles or time_us value")
            continue
        used.add(j)
        result.matches.append(Match(i, run, rec, hw))
    return result


# --------------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------------


@dataclass
class MetricReport:
    metric: str
    rows: list[tuple[Match, float, float, float | None]]   # match, ours, hw, error
    stats: ErrorStats
    missing: int          # matched kernels without our figure


def correlate(matching: Matching) -> list[MetricReport]:
    """Per metric measured anywhere in the CSV (cycles first): the pairs and their statistics."""
    metrics: list[str] = ["cycles"]
    for m in matching.matches:
        metrics += [k for k in m.hw if k not in metrics]
    reports = []
    for metric in metrics:
        rows: list[tuple[Match, float, float, float | None]] = []
        missing = 0
        for m in matching.matches:
            if metric not in m.hw:
                continue
            ours = ours_value(m.record, metric)
            if ours is None:
                missing += 1
                continue
            rows.append((m, ours, m.hw[metric], rel_error(ours, m.hw[metric])))
        stats = error_stats([r[1] for r in rows], [r[2] for r in rows])
        reports.append(MetricReport(metric, rows, stats, missing))
    return reports


def fmt_pct(v: float | None) -> str:
    if v is None:
        return "n/a"
    if math.isinf(v):
        return "+inf" if v > 0 else "-inf"
    return f"{100.0 * v:+.2f}%"


def fmt_num(v: float | None) -> str:
    if v is None:
        return "n/a"
    if float(v).is_integer() and abs(v) < 1e15:
        return f"{int(v):,}"
    return f"{v:,.4g}" if abs(v) < 1000 else f"{v:,.0f}"


def fmt_float(v: float | None, digits: int = 4) -> str:
    return "n/a" if v is None else f"{v:.{digits}f}"


def summary_line(stats: ErrorStats) -> str:
    mae = "n/a" if stats.mae is None else f"{100.0 * stats.mae:.2f}%"
    agg_abs = "n/a" if stats.aggregate_abs_error is None else f"{100.0 * stats.aggregate_abs_error:.2f}%"
    return (f"kernels {stats.n}, MAE {mae}, aggregate error {fmt_pct(stats.aggregate_error)} "
            f"(Agg_Err {agg_abs}), NRMSE {fmt_float(stats.nrmse)}, Pearson r {fmt_float(stats.pearson)}")


def render(matching: Matching, reports: Sequence[MetricReport], n_rows: int) -> str:
    out = [f"matched {len(matching.matches)} of {n_rows} hardware rows"]
    out += [f"  not matched: {u}" for u in matching.unmatched]
    if matching.ignored_columns:
        out.append(f"  ignored columns (no figure of that name): {', '.join(matching.ignored_columns)}")
    for rep in reports:
        if not rep.rows and rep.metric != "cycles":
            continue
        out += ["", f"## {rep.metric}", "",
                "| row | run | kernel | launch | ours | hw | error |", "|---:|---|---|---:|---:|---:|---:|"]
        for m, ours, hw, err in rep.rows:
            out.append(f"| {m.row} | {m.run.path.name} | `{m.record.get('kernel_name', '?')}` | "
                       f"{m.record.get('kernel_launch_uid', '?')} | {fmt_num(ours)} | {fmt_num(hw)} | {fmt_pct(err)} |")
        if rep.missing:
            out.append(f"({rep.missing} matched kernel(s) have no simulated {rep.metric}: "
                       f"a functional-mode run, or the model does not count it)")
        out += ["", summary_line(rep.stats)]
    return "\n".join(out) + "\n"


def plot(report: MetricReport, path: str | Path) -> Path:
    """Log-log scatter of ours (y) against hardware (x) with the y = x line."""
    from .plot import _plt     # plot imports this module (kernel labels): a cycle at import

    plt = _plt()
    xs = [hw for _, _, hw, _ in report.rows if hw > 0]
    ys = [ours for _, ours, hw, _ in report.rows if hw > 0]
    fig, ax = plt.subplots(figsize=(6, 6))
    if xs:
        pos = [v for v in xs + ys if v > 0]
        lo, hi = min(pos) / 1.5, max(pos) * 1.5
        ax.plot([lo, hi], [lo, hi], color="red", linewidth=1, alpha=0.7, label="y = x")
        ax.scatter(xs, [max(y, lo) for y in ys], s=24, alpha=0.7, label="kernels")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.legend(loc="upper left")
    ax.set_xlabel(f"hardware {report.metric}")
    ax.set_ylabel(f"simulated {report.metric} (gpgpusim)")
    mae = "n/a" if report.stats.mae is None else f"{100.0 * report.stats.mae:.1f}%"
    ax.set_title(f"{report.metric}: {report.stats.n} kernels, MAE {mae}, r = {fmt_float(report.stats.pearson, 3)}")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def to_json(matching: Matching, reports: Sequence[MetricReport]) -> dict[str, Any]:
    return {
        "unmatched": matching.unmatched,
        "ignored_columns": matching.ignored_columns,
        "metrics": {rep.metric: {
            "stats": rep.stats.to_json(),
            "kernels": [{"row": m.row, "run": str(m.run.path), "kernel_name": m.record.get("kernel_name"),
                         "kernel_launch_uid": m.record.get("kernel_launch_uid"), "ours": ours, "hw": hw,
                         "error": _finite(err)} for m, ours, hw, err in rep.rows],
        } for rep in reports},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="gpgpusim correlate",
        description="Compare simulated kernels (gpgpusim run -o stats.json) with real-GPU measurements.")
    ap.add_argument("stats", nargs="+", help="stats JSON files written by `gpgpusim run -o`")
    ap.add_argument("--hw", required=True, metavar="CSV",
                    help="hardware measurements: kernel, [launch], [run], cycles or time_us, [counters]")
    ap.add_argument("--core-mhz", type=float, default=None,
                    help="core clock for converting time_us when a stats file has no config clock")
    ap.add_argument("--plot", metavar="out.png", help="write a log-log scatter plot of the cycles")
    ap.add_argument("--json-out", metavar="FILE", help="write the figures as JSON")
    a = ap.parse_args(argv)
    try:
        runs = load_runs(a.stats)
        rows, columns = read_hw_csv(a.hw)
    except InputError as exc:
        print(f"gpgpusim correlate: {exc}", file=sys.stderr)
        return 2
    matching = match_kernels(runs, rows, columns, a.core_mhz)
    reports = correlate(matching)
    sys.stdout.write(render(matching, reports, len(rows)))
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(to_json(matching, reports), indent=1) + "\n")
    if a.plot:
        try:
            path = plot(reports[0], a.plot)
        except ImportError as exc:
            print(f"gpgpusim correlate: cannot plot ({exc}); install matplotlib", file=sys.stderr)
            return 2
        print(f"plot written to {path}")
    return 0 if matching.matches else 1
