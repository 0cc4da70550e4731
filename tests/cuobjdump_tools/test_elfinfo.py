"""cuobjdump_tools.elfinfo: cubin resources equal ptxas -v's figures for the same compile."""

from __future__ import annotations

import csv
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuobjdump_tools import FatbinError, fatbins_in_elf
from cuobjdump_tools.elfinfo import (
    KernelParam,
    KernelResources,
    cubin_info,
    kernel_resources,
    parse_nv_info,
)
from tests.cuobjdump_tools.fatbin_helpers import NVCC, parse_ptxas_v
import os

# ../shared beside the checkout (the reference data); GPGPUSIM_SHARED overrides.
SHARED_DIR = os.environ.get("GPGPUSIM_SHARED") or str(Path(__file__).resolve().parents[3] / "shared")

REFERENCE = Path(SHARED_DIR, "reference")


def _cubins(exe):
    return [e for fb in fatbins_in_elf(str(exe)) for e in fb.elf()]


@pytest.mark.parametrize("variant", ["default", "multi"])
def test_resources_equal_ptxas_v(programs, variant):
    b = programs.get(variant)
    expected = parse_ptxas_v(b.ptxas_log)
    got = {}
    for cubin in _cubins(b.exe):
        info = cubin_info(cubin.payload)
        assert info.arch == cubin.arch
        for name, k in info.kernels.items():
            got[(name, f"sm_{info.arch}")] = {
                "regs": k.regs, "barriers": k.barriers, "smem": k.static_smem_bytes,
                "cmem0": k.cmem0_bytes, "stack": k.frame_bytes,
            }
    assert got == expected
    assert len(expected) == (3 if variant == "default" else 6)


def test_kernel_details(programs):
    cubin = _cubins(programs.get("default").exe)[-1]
    info = cubin_info(cubin.payload)
    assert set(info.kernels) == {"_Z6vecAddPKfS0_Pfi", "_Z7tileSumPKfPf", "_Z8localArrPKiPii"}
    va = info.kernels["_Z6vecAddPKfS0_Pfi"]
    assert va.params == [KernelParam(0, 0, 8), KernelParam(1, 8, 8), KernelParam(2, 16, 8), KernelParam(3, 24, 4)]
    assert va.param_bytes == 28 and va.param_cbank_offset + va.param_bytes == va.cmem0_bytes
    assert va.max_threads is None and va.reqntid is None
    ts = info.kernels["_Z7tileSumPKfPf"]
    assert ts.max_threads == (128, 1, 1)  # __launch_bounds__(128)
    la = info.kernels["_Z8localArrPKiPii"]
    assert la.min_stack_bytes == 1024  # ptxas "1024 bytes cumulative stack size"
    assert all(0 <= o < k.text_bytes and o % 16 == 0 for k in info.kernels.values() for o in k.exit_offsets)
    # ptxas: "4 bytes gmem, 16 bytes cmem[3], 8 bytes cmem[4]"
    assert (info.global_bytes, info.const_bytes) == (4, {3: 16, 4: 8})
    assert info.variables["g_counter"] == (".nv.global", 4)
    assert info.variables["c_scale"] == (".nv.constant3", 16)
    res = kernel_resources(cubin.payload)
    assert res["_Z7tileSumPKfPf"] == KernelResources(
        regs=14, static_smem_bytes=576, local_bytes=0, max_threads=128, barriers=1, param_bytes=16
    )
    assert res["_Z8localArrPKiPii"].local_bytes == 1024
    assert res["_Z6vecAddPKfS0_Pfi"].max_threads == 1024


def test_nv_info_formats():
    data = bytes([0x01, 0x04, 0, 0]) + bytes([0x02, 0x4C, 0x03, 0x00]) + bytes([0x03, 0x19]) + struct.pack("<H", 28) \
        + bytes([0x04, 0x37]) + struct.pack("<HI", 4, 130)
    attrs = parse_nv_info(data)
    assert [(a.fmt, a.name, a.value) for a in attrs] == [
        (1, "EIATTR_CTAIDZ_USED", None),
        (2, "EIATTR_NUM_BARRIERS", 3),
        (3, "EIATTR_CBANK_PARAM_SIZE", 28),
        (4, "EIATTR_CUDA_API_VERSION", struct.pack("<I", 130)),
    ]
    with pytest.raises(FatbinError, match=r"\.nv\.info: unknown record format 0x9 at byte 0"):
        parse_nv_info(b"\x09\x01\x00\x00")
    with pytest.raises(FatbinError, match="claims 16 bytes, 2 left"):
        parse_nv_info(b"\x04\x17\x10\x00\x01\x02")
    with pytest.raises(FatbinError, match="truncated record header at byte 0"):
        parse_nv_info(b"\x03\x19\x01")


def test_not_elf():
    with pytest.raises(FatbinError, match="ELF magic"):
        cubin_info(b"PK\x03\x04")
    with pytest.raises(FatbinError, match="corrupt cubin ELF"):
        cubin_info(b"\x7fELF" + bytes(10))


@given(st.data())
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_fuzz_mutated_cubin(programs, data):
    blob = bytearray(_cubins(programs.get("default").exe)[-1].payload)
    for _ in range(data.draw(st.integers(1, 6))):
        i = data.draw(st.integers(0, len(blob) - 1))
        blob[i] = data.draw(st.integers(0, 255))
    blob = blob[: data.draw(st.integers(0, len(blob)))] if data.draw(st.booleans()) else blob
    try:
        cubin_info(bytes(blob))
    except FatbinError:
        pass


@pytest.mark.slow
def test_reference_programs_match_gpgpusim_csv(tmp_path):
    """regs/static smem of the 17 reference kernels equal the CSV's (ptxas for sm_75)."""
    if NVCC is None or not REFERENCE.exists():
        pytest.skip("nvcc or the shared reference folder missing")
    srcs = sorted((REFERENCE / "programs").glob("*.cu"))
    for s in srcs:
        shutil.copy(s, tmp_path)
    subprocess.run([NVCC, "-c", "-O2", *[s.name for s in srcs], "-odir", "."], cwd=tmp_path, check=True,
                   capture_output=True, timeout=600)
    ref = {}
    with open(REFERENCE / "gpgpusim-reference.csv") as f:
        for r in csv.DictReader(f):
            ref[(r["program"], r["kernel_name"])] = (int(r["regs_per_thread"]), int(r["static_smem_bytes"]))
    got = {}
    for s in srcs:
        for cubin in _cubins(tmp_path / (s.stem + ".o")):
            for name, res in kernel_resources(cubin.payload).items():
                got[(s.stem, name)] = (res.regs, res.static_smem_bytes)
    assert len(ref) == 17
    assert {k: got.get(k) for k in ref} == ref
