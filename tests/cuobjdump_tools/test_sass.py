"""cuobjdump_tools.sass: nvdisasm-decoded SASS records, ``-sass``, and failures as one line."""

from __future__ import annotations

import io
import random
import subprocess
from pathlib import Path

import pytest

from cuobjdump_tools import sass
from cuobjdump_tools.__main__ import main
from tests.cuobjdump_tools.fatbin_helpers import NVCC

VECTOR_ADD = r"""
__global__ void vectorAdd(const float *a, const float *b, float *c, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
int main() { return 0; }
"""

needs_nvdisasm = pytest.mark.skipif(sass.find_nvdisasm() is None, reason=sass.INSTALL_HINT)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, bytes]:
    """(an executable with an sm_75 cubin, the sm_75 cubin itself)."""
    d = tmp_path_factory.mktemp("sass")
    (d / "va.cu").write_text(VECTOR_ADD)
    for cmd in ([NVCC, "-cudart", "shared", "-arch=sm_75", "va.cu", "-o", "va"],
                [NVCC, "-cubin", "-arch=sm_75", "va.cu", "-o", "va.cubin"]):
        r = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            pytest.fail(f"nvcc failed: {' '.join(cmd)}\n{r.stderr}")
    return d / "va", (d / "va.cubin").read_bytes()


def test_split_operands_keeps_brackets_and_braces():
    assert sass.split_operands("R6,R6,c[0x0][0x0],R3") == ("R6", "R6", "c[0x0][0x0]", "R3")
    assert sass.split_operands("[R2.64+UR4+0x10],R9") == ("[R2.64+UR4+0x10]", "R9")
    assert sass.split_operands("R0, {R4,R5}, 0x1") == ("R0", "{R4,R5}", "0x1")
    assert sass.split_operands("") == ()


def test_parse_json_records():
    text = ('[{"SM":{"version":{"major":8,"minor":6}},"Producer":"nvdisasm X"},'
            '[{"function-name":"k","start":0,"length":48,"sass-instructions":['
            '{"opcode":"IMAD.WIDE.U32","operands":"R2,R6,R7,c[0x0][0x160]"},'
            '{"predicate":"@!P0","opcode":"EXIT"},'
            '{"opcode":"BRA","operands":"0x20"}]}]]')
    lst = sass.parse_nvdisasm_json(text)
    assert lst.arch == 86
    ins = lst.functions["k"].instructions
    assert [(i.offset, i.pred, i.opcode, i.modifiers, i.operands) for i in ins] == [
        (0x00, "", "IMAD", ("WIDE", "U32"), ("R2", "R6", "R7", "c[0x0][0x160]")),
        (0x10, "!P0", "EXIT", (), ()),
        (0x20, "", "BRA", (), ("0x20",)),
    ]
    assert str(ins[1]) == "@!P0 EXIT ;"
    assert ins[0].full_opcode == "IMAD.WIDE.U32"


def test_parse_json_predicate_register_operand():
    """-json prints `P2R R0, PR, RZ, 0x1` with PR as the guard; it is put back as an operand."""
    text = ('[{}, [{"function-name": "k", "sass-instructions": ['
            '{"predicate": "@PR", "opcode": "P2R", "operands": "R0,RZ,0x1"},'
            '{"predicate": "@PR", "opcode": "R2P", "operands": "R0,0x7f"}]}]]')
    ins = sass.parse_nvdisasm_json(text).functions["k"].instructions
    assert [(i.pred, i.operands) for i in ins] == [("", ("R0", "PR", "RZ", "0x1")), ("", ("PR", "R0", "0x7f"))]


@pytest.mark.parametrize("text", ["", "{}", "[1, 2]", '[{}, [{"start": 0}]]',
                                  '[{}, [{"function-name": "k", "sass-instructions": [{"opcode": ""}]}]]',
                                  '[{}, [{"function-name": "k", "sass-instructions": 5}]]',
                                  '[{"SM": {"version": {"major": "x"}}}, []]'])
def test_parse_json_malformed_is_one_error(text):
    with pytest.raises(sass.SassError):
        sass.parse_nvdisasm_json(text)


@needs_nvdisasm
def test_disassemble_vector_add(built):
    _, cubin = built
    lst = sass.disassemble(cubin)
    assert lst.arch == 75
    fn = lst.functions["_Z9vectorAddPKfS0_Pfi"]
    assert [str(i) for i in fn.instructions] == [
        "MOV R1, c[0x0][0x28] ;",
        "S2R R6, SR_CTAID.X ;",
        "S2R R3, SR_TID.X ;",
        "IMAD R6, R6, c[0x0][0x0], R3 ;",
        "ISETP.GE.AND P0, PT, R6, c[0x0][0x178], PT ;",
        "@P0 EXIT ;",
        "MOV R7, 0x4 ;",
        "IMAD.WIDE R4, R6, R7, c[0x0][0x168] ;",
        "IMAD.WIDE R2, R6, R7, c[0x0][0x160] ;",
        "LDG.E.SYS R4, [R4] ;",
        "LDG.E.SYS R3, [R2] ;",
        "IMAD.WIDE R6, R6, R7, c[0x0][0x170] ;",
        "FADD R9, R4, R3 ;",
        "STG.E.SYS [R6], R9 ;",
        "EXIT ;",
        "BRA 0xf0 ;",
    ]
    assert fn.instructions[-1].offset == 0xF0


@needs_nvdisasm
def test_cli_sass(built):
    exe, _ = built
    out = io.StringIO()
    assert main(["-sass", str(exe)], out=out) == 0
    text = out.getvalue()
    assert "\t\tFunction : _Z9vectorAddPKfS0_Pfi\n" in text
    assert "        /*0070*/                   IMAD.WIDE R4, R6, R7, c[0x0][0x168] ;\n" in text
    assert text.count("\tcode for sm_75\n") == 2   # the kernel's cubin and the device-link stub's


def test_cli_sass_without_nvdisasm(built, monkeypatch, capsys):
    exe, _ = built
    monkeypatch.setenv("GPGPUSIM_NVDISASM", "/nonexistent/nvdisasm")
    assert main(["-sass", str(exe)], out=io.StringIO()) == 1
    assert capsys.readouterr().err == f"cuobjdump_tools: error: {sass.INSTALL_HINT}\n"


def test_not_a_cubin():
    with pytest.raises(sass.SassError, match="not a cubin"):
        sass.disassemble(b"\x7fELF" + b"\0" * 10)
    with pytest.raises(sass.SassError, match="not a cubin"):
        sass.disassemble(b"MZ" * 64)


@needs_nvdisasm
def test_truncated_and_corrupt_cubins_never_crash(built):
    """Truncations at every 1/40th and seeded random byte corruptions: a listing or a
    SassError with a one-line message, nothing else."""
    _, cubin = built
    rng = random.Random(27)
    cases = [cubin[: len(cubin) * k // 40] for k in range(40)]
    for _ in range(30):
        b = bytearray(cubin)
        for _ in range(rng.randint(1, 16)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        cases.append(bytes(b))
    cases.append(bytes(rng.randrange(256) for _ in range(4096)))
    errors = 0
    for data in cases:
        try:
            lst = sass.disassemble(data)
        except sass.SassError as exc:
            errors += 1
            assert exc.message and "\n" not in exc.message
        else:
            assert isinstance(lst, sass.SassListing)
    assert errors >= 40  # every truncation and the random blob at least
