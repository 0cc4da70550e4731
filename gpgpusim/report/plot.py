"""``gpgpusim plot stats.json``: PNG charts from whatever series the JSON holds.

Per-kernel thread-instruction counts and the instruction mix (total and per kernel) exist for
every run (functional included); per-kernel IPC, cache miss rates and DRAM traffic appear when a
timing run recorded cycles and counters; time series (IPC, active warps, cache hit rates, DRAM
bandwidth, ...) are drawn from the periodic ``samples`` when a timing run recorded them: one
chart per numeric series against ``tot_cycle`` (the run's cycle), each sample being the change
over its interval (or the level, for the sampler's gauges), plus derived ones (``ipc`` = ``globalinsncount`` / interval cycles,
``L1D_hit_rate``/``L2_hit_rate`` from ``*_total_cache_accesses``/``*_misses``).

Readability rules: every chart names both axes; kernels are labelled ``<launch uid>:<function
name>`` (demangled: ``vectorAdd``, not ``_Z9vectorAddPKfS0_Pfi``); per-kernel bar charts switch
to a log scale when kernels differ by 100x or more, and the per-kernel instruction mix shows
each kernel's shares (percent of its own instructions), so a small kernel is as readable as a
large one.  Time series mark where each kernel started (a dashed line, labelled while there are
few kernels), and a value that does not exist is not drawn: a hit or miss rate over an interval
or kernel without accesses is a gap, never 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .correlate import demangle, short_name


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _log_if_wide(ax: Any, values: list[Any], axis: str = "y") -> str:
    """Log-scale the value axis when positive values span 100x or more (so small bars stay
    visible next to big ones); returns the label suffix saying so."""
    pos = [v for v in values if isinstance(v, (int, float)) and v > 0]
    if len(pos) > 1 and max(pos) >= 100 * min(pos):
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
        return " (log scale)"
    return ""


def _percent(n: float, total: float) -> str:
    p = 100.0 * n / total if total else 0.0
    return f"{p:.1f}%" if p >= 0.1 or p == 0 else f"{p:.2g}%"


def _series_label(name: str, default: str) -> str:
    """The y-axis label of a time series: what one sample holds."""
    if name == "ipc":
        return "IPC (instructions / cycle)"
    if name.endswith("_hit_rate"):
        return "hit rate (hits / accesses)"
    return default


#: time series mark at most this many kernel starts, and label them while there are no more than
MAX_MARKED_KERNELS = 60
MAX_LABELLED_KERNELS = 12
_NAN = float("nan")


def kernel_labels(kernels: list[dict[str, Any]]) -> list[str]:
    """``<launch uid>:<function name>`` of each kernel (demangled, at most 28 characters)."""

    demangle([str(k.get("kernel_name", "?")) for k in kernels])      # one c++filt call for all
    return [f"{k.get('kernel_launch_uid', '?')}:{short_name(str(k.get('kernel_name', '?')))[:28]}" for k in kernels]


def kernel_starts(kernels: list[dict[str, Any]], labels: list[str]) -> list[tuple[float, str]]:
    """``(start cycle, label)`` of each kernel of a timing run, on the time series' axis
    (``gpu_tot_sim_cycle`` at its end minus its ``cycles``); empty for a functional run."""
    starts = []
    for k, label in zip(kernels, labels, strict=True):
        end, cycles = k.get("gpu_tot_sim_cycle"), k.get("cycles")
        if isinstance(end, (int, float)) and isinstance(cycles, (int, float)):
            starts.append((float(end - cycles), label))
    return starts


def _mark_kernels(ax: Any, starts: list[tuple[float, str]]) -> None:
    if len(starts) > MAX_MARKED_KERNELS:
        return
    for x, label in starts:
        ax.axvline(x, color="0.55", ls="--", lw=0.7, zorder=0)
        if len(starts) <= MAX_LABELLED_KERNELS:
            ax.text(x, 0.98, " " + label, transform=ax.get_xaxis_transform(), rotation=90, va="top",
                    ha="left", fontsize=6, color="0.35")


def plot_stats(doc: dict[str, Any], outdir: Path, prefix: str = "gpgpusim") -> list[Path]:
    """Write the charts for one stats document; returns the PNG paths written."""
    plt = _plt()
    outdir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    kernels = doc.get("kernels", [])

    def save(fig: Any, name: str) -> None:
        p = outdir / f"{prefix}_{name}.png"
        fig.tight_layout()
        fig.savefig(p, dpi=100)
        plt.close(fig)
        written.append(p)

    kernel_axis = "kernel (launch uid: name)"
    if kernels:
        labels = kernel_labels(kernels)
        fig, ax = plt.subplots(figsize=(max(6, len(kernels) * 0.8), 4))
        insn = [k.get("thread_insn", 0) for k in kernels]
        ax.bar(range(len(kernels)), insn, color="tab:blue")
        ax.set_xticks(range(len(kernels)), labels, rotation=45, ha="right", fontsize=8)
        ax.set_xlabel(kernel_axis)
        ax.set_ylabel("thread instructions" + _log_if_wide(ax, insn))
        ax.set_title("Instructions per kernel")
        save(fig, "kernel_insn")
        if any("cycles" in k for k in kernels):
            fig, ax = plt.subplots(figsize=(max(6, len(kernels) * 0.8), 4))
            ax.bar(range(len(kernels)), [k.get("gpu_ipc", 0.0) for k in kernels], color="tab:green")
            ax.set_xticks(range(len(kernels)), labels, rotation=45, ha="right", fontsize=8)
            ax.set_xlabel(kernel_axis)
            ax.set_ylabel("IPC (thread instructions / cycle)")
            ax.set_title("IPC per kernel")
            save(fig, "kernel_ipc")
        if any("sampling" in k for k in kernels):
            save(_sampling_chart(plt, kernels), "kernel_sampling")
        # per-kernel cache miss rates and DRAM traffic, once a timing model recorded counters
        ctr = [k.get("counters") or {} for k in kernels]
        rates = {}
        for c in ("L1D", "L2"):
            acc = [x.get(f"{c}_total_cache_accesses") for x in ctr]
            miss = [x.get(f"{c}_total_cache_misses") for x in ctr]
            if all(isinstance(a, (int, float)) and isinstance(m, (int, float)) for a, m in zip(acc, miss, strict=True)):
                # no accesses: no bar (a miss rate of 0 would be invented)
                rates[c] = [m / a if a else _NAN for a, m in zip(acc, miss, strict=True)]
        if rates:
            fig, ax = plt.subplots(figsize=(max(6, len(kernels) * 0.8), 4))
            width = 0.8 / len(rates)
            for j, (c, vals) in enumerate(rates.items()):
                ax.bar([i + j * width for i in range(len(kernels))], vals, width=width, label=c)
            ax.set_xticks(range(len(kernels)), labels, rotation=45, ha="right", fontsize=8)
            ax.set_xlabel(kernel_axis)
            ax.set_ylabel("miss rate (misses / accesses)")
            ax.set_title("Cache miss rate per kernel")
            ax.legend()
            save(fig, "kernel_miss_rate")
        if all("total_dram_reads" in x and "total_dram_writes" in x for x in ctr) and ctr:
            fig, ax = plt.subplots(figsize=(max(6, len(kernels) * 0.8), 4))
            reads = [x["total_dram_reads"] for x in ctr]
            ax.bar(range(len(kernels)), reads, label="reads")
            ax.bar(range(len(kernels)), [x["total_dram_writes"] for x in ctr], bottom=reads, label="writes")
            ax.set_xticks(range(len(kernels)), labels, rotation=45, ha="right", fontsize=8)
            ax.set_xlabel(kernel_axis)
            ax.set_ylabel("DRAM accesses")
            ax.set_title("DRAM traffic per kernel")
            ax.legend()
            save(fig, "kernel_dram")
    mix = doc.get("totals", {}).get("opcode_counts") or {}
    if mix:
        items = sorted(mix.items(), key=lambda kv: -kv[1])
        top = items[:15]
        rest = sum(n for _, n in items[15:])
        if rest:
            top.append(("other", rest))
        fig, ax = plt.subplots(figsize=(7, 4))
        counts = [n for _, n in top][::-1]
        bars = ax.barh([k for k, _ in top][::-1], counts, color="tab:orange")
        grand = sum(mix.values())
        ax.bar_label(bars, [_percent(n, grand) for n in counts], padding=2, fontsize=7)
        ax.margins(x=0.12)
        ax.set_xlabel("thread instructions (all kernels)" + _log_if_wide(ax, counts, "x"))
        ax.set_ylabel("PTX opcode")
        ax.set_title("Instruction mix")
        save(fig, "insn_mix")
    if len(kernels) > 1 and mix:
        top_ops = [k for k, _ in sorted(mix.items(), key=lambda kv: -kv[1])[:8]]
        fig, ax = plt.subplots(figsize=(max(6, len(kernels) * 0.8) + 1.5, 4))
        bottom: list[float] = [0.0] * len(kernels)
        totals = [sum(k.get("opcode_counts", {}).values()) for k in kernels]
        for op in top_ops + ["other"]:
            vals = []
            for k, tot in zip(kernels, totals, strict=True):
                oc = k.get("opcode_counts", {})
                n = oc.get(op, 0) if op != "other" else sum(c for o, c in oc.items() if o not in top_ops)
                vals.append(100.0 * n / tot if tot else 0.0)
            ax.bar(range(len(kernels)), vals, bottom=bottom, label=op)
            bottom = [a + b for a, b in zip(bottom, vals, strict=True)]
        ax.set_xticks(range(len(kernels)), labels, rotation=45, ha="right", fontsize=8)
        ax.set_xlabel(kernel_axis)
        ax.set_ylabel("share of kernel's instructions (%)")
        ax.set_ylim(0, 100)
        ax.set_title("Instruction mix per kernel")
        ax.legend(fontsize=7, bbox_to_anchor=(1.01, 1), loc="upper left", title="opcode", title_fontsize=7)
        save(fig, "insn_mix_per_kernel")
    samples = [dict(s) for s in doc.get("samples", [])]
    prev_cycle: int | None = None
    for s in samples:  # derived series, when the timing model sampled their inputs
        cyc = s.get("cycle")
        # the interval a sample covers: since the previous sample of the same kernel, or since
        # the kernel started (the sampler restarts "cycle" at each kernel)
        interval = s.get("cycles") or (cyc - prev_cycle if isinstance(cyc, int) and prev_cycle is not None
                                       and cyc > prev_cycle else cyc)
        prev_cycle = cyc if isinstance(cyc, int) else None
        if "globalinsncount" in s and interval:
            s["ipc"] = s["globalinsncount"] / interval
        for c in ("L1D", "L2"):
            sa, sm = s.get(f"{c}_total_cache_accesses"), s.get(f"{c}_total_cache_misses")
            if isinstance(sa, (int, float)) and isinstance(sm, (int, float)) and sa:
                s[f"{c}_hit_rate"] = 1.0 - sm / sa
    if samples:
        starts = kernel_starts(kernels, kernel_labels(kernels)) if kernels else []
        xs = [s.get("tot_cycle", s.get("cycle", i)) for i, s in enumerate(samples)]
        skip = {"cycle", "tot_cycle", "cycles"}
        names = sorted({k for s in samples for k, v in s.items() if k not in skip and isinstance(v, (int, float, list))})
        for name in names:
            fig, ax = plt.subplots(figsize=(7, 3.5))
            first = next(s[name] for s in samples if name in s)
            if isinstance(first, list):  # per core / per partition: one line per unit (first 16)
                for u in range(min(len(first), 16)):
                    ax.plot(xs, [_at(s.get(name), u) for s in samples], lw=0.8)
                ylabel = f"{name} per unit (first {min(len(first), 16)})"
            else:
                # a sample without the series (e.g. a hit rate of an interval without
                # accesses) is a gap in the line
                ax.plot(xs, [s.get(name, _NAN) for s in samples], lw=1.2, marker="." if len(xs) < 50 else None)
                ylabel = name
            _mark_kernels(ax, starts)
            ax.set_xlabel("cycle (whole run)")
            ax.set_ylabel(_series_label(name, ylabel))
            ax.set_title(f"{name} over time")
            save(fig, "series_" + "".join(c if c.isalnum() else "_" for c in name))
    return written


def _sampling_chart(plt: Any, kernels: list[dict[str, Any]]) -> Any:
    """Cycles per launch under ``-gpgpusim_sampling``: launches simulated in detail, projected
    ones and CTA-sampled ones (these two with their 95 % error bound as an error bar), against
    the launch uid."""
    fig, ax = plt.subplots(figsize=(8, 4))
    for status, color, marker in (("detailed", "tab:blue", "o"), ("projected", "tab:orange", "s"),
                                  ("cta_projected", "tab:red", "^")):
        ks = [k for k in kernels if (k.get("sampling") or {}).get("status", "detailed") == status]
        if not ks:
            continue
        x = [k["kernel_launch_uid"] for k in ks]
        y = [k.get("cycles", 0) for k in ks]
        err = [(k.get("sampling") or {}).get("cycles_bound", 0) for k in ks] if status != "detailed" else None
        ax.errorbar(x, y, yerr=err, fmt=marker, color=color, markersize=3, elinewidth=0.8,
                    label=f"{status} ({len(ks)})")
    ax.set_xlabel("kernel launch uid")
    ax.set_ylabel("gpu_sim_cycle" + _log_if_wide(ax, [k.get("cycles", 0) for k in kernels]))
    tot = next((k for k in kernels if k.get("sampling")), {}).get("sampling", {}).get("mode", "")
    ax.set_title(f"Cycles per launch, sampled ({tot}): projected launches with their 95 % bound")
    ax.legend()
    return fig


def _at(values: Any, u: int) -> float:
    """Unit ``u`` of a per-unit sample, NaN (a gap) when the sample has none."""
    return float(values[u]) if isinstance(values, list) and u < len(values) else _NAN


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gpgpusim plot", description="PNG charts from a gpgpusim stats.json")
    ap.add_argument("stats", help="stats JSON written with -o")
    ap.add_argument("-d", "--outdir", help="folder for the PNGs (default: next to the JSON)")
    args = ap.parse_args(argv)
    path = Path(args.stats)
    try:
        doc = json.loads(path.read_text())
    except OSError as exc:
        print(f"gpgpusim plot: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"gpgpusim plot: {path} is not JSON: {exc}", file=sys.stderr)
        return 2
    if not isinstance(doc, dict) or "kernels" not in doc:
        print(f"gpgpusim plot: {path} is not a gpgpusim stats file (no 'kernels')", file=sys.stderr)
        return 2
    outdir = Path(args.outdir) if args.outdir else path.parent
    written = plot_stats(doc, outdir, path.stem)
    if not written:
        print(f"gpgpusim plot: {path} holds no series to plot", file=sys.stderr)
        return 1
    for p in written:
        print(p)
    return 0
