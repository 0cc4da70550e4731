"""Op class, unit and latency of each SASS opcode, for PTXPlus kernels in the timing model
(checklist C007, C009; issue 27 "Timing on SASS").

In PTXPlus mode one SASS instruction is one warp instruction: its main line (the one that
carries its memory access or control flow, see :mod:`gpgpusim.ptxplus.marks`) is issued, its
helper lines (operand gathers, constant reads, result scatters) run with it and take no issue
slot.  :func:`sass_timing` gives the main line the op class of its SASS opcode and that
class's latency and initiation interval.

The facts are Accel-Sim's trace mode: the op class of each opcode as its Turing and Ampere
opcode tables give it (``gpu-simulator/ISA_Def/turing_opcode.h``, ``ampere_opcode.h``), and
the ``<latency,initiation>`` of its tested configurations' ``trace.config``
(``-trace_opcode_latency_initiation_int/sp/dp/sfu/tensor``), chosen by the simulated GPU's
compute capability (:data:`TRACE_LATENCY`; a GPU without an Accel-Sim configuration takes the
nearest older one).  Accel-Sim times ALU_OP and INTP_OP with the int pair, SP_OP with sp, DP_OP
with dp, SFU_OP with sfu and the tensor unit with tensor; FP16 arithmetic (``H*2``) issues at
twice the FP32 rate (half the initiation interval).

Where this simulator has no counterpart of an Accel-Sim unit the class is mapped onto ours:
the branch unit's opcodes (SPECIALIZED_UNIT_1: ``BRA``, ``BSSY``, ``BSYNC``, ``CALL``, ``RET``,
``WARPSYNC``, ...) are BRANCH_OP and the uniform datapath's (SPECIALIZED_UNIT_4: ``UIADD3``,
``ULDC``, ``S2UR``, ``R2UR``, ...) INTP_OP, both with the int pair (the configurations give
both units the int latency); ``EXIT`` is ALU_OP.  Memory instructions (``LDG``, ``STS``,
``ATOM``, ``TEX``, ``SULD``, ...), barriers and fences keep the classification of their PTX
main line (``timing/static.py``): the LD/ST unit times them, with the width and space of that
line (``LDG.E.128`` is a ``ld.global.v4.b32``: 16 bytes a lane).  The main line of any opcode
whose PTX line is a memory instruction (an ``LDC`` indexed by a register) is timed that way too.
"""

from __future__ import annotations

from typing import Any

#: ``SASS opcode -> class``: "sp", "hp" (FP16: sp at twice the rate), "dp", "sfu", "int", "alu",
#: "branch", "tensor"; opcodes not listed (memory, barriers, fences) keep their PTX line's class
SASS_CLASS: dict[str, str] = {}
for _cls, _ops in (
    ("sp", "FADD FADD32I FCHK FFMA FFMA32I FMNMX FMUL FMUL32I FSEL FSET FSETP FSWZADD"),
    ("hp", "HADD2 HADD2_32I HFMA2 HFMA2_32I HMUL2 HMUL2_32I HSET2 HSETP2 HMNMX2"),
    ("sfu", "MUFU"),
    ("dp", "DADD DFMA DMUL DSETP"),
    ("tensor", "HMMA IMMA BMMA DMMA"),
    ("int", "BMSK BREV FLO IABS IADD IADD3 IADD32I IDP IDP4A IMAD IMNMX IMUL IMUL32I ISCADD "
            "ISCADD32I ISETP LEA LOP LOP3 LOP32I POPC SHF SHL SHR VABSDIFF VABSDIFF4 "
            # the uniform datapath (Accel-Sim's SPECIALIZED_UNIT_4)
            "R2UR REDUX S2UR UBMSK UBREV UCLEA UF2FP UFLO UIADD3 UIMAD UISETP ULDC ULEA ULOP ULOP3 "
            "ULOP32I UMOV UP2UR UPLOP3 UPOPC UPRMT UPSETP UR2UP USEL USGXT USHF USHL USHR VOTEU"),
    # (LDC is ALU_OP in Accel-Sim's tables; one indexed by a register is a load of its PTX line)
    ("alu", "LDC F2F F2FP F2I I2F I2I I2IP I2FP F2IP FRND MOV MOV32I MOVM PRMT SEL SGXT SHFL PLOP3 "
            "PSETP P2R R2P MATCH QSPC CCTL CCTLL ERRBAR CCTLT LDGDEPBAR B2R CS2R CSMTEST DEPBAR "
            "GETLMEMBASE LEPC NOP PMTRIG R2B S2R SETCTAID SETLMEMBASE VOTE VOTE_VTG EXIT"),
    # Accel-Sim's branch unit (SPECIALIZED_UNIT_1)
    ("branch", "BMOV BPT BRA BREAK BRX BRXU BSSY BSYNC CALL JMP JMX JMXU NANOSLEEP RET RPCMOV RTT "
               "WARPSYNC YIELD"),
):
    for _op in _ops.split():
        SASS_CLASS[_op] = _cls

#: ``compute capability -> {pair: (latency, initiation)}`` from Accel-Sim's tested
#: configurations: 70 SM7_GV100 / SM7_TITANV, 75 SM75_RTX2060, 86 SM86_RTX3070
TRACE_LATENCY: dict[int, dict[str, tuple[int, int]]] = {
    70: {"int": (2, 2), "sp": (2, 2), "dp": (8, 4), "sfu": (20, 8), "tensor": (8, 4)},
    75: {"int": (2, 2), "sp": (2, 2), "dp": (64, 64), "sfu": (21, 8), "tensor": (16, 16)},
    86: {"int": (4, 2), "sp": (4, 2), "dp": (8, 4), "sfu": (20, 8), "tensor": (32, 32)},
}

#: the pair (of :data:`TRACE_LATENCY`) and the ``timing.static.OpClass`` name of each class
_PAIR_CLASS = {"sp": ("sp", "SP_OP"), "hp": ("sp", "SP_OP"), "dp": ("dp", "DP_OP"), "sfu": ("sfu", "SFU_OP"),
               "tensor": ("tensor", "TENSOR_CORE_OP"), "int": ("int", "INTP_OP"), "alu": ("int", "ALU_OP"),
               "branch": ("int", "BRANCH_OP")}


def trace_latencies(config: Any) -> dict[str, tuple[int, int]]:
    """The latency pairs for ``config``'s compute capability (the nearest older one listed,
    else the oldest)."""
    cc = 0
    for name in ("compute_capability_major", "gpgpu_compute_capability_major"):
        v = config.get(name) if config is not None else None
        if v is not None:
            minor = 0
            for mname in ("compute_capability_minor", "gpgpu_compute_capability_minor"):
                m = config.get(mname)
                if m is not None:
                    minor = int(m)
                    break
            cc = int(v) * 10 + minor
            break
    keys = sorted(TRACE_LATENCY)
    fit = [k for k in keys if k <= cc]
    return TRACE_LATENCY[fit[-1] if fit else keys[0]]


def sass_timing(opcode: str, pairs: dict[str, tuple[int, int]]) -> tuple[str, int, int] | None:
    """``(OpClass name, latency, initiation)`` of SASS ``opcode`` (no modifiers), or None when the
    opcode keeps its PTX main line's classification (memory, barriers, fences, unknown)."""
    cls = SASS_CLASS.get(opcode)
    if cls is None:
        return None
    pair, op_class = _PAIR_CLASS[cls]
    lat, ini = pairs[pair]
    if cls == "hp":
        ini = max(1, ini // 2)
    return op_class, lat, ini
