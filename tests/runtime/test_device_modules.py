"""Device properties from other configs, PTX sources (C021/C022/C029), launch helpers, hostio."""

from __future__ import annotations

import ctypes
import struct
from types import SimpleNamespace

import pytest

from gpgpusim.errors import CudaError, Err
from gpgpusim.options import load_config
from gpgpusim import hostio
from gpgpusim.runtime.device import DeviceInfo
from gpgpusim.runtime.launch import marshal_params
from gpgpusim.runtime.modules import Registry, ptx_for_module


def test_device_info_follows_the_config():
    d = DeviceInfo.from_config(load_config(None, gpu="SM75_RTX2060", env=False), "SM75_RTX2060")
    assert d.name == "GPGPU-Sim SM75_RTX2060"
    assert d.sm_count == 30
    assert (d.major, d.minor) == (7, 5)
    assert d.threads_per_sm == 1024
    d2 = DeviceInfo.from_config(load_config(None, overrides=["-gpgpu_n_clusters=4"], env=False))
    assert d2.sm_count == 4


def test_device_memory_env(monkeypatch):
    monkeypatch.setenv("GPGPUSIM_DEVICE_MEMORY", "0x40000000")
    assert DeviceInfo.from_config(None).total_mem_bytes == 1 << 30


def test_ptx_file_override(tmp_path, monkeypatch):
    reg = Registry()
    m1, m2 = reg.new_module(0), reg.new_module(0)
    (tmp_path / "_2.ptx").write_text("// second module\n")
    monkeypatch.chdir(tmp_path)
    env = {"PTX_SIM_USE_PTX_FILE": "1"}
    assert ptx_for_module(m2, 70, env) == ("// second module\n", "_2.ptx")
    with pytest.raises(CudaError) as e:
        ptx_for_module(m1, 70, env)
    assert e.value.code == Err.InvalidKernelImage and "_1.ptx" in e.value.message
    (tmp_path / "k.ptx").write_text("// named\n")
    assert ptx_for_module(m1, 70, {**env, "PTX_SIM_KERNELFILE": "k.ptx"}) == ("// named\n", "k.ptx")
    assert reg.module(m1.handle) is m1 and m1.handle != m2.handle
    with pytest.raises(CudaError) as e:
        reg.module(12345)
    assert e.value.code == Err.InvalidResourceHandle


def test_marshal_params_alignment_and_errors():
    params = [SimpleNamespace(name="a", offset=0, size_bytes=1), SimpleNamespace(name="b", offset=8, size_bytes=8),
              SimpleNamespace(name="c", offset=16, size_bytes=12)]
    fn = SimpleNamespace(name="k", params=params)
    a, b, c = ctypes.c_uint8(7), ctypes.c_uint64(2**40 + 3), ctypes.create_string_buffer(b"abcdefghijkl", 12)
    arr = (ctypes.c_void_p * 3)(ctypes.addressof(a), ctypes.addressof(b), ctypes.addressof(c))
    buf = marshal_params("t", fn, ctypes.addressof(arr))
    assert len(buf) == 28 and buf[0] == 7 and buf[1:8] == b"\0" * 7
    assert struct.unpack_from("<Q", buf, 8)[0] == 2**40 + 3 and buf[16:] == b"abcdefghijkl"
    arr[1] = None
    with pytest.raises(CudaError) as e:
        marshal_params("t", fn, ctypes.addressof(arr))
    assert e.value.code == Err.InvalidValue and "args[1]" in e.value.message
    assert marshal_params("t", SimpleNamespace(name="k", params=[]), 0) == b""


def test_hostio_routes_output():
    seen = []
    hostio.set_stdout_writer(seen.append, lambda: seen.append("<flush>"))
    try:
        hostio.out("device line\n")
        hostio.flush()
    finally:
        hostio.set_stdout_writer(None, None)
    assert seen == ["device line\n", "<flush>"]
