"""Test-only probe for tests/apps, loaded into a simulated app's embedded interpreter through
PYTHONPATH (Python imports ``sitecustomize`` at start-up).

When ``GPGPUSIM_TEST_LAUNCH_LOG`` names a file, ``gpgpusim.functional.engine.launch`` is
wrapped as soon as that module is imported: it observes (never changes) the ``driver=``
the runtime chose from ``GPGPUSIM_DRIVER``, and appends one JSON line per finished launch (kernel, driver,
ctas, thread_insn, warp_insn; or the error of a faulting launch) to the log. Processes that never import the engine (the
``gpgpusim`` CLI itself) pay nothing.
"""
import importlib.abc
import importlib.machinery
import json
import os
import sys

_TARGET = "gpgpusim.functional.engine"


def _append(log_path, rec):
    with open(log_path, "a", encoding="utf-8") as f:
        f.write(json.dumps(rec) + "\n")


def _wrap(module, log_path):
    orig = module.launch

    def launch(lm, kernel, grid, block, dyn_smem_bytes, params, **kw):
        rec = {"kernel": kernel, "driver": kw.get("driver", "batched")}
        try:
            stats = orig(lm, kernel, grid, block, dyn_smem_bytes, params, **kw)
        except Exception as exc:  # a kernel fault: log which error, then let the runtime see it
            rec["error"] = getattr(getattr(exc, "code", None), "name", type(exc).__name__)
            _append(log_path, rec)
            raise
        rec.update(ctas=stats.ctas, thread_insn=stats.thread_insn, warp_insn=stats.warp_insn)
        _append(log_path, rec)
        return stats

    module.launch = launch


class _EngineHook(importlib.abc.MetaPathFinder):
    def __init__(self, log_path):
        self.log_path = log_path

    def find_spec(self, name, path, target=None):
        if name != _TARGET:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_wrap(module):
            exec_module(module)
            _wrap(module, self.log_path)

        spec.loader.exec_module = exec_and_wrap
        return spec


if os.environ.get("GPGPUSIM_TEST_LAUNCH_LOG"):
    sys.meta_path.insert(0, _EngineHook(os.environ["GPGPUSIM_TEST_LAUNCH_LOG"]))
