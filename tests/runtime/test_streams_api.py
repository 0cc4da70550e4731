"""Every CUDA entry point of the StreamApi mixin is exported by the shim.

``shim/cudart_api.h`` is the one list of the C prototypes; ``tests/shim/test_shim.py`` checks
that each of them reaches a Runtime method of the same arity.
"""

from __future__ import annotations

import re
from pathlib import Path

from gpgpusim.runtime.stream_api import StreamApi


def test_every_entry_point_is_declared_in_the_shim():
    header = (Path(__file__).resolve().parents[2] / "shim" / "cudart_api.h").read_text()
    declared = set(re.findall(r"(\w+)\(", header))
    ours = sorted(n for n in vars(StreamApi) if n.startswith("cuda") and callable(getattr(StreamApi, n)))
    assert len(ours) >= 90
    assert [n for n in ours if n not in declared] == []
