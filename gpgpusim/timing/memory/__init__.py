"""The memory side of the timing model (checklist C138-C178): :class:`MemorySystem`
(``system.py``: the clocked interconnect and memory partitions), the crossbar
(``icnt.py``), the partitions with their ROP and L2 (``partition.py``), the DRAM channels
(``dram.py``) and the address decoder (``addrdec.py``)."""

from __future__ import annotations

from .system import MemorySystem

__all__ = ["MemorySystem"]
