"""gpgpusim.ptxplus.apply / select_cubin without a CUDA binary: which cubin is chosen, and a
corrupt cubin is one SassError (cudaErrorInvalidKernelImage), never another exception."""

from __future__ import annotations

import random
import types

import pytest

from cuobjdump_tools.fatbin import FatbinEntry
from cuobjdump_tools.sass import SassError
from gpgpusim.errors import Err
from gpgpusim.ptx import parse_ptx
from gpgpusim.ptxplus import apply, select_cubin

PTX = """
.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 k_p)
{
    ret;
}
"""


def elf(arch: int, payload: bytes = b"\x7fELF") -> FatbinEntry:
    return FatbinEntry(kind="elf", arch=arch, flags=0x11, name="", payload=payload)


def ptx(arch: int) -> FatbinEntry:
    return FatbinEntry(kind="ptx", arch=arch, flags=0x11, name="", payload=b"")


def test_select_cubin():
    assert select_cubin([ptx(75)], 86) == (None, "")
    e75, e80, e86 = elf(75), elf(80), elf(86)
    assert select_cubin([e75, e86, e80, ptx(86)], 86) == (e86, "")
    assert select_cubin([e75, e86, e80], 80) == (e80, "")
    assert select_cubin([e86, e75], 0) == (e86, "")
    assert select_cubin([e86, e80], 70) == (e80, "no cubin for compute capability <= 70, so its oldest, sm_80, "
                                                  "is simulated")


def module(entries: list[FatbinEntry]) -> types.SimpleNamespace:
    return types.SimpleNamespace(index=3, fatbin=types.SimpleNamespace(entries=entries), ir=parse_ptx(PTX, "m.ptx"))


def test_ptx_only_module_says_so_and_keeps_its_ptx():
    m = module([ptx(75)])
    before = m.ir
    res = apply(m, 75)
    assert (res.arch, res.converted, res.errors) == (0, [], {})
    assert res.notes == ["GPGPU-Sim PTXPlus: fat binary #3 has no cubin (PTX only): its PTX is simulated"]
    assert m.ir is before


@pytest.mark.parametrize("seed", range(12))
def test_corrupt_cubins_are_one_sass_error(seed):
    rng = random.Random(seed)
    n = rng.choice([0, 3, 16, 63, 64, 200, 4096])
    payload = (b"\x7fELF" + bytes(rng.randrange(256) for _ in range(n)))[: max(n, 4)]
    m = module([elf(75, payload)])
    with pytest.raises(SassError) as ei:
        apply(m, 75)
    assert ei.value.code == Err.InvalidKernelImage
    assert ei.value.message and "\n" not in ei.value.message
