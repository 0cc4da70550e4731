"""timing: the cycle-level performance model (``docs/ARCHITECTURE.md``).

Importing the package installs the finder of its compiled modules when a fresh build exists
(:mod:`gpgpusim.native`); the model then runs compiled, else as pure Python.
:func:`make_device` is the performance-mode entry of the device registry
(:data:`gpgpusim.device.DEVICES`).
"""

from __future__ import annotations

from typing import Any

from gpgpusim import native as _native

_native.activate()


def make_device(config: Any, gmem: Any, reporter: Any) -> Any:
    """The cycle-level GPU for ``config``.  Tracing and pipeline dumps wrap the model's
    instances, which compiled classes do not allow: the process then switches to the
    pure-Python model before the model's modules are imported (hence the imports here)."""
    from . import trace

    if trace.wanted(config):
        _native.use_pure_for("tracing and pipeline dumps")
    else:
        _native.announce()
    from .gpu import TimingGpu

    return TimingGpu(config, gmem, reporter)
