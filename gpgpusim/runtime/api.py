"""The CUDA runtime API with CUDA 13 semantics, on the simulated GPU.

GPGPU-Sim counterpart: ``libcuda/cuda_runtime_api.cc`` (the ``cuda*`` entry points and their
``*Internal`` helpers) plus ``CUctx_st``; checklist C013-C016, C026-C041, C044-C046.  Unlike
GPGPU-Sim (which aborts, or returns success, on much of the API) every call validates its
arguments and returns the ``cudaError_t`` CUDA returns, ``cudaFree`` really frees,
``cudaMemGetInfo`` reports the true free memory, and nothing unsupported succeeds silently.

:class:`Runtime` is the context of one process (one simulated device, C026): the shared state
(config, device memory, the module registry, the stream manager and its GPU, the per-thread
last error) and the services that implement the entry points, one per concern
(:mod:`.service` describes the calling convention and error handling):

========================  =====================================================================
``device_api``            :class:`~.device_api.DeviceApi`: device properties, limits, flags
``memory_api``            :class:`~.memory_api.MemoryApi`: allocation, copies, memsets, symbols
``module_api``            :class:`~.module_api.ModuleApi`: registration, launches, occupancy
``stream_api``            :class:`~.stream_api.StreamApi`: streams, events, host functions, pools
``graph_api``             :class:`~.graph_api.GraphApi`: stream capture and CUDA graphs
``texture_api``           :class:`~.textures.TextureApi`: CUDA arrays, texture/surface objects
========================  =====================================================================

The runtime itself keeps the error entry points, ``cudaDeviceReset`` and the end of the
program.  :data:`ENTRY_POINTS` is the dispatch table the shim calls through: every CUDA name to
the service (or the runtime) that implements it; each runtime carries the bound methods as
attributes of the same names (``rt.cudaMalloc(...)``).

A sticky error (kernel fault) is returned by every later call.  A fat binary that cannot be
registered (no PTX, broken PTX, a load failure) keeps its error: launches of its kernels and
accesses to its variables return it, every other call works (as CUDA reports a bad module only
when it is used).  All GPU work goes through the stream manager
(:class:`gpgpusim.runtime.streams.StreamManager`): synchronous calls enqueue on the legacy
default stream and wait.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Callable
from typing import Any

from gpgpusim import hostio
from gpgpusim.device import make_gpu
from gpgpusim.errors import CudaError, Err
from gpgpusim.functional import memcheck
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.report import write_json

from . import abi
from .device import DeviceInfo
from .device_api import DeviceApi
from .errors_table import MESSAGES, NAMES
from .graph_api import GraphApi
from .memory_api import MemoryApi
from .module_api import ModuleApi
from .modules import Registry
from .service import PUBLIC_NAMES, api, entry_name, internal_error, is_entry_point
from .stream_api import StreamApi
from .streams import StreamManager
from .textures import TextureApi

#: the services of a runtime: attribute name -> class
SERVICES: dict[str, type] = {"device_api": DeviceApi, "memory_api": MemoryApi, "module_api": ModuleApi,
                             "stream_api": StreamApi, "graph_api": GraphApi, "texture_api": TextureApi}
#: results that are not errors for the last-error state
_NOT_ERRORS = {0, int(Err.NotReady)}


class Runtime:
    """The CUDA runtime of one process (see the module docstring)."""

    def __init__(self, config: Any = None, *, gmem: Any = None, launch_fn: Callable[..., Any] | None = None,
                 reporter: Any = None, splash: bool = True) -> None:
        self.rt = self                    # (the entry-point wrappers reach the context as .rt)
        self.config = config
        self.device = DeviceInfo.from_config(config, getattr(config, "gpu_name", None))
        self.gmem = gmem if gmem is not None else GlobalMemory()
        self.reporter = reporter
        self._launch_fn = launch_fn
        self.registry = Registry()
        self._tls = threading.local()     # per host thread: last error, call configurations
        self._sticky_observed = False
        self._cstrings: dict[tuple[str, int], Any] = {}
        self._exited = False
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
        self.device_api = DeviceApi(self)
        self.memory_api = MemoryApi(self)
        self.module_api = ModuleApi(self)
        self.stream_api = StreamApi(self)
        self.graph_api = GraphApi(self)
        self.texture_api = TextureApi(self)
        for name, (where, method) in ENTRY_POINTS.items():
            if where:
                setattr(self, name, getattr(getattr(self, where), method))
        if splash and reporter is not None:
            for step in ("splash", "option_dump", "perf_init"):
                fn = getattr(reporter, step, None)
                if fn is not None:
                    fn()

    @classmethod
    def entry_function(cls, name: str) -> Callable[..., Any] | None:
        """The (unbound) function implementing CUDA entry point ``name``, None if none does."""
        hit = ENTRY_POINTS.get(name)
        if hit is None:
            return None
        where, method = hit
        owner = cls if where == "" else SERVICES[where]
        return getattr(owner, method, None)

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
        name = PUBLIC_NAMES.get(name, name)
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
        return self._record(name, internal_error(name, exc))

    def _registration_failed(self, name: str, exc: BaseException, consequence: str = "") -> CudaError:
        """One stderr line for a failed registration call (with ``GPGPUSIM_TRACEBACK=1`` the
        traceback of ``exc`` itself, not of the CudaError it becomes); ``consequence`` tells the
        user what it will affect.  Returns the CudaError."""
        if os.environ.get("GPGPUSIM_TRACEBACK") == "1":
            import traceback

            hostio.flush()
            traceback.print_exception(type(exc), exc, exc.__traceback__)
        err = internal_error(name, exc)
        name = PUBLIC_NAMES.get(name, name)
        tail = f" ({consequence})" if consequence else ""
        hostio.err(f"gpgpusim: {name}: {NAMES.get(int(err.code), err.code)}: {err.message}{tail}")
        return err

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

    # ================================================================== the context
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
        self.memory_api.free_all()
        for m in self.registry.modules.values():
            if m.loaded is not None:
                m.loaded.unload()
                m.loaded = None
        self._last_error = 0
        self._sticky_observed = False
        self.device_api.reset()
        self._start_streams()
        self.module_api.reload_all()

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

    # ================================================================== end of the program

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
            "device_memory_used_bytes": self.memory_api.used_device_bytes(),
            **({"ptxplus": self.module_api._ptxplus_summary()} if self._ptxplus else {}),
        }

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
            memcheck.summary(force=True)     # ========= ERROR SUMMARY: N errors
            status = memcheck.exit_status(self.config)
        path = os.environ.get("GPGPUSIM_STATS_JSON")
        if path:
            try:
                write_json(path, self)
            except (ImportError, AttributeError, TypeError, OSError) as exc:
                hostio.err(f"gpgpusim: cannot write the statistics to {path}: {exc}")
        hostio.flush()
        import sys

        if status and "_gpgpusim_cudart" in sys.modules:
            # memcheck found errors: the application ends with -gpgpusim_memcheck_error_exitcode
            memcheck.end_process(status)


def _entry_points() -> dict[str, tuple[str, str]]:
    """CUDA name -> (service attribute, "" for the runtime itself; method name)."""
    table: dict[str, tuple[str, str]] = {}
    for where, cls in (("", Runtime), *SERVICES.items()):
        for method in dir(cls):
            if is_entry_point(method) and callable(getattr(cls, method)):
                name = entry_name(method)
                if name in table:
                    raise AssertionError(f"{name} is implemented twice: {table[name]} and {(where, method)}")
                table[name] = (where, method)
    return table


#: the dispatch table: CUDA entry point -> (service attribute, method name)
ENTRY_POINTS = _entry_points()


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
