"""PTX IR builder: the shaped statements of :mod:`gpgpusim.ptx.syntax` -> :class:`~gpgpusim.ptx.ir.Module`.

:class:`_Builder` walks the per-function statement lists: it expands ``%r<N>`` register
ranges, scopes nested ``{ }`` blocks (renaming shadowing declarations ``name$k``), resolves
bare identifiers to registers, labels or symbols, assigns pcs, tracks ``.loc``, lays out
kernel parameters and records performance directives (the conventions are
:mod:`gpgpusim.ptx.parser`'s docstring).
"""

from __future__ import annotations

import re
from typing import Any

from lark import Token

from gpgpusim.errors import PtxError
from gpgpusim.ptx.ir import (
    STATE_SPACES,
    TYPE_SIZES,
    Addr,
    Function,
    Imm,
    Instruction,
    Label,
    Module,
    Param,
    ParamList,
    PredPair,
    Reg,
    Special,
    Sym,
    Variable,
    Vec,
)
from gpgpusim.ptx.syntax import _FastInit, _Ident, _Pos, parse_int, ptx_error

_MAX_COUNT = 1 << 24
_BRANCH_OPS = frozenset(["bra", "brx", "call"])
_WS = re.compile(r"\s+")
_INT_RE = re.compile(r"\d+")


# ----------------------------------------------------------------------------- builder
def _count(dims: Any, filename: str, text: str, pos: _Pos) -> int:
    if dims is None:
        return 1
    kind, vals = dims
    if kind == "range":
        return int(vals)
    n = 1
    for d in vals:
        if d is None:
            return 0
        n *= d
    if n > _MAX_COUNT:
        raise ptx_error(filename, text, pos.line, pos.col, f"array of {n} elements is too large")
    return n


_FLOAT_TYPES = frozenset(["f16", "bf16", "f32", "f64", "tf32"])


def _flatten(init: Any, out: list, float_type: bool) -> None:
    """Flatten nested ``{...}`` lists.  Numbers become their value, except that a
    ``0f``/``0d`` literal initialising an integer/bit type contributes its raw bits."""
    if isinstance(init, list):
        for x in init:
            _flatten(x, out, float_type)
    elif type(init) is Imm:
        if init.bits is not None and not float_type:
            out.append(init.bits)
        elif float_type and isinstance(init.value, int):
            out.append(float(init.value))
        else:
            out.append(init.value)
    else:
        out.append(init)


def _first_token(stmts: Any) -> Token | None:
    """Some token inside a (nested) statement list, to give an error a position."""
    todo = [stmts]
    while todo:
        x = todo.pop()
        if isinstance(x, Token):
            return x
        if isinstance(x, (tuple, list)):
            todo.extend(reversed(x))
    return None


def _undeclared(ops: tuple, regs: dict[str, str]) -> str | None:
    """The first register operand not in ``regs`` (None when all are declared)."""
    for o in ops:
        t = type(o)
        if t is Reg:
            if o.name not in regs:
                return o.name
        elif t is Addr:
            b = o.base
            if type(b) is Reg and b.name not in regs:
                return b.name
        elif t is Vec or t is ParamList:
            bad = _undeclared(tuple(e for e in (o.elems if t is Vec else o.items) if e is not None), regs)
            if bad is not None:
                return bad
        elif t is PredPair:
            if o.p.name not in regs:
                return o.p.name
            if o.q is not None and o.q.name not in regs:
                return o.q.name
    return None


class _Attrs:
    """The ``.visible .global .align 8 .v2 .u32`` prefix of a declaration, classified."""

    __slots__ = ("space", "type", "align", "vector", "extern", "visible", "weak",
                 "ptr", "ptr_space", "ptr_align", "other", "attributes")

    def __init__(self, attrs: tuple) -> None:
        self.space: str | None = None
        self.type: str | None = None
        self.align = 0
        self.vector = 1
        self.extern = self.visible = self.weak = self.ptr = False
        self.ptr_space: str | None = None
        self.ptr_align: int | None = None
        self.other: list[str] = []
        self.attributes: tuple[str, ...] = ()
        for name, val in attrs:
            if name == "attribute":
                self.attributes += val
            elif name == "align":
                a = parse_int(str(val)) if val is not None else 0
                if self.ptr and self.type is not None:
                    self.ptr_align = a
                else:
                    self.align = a
            elif name in TYPE_SIZES:
                self.type = name
            elif name in STATE_SPACES:
                if self.ptr:
                    self.ptr_space = name
                else:
                    self.space = name
            elif name in ("v2", "v4", "v8"):
                self.vector = int(name[1:])
            elif name == "extern":
                self.extern = True
            elif name == "visible":
                self.visible = True
            elif name == "weak":
                self.weak = True
            elif name == "ptr":
                self.ptr = True
            else:
                self.other.append(name)


class _Scope:
    __slots__ = ("names", "parent", "renamed")

    def __init__(self, parent: _Scope | None) -> None:
        self.names: dict[str, str] = {}
        self.parent = parent
        self.renamed: bool = parent.renamed if parent is not None else False

    def lookup(self, name: str) -> str | None:
        s: _Scope | None = self
        while s is not None:
            r = s.names.get(name)
            if r is not None:
                return r
            s = s.parent
        return None


class _Builder:
    def __init__(self, text: str, filename: str) -> None:
        self.text = text
        self.filename = filename
        self.module = Module(filename=filename, source=text)
        self.loc: tuple[int, int, int] | None = None
        self.calls: list[tuple[str, _Pos]] = []  # (callee, where), checked after all functions
        self.fast_items: list[tuple] = []  # instructions pre-built by fastpath.prescan
        self.fast_next = 0
        self.fast_inits: list[list[int]] = []  # initialiser lists pre-built by prescan

    def err(self, pos: _Pos | Token | None, msg: str) -> PtxError:
        if isinstance(pos, Token):
            pos = _Pos(pos)
        line = pos.line if pos else 0
        col = pos.col if pos else 0
        return ptx_error(self.filename, self.text, line, col, msg)

    # ---- module items
    def build(self, items: list) -> Module:
        m = self.module
        for item in items:
            if isinstance(item, Token):
                if item.type == "FILE_DIR":
                    self.file_dir(item)
                elif item.type == "LOC_DIR":
                    self.loc = self.parse_loc(item)
                continue  # SECTION: debug info, skipped
            kind = item[0]
            if kind == "decl_or_func":
                self.decl_or_func(item[1])
            elif kind == "version":
                parts = str(item[1]).split(".")
                try:
                    m.version = (int(parts[0]), int(parts[1] or 0))
                except (ValueError, IndexError):
                    raise self.err(item[1], f"bad .version {item[1]!s}") from None
            elif kind == "target":
                m.target = item[1]
            elif kind == "address_size":
                m.address_size = parse_int(str(item[1]))
                if m.address_size not in (32, 64):
                    raise self.err(item[1], f".address_size must be 32 or 64, not {m.address_size}")
        for callee, pos in self.calls:
            if callee not in m.functions:
                raise self.err(pos, f"call to {callee}, which is not a function of the module")
        return m

    def file_dir(self, tok: Token) -> None:
        s = str(tok)
        mt = re.match(r'\.file\s+(\d+)\s+"((?:[^"\\]|\\.)*)"', s)
        if not mt:
            raise self.err(tok, f"malformed .file directive: {s.strip()}")
        self.module.files[int(mt.group(1))] = mt.group(2)

    def parse_loc(self, tok: Token) -> tuple[int, int, int]:
        s = str(tok).split(",", 1)[0]
        nums = _INT_RE.findall(s[4:])
        if len(nums) < 2:
            raise self.err(tok, f"malformed .loc directive: {str(tok).strip()}")
        col = int(nums[2]) if len(nums) > 2 else 0
        return (int(nums[0]), int(nums[1]), col)

    def decl_or_func(self, children: tuple) -> None:
        *attrs, last = children
        if isinstance(last, tuple) and last and last[0] in ("entry", "func"):
            self.function(tuple(attrs), last)
            return
        a = _Attrs(tuple(attrs))
        first = last[0][0]
        if a.space is None or a.space in ("reg", "param", "sreg"):
            raise self.err(first, f"module-scope declaration of {first!s} needs a state space "
                                  f"(.global, .const, .shared, .local)")
        for name_tok, dims, init in last:
            var = self.variable(a, name_tok, dims, init)
            old = self.module.variables.get(var.name)
            if old is not None and not (old.extern or var.extern):
                raise self.err(name_tok, f"duplicate declaration of {var.name}")
            if old is None or old.extern:
                self.module.variables[var.name] = var

    def variable(self, a: _Attrs, name_tok: Token, dims: Any, init: Any) -> Variable:
        pos = _Pos(name_tok)
        if a.type is None:
            other = a.other[0] if a.other else None
            if other in ("texref", "samplerref", "surfref"):
                vtype = "b64"  # opaque handle; the engine rejects texture instructions
            else:
                raise self.err(pos, f"declaration of {name_tok!s} has no type")
        else:
            vtype = a.type
        count = _count(dims, self.filename, self.text, pos)
        flat: list | None = None
        if init is not None:
            flat = []
            if type(init) is _FastInit:
                if init.index >= len(self.fast_inits):  # a raw \x02 in the input
                    raise self.err(pos, "syntax error: unexpected character '\\x02'")
                flat = list(self.fast_inits[init.index])
            else:
                _flatten(init, flat, vtype in _FLOAT_TYPES)
            cap = count * a.vector if count else None
            if cap is not None and len(flat) > cap:
                raise self.err(pos, f"{len(flat)} initialisers for {name_tok!s} with {cap} elements")
        return Variable(
            name=str(name_tok), space=a.space or "reg", type=vtype, count=count,
            align=a.align, vector=a.vector, init=flat, extern=a.extern, visible=a.visible,
            weak=a.weak, line=pos.line, managed="managed" in a.attributes,
        )

    def params(self, plist: list | None, entry: bool) -> list[Param]:
        out: list[Param] = []
        offset = 0
        for attrs, name, dims in plist or ():
            a = _Attrs(attrs)
            pos = _Pos(name)
            if a.type is None:
                raise self.err(pos, f"parameter {name!s} has no type")
            count = _count(dims, self.filename, self.text, pos) if dims is not None else 1
            p = Param(name=str(name), type=a.type, count=count * a.vector, align=a.align,
                      ptr_space=a.ptr_space, ptr_align=a.ptr_align)
            al = p.alignment
            offset = (offset + al - 1) // al * al
            p.offset = offset
            offset += p.size_bytes
            out.append(p)
        return out

    def function(self, attrs: tuple, item: tuple) -> None:
        kind, name_tok, ret, params, rest = item
        a = _Attrs(attrs)
        fn = Function(name=str(name_tok), is_entry=(kind == "entry"), visible=a.visible,
                      extern=a.extern, weak=a.weak, line=name_tok.line or 0)
        fn.params = self.params(params, fn.is_entry)
        fn.ret_params = self.params(ret, False)
        # old-style `.func (.reg .b32 rv) f(.reg .b32 a)`: register parameters are registers
        for plist, decl in ((params, fn.params), (ret, fn.ret_params)):
            for (pattrs, _name, _dims), p in zip(plist or (), decl, strict=True):
                if _Attrs(pattrs).space == "reg":
                    fn.regs[p.name] = p.type
        body = None
        for r in rest:
            if r is None:
                continue
            if r[0] == "perf":
                fn.directives[r[1]] = r[2]
            elif r[0] == "body":
                body = r
        old = self.module.functions.get(fn.name)
        if body is None:
            if old is None:
                fn.extern = True  # a declaration: defined elsewhere or later
                self.module.functions[fn.name] = fn
            return
        if old is not None and old.instructions:
            raise self.err(name_tok, f"duplicate definition of function {fn.name}")
        fb = _FunctionBuilder(self, fn)
        fb.build(body)
        fn.extern = False
        self.module.functions[fn.name] = fn


class _FunctionBuilder:
    """Builds one function body: scopes, registers, labels, instructions."""

    def __init__(self, mb: _Builder, fn: Function) -> None:
        self.mb = mb
        self.fn = fn
        self.pending: list[tuple[Instruction, _Pos, _Scope]] = []
        self.label_like: set[str] = set()  # unique names of labels, tables, prototypes
        self.table_scopes: dict[str, _Scope] = {}
        self.last_label: str | None = None
        self.var_names: dict[str, Variable] = {}
        self.counter = 0
        self.branch_targets: dict[str, tuple[str, ...]] = {}

    def build(self, body: tuple) -> None:
        root = _Scope(None)
        for p in self.fn.params:
            root.names[p.name] = p.name
        for p in self.fn.ret_params:
            root.names[p.name] = p.name
        self.stmts(body[1], _Scope(root), depth=0)
        self.resolve()
        for table, names in self.branch_targets.items():
            scope = self.table_scopes[table]
            resolved = []
            for name in names:
                r = scope.lookup(str(name))
                if r is None or r not in self.fn.labels:
                    raise self.mb.err(name, f".branchtargets {table}: {name} is not a label of "  # type: ignore[arg-type]
                                            f"function {self.fn.name}")
                resolved.append(r)
            self.fn.branch_targets[table] = tuple(resolved)

    def unique(self, name: str) -> str:
        while True:
            self.counter += 1
            cand = f"{name}${self.counter}"
            if cand not in self.fn.regs and cand not in self.var_names \
                    and cand not in self.label_like:
                return cand

    def declare(self, scope: _Scope, name: str, kind: tuple, tok: Token) -> str:
        if name in scope.names:
            raise self.mb.err(tok, f"duplicate declaration of {name} in the same scope")
        existing_type: object = self.fn.regs.get(name)
        if existing_type is None and name in self.var_names:
            v = self.var_names[name]
            existing_type = (v.space, v.type, v.count, v.vector)
        visible = scope.parent is not None and scope.parent.lookup(name) is not None
        if visible or (existing_type is not None and existing_type != kind[1]):
            new = self.unique(name)
            scope.renamed = True
        else:
            new = name
        scope.names[name] = new
        return new

    def stmts(self, stmts: tuple, scope: _Scope, depth: int) -> None:
        if depth > 64:
            raise self.mb.err(_first_token(stmts), "blocks nested more than 64 deep")
        fn = self.fn
        mb = self.mb
        for st in stmts:
            if isinstance(st, Token):
                if st.type == "FAST":
                    if mb.fast_next >= len(mb.fast_items):  # a raw \x01 in the input
                        raise mb.err(st, "syntax error: unexpected character '\\x01'")
                    st = mb.fast_items[mb.fast_next]
                    mb.fast_next += 1
                    self.instruction(st, scope)
                    self.last_label = None
                    continue
                if st.type == "LABEL_DEF":
                    # labels are block-scoped (inline asm expanded twice repeats its labels):
                    # a name already used elsewhere in the function becomes `name$k`
                    name = str(st).rstrip(": \t")
                    if name in scope.names:
                        raise mb.err(st, f"duplicate label {name}")
                    uname = self.unique(name) if name in self.label_like else name
                    scope.names[name] = uname
                    self.label_like.add(uname)
                    fn.labels[uname] = len(fn.instructions)
                    self.last_label = uname
                    continue
                if st.type == "LOC_DIR":
                    mb.loc = mb.parse_loc(st)
                self.last_label = None
                continue
            kind = st[0]
            if kind == "inst":
                self.instruction(st, scope)
                self.last_label = None
            elif kind == "decl":
                self.decl(st, scope)
            elif kind == "body":
                self.stmts(st[1], _Scope(scope), depth + 1)
            elif kind == "btargets":
                if self.last_label is None:
                    raise mb.err(None, ".branchtargets must follow a label")
                self.branch_targets[self.last_label] = st[1]  # Tokens: keep positions
                self.table_scopes[self.last_label] = scope
                del fn.labels[self.last_label]
            elif kind == "proto":
                if self.last_label is not None:
                    # prototype labels name a call signature, not a code position
                    del fn.labels[self.last_label]
            # pragma: nothing to record per function
            if kind != "inst":
                self.last_label = None

    def decl(self, st: tuple, scope: _Scope) -> None:
        a = _Attrs(st[1])
        fn = self.fn
        if a.space == "reg":
            if a.type is None:
                raise self.mb.err(st[2][0][0], f"register {st[2][0][0]!s} has no type")
            rtype = a.type if a.vector == 1 else f"v{a.vector}.{a.type}"
            for name_tok, dims, _init in st[2]:
                base = str(name_tok)
                if dims is not None and dims[0] == "range":
                    n = dims[1]
                    if n > _MAX_COUNT:
                        raise self.mb.err(name_tok, f"register range {base}<{n}> is too large")
                    for i in range(n):
                        nm = f"{base}{i}"
                        fn.regs[self.declare(scope, nm, ("reg", rtype), name_tok)] = rtype
                else:
                    fn.regs[self.declare(scope, base, ("reg", rtype), name_tok)] = rtype
            return
        if a.space is None:
            raise self.mb.err(st[2][0][0], f"declaration of {st[2][0][0]!s} has no state space")
        for name_tok, dims, init in st[2]:
            var = self.mb.variable(a, name_tok, dims, init)
            key = (var.space, var.type, var.count, var.vector)
            var.name = self.declare(scope, var.name, ("var", key), name_tok)
            if var.name in self.var_names:
                continue  # identical re-declaration in a sibling block: same storage
            self.var_names[var.name] = var
            fn.variables.append(var)

    def instruction(self, st: tuple, scope: _Scope) -> None:
        _, guard, op, operands = st
        s = str(op)
        dot = s.find(".")
        mods: tuple[str, ...] = ()
        if dot < 0:
            opcode = s
        else:
            opcode = s[:dot]
            mods = tuple(s[dot + 1:].split("."))
        text = self.mb.text
        start = op.start_pos
        g = None
        if guard is not None:
            gtok, neg = guard
            start = gtok.start_pos - (2 if neg else 1)
            g = (gtok, neg)
        end = text.find(";", op.end_pos)
        src = text[start:end + 1]
        if "\n" in src or "  " in src or "\t" in src:
            src = _WS.sub(" ", src)
        inst = Instruction(opcode, mods, operands, None, op.line or 0, self.mb.loc, src)
        if g is not None:
            inst.guard = g  # type: ignore[assignment]  # resolved in resolve()
        self.pending.append((inst, _Pos(op), scope))
        self.fn.instructions.append(inst)

    # ---- operand resolution (after all labels are known)
    def resolve(self) -> None:
        labels = self.fn.labels
        for inst, pos, scope in self.pending:
            if inst.guard is not None:
                gtok: Any
                gtok, neg = inst.guard  # a (Token, negated) pair until resolved here
                name = str(gtok)
                r = scope.lookup(name)
                if r is None and gtok.type == "REG":
                    r = name
                if r is None or r not in self.fn.regs:
                    raise self.mb.err(gtok, f"guard {name} is not a declared register")
                if self.fn.regs[r] != "pred":
                    raise self.mb.err(gtok, f"guard {name} is a .{self.fn.regs[r]} register, "
                                            f"not a .pred")
                inst.guard = (Reg(r), neg)
            ops = inst.operands
            need = scope.renamed
            if not need:
                for o in ops:
                    t = type(o)
                    if t is not Reg and t is not Imm and t is not Special:
                        need = True
                        break
            if need:
                branchy = inst.opcode in _BRANCH_OPS
                inst.operands = tuple(self.op(o, scope, labels, branchy, pos) for o in ops)
                if inst.opcode == "bra" or inst.opcode == "brx":
                    for o in inst.operands:
                        if type(o) is Label and o.name not in labels \
                                and o.name not in self.branch_targets:
                            raise self.mb.err(pos, f"branch target {o.name} is not a label of "
                                                   f"function {self.fn.name}")
                if inst.opcode == "call":
                    # callee = first operand that is not the (return) parameter list; an
                    # indirect call has a register there and a prototype label later
                    for o in inst.operands:
                        if type(o) is not ParamList:
                            if type(o) is Label:
                                self.mb.calls.append((o.name, pos))
                            break
            bad = _undeclared(inst.operands, self.fn.regs)
            if bad is not None:
                raise self.mb.err(pos, f"register {bad} is not declared in function {self.fn.name}")
        self.pending = []

    def op(self, o: Any, scope: _Scope, labels: dict, branchy: bool, pos: _Pos) -> Any:
        t = type(o)
        if t is Reg:
            if scope.renamed:
                r = scope.lookup(o.name)
                if r is not None and r != o.name:
                    return Reg(r, o.neg)
            return o
        if t is _Ident:
            name = o.name
            r = scope.lookup(name)
            if r is not None and r in self.fn.regs:
                return Reg(r, o.neg)
            if o.neg:
                raise self.mb.err(pos, f"'!' applied to {name}, which is not a register")
            if r is not None:
                return Label(r) if r in self.label_like else Sym(r)
            return Label(name) if branchy else Sym(name)
        if t is Addr:
            base = o.base
            if base is None:
                return o
            nb = self.op(base, scope, labels, False, pos)
            if type(nb) is Label:
                nb = Sym(nb.name)
            return o if nb is base else Addr(nb, o.offset)
        if t is Vec:
            return Vec(tuple(None if e is None else self.op(e, scope, labels, branchy, pos)
                             for e in o.elems))
        if t is ParamList:
            return ParamList(tuple(self.op(e, scope, labels, False, pos) for e in o.items))
        if t is PredPair:
            p = self.op(o.p, scope, labels, False, pos)
            q = None if o.q is None else self.op(o.q, scope, labels, False, pos)
            if type(p) is not Reg or (q is not None and type(q) is not Reg):
                raise self.mb.err(pos, "both halves of a p|q destination must be registers")
            return PredPair(p, q)
        return o
