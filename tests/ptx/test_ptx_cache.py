"""parse_ptx / load_ptx_cached: the on-disk module cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpgpusim.ptx import cache_dir, load_ptx_cached, parse_ptx

DATA = Path(__file__).parent / "data"


def _entries():
    d = cache_dir()
    return sorted(f for f in os.listdir(d) if f.endswith(".pickle")) if os.path.isdir(d) else []


def test_cache_roundtrip_equals_fresh_parse(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == str(tmp_path / "gpgpusim" / "ptx")
    text = (DATA / "matmul.ptx").read_text()
    first = load_ptx_cached(text, "matmul.ptx")
    assert len(_entries()) == 1
    second = load_ptx_cached(text, "matmul.ptx")
    assert second is not first
    fresh = parse_ptx(text, "matmul.ptx")
    k = "_Z11matmulTiledPKfS0_Pfi"
    assert second.functions[k].instructions == fresh.functions[k].instructions
    assert second.functions[k].reconvergence_pc == fresh.functions[k].reconvergence_pc
    assert second.functions[k].params == fresh.functions[k].params


def test_corrupt_cache_entry_is_reparsed(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    text = (DATA / "vectoradd.ptx").read_text()
    load_ptx_cached(text, "v.ptx")
    (entry,) = _entries()
    Path(cache_dir(), entry).write_bytes(b"not a pickle")
    m = load_ptx_cached(text, "v.ptx")
    assert "_Z6vecAddPKfS0_Pfi" in m.kernels
    assert Path(cache_dir(), entry).read_bytes() != b"not a pickle"  # rewritten


def test_cache_disabled_by_env(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("GPGPUSIM_NO_PTX_CACHE", "1")
    m = load_ptx_cached((DATA / "stream.ptx").read_text(), "s.ptx")
    assert len(m.kernels) == 2
    assert _entries() == []


def test_different_text_different_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    a = load_ptx_cached((DATA / "stream.ptx").read_text(), "x.ptx")
    b = load_ptx_cached((DATA / "strided.ptx").read_text(), "x.ptx")
    assert set(a.kernels) != set(b.kernels)
    assert len(_entries()) == 2


def test_errors_are_not_cached(tmp_path, monkeypatch):
    from gpgpusim.errors import PtxError

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for _ in range(2):
        with pytest.raises(PtxError):
            load_ptx_cached(".version 9.0\n.entry", "bad.ptx")
    assert _entries() == []
