"""CUDA runtime semantics on the simulated GPU (no cffi here: the shim forwards to it).

``get_runtime()`` returns the process's :class:`~gpgpusim.runtime.api.Runtime`, created on first
use (GPGPU-Sim's lazy ``GPGPUSim_Init``, checklist C014-C016).  The config comes from
``$GPGPUSIM_CONFIG`` (a file), else ``$GPGPUSIM_GPU`` (a shipped GPU name), else
``./gpgpusim.config`` (C018), else the embedded default (SM7_QV100); ``$GPGPUSIM_OPTIONS`` and
``PTX_SIM_MODE_FUNC`` (C003) are applied by :func:`gpgpusim.options.load_config`.
"""

from __future__ import annotations

import os
import threading
from typing import Any

_lock = threading.Lock()
_runtime: Any = None


def load_active_config() -> Any:
    from gpgpusim.options import load_config

    path = os.environ.get("GPGPUSIM_CONFIG") or None
    gpu = os.environ.get("GPGPUSIM_GPU") or None
    if path is None and gpu is None and os.path.isfile("gpgpusim.config"):
        path = "gpgpusim.config"
    if path is not None:
        return load_config(path)
    return load_config(None, gpu=gpu) if gpu else load_config(None)


def get_runtime() -> Any:
    """The process singleton (C026: one simulated GPU)."""
    global _runtime
    with _lock:
        if _runtime is None:
            from gpgpusim.report import Reporter

            from . import hostio
            from .api import Runtime

            cfg = load_active_config()
            reporter = Reporter(cfg, lambda line: hostio.out(line + "\n"))
            _runtime = Runtime(cfg, reporter=reporter)
        return _runtime
