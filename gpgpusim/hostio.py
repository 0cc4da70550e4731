"""Where the simulator's text goes: the application's stdout, in order with its own printf.

Inside an application the shim installs a writer that goes through C stdio (``fwrite`` +
``fflush`` on C ``stdout``), so device printf and GPGPU-Sim's statistics interleave correctly
with the program's output (checklist C044).  Under pytest the default is Python's
``sys.stdout``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

_write: Callable[[str], object] | None = None
_flush: Callable[[], object] | None = None


def set_stdout_writer(write: Callable[[str], object] | None, flush: Callable[[], object] | None = None) -> None:
    """Route all simulator output through ``write`` (the shim passes its C-stdio writer)."""
    global _write, _flush
    _write, _flush = write, flush


def out(text: str) -> None:
    """Write ``text`` (no newline added) to the application's stdout."""
    if _write is not None:
        _write(text)
    else:
        sys.stdout.write(text)


def flush() -> None:
    if _flush is not None:
        _flush()
    else:
        sys.stdout.flush()


def err(line: str) -> None:
    """One diagnostic line on stderr, after flushing stdout so that it lands in order."""
    flush()
    sys.stderr.write(line if line.endswith("\n") else line + "\n")
    sys.stderr.flush()
