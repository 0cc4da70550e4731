"""How an application is set up to run on the simulator: where our ``libcudart`` is (and its
rebuild after a shim change in a source checkout), the environment the library reads, and the
checks made before the application starts (a statically linked binary, a bad config).  Used by
``gpgpusim run`` (:mod:`gpgpusim.cli`) and by the sweep runner (:mod:`gpgpusim.sweep`); the
environment variables are listed in :mod:`gpgpusim.cli`'s docstring.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from gpgpusim.options import ENV_SET_OPTIONS
from gpgpusim.options.config import gpu_config_path
from gpgpusim.runtime import load_active_config

SONAME = "libcudart.so.13"


def libdir() -> Path:
    """Directory of the built ``libcudart.so.13``: ``gpgpusim/_lib``, or ``$GPGPUSIM_LIBDIR``
    (e.g. a ``.so.12`` build made with ``python shim/build_shim.py --soname libcudart.so.12``)."""
    env = os.environ.get("GPGPUSIM_LIBDIR")
    if env:
        return Path(env).resolve()
    return Path(__file__).resolve().parent / "_lib"


def require_lib() -> Path:
    d = libdir()
    libs = list(d.glob("libcudart.so.*"))
    if not libs:
        raise SystemExit(f"gpgpusim: {d / SONAME} is missing; build it with `pip install .` "
                         f"(or `pip install -e .`, or `python shim/build_shim.py`)")
    # Source checkouts (editable installs): rebuild when the shim sources changed after the
    # library was built (new entry points would otherwise be missing).
    shim = Path(__file__).resolve().parent.parent / "shim"
    if shim.is_dir() and d == Path(__file__).resolve().parent / "_lib":
        newest = max((p.stat().st_mtime for p in shim.iterdir() if p.suffix in (".c", ".h", ".py", ".txt")),
                     default=0.0)
        if newest > min(p.stat().st_mtime for p in libs):
            try:
                sys.path.insert(0, str(shim))
                import build_shim

                build_shim.build(str(d))
                print(f"gpgpusim: rebuilt {d / SONAME} (the shim sources had changed)", file=sys.stderr)
            except Exception as exc:  # noqa: BLE001 - keep running with the old library
                print(f"gpgpusim: warning: {d} is older than {shim} and rebuilding failed ({exc}); "
                      f"run `pip install -e .`", file=sys.stderr)
            finally:
                sys.path.remove(str(shim))
    return d


def find_nvcc() -> str | None:
    """nvcc on PATH, else under ``$CUDA_INSTALL_PATH`` (C025) or /usr/local/cuda."""
    found = shutil.which("nvcc")
    if found:
        return found
    for root in (os.environ.get("CUDA_INSTALL_PATH"), "/usr/local/cuda", "/usr/local/cuda-13.0"):
        if root and os.access(os.path.join(root, "bin", "nvcc"), os.X_OK):
            return os.path.join(root, "bin", "nvcc")
    return None


def run_env(gpu: str | None = None, config: str | None = None, functional: bool = False,
            sets: list[str] | None = None, stats_json: str | None = None,
            base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment under which an application runs on the simulator."""
    env = dict(os.environ if base is None else base)
    d = str(require_lib())
    env["LD_LIBRARY_PATH"] = d + (os.pathsep + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    env["GPGPUSIM_PYTHONPATH"] = str(Path(__file__).resolve().parent.parent) + (
        os.pathsep + env["GPGPUSIM_PYTHONPATH"] if env.get("GPGPUSIM_PYTHONPATH") else "")
    if gpu and config:
        raise SystemExit("gpgpusim run: give --gpu or --config, not both")
    if config:
        if not os.path.isfile(config):
            raise SystemExit(f"gpgpusim run: config file {config!r} does not exist")
        env["GPGPUSIM_CONFIG"] = os.path.abspath(config)
        env.pop("GPGPUSIM_GPU", None)
    elif gpu:
        gpu_config_path(gpu)   # raises a clear error (with suggestions) for an unknown GPU
        env["GPGPUSIM_GPU"] = gpu
        env.pop("GPGPUSIM_CONFIG", None)
    if functional:
        env["PTX_SIM_MODE_FUNC"] = "1"
    if sets:
        extra = " ".join(shlex.quote(s) if " " in s else s for s in sets)
        env[ENV_SET_OPTIONS] = (env.get(ENV_SET_OPTIONS, "") + " " + extra).strip()
    if stats_json:
        env["GPGPUSIM_STATS_JSON"] = os.path.abspath(stats_json)
    return env


def check_binary(path: str) -> str | None:
    """Why ``path`` cannot run on the simulator, or None.  Catches the common mistake of a
    binary built without ``-cudart shared``: nvcc links the CUDA runtime statically by
    default, and then our library is never loaded.  Non-ELF programs (scripts) pass."""
    try:
        from elftools.common.exceptions import ELFError
        from elftools.elf.dynamic import DynamicSection
        from elftools.elf.elffile import ELFFile
    except ImportError:
        return None
    try:
        with open(path, "rb") as f:
            if f.read(4) != b"\x7fELF":
                return None
            f.seek(0)
            elf = ELFFile(f)
            dyn = elf.get_section_by_name(".dynamic")
            tags = dyn.iter_tags() if isinstance(dyn, DynamicSection) else ()
            needed = [str(getattr(t, "needed", "")) for t in tags if t.entry.d_tag == "DT_NEEDED"]
            has_fatbin = elf.get_section_by_name(".nv_fatbin") is not None
    except (OSError, ELFError):
        return None
    if has_fatbin and not any(n.startswith("libcudart.so") for n in needed):
        return (f"{path} carries CUDA kernels but is linked with the static CUDA runtime, so the "
                f"simulator cannot intercept it; rebuild it with `nvcc -cudart shared ...`")
    for n in needed:
        if n.startswith("libcudart.so.") and n != SONAME and not (libdir() / n).is_file():
            return (f"{path} needs {n} (another CUDA toolkit); build a matching library with "
                    f"`python shim/build_shim.py --soname {n} --outdir DIR` and set GPGPUSIM_LIBDIR=DIR")
    return None


def check_config(env: dict[str, str], cwd: str | None = None) -> Any:
    """Load the complete config the application will get (``--gpu`` / ``--config`` with its
    includes, or ``./gpgpusim.config``, then ``$GPGPUSIM_OPTIONS``, ``--set`` and
    ``PTX_SIM_MODE_FUNC``) exactly as the library will, under the application's environment,
    so that a mistake stops the run with one clear message (a ``ConfigError``) before the
    application starts instead of failing its every CUDA call.  ``cwd``: the application's
    working directory (where ``gpgpusim.config`` is looked for), default ours."""

    return load_active_config(env, cwd)
