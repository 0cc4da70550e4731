"""The Reporter: every line of simulator output the runtime asks for, in GPGPU-Sim 4.2's text.

GPGPU-Sim counterparts: ``gpgpu_sim::print_stats`` / ``gpu_print_stat``,
``gpgpu_context::print_simulation_time``, the banner in ``gpgpusim_entrypoint.cc`` and the
option dump of ``option_parser_print`` (checklist C193-C199, C195).  Only ``report/`` formats
text; the runtime hands in plain data (:mod:`gpgpusim.report.data`).
"""

from __future__ import annotations

from collections.abc import Callable

from .. import __version__ as _pkg_version

#: the version GPGPU-Sim's banner names; we reproduce 4.2.0's behaviour and statistics
GPGPUSIM_VERSION = "4.2.0"


def _default_out(text: str) -> None:
    print(text, flush=True)


class Reporter:
    """Formats and emits the simulator's output through ``out`` (one call per line)."""

    def __init__(self, cfg, out: Callable[[str], None] | None = None) -> None:
        self.cfg = cfg
        self.out = out or _default_out

    def splash(self) -> None:
        """The start-up banner and the simulation-mode note, as GPGPU-Sim prints them."""
        mode = 1 if self.cfg.functional_only else 0
        build = f"gpgpusim-python-{_pkg_version}"
        for line in ("", "", f"        *** GPGPU-Sim Simulator Version {GPGPUSIM_VERSION}  [build {build}] ***",
                     "", "",
                     f"GPGPU-Sim PTX: simulation mode {mode} (can change with PTX_SIM_MODE_FUNC environment variable:",
                     "               1=functional simulation only, 0=detailed performance simulator)"):
            self.out(line)

    def option_dump(self) -> None:
        """``GPGPU-Sim: Configuration options:`` followed by every option and its value."""
        self.out("GPGPU-Sim: Configuration options:")
        self.out("")
        for line in self.cfg.dump_lines():
            self.out(line)
