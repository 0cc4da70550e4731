"""The operand collector and banked register file (GPGPU-Sim ``opndcoll_rfu_t``; C093-C095).

Model (4.x, generic collector units only, as ``-gpgpu_enable_specialized_operand_collector 0``
configures it; the specialised sets are treated as generic ones):

* ``-gpgpu_operand_collector_num_units_gen`` collector units (CUs); with the sub-core model the
  CUs are split evenly among the schedulers and an instruction only gets a CU of the scheduler
  that issued it;
* ``step()`` = dispatch ready CUs to their OC_EX register, grant register reads, allocate CUs
  to instructions waiting in the ID_OC registers; it runs ``-gpgpu_reg_file_port_throughput``
  times per core cycle (``shader_core_ctx::read_operands``);
* register ``r`` of warp ``w`` lives in bank ``r mod banks`` (sub-core: ``r mod
  banks_per_sched`` within the scheduler's banks; ``+ w`` with ``-gpgpu_reg_bank_use_warp_id``);
* the read arbiter grants one read per bank per step, the front of the bank's queue (GPGPU-Sim's
  ``arbiter_t::allocate_reads``, whose one-operand-per-CU test is commented out: a CU may
  collect several operands in one step); banks written back this cycle are not readable in the
  first step;
* a CU whose operands are all read dispatches to its OC_EX register when that has room
  (``dispatch_unit_t::find_ready``, round robin over CUs).

Register numbers are the functional engine's register slots (declaration order), which plays
the role of GPGPU-Sim's ``reg_num``; bank conflicts depend on that numbering.
"""

from __future__ import annotations

from typing import Any

from .units import RegisterSet, WarpInst, popcount

#: :meth:`OperandCollector.warp_banks`' tables, shared by every collector of one geometry (80
#: SMs x 4 schedulers would otherwise each hold a copy: ~50,000 tuples for a 100-pc kernel)
_BANK_MEMO: dict[tuple[Any, int, int, int, int, bool, bool], tuple[list[tuple[int, ...]], list[tuple[int, ...]]]] = {}


class CollectorUnit:
    __slots__ = ("index", "sched", "inst", "out", "need", "free", "oi", "group")

    def __init__(self, index: int, sched: int) -> None:
        self.index = index
        self.sched = sched
        self.inst: WarpInst | None = None
        self.out: RegisterSet | None = None
        self.need = 0
        self.free = True
        self.oi = -1          # its slot in ``out`` (sub-core model: the scheduler's), else -1
        self.group = 0        # its index in ``OperandCollector.cu_groups``


class OperandCollector:
    __slots__ = ("n_in", "n_ready", "n_queued", "cus", "n_banks", "banks_per_sched", "sub_core", "use_wid", "queues", "in_regs",
                 "out_of", "last_cu", "write_banks", "n_busy", "stats_bank_conflicts", "n_sched",
                 "cus_per_sched", "n_dispatch", "cu_groups", "nonempty",
                 "ready", "dispatch_blocked", "alloc_blocked", "n_free", "in_pos", "waiting", "group_bits",
                 "free_bits", "keep_woken")

    def __init__(self, n_cu: int, n_banks: int, n_sched: int, sub_core: bool, use_wid: bool,
                 in_regs: list[RegisterSet], out_of: dict[int, RegisterSet], n_dispatch: int) -> None:
        if sub_core and n_cu % n_sched:
            n_cu += n_sched - n_cu % n_sched
        n_cu = max(n_cu, n_sched if sub_core else 1)
        self.n_sched = n_sched
        self.cus_per_sched = n_cu // n_sched if sub_core else n_cu
        self.cus = [CollectorUnit(i, i // self.cus_per_sched if sub_core else 0) for i in range(n_cu)]
        self.n_banks = max(1, n_banks)
        self.banks_per_sched = max(1, self.n_banks // n_sched) if sub_core else self.n_banks
        self.sub_core = sub_core
        self.use_wid = use_wid
        self.queues: list[list[int]] = [[] for _ in range(self.n_banks)]  # CU index per read
        self.in_regs = in_regs           # ID_OC registers, in GPGPU-Sim's port order
        #: (ID_OC register, slot) per waiting-instruction bit (``waiting``), in port order;
        #: each ID_OC register's first bit is its ``pos0``
        self.in_pos: list[tuple[RegisterSet, int]] = []
        for reg in in_regs:
            reg.pos0 = len(self.in_pos)
            self.in_pos.extend((reg, i) for i in range(len(reg.slots)))
        self.waiting = 0                 # bit reg.pos0 + slot: an instruction waits there
        #: per CU group, the ``waiting`` bits of the ID_OC slots only its instructions use (the
        #: sub-core model gives scheduler s slot s of every ID_OC register); None when a slot
        #: serves several groups (fewer slots than schedulers)
        self.group_bits: list[int] | None = None
        if not sub_core:
            self.group_bits = [(1 << len(self.in_pos)) - 1]
        elif all(len(reg.slots) >= n_sched for reg in in_regs):
            self.group_bits = [sum(1 << (reg.pos0 + s) for reg in in_regs) for s in range(n_sched)]
        #: the ``waiting`` bits of the groups with a free CU (all bits without group_bits)
        self.free_bits = -1
        self.out_of = out_of             # unit kind -> OC_EX register
        self.last_cu = n_cu - 1
        self.write_banks = 0             # bitmask of banks taken by writeback this cycle
        self.n_busy = 0
        self.n_ready = 0       # CUs with every operand read, waiting to dispatch
        self.n_in = 0          # instructions waiting in the ID_OC registers (the core counts)
        self.n_queued = 0      # register reads waiting in the bank queues
        self.stats_bank_conflicts = 0
        self.n_dispatch = max(1, n_dispatch)
        #: the CUs an instruction of scheduler ``s`` may take (all of them without sub-cores)
        self.cu_groups = [[cu for cu in self.cus if cu.sched == s] if sub_core else self.cus
                          for s in range(max(1, n_sched))]
        for cu in self.cus:
            cu.group = cu.sched if sub_core else 0
        #: free CUs per group (an instruction whose group has none is not looked at)
        self.n_free = [len(g) for g in self.cu_groups]
        self.nonempty = 0                # bit b: bank b's read queue is not empty
        self.ready: list[CollectorUnit] = []   # CUs with every operand read, by index
        #: the last dispatch found no room for any ready CU (until an OC_EX slot that a ready CU
        #: waits for is freed, or a CU whose slot is free becomes ready: :meth:`ex_freed`,
        #: :meth:`_now_ready`)
        self.dispatch_blocked = False
        #: the last allocation found no free CU for any waiting instruction (until a CU is
        #: freed, or an instruction of a group with a free CU arrives: ``ShaderCore._issue_warp``)
        self.alloc_blocked = False
        #: set by the core: the sub-core model with every ID_OC slot its scheduler's own, one
        #: instruction per warp and cycle, and a policy whose ordering has no side effects; a
        #: freed slot's waiters are then also kept in the slot's ``woken`` mask until the slot
        #: is filled again (``ShaderCore._sched_cycle`` parks the ones not examined by then)
        self.keep_woken = False

    def warp_banks(self, tbl: Any, wid: int, sched: int) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
        """Per pc of kernel table ``tbl``: the banks (:meth:`bank_of`) of the operands the
        collector reads and of the destinations written back, for warp slot ``wid`` of
        scheduler ``sched`` (memoised per table, scheduler, bank geometry and, with
        ``-gpgpu_reg_bank_use_warp_id``, warp slot, for all collectors; a bounded table)."""
        key = (tbl, wid if self.use_wid else 0, sched, self.n_banks, self.banks_per_sched, self.sub_core, self.use_wid)
        b = _BANK_MEMO.get(key)
        if b is None:
            if len(_BANK_MEMO) >= 4096:
                _BANK_MEMO.clear()
            b = _BANK_MEMO[key] = (
                [tuple(self.bank_of(r, wid, sched) for r in regs) for regs in tbl.oc_src],
                [tuple(self.bank_of(r, wid, sched) for r in regs) for regs in tbl.wb_dst])
        return b

    def bank_of(self, reg: int, wid: int, sched: int) -> int:
        b = reg + wid if self.use_wid else reg
        if self.sub_core:
            return b % self.banks_per_sched + sched * self.banks_per_sched
        return b % self.n_banks

    def writeback_banks(self, inst: WarpInst) -> bool:
        """Write ``inst``'s destination registers (``opndcoll_rfu_t::writeback``): each register
        whose bank is free this cycle takes it and is done; False while some register still
        waits for its bank (it is retried next cycle).  ``wb_left`` holds the banks of the
        registers still to write."""
        left = inst.wb_left
        if not left:
            return True
        keep = []
        wb = self.write_banks
        for bank in left:
            b = 1 << bank
            if wb & b:
                keep.append(bank)
            else:
                wb |= b
        self.write_banks = wb
        if keep:
            inst.wb_left = tuple(keep)
            return False
        inst.wb_left = ()
        return True

    def ex_freed(self, reg: RegisterSet, i: int) -> None:
        """Slot ``i`` of OC_EX register ``reg`` was freed (its unit took the instruction): the
        dispatch must look again if a ready CU waits for that slot."""
        if reg.ready_for[i if self.sub_core else 0]:
            self.dispatch_blocked = False

    def _now_ready(self, cu: CollectorUnit) -> None:
        self.n_ready += 1
        r = self.ready
        i = len(r)
        while i and r[i - 1].index > cu.index:
            i -= 1
        r.insert(i, cu)
        out: RegisterSet = cu.out  # type: ignore[assignment]
        oi = cu.oi
        if oi >= 0:
            out.ready_for[oi] = out.ready_for[oi] + 1
            if out.slots[oi] is None:
                self.dispatch_blocked = False
        else:
            out.ready_for[0] = out.ready_for[0] + 1
            if out.count < len(out.slots):
                self.dispatch_blocked = False

    def busy(self) -> bool:
        return self.n_busy > 0 or self.n_in > 0

    def step(self, first: bool) -> None:
        if self.n_busy:
            if self.n_ready and not self.dispatch_blocked:
                self._dispatch_ready()
            if self.n_queued:
                self._allocate_reads(first)
        if self.n_in and not self.alloc_blocked:
            self._allocate_cus()

    # -- stages -----------------------------------------------------------------------------
    def _dispatch_ready(self) -> None:
        """Each dispatch unit takes the next ready CU in round-robin order
        (``dispatch_unit_t::find_ready``: with the sub-core model the search starts at the
        next scheduler's CUs).  Only the ready CUs are looked at; a pass that moves nothing
        ends the search (later dispatch units would see the same state).

        A dispatch only fills output slots, so a CU that cannot go when a pass looks at it
        cannot go later in the step either.  With the sub-core model a CU's output slot is its
        scheduler's (so only the CUs of its own group compete for it, in CU order whatever
        the passes' order), and when every ready CU has a dispatch unit the step dispatches
        exactly the CUs that have room when an ascending scan reaches them; the passes' order
        only decides ``last_cu``: pass after pass takes one CU from the next group that has
        one (group by group from the one after ``last_cu``'s), so the last CU dispatched is
        the last one of the last group, in that order, among those that dispatch the most."""
        ready = self.ready
        if not ready:
            return
        if self.sub_core and self.n_dispatch >= len(ready):
            done: list[CollectorUnit] = []
            for cu in list(ready):
                out: RegisterSet = cu.out  # type: ignore[assignment]
                if out.slots[cu.oi] is None:
                    self._dispatch(cu)
                    done.append(cu)
            if not done:
                self.dispatch_blocked = True
                return
            if ready:
                self.dispatch_blocked = True   # (the next pass would find none)
            last = done[-1]
            if len(done) > 1:
                per_group: dict[int, list[CollectorUnit]] = {}
                for cu in done:
                    per_group.setdefault(cu.group, []).append(cu)
                most = max(len(v) for v in per_group.values())
                n_groups = len(self.cu_groups)
                g0 = self.last_cu // self.cus_per_sched + 1
                for k in range(n_groups - 1, -1, -1):
                    v = per_group.get((g0 + k) % n_groups)
                    if v is not None and len(v) == most:
                        last = v[-1]
                        break
            self.last_cu = last.index
            return
        cus = self.cus
        n = len(cus)
        sub = self.sub_core
        per = self.cus_per_sched
        for _ in range(self.n_dispatch):
            if not ready:
                return
            last_i = self.last_cu
            s0 = (last_i + (per - last_i % per if sub else 1)) % n
            # the first CU from s0 on (round robin) whose output slot has room, else the first
            # before s0 that has (``ready`` is in CU order)
            pick = first = None
            for cu in ready:
                out = cu.out  # type: ignore[assignment]
                i = cu.oi
                if (out.slots[i] is None) if i >= 0 else out.count < len(out.slots):
                    if cu.index >= s0:
                        pick = cu
                        break
                    if first is None:
                        first = cu
            if pick is None:
                if first is None:
                    self.dispatch_blocked = True
                    return
                pick = first
            self._dispatch(pick)
            self.last_cu = pick.index

    def _dispatch(self, cu: CollectorUnit) -> None:
        """Ready CU ``cu`` moves its instruction to its OC_EX register and is free again."""
        out: RegisterSet = cu.out  # type: ignore[assignment]
        slots = out.slots
        i = cu.oi
        if i >= 0:
            out.ready_for[i] = out.ready_for[i] - 1
        else:
            i = slots.index(None)
            out.ready_for[0] = out.ready_for[0] - 1
        slots[i] = cu.inst
        out.count += 1
        cu.inst = None
        cu.out = None
        cu.free = True
        g = cu.group
        n_free = self.n_free
        n_free[g] = n_free[g] + 1
        if n_free[g] == 1 and self.group_bits is not None:
            self.free_bits |= self.group_bits[g]
        self.n_busy -= 1
        self.n_ready -= 1
        self.ready.remove(cu)
        self.alloc_blocked = False       # a CU is free again

    def _allocate_reads(self, first: bool) -> None:
        """Grant this step's register reads (``opndcoll_rfu_t::allocate_reads`` with
        ``arbiter_t::allocate_reads``; C094).  GPGPU-Sim's arbiter offers only the *front* of each
        bank's read queue, and its wavefront allocator grants every offered bank whose port is not
        taken by a writeback (``m_allocated_bank[i].is_write()``: only the first step of a cycle
        sees the writes, ``process_banks`` frees the banks after each step).  Its
        one-operand-per-collector-unit test (``_outmatch[output] == -1``) is commented out
        ("allow OC to read multiple reg banks at the same cycle"), so each free bank serves its
        oldest request every step and a collector unit collects, in one step, every operand at
        the front of a distinct bank: a 3-operand FMA whose operands lie in 3 banks is read in
        one step, not three; reads of one bank still serialise (bank conflicts)."""
        blocked = self.write_banks if first else 0
        cus = self.cus
        queues = self.queues
        m = self.nonempty & ~blocked          # the banks with requests, in bank order
        while m:
            low = m & -m
            m ^= low
            q = queues[low.bit_length() - 1]
            if len(q) > 1:
                self.stats_bank_conflicts += 1
            c = q.pop(0)
            if not q:
                self.nonempty ^= low
            self.n_queued -= 1
            cu = cus[c]
            cu.need -= 1
            if not cu.need:
                self._now_ready(cu)

    def _allocate_cus(self) -> None:
        """Give each instruction waiting in an ID_OC register a free CU of its group, in port
        order (the ID_OC registers in ``in_regs`` order, their slots in order): the waiting
        instructions are the set bits of ``waiting`` (bit ``reg.pos0 + slot``)."""
        groups = self.cu_groups
        n_free = self.n_free
        sub = self.sub_core
        at = self.in_pos
        m = self.waiting & self.free_bits     # (an instruction whose group has no free CU waits)
        while m:
            low = m & -m
            m ^= low
            reg, si = at[low.bit_length() - 1]
            slots = reg.slots
            inst = slots[si]
            assert inst is not None
            g = inst.sched if sub else 0
            if not n_free[g]:
                continue
            for cu in groups[g]:
                if cu.free:
                    self.waiting ^= low
                    n_free[g] = n_free[g] - 1
                    if not n_free[g] and self.group_bits is not None:
                        gb = self.group_bits[g]
                        self.free_bits &= ~gb
                        m &= ~gb
                    slots[si] = None
                    reg.count -= 1
                    k = si if sub else 0
                    wm = reg.waiters[k]
                    if wm:                          # its waiters are candidates again
                        reg.waiters[k] = 0
                        if self.keep_woken:         # (one scheduler waits there)
                            sch = reg.wait_scheds[k][0]
                            sch.cand |= wm
                            sch.n_route -= popcount(wm)
                            reg.woken[k] = wm
                        else:
                            for sch in reg.wait_scheds[k]:
                                b = wm & sch.warp_bits
                                if b:
                                    sch.cand |= b
                                    sch.n_route -= popcount(b)
                    self.n_in -= 1
                    cu.free = False
                    cu.inst = inst
                    cu.out = out = self.out_of[inst.unit]
                    cu.oi = inst.sched % len(out.slots) if sub else -1
                    srcs = inst.src_banks
                    cu.need = len(srcs)
                    if srcs:
                        c = cu.index
                        queues = self.queues
                        ne = self.nonempty
                        for b in srcs:
                            queues[b].append(c)
                            ne |= 1 << b
                        self.nonempty = ne
                        self.n_queued += len(srcs)
                    else:
                        self._now_ready(cu)
                    self.n_busy += 1
                    break
        if self.n_in:
            self.alloc_blocked = True

    def dump(self) -> str:
        busy = [f"cu{c.index}:w{c.inst.slot}@{c.inst.pc} need={c.need}" for c in self.cus
                if not c.free and c.inst is not None]
        out = f"opcoll {busy}"
        if self.ready:
            out += f" ready {[f'cu{c.index}' for c in self.ready]}"
        queues = [f"bank{b}: {[f'cu{c}' for c in q]}" for b, q in enumerate(self.queues) if q]
        if queues:
            out += "\nregister read queues " + "; ".join(queues)
        if self.n_in:
            out += f"\n{self.n_in} instructions wait in ID_OC for a collector unit"
        return out
