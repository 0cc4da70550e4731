"""Stats registry and the table-driven end-of-kernel printer.

GPGPU-Sim counterparts: ``gpgpu_sim::gpu_print_stat`` (gpu-sim.cc), ``shader_print_cache_stats``,
``shader_core_stats::print``, ``memory_stats_t::memlatstat_print``, the L2 part of
``gpgpu_sim::gpu_print_stat`` (checklist C193; the format is GPGPU-Sim 4.2's output).

Design (gem5 / ChampSim style):

* components own plain counters in a :class:`StatsRegistry` under GPGPU-Sim's stat names
  (``stats.add("gpu_stall_dramfull")``); counters are cumulative since program start;
* per-kernel values are ``snapshot()`` at kernel start subtracted from the values at kernel end;
* derived values (IPC, miss rates, bandwidth) are formulas in :data:`DERIVED`, evaluated at
  print time from whichever raw values exist;
* :data:`LINES` lists GPGPU-Sim 4.2's end-of-kernel lines in its order and spelling (including
  ``partiton_level_parallism``).  A line prints only when every value it needs exists, so a
  counter a model adds later appears in the right place with no printer change, and nothing
  is ever printed for a counter no model produces.

Value names in templates: ``k:<stat>`` is the per-kernel value of a counter, ``t:<stat>`` the
cumulative one; bare names are kernel fields or derived formulas.
"""

from __future__ import annotations

import copy
import math
import operator
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import sections as S


class StatsRegistry:
    """Plain counters by GPGPU-Sim stat name; values are numbers or lists of numbers (per core,
    per bank).  Owned by the GPU model; the Reporter reads snapshots of it."""

    __slots__ = ("values",)

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def add(self, name: str, n: int | float = 1) -> None:
        self.values[name] = self.values.get(name, 0) + n

    def add_at(self, name: str, index: int, n: int | float = 1, size: int | None = None) -> None:
        """Add to element ``index`` of an array counter (created with ``size`` zeros)."""
        arr = self.values.get(name)
        if arr is None:
            arr = self.values[name] = [0] * (size if size is not None else index + 1)
        if index >= len(arr):
            arr.extend([0] * (index + 1 - len(arr)))
        arr[index] += n

    def set(self, name: str, value: Any) -> None:
        self.values[name] = value

    def snapshot(self) -> dict[str, Any]:
        return tree_copy(self.values)


_NUMBER = (int, float)
#: the same as a set, for ``_NUMBERS.issuperset(map(type, values))``: whether a list holds
#: numbers only (bools are not), tested without a Python-level loop
_NUMBERS = frozenset(_NUMBER)


def tree_copy(v: Any) -> Any:
    """A deep copy of a counter tree (dicts, lists and tuples of numbers and strings), several
    times faster than ``copy.deepcopy``; anything else is deep-copied."""
    if isinstance(v, dict):
        return {k: x if type(x) is int else tree_copy(x) for k, x in v.items()}
    if isinstance(v, list):
        if _NUMBERS.issuperset(map(type, v)):
            return v[:]
        return [tree_copy(x) for x in v]
    if isinstance(v, (int, float, str, bool)) or v is None:
        return v
    if isinstance(v, tuple):
        return tuple(tree_copy(x) for x in v)
    return copy.deepcopy(v)


def high_water(name: str) -> bool:
    """Whether counter ``name`` is a high-water mark (``maxmflatency``, ``max_icnt2mem_latency``,
    ...: the largest value seen, neither summed nor scaled), not a count.  ``max_warps_sum``, the
    warp slots of the cycles an SM had warps (the occupancy's denominator), is a sum."""
    return name.startswith("max") and not name.endswith("_sum")


def delta(now: Mapping[str, Any], before: Mapping[str, Any]) -> dict[str, Any]:
    """Per-kernel values: ``now - before`` element-wise, through lists and dicts (the
    :func:`high_water` marks are taken as they are)."""
    return {k: _kernel_value(k, v, before) for k, v in now.items()}


def _kernel_value(name: str, v: Any, before: Mapping[str, Any]) -> Any:
    """Counter ``name``'s per-kernel value: ``v`` less its value in ``before``, or a
    :func:`high_water` mark as it is."""
    return tree_copy(v) if high_water(name) else _sub(v, before.get(name))


class LazyDelta(Mapping[str, Any]):
    """:func:`delta` read name by name: each per-kernel value computed when first looked up.
    A statistics block reads a few dozen of a kernel's ~100 counters per kernel (most lines
    print cumulative values), so a run that keeps no kernel records (no JSON) skips the rest:
    the per-bank DRAM tables and channel records are ~90 % of :func:`delta`'s time."""

    __slots__ = ("now", "before", "done")

    def __init__(self, now: Mapping[str, Any], before: Mapping[str, Any]) -> None:
        self.now = now
        self.before = before
        self.done: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        got = self.done.get(name, _MISSING)
        if got is _MISSING:
            got = self.done[name] = _kernel_value(name, self.now[name], self.before)
        return got

    def __contains__(self, name: object) -> bool:
        return name in self.now

    def __iter__(self) -> Iterator[str]:
        return iter(self.now)

    def __len__(self) -> int:
        return len(self.now)


_MISSING = object()


def _sub(v: Any, b: Any) -> Any:
    if type(v) is int and type(b) is int:      # most counters: a scalar (bool is neither)
        return v - b
    if b is None:
        return tree_copy(v)
    if isinstance(v, dict):
        if not isinstance(b, dict):
            return tree_copy(v)
        out = {}
        for k, x in v.items():                 # a DRAM channel's ~100 counters: scalars inline
            y = b.get(k)
            out[k] = x - y if type(x) is int and type(y) is int else _sub(x, y)
        return out
    if isinstance(v, list):
        if isinstance(b, list) and v and _NUMBERS.issuperset(map(type, v)) and _NUMBERS.issuperset(map(type, b)):
            n = min(len(v), len(b))
            return list(map(operator.sub, v[:n], b[:n])) + v[n:]
        return [_sub(x, b[i] if isinstance(b, list) and i < len(b) else None) for i, x in enumerate(v)]
    if isinstance(v, (int, float)) and not isinstance(v, bool) and isinstance(b, (int, float)):
        return v - b
    return tree_copy(v)


# --------------------------------------------------------------------------------------------
# derived formulas (evaluated at print time)
# --------------------------------------------------------------------------------------------


def _ratio(a: str, b: str) -> Callable[[Values], float]:
    def f(v: Values) -> float:
        den = v[b]
        return v[a] / den if den else 0.0
    return f


def _f32_ratio(a: str, b: str) -> Callable[[Values], float]:
    """``(float)a / b`` as GPGPU-Sim computes it: in single precision."""
    def f(v: Values) -> float:
        den = v[b]
        return float(np.float32(v[a]) / np.float32(den)) if den else 0.0
    return f


DERIVED: dict[str, Callable[[Values], Any]] = {
    "gpu_ipc": _f32_ratio("gpu_sim_insn", "gpu_sim_cycle"),
    "gpu_tot_ipc": _f32_ratio("gpu_tot_sim_insn", "gpu_tot_sim_cycle"),
    # real elapsed wall time, not whole seconds (GPGPU-Sim divides by whole seconds)
    "gpu_total_sim_rate": lambda v: int(v["gpu_tot_sim_insn"] / max(v["elapsed_s"], 1e-9)),
    "gpu_occupancy": lambda v: 100.0 * v["k:active_warps_sum"] / v["k:max_warps_sum"] if v["k:max_warps_sum"] else math.nan,
    "gpu_tot_occupancy": lambda v: 100.0 * v["t:active_warps_sum"] / v["t:max_warps_sum"] if v["t:max_warps_sum"] else math.nan,
    "partiton_level_parallism": lambda v: v["k:icnt_l2_req_sum"] / v["gpu_sim_cycle"] if v["gpu_sim_cycle"] else 0.0,
    "partiton_level_parallism_total": lambda v: v["t:icnt_l2_req_sum"] / v["gpu_tot_sim_cycle"] if v["gpu_tot_sim_cycle"] else 0.0,
    "partiton_level_parallism_util": lambda v: v["k:icnt_l2_req_sum"] / v["k:icnt_l2_busy_cycles"] if v["k:icnt_l2_busy_cycles"] else 0.0,
    "partiton_level_parallism_util_total": lambda v: v["t:icnt_l2_req_sum"] / v["t:icnt_l2_busy_cycles"] if v["t:icnt_l2_busy_cycles"] else 0.0,
    # bytes moved through L2 per second of simulated core time
    "L2_BW": lambda v: v["k:l2_bytes"] / (v["gpu_sim_cycle"] / v["core_hz"]) / 1e9 if v["gpu_sim_cycle"] else 0.0,
    "L2_BW_total": lambda v: v["t:l2_bytes"] / (v["gpu_tot_sim_cycle"] / v["core_hz"]) / 1e9 if v["gpu_tot_sim_cycle"] else 0.0,
}
for _c in ("L1I", "L1D", "L1C", "L1T", "L2"):
    DERIVED[f"{_c}_total_cache_miss_rate"] = _ratio(f"t:{_c}_total_cache_misses", f"t:{_c}_total_cache_accesses")


def _l1i_miss_rate_printed(v: Values) -> float:
    """GPGPU-Sim prints ``L1I_total_cache_miss_rate`` only once the L1I was accessed (a finite
    L1I, ``-gpgpu_perfect_inst_const_cache 0``): no accesses -> KeyError -> no line."""
    acc = v["t:L1I_total_cache_accesses"]
    if not acc:
        raise KeyError("L1I_total_cache_accesses")
    return v["t:L1I_total_cache_misses"] / acc


DERIVED["L1I_total_cache_miss_rate_printed"] = _l1i_miss_rate_printed


class Values:
    """Name lookup for templates: explicit values, then ``k:``/``t:`` counters, then formulas.

    A missing input raises KeyError, which makes the line that needed it disappear.
    """

    def __init__(self, fields: Mapping[str, Any], kernel: Mapping[str, Any], total: Mapping[str, Any]) -> None:
        self.fields = fields
        self.kernel = kernel
        self.total = total

    def __getitem__(self, name: str) -> Any:
        if name in self.fields:
            return self.fields[name]
        if name.startswith("k:"):
            return self.kernel[name[2:]]
        if name.startswith("t:"):
            return self.total[name[2:]]
        if name.startswith("no:"):  # "no:X" exists exactly when counter X does not
            if name[3:] in self.total:
                raise KeyError(name)
            return True
        f = DERIVED.get(name)
        if f is None:
            raise KeyError(name)
        return f(self)

    def has(self, name: str) -> bool:
        try:
            self[name]
        except (KeyError, ZeroDivisionError):
            return False
        return True


# --------------------------------------------------------------------------------------------
# the line table
# --------------------------------------------------------------------------------------------


def cfmt(value: Any, spec: str) -> str:
    """printf-like formatting; NaN prints as glibc's ``-nan`` (GPGPU-Sim's 0/0 occupancy)."""
    if isinstance(value, float) and math.isnan(value):
        return "-nan"
    return format(value, spec)


_FIELD = re.compile(r"\{([^{}:|]+(?::[^{}|]+)?)(?:\|([^{}]*))?\}")
# what a field name reads from a Values (_parts): a k: counter, a t: counter, or anything else
_BY_NAME, _KERNEL, _TOTAL = 0, 1, 2
#: template -> its parts (:func:`_parts`)
_PARTS: dict[str, tuple[tuple[str, str, str, int, str], ...]] = {}


def _parts(template: str) -> tuple[tuple[str, str, str, int, str], ...]:
    """``template`` as (literal text, field name, format spec, kind, key) tuples, the last with
    no field (name ""): parsed once, so a line renders by joining instead of a regex pass (a run
    of thousands of launches renders hundreds of thousands of lines).  ``kind`` and ``key`` say
    where a :class:`Values` finds the name: :data:`_KERNEL` / :data:`_TOTAL` and the counter's
    name without its ``k:`` / ``t:`` prefix, else :data:`_BY_NAME` and the name."""
    got = _PARTS.get(template)
    if got is None:
        out, at = [], 0
        for m in _FIELD.finditer(template):
            name = m.group(1)
            kind = _KERNEL if name.startswith("k:") else _TOTAL if name.startswith("t:") else _BY_NAME
            out.append((template[at:m.start()], name, m.group(2) or "", kind, name[2:] if kind else name))
            at = m.end()
        out.append((template[at:], "", "", _BY_NAME, ""))
        got = _PARTS[template] = tuple(out)
    return got


def fill(template: str, values: Any) -> str:
    """``template`` with each ``{name}`` / ``{name|spec}`` replaced by ``cfmt(values[name], spec)``
    (a missing name raises KeyError).  For a :class:`Values`, a ``k:`` / ``t:`` counter is read
    from its dict directly: what ``Values[name]`` returns, without its checks for every other
    kind of name (the statistics block of each launch reads ~100 counters)."""
    out = []
    if type(values) is Values:
        fields, kernel, total = values.fields, values.kernel, values.total
        for text, name, spec, kind, key in _parts(template):
            out.append(text)
            if name:
                if kind == _KERNEL and name not in fields:
                    v = kernel[key]
                elif kind == _TOTAL and name not in fields:
                    v = total[key]
                else:
                    v = values[name]
                out.append(cfmt(v, spec))
        return "".join(out)
    for text, name, spec, _, _ in _parts(template):
        out.append(text)
        if name:
            out.append(cfmt(values[name], spec))
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Line:
    """One output line: ``{name}`` or ``{name|spec}`` placeholders; printed only if all exist."""

    template: str

    def names(self) -> list[str]:
        return [m.group(1) for m in _FIELD.finditer(self.template)]

    def render(self, v: Values) -> str | None:
        try:
            return fill(self.template, v)
        except (KeyError, ZeroDivisionError):
            return None


@dataclass(frozen=True, slots=True)
class Header:
    """A section header printed only when at least one line of its section prints.

    ``level`` 0 = section, 1 = subsection; a header discards pending headers of its own or a
    deeper level (their sections printed nothing).  ``text`` None only ends a (sub)section.
    """

    text: str | None
    level: int = 0


@dataclass(frozen=True, slots=True)
class PerUnit:
    """One line per element of array counters (``L1D_cache_core[i]: Access = ...``)."""

    template: str      # uses {i} and {name} placeholders for the array counters
    arrays: tuple[str, ...]

    def render_all(self, v: Values) -> list[str]:
        try:
            arrs = [v[f"t:{a}"] for a in self.arrays]
        except KeyError:
            return []
        # arrays of ints (every model's) print with str.format, as fill would: no value can be
        # NaN (the rate divides only by a non-zero count), so cfmt's one difference never applies
        fmt = _format_string(self.template) if all(S.ints_only(a) for a in arrs) else None
        out = []
        for i in range(len(arrs[0])):
            vals: dict[str, Any] = {a: arr[i] for a, arr in zip(self.arrays, arrs, strict=True)}
            acc, miss = vals.get(self.arrays[0], 0), vals.get(self.arrays[1], 0) if len(self.arrays) > 1 else 0
            vals["rate"] = miss / acc if acc else 0.0
            vals["i"] = i
            out.append(fill(self.template, vals) if fmt is None else fmt.format_map(vals))
        return out


def _format_string(template: str) -> str:
    """``template`` as a ``str.format`` string: ``{name|spec}`` -> ``{name:spec}`` (names
    without ``k:``/``t:`` prefixes and literal text without braces, as :class:`PerUnit`'s)."""
    return "".join(text + (("{" + name + (":" + spec if spec else "") + "}") if name else "")
                   for text, name, spec, _, _ in _parts(template))


def _cache_block(c: str, indent: str, per_unit: PerUnit | None, extra: tuple[str, ...] = ()) -> list[Any]:
    rows: list[Any] = [Header(f"{c}_cache:", 1)] if indent else [Header(None, 1)]
    if per_unit is not None:
        rows.append(per_unit)
    rows += [Line(f"{indent}{c}_total_cache_accesses = {{t:{c}_total_cache_accesses}}"),
             Line(f"{indent}{c}_total_cache_misses = {{t:{c}_total_cache_misses}}")]
    if c in ("L1D", "L2"):
        rows.append(Line(f"{indent}{c}_total_cache_miss_rate = {{{c}_total_cache_miss_rate|.4f}}"))
    elif c == "L1I":
        rows.append(Line(f"{indent}{c}_total_cache_miss_rate = {{{c}_total_cache_miss_rate_printed|.4f}}"))
    rows += [Line(f"{indent}{c}_total_cache_pending_hits = {{t:{c}_total_cache_pending_hits}}"),
             Line(f"{indent}{c}_total_cache_reservation_fails = {{t:{c}_total_cache_reservation_fails}}")]
    rows += [Line(indent + e) for e in extra]
    return rows


_UNIT = "Access = {access}, Miss = {miss}, Miss_rate = {rate|.3f}, Pending_hits = {pending}, Reservation_fails = {resfail}"

#: GPGPU-Sim 4.2's end-of-kernel block, in order (the kernel header lines are printed first)
LINES: list[Any] = [
    Line("kernel_name = {kernel_name} "),
    Line("kernel_launch_uid = {kernel_launch_uid} "),
    Line("kernel_stream_id = {kernel_stream_id}"),
    Line("gpu_sim_cycle = {gpu_sim_cycle}"),
    Line("gpu_sim_insn = {gpu_sim_insn}"),
    Line("gpu_ipc = {gpu_ipc|12.4f}"),
    Line("gpu_tot_sim_cycle = {gpu_tot_sim_cycle}"),
    Line("gpu_tot_sim_insn = {gpu_tot_sim_insn}"),
    Line("gpu_tot_ipc = {gpu_tot_ipc|12.4f}"),
    Line("gpu_tot_issued_cta = {gpu_tot_issued_cta}"),
    Line("gpu_occupancy = {gpu_occupancy|.4f}% "),
    Line("gpu_tot_occupancy = {gpu_tot_occupancy|.4f}% "),
    Line("max_total_param_size = {t:max_total_param_size}"),
    Line("gpu_stall_dramfull = {t:gpu_stall_dramfull}"),
    Line("gpu_stall_icnt2sh    = {t:gpu_stall_icnt2sh}"),
    Line("partiton_level_parallism = {partiton_level_parallism|12.4f}"),
    Line("partiton_level_parallism_total  = {partiton_level_parallism_total|12.4f}"),
    Line("partiton_level_parallism_util = {partiton_level_parallism_util|12.4f}"),
    Line("partiton_level_parallism_util_total  = {partiton_level_parallism_util_total|12.4f}"),
    Line("L2_BW  = {L2_BW|12.4f} GB/Sec"),
    Line("L2_BW_total  = {L2_BW_total|12.4f} GB/Sec"),
    Line("gpu_total_sim_rate={gpu_total_sim_rate}"),
    Header("\n========= Core cache stats ========="),
    *_cache_block("L1I", "\t", None),
    *_cache_block("L1D", "\t", PerUnit("\tL1D_cache_core[{i}]: " + _UNIT.replace("{access}", "{L1D_core_access}")
                                        .replace("{miss}", "{L1D_core_miss}").replace("{pending}", "{L1D_core_pending}")
                                        .replace("{resfail}", "{L1D_core_resfail}"),
                                        ("L1D_core_access", "L1D_core_miss", "L1D_core_pending", "L1D_core_resfail")),
                  ("L1D_cache_data_port_util = {L1D_cache_data_port_util|.3f}",
                   "L1D_cache_fill_port_util = {L1D_cache_fill_port_util|.3f}")),
    *_cache_block("L1C", "\t", None),
    *_cache_block("L1T", "\t", None),
    Header(None, 0),
    S.cache_breakdown("\nTotal_core_cache_stats:", "Total_core_cache_stats_breakdown", "core_cache_breakdown"),
    S.fail_breakdown("\nTotal_core_cache_fail_stats:", "Total_core_cache_fail_stats_breakdown", "core_cache_fail_breakdown"),
    S.Custom(("t:shader0_warp_issue_distro", "t:ctas_completed"), S.warp_issue_distro),
    Line("gpgpu_n_tot_thrd_icount = {t:gpgpu_n_tot_thrd_icount}"),
    Line("gpgpu_n_tot_w_icount = {t:gpgpu_n_tot_w_icount}"),
    Line("gpgpu_n_stall_shd_mem = {t:gpgpu_n_stall_shd_mem}"),
    Line("gpgpu_n_mem_read_local = {t:gpgpu_n_mem_read_local}"),
    Line("gpgpu_n_mem_write_local = {t:gpgpu_n_mem_write_local}"),
    Line("gpgpu_n_mem_read_global = {t:gpgpu_n_mem_read_global}"),
    Line("gpgpu_n_mem_write_global = {t:gpgpu_n_mem_write_global}"),
    Line("gpgpu_n_mem_texture = {t:gpgpu_n_mem_texture}"),
    Line("gpgpu_n_mem_const = {t:gpgpu_n_mem_const}"),
    Line("gpgpu_n_load_insn  = {t:gpgpu_n_load_insn}"),
    Line("gpgpu_n_store_insn = {t:gpgpu_n_store_insn}"),
    Line("gpgpu_n_shmem_insn = {t:gpgpu_n_shmem_insn}"),
    Line("gpgpu_n_sstarr_insn = {t:gpgpu_n_sstarr_insn}"),
    Line("gpgpu_n_tex_insn = {t:gpgpu_n_tex_insn}"),
    Line("gpgpu_n_const_mem_insn = {t:gpgpu_n_const_mem_insn}"),
    Line("gpgpu_n_param_mem_insn = {t:gpgpu_n_param_mem_insn}"),
    Line("gpgpu_n_shmem_bkconflict = {t:gpgpu_n_shmem_bkconflict}"),
    Line("gpgpu_n_l1cache_bkconflict = {t:gpgpu_n_l1cache_bkconflict}"),
    Line("gpgpu_n_intrawarp_mshr_merge = {t:gpgpu_n_intrawarp_mshr_merge}"),
    Line("gpgpu_n_cmem_portconflict = {t:gpgpu_n_cmem_portconflict}"),
    Line("gpgpu_stall_shd_mem[c_mem][resource_stall] = {t:gpgpu_stall_shd_mem[c_mem][resource_stall]}"),
    Line("gpgpu_stall_shd_mem[s_mem][bk_conf] = {t:gpgpu_stall_shd_mem[s_mem][bk_conf]}"),
    Line("gpgpu_stall_shd_mem[gl_mem][resource_stall] = {t:gpgpu_stall_shd_mem[gl_mem][resource_stall]}"),
    Line("gpgpu_stall_shd_mem[gl_mem][coal_stall] = {t:gpgpu_stall_shd_mem[gl_mem][coal_stall]}"),
    Line("gpgpu_stall_shd_mem[gl_mem][data_port_stall] = {t:gpgpu_stall_shd_mem[gl_mem][data_port_stall]}"),
    Line("gpu_reg_bank_conflict_stalls = {t:gpu_reg_bank_conflict_stalls}"),
    S.Custom(("t:warp_occupancy",), S.warp_occupancy),
    S.issue_nums("single_issue_nums", "single_issue_nums"),
    S.issue_nums("dual_issue_nums", "dual_issue_nums"),
    S.traffic("coretomem", "traffic_coretomem"),
    S.traffic("memtocore", "traffic_memtocore"),
    Line("maxmflatency = {t:maxmflatency} "),
    Line("max_icnt2mem_latency = {t:max_icnt2mem_latency} "),
    Line("maxmrqlatency = {t:maxmrqlatency} "),
    Line("max_icnt2sh_latency = {t:max_icnt2sh_latency} "),
    Line("averagemflatency = {averagemflatency} "),
    Line("avg_icnt2mem_latency = {avg_icnt2mem_latency} "),
    Line("avg_mrq_latency = {avg_mrq_latency} "),
    Line("avg_icnt2sh_latency = {avg_icnt2sh_latency} "),
    S.lat_table("mrq_lat_table", "mrq_lat_table"),
    S.lat_table("dq_lat_table", "dq_lat_table"),
    S.lat_table("mf_lat_table", "mf_lat_table"),
    S.lat_table("icnt2mem_lat_table", "icnt2mem_lat_table"),
    S.lat_table("icnt2sh_lat_table", "icnt2sh_lat_table"),
    S.lat_table("mf_lat_pw_table", "mf_lat_pw_table"),
    S.per_bank_table("maximum concurrent accesses to same row:", "dram_max_conc_access_per_bank"),
    S.per_bank_table("maximum service time to same row:", "dram_max_service_time_per_bank"),
    S.Custom(("t:dram_row_accesses_per_bank", "t:dram_activates_per_bank"), S.row_accesses_per_activate),
    S.dram_accesses("number of total memory accesses made:", "dram_accesses_per_bank", "total accesses: {}"),
    S.dram_accesses("number of total read accesses:", "dram_reads_per_bank", "total dram reads = {}"),
    S.Custom(("t:total_dram_reads", "no:dram_reads_per_bank"), lambda v: [f"total dram reads = {v['t:total_dram_reads']}"]),
    S.dram_accesses("number of total write accesses:", "dram_writes_per_bank", "total dram writes = {}"),
    S.Custom(("t:total_dram_writes", "no:dram_writes_per_bank"), lambda v: [f"total dram writes = {v['t:total_dram_writes']}"]),
    S.per_bank_table("average mf latency per bank:", "dram_avg_mf_latency_per_bank", lead=" ", tail=""),
    S.per_bank_table("maximum mf latency per bank:", "dram_max_mf_latency_per_bank", lead=" ", tail=""),
    S.Custom(("t:dram_channels", "cfg"), S.dram_partitions),
    Header("\n========= L2 cache stats ========="),
    *_cache_block("L2", "", PerUnit("L2_cache_bank[{i}]: " + _UNIT.replace("{access}", "{L2_bank_access}")
                                     .replace("{miss}", "{L2_bank_miss}").replace("{pending}", "{L2_bank_pending}")
                                     .replace("{resfail}", "{L2_bank_resfail}"),
                                     ("L2_bank_access", "L2_bank_miss", "L2_bank_pending", "L2_bank_resfail"))),
    S.cache_breakdown("L2_total_cache_breakdown:", "L2_cache_stats_breakdown", "l2_cache_breakdown"),
    S.fail_breakdown("L2_total_cache_reservation_fail_breakdown:", "L2_cache_stats_fail_breakdown",
                     "l2_cache_fail_breakdown"),
    Line("L2_cache_data_port_util = {L2_cache_data_port_util|.3f}"),
    Line("L2_cache_fill_port_util = {L2_cache_fill_port_util|.3f}"),
    Header(None, 0),
    Header(""),
    Line("icnt_total_pkts_mem_to_simt={t:icnt_total_pkts_mem_to_simt}"),
    Line("icnt_total_pkts_simt_to_mem={t:icnt_total_pkts_simt_to_mem}"),
    S.mem_lat_dist("LD_mem_lat_dist", "LD_mem_lat_dist"),
    S.mem_lat_dist("ST_mem_lat_dist", "ST_mem_lat_dist"),
    S.Custom(("t:icnt_details",), S.icnt_details),
]


def _memlat_avg(total: str, count: str = "t:mf_latency_count") -> Callable[[Values], int]:
    """``memlatstat_print``'s averages: integer division, printed only once a sampling window
    closed with a completed fetch (``num_mfs``, ``mf_latency_count``, is not 0; a zero divisor
    drops the line).  The fetch, icnt->mem and icnt->shader averages all divide by
    ``num_mfs``; the FR-FCFS queue average by its own count."""
    def f(v: Values) -> int:
        if not v["t:mf_latency_count"]:
            raise ZeroDivisionError(count)
        return v[total] // v[count]
    return f


DERIVED["averagemflatency"] = _memlat_avg("t:mf_latency_sum")
DERIVED["avg_icnt2mem_latency"] = _memlat_avg("t:icnt2mem_latency_sum")
DERIVED["avg_mrq_latency"] = _memlat_avg("t:mrq_latency_sum", "t:mrq_latency_count")
DERIVED["avg_icnt2sh_latency"] = _memlat_avg("t:icnt2sh_latency_sum")
DERIVED["L1D_cache_data_port_util"] = _ratio("t:L1D_data_port_busy", "t:L1D_port_cycles")
DERIVED["L1D_cache_fill_port_util"] = _ratio("t:L1D_fill_port_busy", "t:L1D_port_cycles")
DERIVED["L2_cache_data_port_util"] = _ratio("t:L2_data_port_busy", "t:L2_port_cycles")
DERIVED["L2_cache_fill_port_util"] = _ratio("t:L2_fill_port_busy", "t:L2_port_cycles")


def render(lines: list[Any], v: Values) -> Iterator[str]:
    """The lines that have data; a Header prints just before the first line that follows it."""
    pending: list[Header] = []
    for row in lines:
        outs: list[str] | tuple[str]
        if type(row) is Line:          # most rows: one line or none
            one = row.render(v)
            if one is None:
                continue
            outs = (one,)
        elif isinstance(row, Header):
            pending = [h for h in pending if h.level < row.level]
            if row.text is not None:
                pending.append(row)
            continue
        else:
            got = row.render_all(v) if hasattr(row, "render_all") else [row.render(v)]
            outs = [o for o in got if o is not None]
            if not outs:
                continue
        for h in pending:
            yield from str(h.text).split("\n")
        pending = []
        yield from outs


def rows_for(lines: list[Any], kernel: Mapping[str, Any], total: Mapping[str, Any]) -> list[Any]:
    """The rows of ``lines`` that can print for counters with these names (the headers kept):
    a row drops out when a ``k:``/``t:`` counter it reads is missing (or a ``no:`` one
    present), whatever the values, so :func:`render` of the rows left prints the same lines
    as of ``lines``.  For a report whose counters leave most rows out (a projected launch's
    compact report) this skips them once instead of trying each."""
    def present(name: str) -> bool:
        if name.startswith("k:"):
            return name[2:] in kernel
        if name.startswith("t:"):
            return name[2:] in total
        if name.startswith("no:"):
            return name[3:] not in total
        return True
    out = []
    for row in lines:
        if isinstance(row, PerUnit):
            names = [f"t:{a}" for a in row.arrays]
        elif isinstance(row, Header):
            names = []
        else:
            names = row.names()
        if all(present(n) for n in names):
            out.append(row)
    return out


def known_stat_names() -> set[str]:
    """Every raw counter name the printer can show (for tests and for model authors)."""
    names: set[str] = set()
    for row in LINES:
        if isinstance(row, PerUnit):
            names.update(row.arrays)
        elif not isinstance(row, Header):
            names.update(n[2:] for n in row.names() if n[:2] in ("k:", "t:"))
    return names
