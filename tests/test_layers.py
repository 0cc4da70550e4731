"""The package layering of ``docs/ARCHITECTURE.md``: every import between gpgpusim's packages,
those inside functions included, goes from a higher layer to a lower one, so the import graph
of the packages has no cycle and the performance model sits below the CUDA runtime."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "gpgpusim"

#: layer of each top-level package or module (``(init)``: ``gpgpusim/__init__.py``)
LAYER = {
    "(init)": 0, "errors": 0, "hostio": 0, "hostmem": 0,
    "ptx": 1,
    "functional": 2,
    "options": 3, "native": 3, "ptxplus": 3,
    "report": 4,
    "device": 5,
    "timing": 6,
    "runtime": 7,
    "appenv": 8, "pgo": 8,
    "cli": 9, "sweep": 9, "__main__": 10,
}
#: imports allowed within one layer (the other way round would be a cycle)
SAME_LAYER = {("errors", "hostio"), ("cli", "sweep")}


def _modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        if "_native" in p.parts:
            continue
        name = ".".join(("gpgpusim",) + p.relative_to(PKG).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = p
    return out


def _top(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "(init)"


def _imports(name: str, path: Path, mods: dict[str, Path]) -> set[str]:
    """The gpgpusim modules ``name`` imports anywhere in its file."""
    is_pkg = path.name == "__init__.py"
    here = name.split(".") if is_pkg else name.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(here[:len(here) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else (node.module or "")
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
        else:
            continue
        out.update(t for t in targets if t.startswith("gpgpusim"))
    return out


def test_every_package_has_a_layer():
    assert {_top(m) for m in _modules()} <= set(LAYER), "place the new package in LAYER (and the docs)"


def test_imports_go_down_the_layers():
    mods = _modules()
    wrong = []
    for name, path in mods.items():
        a = _top(name)
        for target in _imports(name, path, mods):
            b = _top(target)
            if a != b and not (LAYER[a] > LAYER[b] or (a, b) in SAME_LAYER):
                wrong.append(f"{path.relative_to(PKG.parent)} imports {target} ({a} -> {b})")
    assert not wrong, "\n".join(sorted(wrong))


def test_every_import_of_ours_names_a_module_that_exists():
    """(mypy skips missing imports: a module moved without updating an import is caught here)"""
    mods = _modules()
    missing = []
    for name, path in mods.items():
        for target in _imports(name, path, mods):
            if target not in mods:
                missing.append(f"{path.relative_to(PKG.parent)} imports {target}")
    assert not missing, "\n".join(sorted(missing))

