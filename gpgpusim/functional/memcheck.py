"""Memcheck: report device accesses outside every live allocation, as compute-sanitizer does.

No GPGPU-Sim counterpart (its memory is one sparse space where any address works); the output
follows NVIDIA compute-sanitizer's ``memcheck`` tool::

    ========= Invalid __global__ read of size 4 bytes
    =========     at _Z7stencilPKiPiii+pc 12 in stencil_oob.ptx:40 ld.global.u32 %r9, [%rd7+-512];
    =========     by thread (0,0,0) in block (0,0,0)
    =========     Address 0xbffffe00 is 512 bytes before the nearest allocation at 0xc0000000 of size 65536 bytes
    =========
    ...
    ========= ERROR SUMMARY: 128 errors

Enabled by ``-gpgpusim_memcheck`` (``gpgpusim run --memcheck[=continue|stop]``): 1 reports and
lets the access proceed as the hardware would (inside a mapped page it succeeds, see
:mod:`gpgpusim.functional.memory`), 2 reports and stops the kernel with the sticky
``cudaErrorIllegalAddress``.  Only global-memory accesses are checked (shared, local and param
accesses are bounds-checked always).

Cost when off: none on the access path.  :meth:`GlobalMemory.translate` calls the hook only for
accesses that are not wholly inside one allocation (its fast path returns before), and the
engine passes ``None`` as the hook when memcheck is off.

Deduplication: one report per (kernel, pc, block, thread) for the whole run (a thread that
reads out of bounds in a loop, or a kernel launched many times, is reported once per
instruction); the error summary counts these distinct errors.  At most
``-gpgpusim_memcheck_print_limit`` reports are printed (compute-sanitizer's ``--print-limit``,
default 100); the summary still counts all.  Reports go to stderr; the summary is printed at
program exit (:func:`summary`, called by the runtime's exit) when memcheck was on.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np

_PREFIX = "========="
_lock = threading.Lock()
_seen: set[tuple[str, int, int, int]] = set()
_state = {"errors": 0, "printed": 0, "enabled": 0}


def mode_of(options: Any) -> int:
    """The memcheck mode the options ask for (0 off, 1 continue, 2 stop)."""
    if options is None:
        return 0
    try:
        v = options.get("gpgpusim_memcheck")
    except (AttributeError, KeyError):
        return 0
    return int(v or 0)


def _limit(options: Any) -> int:
    try:
        v = options.get("gpgpusim_memcheck_print_limit")
    except (AttributeError, KeyError):
        v = None
    return 100 if v is None else int(v)


def report(ex: Any, lanes: np.ndarray, addrs: np.ndarray, size: int) -> int:
    """Report the accesses of ``lanes`` (engine lane ids of ``ex``) at ``addrs``; returns how
    many new (not yet reported) errors they were."""
    prog = ex.prog
    kernel = prog.kernel.name
    limit = _limit(ex.options)
    out: list[str] = []
    new = 0
    for lane, addr in zip(lanes.tolist(), addrs.tolist(), strict=True):
        w = lane >> 5
        depth = int(ex.depth[w])
        pc = int(ex.spc[w, depth - 1]) if depth > 0 else 0
        key = (kernel, pc, int(ex.cta_ids[ex.lane_cta[lane]]), int(ex.lane_t[lane]))
        with _lock:
            if key in _seen:
                continue
            _seen.add(key)
            _state["errors"] += 1
            new += 1
            if limit and _state["printed"] >= limit:
                continue
            _state["printed"] += 1
        d = prog.insts[pc] if 0 <= pc < len(prog.insts) else None
        inst = getattr(d, "inst", None)
        text = str(inst) if inst is not None else getattr(d, "text", "?")
        op = getattr(inst, "opcode", "")
        kind = "write" if op in ("st", "red") else ("atomic" if op == "atom" else "read")
        line = getattr(d, "line", 0)
        out.append(f"{_PREFIX} Invalid __global__ {kind} of size {size} bytes\n"
                   f"{_PREFIX}     at {kernel}+pc {pc} in {prog.filename}:{line} {text}\n"
                   f"{_PREFIX}     by {ex.describe_lane(lane)}\n"
                   f"{_PREFIX}     Address {addr:#x} {ex.gmem.describe(addr, size)}\n"
                   f"{_PREFIX}\n")
    if out:
        _write("".join(out))
    return new


def enable(mode: int) -> None:
    """Note that memcheck is on for this run (the summary is printed at exit)."""
    if mode:
        _state["enabled"] = 1


def errors() -> int:
    """Distinct errors reported so far."""
    return _state["errors"]


def summary(force: bool = False) -> str | None:
    """Print ``========= ERROR SUMMARY: N errors`` (when memcheck was on, or ``force``);
    returns the line printed."""
    if not (force or _state["enabled"]):
        return None
    n = _state["errors"]
    text = f"{_PREFIX} ERROR SUMMARY: {n} error{'' if n == 1 else 's'}"
    more = ""
    if _state["printed"] < n:
        more = (f"{_PREFIX} {n - _state['printed']} more errors were not printed "
                f"(-gpgpusim_memcheck_print_limit)\n")
    _write(more + text + "\n")
    return text


def exit_status(options: Any) -> int:
    """The exit status the application ends with because memcheck reported errors
    (``-gpgpusim_memcheck_error_exitcode``, default 1, as compute-sanitizer's
    ``--error-exitcode``), or 0: memcheck off, no errors, or the option set to 0 (the
    application's own status stands)."""
    if not mode_of(options) or not _state["errors"]:
        return 0
    try:
        return int(options.get("gpgpusim_memcheck_error_exitcode") or 0)
    except (AttributeError, KeyError, TypeError, ValueError):
        return 1


def end_process(code: int) -> None:
    """End the process now with ``code``: every C stdio stream flushed first (the application's
    own files too), as ``exit`` would, but without running its remaining exit handlers."""
    import ctypes
    import os

    try:
        sys.stdout.flush()
        ctypes.CDLL(None).fflush(None)
    except (OSError, ValueError, AttributeError):
        pass
    os._exit(code)


def reset() -> None:
    """Forget every report (tests)."""
    with _lock:
        _seen.clear()
        _state.update(errors=0, printed=0, enabled=0)


def _write(text: str) -> None:
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    sys.stderr.write(text)
    sys.stderr.flush()
