"""Option declarations grouped by component, in GPGPU-Sim 4.2's registration (dump) order.

The C++ simulator registers options component by component and prints them in that order; the
PTX/functional options are registered in two runs around the interconnect's, hence the order below.
"""

from __future__ import annotations

from typing import Any

from . import core, functional, icnt, memory, power, ptx, sim

ALL_GROUPS: list[tuple[str, list[Any]]] = [
    ("ptx", ptx.OPTIONS),
    ("icnt", icnt.OPTIONS),
    ("functional", functional.OPTIONS),
    ("core", core.OPTIONS),
    ("memory", memory.OPTIONS),
    ("power", power.OPTIONS),
    ("sim", sim.OPTIONS),
]
