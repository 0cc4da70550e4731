"""Test-only probe for tests/apps, loaded into a simulated app's embedded interpreter through
PYTHONPATH (Python imports ``sitecustomize`` at start-up).

When ``GPGPUSIM_TEST_LAUNCH_LOG`` names a file, ``gpgpusim.functional.engine.launch`` (and
``GlobalMemory.free``/``map_host``) are wrapped as soon as their modules are imported: it observes (never changes) the ``driver=``
the runtime chose from ``GPGPUSIM_DRIVER``, and appends one JSON line per finished launch
(kernel, driver, ctas, thread_insn, warp_insn; or the error of a faulting launch) to the log.
Processes that never import the engine (the ``gpgpusim`` CLI itself) pay nothing.

Device memory, so that tests can insist both drivers leave identical memory behind:

* each launch record carries ``mem``: one ``[key, size, sha1, hex]`` entry per live allocation
  of the launch's ``gmem`` right after the launch (key: the device address in hex, or
  ``host#i`` for the i-th buffer ``map_host`` registered in this process, since host
  addresses vary from run to run; ``hex``: the bytes themselves for allocations of at most
  ``INLINE_BYTES``, so a test can mask one field, else None);
* every ``GlobalMemory.free`` (host ``cudaFree`` and device ``free()`` alike) appends the same
  entry for the allocation it releases, its final contents, to ``<log>.frees`` — the
  whole-run final state, also for apps whose host threads launch concurrently (where a
  snapshot after one launch may include another thread's work in progress).
"""
import hashlib
import importlib.abc
import importlib.machinery
import itertools
import json
import os
import sys

INLINE_BYTES = 256


def _append(log_path, rec):
    with open(log_path, "a", encoding="utf-8") as f:
        f.write(json.dumps(rec) + "\n")


def _entry(gmem, base, key):
    """``[key, size, sha1, hex]`` of one allocation, or None if another host thread just freed it."""
    buf, size = gmem._bufs.get(base), gmem._sizes.get(base)
    if buf is None or size is None:
        return None
    data = buf[:size].tobytes()
    return [key, len(data), hashlib.sha1(data).hexdigest(),
            data.hex() if len(data) <= INLINE_BYTES else None]


_host_ids = {}  # host address -> registration number (map_host calls seen by the probe)
_host_count = itertools.count()


def _keys(gmem):
    """``{base: key}`` for every live allocation (device address, or host#i)."""
    host = getattr(gmem, "_host", set())
    keys = {}
    for n, base in enumerate(list(gmem._bufs)):  # registration order
        if base in host:
            keys[base] = f"host#{_host_ids[base]}" if base in _host_ids else f"host?{n}"
        else:
            keys[base] = hex(base)
    return keys


def _snapshot(gmem):
    keys = _keys(gmem)
    entries = (_entry(gmem, base, keys[base]) for base in sorted(keys, key=lambda b: keys[b]))
    return [e for e in entries if e is not None]


def _wrap_engine(module, log_path):
    orig = module.launch

    def launch(lm, kernel, grid, block, dyn_smem_bytes, params, **kw):
        rec = {"kernel": kernel, "driver": kw.get("driver", "batched")}
        gmem = kw.get("gmem")
        try:
            stats = orig(lm, kernel, grid, block, dyn_smem_bytes, params, **kw)
        except Exception as exc:  # a kernel fault: log which error, then let the runtime see it
            rec["error"] = getattr(getattr(exc, "code", None), "name", type(exc).__name__)
            if gmem is not None:
                rec["mem"] = _snapshot(gmem)
            _append(log_path, rec)
            raise
        rec.update(ctas=stats.ctas, thread_insn=stats.thread_insn, warp_insn=stats.warp_insn)
        if gmem is not None:
            rec["mem"] = _snapshot(gmem)
        _append(log_path, rec)
        return stats

    module.launch = launch


def _wrap_memory(module, log_path):
    cls = module.GlobalMemory
    orig_free = cls.free
    orig_map_host = cls.map_host
    frees_path = log_path + ".frees"

    def free(self, addr):
        entry = _entry(self, addr, _keys(self).get(addr)) if addr in self._bufs else None
        if entry is not None:
            _append(frees_path, entry)
        return orig_free(self, addr)

    def map_host(self, buf):
        addr = orig_map_host(self, buf)
        _host_ids[addr] = next(_host_count)
        return addr

    cls.free = free
    cls.map_host = map_host


_TARGETS = {"gpgpusim.functional.engine": _wrap_engine, "gpgpusim.functional.memory": _wrap_memory}


class _ImportHook(importlib.abc.MetaPathFinder):
    """Wraps each target module right after it is first executed."""

    def __init__(self, log_path):
        self.log_path = log_path
        self.pending = dict(_TARGETS)

    def find_spec(self, name, path, target=None):
        wrap = self.pending.pop(name, None)
        if wrap is None:
            return None
        if not self.pending:
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_wrap(module):
            exec_module(module)
            wrap(module, self.log_path)

        spec.loader.exec_module = exec_and_wrap
        return spec


if os.environ.get("GPGPUSIM_TEST_LAUNCH_LOG"):
    sys.meta_path.insert(0, _ImportHook(os.environ["GPGPUSIM_TEST_LAUNCH_LOG"]))
