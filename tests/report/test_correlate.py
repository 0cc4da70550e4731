"""``gpgpusim correlate``: matching, Accel-Sim's statistics, the CLI and the plot, on tiny
synthetic stats JSONs and the README's example CSV (``data/hw_example.csv``)."""
from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

from gpgpusim.cli import main as cli_main
from gpgpusim.report import correlate as cr

DATA = Path(__file__).parent / "data"
HW_EXAMPLE = DATA / "hw_example.csv"


def _kernel(name: str, uid: int, cycles: int | None, **counters: int) -> dict:
    rec: dict = {"kernel_name": name, "kernel_launch_uid": uid, "thread_insn": 1000 * uid, "warp_insn": 40 * uid}
    if cycles is not None:
        rec["cycles"] = cycles
    if counters:
        rec["counters"] = counters
    return rec


def _write(path: Path, kernels: list[dict], mhz: str | None = "1000.0:1000.0:1000.0:850.0") -> Path:
    doc = {"mode": "performance", "kernels": kernels, "config": {"gpgpu_clock_domains": mhz} if mhz else {}}
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture()
def runs(tmp_path: Path) -> list[Path]:
    return [
        # the kernels of apps/vector_add and apps/reduction, which the example CSV names
        _write(tmp_path / "vector_add.json", [_kernel("_Z9vectorAddPKfS0_Pfi", 1, 2200,
                                                      L2_total_cache_accesses=24000)]),
        _write(tmp_path / "reduction.json", [_kernel("_Z10reduceTreePKiPii", 1, 3300),
                                             _kernel("_Z10reduceTreePKiPii", 2, 900),
                                             _kernel("_Z13reduceShufflePKiPii", 3, 2500)]),
    ]


# ---- statistics -------------------------------------------------------------------------------

def test_error_stats_exact():
    s = cr.error_stats([2200.0, 3300.0, 900.0], [2000.0, 3000.0, 1000.0])
    assert s.n == 3
    assert s.mae == pytest.approx(0.10)
    assert s.aggregate_error == pytest.approx(400 / 6000)
    assert s.aggregate_abs_error == pytest.approx(600 / 6000)
    assert s.nrmse == pytest.approx(math.sqrt(140000 / 3) / 2000)
    # hw deviations (0, 1000, -1000), ours deviations (200, 3500, -3700) / 3
    assert s.pearson == pytest.approx(2.4e6 / math.sqrt(2e6 * 25980000 / 9))
    assert s.worst == 0 and s.worst_error == pytest.approx(0.10)


def test_error_stats_edge_cases():
    assert cr.error_stats([], []).mae is None
    one = cr.error_stats([5.0], [4.0])
    assert one.pearson is None and one.mae == pytest.approx(0.25)
    assert cr.pearson([1.0, 1.0], [2.0, 3.0]) is None
    assert cr.pearson([1.0, 2.0, 3.0], [2.0, 4.0, 6.0]) == pytest.approx(1.0)
    # hw = 0: left out of MAE, infinite error reported as such
    z = cr.error_stats([3.0, 0.0, 11.0], [0.0, 0.0, 10.0])
    assert z.mae == pytest.approx(0.10)
    assert cr.rel_error(3.0, 0.0) == math.inf and cr.rel_error(0.0, 0.0) == 0.0
    assert cr.rel_error(None, 1.0) is None


def test_ours_value_metrics_and_counters():
    rec = _kernel("k", 2, 500, L1D_total_cache_accesses=100, L1D_total_cache_misses=25,
                  dram_reads_per_bank=[[1, 2], [3, 4]])
    assert cr.ours_value(rec, "ipc") == pytest.approx(4.0)
    assert cr.ours_value(rec, "l1d_miss_rate") == pytest.approx(0.25)
    assert cr.ours_value(rec, "dram_reads") == 10
    assert cr.ours_value(rec, "L1D_total_cache_accesses") == 100
    assert cr.ours_value(rec, "l2_accesses") is None
    assert cr.ours_value({"kernel_name": "k", "thread_insn": 5}, "cycles") is None


def test_name_matching_ranks():
    m = "_Z9reduceSumPKiPii"
    d = "reduceSum(int const*, int*, int)"
    assert cr.match_rank(m, m, d) == 3
    assert cr.match_rank("reduceSum(int const *, int *, int)", m, d) == 3
    assert cr.match_rank("void reduceSum(int const*, int*, int)", m, d) == 3
    assert cr.match_rank("reduceSum", m, d) == 2
    assert cr.match_rank("reduce", m, d) == 1
    assert cr.match_rank("vecAdd", m, d) == 0
    assert cr._fallback_demangle("_Z9reduceSumPKiPii") == "reduceSum"
    assert cr._fallback_demangle("_ZN2ns6kernelEPf") == "ns::kernel"


# ---- matching ---------------------------------------------------------------------------------

def test_example_csv_matches_and_converts_time(runs):
    rows, cols = cr.read_hw_csv(HW_EXAMPLE)
    matching = cr.match_kernels(cr.load_runs(runs), rows, cols)
    assert matching.unmatched == [] and matching.ignored_columns == []
    got = [(m.row, m.run.path.stem, m.record["kernel_launch_uid"], m.hw) for m in matching.matches]
    assert got == [(1, "vector_add", 1, {"cycles": 2000.0, "l2_accesses": 25000.0}),
                   (2, "reduction", 1, {"cycles": 3000.0}),
                   (3, "reduction", 2, {"cycles": 1000.0})]
    reports = {r.metric: r for r in cr.correlate(matching)}
    assert list(reports) == ["cycles", "l2_accesses"]
    assert reports["cycles"].stats.mae == pytest.approx(0.10)
    assert [e for *_, e in reports["l2_accesses"].rows] == [pytest.approx(-0.04)]


def test_occurrence_order_without_launch_and_core_mhz(tmp_path):
    run = _write(tmp_path / "r.json", [_kernel("_Z1kv", 1, 100), _kernel("_Z1kv", 2, 300),
                                       _kernel("_Z1kv", 3, 50)], mhz=None)
    csv_path = tmp_path / "hw.csv"
    csv_path.write_text("kernel,time_us,notes\nk,0.5,first\nk,2.0,second\nk,,third\n")
    rows, cols = cr.read_hw_csv(csv_path)
    no_clock = cr.match_kernels(cr.load_runs([run]), rows, cols)
    assert not no_clock.matches and len(no_clock.unmatched) == 3
    matching = cr.match_kernels(cr.load_runs([run]), rows, cols, core_mhz=200.0)
    assert [(m.record["kernel_launch_uid"], m.hw["cycles"]) for m in matching.matches] == [(1, 100.0), (2, 400.0)]
    assert matching.unmatched == ["row 3: no cycles or time_us value"]
    assert matching.ignored_columns == ["notes"]


def test_functional_run_degrades_to_na(tmp_path):
    run = _write(tmp_path / "f.json", [_kernel("_Z1kv", 1, None)])
    csv_path = tmp_path / "hw.csv"
    csv_path.write_text("kernel,cycles,thread_insn\nk,100,1000\n")
    rows, cols = cr.read_hw_csv(csv_path)
    reports = {r.metric: r for r in cr.correlate(cr.match_kernels(cr.load_runs([run]), rows, cols))}
    assert reports["cycles"].stats.n == 0 and reports["cycles"].missing == 1
    assert reports["thread_insn"].stats.mae == 0.0
    assert "MAE n/a" in cr.summary_line(reports["cycles"].stats)


# ---- CLI --------------------------------------------------------------------------------------

def test_cli_output_and_json(runs, tmp_path, capsys):
    out_json = tmp_path / "corr.json"
    rc = cli_main(["correlate", "--hw", str(HW_EXAMPLE), *map(str, runs), "--json-out", str(out_json)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "matched 3 of 3 hardware rows" in out
    assert "## cycles" in out and "## l2_accesses" in out
    assert "| 1 | vector_add.json | `_Z9vectorAddPKfS0_Pfi` | 1 | 2,200 | 2,000 | +10.00% |" in out
    assert ("kernels 3, MAE 10.00%, aggregate error +6.67% (Agg_Err 10.00%), NRMSE 0.1080, "
            "Pearson r 0.9988") in out
    doc = json.loads(out_json.read_text())
    assert doc["metrics"]["cycles"]["stats"]["mae"] == pytest.approx(0.10)
    assert [k["kernel_launch_uid"] for k in doc["metrics"]["cycles"]["kernels"]] == [1, 1, 2]


def test_cli_exit_codes(runs, tmp_path, capsys):
    assert cli_main(["correlate", "--hw", str(tmp_path / "missing.csv"), str(runs[0])]) == 2
    bad = tmp_path / "bad.csv"
    bad.write_text("name,cycles\nk,1\n")
    assert cli_main(["correlate", "--hw", str(bad), str(runs[0])]) == 2
    assert "no 'kernel' column" in capsys.readouterr().err
    none = tmp_path / "none.csv"
    none.write_text("kernel,cycles\nnoSuchKernel,1\n")
    assert cli_main(["correlate", "--hw", str(none), str(runs[0])]) == 1
    assert "not matched: row 1" in capsys.readouterr().out


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib not installed")
def test_cli_plot_png(runs, tmp_path, capsys):
    png = tmp_path / "corr.png"
    assert cli_main(["correlate", "--hw", str(HW_EXAMPLE), *map(str, runs), "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"plot written to {png}" in capsys.readouterr().out


def test_example_csv_names_the_shipped_apps_kernels():
    """The README's example CSV is about apps/vector_add and apps/reduction: every row's run is
    a shipped app whose source defines the kernel it names."""
    rows, _ = cr.read_hw_csv(HW_EXAMPLE)
    apps = Path(__file__).resolve().parents[2] / "apps"
    for row in rows:
        source = (apps / f"{row['run']}.cu").read_text()
        bare = row["kernel"].split("(")[0]
        assert f"__global__ void {bare}(" in source, row


def test_unquoted_kernel_names_with_commas(runs, tmp_path, capsys):
    csv_path = tmp_path / "hw.csv"
    csv_path.write_text("run,kernel,launch,cycles\nreduction,reduceTree(int const*, int*, int),2,1000\n"
                        "reduction,reduceShuffle(int const*, int*, int),,2000\n")
    rows, cols = cr.read_hw_csv(csv_path)
    assert rows == [{"run": "reduction", "kernel": "reduceTree(int const*, int*, int)", "launch": "2", "cycles": "1000"},
                    {"run": "reduction", "kernel": "reduceShuffle(int const*, int*, int)", "launch": "",
                     "cycles": "2000"}]
    matching = cr.match_kernels(cr.load_runs(runs), rows, cols)
    assert [(m.record["kernel_name"], m.record["kernel_launch_uid"]) for m in matching.matches] == [
        ("_Z10reduceTreePKiPii", 2), ("_Z13reduceShufflePKiPii", 3)]
    bad = tmp_path / "bad.csv"
    bad.write_text("kernel,cycles\nk,1,2,3\n")
    assert cli_main(["correlate", "--hw", str(bad), str(runs[0])]) == 2
    assert capsys.readouterr().err == (f"gpgpusim correlate: {bad}: data row 1 has 4 cells, the header 2; quote a "
                                       f"kernel name that contains commas (\"f(int, float)\")\n")
