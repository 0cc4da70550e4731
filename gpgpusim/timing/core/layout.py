"""The shape of one SIMT core, built once from its configuration: the scheduler units and the
warps they supervise, the pipeline registers (``-gpgpu_pipeline_widths``), the execution
units and their depths, and where each op class issues (``scheduler_unit::cycle``'s routing,
which depends only on the class and the config)."""

from __future__ import annotations

from typing import Any

from . import units as U
from .units import PipelinedUnit, RegisterSet, ResultRegister
from .warp import SchedulerUnit


def make_scheds(n_sched: int, max_warps: int, policy: str) -> list[SchedulerUnit]:
    """The core's scheduler units: warp slot ``w`` is supervised by scheduler ``w mod n``."""
    scheds = [SchedulerUnit(i, policy) for i in range(n_sched)]
    for w in range(max_warps):
        scheds[w % n_sched].warps.append(w)
        scheds[w % n_sched].warp_bits |= 1 << w
    return scheds


def pipeline_registers(g: Any) -> tuple[dict[int, RegisterSet], dict[int, RegisterSet], ResultRegister]:
    """The ID_OC and OC_EX registers per unit kind and the EX_WB register, sized by
    ``-gpgpu_pipeline_widths``."""
    widths = list(g("gpgpu_pipeline_widths").values) + [1] * 13
    # ID_OC_SP, ID_OC_DP, ID_OC_INT, ID_OC_SFU, ID_OC_MEM, OC_EX_SP, OC_EX_DP, OC_EX_INT,
    # OC_EX_SFU, OC_EX_MEM, EX_WB, ID_OC_TENSOR_CORE, OC_EX_TENSOR_CORE
    idx_id = {U.SP: 0, U.DP: 1, U.INT: 2, U.SFU: 3, U.MEM: 4, U.TENSOR: 11}
    idx_ex = {U.SP: 5, U.DP: 6, U.INT: 7, U.SFU: 8, U.MEM: 9, U.TENSOR: 12}
    id_oc = {k: RegisterSet(widths[i], f"ID_OC_{U.UNIT_NAMES[k]}") for k, i in idx_id.items()}
    oc_ex = {k: RegisterSet(widths[i], f"OC_EX_{U.UNIT_NAMES[k]}") for k, i in idx_ex.items()}
    return id_oc, oc_ex, ResultRegister(widths[10], "EX_WB")


def make_units(n_units: dict[int, int], depth: dict[int, int], ex_wb: ResultRegister) -> list[PipelinedUnit]:
    """The execution units, in the order SP, DP, SFU, INT, TENSOR (``PipelinedUnit.order``)."""
    units: list[PipelinedUnit] = []
    for kind in (U.SP, U.DP, U.SFU, U.INT, U.TENSOR):
        for i in range(n_units[kind]):
            units.append(PipelinedUnit(kind, i, depth[kind], ex_wb))
    for i, u in enumerate(units):
        u.order = i
    return units


def unit_depths(cfg: Any) -> dict[int, int]:
    """The pipeline depth of each unit kind: its longest ``-ptx_opcode_latency_*``."""
    g = cfg.get

    def mx(name: str, default: int) -> int:
        try:
            return max(g(name).values)
        except (AttributeError, ValueError, KeyError):
            return default
    return {U.SP: max(mx("ptx_opcode_latency_fp", 4), mx("ptx_opcode_latency_int", 4)),
            U.INT: mx("ptx_opcode_latency_int", 4), U.DP: mx("ptx_opcode_latency_dp", 8),
            U.SFU: max(mx("ptx_opcode_latency_sfu", 8), mx("ptx_opcode_latency_dp", 8)),
            U.TENSOR: mx("ptx_opcode_latency_tesnor", 64)}


def route_entry(n_units: dict[int, int], id_oc: dict[int, RegisterSet], sub_core: bool, cls: int,
                sid: int) -> tuple[int, RegisterSet, int]:
    """Where an instruction of op class ``cls`` issued by scheduler ``sid`` goes: (unit, its
    ID_OC register, this scheduler's slot in it with the sub-core model or -1).  Resolved once;
    only the room in the target's ID_OC register is checked at issue (``issue.room``).  Unit
    -1: the class can never issue (an SP/INT op on a core without SP units)."""
    unit = cls
    if unit in (U.SP, U.INT):
        if n_units[U.INT] > 0 and cls == U.INT:
            unit = U.INT
        elif n_units[U.SP] > 0:
            unit = U.SP
        else:
            return -1, id_oc[U.SP], -1
    elif unit != U.MEM:
        if unit == U.DP and n_units[U.DP] == 0:
            unit = U.SFU
        if n_units.get(unit, 0) == 0 and unit != U.SFU:
            unit = U.SP
    reg = id_oc[unit]
    return unit, reg, (sid % len(reg.slots)) if sub_core else -1


def wire_routes(scheds: list[SchedulerUnit], n_units: dict[int, int], id_oc: dict[int, RegisterSet],
                sub_core: bool) -> None:
    """Each scheduler's route per op class (:func:`route_entry`), and each ID_OC slot's list of
    the schedulers that issue into it (woken when the slot frees)."""
    for sch in scheds:
        sch.route = [route_entry(n_units, id_oc, sub_core, k, sch.sid) for k in range(6)]
        for unit, reg, idx in sch.route:
            ws = reg.wait_scheds[max(idx, 0)]
            if unit >= 0 and sch not in ws:
                ws.append(sch)
