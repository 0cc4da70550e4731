"""Device ``printf`` (``vprintf``): C-style formatting of the device argument buffer.

GPGPU-Sim counterpart: ``gpgpusim_cuda_vprintf`` (``cuda-sim/instructions.cc``).  nvcc lowers
``printf(fmt, ...)`` to ``call vprintf, (fmt_generic_ptr, argbuf_generic_ptr)``; the argument
buffer holds each argument at its natural alignment: ``int``/``char`` 4 bytes, ``long``/
pointers/``%s`` 8 bytes, floating point promoted to ``double`` (8 bytes).
"""

from __future__ import annotations

import re
import struct
from typing import Callable

_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|z|j|t|L|q)?([diouxXcsfFeEgGaAp%])")


def format_device(fmt: str, read_arg: Callable[[int, int], bytes],
                  read_str: Callable[[int], str]) -> tuple[str, int]:
    """Format ``fmt`` pulling arguments through ``read_arg(offset, size)``.

    ``read_str(address)`` reads a NUL-terminated string for ``%s``.  Returns the text and the
    number of arguments consumed (what device ``printf`` returns).
    """
    out = []
    pos = 0
    off = 0
    nargs = 0

    def take(size: int) -> bytes:
        nonlocal off, nargs
        off = (off + size - 1) // size * size
        b = read_arg(off, size)
        off += size
        nargs += 1
        return b

    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        flags, width, prec, length, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width = str(struct.unpack("<i", take(4))[0])
        if prec == "*":
            prec = str(struct.unpack("<i", take(4))[0])
        spec = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
        wide = length in ("l", "ll", "z", "j", "t", "q")
        if conv in "di":
            raw = take(8 if wide else 4)
            v = struct.unpack("<q" if wide else "<i", raw)[0]
            if length == "h":
                v = ((v & 0xFFFF) ^ 0x8000) - 0x8000
            elif length == "hh":
                v = ((v & 0xFF) ^ 0x80) - 0x80
            out.append((spec + "d") % v)
        elif conv in "ouxX":
            raw = take(8 if wide else 4)
            v = struct.unpack("<Q" if wide else "<I", raw)[0]
            if length == "h":
                v &= 0xFFFF
            elif length == "hh":
                v &= 0xFF
            out.append((spec + ("d" if conv == "u" else conv)) % v)
        elif conv == "c":
            v = struct.unpack("<i", take(4))[0]
            out.append((spec + "c") % chr(v & 0xFF))
        elif conv in "fFeEgGaA":
            v = struct.unpack("<d", take(8))[0]
            if conv in "aA":
                out.append(float.hex(v) if conv == "a" else float.hex(v).upper())
            else:
                out.append((spec + conv) % v)
        elif conv == "s":
            addr = struct.unpack("<Q", take(8))[0]
            s = "(null)" if addr == 0 else read_str(addr)
            out.append((spec + "s") % s)
        elif conv == "p":
            addr = struct.unpack("<Q", take(8))[0]
            out.append(("%" + flags + (width or "") + "s") % ("(nil)" if addr == 0 else f"0x{addr:x}"))
    out.append(fmt[pos:])
    return "".join(out), nargs
