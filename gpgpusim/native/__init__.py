"""The performance model compiled by mypyc: the same source, about twice as fast.

The timing package's modules (the SM core, caches, memory side, feed; not :mod:`.gpu`, whose
class derives from the runtime's, nor :mod:`.trace`, which patches instances) are plain typed
Python.  mypyc (part of mypy) compiles them, unchanged, into C extension modules whose classes
keep their attributes in C structs and call their methods directly, which removes most of
CPython's per-object work on the hot path (``docs/PERFORMANCE.md``).  Nothing
about the model changes: cycles and every statistic are identical (``tests/apps/test_native_model.py``
compares whole runs).

Build (done by ``pip install``; ~4-6 minutes)::

    gpgpusim native build       # -> gpgpusim/_native/ (profile-guided; --no-pgo: one pass)
    gpgpusim native status      # built? fresh? in use?

The compiled modules live apart from the source, in ``gpgpusim/_native/`` with a manifest of the
SHA-256 of each source file they were built from.  :func:`activate` (run when
``gpgpusim.timing`` is first imported) puts a finder in front of the import system that serves
those modules from there -- only when every digest still matches, so an edited source file is
never shadowed by an old build: the model then runs as pure Python and one line says so.

``GPGPUSIM_NATIVE=0`` forces pure Python (profiling with py-spy, which cannot see into compiled
code).  Tracing and pipeline dumps (:mod:`.trace`) wrap the instances of the model's classes,
which compiled classes do not allow: :func:`use_pure_for` switches a process to pure Python when
its configuration asks for them, before the GPU is built.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from typing import Any

PKG_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # .../gpgpusim
#: where the build lives; ``GPGPUSIM_NATIVE_DIR`` points a process at another one (the
#: profile-guided build's training run loads its instrumented build from there)
NATIVE_DIR = os.environ.get("GPGPUSIM_NATIVE_DIR") or os.path.join(PKG_ROOT, "_native")
MANIFEST = "manifest.json"
GROUP = "gpgpusim_timing"          # mypyc's shared library: gpgpusim_timing__mypyc.<abi>.so
GROUP_MODULE = GROUP + "__mypyc"

# The compiled modules, relative to the package root.  Left out: gpu.py (TimingGpu derives from
# the runtime's interpreted Gpu class) and its glue off the cycle path (kernel_run.py,
# limits.py, projection.py), trace.py (wraps instance methods).
MODULES = (
    "timing/clock.py", "timing/cluster.py", "timing/feed.py", "timing/kernel_trace.py", "timing/kit.py",
    "timing/live.py",
    "timing/live_check.py", "timing/mem_fetch.py", "timing/occupancy.py", "timing/recorder.py", "timing/sampling.py",
    "timing/static.py",
    "timing/core/coalesce.py", "timing/core/dump.py", "timing/core/fetch.py", "timing/core/icache.py",
    "timing/core/issue.py", "timing/core/layout.py", "timing/core/ldst.py", "timing/core/opcoll.py",
    "timing/core/pipe.py", "timing/core/shader.py", "timing/core/stats.py",
    "timing/core/table.py", "timing/core/units.py", "timing/core/warp.py",
    "timing/memory/__init__.py", "timing/memory/system.py", "timing/memory/addrdec.py", "timing/memory/dram.py",
    "timing/memory/dram_parts.py", "timing/memory/dram_report.py",
    "timing/memory/icnt.py", "timing/memory/partition.py",
) + tuple(sorted(  # every module of these packages (a new policy or scheduler is a new file there)
    f"{pkg}/{f}" for pkg in ("timing/cache", "timing/core/schedulers", "timing/memory/dram_sched")
    for f in os.listdir(os.path.join(PKG_ROOT, *pkg.split("/"))) if f.endswith(".py")))

_finder: _NativeFinder | None = None
_note: str = ""          # why the compiled modules are not in use ("" when they are)
_announced = False


def module_name(rel: str) -> str:
    """``timing/memory/__init__.py`` -> ``gpgpusim.timing.memory``."""
    parts = ["gpgpusim", *rel[:-3].split("/")]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class _NativeFinder(importlib.abc.MetaPathFinder):
    """Serves the compiled modules of a fresh build from ``NATIVE_DIR``."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files          # module name -> extension file

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        so = self.files.get(fullname)
        if so is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, so)
        pkg = None
        if os.path.basename(so).startswith("__init__."):       # a package: its submodules' folder
            pkg = [os.path.join(PKG_ROOT, *fullname.split(".")[1:])]
        return importlib.util.spec_from_file_location(fullname, so, loader=loader,
                                                      submodule_search_locations=pkg)


def _load_manifest(native_dir: str | None = None) -> tuple[dict[str, str] | None, str]:
    """(module -> extension file, "") for a fresh build (in ``native_dir``, default
    :data:`NATIVE_DIR`) that fits this interpreter, else (None, why not)."""
    native_dir = native_dir or NATIVE_DIR
    path = os.path.join(native_dir, MANIFEST)
    if not os.path.exists(path):
        return None, "not built (gpgpusim native build)"
    try:
        with open(path) as f:
            man = json.load(f)
    except (OSError, ValueError) as e:
        return None, f"unreadable manifest {path}: {e}"
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    if man.get("suffix") != suffix:
        return None, f"built for {man.get('suffix')}, this Python needs {suffix}"
    files: dict[str, str] = {}
    for rel, (so_rel, digest) in man["modules"].items():
        src = os.path.join(PKG_ROOT, rel)
        try:
            fresh = _digest(src) == digest
        except OSError:
            fresh = False
        if not fresh:
            return None, f"stale: gpgpusim/{rel} changed since the build (gpgpusim native build)"
        files[module_name(rel)] = os.path.join(native_dir, so_rel)
    files[man["group"]] = os.path.join(native_dir, man["group_file"])
    return files, ""


def activate() -> bool:
    """Install the finder for a fresh build unless ``GPGPUSIM_NATIVE=0``; True when installed.
    Why a build is not used is kept for :func:`announce`."""
    global _finder, _note
    if _finder is not None:
        return True
    if _note.startswith("off"):      # GPGPUSIM_NATIVE=0 or deactivate(): pure Python stays
        return False
    if os.environ.get("GPGPUSIM_NATIVE", "") == "0":
        _note = "off (GPGPUSIM_NATIVE=0)"
        return False
    files, _note = _load_manifest()
    if files is None:
        return False
    _finder = _NativeFinder(files)
    sys.meta_path.insert(0, _finder)
    return True


def announce() -> None:
    """Say once, on stderr, why a compiled model that exists (or was asked for with
    ``GPGPUSIM_NATIVE=1``) is not used: called when a performance-mode GPU is built."""
    global _announced
    if _announced or _finder is not None or _note.startswith("off"):
        return
    _announced = True
    if os.path.exists(os.path.join(NATIVE_DIR, MANIFEST)) or os.environ.get("GPGPUSIM_NATIVE") == "1":
        print(f"gpgpusim: compiled performance model not used: {_note}; running it as pure Python",
              file=sys.stderr)


def deactivate() -> None:
    """Pure Python from here on, also for a later import of :mod:`gpgpusim.timing`.  Only for a
    process that has not imported a compiled module yet (a test session) or that drops them
    all (:func:`use_pure_for`)."""
    global _finder, _note
    if _finder is not None:
        sys.meta_path.remove(_finder)
        _finder = None
    _note = "off (deactivated)"


def in_use() -> bool:
    """Are the compiled modules what ``gpgpusim.timing`` imports?"""
    return _finder is not None


def is_compiled(name: str) -> bool:
    """Is module ``name`` imported, and from an extension file?"""
    return str(getattr(sys.modules.get(name), "__file__", None) or "").endswith(".so")


def loaded() -> list[str]:
    """The compiled modules this process has imported."""
    return sorted(n for n in list(sys.modules)
                  if (n.startswith("gpgpusim.timing") or n == GROUP_MODULE) and is_compiled(n))


def model_kind() -> str:
    """What the SM core of this process's performance model is: ``"compiled (mypyc)"`` or
    ``"python"`` (for the run's ``stats.json``)."""
    name = "gpgpusim.timing.core.shader"
    compiled = is_compiled(name) if name in sys.modules else in_use()
    return "compiled (mypyc)" if compiled else "python"


def use_pure_for(what: str) -> None:
    """Switch this process to the pure-Python model because ``what`` (tracing, a pipeline dump)
    needs to wrap the model's instances: the finder is removed and every timing module already
    imported is dropped (those compiled and those that hold their classes, such as
    :mod:`.gpu`), so the GPU about to be built comes from the source modules.  Says so in one
    line.  Objects built before keep their classes."""
    if _finder is None and not loaded():
        return
    deactivate()
    keep = {"gpgpusim.timing", __name__, "gpgpusim.timing.trace"}
    for name in [n for n in sys.modules
                 if (n.startswith("gpgpusim.timing.") and n not in keep) or n == GROUP_MODULE]:
        del sys.modules[name]
    print(f"gpgpusim: {what} run the performance model as pure Python (slower than the compiled one)",
          file=sys.stderr)


def _parallel_build_ext() -> Any:
    """setuptools' build_ext compiling the C files of one extension in parallel (mypyc's
    ``multi_file`` output is one extension of many files, which build_ext compiles one by one)."""
    from concurrent.futures import ThreadPoolExecutor

    from setuptools.command.build_ext import build_ext

    class ParallelBuildExt(build_ext):  # type: ignore[misc]
        def build_extension(self, ext: Any) -> None:
            compile_one = self.compiler.compile

            def compile_all(sources: list[str], *a: Any, **k: Any) -> list[str]:
                with ThreadPoolExecutor(os.cpu_count() or 1) as ex:
                    return [o for objs in ex.map(lambda src: compile_one([src], *a, **k), sources) for o in objs]
            self.compiler.compile = compile_all
            try:
                super().build_extension(ext)
            finally:
                self.compiler.compile = compile_one

    return ParallelBuildExt


#: C flags of the optimised build: link-time optimisation lets gcc inline mypyc's small
#: run-time helpers (list and dict access, tagged-int boxing; compiled as separate C files) into
#: the model's functions, and calls between the model's own C files
_LTO = ["-flto=auto", "-fno-semantic-interposition"]


def _compile(exts: list[Any], base: list[tuple[list[str], list[str]]], tmp: str, cflags: list[str],
             ldflags: list[str]) -> str:
    """Compile mypyc's extensions (``base``: their own compile and link flags) with extra flags
    into ``tmp/lib``; the objects go to ``tmp/obj``, the same paths on every pass (gcc finds a
    pass's profile by its object's path)."""
    from setuptools import Distribution

    for e, (cf, lf) in zip(exts, base, strict=True):
        e.extra_compile_args = cf + cflags
        e.extra_link_args = lf + ldflags
    cmd = _parallel_build_ext()(Distribution({"ext_modules": exts}))
    cmd.build_lib = os.path.join(tmp, "lib")
    cmd.build_temp = os.path.join(tmp, "obj")
    cmd.force = True
    cmd.ensure_finalized()
    cmd.run()
    return str(cmd.build_lib)


def _install(build_lib: str, out_dir: str, digests: dict[str, str], profile: str) -> str:
    """Copy a compiled build into ``out_dir`` and write its manifest (``profile``: how it was
    optimised, for :func:`status`); returns its path."""
    import shutil

    os.makedirs(out_dir, exist_ok=True)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    man: dict[str, Any] = {"suffix": suffix, "group": GROUP_MODULE,
                           "group_file": GROUP_MODULE + suffix, "modules": {}, "profile": profile}

    def install(src: str, dst: str) -> None:
        """Copy, then rename over the old file: a process running the old build keeps
        its mapped file (the inode) intact."""
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst + ".new")
        os.replace(dst + ".new", dst)

    install(os.path.join(build_lib, man["group_file"]), os.path.join(out_dir, man["group_file"]))
    for rel in MODULES:
        so_rel = rel[:-3] + suffix
        install(os.path.join(build_lib, "gpgpusim", so_rel), os.path.join(out_dir, so_rel))
        man["modules"][rel] = [so_rel, digests[rel]]
    path = os.path.join(out_dir, MANIFEST)
    with open(path, "w") as f:
        json.dump(man, f, indent=1, sort_keys=True)
    return path


def _train(exts: list[Any], base: list[tuple[list[str], list[str]]], tmp: str, src_root: str,
           digests: dict[str, str]) -> tuple[list[str], str]:
    """The profile-guided build's first pass: an instrumented build, then
    :mod:`gpgpusim.pgo.train` run under it.  Returns the flags that compile the optimised build with
    the profile and the manifest's ``profile`` label; no flags (and why, said in one line) when
    a step failed, so the build goes on without a profile."""
    import subprocess

    prof = os.path.join(tmp, "profile")
    # (the same flags on both passes: the profile must fit the code gcc instruments)
    gen_flags = [f"-fprofile-generate={prof}"]
    why = ""
    try:
        gen = _install(_compile(exts, base, tmp, _LTO + gen_flags, _LTO + ["-O3"] + gen_flags),
                       os.path.join(tmp, "native-gen"), digests, "instrumented")
        env = dict(os.environ, GPGPUSIM_NATIVE_DIR=os.path.dirname(gen), GPGPUSIM_NATIVE="1",
                   PYTHONPATH=os.pathsep.join([src_root, os.environ.get("PYTHONPATH", "")]))
        run = subprocess.run([sys.executable, "-m", "gpgpusim.pgo.train"], env=env,
                             cwd=tmp, capture_output=True, text=True, timeout=1800)
        if run.returncode != 0:     # (a build environment without the simulator's dependencies, say)
            why = "the training run failed: " + " ".join((run.stdout + run.stderr).strip().splitlines()[-1:])
    except Exception as exc:  # noqa: BLE001 - instrumented compile refused, training timed out
        why = f"{type(exc).__name__}: {exc}"
    if why:
        print(f"gpgpusim: no profile for the native build ({why}); building without one", file=sys.stderr)
        return [], f"none ({why})"
    return ([f"-fprofile-use={prof}", "-fprofile-partial-training", "-Wno-missing-profile",
             "-Wno-error=coverage-mismatch"], "profile-guided")


def build(out_dir: str = NATIVE_DIR, *, pkg_root: str = PKG_ROOT, quiet: bool = True,
          pgo: bool | None = None) -> str:
    """Compile :data:`MODULES` of the package at ``pkg_root`` with mypyc into ``out_dir`` and
    write its manifest; returns the manifest's path.  Needs mypy (mypyc) and a C compiler.

    With ``pgo`` (the default unless ``GPGPUSIM_NATIVE_PGO=0``) the build is profile-guided:
    an instrumented build runs :mod:`gpgpusim.pgo.train` (small simulations on two configs), and
    the optimised build is compiled with the branch and call counts it left.  The C code, and
    so every cycle and statistic, is the same either way; only gcc's layout and inlining
    choices change."""
    import shutil
    import tempfile

    from mypyc.build import mypycify

    if pgo is None:
        pgo = os.environ.get("GPGPUSIM_NATIVE_PGO", "") != "0"
    out_dir, pkg_root = os.path.abspath(out_dir), os.path.abspath(pkg_root)     # the build changes folder
    src_root = os.path.dirname(pkg_root)
    paths = [os.path.join("gpgpusim", rel) for rel in MODULES]
    digests = {rel: _digest(os.path.join(pkg_root, rel)) for rel in MODULES}    # what is compiled
    cwd = os.getcwd()
    tmp = tempfile.mkdtemp(prefix="gpgpusim-mypyc-")
    try:
        os.chdir(src_root)          # mypyc names modules by their path from the current folder
        # the options that matter of the project's [tool.mypy], given here so that a build from
        # a copy of the package (a wheel's build folder) type-checks the same way
        exts = mypycify(["--ignore-missing-imports", "--follow-imports=silent", *paths], opt_level="3",
                        debug_level="0", multi_file=True, group_name=GROUP,
                        target_dir=os.path.join(tmp, "c"), verbose=not quiet)
        base = [(list(e.extra_compile_args or []), list(e.extra_link_args or [])) for e in exts]
        use: list[str] = []
        profile = "none (--no-pgo or GPGPUSIM_NATIVE_PGO=0)"
        if pgo:
            use, profile = _train(exts, base, tmp, src_root, digests)
        try:
            lib = _compile(exts, base, tmp, _LTO + use, _LTO + ["-O3"] + use)
        except Exception as exc:  # noqa: BLE001 - a compiler without LTO / these profile flags
            print(f"gpgpusim: the optimised build failed ({type(exc).__name__}: {exc}); "
                  "building with mypyc's own flags", file=sys.stderr)
            lib = _compile(exts, base, tmp, [], [])
            profile = f"none (the compiler refused -flto or the profile flags: {exc})"
        return _install(lib, out_dir, digests, profile)
    finally:
        os.chdir(cwd)
        shutil.rmtree(tmp, ignore_errors=True)


def profile() -> str:
    """How the build in :data:`NATIVE_DIR` was optimised (its manifest's ``profile``)."""
    try:
        with open(os.path.join(NATIVE_DIR, MANIFEST)) as f:
            return str(json.load(f).get("profile", "none (built before profile-guided builds)"))
    except (OSError, ValueError):
        return "none (no build)"


def status() -> str:
    activate()          # (what importing gpgpusim.timing does)
    files, why = _load_manifest()
    if files is None:
        return f"compiled performance model: {why}"
    return (f"compiled performance model: fresh build in {NATIVE_DIR} ({len(MODULES)} modules, "
            f"profile: {profile()}); " + ("in use" if in_use() else f"not in use: {_note}"))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["build"]:
        import time
        t = time.time()
        path = build(quiet="-v" not in args, pgo=False if "--no-pgo" in args else None)
        print(f"built {path} in {time.time() - t:.0f} s")
        return 0
    if args[:1] == ["status"]:
        print(status())
        return 0
    print("usage: gpgpusim native build [-v] [--no-pgo] | status", file=sys.stderr)
    return 2
