"""load_module: module-scope .global/.const allocation and initialisers (C229)."""

import numpy as np
import pytest

from gpgpusim.errors import CudaError, Err
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.ptx import ir


def _module():
    m = ir.Module("t.ptx")
    m.variables["tab"] = ir.Variable("tab", "const", "f32", count=4, init=[1.5, -2.0, 3])
    m.variables["cnt"] = ir.Variable("cnt", "global", "u32", init=[0xFFFFFFFF + 2])
    m.variables["ptr"] = ir.Variable("ptr", "global", "u64", count=2, init=[ir.Sym("tab"), ir.Sym("cnt")])
    m.variables["v"] = ir.Variable("v", "global", "s16", count=2, vector=2, init=[-1, 2, 3])
    m.variables["sm"] = ir.Variable("sm", "shared", "u32", count=8)
    m.functions["k"] = ir.Function("k", True)
    return m


def test_load_module_allocates_and_initialises():
    g = GlobalMemory()
    lm = load_module(_module(), g)
    assert set(lm.symbols) == {"tab", "cnt", "ptr", "v"}
    tab = lm.symbols["tab"]
    assert tab.space == "const" and tab.size == 16
    assert g.read(tab.address, 16).view(np.float32).tolist() == [1.5, -2.0, 3.0, 0.0]
    assert g.read(lm.symbols["cnt"].address, 4).view(np.uint32).tolist() == [1]
    assert g.read(lm.symbols["ptr"].address, 16).view(np.uint64).tolist() == [
        tab.address, lm.symbols["cnt"].address]
    assert lm.symbols["v"].size == 8
    assert g.read(lm.symbols["v"].address, 8).view(np.int16).tolist() == [-1, 2, 3, 0]
    assert lm.function("k").name == "k"
    with pytest.raises(CudaError) as e:
        lm.function("nope")
    assert e.value.code == Err.InvalidDeviceFunction
    lm.unload()
    assert g.used_bytes == 0


def test_bad_symbol_initialiser_is_an_error():
    m = ir.Module("t.ptx")
    m.variables["p"] = ir.Variable("p", "global", "u64", init=[ir.Sym("missing")], line=7)
    with pytest.raises(CudaError) as e:
        load_module(m, GlobalMemory())
    assert e.value.code == Err.InvalidPtx and "t.ptx:7" in str(e.value) and "missing" in str(e.value)


def test_symbol_plus_offset_and_function_address_initialisers():
    from gpgpusim.functional.loader import FUNCTION_HANDLE_BASE
    m = ir.Module("t.ptx")
    m.variables["arr"] = ir.Variable("arr", "global", "b8", count=16)
    m.variables["p"] = ir.Variable("p", "global", "u64", init=[ir.Addr(ir.Sym("arr"), 8)])
    m.variables["ops"] = ir.Variable("ops", "global", "u64", count=2, init=[ir.Sym("f"), ir.Sym("g")])
    m.functions["f"] = ir.Function("f", False)
    m.functions["g"] = ir.Function("g", False)
    g = GlobalMemory()
    lm = load_module(m, g)
    assert g.read(lm.symbols["p"].address, 8).view(np.uint64)[0] == lm.symbols["arr"].address + 8
    f, gg = g.read(lm.symbols["ops"].address, 16).view(np.uint64).tolist()
    assert f == FUNCTION_HANDLE_BASE and gg == FUNCTION_HANDLE_BASE + 16
    assert g.find(f) is None          # a handle is no device memory
