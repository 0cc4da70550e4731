"""Registration ABI with wrong arguments and unusable fat binaries (C027-C032).

A fat binary that cannot be used keeps its error on the module: launches of its kernels and
accesses to its variables return it, every other call keeps working.  Registration calls with
bad arguments (unknown handle, NULL stub, a name the PTX lacks) print one line and change
nothing else.  PTX comes from files through ``PTX_SIM_USE_PTX_FILE`` (C021/C022).
"""

from __future__ import annotations

import ctypes

import pytest

from gpgpusim.errors import Err

from tests.runtime.conftest import KERN, PTX, FakeEngine

u64 = ctypes.c_uint64


def addr(obj) -> int:
    return ctypes.addressof(obj)


class App:
    """Host-side storage standing for an application's stubs, shadows and name strings."""

    def __init__(self) -> None:
        self.stubs = (ctypes.c_char * 256)()
        self.shadows = (ctypes.c_char * 256)()
        self._names: dict[str, ctypes.Array] = {}

    def stub(self, i: int) -> int:
        return addr(self.stubs) + 8 * i

    def shadow(self, i: int) -> int:
        return addr(self.shadows) + 16 * i

    def name(self, n: str) -> int:
        if n not in self._names:
            self._names[n] = ctypes.create_string_buffer(n.encode())
        return addr(self._names[n])


@pytest.fixture
def fresh(monkeypatch):
    """A Runtime with nothing registered, its FakeEngine and an App."""
    from gpgpusim.options import load_config
    from gpgpusim.runtime.api import Runtime

    monkeypatch.setenv("PTX_SIM_USE_PTX_FILE", "1")
    monkeypatch.setenv("PTX_SIM_KERNELFILE", PTX)
    monkeypatch.delenv("CUDA_LAUNCH_BLOCKING", raising=False)
    monkeypatch.delenv("GPGPUSIM_TRACEBACK", raising=False)
    engine = FakeEngine()
    r = Runtime(load_config(None, env=False), launch_fn=engine, splash=False)
    r.engine = engine
    r.app = App()
    yield r
    r.streams.shutdown(2.0)


def register(rt, ptx_file: str, monkeypatch, stub: int, shadow: int, kernel: str = KERN,
             var: str = "dev_counter") -> int:
    """One module from ``ptx_file``: kernel ``kernel`` at stub slot ``stub``, __device__ int
    ``var`` at shadow slot ``shadow``."""
    monkeypatch.setenv("PTX_SIM_KERNELFILE", ptx_file)
    a = rt.app
    h = rt.gs_register_fatbinary(0)
    assert h != 0
    rt.__cudaRegisterFunction(h, a.stub(stub), a.name(kernel), a.name(kernel), -1, 0, 0, 0, 0, 0)
    rt.__cudaRegisterVar(h, a.shadow(shadow), a.name(var), a.name(var), 0, 4, 0, 0)
    rt.__cudaRegisterFatBinaryEnd(h)
    return h


def launch(rt, stub: int, args: int = 0, block: int = 32) -> int:
    g, b = (ctypes.c_uint32 * 3)(1, 1, 1), (ctypes.c_uint32 * 3)(block, 1, 1)
    return rt.gs_launch_kernel(1, stub, addr(g), addr(b), args, 0, 0)


def kern_args(out: int):
    p_out, p_n = u64(out), ctypes.c_int32(1)
    s = ctypes.create_string_buffer(16)
    return (ctypes.c_void_p * 3)(addr(p_out), addr(p_n), addr(s)), (p_out, p_n, s)


def assert_other_calls_work(rt) -> None:
    p = u64()
    assert rt.cudaMalloc(addr(p), 64) == 0 and p.value != 0
    assert rt.cudaMemset(p.value, 1, 64) == 0
    assert rt.cudaDeviceSynchronize() == 0
    assert rt.cudaFree(p.value) == 0


# ------------------------------------------------------------------------------ unusable modules
def test_missing_ptx_file_fails_only_that_module(fresh, monkeypatch, tmp_path, capsys):
    rt = fresh
    bad = register(rt, str(tmp_path / "missing.ptx"), monkeypatch, 0, 0)
    err = capsys.readouterr().err
    assert "gpgpusim: __cudaRegisterFatBinary: cudaErrorInvalidKernelImage:" in err
    assert "missing.ptx" in err and "launches of this fat binary's kernels" in err
    assert err.count("\n") == 1                         # reported once, not per call
    good = register(rt, PTX, monkeypatch, 1, 1)
    assert capsys.readouterr().err == ""
    assert_other_calls_work(rt)
    assert rt.cudaGetLastError() == 0
    # the broken module's kernel and variable return its error ...
    assert launch(rt, rt.app.stub(0)) == Err.InvalidKernelImage
    assert f"kernel {KERN}: PTX_SIM_USE_PTX_FILE is set" in capsys.readouterr().err
    assert rt.cudaGetLastError() == Err.InvalidKernelImage
    v = ctypes.c_int32()
    assert rt.cudaMemcpyFromSymbol(addr(v), rt.app.shadow(0), 4, 0, 2) == Err.InvalidKernelImage
    assert "symbol dev_counter:" in capsys.readouterr().err
    a = u64()
    assert rt.cudaGetSymbolAddress(addr(a), rt.app.shadow(0)) == Err.InvalidKernelImage
    assert rt.gs_init_module(bad) == 0
    # ... the good module works, and so does everything else afterwards
    assert rt.cudaMemcpyFromSymbol(addr(v), rt.app.shadow(1), 4, 0, 2) == 0 and v.value == 7
    assert rt.gs_init_module(good) == 1
    out = u64()
    assert rt.cudaMalloc(addr(out), 64) == 0
    args, keep = kern_args(out.value)
    assert launch(rt, rt.app.stub(1), addr(args)) == 0
    assert rt.cudaDeviceSynchronize() == 0
    assert [c[0] for c in rt.engine.calls] == [KERN]
    assert_other_calls_work(rt)


def test_malformed_ptx_is_invalid_ptx_on_use(fresh, monkeypatch, tmp_path, capsys):
    rt = fresh
    broken = tmp_path / "broken.ptx"
    broken.write_text(".version 8.0\n.target sm_70\n.address_size 64\n.visible .entry k( {\n")
    register(rt, str(broken), monkeypatch, 0, 0, kernel="k")
    assert "cudaErrorInvalidPtx" in capsys.readouterr().err
    assert_other_calls_work(rt)
    assert launch(rt, rt.app.stub(0)) == Err.InvalidPtx
    assert rt.cudaGetLastError() == Err.InvalidPtx
    assert rt.cudaGetLastError() == 0                    # not sticky


def test_null_and_bad_fatbin_wrappers(monkeypatch, capsys):
    from gpgpusim.options import load_config
    from gpgpusim.runtime.api import Runtime

    monkeypatch.delenv("PTX_SIM_USE_PTX_FILE", raising=False)
    junk = ctypes.create_string_buffer(b"\x00" * 64)
    r = Runtime(load_config(None, env=False), splash=False)
    app = App()
    try:
        h0 = r.gs_register_fatbinary(0)
        assert h0 != 0 and "NULL fatbin wrapper pointer" in capsys.readouterr().err
        h1 = r.gs_register_fatbinary(addr(junk))
        assert h1 != 0 and "bad fatbin wrapper magic" in capsys.readouterr().err
        r.__cudaRegisterFunction(h1, app.stub(0), app.name("k"), app.name("k"), -1, 0, 0, 0, 0, 0)
        r.__cudaRegisterFatBinaryEnd(h0)
        r.__cudaRegisterFatBinaryEnd(h1)
        assert capsys.readouterr().err == ""             # already reported
        assert_other_calls_work(r)
        assert launch(r, app.stub(0)) == Err.InvalidKernelImage
    finally:
        r.streams.shutdown(2.0)


# ------------------------------------------------------------------------------ wrong arguments
def test_register_function_wrong_arguments(fresh, monkeypatch, capsys):
    rt = fresh
    a = rt.app
    monkeypatch.setenv("PTX_SIM_KERNELFILE", PTX)
    h = rt.gs_register_fatbinary(0)
    rt.__cudaRegisterFunction(h, 0, a.name(KERN), a.name(KERN), -1, 0, 0, 0, 0, 0)        # NULL stub
    assert (f"gpgpusim: __cudaRegisterFunction: cudaErrorInvalidValue: NULL host stub for kernel {KERN}"
            in capsys.readouterr().err)
    assert rt.registry.kernels == {}
    rt.__cudaRegisterFunction(h, a.stub(0), 0, 0, -1, 0, 0, 0, 0, 0)                        # NULL name
    assert "NULL kernel name" in capsys.readouterr().err and rt.registry.kernels == {}
    rt.__cudaRegisterFunction(h, a.stub(1), a.name("_Z7missingv"), a.name("_Z7missingv"), -1, 0, 0, 0, 0, 0)
    err = capsys.readouterr().err
    assert ("__cudaRegisterFunction: cudaErrorInvalidDeviceFunction: kernel _Z7missingv is not an .entry "
            "of the PTX") in err and "launching it returns this error" in err
    rt.__cudaRegisterFunction(h, a.stub(2), a.name(KERN), a.name(KERN), -1, 0, 0, 0, 0, 0)   # valid
    rt.__cudaRegisterFatBinaryEnd(h)
    assert capsys.readouterr().err == ""
    assert_other_calls_work(rt)
    assert launch(rt, a.stub(1)) == Err.InvalidDeviceFunction
    assert launch(rt, a.stub(0)) == Err.InvalidDeviceFunction      # never registered
    out = u64()
    assert rt.cudaMalloc(addr(out), 64) == 0
    args, keep = kern_args(out.value)
    assert launch(rt, a.stub(2), addr(args)) == 0
    assert rt.cudaDeviceSynchronize() == 0 and len(rt.engine.calls) == 1


def test_register_var_wrong_arguments(fresh, monkeypatch, capsys):
    rt = fresh
    a = rt.app
    monkeypatch.setenv("PTX_SIM_KERNELFILE", PTX)
    h = rt.gs_register_fatbinary(0)
    rt.__cudaRegisterVar(h, a.shadow(0), a.name("no_such_var"), a.name("no_such_var"), 0, 4, 0, 0)
    err = capsys.readouterr().err
    assert "__cudaRegisterVar: cudaErrorInvalidSymbol: variable no_such_var is not in the PTX" in err
    managed_ptr = u64(0)
    rt.__cudaRegisterManagedVar(h, addr(managed_ptr), a.name("no_managed"), a.name("no_managed"), 0, 8, 0, 0)
    assert "__cudaRegisterManagedVar: cudaErrorInvalidSymbol: variable no_managed" in capsys.readouterr().err
    rt.__cudaRegisterVar(h, 0, a.name("dev_counter"), a.name("dev_counter"), 0, 4, 0, 0)
    assert "NULL host shadow for variable dev_counter" in capsys.readouterr().err
    rt.__cudaRegisterVar(h, a.shadow(1), a.name("dev_counter"), a.name("dev_counter"), 0, 4, 0, 0)
    rt.__cudaRegisterFatBinaryEnd(h)
    assert capsys.readouterr().err == ""
    # the module loaded: the good variable works, the unknown ones are invalid symbols
    assert managed_ptr.value != 0                        # placeholder host memory, never NULL
    v = ctypes.c_int32()
    assert rt.cudaMemcpyFromSymbol(addr(v), a.shadow(1), 4, 0, 2) == 0 and v.value == 7
    assert rt.cudaMemcpyFromSymbol(addr(v), a.shadow(0), 4, 0, 2) == Err.InvalidSymbol
    assert rt.cudaMemcpyToSymbol(addr(managed_ptr), addr(v), 4, 0, 1) == Err.InvalidSymbol
    assert rt.gs_init_module(h) == 1
    assert_other_calls_work(rt)


def test_bogus_module_handles(fresh, monkeypatch, capsys):
    rt = fresh
    a = rt.app
    bogus = addr(a.shadows)
    msg = f"cudaErrorInvalidResourceHandle: fat binary handle {bogus:#x} was not returned by __cudaRegisterFatBinary"
    rt.__cudaRegisterFatBinaryEnd(bogus)
    assert f"gpgpusim: __cudaRegisterFatBinaryEnd: {msg}" in capsys.readouterr().err
    assert rt.gs_init_module(bogus) == 0
    assert f"gpgpusim: __cudaInitModule: {msg}" in capsys.readouterr().err
    rt.__cudaRegisterFunction(bogus, a.stub(0), a.name(KERN), a.name(KERN), -1, 0, 0, 0, 0, 0)
    assert f"gpgpusim: __cudaRegisterFunction: {msg}" in capsys.readouterr().err
    rt.__cudaRegisterVar(bogus, a.shadow(0), a.name("dev_counter"), a.name("dev_counter"), 0, 4, 0, 0)
    assert f"gpgpusim: __cudaRegisterVar: {msg}" in capsys.readouterr().err
    rt.__cudaUnregisterFatBinary(bogus)
    assert f"gpgpusim: __cudaUnregisterFatBinary: {msg}" in capsys.readouterr().err
    assert rt.registry.kernels == {} and rt.registry.variables == {}
    assert rt.cudaGetLastError() == 0                    # registration calls set no last error
    assert_other_calls_work(rt)
    # a real module registered afterwards is unaffected; unregistering it twice is reported
    h = register(rt, PTX, monkeypatch, 0, 0)
    assert rt.gs_init_module(h) == 1
    assert not rt._exited
    rt.__cudaUnregisterFatBinary(h)
    assert rt._exited                                    # the last module: final report
    capsys.readouterr()
    rt.__cudaUnregisterFatBinary(h)
    assert f"fat binary handle {h:#x} was already unregistered" in capsys.readouterr().err
