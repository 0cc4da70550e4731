"""The simulated device, below the CUDA runtime.

The runtime (:mod:`gpgpusim.runtime`) turns CUDA calls into stream operations
(:mod:`.gpu`: ``KernelLaunchOp``, ``MemcpyOp``, ...) and hands them to one device object
through the interface :mod:`.gpu` documents (``push_kernel``, ``start_kernel``, ``advance``,
``abort``, ``memcpy``, ``memset``, ``now_cycles`` ...).  Which device serves a run depends on
the simulation mode, looked up in :data:`DEVICES`:

* ``functional`` (``-gpgpu_ptx_sim_mode 1``): :class:`.gpu.Gpu` runs each kernel to completion
  on the functional engine (:mod:`.funcrun`) and estimates its duration;
* ``performance`` (the default): :func:`gpgpusim.timing.make_device` builds the cycle-level
  ``TimingGpu``, which extends the functional device with real cycles.

The table names factories by module path, so this package imports nothing above it; a new
device (another timing model, a sampled one) is a factory and a line here.  The device layer
also holds what both devices share with the runtime: per-architecture limits
(:mod:`.limits`) and the interrupt handling of long simulations (:mod:`.interrupt`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from .gpu import Gpu, _cfg

#: simulation mode -> (module, factory taking ``(config, gmem, reporter)``)
DEVICES: dict[str, tuple[str, str]] = {
    "functional": ("gpgpusim.device.gpu", "Gpu"),
    "performance": ("gpgpusim.timing", "make_device"),
}


def mode_of(config: Any) -> str:
    """``functional`` when the config asks for functional simulation (``-gpgpu_ptx_sim_mode 1``
    / ``PTX_SIM_MODE_FUNC=1``) or there is no config (unit tests), else ``performance``."""
    if config is None:
        return "functional"
    try:
        functional = bool(config.functional_only)
    except (AttributeError, KeyError, TypeError, ValueError):
        functional = int(_cfg(config, "gpgpu_ptx_sim_mode", 0) or 0) != 0
    return "functional" if functional else "performance"


def make_gpu(config: Any = None, gmem: Any = None, reporter: Any = None, *,
             launch_fn: Callable[..., Any] | None = None) -> Gpu:
    """The device for ``config``'s simulation mode (:data:`DEVICES`).  A stand-in engine
    (``launch_fn``, unit tests) always gets the functional device."""
    if launch_fn is not None:
        return Gpu(config, gmem, reporter, launch_fn=launch_fn)
    module, factory = DEVICES[mode_of(config)]
    gpu: Gpu = getattr(importlib.import_module(module), factory)(config, gmem, reporter)
    return gpu
