"""Fat binaries, kernels and launches: the registration calls the host stubs make before
``main`` (C027-C032), the call configuration stack, kernel launches, function attributes and
occupancy.  GPGPU-Sim counterpart: ``__cudaRegister*`` / ``cudaLaunch*`` / ``cudaFuncGetAttributes``
of ``libcuda/cuda_runtime_api.cc``."""

from __future__ import annotations

import ctypes
import os
import struct
from typing import Any

import numpy as np

from gpgpusim import hostio
from gpgpusim.device.gpu import KernelLaunchOp
from gpgpusim.errors import CudaError, Err
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.messages import load_report  # (GPGPU-Sim's load messages, C194)
from gpgpusim.ptx import load_ptx_cached

from . import abi
from .launch import marshal_params, validate_launch
from .modules import Kernel, Module, Variable, elf_resources, ptx_for_module
from .service import ApiError, Service, api, registration
from .service import check_ptr as _check_ptr
from .stream_state import STREAM_PER_THREAD

# cudaFuncAttribute
FUNC_ATTR_MAX_DYN_SMEM, FUNC_ATTR_CARVEOUT = 8, 9
ERR_COOPERATIVE_TOO_LARGE = 720

#: variables of CUDA's device runtime library (libcudadevrt) without a recognisable prefix
_CUDADEVRT_VARS = frozenset(("cudartErrorTable", "cudartErrorTableEntryCount", "cudartErrorCnpMap",
                             "cudartErrorCnpMapEntryCount", "__CNPRT_VERSION_NUMBER__"))


def _device_runtime_symbol(name: str) -> bool:
    """Whether ``name`` is a kernel or variable of CUDA's device runtime library."""
    return "_cuda_device_runtime_cu_" in name or name in _CUDADEVRT_VARS


class ModuleApi(Service):
    """See the module docstring."""

    def __init__(self, rt: Any) -> None:
        super().__init__(rt)
        self._modules_open = 0
        self._cudadevrt_noted: set[int] = set()    # fat binaries whose libcudadevrt was noted
        self._placeholders: list[np.ndarray] = []  # managed-variable stand-ins (see x__cudaRegisterManagedVar)

    def reload_all(self) -> None:
        """``cudaDeviceReset``: load every module again (variables get their initial values)."""
        for handle in list(self.rt.registry.modules):
            self.x__cudaRegisterFatBinaryEnd(handle)

    def _device_runtime_note(self, m: Module) -> None:
        """One line per fat binary for the kernels and variables of CUDA's device runtime
        (``-rdc=true -lcudadevrt``, dynamic parallelism) that the host registers but whose PTX the
        binary does not carry (instead of one line for each of its ~40 symbols); the device-side
        launch calls are simulated (:mod:`gpgpusim.functional.cdp`)."""
        if m.index in self._cudadevrt_noted:
            return
        self._cudadevrt_noted.add(m.index)
        hostio.err(f"gpgpusim: fat binary #{m.index} links CUDA's device runtime (libcudadevrt, dynamic "
                   f"parallelism), which it carries without PTX: device-side kernel launches run as child "
                   f"grids; other device-runtime calls return cudaErrorNotSupported")

    def _module_failed(self, m: Module, name: str, exc: BaseException) -> None:
        """Fat binary ``m`` is unusable: keep the error on it (its kernels and variables return
        it when used) and say so once."""
        if m.error is None:
            m.error = self.rt._registration_failed(name, exc, "launches of this fat binary's kernels and "
                                                           "accesses to its variables return this error")

    @registration(default=0)
    def gs_register_fatbinary(self, wrapper_addr: int) -> int:
        """``__cudaRegisterFatBinary``: read, select (C029) and parse the module's PTX.  A module
        whose PTX is missing or broken still gets a handle; it keeps its error (see
        :func:`registration`)."""
        m = self.rt.registry.new_module(wrapper_addr)
        self._modules_open += 1
        try:
            text, name = ptx_for_module(m, self.rt.max_capability, capability_origin=getattr(
                self.rt.config, "origin", {}).get("gpgpu_ptx_force_max_capability"))
            m.ptx_name = name
            m.ir = load_ptx_cached(text, name)
            if self.rt._ptxplus and m.fatbin is not None:
                self._convert_ptxplus(m)
        except Exception as exc:  # noqa: BLE001 - kept on the module, reported once
            self._module_failed(m, "__cudaRegisterFatBinary", exc)
        return m.handle

    def _convert_ptxplus(self, m: Module) -> None:
        """PTXPlus mode: replace the module's kernels by their converted SASS
        (:func:`gpgpusim.ptxplus.apply`); its notes go to stderr, one line each."""
        from gpgpusim import ptxplus      # the SASS converter: loaded only in PTXPlus mode

        m.ptxplus = ptxplus.apply(m, self.rt.max_capability,
                                  fallback=bool(int(self.rt._cfg("gpgpusim_ptxplus_fallback", 0) or 0)),
                                  save=bool(self.rt._cfg("gpgpu_ptx_save_converted_ptxplus", False)))
        for line in m.ptxplus.notes:
            hostio.err(line)

    @registration(default=None)
    def x__cudaRegisterFatBinaryEnd(self, handle: int) -> None:
        """Load the module onto the device: allocate and initialise its variables, read the
        cubin's per-kernel resources, point managed variables at their device storage."""
        m = self.rt.registry.module(handle)
        if m.error is not None or m.loaded is not None:
            return

        try:
            m.loaded = load_module(m.ir, self.rt.gmem)
            m.resources = elf_resources(m)
        except Exception as exc:  # noqa: BLE001 - kept on the module, reported once
            self._module_failed(m, "__cudaRegisterFatBinaryEnd", exc)
            return
        hostio.out("".join(f"{ln}\n" for ln in load_report(
            m.ir, m.ptx_name, m.loaded, fatbin=m.fatbin, ptx_arch=m.ptx_arch, source_num=m.index)))
        for var in self.rt.registry.variables.values():
            if (var.module is m and var.managed and var.managed_ptr_addr
                    and var.name in m.loaded.symbols):
                abi.write_u64(var.managed_ptr_addr, self.rt.gmem.host_ptr(var.device_address()))

    @registration(default=None)
    def x__cudaUnregisterFatBinary(self, handle: int) -> None:
        """The program ends (one call per module, from the host stubs' ``atexit``): after the
        last one, finish queued work and write the final report."""
        m = self.rt.registry.module(handle)
        if m.unregistered:
            raise CudaError(Err.InvalidResourceHandle,
                            f"fat binary handle {handle:#x} was already unregistered")
        m.unregistered = True
        self._modules_open -= 1
        if self._modules_open <= 0:
            self.rt.exit()

    @registration(default=None)
    def x__cudaRegisterFunction(self, handle: int, host_fun: int, device_fun: int, device_name: int,
                               thread_limit: int, tid: int, bid: int, bdim: int, gdim: int,
                               wsize: int) -> None:
        """Key kernel ``deviceName`` of the module by its host stub address.  A name the PTX
        lacks is registered all the same (with a warning): launching it returns
        ``cudaErrorInvalidDeviceFunction``, as CUDA does."""
        m = self.rt.registry.module(handle)
        name = abi.read_cstr(device_name) or abi.read_cstr(device_fun)
        if not name:
            raise CudaError(Err.InvalidValue, "NULL kernel name: nothing registered")
        if not host_fun:
            raise CudaError(Err.InvalidValue, f"NULL host stub for kernel {name}: it cannot be launched")
        self.rt.registry.kernels[host_fun] = Kernel(m, name, host_fun)
        if m.ir is not None:
            fn = m.ir.functions.get(name)
            if fn is None and _device_runtime_symbol(name):
                self._device_runtime_note(m)
            elif fn is None or not getattr(fn, "is_entry", True):
                self.rt._registration_failed("__cudaRegisterFunction", CudaError(
                    Err.InvalidDeviceFunction, f"kernel {name} is not an .entry of the PTX {m.ptx_name}"),
                    "launching it returns this error")

    @registration(default=None)
    def x__cudaRegisterVar(self, handle: int, host_var: int, device_address: int, device_name: int,
                          ext: int, size: int, constant: int, global_: int) -> None:
        self._register_var(handle, host_var, device_address, device_name, size, constant, False, 0)

    @registration(default=None)
    def x__cudaRegisterManagedVar(self, handle: int, host_var_ptr_addr: int, device_address: int,
                                 device_name: int, ext: int, size: int, constant: int, global_: int) -> None:
        # The managed variable is keyed by the address of its host pointer variable, which is
        # what the application passes to cudaMemcpyToSymbol and friends.  Until the module is
        # loaded (and forever if loading fails) the pointer targets zeroed host memory, so
        # host code touching the variable never dereferences NULL.
        if host_var_ptr_addr and size:
            placeholder = np.zeros(int(size) + 8, dtype=np.uint8)
            self._placeholders.append(placeholder)
            abi.write_u64(host_var_ptr_addr, placeholder.ctypes.data)
        self._register_var(handle, host_var_ptr_addr, device_address, device_name, size, constant,
                           True, host_var_ptr_addr)

    def _register_var(self, handle: int, host_var: int, device_address: int, device_name: int,
                      size: int, constant: int, managed: bool, ptr_addr: int) -> None:
        """Key a ``__device__`` / ``__constant__`` / ``__managed__`` variable by its host shadow.
        A name the PTX lacks is registered with a warning: using the symbol returns
        ``cudaErrorInvalidSymbol``."""

        what = "__cudaRegisterManagedVar" if managed else "__cudaRegisterVar"
        m = self.rt.registry.module(handle)
        name = abi.read_cstr(device_name) or abi.read_cstr(device_address)
        if not name:
            raise CudaError(Err.InvalidValue, "NULL variable name: nothing registered")
        if not host_var:
            raise CudaError(Err.InvalidValue, f"NULL host shadow for variable {name}: nothing registered")
        self.rt.registry.variables[host_var] = Variable(m, name, host_var, int(size), bool(constant),
                                                     managed, ptr_addr)
        if m.ir is not None and name not in m.ir.variables and _device_runtime_symbol(name):
            self._device_runtime_note(m)
        elif m.ir is not None and name not in m.ir.variables:
            self.rt._registration_failed(what, CudaError(
                Err.InvalidSymbol, f"variable {name} is not in the PTX {m.ptx_name}"),
                "using the symbol returns this error")

    @registration(default=0)
    def gs_init_module(self, handle: int) -> int:
        """``__cudaInitModule``: 1 when the module is loaded and usable, else 0."""
        m = self.rt.registry.module(handle)
        return int(m.error is None and m.loaded is not None)

    @api
    def x__cudaGetKernel(self, kernel_out: int, host_fun: int) -> None:
        _check_ptr(kernel_out, "__cudaGetKernel: kernel pointer")
        self.rt.registry.kernel(host_fun, "__cudaGetKernel")
        abi.write_u64(kernel_out, host_fun)   # the kernel handle is the host stub address

    def _config_stack(self) -> list[tuple[tuple[int, int, int], tuple[int, int, int], int, int]]:
        st = getattr(self.rt._tls, "configs", None)
        if st is None:
            st = self.rt._tls.configs = []
        return st

    def gs_push_call_configuration(self, grid: int, block: int, shmem: int, stream: int) -> int:
        self._config_stack().append((abi.read_dim3(grid), abi.read_dim3(block), shmem, stream))
        return 0

    @api
    def x__cudaPopCallConfiguration(self, grid: int, block: int, shmem: int, stream: int) -> None:
        st = self._config_stack()
        if not st:
            raise CudaError(Err.InvalidConfiguration, "__cudaPopCallConfiguration without a pushed configuration")
        g, b, s, h = st.pop()
        if grid:
            abi.write_dim3(grid, g)
        if block:
            abi.write_dim3(block, b)
        if shmem:
            abi.write_u64(shmem, s)
        if stream:
            abi.write_u64(stream, h)

    @api
    def gs_launch_kernel(self, via_handle: int, func: int, grid_addr: int, block_addr: int, args: int,
                         shmem: int, stream: int) -> None:
        cooperative = bool(via_handle & 4)
        what = ("cudaLaunchCooperativeKernel" if cooperative else
                "__cudaLaunchKernel" if via_handle & 1 else "cudaLaunchKernel")
        self._launch_checked(what, func, abi.read_dim3(grid_addr), abi.read_dim3(block_addr), args, shmem,
                             stream, cooperative)

    def _launch_checked(self, what: str, func: int, grid: tuple[int, int, int], block: tuple[int, int, int],
                        args: int, shmem: int, stream: int, cooperative: bool) -> None:
        k = self.rt.registry.kernel(func, what)
        fn = k.function()
        validate_launch(what, k, self.rt.device, grid, block, shmem)
        if cooperative:
            per_sm = self.occupancy(k, block[0] * block[1] * block[2], shmem)
            resident = per_sm * self.rt.device.sm_count
            if grid[0] * grid[1] * grid[2] > resident:
                raise ApiError(ERR_COOPERATIVE_TOO_LARGE,
                               f"{what} {k.name}: {grid[0] * grid[1] * grid[2]} blocks cannot all be resident "
                               f"({per_sm} per SM x {self.rt.device.sm_count} SMs)")
        params = marshal_params(what, fn, args)
        self.launch(k, grid, block, shmem, params, stream, cooperative=cooperative)

    def _launch_ex(self, config: int, func: int, args: int, per_thread: bool) -> None:
        """``cudaLaunchKernelExC``: ``cudaLaunchConfig_t`` = {dim3 grid @0, dim3 block @12,
        size_t dynamicSmemBytes @24, cudaStream_t stream @32, cudaLaunchAttribute *attrs @40,
        unsigned numAttrs @48}; each ``cudaLaunchAttribute`` is 72 bytes (id @0, value @8)."""
        what = "cudaLaunchKernelExC"
        _check_ptr(config, f"{what}: config")
        raw = abi.read(config, 56)
        grid = struct.unpack_from("<3I", raw, 0)
        block = struct.unpack_from("<3I", raw, 12)
        shmem, stream, attrs = struct.unpack_from("<QQQ", raw, 24)
        (n_attrs,) = struct.unpack_from("<I", raw, 48)
        if per_thread and stream == 0:
            stream = STREAM_PER_THREAD
        if n_attrs and not attrs:
            raise CudaError(Err.InvalidValue, f"{what}: numAttrs={n_attrs} but attrs is NULL")
        cooperative = False
        for i in range(n_attrs):
            rec = abi.read(attrs + 72 * i, 72)
            (aid,) = struct.unpack_from("<i", rec, 0)
            if aid == 2:                                   # cudaLaunchAttributeCooperative
                cooperative = struct.unpack_from("<i", rec, 8)[0] != 0
            elif aid == 4:                                 # cudaLaunchAttributeClusterDimension
                cx, cy, cz = struct.unpack_from("<3I", rec, 8)
                if cx * cy * cz > 1:
                    raise CudaError(Err.NotSupported,
                                    f"{what}: thread block clusters ({cx}x{cy}x{cz}) are not simulated")
            elif aid == 7:
                raise CudaError(Err.NotSupported,
                                f"{what}: cudaLaunchAttributeProgrammaticEvent is not simulated")
            elif aid not in (0, 1, 3, 5, 6, 8, 9, 10, 11):
                raise CudaError(Err.NotSupported, f"{what}: launch attribute {aid} is not simulated")
            # the others are scheduling hints: honoured trivially by running in stream order
        self._launch_checked(what, func, grid, block, args, shmem, stream, cooperative)  # type: ignore[arg-type]

    @api
    def cudaLaunchKernelExC(self, config: int, func: int, args: int) -> None:
        self._launch_ex(config, func, args, False)

    @api
    def cudaLaunchKernelExC_ptsz(self, config: int, func: int, args: int) -> None:
        self._launch_ex(config, func, args, True)

    def kernel_op(self, what: str, func: int, grid: tuple[int, int, int], block: tuple[int, int, int],
                  shmem: int, args: int) -> KernelLaunchOp:
        """The launch op of host function ``func`` with ``void **args`` (a graph's kernel node):
        the registry lookup, validation, marshalling and engine options of a launch."""

        k = self.rt.registry.kernel(func, what)
        validate_launch(what, k, self.rt.device, grid, block, shmem)
        params = marshal_params(what, k.function(), args)
        res = k.resources()
        return KernelLaunchOp(k.module.loaded, k.name, grid, block, shmem, params,
                              launch_kwargs=self.engine_kwargs(), host_fun=k.host_fun,
                              regs_per_thread=self.rt.device.kernel_regs(res.regs),
                              static_smem_bytes=res.static_smem_bytes)

    def launch(self, k: Kernel, grid: tuple[int, int, int], block: tuple[int, int, int], shmem: int,
               params: bytes, stream: int = 0, *, cooperative: bool = False) -> None:
        """Enqueue one kernel on ``stream`` (CUDA: asynchronous; ``CUDA_LAUNCH_BLOCKING=1`` waits)."""

        res = k.resources()
        kwargs = self.engine_kwargs(cooperative)
        op = KernelLaunchOp(k.module.loaded, k.name, grid, block, shmem, params, launch_kwargs=kwargs,
                            host_fun=k.host_fun, regs_per_thread=self.rt.device.kernel_regs(res.regs),
                            static_smem_bytes=res.static_smem_bytes)
        self.rt.streams.enqueue(stream, op)
        if os.environ.get("CUDA_LAUNCH_BLOCKING") == "1":
            self.rt.streams.synchronize_stream(stream)

    @api
    def cudaFuncGetAttributes(self, attr: int, func: int) -> None:
        _check_ptr(attr, "cudaFuncGetAttributes: attr")
        k = self.rt.registry.kernel(func, "cudaFuncGetAttributes")
        r = k.resources()
        a = abi.CudaFuncAttributes.from_address(attr)
        ctypes.memset(attr, 0, ctypes.sizeof(a))
        a.sharedSizeBytes = r.static_smem_bytes
        a.constSizeBytes = r.const_bytes
        a.localSizeBytes = r.local_bytes
        a.maxThreadsPerBlock = self._max_threads(k)
        a.numRegs = self.rt.device.kernel_regs(r.regs)
        a.ptxVersion = k.module.ptx_arch          # the compute_XY the simulated PTX targets
        a.binaryVersion = k.module.ptx_arch
        a.maxDynamicSharedSizeBytes = k.attrs.get(FUNC_ATTR_MAX_DYN_SMEM, self._default_dyn_smem(k))
        a.preferredShmemCarveout = k.attrs.get(FUNC_ATTR_CARVEOUT, -1)

    def _default_dyn_smem(self, k: Kernel) -> int:
        return max(0, self.rt.device.smem_per_block_default_bytes - k.resources().static_smem_bytes)

    def _max_threads(self, k: Kernel) -> int:
        r = k.resources()
        return self.rt.device.max_threads_for(r.regs, r.max_threads)

    @api
    def cudaFuncSetAttribute(self, func: int, attr: int, value: int) -> None:
        k = self.rt.registry.kernel(func, "cudaFuncSetAttribute")
        if attr == FUNC_ATTR_MAX_DYN_SMEM:
            top = self.rt.device.max_smem_per_block_bytes - k.resources().static_smem_bytes
            if value < 0 or value > top:
                raise CudaError(Err.InvalidValue,
                                f"cudaFuncSetAttribute: MaxDynamicSharedMemorySize {value} outside 0..{top}")
        elif attr == FUNC_ATTR_CARVEOUT:
            if not -1 <= value <= 100:
                raise CudaError(Err.InvalidValue, f"cudaFuncSetAttribute: carveout {value} outside -1..100")
        elif 10 <= attr <= 15:
            raise CudaError(Err.NotSupported,
                            f"cudaFuncSetAttribute: attribute {attr} (thread block clusters) is not simulated")
        else:
            raise CudaError(Err.InvalidValue, f"cudaFuncSetAttribute: {attr} is not a cudaFuncAttribute")
        k.attrs[attr] = value

    @api
    def cudaFuncSetCacheConfig(self, func: int, cache_config: int) -> None:
        k = self.rt.registry.kernel(func, "cudaFuncSetCacheConfig")
        if cache_config not in (0, 1, 2, 3):
            raise CudaError(Err.InvalidValue, f"cudaFuncSetCacheConfig: {cache_config} is not a cudaFuncCache")
        k.cache_config = cache_config

    def occupancy(self, k: Kernel, block_size: int, dyn_smem: int) -> int:
        """CTAs per SM, as GPGPU-Sim's ``shader_core_config::max_cta`` computes it: the minimum
        of the CTA slots, threads (padded to whole warps), registers (per-thread count rounded
        up to 4) and shared memory (static + dynamic here); 0 for a block that cannot launch.
        A block that launches gets at least one (GPGPU-Sim's rounding of registers to 4 can
        exceed the register file where the GPU's own allocation fits: cc 1.x and 2.x)."""
        d = self.rt.device
        if block_size > self._max_threads(k):
            return 0
        r = k.resources()
        smem = r.static_smem_bytes + dyn_smem
        if smem > d.smem_per_block_bytes:
            return 0
        padded = -(-block_size // d.warp_size) * d.warp_size
        limits = [d.ctas_per_sm, d.threads_per_sm // padded]
        regs = (d.kernel_regs(r.regs) + 3) & ~3
        if regs:
            limits.append(d.regs_per_sm // (padded * regs))
        if smem:
            limits.append(d.smem_per_sm_bytes // smem)
        return max(1, min(limits))

    def _occupancy(self, num_blocks: int, func: int, block_size: int, dyn_smem: int, flags: int,
                   what: str) -> None:
        _check_ptr(num_blocks, f"{what}: numBlocks")
        k = self.rt.registry.kernel(func, what)
        if flags not in (0, 1):
            raise CudaError(Err.InvalidValue, f"{what}: invalid flags {flags:#x}")
        if block_size <= 0:
            raise CudaError(Err.InvalidValue, f"{what}: blockSize {block_size} must be positive")
        abi.write_i32(num_blocks, self.occupancy(k, block_size, dyn_smem))

    @api
    def cudaOccupancyAvailableDynamicSMemPerBlock(self, size_out: int, func: int, num_blocks: int,
                                                  block_size: int) -> None:
        """Dynamic shared memory per block that still lets ``num_blocks`` blocks of
        ``block_size`` threads reside on one SM (0 when they do not fit at all)."""
        what = "cudaOccupancyAvailableDynamicSMemPerBlock"
        _check_ptr(size_out, f"{what}: dynamicSmemSize")
        k = self.rt.registry.kernel(func, what)
        if num_blocks <= 0 or block_size <= 0:
            raise CudaError(Err.InvalidValue, f"{what}: numBlocks {num_blocks} / blockSize {block_size}")
        static = k.resources().static_smem_bytes
        if self.occupancy(k, block_size, 0) < num_blocks:
            abi.write_u64(size_out, 0)
            return
        per_block = self.rt.device.smem_per_sm_bytes // num_blocks - static
        limit = k.attrs.get(FUNC_ATTR_MAX_DYN_SMEM, self._default_dyn_smem(k))
        abi.write_u64(size_out, max(0, min(per_block, limit)))

    @api
    def cudaOccupancyMaxActiveBlocksPerMultiprocessor(self, num_blocks: int, func: int, block_size: int,
                                                      dyn_smem: int) -> None:
        self._occupancy(num_blocks, func, block_size, dyn_smem, 0,
                        "cudaOccupancyMaxActiveBlocksPerMultiprocessor")

    @api
    def cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(self, num_blocks: int, func: int,
                                                               block_size: int, dyn_smem: int,
                                                               flags: int) -> None:
        self._occupancy(num_blocks, func, block_size, dyn_smem, flags,
                        "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags")

    @api
    def cudaFuncSetSharedMemConfig(self, func: int, config: int) -> None:
        self.rt.registry.kernel(func, "cudaFuncSetSharedMemConfig")
        if config not in (0, 1, 2):
            raise CudaError(Err.InvalidValue, f"cudaFuncSetSharedMemConfig: {config} is not a cudaSharedMemConfig")

    @api
    def cudaFuncGetName(self, name_out: int, func: int) -> None:
        _check_ptr(name_out, "cudaFuncGetName: name")
        k = self.rt.registry.kernel(func, "cudaFuncGetName")
        abi.write_u64(name_out, self.rt._cstring("f" + k.name, func, k.name))

    def _ptxplus_summary(self) -> list[dict[str, Any]]:
        """PTXPlus mode, per fat binary: the SASS arch simulated (0: none, its PTX ran), the
        kernels converted, those that run their PTX (-gpgpusim_ptxplus_fallback 1) and those
        whose launches fail, with the reason."""
        out = []
        for m in sorted(self.rt.registry.modules.values(), key=lambda m: m.index):
            pp = m.ptxplus
            if pp is None:
                continue
            out.append({"fatbin": m.index, "sass_arch": pp.arch, "converted": sorted(pp.converted),
                        "ptx_fallback": sorted(pp.fallback),
                        "not_supported": {k: e.message for k, e in sorted(pp.errors.items())}})
        return out

    def engine_kwargs(self, cooperative: bool = False) -> dict[str, Any]:
        """Keyword arguments for ``engine.launch`` of every kernel this context runs: device
        printf to the app's stdout, the functional driver (``GPGPUSIM_DRIVER``), the config
        (engine options such as ``-gpgpu_ptx_inst_debug_to_file``), per-line statistics when
        ``-enable_ptx_file_line_stats`` is on, and grid-wide residency for cooperative launches."""
        rt = self.rt
        kwargs: dict[str, Any] = {"printf": hostio.out, "driver": rt.driver}
        if rt.config is not None:
            kwargs["options"] = rt.config
        if rt._line_stats:
            kwargs["line_stats"] = {}
        if cooperative:
            kwargs["cooperative"] = True
        return kwargs
