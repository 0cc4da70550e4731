"""timing: the cycle-level performance model (``docs/ARCHITECTURE.md``).

Importing the package installs the finder of its compiled modules when a fresh build exists
(:mod:`gpgpusim.native`); the model then runs compiled, else as pure Python.
"""

from gpgpusim import native as _native

_native.activate()
