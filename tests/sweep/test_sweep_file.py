"""Sweep files: expansion into runs, and one-line messages naming file, line and key for
every kind of mistake (tomllib gives no positions for values it accepted)."""
from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gpgpusim.sweep.spec import SweepError, load, locate


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


GOOD = f"""\
[sweep]
name = "t"
mode = ["functional", "performance"]

[programs.a]
binary = "{sys.executable}"
args = ["-c", "pass"]

[programs."b c"]
binary = "{sys.executable}"

[configs]
QV = "SM7_QV100"
RTX = {{ gpu = "SM86_RTX3070" }}

[vary]
"-gpgpu_scheduler" = ["lrr", "gto"]
"-gpgpu_l1_latency" = [20, 30, 40]

[variants.base]
[variants.sched2]
"-gpgpu_num_sched_per_core" = 2

[subsets.small]
programs = ["a"]
configs = ["RTX"]
variants = ["base"]
"""


def test_expansion(tmp_path: Path) -> None:
    sw = load(write(tmp_path, GOOD))
    runs = sw.runs()
    assert len(runs) == 2 * 2 * 2 * 2 * 2 * 3
    assert len({r.run_id for r in runs}) == len(runs)
    first = runs[0]
    assert dict(first.keys) == {"program": "a", "config": "QV", "mode": "functional", "variant": "base",
                                "gpgpu_scheduler": "lrr", "gpgpu_l1_latency": "20"}
    assert first.sets == ["-gpgpu_l1_latency=20", "-gpgpu_scheduler=lrr"]
    sched2 = [r for r in runs if dict(r.keys)["variant"] == "sched2"][0]
    assert "-gpgpu_num_sched_per_core=2" in sched2.sets
    assert sw.output == tmp_path / "s-results"
    small = sw.runs("small")
    assert len(small) == 2 * 2 * 3
    assert {dict(r.keys)["config"] for r in small} == {"RTX"}
    assert small[0].config.gpu == "SM86_RTX3070"
    with pytest.raises(SweepError, match="no subset 'big'"):
        sw.runs("big")


def test_locate() -> None:
    text = textwrap.dedent("""\
        [sweep]
        mode = "x"
        [programs.a]
        binary = "p"
        [programs."b.c"]
        args = 3
        [vary]
        "-opt" = 1
        programs.d.binary = 5
        """)
    assert locate(text, ("sweep", "mode")) == 2
    assert locate(text, ("programs", "a", "binary")) == 4
    assert locate(text, ("programs", "b.c", "args")) == 6
    assert locate(text, ("vary", "-opt")) == 8
    assert locate(text, ("vary", "programs", "d", "binary")) == 9
    assert locate(text, ("programs", "a", "cwd")) == 3       # missing key: its table's line
    assert locate(text, ("nothing",)) is None


@pytest.mark.parametrize("body, message", [
    ('[sweep]\nmode = "fast"\n', r"s\.toml:2: sweep\.mode: expected \"performance\", \"functional\""),
    ('[sweep]\ntimeout_s = "1h"\n', r"s\.toml:2: sweep\.timeout_s: expected a number of seconds"),
    ('[sweep]\ncolour = 1\n', r"s\.toml:2: sweep\.colour: unknown key \(allowed: mode, name, output, retries, timeout_s\)"),
    ('[programs.a]\nbinary = "x"\n\n[programs.b]\nargs = []\n', r"s\.toml:4: programs\.b: missing key `binary`"),
    ('[programs.a]\nbinary = 5\n', r"s\.toml:2: programs\.a\.binary: expected a non-empty string, got an integer"),
    ('[programs.a]\nbinary = "x"\ninputs = ["nope.dat"]\n', r"s\.toml:3: programs\.a\.inputs: input file .*nope\.dat"),
    ('[programs.a]\nbinary = "x"\n[configs]\nQV = "SM7_QV10"\n', r"s\.toml:4: configs\.QV: unknown GPU config 'SM7_QV10' \(did you mean SM7_QV100\?\)"),
    ('[programs.a]\nbinary = "x"\n[configs]\nmine = { file = "no.config" }\n', r"s\.toml:4: configs\.mine\.file: config file .*no\.config"),
    ('[programs.a]\nbinary = "x"\n[vary]\ngpgpu_scheduler = ["lrr"]\n', r"s\.toml:4: vary\.gpgpu_scheduler: an option name starts with '-'"),
    ('[programs.a]\nbinary = "x"\n[vary]\n"-gpgpu_scheduler" = "lrr"\n', r"s\.toml:4: vary\.-gpgpu_scheduler: expected a non-empty list"),
    ('[programs.a]\nbinary = "x"\n[subsets.q]\nprograms = ["a", "z"]\n', r"s\.toml:4: subsets\.q\.programs: 'z' is not in \[programs\]"),
    ('[programs.a]\nbinary = "x"\n[cluster]\nqueue = 3\n', r"s\.toml:4: cluster\.queue: expected a string, got an integer"),
    ('[programs.a]\nbinary = "x"\nargs = [1\n', r"s\.toml:3: Unclosed array at the end \(not valid TOML\)"),
    ('[programs.a]\nbinary = "x\nargs = []\n', r"s\.toml:2:\d+: .* \(not valid TOML\)"),
    ('[sweep]\nname = "x"\n', r"s\.toml: programs: no programs"),
])
def test_bad_files(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(SweepError, match=message):
        load(write(tmp_path, body))


def sweep_cli(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gpgpusim", "sweep", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


def test_cli_messages(tmp_path: Path) -> None:
    """The CLI gives one line and exit status 2, no traceback, before running anything."""
    bad_opt = write(tmp_path, f"""\
        [programs.a]
        binary = "{sys.executable}"
        [vary]
        "-gpgpu_no_such_option" = [1, 2]
        """, "bad_opt.toml")
    proc = sweep_cli("run", str(bad_opt), "--serial")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"gpgpusim sweep: {bad_opt}:4: vary.-gpgpu_no_such_option: "), lines
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "bad_opt-results" / "runs").exists()

    bad_val = write(tmp_path, f"""\
        [programs.a]
        binary = "{sys.executable}"
        [variants.v1]
        "-gpgpu_scheduler" = "fastest"
        """, "bad_val.toml")
    proc = sweep_cli("run", str(bad_val), "--serial")
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"gpgpusim sweep: {bad_val}:4: variants.v1.-gpgpu_scheduler: "), proc.stderr

    missing = write(tmp_path, '[programs.app]\nbinary = "bin/none"\n', "missing.toml")
    proc = sweep_cli("run", str(missing))
    assert proc.returncode == 2
    assert proc.stderr == (f"gpgpusim sweep: {missing}:2: programs.app.binary: {tmp_path}/bin/none does not exist "
                           "(build it first, or give the program a `build` command)\n")

    proc = sweep_cli("run", str(tmp_path / "absent.toml"))
    assert proc.returncode == 2 and "cannot read the sweep file" in proc.stderr and "Traceback" not in proc.stderr
    proc = sweep_cli("report", str(tmp_path))
    assert proc.returncode == 2 and "no sweep results here" in proc.stderr


def test_config_files_and_hash(tmp_path: Path) -> None:
    """A config file's includes and interconnect file are part of the run's content hash."""
    from gpgpusim.options.config import gpu_config_path
    from gpgpusim.sweep.spec import config_files, run_hash

    shipped = gpu_config_path("SM7_QV100").parent
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    for f in shipped.iterdir():
        shutil.copy2(f, cfg / ("base.config" if f.name == "gpgpusim.config" else f.name))
    (cfg / "my.config").write_text("-config base.config\n-gpgpu_scheduler gto\n"
                                   "-inter_config_file config_volta_islip.icnt\n")
    (cfg / "unrelated.txt").write_text("not read by the config\n")
    path = write(tmp_path, f"""\
        [programs.a]
        binary = "{sys.executable}"
        [configs]
        mine = {{ file = "cfg/my.config" }}
        """)
    spec = load(path).runs()[0]
    assert spec.config.file == cfg / "my.config"
    assert [f.name for f in config_files(spec.config)] == ["my.config", "base.config", "config_volta_islip.icnt"]
    h1 = run_hash(spec, "v1")
    assert run_hash(spec, "v1") == h1 and run_hash(spec, "v2") != h1
    (cfg / "unrelated.txt").write_text("changed\n")
    assert run_hash(spec, "v1") == h1
    with open(cfg / "config_volta_islip.icnt", "a") as f:
        f.write("\n")
    assert run_hash(spec, "v1") != h1
