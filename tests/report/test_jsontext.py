"""``report.jsontext.dumps`` writes exactly ``json.dumps(obj, indent=1)``."""

from __future__ import annotations

import enum
import json
import random
from collections import OrderedDict

import pytest

from gpgpusim.report import jsontext


class _Level(enum.IntEnum):
    HIGH = 3


_SCALARS = [0, -5, 2**70, 1.5, -0.0, 1e300, 3.0, float("nan"), float("inf"), -float("inf"), True, False,
            None, 'quote " backslash \\ newline \n comma, colon: ', "", "é ☃ \x00", _Level.HIGH]
_KEYS = ["k", "", 1, -2, 2.5, True, False, None, "é", float("nan")]


def _value(rnd: random.Random, depth: int):
    r = rnd.random()
    if depth > 3 or r < 0.45:
        return rnd.choice(_SCALARS)
    if r < 0.65:
        return [_value(rnd, depth + 1) for _ in range(rnd.randint(0, 5))]
    if r < 0.72:
        return tuple(_value(rnd, depth + 1) for _ in range(rnd.randint(0, 3)))
    if r < 0.78:
        return [rnd.randint(-10**6, 10**6) for _ in range(rnd.randint(1, 40))]
    kind = OrderedDict if r < 0.82 else dict
    return kind((rnd.choice(_KEYS) if rnd.random() < 0.4 else f"key{i}", _value(rnd, depth + 1))
                for i in range(rnd.randint(0, 5)))


def test_same_text_as_json_dumps_indent_1():
    rnd = random.Random(7)
    for _ in range(3000):
        obj = _value(rnd, 0)
        assert jsontext.dumps(obj) == json.dumps(obj, indent=1)


def test_a_statistics_shaped_document():
    doc = {"kernels": [{"kernel_name": "k", "grid": [4, 1, 1], "cycles": 1234, "gpu_ipc": 0.5,
                        "counters": {"dram_channels": [{"n_cmd": [5, 6], "n_nop": [0, 1]}] * 3,
                                     "L2_bank_access": list(range(64)), "avg": None, "empty": {}, "none": []}}],
           "totals": {"opcode_counts": {"ld": 3, "st": 1}}, "samples": []}
    assert jsontext.dumps(doc) == json.dumps(doc, indent=1)


def test_depth_gives_the_text_nested_that_deep():
    inner = {"a": [1, 2], "b": {"c": "d"}, "e": 1.25}
    whole = json.dumps({"x": {"y": inner}}, indent=1)
    assert jsontext.dumps(inner, 2) in whole
    assert whole == "{\n \"x\": {\n  \"y\": " + jsontext.dumps(inner, 2) + "\n }\n}"


@pytest.mark.parametrize("obj", [{(1, 2): 3}, {"a": object()}, [1, {1j}], [[object()]], {"a": {"b": [1, 2, b"x"]}}])
def test_rejects_what_json_rejects(obj):
    with pytest.raises(TypeError) as want:
        json.dumps(obj, indent=1)
    with pytest.raises(TypeError) as got:
        jsontext.dumps(obj)
    assert str(got.value) == str(want.value)
