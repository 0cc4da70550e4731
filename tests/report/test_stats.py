"""Stats registry: counters, snapshot-and-subtract, derived formulas, header rules."""

from __future__ import annotations

import math

import pytest

from gpgpusim.report import sections as S
from gpgpusim.report.stats import (LINES, Header, LazyDelta, Line, PerUnit, StatsRegistry, Values, cfmt, delta, fill,
                                   high_water, known_stat_names, render, rows_for)


def test_counters_and_arrays():
    s = StatsRegistry()
    s.add("a")
    s.add("a", 4)
    s.add_at("per_core", 2, 3, size=4)
    s.add_at("per_core", 5)
    assert s.values == {"a": 5, "per_core": [0, 0, 3, 0, 0, 1]}


def test_snapshot_and_subtract():
    s = StatsRegistry()
    s.add("reads", 10)
    s.add_at("core", 0, 2, size=2)
    s.set("maxmflatency", 50)
    snap = s.snapshot()
    s.add("reads", 5)
    s.add_at("core", 1, 7)
    s.set("maxmflatency", 80)
    s.add("new", 1)
    assert delta(s.values, snap) == {"reads": 5, "core": [0, 7], "maxmflatency": 80, "new": 1}
    assert snap == {"reads": 10, "core": [2, 0], "maxmflatency": 50}


def test_a_lazy_delta_reads_as_the_delta_does():
    """``LazyDelta`` (a block without kept records reads the per-kernel values it prints): each
    name as :func:`delta` gives it -- scalars, lists, lists of lists, channel records with
    missing and None values, high-water marks taken as they are -- and the same names."""
    before = {"reads": 10, "core": [1, 2], "banks": [[1, 2], [3, 4]], "maxmflatency": 50,
              "chan": [{"n_cmd": 5, "blp": None, "bins": [1, 1]}], "ratio": 0.5}
    now = {"reads": 15, "core": [4, 2, 9], "banks": [[2, 2], [3, 9]], "maxmflatency": 80,
           "chan": [{"n_cmd": 9, "blp": 1.5, "bins": [1, 3], "new": 2}], "ratio": 0.75, "only_now": [True, 1]}
    eager = delta(now, before)
    lazy = LazyDelta(now, before)
    assert set(lazy) == set(eager) and len(lazy) == len(eager) and "reads" in lazy and "x" not in lazy
    assert {k: lazy[k] for k in now} == eager
    assert eager["core"] == [3, 0, 9] and eager["banks"] == [[1, 0], [0, 5]] and eager["maxmflatency"] == 80
    assert eager["chan"] == [{"n_cmd": 4, "blp": 1.5, "bins": [0, 2], "new": 2}] and eager["only_now"] == [True, 1]
    with pytest.raises(KeyError):
        lazy["x"]
    # read once, kept: the same object again
    assert lazy["banks"] is lazy["banks"]


def test_tables_of_ints_print_as_each_cell_formatted():
    """The per-bank tables and the per-unit cache lines print a row of ints in one format
    call; a row with a None or NaN keeps the cell-by-cell form (``none``, ``-nan``)."""
    assert S._cells([1, -2, 30], 10, "d") == "".join(format(x, "10d") for x in (1, -2, 30))
    assert S._cells([1, None], 10, "d") == format(1, "10d") + "    none  "
    assert S._cells([1.5, math.nan], 9, "f") == format(1.5, "9f") + "     -nan"
    pu = next(r for r in LINES if isinstance(r, PerUnit))
    counters = {a: [3, 0] for a in pu.arrays}
    counters[pu.arrays[1]] = [1, 0]
    v = Values({}, {}, counters)
    got = pu.render_all(v)
    assert got == [fill(pu.template, {**{a: counters[a][i] for a in pu.arrays}, "rate": r, "i": i})
                   for i, r in ((0, 1 / 3), (1, 0.0))]
    assert got[0].startswith("\tL1D_cache_core[0]: Access = 3, Miss = 1, Miss_rate = 0.333")


def test_missing_values_drop_lines_and_orphan_headers():
    lines = [Header("== A =="), Header("sub1:", 1), Line("\tx = {t:x}"), Header("sub2:", 1), Line("\ty = {t:y}"),
             Header(None, 0), Line("z = {t:z}"), Header("== B =="), Line("w = {t:w}")]
    out = list(render(lines, Values({}, {}, {"y": 2, "z": 3})))
    assert out == ["== A ==", "sub2:", "\ty = 2", "z = 3"]


def test_fill_reads_each_kind_of_name_as_values_does():
    """A Values' k:/t: counters are read from its dicts directly; every name still gives what
    ``Values[name]`` gives (a field first, then the counter; derived formulas; a missing counter
    raises KeyError), and a plain dict is read by name."""
    v = Values({"f": 7, "k:shadow": "field"}, {"shadow": 1, "a": 2}, {"b": 3.5, "L2_data_port_busy": 1,
                                                                      "L2_port_cycles": 4})
    assert fill("{f} {k:a} {t:b|.2f} {k:shadow}", v) == "7 2 3.50 field"
    assert fill("{L2_cache_data_port_util|.3f}", v) == "0.250"
    assert fill("{no:c}", v) == "True"
    for missing in ("{k:b}", "{t:a}", "{nothing}"):
        with pytest.raises(KeyError):
            fill(missing, v)
    assert fill("{t:x} and {y}", {"t:x": 1, "y": 2}) == "1 and 2"
    assert Line("{k:a}/{t:nope}").render(v) is None


def test_nan_prints_like_glibc():
    assert cfmt(math.nan, ".4f") == "-nan"
    assert cfmt(1.5, "12.4f") == "      1.5000"


def test_occupancy_formula_and_nan():
    v = Values({}, {"active_warps_sum": 30, "max_warps_sum": 60}, {"active_warps_sum": 0, "max_warps_sum": 0})
    assert Line("gpu_occupancy = {gpu_occupancy|.4f}% ").render(v) == "gpu_occupancy = 50.0000% "
    assert Line("gpu_tot_occupancy = {gpu_tot_occupancy|.4f}% ").render(v) == "gpu_tot_occupancy = -nan% "


def test_a_kernels_occupancy_is_its_own_and_high_water_marks_stay_as_they_are():
    """``max_warps_sum`` is the occupancy's denominator, a sum like ``active_warps_sum``: a
    kernel's is the change during it (a second kernel's occupancy is not divided by the first
    one's slots too); ``maxmflatency`` and the other ``max*`` marks are taken as they are."""
    assert high_water("maxmflatency") and high_water("max_icnt2mem_latency")
    assert not high_water("max_warps_sum") and not high_water("active_warps_sum")
    before = {"active_warps_sum": 30, "max_warps_sum": 60, "maxmflatency": 400}
    now = {"active_warps_sum": 50, "max_warps_sum": 140, "maxmflatency": 350}
    k = delta(now, before)
    assert k == {"active_warps_sum": 20, "max_warps_sum": 80, "maxmflatency": 350}
    v = Values({}, k, now)
    assert Line("gpu_occupancy = {gpu_occupancy|.4f}% ").render(v) == "gpu_occupancy = 25.0000% "
    assert Line("gpu_tot_occupancy = {gpu_tot_occupancy|.4f}% ").render(v) == "gpu_tot_occupancy = 35.7143% "


def test_known_stat_names_cover_cpp_keys():
    names = known_stat_names()
    for n in ("gpu_stall_dramfull", "gpu_stall_icnt2sh", "L2_total_cache_accesses", "total_dram_reads",
              "gpgpu_n_shmem_bkconflict", "L1D_core_access"):
        assert n in names


def test_row_locality_and_float32_ratios():
    from gpgpusim.report.sections import row_accesses_per_activate

    v = Values({}, {}, {"dram_row_accesses_per_bank": [[428, 0], [64, 5]], "dram_activates_per_bank": [[9, 0], [1, 2]]})
    assert row_accesses_per_activate(v) == [
        "average row accesses per activate:",
        "dram[0]: 47.555557      -nan ",   # 428/9 divided in single precision, as GPGPU-Sim does
        "dram[1]: 64.000000  2.500000 ",
        "average row locality = 497/12 = 41.416667",
    ]


def test_cache_breakdown_total_access():
    from gpgpusim.report.sections import cache_breakdown

    row = cache_breakdown("T:", "B", "bd")
    v = Values({}, {}, {"bd": {"GLOBAL_ACC_R": {"HIT": 50075, "HIT_RESERVED": 40037, "MISS": 53248,
                                                "RESERVATION_FAIL": 20441, "SECTOR_MISS": 118784, "MSHR_HIT": 40037}}})
    out = row.render_all(v)
    assert out[0] == "T:" and len(out) == 1 + 66 + 1
    assert out[-1] == "\tB[GLOBAL_ACC_R][TOTAL_ACCESS] = 262144"  # value from matmul_qv100_lat0.log


def test_rows_for_prints_what_the_whole_table_prints():
    """rows_for leaves out only rows that cannot print for the counters' names: rendering
    the rows left gives the same lines, for a projected launch's scalars and for a full tree."""
    scalars = {"L1D_total_cache_accesses": 40, "L1D_total_cache_misses": 10, "L2_total_cache_accesses": 10,
               "L2_total_cache_misses": 0, "gpgpu_n_load_insn": 64, "total_dram_reads": 3, "total_dram_writes": 1,
               "mf_latency_sum": 900, "mf_latency_count": 0, "icnt2mem_latency_sum": 5,
               "L1I_total_cache_accesses": 0, "L1I_total_cache_misses": 0, "active_warps_sum": 8}
    full = dict(scalars, L1D_core_access=[20, 20], L1D_core_miss=[5, 5], L1D_core_pending=[0, 0],
                L1D_core_resfail=[0, 0], dram_reads_per_bank=[[1, 2], [0, 0]], max_warps_sum=16,
                maxmflatency=300, core_cache_breakdown={"GLOBAL_ACC_R": {"HIT": 30, "MISS": 10}})
    for counters in (scalars, full):
        fields = {"kernel_name": "k", "kernel_launch_uid": 1, "kernel_stream_id": 0, "gpu_sim_cycle": 100,
                  "gpu_sim_insn": 512, "gpu_tot_sim_cycle": 100, "gpu_tot_sim_insn": 512, "gpu_tot_issued_cta": 1,
                  "elapsed_s": 1.0, "core_hz": 1e9}
        v = Values(fields, counters, counters)
        rows = rows_for(LINES, counters, counters)
        assert len(rows) < len(LINES)
        assert list(render(rows, v)) == list(render(LINES, v))
    lines = list(render(rows_for(LINES, scalars, scalars), Values(fields, scalars, scalars)))
    assert "total dram reads = 3" in lines and "\tL1D_total_cache_misses = 10" in lines
    assert not any(line.startswith(("\tL1D_cache_core[", "maxmflatency", "gpu_occupancy")) for line in lines)
