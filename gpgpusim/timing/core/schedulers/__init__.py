"""Warp-scheduling policies, registered by name (``-gpgpu_scheduler``; checklist C078-C083).

The interface and what a policy declares about itself: ``base.py``.  One module per policy;
``REGISTRY`` maps the option's first field to a factory taking the remaining ``:``-separated
fields.  Adding a policy: a module here and a line in ``REGISTRY``.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Policy
from .gto import Gto
from .lrr import Lrr
from .oldest import Oldest
from .rrr import Rrr
from .two_level import TwoLevelActive
from .warp_limiting import WarpLimiting

__all__ = ["REGISTRY", "Policy", "make_policy"]

#: ``-gpgpu_scheduler`` name -> factory of the policy from the option's other fields
REGISTRY: dict[str, Callable[[list[str]], Policy]] = {
    "lrr": lambda args: Lrr(),
    "gto": lambda args: Gto(),
    "old": lambda args: Oldest(),
    "rrr": lambda args: Rrr(),
    "two_level_active": TwoLevelActive.from_args,
    "warp_limiting": WarpLimiting.from_args,
}


def make_policy(value: str) -> Policy:
    """The policy for a ``-gpgpu_scheduler`` value (``name`` or ``name:field:...``)."""
    fields = value.split(":")
    factory = REGISTRY.get(fields[0].strip())
    if factory is None:
        raise ValueError(f"-gpgpu_scheduler {value!r}: unknown scheduler (known: {', '.join(REGISTRY)})")
    return factory(fields[1:])
