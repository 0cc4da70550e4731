"""Registered fat binaries, kernels and variables (CUDA 13 host-stub registration ABI).

GPGPU-Sim counterparts: ``__cudaRegisterFatBinary`` / ``cuobjdumpParseBinary`` /
``__cudaRegisterFunction`` / ``__cudaRegisterVar`` in ``libcuda/cuda_runtime_api.cc`` and the
per-context tables of ``CUctx_st`` (checklist C027-C032, C046).

* A module is one ``__cudaRegisterFatBinary`` call (one CUDA translation unit).  Its PTX is read
  in-process from the fatbin wrapper (``cuobjdump_tools.fatbin.parse_wrapper``), the newest PTX
  not newer than ``-gpgpu_ptx_force_max_capability`` is chosen (C029), parsed
  (``gpgpusim.ptx.load_ptx_cached``) and loaded onto the device when registration ends
  (``__cudaRegisterFatBinaryEnd``), which allocates and initialises its ``__device__`` and
  ``__constant__`` variables.
* ``PTX_SIM_USE_PTX_FILE`` (C021) replaces the embedded PTX by a file: ``PTX_SIM_KERNELFILE``
  (C022) names it, otherwise the n-th module reads ``_n.ptx`` as GPGPU-Sim 3.x does.
* Kernels are keyed by their host stub address (``hostFun``), never by name: two modules may
  register the same mangled name.  Variables are keyed by the host shadow's address.
* Per-kernel resources (registers, shared/local memory, max threads) come from the cubin's
  ``.nv.info`` (``cuobjdump_tools.elfinfo.kernel_resources``) when the fatbin carries one, else
  from the PTX (``gpgpusim.ptx.resources.analyze``).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cuobjdump_tools import elfinfo
from cuobjdump_tools import fatbin as fb
from gpgpusim import hostio
from gpgpusim.errors import CudaError, Err
from gpgpusim.options.config import configs_dir
from gpgpusim.ptx import resources as ptx_resources


@dataclass
class KernelResources:
    """What occupancy and launch checks need (``cudaFuncAttributes`` figures)."""

    regs: int = 0
    static_smem_bytes: int = 0
    local_bytes: int = 0
    max_threads: int = 1024
    const_bytes: int = 0
    source: str = "default"


@dataclass
class Module:
    """One registered fat binary (the handle returned by ``__cudaRegisterFatBinary``)."""

    index: int
    wrapper_addr: int
    handle_buf: Any                       # ctypes buffer whose address is the handle
    ptx_name: str = ""
    ptx_arch: int = 0
    ir: Any = None                        # gpgpusim.ptx.ir.Module
    loaded: Any = None                    # gpgpusim.functional.loader.LoadedModule
    resources: dict[str, Any] = field(default_factory=dict)   # from .nv.info
    error: CudaError | None = None        # why the module is unusable (returned when it is used)
    fatbin: Any = None
    unregistered: bool = False
    ptxplus: Any = None                   # gpgpusim.ptxplus.PtxplusResult in PTXPlus mode

    @property
    def handle(self) -> int:
        return ctypes.addressof(self.handle_buf)


@dataclass
class Kernel:
    """A ``__cudaRegisterFunction`` entry."""

    module: Module
    name: str                             # mangled name (the PTX .entry)
    host_fun: int
    attrs: dict[int, int] = field(default_factory=dict)   # cudaFuncSetAttribute values
    cache_config: int = 0
    _resources: KernelResources | None = None

    def function(self, launch: bool = True) -> Any:
        """The PTX ``.entry``; raises the module's own error when the module is unusable, and
        for a launch (``launch``) in PTXPlus mode the reason the kernel's SASS cannot run (its
        attributes and occupancy still answer, from the cubin and the PTX)."""
        err = self.module.error
        if err is not None:
            raise CudaError(err.code, f"kernel {self.name}: {err.message}")
        if self.module.loaded is None:
            raise CudaError(Err.InvalidDeviceFunction,
                            f"kernel {self.name}: its module was never loaded")
        pp = self.module.ptxplus
        if launch and pp is not None and self.name in pp.errors:
            raise pp.errors[self.name]
        fn = self.module.ir.functions.get(self.name)
        if fn is None or not fn.is_entry:
            raise CudaError(Err.InvalidDeviceFunction,
                            f"kernel {self.name} is not an .entry of {self.module.ptx_name}")
        return fn

    def resources(self) -> KernelResources:
        if self._resources is None:
            self._resources = _kernel_resources(self)
        return self._resources


@dataclass
class Variable:
    """A ``__cudaRegisterVar`` / ``__cudaRegisterManagedVar`` entry."""

    module: Module
    name: str
    host_addr: int
    size: int
    constant: bool
    managed: bool = False
    managed_ptr_addr: int = 0

    def device_address(self) -> int:
        """Where the variable lives on the device; raises the module's own error when the
        module is unusable."""
        err = self.module.error
        if err is not None:
            raise CudaError(err.code, f"symbol {self.name}: {err.message}")
        if self.module.loaded is None:
            raise CudaError(Err.InvalidSymbol, f"symbol {self.name}: its module is not loaded")
        info = self.module.loaded.symbols.get(self.name)
        if info is None:
            raise CudaError(Err.InvalidSymbol,
                            f"symbol {self.name} is not a .global/.const variable of {self.module.ptx_name}")
        return info.address


def _attr(obj: Any, *names: str, default: int = 0) -> int:
    for n in names:
        v = getattr(obj, n, None) if not isinstance(obj, dict) else obj.get(n)
        if v is not None:
            return int(v)
    return default


def _kernel_resources(k: Kernel) -> KernelResources:
    info = k.module.resources.get(k.name)
    fn = k.function(launch=False)
    if info is not None:
        return KernelResources(
            regs=_attr(info, "regs", "registers"),
            static_smem_bytes=_attr(info, "static_smem_bytes", "shared_bytes", "smem"),
            local_bytes=_attr(info, "local_bytes", "local"),
            max_threads=_attr(info, "max_threads", default=1024) or 1024,
            source="nv.info")
    try:
        ptx_res = ptx_resources.analyze(fn, k.module.ir)
    except AttributeError:
        ptx_res = None
    if ptx_res is not None:
        return KernelResources(
            regs=_attr(ptx_res, "regs"),
            static_smem_bytes=_attr(ptx_res, "static_smem_bytes"),
            local_bytes=_attr(ptx_res, "local_bytes"),
            max_threads=_attr(ptx_res, "max_threads", default=1024) or 1024,
            source="ptx")
    # Neither source available: count only what the PTX states directly.
    smem = sum(v.size_bytes for v in getattr(fn, "variables", []) if v.space == "shared")
    smem += sum(v.size_bytes for v in k.module.ir.variables.values() if v.space == "shared")
    local = sum(v.size_bytes for v in getattr(fn, "variables", []) if v.space == "local")
    maxnt = fn.directives.get("maxntid") if getattr(fn, "directives", None) else None
    max_threads = 1
    for d in maxnt or (1024,):
        max_threads *= int(d)
    return KernelResources(regs=0, static_smem_bytes=smem, local_bytes=local,
                           max_threads=min(max_threads, 1024), source="ptx-direct")


class Registry:
    """Every module, kernel and variable the application registered."""

    def __init__(self) -> None:
        self.modules: dict[int, Module] = {}          # handle -> Module
        self.kernels: dict[int, Kernel] = {}          # host stub address -> Kernel
        self.variables: dict[int, Variable] = {}      # host shadow address -> Variable
        self._count = 0

    def new_module(self, wrapper_addr: int) -> Module:
        self._count += 1
        buf = (ctypes.c_void_p * 4)()
        buf[0] = wrapper_addr
        m = Module(self._count, wrapper_addr, buf)
        self.modules[m.handle] = m
        return m

    def module(self, handle: int) -> Module:
        m = self.modules.get(handle)
        if m is None:
            raise CudaError(Err.InvalidResourceHandle,
                            f"fat binary handle {handle:#x} was not returned by __cudaRegisterFatBinary")
        return m

    def kernel(self, host_fun: int, what: str = "kernel") -> Kernel:
        k = self.kernels.get(host_fun)
        if k is None:
            raise CudaError(Err.InvalidDeviceFunction,
                            f"{what}: {host_fun:#x} is not a registered kernel (host stub) address")
        return k

    def variable(self, host_addr: int, what: str = "symbol") -> Variable:
        v = self.variables.get(host_addr)
        if v is None:
            raise CudaError(Err.InvalidSymbol,
                            f"{what}: {host_addr:#x} is not a registered __device__/__constant__ variable")
        return v


# ------------------------------------------------------------------------------ PTX sources


def ptx_for_module(m: Module, max_capability: int, env: Mapping[str, str] | None = None, *,
                   capability_origin: str | None = None) -> tuple[str, str]:
    """``(ptx_text, name)`` for module ``m``: a file under ``PTX_SIM_USE_PTX_FILE`` (C021/C022),
    else the embedded PTX read from the application's memory (C027, C029).

    When no embedded PTX is as old as ``max_capability`` the oldest is used and one line says
    so: a note when the limit is the shipped config's own (``capability_origin``: where
    ``-gpgpu_ptx_force_max_capability`` was set; e.g. SM7_QV100's 70, older than anything
    nvcc 13 emits), a WARNING when the user set it."""
    env_map: Mapping[str, str] = os.environ if env is None else env
    use_file = env_map.get("PTX_SIM_USE_PTX_FILE", "").strip()
    if use_file and use_file != "0":
        path = env_map.get("PTX_SIM_KERNELFILE", "").strip() or f"_{m.index}.ptx"
        try:
            with open(path, encoding="utf-8") as f:
                return f.read(), path
        except OSError as exc:
            raise CudaError(Err.InvalidKernelImage,
                            f"PTX_SIM_USE_PTX_FILE is set but the PTX file {path!r} cannot be read: "
                            f"{exc.strerror}") from None

    if not m.wrapper_addr:
        raise CudaError(Err.InvalidKernelImage, f"fat binary #{m.index}: NULL fatbin wrapper pointer")
    parsed = fb.parse_wrapper(lambda addr, n: ctypes.string_at(addr, n), m.wrapper_addr)
    m.fatbin = parsed
    entry = fb.select_ptx(parsed, max_capability)
    if entry is None:
        ptx = [e for e in parsed.entries if e.kind == "ptx"]
        if not ptx:
            archs = ", ".join(f"{e.kind} sm_{e.arch}" for e in parsed.entries) or "nothing"
            raise CudaError(Err.NoKernelImageForDevice,
                            f"fat binary #{m.index} holds no PTX (it has {archs}); gpgpusim simulates "
                            f"PTX: rebuild with PTX embedded (e.g. -gencode arch=compute_75,code=compute_75)")
        entry = min(ptx, key=lambda e: e.arch)

        hostio.err(_capability_note(m.index, max_capability, entry.arch, capability_origin))
    m.ptx_arch = entry.arch
    name = getattr(entry, "name", "") or f"fatbin{m.index}.sm_{entry.arch}.ptx"
    text = entry.text
    return text, name


def _capability_note(index: int, max_capability: int, arch: int, origin: str | None) -> str:
    """The line saying that fat binary ``index`` has no PTX <= ``max_capability`` and that
    ``compute_<arch>`` is simulated instead (see :func:`ptx_for_module`)."""

    shipped = origin in (None, "default") or str(origin).startswith(str(configs_dir()))
    what = (f"fat binary #{index} has no PTX for compute capability <= {max_capability} "
            f"(-gpgpu_ptx_force_max_capability {max_capability}"
            + (f", set by {origin}" if not shipped else ", the config's own value") + f"), so its oldest PTX, "
            f"compute_{arch}, is simulated")
    if shipped:
        why = " (CUDA 13's nvcc emits compute_75 at the oldest)" if arch == 75 else ""
        return (f"GPGPU-Sim PTX: note: {what}{why}; "
                f"--set -gpgpu_ptx_force_max_capability={arch} selects it without this note")
    return (f"GPGPU-Sim PTX: WARNING: {what}; raise -gpgpu_ptx_force_max_capability to {arch} or rebuild "
            f"the application with PTX for it (nvcc -gencode arch=compute_{max_capability},"
            f"code=compute_{max_capability}, where the toolkit supports it)")


def elf_resources(m: Module) -> dict[str, Any]:
    """Per-kernel resources from the newest cubin of the module's fatbin (may be empty)."""
    if m.fatbin is None:
        return {}
    elves = [e for e in m.fatbin.entries if e.kind == "elf"]
    if not elves:
        return {}
    # Several cubins may be embedded (and some carry no kernels): merge them, newest arch last
    # so that it wins.
    out: dict[str, Any] = {}
    for e in sorted(elves, key=lambda e: e.arch):
        try:
            out.update(elfinfo.kernel_resources(e.payload))
        except CudaError:
            continue
    return out
