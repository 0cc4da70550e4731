"""GPGPU-Sim's PTX loading and first-launch messages, as text (checklist C194, C219, C019).

GPGPU-Sim prints, by default, while it loads a module (``gpgpu_ptx_sim_load_ptx_from_string``,
``ptx_recognizer::add_identifier``, ``function_info::ptx_assemble``, ``load_static_globals``,
``load_constants``, the ptxinfo reader) and when a kernel is first launched
(``function_info::do_pdom`` and the reconvergence report).  This module produces the same
lines, in the same order, from our IR and loaded module; the runtime decides where they go.

* :func:`load_report` -- after a module is parsed and loaded: ``Parsing``, one ``allocating
  ... region`` line per ``.global``/``.const``/``.shared``/``.local`` declaration with *our*
  addresses (global/const: device addresses; shared: offsets in the CTA's shared memory as
  the engine lays it out for a kernel; local: offsets in the thread's frame), a warning per
  ``.pragma``, ``instruction assembly`` per function (all in source order), ``finished
  parsing``, the initialised globals, ``Loading PTXInfo`` and one ``Kernel '...' : regs=,
  lmem=, smem=, cmem=`` line per kernel (ptxas lists them last-defined first).  The ptxinfo
  figures come from the fatbin's cubin for the PTX's architecture (what ``ptxas -v`` reports
  for that PTX; lmem = the stack frame), else from :mod:`gpgpusim.ptx.resources`' estimate
  (cmem = the parameter bytes).  ``PTX_SIM_DEBUG >= 100`` adds the numbered PTX listing.
* :func:`launch_report` -- before a kernel's first launch: the dominator/post-dominator
  progress lines, ``PTX_SIM_DEBUG >= 2`` the dominator sets, and the reconvergence points
  (C219); later launches: ``PDOM analysis already done``.
* :func:`memory_note` -- ``PTX_SIM_DEBUG >= 3``: one line per device allocation, copy and
  memset (GPGPU-Sim ``gpgpu_t::gpu_malloc``/``memcpy_to_gpu``/``memcpy_from_gpu``/
  ``memcpy_gpu_to_gpu``/``gpu_memset``).
"""

from __future__ import annotations

import re
from typing import Any

from cuobjdump_tools import elfinfo
from gpgpusim.ptx import cfg, ir, resources

from . import decode as dec

_P = "GPGPU-Sim PTX:"
_PRAGMA = re.compile(r'^\s*\.pragma\s+"([^"]*)"\s*;')
#: one kernel's ``ptxas -v`` figures: regs, lmem, smem, cmem
PtxInfo = tuple[int, int, int, int]


def load_report(module: ir.Module, filename: str, loaded: Any = None, *, fatbin: Any = None,
                ptx_arch: int = 0, source_num: int = 1, debug_level: int | None = None) -> list[str]:
    """The lines GPGPU-Sim prints while it parses and loads ``module`` (see module docstring).

    ``loaded`` is the :class:`~gpgpusim.functional.loader.LoadedModule` (for the addresses of
    ``.global``/``.const`` variables; None prints none), ``fatbin`` the parsed fat binary the
    PTX came from (for ptxinfo), ``source_num`` GPGPU-Sim's PTX file number (level 100)."""
    lvl = dec.debug_level() if debug_level is None else debug_level
    lines = [f"{_P} Parsing {filename}"]
    lines += [text for _key, text in sorted(_declarations(module, loaded), key=lambda x: x[0])]
    if lvl >= 100:
        lines += _listing(module, source_num)
    lines.append(f"{_P} finished parsing EMBEDDED .ptx file {filename}")
    lines.append(f"{_P} loading globals with explicit initializers... ")
    total = 0
    for v in module.variables.values():
        if v.space == "global" and v.init:
            n = min(len(v.init) * ir.TYPE_SIZES[v.type], v.size_bytes)
            total += n
            lines.append(f"{_P}     initializing '{v.name}' ...  wrote {n} bytes")
    lines.append(f"{_P} finished loading globals ({total} bytes total).")
    lines.append(f"{_P} loading constants with explicit initializers...  done.")
    lines.append(f"{_P} Loading PTXInfo from {filename}")
    info, binary = ptxinfo(module, fatbin, ptx_arch)
    if binary is not None:
        lines.append(f"{_P} Binary info : gmem={binary[0]}, cmem={binary[1]}")
    for name in reversed([n for n, f in module.functions.items() if f.is_entry and f.instructions]):
        regs, lmem, smem, cmem = info[name]
        lines.append(f"{_P} Kernel '{name}' : regs={regs}, lmem={lmem}, smem={smem}, cmem={cmem}")
    return lines


def _declarations(module: ir.Module, loaded: Any) -> list[tuple[tuple[float, int], str]]:
    """(source position, line) of every declaration message, pragma and function assembly."""
    out: list[tuple[tuple[float, int], str]] = []
    seq = 0

    def add(line: float, text: str) -> None:
        nonlocal seq
        out.append(((line, seq), text))
        seq += 1

    symbols = getattr(loaded, "symbols", {}) or {}
    module_smem, _ = dec.shared_layout(module, [])
    const_n = 1
    for v in module.variables.values():
        if v.space in ("global", "const") and v.name in symbols:
            a = symbols[v.name].address
            if v.space == "global":
                add(v.line, f'{_P} allocating global region for "{v.name}" from {a:#x} to '
                            f'{a + v.size_bytes:#x} (global memory space)')
            else:
                add(v.line, f'{_P} allocating constant region for "{v.name}" from {a:#x} to '
                            f'{a + v.size_bytes:#x} (global memory space) {const_n}')
                const_n += 1
        elif v.space == "shared":
            o = module_smem[v.name]
            add(v.line, f'{_P} allocating shared region for "{v.name}" from {o:#x} to '
                        f'{o + v.size_bytes:#x} (shared memory space)')
    for name, fn in module.functions.items():
        if not fn.instructions:
            continue
        smem, _ = dec.shared_layout(module, [name])
        _p, _r, local_off, _end = dec.frame_layout(fn)
        for v in fn.variables:
            if v.space == "shared":
                o = smem[v.name]
                add(v.line, f'{_P} allocating shared region for "{v.name}" from {o:#x} to '
                            f'{o + v.size_bytes:#x} (shared memory space)')
            elif v.space == "local":
                o = local_off[v.name]
                add(v.line, f'{_P} allocating stack frame region for .local "{v.name}" from '
                            f'{o:#x} to {o + v.size_bytes:#x}')
        last = max([i.line for i in fn.instructions] + [v.line for v in fn.variables] + [fn.line])
        add(last + 0.5, f"{_P} instruction assembly for function '{name}'...   done.")
    for i, text in enumerate((module.source or "").splitlines(), start=1):
        m = _PRAGMA.match(text)
        if m:
            add(i, f"{_P} Warning -- ignoring pragma '{m.group(1)}'")
    return out


def _listing(module: ir.Module, source_num: int) -> list[str]:
    """``PTX_SIM_DEBUG >= 100``: the PTX file, numbered, with each instruction's byte PC."""
    pcs: dict[int, int] = {}
    for name, base in cfg.pc_bases(module).items():
        for k, inst in enumerate(module.functions[name].instructions):
            pcs.setdefault(inst.line, base + k * cfg.PTX_INST_SIZE)
    lines = ["", f"{_P} file _{source_num}.ptx contents:", ""]
    for n, text in enumerate((module.source or "").split("\n"), start=1):
        pc = pcs.get(n)
        lines.append(f"    _{source_num}.ptx  {n:4d} (pc={pc:4d}):  {text}" if pc else
                     f"    _{source_num}.ptx  {n:4d} (pc=    ):  {text}")
    return lines


def ptxinfo(module: ir.Module, fatbin: Any = None, ptx_arch: int = 0
            ) -> tuple[dict[str, PtxInfo], tuple[int, int] | None]:
    """``({kernel: (regs, lmem, smem, cmem)}, (gmem, cmem) or None)`` as ``ptxas -v`` reports
    them: from the cubin compiled for the PTX's architecture (else the newest one), else
    estimated from the PTX."""
    info: dict[str, PtxInfo] = {}
    binary = None
    cubin = _cubin(fatbin, ptx_arch)
    if cubin is not None:
        for name, k in cubin.kernels.items():
            info[name] = (int(k.regs), int(getattr(k, "frame_bytes", 0) or 0),
                          int(k.static_smem_bytes), int(getattr(k, "cmem0_bytes", 0) or 0))
        const = sum(cubin.const_bytes.values()) if cubin.const_bytes else 0
        if cubin.global_bytes or const:
            binary = (int(cubin.global_bytes), int(const))
    missing = [n for n, f in module.functions.items() if f.is_entry and f.instructions and n not in info]
    if missing:
        for name in missing:
            fn = module.functions[name]
            r = resources.analyze(fn, module)
            info[name] = (r.regs, r.local_bytes, r.static_smem_bytes, fn.param_bytes)
    return info, binary


def _cubin(fatbin: Any, ptx_arch: int) -> Any:
    elves = [e for e in getattr(fatbin, "entries", ()) or () if e.kind == "elf"]
    if not elves:
        return None
    same = [e for e in elves if e.arch == ptx_arch]
    for e in same or sorted(elves, key=lambda e: -e.arch):
        try:
            return elfinfo.cubin_info(e.payload)
        except Exception:  # noqa: BLE001 - an unreadable cubin: try the next, else estimate
            continue
    return None


# ----------------------------------------------------------------------------- first launch
def launch_report(lm: Any, kernel: str, debug_level: int | None = None) -> list[str]:
    """GPGPU-Sim's lines before launching ``kernel`` of loaded module ``lm``: the analysis
    and reconvergence report the first time, ``PDOM analysis already done`` afterwards."""
    key = ("pdom-reported", kernel)
    cache = lm.cache
    if cache.get(key):
        return [f"{_P} PDOM analysis already done for {kernel} "]
    cache[key] = True
    module: ir.Module = lm.module
    fn = module.functions.get(kernel)
    if fn is None:
        return []
    lvl = dec.debug_level() if debug_level is None else debug_level
    q = f"'{kernel}'"
    lines = [f"{_P} finding reconvergence points for {q}...",
             f"{_P} Finding dominators for {q}...",
             f"{_P} Finding immediate dominators for {q}..."]
    if lvl >= 2:
        lines += dominator_dump(fn)
    lines += [f"{_P} Finding postdominators for {q}...",
              f"{_P} Finding immediate postdominators for {q}...",
              f"{_P} pre-decoding instructions for {q}..."]
    base = cfg.pc_bases(module).get(kernel, 0)
    lines += cfg.reconvergence_report(fn, fn.filename or module.filename, base)
    lines.append(f"{_P} ... done pre-decoding instructions for {q}.")
    return lines


def dominator_dump(fn: ir.Function) -> list[str]:
    """``PTX_SIM_DEBUG >= 2`` (GPGPU-Sim ``print_dominators``): each block's dominators,
    the last id being the function's exit block."""
    blocks = fn.basic_blocks
    dom = cfg.dominators(blocks)
    nb = len(blocks)
    exit_preds = [b.id for b in blocks if nb in b.succs]
    exit_dom = (1 << nb)
    if exit_preds:
        acc = (1 << nb) - 1
        for p in exit_preds:
            acc &= dom[p]
        exit_dom |= acc
    lines = [f"Printing dominators for function '{fn.name}':"]
    for i, m in enumerate([*dom, exit_dom]):
        members = "".join(f" {j}" for j in range(nb + 1) if m >> j & 1)
        lines.append(f"ID: {i}\t:{members}")
    return lines


# ----------------------------------------------------------------------------- level 3
def memory_note(what: str, nbytes: int, dst: Any = 0, src: Any = 0, value: int = 0) -> str:
    """The ``PTX_SIM_DEBUG >= 3`` line (newline included) for a device memory operation, or ''
    below that level.  ``what``: "malloc" (``dst`` = the address), a ``cudaMemcpyKind`` name
    ("HostToDevice", "DeviceToHost", "DeviceToDevice") or "memset" (``value`` = the byte).
    Host buffers that are not addresses (a staged copy) print as 0."""
    if dec.debug_level() < 3:
        return ""

    def a(x: Any) -> int:
        return int(x) if isinstance(x, int) else 0
    if what == "malloc":
        text = f"{_P} allocating {nbytes} bytes on GPU starting at address 0x{a(dst):x}"
    elif what == "HostToDevice":
        text = f"{_P} copying {nbytes} bytes from CPU[0x{a(src):x}] to GPU[0x{a(dst):x}] ...  done."
    elif what == "DeviceToHost":
        text = f"{_P} copying {nbytes} bytes from GPU[0x{a(src):x}] to CPU[0x{a(dst):x}] ... done."
    elif what == "DeviceToDevice":
        text = f"{_P} copying {nbytes} bytes from GPU[0x{a(src):x}] to GPU[0x{a(dst):x}] ... done."
    elif what == "memset":
        text = (f"{_P} setting {nbytes} bytes of memory to 0x{value & 0xFF:x} starting at "
                f"0x{a(dst):x}...  done.")
    else:
        return ""
    return text + "\n"
