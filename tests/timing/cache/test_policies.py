"""Cache policies (``gpgpusim/timing/cache/replacement.py``, ``write_policy.py``,
``write_alloc.py``): the registries against the configuration's letters, what each policy
declares, the cache's choice by letter, and FIFO against LRU replacement on one set."""

from __future__ import annotations

import pytest

from gpgpusim.options import formats, load_config
from gpgpusim.options.config import CACHE_REPLACEMENT, ConfigError
from gpgpusim.options.formats import CacheConfig
from gpgpusim.timing.cache import HIT, MISS, Cache
from gpgpusim.timing.cache.replacement import REPLACEMENT, make_replacement
from gpgpusim.timing.cache.write_alloc import WRITE_ALLOC, make_write_alloc
from gpgpusim.timing.cache.write_policy import WRITE_POLICY, make_write_policy
from gpgpusim.timing.mem_fetch import MemFetch


def test_every_letter_the_config_accepts_has_a_policy():
    assert {k: f().name for k, f in REPLACEMENT.items()} == CACHE_REPLACEMENT
    assert {k: f().name for k, f in WRITE_POLICY.items()} == {
        k: ("local_wb_global_we" if k == "L" else v) for k, v in formats.WRITE_POLICY.items()}
    assert {k: f().name for k, f in WRITE_ALLOC.items()} == formats.WRITE_ALLOC


@pytest.mark.parametrize(("make", "letter", "what"), [
    (make_replacement, "R", "replacement policy 'R'"),
    (make_write_policy, "X", "write policy 'X'"),
    (make_write_alloc, "B", "write-allocate policy 'B'"),
])
def test_unknown_letters_name_the_policy(make, letter, what):
    with pytest.raises(ValueError, match=f"cache {what} is not supported"):
        make(letter)


def test_config_rejects_a_replacement_policy_the_model_lacks():
    with pytest.raises(ConfigError, match=r"-gpgpu_cache:dl2 '64:128:8,R:B:m:N,A:16:4,4': replacement policy 'R' "
                                          r"is not supported; valid: L \(LRU\), F \(FIFO\)"):
        load_config(None, overrides=["-gpgpu_cache:dl2 64:128:8,R:B:m:N,A:16:4,4"], env=False)


@pytest.mark.parametrize(("letter", "declared"), [
    # read_only, write_through, write_back, forwards (global, local)
    ("R", (True, False, False, False, False)),
    ("B", (False, False, True, False, False)),
    ("T", (False, True, False, True, True)),
    ("E", (False, False, False, True, True)),
    ("L", (False, False, False, True, False)),
])
def test_write_policies_declare(letter, declared):
    p = make_write_policy(letter)
    assert (p.read_only, p.write_through, p.write_back, p.forwards("GLOBAL_ACC_W"), p.forwards("LOCAL_ACC_W")) == declared


@pytest.mark.parametrize(("letter", "declared"), [
    # allocates, writes_locally, answers_on_fill
    ("N", (False, False, False)),
    ("W", (True, False, False)),
    ("F", (True, True, True)),
    ("L", (True, True, False)),
])
def test_write_allocate_policies_declare(letter, declared):
    p = make_write_alloc(letter)
    assert (p.allocates, p.writes_locally, p.answers_on_fill) == declared


def test_the_cache_takes_the_policies_its_string_names():
    c = Cache("c", CacheConfig.parse("N:4:128:2,F:E:m:W:L,A:4:4,8"), "c")
    assert (c.wp.name, c.wa.name, c._lru) == ("write_evict", "write_allocate", False)
    c = Cache("c", CacheConfig.parse("N:4:128:2,L:B:m:F:L,A:4:4,8"), "c")
    assert (c.wp.name, c.wa.name, c._lru) == ("write_back", "fetch_on_write", True)


def _victim_after_touching_the_first(replacement):
    """A 1-set, 2-way read-only cache: lines 0x0 (allocated first) and 0x80, then 0x0 read
    again, then 0x100 takes a way.  Which of 0x0 / 0x80 does the tag array still hold?"""
    c = Cache("c", CacheConfig.parse(f"N:1:128:2,{replacement}:R:m:N:L,A:4:4,8"), "c")
    for t, a in enumerate((0x0, 0x80)):
        c.access(MemFetch(a, 32, False, "GLOBAL_ACC_R"), t)
        c.fill(c.pop_miss(), t)
        c.next_access()
    assert c.access(MemFetch(0x0, 32, False, "GLOBAL_ACC_R"), 10) == HIT
    c.access(MemFetch(0x100, 32, False, "GLOBAL_ACC_R"), 11)
    c.fill(c.pop_miss(), 12)
    c.next_access()
    return c.probe(0x0, 1, False)[0], c.probe(0x80, 1, False)[0]


def test_lru_evicts_the_least_recently_used_fifo_the_first_allocated():
    assert _victim_after_touching_the_first("L") == (HIT, MISS)
    assert _victim_after_touching_the_first("F") == (MISS, HIT)
