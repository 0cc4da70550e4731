"""The option registry: every GPGPU-Sim option declared once.

GPGPU-Sim counterpart: ``option_parser.{h,cc}`` (``option_parser_register``) and the
``reg_options()`` functions of each component.  Checklist: C195 (option dump), C209 (generic
registry with name, type, description and default).

An :class:`Opt` names the option as GPGPU-Sim does (without the leading dash), gives it a
readable Python name, a type, the C++ built-in default *as a string* (GPGPU-Sim keeps
defaults as strings and parses them exactly as if they came from a config file) and the one-line
description printed in the option dump.  The declarations live in ``groups/<component>.py`` in
the order GPGPU-Sim registers (and therefore prints) them.

Types follow the C++ registration (C209 lists the parser's types): ``int``, ``uint`` and
``int64`` for ``OPT_INT32``/``OPT_UINT32``/``OPT_INT64`` (range-checked; an unsigned option
rejects a negative value, which C++ would silently wrap), ``bool`` for ``OPT_BOOL`` (0 or 1
only: GPGPU-Sim asserts that), ``str`` for plain ``OPT_CSTR`` text, ``uint_text`` for an
``OPT_CSTR`` that GPGPU-Sim later reads with ``sscanf("%u")``, and a microformat value class
from :mod:`gpgpusim.options.formats` for structured ``OPT_CSTR`` strings.  The type decides how
the option dump prints a value: integers as the C++ variable holds them (``010`` prints 8),
strings as given.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from . import formats


@dataclass(frozen=True, slots=True)
class Opt:
    """One declared option (GPGPU-Sim name, Python name, type, default string, description)."""

    name: str
    pyname: str
    kind: str
    default: str
    desc: str

    def parse(self, text: str) -> Any:
        """Convert a config-file value string into the typed value (raises ValueError)."""
        return formats.parse_value(self.kind, text)

    @property
    def typed_default(self) -> Any:
        """The built-in default as a typed value (``int``, ``bool``, a value class, ...)."""
        return self.parse(self.default)


@dataclass(frozen=True, slots=True)
class Dup:
    """A second registration of an already-declared option.

    GPGPU-Sim 4.2 registers ``-gpgpu_shmem_warp_parts`` twice, so its option dump prints that
    line twice; a ``Dup`` marks where the repeat goes so our dump matches line for line.
    """

    name: str


def dup(name: str) -> Dup:
    return Dup(name)


@dataclass(frozen=True, slots=True)
class Legacy:
    """An option older GPGPU-Sim configs still set but 4.2 no longer prints.

    Accepted (and kept, so ``Config.get`` finds it) so unmodified configs load; never dumped.
    """

    name: str
    pyname: str
    default: str
    desc: str
    kind: str = "str"
    alias_of: str | None = None   # a renamed option: setting it sets this 4.2 option instead

    def parse(self, text: str) -> Any:
        return formats.parse_value(self.kind, text)


# Options accepted for compatibility with older configs (SM2_GTX480 still names GPUWattch) and
# 3.x names of options 4.2 renamed (seeds S000/S002 option tables).
LEGACY = [
    Legacy("gpuwattch_xml_file", "gpuwattch_xml_file", "gpuwattch.xml",
           "GPUWattch XML file (GPGPU-Sim 3.x power model; superseded by -accelwattch_xml_file)"),
    Legacy("gpgpu_flush_cache", "flush_cache", "0", "3.x name of -gpgpu_flush_l1_cache", "bool",
           alias_of="gpgpu_flush_l1_cache"),
    Legacy("visualizer_clevel", "visualizer_clevel", "6", "3.x manual's name of -visualizer_zlevel", "int",
           alias_of="visualizer_zlevel"),
    Legacy("rop_latency", "rop_latency", "85", "3.x name of -gpgpu_l2_rop_latency", "int",
           alias_of="gpgpu_l2_rop_latency"),
]


class Registry:
    """All declared options, by GPGPU-Sim name and by Python name, plus the dump order."""

    def __init__(self) -> None:
        from .groups import ALL_GROUPS     # the groups import Opt from here: a cycle at import

        self.by_name: dict[str, Opt | Legacy] = {}
        self.by_pyname: dict[str, Opt | Legacy] = {}
        self.dump_order: list[str] = []
        self.groups: dict[str, list[Opt]] = {}
        for group, entries in ALL_GROUPS:
            declared: list[Opt] = []
            for e in entries:
                if isinstance(e, Dup):
                    if e.name not in self.by_name:
                        raise AssertionError(f"dup() of undeclared option {e.name}")
                    self.dump_order.append(e.name)
                    continue
                self._add(e)
                declared.append(e)
                self.dump_order.append(e.name)
            self.groups[group] = declared
        from .groups.functional import EXTENSIONS      # (the same cycle)

        for lg in LEGACY + EXTENSIONS:
            self._add(lg)

    def _add(self, e: Opt | Legacy) -> None:
        if e.name in self.by_name:
            raise AssertionError(f"option -{e.name} declared twice")
        if e.pyname in self.by_pyname:
            raise AssertionError(f"python name {e.pyname} declared twice")
        self.by_name[e.name] = e
        self.by_pyname[e.pyname] = e

    def lookup(self, name: str) -> Opt | Legacy | None:
        return self.by_name.get(name)

    def suggest(self, name: str) -> str | None:
        """The closest declared option name (for did-you-mean messages), or None."""
        close = difflib.get_close_matches(name, list(self.by_name), n=1, cutoff=0.6)
        return close[0] if close else None


_REGISTRY: Registry | None = None


def registry() -> Registry:
    """The process-wide registry (built once on first use)."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = Registry()
    return _REGISTRY
