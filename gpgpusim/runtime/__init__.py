"""CUDA runtime semantics on the simulated GPU (no cffi here: the shim forwards to it).

``get_runtime()`` returns the process's :class:`~gpgpusim.runtime.api.Runtime`, created on first
use (GPGPU-Sim's lazy ``GPGPUSim_Init``, checklist C014-C016).  The config comes from
``$GPGPUSIM_CONFIG`` (a file), else ``$GPGPUSIM_GPU`` (a shipped GPU name), else
``./gpgpusim.config`` (C018), else the embedded default (SM7_QV100); ``$GPGPUSIM_OPTIONS`` and
``PTX_SIM_MODE_FUNC`` (C003) are applied by :func:`gpgpusim.options.load_config`.  Inside an
application the first line printed names the config, why it was chosen and the mode
(:func:`startup_line`).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping
from typing import Any

from gpgpusim.options import load_config
from gpgpusim.options.config import ptxplus_enabled

_lock = threading.Lock()
_runtime: Any = None


def load_active_config(environ: Mapping[str, str] | None = None, cwd: str | None = None) -> Any:
    """The config a run gets, by the rules above; ``environ`` and ``cwd`` (default: this
    process's) let ``gpgpusim run`` check the application's config before starting it."""

    env: Mapping[str, str] = os.environ if environ is None else environ

    def at(p: str) -> str:          # a relative path is relative to the application's cwd
        return p if cwd is None else os.path.join(cwd, p)

    path = env.get("GPGPUSIM_CONFIG") or None
    gpu = env.get("GPGPUSIM_GPU") or None
    if path is not None:
        why = "given by --config ($GPGPUSIM_CONFIG)"
    elif gpu is not None:
        why = "given by --gpu ($GPGPUSIM_GPU)"
    elif os.path.isfile(at("gpgpusim.config")):
        path = "gpgpusim.config"
        why = "found as ./gpgpusim.config in the working directory, as GPGPU-Sim reads it"
    else:
        why = "the default GPU: no --gpu, --config or ./gpgpusim.config"
    if path is not None:
        cfg = load_config(at(path), env=env)
    else:
        cfg = load_config(None, gpu=gpu, env=env) if gpu else load_config(None, env=env)
    cfg.selected_by = why
    return cfg


def startup_line(cfg: Any) -> str:
    """The run's first simulator line: what is simulated, why that config, and the mode."""
    mode = ("functional simulation (-gpgpu_ptx_sim_mode 1)" if cfg.functional_only
            else "performance simulation (-gpgpu_ptx_sim_mode 0)")
    return f"GPGPU-Sim: simulating {cfg.label} ({cfg.selected_by}); {mode}; ISA: {isa_name(cfg)}"


def isa_name(cfg: Any) -> str:
    """What the kernels are simulated as: ``PTX`` or ``PTXPlus (SASS converted by
    gpgpusim.ptxplus)``; the header line and the JSON's ``run.isa`` say it."""
    return "PTXPlus (SASS converted, -gpgpu_ptx_convert_to_ptxplus 1)" if ptxplus_enabled(cfg) else "PTX"


#: options GPGPU-Sim acts on that this simulator accepts (so that its configs load) but does not
#: model: option -> what is not done
UNMODELLED = {
    "power_simulation_enabled": "the AccelWattch power model: no power figures are produced",
    "checkpoint_option": "checkpointing: no checkpoint is written",
    "resume_option": "resuming from a checkpoint: the program runs from its start",
}


def unmodelled_notes(cfg: Any) -> list[str]:
    """One line for each option in :data:`UNMODELLED` the config turns on (``-network_mode 1``,
    BookSim, says so in the timing model)."""
    notes = []
    for name, what in UNMODELLED.items():
        try:
            on = bool(int(cfg.get(name) or 0))
        except (AttributeError, KeyError, TypeError, ValueError):
            on = False
        if on:
            notes.append(f"GPGPU-Sim: NOTE: -{name} is set but not modelled ({what})")
    return notes


def get_runtime() -> Any:
    """The process singleton (C026: one simulated GPU)."""
    global _runtime
    with _lock:
        if _runtime is None:
            # imported here: `gpgpusim run` imports this package (load_active_config) without
            # loading the runtime, the device and the report, which the first CUDA call needs
            from gpgpusim import hostio, hostmem
            from gpgpusim.report import Reporter

            from .api import Runtime

            cfg = load_active_config()
            if "_gpgpusim_cudart" in sys.modules:      # inside an application: say what runs
                hostmem.tune_malloc(os.environ)
                hostio.out(startup_line(cfg) + "\n")
                for note in unmodelled_notes(cfg):
                    hostio.err(note)
            # the per-kernel records are kept for the JSON file only (-o)
            reporter = Reporter(cfg, lambda line: hostio.out(line + "\n"),
                                out_lines=lambda lines: hostio.out("".join(f"{ln}\n" for ln in lines)),
                                keep_kernels=bool(os.environ.get("GPGPUSIM_STATS_JSON")))
            _runtime = Runtime(cfg, reporter=reporter)
            if "_gpgpusim_cudart" in sys.modules:      # inside an application (the shim)
                from gpgpusim.device import interrupt

                interrupt.install(_runtime)   # Ctrl-C / SIGTERM keep the statistics
        return _runtime
