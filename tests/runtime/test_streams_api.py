"""The C prototypes published by stream_api match the mixin's Python entry points."""

from __future__ import annotations

import inspect
import re

from gpgpusim.runtime.stream_api import C_DECLARATIONS, StreamApi


def test_every_declaration_has_a_method_with_the_same_arity():
    decls = re.findall(r"cudaError_t (\w+)\(([^)]*)\);", C_DECLARATIONS)
    assert len(decls) == 92
    for name, params in decls:
        method = getattr(StreamApi, name)
        n_c = 0 if params.strip() in ("", "void") else params.count(",") + 1
        n_py = len(inspect.signature(inspect.unwrap(method)).parameters) - 1   # minus self
        assert n_py == n_c, name


def test_every_entry_point_is_declared_in_the_shim():
    """The shim exports only what shim/cudart_api.h declares: keep it in step with the mixin."""
    from pathlib import Path
    header = (Path(__file__).resolve().parents[2] / "shim" / "cudart_api.h").read_text()
    declared = set(re.findall(r"(\w+)\(", header))
    ours = re.findall(r"cudaError_t (\w+)\(", C_DECLARATIONS)
    assert [n for n in ours if n not in declared] == []
