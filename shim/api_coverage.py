"""Which CUDA 13 runtime entry points the library implements, as a Markdown table.

The implemented set is computed exactly as ``build_shim.build`` computes it (declared in
``cudart_api.h`` or defined in ``cudart_wrappers.c``); every other exported name in
``cudart13_symbols.txt`` gets a stub returning ``cudaErrorNotSupported``.  The README's API
table is this script's output (``tests/shim/test_api_coverage.py`` keeps them equal).

    python shim/api_coverage.py          # prints the table
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build_shim  # noqa: E402

# Longest prefix wins.
GROUPS: list[tuple[str, str]] = [
    ("__cuda", "Registration and launch ABI"),
    ("cudaGraph", "Graphs"),
    ("cudaStream", "Streams"), ("cudaThreadExchangeStreamCaptureMode", "Streams"),
    ("cudaEvent", "Events"),
    ("cudaMemPool", "Memory pools"),
    ("cudaLaunch", "Kernels"), ("cudaFunc", "Kernels"), ("cudaOccupancy", "Kernels"),
    ("cudaMem", "Memory"), ("cudaMalloc", "Memory"), ("cudaFree", "Memory"),
    ("cudaHost", "Memory"), ("cudaPointer", "Memory"), ("cudaGetSymbol", "Memory"),
    ("cudaGetError", "Errors"), ("cudaGetLastError", "Errors"), ("cudaPeekAtLastError", "Errors"),
    ("cudaDevice", "Device"), ("cudaGetDevice", "Device"), ("cudaSetDevice", "Device"),
    ("cudaSetValidDevices", "Device"), ("cudaChooseDevice", "Device"), ("cudaDriverGetVersion", "Device"),
    ("cudaRuntimeGetVersion", "Device"), ("cudaInitDevice", "Device"),
    ("cudaCreateTextureObject", "Textures and surfaces"), ("cudaDestroyTextureObject", "Textures and surfaces"),
    ("cudaGetTextureObject", "Textures and surfaces"), ("cudaCreateSurfaceObject", "Textures and surfaces"),
    ("cudaDestroySurfaceObject", "Textures and surfaces"), ("cudaGetSurfaceObject", "Textures and surfaces"),
    ("cudaCreateChannelDesc", "Textures and surfaces"), ("cudaGetChannelDesc", "Textures and surfaces"),
]
ORDER = ["Registration and launch ABI", "Device", "Memory", "Kernels", "Errors", "Streams", "Events",
         "Graphs", "Memory pools", "Textures and surfaces", "Other"]


def group_of(name: str) -> str:
    best = max((p for p, _ in GROUPS if name.startswith(p)), key=len, default=None)
    return dict(GROUPS)[best] if best else "Other"


def implemented_names() -> tuple[list[str], list[str]]:
    """(implemented, not supported) among the exported CUDA 13 runtime names."""
    api = build_shim.parse_api(build_shim._read("cudart_api.h"))
    impl = {n for n in api if not n.startswith("gs_")}
    impl |= build_shim.exported_c_names(build_shim._read("cudart_wrappers.c"))
    names = build_shim.symbol_list()
    return sorted(n for n in names if n in impl), sorted(n for n in names if n not in impl)


def markdown() -> str:
    sup, unsup = implemented_names()
    groups: dict[str, list[str]] = {}
    for n in sup:
        groups.setdefault(group_of(n), []).append(n)
    lines = [
        f"{len(sup)} of the {len(sup) + len(unsup)} entry points that CUDA 13's libcudart.so.13 exports are "
        f"implemented; the other {len(unsup)} return `cudaErrorNotSupported` and print one line naming "
        "themselves.",
        "",
        "| area | implemented entry points |",
        "|---|---|",
    ]
    for g in ORDER:
        if g in groups:
            lines.append(f"| {g} ({len(groups[g])}) | " + " ".join(f"`{n}`" for n in groups[g]) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown())
