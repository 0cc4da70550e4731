"""``gpgpusim configs``: one line per shipped GPU config.

Bandwidth follows GPGPU-Sim's DRAM model: channels x chips per channel x bus bytes per chip x
DRAM command clock x data/command frequency ratio (``-dram_data_command_freq_ratio``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .config import ConfigError, load_config, shipped_gpus
from .groups.functional import EXTENSIONS
from .registry import registry

#: memory technology of each shipped model (facts about the modelled boards; not an option)
DRAM_TYPE = {
    "SM7_QV100": "HBM2", "SM75_RTX2060": "GDDR6", "SM86_RTX3070": "GDDR6", "SM6_TITANX": "GDDR5X",
    "SM2_GTX480": "GDDR5", "TeslaC2050": "GDDR5", "QuadroFX5800": "GDDR3",
}


def _kib(n: int) -> str:
    return f"{n // 1024} KB" if n < 1024 * 1024 else f"{n / (1024 * 1024):g} MB"


def summarize(gpu: str) -> dict[str, Any]:
    """The summary figures of one shipped GPU config."""
    cfg = load_config(gpu=gpu, env=False)
    clk = cfg["gpgpu_clock_domains"]
    dl1 = cfg["gpgpu_cache:dl1"]
    l1_bytes = dl1.size_bytes if dl1 is not None else 0
    unified = int(cfg["gpgpu_unified_l1d_size"]) * 1024
    bw = (int(cfg["gpgpu_n_mem"]) * int(cfg["gpgpu_n_mem_per_ctrlr"]) * int(cfg["gpgpu_dram_buswidth"])
          * clk.dram_mhz * 1e6 * int(cfg["dram_data_command_freq_ratio"]))
    return {
        "gpu": gpu, "sms": cfg.num_cores, "warps_per_sm": cfg["gpgpu_shader_core_pipeline"].max_warps,
        "core_mhz": clk.core_mhz, "icnt_mhz": clk.icnt_mhz, "l2_mhz": clk.l2_mhz, "dram_mhz": clk.dram_mhz,
        "l1d_bytes": l1_bytes, "unified_l1_bytes": unified, "l2_bytes": cfg.l2_size_bytes, "dram_type": DRAM_TYPE.get(gpu, "DRAM"),
        "dram_gbps": bw / 1e9, "cc": f"{cfg['gpgpu_compute_capability_major']}.{cfg['gpgpu_compute_capability_minor']}",
    }


def _l1(s: dict[str, Any]) -> str:
    if s["unified_l1_bytes"]:
        return f"L1D+smem {_kib(int(s['unified_l1_bytes']))}/SM"
    if not s["l1d_bytes"]:
        return "no L1D"
    return f"L1D {_kib(int(s['l1d_bytes']))}/SM"


def format_line(s: dict[str, Any]) -> str:
    return (f"{s['gpu']:<14} {s['sms']:>3} SMs x {s['warps_per_sm']:>2} warps, core {s['core_mhz']:g} MHz, "
            f"{_l1(s)}, L2 {_kib(int(s['l2_bytes']))}, "
            f"{s['dram_type']} {s['dram_gbps']:.0f} GB/s @ {s['dram_mhz']:g} MHz")


def _load(name: str) -> Any:
    """A shipped GPU by name, or a config file by path."""
    import os

    if os.path.sep in name or name.endswith(".config"):
        return load_config(name, env=False)
    return load_config(gpu=name, env=False)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gpgpusim configs", description="List the shipped GPU configs.")
    ap.add_argument("gpu", nargs="?", help="print this GPU's full option dump instead")
    ap.add_argument("--diff", nargs=2, metavar=("A", "B"),
                    help="options whose values differ between two GPUs or config files")
    ap.add_argument("--describe", metavar="TEXT",
                    help="list the options whose name or description contains TEXT, by component")
    args = ap.parse_args(argv)
    try:
        if args.diff:
            a, b = (_load(x) for x in args.diff)
            da, db = a.to_dict(), b.to_dict()
            for name in da:
                if da[name] != db.get(name):
                    print(f"-{name:<40} {da[name]:>24} | {db.get(name, '')}")
            return 0
        if args.describe:

            needle = args.describe.lower()
            groups: dict[str, list[Any]] = dict(registry().groups)
            groups["gpgpusim (not in GPGPU-Sim)"] = list(EXTENSIONS)
            for group, opts in groups.items():
                hits = [o for o in opts if needle in o.name.lower() or needle in o.desc.lower()]
                if hits:
                    print(f"[{group}]")
                    for o in hits:
                        print(f"  -{o.name} ({o.kind}, default {o.default!r}): {o.desc.strip()}")
            return 0
    except ConfigError as exc:
        print(f"gpgpusim configs: {exc}", file=sys.stderr)
        return 2
    if args.gpu:
        try:
            cfg = load_config(gpu=args.gpu, env=False)
        except ConfigError as exc:
            print(f"gpgpusim configs: {exc}", file=sys.stderr)
            return 2
        print("\n".join(cfg.dump_lines()))
        return 0
    for gpu in shipped_gpus():
        line = format_line(summarize(gpu))
        print(line + ("   (default)" if gpu == "SM7_QV100" else ""))
    return 0
