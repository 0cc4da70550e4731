"""Periodic sampler and the AerialVision time-lapse log writer.

GPGPU-Sim counterparts: the ``-gpgpu_runtime_stat`` / ``-gpu_stat_sample_freq`` sampling in
``gpgpu_sim::cycle`` and ``gpgpu_sim::visualizer_printstat`` (gpu-sim.cc / visualizer.cc),
checklist C196, C197.

The timing model calls :meth:`Sampler.tick` every core cycle it simulates (cheap: one compare)
or :meth:`Sampler.sample` directly, with ``cycle`` = ``gpu_sim_cycle`` (cycles since the
current kernel started: GPGPU-Sim samples when ``gpu_sim_cycle % freq == 0``), and calls
:meth:`Sampler.kernel_start` when a kernel starts (where GPGPU-Sim zeroes ``gpu_sim_cycle`` and
``gpu_sim_insn``).  The counters it hands over are *running totals* named with AerialVision's
keywords: ``globalinsncount`` is ``gpu_sim_insn`` (since the kernel started),
``globaltotinsncount`` is ``gpu_tot_sim_insn``, per-core arrays such as ``shaderinsncount`` are
cumulative.  Two kinds of sinks receive them:

* AerialVision sinks get the totals unchanged, because that is what ``visualizer_printstat``
  writes and what AerialVision expects (its parser differences consecutive samples itself and
  restarts the global series at each kernel);
* series sinks (the Reporter's JSON ``samples``) get the change since the previous sample, so a
  plotted series reads "per interval"; the per-kernel totals restart from zero at a kernel
  start.  Gauges (levels such as active warps, named when the sampler is made, and counters
  named ``max*``) are passed as they are.  Each series record also carries ``cycle`` (``gpu_sim_cycle``) and ``tot_cycle``
  (``gpu_tot_sim_cycle`` at the kernel's start plus ``cycle``, monotonic over the run).

AerialVision log: a gzip text file (``-visualizer_outputfile``, default
``gpgpusim_visualizer__<ctime with ' ' and ':' as '-'>.log.gz``, compression
``-visualizer_zlevel``) with one block per sample: ``name: value`` lines (scalars), ``name: v0
v1 ... `` lines (per-core arrays, each value followed by a space as ``gzprintf("%u ")`` writes
them; ``shaderinsncount`` and ``shaderwarpinsncount`` have two spaces after the colon), ``name:
<id> <value>`` lines (per-partition dicts, one line per partition), then, closing the block as
``visualizer_printstat`` does, ``globalcyclecount``, ``globalinsncount`` and
``globaltotinsncount``.
"""

from __future__ import annotations

import copy
import gzip
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .stats import delta


class AerialVisionWriter:
    """Appends sample blocks to the gzip log AerialVision reads.

    Like ``visualizer_printstat``, the file is created on the first sample and each sample is
    appended as its own gzip member (re-opened in append mode), so the log stays readable even
    if the simulation is interrupted; ``-visualizer_zlevel 0`` stores the members uncompressed.
    ``write(cycle, totals)`` takes ``cycle`` = ``gpu_sim_cycle`` and the running totals.
    """

    def __init__(self, path: str | Path, zlevel: int = 6) -> None:
        if not 0 <= zlevel <= 9:
            raise ValueError(f"-visualizer_zlevel must be 0..9, got {zlevel}")
        self.path = Path(path)
        self.zlevel = zlevel
        self._first = True

    _GLOBAL = ("globalinsncount", "globaltotinsncount")
    #: per-core arrays ``shader_core_stats::visualizer_print`` writes with "name:  " (two spaces)
    _TWO_SPACES = frozenset({"shaderinsncount", "shaderwarpinsncount"})

    def write(self, cycle: int, values: dict[str, Any]) -> None:
        mode = "wb" if self._first else "ab"
        self._first = False
        with gzip.GzipFile(self.path, mode, compresslevel=self.zlevel) as f:
            f.write(self.block(cycle, values).encode())

    def block(self, cycle: int, values: dict[str, Any]) -> str:
        """The text of one sample block."""
        out: list[str] = []
        for k, v in values.items():
            if k in ("cycle", "tot_cycle") or k in self._GLOBAL:
                continue
            if isinstance(v, (list, tuple)):
                sep = "  " if k in self._TWO_SPACES else " "
                out.append(f"{k}:{sep}" + "".join(f"{x} " for x in v) + "\n")
            elif isinstance(v, dict):
                out.extend(f"{k}: {unit} {x}\n" for unit, x in v.items())
            else:
                out.append(f"{k}: {v}\n")
        out.append(f"globalcyclecount: {cycle}\n")
        out.extend(f"{k}: {values[k]}\n" for k in self._GLOBAL if k in values)
        return "".join(out)

    def close(self) -> None:
        """Nothing stays open between samples; kept so callers can treat it like a file."""


def visualizer_path(cfg: Any) -> str:
    """The log path: ``-visualizer_outputfile``, or GPGPU-Sim's dated default when NULL (the
    ``ctime`` text with blanks and colons turned into dashes, e.g.
    ``gpgpusim_visualizer__Mon-Nov--3-09-05-01-2025.log.gz``)."""
    name = cfg.raw("visualizer_outputfile")
    if name and name != "NULL":
        return name
    stamp = time.asctime().replace(" ", "-").replace("\t", "-").replace(":", "-")
    return "gpgpusim_visualizer__" + stamp + ".log.gz"


Sink = Callable[[int, dict[str, Any]], None]

#: counters that restart at each kernel (``gpu_sim_insn``, ``gpu_sim_cycle``)
PER_KERNEL = ("globalinsncount", "globalcyclecount")


class Sampler:
    """Every ``freq`` cycles: the running totals to each raw sink (AerialVision) and their change
    since the previous sample to each series sink (JSON)."""

    __slots__ = ("freq", "next_cycle", "_prev", "sinks", "raw_sinks", "_tot_base", "gauges")

    def __init__(self, freq: int, sinks: list[Sink] | None = None, raw_sinks: list[Sink] | None = None,
                 gauges: frozenset[str] | set[str] = frozenset()) -> None:
        if freq <= 0:
            raise ValueError(f"sample frequency must be positive, got {freq}")
        self.freq = freq
        self.next_cycle = freq
        self._prev: dict[str, Any] = {}
        self.sinks = list(sinks or [])          # series sinks: differences since the previous sample
        self.raw_sinks = list(raw_sinks or [])  # AerialVision sinks: running totals
        self._tot_base = 0
        self.gauges = frozenset(gauges)        # levels, not running totals: never differenced

    @classmethod
    def from_config(cls, cfg: Any, reporter: Any = None) -> Sampler:
        """A sampler at ``-gpgpu_runtime_stat``'s period feeding the Reporter's JSON series and,
        when ``-visualizer_enabled``, an :class:`AerialVisionWriter`."""
        s = cls(cfg["gpgpu_runtime_stat"].freq, [reporter.sample] if reporter is not None else [])
        if cfg["visualizer_enabled"]:
            w = AerialVisionWriter(visualizer_path(cfg), int(cfg["visualizer_zlevel"]))
            s.raw_sinks.append(w.write)
        return s

    def kernel_start(self, tot_sim_cycle: int = 0) -> None:
        """A kernel starts: ``gpu_sim_cycle`` and ``gpu_sim_insn`` restart from 0 (so does the
        sampling phase); ``tot_sim_cycle`` is ``gpu_tot_sim_cycle`` at this point."""
        self.next_cycle = self.freq
        self._tot_base = tot_sim_cycle
        for k in PER_KERNEL:
            self._prev.pop(k, None)

    def tick(self, cycle: int, read_counters: Callable[[], dict[str, Any]]) -> None:
        """Call each simulated cycle (``gpu_sim_cycle``); reads the counters only when a sample
        is due."""
        if cycle >= self.next_cycle:
            self.sample(cycle, read_counters())
            self.next_cycle = cycle - cycle % self.freq + self.freq

    def sample(self, cycle: int, counters: dict[str, Any]) -> None:
        for raw in self.raw_sinks:
            raw(cycle, counters)
        d = delta({k: v for k, v in counters.items() if k not in self.gauges}, self._prev)
        d.update({k: copy.deepcopy(v) for k, v in counters.items() if k in self.gauges})
        d["tot_cycle"] = self._tot_base + cycle
        self._prev = copy.deepcopy(dict(counters))
        for sink in self.sinks:
            sink(cycle, d)
