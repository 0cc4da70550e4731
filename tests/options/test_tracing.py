"""The trace and pipeline-dump option parsers (``gpgpusim/options/tracing.py``)."""

from __future__ import annotations

from gpgpusim.options import tracing as T


def test_option_parsers():
    assert T.parse_components("none") == frozenset() and T.parse_components("") == frozenset()
    assert T.parse_components(" warp_scheduler , SCOREBOARD") == {"WARP_SCHEDULER", "SCOREBOARD"}
    assert T.parse_components("ALL") == set(T.COMPONENTS)
    assert T.parse_dump("1200") == [(1200, 0, -1)]
    assert T.parse_dump("1200:3, 100+50:-1") == [(1200, 0, 3), (100, 50, -1)]
    assert T.parse_dump("none") == []
    assert T.parse_window("5:9") == (5, 9) and T.parse_window("5")[0] == 5 and T.parse_window("5:")[1] > 1 << 40
    assert T.parse_kernels("all") is None and T.parse_kernels("2, vecAdd") == ({2}, {"vecAdd"})
