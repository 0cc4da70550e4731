"""The trace and pipeline-dump options of the performance model (``-trace_enabled``,
``-trace_components``, ``-gpgpusim_trace_cycles``, ``-gpgpusim_trace_kernel``,
``-gpgpusim_dump_pipeline``; checklist C200, C203): their parsers and the start-up check
(:func:`check_options`) that turns a malformed value into a one-line config error.  The tracer
that uses them is :mod:`gpgpusim.timing.trace`.
"""

from __future__ import annotations

import re
from typing import Any

#: GPGPU-Sim 4.2's streams (trace_streams.tup), then ours
GPGPUSIM_COMPONENTS = ("WARP_SCHEDULER", "SCOREBOARD", "MEMORY_PARTITION_UNIT", "MEMORY_SUBPARTITION_UNIT",
                       "INTERCONNECT", "LIVENESS")
OUR_COMPONENTS = ("FETCH", "OPERAND_COLLECTOR", "EXECUTION_UNIT", "LDST_UNIT", "DRAM")
COMPONENTS = GPGPUSIM_COMPONENTS + OUR_COMPONENTS


class TraceOptionError(ValueError):
    """A malformed trace or dump option (the config turns it into a one-line ConfigError)."""


# ------------------------------------------------------------------ option parsing
def parse_components(text: str) -> frozenset[str]:
    """``-trace_components``: comma-separated names; ``none``/empty = none, ``ALL`` = all."""
    names = [t.strip() for t in str(text or "").split(",") if t.strip()]
    if not names or [n.lower() for n in names] == ["none"]:
        return frozenset()
    out: set[str] = set()
    for n in names:
        u = n.upper()
        if u == "ALL":
            out.update(COMPONENTS)
        elif u in COMPONENTS:
            out.add(u)
        else:
            raise TraceOptionError(f"unknown trace component {n!r}; valid: ALL, {', '.join(COMPONENTS)}")
    return frozenset(out)


def parse_window(text: str) -> tuple[int, int]:
    """``-gpgpusim_trace_cycles``: ``A:B`` (inclusive), ``A:`` or ``A``; ``all`` = everything."""
    s = str(text or "").strip()
    if s.lower() in ("", "all", "none"):
        return 0, 1 << 62
    m = re.fullmatch(r"(\d+)\s*(?::\s*(\d*))?", s)
    if m is None:
        raise TraceOptionError(f"bad cycle window {s!r}; expected START:END, START: or START")
    a = int(m.group(1))
    b = int(m.group(2)) if m.group(2) else 1 << 62
    if b < a:
        raise TraceOptionError(f"bad cycle window {s!r}: END before START")
    return a, b


def parse_dump(text: str) -> list[tuple[int, int, int]]:
    """``-gpgpusim_dump_pipeline``: ``CYCLE[+EVERY][:SM]`` items, comma separated; returns
    ``(cycle, every (0 = once), sm (-1 = all))``; ``none``/empty = no dump."""
    s = str(text or "").strip()
    if s.lower() in ("", "none", "0", "-1"):
        return []
    out = []
    for item in s.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*(?:\+\s*(\d+))?\s*(?::\s*(-?\d+))?\s*", item)
        if m is None:
            raise TraceOptionError(f"bad pipeline dump {item.strip()!r}; expected CYCLE[+EVERY][:SM]")
        every = int(m.group(2)) if m.group(2) else 0
        if m.group(2) and every < 1:
            raise TraceOptionError(f"bad pipeline dump {item.strip()!r}: EVERY must be at least 1")
        out.append((int(m.group(1)), every, int(m.group(3)) if m.group(3) else -1))
    return out


def parse_kernels(text: str) -> tuple[frozenset[int], frozenset[str]] | None:
    """``-gpgpusim_trace_kernel``: launch numbers and names; None = every kernel."""
    s = str(text or "").strip()
    if s.lower() in ("", "all", "-1"):
        return None
    uids: set[int] = set()
    names: set[str] = set()
    for t in (x.strip() for x in s.split(",")):
        if not t:
            continue
        if t.isdigit():
            uids.add(int(t))
        else:
            names.add(t)
    return frozenset(uids), frozenset(names)


def check_options(cfg: Any) -> tuple[str, str] | None:
    """The first malformed trace or dump option: ``(option name, problem)``; None if none."""
    for name, parse in (("trace_components", parse_components), ("gpgpusim_trace_cycles", parse_window),
                        ("gpgpusim_dump_pipeline", parse_dump), ("gpgpusim_trace_kernel", parse_kernels)):
        if name == "trace_components" and not bool(cfg.get("trace_enabled")):
            continue        # unused (GPGPU-Sim reads the list only when tracing is on)
        try:
            parse(cfg.get(name))
        except TraceOptionError as exc:
            return name, str(exc)
    return None
