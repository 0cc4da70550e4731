"""The CUDA runtime API with CUDA 13 semantics, on the simulated GPU.

GPGPU-Sim counterpart: ``libcuda/cuda_runtime_api.cc`` (the ``cuda*`` entry points and their
``*Internal`` helpers) plus ``CUctx_st``; checklist C013-C016, C026-C041, C044-C046.  Unlike
GPGPU-Sim (which aborts, or returns success, on much of the API) every call validates its arguments and returns the
``cudaError_t`` CUDA returns, ``cudaFree`` really frees, ``cudaMemGetInfo`` reports the true free
memory, and nothing unsupported succeeds silently.

Calling convention (the shim relies on it): every public method is named after the CUDA entry
point (or ``gs_*`` for the shim's internal ones), takes plain ints — pointers are addresses in
the application's process, read and written through :mod:`gpgpusim.runtime.abi` — and returns
the ``cudaError_t`` as an int (registration calls return what their C prototype returns).  No
cffi here: tests drive the runtime with ctypes buffers.

Errors: a :class:`~gpgpusim.errors.CudaError` raised inside a call becomes its return value and
the thread's last error (``cudaGetLastError`` returns and clears it, ``cudaPeekAtLastError``
does not), and its message goes to stderr as one line.  A sticky error (kernel fault) is
returned by every later call.  A fat binary that cannot be registered (no PTX, broken PTX, a
load failure) keeps its error: launches of its kernels and accesses to its variables return
it, every other call works (as CUDA reports a bad module only when it is used).

All GPU work goes through the stream manager (:class:`gpgpusim.runtime.streams.StreamManager`):
synchronous calls enqueue on the legacy default stream and wait.
"""

from __future__ import annotations

import ctypes
import functools
import os
import struct
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from gpgpusim.errors import CudaError, Err
from gpgpusim.device.gpu import KernelLaunchOp, Memcpy2DOp, MemcpyOp, MemsetOp
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GLOBAL_HEAP_START as DEVICE_WINDOW_START
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.functional.messages import load_report, memory_note   # (load_report: GPGPU-Sim's load messages, C194)

from . import abi
from gpgpusim import hostio
from .device import DEFINED_DEVICE_ATTRIBUTES, DeviceInfo
from .errors_table import MESSAGES, NAMES
from .modules import Kernel, Module, Registry, elf_resources, ptx_for_module
from .stream_api import StreamApi, check_memcpy2d
from .textures import TextureApi

CUDART_VERSION = 13000          # CUDA 13.0 (cudaRuntimeGetVersion / cudaDriverGetVersion)
ALLOC_ALIGN = 256               # cudaMalloc alignment
PITCH_ALIGN = 512               # cudaMallocPitch row alignment (texturePitchAlignment-like)

# cudaMemcpyKind
H2H, H2D, D2H, D2D, DEFAULT = 0, 1, 2, 3, 4
# cudaMemoryType
MEM_UNREGISTERED, MEM_HOST, MEM_DEVICE, MEM_MANAGED = 0, 1, 2, 3
INVALID_DEVICE_ID = -2          # cudaInvalidDeviceId
# cudaLimit defaults (CUDA's on Volta)
LIMIT_DEFAULTS = {0: 1024, 1: 1 << 20, 2: 8 << 20, 3: 2, 4: 2048, 5: 32, 6: 0}
# cudaFuncAttribute
FUNC_ATTR_MAX_DYN_SMEM, FUNC_ATTR_CARVEOUT = 8, 9
ERR_UNSUPPORTED_LIMIT = 215     # cudaErrorUnsupportedLimit
ERR_HOST_MEM_ALREADY_REGISTERED = 712
ERR_HOST_MEM_NOT_REGISTERED = 713
ERR_COOPERATIVE_TOO_LARGE = 720
PCI_BUS_ID = "0000:00:00.0"     # the simulated device's PCI bus id

#: calls that work (and do not report the sticky error) after a fault
_STICKY_EXEMPT = {"cudaGetLastError", "cudaPeekAtLastError", "gs_error_string", "gs_error_name",
                  "gs_not_supported", "__cudaUnregisterFatBinary", "cudaGetDeviceCount",
                  "cudaDriverGetVersion", "cudaRuntimeGetVersion", "cudaDeviceReset",
                  "gs_push_call_configuration", "__cudaPopCallConfiguration"}
#: what messages call the shim's internal entry points
_PUBLIC_NAMES = {"gs_launch_kernel": "cudaLaunchKernel", "gs_mem_prefetch": "cudaMemPrefetchAsync",
                 "gs_mem_advise": "cudaMemAdvise", "gs_malloc3d": "cudaMalloc3D", "gs_malloc3d_array": "cudaMalloc3DArray",
                 "gs_memset3d": "cudaMemset3D",
                 "gs_register_fatbinary": "__cudaRegisterFatBinary",
                 "gs_init_module": "__cudaInitModule", "gs_push_call_configuration": "__cudaPushCallConfiguration"}
#: results that are not errors for the last-error state
_NOT_ERRORS = {0, int(Err.NotReady)}


class ApiError(CudaError):
    """A ``cudaError_t`` that :class:`~gpgpusim.errors.Err` does not list (e.g. 215)."""

    def __init__(self, code: int, message: str) -> None:  # noqa: D107
        Exception.__init__(self, message)
        self.code = code  # type: ignore[assignment]
        self.message = message
        self.sticky = False


def _entry_name(fn: Callable[..., Any]) -> str:
    # Methods for the ``__cuda*`` entry points are spelled ``x__cuda*`` (a leading double
    # underscore would be name-mangled) and published under their real name after the class.
    n = fn.__name__
    return n[1:] if n.startswith("x__") else n


def api(fn: Callable[..., Any]) -> Callable[..., int]:
    """Wrap an entry point: CudaError -> return code + last error + one stderr line."""
    name = _entry_name(fn)

    @functools.wraps(fn)
    def wrapper(self: Runtime, *args: Any) -> int:
        if name not in _STICKY_EXEMPT:
            early = self._blocked_by()
            if early is not None:
                self._last_error = int(early.code)
                return int(early.code)
        try:
            rc = fn(self, *args)
        except CudaError as exc:
            return self._record(name, exc)
        except Exception as exc:  # noqa: BLE001 - an internal fault must not reach the app
            return self.fail(name, exc)
        return 0 if rc is None else int(rc)

    return wrapper


#: variables of CUDA's device runtime library (libcudadevrt) without a recognisable prefix
_CUDADEVRT_VARS = frozenset(("cudartErrorTable", "cudartErrorTableEntryCount", "cudartErrorCnpMap",
                             "cudartErrorCnpMapEntryCount", "__CNPRT_VERSION_NUMBER__"))


def _device_runtime_symbol(name: str) -> bool:
    """Whether ``name`` is a kernel or variable of CUDA's device runtime library."""
    return "_cuda_device_runtime_cu_" in name or name in _CUDADEVRT_VARS


def registration(default: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Wrap a registration call (runs before ``main`` and returns no ``cudaError_t``): a failure
    is reported as one line on stderr and never raised into the application.

    A failure that belongs to one fat binary (its PTX is missing or broken, it does not load) is
    kept on that module (:attr:`Module.error`) by the call itself and returned only by launches
    of its kernels and accesses to its variables, as CUDA reports a bad module when it is used;
    every other CUDA call keeps working.  Bad arguments (an unknown handle, a NULL stub) are
    reported and ignored (C027-C032)."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        name = _entry_name(fn)

        @functools.wraps(fn)
        def wrapper(self: Runtime, *args: Any) -> Any:
            try:
                return fn(self, *args)
            except Exception as exc:  # noqa: BLE001 - registration runs before main: never raise
                self._registration_failed(name, exc)
            return default

        return wrapper

    return deco


def _internal(name: str, exc: BaseException) -> CudaError:
    if isinstance(exc, CudaError):
        return exc
    if isinstance(exc, MemoryError):
        return CudaError(Err.MemoryAllocation, f"{name}: out of host memory")
    if isinstance(exc, NotImplementedError):
        return CudaError(Err.NotSupported, f"{name}: not supported by gpgpusim: {exc}")
    return CudaError(Err.Unknown, f"{name}: internal simulator error: {type(exc).__name__}: {exc}")


def _check_ptr(addr: int, what: str) -> None:
    if not addr:
        raise CudaError(Err.InvalidValue, f"{what} is NULL")


class Runtime(StreamApi, TextureApi):
    """The CUDA runtime of one process (one simulated device, C026).

    Stream, capture and graph entry points beyond the basic ones come from the streams part's
    :class:`~gpgpusim.runtime.stream_api.StreamApi` mixin."""

    def __init__(self, config: Any = None, *, gmem: Any = None, launch_fn: Callable[..., Any] | None = None,
                 reporter: Any = None, splash: bool = True) -> None:

        self.config = config
        self.device = DeviceInfo.from_config(config, getattr(config, "gpu_name", None))
        self.gmem = gmem if gmem is not None else GlobalMemory()
        self.reporter = reporter
        self._launch_fn = launch_fn
        self.registry = Registry()
        self._tls = threading.local()     # per host thread: last error, call configurations
        self._sticky_observed = False
        self._device_allocs: dict[int, int] = {}          # cudaMalloc'd base -> size
        self._host_allocs: dict[int, Any] = {}            # pinned base -> keep-alive buffer
        self._managed: dict[int, np.ndarray] = {}         # managed base -> backing array
        self._limits = dict(LIMIT_DEFAULTS)
        self._device_flags = 0
        self._cstrings: dict[tuple[str, int], Any] = {}
        self._placeholders: list[np.ndarray] = []        # managed-variable stand-ins (see below)
        self._registered: dict[int, tuple[np.ndarray, int]] = {}   # cudaHostRegister'd base -> (view, flags)
        self._cache_config = 0
        self._smem_config = 0
        self._modules_open = 0
        self._exited = False
        self._cudadevrt_noted: set[int] = set()    # fat binaries whose libcudadevrt was noted
        self.max_capability = int(self._cfg("gpgpu_ptx_force_max_capability", 0) or 0)
        self._ptxplus = bool(int(self._cfg("gpgpu_ptx_convert_to_ptxplus", 0) or 0))
        # Functional driver of the engine: "batched" (default, fastest) or "warp" (warp-step,
        # the timing model's path), chosen with GPGPUSIM_DRIVER.
        self.driver = os.environ.get("GPGPUSIM_DRIVER", "batched").strip() or "batched"
        if self.driver not in ("batched", "warp"):
            raise CudaError(Err.InitializationError,
                            f"GPGPUSIM_DRIVER={self.driver!r}: must be 'batched' or 'warp'")
        # PTX line statistics (-enable_ptx_file_line_stats), written by the Reporter at exit.
        self._line_stats = bool(self._cfg("enable_ptx_file_line_stats", False))
        self._start_streams()
        if splash and reporter is not None:
            for step in ("splash", "option_dump", "perf_init"):
                fn = getattr(reporter, step, None)
                if fn is not None:
                    fn()

    # ------------------------------------------------------------------ plumbing
    def _cfg(self, name: str, default: Any) -> Any:
        if self.config is None:
            return default
        try:
            v = self.config.get(name)
        except Exception:  # noqa: BLE001
            return default
        return default if v is None else v

    def _start_streams(self) -> None:
        from gpgpusim.device import make_gpu
        from .streams import StreamManager

        self.gpu = make_gpu(self.config, self.gmem, _ReporterHooks(self.reporter), launch_fn=self._launch_fn)
        self.streams = StreamManager(self.gpu)

    def _blocked_by(self) -> CudaError | None:
        """The error every call returns now: a sticky kernel fault once a synchronising call
        has reported it.  Until then a fault that happened in the background stays invisible,
        so ``kernel<<<...>>>(); cudaGetLastError()`` reports only launch errors whatever the
        simulation thread's speed (deterministic runs).  (A runtime that cannot start at all is
        the shim's business: every call then returns ``cudaErrorInitializationError``.)"""
        if self._sticky_observed:
            return getattr(self.streams, "sticky_error", None)
        return None

    def _record(self, name: str, exc: CudaError) -> int:
        name = _PUBLIC_NAMES.get(name, name)
        code = int(exc.code)
        if exc.sticky:
            self._sticky_observed = True
        if code not in _NOT_ERRORS:
            self._last_error = code
            hostio.err(f"gpgpusim: {name}: {NAMES.get(code, code)}: {exc.message}")
        return code

    def fail(self, name: str, exc: BaseException) -> int:
        """An unexpected exception inside ``name``: report it and return its cudaError_t."""
        if os.environ.get("GPGPUSIM_TRACEBACK") == "1":
            import traceback

            hostio.flush()
            traceback.print_exception(type(exc), exc, exc.__traceback__)
        return self._record(name, _internal(name, exc))

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

    def _registration_failed(self, name: str, exc: BaseException, consequence: str = "") -> CudaError:
        """One stderr line for a failed registration call (with ``GPGPUSIM_TRACEBACK=1`` the
        traceback of ``exc`` itself, not of the CudaError it becomes); ``consequence`` tells the
        user what it will affect.  Returns the CudaError."""
        if os.environ.get("GPGPUSIM_TRACEBACK") == "1":
            import traceback

            hostio.flush()
            traceback.print_exception(type(exc), exc, exc.__traceback__)
        err = _internal(name, exc)
        name = _PUBLIC_NAMES.get(name, name)
        tail = f" ({consequence})" if consequence else ""
        hostio.err(f"gpgpusim: {name}: {NAMES.get(int(err.code), err.code)}: {err.message}{tail}")
        return err

    def _module_failed(self, m: Module, name: str, exc: BaseException) -> None:
        """Fat binary ``m`` is unusable: keep the error on it (its kernels and variables return
        it when used) and say so once."""
        if m.error is None:
            m.error = self._registration_failed(name, exc, "launches of this fat binary's kernels and "
                                                           "accesses to its variables return this error")

    # CUDA keeps the last error per host thread.
    @property
    def _last_error(self) -> int:
        return getattr(self._tls, "last_error", 0)

    @_last_error.setter
    def _last_error(self, code: int) -> None:
        self._tls.last_error = code

    @property
    def last_error(self) -> int:
        return self._last_error

    # ================================================================== registration (C027-C032)
    @registration(default=0)
    def gs_register_fatbinary(self, wrapper_addr: int) -> int:
        """``__cudaRegisterFatBinary``: read, select (C029) and parse the module's PTX.  A module
        whose PTX is missing or broken still gets a handle; it keeps its error (see
        :func:`registration`)."""
        m = self.registry.new_module(wrapper_addr)
        self._modules_open += 1
        try:
            text, name = ptx_for_module(m, self.max_capability, capability_origin=getattr(
                self.config, "origin", {}).get("gpgpu_ptx_force_max_capability"))
            m.ptx_name = name
            m.ir = _parse_ptx(text, name)
            if self._ptxplus and m.fatbin is not None:
                self._convert_ptxplus(m)
        except Exception as exc:  # noqa: BLE001 - kept on the module, reported once
            self._module_failed(m, "__cudaRegisterFatBinary", exc)
        return m.handle

    def _convert_ptxplus(self, m: Module) -> None:
        """PTXPlus mode: replace the module's kernels by their converted SASS
        (:func:`gpgpusim.ptxplus.apply`); its notes go to stderr, one line each."""
        from gpgpusim import ptxplus

        m.ptxplus = ptxplus.apply(m, self.max_capability,
                                  fallback=bool(int(self._cfg("gpgpusim_ptxplus_fallback", 0) or 0)),
                                  save=bool(self._cfg("gpgpu_ptx_save_converted_ptxplus", False)))
        for line in m.ptxplus.notes:
            hostio.err(line)

    @registration(default=None)
    def x__cudaRegisterFatBinaryEnd(self, handle: int) -> None:
        """Load the module onto the device: allocate and initialise its variables, read the
        cubin's per-kernel resources, point managed variables at their device storage."""
        m = self.registry.module(handle)
        if m.error is not None or m.loaded is not None:
            return

        try:
            m.loaded = load_module(m.ir, self.gmem)
            m.resources = elf_resources(m)
        except Exception as exc:  # noqa: BLE001 - kept on the module, reported once
            self._module_failed(m, "__cudaRegisterFatBinaryEnd", exc)
            return
        hostio.out("".join(f"{ln}\n" for ln in load_report(
            m.ir, m.ptx_name, m.loaded, fatbin=m.fatbin, ptx_arch=m.ptx_arch, source_num=m.index)))
        for var in self.registry.variables.values():
            if (var.module is m and var.managed and var.managed_ptr_addr
                    and var.name in m.loaded.symbols):
                abi.write_u64(var.managed_ptr_addr, self.gmem.host_ptr(var.device_address()))

    @registration(default=None)
    def x__cudaUnregisterFatBinary(self, handle: int) -> None:
        """The program ends (one call per module, from the host stubs' ``atexit``): after the
        last one, finish queued work and write the final report."""
        m = self.registry.module(handle)
        if m.unregistered:
            raise CudaError(Err.InvalidResourceHandle,
                            f"fat binary handle {handle:#x} was already unregistered")
        m.unregistered = True
        self._modules_open -= 1
        if self._modules_open <= 0:
            self.exit()

    @registration(default=None)
    def x__cudaRegisterFunction(self, handle: int, host_fun: int, device_fun: int, device_name: int,
                               thread_limit: int, tid: int, bid: int, bdim: int, gdim: int,
                               wsize: int) -> None:
        """Key kernel ``deviceName`` of the module by its host stub address.  A name the PTX
        lacks is registered all the same (with a warning): launching it returns
        ``cudaErrorInvalidDeviceFunction``, as CUDA does."""
        m = self.registry.module(handle)
        name = abi.read_cstr(device_name) or abi.read_cstr(device_fun)
        if not name:
            raise CudaError(Err.InvalidValue, "NULL kernel name: nothing registered")
        if not host_fun:
            raise CudaError(Err.InvalidValue, f"NULL host stub for kernel {name}: it cannot be launched")
        self.registry.kernels[host_fun] = Kernel(m, name, host_fun)
        if m.ir is not None:
            fn = m.ir.functions.get(name)
            if fn is None and _device_runtime_symbol(name):
                self._device_runtime_note(m)
            elif fn is None or not getattr(fn, "is_entry", True):
                self._registration_failed("__cudaRegisterFunction", CudaError(
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
        from .modules import Variable

        what = "__cudaRegisterManagedVar" if managed else "__cudaRegisterVar"
        m = self.registry.module(handle)
        name = abi.read_cstr(device_name) or abi.read_cstr(device_address)
        if not name:
            raise CudaError(Err.InvalidValue, "NULL variable name: nothing registered")
        if not host_var:
            raise CudaError(Err.InvalidValue, f"NULL host shadow for variable {name}: nothing registered")
        self.registry.variables[host_var] = Variable(m, name, host_var, int(size), bool(constant),
                                                     managed, ptr_addr)
        if m.ir is not None and name not in m.ir.variables and _device_runtime_symbol(name):
            self._device_runtime_note(m)
        elif m.ir is not None and name not in m.ir.variables:
            self._registration_failed(what, CudaError(
                Err.InvalidSymbol, f"variable {name} is not in the PTX {m.ptx_name}"),
                "using the symbol returns this error")

    @registration(default=0)
    def gs_init_module(self, handle: int) -> int:
        """``__cudaInitModule``: 1 when the module is loaded and usable, else 0."""
        m = self.registry.module(handle)
        return int(m.error is None and m.loaded is not None)

    @api
    def x__cudaGetKernel(self, kernel_out: int, host_fun: int) -> None:
        _check_ptr(kernel_out, "__cudaGetKernel: kernel pointer")
        self.registry.kernel(host_fun, "__cudaGetKernel")
        abi.write_u64(kernel_out, host_fun)   # the kernel handle is the host stub address

    # ------------------------------------------------------------------ call configuration
    def _config_stack(self) -> list[tuple[tuple[int, int, int], tuple[int, int, int], int, int]]:
        st = getattr(self._tls, "configs", None)
        if st is None:
            st = self._tls.configs = []
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

    # ================================================================== launch (issue item 5)
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
        from .launch import marshal_params, validate_launch

        k = self.registry.kernel(func, what)
        fn = k.function()
        validate_launch(what, k, self.device, grid, block, shmem)
        if cooperative:
            per_sm = self.occupancy(k, block[0] * block[1] * block[2], shmem)
            resident = per_sm * self.device.sm_count
            if grid[0] * grid[1] * grid[2] > resident:
                raise ApiError(ERR_COOPERATIVE_TOO_LARGE,
                               f"{what} {k.name}: {grid[0] * grid[1] * grid[2]} blocks cannot all be resident "
                               f"({per_sm} per SM x {self.device.sm_count} SMs)")
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
            from .streams import STREAM_PER_THREAD

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

    def launch(self, k: Kernel, grid: tuple[int, int, int], block: tuple[int, int, int], shmem: int,
               params: bytes, stream: int = 0, *, cooperative: bool = False) -> None:
        """Enqueue one kernel on ``stream`` (CUDA: asynchronous; ``CUDA_LAUNCH_BLOCKING=1`` waits)."""

        res = k.resources()
        kwargs = self._engine_kwargs(cooperative)
        op = KernelLaunchOp(k.module.loaded, k.name, grid, block, shmem, params, launch_kwargs=kwargs,
                            host_fun=k.host_fun, regs_per_thread=self.device.kernel_regs(res.regs),
                            static_smem_bytes=res.static_smem_bytes)
        self.streams.enqueue(stream, op)
        if os.environ.get("CUDA_LAUNCH_BLOCKING") == "1":
            self.streams.synchronize_stream(stream)

    # ================================================================== device
    @api
    def cudaGetDeviceCount(self, count: int) -> None:
        _check_ptr(count, "cudaGetDeviceCount: count")
        abi.write_i32(count, 1)

    @api
    def cudaGetDevice(self, device: int) -> None:
        _check_ptr(device, "cudaGetDevice: device")
        abi.write_i32(device, 0)

    @staticmethod
    def _check_device(device: int, what: str) -> None:
        if device != 0:
            raise CudaError(Err.InvalidDevice, f"{what}: device {device} does not exist (the simulator has device 0)")

    @api
    def cudaSetDevice(self, device: int) -> None:
        self._check_device(device, "cudaSetDevice")

    @api
    def cudaChooseDevice(self, device: int, prop: int) -> None:
        _check_ptr(device, "cudaChooseDevice: device")
        _check_ptr(prop, "cudaChooseDevice: prop")
        abi.write_i32(device, 0)

    @api
    def cudaGetDeviceProperties(self, prop: int, device: int) -> None:
        _check_ptr(prop, "cudaGetDeviceProperties: prop")
        self._check_device(device, "cudaGetDeviceProperties")
        self.device.fill(abi.CudaDeviceProp.from_address(prop))

    @api
    def cudaDeviceGetAttribute(self, value: int, attr: int, device: int) -> None:
        _check_ptr(value, "cudaDeviceGetAttribute: value")
        self._check_device(device, "cudaDeviceGetAttribute")
        if attr not in DEFINED_DEVICE_ATTRIBUTES:
            raise CudaError(Err.InvalidValue, f"cudaDeviceGetAttribute: {attr} is not a cudaDeviceAttr")
        abi.write_i32(value, self.device.attributes().get(attr, 0))

    @api
    def cudaDeviceSynchronize(self) -> None:
        self.streams.synchronize_device()

    @api
    def cudaDeviceReset(self) -> None:
        """Destroy the context: wait, free every allocation, forget streams/events and errors,
        and reload every module (variables get their initial values again)."""
        try:
            self.streams.synchronize_device()
        except CudaError:
            pass
        shutdown = getattr(self.streams, "shutdown", None)
        if shutdown is not None:
            shutdown(5.0)
        for base in list(self._device_allocs):
            self.gmem.free(base)
        self._device_allocs.clear()
        for base in list(self._managed):
            self.gmem.free(base)
        self._managed.clear()
        for base in list(self._registered):
            self.gmem.free(base)
        self._registered.clear()
        for m in self.registry.modules.values():
            if m.loaded is not None:
                m.loaded.unload()
                m.loaded = None
        self._last_error = 0
        self._sticky_observed = False
        self._limits = dict(LIMIT_DEFAULTS)
        self._device_flags = 0
        self._start_streams()
        for handle in list(self.registry.modules):
            self.x__cudaRegisterFatBinaryEnd(handle)

    @api
    def cudaDeviceSetLimit(self, limit: int, value: int) -> None:
        if limit not in LIMIT_DEFAULTS:
            raise ApiError(ERR_UNSUPPORTED_LIMIT, f"cudaDeviceSetLimit: {limit} is not a cudaLimit")
        if limit == 5 and value > 128:
            raise CudaError(Err.InvalidValue, "cudaDeviceSetLimit: cudaLimitMaxL2FetchGranularity must be 0..128")
        self._limits[limit] = int(value)

    @api
    def cudaDeviceGetLimit(self, p_value: int, limit: int) -> None:
        _check_ptr(p_value, "cudaDeviceGetLimit: pValue")
        if limit not in LIMIT_DEFAULTS:
            raise ApiError(ERR_UNSUPPORTED_LIMIT, f"cudaDeviceGetLimit: {limit} is not a cudaLimit")
        abi.write_u64(p_value, self._limits[limit])

    @api
    def cudaSetDeviceFlags(self, flags: int) -> None:
        # cudaDeviceSchedule* (one of 0, 1, 2, 4) | MapHost 0x08 | LmemResizeToMax 0x10 | SyncMemops 0x80
        sched = flags & 0x07
        if flags & ~0x9F or sched not in (0, 1, 2, 4):
            raise CudaError(Err.InvalidValue, f"cudaSetDeviceFlags: invalid flags {flags:#x}")
        self._device_flags = flags

    @api
    def cudaGetDeviceFlags(self, flags: int) -> None:
        _check_ptr(flags, "cudaGetDeviceFlags: flags")
        abi.write_u32(flags, self._device_flags | 0x08)   # cudaDeviceMapHost is always on

    @api
    def cudaDeviceGetStreamPriorityRange(self, least: int, greatest: int) -> None:
        from .streams import PRIORITY_GREATEST, PRIORITY_LEAST

        if least:
            abi.write_i32(least, PRIORITY_LEAST)
        if greatest:
            abi.write_i32(greatest, PRIORITY_GREATEST)

    @api
    def cudaDriverGetVersion(self, version: int) -> None:
        _check_ptr(version, "cudaDriverGetVersion: driverVersion")
        abi.write_i32(version, CUDART_VERSION)

    @api
    def cudaRuntimeGetVersion(self, version: int) -> None:
        _check_ptr(version, "cudaRuntimeGetVersion: runtimeVersion")
        abi.write_i32(version, CUDART_VERSION)

    def used_device_bytes(self) -> int:
        return sum(self._device_allocs.values())

    @api
    def cudaMemGetInfo(self, free: int, total: int) -> None:
        _check_ptr(free, "cudaMemGetInfo: free")
        _check_ptr(total, "cudaMemGetInfo: total")
        tot = self.device.total_mem_bytes
        abi.write_u64(free, max(0, tot - self.used_device_bytes()))
        abi.write_u64(total, tot)

    # ================================================================== memory
    def _device_alloc(self, size: int, what: str) -> int:
        if size > self.device.total_mem_bytes - self.used_device_bytes():
            raise CudaError(Err.MemoryAllocation,
                            f"{what}: {size} bytes requested, {self.device.total_mem_bytes - self.used_device_bytes()} "
                            f"free on the simulated device")
        addr = self.gmem.allocate(size, ALLOC_ALIGN)
        self._device_allocs[addr] = size
        if note := memory_note("malloc", size, addr):   # PTX_SIM_DEBUG >= 3
            hostio.out(note)
        return addr

    @api
    def cudaMalloc(self, dev_ptr: int, size: int) -> None:
        _check_ptr(dev_ptr, "cudaMalloc: devPtr")
        self.streams.check_unsafe_call("cudaMalloc")
        abi.write_u64(dev_ptr, self._device_alloc(size, "cudaMalloc") if size else 0)

    @api
    def cudaMallocPitch(self, dev_ptr: int, pitch: int, width: int, height: int) -> None:
        _check_ptr(dev_ptr, "cudaMallocPitch: devPtr")
        _check_ptr(pitch, "cudaMallocPitch: pitch")
        self.streams.check_unsafe_call("cudaMallocPitch")
        p = -(-width // PITCH_ALIGN) * PITCH_ALIGN if width else 0
        addr = self._device_alloc(p * height, "cudaMallocPitch") if p * height else 0
        abi.write_u64(dev_ptr, addr)
        abi.write_u64(pitch, p)

    @api
    def cudaFree(self, dev_ptr: int) -> None:
        if not dev_ptr:
            return
        if dev_ptr in self._host_allocs:
            raise CudaError(Err.InvalidValue, f"cudaFree: {dev_ptr:#x} is pinned host memory (use cudaFreeHost)")
        if dev_ptr not in self._device_allocs and dev_ptr not in self._managed:
            raise CudaError(Err.InvalidValue,
                            f"cudaFree: {dev_ptr:#x} is not the start of a live device allocation "
                            f"(double free, or a pointer cudaMalloc did not return)")
        self.streams.check_unsafe_call("cudaFree")
        self.streams.synchronize_device()
        self.gmem.free(dev_ptr)
        self._device_allocs.pop(dev_ptr, None)
        self._managed.pop(dev_ptr, None)

    def _host_alloc(self, ptr: int, size: int, what: str) -> None:
        _check_ptr(ptr, f"{what}: ptr")
        self.streams.check_unsafe_call(what)
        if not size:
            abi.write_u64(ptr, 0)
            return
        buf = np.zeros(size + ALLOC_ALIGN, dtype=np.uint8)
        off = (-buf.ctypes.data) % ALLOC_ALIGN
        view = buf[off:off + size]
        base = self.gmem.map_host(view)   # pinned memory is mapped: kernels may use it (UVA)
        self._host_allocs[base] = (buf, view)
        abi.write_u64(ptr, base)

    @api
    def cudaMallocHost(self, ptr: int, size: int) -> None:
        self._host_alloc(ptr, size, "cudaMallocHost")

    @api
    def cudaHostAlloc(self, ptr: int, size: int, flags: int) -> None:
        if flags & ~0x07:   # cudaHostAllocPortable | Mapped | WriteCombined
            raise CudaError(Err.InvalidValue, f"cudaHostAlloc: invalid flags {flags:#x}")
        self._host_alloc(ptr, size, "cudaHostAlloc")

    @api
    def cudaFreeHost(self, ptr: int) -> None:
        if not ptr:
            return
        if ptr not in self._host_allocs:
            raise CudaError(Err.InvalidValue, f"cudaFreeHost: {ptr:#x} was not returned by cudaMallocHost/cudaHostAlloc")
        self.streams.check_unsafe_call("cudaFreeHost")
        self.streams.synchronize_device()
        self.gmem.free(ptr)
        del self._host_allocs[ptr]

    @api
    def cudaHostGetDevicePointer(self, p_device: int, p_host: int, flags: int) -> None:
        _check_ptr(p_device, "cudaHostGetDevicePointer: pDevice")
        if flags != 0:
            raise CudaError(Err.InvalidValue, "cudaHostGetDevicePointer: flags must be 0")
        found = self.gmem.find(p_host) if p_host else None
        if found is None or (found[0] not in self._host_allocs and found[0] not in self._registered):
            raise CudaError(Err.InvalidValue, f"cudaHostGetDevicePointer: {p_host:#x} is not pinned or "
                                              f"registered host memory")
        abi.write_u64(p_device, p_host)

    @api
    def cudaMallocManaged(self, dev_ptr: int, size: int, flags: int) -> None:
        _check_ptr(dev_ptr, "cudaMallocManaged: devPtr")
        if flags not in (1, 2):
            raise CudaError(Err.InvalidValue,
                            f"cudaMallocManaged: flags {flags:#x} must be cudaMemAttachGlobal or cudaMemAttachHost")
        if not size:
            raise CudaError(Err.InvalidValue, "cudaMallocManaged: size is 0")
        self.streams.check_unsafe_call("cudaMallocManaged")
        if size > self.device.total_mem_bytes - self.used_device_bytes():
            raise CudaError(Err.MemoryAllocation, f"cudaMallocManaged: {size} bytes do not fit")
        buf = np.zeros(size + ALLOC_ALIGN, dtype=np.uint8)
        off = (-buf.ctypes.data) % ALLOC_ALIGN
        view = buf[off:off + size]
        base = self.gmem.map_host(view)
        self._managed[base] = buf
        self._device_allocs[base] = size
        abi.write_u64(dev_ptr, base)

    # ------------------------------------------------------------------ copies
    def _device_range(self, addr: int, nbytes: int, what: str) -> bool:
        """True if [addr, addr+nbytes) is device-accessible memory; raises if it starts inside
        an allocation but runs past its end."""
        found = self.gmem.find(addr) if addr else None
        if found is None:
            # With unified addressing a pointer is classified by its value: one in the device's
            # address window that no allocation covers is a bad device pointer (freed, or past
            # the end), never host memory to be dereferenced.
            if DEVICE_WINDOW_START <= addr < DEVICE_WINDOW_START + self.device.total_mem_bytes:
                raise CudaError(Err.InvalidValue,
                                f"{what}: {addr:#x} is in the device address range but not inside any live "
                                f"allocation (freed, or out of bounds)")
            return False
        base, size = found
        if addr + nbytes > base + size:
            raise CudaError(Err.InvalidValue,
                            f"{what}: {nbytes} bytes at {addr:#x} run past the end of the allocation "
                            f"[{base:#x}, {base + size:#x})")
        return True

    def _copy_kind(self, dst: int, src: int, count: int, kind: int, what: str) -> int:
        if kind not in (H2H, H2D, D2H, D2D, DEFAULT):
            raise CudaError(Err.InvalidMemcpyDirection, f"{what}: {kind} is not a cudaMemcpyKind")
        if not count:
            return kind
        if not dst or not src:
            raise CudaError(Err.InvalidValue, f"{what}: NULL {'destination' if not dst else 'source'} pointer")
        d_dev = self._device_range(dst, count, f"{what} destination")
        s_dev = self._device_range(src, count, f"{what} source")
        if kind in (H2D, D2D) and not d_dev:
            raise CudaError(Err.InvalidValue, f"{what}: destination {dst:#x} is not device memory")
        if kind in (D2H, D2D) and not s_dev:
            raise CudaError(Err.InvalidValue, f"{what}: source {src:#x} is not device memory")
        return kind

    def _memcpy(self, dst: int, src: int, count: int, kind: int, stream: int, sync: bool, what: str) -> None:

        kind = self._copy_kind(dst, src, count, kind, what)
        if not count:
            return
        # The stream manager applies CUDA's blocking rules: an asynchronous copy stages a
        # pageable source and waits only for a pageable destination; a synchronous one waits
        # for its own copy unless it is device to device.
        self.streams.enqueue(stream, MemcpyOp(dst, src, count, kind), sync=sync, what=what)

    @api
    def cudaMemcpy(self, dst: int, src: int, count: int, kind: int) -> None:
        self._memcpy(dst, src, count, kind, 0, True, "cudaMemcpy")

    @api
    def cudaMemcpyAsync(self, dst: int, src: int, count: int, kind: int, stream: int) -> None:
        self._memcpy(dst, src, count, kind, stream, False, "cudaMemcpyAsync")

    @api
    def cudaMemcpy2D(self, dst: int, dpitch: int, src: int, spitch: int, width: int, height: int,
                     kind: int) -> None:

        what = "cudaMemcpy2D"
        if not check_memcpy2d(what, dpitch, spitch, width, height, kind):
            return
        span_d, span_s = dpitch * (height - 1) + width, spitch * (height - 1) + width
        if not dst or not src:
            raise CudaError(Err.InvalidValue, f"{what}: NULL pointer")
        d_dev = self._device_range(dst, span_d, f"{what} destination")
        s_dev = self._device_range(src, span_s, f"{what} source")
        if (kind in (H2D, D2D) and not d_dev) or (kind in (D2H, D2D) and not s_dev):
            raise CudaError(Err.InvalidValue, f"{what}: pointers do not match kind {kind}")
        self.streams.enqueue(0, Memcpy2DOp(dst, dpitch, src, spitch, width, height, kind), sync=True,
                             what=what)

    def _memset(self, ptr: int, value: int, count: int, stream: int, sync: bool, what: str) -> None:

        if not count:
            return
        if not self._device_range(ptr, count, what):
            raise CudaError(Err.InvalidValue, f"{what}: {ptr:#x} is not device memory")
        self.streams.enqueue(stream, MemsetOp(ptr, value, count), sync=sync, what=what)

    @api
    def cudaMemset(self, ptr: int, value: int, count: int) -> None:
        self._memset(ptr, value, count, 0, True, "cudaMemset")

    @api
    def cudaMemsetAsync(self, ptr: int, value: int, count: int, stream: int) -> None:
        self._memset(ptr, value, count, stream, False, "cudaMemsetAsync")

    # ------------------------------------------------------------------ symbols (C032, C033)
    def _symbol_range(self, symbol: int, count: int, offset: int, what: str) -> int:
        var = self.registry.variable(symbol, what)
        if offset + count > var.size:
            raise CudaError(Err.InvalidValue,
                            f"{what}: {count} bytes at offset {offset} exceed {var.name}'s {var.size} bytes")
        return var.device_address() + offset

    def _to_symbol(self, symbol: int, src: int, count: int, offset: int, kind: int, stream: int, sync: bool,
                   what: str) -> None:
        if kind not in (H2D, D2D, DEFAULT):
            raise CudaError(Err.InvalidMemcpyDirection, f"{what}: kind {kind} (must be HostToDevice, DeviceToDevice or Default)")
        dst = self._symbol_range(symbol, count, offset, what)
        self._memcpy(dst, src, count, kind, stream, sync, what)

    def _from_symbol(self, dst: int, symbol: int, count: int, offset: int, kind: int, stream: int, sync: bool,
                     what: str) -> None:
        if kind not in (D2H, D2D, DEFAULT):
            raise CudaError(Err.InvalidMemcpyDirection, f"{what}: kind {kind} (must be DeviceToHost, DeviceToDevice or Default)")
        src = self._symbol_range(symbol, count, offset, what)
        self._memcpy(dst, src, count, kind, stream, sync, what)

    @api
    def cudaMemcpyToSymbol(self, symbol: int, src: int, count: int, offset: int, kind: int) -> None:
        self._to_symbol(symbol, src, count, offset, kind, 0, True, "cudaMemcpyToSymbol")

    @api
    def cudaMemcpyFromSymbol(self, dst: int, symbol: int, count: int, offset: int, kind: int) -> None:
        self._from_symbol(dst, symbol, count, offset, kind, 0, True, "cudaMemcpyFromSymbol")

    @api
    def cudaMemcpyToSymbolAsync(self, symbol: int, src: int, count: int, offset: int, kind: int,
                                stream: int) -> None:
        self._to_symbol(symbol, src, count, offset, kind, stream, False, "cudaMemcpyToSymbolAsync")

    @api
    def cudaMemcpyFromSymbolAsync(self, dst: int, symbol: int, count: int, offset: int, kind: int,
                                  stream: int) -> None:
        self._from_symbol(dst, symbol, count, offset, kind, stream, False, "cudaMemcpyFromSymbolAsync")

    @api
    def cudaGetSymbolAddress(self, dev_ptr: int, symbol: int) -> None:
        _check_ptr(dev_ptr, "cudaGetSymbolAddress: devPtr")
        abi.write_u64(dev_ptr, self.registry.variable(symbol, "cudaGetSymbolAddress").device_address())

    @api
    def cudaGetSymbolSize(self, size: int, symbol: int) -> None:
        _check_ptr(size, "cudaGetSymbolSize: size")
        abi.write_u64(size, self.registry.variable(symbol, "cudaGetSymbolSize").size)

    @api
    def cudaPointerGetAttributes(self, attrs: int, ptr: int) -> None:
        """Classify ``ptr`` by the allocation containing it (interior pointers included; the
        aliases reported are ``ptr`` itself, every allocation being reachable at the same
        address from host and device under unified addressing):

        * ``cudaMalloc`` memory and module variables: ``cudaMemoryTypeDevice``, device 0,
          ``devicePointer`` = ptr, ``hostPointer`` NULL;
        * ``cudaMallocHost`` / ``cudaHostAlloc`` and ``cudaHostRegister`` memory:
          ``cudaMemoryTypeHost``, device 0, both aliases = ptr;
        * ``cudaMallocManaged``: ``cudaMemoryTypeManaged``, device 0, both aliases = ptr;
        * anything else (pageable host memory, a freed or never allocated device address,
          NULL): ``cudaMemoryTypeUnregistered``, device ``cudaInvalidDeviceId`` (-2), both
          aliases NULL, and the call succeeds (CUDA 11 and later)."""
        _check_ptr(attrs, "cudaPointerGetAttributes: attributes")
        a = abi.CudaPointerAttributes.from_address(attrs)
        ctypes.memset(attrs, 0, ctypes.sizeof(a))
        found = self.gmem.find(ptr) if ptr else None
        if found is None:
            a.type, a.device = MEM_UNREGISTERED, INVALID_DEVICE_ID
            return
        base = found[0]
        if base in self._managed:
            a.type, a.devicePointer, a.hostPointer = MEM_MANAGED, ptr, ptr
        elif base in self._host_allocs or base in self._registered:
            a.type, a.devicePointer, a.hostPointer = MEM_HOST, ptr, ptr
        else:
            a.type, a.devicePointer = MEM_DEVICE, ptr
        a.device = 0

    # ================================================================== kernels
    @api
    def cudaFuncGetAttributes(self, attr: int, func: int) -> None:
        _check_ptr(attr, "cudaFuncGetAttributes: attr")
        k = self.registry.kernel(func, "cudaFuncGetAttributes")
        r = k.resources()
        a = abi.CudaFuncAttributes.from_address(attr)
        ctypes.memset(attr, 0, ctypes.sizeof(a))
        a.sharedSizeBytes = r.static_smem_bytes
        a.constSizeBytes = r.const_bytes
        a.localSizeBytes = r.local_bytes
        a.maxThreadsPerBlock = self._max_threads(k)
        a.numRegs = self.device.kernel_regs(r.regs)
        a.ptxVersion = k.module.ptx_arch          # the compute_XY the simulated PTX targets
        a.binaryVersion = k.module.ptx_arch
        a.maxDynamicSharedSizeBytes = k.attrs.get(FUNC_ATTR_MAX_DYN_SMEM, self._default_dyn_smem(k))
        a.preferredShmemCarveout = k.attrs.get(FUNC_ATTR_CARVEOUT, -1)

    def _default_dyn_smem(self, k: Kernel) -> int:
        return max(0, self.device.smem_per_block_default_bytes - k.resources().static_smem_bytes)

    def _max_threads(self, k: Kernel) -> int:
        r = k.resources()
        return self.device.max_threads_for(r.regs, r.max_threads)

    @api
    def cudaFuncSetAttribute(self, func: int, attr: int, value: int) -> None:
        k = self.registry.kernel(func, "cudaFuncSetAttribute")
        if attr == FUNC_ATTR_MAX_DYN_SMEM:
            top = self.device.max_smem_per_block_bytes - k.resources().static_smem_bytes
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
        k = self.registry.kernel(func, "cudaFuncSetCacheConfig")
        if cache_config not in (0, 1, 2, 3):
            raise CudaError(Err.InvalidValue, f"cudaFuncSetCacheConfig: {cache_config} is not a cudaFuncCache")
        k.cache_config = cache_config

    def occupancy(self, k: Kernel, block_size: int, dyn_smem: int) -> int:
        """CTAs per SM, as GPGPU-Sim's ``shader_core_config::max_cta`` computes it: the minimum
        of the CTA slots, threads (padded to whole warps), registers (per-thread count rounded
        up to 4) and shared memory (static + dynamic here); 0 for a block that cannot launch.
        A block that launches gets at least one (GPGPU-Sim's rounding of registers to 4 can
        exceed the register file where the GPU's own allocation fits: cc 1.x and 2.x)."""
        d = self.device
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
        k = self.registry.kernel(func, what)
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
        k = self.registry.kernel(func, what)
        if num_blocks <= 0 or block_size <= 0:
            raise CudaError(Err.InvalidValue, f"{what}: numBlocks {num_blocks} / blockSize {block_size}")
        static = k.resources().static_smem_bytes
        if self.occupancy(k, block_size, 0) < num_blocks:
            abi.write_u64(size_out, 0)
            return
        per_block = self.device.smem_per_sm_bytes // num_blocks - static
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

    # ================================================================== more device / memory / kernel
    @api
    def cudaDeviceSetCacheConfig(self, cache_config: int) -> None:
        if cache_config not in (0, 1, 2, 3):
            raise CudaError(Err.InvalidValue, f"cudaDeviceSetCacheConfig: {cache_config} is not a cudaFuncCache")
        self._cache_config = cache_config

    @api
    def cudaDeviceGetCacheConfig(self, p_config: int) -> None:
        _check_ptr(p_config, "cudaDeviceGetCacheConfig: pCacheConfig")
        abi.write_i32(p_config, self._cache_config)

    @api
    def cudaDeviceSetSharedMemConfig(self, config: int) -> None:
        if config not in (0, 1, 2):
            raise CudaError(Err.InvalidValue, f"cudaDeviceSetSharedMemConfig: {config} is not a cudaSharedMemConfig")
        self._smem_config = config

    @api
    def cudaDeviceGetSharedMemConfig(self, p_config: int) -> None:
        _check_ptr(p_config, "cudaDeviceGetSharedMemConfig: pConfig")
        abi.write_i32(p_config, self._smem_config)

    @api
    def cudaFuncSetSharedMemConfig(self, func: int, config: int) -> None:
        self.registry.kernel(func, "cudaFuncSetSharedMemConfig")
        if config not in (0, 1, 2):
            raise CudaError(Err.InvalidValue, f"cudaFuncSetSharedMemConfig: {config} is not a cudaSharedMemConfig")

    @api
    def cudaProfilerStart(self) -> None:
        """Profiling ranges: the simulator always collects its statistics (nothing to start)."""

    @api
    def cudaProfilerStop(self) -> None:
        """See :meth:`cudaProfilerStart`."""

    @api
    def cudaInitDevice(self, device: int, device_flags: int, flags: int) -> None:
        self._check_device(device, "cudaInitDevice")
        if flags & ~1:
            raise CudaError(Err.InvalidValue, f"cudaInitDevice: invalid flags {flags:#x}")
        if device_flags:
            self.cudaSetDeviceFlags(device_flags)

    @api
    def cudaSetValidDevices(self, device_arr: int, length: int) -> None:
        if length < 0 or (length and not device_arr):
            raise CudaError(Err.InvalidValue, "cudaSetValidDevices: bad device list")
        for d in (ctypes.c_int * length).from_address(device_arr) if length else ():
            self._check_device(d, "cudaSetValidDevices")

    @api
    def cudaDeviceCanAccessPeer(self, can_access: int, device: int, peer: int) -> None:
        _check_ptr(can_access, "cudaDeviceCanAccessPeer: canAccessPeer")
        self._check_device(device, "cudaDeviceCanAccessPeer")
        self._check_device(peer, "cudaDeviceCanAccessPeer (peer)")
        abi.write_i32(can_access, 0)      # a device is not its own peer

    @api
    def cudaDeviceGetPCIBusId(self, buf: int, length: int, device: int) -> None:
        _check_ptr(buf, "cudaDeviceGetPCIBusId: pciBusId")
        self._check_device(device, "cudaDeviceGetPCIBusId")
        if length <= 0:
            raise CudaError(Err.InvalidValue, f"cudaDeviceGetPCIBusId: len {length}")
        data = PCI_BUS_ID.encode()[:length - 1] + b"\0"
        abi.write(buf, data)

    @api
    def cudaDeviceGetByPCIBusId(self, device: int, bus_id: int) -> None:
        _check_ptr(device, "cudaDeviceGetByPCIBusId: device")
        text = abi.read_cstr(bus_id)
        if text.lower() not in (PCI_BUS_ID.lower(), PCI_BUS_ID[5:].lower()):
            raise CudaError(Err.InvalidDevice, f"cudaDeviceGetByPCIBusId: no device at {text!r} "
                            f"(the simulated device is {PCI_BUS_ID})")
        abi.write_i32(device, 0)

    @api
    def cudaHostRegister(self, ptr: int, size: int, flags: int) -> None:
        """Page-lock existing host memory: it becomes device-accessible at its own address."""
        if not ptr or not size:
            raise CudaError(Err.InvalidValue, "cudaHostRegister: NULL pointer or zero size")
        if flags & ~0x0F:
            raise CudaError(Err.InvalidValue, f"cudaHostRegister: invalid flags {flags:#x}")
        if flags & 0x04:
            raise CudaError(Err.NotSupported, "cudaHostRegister: cudaHostRegisterIoMemory is not simulated")
        if DEVICE_WINDOW_START <= ptr < DEVICE_WINDOW_START + self.device.total_mem_bytes:
            raise CudaError(Err.InvalidValue, f"cudaHostRegister: {ptr:#x} is a device address")
        self.streams.check_unsafe_call("cudaHostRegister")
        if ptr in self._registered or self.gmem.find(ptr) is not None:
            raise ApiError(ERR_HOST_MEM_ALREADY_REGISTERED,
                           f"cudaHostRegister: {ptr:#x} is already registered or device memory")
        view = np.ctypeslib.as_array((ctypes.c_uint8 * size).from_address(ptr))
        base = self.gmem.map_host(view)
        self._registered[base] = (view, flags)

    @api
    def cudaHostUnregister(self, ptr: int) -> None:
        if ptr not in self._registered:
            raise ApiError(ERR_HOST_MEM_NOT_REGISTERED, f"cudaHostUnregister: {ptr:#x} was not registered")
        self.streams.check_unsafe_call("cudaHostUnregister")
        self.streams.synchronize_device()
        self.gmem.free(ptr)
        del self._registered[ptr]

    @api
    def cudaHostGetFlags(self, p_flags: int, p_host: int) -> None:
        _check_ptr(p_flags, "cudaHostGetFlags: pFlags")
        found = self.gmem.find(p_host) if p_host else None
        base = found[0] if found else None
        if base in self._host_allocs:
            abi.write_u32(p_flags, 0x02)   # cudaHostAllocMapped: pinned memory is mapped (UVA)
        elif base in self._registered:
            abi.write_u32(p_flags, self._registered[base][1] | 0x02)
        else:
            raise CudaError(Err.InvalidValue, f"cudaHostGetFlags: {p_host:#x} is not pinned host memory")

    @api
    def cudaMemset2D(self, ptr: int, pitch: int, value: int, width: int, height: int) -> None:

        if width > pitch and height > 1:
            raise CudaError(Err.InvalidValue, f"cudaMemset2D: width {width} exceeds pitch {pitch}")
        if not width or not height:
            return
        if not self._device_range(ptr, pitch * (height - 1) + width, "cudaMemset2D"):
            raise CudaError(Err.InvalidValue, f"cudaMemset2D: {ptr:#x} is not device memory")
        self.streams.enqueue(0, MemsetOp(ptr, value, width, 1, pitch, height), sync=True, what="cudaMemset2D")

    @api
    def cudaMemcpyPeer(self, dst: int, dst_device: int, src: int, src_device: int, count: int) -> None:
        self._check_device(dst_device, "cudaMemcpyPeer (dstDevice)")
        self._check_device(src_device, "cudaMemcpyPeer (srcDevice)")
        self._memcpy(dst, src, count, D2D, 0, True, "cudaMemcpyPeer")

    @api
    def cudaFuncGetName(self, name_out: int, func: int) -> None:
        _check_ptr(name_out, "cudaFuncGetName: name")
        k = self.registry.kernel(func, "cudaFuncGetName")
        abi.write_u64(name_out, self._cstring("f" + k.name, func, k.name))

    def _managed_range(self, ptr: int, count: int, what: str) -> None:
        found = self.gmem.find(ptr) if ptr else None
        if found is None or (found[0] not in self._managed and found[0] not in self._device_allocs):
            raise CudaError(Err.InvalidValue, f"{what}: {ptr:#x} is not device or managed memory")
        if ptr + count > found[0] + found[1]:
            raise CudaError(Err.InvalidValue, f"{what}: {count} bytes at {ptr:#x} run past the allocation")

    @api
    def cudaStreamAttachMemAsync(self, stream: int, ptr: int, length: int, flags: int) -> None:
        """A placement hint: in the simulator every allocation is visible to every stream."""
        if flags not in (1, 2, 4):
            raise CudaError(Err.InvalidValue, f"cudaStreamAttachMemAsync: invalid flags {flags:#x}")
        self._managed_range(ptr, length, "cudaStreamAttachMemAsync")
        self.streams.get_stream(stream)

    @api
    def gs_mem_prefetch(self, ptr: int, count: int, location: int, flags: int, stream: int) -> None:
        """``cudaMemPrefetchAsync``: validated; migration has no cost in the functional model."""
        loc_type, loc_id = struct.unpack("<ii", abi.read(location, 8))
        if flags:
            raise CudaError(Err.InvalidValue, "cudaMemPrefetchAsync: flags must be 0")
        if loc_type == 1:
            self._check_device(loc_id, "cudaMemPrefetchAsync")
        elif loc_type not in (2, 3, 4):
            raise CudaError(Err.InvalidValue, f"cudaMemPrefetchAsync: location type {loc_type}")
        self._managed_range(ptr, count, "cudaMemPrefetchAsync")
        self.streams.get_stream(stream)

    @api
    def gs_mem_advise(self, ptr: int, count: int, advice: int, location: int) -> None:
        """``cudaMemAdvise``: a hint, validated and recorded; results never depend on it."""
        loc_type, loc_id = struct.unpack("<ii", abi.read(location, 8))
        if advice not in range(1, 7):
            raise CudaError(Err.InvalidValue, f"cudaMemAdvise: {advice} is not a cudaMemoryAdvise")
        if advice in (3, 5) and loc_type == 1:
            self._check_device(loc_id, "cudaMemAdvise")
        self._managed_range(ptr, count, "cudaMemAdvise")

    # ------------------------------------------------------------------ 3D linear memory
    @api
    def gs_malloc3d(self, pitched: int, extent: int) -> None:
        """``cudaMalloc3D``: rows padded to the pitch alignment, ``height * depth`` rows."""
        _check_ptr(pitched, "cudaMalloc3D: pitchedDevPtr")
        self.streams.check_unsafe_call("cudaMalloc3D")
        width, height, depth = struct.unpack("<3Q", abi.read(extent, 24))
        pitch = -(-width // PITCH_ALIGN) * PITCH_ALIGN if width else 0
        size = pitch * height * depth
        ptr = self._device_alloc(size, "cudaMalloc3D") if size else 0
        abi.write(pitched, struct.pack("<4Q", ptr, pitch, width, height))

    def _copy3d_ops(self, what: str, p: int) -> list[Any]:

        _check_ptr(p, f"{what}: p")
        raw = abi.read(p, 160)
        q = struct.unpack_from("<19Q", raw, 0)
        (kind,) = struct.unpack_from("<i", raw, 152)
        src_array, (sx, sy, sz), (sptr, spitch, _sxs, sysz) = q[0], q[1:4], q[4:8]
        dst_array, (dx, dy, dz), (dptr, dpitch, _dxs, dysz) = q[8], q[9:12], q[12:16]
        width, height, depth = q[16:19]
        if src_array or dst_array:
            raise CudaError(Err.NotSupported, f"{what}: CUDA arrays are not simulated (use pitched memory)")
        if kind not in (H2H, H2D, D2H, D2D, DEFAULT):
            raise CudaError(Err.InvalidMemcpyDirection, f"{what}: {kind} is not a cudaMemcpyKind")
        if not width or not height or not depth:
            return []
        if not sptr or not dptr:
            raise CudaError(Err.InvalidValue, f"{what}: NULL srcPtr.ptr or dstPtr.ptr")
        if width + sx > spitch or width + dx > dpitch:
            raise CudaError(Err.InvalidPitchValue,
                            f"{what}: width {width} (+x offset) exceeds a pitch ({spitch}, {dpitch})")
        s_rows, d_rows = sysz or (sy + height), dysz or (dy + height)
        if sy + height > s_rows or dy + height > d_rows:
            raise CudaError(Err.InvalidValue, f"{what}: the copy's rows exceed a pitched pointer's ysize")
        ops = []
        for z in range(depth):
            s0 = sptr + ((sz + z) * s_rows + sy) * spitch + sx
            d0 = dptr + ((dz + z) * d_rows + dy) * dpitch + dx
            self._copy_kind(d0, s0, 1, kind, what)
            self._device_range(s0, spitch * (height - 1) + width, f"{what} source")
            self._device_range(d0, dpitch * (height - 1) + width, f"{what} destination")
            ops.append(Memcpy2DOp(d0, dpitch, s0, spitch, width, height, kind))
        return ops

    @api
    def cudaMemcpy3D(self, p: int) -> None:
        ops = self._copy3d_ops("cudaMemcpy3D", p)
        self.streams.check_unsafe_call("cudaMemcpy3D")     # before any slice is queued
        for i, op in enumerate(ops):   # waiting for the last slice covers the earlier ones
            self.streams.enqueue(0, op, sync=i == len(ops) - 1, what="cudaMemcpy3D")

    @api
    def cudaMemcpy3DAsync(self, p: int, stream: int) -> None:
        for op in self._copy3d_ops("cudaMemcpy3DAsync", p):
            self.streams.enqueue(stream, op)

    @api
    def gs_memset3d(self, pitched: int, value: int, extent: int, stream: int, is_async: int) -> None:

        what = "cudaMemset3DAsync" if is_async else "cudaMemset3D"
        ptr, pitch, _xsize, ysize = struct.unpack("<4Q", abi.read(pitched, 32))
        width, height, depth = struct.unpack("<3Q", abi.read(extent, 24))
        if not width or not height or not depth:
            return
        if width > pitch:
            raise CudaError(Err.InvalidValue, f"{what}: width {width} exceeds pitch {pitch}")
        rows = ysize or height
        last = ptr + ((depth - 1) * rows + height - 1) * pitch
        if not self._device_range(ptr, 1, what) or not self._device_range(last, width, what):
            raise CudaError(Err.InvalidValue, f"{what}: {ptr:#x} is not device memory (or too small)")
        if not is_async:
            self.streams.check_unsafe_call(what)           # before any slice is queued
        for z in range(depth):      # one pitched memset per slice; a sync call waits on the last
            self.streams.enqueue(stream, MemsetOp(ptr + z * rows * pitch, value, width, 1, pitch, height),
                                 sync=not is_async and z == depth - 1, what=what)

    # ================================================================== errors
    def cudaGetLastError(self) -> int:
        blocked = self._blocked_by()
        if blocked is not None:
            return int(blocked.code)
        code, self._last_error = self._last_error, 0
        return code

    def cudaPeekAtLastError(self) -> int:
        blocked = self._blocked_by()
        if blocked is not None:
            return int(blocked.code)
        return self._last_error

    def _cstring(self, kind: str, code: int, text: str) -> int:
        key = (kind, code)
        buf = self._cstrings.get(key)
        if buf is None:
            buf = self._cstrings[key] = ctypes.create_string_buffer(text.encode())
        return ctypes.addressof(buf)

    def gs_error_string(self, code: int) -> int:
        """``cudaGetErrorString``: CUDA's own message text (a persistent C string)."""
        return self._cstring("s", code, MESSAGES.get(code, "unrecognized error code"))

    def gs_error_name(self, code: int) -> int:
        """``cudaGetErrorName``."""
        return self._cstring("n", code, NAMES.get(code, "unrecognized error code"))

    def gs_not_supported(self, name_addr: int) -> int:
        """An exported entry point gpgpusim does not implement (generated C stub)."""
        name = abi.read_cstr(name_addr)
        return self._record(name, CudaError(Err.NotSupported,
                                            f"{name}() is not supported by gpgpusim (returning cudaErrorNotSupported)"))

    # ================================================================== streams and events
    @api
    def cudaStreamCreate(self, p_stream: int) -> None:
        _check_ptr(p_stream, "cudaStreamCreate: pStream")
        abi.write_u64(p_stream, self.streams.create_stream())

    @api
    def cudaStreamCreateWithFlags(self, p_stream: int, flags: int) -> None:
        _check_ptr(p_stream, "cudaStreamCreateWithFlags: pStream")
        abi.write_u64(p_stream, self.streams.create_stream(flags))

    @api
    def cudaStreamCreateWithPriority(self, p_stream: int, flags: int, priority: int) -> None:
        _check_ptr(p_stream, "cudaStreamCreateWithPriority: pStream")
        abi.write_u64(p_stream, self.streams.create_stream(flags, priority))

    @api
    def cudaStreamDestroy(self, stream: int) -> None:
        self.streams.destroy_stream(stream)

    @api
    def cudaStreamSynchronize(self, stream: int) -> None:
        self.streams.synchronize_stream(stream)

    @api
    def cudaStreamQuery(self, stream: int) -> int:
        return 0 if self.streams.query_stream(stream) else int(Err.NotReady)

    @api
    def cudaStreamWaitEvent(self, stream: int, event: int, flags: int) -> None:
        self.streams.stream_wait_event(stream, event, flags)

    @api
    def cudaEventCreate(self, event: int) -> None:
        _check_ptr(event, "cudaEventCreate: event")
        abi.write_u64(event, self.streams.create_event())

    @api
    def cudaEventCreateWithFlags(self, event: int, flags: int) -> None:
        _check_ptr(event, "cudaEventCreateWithFlags: event")
        abi.write_u64(event, self.streams.create_event(flags))

    @api
    def cudaEventRecord(self, event: int, stream: int) -> None:
        self.streams.record_event(event, stream)

    @api
    def cudaEventRecordWithFlags(self, event: int, stream: int, flags: int) -> None:
        self.streams.record_event(event, stream, flags)

    @api
    def cudaEventQuery(self, event: int) -> int:
        return 0 if self.streams.query_event(event) else int(Err.NotReady)

    @api
    def cudaEventSynchronize(self, event: int) -> None:
        self.streams.synchronize_event(event)

    @api
    def cudaEventElapsedTime(self, ms: int, start: int, end: int) -> None:
        _check_ptr(ms, "cudaEventElapsedTime: ms")
        abi.write_f32(ms, self.streams.elapsed_ms(start, end))

    @api
    def cudaEventDestroy(self, event: int) -> None:
        self.streams.destroy_event(event)

    # ================================================================== exit
    def gs_process_exit(self) -> None:
        """C ``atexit`` of the shim: the end-of-program report for applications that never
        unregister a fat binary (no-op after ``__cudaUnregisterFatBinary`` did it)."""
        try:
            self.exit()
        except Exception as exc:  # noqa: BLE001 - exit must not raise into C
            self.fail("exit", exc)

    def json_meta(self) -> dict[str, Any]:
        """The ``"run"`` section of ``-o stats.json``."""
        import sys

        return {
            "argv": list(getattr(sys, "argv", []) or []),   # the shim sets it from /proc/self/cmdline
            "gpu": getattr(self.config, "gpu_name", None) or getattr(self.config, "config_file", None),
            "functional": bool(getattr(self.config, "functional_only", False)),
            "kernels": len(getattr(self.gpu, "kernels", [])),
            "device_memory_used_bytes": self.used_device_bytes(),
            **({"ptxplus": self._ptxplus_summary()} if self._ptxplus else {}),
        }

    def _ptxplus_summary(self) -> list[dict[str, Any]]:
        """PTXPlus mode, per fat binary: the SASS arch simulated (0: none, its PTX ran), the
        kernels converted, those that run their PTX (-gpgpusim_ptxplus_fallback 1) and those
        whose launches fail, with the reason."""
        out = []
        for m in sorted(self.registry.modules.values(), key=lambda m: m.index):
            pp = m.ptxplus
            if pp is None:
                continue
            out.append({"fatbin": m.index, "sass_arch": pp.arch, "converted": sorted(pp.converted),
                        "ptx_fallback": sorted(pp.fallback),
                        "not_supported": {k: e.message for k, e in sorted(pp.errors.items())}})
        return out

    def exit(self) -> None:
        """Program end (last fat binary unregistered): finish queued work, final report.

        The stream manager drains every stream (kernels, copies, host functions still queued
        when ``main`` returned) and stops and joins the simulation thread, so the final
        statistics are complete and ``*** exit detected ***`` is the simulator's last line."""
        if self._exited:
            return
        self._exited = True
        self.streams.shutdown()
        rep = self.reporter
        fn = getattr(rep, "exit", None) if rep is not None else None
        if fn is not None:
            fn()
        status = 0
        if int(self._cfg("gpgpusim_memcheck", 0) or 0):
            from gpgpusim.functional import memcheck

            memcheck.summary(force=True)     # ========= ERROR SUMMARY: N errors
            status = memcheck.exit_status(self.config)
        path = os.environ.get("GPGPUSIM_STATS_JSON")
        if path:
            try:
                from gpgpusim.report import write_json

                write_json(path, self)
            except (ImportError, AttributeError, TypeError, OSError) as exc:
                hostio.err(f"gpgpusim: cannot write the statistics to {path}: {exc}")
        hostio.flush()
        import sys

        if status and "_gpgpusim_cudart" in sys.modules:
            # memcheck found errors: the application ends with -gpgpusim_memcheck_error_exitcode
            memcheck.end_process(status)


for _n in [n for n in vars(Runtime) if n.startswith("x__cuda")]:
    setattr(Runtime, _n[1:], getattr(Runtime, _n))


def _parse_ptx(text: str, name: str) -> Any:
    try:
        from gpgpusim.ptx import load_ptx_cached as parse
    except ImportError:
        try:
            from gpgpusim.ptx import parse_ptx as parse
        except ImportError:
            raise CudaError(Err.NotSupported, "the PTX front end (gpgpusim.ptx.parse_ptx) is not available") from None
    return parse(text, name)


class _ReporterHooks:
    """Forwards the GPU's kernel events to the Reporter methods that exist."""

    def __init__(self, reporter: Any) -> None:
        self.reporter = reporter

    def kernel_launch(self, rec: Any) -> None:
        fn = getattr(self.reporter, "kernel_launch", None)
        if fn is not None:
            fn(rec)

    def kernel_end(self, rec: Any) -> None:
        fn = getattr(self.reporter, "kernel_end", None)
        if fn is not None:
            fn(rec)

    def functional_done(self, stats: Any) -> None:
        # added by the streams part: Gpu reports a functional-mode kernel's end through this
        fn = getattr(self.reporter, "functional_done", None)
        if fn is not None:
            fn(stats)

    def __getattr__(self, name: str) -> Any:
        """Every other Reporter method the GPU calls (the timing model's ``cta_limit``,
        ``l1_reconfigure``, ``shader_bind``, ``progress``); None when the reporter has none."""
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.reporter, name, None)
