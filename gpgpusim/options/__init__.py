"""GPGPU-Sim-compatible options: registry, config files, microformats, shipped GPU configs.

Public interface (docs/CONTRACTS.md): :func:`load_config` -> :class:`Config`
(``cfg["gpgpu_n_clusters"]``, ``cfg.dump_lines()``), :func:`main_configs` for
``gpgpusim configs``.  Checklist: C195, C209, C210, C211.
"""

from __future__ import annotations

from .config import (ENV_OPTIONS, ENV_SET_OPTIONS, Config, ConfigError, configs_dir, gpu_config_path, load_config,
                     parse_icnt, shipped_gpus)
from .registry import registry
from .summary import main


def main_configs(argv: list[str] | None = None) -> int:
    """``gpgpusim configs``: list the shipped GPU configs with a one-line summary each."""

    return main(argv)


__all__ = ["ENV_OPTIONS", "ENV_SET_OPTIONS", "Config", "ConfigError", "configs_dir", "gpu_config_path", "load_config",
           "main_configs", "parse_icnt", "registry", "shipped_gpus"]
