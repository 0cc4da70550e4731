"""The SIMT core's L1 instruction cache as fetch uses it (GPGPU-Sim ``shader_core_ctx::fetch``
with ``m_L1I``, a ``read_only_cache``; checklist C066, C072-C075).

Only with ``-gpgpu_perfect_inst_const_cache 0`` (the 2.x/3.x configs, e.g. SM2_GTX480; every
shipped 4.x config sets 1 and fetch then treats every access as a hit without a cache, exactly
as before this module existed).

* **Addresses** (C073): GPGPU-Sim gives every PTX instruction an 8-byte slot
  (``ptx_instruction::inst_size``) in one program address space: ``function_info::ptx_assemble``
  lays the functions of each loaded PTX out back to back, in file order, from
  ``g_assemble_code_next_pc``; fetch accesses ``pc + PROGRAM_MEM_START`` (0xF0000000) for 16
  bytes, cut at the end of the I-cache line.  :func:`instruction_addresses` maps the timing
  model's program pcs (indices into the pre-decoded program, kernel first, then its callees)
  to those byte addresses.  Modules are numbered in the order the timing model first runs one
  of their kernels (GPGPU-Sim: the order their PTX is loaded, i.e. registered), the same for a
  program with one module.  A PTXPlus kernel (``--ptxplus``, C007, C009) is addressed as its
  SASS: 16 bytes per SASS instruction, every line of an instruction's expansion at that
  instruction's byte offset (its helper lines take no code space).  Fetch still accesses 16
  bytes at the first instruction's address and takes two instructions, as Accel-Sim's
  (GPGPU-Sim's) fetch does for SASS.
* **Access** (C074): one ``INST_ACC_R`` access per fetch, with the request's sector mask empty
  as GPGPU-Sim's ``mem_access_t`` leaves it (a sectored L2 then splits the line request into
  its four sectors); HIT puts the instruction in the fetch buffer; MISS marks the warp's I-miss
  pending (C075) and the miss goes through the read-only cache's MSHR and miss queue;
  RESERVATION_FAIL retries on a later fetch.  Every fetch call ends with the cache's cycle, which
  sends the head of the miss queue into the cluster's interconnect port.
* **Fill**: the cluster routes ``INST_ACC_R`` replies to the core's fetch unit without the
  load/store unit's response-buffer check and without the read-latency statistics
  (``simt_core_cluster::icnt_cycle``, ``accept_fetch_response``); when the fill completes, the
  next fetch with an empty fetch buffer takes the warp the MSHR releases (one per fetch call),
  clears its I-miss flag and fills the fetch buffer at the warp's pc.
* **Statistics**: ``L1I_total_cache_accesses/misses/pending_hits/reservation_fails`` and the
  ``INST_ACC_R`` rows of ``Total_core_cache_stats_breakdown`` /
  ``Total_core_cache_fail_stats_breakdown`` from the real cache events.
"""

from __future__ import annotations

from typing import Any

from ..cache import MISS, Cache, publish_cache_stats
from ..mem_fetch import MemFetch

#: ``PROGRAM_MEM_START`` (abstract_hardware_model.h): where instruction memory starts
PROGRAM_MEM_START = 0xF0000000
#: bytes per PTX instruction (``MAX_INST_SIZE``, ``ptx_instruction::inst_size``)
INST_BYTES = 8
#: bytes per SASS instruction (sm_70 and later), the code space of a PTXPlus function
SASS_INST_BYTES = 16
#: bytes fetched per access (``shader_core_ctx::fetch``: two instructions)
FETCH_BYTES = 16


def sass_count(fn: Any) -> int:
    """The number of SASS instructions a PTXPlus function was converted from (the largest SASS
    index of its lines, :mod:`gpgpusim.ptxplus.marks`, plus one); 0 for a PTX function."""
    n = 0
    for inst in fn.instructions:
        mark = inst.sass
        if mark is not None and mark[0] + 1 > n:
            n = mark[0] + 1
    return n


def instruction_addresses(module_ir: Any, prog: Any, module_base: int) -> tuple[list[int], int]:
    """Byte pc (without ``PROGRAM_MEM_START``) of every program pc of ``prog`` (one more entry
    for the slot after the last), and the byte size of the module's code.

    The module's functions occupy ``INST_BYTES`` per instruction from ``module_base``, in their
    order in the PTX; ``prog`` lays out the kernel and its callees as ``FuncInfo`` ranges.  A
    PTXPlus function (a kernel converted from SASS, issue 27) occupies ``SASS_INST_BYTES`` per
    SASS instruction instead, and each of its lines has the byte offset of the SASS instruction
    it belongs to (the lines before the first one, the entry's set-up, that of the first), so
    that its helper lines take no code space: the I-cache sees the SASS code's addresses."""
    start: dict[str, int] = {}
    pc = module_base
    # without the module (direct use of a program), its own functions in program order
    functions = module_ir.functions if module_ir is not None else {n: fi.fn for n, fi in prog.funcs.items()}
    for name, fn in functions.items():
        start[name] = pc
        k = sass_count(fn)
        pc += SASS_INST_BYTES * k if k else INST_BYTES * len(fn.instructions)
    n = len(prog.insts) + 1
    addrs = [0] * n
    sass_pcs = [False] * n      # set from a PTXPlus function (where 0 is an address like any)
    for name, fi in prog.funcs.items():
        s = start.get(name, module_base)
        k = sass_count(fi.fn)
        if k:
            for p in range(fi.base, min(fi.end + 1, n)):
                inst = prog.insts[p].inst if p < len(prog.insts) else None
                mark = inst.sass if inst is not None else None
                addrs[p] = s + SASS_INST_BYTES * (max(mark[0], 0) if mark is not None else k)
                sass_pcs[p] = True
            continue
        for p in range(fi.base, min(fi.end + 1, n)):
            addrs[p] = s + INST_BYTES * (p - fi.base)
    kernel_start = start.get(prog.kernel.name, module_base)
    kernel_sass = sass_count(prog.kernel)
    for p in range(n):          # pcs outside every function range (the slot after the last)
        if not addrs[p] and p and not sass_pcs[p]:
            addrs[p] = (kernel_start + SASS_INST_BYTES * kernel_sass if kernel_sass
                        else kernel_start + INST_BYTES * p)
    return addrs, pc - module_base


class InstCache:
    """The L1I of one core and the warps waiting for it (``m_L1I`` + ``imiss_pending``)."""

    __slots__ = ("core", "cache", "imiss", "line_bytes")

    def __init__(self, core: Any, cfg: Any) -> None:
        self.core = core
        il1 = cfg.get("gpgpu_cache:il1")
        self.cache = Cache(f"L1I_{core.sid}", il1, "L1I", level=1)
        self.line_bytes = self.cache.line_bytes
        self.imiss: set[int] = set()        # warp slots with an instruction miss pending

    def access(self, slot: int, pc_bytes: int, now: int) -> str:
        """Fetch access for warp ``slot`` at byte pc ``pc_bytes``: HIT, MISS or
        RESERVATION_FAIL (a MISS leaves the warp's I-miss pending)."""
        nbytes = FETCH_BYTES
        off = pc_bytes & (self.line_bytes - 1)
        if off + nbytes > self.line_bytes:
            nbytes = self.line_bytes - off
        core = self.core
        mf = MemFetch(PROGRAM_MEM_START + pc_bytes, nbytes, False, "INST_ACC_R", sector_mask=0,
                      core_id=core.sid, cluster_id=core.cluster.cid, warp_id=slot, timestamp=now)
        status = self.cache.access(mf, now)
        if status == MISS:
            self.imiss.add(slot)
        return status

    def ready_warp(self) -> int:
        """The warp whose instruction arrived (``access_ready``/``next_access``), its I-miss
        cleared; -1 when none."""
        c = self.cache
        if not c.ready:
            return -1
        slot = c.next_access().warp_id
        self.imiss.discard(slot)
        return slot

    def fill(self, mf: MemFetch, now: int) -> None:
        """``accept_fetch_response``: a reply (or one sector of it) arrived."""
        self.cache.fill(mf, now)

    def cycle(self, now: int) -> None:
        """``m_L1I->cycle()``: offer the head of the miss queue to the cluster's port."""
        c = self.cache
        if c.miss_queue:
            mf = c.miss_queue[0]
            cl = self.core.cluster
            if cl.can_inject(mf):
                c.miss_queue.pop(0)
                cl.inject(mf, now)
        c.cycle()

    def has_work(self) -> bool:
        """Something fetch must act on without waiting for a reply."""
        return bool(self.cache.miss_queue or self.cache.ready)

    def busy(self) -> bool:
        return bool(self.imiss) or self.cache.busy()

    def dump(self) -> str:
        return f"L1I: I-miss pending for warps {sorted(self.imiss)}; " + self.cache.dump_state().replace("\n", "; ")


def publish_l1i_stats(registry: Any, caches: list[Cache], add_to_l1d: bool) -> None:
    """The L1I totals, and the L1I rows of the core cache breakdowns: added to the L1D's
    (``add_to_l1d``: the L1D statistics were just published), else on their own."""
    publish_cache_stats(registry, caches, "L1I")
    for key, attr in (("core_cache_breakdown", "counts"), ("core_cache_fail_breakdown", "fails")):
        old = registry.values.get(key) if add_to_l1d else None
        bd = {at: dict(row) for at, row in old.items()} if isinstance(old, dict) else {}
        for c in caches:
            for at, row in getattr(c.stats, attr).items():
                d = bd.setdefault(at, {})
                for st, n in row.items():
                    d[st] = d.get(st, 0) + n
        registry.set(key, bd)
