"""Device-runtime calls on the SIMT core (dynamic parallelism): ``-cdp_latency`` holds a
parameter-buffer or launch call at the head of its warp for ``latency[k-1] + latency[k] x
active lanes`` scheduler examinations (``ShaderCore._cdp_hold``), and a launch call's issue
releases its child grids (``KernelRun.device_launch``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from timing_helpers import run_timing  # noqa: E402

from gpgpusim.ptx import parse_ptx  # noqa: E402

#: each thread below ``p1`` asks for a 16-byte parameter buffer and stores its address
GET_BUFFER = """.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) cudaGetParameterBuffer (.param .b64 a, .param .b64 s);
.visible .entry k(.param .u64 p0, .param .u64 p1)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r2, [p1];
  setp.ge.u32 %p1, %r1, %r2;
  @%p1 bra DONE;
  {
  .param .b64 param0;
  st.param.b64 [param0], 64;
  .param .b64 param1;
  st.param.b64 [param1], 16;
  .param .b64 retval0;
  call.uni (retval0), cudaGetParameterBuffer, (param0, param1);
  ld.param.b64 %rd1, [retval0];
  }
  ld.param.u64 %rd2, [p0];
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u64 [%rd4], %rd1;
DONE:
  ret;
}
"""


def _run(latency: str, active: int) -> tuple[int, np.ndarray]:
    """The cycle the call issues (one warp of 32 threads, ``active`` of them make the call),
    and the buffer addresses the threads got."""
    out = np.zeros(32, dtype=np.uint64)
    r = run_timing(parse_ptx(GET_BUFFER, "t.ptx"), "k", (1, 1, 1), (32, 1, 1), [("out", out)],
                   overrides=["-gpgpu_num_sched_per_core 1", f"-cdp_latency {latency}"],
                   extra_params=lambda _a: [active])
    call_pc = next(pc for pc, d in enumerate(r.rec.op.module.cache[("timing_table", "k")].cdp) if d)
    return next(c for c, _w, pc in r.issues() if pc == call_pc), r.out["out"]


@pytest.mark.parametrize("active", [1, 7, 32])
def test_a_parameter_buffer_call_waits_its_cdp_latency_per_warp_and_lane(active):
    free, bufs = _run("0,0,0,0,0", active)
    held, bufs_held = _run("7200,8000,100,12000,1600", active)
    # one scheduler, one warp: each cycle examines the warp once; with no latency the call
    # still spends the examination that charges it
    assert held - free == 8000 + 100 * active
    assert np.array_equal(bufs, bufs_held)
    assert np.count_nonzero(bufs) == active and len(set(bufs[:active].tolist())) == active


def test_the_latency_lists_entries_are_the_ones_charged():
    free, _ = _run("0,0,0,0,0", 5)
    per_warp, _ = _run("0,30,0,0,0", 5)
    per_lane, _ = _run("0,0,3,0,0", 5)
    launch_only, _ = _run("99,0,0,77,11", 5)       # stream creation and launch entries: not this call
    assert (per_warp - free, per_lane - free, launch_only - free) == (30, 15, 0)
