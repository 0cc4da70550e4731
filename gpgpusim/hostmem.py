"""The application process's malloc, set for the simulator's allocation pattern.

The functional engine replaces whole lane arrays at every step (a chunk of up to 65,536 threads:
256-512 KB an array).  Under glibc's defaults the simulation thread's malloc arena gives the
free top of its heap back to the kernel (``madvise``) as soon as it exceeds a threshold that
follows the largest freed block, and the next step faults the same pages in again (a
functional run of ``stencil 256 256 200`` spent a quarter of its CPU time in the kernel).
Fixing the two thresholds -- blocks up to 4 MB come from the heap, and up to 32 MB of free top
stays with it -- removes that at the same peak RSS (``docs/PERFORMANCE.md``, "Host malloc").

Only glibc has ``mallopt``; elsewhere, or when the user set any of glibc's malloc variables
(``MALLOC_TRIM_THRESHOLD_``, ``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TOP_PAD_``, a
``glibc.malloc`` tunable), nothing changes.
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping
from typing import Any

M_TRIM_THRESHOLD = -1       # glibc <malloc.h>
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 4 << 20    # blocks below this come from the heap
TRIM_THRESHOLD = 32 << 20   # free top of a heap kept before it is given back
_USER_VARS = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_")


def user_set(environ: Mapping[str, str]) -> bool:
    """Whether ``environ`` sets glibc's malloc thresholds itself."""
    return any(k in environ for k in _USER_VARS) or "glibc.malloc" in environ.get("GLIBC_TUNABLES", "")


def tune_malloc(environ: Mapping[str, str]) -> bool:
    """Set the two thresholds for this process unless ``environ`` sets them; True when set."""
    if user_set(environ):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):      # not glibc
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))


_malloc_trim: Any = None        # libc's malloc_trim once looked up; False: there is none


def release_free() -> None:
    """Give the free pages inside the malloc heaps back to the kernel (glibc's
    ``malloc_trim(0)``; nothing elsewhere).  Both feeds of the performance model call it when
    a chunk of the functional engine closes (``timing/kernel_trace.py``, ``timing/live.py``):
    the chunk's registers and lane arrays (up to ~25 MB) are then free heap between the timing
    model's longer-lived allocations, which the heap's top threshold never returns."""
    global _malloc_trim
    if _malloc_trim is None:
        try:
            fn = ctypes.CDLL(None).malloc_trim
        except (OSError, AttributeError):
            _malloc_trim = False
            return
        fn.argtypes = (ctypes.c_size_t,)
        fn.restype = ctypes.c_int
        _malloc_trim = fn
    if _malloc_trim:
        _malloc_trim(0)
