"""Options of GPGPU-Sim's interconnection network (declarations, in option-dump order).

Each entry: GPGPU-Sim name, Python name, type, default (as the C++ default string), description
(text exactly as GPGPU-Sim 4.2 prints it in its option dump, so the dump compares equal).
Checklist: C195, C209.
"""

from __future__ import annotations

from ..registry import Opt

OPTIONS = [
    Opt("network_mode", "network_mode", "int", "1",
        "Interconnection network mode"),
    Opt("inter_config_file", "inter_config_file", "str", "mesh",
        "Interconnection network config file"),
    Opt("icnt_in_buffer_limit", "icnt_in_buffer_limit", "uint", "64",
        "in_buffer_limit"),
    Opt("icnt_out_buffer_limit", "icnt_out_buffer_limit", "uint", "64",
        "out_buffer_limit"),
    Opt("icnt_subnets", "icnt_subnets", "uint", "2",
        "subnets"),
    Opt("icnt_arbiter_algo", "icnt_arbiter_algo", "uint", "1",
        "arbiter_algo"),
    Opt("icnt_verbose", "icnt_verbose", "uint", "0",
        "inct_verbose"),
    Opt("icnt_grant_cycles", "icnt_grant_cycles", "uint", "1",
        "grant_cycles"),
]
