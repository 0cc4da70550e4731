"""Test-session set-up.

In-process tests run the performance model as pure Python: several of them patch its classes
or trace its instances, which compiled classes do not allow.  Applications the tests run in
subprocesses use the compiled model when a fresh build exists, and
``tests/apps/test_native_model.py`` compares compiled and pure runs statistic by statistic.
``GPGPUSIM_NATIVE=1 python3 -m pytest`` runs the in-process tests on the compiled model too.
"""

import os

from gpgpusim import native

if os.environ.get("GPGPUSIM_NATIVE") != "1":
    native.deactivate()
