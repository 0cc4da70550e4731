"""``python -m gpgpusim.ptx FILE.ptx``: parse a PTX file and print what the simulator sees.

For each function: kind, parameters with their buffer offsets, instruction count, the
GPGPU-Sim-style reconvergence report (C219) and, for kernels, the PTX-derived resources.
``--blocks`` / ``--pdom`` add the PTX_SIM_DEBUG>=50 basic-block and post-dominator dumps.
A malformed file prints the PtxError message and exits with status 1.
"""

from __future__ import annotations

import argparse
import sys
import time

from gpgpusim.errors import PtxError
from gpgpusim.ptx import cfg, parse_ptx, resources


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpgpusim.ptx", description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--blocks", action="store_true", help="print basic blocks")
    ap.add_argument("--pdom", action="store_true", help="print (immediate) post-dominators")
    args = ap.parse_args(argv)
    with open(args.file, encoding="utf-8") as fh:
        text = fh.read()
    t0 = time.perf_counter()
    try:
        module = parse_ptx(text, args.file)
    except PtxError as exc:
        print(exc, file=sys.stderr)
        return 1
    dt = time.perf_counter() - t0
    print(f"{args.file}: PTX {module.version[0]}.{module.version[1]} {','.join(module.target)}, "
          f"{len(module.functions)} functions, {len(module.variables)} variables, "
          f"parsed in {dt * 1000:.1f} ms")
    bases = cfg.pc_bases(module)
    for name, fn in module.functions.items():
        kind = ".entry" if fn.is_entry else (".extern .func" if fn.extern else ".func")
        print(f"\n{kind} {name}: {len(fn.instructions)} instructions, {len(fn.regs)} registers, "
              f"{len(fn.basic_blocks)} basic blocks")
        for p in fn.params:
            print(f"    param {p.name}: .{p.type} x{p.count} @ offset {p.offset}")
        if fn.directives:
            print("    directives: " + ", ".join(f".{k} {', '.join(map(str, v))}".rstrip()
                                                for k, v in fn.directives.items()))
        if fn.is_entry:
            print(f"    resources: {resources.analyze(fn, module)}")
        if not fn.instructions:
            continue
        for line in cfg.reconvergence_report(fn, args.file, bases[name]):
            print("    " + line)
        if args.blocks:
            cfg.print_basic_blocks(fn)
        if args.pdom:
            cfg.print_postdominators(fn)
    return 0


if __name__ == "__main__":
    sys.exit(main())
