"""The training workload of the profile-guided native build (``gpgpusim/timing/native_train.py``)."""
from __future__ import annotations


def test_training_run_simulates_its_kernels_correctly():
    """The training workload (pure Python here, on small GPUs): every kernel's result is
    checked against numpy inside ``train``, which raises on a difference."""
    from gpgpusim.timing import native_train

    native_train.train("SM7_QV100", 2, 32, 2048)
    native_train.train("SM86_RTX3070", 1, 16, 1024)
