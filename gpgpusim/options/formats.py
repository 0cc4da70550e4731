"""Microformat value classes for GPGPU-Sim option strings.

Each class parses one option-string syntax into typed fields (``parse``) and writes it back
(``format``); ``parse(s).format() == s`` for every canonical string (round-trip tested).
GPGPU-Sim counterparts: ``cache_config::init`` (cache strings, C211), ``dram_timing`` parsing in
``gpu-sim.cc`` (``-gpgpu_dram_timing_opt``), ``gpgpu_sim_config::init_clock_domains``,
``linear_to_raw_address_translation::init`` (``-gpgpu_mem_addr_mapping``),
``specialized_unit_params``, ``shader_core_config::init`` (``-gpgpu_shader_core_pipeline``).

Malformed strings raise :class:`ValueError` with a message naming the field; the config loader
turns that into a :class:`~gpgpusim.options.config.ConfigError` naming the option and file.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

# --------------------------------------------------------------------------------------------
# cache configuration strings (C211)
# --------------------------------------------------------------------------------------------

#: replacement policies: LRU, FIFO (GPGPU-Sim ``replacement_policy_t``), random (3.x manual)
REPLACEMENT = {"L": "lru", "F": "fifo", "R": "random"}
#: write policies (``write_policy_t``): read-only, write-back, write-through, write-evict,
#: local write-back / global write-through
WRITE_POLICY = {"R": "read_only", "B": "write_back", "T": "write_through", "E": "write_evict",
                "L": "local_wb_global_wt"}
#: allocation policies (``allocation_policy_t``): on miss, on fill, streaming
ALLOC_POLICY = {"m": "on_miss", "f": "on_fill", "s": "streaming"}
#: write-allocate policies (``write_allocate_policy_t``)
WRITE_ALLOC = {"N": "no_write_allocate", "W": "write_allocate", "F": "fetch_on_write",
               "L": "lazy_fetch_on_read"}
#: set-index functions (``set_index_function``): Fermi hash, bitwise XOR, IPoly hash, linear, custom
SET_INDEX = {"H": "fermi_hash", "X": "bitwise_xor", "P": "ipoly_hash", "L": "linear", "C": "custom"}
#: MSHR kinds (``mshr_config_t``): associative (A), texture FIFO (F), and the variants that send
#: their requests to a sectored next level: sector associative (S), sector texture FIFO (T)
MSHR_TYPE = {"A": "assoc", "S": "sector_assoc", "F": "tex_fifo", "T": "sector_tex_fifo"}


#: line size of a sectored cache: GPGPU-Sim's SECTOR_SIZE (32) x SECTOR_CHUNCK_SIZE (4)
SECTOR_LINE_BYTES = 128


def _uint(text: str, what: str) -> int:
    t = text.strip()
    if not re.fullmatch(r"\d+", t):
        raise ValueError(f"{what} must be an unsigned integer, got {text!r}")
    return int(t)


def _code(text: str, table: dict[str, str], what: str) -> str:
    t = text.strip()
    if t not in table:
        raise ValueError(f"{what} must be one of {'/'.join(table)}, got {text!r}")
    return t


@dataclass(slots=True)
class CacheConfig:
    """A GPGPU-Sim cache configuration string.

    4.x form ``<S|N>:<nsets>:<bsize>:<assoc>,<rep>:<wr>:<alloc>:<wr_alloc>:<set_index>,
    <mshr>:<entries>:<max_merge>,<miss_queue>[:<fifo>][,<data_port_width>]`` (``S`` = sectored);
    3.x form without the sector flag and set-index letter, e.g. ``64:128:8,L:B:m:N,A:16:4,4``.
    ``size_bytes`` = nsets * line_bytes * assoc.
    """

    nsets: int
    line_bytes: int
    assoc: int
    replacement: str
    write_policy: str
    alloc_policy: str
    write_alloc: str
    mshr_type: str
    mshr_entries: int
    mshr_max_merge: int
    miss_queue: int
    sector: bool | None = None   # None: 3.x string (no sector flag)
    set_index: str | None = None  # None: not given (GPGPU-Sim then uses the Fermi hash)
    fifo_entries: int | None = None
    data_port_width: int | None = None

    @property
    def size_bytes(self) -> int:
        return self.nsets * self.line_bytes * self.assoc

    @property
    def is_sectored(self) -> bool:
        return bool(self.sector)

    @classmethod
    def parse(cls, text: str) -> CacheConfig:
        s = text.strip()
        groups = s.split(",")
        if len(groups) < 4 or len(groups) > 5:
            raise ValueError(f"cache config {text!r}: expected 4 or 5 comma-separated groups "
                             "<geometry>,<policies>,<mshr>,<queues>[,<port width>]")
        geo = groups[0].split(":")
        sector: bool | None = None
        if geo and geo[0].strip() in ("S", "N"):
            sector = geo[0].strip() == "S"
            geo = geo[1:]
        if len(geo) != 3:
            raise ValueError(f"cache config {text!r}: geometry must be [S|N:]<nsets>:<bsize>:<assoc>")
        nsets, bsize, assoc = (_uint(g, f"cache config {text!r}: {w}")
                               for g, w in zip(geo, ("nsets", "bsize", "assoc"), strict=True))
        pol = groups[1].split(":")
        if len(pol) not in (4, 5):
            raise ValueError(f"cache config {text!r}: policies must be <rep>:<wr>:<alloc>:<wr_alloc>[:<set_index>]")
        rep = _code(pol[0], REPLACEMENT, "replacement policy")
        wr = _code(pol[1], WRITE_POLICY, "write policy")
        alloc = _code(pol[2], ALLOC_POLICY, "allocation policy")
        wra = _code(pol[3], WRITE_ALLOC, "write-allocate policy")
        sidx = _code(pol[4], SET_INDEX, "set-index function") if len(pol) == 5 else None
        m = groups[2].split(":")
        if len(m) != 3:
            raise ValueError(f"cache config {text!r}: MSHR group must be <type>:<entries>:<max_merge>")
        mtype = _code(m[0], MSHR_TYPE, "MSHR type")
        ment = _uint(m[1], "MSHR entries")
        mmerge = _uint(m[2], "MSHR max merge")
        q = groups[3].split(":")
        if len(q) not in (1, 2):
            raise ValueError(f"cache config {text!r}: queue group must be <miss_queue>[:<fifo>]")
        mq = _uint(q[0], "miss queue size")
        fifo = _uint(q[1], "result FIFO entries") if len(q) == 2 else None
        port = _uint(groups[4], "data port width") if len(groups) == 5 else None
        if nsets == 0 or bsize == 0 or assoc == 0:
            raise ValueError(f"cache config {text!r}: nsets, bsize and assoc must be at least 1")
        if sector and bsize != SECTOR_LINE_BYTES:
            # GPGPU-Sim's sector caches have 4 hard-coded 32-byte sectors per line and stop
            # otherwise ("The line size must be product of both values").
            raise ValueError(f"cache config {text!r}: a sectored (S:) cache needs {SECTOR_LINE_BYTES}-byte "
                             f"lines (4 sectors of 32 bytes), got {bsize}")
        return cls(nsets, bsize, assoc, rep, wr, alloc, wra, mtype, ment, mmerge, mq,
                   sector, sidx, fifo, port)

    def format(self) -> str:
        geo = f"{self.nsets}:{self.line_bytes}:{self.assoc}"
        if self.sector is not None:
            geo = ("S:" if self.sector else "N:") + geo
        pol = f"{self.replacement}:{self.write_policy}:{self.alloc_policy}:{self.write_alloc}"
        if self.set_index is not None:
            pol += f":{self.set_index}"
        q = str(self.miss_queue) + (f":{self.fifo_entries}" if self.fifo_entries is not None else "")
        out = f"{geo},{pol},{self.mshr_type}:{self.mshr_entries}:{self.mshr_max_merge},{q}"
        if self.data_port_width is not None:
            out += f",{self.data_port_width}"
        return out


# --------------------------------------------------------------------------------------------
# DRAM timing
# --------------------------------------------------------------------------------------------

#: field order of the colon-list form (GPGPU-Sim 3.x had the first 11; 4.x adds the last 3)
DRAM_FIELDS = ("nbk", "CCD", "RRD", "RCD", "RAS", "RP", "RC", "CL", "WL", "CDLR", "WR",
               "nbkgrp", "CCDL", "RTPL")
#: the fields the keyed form may leave out, and the values GPGPU-Sim then uses
DRAM_OPTIONAL = {"nbkgrp": 1, "CCDL": 0, "RTPL": 0}
#: the keyed form's registration (and ``DRAM Timing Options:`` print) order, with descriptions
DRAM_KEYED_ROWS = (
    ("nbk", "number of banks"), ("CCD", "column to column delay"),
    ("RRD", "minimal delay between activation of rows in different banks"),
    ("RCD", "row to column delay"), ("RAS", "time needed to activate row"),
    ("RP", "time needed to precharge (deactivate) row"), ("RC", "row cycle time"),
    ("CDLR", "switching from write to read (changes tWTR)"), ("WR", "last data-in to row precharge"),
    ("CL", "CAS latency"), ("WL", "Write latency"), ("nbkgrp", "number of bank groups"),
    ("CCDL", "column to column delay between accesses to different bank groups"),
    ("RTPL", "read to precharge delay between accesses to different bank groups"))


@dataclass(slots=True)
class DramTiming:
    """``-gpgpu_dram_timing_opt``: colon list ``nbk:tCCD:tRRD:...`` or keyed ``nbk=16:CCD=1:...``.

    Values are in DRAM command-clock cycles.  GPGPU-Sim (``memory_config::init``) reads the two
    forms differently, and so do we:

    * keyed (the text holds a ``=``): the text is split on ``=``, ``:``, ``;`` and whitespace
      into ``name value`` pairs parsed by an option parser of its own; a repeated name keeps
      the last value; an unknown name is an error; ``nbkgrp``, ``CCDL`` and ``RTPL`` default to
      1, 0, 0, while a missing one of the other eleven makes GPGPU-Sim stop ("Missing option"),
      so it is an error here too.  GPGPU-Sim then prints the ``DRAM Timing Options:`` block
      (:meth:`print_rows`);
    * colon list: ``sscanf("%d:%d:...")`` into the fields in :data:`DRAM_FIELDS` order; the
      first 11 are required (fewer would leave GPGPU-Sim's variables unset), the last three
      default as above.  No block is printed for this form.

    ``keyed`` and ``order`` remember the form given so that ``format`` writes it back.
    """

    values: dict[str, int] = field(default_factory=dict)
    keyed: bool = True
    order: tuple[str, ...] = DRAM_FIELDS

    def __getitem__(self, key: str) -> int:
        if key in self.values:
            return self.values[key]
        return DRAM_OPTIONAL[key]

    @classmethod
    def parse(cls, text: str) -> DramTiming:
        if not text.strip():
            raise ValueError("DRAM timing string is empty")
        if "=" in text:
            return cls._parse_keyed(text)
        parts = [p.strip() for p in text.strip().split(":")]
        if parts and parts[-1] == "":
            parts.pop()
        if len(parts) < 11 or len(parts) > len(DRAM_FIELDS):
            raise ValueError(f"DRAM timing {text!r}: expected 11 to {len(DRAM_FIELDS)} colon-separated "
                             f"fields ({':'.join(DRAM_FIELDS)}) or the keyed form nbk=..:CCD=..; "
                             f"got {len(parts)} fields")
        vals = {k: _uint(p, f"DRAM timing {k}") for k, p in zip(DRAM_FIELDS, parts, strict=False)}
        return cls(vals, False, tuple(vals))

    @classmethod
    def _parse_keyed(cls, text: str) -> DramTiming:
        toks = re.sub(r"[=:;]", " ", text).split()
        if len(toks) % 2:
            raise ValueError(f"DRAM timing {text!r}: expected name=value pairs, "
                             f"{toks[-1]!r} has no value")
        vals: dict[str, int] = {}
        order: list[str] = []
        for k, v in zip(toks[0::2], toks[1::2], strict=True):
            if re.fullmatch(r"[-+]?\d+", k):
                raise ValueError(f"DRAM timing {text!r}: mixes key=value and positional fields")
            if k not in DRAM_FIELDS:
                raise ValueError(f"DRAM timing: unknown parameter {k!r} (known: {', '.join(DRAM_FIELDS)})")
            try:
                vals[k] = parse_cpp_int(v, "uint")
            except ValueError as exc:
                raise ValueError(f"DRAM timing {k}: {exc}") from None
            if k not in order:
                order.append(k)
        missing = [k for k in DRAM_FIELDS if k not in vals and k not in DRAM_OPTIONAL]
        if missing:
            raise ValueError(f"DRAM timing {text!r}: missing {', '.join(missing)} (the keyed form needs "
                             f"all of {', '.join(k for k in DRAM_FIELDS if k not in DRAM_OPTIONAL)}; "
                             "nbkgrp, CCDL, RTPL default to 1, 0, 0)")
        if vals.get("nbkgrp", 1) == 0:
            raise ValueError("DRAM timing nbkgrp: the number of bank groups cannot be zero")
        return cls(vals, True, tuple(order))

    def format(self) -> str:
        if self.keyed:
            return ":".join(f"{k}={self.values[k]}" for k in self.order)
        return ":".join(str(self.values[k]) for k in self.order)

    def print_rows(self) -> list[tuple[str, int, str]]:
        """(name, value, description) in the order GPGPU-Sim prints ``DRAM Timing Options:``;
        empty for the colon-list form, for which GPGPU-Sim prints no such block."""
        if not self.keyed:
            return []
        return [(k, self[k], d) for k, d in DRAM_KEYED_ROWS]


# --------------------------------------------------------------------------------------------
# simple lists
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class ClockDomains:
    """``-gpgpu_clock_domains <core>:<icnt>:<l2>:<dram>`` in MHz."""

    core_mhz: float
    icnt_mhz: float
    l2_mhz: float
    dram_mhz: float

    @classmethod
    def parse(cls, text: str) -> ClockDomains:
        parts = text.strip().split(":")
        if len(parts) != 4:
            raise ValueError(f"clock domains {text!r}: expected <core>:<icnt>:<l2>:<dram> in MHz")
        try:
            vals = [float(p) for p in parts]
        except ValueError:
            raise ValueError(f"clock domains {text!r}: each field must be a number (MHz)") from None
        if not all(math.isfinite(v) and v > 0 for v in vals):
            raise ValueError(f"clock domains {text!r}: frequencies must be positive finite numbers (MHz)")
        return cls(*vals)

    def format(self) -> str:
        return ":".join(_fmt_float(v) for v in (self.core_mhz, self.icnt_mhz, self.l2_mhz, self.dram_mhz))

    def as_tuple(self) -> tuple[float, float, float, float]:
        return (self.core_mhz, self.icnt_mhz, self.l2_mhz, self.dram_mhz)


def _fmt_float(v: float) -> str:
    return repr(v) if v != int(v) else f"{v:.1f}"


@dataclass(slots=True)
class IntList:
    """Comma-separated integers (opcode latency/initiation lists, pipeline widths, ...)."""

    values: tuple[int, ...]

    @classmethod
    def parse(cls, text: str) -> IntList:
        parts = text.strip().split(",")
        return cls(tuple(_int(p, f"list {text!r}") for p in parts))

    def format(self) -> str:
        return ",".join(str(v) for v in self.values)

    def __getitem__(self, i: int) -> int:
        return self.values[i]

    def __len__(self) -> int:
        return len(self.values)

    def named(self, names: tuple[str, ...] = ("ADD", "MAX", "MUL", "MAD", "DIV", "SHFL")) -> dict[str, int]:
        """The values by name; the default names are the opcode classes of
        ``-ptx_opcode_latency_*`` / ``-ptx_opcode_initiation_*`` (fp/dp lists have no SHFL)."""
        return dict(zip(names, self.values, strict=False))


def _int(text: str, what: str) -> int:
    t = text.strip()
    if not re.fullmatch(r"-?\d+", t):
        raise ValueError(f"{what}: {text!r} is not an integer")
    return int(t)


@dataclass(slots=True)
class ColonInts:
    """Colon-separated integers (``-dram_write_queue_size 32:28:16``, ``-steady_state_definition 8:4``)."""

    values: tuple[int, ...]

    @classmethod
    def parse(cls, text: str) -> ColonInts:
        return cls(tuple(_int(p, f"list {text!r}") for p in text.strip().split(":")))

    def format(self) -> str:
        return ":".join(str(v) for v in self.values)

    def __getitem__(self, i: int) -> int:
        return self.values[i]


@dataclass(slots=True)
class PartitionQueues:
    """``-gpgpu_dram_partition_queues i2$:$2d:d2$:$2i`` (icnt->L2, L2->DRAM, DRAM->L2, L2->icnt)."""

    icnt_to_l2: int
    l2_to_dram: int
    dram_to_l2: int
    l2_to_icnt: int

    @classmethod
    def parse(cls, text: str) -> PartitionQueues:
        parts = text.strip().split(":")
        if len(parts) != 4:
            raise ValueError(f"partition queues {text!r}: expected i2$:$2d:d2$:$2i")
        return cls(*(_uint(p, "partition queue size") for p in parts))

    def format(self) -> str:
        return f"{self.icnt_to_l2}:{self.l2_to_dram}:{self.dram_to_l2}:{self.l2_to_icnt}"


@dataclass(slots=True)
class CorePipeline:
    """``-gpgpu_shader_core_pipeline <nthreads>:<warpsize>[:<simd width>]`` (3.x had the 3rd field)."""

    max_threads: int
    warp_size: int
    simd_width: int | None = None

    @property
    def max_warps(self) -> int:
        return self.max_threads // self.warp_size

    @classmethod
    def parse(cls, text: str) -> CorePipeline:
        parts = text.strip().split(":")
        if len(parts) not in (2, 3):
            raise ValueError(f"shader core pipeline {text!r}: expected <nthreads>:<warpsize>")
        vals = [_uint(p, "shader core pipeline field") for p in parts]
        if vals[1] == 0 or vals[0] == 0 or vals[0] % vals[1]:
            raise ValueError(f"shader core pipeline {text!r}: thread count must be a positive multiple of "
                             "the warp size")
        return cls(*vals)

    def format(self) -> str:
        s = f"{self.max_threads}:{self.warp_size}"
        return s + (f":{self.simd_width}" if self.simd_width is not None else "")


@dataclass(slots=True)
class SpecializedUnit:
    """``-specialized_unit_N <enabled>,<num_units>,<latency>,<ID_OC width>,<OC_EX width>,<NAME>``."""

    enabled: bool
    num_units: int
    latency: int
    id_oc_width: int
    oc_ex_width: int
    name: str

    @classmethod
    def parse(cls, text: str) -> SpecializedUnit:
        parts = [p.strip() for p in text.strip().split(",")]
        if len(parts) != 6:
            raise ValueError(f"specialized unit {text!r}: expected <enabled>,<num_units>,<latency>,"
                             "<ID_OC width>,<OC_EX width>,<NAME>")
        en, n, lat, a, b = (_uint(p, "specialized unit field") for p in parts[:5])
        if en not in (0, 1):
            raise ValueError(f"specialized unit {text!r}: <enabled> must be 0 or 1")
        if not parts[5]:
            raise ValueError(f"specialized unit {text!r}: missing unit name")
        return cls(bool(en), n, lat, a, b, parts[5])

    def format(self) -> str:
        return f"{int(self.enabled)},{self.num_units},{self.latency},{self.id_oc_width},{self.oc_ex_width},{self.name}"


@dataclass(slots=True)
class RuntimeStat:
    """``-gpgpu_runtime_stat <freq>[:<flag>]``: sample period in core cycles and print flags.

    GPGPU-Sim reads it with ``sscanf("%d:%x")``: the flag is hexadecimal (``500:10`` is flag
    16; a ``0x`` prefix is allowed); the period must be positive (it divides the cycle count).
    """

    freq: int
    flag: int | None = None

    @classmethod
    def parse(cls, text: str) -> RuntimeStat:
        parts = text.strip().split(":")
        if len(parts) not in (1, 2):
            raise ValueError(f"runtime stat {text!r}: expected <freq>[:<flag in hex>]")
        f = _uint(parts[0], "runtime stat frequency")
        if f == 0:
            raise ValueError(f"runtime stat {text!r}: the sample frequency must be at least 1 cycle")
        flag = None
        if len(parts) == 2:
            m = re.fullmatch(r"(?:0[xX])?([0-9a-fA-F]+)", parts[1].strip())
            if not m:
                raise ValueError(f"runtime stat {text!r}: the flag must be hexadecimal (as sscanf %x reads it)")
            flag = int(m.group(1), 16)
        return cls(f, flag)

    def format(self) -> str:
        return str(self.freq) + (f":{self.flag:x}" if self.flag is not None else "")


#: field order of GPGPU-Sim's address decoder masks (``addrdec_mask[CHIP..BURST]``)
ADDR_FIELDS = ("CHIP", "BK", "ROW", "COL", "BURST")
#: the masks ``linear_to_raw_address_translation`` starts from when no mapping string is given:
#: ``-gpgpu_mem_address_mask`` -> (chip start bit, CHIP, BK, ROW, COL); BURST stays 0xF
PREDEFINED_ADDR_MASKS = {
    0: (10, 0x0, 0x300, 0x7FFE000, 0x1CFF),
    1: (13, 0x0, 0x1800, 0x7FFE000, 0x7FF),
    2: (11, 0x0, 0x1800, 0x7FFE000, 0x7FF),
    3: (11, 0x0, 0x1800, 0xFFFE000, 0x7FF),
}


@dataclass(slots=True)
class AddrMapping:
    """``-gpgpu_mem_addr_mapping dramid@<bit>;<map>``: which physical-address bit feeds which field.

    ``map`` lists the 64 address bits, most significant first: ``D`` chip (channel), ``B`` bank,
    ``R`` row, ``C`` column, ``S`` burst (byte in burst; also a column bit), ``0`` unused; either
    case; ``.``, ``|`` and blanks are separators.  ``dramid_start`` is where the channel bits are
    inserted (``dramid@8``), in which case the map has no ``D``.  As in GPGPU-Sim's
    ``addrdec_parseoption`` the map must give exactly 64 bits.
    """

    dramid_start: int | None
    map: str

    @property
    def bits(self) -> dict[str, list[int]]:
        """For each field letter, its address-bit positions from least significant up."""
        m = re.sub(r"[.| ]", "", self.map).upper()
        out: dict[str, list[int]] = {}
        for i, ch in enumerate(reversed(m)):
            if ch != "0":
                out.setdefault(ch, []).append(i)
        return out

    @classmethod
    def parse(cls, text: str) -> AddrMapping:
        t = text.strip()
        start = None
        if ";" in t:
            head, t = t.split(";", 1)
            mh = re.fullmatch(r"dramid@(\d+)", head.strip())
            if not mh:
                raise ValueError(f"address mapping {text!r}: prefix must be dramid@<start bit>")
            start = int(mh.group(1))
        bits = re.sub(r"[.| ]", "", t)
        if not re.fullmatch(r"[0DBRCSdbrcs]*", bits):
            raise ValueError(f"address mapping {text!r}: the map may hold only 0/D/B/R/C/S (dots allowed)")
        if len(bits) != 64:
            raise ValueError(f"address mapping {text!r}: the map must give exactly 64 bits, got {len(bits)}")
        if start is not None and "D" in bits.upper():
            raise ValueError(f"address mapping {text!r}: D bits cannot be given together with dramid@")
        if start is not None and start > 63:
            raise ValueError(f"address mapping {text!r}: dramid@{start} is beyond bit 63")
        return cls(start, t)

    def format(self) -> str:
        return (f"dramid@{self.dramid_start};" if self.dramid_start is not None else "") + self.map

    def field_masks(self) -> tuple[int | None, dict[str, int]]:
        """(chip start bit or None, {field: mask}) as ``addrdec_parseoption`` builds them."""
        masks = dict.fromkeys(ADDR_FIELDS, 0)
        for letter, positions in self.bits.items():
            for i in positions:
                if letter == "S":
                    masks["BURST"] |= 1 << i
                    masks["COL"] |= 1 << i
                else:
                    masks[{"D": "CHIP", "B": "BK", "R": "ROW", "C": "COL"}[letter]] |= 1 << i
        return self.dramid_start, masks


def _mask_limits(mask: int) -> tuple[int, int]:
    """(high, low) as ``addrdec_getmasklimit``: one past the top set bit and the lowest set bit
    (64 and 0 for an empty mask)."""
    if mask == 0:
        return 64, 0
    return mask.bit_length(), (mask & -mask).bit_length() - 1


def address_decoder_lines(mapping: AddrMapping | None, address_mask: int, n_channel: int,
                          n_sub_partition: int) -> list[str] | None:
    """The ``addr_dec_mask[...]`` and ``sub_partition_id_mask`` lines GPGPU-Sim prints when it
    builds its address decoder (``linear_to_raw_address_translation::init``), or None for a
    ``-gpgpu_mem_address_mask`` preset we do not model (only 0..3 are known here).

    With a power-of-two channel count the ``log2(channels)`` chip bits are inserted at the chip
    start bit (``dramid@``), shifting the other fields' higher bits up; otherwise the masks stay
    as given (the chip is then computed by division).
    """
    if mapping is not None:
        chip_start, masks = mapping.field_masks()
    elif address_mask in PREDEFINED_ADDR_MASKS:
        chip_start, chip, bk, row, col = PREDEFINED_ADDR_MASKS[address_mask]
        masks = {"CHIP": chip, "BK": bk, "ROW": row, "COL": col, "BURST": 0xF}
    else:
        return None
    nchipbits = max(n_channel, 1).bit_length() - 1
    gap = n_channel != 1 << nchipbits
    if chip_start is not None and not gap:
        low = (1 << chip_start) - 1
        for f in ("BK", "ROW", "COL"):
            masks[f] = (((masks[f] & ~low) << nchipbits) | (masks[f] & low)) & (2**64 - 1)
        for i in range(chip_start, chip_start + nchipbits):
            masks["CHIP"] |= 1 << i
    lines = []
    for f in ADDR_FIELDS:
        high, low_bit = _mask_limits(masks[f])
        lines.append(f"{'addr_dec_mask[' + f + ']':<20} = {masks[f]:016x} \thigh:{high} low:{low_bit}")
    sub_mask = 0
    if n_sub_partition > 1:
        want = n_sub_partition.bit_length() - 1
        high, low_bit = _mask_limits(masks["BK"])
        for i in range(low_bit, high):
            if masks["BK"] >> i & 1 and want:
                sub_mask |= 1 << i
                want -= 1
    lines.append(f"sub_partition_id_mask = {sub_mask:016x}")
    return lines


# --------------------------------------------------------------------------------------------
# dispatch
# --------------------------------------------------------------------------------------------

VALUE_CLASSES: dict[str, Any] = {
    "CacheConfig": CacheConfig, "DramTiming": DramTiming, "ClockDomains": ClockDomains,
    "IntList": IntList, "ColonInts": ColonInts, "PartitionQueues": PartitionQueues,
    "CorePipeline": CorePipeline, "SpecializedUnit": SpecializedUnit, "RuntimeStat": RuntimeStat,
    "AddrMapping": AddrMapping,
}

# Kinds whose value may also be "none" (no such cache) or empty (not configured).
_NONE_OK = {"CacheConfig", "AddrMapping"}


#: integer option kinds and their C++ types' ranges (GPGPU-Sim's OPT_INT32, OPT_UINT32, OPT_INT64)
INT_KINDS: dict[str, tuple[int, int, str]] = {
    "int": (-(2**31), 2**31 - 1, "int"),
    "uint": (0, 2**32 - 1, "unsigned int"),
    "int64": (-(2**63), 2**63 - 1, "long long"),
}


def parse_cpp_int(text: str, kind: str = "int") -> int:
    """An integer option value read as GPGPU-Sim's option parser reads it.

    ``OptionRegistry<T>::fromString`` switches the stream to hexadecimal after a leading ``0x``
    and to octal after any other leading ``0`` (so ``010`` is 8 and ``08`` is an error), then
    extracts a ``T``.  Where GPGPU-Sim would silently accept a bad value we stop with a message
    instead: trailing text (``12abc`` would read as 12) and a negative value for an unsigned
    option (which would wrap to about 4 billion) are errors, as is a value outside ``T``.
    """
    t = text.strip()
    lo, hi, ctype = INT_KINDS[kind]
    if len(t) > 2 and t[:2] == "0x":
        digits, base, what = t[2:], 16, "hexadecimal"
    elif len(t) > 1 and t[0] == "0":
        digits, base, what = t[1:], 8, "octal (leading 0)"
    else:
        digits, base, what = t, 10, "decimal"
    pat = {16: r"[0-9a-fA-F]+", 8: r"[0-7]+", 10: r"[-+]?\d+"}[base]
    if not re.fullmatch(pat, digits):
        if base == 10 and re.match(r"[-+]?\d", t):
            raise ValueError(f"{text!r} is not an integer (trailing text after the number)")
        raise ValueError(f"{text!r} is not an integer" + ("" if base == 10 else f" ({what} digits expected)"))
    v = int(digits, base)
    if v < lo:
        if lo == 0:
            raise ValueError(f"{text!r} is negative; this option is unsigned ({ctype})")
        raise ValueError(f"{text!r} is below the range of {ctype}")
    if v > hi:
        raise ValueError(f"{text!r} is above the range of {ctype} (max {hi})")
    return v


def parse_int(text: str) -> int:
    """A signed 32-bit integer option value (see :func:`parse_cpp_int`)."""
    return parse_cpp_int(text, "int")


def parse_value(kind: str, text: str) -> Any:
    """Typed value of ``text`` for an option of ``kind`` (raises ValueError when malformed).

    Kinds: ``int``/``uint``/``int64`` (C++ ``int``/``unsigned``/``long long`` options),
    ``bool`` (GPGPU-Sim reads a decimal integer and asserts it is 0 or 1), ``uint_text`` (a
    C++ string option later read with ``sscanf("%u")``, e.g. ``-ptx_opcode_latency_sfu``; the
    dump prints its text as given), ``float``, ``str``, or a value class name below.
    """
    if kind in INT_KINDS:
        return parse_cpp_int(text, kind)
    if kind == "bool":
        t = text.strip()
        if not re.fullmatch(r"[-+]?\d+", t) or int(t) not in (0, 1):
            raise ValueError(f"{text!r} is not a boolean (0 or 1)")
        return int(t) == 1
    if kind == "uint_text":
        t = text.strip()
        if not re.fullmatch(r"\+?\d+", t):
            raise ValueError(f"{text!r} is not an unsigned decimal integer")
        v = int(t)
        if v > 2**32 - 1:
            raise ValueError(f"{text!r} is above the range of unsigned int")
        return v
    if kind == "float":
        try:
            f = float(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
        if not math.isfinite(f):
            raise ValueError(f"{text!r} is not a finite number")
        return f
    if kind == "str":
        return text
    cls = VALUE_CLASSES[kind]
    if kind in _NONE_OK and text.strip() in ("none", "", "NULL"):
        return None
    return cls.parse(text)


def format_value(kind: str, value: Any) -> str:
    """The option-dump text for a typed value (the inverse of :func:`parse_value`)."""
    if value is None:
        return "none" if kind == "CacheConfig" else ""
    if kind == "bool":
        return "1" if value else "0"
    if kind in INT_KINDS or kind in ("uint_text", "float", "str"):
        return str(value)
    return value.format()
