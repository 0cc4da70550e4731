"""Config files, overrides and the typed :class:`Config` the simulator reads.

GPGPU-Sim counterpart: ``option_parser_cmdline`` / ``option_parser_cfgfile`` and
``gpgpu_sim_config`` (checklist C195, C209, C210).  Rules, as in the C++ parser:

* a config file is a stream of ``-name value`` pairs; ``#`` starts a comment to the end of the
  line; a value in double quotes may contain spaces and span lines (its whitespace runs become
  single spaces, so the option dump shows ``RC=40: CL=12`` for a quoted two-line value);
* ``-config <file>`` includes another file at that point (relative to the including file,
  else to the working directory);
* the last occurrence of an option wins (config file, then ``GPGPUSIM_OPTIONS``, then
  ``gpgpusim run --set -gpgpu_n_clusters=40`` (``GPGPUSIM_SET_OPTIONS``), then the explicit
  overrides of :func:`load_config`);
* an unknown option is an error with a did-you-mean suggestion; a malformed value is an error
  naming the option, the value and the file.

With ``-network_mode 1`` the interconnect file named by ``-inter_config_file`` (BookSim syntax,
``key = value;`` with ``//`` comments) is read too and kept as ``Config.icnt``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..errors import CudaError, Err, NotSupportedError
from .booksim import check_param
from .formats import INT_KINDS, address_decoder_lines
from .registry import Legacy, Opt, registry
from .tracing import check_options

ENV_OPTIONS = "GPGPUSIM_OPTIONS"
#: the ``--set`` overrides of ``gpgpusim run`` (applied after ``$GPGPUSIM_OPTIONS``; its own
#: variable so that a bad value names ``--set`` as its source)
ENV_SET_OPTIONS = "GPGPUSIM_SET_OPTIONS"
DEFAULT_GPU = "SM7_QV100"


class ConfigError(CudaError):
    """A config file, override or option value GPGPU-Sim would reject.

    Carries ``cudaErrorInitializationError``: the runtime cannot come up with a bad config.
    """

    def __init__(self, message: str) -> None:
        super().__init__(Err.InitializationError, message)


def configs_dir() -> Path:
    """Folder holding the shipped GPU configs (``gpgpusim/configs/<GPU>/gpgpusim.config``)."""
    return Path(__file__).resolve().parent.parent / "configs"


def shipped_gpus() -> list[str]:
    """Names of the GPU configs shipped with the package, sorted."""
    d = configs_dir()
    return sorted(p.name for p in d.iterdir() if (p / "gpgpusim.config").is_file())


def gpu_config_path(gpu: str) -> Path:
    """Path of a shipped GPU's ``gpgpusim.config`` (ConfigError naming the choices if unknown)."""
    p = configs_dir() / gpu / "gpgpusim.config"
    if not p.is_file():
        import difflib

        names = shipped_gpus()
        close = difflib.get_close_matches(gpu, names, n=1, cutoff=0.4)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ConfigError(f"unknown GPU config {gpu!r}{hint}; shipped: {', '.join(names)}")
    return p


# --------------------------------------------------------------------------------------------
# tokenising
# --------------------------------------------------------------------------------------------


def _strip_comments(text: str) -> str:
    """Drop ``#`` comments (a ``#`` inside double quotes is kept, as GPGPU-Sim does)."""
    out = []
    for line in text.splitlines():
        in_q = False
        cut = len(line)
        for i, ch in enumerate(line):
            if ch == '"':
                in_q = not in_q
            elif ch == "#" and not in_q:
                cut = i
                break
        out.append(line[:cut])
    return "\n".join(out)


def tokenize(text: str, where: str) -> list[str]:
    """Whitespace tokens; a double-quoted run becomes one token with single spaces inside."""
    toks: list[str] = []
    raw = _strip_comments(text).split()
    i = 0
    while i < len(raw):
        t = raw[i]
        if t.startswith('"'):
            parts = [t]
            while not (parts[-1].endswith('"') and (len(parts) > 1 or len(t) > 1)):
                i += 1
                if i >= len(raw):
                    raise ConfigError(f"{where}: unterminated quoted value starting {t!r}")
                parts.append(raw[i])
            toks.append(" ".join(parts)[1:-1])
        else:
            toks.append(t)
        i += 1
    return toks


def _pairs(tokens: list[str], where: str) -> Iterator[tuple[str, str]]:
    """``-name value`` / ``-name=value`` pairs from a token list."""
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if not t.startswith("-") or len(t) == 1:
            raise ConfigError(f"{where}: expected an option (-name), got {t!r}")
        if "=" in t:
            name, value = t[1:].split("=", 1)
            i += 1
        else:
            if i + 1 >= len(tokens):
                raise ConfigError(f"{where}: option {t} has no value")
            name, value = t[1:], tokens[i + 1]
            i += 2
        yield name, value


# --------------------------------------------------------------------------------------------
# the Config object
# --------------------------------------------------------------------------------------------


class Config:
    """Typed option values by GPGPU-Sim name (``cfg["gpgpu_n_clusters"]``) or Python name
    (``cfg.n_clusters``); ``raw(name)`` is the string as given; ``dump_lines()`` the option dump.
    """

    def __init__(self) -> None:
        self._reg = registry()
        self._raw: dict[str, str] = {}
        self._typed: dict[str, Any] = {}
        self.sources: list[str] = []       # files and override origins, in the order applied
        self.origin: dict[str, str] = {}   # option -> where its current value came from
        self.icnt: dict[str, Any] | None = None
        self.icnt_path: str | None = None
        self.gpu_name: str | None = None
        #: the config file a non-shipped config was read from (absolute), else None
        self.config_file: str | None = None
        #: why this config was chosen (``gpgpusim.runtime.load_active_config``), else None
        self.selected_by: str | None = None
        for name, opt in self._reg.by_name.items():
            self._raw[name] = opt.default
            self.origin[name] = "default"

    # ---- setting ---------------------------------------------------------------------------

    def set(self, name: str, value: str, where: str = "override") -> None:
        """Set option ``name`` (with or without the dash) from its string form; validates it."""
        name = name.lstrip("-")
        opt = self._reg.lookup(name)
        if opt is None:
            sug = self._reg.suggest(name)
            hint = f"; did you mean -{sug}?" if sug else ""
            raise ConfigError(f"{where}: unknown option -{name}{hint}")
        if isinstance(opt, Legacy) and opt.alias_of is not None:
            self.set(opt.alias_of, value, f"{where} (as -{name})")
            return
        try:
            typed = opt.parse(value)
        except ValueError as exc:
            raise ConfigError(f"{where}: bad value {value!r} for -{name}: {exc}") from None
        self._raw[name] = value
        self._typed[name] = typed
        self.origin[name] = where

    def apply_text(self, text: str, where: str, base_dir: Path | None = None,
                   _depth: int = 0) -> None:
        """Apply a config file's text (``-config`` includes resolved against ``base_dir``)."""
        for name, value in _pairs(tokenize(text, where), where):
            if name == "config":
                self.apply_file(_resolve(value, base_dir, where), _depth + 1)
            else:
                self.set(name, value, where)

    def apply_file(self, path: str | Path, _depth: int = 0) -> None:
        if _depth > 16:
            raise ConfigError(f"{path}: -config includes nested more than 16 deep (a cycle?)")
        p = Path(path)
        try:
            text = p.read_text()
        except OSError as exc:
            raise ConfigError(f"cannot read config file {str(p)!r}: {exc.strerror}") from None
        self.sources.append(str(p))
        self.apply_text(text, str(p), p.parent, _depth)

    def apply_overrides(self, overrides: Iterable[str], where: str = "override") -> None:
        """Apply ``-opt=value`` / ``-opt value`` strings (each item may hold several options)."""
        toks: list[str] = []
        for o in overrides:
            toks.extend(tokenize(o, where))
        for name, value in _pairs(toks, where):
            if name == "config":
                self.apply_file(_resolve(value, None, where))
            else:
                self.set(name, value, where)

    # ---- reading ---------------------------------------------------------------------------

    def __getitem__(self, name: str) -> Any:
        name = name.lstrip("-")
        if name in self._typed:
            return self._typed[name]
        opt = self._reg.lookup(name)
        if opt is None:
            sug = self._reg.suggest(name)
            raise KeyError(f"unknown option {name!r}" + (f"; did you mean {sug!r}?" if sug else ""))
        v = opt.parse(self._raw[name])
        self._typed[name] = v
        return v

    def get(self, name: str, default: Any = None) -> Any:
        """The typed value, or ``default`` for a name the registry does not declare (cheap: no
        did-you-mean search, which only ``cfg[name]`` pays for)."""
        name = name.lstrip("-")
        if name in self._typed:
            return self._typed[name]
        if self._reg.lookup(name) is None:
            return default
        return self[name]

    def __contains__(self, name: str) -> bool:
        return self._reg.lookup(name.lstrip("-")) is not None

    def __getattr__(self, pyname: str) -> Any:
        if pyname.startswith("_"):
            raise AttributeError(pyname)
        opt = registry().by_pyname.get(pyname)
        if opt is None:
            raise AttributeError(f"Config has no option with Python name {pyname!r}")
        return self[opt.name]

    def raw(self, name: str) -> str:
        """The option's value string exactly as given (what GPGPU-Sim's dump prints)."""
        return self._raw[name.lstrip("-")]

    def declared(self, name: str) -> Opt | Legacy | None:
        return self._reg.lookup(name.lstrip("-"))

    def to_dict(self) -> dict[str, str]:
        """All options (dump order, then legacy ones) as name -> value string (for JSON)."""
        out = {n: self.dump_value(n) for n in self._reg.dump_order}
        for n, o in self._reg.by_name.items():
            if isinstance(o, Legacy) and self.origin[n] != "default":
                out[n] = self._raw[n]
        return out

    def dump_value(self, name: str) -> str:
        """Value text as the C++ dump prints it: numbers as parsed, strings verbatim."""
        opt = self._reg.by_name[name]
        if opt.kind in INT_KINDS or opt.kind == "bool":
            v = self[name]
            return str(int(v))
        return self._raw[name]

    def dump_lines(self) -> list[str]:
        """The option dump as GPGPU-Sim 4.2 prints it under ``GPGPU-Sim: Configuration options:``.

        One line per registration, ``"%-20s %20s # %s"`` of ``-name``, value, description.
        """
        lines = []
        for name in self._reg.dump_order:
            opt = self._reg.by_name[name]
            lines.append(f"{'-' + name:<20} {self.dump_value(name):>20} # {opt.desc}")
        return lines

    def dram_timing_lines(self) -> list[str]:
        """The ``DRAM Timing Options:`` block GPGPU-Sim prints after the option dump when
        ``-gpgpu_dram_timing_opt`` uses the keyed form (empty for the colon-list form, for which
        ``memory_config::init`` prints nothing)."""
        rows = self["gpgpu_dram_timing_opt"].print_rows()
        if not rows:
            return []
        return ["DRAM Timing Options:"] + [f"{name:<20} {value:>20} # {desc}" for name, value, desc in rows]

    def address_decoder_lines(self) -> list[str]:
        """The ``addr_dec_mask[...]`` / ``sub_partition_id_mask`` lines GPGPU-Sim prints at
        start-up (empty for a ``-gpgpu_mem_address_mask`` preset other than 0..3)."""

        return address_decoder_lines(self["gpgpu_mem_addr_mapping"], int(self["gpgpu_mem_address_mask"]),
                                     int(self["gpgpu_n_mem"]), int(self["gpgpu_n_sub_partition_per_mchannel"])) or []

    def overridden(self) -> dict[str, str]:
        """Options whose value differs from the built-in default, name -> value string."""
        return {n: self._raw[n] for n, o in self._reg.by_name.items() if self._raw[n] != o.default}

    def copy(self) -> Config:
        c = Config.__new__(Config)
        c._reg = self._reg
        c._raw = dict(self._raw)
        c._typed = dict(self._typed)
        c.sources = list(self.sources)
        c.origin = dict(self.origin)
        c.icnt = None if self.icnt is None else dict(self.icnt)
        c.icnt_path = self.icnt_path
        c.gpu_name = self.gpu_name
        c.config_file = self.config_file
        c.selected_by = self.selected_by
        return c

    @property
    def label(self) -> str:
        """What is simulated, in one word: the shipped GPU's name, else the config file."""
        return self.gpu_name or self.config_file or "(no config file)"

    # ---- derived values the runtime needs (device properties) -----------------------------

    @property
    def num_cores(self) -> int:
        """Total SIMT cores (SMs) = clusters x cores per cluster."""
        return int(self["gpgpu_n_clusters"]) * int(self["gpgpu_n_cores_per_cluster"])

    @property
    def warp_size(self) -> int:
        return self["gpgpu_shader_core_pipeline"].warp_size

    @property
    def max_threads_per_core(self) -> int:
        return self["gpgpu_shader_core_pipeline"].max_threads

    @property
    def core_clock_mhz(self) -> float:
        return self["gpgpu_clock_domains"].core_mhz

    @property
    def num_mem_sub_partitions(self) -> int:
        return int(self["gpgpu_n_mem"]) * int(self["gpgpu_n_sub_partition_per_mchannel"])

    @property
    def l2_size_bytes(self) -> int:
        """Total L2 = per-sub-partition dl2 size x sub-partitions (0 when no L2 is configured)."""
        c = self["gpgpu_cache:dl2"]
        return 0 if c is None else c.size_bytes * self.num_mem_sub_partitions

    @property
    def dram_bus_width_bits(self) -> int:
        """Total DRAM interface width in bits: channels x chips per channel x bytes per chip x 8."""
        return int(self["gpgpu_n_mem"]) * int(self["gpgpu_n_mem_per_ctrlr"]) * int(self["gpgpu_dram_buswidth"]) * 8

    @property
    def functional_only(self) -> bool:
        """True when ``-gpgpu_ptx_sim_mode`` (or ``PTX_SIM_MODE_FUNC``) is non-zero: GPGPU-Sim tests
        ``g_ptx_sim_mode`` as a truth value, so any non-zero value selects functional simulation."""
        return int(self["gpgpu_ptx_sim_mode"]) != 0


def _resolve(value: str, base_dir: Path | None, where: str) -> Path:
    p = Path(value)
    if not p.is_absolute() and base_dir is not None and (base_dir / p).is_file():
        return base_dir / p
    if p.is_file():
        return p
    raise ConfigError(f"{where}: -config file {value!r} not found")


# --------------------------------------------------------------------------------------------
# interconnect (BookSim) config files
# --------------------------------------------------------------------------------------------


def parse_icnt(text: str, where: str) -> dict[str, Any]:
    """Parse a BookSim/intersim config (``key = value;``, ``//`` comments, ``{...}`` lists).

    Values become int, float, or str; brace lists are kept as their text.  A parameter BookSim
    does not know, or a value of a type it does not take for that parameter, is an error (see
    :mod:`gpgpusim.options.booksim`), as it is for GPGPU-Sim.
    """
    body = re.sub(r"//[^\n]*", "", text)
    out: dict[str, Any] = {}
    for stmt in _split_statements(body):
        s = stmt.strip()
        if not s:
            continue
        if "=" not in s:
            raise ConfigError(f"{where}: expected 'key = value;', got {s[:40]!r}")
        k, v = (x.strip() for x in s.split("=", 1))
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
            raise ConfigError(f"{where}: bad interconnect parameter name {k!r}")
        val = _icnt_value(v)
        problem = check_param(k, val)
        if problem:
            raise ConfigError(f"{where}: {problem}")
        out[k] = val
    return out


def _split_statements(body: str) -> list[str]:
    stmts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == ";" and depth == 0:
            stmts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        stmts.append("".join(cur))
    return stmts


def _icnt_value(v: str) -> Any:
    """BookSim's lexer: an integer, a decimal number, or else a string (names, ``{...}`` lists)."""
    if re.fullmatch(r"-?\d+", v):
        return int(v)
    if re.fullmatch(r"-?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?|-?\d+[eE][-+]?\d+", v):
        return float(v)
    return v


def _load_icnt(cfg: Config, base_dir: Path | None) -> None:
    if int(cfg["network_mode"]) != 1:
        return  # built-in crossbar (mode 2) or none: the file is not used, as in GPGPU-Sim
    name = cfg.raw("inter_config_file")
    p = Path(name)
    if not p.is_absolute() and base_dir is not None and (base_dir / p).is_file():
        p = base_dir / p
    if not p.is_file():
        if cfg.origin.get("inter_config_file") == "default":
            return  # no file named (the built-in "mesh" placeholder): nothing to read
        raise ConfigError(f"-inter_config_file {name!r} not found (needed because -network_mode is 1)")
    cfg.icnt = parse_icnt(p.read_text(), str(p))
    cfg.icnt_path = str(p)


# --------------------------------------------------------------------------------------------
# whole-config checks
# --------------------------------------------------------------------------------------------

#: ``-gpgpu_scheduler`` keywords ``shader_core_ctx::create_schedulers`` looks for (as substrings,
#: in this order); a value naming none of them makes GPGPU-Sim assert at start-up
SCHEDULERS = ("lrr", "two_level_active", "gto", "rrr", "old", "warp_limiting")
#: ``-network_mode``: 1 = intersim2 (BookSim, reads ``-inter_config_file``), 2 = local crossbar;
#: ``icnt_wrapper_init`` asserts on anything else
NETWORK_MODES = {1: "intersim2 (BookSim file)", 2: "local crossbar"}
#: ``-gpgpu_dram_scheduler``: ``dram_t`` stops on other values
DRAM_SCHEDULERS = {0: "FIFO", 1: "FR-FCFS"}
#: cache replacement letters (``cache_config::init`` stops on others; the cache-string parser
#: also reads the 3.x manual's ``R``, random, which GPGPU-Sim 4 does not model).  The write and
#: write-allocate letters are checked when the string is parsed (``formats.WRITE_POLICY``,
#: ``formats.WRITE_ALLOC``).  The performance model's policy registries hold the same letters
CACHE_REPLACEMENT = {"L": "LRU", "F": "FIFO"}
#: ``-gpgpu_memory_partition_indexing`` (``partition_index_function``); others assert in
#: ``addrdec_tlx``
PARTITION_INDEXING = {0: "consecutive", 1: "bitwise permutation", 2: "IPoly", 3: "PAE", 4: "random", 5: "custom"}


def _choice(cfg: Config, name: str, table: dict[int, str]) -> None:
    v = int(cfg[name])
    if v not in table:
        valid = ", ".join(f"{k} ({d})" for k, d in table.items())
        raise ConfigError(f"{cfg.origin.get(name, 'config')}: -{name} {v} is not supported; valid values: {valid}")


def _cache_policies(cfg: Config) -> None:
    for name, opt in cfg._reg.by_name.items():
        if not isinstance(opt, Opt) or opt.kind != "CacheConfig":
            continue
        c = cfg[name]
        if c is not None and c.replacement not in CACHE_REPLACEMENT:
            valid = ", ".join(f"{k} ({d})" for k, d in CACHE_REPLACEMENT.items())
            raise ConfigError(f"{cfg.origin.get(name, 'config')}: -{name} {cfg.raw(name)!r}: replacement policy "
                              f"{c.replacement!r} is not supported; valid: {valid}")


def validate(cfg: Config) -> None:
    """Reject values GPGPU-Sim itself rejects while it initialises (an assert or exit in the
    C++ start-up code), so the error names the option instead of appearing mid-run."""
    sched = cfg.raw("gpgpu_scheduler")
    if not any(k in sched for k in SCHEDULERS):
        raise ConfigError(f"{cfg.origin.get('gpgpu_scheduler', 'config')}: -gpgpu_scheduler {sched!r} names no "
                          f"known scheduler; valid: lrr, gto, two_level_active:<n>:<inner>:<outer>, rrr, old, "
                          "warp_limiting:<n>:<m>")
    _choice(cfg, "network_mode", NETWORK_MODES)
    _choice(cfg, "gpgpu_dram_scheduler", DRAM_SCHEDULERS)
    _cache_policies(cfg)
    _choice(cfg, "gpgpu_memory_partition_indexing", PARTITION_INDEXING)
    for name in ("gpgpu_n_clusters", "gpgpu_n_cores_per_cluster", "gpgpu_n_mem", "gpgpu_n_sub_partition_per_mchannel"):
        if int(cfg[name]) == 0:
            raise ConfigError(f"{cfg.origin.get(name, 'config')}: -{name} must be at least 1")
    subp_n = int(cfg["gpgpu_n_sub_partition_per_mchannel"])
    if subp_n & (subp_n - 1):
        raise ConfigError(f"{cfg.origin.get('gpgpu_n_sub_partition_per_mchannel', 'config')}: "
                          f"-gpgpu_n_sub_partition_per_mchannel {subp_n} must be a power of two")
    amap = cfg["gpgpu_mem_addr_mapping"]
    n_mem = int(cfg["gpgpu_n_mem"])
    if amap is not None and amap.dramid_start is None and n_mem & (n_mem - 1):
        raise ConfigError(f"{cfg.origin.get('gpgpu_mem_addr_mapping', 'config')}: -gpgpu_mem_addr_mapping without "
                          f"dramid@ needs a power-of-two -gpgpu_n_mem, got {n_mem}")
    bad = check_options(cfg)
    if bad is not None:
        raise ConfigError(f"{cfg.origin.get(bad[0], 'config')}: -{bad[0]}: {bad[1]}")
    nbk = cfg["gpgpu_dram_timing_opt"]["nbk"]
    if nbk % subp_n:
        o1 = cfg.origin.get("gpgpu_dram_timing_opt", "default")
        o2 = cfg.origin.get("gpgpu_n_sub_partition_per_mchannel", "default")
        raise ConfigError(f"-gpgpu_dram_timing_opt nbk={nbk} (from {o1}) is not a multiple of "
                          f"-gpgpu_n_sub_partition_per_mchannel {subp_n} (from {o2}): GPGPU-Sim requires the banks "
                          "to divide evenly among a channel's sub-partitions")


# --------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------


def load_config(path: str | os.PathLike[str] | None = None, overrides: Iterable[str] = (),
                env: bool | Mapping[str, str] = True, gpu: str | None = None) -> Config:
    """Build the run's :class:`Config`.

    ``path`` None (and ``gpu`` None) = the embedded default, SM7_QV100.  ``gpu`` names a shipped
    config (``gpgpusim configs`` lists them).  Then ``$GPGPUSIM_OPTIONS`` (if ``env``), then
    ``$GPGPUSIM_SET_OPTIONS`` (``gpgpusim run --set``), then ``overrides`` (``-opt=value`` or ``-opt value`` strings), later wins.  ``PTX_SIM_MODE_FUNC=1``
    in the environment selects functional simulation as in GPGPU-Sim.  ``env`` may also be the
    environment to read instead of the process's (``gpgpusim run`` checks the application's).
    """
    environ: Mapping[str, str] = os.environ if env is True else (env or {})
    cfg = Config()
    if path is not None and gpu is not None:
        raise ConfigError("give either a config file or a GPU name, not both")
    if path is None:
        gpu = gpu or DEFAULT_GPU
        p = gpu_config_path(gpu)
        cfg.gpu_name = gpu
    else:
        p = Path(path)
        cfg.config_file = str(p.resolve())
    cfg.apply_file(p)
    base = p.parent
    if environ:
        extra = environ.get(ENV_OPTIONS, "")
        if extra.strip():
            cfg.sources.append(f"${ENV_OPTIONS}")
            cfg.apply_overrides([extra], f"${ENV_OPTIONS}")
        sets = environ.get(ENV_SET_OPTIONS, "")
        if sets.strip():
            cfg.sources.append("--set")
            cfg.apply_overrides([sets], "--set")
        mode = environ.get("PTX_SIM_MODE_FUNC")
        if mode is not None and mode.strip():
            cfg.set("gpgpu_ptx_sim_mode", mode.strip(), "$PTX_SIM_MODE_FUNC")
    ov = [overrides] if isinstance(overrides, str) else list(overrides)
    if ov:
        cfg.sources.append("overrides")
        cfg.apply_overrides(ov)
    validate(cfg)
    _load_icnt(cfg, base)
    if cfg["gpgpu_shader_core_pipeline"].warp_size != 32:
        # Every part of the simulator (warp masks, shuffles, votes) assumes 32-lane warps.

        raise NotSupportedError(f"warp size {cfg['gpgpu_shader_core_pipeline'].warp_size} "
                                "(-gpgpu_shader_core_pipeline): only 32 is supported")
    return cfg


def ptxplus_enabled(cfg: Any) -> bool:
    """Whether ``-gpgpu_ptx_convert_to_ptxplus 1`` (``gpgpusim run --ptxplus``) is set."""
    try:
        return bool(int(cfg.get("gpgpu_ptx_convert_to_ptxplus") or 0))
    except (AttributeError, KeyError, TypeError, ValueError):
        return False
