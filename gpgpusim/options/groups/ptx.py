"""Options of GPGPU-Sim's PTX front end, functional-model opcode latencies and CDP costs (declarations, in option-dump order).

Each entry: GPGPU-Sim name, Python name, type, default (as the C++ default string), description
(text exactly as GPGPU-Sim 4.2 prints it in its option dump, so the dump compares equal).
Checklist: C195, C209.
"""

from __future__ import annotations

from ..registry import Opt

OPTIONS = [
    Opt("save_embedded_ptx", "save_embedded_ptx", "bool", "0",
        "saves ptx files embedded in binary as <n>.ptx"),
    Opt("keep", "keep", "bool", "0",
        "keep intermediate files created by GPGPU-Sim when interfacing with external programs"),
    Opt("gpgpu_ptx_save_converted_ptxplus", "ptx_save_converted_ptxplus", "bool", "0",
        "Saved converted ptxplus to a file"),
    Opt("gpgpu_occupancy_sm_number", "occupancy_sm_number", "int", "20",
        "The SM number to pass to ptxas when getting register usage for computing GPU occupancy. This parameter is required in the config."),
    Opt("ptx_opcode_latency_int", "ptx_opcode_latency_int", "IntList", "1,1,19,25,145,32",
        "Opcode latencies for integers <ADD,MAX,MUL,MAD,DIV,SHFL>Default 1,1,19,25,145,32"),
    Opt("ptx_opcode_latency_fp", "ptx_opcode_latency_fp", "IntList", "1,1,1,1,30",
        "Opcode latencies for single precision floating points <ADD,MAX,MUL,MAD,DIV>Default 1,1,1,1,30"),
    Opt("ptx_opcode_latency_dp", "ptx_opcode_latency_dp", "IntList", "8,8,8,8,335",
        "Opcode latencies for double precision floating points <ADD,MAX,MUL,MAD,DIV>Default 8,8,8,8,335"),
    Opt("ptx_opcode_latency_sfu", "ptx_opcode_latency_sfu", "uint_text", "8",
        "Opcode latencies for SFU instructionsDefault 8"),
    Opt("ptx_opcode_latency_tesnor", "ptx_opcode_latency_tesnor", "uint_text", "64",
        "Opcode latencies for Tensor instructionsDefault 64"),
    Opt("ptx_opcode_initiation_int", "ptx_opcode_initiation_int", "IntList", "1,1,4,4,32,4",
        "Opcode initiation intervals for integers <ADD,MAX,MUL,MAD,DIV,SHFL>Default 1,1,4,4,32,4"),
    Opt("ptx_opcode_initiation_fp", "ptx_opcode_initiation_fp", "IntList", "1,1,1,1,5",
        "Opcode initiation intervals for single precision floating points <ADD,MAX,MUL,MAD,DIV>Default 1,1,1,1,5"),
    Opt("ptx_opcode_initiation_dp", "ptx_opcode_initiation_dp", "IntList", "8,8,8,8,130",
        "Opcode initiation intervals for double precision floating points <ADD,MAX,MUL,MAD,DIV>Default 8,8,8,8,130"),
    Opt("ptx_opcode_initiation_sfu", "ptx_opcode_initiation_sfu", "uint_text", "8",
        "Opcode initiation intervals for sfu instructionsDefault 8"),
    Opt("ptx_opcode_initiation_tensor", "ptx_opcode_initiation_tensor", "uint_text", "64",
        "Opcode initiation intervals for tensor instructionsDefault 64"),
    Opt("cdp_latency", "cdp_latency", "IntList", "7200,8000,100,12000,1600",
        "CDP API latency <cudaStreamCreateWithFlags, cudaGetParameterBufferV2_init_perWarp, cudaGetParameterBufferV2_perKernel, cudaLaunchDeviceV2_init_perWarp, cudaLaunchDevicV2_perKernel>Default 7200,8000,100,12000,1600"),
]
