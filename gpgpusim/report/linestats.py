"""PTX source-line statistics file (``-enable_ptx_file_line_stats``, ``-ptx_line_stats_filename``).

GPGPU-Sim counterpart: ``ptx_file_line_stats_write_file`` (checklist C199).  GPGPU-Sim writes a
header naming nine metrics and one row per PTX source line, ``<file> <line> : <metrics...>``.

The first metric, the execution count, is counted by GPGPU-Sim in ``ptx_exec_inst`` next to
``g_ptx_sim_num_insn``: once per SIMT-active lane of every executed instruction, whether its
guard predicate holds or not, so the counts sum to the functional instruction count (vectoradd:
1,441,792, where ``gpu_sim_insn`` is 1,376,256).  GPGPU-Sim skips this counting for functional
simulation threads; we count in both modes, with the same definition, from the per-line counts
the engine reports (``KernelStats.line_counts``).  The other eight metrics (latency, DRAM
traffic, shared-memory bank conflicts, ...) come from the timing model.  Columns no model has
produced are left out of the header and the rows rather than written as zeros; with all nine
the file is byte-identical in form to GPGPU-Sim's (``"%s %i : "`` then each value followed by a
space).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

#: GPGPU-Sim's metric names, in its column order
METRICS = ("count", "latency", "dram_traffic", "smem_bk_conflicts", "smem_warp", "gmem_access_generated",
           "gmem_warp", "exposed_latency", "warp_divergence")


def write_line_stats(path: str | Path, counts: Mapping[tuple[str, int], int],
                     extra: Mapping[str, Mapping[tuple[str, int], int]] | None = None) -> None:
    """Write the file: ``counts`` maps (ptx_file, line) to executions; ``extra`` maps further
    metric names (from :data:`METRICS`) to per-line values when a timing model has them."""
    extra = dict(extra or {})
    unknown = set(extra) - set(METRICS)
    if unknown:
        raise ValueError(f"unknown PTX line metric(s): {', '.join(sorted(unknown))}")
    cols = ["count"] + [m for m in METRICS[1:] if m in extra]
    keys = sorted(set(counts) | {k for m in extra.values() for k in m})
    with open(path, "w") as f:
        f.write("kernel line : " + " ".join(cols) + "\n")
        for key in keys:
            vals = [counts.get(key, 0)] + [extra[m].get(key, 0) for m in cols[1:]]
            # GPGPU-Sim writes every value followed by one space
            f.write(f"{key[0]} {key[1]} : " + "".join(f"{v} " for v in vals) + "\n")


def read_line_stats(path: str | Path) -> dict[tuple[str, int], dict[str, int]]:
    """Parse a file written by :func:`write_line_stats` (for tests and tools)."""
    lines = Path(path).read_text().splitlines()
    cols = lines[0].split(":", 1)[1].split()
    out: dict[tuple[str, int], dict[str, int]] = {}
    for ln in lines[1:]:
        head, vals = ln.rsplit(" : ", 1)
        fname, line = head.rsplit(" ", 1)
        out[(fname, int(line))] = dict(zip(cols, (int(v) for v in vals.split()), strict=True))
    return out
