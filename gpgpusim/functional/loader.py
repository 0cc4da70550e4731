"""Load a PTX module onto the device: allocate and initialise module-scope variables.

GPGPU-Sim counterpart: ``load_static_globals`` / ``load_constants`` (``cuda-sim.cc``),
checklist C227, C229.  As in GPGPU-Sim, ``.const`` variables live in the one global address
space (C227): each module-scope ``.global`` and ``.const`` variable gets its own allocation in
:class:`~gpgpusim.functional.memory.GlobalMemory`, initialised from its PTX initialiser.
Initialisers that name a symbol (``generic(sym)`` or ``sym``) store that symbol's device
address (a global address is also its generic address).  Module-scope ``.shared`` variables are
not allocated here: the engine places them in each CTA's shared memory.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from gpgpusim.errors import CudaError, Err
from gpgpusim.ptx import ir

from .memory import GlobalMemory


@dataclass(frozen=True, slots=True)
class SymbolInfo:
    """Where a module variable lives: ``space`` ('global'|'const'), device ``address``, ``size``."""

    space: str
    address: int
    size: int


@dataclass(slots=True)
class LoadedModule:
    """A module whose global/const variables are allocated in ``gmem``."""

    module: ir.Module
    gmem: GlobalMemory
    symbols: dict[str, SymbolInfo] = field(default_factory=dict)
    #: engine-private cache (pre-decoded programs per kernel)
    cache: dict = field(default_factory=dict)

    def function(self, name: str) -> ir.Function:
        try:
            return self.module.functions[name]
        except KeyError:
            raise CudaError(Err.InvalidDeviceFunction,
                            f"no function named {name!r} in {self.module.filename}") from None

    def unload(self) -> None:
        """Free the module's variables (cudaModuleUnload / context teardown)."""
        for info in self.symbols.values():
            self.gmem.free(info.address)
        self.symbols.clear()


_INT_FMT = {1: "<B", 2: "<H", 4: "<I", 8: "<Q"}


def encode_value(value: int | float, ptx_type: str) -> bytes:
    """Bytes of one initialiser element of ``ptx_type`` (little-endian, wrapped to width)."""
    size = ir.TYPE_SIZES[ptx_type]
    if ptx_type in ("f32", "f64", "f16"):
        if isinstance(value, int) and not isinstance(value, bool) and ptx_type != "f16":
            value = float(value)
        if ptx_type == "f32":
            return struct.pack("<f", value)
        if ptx_type == "f64":
            return struct.pack("<d", value)
        return np.float16(value).tobytes()
    if isinstance(value, float):
        if value != int(value):
            raise CudaError(Err.InvalidPtx, f"float initialiser {value} for a .{ptx_type} variable")
        value = int(value)
    return struct.pack(_INT_FMT[size], int(value) & ((1 << (8 * size)) - 1))


#: Functions have no device memory of their own; taking their address (function-pointer tables,
#: ``mov.u64 %rd, f``) yields a unique handle in this range, which an indirect ``call`` resolves
#: back to the function; loading through it is an illegal address.
FUNCTION_HANDLE_BASE = 0x0070_0000_0000_0000


def function_handle(module: ir.Module, name: str) -> int:
    """The value of a pointer to function ``name`` (what ``mov.u64 %rd, f`` yields)."""
    return FUNCTION_HANDLE_BASE + 16 * list(module.functions).index(name)


def _symbol_value(lm: LoadedModule, name: str, module: ir.Module, var: ir.Variable) -> int:
    target = lm.symbols.get(name)
    if target is not None:
        return target.address
    if name in module.functions:
        return function_handle(module, name)
    raise CudaError(Err.InvalidPtx, f"{module.filename}:{var.line}: initialiser of {var.name} "
                    f"names {name!r}, which is not a global/const variable or function")


def load_module(module: ir.Module, gmem: GlobalMemory) -> LoadedModule:
    """Allocate and initialise every module-scope ``.global``/``.const`` variable (C229)."""
    lm = LoadedModule(module=module, gmem=gmem)
    todo = []
    for var in module.variables.values():
        if var.space not in ("global", "const"):
            continue
        size = var.size_bytes
        addr = gmem.allocate(max(size, 1), align=max(256, var.alignment))
        lm.symbols[var.name] = SymbolInfo(var.space, addr, size)
        if var.init:
            todo.append(var)
    for var in todo:
        info = lm.symbols[var.name]
        esize = ir.TYPE_SIZES[var.type]
        out = bytearray()
        for v in var.init or ():
            if isinstance(v, ir.SymMask):
                # 0xFF00(generic(sym)+off): the masked bits of the address, shifted down
                addr = _symbol_value(lm, v.name, module, var) + v.offset
                shift = (v.mask & -v.mask).bit_length() - 1 if v.mask else 0
                out += struct.pack(_INT_FMT[esize], ((addr & v.mask) >> shift) & ((1 << (8 * esize)) - 1))
            elif isinstance(v, (ir.Sym, ir.Addr)):
                # generic(sym) / sym / generic(sym)+offset: the variable's (or function's) address
                sym = v if isinstance(v, ir.Sym) else v.base
                off = 0 if isinstance(v, ir.Sym) else v.offset
                if not isinstance(sym, ir.Sym):
                    raise CudaError(Err.InvalidPtx, f"{module.filename}:{var.line}: initialiser of "
                                    f"{var.name} is not a symbol address: {v!r}")
                addr = _symbol_value(lm, sym.name, module, var)
                out += struct.pack(_INT_FMT[esize], (addr + off) & ((1 << (8 * esize)) - 1))
            else:
                out += encode_value(v, var.type)
        if len(out) > info.size:
            raise CudaError(Err.InvalidPtx, f"{module.filename}:{var.line}: initialiser of "
                            f"{var.name} has {len(out)} bytes, the variable {info.size}")
        gmem.write(info.address, bytes(out))
    return lm
