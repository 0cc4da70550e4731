"""Run hand-written SASS through the PTXPlus converter and the functional engine.

``run_sass(body, inputs)``: each of ``len(inputs)`` threads loads its four input words into
R8-R11, runs ``body`` (SASS lines as nvdisasm prints them), and stores R0-R3 back; the result
is a ``(threads, 4)`` uint32 array.  The frame around the body is SASS too (S2R, MOV,
IMAD.WIDE.U32, LDG.E.128, STG.E.128, EXIT), so every test also runs those.

(A uniquely named module, as tests/functional/engine_helpers.py explains.)
"""

from __future__ import annotations

import re

import numpy as np

from cuobjdump_tools.sass import SassFunction, SassInstruction, split_operands
from gpgpusim.ptx import parse_ptx
from gpgpusim.ptxplus.convert import KernelContext, ParamSlot, convert_kernel
from tests.functional.engine_helpers import run_once

PRE = [
    "S2R R20, SR_TID.X ;",
    "MOV R21, 0x10 ;",
    "IMAD.WIDE.U32 R22, R20, R21, c[0x0][0x160] ;",
    "LDG.E.128.SYS R8, [R22] ;",
    "IMAD.WIDE.U32 R24, R20, R21, c[0x0][0x168] ;",
    "MOV R0, RZ ;",
    "MOV R1, RZ ;",
    "MOV R2, RZ ;",
    "MOV R3, RZ ;",
]
POST = ["STG.E.128.SYS [R24], R0 ;", "EXIT ;"]
_LINE = re.compile(r"^\s*(?:@(?P<pred>!?U?P[T0-9]+)\s+)?(?P<op>[A-Z0-9_.]+)\s*(?P<ops>[^;]*);?\s*$")


def sass_function(name: str, lines: list[str]) -> SassFunction:
    """A :class:`SassFunction` from nvdisasm-style text lines (offsets 16 bytes apart)."""
    fn = SassFunction(name)
    for i, line in enumerate(lines):
        m = _LINE.match(line)
        assert m, f"bad SASS line {line!r}"
        op, *mods = m["op"].split(".")
        fn.instructions.append(SassInstruction(16 * i, m["pred"] or "", op, tuple(mods),
                                               split_operands(m["ops"])))
    fn.length = 16 * len(lines)
    return fn


def context(name: str = "k") -> KernelContext:
    return KernelContext(name=name, params=[ParamSlot("k_in", 0, 8), ParamSlot("k_out", 8, 8)],
                         param_decls=[".param .u64 k_in", ".param .u64 k_out"])


def ptxplus_text(body: list[str]) -> str:
    lines = PRE + body + POST
    lines.append(f"BRA {16 * len(lines):#x} ;")
    text = convert_kernel(sass_function("k", lines), context())
    return ".version 8.0\n.target sm_75\n.address_size 64\n\n" + text


def run_sass(body: list[str], inputs, *, driver: str = "batched") -> np.ndarray:
    """Run ``body`` on one CTA of ``len(inputs)`` threads; inputs: (threads, 4) words."""
    arr = np.ascontiguousarray(np.asarray(inputs, dtype=np.uint64).astype(np.uint32).reshape(-1, 4))
    module = parse_ptx(ptxplus_text(body), "test.ptxplus")
    out = np.zeros_like(arr)
    r = run_once(module, "k", (1, 1, 1), (len(arr), 1, 1), [("in", arr), ("out", out)], driver=driver)
    return r.out["out"]


def u32(x: int) -> int:
    return x & 0xFFFFFFFF
