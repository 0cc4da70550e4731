"""Batch-scheduler clusters (Slurm, PBS) through dask-jobqueue.

Each batch job is one Dask worker with one thread: it runs one simulation at a time, as many
as the job's walltime allows, and the sweep's scheduler (in the ``gpgpusim sweep run``
process, on the login node) hands it the next.  Resources come from the sweep file's
``[cluster]`` table (``queue``, ``account``, ``walltime``, ``memory``, ``cores``,
``local_directory``, ``interface``, ``job_extra_directives``, ``job_script_prologue``,
``worker_extra_args``, e.g. ``["--lifetime", "3h50m", "--lifetime-stagger", "5m"]`` so that a
worker stops taking runs before its job's walltime ends).
"""

from __future__ import annotations

import signal
import threading
from typing import Any

from .spec import Sweep, SweepError

DEFAULTS = {"cores": 1, "memory": "4GB", "walltime": "04:00:00"}


def batch_cluster(kind: str, sweep: Sweep) -> Any:
    """A ``SLURMCluster`` or ``PBSCluster`` (not yet scaled) for the sweep's ``[cluster]``.

    Importing dask-jobqueue replaces the process's SIGINT handler with ``sys.exit()``
    (``dask_jobqueue/runner.py``): Ctrl-C would then end the sweep with status 0 and skip its
    "finished runs are kept" handling.  The handler from before the import is put back."""
    main = threading.current_thread() is threading.main_thread()
    before = signal.getsignal(signal.SIGINT) if main else None
    try:
        import dask_jobqueue
    except ImportError:
        raise SweepError(f"--{kind} needs dask-jobqueue: python3 -m pip install dask-jobqueue") from None
    finally:
        if before is not None and signal.getsignal(signal.SIGINT) is not before:
            signal.signal(signal.SIGINT, before)
    cls = {"slurm": dask_jobqueue.SLURMCluster, "pbs": dask_jobqueue.PBSCluster}[kind]
    opts: dict[str, Any] = {**DEFAULTS, **sweep.cluster}
    opts.setdefault("processes", 1)
    opts.setdefault("log_directory", str(sweep.output / "jobs"))
    try:
        return cls(**opts)
    except (TypeError, ValueError) as exc:
        raise SweepError(f"{sweep.path}: [cluster]: {exc}") from None
