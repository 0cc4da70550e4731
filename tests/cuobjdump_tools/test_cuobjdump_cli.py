"""python -m cuobjdump_tools: cuobjdump-style listing, dumping, extraction, resource usage."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from cuobjdump_tools import fatbins_in_elf
from cuobjdump_tools.__main__ import main
from cuobjdump_tools.elfinfo import cubin_info
from tests.cuobjdump_tools.fatbin_helpers import make_container, make_entry, parse_ptxas_v

ROOT = Path(__file__).resolve().parents[2]


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    rc = main(list(argv), out=out)
    return rc, out.getvalue()


def test_list(programs):
    exe = programs.get("multi").exe
    rc, text = run("-lelf", "-lptx", str(exe))
    assert rc == 0
    assert text.splitlines() == [
        "ELF file    1: res_multi.1.sm_75.cubin",  # device-link stub container
        "ELF file    2: res_multi.2.sm_80.cubin",
        "ELF file    3: res_multi.3.sm_75.cubin",
        "ELF file    4: res_multi.4.sm_80.cubin",
        "PTX file    1: res_multi.1.sm_80.ptx",
        "PTX file    2: res_multi.2.sm_90.ptx",
    ]
    assert run("--list-ptx", str(exe))[1] == "".join(text.splitlines(keepends=True)[4:])


def test_extract_ptx_all_and_elf_by_name(programs, tmp_path, monkeypatch):
    exe = programs.get("multi").exe
    monkeypatch.chdir(tmp_path)
    rc, text = run("-xptx", "all", str(exe))
    assert rc == 0
    assert text.splitlines() == [
        "Extracting PTX file and ptxas options    1: res_multi.1.sm_80.ptx -arch=sm_80 -v",
        "Extracting PTX file and ptxas options    2: res_multi.2.sm_90.ptx -arch=sm_90 -v",
    ]
    ptx = fatbins_in_elf(str(exe))[1].ptx()
    assert (tmp_path / "res_multi.1.sm_80.ptx").read_text() == ptx[0].text
    assert (tmp_path / "res_multi.2.sm_90.ptx").read_text() == ptx[1].text
    rc, text = run("--extract-elf", "res_multi.4.sm_80.cubin", str(exe))
    assert (rc, text) == (0, "Extracting ELF file    4: res_multi.4.sm_80.cubin\n")
    cubin = (tmp_path / "res_multi.4.sm_80.cubin").read_bytes()
    assert cubin == fatbins_in_elf(str(exe))[1].elf()[1].payload
    # A bare cubin is accepted too.
    assert run("-lelf", "res_multi.4.sm_80.cubin")[1] == "ELF file    1: res_multi.4.sm_80.cubin.1.sm_80.cubin\n"
    assert cubin_info(cubin).arch == 80


def test_resource_usage_matches_ptxas(programs):
    b = programs.get("default")
    rc, text = run("-res-usage", str(b.exe))
    assert rc == 0
    expected = parse_ptxas_v(b.ptxas_log)
    lines = text.splitlines()
    assert "  GLOBAL:4 CONSTANT[3]:16 CONSTANT[4]:8" in lines
    for (name, _arch), r in expected.items():
        i = lines.index(f" Function {name}:")
        assert lines[i + 1] == (
            f"  REG:{r['regs']} STACK:{r['stack']} SHARED:{r['smem']} LOCAL:0 "
            f"CONSTANT[0]:{r['cmem0']} TEXTURE:0 SURFACE:0 SAMPLER:0"
        )
    assert lines.count("Fatbin elf code:") == 2


def test_dump_ptx_and_headers(programs):
    exe = programs.get("stored").exe
    rc, text = run("-ptx", str(exe))
    assert rc == 0
    head = text.split("\n.version", 1)[0].splitlines()
    assert head[:9] == [
        "", "Fatbin ptx code:", "================", "arch = sm_75", "code version = [9,0]", "host = linux",
        "compile_size = 64bit", "identifier = res.cu", "ptxasOptions = -v  --generate-line-info",
    ]
    assert fatbins_in_elf(str(exe))[1].ptx()[0].text in text
    rc, text = run(str(programs.get("default").exe))
    assert [ln for ln in text.splitlines() if ln.startswith("Fatbin")] == [
        "Fatbin elf code:", "Fatbin elf code:", "Fatbin ptx code:"
    ]
    assert text.count("compressed\n") == 1


def test_errors(programs, tmp_path, capsys):
    exe = programs.get("default").exe
    assert run("-xptx", "nope.ptx", str(exe))[0] == 1
    assert "no PTX file named 'nope.ptx' (available: res_default.1.sm_75.ptx)" in capsys.readouterr().err
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"hello world")
    assert run("-lptx", str(bad))[0] == 1
    assert capsys.readouterr().err == (
        f"cuobjdump_tools: error: {bad}: not an ELF file, cubin or fat binary (starts with 68 65 6c 6c)\n"
    )
    assert run("-lptx", str(tmp_path / "missing"))[0] == 1
    assert "cannot read" in capsys.readouterr().err
    # -sass is covered by tests/cuobjdump_tools/test_sass.py
    # A host ELF without device code.
    rc, text = run("-lptx", sys.executable)
    assert (rc, text) == (0, f"cuobjdump info    : File '{sys.executable}' does not contain device code\n")
    # Corrupt fatbin section inside an executable names the file and section.
    blob = bytearray(exe.read_bytes())
    i = blob.index(b"\x50\xed\x55\xba")
    blob[i + 8 : i + 16] = (1 << 40).to_bytes(8, "little")
    corrupt = tmp_path / "corrupt"
    corrupt.write_bytes(bytes(blob))
    assert run("-lptx", str(corrupt))[0] == 1
    assert capsys.readouterr().err.startswith(f"cuobjdump_tools: error: {corrupt}: .nv_fatbin section: fatbin container")


def test_module_entry_point(programs):
    r = subprocess.run([sys.executable, "-m", "cuobjdump_tools", "-lptx", str(programs.get("lz4").exe)],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, "PTX file    1: res_lz4.1.sm_75.ptx\n", "")


def test_raw_fatbin_file(tmp_path, monkeypatch):
    """A bare fat binary (nvcc -fatbin output) is accepted; no nvcc needed."""
    ptx = b".version 9.0\n.target sm_80\n.address_size 64\n\0"
    f = tmp_path / "k.fatbin"
    f.write_bytes(make_container(make_entry(1, 80, ptx, options=b"-O3"), make_entry(1, 90, ptx, flags=0x100011)))
    assert run("-lptx", str(f)) == (0, "PTX file    1: k.fatbin.1.sm_80.ptx\nPTX file    2: k.fatbin.2.sm_90a.ptx\n")
    monkeypatch.chdir(tmp_path)
    assert run("-xptx", "k.fatbin.1.sm_80.ptx", str(f)) == (
        0, "Extracting PTX file and ptxas options    1: k.fatbin.1.sm_80.ptx -arch=sm_80 -O3\n"
    )
    assert (tmp_path / "k.fatbin.1.sm_80.ptx").read_bytes() == ptx[:-1]


def test_dump_elf_decodes_nv_info(programs):
    rc, text = run("-elf", str(programs.get("default").exe))
    assert rc == 0
    lines = text.splitlines()
    i = lines.index(".nv.info._Z7tileSumPKfPf")
    block = lines[i + 1 : lines.index("", i)]
    assert "\tEIATTR_CBANK_PARAM_SIZE                  EIFMT_HVAL\t0x10" in block
    assert "\tEIATTR_NUM_BARRIERS                      EIFMT_BVAL\t0x1" in block
    assert "\tEIATTR_MAX_THREADS                       EIFMT_SVAL\t0x80 0x1 0x1" in block
    size = cubin_info(fatbins_in_elf(str(programs.get("default").exe))[1].elf()[0].payload) \
        .kernels["_Z7tileSumPKfPf"].text_bytes
    assert f"  STT_FUNC     STB_GLOBAL  {size:>8} _Z7tileSumPKfPf  [.text._Z7tileSumPKfPf]" in lines
    assert "  STT_OBJECT   STB_LOCAL          4 g_counter  [.nv.global]" in lines
