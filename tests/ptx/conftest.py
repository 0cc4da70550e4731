"""Shared setup for the PTX front-end tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch, tmp_path):
    """Keep tests away from the user's ~/.cache (the PTX pickle cache honours XDG_CACHE_HOME)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
