"""The memory side of the timing model: interconnect + memory partitions (L2 + DRAM).

GPGPU-Sim counterpart: the memory half of ``gpgpu_sim::cycle`` (gpu-sim.cc) with
``memory_partition_unit`` / ``memory_sub_partition`` (l2cache.cc), ``dram_t`` (dram.cc) and the
local crossbar (local_interconnect.cc).  Checklist C138–C178 (see the modules).

Clocking.  GPGPU-Sim's ``cycle()`` runs, for the domains whose edge is due, in this order::

    CORE: clusters pop replies            (the core calls :meth:`pop_reply`)
    ICNT: sub-partitions -> reply network (:meth:`icnt_push_replies`)
    DRAM: every channel                   (:meth:`dram_cycle`)
    L2:   request network -> sub-partitions, L2 cycle  (:meth:`l2_cycle`)
    ICNT: crossbar transfer               (:meth:`icnt_transfer`)
    CORE: core pipelines                  (the core calls :meth:`inject`)

:meth:`step` runs the four memory phases for a domain mask; :meth:`icnt_cycle` is
``icnt_push_replies`` + ``icnt_transfer`` for callers that do not interleave domains.  Times are
core cycles (``gpu_sim_cycle + gpu_tot_sim_cycle``), which GPGPU-Sim also uses for the ROP and
DRAM latency queues and the L2's LRU stamps; set :attr:`now` or pass ``now``.
"""

from __future__ import annotations

from typing import Any

from ..cache import publish_cache_stats
from ..mem_fetch import MemFetch
from .addrdec import AddressDecoder
from ..kit import NEVER, Clock
from .dram_parts import DramTimingParams, logb2
from .icnt import Interconnect
from .partition import MemoryPartition, SubPartition

from ..clock import CORE, DRAM, ICNT, L2

#: the counter ``simt_core_cluster::icnt_inject_request_packet`` adds to per access type (C183):
#: the ``gpgpu_n_mem_*`` figures count requests that leave the core (L1 misses, bypasses, writes).
#: (``gpgpu_n_mem_const``/``_texture`` are counted where the L1C/L1T hand their requests over.)
_INJECT_COUNTER = {"GLOBAL_ACC_R": "gpgpu_n_mem_read_global", "GLOBAL_ACC_W": "gpgpu_n_mem_write_global",
                   "LOCAL_ACC_R": "gpgpu_n_mem_read_local", "LOCAL_ACC_W": "gpgpu_n_mem_write_local",
                   "L1_WRBK_ACC": "gpgpu_n_mem_write_global"}


def _log2_bin(v: int, n_bins: int) -> int:
    """GPGPU-Sim's ``LOGB2`` bin of a latency histogram (:func:`~.dram_parts.logb2`), kept inside
    the ``n_bins`` bins (GPGPU-Sim does not check; 2**24 cycles is out of any real run)."""
    return min(logb2(v), n_bins - 1)


class MemorySystem:
    """Interconnect + memory partitions.  See the module docstring for the calling order."""

    def __init__(self, cfg: Any, stats: Any, n_clusters: int) -> None:
        self.cfg = cfg
        self.stats = stats
        self.n_clusters = n_clusters
        self.n_mem = int(cfg.get("gpgpu_n_mem"))
        self.n_sub = int(cfg.get("gpgpu_n_sub_partition_per_mchannel"))
        self.n_sp = self.n_mem * self.n_sub
        self.addrdec = AddressDecoder.from_config(cfg)
        self.flit_size = int(cfg.get("icnt_flit_size"))
        self.traffic_out: dict[str, dict[int, int]] = {}   # core -> memory packets (bytes: n)
        self.traffic_in: dict[str, dict[int, int]] = {}    # memory -> core
        self.perf_memcpy = bool(cfg.get("gpgpu_perf_sim_memcpy"))
        l2cfg = cfg.get("gpgpu_cache:dl2")
        self.icnt = Interconnect(cfg, n_clusters, self.n_sp)
        params = DramTimingParams(cfg)
        self.dram_params = params
        part_addr = self.addrdec.partition_address
        #: the sub-partition and the L2 set are functions of ``addr >> granule``
        self.granule = self.addrdec.partition_granule()
        #: the L2 and DRAM clocks' tick counters, shared by their components
        self.l2_clock = Clock()
        self.dram_clock = Clock()
        l2_set_memo: dict[int, int] = {}      # one set-index memo for the banks (one hashing)
        self.subs = [SubPartition(i, cfg, l2cfg, part_addr, stats, self.granule, decode=self.addrdec.apply,
                                  clock=self.l2_clock, set_memo=l2_set_memo)
                     for i in range(self.n_sp)]
        self.partitions = [MemoryPartition(p, cfg, self.subs[p * self.n_sub:(p + 1) * self.n_sub], params,
                                           clock=self.dram_clock)
                           for p in range(self.n_mem)]
        self.now = 0
        # memory_stats_t (-gpgpu_memlatency_stat; nothing is recorded without it): see
        # read_done, the icnt->L2 pop in l2_cycle, lat_pw and update_stats
        self.memlat = bool(cfg.get("gpgpu_memlatency_stat"))
        self.mf_lat_table = [0] * 32          # log2 bins of the fetch latency (read_done)
        self.icnt2mem_lat_table = [0] * 24    # log2 bins of inject -> L2 pop
        self.icnt2sh_lat_table = [0] * 24     # log2 bins of reply network push -> core accept
        self.mf_lat_pw_table = [0] * 32       # log2 bins of each sampling window's mean latency
        self.mf_num_lat_pw = self.mf_tot_lat_pw = 0   # the open window's fetches and latency sum
        self.num_mfs = self.mf_total_lat = 0          # the closed windows' (the averages' base)
        self.tot_icnt2mem = self.tot_icnt2sh = 0
        self.max_mf_lat = self.max_icnt2mem = self.max_icnt2sh = 0
        # per DRAM bank: summed and largest latency by the request's decoded chip and bank
        # (mf_total_lat_table, mf_max_lat_table)
        self.mf_lat_bank_sum = [[0] * params.nbk for _ in range(self.n_mem)]
        self.mf_lat_bank_max = [[0] * params.nbk for _ in range(self.n_mem)]
        # gpu_tot_sim_cycle, which the DRAM schedulers subtract to get gpu_sim_cycle (the
        # kernel-relative cycle GPGPU-Sim's row service times are measured in)
        self.cycle_base = [0]
        for part in self.partitions:
            part.dram.sched.cycle_base = self.cycle_base
        # sub-partitions that may have work (requests inside or arriving), and the same in
        # ascending order (None when it must be sorted again)
        self._active: set[int] = set()
        self._order: list[int] | None = None

    # ------------------------------------------------------------------ addresses
    def decode(self, fetch: MemFetch) -> MemFetch:
        """Fill ``fetch``'s chip / sub-partition / bank / row / column from its address."""
        self.addrdec.apply(fetch)
        return fetch

    # ------------------------------------------------------------------ core side
    def can_inject(self, cluster_id: int, fetch: MemFetch | None = None) -> bool:
        """``icnt_has_buffer`` for the cluster's request input (one packet)."""
        return self.icnt.has_buffer(cluster_id)

    def inject(self, cluster_id: int, fetch: MemFetch, now: int | None = None) -> None:
        """``simt_core_cluster::icnt_inject_request_packet`` (C067, C141, C183): the packet's
        flits (``get_num_flits``) and its access type's counter, its traffic breakdown entry,
        then the push into the request network."""
        if fetch.chip < 0:
            self.addrdec.apply(fetch)
        t = self.now if now is None else now
        fetch.status = "IN_ICNT_TO_MEM"
        fetch.status_cycle = t
        # a read carries only its header; a write or an atomic its data too
        nbytes = fetch.size + fetch.ctrl_size if fetch.is_write or fetch.is_atomic else fetch.ctrl_size
        values = self.stats.values
        values["icnt_total_pkts_simt_to_mem"] = values.get("icnt_total_pkts_simt_to_mem", 0) + \
            -(-nbytes // self.flit_size)
        at = fetch.access_type
        name = _INJECT_COUNTER.get(at)
        if name is not None:
            values[name] = values.get(name, 0) + 1
        row = self.traffic_out.get(at)
        if row is None:
            row = self.traffic_out[at] = {}
        row[nbytes] = row.get(nbytes, 0) + 1
        self.icnt.push(cluster_id, self.n_clusters + fetch.sub_partition, fetch)

    def reply_ready(self, cluster_id: int) -> MemFetch | None:
        return self.icnt.peek(cluster_id)

    def pop_reply(self, cluster_id: int, now: int | None = None) -> MemFetch | None:
        """Eject one reply for the cluster (``icnt_pop``) into its response FIFO (the
        icnt->shader latency is recorded when the core takes it, :meth:`read_done`)."""
        mf = self.icnt.pop(cluster_id)
        if mf is not None:
            t = self.now if now is None else now
            # get_num_flits of a reply: data and header, but a write's acknowledgement (not an
            # atomic's) its header only; the traffic breakdown counts a write ack's header
            ctrl = mf.ctrl_size
            full = mf.size + ctrl
            values = self.stats.values
            values["icnt_total_pkts_mem_to_simt"] = values.get("icnt_total_pkts_mem_to_simt", 0) + \
                -(-(full if mf.is_atomic or not mf.is_write else ctrl) // self.flit_size)
            nbytes = ctrl if mf.is_write else full
            at = mf.access_type
            row = self.traffic_in.get(at)
            if row is None:
                row = self.traffic_in[at] = {}
            row[nbytes] = row.get(nbytes, 0) + 1
            mf.status = "IN_CLUSTER_TO_SHADER_QUEUE"
            mf.status_cycle = t
        return mf

    def read_done(self, fetch: MemFetch, now: int) -> None:
        """``memory_stats_t::memlatstat_read_done`` (C182): the cluster hands a data reply (a
        read's data or a write's acknowledgement; not an instruction fetch) to its core.
        Records the fetch latency (creation to now; ``memlatstat_done``: ``mf_lat_table``, the
        open sampling window, the per-bank sum and maximum, ``maxmflatency``) and the
        icnt->shader latency (reply network push to now: ``icnt2sh_lat_table``,
        ``max_icnt2sh_latency``).  Only with ``-gpgpu_memlatency_stat`` (the caller checks)."""
        lat = now - fetch.timestamp
        self.mf_num_lat_pw += 1
        self.mf_tot_lat_pw += lat
        self.mf_lat_table[_log2_bin(lat, 32)] += 1
        if lat > self.max_mf_lat:
            self.max_mf_lat = lat
        if 0 <= fetch.chip < self.n_mem:
            bk = fetch.bank % self.dram_params.nbk
            self.mf_lat_bank_sum[fetch.chip][bk] += lat
            if lat > self.mf_lat_bank_max[fetch.chip][bk]:
                self.mf_lat_bank_max[fetch.chip][bk] = lat
        lat = now - fetch.return_timestamp
        self.tot_icnt2sh += lat
        self.icnt2sh_lat_table[_log2_bin(lat, 24)] += 1
        if lat > self.max_icnt2sh:
            self.max_icnt2sh = lat

    def lat_pw(self) -> None:
        """``memory_stats_t::memlatstat_lat_pw``: close the sampling window.  Its fetches join
        the totals the printed averages divide by (``num_mfs``, ``mf_total_lat``) and its mean
        latency (integer division) counts one in ``mf_lat_pw_table``; a window without a
        completed fetch counts nothing.  GPGPU-Sim calls it every ``-gpgpu_runtime_stat``
        cycles of a kernel (``gpu_sim_cycle % freq == 0``, :class:`~..sampling.GpuSampler`)
        and from ``update_stats`` (:meth:`update_stats`)."""
        n = self.mf_num_lat_pw
        if n and self.memlat:
            tot = self.mf_tot_lat_pw
            self.mf_total_lat += tot
            self.num_mfs += n
            mean = tot // n
            self.mf_lat_pw_table[_log2_bin(mean, 32)] += 1
            self.mf_tot_lat_pw = self.mf_num_lat_pw = 0

    def update_stats(self, gpu_tot_sim_cycle: int) -> None:
        """``gpgpu_sim::update_stats`` when the GPU goes idle, after the kernel's statistics
        were printed: close the sampling window (:meth:`lat_pw`) and take the new
        ``gpu_tot_sim_cycle`` (the base of the kernel-relative cycle of the next kernel)."""
        self.lat_pw()
        self.cycle_base[0] = gpu_tot_sim_cycle

    # ------------------------------------------------------------------ clock phases
    def icnt_push_replies(self, now: int | None = None) -> None:
        """ICNT phase 1: each sub-partition offers its L2->icnt head to the reply network
        (``icnt_has_buffer`` of its reply input, inline: a refusal counts in the network's
        ``in_buffer_full``; a sub-partition's node is on the reply network, which is the request
        network with one subnet)."""
        t = self.now if now is None else now
        icnt = self.icnt
        reply = icnt.reply
        subs = self.subs
        base = self.n_clusters
        n = 0
        order = self._order
        if order is None:
            order = self._order = sorted(self._active)
        for i in order:
            sub = subs[i]
            mf = sub.top()
            if mf is None:
                continue
            node = base + i
            if reply.has_buffer_in(node):
                mf.return_timestamp = t
                mf.status = "IN_ICNT_TO_SHADER"
                mf.status_cycle = t
                icnt.push(node, mf.cluster_id, mf)
                sub.pop()
                if mf.is_atomic:
                    mf.do_atomic()
                n += 1
            else:
                self.stats.add("gpu_stall_icnt2sh")
        if n:
            self.stats.add("icnt_mem_reply_sum", n)
            self.stats.add("l2_bytes", 32 * n)

    def dram_cycle(self, now: int | None = None) -> None:
        t = self.now if now is None else now
        self.dram_clock.n += 1
        for p in self.partitions:
            p.tick(t)

    def l2_cycle(self, now: int | None = None) -> None:
        """L2 phase: move one request per sub-partition out of the request network (unless its
        icnt->L2 queue could not take a whole 4-sector split: ``gpu_stall_dramfull``), then the
        sub-partition's ``cache_cycle`` (C153-C155).  Only the sub-partitions with work (see
        ``_active``) are visited: one leaves the set when nothing at all is inside it or on
        its way to it.

        A sub-partition that only waits sleeps (:meth:`~.partition.SubPartition.try_sleep`,
        asked when no request waits for it on the network) and is not cycled until its ROP
        head's ready cycle, a request or a DRAM reply (pushes into the queues it consumes wake
        it); the kit adds its L2 port cycles when it runs again.  The ROP entry or MSHR it
        waits for keeps it in ``_active`` meanwhile, as every skipped cycle would have found.
        A request arriving from the interconnect is taken in without waking it when it enters
        the ROP delay: the cycle would again move nothing (the new ROP entry is ready
        ``-gpgpu_l2_rop_latency`` cycles later, after the waited-for head if any)."""
        t = self.now if now is None else now
        self.l2_clock.n += 1
        active = self._active
        if not active:
            return
        order = self._order
        if order is None:
            order = self._order = sorted(active)
        icnt = self.icnt
        req = icnt.req
        subs = self.subs
        base = self.n_clusters
        n = 0
        done = None
        for i in order:
            sub = subs[i]
            node = base + i
            took = False
            if not sub.due(t):
                if not req.has_output(node):
                    continue
                if sub.can_take(4):
                    # asleep, and a request arrives: it is taken in as below; when it enters
                    # the ROP delay (not a texture request, which goes to the icnt->L2
                    # queue and wakes it), the sub-partition only waits as before (for the
                    # earlier ROP head, or now for this one), and its cycle would count only
                    # the port cycle: it sleeps on, that cycle counted with the others on waking
                    self._take_request(sub, icnt.pop(node), t)
                    n += 1
                    if sub.sleeping():
                        continue
                    took = True
                else:
                    sub.wake()          # it cycles, the request waiting (gpu_stall_dramfull)
            if not took:
                if not sub.can_take(4):
                    self.stats.add("gpu_stall_dramfull")
                elif req.has_output(node):
                    self._take_request(sub, icnt.pop(node), t)
                    n += 1
            sub.tick(t)
            if req.has_output(node):
                continue
            if sub.drained() and self._partition_of(i).latency_empty():
                if done is None:
                    done = [i]
                else:
                    done.append(i)
            else:
                sub.try_sleep()
        if done is not None:
            for i in done:
                active.discard(i)
            self._order = None
        if n:
            self.stats.add("icnt_l2_req_sum", n)
            self.stats.add("icnt_l2_busy_cycles", 1)

    def _take_request(self, sub: SubPartition, mf: MemFetch, t: int) -> None:
        """A request leaves the request network into sub-partition ``sub`` (its ``push``)."""
        if self.memlat:
            # memlatstat_icnt2mem_pop (memory_sub_partition::push): inject -> here
            lat = t - mf.timestamp
            self.tot_icnt2mem += lat
            self.icnt2mem_lat_table[_log2_bin(lat, 24)] += 1
            if lat > self.max_icnt2mem:
                self.max_icnt2mem = lat
        sub.push(mf, t)

    def _partition_of(self, sp: int) -> MemoryPartition:
        return self.partitions[sp // self.n_sub]

    def icnt_transfer(self) -> None:
        """ICNT phase 2: each network's ``advance``; a network with nothing in flight only
        counts the cycle (:meth:`~.icnt.XbarRouter.idle_advance`).  The
        sub-partitions a request reached join ``_active``."""
        icnt = self.icnt
        req = icnt.req
        if req.in_flight():
            req.advance()
            delivered = req.take_delivered()
            if delivered:
                base = self.n_clusters
                active = self._active
                for node in delivered:
                    if node >= base and node - base not in active:
                        active.add(node - base)
                        self._order = None
        else:
            req.idle_advance(1)
        reply = icnt.reply
        if reply is not req:
            if reply.in_flight():
                reply.advance()
                reply.take_delivered()    # (a cluster learns of a reply from its output's wake)
            else:
                reply.idle_advance(1)

    def icnt_cycle(self, now: int | None = None) -> None:
        """Both ICNT phases back to back (for callers that do not interleave clock domains)."""
        self.icnt_push_replies(now)
        self.icnt_transfer()

    def step(self, mask: int, now: int | None = None) -> None:
        """The memory phases of ``gpgpu_sim::cycle`` for clock-domain ``mask`` (bits CORE=1,
        L2=2, ICNT=4, DRAM=8 as ``next_clock_domain`` returns them), in GPGPU-Sim's order."""
        if now is not None:
            self.now = now
        t = self.now
        if mask & ICNT:
            self.icnt_push_replies(t)
        if mask & DRAM:
            self.dram_cycle(t)
        if mask & L2:
            self.l2_cycle(t)
        if mask & ICNT:
            self.icnt_transfer()

    def idle_ticks(self, n_icnt: int, n_l2: int, n_dram: int) -> None:
        """Account clock ticks of an :meth:`idle` memory system in bulk (each such tick only
        bumps per-cycle counters): ``n_icnt`` interconnect, ``n_l2`` L2 and ``n_dram`` DRAM
        ticks, exactly as that many :meth:`step` calls would."""
        if not self.idle():
            raise AssertionError("idle_ticks on a busy memory system: icnt busy=%s active=%s parts=%s" % (
                self.icnt.busy(), sorted(self._active),
                [(p.id, not p.latency_empty(), p.dram.busy(), [s.id for s in p.subs if not s.idle()])
                 for p in self.partitions if not p.idle()]))
        self.l2_clock.n += n_l2
        self.icnt.req.idle_advance(n_icnt)
        if self.icnt.reply is not self.icnt.req:
            self.icnt.reply.idle_advance(n_icnt)
        if n_dram:
            for p in self.partitions:
                # an idle channel may still have constraint timers counting down (they also
                # decide n_activity): cycle those out exactly, then add the rest in bulk
                p.dram.drain(n_dram, self.now)

    # ------------------------------------------------------------------ state
    def busy(self) -> bool:
        """GPGPU-Sim's notion (``memory_partition_unit::busy`` or ``icnt_busy``): a request from
        a core is still inside the memory system.  L2-made write-backs do not count."""
        return self.icnt.busy() or any(self.subs[i].busy() for i in self._active)

    def idle(self) -> bool:
        """Nothing at all in flight (write-backs included): a memory cycle would change nothing
        but idle counters."""
        return not self.icnt.busy() and not self._active and all(p.idle() for p in self.partitions)

    def next_event(self, now: int) -> int | None:
        """Earliest core cycle at which the memory side may do something: ``None`` when
        :meth:`idle`, the head of the ROP/DRAM latency queues when only delays are pending,
        else ``now`` (conservative)."""
        if self.idle():
            return None
        if self.icnt.busy():
            return now
        t = NEVER
        for p in self.partitions:
            e = p.next_event(now)
            if e == now:
                return now
            t = min(t, e)
        return max(now, t) if t != NEVER else now

    # ------------------------------------------------------------------ host copies / flush
    def memcpy_to_l2(self, addr: int, nbytes: int, now: int | None = None) -> None:
        """``gpgpu_sim::perf_memcpy_to_gpu`` (``-gpgpu_perf_sim_memcpy``): each 32-byte chunk of
        the copy is made valid in its L2 bank (GPGPU-Sim truncates the address to 32 bits)."""
        if self.perf_memcpy:
            self.fill_l2(addr, nbytes, now)

    def fill_l2(self, addr: int, nbytes: int, now: int | None = None) -> None:
        """Make each 32-byte chunk of ``nbytes`` at ``addr`` valid in its L2 bank, as a copy
        under ``-gpgpu_perf_sim_memcpy`` does (:meth:`memcpy_to_l2`; kernel sampling also
        places there what a projected launch was first to read)."""
        t = self.now if now is None else now
        # the sub-partition is a function of the address above the partition granule: decode
        # once per granule (not through the decoder's memo: these addresses are seen once)
        g = self.granule
        decode = self.addrdec._decode
        subs = self.subs
        last = -1
        sub = subs[0]
        for off in range(0, nbytes, 32):
            a = (addr + off) & 0xFFFFFFFF
            if a >> g != last:
                last = a >> g
                sub = subs[decode(a)[1]]
            sub.force_l2_tag_update(a, t, 1 << (a % 128 // 32))

    def flush_l2(self) -> None:
        for s in self.subs:
            if s.l2 is not None:
                s.l2.flush()

    def invalidate_l2(self) -> None:
        for s in self.subs:
            if s.l2 is not None:
                s.l2.invalidate()

    # ------------------------------------------------------------------ statistics
    def publish_stats(self) -> None:
        """Write the cumulative L2 / DRAM / icnt statistics into the registry (idempotent)."""
        # the idle ticks of the sleeping components so far (they sleep on)
        for p in self.partitions:
            p.settle()
        for sub in self.subs:
            sub.settle()
        st = self.stats
        st.set("traffic_coretomem", {k: dict(v) for k, v in self.traffic_out.items()})
        st.set("traffic_memtocore", {k: dict(v) for k, v in self.traffic_in.items()})
        l2s = [s.l2 for s in self.subs if s.l2 is not None]
        publish_cache_stats(st, l2s, "L2", per_unit="L2_bank", breakdown="l2_cache_breakdown",
                            fail_breakdown="l2_cache_fail_breakdown", port="L2")
        st.set("L2_port_cycles", self.l2_clock.n * len(l2s))
        reads = [list(p.dram.reads_per_bank) for p in self.partitions]
        writes = [list(p.dram.writes_per_bank) for p in self.partitions]
        st.set("dram_reads_per_bank", reads)
        st.set("dram_writes_per_bank", writes)
        st.set("total_dram_reads", sum(map(sum, reads)))
        st.set("total_dram_writes", sum(map(sum, writes)))
        if self.memlat:
            self._publish_memlat(reads, writes)
        st.set("dram_channels", [self._channel_stats(p) for p in self.partitions])
        net = {"Req": self.icnt.req.details(), "Reply": self.icnt.reply.details()}
        st.set("icnt_details", net)

    def _publish_memlat(self, reads: list[list[int]], writes: list[list[int]]) -> None:
        """The DRAM lines of ``memory_stats_t::memlatstat_print`` (``-gpgpu_memlatency_stat``).

        ``number of total memory accesses made`` prints ``totalbankaccesses``, which GPGPU-Sim
        4.2 allocates but never increments, and ``dq_lat_table`` is never filled by its
        ``dram_t`` either: both are zeros there, so they are zeros here (the real per-bank
        counts are the read and write tables).  ``average mf latency per bank`` divides the
        latencies of every data reply's fetch (:meth:`read_done`: reads, L2 hits included, and
        write acknowledgements) by that bank's DRAM reads + writes, as GPGPU-Sim does; "none"
        where the bank had no DRAM access.

        The averages GPGPU-Sim prints divide by ``num_mfs``, the fetches of the *closed*
        sampling windows (:meth:`lat_pw`): ``averagemflatency`` is ``mf_total_lat / num_mfs``
        (``mf_latency_sum``/``_count``), ``avg_icnt2mem_latency`` and ``avg_icnt2sh_latency``
        divide every request's and reply's latency so far (``icnt2mem_latency_sum``,
        ``icnt2sh_latency_sum``) by that same ``num_mfs``."""
        st = self.stats
        st.set("maxmflatency", self.max_mf_lat)
        st.set("max_icnt2mem_latency", self.max_icnt2mem)
        st.set("max_icnt2sh_latency", self.max_icnt2sh)
        st.set("mf_latency_sum", self.mf_total_lat)
        st.set("mf_latency_count", self.num_mfs)
        st.set("icnt2mem_latency_sum", self.tot_icnt2mem)
        st.set("icnt2sh_latency_sum", self.tot_icnt2sh)
        st.set("mf_lat_table", list(self.mf_lat_table))
        st.set("icnt2mem_lat_table", list(self.icnt2mem_lat_table))
        st.set("icnt2sh_lat_table", list(self.icnt2sh_lat_table))
        st.set("mf_lat_pw_table", list(self.mf_lat_pw_table))
        drams = [p.dram for p in self.partitions]
        st.set("mrq_latency_sum", sum(d.mrq_lat_sum for d in drams))
        st.set("mrq_latency_count", sum(d.mrq_lat_num for d in drams))
        st.set("maxmrqlatency", max((d.mrq_lat_max for d in drams), default=0))
        st.set("mrq_lat_table", [sum(col) for col in zip(*(d.mrq_lat_table for d in drams), strict=True)])
        st.set("dq_lat_table", [0] * 32)
        scheds = [d.sched for d in drams]
        if all(s.bank_stats for s in scheds):
            st.set("dram_max_conc_access_per_bank", [list(s.max_conc_access) for s in scheds])
            st.set("dram_max_service_time_per_bank", [list(s.max_service_time) for s in scheds])
            st.set("dram_row_accesses_per_bank", [list(s.row_access) for s in scheds])
            st.set("dram_activates_per_bank", [list(s.num_activates) for s in scheds])
        st.set("dram_accesses_per_bank", [[0] * len(r) for r in reads])
        st.set("dram_avg_mf_latency_per_bank",
               [[tot // (r + w) if r + w else None for tot, r, w in zip(lat, rr, ww, strict=True)]
                for lat, rr, ww in zip(self.mf_lat_bank_sum, reads, writes, strict=True)])
        st.set("dram_max_mf_latency_per_bank", [list(m) for m in self.mf_lat_bank_max])

    @staticmethod
    def _channel_stats(p: MemoryPartition) -> dict[str, Any]:
        """``memory_partition_unit::print``: the partition's L2 banks and DRAM latency queue,
        then the channel's ``dram_t::print`` counters."""
        ch = {"l2_banks": [s.id for s in p.subs],
              "dram_latency_queue": [{"ready": ready, "uid": mf.uid, "sid": mf.core_id, "wid": mf.warp_id,
                                      "addr": mf.addr, "is_store": mf.is_write, "size": mf.size,
                                      "type": mf.access_type, "status": mf.status,
                                      "status_cycle": mf.status_cycle} for ready, mf in p.latency_entries()]}
        ch.update(p.dram.channel_stats())
        return ch

    def dump_state(self) -> str:
        """The memory system's state (C200; ``memory_partition_unit::print`` and the icnt's
        buffers): the packets in each interconnect buffer, then each partition with anything
        inside: its sub-partitions' queues and L2 MSHRs, the DRAM latency queue and the DRAM
        channel (the idle ones in one line).  Reads state only."""
        out = [f"memory system @ {self.now}: icnt busy={self.icnt.busy()} active sub-partitions="
               f"{sorted(self._active)}"]
        nets = [("request", self.icnt.req)]
        if self.icnt.reply is not self.icnt.req:
            nets.append(("reply", self.icnt.reply))
        for name, net in nets:
            net.dump_state(name, out)
        for p in self.partitions:
            if not p.idle():
                p.dump_state(out)
        idle = [p.id for p in self.partitions if p.idle()]
        if idle:
            out.append(f"idle memory partitions (empty queues, no MSHR entry, DRAM quiet): {idle}")
        return "\n".join(out)


__all__ = ["MemorySystem", "MemFetch", "CORE", "L2", "ICNT", "DRAM"]
