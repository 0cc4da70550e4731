"""The local crossbar's iSLIP arbiter as the reference GPGPU-Sim 4.2 has it
(``xbar_router::iSLIP_Advance``, gpgpusim.timing.memory.icnt.XbarRouter, C148): the outputs wanted
at the start of the cycle, in ascending order, each take one packet from the first input after
their round-robin pointer whose current head goes there, and a granted input may be granted
again by a later one of those outputs in the same cycle.  Then, through the whole timing
model, what that does to a lock-step kernel whose loads all hit the L2: the replies of requests
that left one cluster in the same cycle meet at that cluster (reply-network conflicts, icnt->shader
latencies above 2 cycles), as in 4.2's vectoradd log.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from tests.timing.core.test_core import VECADD  # noqa: E402
from timing_helpers import ptx, run_timing  # noqa: E402

from gpgpusim.timing.kit import NEVER, Clock, Component  # noqa: E402
from gpgpusim.timing.memory.icnt import XbarRouter  # noqa: E402

N_SHADER, N_MEM = 4, 4


def _xbar(out_limit: int = 8, keep: bool = True) -> XbarRouter:
    x = XbarRouter(N_SHADER, N_MEM, in_limit=8, out_limit=out_limit, algo=1, grant_cycles=1,
                   n_active_in=N_SHADER, n_active_out=N_MEM)
    x.keep_granted = keep
    return x


def test_the_default_grants_each_input_once_per_cycle():
    x = _xbar(keep=False)
    x.push(1, _mem(1), "a0")
    x.push(1, _mem(3), "a1")
    x.push(2, _mem(3), "b0")
    x.advance()
    assert _outs(x) == {_mem(1): ["a0"], _mem(3): ["b0"]}


@pytest.mark.parametrize("algo", [0, 1])
def test_an_input_buffer_keeps_each_packets_destination(algo):
    """The input buffers hold packets and, beside them, their destinations: the dump pairs
    them, and each packet reaches its own output (round robin and iSLIP)."""
    x = _xbar()
    x.algo = algo
    x.push(0, _mem(2), "a0")
    x.push(0, _mem(0), "a1")
    x.push(3, _mem(2), "b0")
    out: list[str] = []
    x.dump_state("req", out)
    assert out == [f"icnt req input 0: 'a0' -> {_mem(2)}, 'a1' -> {_mem(0)}", f"icnt req input 3: 'b0' -> {_mem(2)}"]
    for _ in range(4):
        x.advance()
    assert {d: sorted(v) for d, v in _outs(x).items()} == {_mem(0): ["a1"], _mem(2): ["a0", "b0"]}
    assert x.n_in_flight == 0 and not x.busy_in and not any(x.in_dst)


def _mem(i: int) -> int:
    return N_SHADER + i


def _outs(x: XbarRouter) -> dict[int, list[str]]:
    return {n: q.entries() for n, q in enumerate(x.out_buf) if not q.empty()}


def test_a_granted_input_is_granted_again_by_a_later_wanted_output():
    x = _xbar()
    # cluster 1: to sub-partitions 1 then 3; cluster 2: to sub-partition 3
    x.push(1, _mem(1), "a0")
    x.push(1, _mem(3), "a1")
    x.push(2, _mem(3), "b0")
    x.advance()
    # sub-partition 1 takes a0; sub-partition 3 (wanted at the start of the cycle) then sees
    # cluster 1's new head too and, its pointer at 0, takes the first input after 0: cluster 1
    assert _outs(x) == {_mem(1): ["a0"], _mem(3): ["a1"]}
    assert (x.n_in_flight, x.reqs_util, x.cycles_util, x.conflicts) == (1, 2, 1, 0)
    assert (x.next_node[_mem(1)], x.next_node[_mem(3)]) == (2, 2)
    x.advance()
    assert _outs(x) == {_mem(1): ["a0"], _mem(3): ["a1", "b0"]}


def test_a_new_head_to_an_output_nobody_wanted_at_the_start_waits_a_cycle():
    x = _xbar()
    for i, d in enumerate((1, 2, 3)):
        x.push(0, _mem(d), f"p{i}")
    x.push(0, _mem(0), "p3")
    for n in range(1, 5):
        x.advance()
        assert x.reqs_util == n          # one packet per cycle: 2 and 3 were not wanted yet
    assert _outs(x) == {_mem(0): ["p3"], _mem(1): ["p0"], _mem(2): ["p1"], _mem(3): ["p2"]}
    # in-buffer occupancy sampled after each cycle: 3, 2, 1, 0
    assert (x.cycles, x.in_buffer_util) == (4, 6)


def test_round_robin_starts_after_the_pointer():
    x = _xbar()
    for c in (0, 1, 2):
        x.push(c, _mem(0), f"c{c}")
    x.advance()
    # pointer 0: the first input after it is cluster 1
    assert _outs(x) == {_mem(0): ["c1"]} and x.next_node[_mem(0)] == 2
    assert x.conflicts == 2
    x.advance()
    # pointer 2: the first input after it, wrapping, is cluster 0 (cluster 2 waits)
    assert _outs(x) == {_mem(0): ["c1", "c0"]} and x.next_node[_mem(0)] == 1
    x.advance()
    assert _outs(x) == {_mem(0): ["c1", "c0", "c2"]}
    assert (x.conflicts, x.conflicts_util, x.cycles_util, x.reqs_util) == (3, 3, 3, 3)


def test_a_full_output_counts_when_wanted():
    x = _xbar(out_limit=1)
    x.push(0, _mem(1), "p0")
    x.push(1, _mem(2), "q0")
    x.advance()
    assert x.out_buffer_full == 0 and x.n_out == 2
    x.push(0, _mem(1), "p1")      # waits: sub-partition 1's output buffer is full
    x.advance()
    assert (x.out_buffer_full, x.n_in_flight) == (1, 1)
    x.pop(_mem(1))
    x.advance()
    assert (x.out_buffer_full, x.n_in_flight, x.n_out) == (1, 0, 2)
    x.idle_advance(3)             # nothing wanted: full outputs do not count
    assert x.out_buffer_full == 1
    assert x.out_buffer_util == 2 + 2 + 2 + 2 * 3


def test_input_buffers_hold_in_limit_packets():
    x = XbarRouter(N_SHADER, N_MEM, in_limit=2, out_limit=8, algo=1, grant_cycles=1,
                   n_active_in=N_SHADER, n_active_out=N_MEM)
    assert x.has_buffer_in(0)
    x.push(0, _mem(0), "p0")
    x.push(0, _mem(1), "p1")
    assert (x.has_buffer_in(0), x.in_buffer_full) == (False, 1)       # a refusal counts
    assert (x.has_buffer_in(0, count_full=False), x.in_buffer_full) == (False, 1)
    assert x.has_buffer_in(1) and x.in_flight() and x.n_in_flight == 2
    with pytest.raises(AssertionError):
        x.push(0, _mem(2), "p2")                                        # past the bound
    x.advance()                     # both heads' outputs wanted: p0 goes, p1 is the new head
    assert (_outs(x), x.has_buffer_in(0)) == ({_mem(0): ["p0"]}, True)
    assert x.take_delivered() == [_mem(0)] and x.take_delivered() == []


class _Sink(Component):
    """A consumer of one crossbar output that only records its wakes."""

    def __init__(self) -> None:
        super().__init__(Clock())
        self.wakes = 0

    def cycle(self, now: int) -> bool:
        return False

    def wake(self) -> None:
        super().wake()
        self.wakes += 1


def test_a_packet_reaching_an_output_wakes_its_sleeping_consumer():
    x = _xbar(keep=False)
    sink, other = _Sink(), _Sink()
    x.connect_output(0, sink)
    x.connect_output(1, other)
    sink.sleep(NEVER)
    other.sleep(NEVER)
    x.push(_mem(2), 0, "r0")        # a reply from sub-partition 2 to cluster 0
    assert sink.sleeping() and sink.wakes == 0        # still in the input buffer
    x.advance()
    assert (sink.sleeping(), sink.wakes, other.sleeping(), other.wakes) == (False, 1, True, 0)
    assert (x.peek(0), x.has_output(0), x.has_output(1)) == ("r0", True, False)
    # an awake consumer is not woken again; a second packet waits behind the first
    x.push(_mem(3), 0, "r1")
    x.advance()
    assert sink.wakes == 1 and _outs(x) == {0: ["r0", "r1"]}
    assert (x.pop(0), x.pop(0), x.pop(0), x.busy()) == ("r0", "r1", None, False)


def test_dump_state_lists_both_buffers():
    x = _xbar(out_limit=1)
    x.push(0, _mem(1), "p0")
    x.push(1, _mem(1), "q0")
    x.advance()
    out: list[str] = []
    x.dump_state("request", out)
    assert out == ["icnt request input 0: 'p0' -> 5", "icnt request output 5: 'q0'"]


# --------------------------------------------------------------------------- whole model
def _lock_step_vecadd(keep: bool):
    ncta = 20
    n = ncta * 256
    a = np.arange(n, dtype=np.float32)

    def to_l2(gpu, addrs):
        for name in ("a", "b"):
            gpu.mem.memcpy_to_l2(addrs[name], n * 4, 0)
        gpu.mem.icnt.req.keep_granted = gpu.mem.icnt.reply.keep_granted = keep

    r = run_timing(ptx(VECADD, params=".param .u64 a, .param .u64 b, .param .u64 c"), "k", (ncta, 1, 1),
                   (256, 1, 1), [("a", a), ("b", np.ones(n, np.float32)), ("c", np.zeros(n, np.float32))],
                   overrides=["-gpgpu_n_clusters 8", "-gpgpu_memlatency_stat 14"], trace=False,
                   before_launch=to_l2)
    np.testing.assert_array_equal(r.out["c"], a + 1)
    c = r.counters
    req, rep = c["icnt_details"]["Req"], c["icnt_details"]["Reply"]
    # every load hit the L2; the 640 misses are the stores' (write-allocated, no DRAM read)
    assert (c["L2_total_cache_misses"], c["total_dram_reads"]) == (640, 0)
    assert rep["injected_packets_num"] == req["injected_packets_num"] == 1920
    return (r.cycles, round(req["conflicts_per_cycle"] * req["cycles"]), round(rep["conflicts_per_cycle"] * rep["cycles"]),
            round(rep["in_buffer_avg_util"] * rep["cycles"] * 64), c["icnt2sh_lat_table"][:7],
            c["max_icnt2sh_latency"], c["icnt2sh_latency_sum"])


def test_lock_step_l2_hits_meet_on_the_reply_network():
    """20 CTAs of 256 threads on 8 SMs (uneven: 3 or 2 CTAs per SM), every load an L2 hit (the
    inputs placed in the L2 as ``-gpgpu_perf_sim_memcpy`` does), so each request spends the same
    time in its sub-partition.  With the reference's arbiter the request network lets a cluster
    hand packets to several sub-partitions in one cycle, whose replies then meet at that cluster
    on the reply network and wait there: 772 reply conflicts (cycles x per-cycle rate), 1,088
    packet-cycles in the reply input buffers, icnt->shader latencies up to 8 cycles.  (Values
    since the collector reads several banks per step, 29f65a8: the warps issue their loads
    sooner and closer together.)  With a
    one-to-one matching (the default) the replies come back as a matching too: no conflict,
    every icnt->shader latency exactly 2 cycles."""
    assert _lock_step_vecadd(keep=True) == (718, 48, 772, 1088, [0, 1648, 260, 12, 0, 0, 0], 8, 4928)
    assert _lock_step_vecadd(keep=False) == (720, 64, 0, 0, [0, 1920, 0, 0, 0, 0, 0], 2, 3840)
