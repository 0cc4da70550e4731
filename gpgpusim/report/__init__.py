"""GPGPU-Sim-format statistics output: text printer, JSON, sampler, AerialVision, plots.

Public interface (docs/CONTRACTS.md): :class:`Reporter` (``splash``, ``option_dump``,
``kernel_launch(info)``, ``kernel_end(stats)``, ``functional_done(stats)``, ``exit()``,
``write_json(path)``).
"""

from __future__ import annotations

from .reporter import Reporter

__all__ = ["Reporter"]
