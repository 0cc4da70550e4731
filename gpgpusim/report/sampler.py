"""Periodic sampler and the AerialVision time-lapse log writer.

GPGPU-Sim counterparts: the ``-gpgpu_runtime_stat`` / ``-gpu_stat_sample_freq`` sampling in
``gpgpu_sim::cycle`` and ``visualizer_printstat`` (visualizer.cc), checklist C196, C197.

The timing model calls :meth:`Sampler.tick` every core cycle it simulates (cheap: one compare)
or :meth:`Sampler.sample` directly; every ``freq`` cycles the sampler takes the *difference*
of the cumulative counters since the previous sample and hands it to its sinks (the Reporter's
JSON series and, with ``-visualizer_enabled 1``, the AerialVision log).

AerialVision log: a gzip text file (``-visualizer_outputfile``, default
``gpgpusim_visualizer__<date>.log.gz``, compression ``-visualizer_zlevel``) with one block per
sample of ``name: value`` lines (scalars) and ``name: v0 v1 ...`` lines (per-core or
per-partition arrays, e.g. ``shaderinsncount``, ``shaderwarpdiv``, ``dramncmd``), then, closing
the block as GPGPU-Sim's ``visualizer_printstat`` does, ``globalcyclecount``,
``globalinsncount`` (instructions since the kernel started) and ``globaltotinsncount``.  The
timing model names its sampled counters with AerialVision's keywords.
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
    """

    def __init__(self, path: str | Path, zlevel: int = 6) -> None:
        if not 0 <= zlevel <= 9:
            raise ValueError(f"-visualizer_zlevel must be 0..9, got {zlevel}")
        self.path = Path(path)
        self.zlevel = zlevel
        self._first = True

    _GLOBAL = ("globalinsncount", "globaltotinsncount")

    def write(self, cycle: int, values: dict[str, Any]) -> None:
        mode = "wt" if self._first else "at"
        self._first = False
        with gzip.open(self.path, mode, compresslevel=self.zlevel) as f:
            self._block(f, cycle, values)

    def _block(self, f: Any, cycle: int, values: dict[str, Any]) -> None:
        for k, v in values.items():
            if k == "cycle" or k in self._GLOBAL:
                continue
            if isinstance(v, (list, tuple)):
                f.write(f"{k}: " + " ".join(str(x) for x in v) + "\n")
            else:
                f.write(f"{k}: {v}\n")
        f.write(f"globalcyclecount: {cycle}\n")
        for k in self._GLOBAL:
            if k in values:
                f.write(f"{k}: {values[k]}\n")

    def close(self) -> None:
        """Nothing stays open between samples; kept so callers can treat it like a file."""


def visualizer_path(cfg: Any) -> str:
    """The log path: ``-visualizer_outputfile``, or GPGPU-Sim's dated default when NULL."""
    name = cfg.raw("visualizer_outputfile")
    if name and name != "NULL":
        return name
    return "gpgpusim_visualizer__" + time.strftime("%a-%b-%d-%H-%M-%S-%Y") + ".log.gz"


class Sampler:
    """Every ``freq`` cycles, emit the change of the cumulative counters to each sink."""

    __slots__ = ("freq", "next_cycle", "_prev", "sinks")

    def __init__(self, freq: int, sinks: list[Callable[[int, dict[str, Any]], None]] | None = None) -> None:
        if freq <= 0:
            raise ValueError(f"sample frequency must be positive, got {freq}")
        self.freq = freq
        self.next_cycle = freq
        self._prev: dict[str, Any] = {}
        self.sinks = list(sinks or [])

    @classmethod
    def from_config(cls, cfg: Any, reporter: Any = None) -> Sampler:
        """A sampler at ``-gpgpu_runtime_stat``'s period feeding the Reporter's JSON series and,
        when ``-visualizer_enabled``, an :class:`AerialVisionWriter`."""
        sinks: list[Callable[[int, dict[str, Any]], None]] = []
        if reporter is not None:
            sinks.append(reporter.sample)
        s = cls(cfg["gpgpu_runtime_stat"].freq, sinks)
        if cfg["visualizer_enabled"]:
            w = AerialVisionWriter(visualizer_path(cfg), int(cfg["visualizer_zlevel"]))
            s.sinks.append(w.write)
        return s

    def tick(self, cycle: int, read_counters: Callable[[], dict[str, Any]]) -> None:
        """Call each simulated cycle; reads the counters only when a sample is due."""
        if cycle >= self.next_cycle:
            self.sample(cycle, read_counters())
            self.next_cycle = cycle - cycle % self.freq + self.freq

    def sample(self, cycle: int, counters: dict[str, Any]) -> None:
        d = delta(counters, self._prev)
        self._prev = copy.deepcopy(dict(counters))
        for sink in self.sinks:
            sink(cycle, d)
