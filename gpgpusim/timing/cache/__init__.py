"""The caches of the timing model (GPGPU-Sim ``gpu-cache.h/.cc``; checklist C110-C130, C160, C163).

* :mod:`.data` -- :class:`Cache`: tag array, MSHR table, miss queue, ports and the read and
  write policies; one class serves the L1D, L1I, L1C and L2 (the write policy ``R`` makes it
  read-only);
* :mod:`.texture` -- :class:`TexCache`, the prefetching texture cache;
* :mod:`.line` -- a line and its sectors' states; :mod:`.hashing` -- set-index functions;
  :mod:`.stats` -- ``cache_stats`` and their publication; :mod:`.status` -- access outcomes and
  cache events.
"""

from __future__ import annotations

from .data import Cache
from .hashing import bitwise_xor_hash, hash_set_index, ipoly_hash
from .line import Line, sector_parts
from .stats import CacheStats, publish_cache_stats, select_stats_status
from .status import (HIT, HIT_RESERVED, MISS, MSHR_HIT, READ_REQUEST_SENT, RESERVATION_FAIL, SECTOR_MISS,
                     WRITE_ALLOCATE_SENT, WRITE_BACK_REQUEST_SENT, WRITE_REQUEST_SENT)
from .texture import TexCache

__all__ = ["Cache", "CacheStats", "HIT", "HIT_RESERVED", "Line", "MISS", "MSHR_HIT", "READ_REQUEST_SENT",
           "RESERVATION_FAIL", "SECTOR_MISS", "TexCache", "WRITE_ALLOCATE_SENT", "WRITE_BACK_REQUEST_SENT",
           "WRITE_REQUEST_SENT", "bitwise_xor_hash", "hash_set_index", "ipoly_hash", "publish_cache_stats",
           "sector_parts", "select_stats_status"]
