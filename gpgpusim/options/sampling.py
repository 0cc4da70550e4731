"""The values the sampled-simulation options take (``-gpgpusim_sampling``,
``-gpgpusim_sampling_tol_of``; declared in ``options/groups/functional.py``), parsed without
the performance model: ``gpgpusim run`` checks them before it starts the application, and
importing ``timing`` there would load the model (and numpy) for nothing."""

from __future__ import annotations

from typing import Any

#: ``-gpgpusim_sampling``: every launch in detail, kernel sampling (``timing/kernel_sampling.py``),
#: CTA sampling (``timing/cta_sampling.py``), or both
MODES = ("off", "kernel", "cta", "all")


def parse_tol_of(value: Any) -> str:
    """The ``-gpgpusim_sampling_tol_of`` value: ``cycles`` or ``work``."""
    v = str(value or "cycles").strip().lower()
    if v not in ("cycles", "work"):
        raise ValueError(f"-gpgpusim_sampling_tol_of {value!r}: expected cycles or work")
    return v


def parse_mode(value: Any) -> str:
    """The ``-gpgpusim_sampling`` value: ``off``, ``kernel``, ``cta`` or ``all``."""
    mode = str(value or "off").strip().lower()
    if mode in ("0", "none", ""):
        mode = "off"
    if mode not in MODES:
        raise ValueError(f"-gpgpusim_sampling {value!r}: expected off, kernel, cta or all")
    return mode
