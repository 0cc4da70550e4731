"""What every part of the CUDA runtime shares: the :class:`Service` base and the entry-point
wrappers.

:class:`gpgpusim.runtime.api.Runtime` is composed of services -- devices, memory, modules and
launches, streams and events, graphs and capture, textures -- each a :class:`Service` holding
its own state and reaching the shared context (config, device memory, the stream manager, the
module registry, the error state) and the other services through ``self.rt``.  The runtime's
dispatch table maps each CUDA entry point to the service method that implements it
(:data:`gpgpusim.runtime.api.ENTRY_POINTS`).

Calling convention (the shim relies on it): an entry point is named after the CUDA function (a
method ``x__cudaFoo`` implements ``__cudaFoo``: a leading double underscore would be
name-mangled; ``gs_*`` are the shim's own), takes plain ints -- pointers are addresses in the
application's process, read and written through :mod:`gpgpusim.runtime.abi` -- and returns the
``cudaError_t`` as an int (registration calls return what their C prototype returns).

Errors: a :class:`~gpgpusim.errors.CudaError` raised inside an entry point becomes its return
value and the thread's last error, and its message goes to stderr as one line
(:func:`api`); any other exception is an internal fault, reported the same way
(``Runtime.fail``), never raised into the application.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from gpgpusim.errors import CudaError, Err

#: calls that work (and do not report the sticky error) after a fault
STICKY_EXEMPT = {"cudaGetLastError", "cudaPeekAtLastError", "gs_error_string", "gs_error_name",
                 "gs_not_supported", "__cudaUnregisterFatBinary", "cudaGetDeviceCount",
                 "cudaDriverGetVersion", "cudaRuntimeGetVersion", "cudaDeviceReset",
                 "gs_push_call_configuration", "__cudaPopCallConfiguration"}
#: what messages call the shim's internal entry points
PUBLIC_NAMES = {"gs_launch_kernel": "cudaLaunchKernel", "gs_mem_prefetch": "cudaMemPrefetchAsync",
                "gs_mem_advise": "cudaMemAdvise", "gs_malloc3d": "cudaMalloc3D", "gs_malloc3d_array": "cudaMalloc3DArray",
                "gs_memset3d": "cudaMemset3D",
                "gs_register_fatbinary": "__cudaRegisterFatBinary",
                "gs_init_module": "__cudaInitModule", "gs_push_call_configuration": "__cudaPushCallConfiguration"}


class Service:
    """A part of the runtime: ``rt`` is the :class:`~gpgpusim.runtime.api.Runtime` it belongs
    to (the shared context and the other services)."""

    def __init__(self, rt: Any) -> None:
        self.rt = rt


class ApiError(CudaError):
    """A CudaError carrying a ``cudaError_t`` that :class:`Err` does not list."""

    def __init__(self, code: int, message: str) -> None:  # noqa: D107
        Exception.__init__(self, message)
        self.code = code  # type: ignore[assignment]
        self.message = message
        self.sticky = False


def entry_name(method: str) -> str:
    """The CUDA name of entry-point method ``method`` (``x__cudaFoo`` -> ``__cudaFoo``)."""
    return method[1:] if method.startswith("x__") else method


def is_entry_point(method: str) -> bool:
    return method.startswith(("cuda", "gs_", "x__cuda"))


def api(fn: Callable[..., Any]) -> Callable[..., int]:
    """Wrap an entry point: a sticky fault already reported is returned at once (and becomes
    the last error); CudaError -> its code + last error + one stderr line; any other exception
    -> ``Runtime.fail``."""
    return _wrap(fn, entry_name(fn.__name__), True)


def entry(fn: Callable[..., Any]) -> Callable[..., int]:
    """The same for the stream, graph and texture entry points (``*_ptsz`` report under the
    plain name): a sticky fault already reported is returned without touching the last error."""
    return _wrap(fn, fn.__name__.removesuffix("_ptsz"), False)


def _wrap(fn: Callable[..., Any], name: str, early_is_last_error: bool) -> Callable[..., int]:
    @functools.wraps(fn)
    def wrapper(self: Any, *args: Any) -> int:
        rt = self.rt
        if name not in STICKY_EXEMPT:
            early = rt._blocked_by()
            if early is not None:
                if early_is_last_error:
                    rt._last_error = int(early.code)
                return int(early.code)
        try:
            rc = fn(self, *args)
        except CudaError as exc:
            return int(rt._record(name, exc))
        except Exception as exc:  # noqa: BLE001 - an internal fault must not reach the app
            return int(rt.fail(name, exc))
        return 0 if rc is None else int(rc)

    return wrapper


def registration(default: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Wrap a registration call (runs before ``main`` and returns no ``cudaError_t``): a failure
    is reported as one line on stderr and never raised into the application.

    A failure that belongs to one fat binary (its PTX is missing or broken, it does not load) is
    kept on that module (:attr:`Module.error`) by the call itself and returned only by launches
    of its kernels and accesses to its variables, as CUDA reports a bad module when it is used;
    every other CUDA call keeps working.  Bad arguments (an unknown handle, a NULL stub) are
    reported and ignored (C027-C032)."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        name = entry_name(fn.__name__)

        @functools.wraps(fn)
        def wrapper(self: Any, *args: Any) -> Any:
            try:
                return fn(self, *args)
            except Exception as exc:  # noqa: BLE001 - registration runs before main: never raise
                self.rt._registration_failed(name, exc)
            return default

        return wrapper

    return deco


def internal_error(name: str, exc: BaseException) -> CudaError:
    """The CudaError an unexpected exception inside entry point ``name`` becomes."""
    if isinstance(exc, CudaError):
        return exc
    if isinstance(exc, MemoryError):
        return CudaError(Err.MemoryAllocation, f"{name}: out of host memory")
    if isinstance(exc, NotImplementedError):
        return CudaError(Err.NotSupported, f"{name}: not supported by gpgpusim: {exc}")
    return CudaError(Err.Unknown, f"{name}: internal simulator error: {type(exc).__name__}: {exc}")


def check_ptr(addr: int, what: str) -> None:
    if not addr:
        raise CudaError(Err.InvalidValue, f"{what} is NULL")
