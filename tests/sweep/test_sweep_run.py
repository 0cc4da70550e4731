"""Sweeps run for real: a multi-process Dask LocalCluster, statistics identical to single
``gpgpusim run -o`` runs, resume by content hash, a killed worker, a killed application, a
time limit, Ctrl-C, and the report and correlation on the results."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from gpgpusim.sweep.engine import run_sweep
from gpgpusim.sweep.spec import load
from gpgpusim.sweep.table import kernel_rows, read_csv

#: columns that depend on the host's speed, not on the simulation
WALL_CLOCK = {"elapsed_s", "simulation_elapsed_s", "simulation_rate_inst_per_s", "simulation_rate_cycle_per_s",
              "gpu_total_sim_rate", "silicon_slowdown", "run_wall_s"}
GPUS = {"QV100": "SM7_QV100", "RTX3070": "SM86_RTX3070"}


def sweep_file(path: Path, body: str) -> Path:
    path.write_text(body)
    return path


def wait_for(cond: Any, timeout: float, what: str) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def started(run_dir: Path, attempt: int) -> dict[str, Any] | None:
    try:
        doc = json.loads((run_dir / "started.json").read_text())
    except (OSError, ValueError):
        return None
    return doc if doc.get("attempt") == attempt else None


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture(scope="module", autouse=True)
def pinned_version() -> Any:
    """The simulator version in the content hashes, fixed for these tests: the sources of a
    working tree may change while they run, and a changed simulator rightly reruns a sweep."""
    from gpgpusim.sweep.spec import simulator_version

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GPGPUSIM_SWEEP_VERSION", simulator_version())
        yield


@pytest.fixture(scope="module")
def cluster_sweep(sweep_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """2 programs x 2 configs x 2 modes on a LocalCluster of 2 worker processes."""
    d = tmp_path_factory.mktemp("cluster")
    path = sweep_file(d / "small.toml", f"""\
[sweep]
mode = ["functional", "performance"]
timeout_s = 300

[programs.vector_add]
binary = "{sweep_bin / 'vector_add'}"

[programs.reduction]
binary = "{sweep_bin / 'reduction'}"

[configs]
QV100 = "SM7_QV100"
RTX3070 = "SM86_RTX3070"
""")
    sw = load(path)
    out = run_sweep(sw, jobs=2, progress=False, log=lambda m: None)
    return {"sweep": sw, "outcome": out, "dir": sw.output}


def test_table_equals_single_runs(cluster_sweep: dict[str, Any], sweep_bin: Path, tmp_path: Path) -> None:
    out = cluster_sweep["outcome"]
    res_dir: Path = cluster_sweep["dir"]
    assert (out.total, out.skipped, out.count("ok"), out.interrupted) == (8, 0, 8, False), out.not_ok
    runs = read_csv(res_dir / "runs.csv")
    assert len(runs) == 8 and {r["status"] for r in runs} == {"ok"}
    assert {r["attempts"] for r in runs} == {1}
    table = read_csv(res_dir / "kernels.csv")
    compared = 0
    for program in ("vector_add", "reduction"):
        for config, gpu in GPUS.items():
            for mode in ("functional", "performance"):
                single = tmp_path / f"{program}-{config}-{mode}.json"
                cmd = [sys.executable, "-m", "gpgpusim", "run", "--gpu", gpu, "-o", str(single)]
                cmd += ["--functional"] if mode == "functional" else []
                proc = subprocess.run([*cmd, "--", str(sweep_bin / program)], capture_output=True, text=True,
                                      timeout=300, cwd=tmp_path)
                assert proc.returncode == 0, proc.stderr[-2000:]
                keys = {"program": program, "config": config, "mode": mode}
                want = kernel_rows(json.loads(single.read_text()), keys, "", 0.0)
                got = [r for r in table if all(r[k] == v for k, v in keys.items())]
                assert len(got) == len(want) == (1 if program == "vector_add" else 3)
                for w, g in zip(want, got, strict=True):
                    cols = [c for c in w if c not in WALL_CLOCK and c != "run_id"]
                    assert {c: w[c] for c in cols} == {c: g[c] for c in cols}
                    assert ("cycles" in cols) == (mode == "performance")
                    compared += len(cols)
    assert compared > 1000       # every counter of every launch, not a handful of columns

    import pyarrow.parquet as pq

    pk = pq.read_table(res_dir / "kernels.parquet").to_pylist()
    assert len(pk) == len(table)
    for a, b in zip(pk, table, strict=True):
        assert {k: v for k, v in a.items() if v is not None} == {k: v for k, v in b.items() if v is not None}


def test_rerun_skips_finished(cluster_sweep: dict[str, Any]) -> None:
    res_dir: Path = cluster_sweep["dir"]
    results = sorted((res_dir / "runs").glob("*/result.json"))
    before = {p: p.stat().st_mtime_ns for p in results}
    table = (res_dir / "kernels.csv").read_text()
    out = run_sweep(cluster_sweep["sweep"], jobs=2, progress=False, log=lambda m: None)
    assert (out.total, out.skipped, out.count("ok")) == (8, 8, 8)
    assert {p: p.stat().st_mtime_ns for p in results} == before
    assert (res_dir / "kernels.csv").read_text() == table


def test_report_and_correlate(cluster_sweep: dict[str, Any], tmp_path: Path) -> None:
    res_dir: Path = cluster_sweep["dir"]
    proc = subprocess.run([sys.executable, "-m", "gpgpusim", "sweep", "report", str(res_dir), "--baseline",
                           "QV100 performance", "--plots", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    k = read_csv(res_dir / "kernels.csv")

    def cycles(program: str, config: str) -> int:
        return sum(r["cycles"] for r in k if (r["program"], r["config"], r["mode"]) == (program, config, "performance"))

    def insn(program: str, config: str) -> int:
        return sum(r["thread_insn"] for r in k if (r["program"], r["config"], r["mode"]) == (program, config, "performance"))

    lines = proc.stdout.splitlines()
    assert lines[0].startswith("sweep small: 8 runs: 8 ok; 16 kernel launches")
    assert lines[2] == "ipc per run:"
    assert lines[3].split() == ["program", "QV100", "functional", "QV100", "performance", "RTX3070", "functional",
                                "RTX3070", "performance"]
    ipc_row = lines[4].split()
    assert ipc_row[0] == "vector_add"
    assert ipc_row[1:] == ["-", f"{insn('vector_add', 'QV100') / cycles('vector_add', 'QV100'):.3f}", "-",
                           f"{insn('vector_add', 'RTX3070') / cycles('vector_add', 'RTX3070'):.3f}"]
    i = lines.index("speed-up over QV100 performance (its cycles / cycles):")
    sp = lines[i + 2].split()
    assert sp[0] == "reduction"
    assert sp[1:] == ["-", "1.000", "-", f"{cycles('reduction', 'QV100') / cycles('reduction', 'RTX3070'):.3f}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["heatmap.png", "ipc.png", "speedup.png"]
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in tmp_path.iterdir())

    proc = subprocess.run([sys.executable, "-m", "gpgpusim", "sweep", "correlate", str(res_dir), "--select",
                           "config=QV100", "--select", "mode=performance", "--ref", "config=RTX3070"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("reference: 4 kernel launches of 2 runs")
    assert "4 of 4 rows matched" in proc.stdout or "matched 4" in proc.stdout, proc.stdout


def test_killed_worker_killed_app_and_timeout(sweep_bin: Path, tmp_path: Path) -> None:
    """A worker killed mid-run: Dask runs the task again; an application killed from outside:
    the sweep retries it; a run over its time limit: reported, and the sweep finishes."""
    for name in ("kill_worker", "kill_app"):
        script = tmp_path / f"{name}.sh"
        script.write_text(f"#!/bin/sh\nsleep 2\nexec {sweep_bin / 'vector_add'}\n")
        script.chmod(0o755)
    path = sweep_file(tmp_path / "robust.toml", f"""\
[sweep]
mode = "functional"
timeout_s = 8
retries = 1

[programs.kill_worker]
binary = "kill_worker.sh"

[programs.kill_app]
binary = "kill_app.sh"

[programs.spin]
binary = "{sweep_bin / 'spin_forever'}"
args = ["forever"]
""")
    sw = load(path)
    ids = {s.program.name: s.run_id for s in sw.runs()}
    box: dict[str, Any] = {}
    th = threading.Thread(target=lambda: box.update(out=run_sweep(sw, jobs=2, progress=False, log=lambda m: None)))
    th.start()
    try:
        w = wait_for(lambda: started(sw.output / "runs" / ids["kill_worker"], 1) or not th.is_alive(), 120,
                     "kill_worker to start")
        assert th.is_alive(), "the sweep ended early"
        os.kill(w["worker_pid"], signal.SIGKILL)
        a = wait_for(lambda: started(sw.output / "runs" / ids["kill_app"], 1), 120, "kill_app to start")
        os.kill(a["app_pid"], signal.SIGKILL)
    finally:
        th.join(timeout=180)
    assert not th.is_alive()
    out = box["out"]
    res = {r["program"]: r for r in read_csv(sw.output / "runs.csv")}
    assert (res["kill_worker"]["status"], res["kill_worker"]["attempts"]) == ("ok", 2)
    assert (res["kill_app"]["status"], res["kill_app"]["attempts"]) == ("ok", 2)
    assert (res["spin"]["status"], res["spin"]["attempts"]) == ("timeout", 1)
    assert res["spin"]["reason"] == "over the time limit of 8 s"
    assert out.count("ok") == 2 and len(out.not_ok) == 1
    assert not alive(w["app_pid"]), "the killed worker's application is still running"
    kernels = read_csv(sw.output / "kernels.csv")
    assert sorted(r["program"] for r in kernels) == ["kill_app", "kill_worker"]
    assert {r["thread_insn"] for r in kernels} == {106320}


def test_ctrl_c_keeps_finished_and_rerun_completes(sweep_bin: Path, tmp_path: Path) -> None:
    body = f"""\
[sweep]
mode = "functional"

[programs.vector_add]
binary = "{sweep_bin / 'vector_add'}"

[programs.spin]
binary = "{sweep_bin / 'spin_forever'}"
args = ["{{arg}}"]
"""
    path = sweep_file(tmp_path / "cc.toml", body.replace("{arg}", "forever"))
    sw = load(path)
    ids = {s.program.name: s.run_id for s in sw.runs()}
    proc = subprocess.Popen([sys.executable, "-m", "gpgpusim", "sweep", "run", str(path), "-j", "2", "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_for(lambda: (sw.output / "runs" / ids["vector_add"] / "result.json").is_file() or proc.poll() is not None,
                 120, "vector_add")
        assert proc.poll() is None, proc.communicate()
        spin = wait_for(lambda: started(sw.output / "runs" / ids["spin"], 1), 120, "spin to start")
        os.killpg(proc.pid, signal.SIGINT)              # as a terminal's Ctrl-C does
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "interrupted; finished runs are kept" in err and "Traceback" not in err
    runs = {r["program"]: r for r in read_csv(sw.output / "runs.csv")}
    assert runs["vector_add"]["status"] == "ok"
    assert runs["spin"]["status"] == "pending"
    wait_for(lambda: not alive(spin["app_pid"]), 30, "the interrupted run's application to end")

    path.write_text(body.replace("{arg}", ""))     # spin_forever without "forever" ends
    proc2 = subprocess.run([sys.executable, "-m", "gpgpusim", "sweep", "run", str(path), "--serial", "-q"],
                           capture_output=True, text=True, timeout=120)
    assert proc2.returncode == 0, proc2.stderr
    assert "1 of 2 runs to do (1 done before)" in proc2.stderr
    runs = {r["program"]: r for r in read_csv(sw.output / "runs.csv")}
    assert runs["spin"]["status"] == runs["vector_add"]["status"] == "ok"


def test_changed_binary_runs_again(sweep_bin: Path, tmp_path: Path) -> None:
    exe = tmp_path / "va"
    shutil.copy2(sweep_bin / "vector_add", exe)
    path = sweep_file(tmp_path / "h.toml", """\
[sweep]
mode = "functional"
[programs.va]
binary = "va"
[programs.red]
binary = "%s"
""" % (sweep_bin / "reduction"))
    sw = load(path)
    first = run_sweep(sw, serial=True, progress=False, log=lambda m: None)
    assert (first.skipped, first.count("ok")) == (0, 2)
    again = run_sweep(sw, serial=True, progress=False, log=lambda m: None)
    assert (again.skipped, again.count("ok")) == (2, 2)
    with open(exe, "ab") as f:
        f.write(b"\0")                                # another binary: its run is done again
    third = run_sweep(sw, serial=True, progress=False, log=lambda m: None)
    assert third.skipped == 1 and third.count("ok") == 2
    forced = run_sweep(sw, serial=True, progress=False, log=lambda m: None, force=True)
    assert forced.skipped == 0 and forced.count("ok") == 2


def test_existing_cluster_and_config_file(sweep_bin: Path, tmp_path: Path) -> None:
    """--cluster ADDRESS: a scheduler started elsewhere (here a LocalCluster of this test);
    a config given as a file is copied into the run's directory and used."""
    import logging

    from distributed import LocalCluster

    from gpgpusim.options.config import gpu_config_path

    shutil.copy2(gpu_config_path("SM7_QV100"), tmp_path / "mine.config")
    with open(tmp_path / "mine.config", "a") as f:
        f.write("\n-gpgpu_n_clusters 4\n")
    path = sweep_file(tmp_path / "ext.toml", f"""\
[sweep]
mode = "functional"
[programs.vector_add]
binary = "{sweep_bin / 'vector_add'}"
[configs]
mine = {{ file = "mine.config" }}
QV100 = "SM7_QV100"
""")
    sw = load(path)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=logging.ERROR) as lc:
        out = run_sweep(sw, cluster=lc.scheduler_address, progress=False, log=lambda m: None)
    assert out.count("ok") == 2, out.not_ok
    runs = {r["config"]: r for r in read_csv(sw.output / "runs.csv")}
    mine = sw.output / "runs" / str(runs["mine"]["run_id"])
    assert (mine / "config" / "mine.config").read_text() == (tmp_path / "mine.config").read_text()
    stats = json.loads((mine / "stats.json").read_text())
    assert stats["config"]["gpgpu_n_clusters"] == "4"
    assert stats["config_sources"][0] == str(tmp_path / "mine.config")
    qv = json.loads((sw.output / "runs" / str(runs["QV100"]["run_id"]) / "stats.json").read_text())
    assert qv["config"]["gpgpu_n_clusters"] == "80"


def test_one_sweep_per_results_folder(sweep_bin: Path, tmp_path: Path) -> None:
    import fcntl

    from gpgpusim.sweep.spec import SweepError

    path = sweep_file(tmp_path / "l.toml", f'[programs.a]\nbinary = "{sweep_bin / "vector_add"}"\n')
    sw = load(path)
    sw.output.mkdir()
    with open(sw.output / ".lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(SweepError, match="another `gpgpusim sweep run` is using this results folder"):
            run_sweep(sw, serial=True, progress=False, log=lambda m: None)
    assert not (sw.output / "runs").exists()


def test_build_command(sweep_bin: Path, tmp_path: Path) -> None:
    """A missing binary is built with the program's `build` command; a failing build stops the
    sweep with the key, the line and the log."""
    path = sweep_file(tmp_path / "b.toml", f"""\
[sweep]
mode = "functional"

[programs.va]
binary = "out/va"
build = "mkdir -p out && cp {sweep_bin / 'vector_add'} out/va && echo built"
""")
    sw = load(path)
    out = run_sweep(sw, serial=True, progress=False, log=lambda m: None)
    assert out.count("ok") == 1
    assert (sw.output / "build.log").read_text() == "built\n"
    path.write_text(path.read_text().replace("out/va", "out/vb").replace("&& echo built", "&& false"))
    from gpgpusim.sweep.spec import SweepError

    with pytest.raises(SweepError) as exc:
        run_sweep(load(path), serial=True, progress=False, log=lambda m: None)
    assert str(exc.value) == (f"{path}:6: programs.va.build: the build command failed (exit status 1; "
                              f"see {sw.output / 'build.log'})")


def test_inputs_and_cwd(sweep_bin: Path, tmp_path: Path) -> None:
    """`inputs` are copied into the run's directory, where the program runs; `cwd` runs it
    elsewhere (the log and statistics still go to the run's directory)."""
    (tmp_path / "data.txt").write_text("input\n")
    (tmp_path / "work").mkdir()
    script = tmp_path / "check.sh"
    script.write_text(f"#!/bin/sh\n[ \"$(cat $1)\" = input ] || exit 3\necho \"cwd=$PWD\"\nexec {sweep_bin / 'vector_add'}\n")
    script.chmod(0o755)
    path = sweep_file(tmp_path / "io.toml", f"""\
[sweep]
mode = "functional"
[programs.copied]
binary = "check.sh"
args = ["data.txt"]
inputs = ["data.txt"]
[programs.elsewhere]
binary = "check.sh"
args = ["{tmp_path / 'data.txt'}"]
cwd = "work"
[programs.missing]
binary = "check.sh"
args = ["data.txt"]
""")
    sw = load(path)
    out = run_sweep(sw, serial=True, progress=False, log=lambda m: None)
    runs = {r["program"]: r for r in read_csv(sw.output / "runs.csv")}
    assert runs["copied"]["status"] == runs["elsewhere"]["status"] == "ok"
    assert (runs["missing"]["status"], runs["missing"]["exit_code"]) == ("failed", 3)
    assert runs["missing"]["reason"] == "exit status 3: cat: data.txt: No such file or directory"
    copied = sw.output / "runs" / str(runs["copied"]["run_id"])
    assert f"cwd={copied}\n" in (copied / "run.log").read_text()
    elsewhere = sw.output / "runs" / str(runs["elsewhere"]["run_id"])
    assert f"cwd={tmp_path / 'work'}\n" in (elsewhere / "run.log").read_text()
    assert (elsewhere / "stats.json").is_file()
    assert out.count("ok") == 2
