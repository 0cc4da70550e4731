"""PTX text -> :mod:`gpgpusim.ptx.ir` (lark LALR parser plus an IR builder).

GPGPU-Sim counterpart: the flex/bison front end ``ptx.l``/``ptx.y`` with ``ptx_recognizer``
building ``symbol_table``/``function_info`` (checklist C214, C215).

Design
------
* ``grammar.lark`` is parsed with lark's LALR(1) parser and contextual lexer; a
  transformer (:mod:`gpgpusim.ptx.syntax`) runs *inside* the parser (no parse tree is built), turning
  each rule into small tuples / IR operands.  This keeps the cost near one Python call per
  grammar rule, which is what makes a 2,500-line ``-G`` PTX parse in a fraction of a second.
* The builder (:mod:`gpgpusim.ptx.builder`) then walks the per-function statement lists: it expands ``%r<N>``
  register ranges, scopes nested ``{ }`` blocks (an inner declaration that shadows a visible
  outer one, or re-declares a name with another type, is renamed ``name$k``), resolves bare
  identifiers to registers, labels or symbols, assigns pcs, tracks ``.loc``, lays out kernel
  parameters and records performance directives.
* :mod:`gpgpusim.ptx.fastpath` pre-parses simple one-line instructions and long integer
  initialisers before lark sees the text (identical IR, ~3x faster on big files).
* Every error is a :class:`gpgpusim.errors.PtxError` whose message is
  ``file:line:col: message`` followed by the offending source line.

IR conventions beyond :mod:`gpgpusim.ptx.ir`'s docstring
---------------------------------------------------------
* Names: registers, variables and labels of nested blocks keep their name unless it would
  clash (shadowing, another type, a label repeated by inline asm); then they become
  ``name$k``, and every reference inside the block uses the new name.
* ``sym+off`` as a value operand (``mov.u64 %rd1, arr+8;``) is ``Addr(Sym('arr'), 8)``;
  the opcode tells whether an Addr is a memory operand or an address value.
* A bracketed operand list (``tex.2d ... [tex, {x, y}]``, ``[%rd_obj, {x, y}]``, TMA) is
  ``Vec((handle, operand, ...))`` with the handle a Sym or Reg.
* Call operands: ``call (ret), f, (a, b);`` is ``(ParamList, Label('f'), ParamList)``; an
  indirect call has the register in place of the Label and the prototype Label last.
* Initialisers: ``generic(s)``/``s`` -> Sym, ``generic(s)+k`` -> ``Addr(Sym, k)``,
  ``0xFF00(generic(s))`` -> :class:`~gpgpusim.ptx.ir.SymMask`; a ``0f``/``0d`` literal
  initialising an integer/bit variable contributes its raw bits.
"""

from __future__ import annotations

from typing import Any

from lark.exceptions import UnexpectedInput

from gpgpusim.ptx import ir
from gpgpusim.ptx.builder import _Builder
from gpgpusim.ptx.fastpath import prescan
from gpgpusim.ptx.ir import Module
from gpgpusim.ptx.syntax import SPECIAL_REGS, _lark, _lark_error, parse_int, ptx_error


def parse_module(text: str, filename: str = "<ptx>", *, fast: bool = True) -> Module:
    """Parse PTX ``text`` into a :class:`~gpgpusim.ptx.ir.Module` (no CFG analysis).

    ``fast`` lets :mod:`gpgpusim.ptx.fastpath` pre-parse simple instruction lines (same IR,
    several times faster).  Raises :class:`PtxError` (``file:line:col: message`` + the
    source line) on bad input.
    """
    fast_items: list[tuple] = []
    fast_inits: list[list[int]] = []
    lark_text = text
    if fast:
        lark_text, fast_items, fast_inits = prescan(text)
    try:
        items = _lark().parse(lark_text)
    except UnexpectedInput as exc:
        if fast_items or fast_inits:
            # errors are reported by the plain parser, so that messages never mention the
            # fast path's placeholders (and a placeholder in a wrong place is diagnosed).
            return parse_module(text, filename, fast=False)
        raise _lark_error(exc, filename, text) from None
    except RecursionError:
        raise ptx_error(filename, text, 0, 0, "input nested too deeply") from None
    builder = _Builder(text, filename)
    builder.fast_items = fast_items
    builder.fast_inits = fast_inits
    try:
        module = builder.build(list(_top_items(items)))
    except RecursionError:
        raise ptx_error(filename, text, 0, 0, "input nested too deeply") from None
    if builder.fast_next != len(fast_items):  # pragma: no cover - internal consistency
        return parse_module(text, filename, fast=False)
    return module


def _top_items(tree: Any) -> list:
    # With an inline transformer and no `start` callback, lark returns a Tree('start', items).
    return tree.children if hasattr(tree, "children") else tree


__all__ = ["parse_module", "parse_int", "ptx_error", "SPECIAL_REGS", "ir"]
