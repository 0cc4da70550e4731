"""PTXPlus mode: simulate the SASS in the binary instead of its PTX (checklist C007, C009, C232-C238).

Selected with ``-gpgpu_ptx_convert_to_ptxplus 1`` (GPGPU-Sim's option) or ``gpgpusim run
--ptxplus``.  For each registered fat binary (:func:`apply`):

1. the cubin for the simulated GPU is chosen (:func:`select_cubin`: the newest cubin not newer
   than ``-gpgpu_ptx_force_max_capability``, else the oldest one, with a note: SM7_QV100's 70
   is older than anything nvcc 13 emits, so it runs the sm_75 cubin);
2. nvdisasm decodes it (:mod:`cuobjdump_tools.sass`);
3. every kernel the module's PTX defines is converted (:mod:`gpgpusim.ptxplus.convert`), the
   text parsed by the lark front end, and the kernel's PTX function replaced by the converted
   one.  The module's variables, parameters and resources stay those of the PTX and the cubin.

A kernel using an opcode the converter does not handle keeps the reason: launching it fails
with ``cudaErrorNotSupported`` and one line naming the opcode and the kernel, or, with
``-gpgpusim_ptxplus_fallback 1``, its PTX runs and one line says so.  A fat binary without a
cubin (PTX only) says so in one line and runs its PTX.  ``-gpgpu_ptx_save_converted_ptxplus 1``
writes the converted text to ``_<n>.ptxplus`` (n = the fat binary's number) in the working
directory, as GPGPU-Sim saves its converted files.
"""

from __future__ import annotations

import copy
import io
from dataclasses import dataclass, field
from typing import Any

from cuobjdump_tools.elfinfo import cubin_info
from cuobjdump_tools.fatbin import FatbinError
from cuobjdump_tools.sass import disassemble
from gpgpusim.errors import CudaError, Err
from gpgpusim.functional.loader import function_handle
from gpgpusim.ptx import parse_ptx

from .convert import BUILTINS, CDP_CALLS, KernelContext, ParamSlot, UnsupportedSass, convert_kernel, supported_opcodes
from .marks import mark_sass

__all__ = ["PtxplusResult", "apply", "select_cubin", "supported_opcodes", "UnsupportedSass",
           "convert_kernel", "KernelContext", "ParamSlot", "mark_sass"]


@dataclass
class PtxplusResult:
    """What :func:`apply` did to one module."""

    arch: int = 0                      # the SASS arch simulated (0: none, the PTX runs)
    text: str = ""                     # the PTXPlus text of the converted kernels
    converted: list[str] = field(default_factory=list)
    errors: dict[str, CudaError] = field(default_factory=dict)   # kernel -> why it cannot run
    fallback: list[str] = field(default_factory=list)            # kernels that run their PTX
    notes: list[str] = field(default_factory=list)               # lines for stderr


def select_cubin(entries: list[Any], max_capability: int) -> tuple[Any | None, str]:
    """``(cubin entry or None, note)``: the newest ELF entry whose arch is at most
    ``max_capability`` (0 = any), else the oldest; the note is "" unless the choice needs saying."""
    elves = [e for e in entries if getattr(e, "kind", "") == "elf"]
    if not elves:
        return None, ""
    fit = [e for e in elves if not max_capability or e.arch <= max_capability]
    if fit:
        return max(fit, key=lambda e: e.arch), ""
    best = min(elves, key=lambda e: e.arch)
    return best, (f"no cubin for compute capability <= {max_capability}, so its oldest, "
                  f"sm_{best.arch}, is simulated")


def _const_symbols(cubin: bytes, bank: int) -> list[tuple[int, int, str]]:
    """``(offset, size, name)`` of the objects in the cubin's ``.nv.constant<bank>``."""
    from elftools.elf.elffile import ELFFile

    try:
        elf = ELFFile(io.BytesIO(cubin))
        sections = list(elf.iter_sections())
        symtab: Any = elf.get_section_by_name(".symtab")
        if symtab is None:
            return []
        out = []
        for sym in symtab.iter_symbols():
            if sym["st_info"]["type"] != "STT_OBJECT" or not isinstance(sym["st_shndx"], int):
                continue
            if sym["st_shndx"] < len(sections) and sections[sym["st_shndx"]].name == f".nv.constant{bank}":
                out.append((int(sym["st_value"]), int(sym["st_size"]), sym.name))
        return out
    except Exception:  # noqa: BLE001 - a corrupt cubin was already rejected by nvdisasm
        return []


def _section_bytes(cubin: bytes, name: str) -> bytes:
    """The contents of section ``name`` of the cubin (b"" when absent)."""
    from elftools.elf.elffile import ELFFile

    try:
        sec = ELFFile(io.BytesIO(cubin)).get_section_by_name(name)
        return b"" if sec is None or sec["sh_type"] == "SHT_NOBITS" else bytes(sec.data())
    except Exception:  # noqa: BLE001 - a corrupt cubin was already rejected by nvdisasm
        return b""


R_CUDA_64 = 2   # a 64-bit absolute address


def _const_relocations(cubin: bytes, bank: int) -> dict[int, tuple[str, int]]:
    """``{offset: (symbol, addend)}`` for the 64-bit addresses in ``.nv.constant<bank>`` (bank 4
    holds the addresses of the module's ``__device__`` variables and strings)."""
    from elftools.elf.elffile import ELFFile

    try:
        elf = ELFFile(io.BytesIO(cubin))
        rel: Any = elf.get_section_by_name(f".rel.nv.constant{bank}")
        data: Any = elf.get_section_by_name(f".nv.constant{bank}")
        symtab: Any = elf.get_section_by_name(".symtab")
        if rel is None or data is None or symtab is None:
            return {}
        raw = bytes(data.data())
        out = {}
        for r in rel.iter_relocations():
            if r["r_info_type"] != R_CUDA_64:
                continue
            off = int(r["r_offset"])
            addend = int.from_bytes(raw[off:off + 8], "little") if off + 8 <= len(raw) else 0
            out[off] = (symtab.get_symbol(r["r_info_sym"]).name, addend)
        return out
    except Exception:  # noqa: BLE001 - a corrupt cubin was already rejected by nvdisasm
        return {}


def _param_decl(p: Any) -> str:
    if p.count > 1 or p.type == "b8" and p.align:
        align = f".align {p.alignment} " if p.align else ""
        return f".param {align}.{p.type} {p.name}[{p.count}]"
    return f".param .{p.type} {p.name}"


def kernel_context(fn: Any, kinfo: Any, const3: list[tuple[int, int, str]],
                   module_vars: dict[str, Any], const2: bytes = b"",
                   const4: dict[int, tuple[str, int]] | None = None,
                   module_funcs: frozenset[str] = frozenset()) -> KernelContext:
    """The :class:`KernelContext` of PTX function ``fn`` with the cubin's facts ``kinfo``."""
    ctx = KernelContext(name=fn.name)
    ctx.params = [ParamSlot(p.name, p.offset, p.size_bytes) for p in fn.params]
    ctx.param_decls = [_param_decl(p) for p in fn.params]
    if kinfo is not None:
        if kinfo.param_cbank_offset:
            ctx.param_base = kinfo.param_cbank_offset
        ctx.static_smem = kinfo.static_smem_bytes
        ctx.frame_bytes = kinfo.frame_bytes
    ctx.const3 = [c for c in const3 if c[2] in module_vars]
    ctx.const2 = const2
    ctx.const4 = {off: v for off, v in (const4 or {}).items()
                  if v[0] in module_vars or v[0] in BUILTINS or v[0] in module_funcs}
    return ctx


def apply(m: Any, max_capability: int, *, fallback: bool = False, save: bool = False) -> PtxplusResult:
    """Convert the kernels of registered module ``m`` (its PTX already parsed into ``m.ir``)."""


    res = PtxplusResult()
    entries = list(getattr(m.fatbin, "entries", []) or [])
    entry, note = select_cubin(entries, max_capability)
    if entry is None:
        res.notes.append(f"GPGPU-Sim PTXPlus: fat binary #{m.index} has no cubin (PTX only): "
                         f"its PTX is simulated")
        return res
    if note:
        res.notes.append(f"GPGPU-Sim PTXPlus: note: fat binary #{m.index} has {note}")
    listing = disassemble(entry.payload)
    try:
        info = cubin_info(entry.payload)
    except FatbinError as exc:
        raise CudaError(Err.InvalidKernelImage, f"fat binary #{m.index}: sm_{entry.arch} cubin: {exc.message}") from None
    res.arch = entry.arch
    const3 = _const_symbols(entry.payload, 3)
    const2 = _section_bytes(entry.payload, ".nv.constant2")
    const4 = _const_relocations(entry.payload, 4)

    handles = {n: function_handle(m.ir, n) for n, f in m.ir.functions.items() if not f.is_entry}
    symbols = {n: function_handle(m.ir, n) for n in m.ir.functions}
    texts: list[str] = []
    new_fns: dict[str, Any] = {}
    for name, fn in m.ir.kernels.items():
        sfn = listing.functions.get(name)
        try:
            if sfn is None:
                raise UnsupportedSass("(no SASS)", f"the sm_{entry.arch} cubin has no function {name}")
            ctx = kernel_context(fn, info.kernels.get(name), const3, m.ir.variables,
                                 _section_bytes(entry.payload, f".nv.constant2.{name}") or const2, const4,
                                 frozenset(handles))
            ctx.func_handles = handles
            ctx.symbols = symbols
            text = convert_kernel(sfn, ctx)
        except UnsupportedSass as exc:
            what = f"SASS opcode {exc.opcode} is not supported" if exc.opcode != "(no SASS)" else exc.detail
            detail = f" ({exc.detail})" if exc.detail and exc.opcode != "(no SASS)" else ""
            if fallback:
                res.fallback.append(name)
                res.notes.append(f"GPGPU-Sim PTXPlus: kernel {name}: {what}{detail}; its PTX is simulated "
                                 f"(-gpgpusim_ptxplus_fallback 1)")
            else:
                res.errors[name] = CudaError(
                    Err.NotSupported, f"PTXPlus: kernel {name}: {what}{detail} "
                    f"(-gpgpusim_ptxplus_fallback 1 runs its PTX instead)")
            continue
        texts.append(text)
        new_fns[name] = text
    header = (f"// PTXPlus converted by gpgpusim from the sm_{entry.arch} SASS of fat binary #{m.index}\n"
              f".version {m.ir.version[0]}.{m.ir.version[1]}\n.target sm_{entry.arch}\n"
              f".address_size {m.ir.address_size}\n\n"
              + "".join(BUILTINS[b][2] + "\n" for b in sorted(BUILTINS) if f" {b}, (" in "".join(texts))
              + "".join(CDP_CALLS[b][2] + "\n" for b in sorted(CDP_CALLS) if f" {b}, (" in "".join(texts)))
    res.text = header + "\n".join(texts)
    if new_fns:
        fname = f"_{m.index}.ptxplus"
        parsed = parse_ptx(res.text, fname)
        mark_sass([parsed.functions[name] for name in new_fns], res.text)
        ir = copy.copy(m.ir)
        ir.functions = dict(m.ir.functions)
        for name in new_fns:
            parsed.functions[name].filename = fname
            ir.functions[name] = parsed.functions[name]
        m.ir = ir
        res.converted = list(new_fns)
        res.notes.append(f"GPGPU-Sim PTXPlus: fat binary #{m.index}: {len(new_fns)} of {len(m.ir.kernels)} "
                         f"kernel(s) converted from its sm_{entry.arch} SASS")
    if save:
        path = f"_{m.index}.ptxplus"
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(res.text)
        except OSError as exc:
            res.notes.append(f"GPGPU-Sim PTXPlus: cannot save {path}: {exc.strerror}")
    return res
