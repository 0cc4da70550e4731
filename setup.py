"""setuptools hooks of gpgpusim (metadata lives in pyproject.toml).

The package's own install step builds the CUDA runtime stand-in ``gpgpusim/_lib/libcudart.so.13``
(``shim/build_shim.py``, cffi embedding API):

* ``pip install .``     -> built into the wheel's ``gpgpusim/_lib/``;
* ``pip install -e .``  -> built into the source tree's ``gpgpusim/_lib/`` (editable mode).

It then compiles the performance model with mypyc (``gpgpusim/native/__init__.py``) into
``gpgpusim/_native/`` (2-4 minutes; about twice as fast a model).  Without a C compiler or
mypy, or with ``GPGPUSIM_NATIVE=0`` set, the step is skipped with a warning and the model runs
as pure Python.

In editable mode it also byte-compiles the package in place (``__pycache__``, git-ignored), as
pip does for a regular install: an environment with ``PYTHONDONTWRITEBYTECODE=1`` would
otherwise recompile every module in every process (the CLI and each simulated app), ~0.25 s
of a small app's 0.8 s run.  A stale ``.pyc`` (a source edited
later) is ignored by Python, never used.

``GPGPUSIM_CUDART_SONAME=libcudart.so.12`` builds a library for binaries of an older toolkit.
"""

from __future__ import annotations

import compileall
import os
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def _build_shim(outdir: str) -> str:
    sys.path.insert(0, os.path.join(ROOT, "shim"))
    try:
        import build_shim
    finally:
        sys.path.pop(0)
    soname = os.environ.get("GPGPUSIM_CUDART_SONAME", "libcudart.so.13")
    return build_shim.build(outdir, soname=soname)


def _build_native(pkg_dir: str) -> str:
    """Compile the performance model into ``pkg_dir/_native`` (gpgpusim/native/__init__.py is loaded by path: the
    build environment need not have gpgpusim's dependencies)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "_gpgpusim_native_build", os.path.join(ROOT, "gpgpusim", "native", "__init__.py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.build(os.path.join(pkg_dir, "_native"), pkg_root=pkg_dir)


class BuildPyWithShim(build_py):
    """build_py that also compiles the shim library into ``gpgpusim/_lib``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            out = os.path.join(ROOT, "gpgpusim", "_lib")
        else:
            out = os.path.join(self.build_lib, "gpgpusim", "_lib")
        path = _build_shim(out)
        self.announce(f"built {path}", level=2)
        pkg_dir = os.path.dirname(out)
        if os.environ.get("GPGPUSIM_NATIVE", "") == "0":
            print("gpgpusim: GPGPUSIM_NATIVE=0: the performance model is not compiled", file=sys.stderr)
        else:
            try:
                self.announce(f"built {_build_native(pkg_dir)}", level=2)
            except Exception as exc:  # noqa: BLE001 - any failure leaves the pure-Python model
                print(f"gpgpusim: WARNING: the performance model was not compiled ({type(exc).__name__}: "
                      f"{exc}); it runs as pure Python, about half as fast", file=sys.stderr)
        if getattr(self, "editable_mode", False):
            compileall.compile_dir(os.path.join(ROOT, "gpgpusim"), quiet=1)


class BinaryDistribution(Distribution):
    """The wheel carries a native library: mark it platform-specific."""

    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass={"build_py": BuildPyWithShim}, distclass=BinaryDistribution)
