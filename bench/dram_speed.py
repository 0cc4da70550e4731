"""Speed of one DRAM channel (``gpgpusim.timing.memory.dram.Dram``) on a synthetic request stream.

A channel of a shipped config's DRAM (SM86_RTX3070: single command bus, 16 banks in 4 groups;
SM7_QV100: dual bus) is kept busy with up to ``--inflight`` requests: a 32-byte read (or, with
probability ``--writes``, a write) to a random bank and one of ``--rows`` rows is pushed every
third DRAM cycle while fewer are in flight, and replies are drained every cycle.  Prints the CPU
seconds of the cycling loop and a digest of the channel's statistics, so two checkouts can be
compared for speed and exactness without the rest of the simulator:

    PYTHONPATH=A python3 bench/dram_speed.py
    PYTHONPATH=B python3 bench/dram_speed.py
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time

import numpy as np

from gpgpusim.options import load_config
from gpgpusim.timing.mem_fetch import MemFetch
from gpgpusim.timing.memory.dram import Dram
from gpgpusim.timing.memory.dram_parts import DramTimingParams


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="SM86_RTX3070")
    ap.add_argument("--cycles", type=int, default=300_000, help="DRAM command cycles")
    ap.add_argument("--inflight", type=int, default=48, help="requests kept in the channel")
    ap.add_argument("--rows", type=int, default=24, help="rows per bank the requests spread over")
    ap.add_argument("--writes", type=float, default=0.05, help="fraction of writes")
    args = ap.parse_args(argv)
    p = DramTimingParams(load_config(None, gpu=args.config, env=False))
    d = Dram(0, p)
    rng = np.random.default_rng(1)
    n = args.cycles // 3 + 1
    banks = rng.integers(0, p.nbk, n).tolist()
    rows = rng.integers(0, args.rows, n).tolist()
    writes = (rng.random(n) < args.writes).tolist()
    i = 0
    t0 = time.process_time()
    for t in range(args.cycles):
        if t % 3 == 0 and d.n_in_flight < args.inflight:
            f = MemFetch(0, 32, writes[i], "GLOBAL_ACC_W" if writes[i] else "GLOBAL_ACC_R")
            f.bank, f.row, f.sub_partition = banks[i], rows[i], 0
            d.push(f, t)
            i += 1
        d.cycle(t)
        while d.return_pop() is not None:
            pass
    cpu = time.process_time() - t0
    stats = d.channel_stats()
    digest = hashlib.sha256(json.dumps(stats, sort_keys=True).encode()).hexdigest()[:16]
    print(f"DRAM channel ({args.config}, {'dual' if p.dual_bus else 'single'} bus): {args.cycles} cycles, "
          f"{i} requests, {stats['n_act']} activates, {cpu:.2f} s CPU, stats {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
