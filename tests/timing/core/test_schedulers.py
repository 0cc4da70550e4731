"""Warp-scheduling policies (``gpgpusim/timing/core/schedulers/``): the registry, what each
policy declares, and the exact issue order of static warp limiting (``warp_limiting:2:N``) on a
one-scheduler SM7_QV100 core."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from timing_helpers import ptx, run_timing  # noqa: E402

from gpgpusim.options.config import SCHEDULERS  # noqa: E402
from gpgpusim.timing.core.schedulers import REGISTRY, make_policy  # noqa: E402
from gpgpusim.timing.core.schedulers.warp_limiting import WarpLimiting  # noqa: E402
from tests.timing.core.test_core import INDEP  # noqa: E402  (a mov, six adds that need only it, ret)


def _issues(policy: str, threads: int = 128) -> list[tuple[int, int, int]]:
    r = run_timing(ptx(INDEP, params=""), "k", (1, 1, 1), (threads, 1, 1),
                   overrides=["-gpgpu_num_sched_per_core 1", f"-gpgpu_scheduler {policy}"])
    return r.issues()


def test_every_scheduler_the_config_accepts_is_registered():
    assert set(SCHEDULERS) == set(REGISTRY)


@pytest.mark.parametrize(("value", "declared"), [
    ("lrr", (True, False, True, False)),
    ("gto", (False, True, True, False)),
    ("old", (False, True, True, False)),
    ("rrr", (False, False, False, False)),
    ("two_level_active:6:0:1", (False, False, False, True)),
    ("warp_limiting:2:4", (False, False, True, False)),
])
def test_policies_declare_what_the_scheduler_may_assume(value, declared):
    p = make_policy(value)
    assert (p.rotates_after_last, p.orders_any_subset, p.pure, p.demotes) == declared


@pytest.mark.parametrize(("value", "message"), [
    ("fifo", "unknown scheduler"),
    ("warp_limiting:0:4", "only prioritisation 2"),
    ("warp_limiting:2", "warp limit N of at least 1"),
    ("warp_limiting:2:x", "must be an integer"),
])
def test_bad_scheduler_values_name_the_problem(value, message):
    with pytest.raises(ValueError, match=message):
        make_policy(value)


def _warp(dyn: int, **state: object) -> SimpleNamespace:
    base = {"dyn": dyn, "fdone": False, "at_bar": -1, "n_atomic": 0, "membar": False, "pending": 0}
    base.update(state)
    return SimpleNamespace(**base)


def test_warp_limiting_window_skips_waiting_warps_and_keeps_the_greedy_one():
    table = [_warp(5), _warp(1, fdone=True), _warp(2, at_bar=0), _warp(3), _warp(4, membar=True, pending=1 << 7),
             _warp(0, pending=1 << 3)]             # (a scoreboard stall is not waiting)
    p = WarpLimiting(2)
    assert p.order([0, 1, 2, 3, 4, 5], table) == [5, 3]
    p.issued(0)                                    # greedy: the last to issue first, then the window
    assert p.order([0, 1, 2, 3, 4, 5], table) == [0, 5, 3]
    p.issued(3)                                    # the greedy warp inside the window: no repeat
    assert p.order([0, 1, 2, 3, 4, 5], table) == [3, 5]
    table[4].pending = 0                           # a fence with no writes left does not wait
    assert WarpLimiting(3).order([0, 1, 2, 3, 4, 5], table) == [5, 3, 4]


def test_warp_limiting_as_wide_as_the_scheduler_is_greedy_then_oldest():
    assert _issues("warp_limiting:2:4") == _issues("gto")


def test_warp_limiting_to_one_warp_runs_the_warps_one_after_another():
    iss = _issues("warp_limiting:2:1")
    # each warp: its mov, the adds 5 cycles later (the mov's latency), back to back, then ret;
    # the next warp enters the window only when the previous one is done
    want = []
    t = 2
    for w in range(4):
        want.append((t, w, 0))
        want += [(t + 5 + k, w, 1 + k) for k in range(7)]
        t += 12
    assert iss == want


def test_warp_limiting_to_two_warps_interleaves_only_two():
    iss = _issues("warp_limiting:2:2")
    assert [w for _c, w, _p in iss] == [0, 1] + [0] * 7 + [1] * 7 + [2, 3] + [2] * 7 + [3] * 7
    assert [c for c, _w, _p in iss][:4] == [2, 3, 7, 8]
    assert iss[-1] == (39, 3, 7)
