"""GPGPU-Sim-format statistics output: text printer, JSON, sampler, AerialVision, plots.

Public interface (docs/CONTRACTS.md): :class:`Reporter` (``splash``, ``option_dump``,
``kernel_launch(info)``, ``kernel_end(stats)``, ``functional_done(stats)``, ``exit()``,
``write_json(path)``), the data it takes (:class:`KernelInfo`, :class:`KernelStats`), and the
module-level :func:`write_json` the runtime calls with itself at program end.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .data import KernelInfo, KernelStats
from .reporter import Reporter
from .stats import StatsRegistry


def write_json(path: str | Path, run: Any) -> None:
    """Write the ``-o stats.json`` document.

    ``run`` is the Reporter itself or an object carrying one as ``.reporter`` (the Runtime);
    a ``run.json_meta()`` dict, when present, is stored under ``"run"``.
    """
    rep = run if isinstance(run, Reporter) else getattr(run, "reporter", None)
    if not isinstance(rep, Reporter):
        raise TypeError(f"write_json needs a Reporter or an object with .reporter, got {type(run).__name__}")
    meta_fn = getattr(run, "json_meta", None)
    meta = meta_fn() if callable(meta_fn) else None
    rep.write_json(path, meta)


__all__ = ["KernelInfo", "KernelStats", "Reporter", "StatsRegistry", "write_json"]
