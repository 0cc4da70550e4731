"""timing: the cycle-level performance model (DESIGN §6).

Importing the package installs the finder of its compiled modules when a fresh build exists
(:mod:`gpgpusim.timing.native`); the model then runs compiled, else as pure Python.
"""

from gpgpusim.timing import native as _native

_native.activate()
