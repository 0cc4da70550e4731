"""Sweeps: programs x GPU configs x option variations, run in parallel, results as tables.

A sweep is many ordinary simulator runs, each in its own directory with its own config copy,
log and statistics JSON, scheduled on an existing engine (Dask: a local cluster by default, an
existing scheduler, or Slurm/PBS jobs through dask-jobqueue); the simulator itself stays
single-run.  ``gpgpusim sweep run SWEEP.toml`` runs what is not done yet,
``gpgpusim sweep report`` summarises and plots.  See ``docs/SWEEP.md``.

Modules: :mod:`.spec` (the sweep file, expansion into runs, content hashes), :mod:`.execute`
(one run, on a worker), :mod:`.engine` (scheduling, retries, progress, Ctrl-C),
:mod:`.table` (the tidy tables), :mod:`.report` (summary and plots), :mod:`.compare`
(correlation between configs), :mod:`.batch` (Slurm/PBS), :mod:`.cli`.
"""

from .spec import RunSpec, Sweep, SweepError, load

__all__ = ["RunSpec", "Sweep", "SweepError", "load"]
