"""RSS a cache line costs once filled: the ``Line`` object and its share of its cache's tag
index and victim heaps (``gpgpusim/timing/cache/data.py``).  Builds caches of the L1D
geometry (SM7_QV100, 4 sets x 256 ways), fills every line with a forced fill (as
``-gpgpu_perf_sim_memcpy`` does) and prints the growth of the process's RSS per line.

    python bench/line_memory.py                 # 60 caches, 61,440 lines
    python bench/line_memory.py --caches 120
"""

from __future__ import annotations

import argparse
import gc
import sys

from memory_bench import l1d


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--caches", type=int, default=60)
    a = ap.parse_args()
    caches = [l1d() for _ in range(a.caches)]
    gc.collect()
    r0 = rss()
    for c in caches:
        for i in range(c.nset * c.assoc):
            c.force_tag_access(0x10000000 + i * c.line_bytes, 1, 0xF)
    gc.collect()
    n = sum(sum(1 for line in c.lines if line is not None) for c in caches)
    line = next(x for x in caches[0].lines if x is not None)
    print(f"{n} lines in {a.caches} caches: {(rss() - r0) / n:.1f} bytes of RSS a line "
          f"(the line object {sys.getsizeof(line)} bytes)")


if __name__ == "__main__":
    main()
