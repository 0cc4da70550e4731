"""CUDA error codes and the exception that carries one through the simulator.

Every failure that an application can observe is a :class:`CudaError` carrying a
``cudaError_t`` value and one readable message naming what and where.  The runtime turns it
into the return code of the CUDA call; ``shim/`` never lets a Python traceback reach the host
program unless ``GPGPUSIM_TRACEBACK=1``.

The numbering is CUDA 13's ``driver_types.h`` (facts from NVIDIA's runtime reference).
The full name/message table lives in :mod:`gpgpusim.runtime.errors_table`.
"""

from __future__ import annotations

import enum
import os
import sys

from gpgpusim import hostio


class Err(enum.IntEnum):
    """The ``cudaError_t`` values the simulator produces (CUDA 13 numbering)."""

    Success = 0
    InvalidValue = 1
    MemoryAllocation = 2
    InitializationError = 3
    CudartUnloading = 4
    InvalidConfiguration = 9
    InvalidPitchValue = 12
    InvalidSymbol = 13
    InvalidHostPointer = 16
    InvalidDevicePointer = 17
    InvalidMemcpyDirection = 21
    InvalidDeviceFunction = 98
    NoDevice = 100
    InvalidDevice = 101
    DeviceNotLicensed = 102
    SoftwareValidityNotEstablished = 103
    StartupFailure = 127
    InvalidKernelImage = 200
    InvalidResourceHandle = 400
    IllegalState = 401
    SymbolNotFound = 500
    NotReady = 600
    IllegalAddress = 700
    LaunchOutOfResources = 701
    LaunchTimeout = 702
    LaunchFailure = 719
    InvalidPtx = 218
    NoKernelImageForDevice = 209
    UnsupportedPtxVersion = 222
    Assert = 710
    HardwareStackError = 714
    IllegalInstruction = 715
    MisalignedAddress = 716
    InvalidAddressSpace = 717
    InvalidPc = 718
    NotPermitted = 800
    NotSupported = 801
    StreamCaptureUnsupported = 900
    StreamCaptureInvalidated = 901
    StreamCaptureMerge = 902
    StreamCaptureUnmatched = 903
    StreamCaptureUnjoined = 904
    StreamCaptureIsolation = 905
    StreamCaptureImplicit = 906
    CapturedEvent = 907
    StreamCaptureWrongThread = 908
    Unknown = 999


class CudaError(Exception):
    """A failure the application sees as ``code``; ``str(exc)`` is the one-line message.

    ``sticky`` marks errors that corrupt the context (kernel faults: illegal address, trap,
    deadlock): after one, every later runtime call returns the same code, as on real CUDA.
    """

    def __init__(self, code: Err | int, message: str, *, sticky: bool = False) -> None:
        super().__init__(message)
        self.code = Err(code)
        self.message = message
        self.sticky = sticky


class PtxError(CudaError):
    """Malformed PTX: ``cudaErrorInvalidPtx`` with file, line, column and text in the message."""

    def __init__(self, message: str) -> None:
        super().__init__(Err.InvalidPtx, message)


class NotSupportedError(CudaError):
    """A PTX instruction or CUDA feature the simulator does not model."""

    def __init__(self, message: str, *, sticky: bool = False) -> None:
        super().__init__(Err.NotSupported, message, sticky=sticky)


def report_internal_error(where: str, exc: BaseException) -> str:
    """Report a simulator bug caught by a catch-all, off the application's call path.

    Used where a non-CUDA exception is turned into a ``cudaError_t`` on a background thread
    (a kernel on the simulation thread, a stream operation, a host-function helper thread), so
    that no Python traceback reaches the host program.  Writes one line
    ``gpgpusim: <where>: internal simulator error: <type>: <text>`` to stderr (after flushing
    the application's stdout, so it lands in order) and, only with ``GPGPUSIM_TRACEBACK=1``,
    the traceback first.  Returns the line without the ``gpgpusim: `` prefix, for the
    :class:`CudaError` that the next synchronising call reports.
    """
    line = f"{where}: internal simulator error: {type(exc).__name__}: {exc}"
    try:
        hostio.flush()
        if os.environ.get("GPGPUSIM_TRACEBACK") == "1":
            import traceback

            traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
        sys.stderr.write(f"gpgpusim: {line}\n")
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - reporting must never raise on a background thread
        pass
    return line
