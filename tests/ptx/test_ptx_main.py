"""``python -m gpgpusim.ptx`` inspection tool."""

from __future__ import annotations

from pathlib import Path

from gpgpusim.ptx.__main__ import main

DATA = Path(__file__).parent / "data"


def test_main_prints_functions_params_and_reconvergence(capsys):
    assert main([str(DATA / "vectoradd.ptx"), "--blocks", "--pdom"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{DATA / 'vectoradd.ptx'}: PTX 9.0 sm_75, 1 functions, 0 variables, parsed in ")
    assert ".entry _Z6vecAddPKfS0_Pfi: 22 instructions, 23 registers, 3 basic blocks" in out
    assert "    param _Z6vecAddPKfS0_Pfi_param_3: .u32 x1 @ offset 24" in out
    assert any(line.endswith("PC=0x0a8 (" + str(DATA / "vectoradd.ptx") + ":52) ret;") for line in out)
    assert "Printing basic blocks for function '_Z6vecAddPKfS0_Pfi':" in out
    assert "Printing immediate postdominators for function '_Z6vecAddPKfS0_Pfi':" in out


def test_main_reports_errors(tmp_path, capsys):
    bad = tmp_path / "bad.ptx"
    bad.write_text(".version 9.0\n.entry k() {\n  ret\n}\n")
    assert main([str(bad)]) == 1
    assert capsys.readouterr().err == f"{bad}:4:1: syntax error: unexpected '}}'\n    }}\n"
