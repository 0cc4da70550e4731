"""Replacement policies, registered by the cache configuration's first policy letter (GPGPU-Sim
``replacement_policy_t``: ``L`` LRU, ``F`` FIFO; checklist C111).

A policy declares the line stamp its victim is the oldest by: ``by_last_access`` -- the last
access (LRU), else the allocation (FIFO).  The tag array of :class:`~.data.Cache` keeps its
per-set victim heaps keyed by that stamp (a hit of an LRU line re-keys it), so the choice is made
once, when the cache is built.  A new policy is a class here and a line in ``REPLACEMENT``
(and its letter in ``options.config.CACHE_REPLACEMENT``, which the configuration check reads).
"""

from __future__ import annotations

from collections.abc import Callable


class Replacement:
    """Base: what the tag array may assume about the policy."""

    def __init__(self) -> None:
        self.name = ""
        self.by_last_access = False


class Lru(Replacement):
    """Evict the line accessed longest ago."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "LRU"
        self.by_last_access = True


class Fifo(Replacement):
    """Evict the line allocated longest ago."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "FIFO"


#: replacement letter -> policy
REPLACEMENT: dict[str, Callable[[], Replacement]] = {"L": Lru, "F": Fifo}


def make_replacement(letter: str) -> Replacement:
    factory = REPLACEMENT.get(letter)
    if factory is None:
        raise ValueError(f"cache replacement policy {letter!r} is not supported (known: {', '.join(REPLACEMENT)})")
    return factory()
