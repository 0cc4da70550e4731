"""Every CUDA entry point of the runtime's dispatch table is exported by the shim.

``shim/cudart_api.h`` is the one list of the C prototypes; ``tests/shim/test_shim.py`` checks
that each of them reaches a Runtime method of the same arity.
"""

from __future__ import annotations

import re
from pathlib import Path

from gpgpusim.runtime.api import ENTRY_POINTS


def test_every_entry_point_is_declared_in_the_shim():
    header = (Path(__file__).resolve().parents[2] / "shim" / "cudart_api.h").read_text()
    declared = set(re.findall(r"(\w+)\(", header))
    ours = sorted(n for n in ENTRY_POINTS if n.startswith("cuda"))
    assert len(ours) >= 180
    assert [n for n in ours if n not in declared] == []
