"""Where the compiled performance model still runs generic Python operations.

mypyc compiles an operation on a value it knows the type of (an ``int`` local, an attribute of a
compiled class, a ``list[Warp]`` element) to direct C; on a value typed ``Any`` (or inferred from
one) it falls back to the C API: ``PyObject_GetAttr`` for ``x.attr``, ``PyNumber_And`` for
``a & b``, ``PyObject_VectorcallMethod`` for ``x.m()`` (also for methods of builtins mypyc has no
primitive for, such as ``int.bit_count`` or ``set.isdisjoint``), ``PyObject_IsTrue`` for ``if x``.
This script has mypyc write the model's C (``native/__init__.py``'s module list and options, no C
compiler run, about a minute) and counts those calls in each compiled function's body::

    python3 bench/generic_ops.py                       # every function with one, most first
    python3 bench/generic_ops.py ShaderCore____fetch Dram___cycle   # functions whose C name contains these
    python3 bench/generic_ops.py --reuse ...           # read the C written by the last run

A count says where a function leaves direct C, not how often that runs: weigh it with a
profile (``perf record --call-graph dwarf`` or ``valgrind --tool=callgrind`` of ``bench/mem_speed.py``
or ``bench/timing_speed.py``; see ``docs/PERFORMANCE.md``).  The C stays in ``bench/build/mypyc-c/``.
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import re
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "build" / "mypyc-c"

#: C API calls mypyc emits for operations on values it does not know the type of
GENERIC = re.compile(r"\b(PyObject_GetAttr|CPyObject_GetAttr|PyObject_SetAttr|PyObject_GetItem|"
                     r"PyObject_SetItem|PyNumber_\w+|PyObject_Vectorcall\w*|PyObject_RichCompare\w*|"
                     r"PyObject_IsTrue|CPyObject_Size|PyObject_Call\w*|PyObject_GetIter|PyIter_Next|"
                     r"PySequence_\w+)\(")
FUNCTION = re.compile(r"^\w[^\n;]*\bCPyDef_(\w+)\([^)]*\)\s*\{", re.M)


def write_c() -> None:
    sys.path.insert(0, str(REPO))
    from mypyc.build import mypycify

    from gpgpusim import native

    shutil.rmtree(OUT, ignore_errors=True)
    cwd = os.getcwd()
    os.chdir(REPO)          # mypyc names modules by their path from the current folder
    try:
        mypycify(["--ignore-missing-imports", "--follow-imports=silent",
                  *[os.path.join("gpgpusim", rel) for rel in native.MODULES]],
                 opt_level="3", debug_level="0", multi_file=True, group_name=native.GROUP,
                 target_dir=str(OUT))
    finally:
        os.chdir(cwd)


def count() -> dict[str, collections.Counter[str]]:
    """Generic calls per compiled function (mypyc's C name without ``CPyDef_``)."""
    out: dict[str, collections.Counter[str]] = {}
    for path in glob.glob(str(OUT / "**" / "*.c"), recursive=True):
        src = Path(path).read_text()
        for m in FUNCTION.finditer(src):
            depth, i = 1, m.end()
            while depth:                    # the body: to the matching brace
                depth += {"{": 1, "}": -1}.get(src[i], 0)
                i += 1
            out[m.group(1)] = collections.Counter(GENERIC.findall(src[m.end():i]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="only functions whose C name contains one of these")
    ap.add_argument("--reuse", action="store_true", help="read the C of the last run")
    args = ap.parse_args(argv)
    if not args.reuse or not OUT.exists():
        write_c()
    rows = sorted(count().items(), key=lambda kv: -sum(kv[1].values()))
    for name, calls in rows:
        if args.names and not any(n in name for n in args.names):
            continue
        total = sum(calls.values())
        if total:
            print(f"{total:4d} {name}: " + ", ".join(f"{k} {v}" for k, v in calls.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
