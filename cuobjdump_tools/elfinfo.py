"""Per-kernel resources from an ELF cubin: what ``ptxas -v`` prints, read back from the binary.

GPGPU-Sim counterpart: ``gpgpu_ptxinfo_load_from_string`` (``ptxinfo.l/.y``), which runs
``ptxas -v`` on the PTX and parses "Used N registers, M bytes smem ..." into each kernel's
``function_info`` (registers, shared, local memory, constant bank 0).  Here the same numbers
come from the cubin nvcc already embedded, so no ``ptxas`` run is needed; the ptx part's
``resources.analyze`` is the fallback when no cubin is present.  Checklist: C029 (arch choice
is fatbin's), the occupancy inputs of the shader core (registers, shared memory, CTA limits).

Sources inside the cubin (layout learnt from nvcc 13 output, checked against ``ptxas -v``):

- ``.nv.info``: module attributes, records of ``u8 format, u8 attribute`` then by format
  ``0x01`` nothing (+2 pad), ``0x02`` u8 value (+1 pad), ``0x03`` u16 value, ``0x04`` u16 size + size
  bytes; every record starts 4-byte aligned (a format-1 record takes 4 bytes).  Module-level ``EIATTR_REGCOUNT``, ``EIATTR_FRAME_SIZE``, ``EIATTR_MIN_STACK_SIZE``,
  ``EIATTR_MAX_STACK_SIZE`` carry ``u32 symbol index, u32 value``.
- ``.nv.info.<kernel>``: ``EIATTR_CBANK_PARAM_SIZE`` (parameter bytes), ``EIATTR_PARAM_CBANK``
  (constant bank 0 offset of the parameters), ``EIATTR_KPARAM_INFO`` (one per parameter),
  ``EIATTR_MAX_THREADS`` (``__launch_bounds__`` / ``.maxntid``), ``EIATTR_REQNTID``,
  ``EIATTR_NUM_BARRIERS``, ``EIATTR_MAXREG_COUNT``, exit offsets, ...
- ``.text.<kernel>``: ``sh_info = registers << 24 | symbol index`` (fallback for registers).
- ``.nv.shared.<kernel>`` size = static shared memory; ``.nv.constant0.<kernel>`` size = cmem[0].
- ``.nv.global`` / ``.nv.constantN`` symbols: module variables (``ptxas``' "gmem"/"cmem[N]").

Malformed input raises :class:`cuobjdump_tools.fatbin.FatbinError` only.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass, field

from cuobjdump_tools.fatbin import FatbinError

try:  # the ptx part owns the dataclass; this fallback has the same fields and order
    from gpgpusim.ptx.resources import KernelResources
except ImportError:  # pragma: no cover - only until gpgpusim.ptx.resources lands

    @dataclass(frozen=True)
    class KernelResources:  # type: ignore[no-redef]
        """Per-kernel resource use (same fields as ``gpgpusim.ptx.resources.KernelResources``)."""

        regs: int = 0
        static_smem_bytes: int = 0
        local_bytes: int = 0
        max_threads: int = 1024
        barriers: int = 0
        param_bytes: int = 0


# EIATTR numbers (format byte + attribute byte of each .nv.info record).
EIATTR = {
    0x01: "EIATTR_PAD",
    0x02: "EIATTR_IMAGE_SLOT",
    0x04: "EIATTR_CTAIDZ_USED",
    0x05: "EIATTR_MAX_THREADS",
    0x0A: "EIATTR_PARAM_CBANK",
    0x0D: "EIATTR_SYNC_STACK",
    0x0F: "EIATTR_EXTERNS",
    0x10: "EIATTR_REQNTID",
    0x11: "EIATTR_FRAME_SIZE",
    0x12: "EIATTR_MIN_STACK_SIZE",
    0x17: "EIATTR_KPARAM_INFO",
    0x19: "EIATTR_CBANK_PARAM_SIZE",
    0x1B: "EIATTR_MAXREG_COUNT",
    0x1C: "EIATTR_EXIT_INSTR_OFFSETS",
    0x1D: "EIATTR_S2RCTAID_INSTR_OFFSETS",
    0x1E: "EIATTR_CRS_STACK_SIZE",
    0x23: "EIATTR_MAX_STACK_SIZE",
    0x2F: "EIATTR_REGCOUNT",
    0x31: "EIATTR_INT_WARP_WIDE_INSTR_OFFSETS",
    0x35: "EIATTR_SW2861232_WAR",
    0x36: "EIATTR_SW_WAR",
    0x37: "EIATTR_CUDA_API_VERSION",
    0x4C: "EIATTR_NUM_BARRIERS",
}
A_MAX_THREADS = 0x05
A_PARAM_CBANK = 0x0A
A_REQNTID = 0x10
A_FRAME_SIZE = 0x11
A_MIN_STACK_SIZE = 0x12
A_KPARAM_INFO = 0x17
A_CBANK_PARAM_SIZE = 0x19
A_MAXREG_COUNT = 0x1B
A_EXIT_INSTR_OFFSETS = 0x1C
A_MAX_STACK_SIZE = 0x23
A_REGCOUNT = 0x2F
A_CUDA_API_VERSION = 0x37
A_NUM_BARRIERS = 0x4C

FMT_NVAL, FMT_BVAL, FMT_HVAL, FMT_SVAL = 1, 2, 3, 4

SHT_CUDA_INFO = 0x70000000
MAX_THREADS_PER_BLOCK = 1024  # hardware limit (sm_20+) when the kernel declares none


@dataclass(frozen=True)
class Attr:
    """One ``.nv.info`` record: format, attribute number, value (int for B/H, bytes for S)."""

    fmt: int
    attr: int
    value: int | bytes | None

    @property
    def name(self) -> str:
        return EIATTR.get(self.attr, f"EIATTR_{self.attr:#04x}")


@dataclass(frozen=True)
class KernelParam:
    ordinal: int
    offset: int
    size_bytes: int


@dataclass
class CubinKernel:
    """Everything the cubin says about one ``.entry`` kernel."""

    name: str
    regs: int = 0
    static_smem_bytes: int = 0
    frame_bytes: int = 0  # ptxas "bytes stack frame" (per-thread local memory)
    min_stack_bytes: int = 0  # ptxas "bytes cumulative stack size"
    max_stack_bytes: int = 0
    max_threads: tuple[int, int, int] | None = None  # __launch_bounds__ / .maxntid
    reqntid: tuple[int, int, int] | None = None
    barriers: int = 0
    param_bytes: int = 0
    param_cbank_offset: int = 0  # where parameters start in constant bank 0
    cmem0_bytes: int = 0  # ptxas "bytes cmem[0]"
    maxreg_count: int = 0
    cuda_api_version: int = 0
    text_bytes: int = 0
    params: list[KernelParam] = field(default_factory=list)
    exit_offsets: list[int] = field(default_factory=list)
    attrs: list[Attr] = field(default_factory=list)

    def resources(self) -> KernelResources:
        if self.max_threads:
            mt = self.max_threads[0] * self.max_threads[1] * self.max_threads[2]
        elif self.reqntid:
            mt = self.reqntid[0] * self.reqntid[1] * self.reqntid[2]
        else:
            mt = MAX_THREADS_PER_BLOCK
        return KernelResources(
            regs=self.regs, static_smem_bytes=self.static_smem_bytes, local_bytes=self.frame_bytes,
            max_threads=mt, barriers=self.barriers, param_bytes=self.param_bytes,
        )


@dataclass
class CubinInfo:
    """A cubin's kernels plus its module-scope memory (ptxas' "gmem" and "cmem[N]" lines)."""

    arch: int
    kernels: dict[str, CubinKernel]
    global_bytes: int = 0  # .nv.global + initialised .nv.global.init
    const_bytes: dict[int, int] = field(default_factory=dict)  # bank -> bytes (bank 0 excluded)
    variables: dict[str, tuple[str, int]] = field(default_factory=dict)  # name -> (section, size)


def parse_nv_info(data: bytes, where: str = ".nv.info") -> list[Attr]:
    """Decode a ``.nv.info`` section into its records."""
    out = []
    o = 0
    n = len(data)
    while o < n:
        if o + 2 > n:
            raise FatbinError(f"{where}: truncated record at byte {o}")
        fmt, attr = data[o], data[o + 1]
        if fmt == FMT_NVAL:
            value: int | bytes | None = None
            o += 4  # records stay 4-byte aligned
        elif fmt == FMT_BVAL:
            if o + 4 > n:
                raise FatbinError(f"{where}: truncated byte value at byte {o}")
            value = data[o + 2]
            o += 4
        elif fmt in (FMT_HVAL, FMT_SVAL):
            if o + 4 > n:
                raise FatbinError(f"{where}: truncated record header at byte {o}")
            (h,) = struct.unpack_from("<H", data, o + 2)
            if fmt == FMT_HVAL:
                value = h
                o += 4
            else:
                if o + 4 + h > n:
                    raise FatbinError(f"{where}: record {EIATTR.get(attr, hex(attr))} at byte {o} "
                                      f"claims {h} bytes, {n - o - 4} left")
                value = bytes(data[o + 4 : o + 4 + h])
                o += 4 + h
        else:
            raise FatbinError(f"{where}: unknown record format {fmt:#x} at byte {o}")
        out.append(Attr(fmt, attr, value))
    return out


def _u32s(v: int | bytes | None, count: int, what: str) -> tuple[int, ...]:
    if not isinstance(v, bytes) or len(v) < 4 * count:
        raise FatbinError(f"{what}: expected {count} u32 values, got {v!r}")
    return struct.unpack_from(f"<{count}I", v)


def cubin_info(elf: bytes) -> CubinInfo:
    """Parse a cubin's kernels and module variables (see the module docstring for sources)."""
    from elftools.elf.elffile import ELFFile

    if not bytes(elf[:4]) == b"\x7fELF":
        raise FatbinError("cubin does not start with the ELF magic 7f 45 4c 46")
    try:
        return _cubin_info(ELFFile(io.BytesIO(bytes(elf))))
    except FatbinError:
        raise
    except Exception as exc:  # pyelftools raises assorted types on corrupt input
        raise FatbinError(f"corrupt cubin ELF: {type(exc).__name__}: {exc}") from None


def cubin_arch(elf: bytes) -> int:
    """The ``sm_XX`` number in a cubin's ELF header (``e_flags``; layout depends on the ABI version)."""
    if len(elf) < 0x34 or bytes(elf[:4]) != b"\x7fELF":
        raise FatbinError("cubin too short or without the ELF magic")
    abi_version = elf[8]
    flags_off = 0x30 if elf[4] == 2 else 0x24  # ELFCLASS64 / ELFCLASS32
    (flags,) = struct.unpack_from("<I", elf, flags_off)
    return _arch_from_flags(flags, abi_version)


def _arch_from_flags(e_flags: int, abi_version: int) -> int:
    # ABI version >= 7 (CUDA 12.x+): arch in bits 8..15; older cubins: bits 0..7.
    return (e_flags >> 8) & 0xFF if abi_version >= 7 else e_flags & 0xFF


def _cubin_info(elf) -> CubinInfo:
    sections = list(elf.iter_sections())
    by_name = {s.name: s for s in sections}
    symtab = by_name.get(".symtab")
    if symtab is None:
        raise FatbinError("cubin has no .symtab")
    syms = list(symtab.iter_symbols())
    arch = _arch_from_flags(elf.header["e_flags"], elf.header["e_ident"]["EI_ABIVERSION"])
    kernels: dict[str, CubinKernel] = {}
    for sym in syms:
        if sym["st_info"]["type"] != "STT_FUNC":
            continue
        name = sym.name
        if f".nv.info.{name}" not in by_name and f".nv.constant0.{name}" not in by_name:
            continue  # a device function, not an entry
        k = CubinKernel(name=name, text_bytes=sym["st_size"])
        text = by_name.get(f".text.{name}")
        if text is not None:
            k.regs = text["sh_info"] >> 24
            k.barriers = (text["sh_flags"] >> 20) & 0x7F
        shared = by_name.get(f".nv.shared.{name}")
        if shared is not None:
            k.static_smem_bytes = shared["sh_size"]
        c0 = by_name.get(f".nv.constant0.{name}")
        if c0 is not None:
            k.cmem0_bytes = c0["sh_size"]
        info = by_name.get(f".nv.info.{name}")
        if info is not None:
            _apply_kernel_attrs(k, parse_nv_info(info.data(), f".nv.info.{name}"))
        kernels[name] = k
    # Module-level records name their kernel by symbol index.
    mod = by_name.get(".nv.info")
    if mod is not None:
        for a in parse_nv_info(mod.data(), ".nv.info"):
            if a.attr not in (A_REGCOUNT, A_FRAME_SIZE, A_MIN_STACK_SIZE, A_MAX_STACK_SIZE):
                continue
            idx, val = _u32s(a.value, 2, f".nv.info {a.name}")
            if idx >= len(syms):
                raise FatbinError(f".nv.info {a.name}: symbol index {idx} out of range ({len(syms)} symbols)")
            target = kernels.get(syms[idx].name)
            if target is None:
                continue  # a device function's record
            if a.attr == A_REGCOUNT:
                target.regs = val
            elif a.attr == A_FRAME_SIZE:
                target.frame_bytes = val
            elif a.attr == A_MIN_STACK_SIZE:
                target.min_stack_bytes = val
            else:
                target.max_stack_bytes = val
    info_out = CubinInfo(arch=arch, kernels=kernels)
    for s in sections:
        if s.name.startswith(".nv.global"):
            info_out.global_bytes += s["sh_size"]
        elif s.name.startswith(".nv.constant") and not s.name.startswith(".nv.constant0"):
            bank = s.name[len(".nv.constant"):]
            if bank.isdigit():
                info_out.const_bytes[int(bank)] = s["sh_size"]
    for sym in syms:
        if sym["st_info"]["type"] == "STT_OBJECT" and isinstance(sym["st_shndx"], int) \
                and sym["st_shndx"] < len(sections):
            info_out.variables[sym.name] = (sections[sym["st_shndx"]].name, sym["st_size"])
    return info_out


def _apply_kernel_attrs(k: CubinKernel, attrs: list[Attr]) -> None:
    k.attrs = attrs
    where = f".nv.info.{k.name}"
    for a in attrs:
        if a.attr == A_CBANK_PARAM_SIZE and a.fmt == FMT_HVAL:
            k.param_bytes = int(a.value)  # type: ignore[arg-type]
        elif a.attr == A_PARAM_CBANK:
            _sym, packed = _u32s(a.value, 2, f"{where} {a.name}")
            k.param_cbank_offset = packed & 0xFFFF
        elif a.attr == A_KPARAM_INFO:
            _index, ord_off, flags = _u32s(a.value, 3, f"{where} {a.name}")
            k.params.append(KernelParam(ordinal=ord_off & 0xFFFF, offset=ord_off >> 16, size_bytes=flags >> 18))
        elif a.attr == A_MAX_THREADS:
            k.max_threads = _u32s(a.value, 3, f"{where} {a.name}")  # type: ignore[assignment]
        elif a.attr == A_REQNTID:
            k.reqntid = _u32s(a.value, 3, f"{where} {a.name}")  # type: ignore[assignment]
        elif a.attr == A_NUM_BARRIERS and a.fmt in (FMT_BVAL, FMT_HVAL):
            k.barriers = int(a.value)  # type: ignore[arg-type]
        elif a.attr == A_MAXREG_COUNT and a.fmt == FMT_HVAL:
            k.maxreg_count = int(a.value)  # type: ignore[arg-type]
        elif a.attr == A_CUDA_API_VERSION:
            (k.cuda_api_version,) = _u32s(a.value, 1, f"{where} {a.name}")
        elif a.attr == A_EXIT_INSTR_OFFSETS:
            if not isinstance(a.value, bytes) or len(a.value) % 4:
                raise FatbinError(f"{where} {a.name}: size not a multiple of 4")
            k.exit_offsets = list(struct.unpack(f"<{len(a.value) // 4}I", a.value))
    k.params.sort(key=lambda p: p.ordinal)


def kernel_resources(elf: bytes) -> dict[str, KernelResources]:
    """``{mangled kernel name: KernelResources}`` for every ``.entry`` in the cubin."""
    return {name: k.resources() for name, k in cubin_info(elf).kernels.items()}


FMT_NAMES = {FMT_NVAL: "EIFMT_NVAL", FMT_BVAL: "EIFMT_BVAL", FMT_HVAL: "EIFMT_HVAL", FMT_SVAL: "EIFMT_SVAL"}


def describe_elf(elf: bytes) -> list[str]:
    """A readable listing of a cubin (cuobjdump ``-elf`` style, without SASS): the section
    table, then every ``.nv.info*`` section decoded record by record, then the symbols."""
    from elftools.elf.elffile import ELFFile

    if bytes(elf[:4]) != b"\x7fELF":
        raise FatbinError("cubin does not start with the ELF magic 7f 45 4c 46")
    try:
        f = ELFFile(io.BytesIO(bytes(elf)))
        sections = list(f.iter_sections())
        lines = [f"arch = sm_{_arch_from_flags(f.header['e_flags'], f.header['e_ident']['EI_ABIVERSION'])}",
                 f"e_flags = {f.header['e_flags']:#x}", "", "Sections:",
                 f"  {'idx':>3} {'name':<40} {'type':<18} {'flags':>10} {'info':>10} {'size':>8}"]
        for i, sec in enumerate(sections):
            t = sec["sh_type"]
            tname = t if isinstance(t, str) else f"{t:#x}"
            lines.append(f"  {i:>3} {sec.name:<40} {tname:<18} {sec['sh_flags']:>#10x} {sec['sh_info']:>#10x} "
                         f"{sec['sh_size']:>8}")
        for sec in sections:
            if not sec.name.startswith(".nv.info"):
                continue
            lines += ["", sec.name]
            for a in parse_nv_info(sec.data(), sec.name):
                if isinstance(a.value, bytes):
                    words = [int.from_bytes(a.value[i : i + 4], "little") for i in range(0, len(a.value) - 3, 4)]
                    val = " ".join(f"{w:#x}" for w in words) if len(a.value) % 4 == 0 else a.value.hex(" ")
                else:
                    val = "" if a.value is None else f"{a.value:#x}"
                lines.append(f"\t{a.name:<40} {FMT_NAMES.get(a.fmt, a.fmt)}\t{val}")
        symtab = f.get_section_by_name(".symtab")
        if symtab is not None:
            lines += ["", "Symbols:"]
            for sym in symtab.iter_symbols():  # type: ignore[attr-defined]
                if sym.name:
                    shndx = sym["st_shndx"]
                    where = sections[shndx].name if isinstance(shndx, int) and shndx < len(sections) else shndx
                    lines.append(f"  {sym['st_info']['type']:<12} {sym['st_info']['bind']:<11} "
                                 f"{sym['st_size']:>8} {sym.name}  [{where}]")
        return lines
    except FatbinError:
        raise
    except Exception as exc:  # pyelftools raises assorted types on corrupt input
        raise FatbinError(f"corrupt cubin ELF: {type(exc).__name__}: {exc}") from None
