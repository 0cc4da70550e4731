"""cuobjdump_tools.fatbin on real nvcc 13 binaries and on synthetic/malformed fat binaries."""

from __future__ import annotations

import ctypes
import json
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard
from elftools.elf.elffile import ELFFile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuobjdump_tools import FatbinError, fatbins_in_elf, parse_fatbin, parse_wrapper, select_ptx, select_ptx_all
from cuobjdump_tools.fatbin import Fatbin, FatbinEntry, lz4_block_decompress, self_memory_reader
from gpgpusim.errors import CudaError, Err
from tests.cuobjdump_tools.fatbin_helpers import LOAD_AND_PARSE_PY, lz4_literal_block, make_container, make_entry

KERNELS = ("_Z6vecAddPKfS0_Pfi", "_Z7tileSumPKfPf", "_Z8localArrPKiPii")
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _tokens(text: str) -> list[list[str]]:
    """Lines of PTX with comments dropped and whitespace collapsed (the fatbin's stored form)."""
    return [re.sub(r"//.*", "", line).split() for line in text.split("\n")]


def _section(path, name: str) -> bytes:
    with open(path, "rb") as f:
        return ELFFile(f).get_section_by_name(name).data()


def _elf_reader(path):
    """read(addr, n) over the executable's loadable segments, at link-time addresses
    (bytes past a segment's file size read as zero, as .bss does)."""
    blob = path.read_bytes()
    with open(path, "rb") as f:
        segs = [
            (s["p_vaddr"], s["p_offset"], s["p_filesz"], s["p_memsz"])
            for s in ELFFile(f).iter_segments()
            if s["p_type"] == "PT_LOAD"
        ]

    def read(addr: int, n: int) -> bytes:
        for vaddr, off, filesz, memsz in segs:
            if vaddr <= addr and addr + n <= vaddr + memsz:
                image = blob[off : off + filesz] + bytes(memsz - filesz)
                return image[addr - vaddr : addr - vaddr + n]
        raise ValueError(f"address {addr:#x} not mapped")

    return read


def _symbols(path, name: str) -> list[int]:
    with open(path, "rb") as f:
        return [s["st_value"] for s in ELFFile(f).get_section_by_name(".symtab").iter_symbols() if s.name == name]


# ----------------------------------------------------------------------------- real binaries


def test_default_build_entries_and_ptx_text(programs):
    b = programs.get("default")
    fbs = fatbins_in_elf(str(b.exe))
    # nvcc 13 emits the device-link stub container first, then the translation unit's.
    assert [[(e.kind, e.arch, e.compression) for e in fb.entries] for fb in fbs] == [
        [("elf", 75, "none")],
        [("elf", 75, "none"), ("ptx", 75, "zstd")],
    ]
    ptx = select_ptx(fbs[1], 0)
    assert ptx is not None and ptx.compressed and ptx.version == (9, 0) and ptx.is_64bit
    text = ptx.text
    assert "\n.version 9.0\n.target sm_75\n.address_size 64\n" in text
    for k in KERNELS:
        assert f".visible .entry {k}(" in text
    # The stored PTX is nvcc -ptx's text with comments stripped, line for line.
    assert _tokens(text) == _tokens(b.ptx.read_text())
    assert len(ptx.payload) == len(text) + 1 and ptx.payload.endswith(b"\0")
    elf = fbs[1].elf()[0]
    assert elf.payload.startswith(b"\x7fELF") and not elf.compressed


def test_section_parse_equals_per_container_parse(programs):
    exe = programs.get("default").exe
    whole = parse_fatbin(_section(exe, ".nv_fatbin"))
    assert [(c.offset, c.version, c.header_size) for c in whole.containers] == [
        (0, 1, 16), (16 + whole.containers[0].fat_size, 1, 16)
    ]
    assert [e.payload for e in whole.entries] == [e.payload for fb in fatbins_in_elf(str(exe)) for e in fb.entries]
    assert fatbins_in_elf(exe.read_bytes())[1].entries == fatbins_in_elf(str(exe))[1].entries


def test_parse_wrapper_reads_registered_fatbin(programs):
    exe = programs.get("default").exe
    read = _elf_reader(exe)
    # The translation unit's __fatDeviceText (version 1) is what __sti____cudaRegisterAll
    # passes to __cudaRegisterFatBinary; the device-link stub has its own (version 2).
    fbs = sorted((parse_wrapper(read, a) for a in _symbols(exe, "_ZL15__fatDeviceText")),
                 key=lambda fb: fb.wrapper_version)
    assert [fb.wrapper_version for fb in fbs] == [1, 2]
    assert [(e.kind, e.arch) for e in fbs[0].entries] == [("elf", 75), ("ptx", 75)]
    assert fbs[0].entries[1].text == fatbins_in_elf(str(exe))[1].entries[1].text
    assert [(e.kind, e.arch) for e in fbs[1].entries] == [("elf", 75)]


def test_parse_wrapper_on_a_loaded_library(programs):
    """The real path: constructors register the wrapper; we read relocated memory via ctypes."""
    lib, stub = programs.shared_lib()
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-c", LOAD_AND_PARSE_PY, str(stub), str(lib)], capture_output=True,
                       text=True, cwd=root, timeout=60)
    assert r.returncode == 0, r.stderr
    (got,) = json.loads(r.stdout)
    assert got["version"] == 1
    assert got["entries"] == [["elf", 75], ["ptx", 75]]
    assert ".global .align 4 .u32 g_val = 7;" in got["ptx"]
    assert ".visible .entry _Z5scalePff(" in got["ptx"]
    assert got["ptx"] == select_ptx(fatbins_in_elf(str(lib))[-1], 0).text


def test_parse_wrapper_follows_prelinked_list_of_rdc_build(programs):
    """-rdc: a version-2 wrapper (device-linked ELF) plus the translation unit's container."""
    lib, stub = programs.shared_lib(rdc=True)
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-c", LOAD_AND_PARSE_PY, str(stub), str(lib)], capture_output=True,
                       text=True, cwd=root, timeout=60)
    assert r.returncode == 0, r.stderr
    (got,) = json.loads(r.stdout)
    assert got["version"] == 2
    assert got["entries"] == [["elf", 75], ["elf", 75], ["ptx", 75]]
    assert ".visible .entry _Z5scalePff(" in got["ptx"]
    files = fatbins_in_elf(str(lib))
    assert [(fb.containers[0].prelinked, [(e.kind, e.arch) for e in fb.entries]) for fb in files] == [
        (False, [("elf", 75)]), (True, [("elf", 75), ("ptx", 75)])
    ]
    assert got["ptx"] == select_ptx(files[1]).text


def test_lz4_build_matches_zstd_build(programs):
    fb = fatbins_in_elf(str(programs.get("lz4").exe))[1]
    ptx = select_ptx(fb, 0)
    assert ptx.compression == "lz4" and ptx.flags & 0x2000
    ref = select_ptx(fatbins_in_elf(str(programs.get("default").exe))[1], 0)
    assert ptx.text == ref.text


def test_multi_arch_selection(programs):
    fb = fatbins_in_elf(str(programs.get("multi").exe))[1]
    assert [(e.kind, e.arch) for e in fb.entries] == [("elf", 75), ("elf", 80), ("ptx", 80), ("ptx", 90)]
    assert select_ptx(fb, 0).arch == 90
    assert select_ptx(fb, 90).arch == 90
    assert select_ptx(fb, 89).arch == 80
    assert select_ptx(fb, 80).arch == 80
    assert select_ptx(fb, 75) is None
    assert select_ptx(fb.entries[:2], 0) is None
    assert ".target sm_90\n" in select_ptx(fb, 0).text
    assert ".target sm_80\n" in select_ptx(fb, 80).text


def test_uncompressed_build_with_name_and_options(programs):
    fb = fatbins_in_elf(str(programs.get("stored").exe))[1]
    assert [(e.kind, e.compression, e.name) for e in fb.entries] == [
        ("elf", "none", "res.cu"), ("ptx", "none", "res.cu")
    ]
    assert fb.identifier == "res.cu"
    assert fb.entries[1].options == "-v  --generate-line-info"  # the ptxas options nvcc passed
    assert fb.entries[0].options == ""
    assert ".loc" in fb.entries[1].text


# ----------------------------------------------------------------------------- synthetic


PTX = b"\n\n.version 9.0\n.target sm_75\n.address_size 64\n\n.visible .entry k()\n{\nret;\n}\n\0"


def test_synthetic_stored_zstd_lz4_roundtrip():
    z = zstandard.ZstdCompressor().compress(PTX)
    data = make_container(
        make_entry(1, 70, PTX, name=b"a.cu", options=b"-O3"),
        make_entry(1, 75, PTX, flags=0x8011, stored=z, usize=len(PTX)),
        make_entry(1, 86, PTX, flags=0x2011, stored=lz4_literal_block(PTX), usize=len(PTX)),
    )
    fb = parse_fatbin(data)
    assert [(e.arch, e.compression, e.payload) for e in fb.entries] == [
        (70, "none", PTX + b"\0" * (-len(PTX) % 8)), (75, "zstd", PTX), (86, "lz4", PTX)
    ]
    assert fb.entries[0].name == "a.cu" and fb.entries[0].options == "-O3"
    assert fb.entries[1].stored_size == len(z)
    assert {e.text for e in fb.entries} == {PTX[:-1].decode()}
    assert select_ptx(fb, 80).arch == 75


def test_arch_specific_variants_and_binary_elf_options():
    fb = parse_fatbin(make_container(
        make_entry(1, 90, PTX, flags=0x100011),  # compute_90a
        make_entry(1, 90, PTX, flags=0x11),  # compute_90
        make_entry(1, 100, PTX, flags=0x200011),  # compute_100f
    ))
    assert [e.sm for e in fb.entries] == ["sm_90a", "sm_90", "sm_100f"]
    assert select_ptx(fb, 90) is fb.entries[1]  # the generic PTX wins a tie
    assert select_ptx(fb, 0) is fb.entries[2]
    # sm_100+ ELF entries carry binary records in the options field: kept raw, not decoded.
    records = b"\x00\x02\t\x01\xff\xfe\x00\x01"
    e = make_entry(2, 100, b"\x7fELF" + bytes(12), flags=0x1100011, options=records)
    entry = parse_fatbin(make_container(bytes(e))).entries[0]
    assert (entry.options, entry.options_raw, entry.sm) == ("", records, "sm_100a")


def test_unknown_kinds_kept_as_stored():
    # LTO IR (kind 8) is flagged compressed but its payload is not a plain zstd frame.
    blob = bytes(range(200, 256)) * 2
    fb = parse_fatbin(make_container(make_entry(8, 80, b"", flags=0x18011, stored=blob, usize=3000),
                                     make_entry(1, 80, PTX)))
    assert [(e.kind, e.arch, e.compression, e.payload) for e in fb.entries[:1]] == [("ltoir", 80, "zstd", blob)]
    assert select_ptx(fb).kind == "ptx"
    assert parse_fatbin(make_container(make_entry(5, 70, b"abc"))).entries[0].kind == "kind5"


def test_lz4_overlapping_and_extended_matches():
    # "ab" then a 10-byte match at distance 2, then literal "X".
    assert lz4_block_decompress(b"\x26ab\x02\x00\x10X", 13) == b"abababababab" + b"X"
    # 1 literal, match of 4+15+255+3 = 277 bytes at distance 1 (run-length).
    blk = b"\x1fz\x01\x00\xff\x03" + b"\x10!"
    assert lz4_block_decompress(blk, 279) == b"z" * 278 + b"!"
    # 300 literals need the 255-continued literal length.
    assert lz4_block_decompress(lz4_literal_block(bytes(range(256)) + b"x" * 44), 300)[-45:] == b"\xff" + b"x" * 44


@pytest.mark.parametrize(
    ("block", "size", "msg"),
    [
        (b"\x26ab\x05\x00", 12, "bad match offset 5"),
        (b"\x26ab\x00\x00", 12, "bad match offset 0"),
        (b"\x26ab\x02", 12, "truncated match offset"),
        (b"\x50abc", 5, "run past the end"),
        (b"\xf0", 20, "literal length runs past the end"),
        (b"\x26ab\x02\x00", 5, "exceeds the recorded size 5"),
        (b"\x30abc", 4, "decompressed to 3 bytes, header says 4"),
    ],
)
def test_lz4_errors(block, size, msg):
    with pytest.raises(FatbinError, match=msg):
        lz4_block_decompress(block, size)


def test_error_type_and_code():
    with pytest.raises(FatbinError) as ei:
        parse_fatbin(b"\x01\x02\x03\x04" + bytes(12))
    assert isinstance(ei.value, CudaError)
    assert ei.value.code == Err.InvalidKernelImage
    assert str(ei.value) == "bad fatbin container magic 0x04030201 at offset 0x0 (expected 0xba55ed50)"


@pytest.mark.parametrize(
    ("mutate", "msg"),
    [
        (lambda d: d[:10], "too short: 10 bytes"),
        (lambda d: d[:-1], "runs past the end of the data"),
        (lambda d: d[:20] + struct.pack("<I", 0x30) + d[24:], "bad header size 0x30"),
        (lambda d: d[:24] + struct.pack("<Q", 1 << 40) + d[32:], "payload size 0x10000000000 runs past"),
        (lambda d: d + b"\x07" + bytes(15), "bad fatbin container magic 0x00000007 at offset 0x"),
        (lambda d: bytes(32), "no fatbin container"),
    ],
)
def test_malformed_messages(mutate, msg):
    data = make_container(make_entry(2, 75, b"\x7fELF" + bytes(12)))
    parse_fatbin(data)
    with pytest.raises(FatbinError, match=re.escape(msg)):
        parse_fatbin(mutate(data))


def test_bad_zstd_and_bad_sizes():
    z = zstandard.ZstdCompressor().compress(PTX)
    def zentry(stored: bytes, usize: int = len(PTX)) -> bytes:
        return make_container(make_entry(1, 75, PTX, flags=0x8011, stored=stored, usize=usize))

    with pytest.raises(FatbinError, match=r"^fatbin entry at offset 0x10: bad zstd frame header: "):
        parse_fatbin(zentry(z[:4] + bytes(b ^ 0x5A for b in z[4:])))
    # z = magic, frame header (2 bytes), block header (3 bytes), block.
    with pytest.raises(FatbinError, match=r"^fatbin entry at offset 0x10: zstd decompression failed: .*corruption"):
        parse_fatbin(zentry(z[:6] + b"\xff\xff\xff" + z[9:]))
    with pytest.raises(FatbinError, match=f"^fatbin entry at offset 0x10: decompressed to {len(PTX) - 3} bytes"):
        parse_fatbin(zentry(z[:-3]))
    with pytest.raises(FatbinError, match=f"zstd frame declares {len(PTX)} bytes, header says 1000000000"):
        parse_fatbin(zentry(z, usize=10**9))
    with pytest.raises(FatbinError, match="does not start with 28 b5 2f fd"):
        parse_fatbin(make_container(make_entry(1, 75, PTX, flags=0x8011, stored=b"xxxx" + z, usize=len(PTX))))
    with pytest.raises(FatbinError, match=f"zstd frame declares {len(PTX)} bytes, header says {len(PTX) - 1}"):
        parse_fatbin(zentry(z, usize=len(PTX) - 1))
    unsized = zstandard.ZstdCompressor(write_content_size=False).compress(PTX)
    with pytest.raises(FatbinError, match=f"decompresses to more than the {len(PTX) - 2} bytes the header says"):
        parse_fatbin(zentry(unsized, usize=len(PTX) - 2))
    assert parse_fatbin(zentry(unsized)).entries[0].payload == PTX
    with pytest.raises(FatbinError, match="both LZ4"):
        parse_fatbin(make_container(make_entry(1, 75, PTX, flags=0xA011, stored=z, usize=len(PTX))))
    with pytest.raises(FatbinError, match="bad uncompressed size 0x0"):
        parse_fatbin(make_container(make_entry(1, 75, PTX, flags=0x8011, stored=z, usize=0)))
    with pytest.raises(FatbinError, match="ELF entry payload does not start"):
        parse_fatbin(make_container(make_entry(2, 75, b"NOPE")))
    with pytest.raises(FatbinError, match="name .* outside"):
        e = bytearray(make_entry(1, 75, PTX, name=b"x.cu"))
        struct.pack_into("<I", e, 0x24, 500)
        parse_fatbin(make_container(bytes(e)))


def test_ptx_text_only_for_ptx_entries():
    e = FatbinEntry(kind="elf", arch=75, flags=0, name="", payload=b"\x7fELF")
    with pytest.raises(FatbinError, match="is elf, not PTX"):
        _ = e.text
    bad = FatbinEntry(kind="ptx", arch=75, flags=0, name="", payload=b"\xff\xfe")
    with pytest.raises(FatbinError, match="not UTF-8"):
        _ = bad.text


# ----------------------------------------------------------------------------- wrapper in memory


def _wrapper_in_memory(container: bytes, magic=0x466243B1, version=1, null=False):
    buf = ctypes.create_string_buffer(container, len(container))
    wrap = ctypes.create_string_buffer(
        struct.pack("<IIQQ", magic, version, 0 if null else ctypes.addressof(buf), 0), 24
    )
    return buf, wrap


def _read_mem(addr: int, n: int) -> bytes:
    return ctypes.string_at(addr, n)


def test_parse_wrapper_from_process_memory():
    data = make_container(make_entry(1, 75, PTX), make_entry(2, 75, b"\x7fELF" + bytes(20)))
    keep = _wrapper_in_memory(data)
    fb = parse_wrapper(_read_mem, ctypes.addressof(keep[1]))
    assert isinstance(fb, Fatbin)
    assert [(e.kind, e.arch) for e in fb.entries] == [("ptx", 75), ("elf", 75)]


def test_parse_wrapper_version2_prelinked_list(monkeypatch):
    linked = make_container(make_entry(2, 80, b"\x7fELF" + bytes(20)))
    tus = [make_container(make_entry(1, 80, PTX)), make_container(make_entry(1, 75, PTX), make_entry(1, 90, PTX))]
    bufs = [ctypes.create_string_buffer(b, len(b)) for b in [linked, *tus]]
    lst = (ctypes.c_uint64 * 3)(ctypes.addressof(bufs[1]), ctypes.addressof(bufs[2]), 0)
    wrap = ctypes.create_string_buffer(
        struct.pack("<IIQQ", 0x466243B1, 2, ctypes.addressof(bufs[0]), ctypes.addressof(lst)), 24
    )
    fb = parse_wrapper(_read_mem, ctypes.addressof(wrap))
    assert [(e.kind, e.arch, e.container) for e in fb.entries] == [
        ("elf", 80, 0), ("ptx", 80, 1), ("ptx", 75, 2), ("ptx", 90, 2)
    ]
    assert [(c.prelinked, c.address) for c in fb.containers] == [
        (False, ctypes.addressof(bufs[0])), (True, ctypes.addressof(bufs[1])), (True, ctypes.addressof(bufs[2]))
    ]
    assert select_ptx(fb, 86).arch == 80
    assert [(e.arch, e.container) for e in select_ptx_all(fb, 86)] == [(80, 1), (75, 2)]
    assert [(e.arch, e.container) for e in select_ptx_all(fb)] == [(80, 1), (90, 2)]
    assert select_ptx_all(fb, 70) == []
    monkeypatch.setattr("cuobjdump_tools.fatbin.MAX_PRELINKED", 1)
    with pytest.raises(FatbinError, match=r"prelinked fatbin list at address 0x[0-9a-f]+ not NULL-terminated within 1"):
        parse_wrapper(_read_mem, ctypes.addressof(wrap))


@pytest.mark.parametrize(
    ("kw", "msg"),
    [
        ({"magic": 0x12345678}, "bad fatbin wrapper magic 0x12345678 at address"),
        ({"version": 7}, "unsupported fatbin wrapper version 7"),
        ({"null": True}, "NULL data pointer"),
    ],
)
def test_parse_wrapper_errors(kw, msg):
    keep = _wrapper_in_memory(make_container(make_entry(1, 75, PTX)), **kw)
    with pytest.raises(FatbinError, match=msg):
        parse_wrapper(_read_mem, ctypes.addressof(keep[1]))


def test_self_memory_reader():
    data = make_container(make_entry(1, 75, PTX))
    keep = _wrapper_in_memory(data)
    read = self_memory_reader()
    assert read(ctypes.addressof(keep[0]), len(data)) == data
    fb = parse_wrapper(read, ctypes.addressof(keep[1]))
    assert fb.entries[0].payload.startswith(PTX)
    # An unmapped address is a clean error, not a crash.
    with pytest.raises(FatbinError, match=r"^cannot read fatbin wrapper \(24 bytes at address 0x1000\): "):
        parse_wrapper(read, 0x1000)
    with pytest.raises(FatbinError, match="outside the user address space"):
        parse_wrapper(read, 0)
    # A container claiming 1.5 GiB is read in chunks until the mapping ends: a short read.
    huge = bytearray(data)
    huge[8:16] = (3 << 29).to_bytes(8, "little")
    keep = _wrapper_in_memory(bytes(huge))
    with pytest.raises(FatbinError, match=r"(short read|cannot read) (of )?fatbin container"):
        parse_wrapper(read, ctypes.addressof(keep[1]))


def test_parse_wrapper_bad_reads():
    def failing(addr, n):
        raise OSError("EFAULT")

    with pytest.raises(FatbinError, match=r"cannot read fatbin wrapper \(24 bytes at address 0x1000\): EFAULT"):
        parse_wrapper(failing, 0x1000)
    with pytest.raises(FatbinError, match="short read of fatbin wrapper: 3 of 24"):
        parse_wrapper(lambda a, n: b"abc", 0x1000)
    keep = _wrapper_in_memory(b"\0" * 16)
    with pytest.raises(FatbinError, match="bad fatbin container magic 0x00000000 at address"):
        parse_wrapper(_read_mem, ctypes.addressof(keep[1]))


# ----------------------------------------------------------------------------- fuzzing


def _only_fatbin_errors(data: bytes) -> None:
    try:
        fb = parse_fatbin(data)
    except FatbinError:
        return
    for e in fb.entries:
        if e.kind == "ptx":
            try:
                _ = e.text
            except FatbinError:
                pass


_SYNTH = make_container(
    make_entry(1, 75, PTX, flags=0x8011, stored=zstandard.ZstdCompressor().compress(PTX), usize=len(PTX),
               name=b"f.cu", options=b"-O2"),
    make_entry(1, 80, PTX, flags=0x2011, stored=lz4_literal_block(PTX), usize=len(PTX)),
    make_entry(2, 75, b"\x7fELF" + bytes(40)),
)


@given(st.binary(max_size=300))
@settings(max_examples=300, deadline=None)
def test_fuzz_random_bytes(data):
    _only_fatbin_errors(data)
    _only_fatbin_errors(_SYNTH[:16] + data)


@given(st.data())
@settings(max_examples=300, deadline=None)
def test_fuzz_mutated_synthetic(data):
    buf = bytearray(_SYNTH)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(buf) - 1))
        buf[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(buf)))
    _only_fatbin_errors(bytes(buf[:cut]))
    _only_fatbin_errors(bytes(buf))


@given(st.data())
@FUZZ
def test_fuzz_mutated_real_fatbin(programs, data):
    real = _section(programs.get("lz4").exe, ".nv_fatbin")
    buf = bytearray(real)
    # Bias mutations towards headers, where they matter most.
    hdrs = [0, 16, 0x600, 0x610]
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.one_of(st.sampled_from(hdrs).flatmap(lambda h: st.integers(h, h + 0x50)),
                                st.integers(0, len(buf) - 1)))
        if i < len(buf):
            buf[i] = data.draw(st.integers(0, 255))
    _only_fatbin_errors(bytes(buf))
    _only_fatbin_errors(bytes(buf[: data.draw(st.integers(0, len(buf)))]))
