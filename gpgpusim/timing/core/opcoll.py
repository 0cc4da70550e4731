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
* the read arbiter grants at most one read per bank and at most one operand per CU per step
  (GPGPU-Sim's ``arbiter_t::allocate_reads`` matching); banks written back this cycle are not
  readable in the first step.  GPGPU-Sim's matching starts at a rotating CU priority; here each
  bank serves its oldest request whose CU got nothing yet this step (documented difference: the
  tie order of simultaneous conflicting requests may differ);
* a CU whose operands are all read dispatches to its OC_EX register when that has room
  (``dispatch_unit_t::find_ready``, round robin over CUs).

Register numbers are the functional engine's register slots (declaration order), which plays
the role of GPGPU-Sim's ``reg_num``; bank conflicts depend on that numbering.
"""

from __future__ import annotations

from .units import RegisterSet, WarpInst


class CollectorUnit:
    __slots__ = ("index", "sched", "inst", "out", "need", "free")

    def __init__(self, index: int, sched: int) -> None:
        self.index = index
        self.sched = sched
        self.inst: WarpInst | None = None
        self.out: RegisterSet | None = None
        self.need = 0
        self.free = True


class OperandCollector:
    __slots__ = ("n_in", "n_ready", "n_queued", "cus", "n_banks", "banks_per_sched", "sub_core", "use_wid", "queues", "in_regs",
                 "out_of", "last_cu", "write_banks", "n_busy", "stats_bank_conflicts", "n_sched",
                 "cus_per_sched", "n_dispatch")

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
        self.queues: list[list[tuple[int, int]]] = [[] for _ in range(self.n_banks)]  # (cu, seq)
        self.in_regs = in_regs           # ID_OC registers, in GPGPU-Sim's port order
        self.out_of = out_of             # unit kind -> OC_EX register
        self.last_cu = n_cu - 1
        self.write_banks = 0             # bitmask of banks taken by writeback this cycle
        self.n_busy = 0
        self.n_ready = 0       # CUs with every operand read, waiting to dispatch
        self.n_in = 0          # instructions waiting in the ID_OC registers (the core counts)
        self.n_queued = 0      # register reads waiting in the bank queues
        self.stats_bank_conflicts = 0
        self.n_dispatch = max(1, n_dispatch)

    def bank_of(self, reg: int, wid: int, sched: int) -> int:
        b = reg + wid if self.use_wid else reg
        if self.sub_core:
            return b % self.banks_per_sched + sched * self.banks_per_sched
        return b % self.n_banks

    def writeback_banks(self, inst: WarpInst) -> bool:
        """Write ``inst``'s destination registers (``opndcoll_rfu_t::writeback``): each register
        whose bank is free this cycle takes it and is done; False while some register still
        waits for its bank (it is retried next cycle)."""
        left = inst.wb_left
        if not left:
            return True
        keep = []
        wb = self.write_banks
        for r in left:
            b = 1 << self.bank_of(r, inst.slot, inst.sched)
            if wb & b:
                keep.append(r)
            else:
                wb |= b
        self.write_banks = wb
        inst.wb_left = tuple(keep)
        return not keep

    def busy(self) -> bool:
        return self.n_busy > 0 or self.n_in > 0

    def step(self, first: bool) -> None:
        if self.n_busy:
            if self.n_ready:
                self._dispatch_ready()
            if self.n_queued:
                self._allocate_reads(first)
        if self.n_in:
            self._allocate_cus()

    def end_cycle(self) -> None:
        self.write_banks = 0

    # -- stages -----------------------------------------------------------------------------
    def _dispatch_ready(self) -> None:
        """Each dispatch unit takes the next ready CU in round-robin order
        (``dispatch_unit_t::find_ready``: with the sub-core model the search starts at the
        next scheduler's CUs)."""
        cus = self.cus
        n = len(cus)
        sub = self.sub_core
        per = self.cus_per_sched
        for _ in range(self.n_dispatch):
            if not self.n_ready:
                return
            last = self.last_cu
            start = last + (per - last % per if sub else 1)
            for k in range(n):
                c = (start + k) % n
                cu = cus[c]
                if cu.free or cu.need:
                    continue
                out = cu.out
                inst = cu.inst
                assert out is not None and inst is not None
                if not out.has_free(sub, cu.sched):
                    continue
                out.move_in(inst, sub, cu.sched)
                cu.inst = None
                cu.out = None
                cu.free = True
                self.n_busy -= 1
                self.n_ready -= 1
                self.last_cu = c
                break
            else:
                return

    def _allocate_reads(self, first: bool) -> None:
        served_cu = 0
        blocked = self.write_banks if first else 0
        cus = self.cus
        for b, q in enumerate(self.queues):
            if not q or (blocked >> b) & 1:
                continue
            if len(q) > 1:
                self.stats_bank_conflicts += 1
            for i, (c, _seq) in enumerate(q):
                if not (served_cu >> c) & 1:
                    served_cu |= 1 << c
                    del q[i]
                    self.n_queued -= 1
                    cu = cus[c]
                    cu.need -= 1
                    if not cu.need:
                        self.n_ready += 1
                    break

    def _allocate_cus(self) -> None:
        for reg in self.in_regs:
            if not reg.count:
                continue
            for si, inst in enumerate(reg.slots):
                if inst is None:
                    continue
                if self.sub_core:
                    lo = inst.sched * self.cus_per_sched
                    rng = range(lo, lo + self.cus_per_sched)
                else:
                    rng = range(len(self.cus))
                for c in rng:
                    cu = self.cus[c]
                    if cu.free:
                        reg.take(si)
                        self.n_in -= 1
                        cu.free = False
                        cu.inst = inst
                        cu.out = self.out_of[inst.unit]
                        srcs = inst.oc_src
                        cu.need = len(srcs)
                        for r in srcs:
                            self.queues[self.bank_of(r, inst.slot, inst.sched)].append((c, inst.uid))
                        self.n_queued += len(srcs)
                        if not srcs:
                            self.n_ready += 1
                        self.n_busy += 1
                        break

    def dump(self) -> str:
        busy = [f"cu{c.index}:w{c.inst.slot}@{c.inst.pc} need={c.need}" for c in self.cus
                if not c.free and c.inst is not None]
        return f"opcoll {busy}"
