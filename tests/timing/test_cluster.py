"""The SIMT core cluster as a kit component (gpgpusim.timing.cluster): it sleeps while nothing
is left for it, a reply reaching its reply-network output or its response FIFO wakes it, and
the reply it hands to a sleeping core wakes that core (back into the GPU's list of cores to
cycle).  Exact cycles on a two-cluster machine driven by hand."""

from __future__ import annotations

from typing import Any

from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.options import load_config
from gpgpusim.timing.cluster import icnt_cycles
from gpgpusim.timing.gpu import TimingGpu
from gpgpusim.timing.mem_fetch import MemFetch, access_fetch

from .timing_helpers import SMALL


def _gpu(*overrides: str) -> TimingGpu:
    cfg = load_config(None, overrides=[*SMALL, "-gpgpu_n_clusters 2", *overrides], env=False)
    return TimingGpu(cfg, GlobalMemory(), None)


def _reply(cluster: int, sid: int, access_type: str = "GLOBAL_ACC_R") -> MemFetch:
    mf = access_fetch(0x1000, 32, False, access_type, 1, 0xFFFFFFFF, sid, cluster, 0, False, None, 0)
    mf.is_reply = True
    return mf


def _tick(gpu: TimingGpu, now: int) -> list[bool]:
    """One core tick of the clusters; which of them are awake afterwards."""
    icnt_cycles(gpu.clusters, gpu.core_clock, now)
    return [not cl.sleeping() for cl in gpu.clusters]


def test_a_cluster_sleeps_until_a_reply_reaches_its_output_and_wakes_its_core():
    gpu = _gpu()
    c0, c1 = gpu.clusters
    core = c0.cores[0]
    net = gpu.mem.icnt.reply
    sub_node = len(gpu.clusters)            # sub-partition 0 on the reply network
    # nothing for either cluster: the first tick finds nothing and both sleep
    assert _tick(gpu, 0) == [False, False]
    assert (gpu.core_clock.n, c0.sleep_from, c0.wake_at > 10**15) == (1, 2, True)
    assert core.cycle(0) is False and core.sleeping()      # an empty core is quiescent
    mf = _reply(0, core.sid)
    net.push(sub_node, 0, mf)
    # the packet is in the network's input buffer: nothing for the cluster yet
    assert _tick(gpu, 1) == [False, False]
    net.advance()                           # it reaches cluster 0's output: that wakes cluster 0
    assert [not c.sleeping() for c in gpu.clusters] == [True, False]
    assert net.has_output(0) and not net.has_output(1)
    # tick 2: cluster 0 takes the reply into its response FIFO and stays awake
    assert c0.tick(2) is True and c1.tick(2) is False
    assert (c0.response.entries(), c0.sleeping(), net.has_output(0)) == ([mf], False, False)
    # tick 3: it hands the reply to its core, which wakes; nothing left: the cluster sleeps
    assert c0.tick(3) is True
    assert c0.response.empty() and c0.sleeping()
    assert not core.sleeping() and core in gpu._woken
    assert core.ldst.response == [mf]
    # a sleeping cluster is not cycled: its next reply is the next thing it sees
    assert c0.tick(4) is False


def test_a_full_core_response_buffer_keeps_the_reply_and_the_cluster_awake():
    gpu = _gpu()
    c0 = gpu.clusters[0]
    core = c0.cores[0]
    for _ in range(core.ldst.response_size):
        core.ldst.response.append(_reply(0, core.sid))
    mf = _reply(0, core.sid)
    c0.response.push(mf)                    # (woken if asleep: it consumes the FIFO)
    assert c0.tick(0) is False              # the core cannot take it: nothing moved
    assert c0.response.entries() == [mf] and not c0.sleeping()
    core.ldst.response.clear()
    assert c0.tick(1) is True and c0.response.empty() and c0.sleeping()


def test_a_push_into_the_response_fifo_wakes_a_sleeping_cluster():
    gpu = _gpu("-gpgpu_perfect_mem 1")
    c0 = gpu.clusters[0]
    _tick(gpu, 0)
    assert c0.sleeping()
    mf = access_fetch(0x2000, 32, False, "GLOBAL_ACC_R", 1, 0xFFFFFFFF, c0.cores[0].sid, 0, 0, False, None, 0)
    assert c0.can_inject(mf)
    c0.inject(mf, 0)                        # perfect memory: the request is its own reply at once
    assert not c0.sleeping() and mf.is_reply
    assert _tick(gpu, 1) == [False, False]  # handed to the core; the FIFO empty: asleep again
    assert c0.cores[0].ldst.response == [mf]


def _dump(c: Any) -> list[str]:
    out: list[str] = []
    c.dump_state(out)
    return out


def test_the_cluster_dumps_its_response_fifo():
    gpu = _gpu()
    c0 = gpu.clusters[0]
    assert _dump(c0) == []
    mf = _reply(0, c0.cores[0].sid)
    c0.response.push(mf)
    assert _dump(c0) == [f"cluster 0 response FIFO: {mf!r}"]
