"""gpgpusim.hostmem: malloc thresholds for the application process."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from gpgpusim import hostmem

# A simulation thread's pattern: a chunk's lane arrays (32 x 512 KB) allocated, then all freed,
# 50 times over; prints the minor page faults it took.
_CHURN = """
import resource, sys, threading
import numpy as np
from gpgpusim import hostmem
print(hostmem.tune_malloc(__import__("os").environ))
def work():
    for _ in range(50):
        arrs = [np.ones(65536, np.int64) for _ in range(32)]
        del arrs
t0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
th = threading.Thread(target=work)
th.start()
th.join()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - t0)
"""


def _churn(extra_env: dict[str, str]) -> tuple[str, int]:
    env = {k: v for k, v in os.environ.items() if not hostmem.user_set({k: v})}
    env.update(extra_env)
    out = subprocess.run([sys.executable, "-c", _CHURN], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return out[0], int(out[1])


def test_user_settings_are_left_alone():
    assert not hostmem.user_set({"PATH": "/bin", "GLIBC_TUNABLES": "glibc.rtld.nns=2"})
    for env in ({"MALLOC_TRIM_THRESHOLD_": "0"}, {"MALLOC_MMAP_THRESHOLD_": "1"}, {"MALLOC_TOP_PAD_": "0"},
                {"GLIBC_TUNABLES": "glibc.malloc.perturb=0"}):
        assert hostmem.user_set(env)
        assert hostmem.tune_malloc(env) is False


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_freed_lane_arrays_stay_mapped():
    tuned, faults = _churn({})
    assert tuned == "True"
    # 16 MB touched once is 4,096 pages; without the thresholds every round faults them again
    assert faults < 2 * 4096
    untuned, faults_default = _churn({"GLIBC_TUNABLES": "glibc.malloc.perturb=0"})
    assert untuned == "False"
    assert faults_default > 4 * faults


# Free heap blocks inside the heap (a live block above them keeps the heap's top from being
# trimmed by free itself): RSS before and after release_free, in MB.
_RELEASE = """
import ctypes
from gpgpusim import hostmem
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = (ctypes.c_size_t,)
libc.free.argtypes = (ctypes.c_void_p,)
libc.mallopt(-3, 4 << 20)      # M_MMAP_THRESHOLD: these blocks come from the heap
libc.mallopt(-1, 64 << 20)     # M_TRIM_THRESHOLD: free() keeps the top
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20
blocks = [libc.malloc(256 << 10) for _ in range(64)]
for p in blocks:
    ctypes.memset(p, 1, 256 << 10)
pin = libc.malloc(4096)
for p in blocks:
    libc.free(p)
before = rss()
hostmem.release_free()
print(before, rss())
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_release_free_returns_the_free_heap_pages():
    out = subprocess.run([sys.executable, "-c", _RELEASE], capture_output=True, text=True,
                         check=True).stdout.split()
    before, after = float(out[0]), float(out[1])
    assert before - after > 12          # of the 16 MB freed
