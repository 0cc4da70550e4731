"""PTX syntax: the lark grammar (``grammar.lark``) and the transformer that shapes its rules.

:class:`_Shaper` runs inside lark's LALR(1) parser (no parse tree is built) and turns each
rule into small tuples and IR operands for :mod:`gpgpusim.ptx.builder`; also here: numeric
literals (shared with :mod:`gpgpusim.ptx.fastpath`), the special-register names and the
``file:line:col: message`` errors with the offending source line.
"""

from __future__ import annotations

import os
import struct
from functools import lru_cache

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from gpgpusim.errors import PtxError
from gpgpusim.ptx.ir import (
    Addr,
    Imm,
    ParamList,
    PredPair,
    Reg,
    Special,
    Sym,
    SymMask,
    Vec,
)

#: Special-register base names (PTX ISA "Special Registers"); ``%tid.x`` has base ``%tid``.
SPECIAL_REGS = frozenset(
    [
        "%tid", "%ntid", "%laneid", "%warpid", "%nwarpid", "%ctaid", "%nctaid", "%smid",
        "%nsmid", "%gridid", "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge",
        "%lanemask_gt", "%clock", "%clock64", "%clock_hi", "%globaltimer", "%globaltimer_lo",
        "%globaltimer_hi", "%total_smem_size", "%dynamic_smem_size", "%aggr_smem_size",
        "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank",
        "%cluster_nctarank", "%is_explicit_cluster", "%current_graph_exec",
    ]
    + [f"%pm{i}" for i in range(8)]
    + [f"%pm{i}_64" for i in range(8)]
    + [f"%envreg{i}" for i in range(32)]
)

#: Largest register range / array we accept (guards against absurd input eating memory).

class _Pos:
    """Where a statement came from: line, column and byte offset in the text."""

    __slots__ = ("line", "col", "pos")

    def __init__(self, tok: Token) -> None:
        self.line = tok.line or 0
        self.col = tok.column or 0
        self.pos = tok.start_pos or 0


def parse_int(text: str) -> int:
    """A PTX integer literal: hex ``0x``, binary ``0b``, octal ``0NN``, decimal; ``U`` suffix."""
    t = text[:-1] if text[-1] in "Uu" else text
    if len(t) > 1 and t[0] == "0":
        c = t[1]
        if c in "xX":
            return int(t[2:], 16)
        if c in "bB":
            return int(t[2:], 2)
        return int(t[1:], 8)
    return int(t)


def num_literal(kind: str, s: str) -> Imm:
    """An immediate from a number token of grammar terminal ``kind`` (INT/HEXF/HEXD/DECFLOAT)."""
    if kind == "INT":
        return Imm(parse_int(s))
    if kind == "HEXF":
        bits = int(s[2:], 16)
        return Imm(struct.unpack("<f", struct.pack("<I", bits))[0], bits)
    if kind == "HEXD":
        bits = int(s[2:], 16)
        return Imm(struct.unpack("<d", struct.pack("<Q", bits))[0], bits)
    return Imm(float(s))


def neg_literal(kind: str, s: str) -> Imm:
    """``-literal``: integers negate; ``-0f``/``-0d`` literals flip the IEEE sign bit."""
    if kind == "HEXF":
        bits = int(s[2:], 16) ^ 0x80000000
        return Imm(struct.unpack("<f", struct.pack("<I", bits))[0], bits)
    if kind == "HEXD":
        bits = int(s[2:], 16) ^ (1 << 63)
        return Imm(struct.unpack("<d", struct.pack("<Q", bits))[0], bits)
    return Imm(-num_literal(kind, s).value)


def _num(tok: Token) -> Imm:
    return num_literal(tok.type, str(tok))


def _neg_num(tok: Token) -> Imm:
    return neg_literal(tok.type, str(tok))


def _reg(tok: Token | str) -> Reg | Special:
    s = str(tok)
    dot = s.find(".")
    if dot >= 0:
        return Special(s[:dot], s[dot + 1:])
    if s in SPECIAL_REGS:
        return Special(s)
    return Reg(s)


class _FastInit:
    """Placeholder for an initialiser list pre-parsed by :mod:`gpgpusim.ptx.fastpath`."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


class _Ident:
    """A bare identifier operand; the builder resolves it to Reg, Label or Sym."""

    __slots__ = ("name", "neg")

    def __init__(self, name: str, neg: bool = False) -> None:
        self.name = name
        self.neg = neg


@v_args(inline=True)
class _Shaper(Transformer):
    """Runs inside the LALR parser: rules -> tuples / IR operands (see module docstring)."""

    # ---- module level
    def version(self, tok):
        return ("version", tok)

    def target(self, *toks):
        return ("target", tuple(str(t) for t in toks))

    def address_size(self, tok):
        return ("address_size", tok)

    def pragma(self, *strs):
        return ("pragma", tuple(str(s)[1:-1] for s in strs))

    def attr(self, name, val=None):
        return (str(name)[1:], val)

    def attribute(self, *items):
        # `.attribute(.managed)` -> ("attribute", ("managed",)); `.unified(a, b)` keeps its name
        return ("attribute", tuple(items))

    def attr_item(self, name, *_args):
        return str(name)[1:]

    def decl_or_func(self, *children):
        return ("decl_or_func", children)

    def entry(self, name, params, *rest):
        return ("entry", name, None, params, rest)

    def func(self, ret, name, params, *rest):
        return ("func", name, ret, params, rest)

    def param_block(self, *params):
        return [p for p in params if p is not None]

    def param(self, *args):
        if isinstance(args[-1], tuple) and args[-1] and args[-1][0] in ("dims", "range"):
            return (args[:-2], args[-2], args[-1])
        return (args[:-1], args[-1], None)

    def perf(self, name, *vals):
        return ("perf", str(name)[1:], tuple(parse_int(str(v)) for v in vals if v is not None))

    def var_list(self, *items):
        return items

    def var_item(self, name, dims, init):
        return (name, dims, init)

    def dims(self, *ds):
        return ("dims", ds)

    def dim(self, tok):
        return None if tok is None else parse_int(str(tok))

    def reg_range(self, tok):
        return ("range", parse_int(str(tok)))

    # ---- initialisers
    def init_list(self, *items):
        return list(items)

    def init_num(self, tok):
        return _num(tok)  # an Imm: the builder picks value or raw bits by variable type

    def init_neg(self, tok):
        return _neg_num(tok)

    def init_mask(self, mask, addr):
        name, off = addr
        return SymMask(name, off, parse_int(str(mask)))

    def init_addr(self, name, off):
        return (str(name), 0 if off is None else parse_int(str(off)))

    def init_fast(self, tok):
        return _FastInit(int(str(tok)[1:]))

    def init_sym(self, tok):
        return Sym(str(tok))

    def init_sym_off(self, tok, off):
        return Addr(Sym(str(tok)), parse_int(str(off)))

    def num(self, tok):
        return tok  # converted by the caller, which knows about a leading '-'

    # ---- function bodies
    def body(self, *stmts):
        return ("body", stmts)

    def decl_stmt(self, *args):
        return ("decl", args[:-1], args[-1])

    def proto(self, *args):
        return ("proto",)

    def btargets(self, *toks):
        return ("btargets", toks)

    def instr(self, guard, op, *operands):
        if operands and operands[-1] is None:
            operands = ()
        return ("inst", guard, op, operands)

    def guard(self, tok):
        return (tok, False)

    def nguard(self, tok):
        return (tok, True)

    # ---- operands
    def op_reg(self, tok):
        return _reg(tok)

    def op_not(self, tok):
        if tok.type == "REG":
            return Reg(str(tok), True)
        return _Ident(str(tok), True)

    def op_pair(self, p, q):
        return PredPair(self._base(p), self._base(q))

    def op_ident(self, tok):
        return _Ident(str(tok))

    def op_ident_off(self, tok, off):
        return Addr(_Ident(str(tok)), off)  # type: ignore[arg-type]

    def op_imm(self, tok):
        return _num(tok)

    def op_negimm(self, tok):
        return _neg_num(tok)

    def op_vec(self, *elems):
        return Vec(elems)

    def op_plist(self, *items):
        return ParamList(tuple(i for i in items if i is not None))

    def sink(self, _tok):
        return None

    def _base(self, tok):
        return Reg(str(tok)) if tok.type == "REG" else _Ident(str(tok))

    def addr_base(self, tok):
        return Addr(self._base(tok), 0)

    def addr_off(self, tok, off):
        return Addr(self._base(tok), off)

    def addr_sub(self, tok, off):
        return Addr(self._base(tok), -parse_int(str(off)))

    def addr_abs(self, off):
        return Addr(None, off)

    def addr_tex(self, tok, *operands):
        # ``[tex, {x, y}]`` / ``[%rd_texobj, {x, y}]`` / TMA ``[%rd, {c0, c1}]``: a bracketed
        # list becomes Vec((handle, operands...)); the handle is a Sym or a Reg.
        return Vec((self._base(tok), *operands))

    def pos_int(self, tok):
        return parse_int(str(tok))

    def neg_int(self, tok):
        return -parse_int(str(tok))


_GRAMMAR_PATH = os.path.join(os.path.dirname(__file__), "grammar.lark")


@lru_cache(maxsize=1)
def _lark() -> Lark:
    with open(_GRAMMAR_PATH, encoding="utf-8") as fh:
        grammar = fh.read()
    # lark can pickle its LALR tables (keyed by a hash of grammar + options + versions):
    # building them costs ~0.1 s, loading them ~0.02 s.
    cache: bool | str = False
    if os.environ.get("GPGPUSIM_NO_PTX_CACHE", "") in ("", "0"):
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "gpgpusim", "ptx")
        try:
            os.makedirs(d, exist_ok=True)
            cache = os.path.join(d, "grammar-lalr.cache")
        except OSError:
            cache = False
    try:
        return _make_lark(grammar, cache)
    except Exception:  # noqa: BLE001 - a broken table cache must never stop parsing
        return _make_lark(grammar, False)


def _make_lark(grammar: str, cache: bool | str) -> Lark:
    return Lark(
        grammar,
        parser="lalr",
        lexer="contextual",
        transformer=_Shaper(),
        maybe_placeholders=True,
        cache=cache,
    )


# ----------------------------------------------------------------------------- errors
def _source_line(text: str, line: int) -> str:
    lines = text.splitlines()
    if 1 <= line <= len(lines):
        return lines[line - 1].rstrip()
    return ""


def ptx_error(filename: str, text: str, line: int, col: int, message: str) -> PtxError:
    """Build the standard ``file:line:col: message`` + source-line error."""
    src = _source_line(text, line)
    tail = f"\n    {src}" if src else ""
    return PtxError(f"{filename}:{line}:{col}: {message}{tail}")


def _lark_error(exc: UnexpectedInput, filename: str, text: str) -> PtxError:
    line = getattr(exc, "line", 0) or 0
    col = getattr(exc, "column", 0) or 0
    if isinstance(exc, UnexpectedCharacters):
        at = exc.pos_in_stream or 0
        ch = text[at] if 0 <= at < len(text) else "?"
        msg = f"syntax error: unexpected character {ch!r}"
    elif isinstance(exc, UnexpectedEOF):
        lines = text.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
        msg = "syntax error: unexpected end of input"
    elif isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END":
            lines = text.splitlines() or [""]
            line, col = len(lines), len(lines[-1]) + 1
            msg = "syntax error: unexpected end of input"
        else:
            line, col = tok.line or line, tok.column or col
            msg = f"syntax error: unexpected {str(tok)!r}"
    else:  # pragma: no cover - lark has no other UnexpectedInput kinds
        msg = "syntax error"
    return ptx_error(filename, text, line, col, msg)
