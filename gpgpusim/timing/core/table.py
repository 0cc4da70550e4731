"""The core's view of a kernel's static per-PC table (``timing/static.py``): plain Python
lists indexed by pc, so the issue path never touches numpy scalars or IR objects."""

from __future__ import annotations

import re
from typing import Any


def _mask(regs: tuple[int, ...]) -> int:
    m = 0
    for r in regs:
        m |= 1 << r
    return m


class CoreTable:
    __slots__ = ("oc_src", "wb_dst", "n", "unit", "latency", "initiation", "dst_regs", "src_regs",
                 "dst_mask", "regs_mask", "mem_space", "mem_vec", "is_load", "is_store", "is_atomic", "is_barrier",
                 "barrier_id", "is_membar", "cache_op", "param_offset", "cdp")

    def __init__(self, t: Any, n: int, prog: Any = None) -> None:
        self.n = n
        self.unit: list[int] = [int(x) for x in t.unit]
        self.latency = [max(1, int(x)) for x in t.latency]
        self.initiation = [max(1, int(x)) for x in t.initiation]
        self.dst_regs: list[tuple[int, ...]] = [tuple(x) for x in t.dst_regs]
        self.src_regs: list[tuple[int, ...]] = [tuple(x) for x in t.src_regs]
        # the scoreboard's bit masks (``Warp.pending``): bit r for functional register slot r
        self.dst_mask: list[int] = [_mask(d) for d in self.dst_regs]
        self.regs_mask: list[int] = [_mask(d) | _mask(s) for d, s in zip(self.dst_regs, self.src_regs, strict=True)]
        self.mem_space: list[str] = list(t.mem_space)
        self.mem_vec = [int(x) for x in t.vec_len]
        self.is_load = [bool(x) for x in t.is_load]
        self.is_store = [bool(x) for x in t.is_store]
        self.is_atomic = [bool(x) for x in t.is_atomic]
        kinds = list(t.bar_kind)
        self.is_barrier = [bool(b) and k != "arrive" for b, k in zip(t.is_barrier, kinds, strict=True)]
        self.barrier_id = [int(x) for x in t.bar_id]
        self.is_membar = [bool(x) for x in t.is_membar]
        self.cache_op: list[str] = list(t.cache_op)           # the LD/ST unit's L1D bypass decision
        self.param_offset = [int(x) for x in t.param_offset]   # its L1C address of an ld.param
        self.cdp = [int(x) for x in t.cdp]     # device-runtime call: its -cdp_latency kind, else 0
        # register-file banks use GPGPU-Sim's "architectural" register number: the first
        # number in the register's name (%r12 -> 12, %fd3 -> 3; none -> no bank access), as its
        # PTX parser assigns it; the guard predicate is not an operand read
        # (of a PTXPlus kernel, SASS R<n>: %r<n> -> n; uniform registers and predicates are not
        # in the banked register file)
        number = sass_bank_number if getattr(t, "sass", False) else arch_number
        arch = [number(nm) for nm in (prog.slot_names if prog is not None else [])]
        guards = [d.guard for d in prog.insts] if prog is not None else [-1] * n

        def nums(regs: tuple[int, ...], skip: int = -1) -> tuple[int, ...]:
            out = []
            skipped = False
            for r in regs:
                if r == skip and not skipped:
                    skipped = True
                    continue
                a = arch[r] if 0 <= r < len(arch) else -1
                if a >= 0:
                    out.append(a)
            return tuple(out)
        self.oc_src = [nums(s, guards[pc]) for pc, s in enumerate(self.src_regs)]
        self.wb_dst = [nums(d) for d in self.dst_regs]


_DIGITS = re.compile(r"\d+")


def arch_number(slot_name: str) -> int:
    """The number GPGPU-Sim's parser takes as a register's architectural number."""
    reg = slot_name.rsplit(":", 1)[-1]
    m = _DIGITS.search(reg)
    return int(m.group()) if m else -1


_SASS_R = re.compile(r"%r(\d+)")


def sass_bank_number(slot_name: str) -> int:
    """The register-file number of a PTXPlus register: n for ``%r<n>`` (SASS ``R<n>``), else -1."""
    m = _SASS_R.fullmatch(slot_name.rsplit(":", 1)[-1])
    return int(m.group(1)) if m else -1
