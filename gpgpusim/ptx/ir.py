"""PTX intermediate representation: the contract between the parser and everything after it.

The parser (:mod:`gpgpusim.ptx.parser`) produces a :class:`Module`; the CFG pass
(:mod:`gpgpusim.ptx.cfg`) fills each :class:`Function`'s ``basic_blocks`` and
``reconvergence_pc``; the functional engine pre-decodes :class:`Instruction` objects into
handlers once and never looks at strings again in its hot path.

GPGPU-Sim counterparts: ``symbol_table``, ``function_info``, ``ptx_instruction``,
``operand_info`` (``src/cuda-sim/ptx_ir.h``); checklist C214-C219.

Conventions
-----------
* An instruction's dotted name is split at the first dot: ``ld.global.v4.f32`` has
  ``opcode='ld'`` and ``mods=('global', 'v4', 'f32')`` in source order.  ``types`` is the
  sub-sequence of ``mods`` that are PTX fundamental types (:data:`TYPE_SIZES`), so
  ``cvt.rn.f32.s32`` has ``types=('f32', 's32')`` (destination first, as PTX writes it).
* ``operands`` are in source order; for instructions with a destination it is
  ``operands[0]``.  ``setp`` with two destinations (``p|q``) yields a :class:`PredPair`.
* Register names keep their ``%``: ``Reg('%r3')``.  Special registers are :class:`Special`.
* ``pc`` is the instruction's index in ``Function.instructions``; labels map to the index of
  the next instruction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

#: PTX fundamental types and their size in bytes.
TYPE_SIZES: dict[str, int] = {
    "s8": 1, "s16": 2, "s32": 4, "s64": 8,
    "u8": 1, "u16": 2, "u32": 4, "u64": 8,
    "b8": 1, "b16": 2, "b32": 4, "b64": 8, "b128": 16,
    "f16": 2, "f16x2": 4, "bf16": 2, "bf16x2": 4, "tf32": 4,
    "f32": 4, "f64": 8,
    "e4m3": 1, "e5m2": 1, "e4m3x2": 2, "e5m2x2": 2,
    "pred": 1,
}

#: State spaces that may appear as modifiers or variable declarations.
STATE_SPACES = ("reg", "sreg", "const", "global", "local", "param", "shared", "tex", "generic")


# ----------------------------------------------------------------------------- operands
@dataclass(frozen=True, slots=True)
class Reg:
    """A register (``%r1``, ``%p2``, ``%fd3`` or a user-named one); ``neg`` for ``!%p``."""

    name: str
    neg: bool = False


@dataclass(frozen=True, slots=True)
class Special:
    """A special register: ``%tid.x`` is ``Special('%tid', 'x')``; ``%laneid`` has comp None."""

    name: str
    comp: str | None = None


@dataclass(frozen=True, slots=True)
class Imm:
    """An immediate.  ``value`` is int for integer literals, float for ``0f``/``0d``/decimal
    floats.  ``bits`` holds the raw IEEE bits of ``0fXXXXXXXX``/``0dXXXX...`` literals so that
    NaN payloads and -0.0 survive (None for decimal literals)."""

    value: int | float
    bits: int | None = None


@dataclass(frozen=True, slots=True)
class Sym:
    """The address of a variable or function used as a value (``mov.u64 %rd1, smem;``)."""

    name: str


@dataclass(frozen=True, slots=True)
class Addr:
    """A memory operand ``[base+offset]``; ``base`` is a Reg, a Sym, or None for ``[imm]``."""

    base: Reg | Sym | None
    offset: int = 0


@dataclass(frozen=True, slots=True)
class SymMask:
    """``0xFF00(generic(sym)+offset)`` in an initialiser: the bits of the address
    ``sym + offset`` selected by ``mask``, shifted down (nvcc uses it to place a pointer
    in a byte array, one byte per element).  Added by the ptx part (additive)."""

    name: str
    offset: int
    mask: int

    def value(self, address: int) -> int:
        """The element's value once ``sym`` is placed at ``address``."""
        m = self.mask
        shift = (m & -m).bit_length() - 1 if m else 0
        return ((address + self.offset) & m) >> shift


@dataclass(frozen=True, slots=True)
class Vec:
    """A vector operand ``{%r1, %r2, _, %r4}``; ``_`` (sink) elements are None."""

    elems: tuple[Operand | None, ...]


@dataclass(frozen=True, slots=True)
class Label:
    """A branch target or called function name."""

    name: str


@dataclass(frozen=True, slots=True)
class PredPair:
    """``setp``'s ``p|q`` destination pair (``q`` may be None)."""

    p: Reg
    q: Reg | None


@dataclass(frozen=True, slots=True)
class ParamList:
    """The ``(a, b, c)`` argument/return lists of ``call``."""

    items: tuple[Operand, ...]


Operand = Union[Reg, Special, Imm, Sym, Addr, Vec, Label, PredPair, ParamList]


# ----------------------------------------------------------------------------- instructions
@dataclass(slots=True)
class Instruction:
    """One PTX instruction.

    ``guard`` is ``(Reg, negated)`` for ``@%p`` / ``@!%p`` predication.  ``line`` is the
    1-based line in the PTX text, ``loc`` the ``(file_index, line, column)`` of the last
    ``.loc`` directive before it (None if none), used for source-line statistics (C199).
    ``sass`` is None for PTX; for a line of PTXPlus text (:mod:`gpgpusim.ptxplus.marks`) it is
    ``(index of its SASS instruction in the kernel or -1, the SASS opcode, is the main line)``:
    only main lines are counted and timed, one per SASS instruction.  ``count_guard`` (PTXPlus
    main lines only) is the guard the thread count follows when it is not ``guard``.
    """

    opcode: str
    mods: tuple[str, ...]
    operands: tuple[Operand, ...]
    guard: tuple[Reg, bool] | None = None
    line: int = 0
    loc: tuple[int, int, int] | None = None
    text: str = ""
    sass: tuple[int, str, bool] | None = None
    #: a PTXPlus main line whose thread count follows its SASS instruction's guard instead of
    #: its own: ``(predicate register, negated)``, ``("", False)`` for every active lane
    count_guard: tuple[str, bool] | None = None

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(m for m in self.mods if m in TYPE_SIZES)

    def has(self, mod: str) -> bool:
        return mod in self.mods

    def __str__(self) -> str:  # for messages
        return self.text or ".".join((self.opcode, *self.mods))


# ----------------------------------------------------------------------------- declarations
@dataclass(slots=True)
class Variable:
    """A ``.global/.const/.shared/.local`` variable (module or function scope).

    ``count`` is the total number of elements (product of all array dimensions; 1 for a
    scalar; 0 for an unsized ``.extern .shared`` array).  ``init`` is the flattened initialiser
    as a list of element values (int/float) or ``Sym`` for ``generic(sym)``/``sym`` address
    initialisers (``Addr(Sym, offset)`` for ``generic(sym)+offset``, :class:`SymMask` for
    nvcc's byte-wise ``0xFF00(generic(sym))``); None when uninitialised (zero-filled).  ``vector`` is 2/4 for ``.v2/.v4``
    declarations (count then counts vectors).
    """

    name: str
    space: str
    type: str
    count: int = 1
    align: int = 0
    vector: int = 1
    init: list[int | float | Sym] | None = None
    extern: bool = False
    visible: bool = False
    weak: bool = False
    line: int = 0
    #: ``.attribute(.managed)``: a ``__managed__`` variable (host and device share it).
    managed: bool = False

    @property
    def elem_size(self) -> int:
        return TYPE_SIZES[self.type] * self.vector

    @property
    def size_bytes(self) -> int:
        return self.elem_size * self.count

    @property
    def alignment(self) -> int:
        return self.align or self.elem_size


@dataclass(slots=True)
class Param:
    """A kernel or function parameter.  ``offset`` is its byte offset in the parameter
    buffer (kernel params laid out in order, each aligned to ``alignment``).  ``ptr_space``
    / ``ptr_align`` record ``.ptr.global.align N`` attributes."""

    name: str
    type: str
    count: int = 1
    align: int = 0
    offset: int = 0
    ptr_space: str | None = None
    ptr_align: int | None = None

    @property
    def size_bytes(self) -> int:
        return TYPE_SIZES[self.type] * self.count

    @property
    def alignment(self) -> int:
        return self.align or TYPE_SIZES[self.type]


@dataclass(slots=True)
class BasicBlock:
    """Instructions ``[start, end)`` of a function; successors/predecessors are block ids."""

    id: int
    start: int
    end: int
    succs: list[int] = field(default_factory=list)
    preds: list[int] = field(default_factory=list)


@dataclass(slots=True)
class Function:
    """An ``.entry`` (kernel) or ``.func``.

    ``regs`` maps every declared register name (``%r<10>`` expanded to ``%r0``..``%r9``) to its
    type.  ``reconvergence_pc`` maps the pc of every branch instruction to the pc of its
    immediate post-dominator (``len(instructions)`` = function exit), filled by
    :func:`gpgpusim.ptx.cfg.analyze`.
    """

    name: str
    is_entry: bool
    params: list[Param] = field(default_factory=list)
    ret_params: list[Param] = field(default_factory=list)
    regs: dict[str, str] = field(default_factory=dict)
    variables: list[Variable] = field(default_factory=list)
    instructions: list[Instruction] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)
    directives: dict[str, tuple[int, ...]] = field(default_factory=dict)
    visible: bool = False
    extern: bool = False
    weak: bool = False
    line: int = 0
    # filled by cfg.analyze
    basic_blocks: list[BasicBlock] = field(default_factory=list)
    reconvergence_pc: dict[int, int] = field(default_factory=dict)
    #: ``.branchtargets`` tables for ``brx.idx``: table label -> target label names (parser).
    branch_targets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: the text its line numbers refer to when that is not its module's (a PTXPlus kernel
    #: grafted into a PTX module, :mod:`gpgpusim.ptxplus`); "" = the module's ``filename``
    filename: str = ""

    @property
    def param_bytes(self) -> int:
        """Size of the kernel parameter buffer (end of the last parameter)."""
        return max((p.offset + p.size_bytes for p in self.params), default=0)


@dataclass(slots=True)
class Module:
    """One PTX translation unit (one fatbin PTX entry or one ``.ptx`` file)."""

    filename: str
    version: tuple[int, int] = (0, 0)
    target: tuple[str, ...] = ()
    address_size: int = 64
    variables: dict[str, Variable] = field(default_factory=dict)
    functions: dict[str, Function] = field(default_factory=dict)
    files: dict[int, str] = field(default_factory=dict)
    source: str = ""

    @property
    def kernels(self) -> dict[str, Function]:
        return {n: f for n, f in self.functions.items() if f.is_entry}
