"""Ctrl-C / SIGTERM / SIGHUP that keep the work: stop, print the statistics so far, write the
JSON, exit.

No GPGPU-Sim counterpart (GPGPU-Sim dies with the default action and loses its statistics).

Behaviour, inside an application (installed by :func:`gpgpusim.runtime.get_runtime` when the
runtime is created in the shim, on the interpreter's main thread):

* The first SIGINT, SIGTERM or SIGHUP (one the application ignores, e.g. under ``nohup``,
  stays ignored) sets :data:`requested` (the signal number; components that loop
  for long, such as the timing model, may poll it or call :func:`check`), prints
  ``GPGPU-Sim: ** interrupted by SIGINT at kernel <name> **`` (or ``... between kernels **``),
  what the interrupted kernel had executed so far (functional engine: thread and warp
  instructions), the Reporter's end-of-run output (:meth:`Reporter.exit`: PTX line statistics,
  ``*** exit detected ***``), the memcheck summary when memcheck is on, writes the ``-o`` JSON
  (``$GPGPUSIM_STATS_JSON``) with an ``"interrupted"`` entry in its ``"run"`` section, flushes the
  application's stdout and ends the process with 128 + signal (130 for SIGINT, 143 for SIGTERM,
  129 for SIGHUP).
* A second SIGINT while that runs ends the process at once (exit 130); a repeated SIGTERM or
  SIGHUP is ignored (the shutdown is already under way and takes well under a second).

How (and why this shape): the simulation runs on a background thread, and the application's
main thread may be anywhere -- inside a blocking CUDA call (a Python wait) or in its own C
code, where Python signal handlers never run.  So the handlers do nothing themselves: Python's
C-level handler writes the signal number to a wakeup pipe (``signal.set_wakeup_fd``), and a
small watcher thread blocked on that pipe acts on it, whatever the main thread is doing.  The
shutdown runs on its own thread (so the watcher still sees a second Ctrl-C) and does not wait
for the simulation thread: the engine's batched loop cannot be told to stop without a check in
it, and the statistics already handed to the Reporter are complete; ``os._exit`` then ends the
process with the simulation thread still inside its kernel.  The interrupted kernel's partial
counts are read from the simulation thread's frames (best effort: the engine's ``Exec``).
Latency: as long as the simulation thread holds the interpreter lock, i.e. one
``sys.getswitchinterval()`` (5 ms) or one numpy operation.

``gpgpusim run`` execs the application, so a signal sent to it (or to its process group) is
received by the application itself, once.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import types
import weakref
from typing import Any, Callable

from gpgpusim import hostio
from gpgpusim.functional import memcheck

#: the first interrupting signal's number, 0 while none arrived (polled by long loops)
requested = 0
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_state: dict[str, Any] = {"runtime": None, "installed": False}
#: the registered callbacks; a bound method is held weakly (:func:`on_interrupt`)
_callbacks: list[Callable[[], Callable[[int], dict[str, Any] | None] | None]] = []


class SimulationInterrupted(BaseException):
    """Raised by :func:`check` once an interrupt was requested (a BaseException, like
    KeyboardInterrupt, so that ``except Exception`` handlers do not swallow it)."""


def check() -> None:
    """Raise :class:`SimulationInterrupted` when SIGINT/SIGTERM/SIGHUP arrived (cheap: one global read)."""
    if requested:
        raise SimulationInterrupted(signal.Signals(requested).name)


def on_interrupt(fn: Callable[[int], dict[str, Any] | None]) -> None:
    """Call ``fn(signum)`` during the shutdown, before the statistics are printed (e.g. the
    timing model ending its running kernels with their statistics so far).  A dict it returns
    (``kernel``, ``thread_insn``, ``warp_insn``) replaces what the interrupt line reports (by
    default the functional engine's counts, which in performance mode run ahead of what the
    timing model completed).

    A bound method is held weakly: registering does not keep its object (a GPU with its
    whole machine) alive once nothing else does, as for each GPU a test or a sweep builds."""
    _callbacks[:] = [ref for ref in _callbacks if ref() is not None]
    if isinstance(fn, types.MethodType):
        _callbacks.append(weakref.WeakMethod(fn))
    else:
        _callbacks.append(lambda: fn)


def install(runtime: Any) -> bool:
    """Install the SIGINT/SIGTERM/SIGHUP handling for ``runtime``; False when it cannot be done here
    (not the interpreter's main thread, or already installed)."""
    if _state["installed"] or threading.current_thread() is not threading.main_thread():
        return False
    r, w = os.pipe()
    os.set_blocking(w, False)
    try:
        signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        for sig in _SIGNALS:
            if signal.getsignal(sig) is not signal.SIG_IGN:   # nohup, `cmd &`: stay ignored
                signal.signal(sig, _python_handler)
    except (ValueError, OSError):
        os.close(r)
        os.close(w)
        return False
    _state.update(runtime=runtime, installed=True, wakeup=(r, w))
    threading.Thread(target=_watch, args=(r,), name="gpgpusim-signals", daemon=True).start()
    return True


def _python_handler(signum: int, frame: Any) -> None:
    """The Python-level handler (runs on the main thread, if ever): the watcher does the work."""


def _watch(fd: int) -> None:
    while True:
        try:
            data = os.read(fd, 64)
        except InterruptedError:
            continue
        except OSError:
            return
        if not data:
            return
        for signum in data:
            handle(signum)


def handle(signum: int) -> None:
    """Act on one delivered signal (the watcher thread calls this; tests may too)."""
    global requested
    if signum not in _SIGNALS:
        return
    if requested:
        if signum == signal.SIGINT:      # a second Ctrl-C: at once
            os._exit(128 + signum)
        return
    requested = signum
    threading.Thread(target=_shutdown, args=(signum,), name="gpgpusim-interrupt", daemon=True).start()


def _shutdown(signum: int) -> None:
    code = 128 + signum
    try:
        finish(_state["runtime"], signum)
    finally:
        os._exit(code)


def current_kernel(runtime: Any) -> tuple[str | None, dict[str, int]]:
    """The kernel the simulation thread is executing and its counts so far (best effort)."""
    streams = getattr(runtime, "streams", None)
    thread = getattr(streams, "_thread", None)
    frames = sys._current_frames()
    frame = frames.get(thread.ident) if thread is not None and thread.ident is not None else None
    name = None
    counts: dict[str, int] = {}
    while frame is not None:
        loc: dict[str, Any] = dict(frame.f_locals)
        ex: Any = loc.get("ex")
        prog = getattr(ex, "prog", None)
        if prog is not None and hasattr(ex, "thread_insn") and name is None:
            name = prog.kernel.name
            counts = {"thread_insn": int(ex.thread_insn), "warp_insn": int(ex.warp_insn)}
        lc: Any = loc.get("lc")
        if lc is not None and hasattr(lc, "stats") and hasattr(lc, "kernel"):
            name = name or lc.kernel
            if counts:      # chunks already finished were added to lc.stats
                counts["thread_insn"] += int(lc.stats.thread_insn)
                counts["warp_insn"] += int(lc.stats.warp_insn)
            break
        rec = loc.get("rec")
        if name is None and rec is not None and hasattr(rec, "op") and hasattr(rec, "name"):
            name = rec.name
        frame = frame.f_back
    if name is None:
        gpu = getattr(runtime, "gpu", None)
        for rec in list(getattr(gpu, "kernels", []) or [])[::-1]:
            if getattr(rec, "stats", None) is None and getattr(rec, "error", None) is None:
                name = rec.name
                break
    return name, counts


def finish(runtime: Any, signum: int) -> None:
    """Print the interrupted end-of-run output and write the JSON (no exit)."""

    sig = signal.Signals(signum).name
    if runtime is None:
        hostio.err(f"GPGPU-Sim: ** interrupted by {sig} **")
        return
    runtime._exited = True          # the program's own exit path must not report again
    name, counts = current_kernel(runtime)
    for ref in _callbacks:
        cb = ref()
        if cb is None:
            continue
        try:
            got = cb(signum)
        except Exception as exc:  # noqa: BLE001 - the report matters more
            hostio.err(f"gpgpusim: interrupt callback failed: {exc!r}")
            continue
        if got:
            name = got.get("kernel", name)
            counts = {k: int(got[k]) for k in ("thread_insn", "warp_insn") if k in got}
    hostio.flush()
    where = f"at kernel {name}" if name else "between kernels"
    lines = [f"GPGPU-Sim: ** interrupted by {sig} {where} **"]
    if counts:
        lines.append(f"GPGPU-Sim: interrupted kernel '{name}' had executed {counts['thread_insn']} "
                     f"thread instructions ({counts['warp_insn']} warp instructions) so far")
    for line in lines:
        hostio.out(line + "\n")
    _final_report(runtime, {"interrupted": {"signal": sig, "kernel": name, **counts}})


def stop_program(code: int, key: str, info: dict[str, Any]) -> None:
    """End the application's process now with exit status ``code``, after the end-of-run
    output and the ``-o`` JSON (``info`` under ``key`` in its ``"run"`` section).

    The timing model calls this when a stop limit (``-gpgpu_max_cycle`` etc., C011) ended the
    simulation, as GPGPU-Sim's simulation thread calls ``exit(1)`` then.  Only inside an
    application (the runtime was installed by :func:`install`); in library use (tests, direct
    use of a GPU object) it does nothing and the caller carries on.
    """
    runtime = _state["runtime"]
    if not _state["installed"] or runtime is None:
        return
    try:
        runtime._exited = True          # the program's own exit path must not report again
        _final_report(runtime, {key: info})
    finally:
        os._exit(code)


def _final_report(runtime: Any, meta_extra: dict[str, Any]) -> None:
    """The Reporter's end-of-run output, the memcheck summary and the JSON (with
    ``meta_extra`` in its ``"run"`` section), then flush the application's output."""

    rep = runtime.reporter
    exit_fn = getattr(rep, "exit", None) if rep is not None else None
    if exit_fn is not None:
        try:
            exit_fn()
        except Exception as exc:  # noqa: BLE001
            hostio.err(f"gpgpusim: end-of-run report failed: {exc!r}")
    try:
        if int(runtime._cfg("gpgpusim_memcheck", 0) or 0):
            memcheck.summary(force=True)
    except Exception:  # noqa: BLE001, S110 - optional
        pass
    path = os.environ.get("GPGPUSIM_STATS_JSON")
    if path and rep is not None:
        try:
            meta = runtime.json_meta()
            meta.update(meta_extra)
            rep.write_json(path, meta)
        except Exception as exc:  # noqa: BLE001
            hostio.err(f"gpgpusim: cannot write the statistics to {path}: {exc}")
    hostio.flush()
