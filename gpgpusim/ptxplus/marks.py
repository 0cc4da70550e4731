"""Which PTXPlus line is which SASS instruction's main line (checklist C007, C009).

The converter (:mod:`gpgpusim.ptxplus.convert`) writes each SASS instruction as a comment line
(``// @P0 FFMA R1, R2, R3, R4 ;``) followed by its PTXPlus lines, one of which ends in
``//@main``.  :func:`mark_sass` reads those comments back after the text is parsed and sets
``Instruction.sass`` on every instruction of the converted functions: ``(k, opcode, main)``,
``k`` the index of the SASS instruction in its kernel (-1 for the lines before the first one,
such as the entry's ``setp`` of ``%pt``), ``opcode`` its SASS opcode without modifiers, and
``Instruction.count_guard`` on a main line whose mark names the SASS guard (a branch whose
PTX guard combines it with another predicate).  The
functional engine counts main lines only (``DInst.counted``) and the timing model issues main
lines only, with the op class and latency of the SASS opcode
(:mod:`gpgpusim.ptxplus.sass_timing`).
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from .convert import MAIN_MARK

#: the main mark, with the SASS guard when the line's own guard is not it (``//@main @!%p0``,
#: ``//@main @all``: see ``_Exp.count_guard``)
_MAIN = re.compile(re.escape(MAIN_MARK) + r"(?: @(?P<cg>!?%\w+|all))?\s*$")
_SASS_COMMENT = re.compile(r"^\s*// (?:@!?U?P[T0-9]+ )?(?P<op>[A-Z][A-Z0-9_]*)[.A-Z0-9_]*(?: |$)")


def line_marks(text: str) -> dict[int, tuple[int, str, bool]]:
    """``{1-based line: (SASS index, opcode, main)}`` for the lines of the converted kernels."""
    out: dict[int, tuple[int, str, bool]] = {}
    k, op = -1, ""
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith(".visible .entry") or line.startswith(".entry"):
            k, op = -1, ""
            continue
        m = _SASS_COMMENT.match(line)
        if m:
            k += 1
            op = m["op"]
            continue
        out[n] = (k, op, _MAIN.search(line) is not None)
    return out


def count_guards(text: str) -> dict[int, tuple[str, bool]]:
    """``{1-based line: (predicate name or "" for every active lane, negated)}`` for the main
    lines whose thread count follows a guard other than their own."""
    out: dict[int, tuple[str, bool]] = {}
    for n, line in enumerate(text.split("\n"), 1):
        m = _MAIN.search(line)
        if m is not None and m["cg"]:
            cg = m["cg"]
            out[n] = ("", False) if cg == "all" else (cg.lstrip("!"), cg.startswith("!"))
    return out


def mark_sass(functions: Iterable[Any], text: str) -> None:
    """Set ``inst.sass`` on every instruction of ``functions`` (parsed from ``text``)."""
    marks = line_marks(text)
    guards = count_guards(text)
    for fn in functions:
        for inst in fn.instructions:
            inst.sass = marks.get(inst.line, (-1, "", False))
            inst.count_guard = guards.get(inst.line)
