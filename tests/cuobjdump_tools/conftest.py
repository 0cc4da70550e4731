"""Binaries for the fatbin tests, compiled once per session with the real nvcc (skip when absent)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cuobjdump_tools.fatbin_helpers import NVCC, REGISTER_STUB_C, RESOURCES_CU, SHARED_CU


# name -> extra nvcc flags
VARIANTS = {
    "default": [],
    "lz4": ["-Xfatbin", "-compress-mode=speed"],
    "multi": [
        "-gencode", "arch=compute_75,code=sm_75",
        "-gencode", "arch=compute_80,code=[sm_80,compute_80]",
        "-gencode", "arch=compute_90,code=compute_90",
    ],
    "stored": ["-Xfatbin", "-compress=false", "-lineinfo"],
}


@dataclass
class Built:
    exe: Path
    ptxas_log: str  # ptxas -v output of the same compile
    ptx: Path | None  # nvcc -ptx output for the default arch (default variant only)


class Programs:
    """Lazily compiles each variant once; tests ask only for what they use."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache: dict[str, Built] = {}
        (root / "res.cu").write_text(RESOURCES_CU)

    def get(self, variant: str) -> Built:
        if variant not in self.cache:
            exe = self.root / f"res_{variant}"
            cmd = [NVCC, "-cudart", "shared", "-Xptxas", "-v", *VARIANTS[variant], "res.cu", "-o", exe.name]
            r = subprocess.run(cmd, cwd=self.root, capture_output=True, text=True, timeout=300)
            if r.returncode != 0:
                pytest.fail(f"nvcc failed: {' '.join(cmd)}\n{r.stderr}")
            ptx = None
            if variant == "default":
                ptx = self.root / "res.ptx"
                subprocess.run([NVCC, "-ptx", "res.cu", "-o", ptx.name], cwd=self.root, check=True, timeout=300)
            self.cache[variant] = Built(exe, r.stdout + r.stderr, ptx)
        return self.cache[variant]

    def shared_lib(self, rdc: bool = False) -> tuple[Path, Path]:
        """(a library with device code built with -cudart none, libstub.so standing in for cudart).

        ``rdc``: relocatable device code, device-linked explicitly (nvcc -dlink), so the library
        registers a version-2 wrapper through __cudaRegisterLinkedBinary.
        """
        lib, stub = self.root / ("libk_rdc.so" if rdc else "libk.so"), self.root / "libstub.so"
        if not stub.exists():
            gcc = shutil.which("gcc") or shutil.which("cc")
            if gcc is None:
                pytest.skip("no C compiler for the registration stub")
            (self.root / "k.cu").write_text(SHARED_CU)
            (self.root / "stub.c").write_text(REGISTER_STUB_C)
            subprocess.run([gcc, "-shared", "-fPIC", "stub.c", "-o", stub.name], cwd=self.root, check=True,
                           timeout=120)
        if not lib.exists():
            pic = ["-Xcompiler", "-fPIC"]
            steps = (
                [[NVCC, "-rdc=true", "-c", *pic, "k.cu", "-o", "k_rdc.o"],
                 [NVCC, "-dlink", *pic, "k_rdc.o", "-o", "k_dlink.o"],
                 [NVCC, "-shared", "-cudart", "none", "k_rdc.o", "k_dlink.o", "-o", lib.name]]
                if rdc else [[NVCC, "-shared", *pic, "-cudart", "none", "k.cu", "-o", lib.name]]
            )
            for cmd in steps:
                subprocess.run(cmd, cwd=self.root, check=True, capture_output=True, timeout=300)
        return lib, stub


@pytest.fixture(scope="session")
def programs(tmp_path_factory: pytest.TempPathFactory) -> Programs:
    if NVCC is None:
        pytest.skip("nvcc not found")
    return Programs(tmp_path_factory.mktemp("fatbin_progs"))
