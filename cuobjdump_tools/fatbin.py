"""Fat-binary parsing: the wrapper ``__cudaRegisterFatBinary`` receives, containers, entries.

GPGPU-Sim counterpart: the cubin path of ``__cudaRegisterFatBinary`` (``cuda_runtime_api.cc``)
and the ``cuobjdump`` extraction that replaced it from CUDA 4.0 (``cuobjdumpInit``,
``extract_code_using_cuobjdump``, ``pruneSectionList``).  Checklist: C027 (one handle per
fat binary), C028 (source name from the fat binary), C029 (newest PTX not newer than
``-gpgpu_ptx_force_max_capability``), C008 (extraction without an external tool here).

Modern CUDA ships no ``cuobjdump`` with the toolkit we target, so everything is read in
process.  The layout below was learnt by compiling programs with nvcc 13.0 and reading the
bytes (``fatbinary_section.h`` in the CUDA headers documents the wrapper only).  All integers
are little-endian.

Wrapper (``__fatBinC_Wrapper_t``, 24 bytes, what ``__cudaRegisterFatBinary(void*)`` gets)::

    u32 magic = 0x466243B1   u32 version (1 = offline, 2 = link)
    u64 data                 pointer to a fat-binary container
    u64 filename_or_fatbins  v1: unused (0); v2 (-rdc builds, via __cudaRegisterLinkedBinary):
                             NULL-terminated array of pointers to the translation units'
                             containers (section ``__nv_relfatbin``), which hold their PTX

Container (16-byte header, then ``fat_size`` bytes of entries; the ``.nv_fatbin`` section of
an executable holds several containers back to back, nvcc 13 putting the device-link stub's
container first)::

    u32 magic = 0xBA55ED50   u16 version (1)   u16 header_size (16)   u64 fat_size

Entry (header of ``header_size`` >= 64 bytes, then ``payload_size`` bytes, padded to 8)::

    0x00 u16 kind (1 = PTX, 2 = ELF, 8 = LTO IR) 0x02 u16 version (0x0101)
    0x04 u32 header_size                         0x08 u64 payload_size (padded)
    0x10 u32 compressed_size (0 = stored)        0x14 u32 options_desc (offset in header of
                                                      u32 options_offset, u32 options_size)
    0x18 u16 minor   0x1a u16 major   (PTX: ISA version, e.g. 9.0)
    0x1c u32 arch (75 = sm_75)                   0x20 u32 name_offset  0x24 u32 name_size
    0x28 u64 flags                               0x30 u64 reserved
    0x38 u64 uncompressed_size (0 = stored)      0x40 name, options strings (NUL padded)

Flags: 0x1 64-bit, 0x2 debug (-G), 0x10 Linux host, 0x100000 arch-specific (sm_90a), 0x200000
family-specific (sm_100f), 0x2000 LZ4 compressed (CUDA 11/12 and
``-compress-mode=speed``, raw LZ4 block), 0x8000 zstd compressed (CUDA 13 default, one zstd
frame).  Embedded PTX is stored with comments stripped and whitespace runs collapsed (lines
kept, so line numbers match ``nvcc -ptx``) and NUL terminated.

Every malformed input raises :class:`FatbinError` and nothing else.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from gpgpusim.errors import CudaError, Err

WRAPPER_MAGIC = 0x466243B1
CONTAINER_MAGIC = 0xBA55ED50
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ELF_MAGIC = b"\x7fELF"

WRAPPER_SIZE = 24
CONTAINER_HEADER_SIZE = 16
ENTRY_HEADER_MIN = 64

KIND_NAMES = {1: "ptx", 2: "elf"}
OTHER_KIND_NAMES = {8: "ltoir"}  # kept undecoded

FLAG_64BIT = 0x1
FLAG_DEBUG = 0x2
FLAG_LINUX = 0x10
FLAG_COMPRESS_LZ4 = 0x2000
FLAG_COMPRESS_ZSTD = 0x8000
FLAG_ARCH_SPECIFIC = 0x100000  # compute_90a / sm_90a
FLAG_FAMILY_SPECIFIC = 0x200000  # compute_100f / sm_100f

# Sanity bound on any single size field: a real fat binary is far smaller, and a corrupted
# size must not make us allocate or read gigabytes.
MAX_SIZE = 1 << 31
MAX_PRELINKED = 65536  # bound on a version-2 wrapper's NULL-terminated list

_WRAPPER = struct.Struct("<IIQQ")
_CONTAINER = struct.Struct("<IHHQ")
_ENTRY = struct.Struct("<HHIQIIHHIIIQQQ")


class FatbinError(CudaError):
    """Malformed fat binary: ``cudaErrorInvalidKernelImage``, message names what and where."""

    def __init__(self, message: str) -> None:
        super().__init__(Err.InvalidKernelImage, message)


@dataclass(frozen=True)
class FatbinEntry:
    """One embedded image (PTX text or an ELF cubin) for one architecture."""

    kind: str  # "ptx" | "elf" | "ltoir" / "kind<N>" for kinds we do not interpret
    arch: int  # 75 for sm_75 / compute_75
    flags: int
    name: str  # identifier (source file name) or "" when the entry has none
    payload: bytes  # decompressed image (as stored for kinds we do not interpret)
    compressed: bool = False
    compression: str = "none"  # "none" | "zstd" | "lz4"
    version: tuple[int, int] = (0, 0)  # (major, minor); the PTX ISA version for PTX
    options: str = ""  # ptxas options recorded for PTX entries ("-O2 --generate-line-info")
    options_raw: bytes = b""  # the options field as stored (binary records for sm_100+ ELF entries)
    offset: int = 0  # of the entry header, from the start of the parsed bytes
    container: int = 0  # index of the container holding it
    stored_size: int = 0  # payload bytes as stored (compressed size when compressed)

    @property
    def is_64bit(self) -> bool:
        return bool(self.flags & FLAG_64BIT)

    @property
    def is_debug(self) -> bool:
        return bool(self.flags & FLAG_DEBUG)

    @property
    def arch_suffix(self) -> str:
        """"a" for arch-specific (sm_90a), "f" for family-specific (sm_100f) images, else ""."""
        return "a" if self.flags & FLAG_ARCH_SPECIFIC else "f" if self.flags & FLAG_FAMILY_SPECIFIC else ""

    @property
    def sm(self) -> str:
        """``sm_75`` / ``sm_90a`` style name used in extracted file names."""
        return f"sm_{self.arch}{self.arch_suffix}"

    @property
    def text(self) -> str:
        """PTX source (up to the NUL terminator); only for ``kind == "ptx"``."""
        if self.kind != "ptx":
            raise FatbinError(f"fatbin entry at offset {self.offset:#x} is {self.kind}, not PTX")
        raw = self.payload.split(b"\0", 1)[0]
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FatbinError(
                f"PTX entry at offset {self.offset:#x} is not UTF-8 text (byte {exc.start})"
            ) from None


@dataclass(frozen=True)
class FatbinContainer:
    """One container header (``0xBA55ED50``)."""

    offset: int
    version: int
    header_size: int
    fat_size: int
    address: int = 0  # process address when read by parse_wrapper, else 0
    prelinked: bool = False  # from a version-2 wrapper's prelinked list / an __nv_relfatbin section


@dataclass
class Fatbin:
    """A parsed fat binary: its containers and entries in file order."""

    entries: list[FatbinEntry] = field(default_factory=list)
    containers: list[FatbinContainer] = field(default_factory=list)
    wrapper_version: int | None = None  # set by parse_wrapper
    wrapper_aux: int = 0  # the wrapper's filename_or_fatbins pointer

    def ptx(self) -> list[FatbinEntry]:
        return [e for e in self.entries if e.kind == "ptx"]

    def elf(self) -> list[FatbinEntry]:
        return [e for e in self.entries if e.kind == "elf"]

    @property
    def identifier(self) -> str:
        """The source name recorded in the entries (C028), or "" when none has one."""
        for e in self.entries:
            if e.name:
                return e.name
        return ""


# ----------------------------------------------------------------------------- decompression


def lz4_block_decompress(src: bytes, expected_size: int, where: str = "LZ4 block") -> bytes:
    """Decode one raw LZ4 block (no frame header) into exactly ``expected_size`` bytes.

    Used for entries flagged 0x2000 (CUDA 11/12 default, nvcc 13 ``-compress-mode=speed``).
    Sequences: token (literal length << 4 | match length - 4), 255-continued lengths,
    literals, 16-bit little-endian back-reference offset; the last sequence has no match.
    """
    out = bytearray()
    i = 0
    n = len(src)
    while i < n:
        token = src[i]
        i += 1
        lit = token >> 4
        if lit == 15:
            while True:
                if i >= n:
                    raise FatbinError(f"{where}: literal length runs past the end at byte {i}")
                b = src[i]
                i += 1
                lit += b
                if b != 255:
                    break
        if i + lit > n:
            raise FatbinError(f"{where}: {lit} literal bytes at byte {i} run past the end ({n} bytes)")
        out += src[i : i + lit]
        i += lit
        if len(out) > expected_size:
            raise FatbinError(f"{where}: output exceeds the recorded size {expected_size}")
        if i >= n:
            break
        if i + 2 > n:
            raise FatbinError(f"{where}: truncated match offset at byte {i}")
        off = src[i] | (src[i + 1] << 8)
        i += 2
        if off == 0 or off > len(out):
            raise FatbinError(f"{where}: bad match offset {off} at byte {i - 2} (output has {len(out)} bytes)")
        ml = token & 15
        if ml == 15:
            while True:
                if i >= n:
                    raise FatbinError(f"{where}: match length runs past the end at byte {i}")
                b = src[i]
                i += 1
                ml += b
                if b != 255:
                    break
        ml += 4
        if len(out) + ml > expected_size:
            raise FatbinError(f"{where}: output exceeds the recorded size {expected_size}")
        start = len(out) - off
        if ml <= off:
            out += out[start : start + ml]
        else:  # overlapping copy repeats the last `off` bytes
            chunk = bytes(out[start:])
            reps, rem = divmod(ml, off)
            out += chunk * reps + chunk[:rem]
    if len(out) != expected_size:
        raise FatbinError(f"{where}: decompressed to {len(out)} bytes, header says {expected_size}")
    return bytes(out)


def _zstd_decompress(src: bytes, expected_size: int, where: str) -> bytes:
    import io

    import zstandard

    if not src.startswith(ZSTD_MAGIC):
        raise FatbinError(f"{where}: zstd-flagged payload does not start with 28 b5 2f fd")
    try:
        declared = zstandard.get_frame_parameters(src).content_size
    except zstandard.ZstdError as exc:
        raise FatbinError(f"{where}: bad zstd frame header: {exc}") from None
    if declared not in (expected_size, zstandard.CONTENTSIZE_UNKNOWN):
        raise FatbinError(f"{where}: zstd frame declares {declared} bytes, header says {expected_size}")
    try:
        # Streamed and bounded: a corrupt frame cannot make us allocate more than the header says.
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(src)) as r:
            out = r.read(expected_size + 1)
    except zstandard.ZstdError as exc:
        raise FatbinError(f"{where}: zstd decompression failed: {exc}") from None
    if len(out) > expected_size:
        raise FatbinError(f"{where}: zstd data decompresses to more than the {expected_size} bytes the header says")
    if len(out) != expected_size:
        raise FatbinError(f"{where}: decompressed to {len(out)} bytes, header says {expected_size}")
    return out


# ----------------------------------------------------------------------------- parsing


def _parse_entry(data: bytes, off: int, end: int, container: int) -> tuple[FatbinEntry, int]:
    """Parse the entry at ``off`` (inside a container ending at ``end``); return it and the next offset."""
    if off + _ENTRY.size > end:
        raise FatbinError(
            f"fatbin entry header at offset {off:#x} truncated: needs {_ENTRY.size} bytes, container has {end - off}"
        )
    (kind, _ver, hsize, psize, csize, opt_desc, minor, major, arch, name_off, name_len, flags, _res,
     usize) = _ENTRY.unpack_from(data, off)
    where = f"fatbin entry at offset {off:#x}"
    if hsize < ENTRY_HEADER_MIN or off + hsize > end:
        raise FatbinError(f"{where}: bad header size {hsize:#x} (container ends at {end:#x})")
    if psize > MAX_SIZE or off + hsize + psize > end:
        raise FatbinError(f"{where}: payload size {psize:#x} runs past the container end {end:#x}")
    name = ""
    if name_len:
        if name_off < ENTRY_HEADER_MIN or name_off + name_len > hsize:
            raise FatbinError(f"{where}: name ({name_off:#x}+{name_len}) outside the {hsize:#x}-byte header")
        name = _decode(data[off + name_off : off + name_off + name_len], where, "name")
    options = ""
    options_raw = b""
    if opt_desc:
        if opt_desc < ENTRY_HEADER_MIN or opt_desc + 8 > hsize:
            raise FatbinError(f"{where}: options descriptor at {opt_desc:#x} outside the {hsize:#x}-byte header")
        o_off, o_len = struct.unpack_from("<II", data, off + opt_desc)
        if o_len:
            if o_off < ENTRY_HEADER_MIN or o_off + o_len > hsize:
                raise FatbinError(f"{where}: options ({o_off:#x}+{o_len}) outside the {hsize:#x}-byte header")
            options_raw = bytes(data[off + o_off : off + o_off + o_len])
            if kind == 1:  # ptxas options text; other kinds keep binary tool records here
                options = _decode(options_raw, where, "options").strip()
    stored = data[off + hsize : off + hsize + psize]
    kind_name = KIND_NAMES.get(kind) or OTHER_KIND_NAMES.get(kind, f"kind{kind}")
    comp_flags = flags & (FLAG_COMPRESS_LZ4 | FLAG_COMPRESS_ZSTD)
    if kind not in KIND_NAMES:
        # LTO IR (kind 8, -gencode code=lto_XX) and future kinds: kept as stored (the LTO
        # payload is not plain zstd), since the simulator only consumes PTX and cubins.
        payload = bytes(stored[:csize]) if comp_flags and 0 < csize <= psize else bytes(stored)
        compression = "zstd" if comp_flags == FLAG_COMPRESS_ZSTD else "lz4" if comp_flags else "none"
        stored_size = len(payload)
    elif comp_flags == 0:
        payload = bytes(stored)
        compression = "none"
        stored_size = psize
    else:
        if comp_flags == FLAG_COMPRESS_LZ4 | FLAG_COMPRESS_ZSTD:
            raise FatbinError(f"{where}: both LZ4 (0x2000) and zstd (0x8000) compression flags set ({flags:#x})")
        if csize == 0 or csize > psize:
            raise FatbinError(f"{where}: compressed size {csize:#x} not within the payload size {psize:#x}")
        if usize == 0 or usize > MAX_SIZE:
            raise FatbinError(f"{where}: bad uncompressed size {usize:#x}")
        src = bytes(stored[:csize])
        if comp_flags == FLAG_COMPRESS_ZSTD:
            payload = _zstd_decompress(src, usize, where)
            compression = "zstd"
        else:
            payload = lz4_block_decompress(src, usize, where + " (LZ4)")
            compression = "lz4"
        stored_size = csize
    if kind == 2 and not payload.startswith(ELF_MAGIC):
        raise FatbinError(f"{where}: ELF entry payload does not start with 7f 45 4c 46")
    entry = FatbinEntry(
        kind=kind_name, arch=arch, flags=flags, name=name, payload=payload,
        compressed=compression != "none", compression=compression, version=(major, minor),
        options=options, options_raw=options_raw, offset=off, container=container, stored_size=stored_size,
    )
    return entry, off + hsize + psize


def _decode(raw: bytes, where: str, what: str) -> str:
    try:
        return raw.split(b"\0", 1)[0].decode("utf-8").strip()
    except UnicodeDecodeError:
        raise FatbinError(f"{where}: {what} is not UTF-8 text") from None


def _parse_container(data: bytes, off: int, index: int) -> tuple[FatbinContainer, list[FatbinEntry], int]:
    if off + CONTAINER_HEADER_SIZE > len(data):
        raise FatbinError(
            f"fatbin container header at offset {off:#x} truncated: {len(data) - off} of 16 bytes present"
        )
    magic, version, hsize, fsize = _CONTAINER.unpack_from(data, off)
    if magic != CONTAINER_MAGIC:
        raise FatbinError(f"bad fatbin container magic {magic:#010x} at offset {off:#x} (expected {CONTAINER_MAGIC:#x})")
    if hsize < CONTAINER_HEADER_SIZE:
        raise FatbinError(f"fatbin container at offset {off:#x}: header size {hsize} < 16")
    end = off + hsize + fsize
    if fsize > MAX_SIZE or end > len(data):
        raise FatbinError(
            f"fatbin container at offset {off:#x}: size {hsize}+{fsize:#x} runs past the end of the data "
            f"({len(data):#x} bytes)"
        )
    entries = []
    e = off + hsize
    while e < end:
        entry, e = _parse_entry(data, e, end, index)
        entries.append(entry)
    return FatbinContainer(off, version, hsize, fsize), entries, end


def parse_fatbin(data: bytes | bytearray | memoryview) -> Fatbin:
    """Parse one or more fat-binary containers laid out back to back (e.g. a ``.nv_fatbin`` section).

    Zero padding between containers (alignment) is skipped; anything else is an error.
    """
    data = bytes(data)
    fb = Fatbin()
    off = 0
    if len(data) < CONTAINER_HEADER_SIZE:
        raise FatbinError(f"fatbin data too short: {len(data)} bytes, a container header needs 16")
    while off < len(data):
        if data[off : off + 4] != struct.pack("<I", CONTAINER_MAGIC) and not any(data[off : off + 8]):
            off += 8  # alignment padding
            continue
        container, entries, off = _parse_container(data, off, len(fb.containers))
        fb.containers.append(container)
        fb.entries.extend(entries)
    if not fb.containers:
        raise FatbinError(f"no fatbin container in {len(data)} bytes (all zero)")
    return fb


def parse_wrapper(read: Callable[[int, int], bytes], wrapper_addr: int) -> Fatbin:
    """Parse the fat binary behind the ``__fatBinC_Wrapper_t`` at ``wrapper_addr`` (C027).

    ``read(addr, n)`` returns ``n`` bytes of the application's memory.  Reads only the
    wrapper, the container header and the container's ``fat_size`` bytes.

    Version 2 wrappers (``-rdc=true`` builds, registered by ``__cudaRegisterLinkedBinary``)
    point at the device-linked container (ELF only) and, in ``filename_or_fatbins``, at a
    NULL-terminated array of the translation units' containers (in ``__nv_relfatbin``), which
    hold their PTX.  Those containers are appended (``FatbinContainer.prelinked``), so
    :func:`select_ptx` finds the PTX of an ``-rdc`` build too.
    """
    raw = _read(read, wrapper_addr, WRAPPER_SIZE, "fatbin wrapper")
    magic, version, data_ptr, aux = _WRAPPER.unpack(raw)
    if magic != WRAPPER_MAGIC:
        raise FatbinError(
            f"bad fatbin wrapper magic {magic:#010x} at address {wrapper_addr:#x} (expected {WRAPPER_MAGIC:#x})"
        )
    if version not in (1, 2):
        raise FatbinError(f"unsupported fatbin wrapper version {version} at address {wrapper_addr:#x}")
    if data_ptr == 0:
        raise FatbinError(f"fatbin wrapper at address {wrapper_addr:#x} has a NULL data pointer")
    fb = _read_container(read, data_ptr, prelinked=False)
    fb.wrapper_version = version
    fb.wrapper_aux = aux
    if version == 2 and aux:
        for i in range(MAX_PRELINKED + 1):
            (ptr,) = struct.unpack("<Q", _read(read, aux + 8 * i, 8, f"prelinked fatbin list entry {i}"))
            if ptr == 0:
                break
            if i == MAX_PRELINKED:
                raise FatbinError(
                    f"prelinked fatbin list at address {aux:#x} not NULL-terminated within {MAX_PRELINKED} entries"
                )
            sub = _read_container(read, ptr, prelinked=True)
            base = len(fb.containers)
            fb.containers.extend(sub.containers)
            fb.entries.extend(replace(e, container=e.container + base) for e in sub.entries)
    return fb


def self_memory_reader() -> Callable[[int, int], bytes]:
    """A ``read(addr, n)`` over this process's own memory that fails cleanly on bad addresses.

    Reads ``/proc/self/mem`` (an unmapped address is an ``OSError``, which
    :func:`parse_wrapper` reports as a :class:`FatbinError`) where ``ctypes.string_at``
    would crash the application.  Falls back to ``ctypes.string_at`` without procfs.
    """
    import ctypes
    import os

    if not os.path.exists("/proc/self/mem"):
        return lambda addr, n: ctypes.string_at(addr, n)

    def read(addr: int, n: int) -> bytes:
        if addr <= 0 or addr >= 1 << 63:
            raise OSError(f"address {addr:#x} outside the user address space")
        fd = os.open("/proc/self/mem", os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            parts = []
            got = 0
            while got < n:  # bounded chunks: a corrupt size fails at the mapping's end, not in malloc
                chunk = os.pread(fd, min(n - got, 1 << 20), addr + got)
                if not chunk:
                    break
                parts.append(chunk)
                got += len(chunk)
            return b"".join(parts)
        finally:
            os.close(fd)

    return read


def _read_container(read: Callable[[int, int], bytes], addr: int, *, prelinked: bool) -> Fatbin:
    """Read and parse the single container at process address ``addr``."""
    head = _read(read, addr, CONTAINER_HEADER_SIZE, "fatbin container header")
    magic, _cver, hsize, fsize = _CONTAINER.unpack(head)
    if magic != CONTAINER_MAGIC:
        raise FatbinError(
            f"bad fatbin container magic {magic:#010x} at address {addr:#x} (expected {CONTAINER_MAGIC:#x})"
        )
    if hsize < CONTAINER_HEADER_SIZE or fsize > MAX_SIZE:
        raise FatbinError(f"fatbin container at address {addr:#x}: bad sizes header={hsize} fat={fsize:#x}")
    body = _read(read, addr + CONTAINER_HEADER_SIZE, hsize - CONTAINER_HEADER_SIZE + fsize, "fatbin container")
    try:
        fb = parse_fatbin(head + body)
    except FatbinError as exc:
        raise FatbinError(f"{exc.message} (container at address {addr:#x})") from None
    fb.containers = [replace(c, address=addr, prelinked=prelinked) for c in fb.containers]
    return fb


def _read(read: Callable[[int, int], bytes], addr: int, n: int, what: str) -> bytes:
    try:
        raw = bytes(read(addr, n))
    except FatbinError:
        raise
    except Exception as exc:  # the callback's own failure (bad address, closed process, ...)
        raise FatbinError(f"cannot read {what} ({n} bytes at address {addr:#x}): {exc}") from None
    if len(raw) != n:
        raise FatbinError(f"short read of {what}: {len(raw)} of {n} bytes at address {addr:#x}")
    return raw


# ----------------------------------------------------------------------------- ELF executables


PRELINK_SECTION = "__nv_relfatbin"  # FATBIN_PRELINK_DATA_SECTION_NAME (-rdc builds)


def fatbins_in_elf(path_or_bytes: str | bytes | bytearray, label: str = "<bytes>") -> list[Fatbin]:
    """The fat binaries in an executable's / shared library's / object's ``.nv_fatbin`` section,
    followed by those in ``__nv_relfatbin`` (an ``-rdc`` build's per-translation-unit
    containers, which hold its PTX; marked ``prelinked``).

    One :class:`Fatbin` per container, in section order (nvcc emits one container per
    registered translation unit plus device-link stubs).  No section -> ``[]``.
    """
    import io

    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    if isinstance(path_or_bytes, str):
        try:
            with open(path_or_bytes, "rb") as f:
                blob = f.read()
        except OSError as exc:
            raise FatbinError(f"cannot read {path_or_bytes}: {exc.strerror}") from None
        label = path_or_bytes
    else:
        blob = bytes(path_or_bytes)
    sections: list[tuple[str, bytes]] = []
    try:
        elf = ELFFile(io.BytesIO(blob))
        for name in (".nv_fatbin", PRELINK_SECTION):
            sec = elf.get_section_by_name(name)
            if sec is not None and sec["sh_type"] != "SHT_NOBITS":
                sections.append((name, sec.data()))
    except ELFError as exc:
        raise FatbinError(f"{label}: not a readable ELF file ({exc})") from None
    except Exception as exc:  # pyelftools raises assorted types on corrupt headers
        raise FatbinError(f"{label}: corrupt ELF file ({type(exc).__name__}: {exc})") from None
    out = []
    for name, data in sections:
        try:
            whole = parse_fatbin(data)
        except FatbinError as exc:
            raise FatbinError(f"{label}: {name} section: {exc.message}") from None
        for i, c in enumerate(whole.containers):
            if name == PRELINK_SECTION:
                c = replace(c, prelinked=True)
            out.append(Fatbin(entries=[replace(e, container=0) for e in whole.entries if e.container == i],
                              containers=[c]))
    return out


EM_CUDA = 190  # e_machine of a cubin


def fatbins_in_file(path: str) -> list[Fatbin]:
    """Fat binaries in any file cuobjdump accepts: host ELF (executable, shared library,
    object), a raw fat binary (``nvcc -fatbin``), or a bare cubin (one ELF entry).
    """
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as exc:
        raise FatbinError(f"cannot read {path}: {exc.strerror}") from None
    if blob[:4] == struct.pack("<I", CONTAINER_MAGIC):
        return [parse_fatbin(blob)]
    if blob[:4] != ELF_MAGIC:
        raise FatbinError(f"{path}: not an ELF file, cubin or fat binary (starts with {blob[:4].hex(' ')})")
    if len(blob) >= 20 and struct.unpack_from("<H", blob, 18)[0] == EM_CUDA:
        from cuobjdump_tools.elfinfo import cubin_arch

        entry = FatbinEntry(kind="elf", arch=cubin_arch(blob), flags=FLAG_64BIT | FLAG_LINUX,
                            name="", payload=blob)
        return [Fatbin(entries=[entry])]
    return fatbins_in_elf(blob, path)


# ----------------------------------------------------------------------------- selection


def select_ptx(fatbin_or_entries: Fatbin | Iterable[FatbinEntry], max_capability: int = 0) -> FatbinEntry | None:
    """The PTX entry for the highest arch <= ``max_capability`` (C029); 0 means no limit.

    Mirrors GPGPU-Sim's "newest version of PTX which is not newer than
    forced_max_capability".  Among equal arch numbers the generic PTX (compute_90) wins
    over arch/family-specific variants (compute_90a), whose extra instructions the
    simulator may not model; remaining ties keep the first in file order.  None when no
    PTX fits.
    """
    entries = fatbin_or_entries.entries if isinstance(fatbin_or_entries, Fatbin) else fatbin_or_entries
    best: FatbinEntry | None = None
    for e in entries:
        if e.kind != "ptx":
            continue
        if max_capability and e.arch > max_capability:
            continue
        if best is None or (e.arch, not e.arch_suffix) > (best.arch, not best.arch_suffix):
            best = e
    return best


def select_ptx_all(fatbin: Fatbin, max_capability: int = 0) -> list[FatbinEntry]:
    """:func:`select_ptx` applied to each container: one PTX per translation unit.

    A version-2 wrapper (``-rdc`` build) carries one prelinked container per translation
    unit, each with its own PTX; all of them are needed to find every kernel.  Containers
    without a fitting PTX contribute nothing.
    """
    out = []
    for i in range(len(fatbin.containers)):
        best = select_ptx((e for e in fatbin.entries if e.container == i), max_capability)
        if best is not None:
            out.append(best)
    return out
