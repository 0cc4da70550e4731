"""PTX front end: text -> analysed :class:`~gpgpusim.ptx.ir.Module`.

GPGPU-Sim counterpart: ``gpgpu_ptx_sim_load_ptx_from_string`` + ``ptx_assemble``
(checklist C214-C219).  Entry points:

* :func:`parse_ptx` parses, lays out kernel parameters and runs :func:`cfg.analyze` on every
  function that has a body.
* :func:`load_ptx_cached` does the same but keeps a pickle of the resulting module keyed by
  the sha256 of the text, under ``$XDG_CACHE_HOME/gpgpusim/ptx`` (else
  ``~/.cache/gpgpusim/ptx``).  ``GPGPUSIM_NO_PTX_CACHE=1`` disables it; an unreadable or
  corrupt cache entry is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile

from gpgpusim.ptx import cfg
from gpgpusim.ptx.ir import Module

#: Bump when the IR or the parser's output changes so stale pickles are not reused.
CACHE_FORMAT = 6


def parse_ptx(text: str, filename: str = "<ptx>") -> Module:
    """Parse PTX ``text`` and analyse every function (basic blocks, reconvergence pcs).

    Raises :class:`gpgpusim.errors.PtxError` (``file:line:col: message`` + source line).
    """
    # (start-up cost: the parser and lark load when PTX is parsed, not for a module the cache has)
    from gpgpusim.ptx.parser import parse_module

    module = parse_module(text, filename)
    for fn in module.functions.values():
        if fn.instructions:
            cfg.analyze(fn)
    return module


def cache_dir() -> str:
    """Directory of the parsed-PTX cache."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gpgpusim", "ptx")


def _cache_key(text: str, filename: str) -> str:
    h = hashlib.sha256()
    h.update(f"gpgpusim-ptx-{CACHE_FORMAT}\0{filename}\0".encode())
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def load_ptx_cached(text: str, filename: str = "<ptx>") -> Module:
    """:func:`parse_ptx` with an on-disk cache keyed by content (see module docstring).

    The filename is part of the key because it appears in messages and reports.
    """
    if os.environ.get("GPGPUSIM_NO_PTX_CACHE", "") not in ("", "0"):
        return parse_ptx(text, filename)
    path = os.path.join(cache_dir(), _cache_key(text, filename) + ".pickle")
    try:
        with open(path, "rb") as fh:
            module = pickle.load(fh)
        if isinstance(module, Module) and module.source == text:
            return module
    except Exception:  # noqa: BLE001 - any unreadable/corrupt entry just means "reparse"
        pass
    module = parse_ptx(text, filename)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(module, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)  # atomic: concurrent processes never see half a file
    except OSError:
        pass  # a read-only home directory only costs speed
    return module


__all__ = ["parse_ptx", "load_ptx_cached", "cache_dir", "Module"]
