"""In-process fatbin/ELF extraction (no external cuobjdump).

``fatbin`` parses the wrapper/containers/entries (PTX and ELF cubins, zstd/LZ4 decompression),
``elfinfo`` reads per-kernel resources from a cubin, ``sass`` decodes a cubin's SASS with
NVIDIA's nvdisasm (:class:`~cuobjdump_tools.sass.SassError` for any failure), ``python -m
cuobjdump_tools`` is a cuobjdump-like command line.  :class:`FatbinError` is the only exception
the fatbin/ELF parsers raise for bad input.
"""

from cuobjdump_tools.fatbin import (
    Fatbin,
    FatbinContainer,
    FatbinEntry,
    FatbinError,
    fatbins_in_elf,
    parse_fatbin,
    parse_wrapper,
    select_ptx,
    select_ptx_all,
    self_memory_reader,
)

__all__ = [
    "Fatbin",
    "FatbinContainer",
    "FatbinEntry",
    "FatbinError",
    "fatbins_in_elf",
    "parse_fatbin",
    "parse_wrapper",
    "select_ptx",
    "select_ptx_all",
    "self_memory_reader",
]
