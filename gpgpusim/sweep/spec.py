"""Sweep files: reading, checking and expanding them into runs.

A sweep file is TOML (see ``docs/SWEEP.md``)::

    [sweep]
    name = "apps"                # default: the file's stem
    mode = "functional"          # "performance" (default), "functional", or a list of both
    timeout_s = 600              # per-run wall-clock limit (0 = none)
    retries = 1                  # extra attempts for a run whose process was killed or lost
    output = "apps-results"      # relative to the sweep file; default "<stem>-results"

    [programs.reduction]
    binary = "bin/reduction"     # relative to the sweep file
    args = []
    inputs = []                  # files copied into the run's directory
    cwd = ""                     # run there instead of in the run's directory
    build = "make bin/reduction" # run in the sweep file's folder when the binary is missing

    [configs]
    QV100 = "SM7_QV100"          # a shipped config ...
    mine = { file = "my.config" }  # ... or a config file

    [vary]                       # every combination of these values
    "-gpgpu_num_sched_per_core" = [1, 2]

    [variants.big_l1]            # named option sets, crossed with [vary]
    "-gpgpu_cache:dl1" = "S:4:128:256,L:T:m:L:L,A:512:8,16:0,32"

    [subsets.quick]              # `gpgpusim sweep run --subset quick`
    programs = ["reduction"]
    configs = ["QV100"]

Every mistake is a :class:`SweepError` naming the key and the line it is on.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gpgpusim
from gpgpusim.options.config import ConfigError, gpu_config_path

MODES = ("performance", "functional")
_SAFE = re.compile(r"[^A-Za-z0-9_.=+-]+")


class SweepError(Exception):
    """A sweep file or sweep request that cannot be carried out; ``str()`` is the one-line
    message for the user (file, line, key, what is wrong)."""


# --------------------------------------------------------------------------------------------
# locating keys in the text (tomllib reports no positions for values it accepted)
# --------------------------------------------------------------------------------------------

_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_ASSIGN = re.compile(r"""^\s*((?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=""")
_PART = re.compile(r"""\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*(?:\.|$)""")


def _split_key(text: str) -> tuple[str, ...]:
    parts = []
    for m in _PART.finditer(text.strip()):
        p = m.group(1)
        parts.append(p[1:-1] if p[:1] in "\"'" else p)
    return tuple(parts)


def locate(text: str, path: tuple[str, ...]) -> int | None:
    """The 1-based line where the key ``path`` (e.g. ``("programs", "bfs", "binary")``) is
    defined in the TOML ``text``, else the line of its closest enclosing table, else None.
    Handles table headers, dotted keys and the first line of inline tables."""
    best: tuple[int, int] | None = None      # (matched length, line)
    table: tuple[str, ...] = ()
    for no, line in enumerate(text.splitlines(), start=1):
        h = _HEADER.match(line)
        if h and not line.lstrip().startswith("#"):
            table = _split_key(h.group(1))
            full = table
        else:
            a = _ASSIGN.match(line)
            if not a:
                continue
            full = table + _split_key(a.group(1))
        n = 0
        while n < min(len(full), len(path)) and full[n] == path[n]:
            n += 1
        if n == len(full) or (n == len(path) and n > 0):
            if best is None or n > best[0]:
                best = (n, no)
        if n == len(path) and len(full) >= len(path):
            return no
    return best[1] if best and best[0] > 0 else None


# --------------------------------------------------------------------------------------------
# the model
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Program:
    name: str
    binary: Path
    args: tuple[str, ...] = ()
    inputs: tuple[Path, ...] = ()
    cwd: Path | None = None
    build: str | None = None


@dataclass(frozen=True)
class ConfigChoice:
    name: str
    gpu: str | None = None           # a shipped config ...
    file: Path | None = None         # ... or a config file


@dataclass(frozen=True)
class RunSpec:
    """One simulation: a program on a config with options, in a mode.  ``keys`` are the
    columns that tell runs apart in the results (program, config, mode, variant, each varied
    option)."""
    program: Program
    config: ConfigChoice
    mode: str
    options: tuple[tuple[str, str], ...]
    keys: tuple[tuple[str, str], ...]
    run_id: str

    @property
    def sets(self) -> list[str]:
        return [f"{k}={v}" for k, v in self.options]


@dataclass
class Sweep:
    path: Path
    text: str
    name: str
    output: Path
    modes: tuple[str, ...]
    timeout_s: float
    retries: int
    programs: dict[str, Program]
    configs: dict[str, ConfigChoice]
    vary: dict[str, list[str]]
    variants: dict[str, dict[str, str]]
    subsets: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    cluster: dict[str, Any] = field(default_factory=dict)

    def where(self, *path: str) -> str:
        """``file:line: key`` for messages."""
        line = locate(self.text, tuple(path))
        return f"{self.path}:{line}: {'.'.join(path)}" if line else f"{self.path}: {'.'.join(path)}"

    def runs(self, subset: str | None = None) -> list[RunSpec]:
        """Every run of the sweep (or of the named subset), in a stable order."""
        programs, configs, variants = list(self.programs), list(self.configs), list(self.variants)
        if subset is not None:
            if subset not in self.subsets:
                known = ", ".join(self.subsets) or "none defined"
                raise SweepError(f"{self.path}: no subset {subset!r} (subsets: {known})")
            sel = self.subsets[subset]
            programs = sel.get("programs", programs)
            configs = sel.get("configs", configs)
            variants = sel.get("variants", variants)
        names = list(self.vary)
        combos = list(itertools.product(*(self.vary[n] for n in names))) if names else [()]
        out: list[RunSpec] = []
        chosen: list[str | None] = list(variants) if variants else [None]
        for p, c, mode, v, combo in itertools.product(programs, configs, self.modes, chosen, combos):
            opts: dict[str, str] = dict(self.variants[v]) if v is not None else {}
            opts.update(zip(names, combo, strict=False))
            keys = [("program", p), ("config", c), ("mode", mode)]
            if self.variants:
                keys.append(("variant", v or ""))
            keys += [(n.lstrip("-"), val) for n, val in zip(names, combo, strict=False)]
            out.append(RunSpec(self.programs[p], self.configs[c], mode, tuple(sorted(opts.items())),
                               tuple(keys), _run_id(keys)))
        return out


def _run_id(keys: list[tuple[str, str]]) -> str:
    """A directory name readable by people, unique per key combination."""
    parts = [v for _, v in keys[:3]] + [v if k == "variant" else f"{k}={v}" for k, v in keys[3:]]
    name = _SAFE.sub("_", "__".join(p for p in parts if p))
    digest = hashlib.sha256(json.dumps(keys).encode()).hexdigest()[:8]
    return f"{name[:100]}__{digest}"


# --------------------------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------------------------

_TOP = {"sweep", "programs", "configs", "vary", "variants", "subsets", "build", "cluster"}
#: [cluster]: dask-jobqueue settings for --slurm / --pbs (each batch job is one worker)
CLUSTER_KEYS: dict[str, type] = {"queue": str, "account": str, "walltime": str, "memory": str, "cores": int,
                "local_directory": str, "interface": str, "job_extra_directives": list,
                "job_script_prologue": list, "worker_extra_args": list}
_SWEEP_KEYS = {"name", "mode", "timeout_s", "retries", "output"}
_PROGRAM_KEYS = {"binary", "args", "inputs", "cwd", "build"}
_SUBSET_KEYS = {"programs", "configs", "variants"}


def _kind(v: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a table"}.get(type(v), type(v).__name__)


def _option_value(v: Any) -> str | None:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (int, float, str)):
        return str(v)
    return None


def load(path: str | os.PathLike[str], output: str | os.PathLike[str] | None = None) -> Sweep:
    """Read and check a sweep file; relative paths in it are relative to its folder."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise SweepError(f"{p}: cannot read the sweep file ({exc.strerror or exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        if m:
            msg = f"{p}:{m.group(1)}:{m.group(2)}: {msg[:m.start()].strip()}"
        elif "(at end of document)" in msg:
            msg = f"{p}:{max(1, len(text.splitlines()))}: {msg.replace('(at end of document)', '').strip()} at the end"
        else:
            msg = f"{p}: {msg}"
        raise SweepError(f"{msg} (not valid TOML)") from None
    base = p.resolve().parent

    def err(keypath: tuple[str, ...], what: str) -> SweepError:
        line = locate(text, keypath)
        at = f"{p}:{line}" if line else f"{p}"
        return SweepError(f"{at}: {'.'.join(keypath)}: {what}")

    def table(v: Any, keypath: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(v, dict):
            raise err(keypath, f"expected a table, got {_kind(v)}")
        return v

    def string(v: Any, keypath: tuple[str, ...]) -> str:
        if not isinstance(v, str) or not v.strip():
            raise err(keypath, f"expected a non-empty string, got {_kind(v) if not isinstance(v, str) else 'an empty one'}")
        return v

    def strings(v: Any, keypath: tuple[str, ...]) -> list[str]:
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise err(keypath, f"expected a list of strings, got {_kind(v)}")
        return list(v)

    def unknown(d: dict[str, Any], allowed: set[str], keypath: tuple[str, ...]) -> None:
        for k in d:
            if k not in allowed:
                raise err(keypath + (k,), f"unknown key (allowed: {', '.join(sorted(allowed))})")

    unknown(data, _TOP, ())
    sw = table(data.get("sweep", {}), ("sweep",))
    unknown(sw, _SWEEP_KEYS, ("sweep",))
    name = string(sw.get("name", p.stem), ("sweep", "name"))
    mode_v = sw.get("mode", "performance")
    modes = [mode_v] if isinstance(mode_v, str) else mode_v
    if not isinstance(modes, list) or not modes or any(m not in MODES for m in modes):
        raise err(("sweep", "mode"), f"expected \"performance\", \"functional\" or a list of them, got {mode_v!r}")
    timeout = sw.get("timeout_s", 0)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout < 0:
        raise err(("sweep", "timeout_s"), f"expected a number of seconds >= 0, got {timeout!r}")
    retries = sw.get("retries", 1)
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise err(("sweep", "retries"), f"expected an integer >= 0, got {retries!r}")
    out = Path(output) if output is not None else base / string(sw.get("output", f"{p.stem}-results"),
                                                                ("sweep", "output"))
    if "build" in data:
        raise err(("build",), "not a table of its own: give each program a `build` command")

    programs: dict[str, Program] = {}
    progs = table(data.get("programs", {}), ("programs",))
    if not progs:
        raise err(("programs",), "no programs: add at least one [programs.NAME] table with a `binary`")
    for pname, pv in progs.items():
        kp = ("programs", pname)
        pv = table(pv, kp)
        unknown(pv, _PROGRAM_KEYS, kp)
        if "binary" not in pv:
            raise err(kp, "missing key `binary` (the program's executable)")
        binary = base / string(pv["binary"], kp + ("binary",))
        args = pv.get("args", [])
        if isinstance(args, str):
            import shlex

            args = shlex.split(args)
        args = strings(args, kp + ("args",))
        inputs = tuple(base / s for s in strings(pv.get("inputs", []), kp + ("inputs",)))
        for i, f in enumerate(inputs):
            if not f.is_file():
                raise err(kp + ("inputs",), f"input file {str(f)!r} (item {i + 1}) does not exist")
        cwd = base / string(pv["cwd"], kp + ("cwd",)) if "cwd" in pv else None
        if cwd is not None and not cwd.is_dir():
            raise err(kp + ("cwd",), f"working directory {str(cwd)!r} does not exist")
        build = string(pv["build"], kp + ("build",)) if "build" in pv else None
        programs[pname] = Program(pname, binary, tuple(args), inputs, cwd, build)

    configs: dict[str, ConfigChoice] = {}
    cfgs = data.get("configs", {"SM7_QV100": "SM7_QV100"})
    if isinstance(cfgs, list):
        cfgs = {string(c, ("configs",)): c for c in cfgs}
    cfgs = table(cfgs, ("configs",))
    if not cfgs:
        raise err(("configs",), "no configs")

    for cname, cv in cfgs.items():
        kp = ("configs", cname)
        if isinstance(cv, str):
            try:
                gpu_config_path(cv)
            except ConfigError as exc:
                raise err(kp, exc.message) from None
            configs[cname] = ConfigChoice(cname, gpu=cv)
        elif isinstance(cv, dict) and set(cv) == {"file"}:
            f = base / string(cv["file"], kp + ("file",))
            if not f.is_file():
                raise err(kp + ("file",), f"config file {str(f)!r} does not exist")
            configs[cname] = ConfigChoice(cname, file=f)
        elif isinstance(cv, dict) and set(cv) == {"gpu"}:
            try:
                gpu_config_path(string(cv["gpu"], kp + ("gpu",)))
            except ConfigError as exc:
                raise err(kp + ("gpu",), exc.message) from None
            configs[cname] = ConfigChoice(cname, gpu=cv["gpu"])
        else:
            raise err(kp, "expected a shipped GPU name (\"SM7_QV100\"), { gpu = \"...\" } or { file = \"...\" }")

    def option_name(k: str, keypath: tuple[str, ...]) -> str:
        if not k.startswith("-") or len(k) < 2:
            raise err(keypath, f"an option name starts with '-' as in GPGPU-Sim (\"-{k}\")")
        return k

    vary: dict[str, list[str]] = {}
    for k, vals in table(data.get("vary", {}), ("vary",)).items():
        kp = ("vary", k)
        option_name(k, kp)
        if not isinstance(vals, list) or not vals:
            raise err(kp, f"expected a non-empty list of values, got {_kind(vals)}")
        conv = [_option_value(v) for v in vals]
        if any(c is None for c in conv):
            raise err(kp, "values must be strings, numbers or booleans")
        if len(set(conv)) != len(conv):
            raise err(kp, "a value is listed twice")
        vary[k] = [c for c in conv if c is not None]

    variants: dict[str, dict[str, str]] = {}
    for vname, vv in table(data.get("variants", {}), ("variants",)).items():
        kp = ("variants", vname)
        opts: dict[str, str] = {}
        for k, val in table(vv, kp).items():
            option_name(k, kp + (k,))
            c = _option_value(val)
            if c is None:
                raise err(kp + (k,), f"expected a string, number or boolean, got {_kind(val)}")
            if k in vary:
                raise err(kp + (k,), "also varied in [vary]; set it in one place")
            opts[k] = c
        variants[vname] = opts

    subsets: dict[str, dict[str, list[str]]] = {}
    choices: dict[str, list[str]] = {"programs": list(programs), "configs": list(configs),
                                     "variants": list(variants)}
    for sname, sv in table(data.get("subsets", {}), ("subsets",)).items():
        kp = ("subsets", sname)
        sv = table(sv, kp)
        unknown(sv, _SUBSET_KEYS, kp)
        sel: dict[str, list[str]] = {}
        for k, names in sv.items():
            lst = strings(names, kp + (k,))
            for n in lst:
                if n not in choices[k]:
                    raise err(kp + (k,), f"{n!r} is not in [{k}] ({', '.join(choices[k]) or 'empty'})")
            sel[k] = lst
        subsets[sname] = sel

    cluster = table(data.get("cluster", {}), ("cluster",))
    for k, v in cluster.items():
        want = CLUSTER_KEYS.get(k)
        if want is None:
            raise err(("cluster", k), f"unknown key (allowed: {', '.join(sorted(CLUSTER_KEYS))})")
        if not isinstance(v, want) or isinstance(v, bool) or (isinstance(v, list) and not all(isinstance(x, str) for x in v)):
            raise err(("cluster", k), f"expected {'a list of strings' if want is list else _kind(want())}, got {_kind(v)}")

    return Sweep(p, text, name, out, tuple(modes), float(timeout), retries, programs, configs, vary,
                 variants, subsets, cluster)


# --------------------------------------------------------------------------------------------
# content hashes
# --------------------------------------------------------------------------------------------

_file_digests: dict[tuple[str, float, int], str] = {}


def file_digest(path: Path) -> str:
    """sha256 of a file's content (cached by path, mtime and size within this process)."""
    st = path.stat()
    key = (str(path), st.st_mtime, st.st_size)
    d = _file_digests.get(key)
    if d is None:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        d = _file_digests[key] = h.hexdigest()
    return d


def simulator_version() -> str:
    """The package version plus a digest of the simulator's sources, shipped configs and
    runtime library: any change to what a run executes changes it (the sweep package itself
    is left out: it does not affect results).  ``$GPGPUSIM_SWEEP_VERSION`` replaces it, e.g. to
    keep a sweep's results across edits known not to change them."""

    pinned = os.environ.get("GPGPUSIM_SWEEP_VERSION", "").strip()
    if pinned:
        return pinned

    root = Path(gpgpusim.__file__).resolve().parent
    h = hashlib.sha256()
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", "sweep", "_native"))
        for fn in filenames:
            if fn.endswith((".py", ".lark", ".so", ".config", ".icnt")) or rel.parts[:1] == ("configs",):
                files.append(Path(dirpath) / fn)
    for f in sorted(files):
        h.update(str(f.relative_to(root)).encode())
        h.update(file_digest(f).encode())
    return f"{gpgpusim.__version__}+{h.hexdigest()[:16]}"


def config_files(choice: ConfigChoice) -> list[Path]:
    """The files a config is read from: the main file and the files it names that lie beside
    it (``-config`` includes, the interconnect file)."""

    main = gpu_config_path(choice.gpu) if choice.gpu else choice.file
    assert main is not None
    out = [main]
    todo = [main]
    while todo:
        f = todo.pop()
        try:
            words = set(re.findall(r"[^\s\"']+", f.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
        for w in sorted(words):
            cand = f.parent / w
            if cand not in out and cand.is_file() and cand.parent == f.parent:
                out.append(cand)
                todo.append(cand)
    return out


def run_hash(spec: RunSpec, sim_version: str) -> str:
    """Content hash of a run: its spec, the binary, inputs and config files, and the
    simulator version.  A finished run with the same hash is not run again."""
    doc = {
        "keys": spec.keys, "mode": spec.mode, "options": spec.options, "args": spec.program.args,
        "binary": file_digest(spec.program.binary),
        "inputs": [(f.name, file_digest(f)) for f in spec.program.inputs],
        "cwd": str(spec.program.cwd) if spec.program.cwd else None,
        "config": [(f.name, file_digest(f)) for f in config_files(spec.config)],
        "gpu": spec.config.gpu, "simulator": sim_version,
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()
