"""The memory side's observable behaviour is bit-identical to the captured fixture (guards the
performance work on the cache tag array, address decoding and partition cycling)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from . import memory_scenarios as ms

FIXTURE = json.loads((Path(__file__).parent / "data" / "memory_determinism.json").read_text())


def test_hashes_and_address_decoding_unchanged():
    assert ms.run_hash_scenario() == FIXTURE["hash"]


@pytest.mark.parametrize(("name", "spec", "level", "wrp"), ms.CACHE_SCENARIOS, ids=[s[0] for s in ms.CACHE_SCENARIOS])
def test_cache_scenario_unchanged(name, spec, level, wrp):
    import zlib
    got = json.loads(json.dumps(ms.run_cache_scenario(spec, level, wrp, seed=zlib.crc32(name.encode()))))
    assert got == FIXTURE["cache:" + name]


def test_memory_system_scenario_unchanged():
    assert json.loads(json.dumps(ms.run_memory_scenario(11))) == FIXTURE["memory"]


def test_memory_system_small_l2_scenario_unchanged():
    assert json.loads(json.dumps(ms.run_memory_scenario(12, small_l2=True))) == FIXTURE["memory_small_l2"]


def test_scenarios_are_deterministic():
    a = ms.run_cache_scenario("dl1", 1, 25, seed=5, n=500)
    b = ms.run_cache_scenario("dl1", 1, 25, seed=5, n=500)
    assert a == b
