# Embedded init code of gpgpusim's libcudart (cffi embedding API); build_shim.py substitutes the
# build-time constants below.  Runs once, inside the application's process, on the first CUDA
# call (normally __cudaRegisterFatBinary from a static constructor, before main).
#
# Contract: every entry point of cudart_api.h is forwarded to the method of the same name of
# gpgpusim.runtime.Runtime with pointers converted to int addresses; whatever happens, the
# application gets a cudaError_t (never a Python traceback; GPGPUSIM_TRACEBACK=1 shows one).
import os
import sys

from _gpgpusim_cudart import ffi, lib  # noqa: F401  (the embedding module itself)

_BUILD_PATHS = __GS_BUILD_PATHS__  # noqa: F821
_API = __GS_API__  # noqa: F821
_ERR_INIT = 3      # cudaErrorInitializationError
_ERR_UNKNOWN = 999


class _CStdout:
    """sys.stdout replacement writing through C stdio, so that simulator output and device
    printf stay in order with the application's own printf."""

    encoding = "utf-8"
    errors = "replace"

    def write(self, text):
        if text:
            data = text.encode("utf-8", "replace")
            lib.gs_write_stdout(data, len(data))
        return len(text)

    def flush(self):
        lib.gs_flush_stdout()

    def isatty(self):
        return False

    def fileno(self):
        return 1


class _CStderr:
    """sys.stderr that first flushes C stdout (messages land after the output they follow)."""

    encoding = "utf-8"
    errors = "replace"

    def __init__(self, raw):
        self._raw = raw

    def write(self, text):
        lib.gs_flush_stdout()
        n = self._raw.write(text)
        self._raw.flush()
        return n

    def flush(self):
        self._raw.flush()

    def isatty(self):
        return False

    def fileno(self):
        return 2


def _setup_paths():
    so = ffi.string(lib.gs_self_path()).decode("utf-8", "replace")
    front = []
    env = os.environ.get("GPGPUSIM_PYTHONPATH")
    if env:
        front += [p for p in env.split(os.pathsep) if p]
    if so:
        # <root>/gpgpusim/_lib/libcudart.so.N -> <root> (site-packages, or the source tree of
        # an editable install)
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(so))))
        if os.path.isfile(os.path.join(root, "gpgpusim", "__init__.py")):
            front.append(root)
    for p in reversed(front):
        if p in sys.path:
            sys.path.remove(p)
        sys.path.insert(0, p)
    for p in _BUILD_PATHS:
        if p not in sys.path:
            sys.path.append(p)
    if not any(getattr(sys, "argv", None) or ()):   # the embedded interpreter has argv ['']
        try:
            with open("/proc/self/cmdline", "rb") as f:
                parts = f.read().split(b"\0")
            if parts and parts[-1] == b"":
                parts.pop()                 # the terminating NUL; empty arguments stay
            sys.argv = [a.decode("utf-8", "replace") for a in parts]
        except OSError:
            sys.argv = ["cuda-app"]


def _report(where, exc):
    """One line on stderr; the traceback only when GPGPUSIM_TRACEBACK=1."""
    try:
        if os.environ.get("GPGPUSIM_TRACEBACK") == "1":
            import traceback

            traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
        sys.stderr.write(f"gpgpusim: {where}: {type(exc).__name__}: {exc}\n")
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - reporting must never raise into C
        pass


_runtime = None
_init_error = None
# Returned by pointer-returning entry points (cudaGetErrorString, __cudaRegisterFatBinary) when the
# simulator cannot run: a valid C string / handle, never NULL (the application may print it).
_FALLBACK = ffi.new("char[]", b"gpgpusim: the simulator failed to start (see stderr)")
_FALLBACK_ADDR = int(ffi.cast("uintptr_t", _FALLBACK))
_ERROR_TEXT_CALLS = {"gs_error_string": "MESSAGES", "gs_error_name": "NAMES"}
_error_texts = {}    # (call, code) -> persistent C string


def _error_text(name, code):
    """cudaGetErrorString / cudaGetErrorName when the simulator did not start: CUDA's own
    text from gpgpusim.runtime.errors_table (pure data), so the application still prints
    e.g. "initialization error" for the cudaErrorInitializationError it received."""
    key = (name, code)
    buf = _error_texts.get(key)
    if buf is None:
        try:
            from gpgpusim.runtime import errors_table

            text = getattr(errors_table, _ERROR_TEXT_CALLS[name]).get(code, "unrecognized error code")
        except BaseException:  # noqa: BLE001 - not even the package imports: generic text
            return _FALLBACK_ADDR
        buf = _error_texts[key] = ffi.new("char[]", text.encode("utf-8", "replace"))
    return int(ffi.cast("uintptr_t", buf))


def _get_runtime():
    global _runtime, _init_error
    if _runtime is None and _init_error is None:
        try:
            from gpgpusim.runtime import get_runtime
            from gpgpusim import hostio

            hostio.set_stdout_writer(sys.stdout.write, sys.stdout.flush)
            _runtime = get_runtime()
            lib.gs_install_atexit()
        except BaseException as exc:  # noqa: BLE001
            _init_error = exc
            _report("cannot start the simulator (every CUDA call returns "
                    "cudaErrorInitializationError)", exc)
    return _runtime


def _make_entry(name, rkind, kinds):
    cast = ffi.cast

    def entry(*args):
        rt = _runtime if _runtime is not None else _get_runtime()
        if rt is None:
            if name in _ERROR_TEXT_CALLS:
                return _error_text(name, *args)
            return None if rkind == "v" else (_FALLBACK_ADDR if rkind == "p" else _ERR_INIT)
        try:
            conv = [int(cast("uintptr_t", a)) if k == "p" else a for k, a in zip(kinds, args, strict=True)]
            return getattr(rt, name)(*conv)
        except BaseException as exc:  # noqa: BLE001 - last line of defence
            if rkind == "i":
                try:
                    return rt.fail(name, exc)   # records the last error and prints one line
                except BaseException:  # noqa: BLE001
                    _report(name, exc)
                    return _ERR_UNKNOWN
            _report(name, exc)
            return None if rkind == "v" else _FALLBACK_ADDR

    entry.__name__ = name
    if rkind == "v":
        ffi.def_extern(name=name)(entry)
    else:
        ffi.def_extern(name=name, error=0 if rkind == "p" else _ERR_UNKNOWN)(entry)


def _thread_excepthook(args):
    """A crash in a simulator thread: one line (traceback with GPGPUSIM_TRACEBACK=1)."""
    if args.exc_type is SystemExit:
        return
    _report(f"thread {getattr(args.thread, 'name', '?')}", args.exc_value)


def _restore_sigint():
    """Python installs its own SIGINT handler, which would turn the user's Ctrl-C into a
    KeyboardInterrupt inside some CUDA call; the application must die as it normally would."""
    import signal

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)


def _warn_foreign_soname():
    """A library built with another SONAME (``build_shim.py --soname libcudart.so.12``) still
    has CUDA 13 structure layouts; say so once so that odd device properties are explained."""
    major = int(lib.gs_soname_major())
    if major != 13:
        sys.stderr.write(f"gpgpusim: warning: this libcudart.so.{major} implements the CUDA 13 ABI "
                         f"(structure layouts such as cudaDeviceProp); a binary built with CUDA {major} "
                         f"may read wrong values from calls that fill such structures\n")


try:
    _restore_sigint()
except (ValueError, OSError):  # not the interpreter's main thread: leave it
    pass

try:
    import threading

    threading.excepthook = _thread_excepthook
    sys.stdout = _CStdout()
    sys.stderr = _CStderr(sys.__stderr__)
    _setup_paths()
    _warn_foreign_soname()
except BaseException as _exc:  # noqa: BLE001
    _report("shim start-up", _exc)

for _name, (_rkind, _kinds) in _API.items():
    _make_entry(_name, _rkind, _kinds)
