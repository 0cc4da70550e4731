"""--slurm / --pbs: the batch jobs dask-jobqueue would submit carry the sweep's [cluster]
settings (the job scripts are checked; no batch system is needed to build them)."""
from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from gpgpusim.sweep.batch import batch_cluster
from gpgpusim.sweep.spec import load

_SIGINT = signal.getsignal(signal.SIGINT)
pytest.importorskip("dask_jobqueue")
signal.signal(signal.SIGINT, _SIGINT)    # the import replaced it for the whole test process


def test_importing_dask_jobqueue_keeps_the_sigint_handler(tmp_path: Path, monkeypatch) -> None:
    """dask-jobqueue sets SIGINT to ``sys.exit()`` when first imported; Ctrl-C must still
    raise KeyboardInterrupt in ``gpgpusim sweep run --slurm`` (the sweep's interrupt handling)."""
    for name in [m for m in sys.modules if m == "dask_jobqueue" or m.startswith("dask_jobqueue.")]:
        monkeypatch.delitem(sys.modules, name)        # imported afresh below, put back afterwards
    path = tmp_path / "hpc.toml"
    path.write_text(f'[programs.a]\nbinary = "{sys.executable}"\n')
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        batch_cluster("slurm", load(path)).close()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert "dask_jobqueue.runner" in sys.modules       # the import that sets the handler ran
    finally:
        signal.signal(signal.SIGINT, old)


def test_job_scripts(tmp_path: Path) -> None:
    path = tmp_path / "hpc.toml"
    path.write_text(f"""\
[programs.a]
binary = "{sys.executable}"

[cluster]
queue = "short"
account = "arch"
walltime = "02:00:00"
memory = "3GB"
job_extra_directives = ["--qos=low"]
worker_extra_args = ["--lifetime", "110m", "--lifetime-stagger", "5m"]
""")
    sw = load(path)
    slurm = batch_cluster("slurm", sw)
    try:
        script = slurm.job_script()
    finally:
        slurm.close()
    for line in ("#SBATCH -p short", "#SBATCH -A arch", "#SBATCH -n 1", "#SBATCH --cpus-per-task=1",
                 "#SBATCH --mem=3G", "#SBATCH -t 02:00:00", "#SBATCH --qos=low",
                 f"#SBATCH -o {tmp_path}/hpc-results/jobs/dask-worker-%J.out"):
        assert line in script.splitlines(), script
    assert "--nthreads 1 " in script and "--lifetime 110m --lifetime-stagger 5m" in script
    pbs = batch_cluster("pbs", sw)
    try:
        script = pbs.job_script()
    finally:
        pbs.close()
    assert "#PBS -q short" in script and "#PBS -l walltime=02:00:00" in script
    assert "#PBS -l select=1:ncpus=1:mem=2862MB" in script
